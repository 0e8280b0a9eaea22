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

/// A guard layer consulted before and after each call (issue 13's guardrails).
pub trait Guard: Send {
    /// Answers the call without running it (`Some((content, served))`), or lets it run.
    fn before(&mut self, call: &ToolCall, args: &Value) -> Option<(String, Served)>;
    /// Sees every result (including those it answered itself), and may rewrite it.
    fn after(&mut self, call: &ToolCall, result: &mut ToolResult);
}

/// Runs batches of tool calls.
pub struct Dispatcher<'r> {
    registry: &'r Registry,
    guards: Vec<Box<dyn Guard>>,
}

enum Slot {
    Done(ToolResult),
    Run(Value),
}

impl<'r> Dispatcher<'r> {
    /// A dispatcher over `registry` with no guards.
    pub fn new(registry: &'r Registry) -> Dispatcher<'r> {
        Dispatcher {
            registry,
            guards: Vec::new(),
        }
    }

    /// Adds a guard; guards are consulted in the order added.
    pub fn guard(&mut self, g: Box<dyn Guard>) {
        self.guards.push(g);
    }

    /// Whether a call writes (unknown tools count as reads: they are refused anyway).
    pub fn writes(&self, name: &str) -> bool {
        self.registry.get(name).is_some_and(|t| t.writes())
    }

    /// Runs `calls` and returns one result per call, in order, and writes a
    /// `tool_result` event for each.
    pub fn run_batch(&mut self, calls: &[ToolCall], ctx: &ToolCtx) -> Vec<ToolResult> {
        let mut slots: Vec<Slot> = Vec::with_capacity(calls.len());
        for call in calls {
            slots.push(self.prepare(call));
        }
        // Runs of consecutive reads go together; a write waits for the reads before it
        // and runs alone, so a read after a write sees the write.
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        let mut i = 0;
        while i < calls.len() {
            if let Slot::Done(r) = &slots[i] {
                results[i] = Some(r.clone());
                i += 1;
                continue;
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
                                Slot::Done(_) => unreachable!("only runnable slots"),
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

    fn prepare(&mut self, call: &ToolCall) -> Slot {
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
        let raw = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        let args: Value = match serde_json::from_str(raw) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return refused(format!(
                    "the arguments of `{}` are not a JSON object; nothing was run",
                    call.name
                ))
            }
        };
        for g in &mut self.guards {
            if let Some((content, served)) = g.before(call, &args) {
                return Slot::Done(ToolResult {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    content,
                    served,
                });
            }
        }
        Slot::Run(args)
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
    use crate::agent::config::AgentConfig;
    use crate::agent::edits::{Edits, FsWorkspace};
    use crate::agent::tools::{Silent, Tool, ToolOutput};
    use crate::agent::transcript::Transcript;
    use crate::docs::Corpus;

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
        let corpus = Corpus::from_texts(&[("x.md", "# Thing\n\nA thing.\n")]).unwrap();
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
