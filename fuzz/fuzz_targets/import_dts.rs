#![no_main]
//! `grounded import dts` on arbitrary declaration text: the importer never panics, and
//! what it writes the corpus loader reads, one chunk a line.
use grounded::docs::Corpus;
use grounded::import::{jsonl_of_texts, Settings};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(jsonl) = jsonl_of_texts(&[("a.d.ts", &text)], &Settings::default()) {
        let c = Corpus::from_texts(&[("corpus.jsonl", &jsonl)]).expect("a corpus");
        assert_eq!(c.chunks.len(), jsonl.lines().count());
    }
});
