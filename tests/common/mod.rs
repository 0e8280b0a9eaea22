//! A language client for tests: starts the real `grounded serve` and speaks the
//! protocol over its stdio with Content-Length framing, as an editor does.
//!
//! It answers the server's own requests (configuration, registration) like an editor:
//! `workspace/configuration` with [`Lsp::set_config`]'s value.

#![allow(dead_code)]

pub mod adversarial;
pub mod agent;
pub mod atlas;
pub mod mcp;
pub mod model_server;
pub mod nvim;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Generous: a slow CI machine must not fail a correct server.
pub const WAIT: Duration = Duration::from_secs(20);

/// The binary under test: the build's, or `GROUNDED_TEST_BIN` (a long run of a test
/// against a copy of the binary while the build goes on).
pub fn bin() -> String {
    std::env::var("GROUNDED_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_grounded").into())
}

/// The bundled demo corpus, by absolute path.
pub fn demo_corpus() -> String {
    format!("{}/corpus/demo", env!("CARGO_MANIFEST_DIR"))
}

/// `file://` URI of a path.
pub fn uri(path: &Path) -> String {
    let p = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut s = String::from("file://");
    for b in p.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s
}

/// Writes one framed message.
pub fn send_raw(w: &mut impl Write, body: &[u8]) {
    write!(w, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
    w.write_all(body).unwrap();
    w.flush().unwrap();
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut buf = vec![0; len?];
    r.read_exact(&mut buf).ok()?;
    serde_json::from_slice(&buf).ok()
}

/// A running server and the messages it sent.
pub struct Lsp {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: mpsc::Receiver<Value>,
    /// Messages received but not yet consumed.
    pub inbox: VecDeque<Value>,
    next_id: i64,
    config: Arc<Mutex<Value>>,
    /// Every `publishDiagnostics` seen, in order.
    pub published: Vec<Value>,
    /// The server's process id (memory figures).
    pub pid: u32,
    /// What the client answers to `workspace/applyEdit`; `None`: it never answers.
    apply_edit: Arc<Mutex<Option<Value>>>,
    /// The server's log (its stderr), line by line.
    log: Arc<Mutex<Vec<String>>>,
}

impl Lsp {
    /// Starts `grounded serve` with extra args and env.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Lsp {
        Lsp::start_with(args, env, true)
    }

    /// Like [`Lsp::start`]; with `answer` false the client never answers the server's
    /// requests (a hung editor).
    pub fn start_with(args: &[&str], env: &[(&str, &str)], answer: bool) -> Lsp {
        Lsp::start_ignoring(args, env, if answer { &[] } else { &["*"] })
    }

    /// Like [`Lsp::start`]; the client never answers the server's requests of the
    /// methods in `ignore` (`"*"`: none at all), as a hung or partial editor.
    pub fn start_ignoring(args: &[&str], env: &[(&str, &str)], ignore: &[&str]) -> Lsp {
        let ignore: Vec<String> = ignore.iter().map(|s| s.to_string()).collect();
        let mut cmd = Command::new(bin());
        cmd.arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start grounded serve");
        let pid = child.id();
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        // Keep stderr drained (logs), kept for [`Lsp::log`] and echoed when asked.
        let log = Arc::new(Mutex::new(Vec::new()));
        {
            let log = log.clone();
            std::thread::spawn(move || {
                let echo = std::env::var_os("GROUNDED_TEST_LOG").is_some();
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if echo {
                        eprintln!("[server] {line}");
                    }
                    log.lock().unwrap().push(line);
                }
            });
        }
        let config = Arc::new(Mutex::new(json!({})));
        let apply_edit = Arc::new(Mutex::new(Some(json!({"applied": true}))));
        let (tx, rx) = mpsc::channel();
        {
            let stdin = stdin.clone();
            let config = config.clone();
            let apply_edit = apply_edit.clone();
            std::thread::spawn(move || {
                let mut r = BufReader::new(stdout);
                while let Some(msg) = read_message(&mut r) {
                    // Answer the server's requests as an editor would.
                    let answer = |m: &Value| {
                        let m = m.as_str().unwrap_or("");
                        !ignore.iter().any(|i| i == "*" || i == m)
                    };
                    if let (Some(id), Some(method)) = (msg.get("id"), msg.get("method")) {
                        if !answer(method) {
                            if tx.send(msg).is_err() {
                                break;
                            }
                            continue;
                        }
                        let result = match method.as_str().unwrap_or("") {
                            "workspace/configuration" => {
                                let n = msg["params"]["items"].as_array().map_or(1, |a| a.len());
                                let c = config.lock().unwrap().clone();
                                Some(Value::Array(vec![c; n]))
                            }
                            "workspace/applyEdit" => apply_edit.lock().unwrap().clone(),
                            _ => Some(Value::Null),
                        };
                        if let Some(result) = result {
                            let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
                            let mut w = stdin.lock().unwrap();
                            send_raw(&mut *w, body.to_string().as_bytes());
                        }
                    }
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            });
        }
        Lsp {
            child,
            stdin,
            rx,
            inbox: VecDeque::new(),
            next_id: 1,
            config,
            published: Vec::new(),
            pid,
            apply_edit,
            log,
        }
    }

    /// The lines the server has logged so far (its stderr; `GROUNDED_LOG` sets what).
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// What the client answers to `workspace/applyEdit` from now on (`None`: nothing,
    /// ever: a hung editor).
    pub fn set_apply_edit(&self, v: Option<Value>) {
        *self.apply_edit.lock().unwrap() = v;
    }

    /// What the client answers to `workspace/configuration` from now on.
    pub fn set_config(&self, v: Value) {
        *self.config.lock().unwrap() = v;
    }

    /// Sends raw bytes (malformed-input tests).
    pub fn send_bytes(&self, body: &[u8]) {
        let mut w = self.stdin.lock().unwrap();
        send_raw(&mut *w, body);
    }

    /// Writes bytes as they are, no framing (broken-header tests).
    pub fn send_unframed(&self, bytes: &[u8]) {
        let mut w = self.stdin.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_bytes(body.to_string().as_bytes());
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_bytes(body.to_string().as_bytes());
        id
    }

    fn recv(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = self.rx.recv_timeout(left).ok()?;
        if msg["method"] == "textDocument/publishDiagnostics" {
            self.published.push(msg.clone());
        }
        Some(msg)
    }

    /// Waits for the first message (new or in the inbox) matching `pred`, and takes it.
    pub fn wait_for(&mut self, what: &str, mut pred: impl FnMut(&Value) -> bool) -> Value {
        if let Some(i) = self.inbox.iter().position(&mut pred) {
            return self.inbox.remove(i).unwrap();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.recv(deadline) {
                Some(m) if pred(&m) => return m,
                Some(m) => self.inbox.push_back(m),
                None => panic!(
                    "timed out waiting for {what}; received meanwhile: {:#?}",
                    self.inbox
                ),
            }
        }
    }

    /// Sends a request and waits for its response; returns the whole response.
    pub fn request_full(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.wait_for(&format!("the response to {method}"), |m| {
            m["id"] == json!(id) && m.get("method").is_none()
        })
    }

    /// Sends a request and returns its `result` (panics on an error answer).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.request_full(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// `initialize` + `initialized` with a workspace folder.
    pub fn initialize(&mut self, root: &Path, options: Value) -> Value {
        let root_uri = uri(root);
        let r = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
                "initializationOptions": options,
                "capabilities": {
                    "window": {"workDoneProgress": true},
                    "workspace": {
                        "configuration": true,
                        "didChangeWatchedFiles": {"dynamicRegistration": true},
                        "didChangeConfiguration": {"dynamicRegistration": false}
                    },
                    "textDocument": {
                        "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
                        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}
                    }
                }
            }),
        );
        self.notify("initialized", json!({}));
        r
    }

    /// Opens a document.
    pub fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": text}}),
        );
    }

    /// One incremental change: replace `[(l1,c1),(l2,c2))` with `text`.
    pub fn change(&self, uri: &str, version: i32, range: [u32; 4], text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": range[0], "character": range[1]},
                              "end": {"line": range[2], "character": range[3]}},
                    "text": text
                }]
            }),
        );
    }

    /// Waits for diagnostics of `uri` (at `version`, if given) satisfying `pred`.
    pub fn diagnostics_where(
        &mut self,
        uri: &str,
        version: Option<i32>,
        mut pred: impl FnMut(&[Value]) -> bool,
    ) -> Vec<Value> {
        let m = self.wait_for(&format!("diagnostics of {uri} at {version:?}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
                && pred(m["params"]["diagnostics"].as_array().unwrap())
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// Shuts down politely and waits for the exit.
    pub fn shutdown(mut self) {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("server did not exit after `exit`");
    }

    /// Like [`Lsp::wait_for`], but `None` instead of a panic when nothing matches in
    /// [`WAIT`].
    pub fn try_wait_for(&mut self, mut pred: impl FnMut(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.inbox.iter().position(&mut pred) {
            return self.inbox.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.recv(deadline) {
                Some(m) if pred(&m) => return Some(m),
                Some(m) => self.inbox.push_back(m),
                None => return None,
            }
        }
    }

    /// Takes every message that arrives until none has come for `quiet` (or `max` has
    /// passed): the server has gone quiet. Publishes land in [`Lsp::published`], the rest
    /// in the inbox.
    pub fn drain_quiet(&mut self, quiet: Duration, max: Duration) {
        let end = Instant::now() + max;
        while Instant::now() < end {
            let deadline = (Instant::now() + quiet).min(end);
            match self.recv(deadline) {
                Some(m) => self.inbox.push_back(m),
                None => return,
            }
        }
    }

    /// Waits (up to [`WAIT`]) for the process to exit; its status code, `None` if it
    /// did not exit (or died by a signal).
    pub fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Applies LSP `TextEdit`s (UTF-16 positions) to a text, as an editor does.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let line = pos["line"].as_u64().unwrap() as usize;
        let ch = pos["character"].as_u64().unwrap() as usize;
        let mut start = 0;
        for _ in 0..line {
            match text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => return text.len(),
            }
        }
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= ch || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

/// The 0-based line and UTF-16 column of the first occurrence of `needle`.
pub fn pos_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let line = text[..at].matches('\n').count();
    let ls = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line as u32, text[ls..at].encode_utf16().count() as u32)
}

/// `textDocument/*` params at `needle`'s first occurrence in `text`, `delta` UTF-16
/// units further on.
pub fn at(uri: &str, text: &str, needle: &str, delta: u32) -> Value {
    let (l, c) = pos_of(text, needle);
    json!({"textDocument": {"uri": uri}, "position": {"line": l, "character": c + delta}})
}

/// The labels of a completion answer (a list, or a `CompletionList`'s items).
pub fn labels(v: &Value) -> Vec<String> {
    let items = v
        .as_array()
        .or_else(|| v["items"].as_array())
        .cloned()
        .unwrap_or_default();
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that hover at line 2, column 11 of `uri` (a `tableStart` call in the
/// tests' scripts) still answers with the docs: the server serves after whatever came
/// before.
pub fn hover_works(lsp: &mut Lsp, uri: &str) {
    let h = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 10}}),
    );
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("tableStart"),
        "{h}"
    );
}

