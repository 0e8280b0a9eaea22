//! `check`: the families of findings, one file each, decided against the corpus.
//!
//! One parse, one query pass over the tree (`grammars/javascript/*.scm`), one scope walk
//! ([`grounded_js::Analysis`]); every site the query captures is handed to the families
//! that judge it. Nothing here names an engine: every fact comes from the corpus.
//!
//! | family | file | finds |
//! |---|---|---|
//! | `member` | `member.rs` | a member the certain receiver's interface (or union) lacks; a literal its discriminant never is |
//! | `object` | `object.rs` | a receiver declared nowhere |
//! | `function` | `function.rs` | a bare call of a function defined nowhere |
//! | `syntax` | `syntax.rs` | parse errors, syntax above the engine's level |
//! | `option` | `option.rs` | an object-literal key the parameter's interface lacks |
//! | `constructor` | `constructor.rs` | `new X()` of nothing |
//! | `engine` | `engine.rs` | a built-in the engine's level lacks |
//! | `file` | `file.rs` | a `path` literal naming no file of the project |
//! | `module` | `module.rs` | an import or `require` of a module the docs do not name |
//! | `construct` | `construct.rs` | Start without End (owned by the footprint layer) |
//!
//! ## Layer
//!
//! May depend on: `grounded-es`, `grounded-textfile`, `grounded-docs`,
//! `grounded-project`, `grounded-js`, `grounded-footprint` (its `Cargo.toml`, which the
//! compiler holds; `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: the protocol, HTTP, QuickJS or the agent: text in, findings out,
//! with fixes as data; no I/O but the project index and the `file` family's existence
//! checks.

#![warn(missing_docs)]

pub mod add_ignore;
pub mod baseline;
mod batch;
pub mod construct;
mod constructor;
mod dispatch;
mod engine;
mod evaluated;
mod file;
pub mod finding;
pub mod fix;
mod function;
mod guard;
mod member;
pub mod module;
mod object;
mod option;
pub mod project;
mod session;
pub mod suggest;
pub mod suppress;
mod syntax;
mod unplaced;

#[cfg(test)]
mod cached_corpus_tests;

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use finding::{Code, CodeInfo, Finding, Fix, Place, Related, Severity, Span, CODES};
pub use guard::member_guarded;
pub use project::{FileFacts, ProjectIndex};
pub use session::Session;
pub use suppress::{Ignored, IgnoredBy, Rules};
pub use syntax::{rule_name, RULE_NAMES};

// The families reach the shared state through `super::{Ctx, statement_lines}`.
use dispatch::{check_script, check_script_full, sort_findings};
pub(crate) use dispatch::{statement_lines, Ctx};

use grounded_docs::{Corpus, Member};
use grounded_js::query::CaptureKind;
use grounded_js::{self as js, Analysis, Certain, LineIndex, ScopeId};

/// Checks one script's text. `path` is how findings name the file (relative to the
/// root for project files). Markdown is checked by its fenced `js` blocks.
pub fn check_text(corpus: &Corpus, project: &ProjectIndex, path: &str, text: &str) -> Vec<Finding> {
    let script = js::script_text(path, text, &corpus.engine.directives);
    let tree = js::parse(&script);
    check_script(corpus, project, path, path, text, &script, &tree)
}

/// [`check_text`] with whether the script parsed cleanly: what [`fix::fix_text`] judges
/// each version of a buffer by (the server's `source.fixAll.grounded`).
pub fn verdict_of(corpus: &Corpus, project: &ProjectIndex, path: &str, text: &str) -> fix::Verdict {
    let script = js::script_text(path, text, &corpus.engine.directives);
    let tree = js::parse(&script);
    fix::Verdict {
        findings: check_script(corpus, project, path, path, text, &script, &tree),
        parse_error: tree.root_node().has_error(),
    }
}

/// Like [`check_text`] with a tree the caller keeps (incremental reparse). The tree must
/// be of `text` as given; when the file needs blanking (engine directives, Markdown) the
/// blanked text is parsed here instead.
pub fn check_tree(
    corpus: &Corpus,
    project: &ProjectIndex,
    path: &str,
    text: &str,
    tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    let script = js::script_text(path, text, &corpus.engine.directives);
    match &script {
        Cow::Borrowed(s) => check_script(corpus, project, path, path, text, s, tree),
        Cow::Owned(s) => {
            let own = js::parse(s);
            check_script(corpus, project, path, path, text, s, &own)
        }
    }
}

