//! The batch driver: the files of a [`check_paths_opts`](super::check_paths_opts) run
//! read and checked on every core, their results put back in the order the files were
//! named, so every output (human, JSON, SARIF) is byte for byte what one thread gives.
//!
//! Why here and not in the command line: the project index and each file's check are
//! pure (text in, findings out), so the only shared state is what is read, and the
//! order is restored by collecting per file and merging afterwards in one place.
//! `RAYON_NUM_THREADS=1` runs it on one thread (the test that compares the two).
//! May import `project`, `suppress`, `dispatch` and `js`; nothing imports it but `lib`.

use std::path::Path;

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

/// `f` of every item, on every core, in the items' order.
pub(crate) fn map_ordered<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// Reads and checks one file of the paths (`shown` as findings name it).
pub(crate) fn check_file(
    corpus: &Corpus,
    project: &ProjectIndex,
    shared: &project::SharedNames<'_>,
    root: &Path,
    rules: &Rules,
    shown: &str,
    file: &Path,
) -> Outcome {
    grounded_textfile::reading(shown);
    let skipped = |note: String| Outcome {
        note: Some(note),
        done: Done::Skipped,
    };
    let mut note = None;
    let text = match grounded_textfile::read_at_most(file, project::MAX_SCRIPT_BYTES) {
        Ok(Some(d)) if grounded_textfile::looks_binary(&d.text) => {
            return skipped("skipped, binary (a NUL byte), not a script".into());
        }
        Ok(Some(d)) => {
            if d.lossy {
                note = Some(grounded_textfile::LOSSY_NOTE.into());
            }
            d.text
        }
        Ok(None) => {
            return skipped(format!(
                "skipped, over the {} MB a script may have",
                project::MAX_SCRIPT_BYTES >> 20
            ))
        }
        Err(e) => return skipped(format!("skipped, {e}")),
    };
    let rel = project::relative(root, file);
    if rules.excluded(&rel) {
        return Outcome {
            note,
            done: Done::Excluded,
        };
    }
    let script = js::script_text(shown, &text, &corpus.engine.directives);
    let is_script = !js::is_markdown(shown) || script.bytes().any(|b| !b.is_ascii_whitespace());
    let tree = js::parse(&script);
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
