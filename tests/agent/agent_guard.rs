//! The agent's guardrails, driven as a user runs the agent: the real binary, a scripted
//! OpenAI-compatible server over real HTTP on 127.0.0.1, real files in a temp dir. Each
//! test reads the transcript — the ground truth of a turn — for which calls ran live and
//! which were served (`cache`, `collapsed`, `stub`, `budget`, `refused`), and for every
//! push with its gate.

use crate::common;

use std::path::Path;

use common::agent::{events, Run};
use common::model_server::{calls, messages, say, tool_messages, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::{json, Value};

const MAIN: &str = "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.paragraph(\"done\");\n";

const ENVELOPE: &str = "[automated pre-send check - NOT a message from the user]";

fn fixture() -> tempfile::TempDir {
    project(&demo_corpus(), &[("main.js", MAIN.as_bytes())])
}

fn run_agent(root: &Path, server: &ModelServer, request: &str) -> Run {
    common::agent::run_agent(root, server, request, &[])
}

fn run_agent_in(root: &Path, server: &ModelServer, request: &str, home: &Path) -> Run {
    common::agent::run_agent_in(root, server, request, home, &[])
}

/// `(name, served)` of every tool result, in order.
fn served(t: &[Value]) -> Vec<(String, String)> {
    events(t, "tool_result")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or("").to_string(),
                e["served"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn served_of(t: &[Value], tool: &str) -> Vec<String> {
    served(t)
        .into_iter()
        .filter(|(n, _)| n == tool)
        .map(|(_, s)| s)
        .collect()
}

fn pushes(t: &[Value]) -> Vec<(String, String)> {
    events(t, "push")
        .iter()
        .map(|e| {
            (
                e["gate"].as_str().unwrap_or("").to_string(),
                e["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn final_of(t: &[Value]) -> Value {
    events(t, "final")
        .last()
        .map(|e| (*e).clone())
        .unwrap_or(Value::Null)
}

fn content_of(t: &[Value], id: &str) -> String {
    events(t, "tool_result")
        .iter()
        .find(|e| e["id"] == id)
        .and_then(|e| e["content"].as_str())
        .unwrap_or("")
        .to_string()
}

/// The tools offered in each `request` event.
fn offered(t: &[Value]) -> Vec<usize> {
    events(t, "request")
        .iter()
        .map(|e| e["tools"].as_array().map_or(0, |a| a.len()))
        .collect()
}

fn compose(text: &str) -> Scripted {
    Scripted::Json(say(text))
}

#[test]
fn the_fifth_identical_call_is_not_run_and_the_turn_heads_for_its_answer() {
    let dir = fixture();
    let read = json!({"path": "main.js"});
    let mut script: Vec<Scripted> = (1..=5)
        .map(|i| Scripted::Json(calls(&[(&format!("r{i}"), "read_file", read.clone())])))
        .collect();
    script.push(Scripted::Json(say("main.js lays out one table.")));
    let server = ModelServer::start(script);
    let r = run_agent(dir.path(), &server, "what does main.js lay out?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        served_of(&r.transcript, "read_file"),
        ["live", "live", "live", "live", "stub"]
    );
    assert!(content_of(&r.transcript, "r5").contains("4 times"));
    // The step after the stub is sent without tools, and told why.
    let tools = offered(&r.transcript);
    assert_eq!(*tools.last().unwrap(), 0, "{tools:?}");
    assert!(tools[..tools.len() - 1].iter().all(|n| *n > 0));
    let last = server.bodies().last().cloned().unwrap();
    let steer = messages(&last).last().cloned().unwrap();
    assert_eq!(steer["role"], "user");
    assert!(steer["content"].as_str().unwrap().starts_with(ENVELOPE));
    assert_eq!(final_of(&r.transcript)["status"], "done");
}

#[test]
fn the_fifth_identical_call_of_one_batch_is_not_run_and_the_rest_collapse() {
    let dir = fixture();
    let a = json!({"term": "tableStart"});
    let batch: Vec<(String, &str, Value)> = (1..=5)
        .map(|i| (format!("l{i}"), "lookup_docs", a.clone()))
        .collect();
    let batch: Vec<(&str, &str, Value)> = batch
        .iter()
        .map(|(i, n, v)| (i.as_str(), *n, v.clone()))
        .collect();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&batch)),
        Scripted::Json(say("tableStart opens a table.")),
    ]);
    let r = run_agent(dir.path(), &server, "what is tableStart?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        served_of(&r.transcript, "lookup_docs"),
        ["live", "collapsed", "collapsed", "collapsed", "stub"]
    );
    // Collapsed calls carry the live call's answer; every call got its one result.
    assert_eq!(
        content_of(&r.transcript, "l2"),
        content_of(&r.transcript, "l1")
    );
    let tm = tool_messages(&server.bodies()[1]);
    let ids: Vec<&str> = tm
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["l1", "l2", "l3", "l4", "l5"]);
}

#[test]
fn a_reworded_lookup_is_served_from_the_turn_cache() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "q1",
            "rag_lookup",
            json!({"query": "how do I create a table"}),
        )])),
        compose("Open one with `layout.tableStart(t)` and close it with `layout.tableEnd()`."),
        Scripted::Json(calls(&[(
            "q2",
            "rag_lookup",
            json!({"query": "create tables how"}),
        )])),
        Scripted::Json(calls(&[(
            "q3",
            "rag_lookup",
            json!({"query": "create box"}),
        )])),
        compose("Open one with `layout.blockStart(b)` and close it with `layout.blockEnd()`."),
        Scripted::Json(say("Tables open with tableStart.")),
    ]);
    let r = run_agent(dir.path(), &server, "how are tables and boxes made?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // "create box" is a different question: it runs live.
    assert_eq!(
        served_of(&r.transcript, "rag_lookup"),
        ["live", "cache", "live"]
    );
    assert_eq!(
        content_of(&r.transcript, "q2"),
        content_of(&r.transcript, "q1")
    );
    assert!(content_of(&r.transcript, "q3").contains("blockStart"));
    // Two compose requests, not three.
    assert_eq!(server.bodies().len(), 6);
}

