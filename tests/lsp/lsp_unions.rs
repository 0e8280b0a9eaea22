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
