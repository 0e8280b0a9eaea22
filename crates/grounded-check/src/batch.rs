//! The batch driver: the files of a [`check_paths_opts`](super::check_paths_opts) run
//! read and checked on every core, their results put back in the order the files were
//! named, so every output (human, JSON, SARIF) is byte for byte what one thread gives.
//!
//! Why here and not in the command line: the project index and each file's check are
//! pure (text in, findings out), so the only shared state is what is read, and the
//! order is restored by collecting per file and merging afterwards in one place.
//! `RAYON_NUM_THREADS=1` runs it on one thread (the test that compares the two).
//! May import `project`, `suppress`, `dispatch` and `js`; nothing imports it but `lib`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use super::dispatch::{check_analysed, check_script_in};
use super::{project, suppress, FileFacts, Finding, ProjectIndex, Rules};
use grounded_docs::Corpus;
use grounded_js::{self as js, Analysis};

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

/// How many bytes of script text may have their trees and analyses kept from the
/// project scan for the check (see [`Kept`]) unless `GROUNDED_KEEP_TREES` says
/// otherwise.
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

/// A file the project scan read, parsed and analysed for the check that follows.
pub(crate) struct KeptFile {
    /// The text as read.
    text: String,
    /// The text as the parser read it ([`js::script_text`]), when that differs.
    script: Option<String>,
    /// Whether the text was decoded with replacements.
    lossy: bool,
    tree: tree_sitter::Tree,
}

impl KeptFile {
    /// The text the tree was parsed from.
    fn script(&self) -> &str {
        self.script.as_deref().unwrap_or(&self.text)
    }
}

/// Where the files a run keeps live until the run ends: one slot for each file to be
/// checked (by path relative to the root), filled at most once, so that the analyses
/// [`Kept`] holds can borrow their texts and trees while the scan goes on filling other
/// slots from other threads.
pub(crate) struct Store {
    slots: HashMap<String, OnceLock<KeptFile>>,
}

impl Store {
    /// A store for the files `wanted` (relative paths).
    pub(crate) fn new(wanted: impl IntoIterator<Item = String>) -> Store {
        Store {
            slots: wanted.into_iter().map(|r| (r, OnceLock::new())).collect(),
        }
    }

    /// Frees the kept files on every core, or not at all when the process ends right
    /// after (`exits`): freeing a 100,000-line script's tree one node at a time was a
    /// twentieth of its check, for memory the system takes back whole at exit.
    pub(crate) fn release(self, exits: bool) {
        if exits {
            std::mem::forget(self);
        } else {
            self.slots.into_par_iter().for_each(drop);
        }
    }
}

/// The trees the project scan parsed of the files about to be checked, up to a budget
/// of their texts' bytes, and their analyses: a file kept is not read or parsed again
/// (the scan and the check parsed every file twice, a third of a run), nor analysed
/// again (the one 100,000-line script of a run was analysed twice, a third of its check
/// after the parse).
///
/// Which files fit the budget depends on the order the threads reach them; what is
/// found does not: a kept tree is the tree of the same text the check would read, a
/// kept analysis the one the check would make of it, from which the check makes its
/// facts again as from its own (the project's names are set on it afterwards, which
/// settles every type again).
pub(crate) struct Kept<'s> {
    corpus: &'s Corpus,
    store: &'s Store,
    budget: usize,
    used: AtomicUsize,
    /// By kept file: its analysis.
    ///
    /// An analysis costs about 10 times its text. Until issue 48's last round they
    /// were kept only when one file was checked (it saved 2% of a generated project's
    /// CPU for 23 MiB); once the near names, polyfills and report stopped costing more
    /// than the analyses, analysing each file a second time was a tenth of a real
    /// 392-file project's check, and keeping them took 5% off its wall time for 13 MiB
    /// (`GROUNDED_KEEP_TREES=0` keeps neither).
    analyses: Mutex<HashMap<&'s str, Analysis<'s>>>,
}

