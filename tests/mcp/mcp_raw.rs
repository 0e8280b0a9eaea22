//! `grounded mcp` under what no SDK sends: lines that are not JSON, JSON that is no
//! request, unknown methods, arguments of the wrong shape, a line over the bound. Each
//! gets an answer (or, for a notification, none), stdout stays JSON-RPC line for line
//! (`common::mcp` fails on any other line), and the server answers the next request.

use std::time::Duration;

use serde_json::json;

use crate::common::{self, mcp::Mcp};

/// Every kind of bad input, one after another in one session, then a good call.
#[test]
fn bad_input_is_answered_and_the_server_lives_on() {
    let dir = crate::demo_copy();
    let mut m = Mcp::start(dir.path(), &[]);
    let init = m.initialize();
    assert_eq!(
        init["result"]["protocolVersion"],
        json!("2025-06-18"),
        "{init}"
    );
    assert!(init["result"]["capabilities"]["tools"].is_object());

    m.send_bytes(b"{not json at all\n");
    let parse = m.next(common::WAIT).expect("an answer to a broken line");
    assert_eq!(parse["error"]["code"], json!(-32700), "{parse}");
    assert_eq!(parse["id"], json!(null));

    m.send_bytes(b"\xff\xfe garbage \x00\n");
    assert_eq!(
        m.next(common::WAIT).unwrap()["error"]["code"],
        json!(-32700)
    );

    let id = m.request("no/such/method", json!({}));
    let r = m.response(id, common::WAIT).unwrap();
    assert_eq!(r["error"]["code"], json!(-32601), "{r}");

    let id = m.request(
        "tools/call",
        json!({"name": "lookup_docs", "arguments": "not an object"}),
    );
    let r = m.response(id, common::WAIT).unwrap();
    assert!(r["error"].is_object(), "{r}");

    let id = m.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    let r = m.response(id, common::WAIT).unwrap();
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("the tools are lookup_docs"));

    // Well-formed JSON that is no JSON-RPC message.
    m.send_bytes(b"[1, 2, 3]\n{\"jsonrpc\": \"2.0\"}\n");

    // Over the line bound: answered, skipped, and the next line read.
    let mut big = vec![b' '; grounded::mcp::MAX_LINE + 100];
    big.push(b'\n');
    m.send_bytes(&big);

    let r = m.call(
        "check_code",
        json!({"code": "layout.tableCellEnd();\n", "path": "main.js"}),
    );
    let result = &r["result"];
    assert_eq!(result["isError"], json!(false), "{r}");
    let f = &result["structuredContent"]["findings"];
    assert_eq!(f[0]["code"], json!("member"), "{r}");
    assert_eq!(f[0]["path"], json!("main.js"));
    assert!(m.alive());
    // main.js on disk is untouched by the check of another text as main.js.
    let on_disk = std::fs::read_to_string(dir.path().join("main.js")).unwrap();
    assert!(!on_disk.contains("tableCellEnd"));
    assert_eq!(m.close(), Some(0));
}

/// The answer to `initialize` arrives before the project is loaded, and a call made at
/// once waits for the load instead of failing.
#[test]
fn a_call_at_once_waits_for_the_load() {
    let dir = crate::demo_copy();
    let mut m = Mcp::start(dir.path(), &[]);
    m.initialize();
    let r = m.call("get_doc", json!({"name": "Layout.tableStart"}));
    assert_eq!(
        r["result"]["structuredContent"]["documented"],
        json!(true),
        "{r}"
    );
    // A repeated call in the same session is served from its cache.
    let r = m.call("get_doc", json!({"name": "Layout.tableStart"}));
    assert_eq!(
        r["result"]["structuredContent"]["served"],
        json!("cache"),
        "{r}"
    );
    assert!(m.next(Duration::from_millis(200)).is_none());
}

/// A project that cannot load (a broken grounded.toml) answers every tool with an error
/// naming the reason; the server does not exit.
#[test]
fn a_broken_project_is_every_tool_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = [broken\n").unwrap();
    let mut m = Mcp::start(dir.path(), &[]);
    m.initialize();
    let r = m.call("lookup_docs", json!({"query": "x"}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("could not load the project"));
    assert!(m.alive());
}
