//! The agent as its user sees it (issue 27), driven as a user runs `grounded agent`: the
//! real binary, a scripted OpenAI-compatible server over real HTTP on 127.0.0.1, real
//! files in a temp dir, the transcript read back. The reserve keeps pushes for the last
//! draft; a claim about code is not a claim about a file.

use crate::common;

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

#[test]
fn a_stopped_turn_whose_only_change_is_a_stray_file_is_not_done_and_its_echo_is_replaced() {
    let dir = fixture();
    let read = json!({"path": "main.js"});
    let mut script = vec![Scripted::Json(calls(&[(
        "w",
        "write_file",
        json!({"path": "file_name.txt", "content": "a text file\n"}),
    )]))];
    script.extend(
        (1..=5).map(|i| Scripted::Json(calls(&[(&format!("r{i}"), "read_file", read.clone())]))),
    );
    // The forced answer echoes the guard's push back, marker and all.
    script.push(Scripted::Json(say(
        "[automated pre-send check - NOT a message from the user] Loop detected: read_file was called 4 times with the same arguments.",
    )));
    let server = ModelServer::start(script);
    let r = run_agent(
        dir.path(),
        &server,
        "add a note block at the end of main.js that says Thank you",
        &[],
    );
    let f = final_of(&r);
    assert_eq!(f["status"], "unchanged", "{f}");
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(f["changed"], json!(["file_name.txt"]));
    let reason = f["reason"].as_str().unwrap();
    assert!(reason.contains("a guard caught a loop"), "{reason}");
    assert!(
        reason.ends_with("; changed file_name.txt, not main.js"),
        "{reason}"
    );
    let answer = f["answer"].as_str().unwrap();
    assert!(!answer.contains("automated"), "{answer}");
    assert!(
        answer.starts_with("The model's final answer only repeated the agent's own instructions"),
        "{answer}"
    );
    assert!(answer.contains("The request named main.js"), "{answer}");
    // The stray file is kept, and said so; main.js is untouched.
    assert!(dir.path().join("file_name.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.js")).unwrap(),
        MAIN
    );
    assert!(r.stdout.contains("file_name.txt"), "{}", r.stdout);
}

#[test]
fn an_answer_that_repeats_the_agents_own_note_is_replaced_by_what_happened() {
    let dir = fixture();
    // A removal turn is told "This request only removes..."; the model says it back
    // nine times, without the marker.
    let note = "This request only removes. Remove whole lines with delete_lines; an edit_file or write_file that adds a line or grows a file is refused. ";
    let server = ModelServer::start(vec![Scripted::Json(say(&note.repeat(9)))]);
    let r = run_agent(dir.path(), &server, "remove the table from main.js", &[]);
    let f = final_of(&r);
    let answer = f["answer"].as_str().unwrap();
    assert!(!answer.contains("only removes"), "{answer}");
    assert!(
        answer.contains("What happened: asked to change files, none changed"),
        "{answer}"
    );
    assert_eq!(f["status"], "unchanged");
}

#[test]
fn a_stopped_turn_that_changed_the_named_file_is_done() {
    // The known-good side: the same loop, but the write went to the file asked for.
    let dir = fixture();
    let read = json!({"path": "main.js"});
    let mut script = vec![
        Scripted::Json(calls(&[("r0", "read_file", read.clone())])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.text(\"done\");",
                "replace": "layout.text(\"done\");\nlayout.text(\"Thank you\");"}]}),
        )])),
    ];
    script.extend(
        (1..=4).map(|i| Scripted::Json(calls(&[(&format!("r{i}"), "read_file", read.clone())]))),
    );
    script.push(Scripted::Json(say(
        "Added a Thank you line at the end of main.js.",
    )));
    let server = ModelServer::start(script);
    let r = run_agent(
        dir.path(),
        &server,
        "add a note at the end of main.js that says Thank you",
        &[],
    );
    let f = final_of(&r);
    assert_eq!(f["status"], "done", "{f}");
    assert_eq!(f["answer"], "Added a Thank you line at the end of main.js.");
}

fn project_with(agent: &str) -> tempfile::TempDir {
    let dir = fixture();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n[agent]\n{agent}\n", demo_corpus()),
    )
    .unwrap();
    dir
}

#[test]
fn a_timeout_is_not_retried_and_says_how_long_it_waited() {
    let dir = project_with("timeout_secs = 1");
    let late = Scripted::Delay(std::time::Duration::from_secs(3), say("too late"));
    let server = ModelServer::start(vec![late.clone(), late.clone(), late]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("timed out after 1 s"), "{}", r.stderr);
    assert!(r.stderr.contains("not retried"), "{}", r.stderr);
    assert!(!r.stderr.contains("retrying"), "{}", r.stderr);
    assert_eq!(server.received().len(), 1);
}

#[test]
fn a_retry_is_said_on_the_progress_line() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Status(503, "busy".into()),
        Scripted::Json(say("fine")),
    ]);
    let r = run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("retrying"))
        .unwrap_or_else(|| panic!("no retry line in {}", r.stderr));
    assert!(line.contains("HTTP 503"), "{line}");
    assert!(line.ends_with("retrying (2/3)"), "{line}");
}

