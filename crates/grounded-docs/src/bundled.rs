//! The bundled demo engine's corpus, embedded in the binary.
//!
//! It is the default when neither `--docs` nor `grounded.toml` names a corpus, so that
//! `grounded check` shows what the tool is for on a fresh install.

use include_dir::{include_dir, Dir};

use super::chunk::SourceFile;
use super::model::{Corpus, CorpusError};

static DEMO: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../corpus/demo");

/// The embedded files, in sorted path order, and the overlay.
fn files() -> (Vec<SourceFile>, Option<SourceFile>) {
    let mut all = Vec::new();
    collect(&DEMO, &mut all);
    all.sort_by(|a, b| a.path.cmp(&b.path));
    let facts = all
        .iter()
        .position(|f| f.path == "facts.toml")
        .map(|i| all.remove(i));
    all.retain(|f| f.path.ends_with(".md") || f.path.ends_with(".jsonl"));
    (all, facts)
}

fn collect(dir: &Dir<'_>, out: &mut Vec<SourceFile>) {
    for f in dir.files() {
        if let Some(text) = f.contents_utf8() {
            out.push(SourceFile {
                path: f.path().to_string_lossy().replace('\\', "/"),
                text: text.to_string(),
            });
        }
    }
    for d in dir.dirs() {
        collect(d, out);
    }
}

/// Loads the bundled demo corpus.
pub fn demo() -> Result<Corpus, CorpusError> {
    let (files, facts) = files();
    Corpus::from_sources(files, facts, Vec::new(), "<bundled demo engine>")
}
