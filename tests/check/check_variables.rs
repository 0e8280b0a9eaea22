//! Variables typed from the docs (issue 26): a variable whose every assignment is a
//! certain value of one type is judged like the value itself; a `readonly` member is
//! not written; the language's own values have the members of the engine's edition.
//! Through the real binary, over the CLI and the language server, in `.js`, `.jsx` and
//! Markdown, against the demo engine and a spreadsheet engine written here.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::{json, Value};

/// A spreadsheet engine, written from docs/corpus.md alone: ES3, global `workbook`.
const SHEETS: &str = r#"# Engine

Tally runs spreadsheet scripts.

ECMAScript: 3
Script extensions: .js .jsx

# Workbook

This object is accessed using the global property "workbook".

## Workbook-sheet

Syntax: sheet(name: string): Sheet

## Workbook-sheetCount

Syntax: readonly sheetCount: number

## Workbook-title

Syntax: title: string

## Workbook-sheets

Syntax: readonly sheets: Sheet[]

# Sheet

## Sheet-range

Syntax: range(a: string): Range

## Sheet-name

Syntax: name: string

## Sheet-rows

Syntax: rows: RowList

# RowList

Index: [index: number]: Row

## RowList-length

Syntax: readonly length: number

# Row

## Row-height

Syntax: height: number

# Range

## Range-format

Syntax: format(f: Format): void

## Range-value

Syntax: value: string

# Format

## Format-bold

Syntax: bold: boolean

## Format-italic

Syntax: italic: boolean
"#;

/// Correct code: every certain variable uses documented members only; every variable
/// that is not certain is left alone whatever it does.
const SHEETS_GOOD: &str = r#"var sheet = workbook.sheet("Sales");
sheet.range("A1").format({ bold: true });
var r = sheet.range("B2");
r.value = "x";
var cfg = { bold: true, italic: false };
r.format(cfg);
var same = r;
same.format({ italic: true });
var row = sheet.rows[0];
row.height = 20;
var n = workbook.sheetCount + 1;
workbook.title = "Q3";
var name = "abc".toUpperCase() + sheet.name.toLowerCase();
var parts = [1, 2];
parts.total = 3;
var t = parts.total + parts.length + (5).toFixed(1) + /x/.test("y");
function fill(s) { s.autoFit(); }
var maybe = workbook.sheet("A");
if (n > 2) maybe = makeSheet();
maybe.autoFit();
function makeSheet() { return {}; }
var other = makeSheet();
other.anything = 1;
var late;
function init() { late = workbook.sheet("B"); }
late.autoFit();
var a = b; var b = a; a.autoFit();
var all = workbook.sheets;
all.item(0);
var heading = workbook.title;
heading.anything();
var nar = workbook.sheet("C");
if (nar instanceof Object) nar.autoFit();
var loose = { bolt: true };
loose = { anything: 1 };
r.format(loose);
"#;

/// One planted mistake a line, each a `member` or `option` finding.
const SHEETS_BAD: &str = r#"var sheet = workbook.sheet("Sales");
sheet.autoFit();
sheet.range("A1").format({ bolt: true });
var r = sheet.range("B2");
var cfg = { italik: true };
r.format(cfg);
var same = r;
same.valeu = 1;
var row = sheet.rows[0];
row.heigth = 2;
workbook.sheetCount = 3;
"abc".toUpperCas();
var s = "x"; s.lenght;
"#;

fn sheets_project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/api.md"), SHEETS).unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs\"\n").unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    dir
}