/// The `name` of every item of an answer that is an array (symbols), in order.
pub fn names_of(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

/// The `path` of every finding of a `--format json` array, in order.
pub fn paths_of(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect()
}

/// The folder above `dir` and `dir`'s own name there: a command run from the parent
/// names the project by it.
pub fn parent_and_name(dir: &Path) -> (&Path, String) {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    (dir.parent().unwrap(), name)
}

/// The families with one planted mistake each under `examples/demo/mistakes/` (the
/// file `NAME.js`); `dynamic.js` is the dry run's and is not listed.
pub const PLANTED: &[&str] = &[
    "member",
    "object",
    "function",
    "syntax",
    "option",
    "constructor",
    "engine",
    "file",
    "construct",
];

/// A project folder: `grounded.toml` with `docs` and optional `entry`, plus files.
pub fn project(docs: &str, files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {docs:?}\n"),
    )
    .unwrap();
    for (name, body) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    dir
}

/// `grounded ARGS` run in `dir` without colour, as a terminal user runs it: the check
/// tests of fixes, baselines and a team's second week each held a copy of this.
pub fn grounded_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs")
}

/// A finished command's stderr as text.
pub fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `grounded ARGS` run in `dir` as [`grounded_in`] does, with the corpus cache off
/// (`GROUNDED_CACHE_DIR` empty): each test loads the corpus it just wrote, and leaves
/// no cache behind. The import and guide tests of the corpus each held a copy of this.
pub fn grounded(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("GROUNDED_CACHE_DIR", "")
        .output()
        .expect("runs")
}

