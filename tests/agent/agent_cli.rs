//! `grounded agent` driven as a user runs it: the real binary, a scripted
//! OpenAI-compatible server over real HTTP on 127.0.0.1, real files in a temp dir.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::agent::{events, run_agent};
use common::model_server::{calls, messages, say, tool_messages, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::{json, Value};

const MAIN: &str = "loadJS(\"lib/util.js\");\nvar t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nbanner(\"Report\");\nlayout.paragraph(\"done\");\n";
const UTIL: &str = "function banner(title) {\n    layout.heading(title, 1);\n}\n";

fn fixture() -> tempfile::TempDir {
    project(
        &demo_corpus(),
        &[
            ("main.js", MAIN.as_bytes()),
            ("lib/util.js", UTIL.as_bytes()),
        ],
    )
}

fn final_status(t: &[Value]) -> String {
    events(t, "final")
        .last()
        .map(|e| e["status"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// The `tool` messages a request added after the previous request: the results of the
/// last batch (the conversation is resent whole every step).
fn last_batch(body: &Value) -> Vec<Value> {
    let all = messages(body);
    let start = all
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .map_or(0, |i| i + 1);
    all[start..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

/// The lines of stderr that are errors (`grounded: ...`), not progress.
fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("grounded: "))
        .collect()
}

fn read(root: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(root.join(rel)).unwrap()
}

#[test]
fn two_step_tool_loop() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("c1", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say("main.js lays out one table and calls banner.")),
    ]);
    let r = run_agent(dir.path(), &server, "what does main.js lay out?", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("main.js lays out one table"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("files changed: none"), "{}", r.stdout);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    // The first request: system prompt generated from the corpus, the request, tools.
    let first = messages(&bodies[0]);
    assert_eq!(first[0]["role"], "system");
    let system = first[0]["content"].as_str().unwrap();
    assert!(system.contains("layout (Layout)"), "{system}");
    assert!(system.contains("tableStart"), "{system}");
    // The request, and (a question) the note that it changes no file.
    let user = first[1]["content"].as_str().unwrap();
    assert!(user.starts_with("what does main.js lay out?"), "{user}");
    assert!(user.contains("This request is a question"), "{user}");
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // A question is offered no tool that writes.
    for name in ["write_file", "edit_file", "delete_lines"] {
        assert!(!tools.contains(&name), "{name} in {tools:?}");
    }
    for name in [
        "list_files",
        "read_file",
        "find_in_files",
        "lookup_docs",
        "rag_lookup",
        "resolve_topic",
        "find_construct",
        "check_symbols",
        "dry_run",
    ] {
        assert_eq!(
            tools.iter().filter(|t| **t == name).count(),
            1,
            "{name} in {tools:?}"
        );
    }
    // The second request carries the call and its result with line numbers.
    let tm = tool_messages(&bodies[1]);
    assert_eq!(tm.len(), 1);
    assert_eq!(tm[0]["tool_call_id"], "c1");
    assert!(tm[0]["content"]
        .as_str()
        .unwrap()
        .contains("   4| layout.tableStart(t);"));
    // The transcript has every event kind of a turn without writes, in order.
    let kinds: Vec<&str> = r
        .transcript
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
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
    assert_eq!(r.transcript[2]["served"], "live");
    assert_eq!(final_status(&r.transcript), "done");
}

#[test]
fn a_batch_of_reads_is_answered_in_order() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            (
                "a",
                "read_file",
                json!({"path": "main.js", "start_line": 2, "end_line": 3}),
            ),
            ("b", "read_file", json!({"path": "lib/util.js"})),
            ("c", "lookup_docs", json!({"term": "tableEnd"})),
            ("d", "no_such_tool", json!({})),
            ("e", "list_files", json!({})),
        ])),
        Scripted::Json(say("read them")),
    ]);
    let r = run_agent(dir.path(), &server, "what is in this project?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tm = tool_messages(&server.bodies()[1]);
    let ids: Vec<&str> = tm
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    let a = tm[0]["content"].as_str().unwrap();
    assert!(
        a.contains("   2| var t = new Table();") && !a.contains("   4|"),
        "{a}"
    );
    assert!(tm[1]["content"]
        .as_str()
        .unwrap()
        .contains("function banner"));
    assert!(tm[2]["content"]
        .as_str()
        .unwrap()
        .contains("Layout-tableEnd"));
    assert!(tm[3]["content"]
        .as_str()
        .unwrap()
        .contains("there is no tool `no_such_tool`"));
    assert!(tm[4]["content"].as_str().unwrap().contains("lib/util.js"));
    let served: Vec<&str> = events(&r.transcript, "tool_result")
        .iter()
        .map(|e| e["served"].as_str().unwrap())
        .collect();
    assert_eq!(served, ["live", "live", "live", "refused", "live"]);
}

