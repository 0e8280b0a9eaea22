//! A second engine, written here: other names, ECMAScript 5, `.qs` scripts, its own
//! directive. Checked through the real binary, it shows that nothing of the demo engine
//! leaked into the checker: Folio's `layout`, `loadJS` and `Table` are unknown here, ES5
//! built-ins are allowed, and this engine's own names are judged by its own docs.

use std::path::Path;
use std::process::Command;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn quill(root: &Path) {
    write(
        root,
        "docs/engine.md",
        "# Engine\n\nQuill runs spreadsheets.\n\nECMAScript: 5\nScript extensions: .qs\nDirectives: #pragma\n",
    );
    write(
        root,
        "docs/api.md",
        "# Global\n\nGlobal functions.\n\n## Global-require\n\nSyntax: require(file: path): void\n\n\
         ## Global-log\n\nSyntax: log(message: any): void\n\n\
         # Workbook\n\nThis object is accessed using the global property \"book\".\n\n\
         ## Workbook-addSheet\n\nSyntax: addSheet(name: string, options?: SheetOptions): Sheet\n\n\
         ## Workbook-title\n\nSyntax: title: string\n\n\
         # Sheet\n\nConstructor: new Sheet()\n\n## Sheet-cell\n\nSyntax: cell(row: number, col: number): string\n\n\
         ## Sheet-name\n\nSyntax: name: string\n\n\
         # SheetOptions\n\n## SheetOptions-hidden\n\nSyntax: hidden: boolean\n\n\
         ## SheetOptions-color\n\nSyntax: color: string\n",
    );
    write(root, "grounded.toml", "docs = \"docs\"\n");
    write(root, "lib/util.qs", "function util() {\n    return 1;\n}\n");
    // Not a script of this engine: never read, whatever it holds.
    write(root, "ignored.js", "this is not JavaScript at all (\n");
    write(
        root,
        "main.qs",
        r#"#pragma strict
require("lib/util.qs");
var keys = Object.keys({ a: 1 });
var text = JSON.stringify({ a: 1 });
var o = { a: 1, };
var doubled = [1, 2].map(function (x) { return x * 2; });
var sheet = book.addSheet("A", { hidden: true, colour: "red" });
new Sheet().cel(1, 2);
layout.paragraph("x");
loadJS("x.js");
let y = util();
var found = [1].includes(1);
var t = new Table();
require("lib/missing.qs");
var s = new Sheet();
s.name = book.title.trim();
var reserved = { default: 1 }.class;
"#,
    );
}

#[test]
fn a_second_engine_is_judged_by_its_own_docs() {
    let dir = tempfile::tempdir().unwrap();
    quill(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "."])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, String, u64, u64)> = findings
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, String, u64, u64)> = [
        ("option", 7, 48),
        ("member", 8, 13),
        ("object", 9, 1),
        ("function", 10, 1),
        ("syntax", 11, 1),
        ("engine", 12, 17),
        ("constructor", 13, 13),
        ("file", 14, 9),
    ]
    .iter()
    .map(|(c, l, col)| ("main.qs".to_string(), c.to_string(), *l, *col))
    .collect();
    assert_eq!(got, want, "{findings:#?}");
    // The candidates come from this engine's docs.
    let member = &findings[1];
    assert!(member["message"].as_str().unwrap().contains("`cell`"));
    let option = &findings[0];
    assert!(option["message"].as_str().unwrap().contains("`color`"));
}

/// ES3 reads a reserved word after a dot or as a literal's key as the keyword: the
/// script does not parse on the engine, though `node --check` passes it. A name the docs
/// give a member is the engine's own, and ES5 (the Quill engine above) allows them all.
#[test]
fn reserved_words_as_property_names_under_es3() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "docs/api.md",
        "# Engine\n\nECMAScript: 3\n\n# Store\n\nThis object is accessed using the global property \"store\".\n\n\
         ## Store-delete\n\nSyntax: delete(key: string): void\n",
    );
    write(dir.path(), "grounded.toml", "docs = \"docs\"\n");
    write(
        dir.path(),
        "main.js",
        "store.delete(\"a\");\nvar x = {};\nvar c = x.class;\nvar o = { default: 1, \"class\": 2 };\nvar d = o[\"default\"] + x . new;\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "main.js"])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, u64, u64)> = findings
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [("syntax", 3, 11), ("syntax", 4, 11), ("syntax", 5, 28)]
        .map(|(c, l, col)| (c.to_string(), l, col));
    assert_eq!(got, want, "{findings:#?}");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(
        message.contains("reserved word") && message.contains("[\"class\"]"),
        "{message}"
    );
}
