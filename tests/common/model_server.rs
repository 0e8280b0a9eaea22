//! A scripted OpenAI-compatible chat-completions server on 127.0.0.1, over real HTTP:
//! it replays canned answers in order and records every request it received (body and
//! `Authorization` header), so a test asserts what the agent sent.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// One canned answer.
#[derive(Clone)]
pub enum Scripted {
    /// 200 with this JSON body.
    Json(Value),
    /// This status and body.
    Status(u16, String),
    /// 200 with this body as is (malformed JSON, HTML...).
    Raw(String),
    /// Waits this long, then answers 200 with the JSON (a slow or hung endpoint).
    Delay(Duration, Value),
    /// Like `Delay`, watching the connection meanwhile: a client that gives up and
    /// closes it is counted ([`ModelServer::dropped`]) and gets no answer.
    Hang(Duration, Value),
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The body, parsed (Null when it was not JSON).
    pub body: Value,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

/// The running server.
pub struct ModelServer {
    /// `http://127.0.0.1:PORT/v1`
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    dropped: Arc<Mutex<usize>>,
}

impl ModelServer {
    /// Starts a server that answers the `n`-th request with `script[n]`; past the end
    /// it answers "script exhausted" as a plain final answer.
    pub fn start(script: Vec<Scripted>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let rec = received.clone();
        let dropped = Arc::new(Mutex::new(0));
        let gone = dropped.clone();
        let script = Arc::new(script);
        std::thread::spawn(move || {
            let mut n = 0usize;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let answer = script
                    .get(n)
                    .cloned()
                    .unwrap_or_else(|| Scripted::Json(say("script exhausted")));
                n += 1;
                let rec = rec.clone();
                let gone = gone.clone();
                std::thread::spawn(move || serve(stream, answer, rec, gone));
            }
        });
        ModelServer {
            url: format!("http://127.0.0.1:{port}/v1"),
            received,
            dropped,
        }
    }

    /// How many requests the client abandoned while a `Hang` answer was pending (it
    /// closed the connection).
    pub fn dropped(&self) -> usize {
        *self.dropped.lock().unwrap()
    }

    /// Every request received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The bodies of every request received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.received().into_iter().map(|r| r.body).collect()
    }
}

fn serve(
    mut stream: TcpStream,
    answer: Scripted,
    rec: Arc<Mutex<Vec<Received>>>,
    dropped: Arc<Mutex<usize>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut len = 0usize;
    let mut auth = None;
    let mut first = true;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        if first {
            first = false;
            continue;
        }
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
            if k.eq_ignore_ascii_case("authorization") {
                auth = Some(v.trim().to_string());
            }
        }
    }
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    rec.lock().unwrap().push(Received {
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        authorization: auth,
    });
    let (code, text) = match answer {
        Scripted::Json(v) => (200, v.to_string()),
        Scripted::Status(c, t) => (c, t),
        Scripted::Raw(t) => (200, t),
        Scripted::Delay(d, v) => {
            std::thread::sleep(d);
            (200, v.to_string())
        }
        Scripted::Hang(d, v) => {
            if closed_within(&mut stream, d) {
                *dropped.lock().unwrap() += 1;
                return;
            }
            (200, v.to_string())
        }
    };
    let head = format!(
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        text.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}

/// Whether the client closes `stream` within `d` (a read that ends: nothing more is
/// sent on a request whose body has been read).
fn closed_within(stream: &mut TcpStream, d: Duration) -> bool {
    let end = std::time::Instant::now() + d;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let mut byte = [0u8; 1];
    while std::time::Instant::now() < end {
        match stream.read(&mut byte) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

/// A completion whose message calls tools: `(id, name, arguments)`.
pub fn calls(list: &[(&str, &str, Value)]) -> Value {
    let tc: Vec<Value> = list
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    json!({"id": "cmpl", "object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "tool_calls": tc},
        "finish_reason": "tool_calls"}]})
}

/// A completion whose message is plain text.
pub fn say(text: &str) -> Value {
    json!({"id": "cmpl", "object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
}

/// The messages of a request body.
pub fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// The `tool` messages of a request body, in order.
pub fn tool_messages(body: &Value) -> Vec<Value> {
    messages(body)
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .collect()
}
