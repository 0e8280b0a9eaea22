//! The server never dies: panics, malformed JSON-RPC, unknown methods, huge, binary and
//! non-UTF-8 files, URIs outside the workspace. After each, it still answers.

use crate::common;

use common::*;
use serde_json::{json, Value};

const OK_JS: &str = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n";

/// The server still answers a real request (hover with docs) after whatever came before.
fn still_serving(lsp: &mut Lsp, uri: &str) {
    hover_works(lsp, uri);
    assert!(lsp.alive());
}

fn start(env: &[(&str, &str)]) -> (tempfile::TempDir, Lsp, String) {
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start(&[], env);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("ok.js"));
    lsp.open(&u, OK_JS);
    (dir, lsp, u)
}

/// A panic inside a handler is caught and answered as an internal error; the session
/// goes on.
#[test]
fn a_handler_panic_is_answered_and_survived() {
    let (_dir, mut lsp, u) = start(&[("GROUNDED_LSP_DEBUG_PANIC", "1")]);
    for _ in 0..2 {
        let r = lsp.request_full("grounded/debugPanic", json!({}));
        assert_eq!(r["error"]["code"], -32603, "{r}");
        assert!(r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("debug panic"));
        still_serving(&mut lsp, &u);
    }
    lsp.shutdown();
}

/// Without the test switch, the panic trigger does not exist.
#[test]
fn the_panic_trigger_is_off_by_default() {
    let (_dir, mut lsp, u) = start(&[]);
    let r = lsp.request_full("grounded/debugPanic", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    still_serving(&mut lsp, &u);
    lsp.shutdown();
}

/// Malformed JSON, a body that is not a message, bad params, unknown methods and
/// notifications: each gets the protocol's answer (or none), and the server serves on.
#[test]
fn malformed_json_rpc_and_unknown_methods_are_survived() {
    let (_dir, mut lsp, u) = start(&[]);
    lsp.send_bytes(b"{this is not json");
    let err = lsp.wait_for("a parse error", |m| m["error"]["code"] == -32700);
    assert_eq!(err["id"], Value::Null);
    lsp.send_bytes(b"[1, 2, 3]");
    lsp.send_bytes(b"\xff\xfe not UTF-8");
    lsp.send_unframed(b"Content-Length: banana\r\n\r\n");
    lsp.send_unframed(b"X-Garbage: 1\r\n\r\n");
    for what in ["batch", "non-UTF-8", "bad length", "no length"] {
        let e = lsp.wait_for(what, |m| {
            m["id"].is_null() && (m["error"]["code"] == -32600 || m["error"]["code"] == -32700)
        });
        assert!(e["error"]["message"].is_string());
    }
    lsp.send_bytes(
        br#"{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": "nonsense"}"#,
    );
    let bad = lsp.wait_for("invalid params", |m| m["id"] == 99);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let r = lsp.request_full("grounded/noSuchMethod", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    lsp.notify("grounded/noSuchNotification", json!({"x": 1}));
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///never/opened.js", "version": 2}, "contentChanges": [{"text": "x"}]}),
    );
    still_serving(&mut lsp, &u);
    lsp.shutdown();
}

/// A 50 MB buffer is stored but not analysed; requests on it answer at once and the
/// other buffers keep working.
#[test]
fn a_fifty_megabyte_file_is_answered_sanely() {
    let (dir, mut lsp, u) = start(&[]);
    let line = "layout.tableCellEnd(); // padding padding padding padding padding\n";
    let big: String = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    let big_uri = uri(&dir.path().join("big.js"));
    lsp.open(&big_uri, &big);
    let ds = lsp.diagnostics_where(&big_uri, Some(1), |_| true);
    // Not a silent empty publish: one note says it was not analysed.
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert!(ds[0]["message"].as_str().unwrap().contains("not analysed"));
    let h = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": big_uri}, "position": {"line": 0, "character": 10}}),
    );
    assert!(h.is_null());
    still_serving(&mut lsp, &u);
    lsp.shutdown();
}

