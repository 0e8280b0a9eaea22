//! `check`: the eight families of findings, one file each, decided against the corpus.

pub mod construct;
pub mod finding;

use std::path::{Path, PathBuf};

pub use finding::{Code, Finding, Fix, Related, Severity, Span};

use crate::docs::Corpus;

/// What one file can see of its project: the top-level declarations of every script and
/// what each script loads. Built from disk, updated from open buffers.
#[derive(Debug, Clone, Default)]
pub struct ProjectIndex {
    /// The project root (`path` arguments are relative to it).
    pub root: PathBuf,
}

impl ProjectIndex {
    /// Scans the scripts under `root` (the engine's script extensions).
    pub fn scan(_corpus: &Corpus, root: &Path) -> ProjectIndex {
        ProjectIndex {
            root: root.to_path_buf(),
        }
    }

    /// Replaces one file's entry with the declarations of `text` (an open buffer).
    /// `rel` is relative to the root, `/`-separated.
    pub fn update_file(&mut self, _corpus: &Corpus, _rel: &str, _text: &str) {}

    /// Forgets a deleted file.
    pub fn remove_file(&mut self, _rel: &str) {}

    /// Files (relative to the root) whose findings may change when `rel` changes: those
    /// that load it, or that use what it declares.
    pub fn dependents(&self, _rel: &str) -> Vec<String> {
        Vec::new()
    }
}

/// Checks one script's text. `path` is how findings name the file (relative to the
/// root for project files). Markdown is checked by its fenced `js` blocks.
pub fn check_text(corpus: &Corpus, project: &ProjectIndex, path: &str, text: &str) -> Vec<Finding> {
    let tree = crate::js::parse(text);
    check_tree(corpus, project, path, text, &tree)
}

/// Like [`check_text`] with a tree the caller keeps (incremental reparse).
pub fn check_tree(
    _corpus: &Corpus,
    _project: &ProjectIndex,
    _path: &str,
    _text: &str,
    _tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    Vec::new()
}
