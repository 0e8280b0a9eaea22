//! The project's files as the run sees them: paths resolved against the root (and
//! refused outside it), unsaved buffers winning over the disk, engine directives blanked,
//! and the entry scripts found; and a position of the engine's stack in those texts
//! ([`byte_at`]), which both `blame` and `report` read.
//!
//! Near the bottom of the dry run: imports only `describe` (the loaders' names).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use regex::Regex;

use grounded_docs::Corpus;
use grounded_js::LineIndex;

/// Where a script's `path` argument leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A file inside the root: its path relative to the root, with `/`.
    Inside(String),
    /// Outside the root (`../x.js`, an absolute path elsewhere, a link out): refused.
    Outside,
}

/// The project's files: root, unsaved buffers, the engine's directives.
#[derive(Debug, Clone)]
pub struct Sources {
    root: PathBuf,
    overlay: HashMap<PathBuf, String>,
    directives: Vec<String>,
    /// The engine's script extensions, lower case, with the dot.
    extensions: Vec<String>,
    /// Whether scripts are modules (the engine's `Modules:`), and CommonJS ones.
    modules: bool,
    commonjs: bool,
}

impl Sources {
    /// The files under `root`; `overlay` (absolute path → text) wins over the disk.
    pub fn new(root: &Path, overlay: &HashMap<PathBuf, String>, corpus: &Corpus) -> Sources {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let overlay = overlay
            .iter()
            .map(|(k, v)| {
                let k = if k.is_absolute() {
                    k.clone()
                } else {
                    root.join(k)
                };
                (canonical_key(&k), v.clone())
            })
            .collect();
        Sources {
            root,
            overlay,
            directives: corpus.engine.directives.clone(),
            modules: corpus.engine.has_modules(),
            commonjs: corpus.engine.has_commonjs(),
            extensions: corpus
                .engine
                .script_extensions
                .iter()
                .map(|e| e.to_ascii_lowercase())
                .collect(),
        }
    }

    /// The project file a relative module specifier names from the script `from`
    /// (both relative to the root), or `None`; `require` says whether a `require` names
    /// it rather than an `import`.
    ///
    /// A `require` starts where the checker's does (`module::resolve_require`: in
    /// Photoshop UXP from the plug-in's folder, which may be above the script's): with
    /// the import's rule the run never loaded `ui/js/main.js`'s `"./modules/util.js"`
    /// and judged nothing of what it exports. When two folders give two files, which
    /// one runs is not certain: the run loads neither (`None`, a value that accepts
    /// everything), as the checker judges neither.
    pub fn module_file(&self, spec: &str, from: &str, require: bool) -> Option<String> {
        let found = if require {
            match grounded_check::module::resolve_require(&self.root, from, spec, &self.extensions)
            {
                Ok(Some(t)) => Some(t),
                Ok(None) => return None,
                Err(_) => None,
            }
        } else {
            grounded_check::module::resolve_relative(&self.root, from, spec, &self.extensions).ok()
        };
        found.or_else(|| {
            // An unsaved buffer is a file too (from the script's own folder only).
            let base =
                grounded_check::module::resolve_relative(&self.root, from, spec, &[]).err()?;
            let mut tries = vec![base.clone()];
            tries.extend(self.extensions.iter().map(|e| format!("{base}{e}")));
            tries.into_iter().find(|t| self.exists(t))
        })
    }

    /// Whether `rel` is a script by the engine's script extensions. Any other file a
    /// `path` loader is given (`readCSV("data/products.csv")`) is data: running it
    /// reported the CSV's "syntax error" instead of the script's own mistake.
    pub fn is_script(&self, rel: &str) -> bool {
        let name = rel.to_ascii_lowercase();
        self.extensions.iter().any(|e| name.ends_with(e.as_str()))
    }

    /// The project root (canonical when it exists).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a script's `path` argument against the root.
    pub fn resolve(&self, p: &str) -> Resolved {
        let given = Path::new(p);
        let full = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        let Some(full) = grounded_project::lexical(&full) else {
            return Resolved::Outside;
        };
        let Ok(rel) = full.strip_prefix(&self.root) else {
            return Resolved::Outside;
        };
        // A link inside the root may lead out of it.
        if full.exists() && !grounded_project::is_inside(&self.root, &full) {
            return Resolved::Outside;
        }
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Resolved::Inside(rel.join("/"))
    }

    /// The text of a file relative to the root: the unsaved buffer if there is one,
    /// else the disk; `None` when it exists in neither.
    pub fn read(&self, rel: &str) -> Option<String> {
        let full = self.root.join(rel);
        grounded_textfile::reading(&full.to_string_lossy());
        if let Some(t) = self.overlay.get(&full) {
            return Some(t.clone());
        }
        if !full.is_file() {
            return None;
        }
        grounded_textfile::read(&full).ok().map(|d| d.text)
    }

