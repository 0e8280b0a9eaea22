//! `plan`: a request with several parts runs as bounded workers.
//!
//! A `plan` tool splits the request into items; each item runs as a worker turn with its
//! own context and budgets, and its report returns to the composer with what each landed
//! file exposes, computed from the file itself. Why from the file: workers reported what
//! their files "exposed", and the composer wired the next file to a function that was
//! never written. The file is a fact; a model's "exposes" line is a claim.
//!
//! The plan's items are also what the checklist gate reads
//! ([`super::gates::Checklist`]).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;
use serde_json::{json, Value};

use grounded_check::FileFacts;
use grounded_docs::Corpus;

use super::gates::PlanItem;
use super::tools::{Registry, Tool, ToolCtx, ToolOutput};
use super::turn::{run_turn_as, Status, Turn, TurnRequest};

/// The tool's name.
pub const TOOL: &str = "plan";

/// The tool's schema (OpenAI function format).
pub fn schema(max: usize) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": TOOL,
            "description": "Split a request with several independent parts into items; each item runs as its own worker turn and its report (with what each changed file defines) comes back to you. Use it only for requests with two or more parts.",
            "parameters": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "maxItems": max, "items": {"type": "string"}}
                },
                "required": ["items"]
            }
        }
    })
}

/// Reads the plan tool's arguments: non-empty, distinct items, at most `max`.
pub fn parse(args: &Value, max: usize) -> Result<Vec<String>, String> {
    let list = args
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| "plan: no `items` array".to_string())?;
    let mut out: Vec<String> = Vec::new();
    for i in list {
        let t = i.as_str().unwrap_or("").trim();
        if !t.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(t)) {
            out.push(t.to_string());
        }
    }
    if out.is_empty() {
        return Err("plan: no items".into());
    }
    if out.len() > max {
        return Err(format!("plan: {} items, at most {max}", out.len()));
    }
    Ok(out)
}

/// What a file exposes, read from its text.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Exposes {
    /// The file, relative to the root.
    pub path: String,
    /// Top-level functions it defines.
    pub functions: Vec<String>,
    /// Top-level variables it defines (implicit globals included).
    pub globals: Vec<String>,
    /// Constructs it opens (`table`), in order of their Start, once each.
    pub constructs: Vec<String>,
}

fn function_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?m)^function\s+([A-Za-z_$][\w$]*)").unwrap())
}

/// Computes what `text` (the file at `path`) exposes.
pub fn exposes(corpus: &Corpus, path: &str, text: &str) -> Exposes {
    let facts = FileFacts::of(corpus, path, text);
    let funcs: BTreeSet<String> = function_re()
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|n| facts.decls.contains(n))
        .collect();
    let script = grounded_js::script_text(path, text, &corpus.engine.directives);
    let tree = grounded_js::parse(&script);
    let mut constructs: Vec<String> = Vec::new();
    for i in grounded_footprint::instances(corpus, &script, &tree) {
        if !constructs.contains(&i.construct) {
            constructs.push(i.construct);
        }
    }
    Exposes {
        path: path.to_string(),
        functions: funcs.iter().cloned().collect(),
        globals: facts
            .decls
            .iter()
            .filter(|d| !funcs.contains(*d))
            .cloned()
            .collect(),
        constructs,
    }
}

/// One worker's outcome as the composer receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerReport {
    /// The item.
    pub item: String,
    /// The worker's final status (`done`, `unchanged`, `failed`...).
    pub status: String,
    /// The worker's answer (its words: a claim).
    pub answer: String,
    /// What each landed file exposes (from the files: facts).
    pub files: Vec<Exposes>,
}

impl WorkerReport {
    /// The checklist's view of this item.
    pub fn plan_item(&self) -> PlanItem {
        PlanItem {
            title: self.item.clone(),
            landed: self.files.iter().map(|f| f.path.clone()).collect(),
            answered: false,
        }
    }
}

/// The plan tool's result: every worker's report, the facts of its files after its words.
pub fn compose(reports: &[WorkerReport]) -> String {
    let mut s = String::new();
    for (i, r) in reports.iter().enumerate() {
        s.push_str(&format!(
            "Item {}: {} — status {}\n",
            i + 1,
            r.item,
            r.status
        ));
        if r.files.is_empty() {
            s.push_str("  files changed: none (from the file system)\n");
        }
        for f in &r.files {
            s.push_str(&format!("  {} (from the file itself):", f.path));
            let list = |v: &[String]| {
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.join(", ")
                }
            };
            s.push_str(&format!(
                " functions: {}; globals: {}; constructs opened: {}\n",
                list(&f.functions),
                list(&f.globals),
                list(&f.constructs)
            ));
        }
        if !r.answer.trim().is_empty() {
            s.push_str(&format!("  worker's answer: {}\n", r.answer.trim()));
        }
    }
    s
}

/// The `plan` tool: each item runs as a worker turn with its own guard, gates and step
/// limit ([`super::config::AgentConfig::worker_max_steps`]). Workers get the standard
/// tools, not `plan`: a worker that plans again is not bounded.
pub struct PlanTool;

