//! `check`: the families of findings, one file each, decided against the corpus.
//!
//! One parse, one query pass over the tree (`grammars/javascript/*.scm`), one scope walk
//! ([`grounded_js::Analysis`]); every site the query captures is handed to the families
//! that judge it. Nothing here names an engine: every fact comes from the corpus.
//!
//! | family | file | finds |
//! |---|---|---|
//! | `member` | `member.rs` | a member the certain receiver's interface lacks |
//! | `object` | `object.rs` | a receiver declared nowhere |
//! | `function` | `function.rs` | a bare call of a function defined nowhere |
//! | `syntax` | `syntax.rs` | parse errors, syntax above the engine's level |
//! | `option` | `option.rs` | an object-literal key the parameter's interface lacks |
//! | `constructor` | `constructor.rs` | `new X()` of nothing |
//! | `engine` | `engine.rs` | a built-in the engine's level lacks |
//! | `file` | `file.rs` | a `path` literal naming no file of the project |
//! | `construct` | `construct.rs` | Start without End (owned by the footprint layer) |

#![warn(missing_docs)]

pub mod construct;
mod constructor;
mod dispatch;
mod engine;
mod file;
pub mod finding;
mod function;
mod guard;
mod member;
mod object;
mod option;
pub mod project;
mod session;
pub mod suggest;
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

/// [`check_paths`] with the project globals of `grounded.toml` (see
/// [`ProjectIndex::set_globals`]); the report says which were read and which the docs
/// document.
pub fn check_paths_with(
    corpus: &Corpus,
    root: &Path,
    paths: &[PathBuf],
    globals: &[String],
) -> PathsReport {
    let mut project = ProjectIndex::scan(corpus, root);
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
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for p in paths {
        if p.is_dir() {
            let walk = project::script_files(corpus, p, true);
            for n in walk.notes {
                say(&mut report.unreadable, n.path, n.reason);
            }
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
    let mut seen = HashSet::new();
    for (shown, file) in files {
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if !seen.insert(key) {
            continue;
        }
        grounded_textfile::reading(&shown);
        let bad = &mut report.unreadable;
        let text = match grounded_textfile::read_at_most(&file, project::MAX_SCRIPT_BYTES) {
            Ok(Some(d)) if grounded_textfile::looks_binary(&d.text) => {
                say(
                    bad,
                    shown,
                    "skipped, binary (a NUL byte), not a script".into(),
                );
                continue;
            }
            Ok(Some(d)) => {
                if d.lossy {
                    say(bad, shown.clone(), grounded_textfile::LOSSY_NOTE.into());
                }
                d.text
            }
            Ok(None) => {
                let reason = format!(
                    "skipped, over the {} MB a script may have",
                    project::MAX_SCRIPT_BYTES >> 20
                );
                say(bad, shown, reason);
                continue;
            }
            Err(e) => {
                say(bad, shown, format!("skipped, {e}"));
                continue;
            }
        };
        let rel = project::relative(root, &file);
        let script = js::script_text(&shown, &text, &corpus.engine.directives);
        let is_script =
            !js::is_markdown(&shown) || script.bytes().any(|b| !b.is_ascii_whitespace());
        let tree = js::parse(&script);
        report.findings.extend(check_script(
            corpus, &project, &shown, &rel, &text, &script, &tree,
        ));
        report.checked.push(Checked {
            shown,
            file,
            script: is_script,
        });
    }
    // After the paths' own files: a file both named and scanned is said as named.
    for n in &project.notes {
        let key = std::fs::canonicalize(root.join(&n.path)).unwrap_or_else(|_| root.join(&n.path));
        if noted.insert((key, n.reason.clone())) {
            report.scanned.push(n.clone());
        }
    }
    report
}
