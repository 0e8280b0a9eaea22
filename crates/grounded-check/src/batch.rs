//! The batch driver: the files of a [`check_paths_opts`](super::check_paths_opts) run
//! read and checked on every core, their results put back in the order the files were
//! named, so every output (human, JSON, SARIF) is byte for byte what one thread gives.
//!
//! Why here and not in the command line: the project index and each file's check are
//! pure (text in, findings out), so the only shared state is what is read, and the
//! order is restored by collecting per file and merging afterwards in one place.
//! `RAYON_NUM_THREADS=1` runs it on one thread (the test that compares the two).
//! May import `project`, `suppress`, `dispatch` and `js`; nothing imports it but `lib`.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::dispatch::check_script_in;
use super::{project, suppress, Finding, ProjectIndex, Rules};
use grounded_docs::Corpus;
use grounded_js as js;

/// What became of one file of the paths, merged in order by the caller.
pub(crate) struct Outcome {
    /// A caveat or the reason it was skipped (said once by the caller).
    pub note: Option<String>,
    /// What was done with it.
    pub done: Done,
}

/// Whether a file was checked, excluded or skipped.
pub(crate) enum Done {
    /// Not checked (unreadable, binary, too large).
    Skipped,
    /// Left out by `[check] exclude`.
    Excluded,
    /// Checked.
    Checked {
        /// Its findings, marked by its ignore comments and the rules.
        findings: Vec<Finding>,
        /// Its path relative to the root.
        rel: String,
        /// Whether it held any script.
        script: bool,
    },
}

/// How many bytes of script text may have their trees kept from the project scan for
/// the check (see [`Kept`]) unless `GROUNDED_KEEP_TREES` says otherwise.
///
/// Why this many: a tree costs about 40 times its text. With every tree of the
/// 400-script benchmark project (1.5 MB) kept, a run peaked at 75 MiB instead of 16 MiB
/// and took 0.71× the CPU of parsing each file twice; 2 MiB of text bounds the extra at
/// about 80 MiB (and one file over the budget, kept whole).
pub(crate) const KEPT_TEXT_BYTES: usize = 2 << 20;

/// The budget of kept text: `GROUNDED_KEEP_TREES` (bytes) or [`KEPT_TEXT_BYTES`].
pub(crate) fn kept_text_bytes() -> usize {
    std::env::var("GROUNDED_KEEP_TREES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(KEPT_TEXT_BYTES)
}

/// Trees the project scan parsed, kept for the files about to be checked, up to a
/// budget of their texts' bytes: a file whose tree was kept is not read or parsed
/// again (the scan and the check parsed every file twice, a third of a run).
///
/// Which files fit the budget depends on the order the threads reach them; what is
/// found does not: a kept tree is the tree of the same text the check would read.
pub(crate) struct Kept {
    /// The files to be checked, by path relative to the root.
    wanted: HashSet<String>,
    budget: usize,
    used: AtomicUsize,
    trees: Mutex<HashMap<String, (String, bool, tree_sitter::Tree)>>,
}

impl Kept {
    /// A store for the trees of `wanted` (relative paths) up to `budget` bytes of text.
    pub(crate) fn new(wanted: HashSet<String>, budget: usize) -> Kept {
        Kept {
            wanted,
            budget,
            used: AtomicUsize::new(0),
            trees: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps `file`'s text (`lossy`: decoded with replacements) and tree, if it is to
    /// be checked, the check would read it (not over the size limit) and the budget is
    /// not spent.
    pub(crate) fn offer(
        &self,
        file: &Path,
        rel: &str,
        text: String,
        lossy: bool,
        tree: tree_sitter::Tree,
    ) {
        if !self.wanted.contains(rel)
            || std::fs::metadata(file).map_or(true, |m| m.len() > project::MAX_SCRIPT_BYTES)
        {
            return;
        }
        // Admitted while under the budget, so a single file is always kept: its tree
        // is the one the check would build anyway, and nothing else is held beside it.
        let n = text.len();
        if self.used.fetch_add(n, Ordering::Relaxed) >= self.budget {
            self.used.fetch_sub(n, Ordering::Relaxed);
            return;
        }
        if let Ok(mut t) = self.trees.lock() {
            t.insert(rel.to_string(), (text, lossy, tree));
        }
    }

    /// The kept text, lossiness and tree of `rel`, given up (each is used once).
    fn take(&self, rel: &str) -> Option<(String, bool, tree_sitter::Tree)> {
        self.trees.lock().ok()?.remove(rel)
    }
}

/// `f` of every item, on every core, in the items' order.
pub(crate) fn map_ordered<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// Reads and checks one file of the paths (`shown` as findings name it), or takes its
/// text and tree from `kept` when the project scan kept them.
// Each argument is one thing the run shares with every file; bundling them would be a
// struct used by this one call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_file(
    corpus: &Corpus,
    project: &ProjectIndex,
    shared: &project::SharedNames<'_>,
    root: &Path,
    rules: &Rules,
    shown: &str,
    file: &Path,
    kept: &Kept,
) -> Outcome {
    grounded_textfile::reading(shown);
    let skipped = |note: String| Outcome {
        note: Some(note),
        done: Done::Skipped,
    };
    let mut note = None;
    let rel = project::relative(root, file);
    let mut tree = None;
    let text = match kept.take(&rel) {
        Some((text, lossy, t)) => {
            if lossy {
                note = Some(grounded_textfile::LOSSY_NOTE.into());
            }
            tree = Some(t);
            text
        }
        None => match read_checked(file) {
            Ok((text, lossy)) => {
                if lossy {
                    note = Some(grounded_textfile::LOSSY_NOTE.into());
                }
                text
            }
            Err(why) => return skipped(why),
        },
    };
    if rules.excluded(&rel) {
        return Outcome {
            note,
            done: Done::Excluded,
        };
    }
    let script = js::script_text(shown, &text, &corpus.engine.directives);
    let is_script = !js::is_markdown(shown) || script.bytes().any(|b| !b.is_ascii_whitespace());
    // The scan parsed the text as the file it resolves to is named: kept only when
    // that reads it as the name shown does (a link `a.js` to `b.md` is not).
    let tree = tree
        .filter(|_| js::is_markdown(shown) == js::is_markdown(&rel))
        .unwrap_or_else(|| js::parse(&script));
    let mut found = check_script_in(
        corpus,
        project,
        Some(shared),
        shown,
        &rel,
        &text,
        &script,
        &tree,
        false,
    )
    .0;
    suppress::apply_file(&mut found, shown, &text, &script, &rules.for_file(&rel));
    Outcome {
        note,
        done: Done::Checked {
            findings: found,
            rel,
            script: is_script,
        },
    }
}

/// A file of the paths read for its check: its text and whether it was decoded with
/// replacements, or why it is skipped.
fn read_checked(file: &Path) -> Result<(String, bool), String> {
    match grounded_textfile::read_at_most(file, project::MAX_SCRIPT_BYTES) {
        Ok(Some(d)) if grounded_textfile::looks_binary(&d.text) => {
            Err("skipped, binary (a NUL byte), not a script".into())
        }
        Ok(Some(d)) => Ok((d.text, d.lossy)),
        Ok(None) => Err(format!(
            "skipped, over the {} MB a script may have",
            project::MAX_SCRIPT_BYTES >> 20
        )),
        Err(e) => Err(format!("skipped, {e}")),
    }
}
