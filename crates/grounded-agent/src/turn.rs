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
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use super::config::AgentConfig;
use super::dispatch::{Dispatcher, Guard, Served, ToolResult};
use super::edits::{Edits, Workspace, WriteCounts};
use super::gates::{Decision, GateRunner};
use super::honest;
use super::intent;
use super::measure;
use super::model::{ChatModel, Reply, ToolCall, Watch};
use super::prompt::system_prompt;
use super::queries;
use super::tools::{Progress, Registry, ToolCtx};
use super::transcript::Transcript;
use super::wording;
use grounded_docs::Library;

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

pub use super::gates::{Gate, TurnFacts};

/// The request and what it is about.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The user's words.
    pub text: String,
    /// What the editor adds: the document, the selection, the diagnostics.
    pub context: Option<String>,
    /// Files the request is about besides those its words name (the editor's document,
    /// absolute or relative to the root): a change to one of them is a change to what
    /// was asked ([`honest::strays`]).
    pub about: Vec<String>,
}

/// Everything one turn uses.
pub struct Turn<'a> {
    /// The engine's docs.
    pub corpus: &'a Library,
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
    /// Why the turn ended, in one line (the status says how): a user reading
    /// `unchanged` needs to know whether the model gave up, ran out of steps or was
    /// stopped by a guard.
    pub reason: String,
    /// The bytes of each written file before the turn wrote it (`None`: created), for a
    /// plan's composer to take over from its worker.
    pub snapshots: std::collections::BTreeMap<String, Option<Vec<u8>>>,
    /// Folders the turn's writes created (relative), for a plan's composer to undo.
    pub created_dirs: Vec<String>,
}

/// A model request's wait as the turn sees it: the user's cancel, and a progress line
/// a second ("waiting for the model (step 3): 41 s") so a slow server is not mistaken
/// for a hung one.
struct StepWatch<'a> {
    cancel: &'a AtomicBool,
    progress: &'a dyn Progress,
    step: usize,
}

impl Watch for StepWatch<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    fn waiting(&self, waited: Duration) {
        self.progress.waiting(
            &format!(
                "waiting for the model (step {}): {} s",
                self.step,
                waited.as_secs()
            ),
            waited,
        );
    }

    fn retrying(&self, why: &str, next: u32, of: u32) {
        self.progress.say(&format!("{why}, retrying ({next}/{of})"));
    }
}

/// Whether the request asks for a change to files ([`intent::decide`]).
pub fn asks_change(request: &str) -> bool {
    intent::decide(request).asks_change()
}

/// The calls of `reply` with ids unique across the turn's history: a server that sends
/// no id got `call_0`, `call_1` made up for every response, so ids repeated across the
/// conversation, and a server that pairs results with calls by id could pair them
/// wrong. A missing or repeated id is replaced by `call_<step>_<n>`.
fn unique_ids(reply: &mut Reply, seen: &mut std::collections::HashSet<String>, step: usize) {
    for (n, c) in reply.tool_calls.iter_mut().enumerate() {
        if c.id.trim().is_empty() || seen.contains(&c.id) {
            let mut id = format!("call_{step}_{n}");
            let mut k = 0;
            while seen.contains(&id) {
                k += 1;
                id = format!("call_{step}_{n}_{k}");
            }
            c.id = id;
        }
        seen.insert(c.id.clone());
    }
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
    // An empty string, never null: llama-cpp-python's server validates an assistant
    // message's content as a string and answered the second step of every turn with
    // HTTP 500 while it was null; omitting the key breaks its chat template instead.
    json!({"role": "assistant", "content": reply.content, "tool_calls": calls})
}

/// Runs one turn to its end. Never panics on what the model sends; an endpoint
/// failure ends the turn `failed` with the error in [`Outcome::error`].
pub fn run_turn(turn: Turn, request: &TurnRequest) -> Outcome {
    run_turn_as(turn, request, None)
}

