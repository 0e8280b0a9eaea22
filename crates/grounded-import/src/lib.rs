//! `import`: a corpus from TypeScript declarations (`grounded import dts`). Reads
//! `.d.ts` files (folders recursively, `/// <reference path>` followed) with
//! tree-sitter-typescript (`dts`), turns declarations into the corpus's interfaces,
//! members and globals (`map`), renders the chunks (`render`) and writes them where
//! nothing is half-written (`write`). Declarations that are modules (`declare module
//! "x"`, a package's files with `import`/`export`) become one interface per module
//! (`Module:`), named as TypeScript resolves the package (`modpath`); their exports
//! are never globals.
//!
//! It knows TypeScript, never an engine: what declarations cannot say (the ECMAScript
//! level, `Extensible:`, `Global members:`, which declaration a colliding name means,
//! the overlay) comes from the options the user keeps. Layer: uses `docs` (to keep its
//! output readable by the loader and to load it back) and `es` (the language's own
//! built-ins); only `cli` uses it.
//!
//! ## Layer
//!
//! May depend on: `grounded-es`, `grounded-textfile`, `grounded-docs` (its
//! `Cargo.toml`, which the compiler holds; `tests/cli/layers.rs` keeps this line equal
//! to it).
//!
//! Must never know: any engine: what declarations cannot say comes from the user's
//! options; only the command line uses it.

#![warn(missing_docs)]

pub mod dts;
pub mod implied;
pub mod map;
pub mod modpath;
pub mod render;
pub mod text;
pub mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bad input, with the file and line that say where (line 0: the file as a whole).
#[derive(Debug, Clone)]
pub struct ImportError {
    /// The file, as the user named it (or as a reference named it).
    pub file: String,
    /// 1-based line; 0 for the whole file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ImportError {
    /// An error at `file:line`.
    pub fn new(file: &str, line: usize, message: impl Into<String>) -> Self {
        ImportError {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.file.is_empty() {
            write!(f, "{}", self.message)
        } else if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

/// What the declarations cannot say, from the options file and the command line.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The ECMAScript level (`3`, `5`, `2015`).
    #[serde(default = "default_es")]
    pub es: String,
    /// Script extensions (`.jsx`).
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Directive prefixes (`#include`).
    #[serde(default)]
    pub directives: Vec<String>,
    /// Syntax rules allowed beyond the level.
    #[serde(default)]
    pub also_allows: Vec<String>,
    /// Built-ins beyond the level.
    #[serde(default)]
    pub also_has: Vec<String>,
    /// Interfaces (by their corpus names) marked `Extensible: yes`.
    #[serde(default)]
    pub extensible: Vec<String>,
    /// Interfaces marked `Global members: yes`.
    #[serde(default)]
    pub global_members: Vec<String>,
    /// Interfaces marked `Loose member names: yes`.
    #[serde(default)]
    pub loose_member_names: Vec<String>,
    /// Every enum marked `Loose member names: yes`.
    #[serde(default)]
    pub loose_enums: bool,
    /// Declared name → the corpus name of the declaration that owns it when several
    /// collide (`Window = "ScriptUIWindow"`).
    #[serde(default)]
    pub prefer: BTreeMap<String, String>,
    /// A `facts.toml` to copy to the corpus root (relative to the options file).
    #[serde(default)]
    pub facts: Option<PathBuf>,
    /// Classes the engine never builds with `new` (its objects come from collections
    /// and factories): a corpus name, or a declaration file (`.d.ts`, as the summary
    /// names it) for every class declared in it. They get no `Constructor:` line,
    /// neither TypeScript's implicit one nor a declared one.
    #[serde(default)]
    pub no_constructor: Vec<String>,
    /// `Modules:` of the Engine chunk: how scripts load modules (`esm`, `commonjs`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// `Remote modules: yes`: a URL specifier is loaded from elsewhere, never judged.
    #[serde(default)]
    pub remote_modules: bool,
    /// `Entry exports:`: the exports the engine calls in an entry script, in order.
    #[serde(default)]
    pub entry_exports: Vec<String>,
    /// `Scripts run alone: yes`: each script sees its own names and what it loads.
    #[serde(default)]
    pub scripts_run_alone: bool,
}

fn default_es() -> String {
    "3".into()
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            es: default_es(),
            extensions: Vec::new(),
            directives: Vec::new(),
            also_allows: Vec::new(),
            also_has: Vec::new(),
            extensible: Vec::new(),
            global_members: Vec::new(),
            loose_member_names: Vec::new(),
            loose_enums: false,
            prefer: BTreeMap::new(),
            facts: None,
            no_constructor: Vec::new(),
            modules: Vec::new(),
            remote_modules: false,
            entry_exports: Vec::new(),
            scripts_run_alone: false,
        }
    }
}