#[test]
fn a_tool_call_written_in_the_text_with_a_brace_inside_a_string() {
    let dir = project(
        &demo_corpus(),
        &[(
            "main.js",
            b"if (ready) {\n    layout.paragraph(\"a\");\n}\n",
        )],
    );
    let edit = json!({"name": "edit_file", "arguments": {"path": "main.js", "edits": [
        {"find": "if (ready) {\n    layout.paragraph(\"a\");\n}", "replace": "if (ready) {\n    layout.paragraph(\"a } b\");\n}"}]}});
    let server = ModelServer::start(vec![
        Scripted::Json(say(
            r#"Reading first. {"name": "read_file", "arguments": {"path": "main.js"}}"#,
        )),
        Scripted::Json(say(&format!("Now the edit:\n{edit}\n"))),
        Scripted::Json(say("Changed the paragraph text in main.js.")),
    ]);
    let r = run_agent(dir.path(), &server, "change the paragraph text", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        String::from_utf8(read(dir.path(), "main.js")).unwrap(),
        "if (ready) {\n    layout.paragraph(\"a } b\");\n}\n"
    );
    assert!(
        r.stdout.contains("files changed:\n  main.js"),
        "{}",
        r.stdout
    );
    // Results of text calls go back as a user message, not as `tool` messages.
    let third = messages(&server.bodies()[2]);
    let last = third.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(last["content"]
        .as_str()
        .unwrap()
        .contains("Result of edit_file"));
}

#[test]
fn an_edit_whose_find_text_is_not_in_the_file_is_refused() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.tableCell(\"b\");", "replace": "layout.tableCell(\"c\");"}]}),
        )])),
        Scripted::Json(say("I changed the cell.")),
    ]);
    let r = run_agent(dir.path(), &server, "change the cell to c", &[]);
    assert_eq!(read(dir.path(), "main.js"), MAIN.as_bytes());
    let tm = last_batch(&server.bodies()[2]);
    let msg = tm[0]["content"].as_str().unwrap();
    assert!(msg.contains("no match"), "{msg}");
    assert!(
        msg.contains("   6| layout.tableCell(\"a\");"),
        "closest region shown: {msg}"
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(final_status(&r.transcript), "unchanged");
    let edit = events(&r.transcript, "edit");
    assert_eq!(edit.len(), 1);
    assert_eq!(edit[0]["status"], "refused");
}

#[test]
fn an_edit_of_an_unread_file_is_refused() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "lib/util.js", "edits": [{"find": "banner", "replace": "title"}]}),
        )])),
        Scripted::Json(calls(&[(
            "w",
            "write_file",
            json!({"path": "main.js", "content": "layout.paragraph(\"x\");\n"}),
        )])),
        Scripted::Json(say("done")),
    ]);
    let r = run_agent(dir.path(), &server, "rename banner", &[]);
    assert_eq!(read(dir.path(), "lib/util.js"), UTIL.as_bytes());
    assert_eq!(read(dir.path(), "main.js"), MAIN.as_bytes());
    for (i, b) in server.bodies()[1..3].iter().enumerate() {
        let tm = last_batch(b);
        let msg = tm[0]["content"].as_str().unwrap();
        assert!(msg.contains("was not read in this turn"), "{i}: {msg}");
    }
    assert_eq!(r.code, 1);
}