#[test]
fn the_thirteenth_live_lookup_gets_the_budget_message_and_lookup_docs_stays_free() {
    let dir = fixture();
    let topics = [
        "tables",
        "images",
        "fonts",
        "colours",
        "margins",
        "footers",
        "headers",
        "lists",
        "blocks",
        "styles",
        "pages",
        "paragraphs",
        "units",
    ];
    let mut batch: Vec<(String, &str, Value)> = topics
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                format!("q{}", i + 1),
                "rag_lookup",
                json!({"query": format!("using {t}")}),
            )
        })
        .collect();
    for (i, term) in [
        "tableStart",
        "tableEnd",
        "tableRow",
        "tableCell",
        "blockStart",
        "blockEnd",
        "listStart",
        "listEnd",
        "paragraph",
        "heading",
        "units",
        "columns",
        "caption",
        "Table",
    ]
    .iter()
    .enumerate()
    {
        batch.push((format!("d{}", i + 1), "lookup_docs", json!({"term": term})));
    }
    let batch: Vec<(&str, &str, Value)> = batch
        .iter()
        .map(|(i, n, v)| (i.as_str(), *n, v.clone()))
        .collect();
    let mut script = vec![Scripted::Json(calls(&batch))];
    for _ in 0..12 {
        script.push(compose("The documentation describes it."));
    }
    script.push(Scripted::Json(say("Summary written.")));
    let server = ModelServer::start(script);
    let r = run_agent(dir.path(), &server, "tell me about the layout features");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rag = served_of(&r.transcript, "rag_lookup");
    assert_eq!(rag.iter().filter(|s| *s == "live").count(), 12, "{rag:?}");
    assert_eq!(rag[12], "budget");
    let msg = content_of(&r.transcript, "q13");
    assert!(msg.contains("No further lookup will run"), "{msg}");
    assert!(msg.contains("any wording"), "{msg}");
    assert!(msg.contains("search budget ran out"), "{msg}");
    assert!(
        msg.contains("never that the documentation lacks it"),
        "{msg}"
    );
    // Fourteen fact checks in the same turn: all live.
    let docs = served_of(&r.transcript, "lookup_docs");
    assert_eq!(docs.len(), 14);
    assert!(docs.iter().all(|s| s == "live"), "{docs:?}");
    // 1 step + 12 composes + the final step: the 13th never reached the model.
    assert_eq!(server.bodies().len(), 14);
}

