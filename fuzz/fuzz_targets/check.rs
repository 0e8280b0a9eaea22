#![no_main]
//! `check` on any text under the demo corpus, as a script and as Markdown.
use std::sync::OnceLock;

use grounded::check::{check_text, ProjectIndex};
use grounded::docs::Corpus;
use libfuzzer_sys::fuzz_target;

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| grounded::docs::bundled::demo().expect("the bundled corpus loads"))
}

fuzz_target!(|data: &[u8]| {
    let text = grounded::textfile::decode(data.to_vec()).text;
    let project = ProjectIndex::default();
    for path in ["x.js", "x.md"] {
        for f in check_text(corpus(), &project, path, &text) {
            assert!(f.span.start <= f.span.end && f.span.end <= text.len());
        }
    }
});