impl<'s> Kept<'s> {
    /// A keeper of the files `store` has slots for, up to `budget` bytes of text.
    pub(crate) fn new(corpus: &'s Corpus, store: &'s Store, budget: usize) -> Kept<'s> {
        Kept {
            corpus,
            store,
            budget,
            used: AtomicUsize::new(0),
            analyses: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps `file`'s text (`lossy`: decoded with replacements), tree and analysis, and
    /// gives its facts, if it is to be checked, the check would read it (not over the
    /// size limit) and the budget is not spent; else gives the text back.
    pub(crate) fn offer(
        &self,
        file: &Path,
        rel: &str,
        text: String,
        lossy: bool,
    ) -> Result<FileFacts, String> {
        let Some((key, slot)) = self.store.slots.get_key_value(rel) else {
            return Err(text);
        };
        if std::fs::metadata(file).map_or(true, |m| m.len() > project::MAX_SCRIPT_BYTES) {
            return Err(text);
        }
        // Admitted while under the budget, so a single file is always kept: its tree
        // is the one the check would build anyway, and nothing else is held beside it.
        let n = text.len();
        if self.used.fetch_add(n, Ordering::Relaxed) >= self.budget {
            self.used.fetch_sub(n, Ordering::Relaxed);
            return Err(text);
        }
        let script = match js::script_text(rel, &text, &self.corpus.engine.directives) {
            Cow::Owned(s) => Some(s),
            Cow::Borrowed(_) => None,
        };
        let tree = js::parse(script.as_deref().unwrap_or(&text));
        let kept = KeptFile {
            text,
            script,
            lossy,
            tree,
        };
        // Filled already (two paths of the walk that resolve to one file): the first
        // is kept, this one is read as a file not kept.
        if let Err(again) = slot.set(kept) {
            return Err(again.text);
        }
        let k = slot.get().expect("set just now");
        let a = Analysis::new(self.corpus, k.script(), &k.tree);
        let facts = FileFacts::of_parts(self.corpus, rel, &k.text, &a, a.sites());
        if let Ok(mut m) = self.analyses.lock() {
            m.insert(key.as_str(), a);
        }
        Ok(facts)
    }

    /// The kept file and analysis of `rel` (with `rel` as the store holds it), the
    /// analysis given up (it is used once).
    fn take(&self, rel: &str) -> Option<(&'s str, &'s KeptFile, Analysis<'s>)> {
        let a = self.analyses.lock().ok()?.remove(rel)?;
        let (key, slot) = self.store.slots.get_key_value(rel)?;
        Some((key.as_str(), slot.get()?, a))
    }
}

/// `f` of every item, on every core, in the items' order.
/// (`f` borrows each item for as long as `items` lives: a kept analysis names the file
/// it judges by the item's path.)
pub(crate) fn map_ordered<'i, T: Sync, R: Send>(
    items: &'i [T],
    f: impl Fn(&'i T) -> R + Sync + Send,
) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// Reads and checks one file of the paths (`shown` as findings name it), or takes its
/// text and analysis from `kept` when the project scan kept them.
// Each argument is one thing the run shares with every file; bundling them would be a
// struct used by this one call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_file<'s>(
    corpus: &'s Corpus,
    project: &'s ProjectIndex,
    shared: &'s project::SharedNames<'s>,
    root: &Path,
    rules: &Rules,
    shown: &'s str,
    file: &Path,
    kept: &Kept<'s>,
) -> Outcome {
    grounded_textfile::reading(shown);
    let skipped = |note: String| Outcome {
        note: Some(note),
        done: Done::Skipped,
    };
    let rel = project::relative(root, file);
    let kept = kept.take(&rel);
    let read;
    let (text, lossy) = match &kept {
        Some((_, k, _)) => (k.text.as_str(), k.lossy),
        None => match read_checked(file) {
            Ok((text, lossy)) => {
                read = text;
                (read.as_str(), lossy)
            }
            Err(why) => return skipped(why),
        },
    };
    let note = lossy.then(|| grounded_textfile::LOSSY_NOTE.into());
    if rules.excluded(&rel) {
        return Outcome {
            note,
            done: Done::Excluded,
        };
    }
    let script = js::script_text(shown, text, &corpus.engine.directives);
    let is_script = !js::is_markdown(shown) || script.bytes().any(|b| !b.is_ascii_whitespace());
    // The scan parsed the text as the file it resolves to is named: kept only when
    // that reads it as the name shown does (a link `a.js` to `b.md` is not).
    let kept = kept.filter(|_| js::is_markdown(shown) == js::is_markdown(&rel));
    let mut found = match kept {
        // Everything the kept analysis is judged with lives as long as it does: its
        // text and tree in the store, the path named by the store's key.
        Some((key, k, a)) => check_analysed(
            corpus,
            project,
            Some(shared),
            shown,
            key,
            &k.text,
            k.script(),
            &k.tree,
            a,
            false,
        ),
        // None kept: the check parses and analyses the file.
        None => {
            let tree = js::parse(&script);
            check_script_in(
                corpus,
                project,
                Some(shared),
                shown,
                &rel,
                text,
                &script,
                &tree,
                false,
            )
        }
    }
    .0;
    suppress::apply_file(&mut found, shown, text, &script, &rules.for_file(&rel));
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
