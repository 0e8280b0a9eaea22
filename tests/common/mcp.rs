//! A raw MCP client for tests: starts the real `grounded mcp` and writes JSON-RPC lines
//! to its stdin, byte for byte as given (so a test can send what no SDK would: broken
//! JSON, unknown methods, wrong shapes), and reads its stdout line by line, every line
//! of which must be JSON-RPC.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A running `grounded mcp`.
pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Mcp {
    /// Starts `grounded mcp ARGS` in `dir`.
    pub fn start(dir: &Path, args: &[&str]) -> Mcp {
        let mut child = Command::new(super::bin())
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("grounded mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Mcp {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            next_id: 1,
        }
    }

    /// Writes bytes as they are.
    pub fn send_bytes(&mut self, b: &[u8]) {
        if let Some(w) = self.stdin.as_mut() {
            let _ = w.write_all(b);
            let _ = w.flush();
        }
    }

    /// Sends a request; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_bytes(format!("{msg}\n").as_bytes());
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_bytes(format!("{msg}\n").as_bytes());
    }

    /// The next line of stdout, parsed; panics on a line that is not JSON (stdout is
    /// the protocol's alone). `None` after `wait` or at the end of the output.
    pub fn next(&mut self, wait: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(wait).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}")),
        )
    }

    /// The response to `id` (other messages skipped), or `None` within `wait`.
    pub fn response(&mut self, id: u64, wait: Duration) -> Option<Value> {
        let until = Instant::now() + wait;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let m = self.next(left)?;
            if m["id"] == json!(id) {
                return Some(m);
            }
        }
        None
    }

    /// `initialize` and `notifications/initialized`; the initialize result.
    pub fn initialize(&mut self) -> Value {
        let id = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "grounded-tests", "version": "1"}}),
        );
        let r = self.response(id, super::WAIT).expect("initialize answered");
        self.notify("notifications/initialized", json!({}));
        r
    }

    /// Calls a tool; the whole response.
    pub fn call(&mut self, name: &str, args: Value) -> Value {
        let id = self.request("tools/call", json!({"name": name, "arguments": args}));
        self.response(id, super::WAIT)
            .unwrap_or_else(|| panic!("no answer to {name}"))
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Closes stdin and waits for the exit status.
    pub fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let until = Instant::now() + super::WAIT;
        while Instant::now() < until {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        None
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