/// A temp folder holding `files` (a path inside it, and its text), their folders made.
pub fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (p, t) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    dir
}

/// Title → text of each chunk of the corpus in folder `out` (its `corpus.jsonl`, as
/// `grounded import dts` writes it).
pub fn chunks(out: &Path) -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(out.join("corpus.jsonl")).expect("corpus.jsonl written");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["title"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The first line of chunk `key` of `c` ([`chunks`]); a panic naming the chunks there
/// are when it is missing.
pub fn first_line(c: &std::collections::BTreeMap<String, String>, key: &str) -> String {
    let t = c.get(key).unwrap_or_else(|| {
        panic!(
            "no chunk `{key}`; chunks: {:?}",
            c.keys().collect::<Vec<_>>()
        )
    });
    t.lines().next().unwrap_or("").to_string()
}

/// `(line, column, code)` of each finding of `grounded check --format json`: the check
/// tests of the byte-order mark and of modern typings each held a copy of this.
pub fn lines_and_codes(findings: &[Value]) -> Vec<(u64, u64, String)> {
    findings
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `path:line:column code message` of each finding of `grounded check --format json`,
/// one string a finding: the module tests compare whole findings so (two copies before).
pub fn shown_findings(findings: &[Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {} {}",
                f["path"].as_str().unwrap_or(""),
                f["line"],
                f["column"],
                f["code"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}
