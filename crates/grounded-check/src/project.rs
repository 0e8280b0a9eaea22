//! The project index: what each script declares at its top level and which files it
//! loads, so a script may use what the files it loads declare (interfaces.md, "Projects
//! and Markdown").
//!
//! Why follow the loads instead of pooling every file: at run time a helper is only there
//! when something loaded it first. A script that uses `formatMoney` without loading the
//! file that declares it works by accident of load order; the guide of the demo corpus
//! says so, and so does the check. When the project loads by computed paths, or loads
//! nothing at all (engines whose scripts share one global scope), the loads cannot be
//! followed and every top-level declaration of the project counts.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use grounded_docs::Corpus;
use grounded_js::query::CaptureKind;
use grounded_js::{self as js, Analysis};
use rayon::prelude::*;

/// What one script offers and needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Top-level functions and variables (implicit globals included).
    pub decls: BTreeSet<String>,
    /// Files loaded by literal path (`loadJS("lib/x.js")`, `#include "x"`), relative to
    /// the project root, normalised.
    pub loads: Vec<String>,
    /// Whether it loads a file by a path that is not a literal.
    pub dynamic_loads: bool,
    /// Built-ins it supplies itself (`Object.keys = ...`).
    pub polyfills: BTreeSet<String>,
    /// What it exports to a relative import, when certain ([`Analysis::exports`]).
    pub exports: Option<js::Exports>,
    /// The module system it is written in ([`Analysis::module_form`]); `None` for a
    /// plain script, whose top-level names are globals at run time.
    pub module: Option<js::ExportForm>,
    /// Whether it calls the engine's `require` with a plain string.
    pub requires: bool,
}

impl FileFacts {
    /// The facts of one script's text (`path` decides Markdown; directives come from the
    /// corpus's Engine chunk).
    pub fn of(corpus: &Corpus, path: &str, text: &str) -> FileFacts {
        let script = js::script_text(path, text, &corpus.engine.directives);
        let tree = js::parse(&script);
        let a = Analysis::new(corpus, &script, &tree);
        FileFacts::of_parts(corpus, path, text, &a, a.sites())
    }