/// One run's request.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Files and folders.
    pub paths: Vec<PathBuf>,
    /// The corpus folder to write.
    pub out: PathBuf,
    /// The options file.
    pub options: Option<PathBuf>,
    /// `--es`.
    pub es: Option<String>,
    /// `--extensions`.
    pub extensions: Option<Vec<String>>,
    /// `--directives`.
    pub directives: Option<Vec<String>>,
    /// `--also-allows`.
    pub also_allows: Option<Vec<String>>,
}

/// What a run did, for the summary.
#[derive(Debug, Default)]
pub struct Report {
    /// Files read, as shown in chunks (relative to their common folder).
    pub files: Vec<String>,
    /// Chunks written.
    pub chunks: usize,
    /// Interface, member, global and constructor counts.
    pub counts: render::Counts,
    /// `(declared, new name, where, why)`.
    pub renames: Vec<(String, String, String, String)>,
    /// Types read as `any`, by why.
    pub anys: BTreeMap<String, usize>,
    /// `where: what: why`.
    pub skipped: Vec<String>,
    /// Host declarations named like a built-in of a later edition, kept as the
    /// host's: `(name, the edition year that has it)`.
    pub kept_builtins: Vec<(String, u16)>,
    /// The level's edition year.
    pub level: u16,
    /// What the loader said of the written corpus (each one a bug of the importer or
    /// something the declarations themselves leave open).
    pub load_diagnostics: Vec<String>,
    /// Module interfaces written (`Module:` lines), by specifier.
    pub modules: Vec<String>,
    /// Named exports written as members of module interfaces.
    pub exports: usize,
}

/// Reads the settings: the options file, then the command line over it.
pub fn settings(req: &Request) -> Result<Settings, ImportError> {
    let mut s = match &req.options {
        Some(p) => {
            let shown = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|e| {
                ImportError::new(&shown, 0, format!("cannot read the options file: {e}"))
            })?;
            let mut s: Settings = toml::from_str(&text).map_err(|e| {
                let line = e
                    .span()
                    .map(|r| text.get(..r.start).unwrap_or("").lines().count().max(1))
                    .unwrap_or(0);
                ImportError::new(&shown, line, format!("options: {}", e.message()))
            })?;
            if let Some(f) = &s.facts {
                s.facts = Some(p.parent().unwrap_or(Path::new(".")).join(f));
            }
            s
        }
        None => Settings::default(),
    };
    if let Some(es) = &req.es {
        s.es = es.clone();
    }
    if !s.es.chars().all(|c| c.is_ascii_digit()) || s.es.is_empty() {
        return Err(ImportError::new(
            "",
            0,
            format!(
                "--es {}: an ECMAScript edition is a number (3, 5, 2015)",
                s.es
            ),
        ));
    }
    if let Some(v) = &req.extensions {
        s.extensions = v.clone();
    }
    s.extensions = s
        .extensions
        .iter()
        .map(|e| {
            if e.starts_with('.') {
                e.clone()
            } else {
                format!(".{e}")
            }
        })
        .collect();
    if let Some(v) = &req.directives {
        s.directives = v.clone();
    }
    if let Some(d) = s
        .directives
        .iter()
        .find(|d| !d.starts_with('#') || d.len() < 2)
    {
        return Err(ImportError::new(
            "",
            0,
            format!("directive `{d}` does not begin with `#`"),
        ));
    }
    if let Some(v) = &req.also_allows {
        s.also_allows = v.clone();
    }
    Ok(s)
}

