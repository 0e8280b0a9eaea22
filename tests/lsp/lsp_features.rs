//! Hover, completion, signature help, document symbols and go to definition, over stdio.

use crate::common;

use common::*;
use serde_json::json;

const SCRIPT: &str = "// é😀 non-ASCII first\nvar t = new Table();\nt.columns = 2;\nlayout.tableStart(t, { cellPadding: 3 });\nlayout.tableCell(\"x\");\nlayout.tableEnd();\nfunction total(a, b) {\n    return a + b;\n}\ntotal(1, 2);\n";

fn start(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Lsp) {
    let dir = project(&demo_corpus(), files);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    (dir, lsp)
}

/// Hover on a member shows its signature and the chunk's prose; on a global, its
/// interface; on an unknown name, nothing.
#[test]
fn hover_shows_signature_and_docs() {
    let (dir, mut lsp) = start(&[("h.js", SCRIPT.as_bytes())]);
    let uri = uri(&dir.path().join("h.js"));
    lsp.open(&uri, SCRIPT);
    let h = lsp.request("textDocument/hover", at(&uri, SCRIPT, "tableStart", 3));
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(md.contains("tableStart(table: Table"), "{md}");
    assert!(md.contains("Opens a table"), "{md}");
    assert_eq!(h["contents"]["kind"], "markdown");
    // The range is in UTF-16 units on a line after non-ASCII text (line 3 here).
    let (l, c) = pos_of(SCRIPT, "tableStart");
    assert_eq!(h["range"]["start"], json!({"line": l, "character": c}));

    let g = lsp.request(
        "textDocument/hover",
        at(&uri, SCRIPT, "layout.tableCell", 1),
    );
    let md = g["contents"]["value"].as_str().unwrap();
    assert!(md.contains("Layout"), "{md}");

    let inherited = lsp.request("textDocument/hover", at(&uri, SCRIPT, "columns", 1));
    assert!(inherited["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("columns: number"));

    // A parameter has no docs: its declaration is what there is to show.
    let param = lsp.request("textDocument/hover", at(&uri, SCRIPT, "a + b", 0));
    let md = param["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("function total(a, b)") && md.contains("parameter"),
        "{md}"
    );
    assert!(!md.contains("Opens a table"), "{md}");
    lsp.shutdown();
}

/// Completion after `receiver.`: the interface's members, inherited ones included, with
/// signatures; option keys inside an options literal; globals at a statement's start.
#[test]
fn completion_offers_members_option_keys_and_globals() {
    let (dir, mut lsp) = start(&[("c.js", SCRIPT.as_bytes())]);
    let uri = uri(&dir.path().join("c.js"));
    lsp.open(&uri, SCRIPT);
    // Type `layout.` then `t.` at the end, as an editor sends it.
    let mut text = SCRIPT.to_string();
    let line = text.matches('\n').count() as u32;
    lsp.change(&uri, 2, [line, 0, line, 0], "layout.");
    text.push_str("layout.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 7}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"tableStart".to_string()), "{l:?}");
    assert!(
        !l.contains(&"tableCellEnd".to_string()),
        "absent members are not offered"
    );
    let ts = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "tableStart")
        .unwrap();
    assert!(ts["detail"].as_str().unwrap().contains("tableStart("));

    lsp.change(&uri, 3, [line, 0, line, 7], "t.col");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 5}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"columns".to_string()), "own member: {l:?}");
    assert!(
        l.len() > 5,
        "inherited members of Block are offered too: {l:?}"
    );

    // Option keys inside `{ cellPadding: 3 }` (TableStyle, inherits BlockStyle).
    let items = lsp.request(
        "textDocument/completion",
        at(&uri, SCRIPT, "cellPadding", 0),
    );
    let l = labels(&items);
    assert!(l.contains(&"gridColor".to_string()), "{l:?}");
    assert!(l.contains(&"cellPadding".to_string()), "{l:?}");

    // Statement start: globals.
    lsp.change(&uri, 4, [line, 0, line, 5], "");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"layout".to_string()), "{l:?}");
    assert!(l.contains(&"loadJS".to_string()), "{l:?}");

    // Nothing inside comments.
    lsp.change(&uri, 5, [line, 0, line, 0], "// see layout.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 14}}),
    );
    assert!(labels(&items).is_empty() || items.is_null(), "{items}");

    // Where a name goes inside a function: its parameters, not a receiver's members.
    let items = lsp.request("textDocument/completion", at(&uri, SCRIPT, "b;", 0));
    let l = labels(&items);
    assert!(
        l.contains(&"a".to_string()) && l.contains(&"total".to_string()),
        "{l:?}"
    );
    assert!(!l.contains(&"tableStart".to_string()), "{l:?}");
    lsp.shutdown();
}