/// Binary text (NUL bytes) and non-UTF-8 files on disk: a binary buffer is not analysed;
/// a non-UTF-8 file in the project is read lossily by the index and go to definition.
#[test]
fn binary_and_non_utf8_files_are_survived() {
    let mut bytes = b"function latin() {}\n// caf\xe9 \xff\xfe\n".to_vec();
    bytes.extend_from_slice(&[0x80, 0x81, b'\n']);
    let main = "latin();\nloadJS(\"lib/latin1.js\");\n";
    let dir = project(
        &demo_corpus(),
        &[
            ("ok.js", OK_JS.as_bytes()),
            ("lib/latin1.js", &bytes),
            ("main.js", main.as_bytes()),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let ok = uri(&dir.path().join("ok.js"));
    lsp.open(&ok, OK_JS);
    // A binary buffer, as an editor sends it.
    let bin = uri(&dir.path().join("blob.js"));
    lsp.open(
        &bin,
        "\u{0}\u{1}\u{2}PK\u{3}\u{4}\u{fffd}\u{fffd}layout.nope();",
    );
    let ds = lsp.diagnostics_where(&bin, Some(1), |_| true);
    assert!(ds.is_empty(), "{ds:#?}");
    // The non-UTF-8 file changes on disk.
    let latin = dir.path().join("lib/latin1.js");
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&latin), "type": 2}]}),
    );
    let m = uri(&dir.path().join("main.js"));
    lsp.open(&m, main);
    let d = lsp.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": m}, "position": {"line": 0, "character": 2}}),
    );
    assert_eq!(d["uri"], uri(&latin), "{d}");
    still_serving(&mut lsp, &ok);
    lsp.shutdown();
}

/// A file outside the workspace, and a non-file URI, are checked against the session's
/// corpus and answered; nothing about them touches the project.
#[test]
fn uris_outside_the_workspace_are_answered() {
    let (_dir, mut lsp, u) = start(&[]);
    let elsewhere = tempfile::tempdir().unwrap();
    let p = elsewhere.path().join("x.js");
    std::fs::write(&p, OK_JS).unwrap();
    let out = uri(&p);
    lsp.open(&out, OK_JS);
    let ds = lsp.diagnostics_where(&out, Some(1), |_| true);
    assert!(ds.is_empty(), "{ds:#?}");
    let untitled = "untitled:Untitled-1";
    lsp.open(untitled, OK_JS);
    lsp.diagnostics_where(untitled, Some(1), |_| true);
    let h = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": untitled}, "position": {"line": 1, "character": 10}}),
    );
    assert!(h["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("tableStart"));
    let d = lsp.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": out}, "position": {"line": 1, "character": 3}}),
    );
    assert!(d.is_null() || d["uri"].is_string());
    still_serving(&mut lsp, &u);
    lsp.shutdown();
}

/// Logs never reach stdout: every byte the server writes there is a framed message
/// (the client's reader would otherwise stop), even with verbose logging on.
#[test]
fn verbose_logging_keeps_stdout_clean() {
    let (_dir, mut lsp, u) = start(&[("GROUNDED_LOG", "trace")]);
    still_serving(&mut lsp, &u);
    lsp.shutdown();
}

/// A client that never answers the server's requests (configuration, registration)
/// does not freeze the session: the server's requests time out off the message path,
/// and edits and requests keep being served meanwhile.
#[test]
fn a_client_that_never_answers_does_not_freeze_the_session() {
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start_with(&[], &[], false);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("ok.js"));
    lsp.open(&u, OK_JS);
    // Each of these makes the server ask for the configuration, which never comes.
    for _ in 0..8 {
        lsp.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": null}),
        );
    }
    let t0 = std::time::Instant::now();
    lsp.change(&u, 2, [0, 0, 0, 0], " ");
    lsp.diagnostics_where(&u, Some(2), |_| true);
    still_serving(&mut lsp, &u);
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(4),
        "served while configuration requests were pending (they time out after 5 s): {:?}",
        t0.elapsed()
    );
    lsp.shutdown();
}