/// [`run_turn`] under an intent decided elsewhere (`None`: from the request's words):
/// a plan's worker runs under the one its composer's request decided
/// ([`intent::Intent::for_worker`]).
pub fn run_turn_as(turn: Turn, request: &TurnRequest, given: Option<intent::Intent>) -> Outcome {
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
        cancel: turn.cancel.clone(),
    };
    // What the request asks, decided in one place (`intent`): the write tools read it
    // from the turn's edit state, the model is told the removal part with the request,
    // and the status follows from it and the file system.
    let intent = given.unwrap_or_else(|| intent::decide(&request.text));
    // A question is offered no tool that writes, and the dispatcher refuses one called
    // anyway (`landing` refuses it a third time, where every write passes).
    let read_only = intent.read_only();
    let tools = turn.registry.schemas_for(read_only);
    let names = turn.registry.names_for(read_only);
    let mut dispatcher = Dispatcher::new(&turn.registry);
    dispatcher.read_only(read_only);
    for g in turn.guards {
        dispatcher.guard(g);
    }
    let mut gates = GateRunner::new(turn.config.clone(), turn.gates);
    let mut user = request.text.clone();
    if let Some(c) = &request.context {
        user.push_str("\n\n");
        user.push_str(c);
    }
    let scope = intent.scope.clone();
    // What the agent itself told the model (notes, pushes, steers): a final answer that
    // only repeats it is no answer ([`honest`]).
    let mut injected: Vec<String> = Vec::new();
    let quote = |cs: &[String]| {
        cs.iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let scope_answer = match &scope {
        intent::Scope::Other => None,
        intent::Scope::Removal => {
            user.push_str("\n\n");
            user.push_str(wording::SCOPE_REMOVAL);
            injected.push(wording::SCOPE_REMOVAL.to_string());
            None
        }
        intent::Scope::Mixed { removes, adds } => {
            let v = [("removes", quote(removes)), ("adds", quote(adds))];
            let v: Vec<(&str, &str)> = v.iter().map(|(k, s)| (*k, s.as_str())).collect();
            user.push_str("\n\n");
            user.push_str(&wording::fill(wording::SCOPE_MIXED, &v));
            injected.push(wording::fill(wording::SCOPE_MIXED, &v));
            Some(wording::fill(wording::SCOPE_MIXED_ANSWER, &v))
        }
    };
    if read_only {
        user.push_str("\n\n");
        user.push_str(wording::QUESTION_NOTE);
        injected.push(wording::QUESTION_NOTE.to_string());
    }
    edits.set_intent(intent.clone());
    let mut messages = vec![
        json!({"role": "system", "content": system_prompt(turn.corpus)}),
        json!({"role": "user", "content": user}),
    ];
    let mut answer: Option<String> = None;
    // The model's own words of the final answer, before the turn appends what still
    // holds against it: those appended lines quote the agent's pushes, and read as an
    // echo they made a question answered twice word for word count as unanswered.
    let mut own = String::new();
    let mut error = None;
    let mut cancelled = false;
    let mut step = 0;
    // A loop caught by a guard: the next step has tools withheld and must answer.
    let mut steered = false;
    // Why the last step had tools withheld, if it had.
    let mut forced_by: Option<String> = None;
    // The forced `search_queries` step: the first request offers it and asks for it.
    let mut ask_queries = turn.config.search_queries != 0 && names.contains(&"rag_lookup");
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    loop {
        if turn.cancel.load(Ordering::SeqCst) {
            cancelled = true;
            break;
        }
        let limit = step >= turn.config.max_steps;
        let forced = limit || steered;
        step += 1;
        if limit && !steered {
            messages.push(json!({"role": "user", "content": wording::STEP_LIMIT}));
            injected.push(wording::STEP_LIMIT.to_string());
        }
        let with_queries = ask_queries && !forced;
        ask_queries = false;
        let mut offered_now: Vec<Value> = Vec::new();
        let mut names_now: Vec<&str> = Vec::new();
        if !forced {
            offered_now = tools.clone();
            names_now = names.clone();
        }
        if with_queries {
            offered_now.push(queries::schema(
                turn.config.search_queries,
                turn.config.max_queries,
            ));
            names_now.push(queries::TOOL);
        }
        turn.transcript.event(
            "request",
            json!({"step": step, "messages": messages, "tools": names_now}),
        );
        turn.progress
            .say(&format!("asking the model (step {step})"));
        let watch = StepWatch {
            cancel: &turn.cancel,
            progress: turn.progress,
            step,
        };
        let force = with_queries.then_some(queries::TOOL);
        let sent = turn
            .model
            .chat_watched(&messages, &offered_now, force, &watch);
        let mut reply = match sent {
            Ok(r) => r,
            // A cancel during the wait drops the request; the turn ends as cancelled,
            // not as an endpoint failure.
            Err(_) if turn.cancel.load(Ordering::SeqCst) => {
                cancelled = true;
                break;
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        unique_ids(&mut reply, &mut ids, step);
        turn.transcript.event(
            "response",
            json!({"step": step, "content": reply.content,
                   "tool_calls": reply.tool_calls.iter().map(|c| json!({
                       "id": c.id, "name": c.name, "arguments": c.arguments})).collect::<Vec<_>>()}),
        );
        if forced {
            forced_by = Some(if limit && !steered {
                format!(
                    "the step limit ({}) was reached; the model answered with tools withheld",
                    turn.config.max_steps
                )
            } else {
                "a guard caught a loop; the model answered with tools withheld".to_string()
            });
        }
        if forced || reply.tool_calls.is_empty() {
            // Calls made on a step with tools withheld are answered too (1,479 turns of
            // a seeded run left them without a result): not run, and why.
            for c in &reply.tool_calls {
                turn.transcript.event(
                    "tool_result",
                    json!({"id": c.id, "name": c.name, "served": Served::Refused.as_str(),
                           "content": wording::TOOLS_WITHHELD}),
                );
            }
            let mut content = reply.content.clone();
            // The facts cost a check of every changed file: only gates read them.
            if !forced && !gates.is_empty() {
                let facts = super::facts::facts(&ctx, &request.text, &intent, step);
                match gates.judge(&reply.content, &facts) {
                    Decision::Push { gate, text } => {
                        turn.transcript
                            .event("push", json!({"gate": gate, "text": text}));
                        messages.push(assistant_message(&reply));
                        messages.push(json!({"role": "user", "content": text}));
                        injected.push(text);
                        continue;
                    }
                    // A verbatim repeat after the firmer push: pushing again gets it
                    // again. The turn ends, and says what still holds against it.
                    Decision::EndRepeat { unresolved } => {
                        for u in unresolved {
                            content.push('\n');
                            content.push_str(&u);
                        }
                    }
                    Decision::Send => {}
                }
            }
            own = reply.content.trim().to_string();
            answer = Some(content);
            break;
        }
        messages.push(assistant_message(&reply));
        // The `search_queries` call is answered here: its queries go back as guidance,
        // not fanned out by code, so the model orders its searches and stops early.
        let (planned, rest): (Vec<ToolCall>, Vec<ToolCall>) = reply
            .tool_calls
            .iter()
            .cloned()
            .partition(|c| c.name == queries::TOOL && with_queries);
        let mut results: Vec<ToolResult> = planned
            .iter()
            .map(|c| answer_queries(&ctx, c, &request.text))
            .collect();
        if !rest.is_empty() {
            results.extend(dispatcher.run_batch(&rest, &ctx));
        }
        // Keep the model's order of calls in the messages that answer them.
        let order: Vec<&str> = reply.tool_calls.iter().map(|c| c.id.as_str()).collect();
        results.sort_by_key(|r| order.iter().position(|id| *id == r.id));
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
        if let Some(text) = dispatcher.steer() {
            messages.push(json!({"role": "user", "content": text}));
            injected.push(text);
            steered = true;
        }
    }

    let mut notes = Vec::new();
    let mut undone = false;
    // The measures before the first write and after the last, kept: a change that
    // missed the files its request named met its goal only if a finding went.
    let mut measured: Option<(measure::Measurement, measure::Measurement)> = None;
    if !cancelled && !edits.changed(&ctx).is_empty() {
        // A removal turn's rule, asked of the file system at the end: whatever path
        // wrote (a tool, a plan's worker), no file may have grown or been created.
        let mut regs = if intent.scope == intent::Scope::Removal {
            removal_breaches(&ctx, &edits)
        } else {
            Vec::new()
        };
        if let Some(before) = edits.before() {
            let after = measure::measure(&ctx, "after");
            regs.extend(measure::regressions(&before, &after));
            measured = Some((before, after));
        }
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
    let changed = edits.changed(&ctx);
    let writes = edits.counts();
    // The answer, as the user would read it: empty, or only the agent's own words
    // echoed back ([`honest`]), is no answer.
    let raw = answer.as_deref().unwrap_or_default().trim().to_string();
    let answered = !own.is_empty() && !honest::echoes_injected(&own, &injected);
    // A change whose only changes are files the request never named did not do what
    // was asked, whatever it wrote ("changed lib/huge.js, not main.js"), unless the
    // goal was met all the same: a finding is gone.
    let about = about_files(&ctx, request);
    let missed = match error.is_some() || cancelled || undone {
        false if intent.asks_change() => honest::strays(&about, &changed),
        _ => None,
    };
    let named = about.join(", ");
    let met = missed
        .as_ref()
        .and(measured.as_ref())
        .and_then(|(b, a)| honest::goal_met(b, a));
    let strays = missed.clone().filter(|_| met.is_none());
    let missed_line = missed.as_ref().map(|files| {
        wording::fill(
            wording::MISSED_NAMED,
            &[("files", &files.join(", ")), ("named", &named)],
        )
    });
    // The status follows from what was asked and what the file system shows: a change
    // asked and none made is `unchanged`; a question is `done` once answered, whatever
    // the model tried to write and whether or not a guard or the step limit stopped it
    // (the reason says so), and `unchanged` when no answer came.
    let unanswered = !intent.asks_change() && changed.is_empty() && !answered;
    let status = if error.is_some() {
        Status::Failed
    } else if cancelled {
        Status::Cancelled
    } else if undone {
        Status::Failed
    } else if (changed.is_empty() && intent.asks_change()) || strays.is_some() || unanswered {
        Status::Unchanged
    } else {
        Status::Done
    };
    let reason = match status {
        Status::Failed if error.is_some() => format!(
            "the model endpoint failed: {}",
            error.as_deref().unwrap_or_default()
        ),
        Status::Failed => "the turn's writes were undone: they made the project worse".into(),
        Status::Cancelled => format!("cancelled by the user during step {step}"),
        Status::Unchanged if strays.is_some() => match &forced_by {
            Some(f) => format!("{f}; {}", missed_line.clone().unwrap_or_default()),
            None => missed_line.clone().unwrap_or_default(),
        },
        Status::Unchanged if unanswered => match &forced_by {
            Some(f) => format!("a question, not answered: {f}"),
            None => "a question, not answered: the model's final answer was empty".into(),
        },
        Status::Unchanged => match &forced_by {
            Some(f) => format!("asked to change files, none changed: {f}"),
            None => "asked to change files, none changed: the model answered without tools".into(),
        },
        Status::Done if missed_line.is_some() => {
            let (before, after) = met.unwrap_or_default();
            let line = format!(
                "{}; the project's findings went from {before} to {after}",
                missed_line.clone().unwrap_or_default()
            );
            match &forced_by {
                Some(f) => format!("{f}; {line}"),
                None => line,
            }
        }
        Status::Done => match (&forced_by, changed.len()) {
            (Some(f), _) => f.clone(),
            (None, 0) => "the model answered without tools".into(),
            (None, n) => format!(
                "the model answered without tools; {n} file{} changed",
                if n == 1 { "" } else { "s" }
            ),
        },
    };
    // One line, whatever the endpoint's error said.
    let reason = reason.lines().next().unwrap_or_default().to_string();
    let mut text = raw;
    if !text.is_empty() && (!answered || honest::echoes_injected(&text, &injected)) {
        text = honest::summary(&reason, &changed);
    }
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
        match &strays {
            _ if unanswered => text.push_str(wording::UNANSWERED),
            Some(files) => text.push_str(&wording::fill(
                wording::MISSED_NAMED_ANSWER,
                &[("named", &named), ("files", &files.join(", "))],
            )),
            None => text.push_str(wording::UNCHANGED),
        }
    }
    if let (Some(files), Some((before, after))) = (&missed, met) {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&wording::fill(
            wording::MISSED_NAMED_MET,
            &[
                ("named", &named),
                ("files", &files.join(", ")),
                ("before", &before.to_string()),
                ("after", &after.to_string()),
            ],
        ));
    }
    if let Some(s) = scope_answer {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&s);
    }
    turn.transcript.event(
        "final",
        json!({"answer": text, "changed": changed, "status": status.as_str(), "reason": reason}),
    );
    Outcome {
        status,
        answer: text,
        changed,
        notes,
        error,
        writes,
        steps: step,
        reason,
        snapshots: edits.snapshots(),
        created_dirs: edits.created_dirs(),
    }
}

