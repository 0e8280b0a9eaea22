//! A scripted agent turn on the demo project: watch the guardrails act without a model
//! of your own.
//!
//! ```sh
//! cargo run --example guardrails                 # the replies of examples/guardrails/replies.json
//! cargo run --example guardrails -- REPLIES.json # your own script
//! ```
//!
//! The example serves the model's replies from a file on 127.0.0.1 (an OpenAI-compatible
//! chat-completions endpoint that answers each request with the next reply), copies the
//! demo project to a temporary folder, runs one agent turn against it with the standard
//! guardrails, and prints what the transcript shows: which calls ran live and which were
//! served from the cache, collapsed, stubbed, refused or budgeted, every push with its
//! gate, every edit, and the final answer. Each reply is `{"say": "text"}` or
//! `{"calls": [{"name": "...", "arguments": {...}}]}`; a `rag_lookup` that runs live asks
//! the model to compose its answer, so its compose reply comes next in the file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use grounded::agent::{
    self, guardrails, plan, AgentConfig, Endpoint, FsWorkspace, HttpModel, Progress, Transcript,
    Turn, TurnRequest,
};
use grounded::docs::Corpus;
use serde_json::{json, Value};

const REQUEST: &str = "add a totals table to main.js before the export";

fn completion(reply: &Value, n: usize) -> Value {
    let message = if let Some(calls) = reply.get("calls").and_then(Value::as_array) {
        let tc: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({"id": format!("call{n}_{i}"), "type": "function", "function": {
                    "name": c["name"], "arguments": c["arguments"].to_string()}})
            })
            .collect();
        json!({"role": "assistant", "content": null, "tool_calls": tc})
    } else {
        json!({"role": "assistant", "content": reply.get("say").and_then(Value::as_str).unwrap_or("")})
    };
    json!({"id": "replay", "object": "chat.completion",
           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
}

fn answer(mut stream: TcpStream, body: String) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut len = 0usize;
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
        }
    }
    let mut req = vec![0; len];
    let _ = reader.read_exact(&mut req);
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

/// Serves `replies` in order on 127.0.0.1; returns the base URL.
fn serve(replies: Vec<Value>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    let next = Arc::new(Mutex::new(0usize));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let n = {
                let mut g = next.lock().unwrap_or_else(|e| e.into_inner());
                *g += 1;
                *g - 1
            };
            let reply = replies
                .get(n)
                .cloned()
                .unwrap_or_else(|| json!({"say": "(the scripted replies are used up)"}));
            let body = completion(&reply, n).to_string();
            std::thread::spawn(move || answer(stream, body));
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
        }
    }
    Ok(())
}

struct Say;

impl Progress for Say {
    fn say(&self, text: &str) {
        println!("  ... {text}");
    }
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let file = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("examples/guardrails/replies.json"));
    let replies: Vec<Value> = match std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            std::process::exit(2);
        }
    };
    let corpus = grounded::docs::Library::from(
        Corpus::load(&manifest.join("corpus/demo")).expect("the demo corpus loads"),
    );
    let work = std::env::temp_dir().join(format!("grounded-guardrails-{}", std::process::id()));
    let root = work.join("project");
    copy_dir(&manifest.join("examples/demo"), &root).expect("the demo project copies");
    let transcript_path = work.join("transcript.jsonl");
    let base_url = serve(replies);
    println!(
        "replies: {}\nproject: {}\nrequest: {REQUEST}\n",
        file.display(),
        root.display()
    );

    let config = AgentConfig::default();
    let model = HttpModel::new(
        Endpoint {
            base_url,
            model: "replay".into(),
            api_key: None,
        },
        &config,
    )
    .expect("an HTTP client");
    let transcript = Transcript::to_file(&transcript_path).expect("a transcript file");
    let library = grounded::docs::Library::from(
        Corpus::load(&manifest.join("corpus/demo")).expect("the demo corpus loads"),
    );
    let (guards, gates) = guardrails::standard(&config, &corpus);
    let turn = Turn {
        corpus: &library,
        root: root.clone(),
        exclude: Vec::new(),
        entry: Some("main.js".into()),
        workspace: &FsWorkspace,
        model: &model,
        config: &config,
        transcript: &transcript,
        progress: &Say,
        cancel: Arc::new(AtomicBool::new(false)),
        registry: plan::registry(),
        guards,
        gates,
    };
    let out = agent::run_turn(
        turn,
        &TurnRequest {
            text: REQUEST.into(),
            context: None,
            about: Vec::new(),
        },
    );

    println!("\nWhat the transcript shows:");
    let text = std::fs::read_to_string(&transcript_path).unwrap_or_default();
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
        match e["event"].as_str().unwrap_or("") {
            "tool_result" => {
                let content = s("content");
                // Lookups open with the phrasebook's hint: show what follows it.
                let shown = match content.split_once("\n\n") {
                    Some((hint, rest)) if hint.starts_with("Terminology hint") => rest,
                    _ => content.as_str(),
                };
                let audited = if content.contains(agent::wording::RAG_CORRECTIONS) {
                    "  <- annotated with CORRECTIONS, not cached"
                } else {
                    ""
                };
                println!(
                    "  {:<12} {:<12} {}{audited}",
                    s("name"),
                    format!("[{}]", s("served")),
                    first_line(shown)
                );
            }
            "push" => {
                let t = s("text");
                let body = t.lines().nth(1).unwrap_or("");
                println!("  PUSH ({}) {body}", s("gate"));
            }
            "edit" => println!(
                "  edit {} {}: {}",
                s("path"),
                s("status"),
                first_line(&s("reason"))
            ),
            "final" => println!("  final: {}", s("status")),
            _ => {}
        }
    }
    println!(
        "\nAnswer:\n{}\n\nfiles changed: {:?}",
        out.answer.trim(),
        out.changed
    );
    let _ = std::fs::remove_dir_all(&work);
}
