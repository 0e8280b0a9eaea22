//! The agent in the editor, driven over stdio by the real binary as an editor does,
//! with a scripted OpenAI-compatible model over real HTTP.

use crate::common;

use std::time::{Duration, Instant};

use common::model_server::{calls, messages, say, ModelServer, Scripted};
use common::{demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

const MAIN: &str = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.paragraph(\"old\");\n";

fn edit_script() -> Vec<Scripted> {
    vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"new\");", "replace": "layout.paragraph(\"newer\");"}]}),
        )])),
        Scripted::Json(say("Changed the paragraph in main.js.")),
    ]
}

fn start(server: &ModelServer) -> (Lsp, tempfile::TempDir, String) {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(&[], &[("XDG_CONFIG_HOME", &home_s)]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": false,
               "agent": {"baseUrl": server.url, "model": "scripted"}}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, MAIN);
    // Version 2 of the buffer differs from the disk: the agent must edit the buffer.
    lsp.change(&u, 2, [5, 18, 5, 21], "new");
    (lsp, dir, u)
}

fn is(m: &Value, method: &str) -> bool {
    m["method"] == method
}

#[test]
fn ask_agent_answers_at_once_and_the_edit_arrives_as_a_versioned_apply_edit() {
    let server = ModelServer::start(edit_script());
    let (mut lsp, dir, u) = start(&server);
    let t0 = Instant::now();
    let r = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "change the paragraph to newer", "uri": u}]}),
    );
    let turn = r["turn"].as_u64().expect("a turn id");
    assert!(t0.elapsed() < Duration::from_secs(15));
    let apply = lsp.wait_for("workspace/applyEdit", |m| is(m, "workspace/applyEdit"));
    let p = &apply["params"];
    assert!(
        p["label"]
            .as_str()
            .unwrap()
            .starts_with("grounded agent: edit main.js"),
        "{p}"
    );
    let dc = &p["edit"]["documentChanges"][0];
    assert_eq!(dc["textDocument"]["uri"], u);
    assert_eq!(
        dc["textDocument"]["version"], 2,
        "made for the open buffer's version"
    );
    let new_text = dc["edits"][0]["newText"].as_str().unwrap();
    assert!(
        new_text.contains("layout.paragraph(\"newer\");"),
        "{new_text}"
    );
    let progress = lsp.wait_for("a progress report", |m| {
        is(m, "$/progress") && m["params"]["value"]["kind"] == "report"
    });
    assert!(progress["params"]["value"]["message"].is_string());
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    });
    assert_eq!(done["params"]["turn"], turn);
    assert_eq!(done["params"]["status"], "done", "{done}");
    assert_eq!(done["params"]["changed"], json!(["main.js"]));
    lsp.wait_for("window/showMessage", |m| is(m, "window/showMessage"));
    // The agent read the buffer, not the disk, and the disk was not written by the server.
    let read_result = messages(&server.bodies()[1])
        .into_iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert!(read_result["content"]
        .as_str()
        .unwrap()
        .contains("layout.paragraph(\"new\");"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.js")).unwrap(),
        MAIN
    );
    lsp.shutdown();
}

fn finished_after(lsp: &mut Lsp) -> Value {
    lsp.wait_for("workspace/applyEdit", |m| is(m, "workspace/applyEdit"));
    lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    })
}

/// Asks the agent for the edit of `edit_script` on `u`, and waits for its end.
fn ask_to_edit(lsp: &mut Lsp, u: &str) -> Value {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "change the paragraph to newer", "uri": u}]}),
    );
    finished_after(lsp)
}

/// What the model was told last before its third answer: how the edit went.
fn last_told(server: &ModelServer) -> String {
    let told = messages(&server.bodies()[2]);
    told.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_client_that_refuses_the_edit_leaves_the_write_not_done() {
    let server = ModelServer::start(edit_script());
    let (mut lsp, _dir, u) = start(&server);
    lsp.set_apply_edit(Some(
        json!({"applied": false, "failureReason": "the buffer moved on"}),
    ));
    let done = ask_to_edit(&mut lsp, &u);
    assert_eq!(done["params"]["status"], "unchanged", "{done}");
    assert_eq!(done["params"]["changed"], json!([]));
    let last = last_told(&server);
    assert!(
        last.contains("refused the edit: the buffer moved on"),
        "{last}"
    );
    lsp.shutdown();
}

#[test]
fn a_client_that_never_answers_the_edit_leaves_the_write_not_done() {
    let server = ModelServer::start(edit_script());
    let (mut lsp, _dir, u) = start(&server);
    lsp.set_apply_edit(None);
    let done = ask_to_edit(&mut lsp, &u);
    assert_eq!(done["params"]["status"], "unchanged", "{done}");
    let last = last_told(&server);
    assert!(
        last.contains("did not answer workspace/applyEdit"),
        "{last}"
    );
    lsp.shutdown();
}

#[test]
fn one_turn_per_workspace_and_commands_advertised() {
    let server = ModelServer::start(vec![Scripted::Delay(
        Duration::from_secs(3),
        say("nothing to do"),
    )]);
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(&[], &[("XDG_CONFIG_HOME", &home_s)]);
    let init = lsp.initialize(
        dir.path(),
        json!({"dryRun": false, "agent": {"baseUrl": server.url, "model": "m"}}),
    );
    let cmds = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert_eq!(*cmds, json!(["grounded.askAgent", "grounded.cancelAgent"]));
    let first = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "what is here?"}]}),
    );
    let second = lsp.request_full(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "and here?"}]}),
    );
    let msg = second["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(msg.contains("still running"), "{second}");
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    });
    assert_eq!(done["params"]["turn"], first["turn"]);
    assert_eq!(done["params"]["status"], "done");
    lsp.shutdown();
}

