//! The agent as its user sees it (issue 27), driven as a user runs `grounded agent`: the
//! real binary, a scripted OpenAI-compatible server over real HTTP on 127.0.0.1, real
//! files in a temp dir, the transcript read back. The reserve keeps pushes for the last
//! draft; a claim about code is not a claim about a file.

mod common;

use common::agent::{events, run_agent, Run};
use common::model_server::{calls, say, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::{json, Value};

const MAIN: &str = "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.text(\"done\");\n";

fn fixture() -> tempfile::TempDir {
    project(&demo_corpus(), &[("main.js", MAIN.as_bytes())])
}

fn pushes(r: &Run) -> Vec<(String, String)> {
    events(&r.transcript, "push")
        .iter()
        .map(|e| {
            (
                e["gate"].as_str().unwrap_or("").to_string(),
                e["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn final_of(r: &Run) -> Value {
    events(&r.transcript, "final")
        .last()
        .map(|e| (*e).clone())
        .unwrap_or(Value::Null)
}

#[test]
fn the_reserve_pushes_a_last_draft_that_names_a_file_for_the_first_time() {
    let dir = fixture();
    // Three intermediate false claims spend the shared budget; the fourth names
    // lib/invoice.js for the first time, and the fifth tells the truth.
    let server = ModelServer::start(vec![
        Scripted::Json(say("Updated template.js.")),
        Scripted::Json(say("I updated template.js to load main.js.")),
        Scripted::Json(say("Updated template.js and main.js.")),
        Scripted::Json(say("Updated lib/invoice.js with the totals.")),
        Scripted::Json(say(
            "No file was written: the totals are not in the project.",
        )),
    ]);
    let r = run_agent(dir.path(), &server, "add the totals to main.js", &[]);
    let p = pushes(&r);
    assert_eq!(p.len(), 4, "{p:?}\n{}", r.stdout);
    assert!(p.iter().all(|(g, _)| g == "claim"), "{p:?}");
    assert!(p[3].1.contains("`lib/invoice.js`"), "{}", p[3].1);
    assert_eq!(server.bodies().len(), 5);
    let f = final_of(&r);
    assert!(
        f["answer"]
            .as_str()
            .unwrap()
            .starts_with("No file was written"),
        "{f}"
    );
    assert_eq!(f["status"], "unchanged");
}

#[test]
fn a_verbatim_repeat_of_the_last_draft_ends_the_turn_with_what_holds_against_it() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(say("Updated template.js.")),
        Scripted::Json(say("I updated template.js to load main.js.")),
        Scripted::Json(say("Updated template.js and main.js.")),
        Scripted::Json(say("Updated lib/invoice.js with the totals.")),
        Scripted::Json(say("Updated lib/invoice.js with the totals.")),
        Scripted::Json(say("never asked for")),
    ]);
    let r = run_agent(dir.path(), &server, "add the totals to main.js", &[]);
    assert_eq!(pushes(&r).len(), 4, "{:?}", pushes(&r));
    assert_eq!(server.bodies().len(), 5);
    let answer = final_of(&r)["answer"].as_str().unwrap().to_string();
    assert!(answer.contains("`lib/invoice.js`"), "{answer}");
    assert!(answer.contains("Not so"), "{answer}");
}

#[test]
fn an_engine_member_in_a_true_answer_is_not_taken_for_a_file() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{
                "find": "layout.text(\"done\");",
                "replace": "layout.text(\"done\");\nlayout.text(\"thanks\");"}]}),
        )])),
        Scripted::Json(say(
            "Added a second `layout.text` call to main.js, after the table (t.columns is unchanged).",
        )),
        Scripted::Json(say("never asked for")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "add a second text line saying thanks to main.js",
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(pushes(&r).is_empty(), "{:?}", pushes(&r));
    let f = final_of(&r);
    assert_eq!(f["status"], "done");
    assert!(!f["answer"].as_str().unwrap().contains("Not so"), "{f}");
    assert_eq!(f["changed"], json!(["main.js"]));
    assert_eq!(server.bodies().len(), 3);
}