/// The files `request` is about: those its words name ([`honest::named_files`]) and the
/// editor's document, relative, of those the project has or the turn wrote. A code name
/// (`layout.heading`) or a file that is not there names nothing the turn could change:
/// asked to fix "`lib/x.js` does not exist", the fix is the line that loads it.
fn about_files(ctx: &ToolCtx, request: &TurnRequest) -> Vec<String> {
    let snaps = ctx.edits.snapshots();
    let mut out: Vec<String> = honest::named_files(&request.text);
    for a in &request.about {
        let p = std::path::Path::new(a);
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| ctx.root.join(p));
        if let Ok(rel) = abs.strip_prefix(ctx.root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    out.retain(|n| ctx.root.join(n).is_file() || snaps.contains_key(n));
    let mut seen = std::collections::HashSet::new();
    out.retain(|n| seen.insert(n.clone()));
    out
}

/// In a removal turn, every file the turn changed that it created, grew, or gave a line
/// it did not have ([`intent::must_shrink`]), as the reasons its writes are undone.
fn removal_breaches(ctx: &ToolCtx, edits: &Edits) -> Vec<String> {
    let snaps = edits.snapshots();
    let mut out = Vec::new();
    for rel in edits.changed(ctx) {
        let Some(before) = snaps.get(&rel) else {
            continue;
        };
        let Ok(now) = ctx.workspace.read(&ctx.root.join(&rel)) else {
            // Removed: a removal may remove a whole file.
            continue;
        };
        let old = before.as_deref().map(String::from_utf8_lossy);
        if let Err(why) = intent::must_shrink(old.as_deref(), &String::from_utf8_lossy(&now)) {
            out.push(format!("a removal only shrinks files, but {rel}: {why}"));
        }
    }
    out
}

/// Answers the forced `search_queries` call: the planned queries as guidance (each
/// `about` label becomes a progress line), or why none could be used.
fn answer_queries(ctx: &ToolCtx, call: &ToolCall, request: &str) -> ToolResult {
    // The forced call bypasses the dispatcher: its arguments get the same check, or a
    // string broken by a raw line break was answered "no `queries` array".
    let parsed = super::dispatch::parse_arguments(&call.name, &call.arguments)
        .and_then(|args| queries::parse(&args, request, ctx.config.max_queries));
    let (content, served) = match parsed {
        Ok(qs) => {
            for q in &qs {
                ctx.progress.say(&q.about);
            }
            (queries::guidance(&qs), Served::Live)
        }
        Err(e) => (e, Served::Refused),
    };
    ctx.transcript.event(
        "tool_result",
        json!({"id": call.id, "name": call.name, "served": served.as_str(), "content": content}),
    );
    ToolResult {
        id: call.id.clone(),
        name: call.name.clone(),
        content,
        served,
    }
}