#[test]
fn parallel_duplicates_run_once() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            (
                "a",
                "rag_lookup",
                json!({"query": "how do I create a table"}),
            ),
            ("b", "rag_lookup", json!({"query": "create tables how"})),
            (
                "c",
                "rag_lookup",
                json!({"query": "How do I create a table?"}),
            ),
        ])),
        compose("Open one with `layout.tableStart(t)`."),
        Scripted::Json(say("Use tableStart.")),
    ]);
    let r = run_agent(dir.path(), &server, "how is a table opened?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        served_of(&r.transcript, "rag_lookup"),
        ["live", "collapsed", "collapsed"]
    );
    assert_eq!(
        content_of(&r.transcript, "b"),
        content_of(&r.transcript, "a")
    );
    // One compose request: the duplicates never ran.
    assert_eq!(server.bodies().len(), 3);
}

#[test]
fn a_write_of_provided_constructors_needs_no_lookup_and_another_waits_for_one() {
    let dir = fixture();
    let add_table = json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");", "replace": "var u = new Table();\nlayout.tableStart(u);\nlayout.tableRow();\nlayout.tableCell(\"b\");\nlayout.tableEnd();\nlayout.paragraph(\"done\");"}]});
    let styled = json!({"path": "main.js", "edits": [{"find": "t.columns = 2;", "replace": "t.columns = 2;\nvar ts = new TableStyle();"}]});
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[("w1", "edit_file", add_table)])),
        Scripted::Json(calls(&[("w2", "edit_file", styled.clone())])),
        Scripted::Json(calls(&[(
            "l",
            "lookup_docs",
            json!({"term": "TableStyle"}),
        )])),
        Scripted::Json(calls(&[("w3", "edit_file", styled)])),
        Scripted::Json(say("Added a second table and a table style to main.js.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "add a second table and a table style to main.js",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        served(&r.transcript)
            .into_iter()
            .map(|(_, s)| s)
            .collect::<Vec<_>>(),
        ["live", "live", "refused", "live", "live"]
    );
    let refusal = content_of(&r.transcript, "w2");
    assert!(refusal.contains("`TableStyle`"), "{refusal}");
    assert!(refusal.contains("lookup_docs"), "{refusal}");
    let text = std::fs::read_to_string(dir.path().join("main.js")).unwrap();
    assert!(text.contains("var u = new Table();"));
    assert!(text.contains("var ts = new TableStyle();"));
    assert_eq!(final_of(&r.transcript)["status"], "done");
}

#[test]
fn rag_lookup_that_invents_a_member_comes_back_annotated_and_is_not_cached() {
    let dir = fixture();
    let q = json!({"query": "how do I close a table cell"});
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("q1", "rag_lookup", q.clone())])),
        compose(
            "Close each cell with `layout.tableCellEnd()` and the table with `layout.tableEnd()`.",
        ),
        Scripted::Json(calls(&[("q2", "rag_lookup", q)])),
        compose("Close each cell with `layout.tableCellEnd()`."),
        Scripted::Json(say("Cells close implicitly; tableEnd closes the table.")),
    ]);
    let r = run_agent(dir.path(), &server, "how do I close a table cell?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let first = content_of(&r.transcript, "q1");
    assert!(first.contains("CORRECTIONS"), "{first}");
    assert!(first.contains("tableCellEnd"), "{first}");
    assert!(first.contains("Real members of Layout:"), "{first}");
    assert!(first.contains("tableEnd"), "{first}");
    // Flagged: the same question is not served from the cache.
    assert_eq!(served_of(&r.transcript, "rag_lookup"), ["live", "live"]);
}