/// One file of a [`check_paths`] run that was skipped or read with a caveat (not UTF-8,
/// too large, left out of a bounded walk).
#[derive(Debug, Clone)]
pub struct Unreadable {
    /// The path as shown.
    pub path: String,
    /// What happened, starting with `skipped` when the file was not checked.
    pub reason: String,
}

/// One file a [`check_paths`] run checked.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The path as shown (see [`check_paths`]).
    pub shown: String,
    /// The path to read it back from.
    pub file: PathBuf,
    /// Whether it held any script: a script file, or a Markdown file with a fenced
    /// `js` block. A run that checked Markdown prose alone checked nothing.
    pub script: bool,
}

/// What a [`check_paths`] run did.
#[derive(Debug, Clone, Default)]
pub struct PathsReport {
    /// The findings, in the order the files were checked.
    pub findings: Vec<Finding>,
    /// Files of the paths given that could not be read (or were read with a caveat).
    pub unreadable: Vec<Unreadable>,
    /// Files the paths did not name, read only for the project's top-level names, that
    /// could not be read (or were read with a caveat); named relative to the root. Kept
    /// apart: a Latin-1 file elsewhere in the project once counted as "something was
    /// checked", and `check data` of a folder with no script said "no findings".
    pub scanned: Vec<Unreadable>,
    /// Every file read and checked.
    pub checked: Vec<Checked>,
    /// The project globals read (`grounded.toml`'s `globals`, less those below).
    pub project_globals: Vec<String>,
    /// Project globals that the docs document: the docs' meaning is kept.
    pub documented_globals: Vec<String>,
    /// Files that `[check] exclude` left out (shown paths).
    pub excluded: Vec<String>,
    /// One line for each `[check]` glob that matches no file of the project.
    pub unmatched_globs: Vec<String>,
}

/// What a [`check_paths_opts`] run reads beside the paths.
#[derive(Debug, Clone, Copy, Default)]
pub struct PathsOptions<'a> {
    /// `grounded.toml`'s `globals`.
    pub globals: &'a [String],
    /// `[check]` with `--select`/`--ignore`; `None`: every code, no exclusion.
    pub rules: Option<&'a Rules>,
    /// The process ends soon after the run (the command line): what the run kept of
    /// the files it parsed is left to the system to take back instead of freed.
    pub exits_after: bool,
}

/// Checks files and folders (folders: every script by the engine's script extensions,
/// and every `.md` file). `root` is the project root (loads and `path` arguments are
/// relative to it). Findings name a file as the user would from the current folder: a
/// file argument as given, a file found in a folder argument as the folder joined with
/// its path inside it ([`project::shown_in`]); two `typo.js` in two folders taught that
/// a path relative to its own folder argument names nothing the user can open.
pub fn check_paths(corpus: &Corpus, root: &Path, paths: &[PathBuf]) -> PathsReport {
    check_paths_with(corpus, root, paths, &[])
}

/// The files `paths` name, each with the name findings show it under (see
/// [`check_paths`]), and what the folder walks skipped. A file may come twice (named
/// and inside a named folder): callers keep the first of each canonical path.
pub fn files_of(corpus: &Corpus, paths: &[PathBuf]) -> (Vec<(String, PathBuf)>, Vec<Unreadable>) {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut notes = Vec::new();
    for p in paths {
        if p.is_dir() {
            let walk = project::script_files(corpus, p, true);
            notes.extend(walk.notes);
            for f in walk.files {
                let shown = match f.strip_prefix(p) {
                    Ok(r) => project::shown_in(p, r),
                    Err(_) => f.to_string_lossy().into_owned(),
                };
                files.push((shown, f));
            }
        } else {
            files.push((p.to_string_lossy().into_owned(), p.clone()));
        }
    }
    (files, notes)
}

/// A project opened to check its files one text at a time: `check --fix` judges each
/// version of a file against the same index and `[check]` rules the plain check uses,
/// so a fix is kept only when `check` itself would agree.
pub struct ProjectChecker<'c> {
    corpus: &'c Corpus,
    root: PathBuf,
    index: ProjectIndex,
    rules: Rules,
}

