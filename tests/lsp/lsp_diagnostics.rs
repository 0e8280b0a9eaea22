//! The language server's diagnostics and code actions, driven over stdio as an editor does.

use crate::common;

use common::*;
use serde_json::{json, Value};

const MEMBER_JS: &str = include_str!("../../examples/demo/mistakes/member.js");

fn code(d: &Value) -> &str {
    d["code"].as_str().unwrap_or("")
}

fn has_code(ds: &[Value], c: &str) -> bool {
    ds.iter().any(|d| code(d) == c)
}

fn range(d: &Value) -> [u64; 4] {
    let r = &d["range"];
    [
        r["start"]["line"].as_u64().unwrap(),
        r["start"]["character"].as_u64().unwrap(),
        r["end"]["line"].as_u64().unwrap(),
        r["end"]["character"].as_u64().unwrap(),
    ]
}

fn code_actions(lsp: &mut Lsp, uri: &str, line: u32, col: u32, diags: &[Value]) -> Vec<Value> {
    lsp.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}},
            "context": {"diagnostics": diags}
        }),
    )
    .as_array()
    .cloned()
    .unwrap_or_default()
}

/// Applies a code action's edit the way an editor does: as one incremental change per
/// text edit, last first, and returns the new text.
fn apply_action(lsp: &Lsp, uri: &str, text: &str, action: &Value, version: i32) -> String {
    let edits = action["edit"]["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("action without an edit for {uri}: {action}"))
        .clone();
    let new_text = apply_edits(text, &edits);
    let mut sorted = edits.clone();
    sorted.sort_by_key(|e| {
        std::cmp::Reverse((
            e["range"]["start"]["line"].as_u64(),
            e["range"]["start"]["character"].as_u64(),
        ))
    });
    let changes: Vec<Value> = sorted
        .iter()
        .map(|e| json!({"range": e["range"], "text": e["newText"]}))
        .collect();
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
    );
    new_text
}

