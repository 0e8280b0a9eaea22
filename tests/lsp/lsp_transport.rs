//! The transport resyncs: one bad frame costs that frame, never the session. Each case
//! writes the bad bytes to the real server's stdin, then a valid request, which must be
//! answered. Also: unknown `$/` requests, `exit` without `shutdown`, a lone surrogate.

use crate::common;

use common::*;
use serde_json::{json, Value};

const OK_JS: &str = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n";

fn start() -> (tempfile::TempDir, Lsp) {
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    (dir, lsp)
}

/// A request framed by hand, as bytes.
fn framed(id: i64) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "grounded/noSuchMethod"}).to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Writes `bad`, then a valid request; the request is answered (MethodNotFound), and the
/// bad bytes got an error answer of their own.
fn survives(lsp: &mut Lsp, bad: &[u8], id: i64) {
    let mut bytes = bad.to_vec();
    bytes.extend_from_slice(&framed(id));
    lsp.send_unframed(&bytes);
    let r = lsp.wait_for("the request after the bad frame", |m| m["id"] == json!(id));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let e = lsp.wait_for("the bad frame's error", |m| {
        m["id"].is_null() && m["error"]["code"].is_i64()
    });
    assert!(e["error"]["message"].is_string());
    assert!(lsp.alive());
}

#[test]
fn a_misspelt_header_then_a_valid_request() {
    let (_d, mut lsp) = start();
    // The body follows with no line end, straight into the next header.
    survives(
        &mut lsp,
        b"Content-Lenght: 45\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":500,\"method\":\"x\"}",
        1001,
    );
    lsp.shutdown();
}

#[test]
fn a_non_numeric_length_then_a_valid_request() {
    let (_d, mut lsp) = start();
    survives(
        &mut lsp,
        b"Content-Length: forty\r\n\r\n{\"jsonrpc\":\"2.0\"}",
        1002,
    );
    lsp.shutdown();
}

#[test]
fn an_oversized_length_then_a_valid_request() {
    let (_d, mut lsp) = start();
    // More than the guard's limit: no attempt to read (or wait for) 100 GB.
    survives(&mut lsp, b"Content-Length: 99999999999\r\n\r\n{", 1003);
    lsp.shutdown();
}

/// A length larger than the body: the next message's header shows up inside the body,
/// and the body is cut there (before, the server waited for bytes that never came).
#[test]
fn a_body_shorter_than_its_length_then_a_valid_request() {
    let (_d, mut lsp) = start();
    survives(
        &mut lsp,
        b"Content-Length: 4000\r\n\r\n{\"jsonrpc\":\"2.0\",",
        1004,
    );
    lsp.shutdown();
}

/// A length smaller than the body: the rest of the body is junk before the next header.
#[test]
fn a_body_longer_than_its_length_then_a_valid_request() {
    let (_d, mut lsp) = start();
    survives(
        &mut lsp,
        b"Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\"}\r\n",
        1005,
    );
    lsp.shutdown();
}

/// Garbage without any header at all, then a request.
#[test]
fn bytes_that_are_not_a_message_then_a_valid_request() {
    let (_d, mut lsp) = start();
    survives(&mut lsp, b"\x00\xff hello\nworld: 1\n\n", 1006);
    lsp.shutdown();
}

/// Unknown `$/` requests get MethodNotFound (the protocol's rule); `$/` notifications
/// are ignored without an answer.
#[test]
fn unknown_dollar_requests_are_method_not_found() {
    let (_d, mut lsp) = start();
    lsp.notify("$/unknownNotification", json!({}));
    let r = lsp.request_full("$/unknownRequest", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = lsp.request_full("grounded/noSuchMethod", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert!(
        !lsp.inbox
            .iter()
            .any(|m| m["id"].is_null() && m.get("error").is_some()),
        "a $/ notification is not an error: {:?}",
        lsp.inbox
    );
    lsp.shutdown();
}

#[test]
fn exit_without_shutdown_exits_1() {
    let (_d, mut lsp) = start();
    lsp.notify("exit", Value::Null);
    assert_eq!(lsp.wait_exit(), Some(1));
}

#[test]
fn exit_after_shutdown_exits_0() {
    let (_d, mut lsp) = start();
    let _ = lsp.request("shutdown", Value::Null);
    lsp.notify("exit", Value::Null);
    assert_eq!(lsp.wait_exit(), Some(0));
}

/// A lone surrogate escape (a buffer cut inside an emoji) is read as U+FFFD: the document
/// is opened and checked, not lost.
#[test]
fn a_lone_surrogate_in_did_open_is_read_lossily() {
    let (dir, mut lsp) = start();
    let u = uri(&dir.path().join("s.js"));
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{u}","languageId":"javascript","version":1,"text":"// \ud800 cut emoji\nlayout.tableCellEnd();\n"}}}}}}"#
    );
    lsp.send_bytes(body.as_bytes());
    let ds = lsp.diagnostics_where(&u, Some(1), |d| !d.is_empty());
    assert!(
        ds.iter()
            .any(|d| d["message"].as_str().unwrap_or("").contains("tableCellEnd")),
        "{ds:#?}"
    );
    assert_eq!(ds[0]["range"]["start"]["line"], 1, "{ds:#?}");
    lsp.shutdown();
}

/// `grounded serve --stdio`, as VS Code's language client starts a stdio server (it
/// appends `--stdio`): served like `grounded serve`, an invented call gets its
/// diagnostic and a documented one none. Refusing the flag, the server never started in
/// VS Code ("crashed 5 times in the last 3 minutes").
#[test]
fn serve_with_stdio_serves_as_clients_start_it() {
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start(&["--stdio"], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let ok = uri(&dir.path().join("ok.js"));
    lsp.open(&ok, OK_JS);
    let ds = lsp.diagnostics_where(&ok, Some(1), |_| true);
    assert!(ds.is_empty(), "a documented script is silent: {ds:#?}");
    let bad = uri(&dir.path().join("bad.js"));
    lsp.open(&bad, "layout.tableCellEnd();\n");
    let ds = lsp.diagnostics_where(&bad, Some(1), |d| !d.is_empty());
    assert!(
        ds[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("tableCellEnd"),
        "{ds:#?}"
    );
    lsp.shutdown();
}

/// `serve --help` names `--stdio`; a transport the server does not have is still a
/// usage error (exit 2), not silently taken for stdio.
#[test]
fn serve_help_names_stdio_and_other_transports_are_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--stdio"), "{help}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["serve", "--socket", "9000"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
