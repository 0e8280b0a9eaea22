#![no_main]
//! A whole corpus load (Markdown, JSONL and facts.toml cut from one input), then what a
//! loaded corpus is used for: lookup, topics, a check.
use grounded::check::{check_text, ProjectIndex};
use grounded::docs::Corpus;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = grounded::textfile::decode(data.to_vec()).text;
    let mut parts = text.splitn(3, "\u{0}");
    let md = parts.next().unwrap_or("");
    let jsonl = parts.next().unwrap_or("");
    let facts = parts.next().unwrap_or("");
    if let Ok(c) = Corpus::from_texts(&[("a.md", md), ("b.jsonl", jsonl), ("facts.toml", facts)]) {
        let _ = c.lookup("table", 3);
        let _ = c.resolve_topic("make a table", 3);
        let _ = check_text(
            &c,
            &ProjectIndex::default(),
            "x.js",
            "layout.tableStart(new Table());\n",
        );
    }
});