impl Tool for PlanTool {
    fn name(&self) -> &'static str {
        TOOL
    }
    fn description(&self) -> &'static str {
        super::wording::D_PLAN
    }
    fn parameters(&self) -> Value {
        schema(super::config::AgentConfig::default().plan_max_items)["function"]["parameters"]
            .clone()
    }
    fn writes(&self) -> bool {
        // Its workers write: it runs alone, in order, like any write.
        true
    }
    fn changes_files(&self) -> bool {
        // Not itself: a question's plan is offered, and its workers are questions
        // ([`super::intent::Intent::for_worker`]), with the write tools withheld.
        false
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let items = match parse(args, ctx.config.plan_max_items) {
            Ok(i) => i,
            Err(e) => return ToolOutput::refused(e),
        };
        let Some(model) = ctx.model else {
            return ToolOutput::refused("plan: no model to run the items");
        };
        let mut cfg = ctx.config.clone();
        cfg.max_steps = cfg.worker_max_steps;
        // The composer's measure covers its workers' writes: taken before the first
        // worker, so the turn's end compares against the project before any of them.
        // A question's workers write nothing: nothing to measure.
        let parent = ctx.edits.intent();
        if !parent.read_only() {
            ctx.edits.ensure_before(ctx);
        }
        let mut reports = Vec::new();
        for (i, item) in items.iter().enumerate() {
            // The user's cancel: no further worker starts (the running one ends at its
            // own look at the shared flag).
            if ctx.cancelled() {
                break;
            }
            ctx.progress
                .say(&format!("plan item {}/{}: {item}", i + 1, items.len()));
            let (guards, gates) = super::guardrails::standard(&cfg, ctx.corpus);
            let marked = ctx.transcript.for_worker(i + 1, item);
            let worker = Turn {
                corpus: ctx.corpus,
                root: ctx.root.to_path_buf(),
                exclude: ctx.exclude.clone(),
                entry: ctx.entry.clone(),
                workspace: ctx.workspace,
                model,
                config: &cfg,
                transcript: &marked,
                progress: ctx.progress,
                cancel: ctx.cancel.clone(),
                registry: Registry::standard(),
                guards,
                gates,
            };
            // The worker runs under the turn's intent, not its item's words alone: under
            // "Remove the table from main.js", an item "add a note line to main.js" took
            // its intent from its own words and grew the file (293 → 329 bytes, `done`).
            let intent = parent.for_worker(item);
            let asks_change = intent.asks_change();
            let out = run_turn_as(
                worker,
                &TurnRequest {
                    text: item.clone(),
                    context: None,
                    about: Vec::new(),
                },
                Some(intent),
            );
            ctx.edits.adopt(out.snapshots.clone());
            ctx.edits.adopt_dirs(out.created_dirs.clone());
            // What each landed file exposes, read from the file: the worker's words are
            // a claim, the file is a fact.
            let files: Vec<Exposes> = out
                .changed
                .iter()
                .filter_map(|rel| {
                    let bytes = ctx.workspace.read(&ctx.root.join(rel)).ok()?;
                    Some(exposes(ctx.corpus, rel, &String::from_utf8_lossy(&bytes)))
                })
                .collect();
            let report = WorkerReport {
                item: item.clone(),
                status: out.status.as_str().to_string(),
                answer: out.answer.clone(),
                files,
            };
            let mut pi = report.plan_item();
            // A question item answered without a change is addressed.
            pi.landed = out.changed.clone();
            pi.answered = out.status == Status::Done && !asks_change;
            ctx.edits.add_plan_item(pi);
            reports.push(report);
        }
        ToolOutput::ok(compose(&reports))
    }
}

/// The composing turn's tools: the standard ones and `plan`.
pub fn registry() -> Registry {
    let mut r = Registry::standard();
    r.register(Box::new(PlanTool));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Corpus {
        Corpus::load(
            &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("corpus/demo"),
        )
        .unwrap()
    }

    #[test]
    fn exposes_reads_functions_globals_and_constructs_from_the_file() {
        let c = demo();
        let k = &c.constructs["table"];
        let text = format!(
            "var rows = 3;\nfunction drawPrices(data) {{\n  var t = new {o}();\n  {g}.{s}(t);\n  {g}.{e}();\n}}\n",
            o = k.object,
            g = k.global,
            s = k.start,
            e = k.end
        );
        let e = exposes(&c, "lib/prices.js", &text);
        assert_eq!(e.functions, vec!["drawPrices".to_string()]);
        assert_eq!(e.globals, vec!["rows".to_string()]);
        assert_eq!(e.constructs, vec!["table".to_string()]);
        let empty = exposes(&c, "x.js", "");
        assert!(empty.functions.is_empty() && empty.constructs.is_empty());
    }

    #[test]
    fn parse_and_compose() {
        assert_eq!(
            parse(&json!({"items": ["a", " A ", "b", ""]}), 6).unwrap(),
            vec!["a", "b"]
        );
        assert!(parse(&json!({"items": []}), 6).is_err());
        assert!(parse(&json!({"items": ["a", "b", "c"]}), 2).is_err());
        let r = WorkerReport {
            item: "header".into(),
            status: "done".into(),
            answer: "Exposes makeHeader and makeFooter".into(),
            files: vec![Exposes {
                path: "a.js".into(),
                functions: vec!["makeHeader".into()],
                ..Exposes::default()
            }],
        };
        let s = compose(std::slice::from_ref(&r));
        assert!(s.contains("a.js (from the file itself): functions: makeHeader;"));
        assert_eq!(r.plan_item().landed, vec!["a.js".to_string()]);
    }
}
