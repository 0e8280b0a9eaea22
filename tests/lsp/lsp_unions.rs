//! The editor on a union the docs give (issue 49), over stdio on the Loom fixture
//! (`tests/fixtures/loom`): hover on a union-typed name says which interfaces it may be,
//! what all share and what some have; completion offers the shared members first and
//! the others naming whose they are; a narrowed receiver hovers as its one interface.

use crate::common;

use common::*;
use serde_json::json;

const MAIN: &str = "const first = loom.currentPage.selection[0];\nfirst.name = \"a\";\nif (first.type === \"TEXT\") first.characters = \"b\";\n";

fn loom_docs() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/loom/docs")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn hover_and_completion_on_a_union() {
    let dir = project(&loom_docs(), &[("main.js", MAIN.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    let hover = |lsp: &mut Lsp, needle: &str, delta: u32| {
        let h = lsp.request("textDocument/hover", at(&uri, MAIN, needle, delta));
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    };
    let h = hover(&mut lsp, "first.name", 1);
    assert!(
        h.contains("one of `FrameNode` | `TextNode` | `RectangleNode`"),
        "{h}"
    );
    assert!(h.contains("All have: ") && h.contains("`name`"), "{h}");
    assert!(h.contains("`characters` (TextNode)"), "{h}");
    // Narrowed by its `type`: the member is `TextNode`'s, with its docs.
    let c = hover(&mut lsp, "characters", 2);
    assert!(c.contains("characters: string"), "{c}");

    // Completion after `first.` on a new last line.
    let line = MAIN.matches('\n').count() as u32;
    lsp.change(&uri, 2, [line, 0, line, 0], "first.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}}),
    );
    let l = labels(&items);
    for want in ["name", "id", "remove", "type", "characters", "cornerRadius"] {
        assert!(l.contains(&want.to_string()), "{want} missing: {l:?}");
    }
    let all = items
        .as_array()
        .cloned()
        .or_else(|| items["items"].as_array().cloned())
        .unwrap_or_default();
    let detail = |label: &str| {
        all.iter()
            .find(|i| i["label"] == label)
            .and_then(|i| i["detail"].as_str())
            .unwrap_or("")
            .to_string()
    };
    assert!(detail("characters").contains("only of TextNode"), "{all:?}");
    assert!(!detail("name").contains("only of"), "{all:?}");
    lsp.shutdown();
}

/// The server on `text` as `main.js` beside the Loom docs, opened with no dry run and
/// no debounce, whose first diagnostics are none.
fn open_silent(text: &str) -> (tempfile::TempDir, Lsp, String) {
    let dir = project(&loom_docs(), &[("main.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, text);
    let first = lsp.diagnostics_where(&uri, Some(1), |_| true);
    assert!(first.is_empty(), "{first:#?}");
    (dir, lsp, uri)
}

/// Each published diagnostic's start line and message, in order.
fn lines_and_messages(found: &[serde_json::Value]) -> Vec<(u64, String)> {
    found
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The editor's re-check of one edited statement keeps a feature test on the right of
/// `||` silent, as the whole-file check does, and reports the member once an edit
/// makes it the expression's value (`ok && first.nmae`).
#[test]
fn an_edited_feature_test_on_the_right_of_an_or_stays_silent() {
    let text = "const ok = loom.currentPage.name.length > 0;\n\
                if (!ok || !loom.currentPage.getAsync) loom.notify(\"old\");\n";
    let (_dir, mut lsp, uri) = open_silent(text);
    // Inside the guarded statement: "old" -> "older".
    lsp.change(&uri, 2, [1, 55, 1, 55], "er");
    let edited = lsp.diagnostics_where(&uri, Some(2), |_| true);
    assert!(edited.is_empty(), "{edited:#?}");
    // A new statement where the member is the value of `&&`: used, so judged.
    lsp.change(
        &uri,
        3,
        [1, 0, 1, 0],
        "const v = ok && loom.currentPage.getAsync;\n",
    );
    let used = lsp.diagnostics_where(&uri, Some(3), |d| !d.is_empty());
    let lines: Vec<u64> = used
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![1], "{used:#?}");
    lsp.shutdown();
}

/// A top-level variable written twice (a lookup, then the selection) holds the docs'
/// union that has both values' interfaces, and is narrowed where nothing runs between
/// the test and the use. A statement typed later is re-checked alone with what the
/// whole file says of the variable, and finds what a whole check finds there.
#[test]
fn a_variable_written_twice_is_judged_and_narrowed_through_edits() {
    let text = "var target = loom.getNodeById(\"1\");\n\
                target = loom.currentPage.selection[0];\n\
                if (target.type === \"TEXT\") target.characters = \"b\";\n";
    let (_dir, mut lsp, uri) = open_silent(text);
    lsp.change(
        &uri,
        2,
        [3, 0, 3, 0],
        "if (target.type === \"TEXT\") target.layoutMode = \"NONE\";\n",
    );
    lsp.change(&uri, 3, [4, 0, 4, 0], "target.nmae = 1;\n");
    let found = lsp.diagnostics_where(&uri, Some(3), |d| d.len() >= 2);
    let got = lines_and_messages(&found);
    assert_eq!(got.len(), 2, "{found:#?}");
    assert_eq!(got[0].0, 3, "{got:?}");
    assert!(
        got[0]
            .1
            .starts_with("`TextNode` has no member `layoutMode`"),
        "{got:?}"
    );
    assert_eq!(got[1].0, 4, "{got:?}");
    assert!(
        got[1]
            .1
            .starts_with("None of `FrameNode`, `TextNode` and `RectangleNode` has a member `nmae`"),
        "{got:?}"
    );
    lsp.shutdown();
}

/// A name typed at a use by the write just before it (the variable as a whole holds a
/// value the docs do not type) is judged the same when the statement that uses it is
/// edited: such a statement, re-checked alone, would not see the write, so it is
/// re-checked with its function.
#[test]
fn a_use_typed_by_the_write_before_it_is_judged_through_edits() {
    let text = "async function handler(msg) {\n  \
                var style = msg.style;\n  \
                style = await loom.getStyleAsync(\"a\");\n  \
                loom.notify(style.name);\n\
                }\n\
                handler({});\n";
    let (_dir, mut lsp, uri) = open_silent(text);
    lsp.change(&uri, 2, [3, 20, 3, 24], "nmae");
    let found = lsp.diagnostics_where(&uri, Some(2), |_| true);
    let got = lines_and_messages(&found);
    assert_eq!(got.len(), 1, "{found:#?}");
    assert_eq!(got[0].0, 3, "{got:?}");
    assert!(
        got[0].1.starts_with("`Style` has no member `nmae`"),
        "{got:?}"
    );
    lsp.change(&uri, 3, [3, 20, 3, 24], "name");
    let fixed = lsp.diagnostics_where(&uri, Some(3), |_| true);
    assert!(fixed.is_empty(), "{fixed:#?}");
    lsp.shutdown();
}
