#![no_main]
//! `script_text` keeps every offset: same length, line ends where they were.
use grounded::js::{directives, script_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = grounded::textfile::decode(data.to_vec()).text;
    let dirs = vec!["#include".to_string(), "#target".to_string()];
    for path in ["x.md", "x.jsx"] {
        let s = script_text(path, &text, &dirs);
        assert_eq!(s.len(), text.len());
        for (a, b) in s.bytes().zip(text.bytes()) {
            assert_eq!(a == b'\n', b == b'\n');
        }
        for d in directives(path, &text, &dirs) {
            if let Some((a, b)) = d.argument_span {
                assert!(a <= b && b <= text.len());
            }
        }
    }
});
