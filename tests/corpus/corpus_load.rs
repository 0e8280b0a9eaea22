//! The corpus loader on corpora written here, rule by rule of `corpus-format.md`.
//! Nothing below is the demo engine: the names are another engine's on purpose.

use grounded::docs::{ChunkKind, Corpus, MemberKind, Type};

fn load(files: &[(&str, &str)]) -> Corpus {
    Corpus::from_texts(files).expect("corpus loads")
}

const PRESS_MD: &str = r#"# Press
The press. This object is accessed using the global property "press".
Parent interface: Machine

## Press-sheetStart
Syntax: `sheetStart(sheet: Sheet, opts?: SheetOptions): void`
Opens a sheet.

## Press-sheetEnd
Syntax: sheetEnd(): void
Closes the sheet.

## Press-holdStart
Syntax: holdStart(name: string): void
Holds.

## Press-holdEnd
Syntax: holdEnd(): void

## Press-currentSheet
Syntax: currentSheet(): Sheet

## Press-speed
Syntax: speed: number

## Press-speed2
Signature: readonly speed2: number

## Press-mystery
No signature line here at all.

## Press-overloaded
Syntax: overloaded(a: string): string
Syntax: overloaded(a: string, b: number): string

# Machine
Parent interface: “Device”

## Machine-start
Syntax: start(): void

# Device
A device.

## Device-serial
Syntax: readonly serial: string

# Sheet
Constructor: new Sheet()
Constructor: new Paper(width: number, height?: number)

## Sheet-width
Syntax: width: number

# SheetOptions
Options for a sheet.

## SheetOptions-bleed
Syntax: bleed: number

# Global

## Global-loadScript
Syntax: loadScript(file: path): void

## Global-signature
Signature: signature: string

# Engine
ECMAScript: 5
Script extensions: .jsx .jsxinc
Directives: #target #include

# How to print a sheet
Use `press.sheetStart(sheet)` then `press.sheetEnd()`.
"#;

#[test]
fn every_rule_of_the_spec_from_markdown() {
    let c = load(&[("press.md", PRESS_MD)]);
    // Globals with any quote style, interfaces, kinds.
    assert_eq!(c.global_interface("press"), Some("Press"));
    assert_eq!(c.kinds[0], ChunkKind::Interface);
    // Inheritance, depth 3, with the curly-quoted parent name.
    assert_eq!(
        c.ancestors("Press"),
        &["Machine".to_string(), "Device".to_string()]
    );
    assert!(
        c.member("Press", "serial").is_some(),
        "grand-parent member is inherited"
    );
    assert!(c.member("Press", "start").is_some());
    // Signatures: methods, properties, readonly, optional params, return interface.
    let s = c.member("Press", "sheetStart").unwrap();
    assert_eq!(s.kind, MemberKind::Method);
    let p = s.signature().unwrap().params.as_ref().unwrap();
    assert_eq!(p[0].ty, Type::Interface("Sheet".into()));
    assert!(p[1].optional);
    assert_eq!(
        c.member("Press", "currentSheet").unwrap().value_type(),
        Type::Interface("Sheet".into())
    );
    assert_eq!(
        c.member("Press", "speed").unwrap().kind,
        MemberKind::Property
    );
    assert!(
        c.member("Press", "speed2")
            .unwrap()
            .signature()
            .unwrap()
            .readonly
    );
    assert_eq!(
        c.member("Press", "mystery").unwrap().kind,
        MemberKind::Unknown
    );
    assert_eq!(c.member("Press", "overloaded").unwrap().overloads.len(), 2);
    // Constructors: the name after `new` and the interface it gives.
    assert_eq!(c.constructors["Sheet"].interface, "Sheet");
    assert_eq!(c.constructors["Paper"].interface, "Sheet");
    assert_eq!(c.constructors["Paper"].params.len(), 2);
    assert!(
        !c.constructors.contains_key("Press"),
        "no Constructor line, not constructible"
    );
    // Global functions, and the member named `signature` writing its label.
    let lf = c.global_member("loadScript").unwrap();
    assert!(lf.signature().unwrap().params.as_ref().unwrap()[0]
        .ty
        .is_path());
    assert_eq!(
        c.global_member("signature").unwrap().kind,
        MemberKind::Property
    );
    // Engine chunk.
    assert_eq!(c.engine.es_year, 2009);
    assert_eq!(c.engine.script_extensions, vec![".jsx", ".jsxinc"]);
    assert_eq!(c.engine.directives, vec!["#target", "#include"]);
    // Constructs: derived, with the primitive pair skipped and reported.
    assert_eq!(c.constructs.len(), 1);
    let con = &c.constructs["sheet"];
    assert_eq!(
        (con.start.as_str(), con.end.as_str(), con.object.as_str()),
        ("sheetStart", "sheetEnd", "Sheet")
    );
    assert_eq!(c.skipped_pairs.len(), 1);
    assert_eq!(c.skipped_pairs[0].start, "holdStart");
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.message.contains("holdStart") && d.line > 0));
    // Prose chunks are kept, searchable, not members.
    let guide = c
        .chunks
        .iter()
        .position(|ch| ch.title == "How to print a sheet")
        .unwrap();
    assert_eq!(c.kinds[guide], ChunkKind::Prose);
}