    /// Whether a file relative to the root exists (buffer or disk).
    pub fn exists(&self, rel: &str) -> bool {
        let full = self.root.join(rel);
        self.overlay.contains_key(&full) || full.exists()
    }

    /// The script as the engine runs it: a line that begins with a directive is not
    /// JavaScript and is blanked (line numbers kept); `#include "x"` becomes a load of x
    /// at that point, as the engine runs it. A Markdown file (`rel`) runs its fenced
    /// `js` blocks in order, as the checker reads them, prose blanked.
    pub fn prepare(&self, rel: &str, text: &str) -> String {
        let fenced =
            grounded_js::is_markdown(rel).then(|| grounded_js::script_text(rel, text, &[]));
        let text = fenced.as_deref().unwrap_or(text);
        // A module (its imports, exports, `require`) runs in a scope of its own
        // (`modules`); a Markdown file's blocks stay global code.
        if self.modules && fenced.is_none() {
            if let Some(m) = super::modules::rewrite(rel, text, self.commonjs) {
                return m;
            }
        }
        if self.directives.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let ending = &line[body.len()..];
            match directive_of(body, &self.directives) {
                None => out.push_str(line),
                Some((d, rest)) => {
                    if d.eq_ignore_ascii_case("#include") {
                        if let Some(target) = quoted(rest) {
                            out.push_str("__grounded_include__(");
                            out.push_str(&serde_json::Value::from(target).to_string());
                            out.push_str(");");
                        }
                    }
                    out.push_str(ending);
                }
            }
        }
        out
    }
}

/// The directive a line begins with, and the rest of the line.
pub fn directive_of<'a>(line: &'a str, directives: &'a [String]) -> Option<(&'a str, &'a str)> {
    // An unsaved buffer may begin with a byte-order mark (a disk read drops it): the
    // engine reads the directive after it (`grounded_textfile`).
    let t = grounded_textfile::without_bom(line).trim_start();
    directives
        .iter()
        .filter(|d| !d.is_empty())
        .filter_map(|d| {
            let rest = t.strip_prefix(d.as_str())?;
            let next = rest.chars().next();
            let ends = next.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'));
            ends.then_some((d.as_str(), rest))
        })
        // `#includepath` before `#include`: the longest directive that matches.
        .max_by_key(|(d, _)| d.len())
}

/// The first quoted string of `s` (`"x"`, `'x'` or `<x>`).
fn quoted(s: &str) -> Option<&str> {
    let s = s.trim();
    let close = match s.chars().next()? {
        '"' => '"',
        '\'' => '\'',
        '<' => '>',
        _ => return None,
    };
    let inner = &s[1..];
    inner.find(close).map(|e| &inner[..e])
}

/// The key an unsaved buffer is filed under: the canonical path when the file or its
/// folder exists (an editor may name it through a link), else the lexical form.
fn canonical_key(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let lexical = grounded_project::lexical(p).unwrap_or_else(|| p.to_path_buf());
    match (lexical.parent(), lexical.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(lexical.clone()),
        _ => lexical,
    }
}

/// The project's scripts (the engine's script extensions), relative to the root, sorted.
pub fn scripts(corpus: &Corpus, root: &Path) -> Vec<String> {
    let exts: Vec<String> = if corpus.engine.script_extensions.is_empty() {
        vec![".js".into()]
    } else {
        corpus.engine.script_extensions.clone()
    };
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut scripts: Vec<String> = Vec::new();
    for e in ignore::WalkBuilder::new(&root).build().flatten() {
        let p = e.path();
        if !p.is_file() {
            continue;
        }
        let name = p.to_string_lossy();
        if !exts.iter().any(|x| name.ends_with(x.as_str())) {
            continue;
        }
        if let Ok(rel) = p.strip_prefix(&root) {
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            scripts.push(rel.join("/"));
        }
    }
    scripts.sort();
    scripts
}

/// A script the run did not run (`ran`) that declares `name` at its top level (`var`,
/// `function`, `let`, `const`, `class`), as the checker's scopes read it: a pattern over
/// the text also took a `var` inside a function for a global one.
pub fn declared_elsewhere(
    corpus: &Corpus,
    root: &Path,
    name: &str,
    ran: &std::collections::HashSet<&str>,
) -> Option<String> {
    scripts(corpus, root)
        .into_iter()
        .filter(|s| !ran.contains(s.as_str()))
        .find(|s| {
            let Ok(d) = grounded_textfile::read(&root.join(s)) else {
                return false;
            };
            if !d.text.contains(name) {
                return false;
            }
            let text = grounded_js::script_text(s, &d.text, &corpus.engine.directives);
            let tree = grounded_js::parse(&text);
            let a = grounded_js::Analysis::new(corpus, &text, &tree);
            // The program scope has no parent: only a top-level declaration answers.
            a.resolve(name, 0)
                .is_some_and(|b| a.bindings[b].kind != grounded_js::BindingKind::Implicit)
        })
}

