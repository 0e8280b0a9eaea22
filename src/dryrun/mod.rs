//! `dryrun`: execute the project against a fake engine generated from the docs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check::Finding;
use crate::docs::Corpus;

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Time budget.
    pub budget_ms: u64,
    /// Memory limit in bytes.
    pub memory_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget_ms: 2000,
            memory_limit: 64 << 20,
        }
    }
}

/// What a run found and what it could not prove.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Findings, code `dry-run` (or `file`).
    pub findings: Vec<Finding>,
    /// What the run cannot prove, in words.
    pub limits: Vec<String>,
}

/// Runs the project under `root` from `entries` (paths relative to the root).
/// `overlay` holds unsaved buffers (absolute path → text) that win over the disk.
pub fn run_project(
    _corpus: &Corpus,
    _root: &Path,
    _entries: &[PathBuf],
    _overlay: &HashMap<PathBuf, String>,
    _opts: &Options,
) -> Report {
    Report::default()
}
