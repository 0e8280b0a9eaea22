//! `dryrun`: execute the project against a fake engine generated from the docs.
//!
//! The static check must skip every receiver whose type is uncertain (parameters,
//! values returned by the project's own functions, callbacks), which is exactly where
//! dynamic code lives. The docs are complete and enumerable, so a fake engine is
//! generated from them ([`describe`] + `prelude.js`) and the project actually runs
//! against it in QuickJS ([`engine`]): every documented global, constructor and member
//! exists as a stub of its documented type, and touching an undocumented member of a
//! typed object is recorded with the script's own file, line and column.
//!
//! Safety: no I/O of the engine's own; the only doors out are the wired loaders, which
//! read nothing but the project's files ([`source`]); a time budget (interrupt
//! handler), a memory limit and a stack limit bound every run.
//!
//! Example: `function configure(grid) { grid.cellSpacing = 2; } configure(new Table());`
//! is silent for the static check (a parameter is never certain) and a `dry-run`
//! finding here: the value that reaches `grid` at run time is a `Table`.
//!
//! ## Layer
//!
//! May depend on: `grounded-textfile`, `grounded-docs`, `grounded-project`,
//! `grounded-js`, `grounded-check` (its `Cargo.toml`, which the compiler holds;
//! `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: the server or the agent, and anything outside the project's files:
//! its only doors out are the wired loaders.

#![warn(missing_docs)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use grounded_check::Finding;
use grounded_docs::Corpus;

mod blame;
pub mod describe;
pub mod engine;
mod modules;
pub mod report;
pub mod source;

pub use source::{entries, project_entries};

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Time budget of each entry script, in milliseconds.
    pub budget_ms: u64,
    /// Memory limit in bytes.
    pub memory_limit: usize,
    /// The project globals of `grounded.toml` (interfaces.md, "Project globals"):
    /// permissive objects in the fake engine, unless the docs document the name.
    pub globals: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget_ms: 2000,
            memory_limit: 64 << 20,
            globals: Vec::new(),
        }
    }
}

/// What a run found and what it could not prove.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Findings, code `dry-run` (or `file`), deduplicated, in file then position order.
    pub findings: Vec<Finding>,
    /// What the run cannot prove, in words.
    pub limits: Vec<String>,
    /// Failures of grounded itself (a panic while running an entry), one line each with
    /// the file being read: a bug, to be shown to the user, never a silent empty run.
    pub failures: Vec<String>,
}

/// What every dry run cannot prove, whatever the project.
const LIMITS: &[&str] = &[
    "rendering is not simulated: the fake engine checks the names and types the scripts use, not what the engine would lay out or draw",
    "data APIs return empty stubs (empty strings, zero, empty arrays), so loops over read data may run zero times and their bodies go unexercised",
    "only what the run reached is judged: functions never called and branches never taken say nothing",
    "callbacks given to documented methods run once, with permissive arguments",
    "the language is QuickJS's, a later edition than the engine's level: the static check judges which syntax and built-ins exist",
];

/// Runs the project under `root` from `entries` (paths relative to the root; empty:
/// every top-level script, see [`entries`]). `overlay` holds unsaved buffers
/// (absolute path → text) that win over the disk.
///
/// Blocking and self-contained: each entry runs in a runtime of its own, within
/// `opts.budget_ms`; callable from `tokio::task::spawn_blocking`.
pub fn run_project(
    corpus: &Corpus,
    root: &Path,
    entries: &[PathBuf],
    overlay: &HashMap<PathBuf, String>,
    opts: &Options,
) -> Report {
    let sources = Rc::new(source::Sources::new(root, overlay, corpus));
    let entries: Vec<PathBuf> = if entries.is_empty() {
        source::entries(corpus, root, None)
    } else {
        entries.to_vec()
    };
    let description = describe::describe_project(corpus, &opts.globals);
    let mut report = Report {
        findings: Vec::new(),
        limits: LIMITS.iter().map(|s| s.to_string()).collect(),
        failures: Vec::new(),
    };
    let mut texts = HashMap::new();
    for entry in &entries {
        let rel = match sources.resolve(&entry.to_string_lossy()) {
            source::Resolved::Inside(rel) => rel,
            source::Resolved::Outside => {
                report.limits.push(format!(
                    "entry `{}` is outside the project root {}: not run",
                    entry.display(),
                    sources.root().display()
                ));
                continue;
            }
        };
        // Whatever a script does, the caller (the language server above all) lives on.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine::run_entry(&description, &sources, &rel, opts)
        }));
        let events = match run {
            Ok(ev) => ev,
            Err(p) => {
                report.limits.push(format!(
                    "entry `{rel}` could not be run: the script engine failed internally"
                ));
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                let reading = grounded_textfile::being_read()
                    .map(|f| format!(" while reading {f}"))
                    .unwrap_or_default();
                report.failures.push(format!(
                    "the dry run of `{rel}` failed{reading}: {}; this is a bug in grounded: please report it",
                    msg.lines().next().unwrap_or("")
                ));
                continue;
            }
        };
        for ev in &events {
            if let engine::Event::NoEntry { path } = ev {
                report
                    .limits
                    .push(format!("entry `{path}` does not exist: not run"));
            }
        }
        report.findings.extend(report::findings(
            corpus,
            &sources,
            &rel,
            &events,
            opts,
            &mut texts,
            &mut report.limits,
        ));
    }
    report::dedup(&mut report.findings);
    report
}