/// The entries of a project's dry run: `grounded.toml`'s `entry` when set, else every
/// top-level script ([`entries`]). What `grounded dry-run` without ENTRY, `check
/// --dry-run` and the language server run.
pub fn project_entries(corpus: &Corpus, project: &grounded_project::Project) -> Vec<PathBuf> {
    entries(corpus, &project.root, project.config.entry.as_deref())
}

/// The scripts a dry run starts from: `entry` (relative to the root) when given, else
/// every top-level script of the project, that is every script (the engine's script
/// extensions) that no other script loads by a literal path. Running a file that is
/// only ever loaded by another on its own would report the helpers it never sees.
pub fn entries(corpus: &Corpus, root: &Path, entry: Option<&str>) -> Vec<PathBuf> {
    if let Some(e) = entry {
        return vec![PathBuf::from(e)];
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let scripts = scripts(corpus, &root);
    let loaders = super::describe::loader_names(corpus);
    let call = if loaders.is_empty() {
        None
    } else {
        let names: Vec<String> = loaders.iter().map(|n| regex::escape(n)).collect();
        Regex::new(&format!(
            r#"\b(?:{})\s*\(\s*(?:"([^"]*)"|'([^']*)')"#,
            names.join("|")
        ))
        .ok()
    };
    let mut loaded: BTreeSet<String> = BTreeSet::new();
    let sources = Sources::new(&root, &HashMap::new(), corpus);
    for s in &scripts {
        let Ok(grounded_textfile::Decoded { text, .. }) = grounded_textfile::read(&root.join(s))
        else {
            continue;
        };
        let mut add = |lit: &str| {
            if let Resolved::Inside(rel) = sources.resolve(lit) {
                loaded.insert(rel);
            }
        };
        if let Some(re) = &call {
            for cap in re.captures_iter(&text) {
                if let Some(m) = cap.get(1).or_else(|| cap.get(2)) {
                    add(m.as_str());
                }
            }
        }
        for line in text.lines() {
            if let Some((d, rest)) = directive_of(line, &corpus.engine.directives) {
                if d.eq_ignore_ascii_case("#include") {
                    if let Some(t) = quoted(rest) {
                        add(t);
                    }
                }
            }
        }
    }
    scripts
        .into_iter()
        .filter(|s| !loaded.contains(s))
        .map(PathBuf::from)
        .collect()
}

/// The byte offset of a 1-based (line, column in characters) of the engine's stack.
pub(super) fn byte_at(text: &str, idx: &LineIndex, line: usize, col: usize) -> usize {
    let line0 = line.saturating_sub(1).min(idx.len().saturating_sub(1));
    let ls = idx.line_start(line0);
    let rest = text.get(ls..).unwrap_or("");
    let le = rest.find('\n').unwrap_or(rest.len());
    rest[..le]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(ls + le, |(i, _)| ls + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(directives: &str) -> Corpus {
        let engine = format!("# Engine\n\nECMAScript: 3\nDirectives: {directives}\n");
        Corpus::from_texts(&[("e.md", engine.as_str())]).unwrap()
    }

    #[test]
    fn directives_are_blanked_and_includes_become_loads() {
        let c = corpus("#include #includepath #target");
        let dir = tempfile::tempdir().unwrap();
        let s = Sources::new(dir.path(), &HashMap::new(), &c);
        let text = "#target folio\r\n  #include \"lib/a.jsx\"\n#includepath \"lib\"\nvar a = 1; // #include \"no\"\n";
        let out = s.prepare("a.jsx", text);
        assert_eq!(
            out,
            "\r\n__grounded_include__(\"lib/a.jsx\");\n\nvar a = 1; // #include \"no\"\n"
        );
        assert_eq!(out.lines().count(), text.lines().count());
    }

    #[test]
    fn paths_resolve_inside_the_root_or_are_refused() {
        let c = corpus("");
        let dir = tempfile::tempdir().unwrap();
        let s = Sources::new(dir.path(), &HashMap::new(), &c);
        assert_eq!(
            s.resolve("./lib/../lib/x.js"),
            Resolved::Inside("lib/x.js".into())
        );
        assert_eq!(s.resolve("../x.js"), Resolved::Outside);
        assert_eq!(s.resolve("lib/../../x.js"), Resolved::Outside);
        assert_eq!(s.resolve("/etc/passwd"), Resolved::Outside);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_root_is_refused() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(outer.path().join("secret.js"), "var s = 1;").unwrap();
        let root = outer.path().join("proj");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.js"), root.join("link.js")).unwrap();
        let s = Sources::new(&root, &HashMap::new(), &corpus(""));
        assert_eq!(s.resolve("link.js"), Resolved::Outside);
    }
}
