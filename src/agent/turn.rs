//! The turn loop: system prompt, tool schemas and the request; model step, tool batch,
//! model step... until the model answers without tools and every finish gate lets the
//! answer through, or the step limit forces a final answer with tools withheld.
//!
//! After the loop the file system is asked what changed (snapshots against the
//! workspace), the project is measured again, and a regression is undone. A turn
//! asked to change something that changed nothing ends `unchanged`: "no usable
//! edits" once passed for success for weeks because nothing checked.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use super::config::AgentConfig;
use super::dispatch::{Dispatcher, Guard};
use super::edits::{Edits, Workspace, WriteCounts};
use super::measure;
use super::model::{ChatModel, Reply};
use super::prompt::system_prompt;
use super::tools::{Progress, Registry, ToolCtx};
use super::transcript::Transcript;
use super::wording;
use crate::check;
use crate::docs::Corpus;

/// How a turn ended (interfaces.md, `final.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Done: something changed, or nothing was asked to change.
    Done,
    /// Asked to change something; nothing changed.
    Unchanged,
    /// The endpoint failed, or the turn's writes were undone.
    Failed,
    /// Cancelled by the user after a step.
    Cancelled,
}

impl Status {
    /// The transcript's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Unchanged => "unchanged",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
}

/// What the file system shows when the model offers a final answer: the facts a
/// finish gate judges the answer against.
#[derive(Debug, Clone, Default)]
pub struct TurnFacts {
    /// The user's request.
    pub request: String,
    /// Files whose bytes differ from before the turn (relative paths).
    pub changed: Vec<String>,
    /// Write counts.
    pub writes: WriteCounts,
    /// Checker findings (errors) outstanding on the files the turn wrote,
    /// `path:line:col code: message`.
    pub outstanding: Vec<String>,
    /// The plan's items, if the turn made one.
    pub plan: Vec<String>,
    /// The model steps so far.
    pub steps: usize,
}

/// A finish gate: `Some(text)` keeps the draft from the user and sends `text` back to
/// the model as a user-role message (and a `push` event to the transcript).
pub trait Gate: Send {
    /// The gate's name in the transcript (`verify`, `bail`, `claim`, `checklist`).
    fn name(&self) -> &'static str;
    /// Judges a draft answer.
    fn gate(&mut self, answer: &str, turn: &TurnFacts) -> Option<String>;
}

/// The request and what it is about.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The user's words.
    pub text: String,
    /// What the editor adds: the document, the selection, the diagnostics.
    pub context: Option<String>,
}

/// Everything one turn uses.
pub struct Turn<'a> {
    /// The engine's docs.
    pub corpus: &'a Corpus,
    /// The project root (made canonical by [`run_turn`]).
    pub root: PathBuf,
    /// Folders left out of search and measurement (a corpus inside the project).
    pub exclude: Vec<PathBuf>,
    /// The dry run's entry.
    pub entry: Option<String>,
    /// Where reads and writes land.
    pub workspace: &'a dyn Workspace,
    /// The model.
    pub model: &'a dyn ChatModel,
    /// The figures.
    pub config: &'a AgentConfig,
    /// The transcript.
    pub transcript: &'a Transcript,
    /// Progress in words.
    pub progress: &'a dyn Progress,
    /// Set to stop the turn after the current step.
    pub cancel: Arc<AtomicBool>,
    /// The tools.
    pub registry: Registry,
    /// Guards around every tool call (issue 13).
    pub guards: Vec<Box<dyn Guard>>,
    /// Finish gates, in order (issue 13).
    pub gates: Vec<Box<dyn Gate>>,
}

/// How the turn ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The status.
    pub status: Status,
    /// The final answer, with what the loop adds (undone writes, nothing changed).
    pub answer: String,
    /// Files changed, from the workspace (relative paths).
    pub changed: Vec<String>,
    /// Reasons printed for the user (regressions undone, files not restored).
    pub notes: Vec<String>,
    /// The endpoint's one-line error, if the turn failed on it.
    pub error: Option<String>,
    /// Write counts.
    pub writes: WriteCounts,
    /// Model steps taken.
    pub steps: usize,
}

/// Whether the request asks for a change to files.
pub fn asks_change(request: &str) -> bool {
    request
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| wording::CHANGE_VERBS.contains(&w.to_lowercase().as_str()))
}