/// Runs the import: reads, maps, writes `req.out` whole or not at all.
pub fn import_dts(req: &Request) -> Result<Report, ImportError> {
    let settings = settings(req)?;
    let facts = match &settings.facts {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| {
            ImportError::new(
                &p.display().to_string(),
                0,
                format!("cannot read the facts file the options name: {e}"),
            )
        })?),
        None => None,
    };
    let (paths, mut parsed) = read_all(&req.paths)?;
    resolve_links(&paths, &mut parsed);
    let files = shown_names(&paths);
    // A collision's prefix comes from the whole path: `index.d.ts` read alone is named
    // by its folder.
    let labels: Vec<String> = paths
        .iter()
        .map(|p| map::file_label(&p.to_string_lossy().replace('\\', "/")))
        .collect();
    let (chunks, counts, model) = convert(parsed, &files, &labels, &settings)?;
    let load_diagnostics = write::write_corpus(&req.out, &chunks, facts.as_deref())
        .map_err(|m| ImportError::new(&req.out.display().to_string(), 0, m))?;
    let mut skipped: Vec<String> = model
        .skipped
        .iter()
        .map(|(f, l, what, why)| {
            format!(
                "{}:{l}: `{what}`: {why}",
                files.get(*f).map(String::as_str).unwrap_or("?")
            )
        })
        .collect();
    skipped.dedup();
    Ok(Report {
        chunks: chunks.len(),
        counts,
        renames: model
            .renames
            .iter()
            .map(|(old, new, f, l, why)| {
                (
                    old.clone(),
                    new.clone(),
                    format!("{}:{l}", files[*f]),
                    why.clone(),
                )
            })
            .collect(),
        anys: model.anys.by_reason.clone(),
        skipped,
        load_diagnostics,
        files,
        kept_builtins: model
            .kept_builtins
            .iter()
            .map(|(n, y)| (n.clone(), *y))
            .collect(),
        level: model.level,
        modules: model
            .module_entities
            .values()
            .filter_map(|&i| model.entities[i].module.clone())
            .collect(),
        exports: model.exports_written,
    })
}

/// Declarations of several files to chunks: the model, then the rendering.
fn convert(
    parsed: Vec<dts::FileDecls>,
    files: &[String],
    labels: &[String],
    settings: &Settings,
) -> Result<(Vec<render::Chunk>, render::Counts, map::Model), ImportError> {
    let mut decls = Vec::new();
    let mut skipped = Vec::new();
    let mut modules = Vec::new();
    for f in parsed {
        decls.extend(f.decls);
        skipped.extend(f.skipped);
        modules.extend(f.modules);
    }
    if decls.is_empty() {
        return Err(ImportError::new(
            "",
            0,
            format!(
                "no declaration in the {} file(s) read: nothing to import",
                files.len()
            ),
        ));
    }
    let mut model = map::Model::build(decls, modules, files, labels, settings)
        .map_err(|m| ImportError::new("", 0, m))?;
    // Here, not inside `map`: `implied` reads the model, and `map` calling it back made
    // the two modules a circle.
    implied::check_no_constructor(&model.entities, files, settings)
        .map_err(|m| ImportError::new("", 0, m))?;
    for s in skipped {
        model.skip(s.file, s.line, s.what, &s.why);
    }
    let (chunks, counts) = render::chunks(&mut model, files, settings);
    Ok((chunks, counts, model))
}

/// The corpus (as JSON Lines) of declaration texts held in memory, `(name, text)`;
/// references are not followed. The fuzz targets and embedders use it.
pub fn jsonl_of_texts(texts: &[(&str, &str)], settings: &Settings) -> Result<String, ImportError> {
    let mut parsed = Vec::new();
    for (i, (name, text)) in texts.iter().enumerate() {
        parsed.push(dts::read(text, i, name, &modpath::spec_of_name(name))?);
    }
    let files: Vec<String> = texts.iter().map(|(n, _)| n.to_string()).collect();
    let labels: Vec<String> = files.iter().map(|f| map::file_label(f)).collect();
    let (chunks, _, _) = convert(parsed, &files, &labels, settings)?;
    let mut out = String::new();
    for c in &chunks {
        out.push_str(
            &serde_json::to_string(c).map_err(|e| ImportError::new("", 0, e.to_string()))?,
        );
        out.push('\n');
    }
    Ok(out)
}