#[test]
fn without_a_model_the_command_says_how_to_configure_one() {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(&[], &[("XDG_CONFIG_HOME", &home_s)]);
    lsp.initialize(dir.path(), json!({"dryRun": false}));
    let r = lsp.request_full(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "add a footer"}]}),
    );
    let msg = r["error"]["message"].as_str().unwrap_or("").to_string();
    assert!(
        msg.contains("no model configured") && msg.contains("[model]"),
        "{r}"
    );
    let shown = lsp.wait_for("window/showMessage", |m| is(m, "window/showMessage"));
    assert!(shown["params"]["message"]
        .as_str()
        .unwrap()
        .contains("no model configured"));
    lsp.shutdown();
}

#[test]
fn every_diagnostic_offers_ask_the_agent() {
    let dir = project(&demo_corpus(), &[]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(&[], &[("XDG_CONFIG_HOME", &home_s)]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let path = dir.path().join("bad.js");
    let text = "layout.tableCellEnd();\n";
    std::fs::write(&path, text).unwrap();
    let u = uri(&path);
    lsp.open(&u, text);
    let diags = lsp.diagnostics_where(&u, None, |d| !d.is_empty());
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u},
               "range": diags[0]["range"],
               "context": {"diagnostics": diags}}),
    );
    let ask: Vec<&Value> = actions
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["title"] == "Ask grounded agent to fix this")
        .collect();
    assert_eq!(ask.len(), diags.len());
    let cmd = &ask[0]["command"];
    assert_eq!(cmd["command"], "grounded.askAgent");
    assert_eq!(cmd["arguments"][0]["uri"], u);
    assert_eq!(
        cmd["arguments"][0]["diagnostics"][0]["message"],
        diags[0]["message"]
    );
    lsp.shutdown();
}

#[test]
fn cancel_agent_stops_the_turn_after_its_current_step() {
    let read = calls(&[("r", "read_file", json!({"path": "main.js"}))]);
    let server = ModelServer::start(vec![
        Scripted::Delay(Duration::from_secs(2), read.clone()),
        Scripted::Json(read),
        Scripted::Json(say("never sent")),
    ]);
    let (mut lsp, _dir, _u) = start(&server);
    let r = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "what is in main.js?"}]}),
    );
    // Cancel while the first step is with the model.
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.received().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let c = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.cancelAgent", "arguments": [{"turn": r["turn"]}]}),
    );
    assert_eq!(c["cancelled"], true);
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    });
    assert_eq!(done["params"]["status"], "cancelled", "{done}");
    assert_eq!(
        server.received().len(),
        1,
        "no step after the cancelled one"
    );
    lsp.shutdown();
}

#[test]
fn a_question_asked_in_the_editor_applies_no_edit() {
    // A question is read-only in the editor too: the model tries an edit anyway, and no
    // `workspace/applyEdit` reaches the client.
    let mut script = edit_script();
    script[2] = Scripted::Json(say("main.js draws a one-cell table and a paragraph."));
    let server = ModelServer::start(script);
    let (mut lsp, dir, u) = start(&server);
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "What does main.js draw?", "uri": u}]}),
    );
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    });
    assert_eq!(done["params"]["status"], "done", "{done}");
    assert_eq!(done["params"]["changed"], json!([]));
    let applied: Vec<&Value> = lsp
        .inbox
        .iter()
        .filter(|m| is(m, "workspace/applyEdit"))
        .collect();
    assert!(applied.is_empty(), "{applied:?}");
    // The model was offered no tool that writes, and told why its edit was refused.
    let bodies = server.bodies();
    let names: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(names.contains(&"read_file"), "{names:?}");
    assert!(!names.contains(&"edit_file"), "{names:?}");
    let told = last_told(&server);
    assert!(told.contains("a question changes no file"), "{told}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.js")).unwrap(),
        MAIN
    );
    lsp.shutdown();
}