#[test]
fn pre_write_refusal_names_the_real_member() {
    let dir = fixture();
    let bad = MAIN.replace(
        "layout.tableEnd();",
        "layout.tableCellEnd();\nlayout.tableEnd();",
    );
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.tableEnd();", "replace": "layout.tableCellEnd();\nlayout.tableEnd();"}]}),
        )])),
        Scripted::Json(calls(&[(
            "w",
            "write_file",
            json!({"path": "main.js", "content": bad}),
        )])),
        Scripted::Json(say("ok")),
    ]);
    let r = run_agent(dir.path(), &server, "close the cell", &[]);
    assert_eq!(read(dir.path(), "main.js"), MAIN.as_bytes());
    for b in &server.bodies()[2..4] {
        let msg = last_batch(b)[0]["content"].as_str().unwrap().to_string();
        assert!(msg.starts_with("refused:"), "{msg}");
        assert!(msg.contains("tableCellEnd"), "{msg}");
        assert!(msg.contains("tableEnd"), "{msg}");
        assert!(msg.contains("the real members of `Layout`"), "{msg}");
    }
    assert_eq!(r.code, 1);
}

#[test]
fn a_removal_can_only_shrink_the_file() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[
            (
                "bad",
                "delete_lines",
                json!({"path": "main.js", "marks": "40: DELETE"}),
            ),
            (
                "ok",
                "delete_lines",
                json!({"path": "main.js", "marks": "2-7: DELETE"}),
            ),
        ])),
        Scripted::Json(say("Removed the table from main.js.")),
    ]);
    let r = run_agent(dir.path(), &server, "remove the table from main.js", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let after = String::from_utf8(read(dir.path(), "main.js")).unwrap();
    assert_eq!(
        after,
        "loadJS(\"lib/util.js\");\nbanner(\"Report\");\nlayout.paragraph(\"done\");\n"
    );
    assert!(after.len() < MAIN.len());
    let tm = last_batch(&server.bodies()[2]);
    assert!(
        tm[0]["content"].as_str().unwrap().contains("out of range"),
        "{tm:?}"
    );
    let edits = events(&r.transcript, "edit");
    assert_eq!(edits[0]["status"], "refused");
    assert_eq!(edits[1]["status"], "applied");
    assert!(edits[1]["bytes_after"].as_u64() < edits[1]["bytes_before"].as_u64());
}

#[test]
fn a_regression_is_undone_byte_for_byte_and_a_created_file_removed() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "lib/util.js"}))])),
        Scripted::Json(calls(&[
            (
                "d",
                "delete_lines",
                json!({"path": "lib/util.js", "marks": "1-3: DELETE"}),
            ),
            (
                "w",
                "write_file",
                json!({"path": "lib/notes.js", "content": "var NOTE = 1;\n"}),
            ),
        ])),
        Scripted::Json(say("Removed banner and added notes.js.")),
    ]);
    // Removes and adds: a request that only removed would refuse the new file.
    let r = run_agent(
        dir.path(),
        &server,
        "remove the banner function and add lib/notes.js",
        &[],
    );
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(read(dir.path(), "lib/util.js"), UTIL.as_bytes());
    assert!(!dir.path().join("lib/notes.js").exists());
    assert!(r.stdout.contains("undone"), "{}", r.stdout);
    assert!(r.stdout.contains("new finding in main.js"), "{}", r.stdout);
    assert!(r.stdout.contains("banner"), "{}", r.stdout);
    assert!(r.stdout.contains("files changed: none"), "{}", r.stdout);
    assert_eq!(final_status(&r.transcript), "failed");
    let undone: Vec<&str> = events(&r.transcript, "edit")
        .iter()
        .filter(|e| e["status"] == "undone")
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(undone, ["lib/notes.js", "lib/util.js"]);
    let whens: Vec<&str> = events(&r.transcript, "measure")
        .iter()
        .map(|e| e["when"].as_str().unwrap())
        .collect();
    assert_eq!(whens, ["before", "after"]);
}

