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
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value};

/// A transcript sink; without a file it records nothing (and costs nothing).
pub struct Transcript {
    file: Option<Arc<Mutex<File>>>,
    start: Instant,
    /// Every event, kept in memory too when asked (tests, the editor).
    kept: Option<Arc<Mutex<Vec<Value>>>>,
    /// `{"index", "item"}` of the plan item whose worker writes through this view.
    worker: Option<Value>,
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
            file: Some(Arc::new(Mutex::new(f))),
            start: Instant::now(),
            kept: None,
            worker: None,
        })
    }

    /// Records nothing.
    pub fn none() -> Transcript {
        Transcript {
            file: None,
            start: Instant::now(),
            kept: None,
            worker: None,
        }
    }

    /// The same transcript, for the worker of plan item `index` (1-based): each event it
    /// writes carries `"worker": {"index", "item"}`. A plan's workers wrote their
    /// requests, edits and finals into the composer's transcript unmarked, and a reader
    /// took a worker's `final` for the turn's.
    pub fn for_worker(&self, index: usize, item: &str) -> Transcript {
        Transcript {
            file: self.file.clone(),
            start: self.start,
            kept: self.kept.clone(),
            worker: Some(serde_json::json!({"index": index, "item": item})),
        }
    }

    /// Keeps every event in memory as well (see [`Transcript::events`]).
    pub fn keeping(mut self) -> Transcript {
        self.kept = Some(Arc::new(Mutex::new(Vec::new())));
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
        if let Some(w) = &self.worker {
            obj.insert("worker".into(), w.clone());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workers_events_are_marked_with_its_plan_item() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let t = Transcript::to_file(&path).unwrap().keeping();
        t.event("request", serde_json::json!({"step": 1}));
        let w = t.for_worker(2, "add a footer");
        w.event("edit", serde_json::json!({"path": "a.js"}));
        t.event("final", serde_json::json!({"status": "done"}));
        let lines: Vec<Value> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].get("worker").is_none());
        assert_eq!(
            lines[1]["worker"],
            serde_json::json!({"index": 2, "item": "add a footer"})
        );
        assert!(lines[2].get("worker").is_none());
        assert_eq!(t.events(), lines);
    }
}
