//! The agent in the editor as its user sees it (issue 27), over stdio as an editor
//! drives the real binary, with a scripted OpenAI-compatible model over real HTTP: the
//! turn's end carries its reason and answer and is in the server's log; without a model
//! the message names the editor's settings, not the command line's flags.

use crate::common;

use common::model_server::{calls, say, ModelServer, Scripted};
use common::{demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

const MAIN: &str = "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.text(\"done\");\n";

fn is(m: &Value, method: &str) -> bool {
    m["method"] == method
}

#[test]
fn a_finished_turn_carries_its_answer_and_is_in_the_servers_log() {
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.text(\"done\");",
                "replace": "layout.text(\"done\");\nlayout.text(\"Thank you\");"}]}),
        )])),
        Scripted::Json(say("Added a Thank you line at the end of main.js.")),
    ]);
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(
        &[],
        &[("XDG_CONFIG_HOME", &home_s), ("GROUNDED_LOG", "info")],
    );
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": false,
               "agent": {"baseUrl": server.url, "model": "scripted"}}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, MAIN);
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "add a Thank you line to main.js"}]}),
    );
    let f = lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    })["params"]
        .clone();
    assert_eq!(f["status"], "done", "{f}");
    assert_eq!(f["answer"], "Added a Thank you line at the end of main.js.");
    assert!(
        f["reason"].as_str().unwrap().contains("1 file changed"),
        "{f}"
    );
    assert_eq!(f["changed"], json!(["main.js"]));
    // The server's log keeps the turn: request, status, reason, changed files.
    // The log is read from the server's stderr: give the reader a moment.
    let start = std::time::Instant::now();
    let mut log = lsp.log().join("\n");
    while !log.contains("changed: main.js") && start.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        log = lsp.log().join("\n");
    }
    assert!(
        log.contains("agent turn 1: request \"add a Thank you line to main.js\""),
        "{log}"
    );
    assert!(
        log.contains("agent turn 1: done: the model answered without tools; 1 file changed; changed: main.js"),
        "{log}"
    );
    lsp.shutdown();
}

#[test]
fn without_a_model_the_message_names_the_editor_settings() {
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
    assert!(msg.contains("grounded.agent.baseUrl"), "{msg}");
    assert!(msg.contains("grounded.agent.model"), "{msg}");
    assert!(
        !msg.contains("--base-url") && !msg.contains("--model"),
        "{msg}"
    );
    let shown = lsp.wait_for("window/showMessage", |m| is(m, "window/showMessage"));
    assert_eq!(shown["params"]["message"].as_str().unwrap(), msg);
    lsp.shutdown();
}