impl<'c> ProjectChecker<'c> {
    /// Scans the project at `root` with `grounded.toml`'s `globals` and `[check]` rules.
    pub fn open(
        corpus: &'c Corpus,
        root: &Path,
        globals: &[String],
        rules: &Rules,
    ) -> ProjectChecker<'c> {
        let mut index = ProjectIndex::scan(corpus, root);
        index.set_globals(corpus, globals);
        ProjectChecker {
            corpus,
            root: root.to_path_buf(),
            index,
            rules: rules.clone(),
        }
    }

    /// Whether `[check] exclude` leaves `file` out (it is then neither checked nor fixed).
    pub fn excluded(&self, file: &Path) -> bool {
        self.rules.excluded(&project::relative(&self.root, file))
    }

    /// The check of `text` as the contents of `file` (shown as `shown`): the findings
    /// its ignore comments and `[check]` leave (a silenced finding is not fixed), and
    /// whether its script parsed without an error node.
    pub fn verdict(&self, shown: &str, file: &Path, text: &str) -> fix::Verdict {
        let rel = project::relative(&self.root, file);
        let script = js::script_text(shown, text, &self.corpus.engine.directives);
        let tree = js::parse(&script);
        let mut found = check_script(self.corpus, &self.index, shown, &rel, text, &script, &tree);
        suppress::apply_file(&mut found, shown, text, &script, &self.rules.for_file(&rel));
        found.retain(|f| f.ignored.is_none());
        fix::Verdict {
            findings: found,
            parse_error: tree.root_node().has_error(),
        }
    }
}

/// [`check_paths`] with the project globals of `grounded.toml` (see
/// [`ProjectIndex::set_globals`]); the report says which were read and which the docs
/// document.
pub fn check_paths_with(
    corpus: &Corpus,
    root: &Path,
    paths: &[PathBuf],
    globals: &[String],
) -> PathsReport {
    check_paths_opts(
        corpus,
        root,
        paths,
        PathsOptions {
            globals,
            rules: None,
            exits_after: false,
        },
    )
}

/// [`check_paths_with`] with the `[check]` rules: excluded files are not checked (they
/// still declare the project's names), and each file's findings are marked by its
/// ignore comments and the rules ([`suppress::apply`]).
pub fn check_paths_opts(
    corpus: &Corpus,
    root: &Path,
    paths: &[PathBuf],
    opts: PathsOptions<'_>,
) -> PathsReport {
    let globals = opts.globals;
    let default_rules = Rules::default();
    let rules = opts.rules.unwrap_or(&default_rules);
    let (files, notes) = files_of(corpus, paths);
    let mut seen = HashSet::new();
    let files: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|(_, file)| {
            seen.insert(std::fs::canonicalize(file).unwrap_or_else(|_| file.clone()))
        })
        .collect();
    let store = batch::Store::new(files.iter().map(|(_, file)| project::relative(root, file)));
    let kept = batch::Kept::new(corpus, &store, batch::kept_text_bytes());
    let mut project = ProjectIndex::scan_keeping(corpus, root, &|file, rel, text, lossy| {
        kept.offer(file, rel, text, lossy)
    });
    let mut report = PathsReport {
        documented_globals: project.set_globals(corpus, globals),
        ..PathsReport::default()
    };
    report.project_globals = project.globals.clone();
    let mut noted: HashSet<(PathBuf, String)> = HashSet::new();
    let mut say = |bad: &mut Vec<Unreadable>, path: String, reason: String| {
        // The index's walk and a folder argument's walk often cover the same files:
        // each thing skipped is said once.
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| PathBuf::from(&path));
        if noted.insert((key, reason.clone())) {
            bad.push(Unreadable { path, reason });
        }
    };
    for n in notes {
        say(&mut report.unreadable, n.path, n.reason);
    }
    let mut checked_rel: Vec<String> = Vec::new();
    // Read and checked on every core; merged here in the files' order, so what is said
    // and found is in the order one thread gives.
    let shared = project.shared_names();
    let outcomes = batch::map_ordered(&files, |(shown, file)| {
        batch::check_file(corpus, &project, &shared, root, rules, shown, file, &kept)
    });
    drop(kept);
    for ((shown, file), outcome) in files.into_iter().zip(outcomes) {
        if let Some(note) = outcome.note {
            say(&mut report.unreadable, shown.clone(), note);
        }
        match outcome.done {
            batch::Done::Skipped => {}
            batch::Done::Excluded => report.excluded.push(shown),
            batch::Done::Checked {
                findings,
                rel,
                script,
            } => {
                report.findings.extend(findings);
                checked_rel.push(rel);
                report.checked.push(Checked {
                    shown,
                    file,
                    script,
                });
            }
        }
    }
    // After the paths' own files: a file both named and scanned is said as named.
    for n in &project.notes {
        let key = std::fs::canonicalize(root.join(&n.path)).unwrap_or_else(|_| root.join(&n.path));
        if noted.insert((key, n.reason.clone())) {
            report.scanned.push(n.clone());
        }
    }
    let known = project
        .files
        .keys()
        .map(String::as_str)
        .chain(checked_rel.iter().map(String::as_str));
    report.unmatched_globs = rules.unmatched(known);
    store.release(opts.exits_after);
    report
}
