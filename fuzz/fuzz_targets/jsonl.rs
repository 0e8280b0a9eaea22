#![no_main]
//! The JSON Lines chunk reader on any bytes.
use grounded::docs::chunk::{chunks_of, SourceFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = grounded::textfile::decode(data.to_vec()).text;
    let f = SourceFile {
        path: "f.jsonl".into(),
        text,
    };
    let _ = chunks_of(&[f], &mut Vec::new());
});