#[test]
fn jsonl_chunks_and_quote_styles() {
    let jsonl = concat!(
        r#"{"title": "Vault", "text": "Accessed using the global property 'vault'.", "url": "https://x/vault"}"#,
        "\n",
        "\n",
        r#"{"title": "Vault-open", "text": "Syntax: open(code: string): Drawer\nOpens it."}"#,
        "\n",
        r#"{"title": "Drawer", "text": "accessed using the global property `drawer`. Constructor: new Drawer()"}"#,
        "\n",
        r#"{"title": "Drawer-items", "text": "items: string[]", "source": 3}"#,
        "\n",
        "{not json at all\n",
        r#"{"title": "Drawer-x"}"#,
        "\n",
        r#"{"title": "Safe", "text": "accessed using the global property “safe”."}"#,
        "\n",
    );
    let c = load(&[("dump/vault.jsonl", jsonl)]);
    assert_eq!(c.global_interface("vault"), Some("Vault"));
    assert_eq!(c.global_interface("drawer"), Some("Drawer"));
    assert_eq!(c.global_interface("safe"), Some("Safe"));
    assert_eq!(
        c.member("Vault", "open").unwrap().value_type(),
        Type::Interface("Drawer".into())
    );
    assert!(matches!(
        c.member("Drawer", "items").unwrap().value_type(),
        Type::Array(_)
    ));
    assert_eq!(
        c.chunks[0].meta.get("url").map(String::as_str),
        Some("https://x/vault")
    );
    // Malformed lines are reported with file and line, the rest still loads.
    let bad: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.file == "dump/vault.jsonl")
        .collect();
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert_eq!(bad[0].line, 6);
    assert_eq!(bad[1].line, 7);
    // Without an engine chunk the level is 3 and scripts are .js.
    assert_eq!(c.engine.es_year, 1999);
    assert_eq!(c.engine.script_extensions, vec![".js"]);
}

#[test]
fn inheritance_cycle_is_reported_and_broken() {
    let md = "# A\nParent interface: B\n## A-a\nSyntax: a: number\n# B\nParent interface: C\n## B-b\nSyntax: b: number\n# C\nParent interface: A\n## C-c\nSyntax: c(): void\n";
    let c = load(&[("cycle.md", md)]);
    assert!(c.member("A", "c").is_some());
    assert!(c.member("C", "b").is_some());
    assert!(!c.ancestors("A").contains(&"A".to_string()));
    assert!(c.diagnostics.iter().any(|d| d.message.contains("cycle")));
}