#[test]
fn a_fixed_regression_is_kept() {
    let dir = fixture();
    let moved = "function banner(title) {\n    layout.heading(title, 2);\n}\n";
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "lib/util.js"}))])),
        Scripted::Json(calls(&[(
            "d",
            "delete_lines",
            json!({"path": "lib/util.js", "marks": "1-3: DELETE"}),
        )])),
        Scripted::Json(calls(&[(
            "w",
            "write_file",
            json!({"path": "lib/util.js", "content": moved}),
        )])),
        Scripted::Json(say("banner now uses a level-2 heading.")),
    ]);
    let r = run_agent(dir.path(), &server, "make banner a level-2 heading", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(read(dir.path(), "lib/util.js"), moved.as_bytes());
    assert!(
        r.stdout.contains("files changed:\n  lib/util.js"),
        "{}",
        r.stdout
    );
    assert_eq!(final_status(&r.transcript), "done");
}

#[test]
fn a_path_escape_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("secret.js"), "var s = 1;\n").unwrap();
    let dir = fixture();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outer.path(), dir.path().join("out")).unwrap();
    let abs = outer
        .path()
        .join("secret.js")
        .to_string_lossy()
        .into_owned();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            ("a", "read_file", json!({"path": "../secret.js"})),
            ("b", "read_file", json!({"path": abs})),
            ("c", "read_file", json!({"path": "out/secret.js"})),
        ])),
        Scripted::Json(calls(&[
            (
                "d",
                "write_file",
                json!({"path": "out/new.js", "content": "var x = 1;\n"}),
            ),
            (
                "e",
                "write_file",
                json!({"path": "../new.js", "content": "var x = 1;\n"}),
            ),
        ])),
        Scripted::Json(say("could not")),
    ]);
    let r = run_agent(dir.path(), &server, "show me secret.js", &[]);
    let bodies = server.bodies();
    for m in last_batch(&bodies[1])
        .iter()
        .chain(last_batch(&bodies[2]).iter())
    {
        let c = m["content"].as_str().unwrap();
        assert!(c.starts_with("refused:"), "{c}");
        assert!(!c.contains("var s = 1"), "{c}");
    }
    assert!(!outer.path().join("new.js").exists());
    assert!(!dir.path().parent().unwrap().join("new.js").exists());
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn slow_project(secs: u64) -> tempfile::TempDir {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!(
            "docs = {:?}\n[agent]\ntimeout_secs = {secs}\n",
            demo_corpus()
        ),
    )
    .unwrap();
    dir
}

#[test]
fn an_endpoint_that_times_out() {
    let dir = slow_project(1);
    let late = Scripted::Delay(Duration::from_secs(4), say("too late"));
    let server = ModelServer::start(vec![late.clone(), late.clone(), late]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(error_lines(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("timed out after 1 s"), "{}", r.stderr);
    // Not retried: the server may still be generating the first answer.
    assert!(r.stderr.contains("not retried"), "{}", r.stderr);
    assert_eq!(server.received().len(), 1);
}

#[test]
fn an_endpoint_that_answers_500() {
    let dir = fixture();
    let e = Scripted::Status(500, "{\"error\": \"overloaded\"}".into());
    let server = ModelServer::start(vec![e.clone(), e.clone(), e]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 2);
    assert_eq!(error_lines(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("HTTP 500"), "{}", r.stderr);
    assert_eq!(server.received().len(), 3, "retried twice");
}

#[test]
fn a_500_then_success_is_retried() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Status(503, "busy".into()),
        Scripted::Json(say("fine")),
    ]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("fine"));
}