/// The demo's planted `member` mistake: a diagnostic on `tableCellEnd` (line 8, column 8,
/// 1-based) with code `member`, and a quick fix deleting the statement that makes it go
/// away once applied.
#[test]
fn member_mistake_is_reported_and_its_quick_fix_removes_it() {
    let dir = project(&demo_corpus(), &[("member.js", MEMBER_JS.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let uri = uri(&dir.path().join("member.js"));
    lsp.open(&uri, MEMBER_JS);
    let diags = lsp.diagnostics_where(&uri, Some(1), |d| !d.is_empty());
    let member: Vec<&Value> = diags.iter().filter(|d| code(d) == "member").collect();
    assert_eq!(member.len(), 1, "{diags:#?}");
    let d = member[0];
    assert_eq!(range(d), [7, 7, 7, 19], "the range covers `tableCellEnd`");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "grounded");

    let actions = code_actions(&mut lsp, &uri, 7, 10, std::slice::from_ref(d));
    let delete = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").starts_with("Delete"))
        .unwrap_or_else(|| panic!("no Delete quick fix: {actions:#?}"));
    assert!(
        delete["title"].as_str().unwrap().contains("tableCellEnd"),
        "{delete}"
    );
    assert_eq!(delete["kind"], "quickfix");
    let fixed = apply_action(&lsp, &uri, MEMBER_JS, delete, 2);
    assert!(!fixed.contains("layout.tableCellEnd();"), "{fixed}");
    assert!(fixed.contains("layout.tableCell(\"Toner\");\nlayout.tableCell(\"38.00\""));
    let after = lsp.diagnostics_where(&uri, Some(2), |_| true);
    assert!(!has_code(&after, "member"), "{after:#?}");
    lsp.shutdown();
}

/// Incremental edits: a clean buffer gets a mistake typed into it, then loses it; each
/// state's diagnostics arrive for its own version.
#[test]
fn incremental_changes_add_and_remove_a_diagnostic() {
    let clean = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n";
    let dir = project(&demo_corpus(), &[("a.js", clean.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("a.js"));
    lsp.open(&uri, clean);
    let first = lsp.diagnostics_where(&uri, Some(1), |_| true);
    assert!(first.is_empty(), "{first:#?}");
    // Type `layout.tableRowEnd();` on a new line 2 (0-based), character by character.
    let typed = "layout.tableRowEnd();\n";
    let mut v = 1;
    for (i, ch) in typed.chars().enumerate() {
        v += 1;
        lsp.change(&uri, v, [2, i as u32, 2, i as u32], &ch.to_string());
    }
    let ds = lsp.diagnostics_where(&uri, Some(v), |d| has_code(d, "member"));
    let d = ds.iter().find(|d| code(d) == "member").unwrap();
    assert_eq!(range(d), [2, 7, 2, 18]);
    // Delete the line again.
    v += 1;
    lsp.change(&uri, v, [2, 0, 3, 0], "");
    let ds = lsp.diagnostics_where(&uri, Some(v), |_| true);
    assert!(ds.is_empty(), "{ds:#?}");
    lsp.shutdown();
}

/// Quick-fix edits carry UTF-16 positions: non-ASCII text (an `é`, an astral emoji that
/// is two UTF-16 units) before the fix site on the same line must not shift the edit.
#[test]
fn quick_fix_positions_are_utf16_after_non_ascii_text() {
    let text = "var t = new Table();\nlayout.tableStart(t);\nvar s = \"é😀\"; layout.tableCellEnd();\nlayout.tableEnd();\n";
    let dir = project(&demo_corpus(), &[("u.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("u.js"));
    lsp.open(&uri, text);
    let ds = lsp.diagnostics_where(&uri, Some(1), |d| has_code(d, "member"));
    let d = ds.iter().find(|d| code(d) == "member").unwrap().clone();
    let (line, col) = pos_of(text, "tableCellEnd");
    assert_eq!(
        range(&d),
        [line as u64, col as u64, line as u64, col as u64 + 12]
    );
    let actions = code_actions(&mut lsp, &uri, line, col + 2, &[d]);
    let fix = actions
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("no quick fix: {actions:#?}"));
    let fixed = apply_action(&lsp, &uri, text, fix, 2);
    assert!(!fixed.contains("tableCellEnd"), "{fixed}");
    assert!(
        fixed.contains("é😀"),
        "the text before the call survives: {fixed}"
    );
    let after = lsp.diagnostics_where(&uri, Some(2), |_| true);
    assert!(!has_code(&after, "member"), "{after:#?}");
    lsp.shutdown();
}

/// *Remove this table* on any line of a table's footprint deletes all of its lines with
/// one edit.
#[test]
fn remove_this_table_deletes_the_whole_footprint() {
    let text = "var before = 1;\nvar t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"x\");\nlayout.tableEnd();\nvar after = 2;\n";
    let dir = project(&demo_corpus(), &[("t.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("t.js"));
    lsp.open(&uri, text);
    lsp.diagnostics_where(&uri, Some(1), |_| true);
    let actions = code_actions(&mut lsp, &uri, 5, 3, &[]);
    let remove = actions
        .iter()
        .find(|a| a["title"] == "Remove this table")
        .unwrap_or_else(|| panic!("no Remove this table: {actions:#?}"));
    let fixed = apply_edits(text, remove["edit"]["changes"][&uri].as_array().unwrap());
    assert_eq!(fixed, "var before = 1;\nvar after = 2;\n");
    // Outside the footprint: not offered.
    let outside = code_actions(&mut lsp, &uri, 0, 0, &[]);
    assert!(
        !outside.iter().any(|a| a["title"] == "Remove this table"),
        "{outside:#?}"
    );
    lsp.shutdown();
}

/// Every planted mistake of the demo arrives as a diagnostic with its family's code at
/// the README's position; the warning family is a warning.
#[test]
fn each_demo_mistake_gets_its_code_and_position() {
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        std::path::Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": false}),
    );
    let cases = [
        ("member", 8, 8, 1),
        ("object", 4, 11, 1),
        ("function", 4, 11, 1),
        ("syntax", 4, 1, 1),
        ("option", 4, 54, 1),
        ("constructor", 4, 18, 1),
        ("engine", 4, 22, 1),
        ("file", 4, 8, 1),
        ("construct", 6, 8, 2),
    ];
    for (family, line, col, sev) in cases {
        let path = std::path::Path::new(&demo).join(format!("mistakes/{family}.js"));
        let text = std::fs::read_to_string(&path).unwrap();
        let u = uri(&path);
        lsp.open(&u, &text);
        let ds = lsp.diagnostics_where(&u, Some(1), |d| has_code(d, family));
        let d = ds.iter().find(|d| code(d) == family).unwrap();
        let r = range(d);
        assert_eq!((r[0] + 1, r[1] + 1), (line, col), "{family}: {d}");
        assert_eq!(d["severity"], sev, "{family}");
    }
    lsp.shutdown();
}

/// A corpus written in the test (no demo involved): a member the interface lacks is
/// flagged, a documented one is not; the related information points into the corpus.
#[test]
fn a_corpus_written_in_the_test_drives_the_diagnostics() {
    let corpus = tempfile::tempdir().unwrap();
    std::fs::write(
        corpus.path().join("api.md"),
        "# Engine\n\nECMAScript: 3\n\n# Screen\n\nThe screen. This object is accessed using the global property \"screen\".\n\n## Screen-draw\n\nSyntax: draw(text: string): void\n\nDraws text.\n",
    )
    .unwrap();
    let text = "screen.draw(\"hi\");\nscreen.paint(\"hi\");\n";
    let dir = project(
        &corpus.path().display().to_string(),
        &[("s.js", text.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("s.js"));
    lsp.open(&uri, text);
    let ds = lsp.diagnostics_where(&uri, Some(1), |d| !d.is_empty());
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(code(&ds[0]), "member");
    assert_eq!(range(&ds[0]), [1, 7, 1, 12]);
    if let Some(rel) = ds[0]["relatedInformation"].as_array() {
        assert!(rel[0]["location"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("api.md"));
    }
    lsp.shutdown();
}

/// A misspelt member gets *Replace with `tableStart`*; applying it clears the finding.
#[test]
fn replace_with_a_near_candidate() {
    let text = "var t = new Table();\n/* ü😀 */ layout.tableStrat(t);\nlayout.tableEnd();\n";
    let dir = project(&demo_corpus(), &[("r.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("r.js"));
    lsp.open(&uri, text);
    let ds = lsp.diagnostics_where(&uri, Some(1), |d| has_code(d, "member"));
    let d = ds.iter().find(|d| code(d) == "member").unwrap().clone();
    let (line, col) = pos_of(text, "tableStrat");
    assert_eq!(
        range(&d),
        [line as u64, col as u64, line as u64, col as u64 + 10]
    );
    let actions = code_actions(&mut lsp, &uri, line, col + 1, &[d]);
    let replace = actions
        .iter()
        .find(|a| a["title"] == "Replace with `tableStart`")
        .unwrap_or_else(|| panic!("no Replace quick fix: {actions:#?}"));
    let fixed = apply_action(&lsp, &uri, text, replace, 2);
    assert!(fixed.contains("/* ü😀 */ layout.tableStart(t);"), "{fixed}");
    let after = lsp.diagnostics_where(&uri, Some(2), |_| true);
    assert!(!has_code(&after, "member"), "{after:#?}");
    lsp.shutdown();
}

/// A Markdown file's fenced `js` blocks are checked with the file's own line numbers;
/// hover works inside the block.
#[test]
fn markdown_fenced_blocks_are_checked_in_place() {
    let text = "# Notes é😀\n\nSome prose with layout.tableCellEnd() in it.\n\n```js\nvar t = new Table();\nlayout.tableStart(t);\nlayout.tableCellEnd();\nlayout.tableEnd();\n```\n";
    let dir = project(&demo_corpus(), &[("notes.md", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("notes.md"));
    lsp.open(&uri, text);
    let ds = lsp.diagnostics_where(&uri, Some(1), |d| has_code(d, "member"));
    assert_eq!(ds.len(), 1, "prose is not code: {ds:#?}");
    assert_eq!(range(&ds[0]), [7, 7, 7, 19]);
    let h = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 6, "character": 10}}),
    );
    assert!(h["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("tableStart("));
    lsp.shutdown();
}

/// The statements of one function body, `n` times: a buffer whose every edit inside the
/// body re-checks one long top-level statement.
fn long_statement(n: usize) -> String {
    let mut text = String::from("(function () {\n    var t = new Table();\n");
    for _ in 0..n {
        text.push_str("    layout.tableStart(t);\n    layout.tableEnd();\n");
    }
    text.push_str("})();\n");
    text
}

/// Edits that arrive while a check of the buffer runs are merged, and the latest version
/// is checked as soon as that check ends: a burst typed during one check is checked once
/// more, for its last version, and the versions in between are never published.
///
/// The buffer is one long statement, so each re-check costs long enough (hundreds of
/// milliseconds in a debug build) that the whole burst arrives while the check of its
/// first keystroke runs, however loaded the machine. An edit that comes when no check
/// runs is checked at once: the first edit after the open, and the burst's first
/// keystroke. (The file name has a space and a non-ASCII letter: its URI is
/// percent-encoded.)
#[test]
fn a_burst_of_edits_is_checked_once_for_the_last_version() {
    let text = long_statement(3_000);
    let dir = project(&demo_corpus(), &[("dé bounce.js", text.as_bytes())]);
    // The server logs each check it computes, with its version.
    let mut lsp = Lsp::start(&[], &[("GROUNDED_LOG", "grounded_lsp::diagnostics=debug")]);
    lsp.initialize(dir.path(), json!({"debounceMs": 5000, "dryRun": false}));
    let uri = uri(&dir.path().join("dé bounce.js"));
    assert!(uri.contains("d%C3%A9%20bounce.js"), "{uri}");
    lsp.open(&uri, &text);
    lsp.diagnostics_where(&uri, Some(1), |d| d.is_empty());
    // The first edit: a blank line inside the body, checked at once.
    lsp.change(&uri, 2, [2, 0, 2, 0], "\n");
    lsp.diagnostics_where(&uri, Some(2), |d| d.is_empty());
    for (i, ch) in "    layout.tableRowEnd();".chars().enumerate() {
        lsp.change(
            &uri,
            3 + i as i32,
            [2, i as u32, 2, i as u32],
            &ch.to_string(),
        );
    }
    let last = 3 + 24;
    let ds = lsp.diagnostics_where(&uri, Some(last), |_| true);
    assert!(has_code(&ds, "member"), "{ds:#?}");
    let versions: Vec<i64> = lsp
        .published
        .iter()
        .filter(|m| m["params"]["uri"] == uri)
        .filter_map(|m| m["params"]["version"].as_i64())
        .collect();
    assert_eq!(
        versions,
        vec![1, 2, last as i64],
        "the open, the first edit, and the burst's last version only"
    );
    let computed: Vec<i64> = lsp
        .log()
        .iter()
        .filter_map(|l| {
            l.split_once("checked ")?
                .1
                .split_once(" v")?
                .1
                .split_once(' ')
        })
        .filter_map(|(v, _)| v.parse().ok())
        .collect();
    // The burst's first keystroke came after a pause with no check running: it is
    // checked at once (nothing makes it wait, issue 30). Every later one arrives while
    // that check runs and is merged into one check of the last version. So at most one
    // version in between is computed (the one the burst's first check found; it is
    // never published, the buffer having moved on).
    assert_eq!(computed[..2], [1, 2], "{computed:?}");
    assert_eq!(computed.last(), Some(&(last as i64)), "{computed:?}");
    assert!(
        computed.len() <= 4,
        "one check of the burst's first version at most, then the last: {computed:?}"
    );
    lsp.shutdown();
}