/// Signature help inside a documented method's call, with the active parameter, even
/// while the call is unclosed.
#[test]
fn signature_help_inside_calls() {
    let text = "var t = new Table();\nlayout.tableStart(t, ";
    let (dir, mut lsp) = start(&[("s.js", text.as_bytes())]);
    let uri = uri(&dir.path().join("s.js"));
    lsp.open(&uri, text);
    let h = lsp.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 21}}),
    );
    assert!(h["signatures"][0]["label"]
        .as_str()
        .unwrap()
        .starts_with("tableStart("));
    assert_eq!(h["activeParameter"], 1);
    let h0 = lsp.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 18}}),
    );
    assert_eq!(h0["activeParameter"], 0);
    let none = lsp.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}),
    );
    assert!(none.is_null(), "{none}");
    lsp.shutdown();
}

/// Document symbols: the functions (and construct instances) of the buffer.
#[test]
fn document_symbols_list_functions_and_constructs() {
    let (dir, mut lsp) = start(&[("d.js", SCRIPT.as_bytes())]);
    let uri = uri(&dir.path().join("d.js"));
    lsp.open(&uri, SCRIPT);
    let syms = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names = names_of(&syms);
    assert!(names.contains(&"total"), "{names:?}");
    let total = syms
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "total")
        .unwrap();
    assert_eq!(total["kind"], 12, "function");
    assert_eq!(total["selectionRange"]["start"]["line"], 6);
    lsp.shutdown();
}

/// Construct instances appear as symbols named after the construct and its object.
#[test]
fn document_symbols_list_construct_instances() {
    let (dir, mut lsp) = start(&[("d.js", SCRIPT.as_bytes())]);
    let uri = uri(&dir.path().join("d.js"));
    lsp.open(&uri, SCRIPT);
    let syms = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let table = syms
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "table t")
        .unwrap_or_else(|| panic!("no table symbol: {syms:#}"));
    assert_eq!(table["range"]["start"]["line"], 3);
    assert_eq!(table["range"]["end"]["line"], 5);
    lsp.shutdown();
}

/// Go to definition: a `path` literal opens its file; a call goes to the function's
/// declaration in this buffer or in another project file.
#[test]
fn definition_of_path_literals_and_functions() {
    let main = "loadJS(\"lib/util.js\");\nhelper();\nfunction local() {}\nlocal();\n";
    let util = "function helper() {\n    return 1;\n}\n";
    let (dir, mut lsp) = start(&[
        ("main.js", main.as_bytes()),
        ("lib/util.js", util.as_bytes()),
    ]);
    let uri_main = uri(&dir.path().join("main.js"));
    let uri_util = uri(&dir.path().join("lib/util.js"));
    lsp.open(&uri_main, main);
    let d = lsp.request(
        "textDocument/definition",
        at(&uri_main, main, "lib/util", 2),
    );
    assert_eq!(d["uri"], uri_util, "{d}");
    let d = lsp.request(
        "textDocument/definition",
        at(&uri_main, main, "helper()", 2),
    );
    assert_eq!(d["uri"], uri_util, "{d}");
    assert_eq!(d["range"]["start"], json!({"line": 0, "character": 9}));
    let d = lsp.request(
        "textDocument/definition",
        at(&uri_main, main, "local();", 1),
    );
    assert_eq!(d["uri"], uri_main);
    assert_eq!(d["range"]["start"]["line"], 2);
    lsp.shutdown();
}

/// Completion after a chain the buffer cannot parse yet (`layout.currentPage().` at
/// the end of a line): the chain is typed step by step, `currentPage()` gives a `Page`.
/// A property used as a method (`layout.currentPage.`) gives nothing.
#[test]
fn completion_follows_a_typed_chain() {
    let text = "var p = layout.currentPage().\nvar q = layout.currentPage.\n";
    let (dir, mut lsp) = start(&[("chain.js", text.as_bytes())]);
    let uri = uri(&dir.path().join("chain.js"));
    lsp.open(&uri, text);
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 29}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"pageNumber".to_string()), "{l:?}");
    assert!(l.contains(&"remainingHeight".to_string()), "{l:?}");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 27}}),
    );
    assert!(labels(&items).is_empty() || items.is_null(), "{items}");
    lsp.shutdown();
}
