//! Real documentation is full of non-ASCII text: non-breaking spaces, curly quotes, CJK,
//! emoji. One non-breaking space in a `Syntax:` line once made every command exit 101
//! (a byte slice inside a character). Here every line shape the loader reads is loaded
//! with multi-byte characters at every offset, and a corpus of 20,000 chunks with
//! non-ASCII text at every position is loaded from real files.

use grounded::check::{check_text, ProjectIndex};
use grounded::docs::{Corpus, MemberKind};

/// One of each width: 2 bytes (NBSP, é), 3 bytes (curly quotes, CJK), 4 bytes (emoji).
const WIDE: &[char] = &['\u{a0}', 'é', '\u{201c}', '\u{2019}', '表', '😀'];

/// Every line shape of corpus-format.md, each in the chunk where the loader reads it.
/// `{}` is where the line goes.
const SHAPES: &[(&str, &str)] = &[
    ("# Table", "{}\nSome prose.\n"),
    ("## Table-width", "# Table\n{}\nSyntax: width: number\n"),
    ("Syntax: width: number", "# Table\n## Table-width\n{}\n"),
    (
        "Syntax: `cellAt(row: number, col?: number): Cell`",
        "# Table\n# Cell\n## Table-cellAt\n{}\n",
    ),
    (
        "Signature: signature: string",
        "# Table\n## Table-signature\n{}\n",
    ),
    ("readonly width: number", "# Table\n## Table-width\n{}\n"),
    (
        "width(a: string | number, ...rest: Array<Table>): (Table | string)[]",
        "# Table\n## Table-width\n{}\n",
    ),
    (
        "f(size: number = 10, o: {a: 1}): void",
        "# Table\n## Table-f\n{}\n",
    ),
    ("```\nwidth: number\n```", "# Table\n## Table-width\n{}\n"),
    ("Parent interface: Block", "# Block\n# Table\n{}\n"),
    (
        "Parent interface: \u{201c}Block\u{201d}",
        "# Block\n# Table\n{}\n",
    ),
    (
        "This object is accessed using the global property \"table\".",
        "# Table\n{}\n",
    ),
    (
        "accessed using the global property \u{201c}table\u{201d}",
        "# Table\n{}\n",
    ),
    (
        "Constructor: new Table(rows: number, cols?: number)",
        "# Table\n{}\n",
    ),
    ("Index: [key: string]: string", "# Table\n{}\n"),
    ("Index: [index: number]: Table", "# Table\n{}\n"),
    ("Extensible: yes", "# Table\n{}\n"),
    ("ECMAScript: 5", "# Engine\n{}\n"),
    ("Script extensions: .jsx .jsxinc", "# Engine\n{}\n"),
    ("Directives: #target #include", "# Engine\n{}\n"),
    ("Also allows: trailing-commas e4x", "# Engine\n{}\n"),
    ("Also has: JSON Array.prototype.indexOf", "# Engine\n{}\n"),
    ("- **ECMAScript**: `5`", "# Engine\n{}\n"),
    (
        "## `Table-height` ##",
        "# Table\n{}\nSyntax: height: number\n",
    ),
    ("~~~js\nvar x = 1;\n~~~", "# Guide\n{}\n## Next\n"),
];

const JSONL_SHAPE: &str =
    r#"{"title": "Table-width", "text": "Syntax: width: number", "url": "x"}"#;

const FACTS_SHAPE: &str = "[[construct]]\nid = \"table\"\naliases = [\"table\", \"grid\"]\nno_close = \"Rows end implicitly.\"\nabsent = [\"Table.rowEnd\"]\n[extra]\nmembers = [\"Table.x\"]\nglobals = [\"$\"]\nfunctions = [\"exit\"]\n";

/// The line with `c` inserted at every character offset, and wrapped in it.
fn variants(line: &str, c: char) -> Vec<String> {
    let mut out: Vec<String> = line
        .char_indices()
        .map(|(i, _)| i)
        .chain([line.len()])
        .map(|i| format!("{}{c}{}", &line[..i], &line[i..]))
        .collect();
    out.push(format!("{c}{c}{line}{c}{c}"));
    out
}

fn load_all(files: &[(&str, &str)]) -> grounded::docs::Library {
    let c = Corpus::from_texts(files).expect("a corpus with chunks loads");
    // What the loaded corpus is used for reads the same text again.
    let lib = grounded::docs::Library::new(std::sync::Arc::new(c));
    let _ = lib.lookup("width", 3);
    let _ = lib.resolve_topic("make a table", 3);
    lib
}