#[test]
fn max_tokens_has_a_default_and_the_project_may_set_it() {
    let dir = fixture();
    let server = ModelServer::start(vec![Scripted::Json(say("fine"))]);
    run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(server.bodies()[0]["max_tokens"], 1024);
    let dir = project_with("max_tokens = 400");
    let server = ModelServer::start(vec![Scripted::Json(say("fine"))]);
    run_agent(dir.path(), &server, "what is here?", &[]);
    assert_eq!(server.bodies()[0]["max_tokens"], 400);
}

#[test]
fn progress_labels_are_words_never_code() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "s",
            "search_queries",
            json!({"queries": [
                {"query": "table cell width", "about": "./main.js"},
                {"query": "tableStart example", "about": "function search_query() {"},
                {"query": "1024", "about": "1024"},
                {"query": "page footer text", "about": "footers\nand more"}
            ]}),
        )])),
        Scripted::Json(say("Use tableStart.")),
    ]);
    let r = run_agent(dir.path(), &server, "how are tables laid out?", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for bad in ["./main.js", "function search_query", ": 1024", "and more"] {
        assert!(!r.stderr.contains(bad), "{bad}: {}", r.stderr);
    }
    // The query stands in for a label that was code; a label with none is said plainly.
    assert!(
        r.stderr.contains("grounded agent: table cell width\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("grounded agent: tableStart example\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("grounded agent: searching the docs\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("grounded agent: footers\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_html_escaped_path_from_the_model_is_decoded() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "r",
            "read_file",
            json!({"path": "&#34;main.js&#34;"}),
        )])),
        Scripted::Json(say("main.js lays out a table.")),
    ]);
    let r = run_agent(dir.path(), &server, "what does main.js lay out?", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let result = events(&r.transcript, "tool_result")[0].clone();
    assert_eq!(result["served"], "live", "{result}");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("layout.tableStart(t);"),
        "{result}"
    );
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn lookup_turn(
    root: &std::path::Path,
    home: &std::path::Path,
    query: &str,
    composed: Option<&str>,
    env: &[(&str, &str)],
) -> (Run, usize) {
    let mut script = vec![Scripted::Json(calls(&[(
        "g",
        "rag_lookup",
        json!({"query": query}),
    )]))];
    if let Some(c) = composed {
        script.push(Scripted::Json(say(c)));
    }
    script.push(Scripted::Json(say("Tables open with tableStart.")));
    let server = ModelServer::start(script);
    let r = common::agent::run_agent_in(root, &server, "how are tables opened?", home, env);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let n = server.bodies().len();
    (r, n)
}

fn served_g(r: &Run) -> (String, String) {
    let e = events(&r.transcript, "tool_result")
        .into_iter()
        .find(|e| e["id"] == "g")
        .cloned()
        .unwrap_or(Value::Null);
    (
        e["served"].as_str().unwrap_or("").to_string(),
        e["content"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn a_kept_answer_is_served_as_disk_and_a_changed_corpus_composes_afresh() {
    let docs = tempfile::tempdir().unwrap();
    copy_dir(std::path::Path::new(&demo_corpus()), docs.path());
    let dir = project(
        docs.path().to_str().unwrap(),
        &[("main.js", MAIN.as_bytes())],
    );
    let home = tempfile::tempdir().unwrap();
    let good = "Open one with `layout.tableStart(t)` and close it with `layout.tableEnd()`.";
    let (r1, n1) = lookup_turn(
        dir.path(),
        home.path(),
        "how do I create a table",
        Some(good),
        &[],
    );
    assert_eq!(n1, 3);
    assert_eq!(served_g(&r1).0, "live");
    assert!(home.path().join("grounded/lookups.jsonl").exists());
    // The next turn: no composing request, and the transcript says where it came from.
    let (r2, n2) = lookup_turn(dir.path(), home.path(), "create tables how", None, &[]);
    assert_eq!(n2, 2);
    let (served, content) = served_g(&r2);
    assert_eq!(served, "disk");
    assert!(content.contains(good), "{content}");
    // The docs change: the kept answer no longer holds for them.
    let layout = docs.path().join("layout.md");
    let mut text = std::fs::read_to_string(&layout).unwrap();
    text.push_str("\nTables may also be nested.\n");
    std::fs::write(&layout, text).unwrap();
    let fresh = "Open one with `layout.tableStart(t)`; tables may be nested.";
    let (r3, n3) = lookup_turn(
        dir.path(),
        home.path(),
        "create tables how",
        Some(fresh),
        &[],
    );
    assert_eq!(n3, 3);
    let (served, content) = served_g(&r3);
    assert_eq!(served, "live");
    assert!(content.contains("may be nested"), "{content}");
}

#[test]
fn the_lookup_cache_can_be_turned_off() {
    let dir = fixture();
    let home = tempfile::tempdir().unwrap();
    let off = [("GROUNDED_LOOKUP_CACHE", "off")];
    let good = "Open one with `layout.tableStart(t)`.";
    lookup_turn(
        dir.path(),
        home.path(),
        "how do I create a table",
        Some(good),
        &off,
    );
    assert!(!home.path().join("grounded/lookups.jsonl").exists());
    let (r, n) = lookup_turn(
        dir.path(),
        home.path(),
        "how do I create a table",
        Some(good),
        &off,
    );
    assert_eq!((served_g(&r).0.as_str(), n), ("live", 3));
}
