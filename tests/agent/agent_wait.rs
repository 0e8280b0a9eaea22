//! Long waits on the model (issue 20, item 3): a server that takes a minute to answer
//! shows progress while it thinks, on the command line and in the editor, and the
//! user's cancel (Ctrl-C, `grounded.cancelAgent`) ends the wait at once: the request in
//! flight is dropped (the scripted server sees its connection closed) and the turn ends
//! `cancelled`, not after the answer and not as an endpoint failure.
//!
//! The scripted server hangs for a minute; the tests cancel after a few seconds, so a
//! turn that only looked at its cancel between steps fails them by waiting it out.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::agent::events;
use common::model_server::{calls, say, ModelServer, Scripted};
use common::{demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

const MAIN: &str = "layout.paragraph(\"hello\");\n";

/// Longer than any test here may take: a test that waits for it has failed.
const HANG: Duration = Duration::from_secs(60);

/// `grounded agent` started (not waited for) with stdout and stderr piped.
fn spawn_agent(root: &Path, server: &ModelServer, transcript: &Path, home: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["agent", "--root"])
        .arg(root)
        .args([
            "--base-url",
            &server.url,
            "--model",
            "scripted",
            "--transcript",
        ])
        .arg(transcript)
        .arg("what does main.js show?")
        .env("XDG_CONFIG_HOME", home)
        .env("XDG_CACHE_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The stderr lines of `child`, as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for a line containing `needle`; returns every line seen up to it.
fn line_with(rx: &mpsc::Receiver<String>, needle: &str, within: Duration) -> Vec<String> {
    let end = Instant::now() + within;
    let mut seen = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(l) => {
                let hit = l.contains(needle);
                seen.push(l);
                if hit {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no stderr line with {needle:?} within {within:?}; saw {seen:#?}");
}

fn exit_within(child: &mut Child, within: Duration) -> i32 {
    let end = Instant::now() + within;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code().unwrap_or(-1);
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("the agent did not exit within {within:?} of the cancel");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read_transcript(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each transcript line is JSON"))
        .collect()
}

/// Polls until the server has seen `n` abandoned requests (the client's close reaches
/// it within its 50 ms read slices).
fn dropped_within(server: &ModelServer, n: usize, within: Duration) -> usize {
    let end = Instant::now() + within;
    while server.dropped() < n && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    server.dropped()
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_long_wait_drops_the_request_and_ends_the_turn_cancelled() {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let tdir = tempfile::tempdir().unwrap();
    let tpath = tdir.path().join("t.jsonl");
    let server = ModelServer::start(vec![Scripted::Hang(HANG, say("too late"))]);
    let t0 = Instant::now();
    let mut child = spawn_agent(dir.path(), &server, &tpath, home.path());
    let lines = stderr_lines(&mut child);
    // Progress while the server thinks: off a terminal, a line at 2 s.
    let seen = line_with(
        &lines,
        "waiting for the model (step 1): 2 s",
        Duration::from_secs(20),
    );
    assert_eq!(server.received().len(), 1, "one request in flight");
    assert_eq!(server.dropped(), 0);
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let code = exit_within(&mut child, Duration::from_secs(10));
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let rest: Vec<String> = lines.try_iter().collect();
    assert_eq!(
        code, 1,
        "a cancelled turn exits 1: {stdout}\n{seen:?}\n{rest:?}"
    );
    assert!(stdout.contains("Cancelled after step 1"), "{stdout}");
    assert!(stdout.contains("files changed: none"), "{stdout}");
    assert!(
        rest.iter().any(|l| l.contains("cancelling the turn")),
        "{rest:?}"
    );
    // The request was dropped, not waited out.
    assert_eq!(dropped_within(&server, 1, Duration::from_secs(5)), 1);
    let t = read_transcript(&tpath);
    let fin = events(&t, "final");
    assert_eq!(fin.len(), 1, "{t:#?}");
    assert_eq!(fin[0]["status"], "cancelled", "{t:#?}");
    assert!(events(&t, "response").is_empty(), "no answer came: {t:#?}");
}

/// Ctrl-C while a tool, not the turn, waits on the model: the turn's request is
/// answered at once (a tool call), then the tool's own request hangs. Before the tools
/// watched the turn's cancel, both waited the minute out.
#[cfg(unix)]
fn ctrl_c_while_a_tool_waits(first: Value, waiting: &str, requests: usize) {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let tdir = tempfile::tempdir().unwrap();
    let tpath = tdir.path().join("t.jsonl");
    let server = ModelServer::start(vec![
        Scripted::Json(first),
        Scripted::Hang(HANG, say("too late")),
        Scripted::Json(say("a request after the cancel")),
    ]);
    let t0 = Instant::now();
    let mut child = spawn_agent(dir.path(), &server, &tpath, home.path());
    let lines = stderr_lines(&mut child);
    let seen = line_with(&lines, waiting, Duration::from_secs(20));
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let code = exit_within(&mut child, Duration::from_secs(10));
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    assert_eq!(code, 1, "a cancelled turn exits 1: {seen:?}");
    // The tool's request was dropped, and no request followed it.
    assert_eq!(dropped_within(&server, 1, Duration::from_secs(5)), 1);
    assert_eq!(
        server.received().len(),
        requests,
        "no request after the cancel"
    );
    let t = read_transcript(&tpath);
    let fin: Vec<&Value> = events(&t, "final")
        .into_iter()
        .filter(|e| e.get("worker").is_none())
        .collect();
    assert_eq!(fin.len(), 1, "{t:#?}");
    assert_eq!(fin[0]["status"], "cancelled", "{t:#?}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_rag_lookup_composes_drops_its_request() {
    ctrl_c_while_a_tool_waits(
        calls(&[(
            "q",
            "rag_lookup",
            json!({"query": "how do I lay out a table with rows", "about": "tables"}),
        )]),
        "waiting for the model (composing the lookup): 2 s",
        2,
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_a_plan_worker_waits_ends_the_plan_and_the_turn() {
    // The first worker's first request hangs; the second worker never starts.
    ctrl_c_while_a_tool_waits(
        calls(&[(
            "p",
            "plan",
            json!({"items": ["add a header line", "add a footer line"]}),
        )]),
        "waiting for the model (step 1): 2 s",
        2,
    );
}

#[test]
fn a_slow_answer_waited_for_shows_progress_and_a_fast_one_none() {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let tdir = tempfile::tempdir().unwrap();
    let tpath = tdir.path().join("t.jsonl");
    let answer = "main.js shows one paragraph.";
    let slow = ModelServer::start(vec![Scripted::Hang(Duration::from_secs(3), say(answer))]);
    let mut child = spawn_agent(dir.path(), &slow, &tpath, home.path());
    let lines = stderr_lines(&mut child);
    let code = exit_within(&mut child, Duration::from_secs(30));
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let err: Vec<String> = lines.try_iter().collect();
    assert_eq!(code, 0, "{stdout}\n{err:#?}");
    assert!(stdout.starts_with(answer), "{stdout}");
    assert!(
        err.iter()
            .any(|l| l.contains("waiting for the model (step 1): 2 s")),
        "{err:#?}"
    );
    // Off a terminal the waiting lines are thinned: not one a second.
    let waits = err.iter().filter(|l| l.contains("waiting for")).count();
    assert_eq!(waits, 1, "{err:#?}");
    assert_eq!(slow.dropped(), 0, "waited for, not dropped");
    assert_eq!(final_status(&tpath), "done");

    let fast = ModelServer::start(vec![Scripted::Json(say(answer))]);
    let mut child = spawn_agent(dir.path(), &fast, &tpath, home.path());
    let lines = stderr_lines(&mut child);
    assert_eq!(exit_within(&mut child, Duration::from_secs(30)), 0);
    let err: Vec<String> = lines.try_iter().collect();
    assert!(!err.iter().any(|l| l.contains("waiting for")), "{err:#?}");
}

fn final_status(tpath: &Path) -> String {
    let t = read_transcript(tpath);
    events(&t, "final")
        .last()
        .map(|e| e["status"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

fn editor(server: &ModelServer) -> (Lsp, tempfile::TempDir, tempfile::TempDir) {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(
        &[],
        &[("XDG_CONFIG_HOME", &home_s), ("XDG_CACHE_HOME", &home_s)],
    );
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": false,
               "agent": {"baseUrl": server.url, "model": "scripted"}}),
    );
    lsp.open(&uri(&dir.path().join("main.js")), MAIN);
    (lsp, dir, home)
}

fn progress_message(m: &Value) -> Option<&str> {
    (m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report")
        .then(|| m["params"]["value"]["message"].as_str())
        .flatten()
}

#[test]
fn cancel_agent_during_a_long_wait_drops_the_request() {
    let server = ModelServer::start(vec![Scripted::Hang(HANG, say("too late"))]);
    let (mut lsp, _dir, _home) = editor(&server);
    let t0 = Instant::now();
    let r = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "what does main.js show?"}]}),
    );
    let turn = r["turn"].as_u64().expect("a turn id");
    // The editor's progress counts the wait while the server thinks.
    let p = lsp.wait_for("a waiting progress report", |m| {
        progress_message(m).is_some_and(|t| t.starts_with("waiting for the model (step 1): "))
    });
    assert!(progress_message(&p).unwrap().ends_with(" s"), "{p}");
    assert_eq!(server.dropped(), 0);
    let c = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.cancelAgent", "arguments": [{"turn": turn}]}),
    );
    assert_eq!(c["cancelled"], true, "{c}");
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        m["method"] == "grounded/agentFinished"
    });
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    assert_eq!(done["params"]["turn"], turn);
    assert_eq!(done["params"]["status"], "cancelled", "{done}");
    assert_eq!(done["params"]["changed"], json!([]));
    assert_eq!(dropped_within(&server, 1, Duration::from_secs(5)), 1);
    assert_eq!(server.received().len(), 1, "no request after the cancel");
    lsp.shutdown();
}

#[test]
fn an_editor_turn_waits_for_a_slow_answer_and_says_so() {
    let answer = "main.js shows one paragraph.";
    let server = ModelServer::start(vec![Scripted::Hang(Duration::from_secs(3), say(answer))]);
    let (mut lsp, _dir, _home) = editor(&server);
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent",
               "arguments": [{"request": "what does main.js show?"}]}),
    );
    // In the editor every second is reported: the message is a counter in place.
    for s in 1..=2 {
        let want = format!("waiting for the model (step 1): {s} s");
        lsp.wait_for(&want, |m| progress_message(m) == Some(want.as_str()));
    }
    let done = lsp.wait_for("grounded/agentFinished", |m| {
        m["method"] == "grounded/agentFinished"
    });
    assert_eq!(done["params"]["status"], "done", "{done}");
    assert!(
        done["params"]["answer"]
            .as_str()
            .unwrap()
            .starts_with(answer),
        "{done}"
    );
    assert_eq!(server.dropped(), 0);
    lsp.shutdown();
}