#[test]
fn signature_and_type_problems_are_load_diagnostics() {
    let md = "# T\n## T-broken\nSyntax: broken(a: string: void\n## T-weird\nSyntax: weird(): Gizmo\n## T-ok\nSyntax: ok(): void\n# T\nduplicate title\n";
    let c = load(&[("t.md", md)]);
    assert!(c.member("T", "ok").is_some());
    assert_eq!(c.member("T", "broken").unwrap().kind, MemberKind::Unknown);
    assert_eq!(c.member("T", "weird").unwrap().value_type(), Type::Any);
    let msgs: Vec<String> = c.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("t.md:3:") && m.contains("unparseable")),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.contains("Gizmo")), "{msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("t.md:8:") && m.contains("duplicate")),
        "{msgs:?}"
    );
}

#[test]
fn overlay_facts_attach_and_bad_entries_are_reported() {
    let md = "# Doc\naccessed using the global property \"doc\".\n## Doc-partStart\nSyntax: partStart(p: Part): void\n## Doc-partEnd\nSyntax: partEnd(): void\n## Doc-write\nSyntax: write(s: string): void\n# Part\nConstructor: new Part()\n";
    let facts = r#"
[[construct]]
id = "part"
aliases = ["section", "chapter"]
no_close = "Paragraphs end on their own."
absent = ["Doc.paragraphEnd", "Nowhere.thing", "Doc.write"]

[[construct]]
id = "ghost"
aliases = ["spook"]

[extra]
members = ["Doc.secret", "Hidden.value"]
globals = ["$"]
functions = ["exit"]
"#;
    let c = load(&[("doc.md", md), ("facts.toml", facts)]);
    let part = &c.constructs["part"];
    assert_eq!(part.aliases, vec!["section", "chapter"]);
    assert_eq!(
        part.absent,
        vec![("Doc".to_string(), "paragraphEnd".to_string())]
    );
    assert_eq!(
        c.absent_reason("Doc", "paragraphEnd"),
        Some("Paragraphs end on their own.")
    );
    assert!(c.member("Doc", "secret").is_some());
    assert!(c.member("Hidden", "value").is_some());
    assert!(c.is_engine_global("$") && c.is_engine_global("exit") && c.is_engine_global("doc"));
    let msgs: Vec<String> = c.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("ghost") && m.starts_with("facts.toml:")),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.contains("Nowhere")), "{msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.contains("Doc.write") && m.contains("documented")),
        "{msgs:?}"
    );
}

#[test]
fn broken_overlay_is_a_diagnostic_not_a_failure() {
    let c = load(&[
        ("a.md", "# A\n## A-x\nSyntax: x: number\n"),
        ("facts.toml", "[[construct]\nid = 1"),
    ]);
    assert!(c.member("A", "x").is_some());
    assert!(c.diagnostics.iter().any(|d| d.file == "facts.toml"));
}

#[test]
fn empty_and_missing_corpora_are_errors() {
    assert!(Corpus::from_texts(&[("a.md", "no heading here\n")]).is_err());
    let dir = tempfile::tempdir().unwrap();
    assert!(Corpus::load(&dir.path().join("nope")).is_err());
    assert!(
        Corpus::load(dir.path()).is_err(),
        "a folder with no chunk is an error"
    );
}

#[test]
fn folders_single_files_and_non_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::fs::write(
        root.join("sub/deeper/b.md"),
        "# B\n## B-y\nSyntax: y(): A\n",
    )
    .unwrap();
    std::fs::write(
        root.join("a.md"),
        "# A\naccessed using the global property \"a\".\n",
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "# Ignored\n").unwrap();
    let mut bytes = b"# C\n## C-z\nSyntax: z: string\n".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    std::fs::write(root.join("c.md"), bytes).unwrap();
    let c = Corpus::load(root).unwrap();
    assert_eq!(
        c.member("B", "y").unwrap().value_type(),
        Type::Interface("A".into())
    );
    assert!(c.member("C", "z").is_some());
    assert!(!c.chunks.iter().any(|ch| ch.title == "Ignored"));
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.file == "c.md" && d.message.contains("UTF-8")));
    let single = Corpus::load(&root.join("a.md")).unwrap();
    assert_eq!(single.chunks.len(), 1);
}