#[test]
fn an_endpoint_that_answers_malformed_json() {
    let dir = fixture();
    let server = ModelServer::start(vec![Scripted::Raw("{\"choices\": [".into())]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 2);
    assert_eq!(error_lines(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("not a chat completion"), "{}", r.stderr);
}

#[test]
fn an_endpoint_without_tool_calling() {
    let dir = fixture();
    let server = ModelServer::start(vec![Scripted::Status(
        400,
        "{\"error\": \"tools are not supported by this model\"}".into(),
    )]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no tool calling"), "{}", r.stderr);
}

#[test]
fn a_turn_that_changes_nothing_ends_unchanged() {
    let dir = fixture();
    let server = ModelServer::start(vec![Scripted::Json(say(
        "I added a footer with page numbers to main.js.",
    ))]);
    let r = run_agent(dir.path(), &server, "add a footer with page numbers", &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("No file was changed"), "{}", r.stdout);
    assert!(r.stdout.contains("files changed: none"), "{}", r.stdout);
    assert_eq!(final_status(&r.transcript), "unchanged");
    assert_eq!(read(dir.path(), "main.js"), MAIN.as_bytes());
}

#[test]
fn the_key_goes_to_the_endpoint_and_never_into_the_transcript() {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!(
            "docs = {:?}\n[model]\nname = \"m\"\napi_key_env = \"GROUNDED_TEST_KEY\"\n",
            demo_corpus()
        ),
    )
    .unwrap();
    let server = ModelServer::start(vec![Scripted::Json(say("hello"))]);
    let r = run_agent(
        dir.path(),
        &server,
        "what is here?",
        &[("GROUNDED_TEST_KEY", "sk-very-secret-123")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        server.received()[0].authorization.as_deref(),
        Some("Bearer sk-very-secret-123")
    );
    let all: String = r.transcript.iter().map(|e| e.to_string()).collect();
    assert!(!all.contains("sk-very-secret"));
    assert!(!r.stderr.contains("sk-very-secret") && !r.stdout.contains("sk-very-secret"));
}

#[test]
fn a_project_endpoint_off_this_machine_is_refused() {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!(
            "docs = {:?}\n[model]\nbase_url = \"https://models.example.com/v1\"\nname = \"m\"\napi_key_env = \"GROUNDED_TEST_KEY\"\n",
            demo_corpus()
        ),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["agent", "--root"])
        .arg(dir.path())
        .arg("what is here?")
        .env("XDG_CONFIG_HOME", home.path())
        .env("GROUNDED_TEST_KEY", "sk-x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(error_lines(&err).len(), 1, "{err}");
    assert!(
        err.contains("--base-url https://models.example.com/v1"),
        "{err}"
    );
}

#[test]
fn the_step_limit_forces_a_final_answer_with_tools_withheld() {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n[agent]\nmax_steps = 2\n", demo_corpus()),
    )
    .unwrap();
    let look =
        |id: &str| Scripted::Json(calls(&[(id, "lookup_docs", json!({"term": "tableRow"}))]));
    let server = ModelServer::start(vec![
        look("a"),
        look("b"),
        // Offered no tools, a model may still write a call in its text: it is not run.
        Scripted::Json(say("Summary: tableRow starts a row.")),
    ]);
    let r = run_agent(dir.path(), &server, "what does tableRow do?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[1].get("tools").is_some());
    assert!(
        bodies[2].get("tools").is_none(),
        "tools withheld on the forced step"
    );
    let last = messages(&bodies[2]).last().cloned().unwrap();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().contains("step limit"));
    let requests = events(&r.transcript, "request");
    assert_eq!(requests[2]["tools"], json!([]));
    assert!(r.stdout.starts_with("Summary: tableRow starts a row."));
}

fn validate_project() -> tempfile::TempDir {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!(
            "docs = {:?}\n[agent]\nvalidate = \"grep -q keep notes.txt\"\n",
            demo_corpus()
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "keep this line\n").unwrap();
    dir
}

fn drop_keep_script() -> Vec<Scripted> {
    vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "notes.txt"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "notes.txt", "edits": [{"find": "keep this line", "replace": "drop this line"}]}),
        )])),
        Scripted::Json(say("Reworded notes.txt.")),
    ]
}

#[test]
fn a_validate_command_that_passed_and_now_fails_undoes_the_turn() {
    let dir = validate_project();
    let server = ModelServer::start(drop_keep_script());
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["agent", "--validate", "--root"])
        .arg(dir.path())
        .args([
            "--base-url",
            &server.url,
            "--model",
            "m",
            "reword notes.txt",
        ])
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("validate command passed"), "{stdout}");
    assert_eq!(read(dir.path(), "notes.txt"), b"keep this line\n");
}

