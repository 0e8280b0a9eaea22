#![no_main]
//! The Markdown chunk reader on any bytes (decoded as every reader decodes files).
use grounded::docs::chunk::{chunks_of, SourceFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = grounded::textfile::decode(data.to_vec()).text;
    let f = SourceFile {
        path: "f.md".into(),
        text,
    };
    let _ = chunks_of(&[f], &mut Vec::new());
});