#[test]
fn an_ab_alternation_is_detected_and_steered_to_the_answer() {
    let dir = fixture();
    let a = json!({"path": "main.js"});
    let b = json!({"term": "tableStart"});
    let mut script = Vec::new();
    for i in 0..6 {
        let (id, name, args) = if i % 2 == 0 {
            (format!("a{i}"), "read_file", a.clone())
        } else {
            (format!("b{i}"), "lookup_docs", b.clone())
        };
        script.push(Scripted::Json(calls(&[(&id, name, args)])));
    }
    script.push(Scripted::Json(say("main.js opens one table.")));
    let server = ModelServer::start(script);
    let r = run_agent(dir.path(), &server, "what does main.js open?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Nothing was stubbed: three of each is under the breaker.
    assert!(served(&r.transcript).iter().all(|(_, s)| s == "live"));
    let last = server.bodies().last().cloned().unwrap();
    let steer = messages(&last).last().cloned().unwrap();
    let text = steer["content"].as_str().unwrap();
    assert!(text.starts_with(ENVELOPE), "{text}");
    assert!(
        text.contains("alternated between read_file and lookup_docs"),
        "{text}"
    );
    assert_eq!(*offered(&r.transcript).last().unwrap(), 0);
}

#[test]
fn a_false_claim_is_pushed_then_escalated_and_a_verbatim_repeat_ends_the_turn() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say("Updated main.js to add a footer.")),
        Scripted::Json(say("I updated `main.js`: the footer is in place.")),
        Scripted::Json(say("I updated `main.js`: the footer is in place.")),
    ]);
    let r = run_agent(dir.path(), &server, "add a footer to main.js");
    let p = pushes(&r.transcript);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p.iter().all(|(g, _)| g == "claim"));
    let (first, second) = (&p[0].1, &p[1].1);
    assert!(first.starts_with(ENVELOPE), "{first}");
    assert!(first.contains("`main.js`"), "{first}");
    assert!(first.contains("Do not apologise"), "{first}");
    assert!(
        first.contains("Never satisfy this check by deleting"),
        "{first}"
    );
    assert!(second.starts_with(ENVELOPE));
    assert!(second.contains("Second correction"), "{second}");
    assert!(second.contains("Writes landed this turn: zero"), "{second}");
    // The push reached the model as a user-role message after the held draft.
    let bodies = server.bodies();
    let m = messages(&bodies[2]);
    assert_eq!(m[m.len() - 1]["role"], "user");
    assert_eq!(m[m.len() - 1]["content"].as_str().unwrap(), first);
    // The verbatim repeat ended the turn: four requests, no fifth.
    assert_eq!(bodies.len(), 4);
    let f = final_of(&r.transcript);
    assert_eq!(f["status"], "unchanged");
    assert_eq!(r.code, 1);
}

#[test]
fn the_shared_push_budget_and_the_reserve_are_respected() {
    let dir = fixture();
    let drafts = [
        "You may need to add the footer yourself.",
        "You will need to add the footer manually.",
        "Updated main.js.",
        "Updated main.js with the footer.",
        "Updated main.js: footer added at the end.",
        "Updated main.js: the footer is the last line.",
    ];
    let server = ModelServer::start(drafts.iter().map(|d| Scripted::Json(say(d))).collect());
    let r = run_agent(dir.path(), &server, "add a footer to main.js");
    let gates: Vec<String> = pushes(&r.transcript).into_iter().map(|(g, _)| g).collect();
    // 3 shared pushes, then 2 from the reserve for drafts that changed; the sixth ships.
    assert_eq!(gates, ["bail", "bail", "claim", "claim", "claim"]);
    assert_eq!(server.bodies().len(), 6);
    assert!(final_of(&r.transcript)["answer"]
        .as_str()
        .unwrap()
        .contains("the footer is the last line"));
}

#[test]
fn a_plan_in_the_future_tense_is_not_a_claim() {
    let dir = fixture();
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say(
            "main.js already opens a table.\nI will update template.js to load it once you confirm.",
        )),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "what would loading main.js from template.js take?",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        pushes(&r.transcript).is_empty(),
        "{:?}",
        pushes(&r.transcript)
    );
    assert_eq!(server.bodies().len(), 2);
}