#[test]
fn every_line_shape_with_multibyte_characters_at_every_offset() {
    let mut loads = 0;
    for &(line, chunk) in SHAPES {
        for &c in WIDE {
            for v in variants(line, c) {
                // A chunk before it, so a heading broken by the character leaves a corpus.
                let text = format!("# Anchor\n\n{}", chunk.replace("{}", &v));
                let corpus = Corpus::from_texts(&[("a.md", &text)]).expect("loads");
                let project = ProjectIndex::default();
                let _ = check_text(&corpus, &project, "x.js", "table.width; new Table(1);\n");
                loads += 1;
            }
        }
        for &c in WIDE {
            for v in variants(JSONL_SHAPE, c) {
                let _ = Corpus::from_texts(&[("a.jsonl", &v), ("b.md", "# Table\n")]);
            }
            for v in variants(FACTS_SHAPE, c) {
                let _ = Corpus::from_texts(&[("facts.toml", &v), ("b.md", "# Table\n")]);
            }
        }
    }
    assert!(loads > 1000, "{loads}");
}

/// What a multi-byte character next to a label must not change: the label is still a
/// label (Rust's `trim` takes U+00A0 as the space it is), the signature still parses.
#[test]
fn a_non_breaking_space_after_a_label_still_gives_the_signature() {
    let c = load_all(&[(
        "a.md",
        "# Table\n## Table-cellAt\nSyntax:\u{a0}cellAt(row: number): Table\n## Table-width\nSignature:\u{a0}\u{a0}width: number\n",
    )]);
    assert_eq!(
        c.member("Table", "cellAt").unwrap().kind,
        MemberKind::Method
    );
    assert_eq!(
        c.member("Table", "width").unwrap().kind,
        MemberKind::Property
    );
    // And a label cut by a character is no label: no member kind is invented.
    let c = load_all(&[(
        "a.md",
        "# Table\n## Table-width\nSyn\u{a0}tax: width: number\n",
    )]);
    assert_eq!(
        c.member("Table", "width").unwrap().kind,
        MemberKind::Unknown
    );
}

/// The InDesign-sized class: 20,000 chunks from real files, non-ASCII at every position
/// of the lines the loader reads, Markdown and JSONL.
#[test]
fn twenty_thousand_chunks_with_non_ascii_everywhere_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0usize;
    let mut wanted_members = 0usize;
    for f in 0..20 {
        let mut md = String::new();
        let mut jsonl = String::new();
        for i in 0..300 {
            let iface = format!("Iface{f}x{i}");
            let c = WIDE[(f + i) % WIDE.len()];
            md.push_str(&format!("# {iface}\n"));
            let relation = match i % 4 {
                0 => format!("Parent interface: Iface{f}x0"),
                1 => format!("accessed using the global property \u{201c}g{f}x{i}\u{201d}"),
                2 => format!("Constructor: new {iface}(a: string)"),
                _ => "Extensible: yes".to_string(),
            };
            let at = (i / 4) % (relation.chars().count() + 1);
            let split = relation
                .char_indices()
                .nth(at)
                .map_or(relation.len(), |(b, _)| b);
            md.push_str(&format!(
                "{}{c}{}\nProse with {c} and “quotes” 表 😀.\n\n",
                &relation[..split],
                &relation[split..]
            ));
            n += 1;
            let sig = format!("Syntax: m{i}(a: string, b?: {iface}): number");
            let at = i % (sig.chars().count() + 1);
            let split = sig.char_indices().nth(at).map_or(sig.len(), |(b, _)| b);
            md.push_str(&format!(
                "## {iface}-m{i}\n{}{c}{}\nSyntax: m{i}(a: string): number\n\n",
                &sig[..split],
                &sig[split..]
            ));
            n += 1;
            wanted_members += 1;
            let text = format!("Signature:{c}p{i}: {c}string{c}");
            jsonl.push_str(
                &serde_json::json!({"title": format!("{iface}-p{i}{}", if i % 7 == 0 { c.to_string() } else { String::new() }), "text": text})
                    .to_string(),
            );
            jsonl.push('\n');
            n += 1;
        }
        std::fs::write(dir.path().join(format!("part{f:02}.md")), md).unwrap();
        std::fs::write(dir.path().join(format!("part{f:02}.jsonl")), jsonl).unwrap();
    }
    // 18,000 so far; guides make it 20,000.
    let mut guides = String::new();
    while n < 20_000 {
        guides.push_str(&format!("# Guide “{n}” 😀\nText\u{a0}with 表 {n}.\n"));
        n += 1;
    }
    std::fs::write(dir.path().join("guides.md"), guides).unwrap();
    let c = Corpus::load(dir.path()).expect("loads");
    assert_eq!(c.chunks.len(), 20_000);
    // Every `m{i}` member has its clean second overload, whatever the first line held.
    let with_method = (0..20)
        .flat_map(|f| (0..300).map(move |i| (f, i)))
        .filter(|(f, i)| {
            c.member(&format!("Iface{f}x{i}"), &format!("m{i}"))
                .is_some_and(|m| m.kind == MemberKind::Method || !m.overloads.is_empty())
        })
        .count();
    assert_eq!(with_method, wanted_members);
}
