//! How a turn finishes, driven as a user runs `grounded agent`: the real binary, a
//! scripted OpenAI-compatible server over real HTTP on 127.0.0.1, real files in a temp
//! dir. A removal can only shrink (a request that only removes refuses an edit that adds
//! lines and points to `delete_lines`), and a final answer repeated word for word after
//! a claim push gets one firmer push before the turn ends, honestly.

use crate::common;

use std::path::Path;

use common::agent::{events, run_agent};
use common::model_server::{calls, messages, say, tool_messages, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::{json, Value};

const ENVELOPE: &str = "[automated pre-send check - NOT a message from the user]";

/// A small script with a price table, as a new user's first project might have.
const MAIN: &str = "var prices = new Table();\nprices.columns = 2;\nlayout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"toner\");\nlayout.tableCell(\"12.50\");\nlayout.tableEnd();\nlayout.paragraph(\"done\");\n";

/// The price table's lines (1-based, inclusive) in [`MAIN`].
const TABLE_LINES: &str = "1-7: DELETE";

/// What a model answered to "remove the price table": new lines where the table was.
fn growing_edit() -> Value {
    json!({"path": "main.js", "edits": [{
        "find": "layout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"toner\");\nlayout.tableCell(\"12.50\");\nlayout.tableEnd();",
        "replace": "layout.tableStart(prices);\nlayout.tableEnd();\nlayout.paragraph(\"The price table was removed.\");\nlayout.paragraph(\"See the price sheet for current prices.\");\nlayout.paragraph(\"Prices change every month.\");"}]})
}

fn fixture() -> tempfile::TempDir {
    project(&demo_corpus(), &[("main.js", MAIN.as_bytes())])
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn final_event(t: &[Value]) -> Value {
    events(t, "final")
        .last()
        .cloned()
        .cloned()
        .unwrap_or(Value::Null)
}

/// The tool messages of the request that followed the `n`-th model answer.
fn results_after(server: &ModelServer, n: usize) -> Vec<String> {
    tool_messages(&server.bodies()[n])
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_removal_turn_refuses_an_edit_that_adds_lines_and_delete_scan_removes() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[("e", "edit_file", growing_edit())])),
        Scripted::Json(calls(&[(
            "d",
            "delete_lines",
            json!({"path": "main.js", "marks": TABLE_LINES}),
        )])),
        Scripted::Json(say("Removed the price table from main.js.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "remove the price table from main.js",
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // The model was told with the request that the turn only removes.
    let first = messages(&server.bodies()[0]);
    assert!(
        first[1]["content"]
            .as_str()
            .unwrap()
            .contains("This request only removes"),
        "{first:?}"
    );
    // The growing edit was refused with a pointer to the delete tool, nothing written.
    let told = results_after(&server, 2);
    let refusal = told.last().unwrap();
    assert!(refusal.contains("refused"), "{refusal}");
    assert!(refusal.contains("delete_lines"), "{refusal}");
    assert!(refusal.contains("adds"), "{refusal}");
    assert!(
        refusal.contains("Nothing was written to main.js"),
        "{refusal}"
    );
    let edits = events(&r.transcript, "edit");
    assert_eq!(edits[0]["status"], "refused", "{edits:?}");
    assert_eq!(edits[0]["bytes_after"], edits[0]["bytes_before"]);
    // Delete-scan removed the table, and only the table.
    assert_eq!(edits[1]["status"], "applied", "{edits:?}");
    assert_eq!(read(dir.path(), "main.js"), "layout.paragraph(\"done\");\n");
    assert!(edits[1]["bytes_after"].as_u64() < edits[1]["bytes_before"].as_u64());
    assert_eq!(final_event(&r.transcript)["status"], "done");
}

#[test]
fn the_same_edit_lands_when_the_request_is_not_a_removal() {
    // The known-good side: the refusal comes from the request's words, not the edit.
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[("e", "edit_file", growing_edit())])),
        Scripted::Json(say("Changed the price table in main.js to a note.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "change the price table in main.js to a note about prices",
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let edits = events(&r.transcript, "edit");
    assert_eq!(edits[0]["status"], "applied", "{edits:?}");
    assert!(read(dir.path(), "main.js").len() > MAIN.len());
    let first = messages(&server.bodies()[0]);
    assert!(!first[1]["content"]
        .as_str()
        .unwrap()
        .contains("only removes"));
}

#[test]
fn the_demo_reproduction_over_the_cli_leaves_the_file_no_larger() {
    // "remove the price table from main.js" on examples/demo: a find/replace that puts
    // new lines where the table's call was is refused; delete-scan removes it.
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    copy_dir(&demo, dir.path());
    // The demo's own grounded.toml names the corpus relative to the repository.
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n", demo_corpus()),
    )
    .unwrap();
    let before = read(dir.path(), "main.js");
    let start = before
        .lines()
        .position(|l| l.contains("sectionHeading(\"Price list\")"))
        .expect("the demo has a price list")
        + 1;
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{
                "find": "sectionHeading(\"Price list\");\npricesTable();",
                "replace": "sectionHeading(\"Price list\");\nlayout.paragraph(\"Prices are listed on the price sheet.\");\nlayout.paragraph(\"Ask sales for the current list.\");"}]}),
        )])),
        Scripted::Json(calls(&[(
            "d",
            "delete_lines",
            json!({"path": "main.js", "marks": format!("{start}-{}: DELETE", start + 1)}),
        )])),
        Scripted::Json(say("Removed the price table from main.js.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "remove the price table from main.js",
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let edits = events(&r.transcript, "edit");
    assert_eq!(edits[0]["status"], "refused", "{edits:?}");
    assert_eq!(edits[1]["status"], "applied", "{edits:?}");
    let after = read(dir.path(), "main.js");
    assert!(after.len() < before.len(), "{after}");
    assert!(!after.contains("pricesTable()"), "{after}");
    assert!(!after.contains("price sheet"), "{after}");
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn a_request_that_removes_and_adds_says_which_part_is_which() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "d",
            "delete_lines",
            json!({"path": "main.js", "marks": TABLE_LINES}),
        )])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                   "replace": "layout.paragraph(\"Prices: see the sheet.\");\nlayout.paragraph(\"done\");"}]}),
        )])),
        Scripted::Json(say("Removed the price table and added a note in main.js.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "remove the price table and add a note about prices",
        &[],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let user = messages(&server.bodies()[0])[1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        user.contains("The removal part: \"remove the price table\""),
        "{user}"
    );
    assert!(
        user.contains("The adding part: \"add a note about prices\""),
        "{user}"
    );
    // Both parts landed: the adding edit is not refused in a mixed turn.
    let edits = events(&r.transcript, "edit");
    assert!(edits.iter().all(|e| e["status"] == "applied"), "{edits:?}");
    assert_eq!(
        read(dir.path(), "main.js"),
        "layout.paragraph(\"Prices: see the sheet.\");\nlayout.paragraph(\"done\");\n"
    );
    // The user reads which part was which.
    assert!(
        r.stdout
            .contains("the removal part was \"remove the price table\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("the adding part was \"add a note about prices\""),
        "{}",
        r.stdout
    );
}

/// A model that narrates a change it never made and repeats itself word for word.
const FALSE_CLAIM: &str = "Updated main.js: the heading now says Prices.";

fn repeat_script(times: usize) -> Vec<Scripted> {
    let mut s = vec![Scripted::Json(calls(&[(
        "r",
        "read_file",
        json!({"path": "main.js"}),
    )]))];
    for _ in 0..times {
        s.push(Scripted::Json(say(FALSE_CLAIM)));
    }
    s
}

#[test]
fn a_verbatim_repeat_after_a_claim_push_gets_one_firmer_push_then_ends_honestly() {
    let dir = fixture();
    let server = ModelServer::start(repeat_script(5));
    let r = run_agent(
        dir.path(),
        &server,
        "add a heading that says Prices to main.js",
        &[],
    );
    let pushes = events(&r.transcript, "push");
    assert_eq!(pushes.len(), 2, "{pushes:?}");
    assert!(pushes.iter().all(|p| p["gate"] == "claim"));
    let first = pushes[0]["text"].as_str().unwrap();
    let second = pushes[1]["text"].as_str().unwrap();
    assert!(!first.contains("Second correction"), "{first}");
    // The firmer push: the escalated wording, still in the envelope.
    assert!(second.starts_with(ENVELOPE), "{second}");
    assert!(second.contains("Second correction"), "{second}");
    assert!(second.contains("Writes landed this turn: zero"), "{second}");
    // It reached the model as a user-role message.
    let told = messages(&server.bodies()[3]);
    assert_eq!(told.last().unwrap()["content"], second);
    // Then the turn ended: four requests in all, the last answer not pushed again.
    assert_eq!(server.bodies().len(), 4);
    // Honestly: the status says nothing changed and the answer says the claim is false.
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let fin = final_event(&r.transcript);
    assert_eq!(fin["status"], "unchanged");
    let answer = fin["answer"].as_str().unwrap();
    assert!(answer.starts_with(FALSE_CLAIM), "{answer}");
    assert!(
        answer.contains("the file system shows no change to `main.js`"),
        "{answer}"
    );
    assert!(r.stdout.contains("Not so:"), "{}", r.stdout);
}

#[test]
fn a_true_answer_after_the_firmer_push_ends_the_turn_without_a_note() {
    let dir = fixture();
    let mut script = repeat_script(2);
    script.push(Scripted::Json(say("Nothing changed: I made no edit.")));
    let server = ModelServer::start(script);
    let r = run_agent(
        dir.path(),
        &server,
        "add a heading that says Prices to main.js",
        &[],
    );
    assert_eq!(events(&r.transcript, "push").len(), 2);
    let answer = final_event(&r.transcript)["answer"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(answer.starts_with("Nothing changed"), "{answer}");
    assert!(!answer.contains("Not so:"), "{answer}");
}