#[test]
fn a_plan_of_three_items_with_one_left_undone_is_caught_by_the_checklist_gate() {
    let dir = fixture();
    let read = || Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))]));
    let add = |find: &str, line: &str| {
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": find, "replace": format!("{find}\n{line}")}]}),
        )]))
    };
    let server = ModelServer::start(vec![
        // The composer plans.
        Scripted::Json(calls(&[(
            "p",
            "plan",
            json!({"items": ["add a header line", "add a footer line", "add page numbers"]}),
        )])),
        // Worker 1.
        read(),
        add("layout.paragraph(\"done\");", "function header() {\n    layout.heading(\"Header\", 1);\n}"),
        Scripted::Json(say("Added a header function to main.js.")),
        // Worker 2.
        read(),
        add("layout.tableEnd();", "var FOOTER = \"Footer\";\nlayout.paragraph(FOOTER);"),
        Scripted::Json(say("Added a footer line to main.js.")),
        // Worker 3 does nothing.
        Scripted::Json(say("Page numbers are next.")),
        // The composer's drafts.
        Scripted::Json(say("Added a header, a footer and page numbers to main.js.")),
        Scripted::Json(say(
            "Added a header and a footer to main.js. add page numbers was not done: no item landed for it.",
        )),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "add a header line, a footer line and page numbers to main.js",
    );
    // The plan's report carries what the file defines, read from the file.
    let report = content_of(&r.transcript, "p");
    assert!(
        report.contains("Item 3: add page numbers — status unchanged"),
        "{report}"
    );
    assert!(report.contains("main.js (from the file itself): functions: header; globals: FOOTER, t; constructs opened: table"), "{report}");
    let p = pushes(&r.transcript);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].0, "checklist");
    assert!(p[0].1.contains("\"add page numbers\""), "{}", p[0].1);
    assert!(!p[0].1.contains("header line"), "{}", p[0].1);
    let f = final_of(&r.transcript);
    assert_eq!(f["status"], "done");
    assert_eq!(f["changed"], json!(["main.js"]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Each worker's events are marked with its plan item; the composer's are not.
    let finals = events(&r.transcript, "final");
    assert_eq!(finals.len(), 4, "{finals:?}");
    let items = ["add a header line", "add a footer line", "add page numbers"];
    for (i, item) in items.iter().enumerate() {
        assert_eq!(
            finals[i]["worker"],
            json!({"index": i + 1, "item": item}),
            "{:?}",
            finals[i]
        );
    }
    assert!(finals[3].get("worker").is_none(), "{:?}", finals[3]);
    let edits = events(&r.transcript, "edit");
    assert!(!edits.is_empty());
    assert!(
        edits.iter().all(|e| e["worker"]["index"].is_u64()),
        "{edits:?}"
    );
    let requests = events(&r.transcript, "request");
    assert!(requests[0].get("worker").is_none());
    assert_eq!(requests[1]["worker"]["item"], "add a header line");
    let plan = events(&r.transcript, "tool_result")
        .into_iter()
        .find(|e| e["id"] == "p")
        .unwrap();
    assert!(plan.get("worker").is_none());
}

#[test]
fn search_queries_is_forced_first_and_its_queries_come_back_as_guidance() {
    let dir = fixture();
    let request = "how are the prices shown in a table?";
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "s",
            "search_queries",
            json!({"queries": [
                {"query": "how are the prices shown in a table", "about": "echo"},
                {"query": "tableStart tableRow tableCell", "about": "the table calls"},
                {"query": "table row cell", "about": "core nouns"},
                {"query": "example table of prices", "about": "an example"}
            ]}),
        )])),
        Scripted::Json(say("Use tableStart, tableRow and tableCell.")),
    ]);
    let r = run_agent(dir.path(), &server, request);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let bodies = server.bodies();
    assert_eq!(
        bodies[0]["tool_choice"]["function"]["name"],
        "search_queries"
    );
    let guidance = tool_messages(&bodies[1])[0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        guidance.contains("1. [the table calls] tableStart tableRow tableCell"),
        "{guidance}"
    );
    assert!(
        guidance.contains("3. [an example] example table of prices"),
        "{guidance}"
    );
    assert!(!guidance.contains("[echo]"), "{guidance}");
    assert!(guidance.contains("stop as soon as"), "{guidance}");
    // The labels are the progress lines the user watched; later steps are not forced.
    assert!(r.stderr.contains("the table calls"), "{}", r.stderr);
    assert_ne!(
        bodies[1]["tool_choice"]["function"]["name"],
        "search_queries"
    );
    assert_eq!(served_of(&r.transcript, "search_queries"), ["live"]);
}

#[test]
fn findings_outstanding_on_a_written_file_are_pushed_by_the_verify_gate() {
    let bad = format!("{MAIN}layout.tableCellEnd();\n");
    let dir = project(&demo_corpus(), &[("main.js", bad.as_bytes())]);
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");", "replace": "layout.paragraph(\"finished\");"}]}),
        )])),
        Scripted::Json(say("Changed the closing paragraph of main.js.")),
        Scripted::Json(calls(&[("d", "delete_lines", json!({"path": "main.js", "marks": "8: DELETE"}))])),
        Scripted::Json(say("Changed the closing paragraph of main.js and removed the call to tableCellEnd, which the docs do not have.")),
    ]);
    let r = run_agent(
        dir.path(),
        &server,
        "change the closing paragraph of main.js to finished",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let p = pushes(&r.transcript);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].0, "verify");
    assert!(p[0].1.contains("main.js:8:"), "{}", p[0].1);
    assert!(p[0].1.contains("tableCellEnd"), "{}", p[0].1);
    assert!(p[0].1.contains("Do not re-run the lookup"), "{}", p[0].1);
    let text = std::fs::read_to_string(dir.path().join("main.js")).unwrap();
    assert!(
        !text.contains("tableCellEnd") && text.contains("finished"),
        "{text}"
    );
}

