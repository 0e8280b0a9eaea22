//! The editor turn finished, driven over stdio by the real binary as an editor does,
//! with a scripted OpenAI-compatible model over real HTTP: reads and `find_in_files`
//! see unsaved buffers, `agent.transcript` writes the transcript and `agentFinished`
//! names it, the progress bar's cancel button cancels the turn, a removal can only
//! shrink, and a repeated false claim gets one firmer push before the turn ends.

use crate::common;

use std::time::{Duration, Instant};

use common::model_server::{calls, messages, say, tool_messages, ModelServer, Scripted};
use common::{apply_edits, demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

const ENVELOPE: &str = "[automated pre-send check - NOT a message from the user]";

const MAIN: &str = "var prices = new Table();\nprices.columns = 2;\nlayout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"toner\");\nlayout.tableEnd();\nlayout.paragraph(\"done\");\n";

fn is(m: &Value, method: &str) -> bool {
    m["method"] == method
}

/// A server over a project with [`MAIN`], `main.js` open; `agent` settings merged in.
fn start(server: &ModelServer, agent: Value) -> (Lsp, tempfile::TempDir, String) {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(&[], &[("XDG_CONFIG_HOME", &home_s)]);
    let mut a = json!({"baseUrl": server.url, "model": "scripted"});
    if let (Some(a), Some(extra)) = (a.as_object_mut(), agent.as_object()) {
        for (k, v) in extra {
            a.insert(k.clone(), v.clone());
        }
    }
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": false, "agent": a}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, MAIN);
    (lsp, dir, u)
}

fn ask(lsp: &mut Lsp, request: &str) -> Value {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": request}]}),
    )
}

fn finished(lsp: &mut Lsp) -> Value {
    lsp.wait_for("grounded/agentFinished", |m| {
        is(m, "grounded/agentFinished")
    })["params"]
        .clone()
}

/// The contents of the tool messages of every request, in order.
fn told(server: &ModelServer) -> Vec<String> {
    server
        .bodies()
        .iter()
        .flat_map(tool_messages)
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn find_in_files_and_reads_see_the_unsaved_buffer() {
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            (
                "f",
                "find_in_files",
                json!({"pattern": "unsavedMarker", "fixed": true}),
            ),
            ("r", "read_file", json!({"path": "main.js"})),
        ])),
        Scripted::Json(say("main.js has the unsaved line.")),
    ]);
    let (mut lsp, dir, u) = start(&server, json!({}));
    // Typed in the editor, not saved: line 7 now says unsavedMarker.
    lsp.change(&u, 2, [6, 18, 6, 22], "unsavedMarker");
    ask(&mut lsp, "where is unsavedMarker?");
    let done = finished(&mut lsp);
    assert_eq!(done["status"], "done", "{done}");
    let results = tool_messages(&server.bodies()[1]);
    let find = results[0]["content"].as_str().unwrap();
    assert!(find.contains("main.js"), "{find}");
    assert!(find.contains("unsavedMarker"), "{find}");
    assert!(
        find.contains("7: layout.paragraph(\"unsavedMarker\");"),
        "{find}"
    );
    let read = results[1]["content"].as_str().unwrap();
    assert!(read.contains("unsavedMarker"), "{read}");
    // The disk never had it: the search did not read the disk.
    assert!(!std::fs::read_to_string(dir.path().join("main.js"))
        .unwrap()
        .contains("unsavedMarker"));
    lsp.shutdown();
}

#[test]
fn agent_transcript_is_written_and_agent_finished_names_it() {
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say("main.js lays out one table.")),
    ]);
    let tdir = tempfile::tempdir().unwrap();
    let path = tdir.path().join("turns.jsonl");
    let (mut lsp, _dir, _u) = start(&server, json!({"transcript": path.display().to_string()}));
    ask(&mut lsp, "what does main.js lay out?");
    let done = finished(&mut lsp);
    assert_eq!(done["transcript"], path.display().to_string(), "{done}");
    let lines: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "request",
            "response",
            "tool_result",
            "request",
            "response",
            "final"
        ]
    );
    assert_eq!(lines[5]["answer"], done["answer"]);
    lsp.shutdown();
}