/// Reads every file the paths name, and those their references (and relative imports)
/// name, once each, in a fixed order (the paths' order, a folder's files sorted,
/// references where they are met).
fn read_all(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<dts::FileDecls>), ImportError> {
    // (file, as shown, the folder the user named it under)
    let mut queue: Vec<(PathBuf, String, Option<PathBuf>)> = Vec::new();
    for p in paths {
        let shown = p.display().to_string();
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, 0);
            found.sort();
            queue.extend(found.into_iter().map(|f| {
                let s = f.display().to_string();
                (f, s, Some(p.clone()))
            }));
        } else if p.exists() {
            if !shown.ends_with(".ts") {
                return Err(ImportError::new(
                    &shown,
                    0,
                    "not a TypeScript declaration file (a .d.ts)",
                ));
            }
            queue.push((p.clone(), shown, None));
        } else {
            return Err(ImportError::new(&shown, 0, "no such file or folder"));
        }
    }
    if queue.is_empty() {
        return Err(ImportError::new(
            "",
            0,
            "no .d.ts file in the paths given: nothing to import",
        ));
    }
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut order = Vec::new();
    let mut parsed = Vec::new();
    let mut i = 0;
    while i < queue.len() {
        let (path, shown, root) = queue[i].clone();
        i += 1;
        let key = std::fs::canonicalize(&path).unwrap_or(path.clone());
        if !seen.insert(key.clone()) {
            continue;
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| ImportError::new(&shown, 0, format!("cannot read: {e}")))?;
        let text = match String::from_utf8(bytes) {
            Ok(t) if !grounded_textfile::looks_binary(&t) => grounded_textfile::strip_bom(t),
            _ => {
                return Err(ImportError::new(
                    &shown,
                    0,
                    "not a text file: not TypeScript",
                ))
            }
        };
        grounded_textfile::reading(&shown);
        let spec = modpath::spec_of_file(&key, root.as_deref());
        let fd = dts::read(&text, order.len(), &shown, &spec)?;
        let dir = key.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut refs = Vec::new();
        for (r, line) in &fd.references {
            let target = dir.join(r);
            if !target.is_file() {
                return Err(ImportError::new(
                    &shown,
                    *line,
                    format!("`/// <reference path=\"{r}\" />` names a file that does not exist"),
                ));
            }
            refs.push((target.clone(), target.display().to_string(), root.clone()));
        }
        // A module's relative imports are read too (`import "./global.js"` brings the
        // package's globals); one that names no file is said when links resolve.
        for m in &fd.modules {
            for s in m.links.iter().filter_map(|(l, _)| modpath::link_spec(l)) {
                if let Some(t) = modpath::relative_file(&dir, s) {
                    if !seen.contains(&t) {
                        refs.push((t.clone(), t.display().to_string(), root.clone()));
                    }
                }
            }
        }
        // References are read right after the file that names them.
        for (k, r) in refs.into_iter().enumerate() {
            queue.insert(i + k, r);
        }
        order.push(key);
        parsed.push(fd);
    }
    Ok((order, parsed))
}

/// Relative specifiers of every module's links (`../http/index.js`) replaced by the
/// specifier of the module that file is; one that names no file read, or a file that
/// is no module, is dropped and said.
fn resolve_links(paths: &[PathBuf], parsed: &mut [dts::FileDecls]) {
    let mut spec_of: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    for (k, p) in paths.iter().enumerate() {
        let own = parsed[k]
            .modules
            .iter()
            .find(|m| m.is_file)
            .and_then(|m| dts::module_spec(&m.key).map(str::to_string));
        spec_of.insert(p.clone(), own);
    }
    for (k, p) in paths.iter().enumerate() {
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        let fd = &mut parsed[k];
        let mut skips = Vec::new();
        for m in fd.modules.iter_mut() {
            m.links.retain_mut(|(l, line)| {
                let Some(s) = modpath::link_spec_mut(l) else {
                    return true;
                };
                if !modpath::is_relative(s) {
                    return true;
                }
                let target = modpath::relative_file(&dir, s);
                match target.as_ref().and_then(|t| spec_of.get(t)) {
                    Some(Some(spec)) => {
                        *s = spec.clone();
                        true
                    }
                    // A file of globals: what it declares is read as globals.
                    Some(None) => false,
                    None => {
                        skips.push(dts::Skip {
                            file: k,
                            line: *line,
                            what: format!("\"{s}\""),
                            why: "a relative module that names no declaration file".into(),
                        });
                        false
                    }
                }
            });
        }
        fd.skipped.extend(skips);
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out, depth + 1);
        } else if p.to_string_lossy().ends_with(".d.ts") {
            out.push(p);
        }
    }
}

/// Each file relative to the folder all of them share, with `/`: the chunks name
/// their sources the same on every machine.
fn shown_names(paths: &[PathBuf]) -> Vec<String> {
    let dirs: Vec<Vec<std::path::Component>> = paths
        .iter()
        .map(|p| {
            p.parent()
                .map(|d| d.components().collect())
                .unwrap_or_default()
        })
        .collect();
    let mut common = dirs.first().cloned().unwrap_or_default();
    for d in &dirs[1.min(dirs.len())..] {
        let n = common
            .iter()
            .zip(d.iter())
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    paths
        .iter()
        .map(|p| {
            let rel: PathBuf = p.components().skip(common.len()).collect();
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect()
}
