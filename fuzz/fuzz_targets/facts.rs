#![no_main]
//! `facts.toml`, parsed and applied to a small corpus.
use grounded::docs::Corpus;
use libfuzzer_sys::fuzz_target;

const DOCS: &str = "# Table\n# Layout\naccessed using the global property \"layout\"\n## Layout-tableStart\nSyntax: tableStart(t: Table): void\n## Layout-tableEnd\nSyntax: tableEnd(): void\n";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Corpus::from_texts(&[("a.md", DOCS), ("facts.toml", &text)]);
});