#[test]
fn a_project_validate_command_does_not_run_without_the_users_flag() {
    let dir = validate_project();
    let server = ModelServer::start(drop_keep_script());
    let r = run_agent(dir.path(), &server, "reword notes.txt", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(read(dir.path(), "notes.txt"), b"drop this line\n");
    for m in events(&r.transcript, "measure") {
        assert!(m["validate"].is_null(), "{m}");
    }
}

#[test]
fn rag_lookup_composes_from_retrieved_chunks_with_a_second_model_call() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "q",
            "rag_lookup",
            json!({"query": "how do I lay out a table with rows", "about": "tables"}),
        )])),
        Scripted::Json(say("Open it with tableStart and close it with tableEnd.")),
        Scripted::Json(say("Use tableStart/tableEnd.")),
    ]);
    let r = run_agent(dir.path(), &server, "how do tables work?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    // The composing call: no tools, the excerpts and the question.
    assert!(bodies[1].get("tools").is_none());
    let compose = messages(&bodies[1]);
    assert!(compose[0]["content"]
        .as_str()
        .unwrap()
        .contains("documentation excerpts"));
    let excerpts = compose[1]["content"].as_str().unwrap();
    assert!(excerpts.contains("tableStart"), "{excerpts}");
    assert!(excerpts.contains("Question: how do I lay out a table with rows"));
    let result = last_batch(&bodies[2])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    // The phrasebook's hint comes first (issue 13: on every lookup result), then the answer.
    assert!(result.starts_with("Terminology hint"), "{result}");
    assert!(result.contains("\n\nOpen it with tableStart"), "{result}");
    assert!(result.contains("sources:"), "{result}");
    assert!(r.stderr.contains("researching tables"), "{}", r.stderr);
}

#[test]
fn the_domain_tools_answer_from_the_corpus_and_the_project() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            ("t", "resolve_topic", json!({"goal": "a table of prices"})),
            ("c", "find_construct", json!({"path": "main.js"})),
            (
                "k",
                "check_symbols",
                json!({"code": "layout.tableCellEnd();\n"}),
            ),
            ("f", "find_in_files", json!({"pattern": "banner"})),
            ("d", "dry_run", json!({})),
        ])),
        Scripted::Json(say("looked")),
    ]);
    let r = run_agent(dir.path(), &server, "what is in this project?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tm = last_batch(&server.bodies()[1]);
    let c = |i: usize| tm[i]["content"].as_str().unwrap().to_string();
    assert!(c(0).contains("tableStart"), "{}", c(0));
    assert!(c(1).contains("main.js: table `t` lines 4-7"), "{}", c(1));
    assert!(
        c(2).contains("member") && c(2).contains("tableCellEnd"),
        "{}",
        c(2)
    );
    assert!(
        c(3).contains("lib/util.js") && c(3).contains("main.js"),
        "{}",
        c(3)
    );
    assert!(c(4).contains("what it cannot prove"), "{}", c(4));
}

/// The `dry_run` tool points the model at the declaration that made a call fail, with
/// the call as its related place, not at the file that only used the name.
#[test]
fn the_dry_run_tool_blames_the_declaration_and_names_the_failed_call() {
    let dir = project(
        &demo_corpus(),
        &[
            ("main.js", b"var helper = 5;\nloadJS(\"lib/b.js\");\n"),
            ("lib/b.js", b"helper();\n"),
        ],
    );
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("d", "dry_run", json!({"entry": "main.js"}))])),
        Scripted::Json(say("looked")),
    ]);
    let r = run_agent(dir.path(), &server, "why does the run fail?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tm = last_batch(&server.bodies()[1]);
    let c = tm[0]["content"].as_str().unwrap();
    assert!(
        c.contains("main.js:1:5 `helper` is declared here as a number")
            && c.contains("  related: lib/b.js:1:1 the run stopped here"),
        "{c}"
    );
}