/// `grounded check --format json FILE` in `dir`: (line, code, message) of each finding.
fn check(dir: &Path, file: &str) -> Vec<(u64, String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", file])
        .current_dir(dir)
        .env("GROUNDED_CACHE_DIR", dir.join(".cache"))
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn markdown(js: &str) -> String {
    format!("# Sales\n\nThe report.\n\n```js\n{js}```\n")
}

fn expect_bad(found: &[(u64, String, String)], offset: u64, what: &str) {
    let want: &[(u64, &str, &str)] = &[
        (2, "member", "`Sheet` has no member `autoFit`"),
        (
            3,
            "option",
            "`Format` has no key `bolt`: did you mean `bold`?",
        ),
        (
            5,
            "option",
            "`Format` has no key `italik`: did you mean `italic`?",
        ),
        (8, "member", "`Range` has no member `valeu`"),
        (10, "member", "`Row` has no member `heigth`"),
        (
            11,
            "member",
            "`Workbook.sheetCount` is read-only: the docs give `readonly sheetCount: number`",
        ),
        (12, "member", "A string has no member `toUpperCas`"),
        (13, "member", "A string has no member `lenght`"),
    ];
    for (line, code, msg) in want {
        assert!(
            found
                .iter()
                .any(|f| f.0 == line + offset && f.1 == *code && f.2.starts_with(msg)),
            "{what}: line {line}: no `{code}` finding starting `{msg}` in {found:#?}"
        );
    }
    assert_eq!(found.len(), want.len(), "{what}: {found:#?}");
}

#[test]
fn certain_variables_are_judged_in_js_jsx_and_markdown() {
    let good_md = markdown(SHEETS_GOOD);
    let bad_md = markdown(SHEETS_BAD);
    let dir = sheets_project(&[
        ("good.js", SHEETS_GOOD.as_bytes()),
        ("good.jsx", SHEETS_GOOD.as_bytes()),
        ("good.md", good_md.as_bytes()),
        ("bad.js", SHEETS_BAD.as_bytes()),
        ("bad.jsx", SHEETS_BAD.as_bytes()),
        ("bad.md", bad_md.as_bytes()),
    ]);
    for good in ["good.js", "good.jsx", "good.md"] {
        let f = check(dir.path(), good);
        assert!(f.is_empty(), "{good} must check clean: {f:#?}");
    }
    expect_bad(&check(dir.path(), "bad.js"), 0, "bad.js");
    expect_bad(&check(dir.path(), "bad.jsx"), 0, "bad.jsx");
    // The fence opens on line 5: the block's line 1 is the file's line 6.
    expect_bad(&check(dir.path(), "bad.md"), 5, "bad.md");
}

/// The demo engine: `layout.currentPage(): Page`; its fix data names the member.
#[test]
fn a_page_held_in_a_variable_is_judged_with_a_fix() {
    let text = "var pg = layout.currentPage();\npg.framee = 1;\nvar body = pg.frame;\n\"abc\".toUpperCas();\n\"abc\".trim();\n";
    let dir = project(&demo_corpus(), &[("main.js", text.as_bytes())]);
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "main.js"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = v.as_array().unwrap();
    assert_eq!(f.len(), 3, "{v:#}");
    assert_eq!(f[0]["code"], "member");
    assert_eq!(f[0]["line"], 2);
    assert!(
        f[0]["fixes"].to_string().contains("\"frame\""),
        "the fix replaces `framee` by `frame`: {v:#}"
    );
    assert_eq!(f[1]["code"], "member");
    assert!(
        f[1]["fixes"].to_string().contains("\"toUpperCase\""),
        "{v:#}"
    );
    // A member of a later edition stays the engine family's.
    assert_eq!(f[2]["code"], "engine", "{v:#}");
}

/// (line, code, the message's first sentence): the server moves a long message's tail
/// to its related information.
fn server_findings(ds: &[Value]) -> Vec<(u64, String, String)> {
    sorted(
        ds.iter()
            .map(|d| {
                (
                    d["range"]["start"]["line"].as_u64().unwrap() + 1,
                    d["code"].as_str().unwrap_or("").to_string(),
                    d["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect(),
    )
}

fn sorted(v: Vec<(u64, String, String)>) -> Vec<(u64, String, String)> {
    let mut v: Vec<(u64, String, String)> = v
        .into_iter()
        .map(|(l, c, m)| {
            let head = m.split([';', ':', '(']).next().unwrap_or("").to_string();
            (l, c, head)
        })
        .collect();
    v.sort();
    v
}

/// The server publishes what `grounded check` says of the same text, also after an edit
/// of the statement that types the variable (the edit changes what that statement
/// gives the rest of the file, so the file is checked whole), and hovers the variable
/// with its interface.
#[test]
fn the_server_follows_an_edit_of_the_assignment_that_types_a_variable() {
    let text = "var pg = layout.currentPage();\nvar x = 1;\npg.framee = 1;\nfunction f() {\n    pg.heder.clear();\n}\nvar s = \"x\";\ns.toUpperCase();\n";
    let dir = project(&demo_corpus(), &[("main.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, text);
    let first = lsp.diagnostics_where(&uri, Some(1), |_| true);
    let cli = sorted(check(dir.path(), "main.js"));
    assert_eq!(server_findings(&first), cli);
    assert_eq!(cli.len(), 2, "{cli:#?}");

    // Hover on the typed variable names its interface.
    let h = lsp.request("textDocument/hover", at(&uri, text, "pg.framee", 0));
    assert!(h.to_string().contains("Page"), "hover: {h}");

    // `pg` no longer certain: the findings elsewhere go.
    let (line, col) = pos_of(text, "layout.currentPage()");
    let len = "layout.currentPage()".len() as u32;
    lsp.change(&uri, 2, [line, col, line, col + len], "foo()");
    let edited = text.replace("layout.currentPage()", "foo()");
    let second = lsp.diagnostics_where(&uri, Some(2), |_| true);
    std::fs::write(dir.path().join("main.js"), &edited).unwrap();
    let cli = sorted(check(dir.path(), "main.js"));
    assert_eq!(server_findings(&second), cli);
    assert!(
        cli.iter().all(|f| f.1 != "member"),
        "no member finding once `pg` is uncertain: {cli:#?}"
    );

    // And back: they come again.
    let (line, col) = pos_of(&edited, "foo()");
    lsp.change(&uri, 3, [line, col, line, col + 5], "layout.currentPage()");
    let third = lsp.diagnostics_where(&uri, Some(3), |_| true);
    std::fs::write(dir.path().join("main.js"), text).unwrap();
    let cli = sorted(check(dir.path(), "main.js"));
    assert_eq!(server_findings(&third), cli);
    assert_eq!(cli.len(), 2, "{cli:#?}");

    // An edit of the line that uses the variable alone: still judged.
    let (line, col) = pos_of(text, "framee = 1");
    lsp.change(&uri, 4, [line, col, line, col + 10], "pageNumber");
    let fourth = lsp.diagnostics_where(&uri, Some(4), |_| true);
    std::fs::write(
        dir.path().join("main.js"),
        text.replace("framee = 1", "pageNumber"),
    )
    .unwrap();
    let cli = sorted(check(dir.path(), "main.js"));
    assert_eq!(server_findings(&fourth), cli);
    assert_eq!(cli.len(), 1, "{cli:#?}");

    // A string held in a variable, its use edited alone: judged with the seed's type.
    let now = text.replace("framee = 1", "pageNumber");
    let (line, col) = pos_of(&now, "toUpperCase");
    lsp.change(&uri, 5, [line, col, line, col + 11], "toUpperCas");
    let fifth = lsp.diagnostics_where(&uri, Some(5), |_| true);
    std::fs::write(
        dir.path().join("main.js"),
        now.replace("toUpperCase", "toUpperCas"),
    )
    .unwrap();
    let cli = sorted(check(dir.path(), "main.js"));
    assert_eq!(server_findings(&fifth), cli);
    assert_eq!(cli.len(), 2, "{cli:#?}");
    lsp.shutdown();
}

/// Hover and completion on a variable typed from a member's value (the spreadsheet
/// engine): the variable's members are the interface's.
#[test]
fn hover_and_completion_read_a_variable_typed_from_the_docs() {
    let text = "var sheet = workbook.sheet(\"Sales\");\nvar r = sheet.range(\"A1\");\nr.format({ bold: true });\nsheet.\n";
    let dir = sheets_project(&[("main.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, text);
    let h = lsp.request("textDocument/hover", at(&uri, text, "format(", 1));
    assert!(h.to_string().contains("Range.format"), "hover: {h}");
    let h = lsp.request("textDocument/hover", at(&uri, text, "r.format", 0));
    assert!(
        h.to_string().contains("Range"),
        "hover on the variable: {h}"
    );
    let c = lsp.request("textDocument/completion", at(&uri, text, "sheet.\n", 6));
    let l = labels(&c);
    assert!(l.iter().any(|x| x == "range"), "completion: {l:?}");
    assert!(!l.iter().any(|x| x == "sheetCount"), "completion: {l:?}");
    // Definition of a member on the variable: the docs' chunk of `Range.format`.
    let d = lsp.request("textDocument/definition", at(&uri, text, "format(", 1));
    assert!(d.to_string().contains("api.md"), "definition: {d}");
    // Signature help inside a call being typed on the variable.
    let typing = format!("{text}r.format(");
    lsp.change(&uri, 2, [4, 0, 4, 0], "r.format(");
    let end = typing.len() as u32 - typing.rfind('\n').unwrap() as u32 - 1;
    let h = lsp.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": end}}),
    );
    assert!(
        h["signatures"][0]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("format(")),
        "signature help: {h}"
    );
    lsp.shutdown();
}

/// The dry run names the member a failed call called: QuickJS says only "not a
/// function", which named nothing on `s.toUpperCas()`.
#[test]
fn the_dry_run_names_the_missing_member_of_a_built_in() {
    let js = "var s = \"abc\";\nvar up = s.toUpperCas();\n";
    let md = markdown(js);
    let dir = project(
        &demo_corpus(),
        &[("main.js", js.as_bytes()), ("page.md", md.as_bytes())],
    );
    for (file, line) in [("main.js", 2), ("page.md", 7)] {
        let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
            .args(["dry-run", "--format", "json", file])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let f = v.as_array().unwrap();
        assert_eq!(f.len(), 1, "{file}: {v:#}");
        assert_eq!(
            f[0]["message"], "uncaught TypeError: `toUpperCas` is not a function",
            "{file}: {v:#}"
        );
        assert_eq!(f[0]["line"], line, "{file}: {v:#}");
    }
}

/// What a statement gives the rest of the file is the chain that types a variable and
/// the keys of an options object, not the bodies of functions passed or held there: an
/// edit inside those is still re-checked alone, and agrees with a full check.
#[test]
fn edits_inside_callbacks_and_object_methods_are_still_rechecked_alone() {
    use grounded::check::{self as gcheck, ProjectIndex, Session};
    use std::sync::Arc;
    let text = "var pg = layout.currentPage();\nvar App = {\n    init: function () {\n        layout.paragraph(\"a\");\n    }\n};\nvar cfg = { bold: true };\nvar later = wrap(function () {\n    layout.paragraph(\"b\", cfg);\n});\npg.frame;\nfunction wrap(f) { return f; }\n";
    let corpus = Arc::new(grounded::docs::bundled::demo().unwrap());
    let project = Arc::new(ProjectIndex::default());
    let mut s = Session::new(corpus.clone(), project.clone(), "s.js", text);
    let shown = |f: &[grounded::check::Finding]| -> Vec<String> {
        f.iter()
            .map(|x| format!("{}:{} {} {}", x.line, x.column, x.code.as_str(), x.message))
            .collect()
    };
    let edit = |s: &mut Session, find: &str, by: &str, alone: bool| {
        let at = s.text().find(find).expect("present");
        let before = s.incremental_edits();
        let got = shown(s.edit(at, at + find.len(), by));
        let want = shown(&gcheck::check_text(
            &corpus,
            &ProjectIndex::default(),
            "s.js",
            s.text(),
        ));
        assert_eq!(got, want, "after `{find}` → `{by}`");
        assert_eq!(
            s.incremental_edits() > before,
            alone,
            "`{find}` → `{by}` re-checked alone: expected {alone}"
        );
    };
    edit(&mut s, "paragraph(\"a\")", "paragrap(\"a\")", true);
    edit(
        &mut s,
        "paragraph(\"b\", cfg)",
        "paragraph(\"b\", cfg, 1)",
        true,
    );
    // The options object's keys and the typing chain: the file whole.
    edit(&mut s, "{ bold: true }", "{ bolt: true }", false);
    edit(&mut s, "layout.currentPage()", "foo()", false);
}

/// The editor's quick fix for a string's invented member is the finding's fix data:
/// the documented name of the language.
#[test]
fn a_quick_fix_replaces_a_strings_invented_member() {
    let text = "var s = \"abc\";\nvar up = s.toUpperCas();\n";
    let dir = project(&demo_corpus(), &[("main.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, text);
    let ds = lsp.diagnostics_where(&uri, Some(1), |d| !d.is_empty());
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0]["code"], "member");
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": ds[0]["range"],
            "context": {"diagnostics": ds}
        }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(titles.contains(&"Replace with `toUpperCase`"), "{titles:?}");
    lsp.shutdown();
}