fn assistant_message(reply: &Reply) -> Value {
    if reply.from_text || reply.tool_calls.is_empty() {
        return json!({"role": "assistant", "content": reply.content});
    }
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .map(|c| {
            json!({"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}})
        })
        .collect();
    let content = if reply.content.is_empty() {
        Value::Null
    } else {
        Value::String(reply.content.clone())
    };
    json!({"role": "assistant", "content": content, "tool_calls": calls})
}

/// Runs one turn to its end. Never panics on what the model sends; an endpoint
/// failure ends the turn `failed` with the error in [`Outcome::error`].
pub fn run_turn(turn: Turn, request: &TurnRequest) -> Outcome {
    let root = std::fs::canonicalize(&turn.root).unwrap_or(turn.root.clone());
    let edits = Edits::default();
    let ctx = ToolCtx {
        corpus: turn.corpus,
        root: &root,
        exclude: turn
            .exclude
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or(p.clone()))
            .collect(),
        entry: turn.entry.clone(),
        workspace: turn.workspace,
        edits: &edits,
        model: Some(turn.model),
        progress: turn.progress,
        config: turn.config,
        transcript: turn.transcript,
    };
    let tools = turn.registry.schemas();
    let names = turn.registry.names();
    let mut dispatcher = Dispatcher::new(&turn.registry);
    for g in turn.guards {
        dispatcher.guard(g);
    }
    let mut gates = turn.gates;
    let mut user = request.text.clone();
    if let Some(c) = &request.context {
        user.push_str("\n\n");
        user.push_str(c);
    }
    let mut messages = vec![
        json!({"role": "system", "content": system_prompt(turn.corpus)}),
        json!({"role": "user", "content": user}),
    ];
    let mut answer: Option<String> = None;
    let mut error = None;
    let mut cancelled = false;
    let mut step = 0;
    loop {
        if turn.cancel.load(Ordering::SeqCst) {
            cancelled = true;
            break;
        }
        let forced = step >= turn.config.max_steps;
        step += 1;
        if forced {
            messages.push(json!({"role": "user", "content": wording::STEP_LIMIT}));
        }
        let offered: &[Value] = if forced { &[] } else { &tools };
        turn.transcript.event(
            "request",
            json!({"step": step, "messages": messages,
                   "tools": if forced { Vec::new() } else { names.clone() }}),
        );
        turn.progress
            .say(&format!("asking the model (step {step})"));
        let reply = match turn.model.chat(&messages, offered) {
            Ok(r) => r,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        turn.transcript.event(
            "response",
            json!({"step": step, "content": reply.content,
                   "tool_calls": reply.tool_calls.iter().map(|c| json!({
                       "id": c.id, "name": c.name, "arguments": c.arguments})).collect::<Vec<_>>()}),
        );
        if forced || reply.tool_calls.is_empty() {
            // The facts cost a check of every changed file: only gates read them.
            if !forced && !gates.is_empty() {
                let facts = facts(&ctx, &request.text, step);
                let pushed = gates
                    .iter_mut()
                    .find_map(|g| g.gate(&reply.content, &facts).map(|t| (g.name(), t)));
                if let Some((gate, text)) = pushed {
                    turn.transcript
                        .event("push", json!({"gate": gate, "text": text}));
                    messages.push(assistant_message(&reply));
                    messages.push(json!({"role": "user", "content": text}));
                    continue;
                }
            }
            answer = Some(reply.content);
            break;
        }
        messages.push(assistant_message(&reply));
        let results = dispatcher.run_batch(&reply.tool_calls, &ctx);
        if reply.from_text {
            // The server has no tool-calling template: results go back as plain text.
            let text: Vec<String> = results
                .iter()
                .map(|r| format!("Result of {} ({}):\n{}", r.name, r.id, r.content))
                .collect();
            messages.push(json!({"role": "user", "content": text.join("\n\n")}));
        } else {
            for r in &results {
                messages.push(json!({"role": "tool", "tool_call_id": r.id, "name": r.name,
                                     "content": r.content}));
            }
        }
    }

    let mut notes = Vec::new();
    let mut undone = false;
    if !cancelled {
        if let Some(before) = edits.before() {
            if !edits.changed(&ctx).is_empty() {
                let after = measure::measure(&ctx, "after");
                let regs = measure::regressions(&before, &after);
                if !regs.is_empty() {
                    turn.progress
                        .say("undoing the turn's writes: they made the project worse");
                    let failed = edits.undo_all(&ctx, &regs.join("; "));
                    notes.push(wording::UNDONE.to_string());
                    notes.extend(regs.into_iter().map(|r| format!("- {r}")));
                    notes.extend(failed.into_iter().map(|f| format!("- {f}")));
                    undone = true;
                }
            }
        }
    }
    let changed = edits.changed(&ctx);
    let writes = edits.counts();
    let asked = writes.attempted > 0 || asks_change(&request.text);
    let status = if error.is_some() {
        Status::Failed
    } else if cancelled {
        Status::Cancelled
    } else if undone {
        Status::Failed
    } else if changed.is_empty() && asked {
        Status::Unchanged
    } else {
        Status::Done
    };
    let mut text = answer.unwrap_or_default().trim().to_string();
    if let Some(e) = &error {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(e);
    }
    if cancelled {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("Cancelled after step {}.", step));
    }
    for n in &notes {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(n);
    }
    if status == Status::Unchanged {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(wording::UNCHANGED);
    }
    turn.transcript.event(
        "final",
        json!({"answer": text, "changed": changed, "status": status.as_str()}),
    );
    Outcome {
        status,
        answer: text,
        changed,
        notes,
        error,
        writes,
        steps: step,
    }
}

/// The facts the finish gates see, asked of the workspace.
fn facts(ctx: &ToolCtx, request: &str, steps: usize) -> TurnFacts {
    let changed = ctx.edits.changed(ctx);
    let mut outstanding = Vec::new();
    if !changed.is_empty() {
        let index = super::edits::project_index(ctx);
        for rel in &changed {
            let Ok(bytes) = ctx.workspace.read(&ctx.root.join(rel)) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            for f in check::check_text(ctx.corpus, &index, rel, &text) {
                if f.severity == check::Severity::Error {
                    outstanding.push(format!(
                        "{rel}:{}:{} {}: {}",
                        f.line,
                        f.column,
                        f.code.as_str(),
                        f.message
                    ));
                }
            }
        }
    }
    TurnFacts {
        request: request.to_string(),
        changed,
        writes: ctx.edits.counts(),
        outstanding,
        plan: Vec::new(),
        steps,
    }
}
