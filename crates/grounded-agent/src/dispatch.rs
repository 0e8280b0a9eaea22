//! The dispatcher: every tool call of one model response gets exactly one result, in
//! the order of the calls. Read-only calls run together (`std::thread::scope`); writes
//! run one after another, in order, between them.
//!
//! Why every call is answered: an OpenAI-compatible server rejects a conversation in
//! which an assistant tool call has no `tool` message, so a dropped call ends the turn
//! with an error the user cannot act on. Guards (issue 13) may answer a call themselves
//! (cache, collapsed, stub, budget); they still produce its one result.

use serde::Serialize;
use serde_json::{json, Value};

use super::model::ToolCall;
use super::tools::{Registry, ToolCtx, ToolOutput};

/// How a call's result was served (interfaces.md, `tool_result.served`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Served {
    /// The tool ran.
    Live,
    /// From the turn's cache.
    Cache,
    /// Answered by an identical call in flight.
    Collapsed,
    /// Not run: the identical-call breaker.
    Stub,
    /// Not run: the budget is spent.
    Budget,
    /// From the cross-turn lookup cache on disk: an answer composed in an earlier turn
    /// is never shown as `live`.
    Disk,
    /// Refused: bad arguments, an unknown tool, or a rule.
    Refused,
}

impl Served {
    /// The transcript's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Served::Live => "live",
            Served::Cache => "cache",
            Served::Collapsed => "collapsed",
            Served::Stub => "stub",
            Served::Budget => "budget",
            Served::Disk => "disk",
            Served::Refused => "refused",
        }
    }
}

/// One call's result, as the model receives it.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// What the model receives.
    pub content: String,
    /// How it was served.
    pub served: Served,
}

/// What a guard decides about a call before it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// Let it run (or ask the next guard).
    Run,
    /// Answer it without running it: `(content, served)`.
    Answer(String, Served),
    /// Give it the result of the call at this index of the same batch (in-flight
    /// collapse: parallel duplicates run once; `served: collapsed`).
    Share(usize),
}

/// A guard layer consulted before and after each call (issue 13's guardrails).
pub trait Guard: Send {
    /// Answers the call without running it (`Some((content, served))`), or lets it run.
    fn before(&mut self, call: &ToolCall, args: &Value) -> Option<(String, Served)>;
    /// Sees every result (including those it answered itself), and may rewrite it.
    fn after(&mut self, call: &ToolCall, result: &mut ToolResult);
    /// A new batch (one model response) starts: calls of earlier batches are done.
    fn begin_batch(&mut self) {}
    /// Like [`Guard::before`], knowing the call's index in its batch, so it may share an
    /// earlier call's result: a dedupe on completion never sees calls in flight together.
    fn before_at(&mut self, _index: usize, call: &ToolCall, args: &Value) -> Before {
        match self.before(call, args) {
            Some((content, served)) => Before::Answer(content, served),
            None => Before::Run,
        }
    }
    /// A message that steers the turn to its final answer (tools withheld next step),
    /// once, after a loop was caught.
    fn steer(&mut self) -> Option<String> {
        None
    }
}

/// Runs batches of tool calls.
pub struct Dispatcher<'r> {
    registry: &'r Registry,
    guards: Vec<Box<dyn Guard>>,
    /// A question's turn: tools that change files are refused before they run.
    read_only: bool,
}

enum Slot {
    Done(ToolResult),
    Run(Value),
    Share(usize),
}

