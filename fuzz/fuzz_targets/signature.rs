#![no_main]
//! The signature parser: a label, a name, a TypeScript-like signature.
use grounded::docs::signature;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    let s = signature::strip_label(&line);
    let name: String = s
        .trim_start_matches("readonly ")
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    if signature::is_signature_of(s, &name) {
        if let Ok(sig) = signature::parse(s, &name) {
            let _ = sig.ty.to_string();
        }
    }
    let _ = signature::parse_type(s);
});
