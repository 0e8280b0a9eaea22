//! The agent does what it was asked (issue 47), driven as a user runs `grounded agent`:
//! the real binary, a scripted model over real HTTP, real files in a temp dir.
//!
//! - a change that changed none of the files its request named is `done` only when the
//!   goal was met all the same (a finding went), and says which files it changed;
//! - the pre-write refusal judges a write as the end measure does: a construct the
//!   write would leave open is refused before it lands, and the model is told to write
//!   the Start and its End together;
//! - `[agent] worker_max_steps` in `grounded.toml` bounds a plan's workers.
//!
//! (A question's read-only rule is held by the seeded adversarial run and its
//! regressions, `agent_adversarial.rs`, and in the editor by `tests/lsp/lsp_agent.rs`.)

use crate::common;

use common::agent::{events, run_agent, Run};
use common::model_server::{calls, say, tool_messages, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::{json, Value};

/// A script that calls a helper its loaded file does not define: one `function`
/// finding, which only a change to `lib/util.js` can clear.
const MAIN: &str = "loadJS(\"lib/util.js\");\nbanner(\"Report\");\nlayout.paragraph(\"done\");\n";

/// The loaded file, without the helper.
const UTIL: &str = "function footer(text) {\n    layout.paragraph(text);\n}\n";

fn fixture(agent: &str) -> tempfile::TempDir {
    let dir = project(
        &demo_corpus(),
        &[
            ("main.js", MAIN.as_bytes()),
            ("lib/util.js", UTIL.as_bytes()),
        ],
    );
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n[agent]\n{agent}\n", demo_corpus()),
    )
    .unwrap();
    dir
}

fn final_of(r: &Run) -> Value {
    events(&r.transcript, "final")
        .into_iter()
        .rfind(|e| e.get("worker").is_none())
        .cloned()
        .unwrap_or(Value::Null)
}

fn add_banner() -> Scripted {
    Scripted::Json(calls(&[(
        "e",
        "edit_file",
        json!({"path": "lib/util.js", "edits": [{"find": "function footer(text) {",
            "replace": "function banner(title) {\n    layout.heading(title, 1);\n}\nfunction footer(text) {"}]}),
    )]))
}

#[test]
fn a_fix_made_in_another_file_is_done_when_the_finding_went() {
    let dir = fixture("");
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "lib/util.js"}))])),
        add_banner(),
        Scripted::Json(say("Defined banner in lib/util.js, which main.js loads.")),
    ]);
    let r = run_agent(dir.path(), &server, "Fix main.js.", &[]);
    let f = final_of(&r);
    assert_eq!((r.code, f["status"].as_str()), (0, Some("done")), "{f}");
    assert_eq!(f["changed"], json!(["lib/util.js"]));
    let reason = f["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "changed lib/util.js, not main.js; the project's findings went from 1 to 0"
        ),
        "{reason}"
    );
    assert!(
        r.stderr
            .contains(&format!("grounded agent: done: {reason}")),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.js")).unwrap(),
        MAIN
    );
}

#[test]
fn a_change_in_another_file_that_leaves_the_named_file_as_it_was_is_not_done() {
    // The same write asked of a file it does not help: main.js keeps its finding.
    let dir = fixture("");
    std::fs::write(
        dir.path().join("lib/util.js"),
        UTIL.replace("footer", "closing"),
    )
    .unwrap();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "lib/util.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "lib/util.js", "edits": [{"find": "function closing(text) {",
                "replace": "function ending(text) {"}]}),
        )])),
        Scripted::Json(say("Done.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "Add a closing paragraph to main.js.",
        &[],
    );
    let f = final_of(&r);
    assert_eq!(
        (r.code, f["status"].as_str()),
        (1, Some("unchanged")),
        "{f}"
    );
    assert_eq!(f["reason"], "changed lib/util.js, not main.js");
    assert!(
        r.stderr
            .contains("grounded agent: unchanged: changed lib/util.js, not main.js"),
        "{}",
        r.stderr
    );
    // The write is kept, and said so.
    let answer = f["answer"].as_str().unwrap();
    assert!(answer.contains("It changed only lib/util.js"), "{answer}");
    assert!(std::fs::read_to_string(dir.path().join("lib/util.js"))
        .unwrap()
        .contains("function ending"));
}