impl<'r> Dispatcher<'r> {
    /// A dispatcher over `registry` with no guards.
    pub fn new(registry: &'r Registry) -> Dispatcher<'r> {
        Dispatcher {
            registry,
            guards: Vec::new(),
            read_only: false,
        }
    }

    /// Refuses every call of a tool that changes files, before any guard or the tool
    /// sees it: the turn is a question. A model offered no write tool called one
    /// anyway (a text call, a tool remembered from its training): it gets the reason.
    pub fn read_only(&mut self, on: bool) {
        self.read_only = on;
    }

    /// Adds a guard; guards are consulted in the order added.
    pub fn guard(&mut self, g: Box<dyn Guard>) {
        self.guards.push(g);
    }

    /// The first guard's steering message, if a loop was caught since the last ask.
    pub fn steer(&mut self) -> Option<String> {
        self.guards.iter_mut().find_map(|g| g.steer())
    }

    /// Whether a call writes (unknown tools count as reads: they are refused anyway).
    pub fn writes(&self, name: &str) -> bool {
        self.registry.get(name).is_some_and(|t| t.writes())
    }

    /// Runs `calls` and returns one result per call, in order, and writes a
    /// `tool_result` event for each.
    pub fn run_batch(&mut self, calls: &[ToolCall], ctx: &ToolCtx) -> Vec<ToolResult> {
        for g in &mut self.guards {
            g.begin_batch();
        }
        let mut slots: Vec<Slot> = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            if self.read_only && self.registry.changes_files(&call.name) {
                slots.push(Slot::Done(refuse_in_question(call, ctx)));
                continue;
            }
            slots.push(self.prepare(i, call));
        }
        // Runs of consecutive reads go together; a write waits for the reads before it
        // and runs alone, so a read after a write sees the write.
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        let mut i = 0;
        while i < calls.len() {
            match &slots[i] {
                Slot::Done(r) => {
                    results[i] = Some(r.clone());
                    i += 1;
                    continue;
                }
                Slot::Share(_) => {
                    i += 1;
                    continue;
                }
                Slot::Run(_) => {}
            }
            if self.writes(&calls[i].name) {
                if let Slot::Run(args) = &slots[i] {
                    results[i] = Some(run_one(self.registry, &calls[i], args, ctx));
                }
                i += 1;
                continue;
            }
            // The reads up to the next write run together; calls already answered
            // (refused, or answered by a guard) do not split them.
            let mut j = i;
            let mut group = Vec::new();
            while j < calls.len() {
                match &slots[j] {
                    Slot::Done(r) => results[j] = Some(r.clone()),
                    Slot::Run(_) if self.writes(&calls[j].name) => break,
                    Slot::Run(_) => group.push(j),
                    // Filled from the call it shares once the group has run.
                    Slot::Share(_) => {}
                }
                j += 1;
            }
            if group.len() == 1 {
                let k = group[0];
                if let Slot::Run(args) = &slots[k] {
                    results[k] = Some(run_one(self.registry, &calls[k], args, ctx));
                }
            } else if group.len() > 1 {
                let registry = self.registry;
                let slots = &slots;
                let outs: Vec<ToolResult> = std::thread::scope(|s| {
                    let handles: Vec<_> = group
                        .iter()
                        .map(|&k| {
                            let call = &calls[k];
                            let args = match &slots[k] {
                                Slot::Run(a) => a,
                                _ => unreachable!("only runnable slots"),
                            };
                            s.spawn(move || run_one(registry, call, args, ctx))
                        })
                        .collect();
                    handles
                        .into_iter()
                        .zip(group.iter())
                        .map(|(h, &k)| {
                            h.join().unwrap_or_else(|_| ToolResult {
                                id: calls[k].id.clone(),
                                name: calls[k].name.clone(),
                                content: "the tool failed internally".into(),
                                served: Served::Refused,
                            })
                        })
                        .collect()
                });
                for (&k, r) in group.iter().zip(outs) {
                    results[k] = Some(r);
                }
            }
            i = j;
        }
        // A shared call gets the answer of the call it waited for, under its own id.
        for (k, slot) in slots.iter().enumerate() {
            if let Slot::Share(onto) = slot {
                results[k] = results.get(*onto).cloned().flatten().map(|r| ToolResult {
                    id: calls[k].id.clone(),
                    name: calls[k].name.clone(),
                    content: r.content,
                    served: Served::Collapsed,
                });
            }
        }
        let mut out = Vec::with_capacity(calls.len());
        for (call, r) in calls.iter().zip(results) {
            let mut r = r.unwrap_or_else(|| ToolResult {
                id: call.id.clone(),
                name: call.name.clone(),
                content: "the call was not run".into(),
                served: Served::Refused,
            });
            for g in &mut self.guards {
                g.after(call, &mut r);
            }
            ctx.transcript.event(
                "tool_result",
                json!({"id": r.id, "name": r.name, "served": r.served.as_str(), "content": r.content}),
            );
            out.push(r);
        }
        out
    }

    fn prepare(&mut self, index: usize, call: &ToolCall) -> Slot {
        let refused = |content: String| {
            Slot::Done(ToolResult {
                id: call.id.clone(),
                name: call.name.clone(),
                content,
                served: Served::Refused,
            })
        };
        if self.registry.get(&call.name).is_none() {
            return refused(format!(
                "there is no tool `{}`; the tools are: {}",
                call.name,
                self.registry.names().join(", ")
            ));
        }
        let args = match parse_arguments(&call.name, &call.arguments) {
            Ok(v) => v,
            Err(e) => return refused(e),
        };
        for g in &mut self.guards {
            match g.before_at(index, call, &args) {
                Before::Run => {}
                Before::Answer(content, served) => {
                    return Slot::Done(ToolResult {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        content,
                        served,
                    })
                }
                Before::Share(onto) if onto < index => return Slot::Share(onto),
                Before::Share(_) => {}
            }
        }
        Slot::Run(args)
    }
}

