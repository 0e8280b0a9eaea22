//! `grounded constructs` and `grounded find` through the real binary, on projects in
//! temp dirs whose corpus is written here (another engine than the demo).

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const DOCS: &str = "# Document\n\nThis object is accessed using the global property \"doc\".\n\n\
## Document-sectionStart\n\nSyntax: sectionStart(section: Section): void\n\n\
## Document-sectionEnd\n\nSyntax: sectionEnd(): void\n\n\
## Document-write\n\nSyntax: write(text: string): void\n\n\
# Section\n\nA section of the document. Constructor: new Section()\n\n\
## Section-title\n\nSyntax: title: string\n";

const SCRIPT: &str = "// Two parts.\nvar intro = new Section();\nintro.title = \"Intro\";\ndoc.sectionStart(intro);\ndoc.write(\"hello\");\ndoc.sectionEnd();\n\nvar rest = new Section();\ndoc.sectionStart(rest);\ndoc.write(\"unclosed\");\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "grounded.toml", "docs = \"docs/\"\n");
    write(r, "docs/api.md", DOCS);
    write(
        r,
        "docs/facts.toml",
        "[[construct]]\nid = \"section\"\naliases = [\"chapter\"]\n",
    );
    write(r, "scripts/book.js", SCRIPT);
    write(r, "assets/sampleData.json", "[1, 2]\n");
    dir
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn constructs_json_lists_each_instance_with_its_footprint() {
    let dir = project();
    let (code, out, err) = run(
        dir.path(),
        &["constructs", "--format", "json", "scripts/book.js"],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!([
            {"construct": "section", "object": "intro", "start_line": 4, "end_line": 6, "lines": [[2, 6]], "uses": []},
            {"construct": "section", "object": "rest", "start_line": 9, "end_line": 9, "lines": [[8, 9]], "uses": []}
        ])
    );
    let (code, out, _) = run(dir.path(), &["constructs", "scripts/book.js"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out, @r"
    scripts/book.js: 2 construct instances
      section `intro`: lines 4-6; footprint 2-6
      section `rest`: line 9, unclosed; footprint 8-9
    ");
    let (code, _, err) = run(dir.path(), &["constructs", "scripts/missing.js"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("grounded: scripts/missing.js:"), "{err}");
}

#[test]
fn find_json_has_match_footprint_filename_and_concept_hits() {
    let dir = project();
    let (code, out, err) = run(
        dir.path(),
        &["find", "--format", "json", "sectionStart\\(rest"],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!([
            {"path": "scripts/book.js", "line": 8, "text": "var rest = new Section();", "kind": "footprint", "variable": "rest"},
            {"path": "scripts/book.js", "line": 9, "text": "doc.sectionStart(rest);", "kind": "match"}
        ])
    );

    let (_, out, _) = run(dir.path(), &["find", "--format", "json", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!([{"path": "assets/sampleData.json", "line": 0, "text": "sampleData.json", "kind": "filename"}])
    );

    let (_, out, err) = run(
        dir.path(),
        &["find", "--format", "json", "-F", "chapter", "scripts"],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let lines: Vec<(u64, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["line"].as_u64().unwrap(), h["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (2, "concept"),
            (3, "footprint"),
            (4, "concept"),
            (6, "concept"),
            (8, "concept"),
            (9, "concept")
        ]
    );
    assert!(
        err.contains("searched the engine's symbols instead: sectionStart, sectionEnd, Section"),
        "{err}"
    );
}

#[test]
fn find_human_output_groups_per_file() {
    let dir = project();
    let (code, out, _) = run(dir.path(), &["find", "-C", "1", "write"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out, @r#"
    scripts/book.js
      4- doc.sectionStart(intro);
      5: doc.write("hello");
      6- doc.sectionEnd();
      --
      9- doc.sectionStart(rest);
      10: doc.write("unclosed");
    "#);
    let (code, _, err) = run(dir.path(), &["find", "a(b"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a valid regex"), "{err}");
}

#[test]
fn find_ignores_case_when_asked() {
    let dir = project();
    let (code, out, _) = run(dir.path(), &["find", "-F", "--format", "json", "DOC.WRITE"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let matches = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .filter(|h| h["kind"] == "match")
            .count()
    };
    assert_eq!(matches(&v), 0, "case matters by default: {v:#}");
    let (code, out, _) = run(
        dir.path(),
        &["find", "-F", "-i", "--format", "json", "DOC.WRITE"],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(matches(&v), 2, "{v:#}");
}

#[test]
fn constructs_reads_the_js_blocks_of_a_markdown_file() {
    let dir = project();
    let md = format!(
        "# A guide\n\nOpen a section, write, close it. doc.sectionStart(x) in prose is not code.\n\n```js\n{SCRIPT}```\n"
    );
    write(dir.path(), "guide.md", &md);
    let (code, out, err) = run(dir.path(), &["constructs", "--format", "json", "guide.md"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let starts: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["start_line"].as_u64().unwrap())
        .collect();
    // The script's Starts at its lines 4 and 9, below the fence on line 5 of the file.
    assert_eq!(starts, vec![9, 14], "{v:#}");
}