#[test]
fn a_write_that_would_leave_a_construct_open_is_refused_before_it_lands() {
    let dir = fixture("");
    let open = json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
        "replace": "layout.paragraph(\"done\");\nvar t = new Table();\nlayout.tableStart(t);"}]});
    let whole = json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
        "replace": "layout.paragraph(\"done\");\nvar t = new Table();\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();"}]});
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[("open", "edit_file", open)])),
        Scripted::Json(calls(&[("whole", "edit_file", whole)])),
        Scripted::Json(say("Added a table at the end of main.js.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "Add a table at the end of main.js.",
        &[],
    );
    let f = final_of(&r);
    assert_eq!(
        (r.code, f["status"].as_str()),
        (0, Some("done")),
        "{f}\n{}",
        r.stderr
    );
    let edits: Vec<(String, String)> = events(&r.transcript, "edit")
        .into_iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap_or("").to_string(),
                e["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(edits.len(), 2, "{edits:?}");
    assert_eq!(edits[0].0, "refused");
    assert!(edits[0].1.contains("construct"), "{edits:?}");
    assert_eq!(edits[1].0, "applied");
    // The model was told what was open and how to write it.
    let told = tool_messages(&server.bodies()[2]);
    let told = told.last().unwrap()["content"].as_str().unwrap();
    assert!(told.contains("construct:"), "{told}");
    assert!(
        told.contains("write the Start and its End in the same edit"),
        "{told}"
    );
    assert!(!told.contains("invented name"), "{told}");
    let text = std::fs::read_to_string(dir.path().join("main.js")).unwrap();
    assert!(text.ends_with("layout.tableEnd();\n"), "{text}");
}

#[test]
fn worker_steps_come_from_grounded_toml() {
    // `worker_max_steps = 2`: the worker's third request has tools withheld, however
    // many more calls the model would make.
    let dir = fixture("worker_max_steps = 2");
    let read = |id: &str| Scripted::Json(calls(&[(id, "read_file", json!({"path": "main.js"}))]));
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "p",
            "plan",
            json!({"items": ["explain what main.js draws", "explain lib/util.js"]}),
        )])),
        read("w1a"),
        read("w1b"),
        Scripted::Json(say("main.js draws a heading and a paragraph.")),
        Scripted::Json(say("lib/util.js defines footer.")),
        Scripted::Json(say("main.js draws a heading; lib/util.js defines footer.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "What do main.js and lib/util.js do?",
        &[],
    );
    let f = final_of(&r);
    assert_eq!(
        (r.code, f["status"].as_str()),
        (0, Some("done")),
        "{f}\n{}",
        r.stderr
    );
    let worker = |n: u64| -> Vec<usize> {
        events(&r.transcript, "request")
            .into_iter()
            .filter(|e| e["worker"]["index"] == n)
            .map(|e| e["tools"].as_array().map_or(0, Vec::len))
            .collect()
    };
    let first = worker(1);
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(first[2], 0, "the third step has tools withheld: {first:?}");
    assert!(first[0] > 0 && first[1] > 0, "{first:?}");
    assert_eq!(worker(2).len(), 1);
}

#[test]
fn a_code_name_or_a_missing_file_in_the_request_names_nothing_to_change() {
    // `layout.heading` is a member and lib/missing.js is not there: neither is a file
    // the turn could have changed instead of main.js, so changing main.js is not judged.
    let dir = fixture("");
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                "replace": "layout.heading(\"done\", 2);"}]}),
        )])),
        Scripted::Json(say("main.js now ends with a heading.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "Use layout.heading instead of layout.paragraph, as lib/missing.js did.",
        &[],
    );
    let f = final_of(&r);
    assert_eq!((r.code, f["status"].as_str()), (0, Some("done")), "{f}");
    assert_eq!(f["changed"], json!(["main.js"]));
}