#[test]
fn without_agent_transcript_no_file_is_named() {
    let server = ModelServer::start(vec![Scripted::Json(say("nothing to do."))]);
    let (mut lsp, dir, _u) = start(&server, json!({}));
    ask(&mut lsp, "what does main.js lay out?");
    let done = finished(&mut lsp);
    assert!(done.get("transcript").is_none(), "{done}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".jsonl")), "{names:?}");
    lsp.shutdown();
}

#[test]
fn an_unwritable_agent_transcript_is_refused_at_once() {
    let server = ModelServer::start(vec![Scripted::Json(say("never sent"))]);
    let (mut lsp, _dir, _u) = start(
        &server,
        json!({"transcript": "/nonexistent-dir/for/sure/t.jsonl"}),
    );
    let r = lsp.request_full(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "hi"}]}),
    );
    let msg = r["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("agent.transcript"), "{r}");
    assert!(server.received().is_empty());
    // The workspace is not left busy: asked again, the same reason, not "still running".
    let again = lsp.request_full(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": "hi"}]}),
    );
    let msg = again["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("agent.transcript"), "{again}");
    lsp.shutdown();
}

#[test]
fn the_progress_bars_cancel_button_cancels_the_turn() {
    let read = calls(&[("r", "read_file", json!({"path": "main.js"}))]);
    let server = ModelServer::start(vec![
        Scripted::Delay(Duration::from_secs(2), read.clone()),
        Scripted::Json(read),
        Scripted::Json(say("never sent")),
    ]);
    let (mut lsp, _dir, _u) = start(&server, json!({}));
    ask(&mut lsp, "what is in main.js?");
    let begin = lsp.wait_for("the progress begin", |m| {
        is(m, "$/progress") && m["params"]["value"]["kind"] == "begin"
    });
    assert_eq!(
        begin["params"]["value"]["cancellable"], true,
        "the bar shows a cancel button: {begin}"
    );
    let token = begin["params"]["token"].clone();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.received().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    // A stranger's token cancels nothing.
    lsp.notify(
        "window/workDoneProgress/cancel",
        json!({"token": "someone-else"}),
    );
    lsp.notify("window/workDoneProgress/cancel", json!({"token": token}));
    let done = finished(&mut lsp);
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(
        server.received().len(),
        1,
        "no step after the cancelled one"
    );
    lsp.shutdown();
}

#[test]
fn a_stranger_token_does_not_cancel_the_turn() {
    let server = ModelServer::start(vec![
        Scripted::Delay(
            Duration::from_secs(1),
            calls(&[("r", "read_file", json!({"path": "main.js"}))]),
        ),
        Scripted::Json(say("main.js lays out one table.")),
    ]);
    let (mut lsp, _dir, _u) = start(&server, json!({}));
    ask(&mut lsp, "what is in main.js?");
    lsp.wait_for("the progress begin", |m| {
        is(m, "$/progress") && m["params"]["value"]["kind"] == "begin"
    });
    lsp.notify(
        "window/workDoneProgress/cancel",
        json!({"token": "grounded/999999"}),
    );
    let done = finished(&mut lsp);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(server.received().len(), 2);
    lsp.shutdown();
}

#[test]
fn a_removal_over_ask_agent_refuses_an_edit_that_adds_lines() {
    let growing = json!({"path": "main.js", "edits": [{
        "find": "layout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"toner\");\nlayout.tableEnd();",
        "replace": "layout.paragraph(\"The price table was removed.\");\nlayout.paragraph(\"See the price sheet.\");\nlayout.paragraph(\"Prices change monthly.\");\nlayout.paragraph(\"Ask sales.\");\nlayout.paragraph(\"Thanks.\");"}]});
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[("e", "edit_file", growing)])),
        Scripted::Json(calls(&[(
            "d",
            "delete_lines",
            json!({"path": "main.js", "marks": "1-6: DELETE"}),
        )])),
        Scripted::Json(say("Removed the price table from main.js.")),
    ]);
    let (mut lsp, _dir, u) = start(&server, json!({}));
    ask(&mut lsp, "remove the price table from main.js");
    // The one applyEdit is delete-scan's, and it shrinks the buffer.
    let apply = lsp.wait_for("workspace/applyEdit", |m| is(m, "workspace/applyEdit"));
    let p = &apply["params"];
    assert!(
        p["label"]
            .as_str()
            .unwrap()
            .starts_with("grounded agent: delete 6 lines of main.js"),
        "{p}"
    );
    let dc = &p["edit"]["documentChanges"][0];
    assert_eq!(dc["textDocument"]["uri"], u);
    let edits = dc["edits"].as_array().unwrap().clone();
    let after = apply_edits(MAIN, &edits);
    assert_eq!(after, "layout.paragraph(\"done\");\n");
    let done = finished(&mut lsp);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["changed"], json!(["main.js"]));
    let t = told(&server);
    let refusal = t
        .iter()
        .find(|c| c.starts_with("refused"))
        .expect("the growing edit was refused");
    assert!(refusal.contains("delete_lines"), "{refusal}");
    assert!(refusal.contains("only removes"), "{refusal}");
    lsp.shutdown();
}

#[test]
fn a_request_that_removes_and_adds_says_which_part_is_which_over_ask_agent() {
    let server = ModelServer::start(vec![Scripted::Json(say("Nothing done yet."))]);
    let (mut lsp, _dir, _u) = start(&server, json!({}));
    ask(&mut lsp, "replace the price table with a bullet list");
    let done = finished(&mut lsp);
    let answer = done["answer"].as_str().unwrap();
    assert!(
        answer.contains("the removal part was \"replace the price table\""),
        "{answer}"
    );
    assert!(
        answer.contains("the adding part was \"with a bullet list\""),
        "{answer}"
    );
    let user = messages(&server.bodies()[0])[1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.contains("both removes and adds"), "{user}");
    lsp.shutdown();
}

#[test]
fn a_verbatim_repeat_after_a_claim_push_gets_one_firmer_push_over_ask_agent() {
    let claim = "Updated main.js: the heading now says Prices.";
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say(claim)),
        Scripted::Json(say(claim)),
        Scripted::Json(say(claim)),
        Scripted::Json(say("never sent")),
    ]);
    let (mut lsp, _dir, _u) = start(&server, json!({}));
    ask(&mut lsp, "add a heading that says Prices to main.js");
    let done = finished(&mut lsp);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4, "one push, one firmer push, then the end");
    let second = messages(&bodies[3]).last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(second.starts_with(ENVELOPE), "{second}");
    assert!(second.contains("Second correction"), "{second}");
    let first = messages(&bodies[2]).last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!first.contains("Second correction"), "{first}");
    assert_eq!(done["status"], "unchanged", "{done}");
    let answer = done["answer"].as_str().unwrap();
    assert!(answer.starts_with(claim), "{answer}");
    assert!(
        answer.contains("the file system shows no change to `main.js`"),
        "{answer}"
    );
    lsp.shutdown();
}