#[test]
fn the_persistent_lookup_cache_serves_a_later_turn_and_never_keeps_a_flagged_answer() {
    let dir = fixture();
    let home = tempfile::tempdir().unwrap();
    let good = "Open one with `layout.tableStart(t)` and close it with `layout.tableEnd()`.";
    let first = ModelServer::start(vec![
        // One lookup a step: two composing requests in flight together would take the
        // scripted replies in either order.
        Scripted::Json(calls(&[(
            "g",
            "rag_lookup",
            json!({"query": "how do I create a table"}),
        )])),
        compose(good),
        Scripted::Json(calls(&[(
            "b",
            "rag_lookup",
            json!({"query": "closing table cells"}),
        )])),
        compose("Close cells with `layout.tableCellEnd()`."),
        Scripted::Json(say("Tables open with tableStart.")),
    ]);
    let r1 = run_agent_in(dir.path(), &first, "how are tables opened?", home.path());
    assert_eq!(r1.code, 0, "{}\n{}", r1.stdout, r1.stderr);
    assert_eq!(first.bodies().len(), 5);
    assert!(content_of(&r1.transcript, "b").contains("CORRECTIONS"));
    let second = ModelServer::start(vec![
        Scripted::Json(calls(&[(
            "g2",
            "rag_lookup",
            json!({"query": "create tables how"}),
        )])),
        Scripted::Json(calls(&[(
            "b2",
            "rag_lookup",
            json!({"query": "closing table cells"}),
        )])),
        compose("Cells close implicitly."),
        Scripted::Json(say("Done.")),
    ]);
    let r2 = run_agent_in(dir.path(), &second, "how are tables opened?", home.path());
    assert_eq!(r2.code, 0, "{}\n{}", r2.stdout, r2.stderr);
    // The good answer came from disk (no compose request); the flagged one was composed
    // again.
    assert!(content_of(&r2.transcript, "g2").contains(good));
    assert!(content_of(&r2.transcript, "b2").contains("Cells close implicitly"));
    assert_eq!(second.bodies().len(), 4);
    let store = std::fs::read_to_string(home.path().join("grounded/lookups.jsonl")).unwrap();
    assert!(store.contains("tableStart"), "{store}");
    assert!(!store.contains("tableCellEnd"), "{store}");
}

#[test]
fn the_same_error_three_times_is_detected_and_steered_to_the_answer() {
    let dir = fixture();
    let missing = json!({"path": "lib/missing.js"});
    let mut script: Vec<Scripted> = (1..=3)
        .map(|i| Scripted::Json(calls(&[(&format!("m{i}"), "read_file", missing.clone())])))
        .collect();
    script.push(Scripted::Json(say("lib/missing.js does not exist.")));
    script.push(Scripted::Json(say("never sent")));
    let server = ModelServer::start(script);
    let r = run_agent(dir.path(), &server, "what is in lib/missing.js?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Three failures, each answered (refused), none stubbed: under the breaker.
    assert_eq!(
        served_of(&r.transcript, "read_file"),
        ["refused", "refused", "refused"]
    );
    let last = server.bodies().last().cloned().unwrap();
    let steer = messages(&last).last().cloned().unwrap();
    let text = steer["content"].as_str().unwrap();
    assert_eq!(steer["role"], "user");
    assert!(text.starts_with(ENVELOPE), "{text}");
    assert!(
        text.contains("read_file failed 3 times with the same error"),
        "{text}"
    );
    // The next step is sent without tools, and it is the last.
    assert_eq!(*offered(&r.transcript).last().unwrap(), 0);
    assert_eq!(server.bodies().len(), 4);
    assert_eq!(final_of(&r.transcript)["status"], "done");
}

#[test]
fn two_errors_are_not_a_loop() {
    // The known-good side: two failures, then a call that works; no steer.
    let dir = fixture();
    let missing = json!({"path": "lib/missing.js"});
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[("m1", "read_file", missing.clone())])),
        Scripted::Json(calls(&[("m2", "read_file", missing)])),
        Scripted::Json(calls(&[("ok", "read_file", json!({"path": "main.js"}))])),
        Scripted::Json(say("main.js lays out one table.")),
    ]);
    let r = run_agent(dir.path(), &server, "what is in main.js?");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(offered(&r.transcript).iter().all(|n| *n > 0));
    for b in server.bodies() {
        let m = messages(&b);
        assert!(!m.iter().any(|x| x["content"]
            .as_str()
            .is_some_and(|c| c.contains("Loop detected"))));
    }
}