/// A call's arguments as a JSON object (empty arguments: `{}`), or the refusal the
/// model receives: what is wrong and where, so it can send them again.
///
/// Why the parser's reason: a small model on a real server sent a string with a raw
/// line break in it; told only "not a JSON object", it could not see what to change.
pub fn parse_arguments(name: &str, raw: &str) -> Result<Value, String> {
    let raw = if raw.trim().is_empty() { "{}" } else { raw };
    match serde_json::from_str(raw) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(format!(
            "the arguments of `{name}` are not a JSON object; nothing was run: send one object whose keys are the parameters"
        )),
        Err(e) => Err(format!(
            "the arguments of `{name}` are not a JSON object ({e}); nothing was run: send them again as valid JSON (line breaks in strings as \\n)"
        )),
    }
}

/// A write tool's call in a question, refused before it runs: an `edit` event for the
/// file it named (a write not done), and the reason as the model reads it.
fn refuse_in_question(call: &ToolCall, ctx: &ToolCtx) -> ToolResult {
    let why = super::wording::QUESTION_NO_WRITE;
    let path = parse_arguments(&call.name, &call.arguments)
        .ok()
        .and_then(|a| a.get("path").and_then(Value::as_str).map(str::to_string));
    let content = match path {
        Some(p) => {
            let (rel, bytes) = match super::edits::confine(ctx.root, &p) {
                Ok((abs, rel)) => (rel, ctx.workspace.read(&abs).map_or(0, |b| b.len())),
                Err(_) => (p, 0),
            };
            ctx.edits.refuse(ctx, &rel, bytes, why)
        }
        None => format!("refused: {why}"),
    };
    ToolResult {
        id: call.id.clone(),
        name: call.name.clone(),
        content,
        served: Served::Refused,
    }
}

fn run_one(registry: &Registry, call: &ToolCall, args: &Value, ctx: &ToolCtx) -> ToolResult {
    let tool = registry.get(&call.name).expect("checked in prepare");
    // A tool that panics must not take the turn (or the server) with it.
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.run(args, ctx)))
        .unwrap_or_else(|_| ToolOutput::refused("the tool failed internally"));
    ToolResult {
        id: call.id.clone(),
        name: call.name.clone(),
        content: out.content,
        served: if out.refused {
            Served::Refused
        } else if out.disk {
            Served::Disk
        } else {
            Served::Live
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::config::AgentConfig;
    use crate::edits::{Edits, FsWorkspace};
    use crate::tools::{Silent, Tool, ToolOutput};
    use crate::transcript::Transcript;
    use grounded_docs::{Corpus, Library};

    /// A read-only tool that hands a token to its partner and waits for the partner's:
    /// it can only succeed when both run at the same time.
    struct Meet {
        name: &'static str,
        tx: Sender<()>,
        rx: Mutex<Receiver<()>>,
    }

    impl Tool for Meet {
        fn name(&self) -> &'static str {
            self.name
        }
        fn description(&self) -> &'static str {
            "test"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        fn run(&self, _args: &Value, _ctx: &ToolCtx) -> ToolOutput {
            let _ = self.tx.send(());
            let rx = self.rx.lock().unwrap();
            match rx.recv_timeout(Duration::from_secs(10)) {
                Ok(()) => ToolOutput::ok("met"),
                Err(_) => ToolOutput::ok("alone"),
            }
        }
    }

    #[test]
    fn reads_of_one_response_run_together_and_answer_in_order() {
        let (tx_a, rx_a) = channel();
        let (tx_b, rx_b) = channel();
        let mut reg = Registry::default();
        reg.register(Box::new(Meet {
            name: "a",
            tx: tx_a,
            rx: Mutex::new(rx_b),
        }));
        reg.register(Box::new(Meet {
            name: "b",
            tx: tx_b,
            rx: Mutex::new(rx_a),
        }));
        let corpus =
            Library::from(Corpus::from_texts(&[("x.md", "# Thing\n\nA thing.\n")]).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let edits = Edits::default();
        let config = AgentConfig::default();
        let transcript = Transcript::none();
        let ctx = ToolCtx {
            corpus: &corpus,
            root: dir.path(),
            exclude: Vec::new(),
            entry: None,
            workspace: &FsWorkspace,
            edits: &edits,
            model: None,
            progress: &Silent,
            config: &config,
            transcript: &transcript,
            cancel: Default::default(),
        };
        let call = |id: &str, name: &str| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        };
        let calls = [call("1", "a"), call("2", "nope"), call("3", "b")];
        let out = Dispatcher::new(&reg).run_batch(&calls, &ctx);
        let ids: Vec<&str> = out.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"]);
        assert_eq!(out[0].content, "met");
        assert_eq!(out[2].content, "met");
        assert_eq!(out[1].served, Served::Refused);
    }
}
