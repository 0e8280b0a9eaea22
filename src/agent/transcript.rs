//! The turn's transcript: JSON Lines, one event a line, flushed as it is written
//! (interfaces.md, `agent --transcript FILE`).
//!
//! Why flushed per line: the transcript is the ground truth for debugging a turn, and
//! the turns worth debugging are the ones that hang or get killed; a buffered writer
//! would lose exactly their last events. The key is never in it: nothing that carries
//! the endpoint's headers is ever written here.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Map, Value};

/// A transcript sink; without a file it records nothing (and costs nothing).
pub struct Transcript {
    file: Option<Mutex<File>>,
    start: Instant,
    /// Every event, kept in memory too when asked (tests, the editor).
    kept: Option<Mutex<Vec<Value>>>,
}

impl Transcript {
    /// Appends to `path` (created if missing).
    pub fn to_file(path: &Path) -> Result<Transcript, String> {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("transcript {}: {e}", path.display()))?;
        Ok(Transcript {
            file: Some(Mutex::new(f)),
            start: Instant::now(),
            kept: None,
        })
    }

    /// Records nothing.
    pub fn none() -> Transcript {
        Transcript {
            file: None,
            start: Instant::now(),
            kept: None,
        }
    }

    /// Keeps every event in memory as well (see [`Transcript::events`]).
    pub fn keeping(mut self) -> Transcript {
        self.kept = Some(Mutex::new(Vec::new()));
        self
    }

    /// The events kept in memory (empty unless [`Transcript::keeping`]).
    pub fn events(&self) -> Vec<Value> {
        self.kept
            .as_ref()
            .map(|k| k.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .unwrap_or_default()
    }

    /// Milliseconds since the turn began.
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Writes one event: `{"event": name, "t": ms, ...fields}`. A failing disk never
    /// stops a turn: the event is dropped, the turn goes on.
    pub fn event(&self, name: &str, fields: Value) {
        if self.file.is_none() && self.kept.is_none() {
            return;
        }
        let mut obj = Map::new();
        obj.insert("event".into(), Value::String(name.into()));
        obj.insert("t".into(), Value::from(self.elapsed_ms()));
        if let Value::Object(m) = fields {
            for (k, v) in m {
                obj.insert(k, v);
            }
        }
        let v = Value::Object(obj);
        if let Some(f) = &self.file {
            let mut line = v.to_string();
            line.push('\n');
            let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
            let _ = f.write_all(line.as_bytes());
            let _ = f.flush();
        }
        if let Some(k) = &self.kept {
            k.lock().unwrap_or_else(|e| e.into_inner()).push(v);
        }
    }
}
