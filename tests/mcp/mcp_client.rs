//! The MCP Python SDK (PyPI `mcp`, installed by `tests/mcp/install.sh` into a venv
//! outside the clone) drives `grounded mcp` over stdio: every tool on the demo project,
//! the answers against the command line's own, the errors, and the session alive after.
//!
//! Skipped, saying so, when the SDK is not installed; `GROUNDED_REQUIRE_MCP_CLIENT=1`
//! (set by `.ci/run`) makes a missing install a failure.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common;

/// The venv's python, when the SDK is installed there.
fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("GROUNDED_MCP_VENV")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/grounded/mcp-client"))
        })?;
    let py = venv.join("bin/python");
    let ok = std::process::Command::new(&py)
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// Runs the client script over `plan`; its report.
fn drive(project: &Path, plan: &Value) -> Option<Value> {
    let Some(py) = python() else {
        assert!(
            std::env::var_os("GROUNDED_REQUIRE_MCP_CLIENT").is_none(),
            "the MCP Python SDK is required here (GROUNDED_REQUIRE_MCP_CLIENT) but not installed: run bash tests/mcp/install.sh"
        );
        eprintln!(
            "skipped: the MCP Python SDK is not installed (bash tests/mcp/install.sh installs it)"
        );
        return None;
    };
    let plan_file = project.join(".plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = std::process::Command::new(py)
        .arg(script)
        .arg(common::bin())
        .arg(project)
        .arg(&plan_file)
        .output()
        .unwrap();
    std::fs::remove_file(&plan_file).unwrap();
    assert!(
        out.status.success(),
        "client.py failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn text(r: &Value) -> &str {
    r["content"][0]["text"].as_str().unwrap_or("")
}

fn ok(r: &Value) -> &Value {
    assert_ne!(r["isError"], json!(true), "a tool error: {r}");
    assert!(r.get("protocol_error").is_none(), "{r}");
    &r["structuredContent"]
}

fn refused(r: &Value, says: &str) {
    assert_eq!(r["isError"], json!(true), "not refused: {r}");
    assert!(
        text(r).contains(says),
        "{:?} does not say {says:?}",
        text(r)
    );
}

/// Every tool on the demo project through the SDK: listed read-only with both schemas,
/// answering with structured content; a repeated lookup served from the cache and saying
/// so; an empty lookup and an undocumented name answered with near names; check_code equal
/// to the command line's check of the same text, file for file; check_files equal to
/// `check --format json`; the dry run's findings; the session alive at the end.
#[test]
fn every_tool_answers_through_the_python_sdk() {
    let dir = crate::demo_copy();
    let root = dir.path();
    let mistakes: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(root.join("mistakes"))
            .unwrap()
            .map(|e| format!("mistakes/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        v.sort();
        v
    };
    let mut calls = vec![
        json!(["lookup_docs", {"query": "tableStart"}]),
        json!(["lookup_docs", {"query": "tableStart"}]),
        json!(["lookup_docs", {"query": "tabelStrat"}]),
        json!(["resolve_topic", {"goal": "display data in a table"}]),
        json!(["get_doc", {"name": "Layout"}]),
        json!(["get_doc", {"name": "layout.tableCellEnd"}]),
        json!(["check_files", {}]),
        json!(["check_files", {"paths": ["mistakes"]}]),
        json!(["dry_run", {}]),
        json!(["check_code", {"code": "layout.tableStart(new Table());\nlayout.tableCellEnd();\nlayout.tableEnd();\n"}]),
    ];
    for m in &mistakes {
        let code = std::fs::read_to_string(root.join(m)).unwrap();
        calls.push(json!(["check_code", {"code": code, "path": m}]));
    }
    let report = drive(root, &json!([{"roots": [root], "calls": calls}]));
    let Some(report) = report else { return };
    let s = &report["sessions"][0];
    assert_eq!(s["alive"], json!(true));
    assert_eq!(s["initialize"]["serverInfo"]["name"], json!("grounded"));
    let tools = s["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "lookup_docs",
            "resolve_topic",
            "get_doc",
            "check_code",
            "check_files",
            "dry_run"
        ]
    );
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], json!(true), "{t}");
        assert_eq!(t["inputSchema"]["type"], json!("object"), "{t}");
        assert_eq!(t["outputSchema"]["type"], json!("object"), "{t}");
    }
    let r = s["results"].as_array().unwrap();

    let first = ok(&r[0]);
    assert_eq!(first["served"], json!("live"));
    assert!(
        first["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["title"].as_str().unwrap().contains("tableStart")),
        "{first}"
    );
    let again = ok(&r[1]);
    assert_eq!(again["served"], json!("cache"));
    assert_eq!(again["asked"], json!(2));
    assert!(
        text(&r[1]).starts_with("(Served from this session's cache"),
        "{}",
        text(&r[1])
    );

    let empty = ok(&r[2]);
    assert!(empty["hits"].as_array().unwrap().is_empty());
    assert!(
        empty["near"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("tableStart")),
        "{empty}"
    );
    assert!(
        text(&r[2]).contains("Documented names nearby"),
        "{}",
        text(&r[2])
    );

    let topic = ok(&r[3]);
    assert!(!topic["matches"].as_array().unwrap().is_empty(), "{topic}");

    let layout = ok(&r[4]);
    assert_eq!(layout["documented"], json!(true));
    assert!(layout["members"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["name"] == json!("tableStart")));
    let invented = ok(&r[5]);
    assert_eq!(invented["documented"], json!(false));
    assert!(
        !invented["near"].as_array().unwrap().is_empty(),
        "{invented}"
    );
    assert!(text(&r[5]).contains("not documented"));

    // check_files is `check --format json`, finding for finding.
    assert_eq!(ok(&r[6])["findings"], json!(crate::cli_check(root, &["."])));
    assert_eq!(
        ok(&r[7])["findings"],
        json!(crate::cli_check(root, &["mistakes"]))
    );
    assert!(!ok(&r[7])["findings"].as_array().unwrap().is_empty());

    let dry = ok(&r[8]);
    assert!(
        dry["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == json!("dry-run")),
        "{dry}"
    );

    // Text not yet written, as a new script: the invented member found, the answer
    // saying what to change and what the interface has.
    let new = ok(&r[9]);
    assert_eq!(new["path"], json!("untitled.js"));
    let f = new["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{new}");
    assert_eq!(f[0]["code"], json!("member"));
    assert_eq!(
        (f[0]["line"].clone(), f[0]["column"].clone()),
        (json!(2), json!(8))
    );
    assert!(text(&r[9]).contains("Layout has: "), "{}", text(&r[9]));
    assert!(
        text(&r[9]).contains("Nothing was written"),
        "{}",
        text(&r[9])
    );
    assert!(!root.join("untitled.js").exists());

    // check_code of each mistake's text as its own file: exactly the command line's
    // findings of that file, and together every family the checker has.
    let mut families = std::collections::BTreeSet::new();
    for (i, m) in mistakes.iter().enumerate() {
        let got = ok(&r[10 + i]);
        let want = crate::cli_check(root, &[m]);
        assert_eq!(got["findings"], json!(want), "{m}");
        for f in &want {
            families.insert(f["code"].as_str().unwrap().to_string());
        }
    }
    // Every family the demo plants a mistake for (`examples/demo/mistakes/`).
    let expected: std::collections::BTreeSet<String> =
        common::PLANTED.iter().map(|s| s.to_string()).collect();
    assert!(families.is_superset(&expected), "{families:?}");
}

/// Bad calls through the SDK: each a tool error that says what would work, an unknown
/// tool a protocol error; a path outside the project root or outside the client's roots
/// refused; the session alive after all of them.
#[test]
fn bad_calls_are_errors_that_say_what_would_work() {
    let dir = crate::demo_copy();
    let root = dir.path();
    let lib = root.join("lib");
    let big = "x".repeat((1 << 20) + 1);
    let report = drive(
        root,
        &json!([
            {"roots": [root], "calls": [
                ["lookup_docs", {"querry": "x"}],
                ["lookup_docs", {"query": 5}],
                ["lookup_docs", {"query": "table", "limit": 0}],
                ["get_doc", {"name": "   "}],
                ["check_code", {"code": "var a;", "path": "../outside.js"}],
                ["check_code", {"code": "var a;", "path": "/etc/passwd"}],
                ["check_code", {"code": "var a;", "path": "notes.txt"}],
                ["check_code", {"code": big}],
                ["check_files", {"paths": ["/etc"]}],
                ["check_files", {"paths": ["no/such.js"]}],
                ["dry_run", {"entry": "../../x.js"}],
                ["no_such_tool", {}],
                ["lookup_docs", {"query": "table", "limit": 3}]
            ]},
            {"roots": [lib], "calls": [
                ["check_code", {"code": "var a;", "path": "main.js"}],
                ["check_code", {"code": "var a = 1;\n", "path": "lib/new.js"}],
                ["check_files", {}],
                ["dry_run", {}]
            ]}
        ]),
    );
    let Some(report) = report else { return };
    let r = report["sessions"][0]["results"].as_array().unwrap();
    refused(
        &r[0],
        "`lookup_docs` has no argument `querry`; it takes `query`, `limit`",
    );
    refused(&r[1], "must be a string, not a number");
    refused(&r[2], "a whole number from 1 to 50");
    refused(&r[3], "is empty");
    refused(&r[4], "outside the project root");
    refused(&r[5], "outside the project root");
    refused(&r[6], "not a script of this engine");
    refused(&r[7], "the bound is 1048576 bytes");
    refused(&r[8], "outside the project root");
    refused(&r[9], "does not exist");
    refused(&r[10], "outside the project root");
    assert!(
        r[11]["protocol_error"]
            .as_str()
            .unwrap()
            .contains("no tool `no_such_tool`"),
        "{}",
        r[11]
    );
    assert_eq!(ok(&r[12])["hits"].as_array().unwrap().len(), 3);
    assert_eq!(report["sessions"][0]["alive"], json!(true));

    let r = report["sessions"][1]["results"].as_array().unwrap();
    refused(&r[0], "outside the client's roots");
    assert_eq!(ok(&r[1])["findings"], json!([]));
    // With the roots at lib/, the whole check is of lib/ alone.
    assert_eq!(
        ok(&r[2])["findings"],
        json!(crate::cli_check(root, &["lib"]))
    );
    refused(&r[3], "not inside the client's roots");
    assert!(!lib.join("new.js").exists());
}