    /// The facts from an analysis and the query captures already made (the checker
    /// makes both anyway). `text` is the file as written (directives included).
    pub fn of_parts<'a>(
        corpus: &Corpus,
        path: &str,
        text: &str,
        a: &Analysis<'a>,
        caps: &[(CaptureKind, tree_sitter::Node<'a>, grounded_js::ScopeId)],
    ) -> FileFacts {
        let mut f = FileFacts {
            // An import binding is the importer's own name for another module's
            // export: it declares nothing the project's other scripts could use.
            decls: a
                .top_level_names()
                .into_iter()
                .filter(|n| {
                    a.program_binding(n)
                        .is_none_or(|b| b.kind != grounded_js::BindingKind::Import)
                })
                .map(str::to_string)
                .collect(),
            polyfills: a.polyfills().map(str::to_string).collect(),
            // Gated on the text given (a re-checked statement's summary passes only the
            // statement's): the exports are read from the whole tree.
            exports: text.contains("export").then(|| a.exports()).flatten(),
            module: a.module_form(),
            requires: caps
                .iter()
                .any(|&(k, n, s)| k == CaptureKind::Call && a.require_spec(n, s).is_some()),
            ..FileFacts::default()
        };
        for d in js::directives(path, text, &corpus.engine.directives) {
            if d.name == "#include" {
                match d.argument {
                    Some(arg) => f.loads.push(normalize(&arg)),
                    None => f.dynamic_loads = true,
                }
            }
        }
        f.loads.extend(import_loads(corpus, path, a));
        for (i, &(kind, _node, scope)) in caps.iter().enumerate() {
            if kind != CaptureKind::Call {
                continue;
            }
            // Parts as the walk read them (see `js::Part`): no load from the tree.
            let [Some(callee), tail] = a.site_part_info(i) else {
                continue;
            };
            if callee.kind != grounded_js::query::kind_ids().identifier {
                continue;
            }
            let name = a.part_text(&callee);
            if a.resolve(name, scope).is_some() {
                continue;
            }
            // Only `Global`'s own functions load scripts (corpus-format.md), not the
            // members of a `Global members: yes` interface, as in the dry run.
            let Some(m) = corpus
                .global_member(name)
                .filter(|m| m.interface == grounded_docs::model::GLOBAL_INTERFACE)
            else {
                continue;
            };
            let Some(args) = tail.map(|t| t.node) else {
                continue;
            };
            let mut c = args.walk();
            for (i, arg) in args.named_children(&mut c).enumerate() {
                if !path_param(m, i) {
                    continue;
                }
                match string_literal(a.node_text(arg), arg.kind()) {
                    // A data file (`readCSV("data/products.csv")`) is no load: it
                    // declares nothing, and counting it made a project that shares one
                    // global scope look like one that loads its files.
                    Some(lit) if is_script(corpus, Path::new(&lit)) => {
                        f.loads.push(normalize(&lit))
                    }
                    Some(_) => {}
                    None => f.dynamic_loads = true,
                }
            }
        }
        f
    }
}

/// The project files a script's relative imports (`import x from "./lib/util.js"`,
/// `require("../x")`) may name, relative to the root: each specifier as written, with
/// each script extension and as a folder's `index` script (the ones that do not exist
/// name no file of the index and load nothing). `rel` is the script, relative to the
/// root.
pub fn import_loads(corpus: &Corpus, rel: &str, a: &Analysis) -> Vec<String> {
    let dir = Path::new(rel)
        .parent()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    // (specifier, the folder it starts from)
    let mut specs: Vec<(&str, String)> = a
        .module_requests()
        .iter()
        .filter_map(|r| r.spec)
        .map(|s| (s, dir.clone()))
        .collect();
    if corpus.engine.has_commonjs() {
        // A `require` may start from a folder above the script's (see
        // `module::resolve_require`): the file from each is a load.
        let above: Vec<String> = Path::new(&dir)
            .ancestors()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect();
        for &(kind, node, scope) in a.sites() {
            if kind == CaptureKind::Call {
                if let Some(spec) = a.require_spec(node, scope) {
                    specs.extend(above.iter().map(|d| (spec, d.clone())));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (spec, dir) in specs.into_iter().filter(|s| is_relative(s.0)) {
        let dir = dir.as_str();
        let joined = match spec.strip_prefix('/') {
            Some(abs) => normalize(abs),
            None => normalize(&format!("{dir}/{spec}")),
        };
        if joined.starts_with("..") || out.contains(&joined) {
            continue;
        }
        for e in &corpus.engine.script_extensions {
            out.push(format!("{joined}{e}"));
            out.push(format!("{joined}/index{e}"));
        }
        out.push(joined);
    }
    out
}

/// Whether `spec` names a file of the project rather than a module (`./`, `../`, `/`).
pub fn is_relative(spec: &str) -> bool {
    spec.starts_with("./")
        || spec.starts_with("../")
        || spec.starts_with('/')
        || spec == "."
        || spec == ".."
}

/// Whether parameter `i` of some overload of `m` is a `path`.
pub fn path_param(m: &grounded_docs::Member, i: usize) -> bool {
    m.overloads.iter().any(|s| {
        s.params
            .as_ref()
            .and_then(|p| p.get(i))
            .is_some_and(|p| p.ty.is_path())
    })
}

/// The value of a plain string literal (`"a/b.js"`, `'a'`), `None` for anything else or
/// for literals with escapes other than `\\`, `\"`, `\'`.
pub fn string_literal(text: &str, kind: &str) -> Option<String> {
    if kind != "string" {
        return None;
    }
    // Both quotes must be there: tree-sitter recovers an unterminated string as a string
    // node whose closing quote is missing, and cutting its last byte off blindly cut a
    // multi-byte character in two.
    let inner = ['"', '\'']
        .iter()
        .find_map(|q| text.strip_prefix(*q)?.strip_suffix(*q))
        .filter(|_| text.len() >= 2)?;
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                e @ ('\\' | '"' | '\'' | '/') => out.push(e),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A project-relative path with `/` separators, `.` dropped and `..` folded (a leading
/// `..` is kept: the file check reports it as escaping the root).
pub fn normalize(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// A file found at `inside` under the folder argument `folder`, as the user would name
/// it from the current folder: the folder as given joined with the rest (`examples/demo`
/// and `mistakes/member.js` give `examples/demo/mistakes/member.js`). The current folder
/// itself (`.`, the default) adds nothing, as ripgrep prints it.
pub fn shown_in(folder: &Path, inside: &Path) -> String {
    let inside = inside.to_string_lossy().replace('\\', "/");
    let folder = folder.to_string_lossy().replace('\\', "/");
    match folder.trim_end_matches('/') {
        "." => inside,
        "" if folder.is_empty() => inside,
        f => format!("{f}/{inside}"),
    }
}

/// A keeper the project scan offers each file read ([`ProjectIndex::scan_keeping`]):
/// given its path, path relative to the root, text and whether it was decoded lossily,
/// it gives the file's facts when it took the file, else the text back.
pub(crate) type Keep<'k> =
    dyn Fn(&Path, &str, String, bool) -> Result<FileFacts, String> + Sync + 'k;

/// What one file can see of its project: the top-level declarations of every script and
/// what each script loads. Built from disk, updated from open buffers.
#[derive(Debug, Clone, Default)]
pub struct ProjectIndex {
    /// The project root (`path` arguments are relative to it).
    pub root: PathBuf,
    /// Facts per script, by path relative to the root (`/`-separated).
    pub files: BTreeMap<String, FileFacts>,
    /// What the scan left out or read with a caveat (too large, too many, ignored folders,
    /// not UTF-8), one each, for the caller to say once.
    pub notes: Vec<super::Unreadable>,
    /// The project globals of `grounded.toml` that the docs do not document
    /// ([`ProjectIndex::set_globals`]): every script may use them.
    pub globals: Vec<String>,
    /// `modules = [...]` of `grounded.toml`: the project's own bundled dependencies,
    /// whose imports are not judged (read by [`ProjectIndex::scan`]).
    pub modules: Vec<String>,
    /// The engine's `Scripts run alone: yes`: a script sees only what it loads, never
    /// every script's names (set by [`ProjectIndex::scan`] from the corpus).
    pub scripts_alone: bool,
}

/// Every script's top-level names, shared by the scripts of one run
/// ([`ProjectIndex::shared_names`]).
#[derive(Debug, Default)]
pub struct SharedNames<'a> {
    /// Every script's top-level names and the project globals.
    names: std::sync::Arc<HashSet<String, js::NameHash>>,
    /// How many scripts declare each name (borrowed from the index: a copy of the names
    /// was a megabyte of a 400-file run's peak).
    count: std::collections::HashMap<&'a str, u32, js::NameHash>,
    /// How many scripts polyfill each built-in. Why counted once: gathering every other
    /// script's polyfills at each script was 9% of a real 392-file project's check
    /// (issue 48: each of its copies of `json2.js`-style helpers cloned into a set,
    /// 392 times over).
    polyfills: std::collections::HashMap<&'a str, u32, js::NameHash>,
    /// Near names among the corpus's own candidates (with the shared names, for
    /// families that offer project names), scored once for the run.
    pub(crate) near: super::suggest::RunNear,
    /// Every script's polyfills and the engine's `Also has:` built-ins: what the check
    /// of nearly every script of the run counts as supplied
    /// ([`ProjectIndex::sees_every_polyfill`]), made once.
    ///
    /// Why: a real 392-file project's scripts assign hundreds of member paths; copying
    /// the others' into a set of its own at every script was 2% of its check (issue 48).
    pub(crate) every_polyfill: std::sync::OnceLock<HashSet<String>>,
    /// The corpus's global functions, when a message lists them (twelve or fewer),
    /// read once for the run.
    pub(crate) global_functions: std::sync::OnceLock<Vec<String>>,
    /// The corpus's members that take source text ([`super::evaluated::source_taking`]),
    /// read once for the run.
    pub(crate) source_names: std::sync::OnceLock<HashSet<String>>,
}

/// The declarations a script can reach, and the built-ins the project supplies.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Top-level names declared by the reachable files (the script itself excluded).
    pub names: HashSet<String>,
    /// Polyfilled built-ins of the reachable files.
    pub polyfills: HashSet<String>,
}

impl SharedNames<'_> {
    /// [`SharedNames::every_polyfill`], made on first use (`corpus`: the run's).
    pub(crate) fn every_polyfill(&self, corpus: &Corpus) -> &HashSet<String> {
        self.every_polyfill.get_or_init(|| {
            self.polyfills
                .keys()
                .map(|p| p.to_string())
                .chain(corpus.engine.also_has.iter().cloned())
                .collect()
        })
    }

    /// Every script's top-level names and the project globals: with the names only it
    /// declares, what a script that sees them all reaches.
    pub(crate) fn names(&self) -> &HashSet<String, js::NameHash> {
        &self.names
    }
}

impl ProjectIndex {
    /// Scans the scripts under `root` (the engine's script extensions), bounded as
    /// [`script_files`] says. Files are decoded by the one rule ([`grounded_textfile`]),
    /// so a Latin-1 library still declares its functions; unreadable files are skipped
    /// (the check of that file reports them itself). What was left out is in `notes`.
    pub fn scan(corpus: &Corpus, root: &Path) -> ProjectIndex {
        ProjectIndex::scan_keeping(corpus, root, &|_, _, text, _| Err(text))
    }

    /// [`ProjectIndex::scan`], offering `keep` each file read (its path, path relative
    /// to the root, text, whether it was decoded lossily) first: a keeper that takes it
    /// parses and analyses it for a check that follows, and gives back its facts
    /// ([`FileFacts::of`] of the same text); one that does not gives the text back.
    pub(crate) fn scan_keeping(corpus: &Corpus, root: &Path, keep: &Keep<'_>) -> ProjectIndex {
        let walk = script_files(corpus, root, false);
        let mut idx = ProjectIndex {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            // Named as the project names its files, relative to the root.
            globals: Vec::new(),
            modules: grounded_project::project_modules(root),
            scripts_alone: corpus.engine.scripts_alone,
            notes: walk
                .notes
                .into_iter()
                .map(|n| super::Unreadable {
                    path: match relative(root, Path::new(&n.path)) {
                        r if r.is_empty() => ".".into(),
                        r => r,
                    },
                    reason: n.reason,
                })
                .collect(),
        };
        // Each file's facts on every core (they read its text alone), kept in the walk's
        // order so the notes come out as one thread gives them.
        let read: Vec<_> = walk
            .files
            .par_iter()
            .map(|file| {
                let rel = relative(root, file);
                grounded_textfile::reading(&rel);
                let d = grounded_textfile::read(file).ok()?;
                if grounded_textfile::looks_binary(&d.text) {
                    return None;
                }
                let lossy = d.lossy;
                let facts = match keep(file, &rel, d.text, lossy) {
                    Ok(facts) => facts,
                    Err(text) => FileFacts::of(corpus, &rel, &text),
                };
                Some((rel, lossy, facts))
            })
            .collect();
        for (rel, lossy, facts) in read.into_iter().flatten() {
            if lossy {
                idx.notes.push(super::Unreadable {
                    path: rel.clone(),
                    reason: grounded_textfile::LOSSY_NOTE.into(),
                });
            }
            idx.files.insert(rel, facts);
        }
        idx
    }

    /// Takes `grounded.toml`'s `globals` (interfaces.md, "Project globals"): names the
    /// project's environment provides, which then count as declared by every script, of
    /// no known interface, so neither they nor their members are judged. A name the
    /// docs document is left out, and returned: the project's statement never shadows
    /// the docs (a global typed by its chunk stays judged by it), and the caller says
    /// so. Names that are no identifier are left out too.
    pub fn set_globals(&mut self, corpus: &Corpus, names: &[String]) -> Vec<String> {
        let mut documented = Vec::new();
        self.globals.clear();
        for n in names {
            let n = n.trim();
            if !grounded_docs::signature::is_identifier(n) {
                continue;
            }
            if corpus.is_engine_global(n)
                || corpus.constructors.contains_key(n)
                || corpus.interfaces.contains_key(n)
            {
                documented.push(n.to_string());
            } else if !self.globals.iter().any(|g| g == n) {
                self.globals.push(n.to_string());
            }
        }
        documented
    }

    /// Replaces one file's entry with the declarations of `text` (an open buffer).
    /// `rel` is relative to the root, `/`-separated.
    pub fn update_file(&mut self, corpus: &Corpus, rel: &str, text: &str) {
        let rel = normalize(rel);
        let facts = FileFacts::of(corpus, &rel, text);
        self.files.insert(rel, facts);
    }

    /// Forgets a deleted file.
    pub fn remove_file(&mut self, rel: &str) {
        self.files.remove(&normalize(rel));
    }

    /// Whether every top-level declaration of the project counts everywhere: some file
    /// loads by a computed path, or no file loads anything.
    pub fn shares_one_scope(&self) -> bool {
        if self.scripts_alone {
            return false;
        }
        self.files.values().any(|f| f.dynamic_loads)
            || self.files.values().all(|f| f.loads.is_empty())
    }

    /// The files `rel` loads, transitively (itself excluded), starting from `loads`
    /// (the loads of the text being checked, which may differ from the index's).
    fn reachable(&self, rel: &str, loads: &[String]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = loads.to_vec();
        while let Some(f) = stack.pop() {
            if f == rel || !seen.insert(f.clone()) {
                continue;
            }
            if let Some(facts) = self.files.get(&f) {
                stack.extend(facts.loads.iter().cloned());
            }
        }
        seen
    }

    /// Whether the script `rel` (with the facts `own` of its current text) sees every
    /// other script's names: it or another script loads by a computed path, or none
    /// loads anything.
    fn sees_all(&self, rel: &str, own: &FileFacts) -> bool {
        // Where scripts run alone, a computed load or a project that loads nothing
        // shares no scope: each script sees what it names, nothing more (issue 44: a
        // function of an unrelated script hid a real finding and became its "fix").
        !self.scripts_alone
            && (own.dynamic_loads
                || self
                    .files
                    .iter()
                    .filter(|(k, _)| k.as_str() != rel)
                    .any(|(_, f)| f.dynamic_loads)
                || (own.loads.is_empty()
                    && self
                        .files
                        .iter()
                        .filter(|(k, _)| k.as_str() != rel)
                        .all(|(_, f)| f.loads.is_empty())))
    }

    /// Every script's top-level names and the project globals, once for a run that
    /// checks many scripts ([`ProjectIndex::reach_shared`]).
    pub fn shared_names(&self) -> SharedNames<'_> {
        let mut count: std::collections::HashMap<&str, u32, js::NameHash> = Default::default();
        for f in self.files.values() {
            for d in &f.decls {
                *count.entry(d.as_str()).or_default() += 1;
            }
        }
        let mut names: HashSet<String, js::NameHash> =
            count.keys().map(|n| n.to_string()).collect();
        names.extend(self.globals.iter().cloned());
        let mut polyfills: std::collections::HashMap<&str, u32, js::NameHash> = Default::default();
        for f in self.files.values() {
            for p in &f.polyfills {
                *polyfills.entry(p.as_str()).or_default() += 1;
            }
        }
        SharedNames {
            names: std::sync::Arc::new(names),
            count,
            polyfills,
            ..SharedNames::default()
        }
    }

    /// [`ProjectIndex::reach`] of a script that sees every other script's names, as the
    /// shared set less the names only this script declares, with the polyfills; `None`
    /// when the script sees only what it loads (then `reach` answers). `shared` is this
    /// index's [`ProjectIndex::shared_names`].
    pub fn reach_shared(
        &self,
        rel: &str,
        own: &FileFacts,
        shared: &SharedNames<'_>,
    ) -> Option<(js::ProjectNames<js::NameHash>, HashSet<String>)> {
        let names = self.shared_names_of(rel, own, shared)?;
        Some((names, self.polyfills_shared(rel, shared)))
    }

    /// The names of [`ProjectIndex::reach_shared`].
    pub(crate) fn shared_names_of(
        &self,
        rel: &str,
        own: &FileFacts,
        shared: &SharedNames<'_>,
    ) -> Option<js::ProjectNames<js::NameHash>> {
        if !self.sees_all(rel, own) {
            return None;
        }
        let hidden = self
            .files
            .get(rel)
            .into_iter()
            .flat_map(|f| f.decls.iter())
            .filter(|n| shared.count.get(n.as_str()) == Some(&1) && !self.globals.contains(n))
            .cloned()
            .collect();
        Some(js::ProjectNames::new(shared.names.clone(), hidden))
    }

    /// The polyfills of [`ProjectIndex::reach_shared`]: every other script's, those this
    /// script's indexed facts do not account for.
    pub(crate) fn polyfills_shared(&self, rel: &str, shared: &SharedNames<'_>) -> HashSet<String> {
        let mine = self.files.get(rel).map(|f| &f.polyfills);
        shared
            .polyfills
            .iter()
            .filter(|(p, &n)| n > u32::from(mine.is_some_and(|m| m.contains(**p))))
            .map(|(p, _)| p.to_string())
            .collect()
    }

    /// Whether [`ProjectIndex::polyfills_shared`] with the script's own polyfills (`own`,
    /// the facts of its text as checked) are every polyfill of the run: nothing only
    /// this script supplies is missing from `own`, and `own` has nothing new. Then the
    /// run's one set serves it ([`SharedNames::every_polyfill`]).
    pub(crate) fn sees_every_polyfill(
        &self,
        rel: &str,
        own: &FileFacts,
        shared: &SharedNames<'_>,
    ) -> bool {
        let only_mine_kept = self.files.get(rel).is_none_or(|f| {
            f.polyfills
                .iter()
                .all(|p| shared.polyfills.get(p.as_str()) != Some(&1) || own.polyfills.contains(p))
        });
        only_mine_kept
            && own
                .polyfills
                .iter()
                .all(|p| shared.polyfills.contains_key(p.as_str()))
    }

    /// Whether a script with the facts `own` sees the top-level names of every plain
    /// script of the project (one that is no module, [`FileFacts::module`]), loaded or
    /// not: it is a CommonJS file (it names `module`/`exports` or calls `require`, and is
    /// no ES module) and the engine does not say scripts run alone.
    ///
    /// Why: a plain script's top-level names are globals once it ran, and the file that
    /// `require`s a CommonJS one runs first. Photoshop UXP panels load a classic entry
    /// script from HTML whose top-level `const`s the files it requires use; reading every
    /// `require`ing file as a Node module with its own scope made 3 wrong "declared
    /// nowhere" accusations on real plugins (issue 44, the CommonJS measurement). An ES
    /// module's top-level names are never global, so ES modules keep their own scope.
    fn sees_plain_scripts(&self, own: &FileFacts) -> bool {
        !self.scripts_alone
            && match own.module {
                Some(js::ExportForm::Esm) => false,
                Some(js::ExportForm::CommonJs) => true,
                None => own.requires,
            }
    }

    /// What the script `rel` (with the facts of its current text) can use from the rest
    /// of the project.
    pub fn reach(&self, rel: &str, own: &FileFacts) -> Reach {
        let mut r = Reach::default();
        let all = self.sees_all(rel, own);
        let files: Vec<&FileFacts> = if all {
            self.files
                .iter()
                .filter(|(k, _)| k.as_str() != rel)
                .map(|(_, f)| f)
                .collect()
        } else {
            let mut seen = self.reachable(rel, &own.loads);
            if self.sees_plain_scripts(own) {
                seen.extend(
                    self.files
                        .iter()
                        .filter(|(k, f)| k.as_str() != rel && f.module.is_none())
                        .map(|(k, _)| k.clone()),
                );
            }
            seen.iter().filter_map(|f| self.files.get(f)).collect()
        };
        for f in files {
            r.names.extend(f.decls.iter().cloned());
            r.polyfills.extend(f.polyfills.iter().cloned());
        }
        r.names.extend(self.globals.iter().cloned());
        r
    }

    /// Files (relative to the root) whose findings may change when `rel` changes: those
    /// that load it, or that use what it declares.
    pub fn dependents(&self, rel: &str) -> Vec<String> {
        let rel = normalize(rel);
        if self.shares_one_scope() {
            return self.files.keys().filter(|k| **k != rel).cloned().collect();
        }
        let plain = self.files.get(&rel).is_some_and(|f| f.module.is_none());
        self.files
            .iter()
            .filter(|(k, f)| {
                **k != rel
                    && ((plain && self.sees_plain_scripts(f))
                        || self.reachable(k, &f.loads).contains(&rel))
            })
            .map(|(k, _)| k.clone())
            .collect()
    }
}

/// `file` relative to `root`, `/`-separated (the file itself when outside the root).
pub fn relative(root: &Path, file: &Path) -> String {
    let abs_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let abs_file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let rel = abs_file
        .strip_prefix(&abs_root)
        .map(Path::to_path_buf)
        .unwrap_or(abs_file);
    normalize(&rel.to_string_lossy())
}

/// The largest script that is read, indexed or checked (8 MiB; the language server's
/// analysed size). One 20 MB generated script in a workspace, never opened, made the idle
/// server 932 MB: a bigger file is skipped, and said so.
pub const MAX_SCRIPT_BYTES: u64 = 8 << 20;

/// How many scripts one walk collects at most. Checking one file in a folder without
/// `grounded.toml` once walked the whole current folder (`/tmp`: 11 s, 1.2 GB).
pub const MAX_SCAN_FILES: usize = 10_000;

/// How many entries (files and folders) one walk visits at most, scripts or not.
const MAX_SCAN_ENTRIES: usize = 200_000;

/// Folders no walk enters: dependencies and build output, never the project's own
/// scripts, and often larger than the project itself. Hidden folders (`.git`) and what
/// `.gitignore` names are skipped by the walker already.
pub const IGNORED_DIRS: &[&str] = &["node_modules", "bower_components", "target"];

/// The result of a bounded walk: the files, and what was left out (said once).
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Script (and Markdown) files, sorted.
    pub files: Vec<PathBuf>,
    /// One for each thing skipped (a file too large, the walk cut short, ignored folders).
    pub notes: Vec<super::Unreadable>,
}

/// The script files under `dir` by the engine's script extensions (and Markdown files
/// when `markdown`), sorted; hidden folders, ignored files and [`IGNORED_DIRS`] skipped;
/// bounded by [`MAX_SCRIPT_BYTES`], [`MAX_SCAN_FILES`] and a number of entries visited.
pub fn script_files(corpus: &Corpus, dir: &Path, markdown: bool) -> Walk {
    let ignored_dirs = std::sync::Arc::new(std::sync::Mutex::new(Vec::<PathBuf>::new()));
    let seen = ignored_dirs.clone();
    let walker = ignore::WalkBuilder::new(dir)
        .require_git(false)
        .filter_entry(move |e| {
            let skip = e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && IGNORED_DIRS.iter().any(|d| e.file_name() == *d);
            if skip {
                if let Ok(mut v) = seen.lock() {
                    v.push(e.path().to_path_buf());
                }
            }
            !skip
        })
        .build();
    let mut too_big: Vec<(PathBuf, u64)> = Vec::new();
    let mut files = Vec::new();
    let mut visited = 0usize;
    let mut truncated = false;
    for entry in walker.filter_map(Result::ok) {
        visited += 1;
        if visited > MAX_SCAN_ENTRIES || files.len() >= MAX_SCAN_FILES {
            truncated = true;
            break;
        }
        let p = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file())
            || !(is_script(corpus, p) || (markdown && js::is_markdown(&p.to_string_lossy())))
        {
            continue;
        }
        let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if len > MAX_SCRIPT_BYTES {
            too_big.push((p.to_path_buf(), len));
            continue;
        }
        files.push(entry.into_path());
    }
    files.sort();
    let ignored = ignored_dirs.lock().map(|v| v.clone()).unwrap_or_default();
    let mut notes = Vec::new();
    for (p, len) in too_big {
        notes.push(super::Unreadable {
            path: p.display().to_string(),
            reason: format!(
                "skipped, {:.1} MB is over the {} MB a script may have",
                len as f64 / 1e6,
                MAX_SCRIPT_BYTES >> 20
            ),
        });
    }
    if truncated {
        notes.push(super::Unreadable {
            path: dir.display().to_string(),
            reason: format!(
                "stopped after {} scripts or {MAX_SCAN_ENTRIES} entries; a grounded.toml at the project's root keeps the walk to the project",
                files.len()
            ),
        });
    }
    for d in ignored {
        notes.push(super::Unreadable {
            path: d.display().to_string(),
            reason: "not searched (dependencies and build output are never scripts of the project)"
                .into(),
        });
    }
    Walk { files, notes }
}

/// Whether `p` has one of the engine's script extensions.
pub fn is_script(corpus: &Corpus, p: &Path) -> bool {
    let name = p.to_string_lossy().to_ascii_lowercase();
    corpus
        .engine
        .script_extensions
        .iter()
        .any(|e| name.ends_with(&e.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests;
