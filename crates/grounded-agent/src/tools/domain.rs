//! The domain tools: what the corpus and the analysis layers know. `find_in_files`
//! here shadows the base one.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{arg_str, arg_usize, cap, Registry, Tool, ToolCtx, ToolOutput};
use crate::audit;
use crate::cache::{corpus_hash, LookupStore};
use crate::edits::confine;
use crate::wording as w;
use grounded_check as check;
use grounded_docs::topic::significant;
use grounded_footprint::{self as footprint, FindOptions};

/// Registers the domain tools (after the base ones: same names shadow).
pub fn register(r: &mut Registry) {
    r.register(Box::new(FindDomain));
    r.register(Box::new(LookupDocs));
    r.register(Box::new(RagLookup));
    r.register(Box::new(ResolveTopic));
    r.register(Box::new(FindConstruct));
    r.register(Box::new(CheckSymbols));
    r.register(Box::new(DryRun));
}

struct FindDomain;

impl Tool for FindDomain {
    fn name(&self) -> &'static str {
        "find_in_files"
    }
    fn description(&self) -> &'static str {
        w::D_FIND_DOMAIN
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "pattern": {"type": "string", "description": "a regex, or a literal with fixed=true"},
            "fixed": {"type": "boolean"},
            "ignore_case": {"type": "boolean"}}, "required": ["pattern"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let Some(pat) = arg_str(args, "pattern").filter(|p| !p.is_empty()) else {
            return ToolOutput::refused("missing `pattern`");
        };
        ctx.progress
            .say(&format!("searching the project for {pat}"));
        let opts = FindOptions {
            fixed: args.get("fixed").and_then(Value::as_bool).unwrap_or(false),
            ignore_case: args
                .get("ignore_case")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            max_hits: Some(200),
            exclude: ctx.exclude.clone(),
            // The editor's unsaved buffers, not the disk: what read_file shows too.
            overlay: ctx.workspace.overlay(),
            ..FindOptions::default()
        };
        match footprint::find_in_files(ctx.corpus, ctx.root, pat, &opts) {
            Ok(r) => ToolOutput::ok(cap(r.render_human(), ctx.config.max_result_chars)),
            Err(e) => ToolOutput::refused(e),
        }
    }
}

struct LookupDocs;

/// A chunk's full text under its title and place, cut to `max` characters.
fn chunk_text(ctx: &ToolCtx, id: usize, max: usize) -> String {
    let c = ctx.corpus.chunk(id);
    let mut body = c.text.trim().to_string();
    if body.len() > max {
        let mut end = max;
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        body.truncate(end);
        body.push_str(" …");
    }
    format!("## {} ({}:{})\n{}\n", c.title, c.file, c.line, body)
}

impl Tool for LookupDocs {
    fn name(&self) -> &'static str {
        "lookup_docs"
    }
    fn description(&self) -> &'static str {
        w::D_LOOKUP_DOCS
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "term": {"type": "string"},
            "limit": {"type": "integer", "description": "default 5"}}, "required": ["term"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let Some(term) = arg_str(args, "term").filter(|t| !t.trim().is_empty()) else {
            return ToolOutput::refused("missing `term`");
        };
        ctx.progress.say(&format!("looking up {term}"));
        let limit = arg_usize(args, "limit").unwrap_or(5).clamp(1, 20);
        let hits = ctx.corpus.lookup(term, limit);
        if hits.is_empty() {
            return ToolOutput::ok(audit::with_hint(
                ctx.corpus,
                term,
                &format!("no chunk of the documentation contains `{term}`"),
                ctx.config.hint_routes,
            ));
        }
        let mut out = String::new();
        for h in hits {
            out.push_str(&chunk_text(ctx, h.chunk, 3000));
        }
        // The phrasebook's hint comes first, asked for or not: a gap is when the real
        // names matter most.
        ToolOutput::ok(cap(
            audit::with_hint(ctx.corpus, term, &out, ctx.config.hint_routes),
            ctx.config.max_result_chars,
        ))
    }
}

struct RagLookup;

/// The chunks a question retrieves: each significant word's full-text hits (BM25),
/// summed, plus the chunks of the symbols the phrasebook routes the question to.
pub fn retrieve(ctx: &ToolCtx, question: &str, limit: usize) -> Vec<usize> {
    let mut score: HashMap<usize, f32> = HashMap::new();
    for word in significant(question) {
        for h in ctx.corpus.lookup(&word, 8) {
            *score.entry(h.chunk).or_default() += h.score;
        }
    }
    let topic = ctx.corpus.resolve_topic(question, 3);
    for m in &topic.matches {
        for sym in m.route.symbols.iter().take(6) {
            for h in ctx.corpus.lookup(sym, 1) {
                *score.entry(h.chunk).or_default() += h.score + 1.0;
            }
        }
    }
    let mut v: Vec<(usize, f32)> = score.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v.into_iter().take(limit).map(|(id, _)| id).collect()
}

impl Tool for RagLookup {
    fn name(&self) -> &'static str {
        "rag_lookup"
    }
    fn description(&self) -> &'static str {
        w::D_RAG_LOOKUP
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "query": {"type": "string"},
            "about": {"type": "string", "description": "a few words for the activity line"}},
            "required": ["query"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let Some(q) = arg_str(args, "query").filter(|t| !t.trim().is_empty()) else {
            return ToolOutput::refused("missing `query`");
        };
        ctx.progress.say(&format!(
            "researching {}",
            arg_str(args, "about").unwrap_or(q)
        ));
        let query = if ctx.config.denoun {
            audit::denoun(ctx.corpus, q)
        } else {
            q.to_string()
        };
        let hint = |text: &str| {
            ToolOutput::ok(audit::with_hint(
                ctx.corpus,
                &query,
                text,
                ctx.config.hint_routes,
            ))
        };
        let mut store = ctx
            .config
            .lookup_cache
            .as_ref()
            .map(|p| LookupStore::open(p, &corpus_hash(ctx.corpus), &ctx.config.model_name));
        if let Some(hit) = store.as_ref().and_then(|s| s.get(&query)) {
            let mut out = hint(hit);
            out.disk = true;
            return out;
        }
        let (out, composed) = compose(&query, ctx);
        if out.refused {
            return out;
        }
        // The composing step can invent: its answer goes through the write path's
        // symbol audit, and comes back with its corrections and the real members.
        let found = audit::audit(ctx.corpus, &out.content);
        let text = audit::annotate(&out.content, &found);
        if let (Some(s), true) = (store.as_mut(), composed) {
            // A cache that cannot be written is no cache; the answer still goes back.
            let _ = s.put(&query, &text, found.flagged());
        }
        hint(&text)
    }
}

/// Retrieval, then the model composes an answer from the chunks; `true` when a model
/// composed it (only those answers are worth keeping on disk).
fn compose(q: &str, ctx: &ToolCtx) -> (ToolOutput, bool) {
    let ids = retrieve(ctx, q, 6);
    if ids.is_empty() {
        return (
                ToolOutput::ok(format!(
                    "no chunk of the documentation matches `{q}`; try resolve_topic or lookup_docs with an engine term"
                )),
                false,
            );
    }
    let excerpts: String = ids.iter().map(|&id| chunk_text(ctx, id, 1500)).collect();
    let sources: Vec<String> = ids
        .iter()
        .map(|&id| ctx.corpus.chunk(id).title.clone())
        .collect();
    let Some(model) = ctx.model else {
        return (
            ToolOutput::ok(cap(excerpts, ctx.config.max_result_chars)),
            false,
        );
    };
    let messages = vec![
        json!({"role": "system", "content": w::RAG_COMPOSE}),
        json!({"role": "user", "content": format!("{excerpts}\nQuestion: {q}")}),
    ];
    match model.chat_watched(&messages, &[], None, &ctx.watch("composing the lookup")) {
        // The user's cancel: the turn ends at its next look at the flag.
        Err(_) if ctx.cancelled() => (
            ToolOutput::refused("rag_lookup: cancelled by the user while composing"),
            false,
        ),
        Ok(r) => (
            ToolOutput::ok(cap(
                format!("{}\n\nsources: {}", r.content.trim(), sources.join("; ")),
                ctx.config.max_result_chars,
            )),
            true,
        ),
        // The composing step failed; the chunks themselves still answer.
        Err(e) => (
            ToolOutput::ok(cap(
                format!("(the composing step failed: {e})\n{excerpts}"),
                ctx.config.max_result_chars,
            )),
            false,
        ),
    }
}

struct ResolveTopic;

impl Tool for ResolveTopic {
    fn name(&self) -> &'static str {
        "resolve_topic"
    }
    fn description(&self) -> &'static str {
        w::D_RESOLVE_TOPIC
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"goal": {"type": "string"}}, "required": ["goal"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let Some(goal) = arg_str(args, "goal").filter(|t| !t.trim().is_empty()) else {
            return ToolOutput::refused("missing `goal`");
        };
        ctx.progress.say(&format!("routing \"{goal}\""));
        ToolOutput::ok(ctx.corpus.resolve_topic(goal, 5).to_string())
    }
}

struct FindConstruct;

impl Tool for FindConstruct {
    fn name(&self) -> &'static str {
        "find_construct"
    }
    fn description(&self) -> &'static str {
        w::D_FIND_CONSTRUCT
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "construct": {"type": "string", "description": "only this construct id (`table`)"}}})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let files: Vec<(PathBuf, String)> = match arg_str(args, "path") {
            Some(p) => match confine(ctx.root, p) {
                Ok(x) => vec![x],
                Err(e) => return ToolOutput::refused(format!("refused: {e}")),
            },
            None => check::project::script_files(ctx.corpus, ctx.root, true)
                .files
                .into_iter()
                .filter(|f| !ctx.exclude.iter().any(|x| f.starts_with(x)))
                .filter_map(|f| {
                    let rel = f
                        .strip_prefix(ctx.root)
                        .ok()?
                        .to_string_lossy()
                        .replace('\\', "/");
                    Some((f, rel))
                })
                .collect(),
        };
        let only = arg_str(args, "construct");
        let mut out = String::new();
        for (abs, rel) in files {
            let Ok(bytes) = ctx.workspace.read(&abs) else {
                out.push_str(&format!("{rel}: cannot be read\n"));
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let script = grounded_js::script_text(&rel, &text, &ctx.corpus.engine.directives);
            let tree = grounded_js::parse(&script);
            for i in footprint::instances(ctx.corpus, &script, &tree) {
                if only.is_some_and(|o| o != i.construct) {
                    continue;
                }
                let lines: Vec<String> = i
                    .lines
                    .iter()
                    .map(|&(a, b)| {
                        if a == b {
                            a.to_string()
                        } else {
                            format!("{a}-{b}")
                        }
                    })
                    .collect();
                out.push_str(&format!(
                    "{rel}: {}{} lines {}-{}{}; footprint {}\n",
                    i.construct,
                    i.object
                        .as_deref()
                        .map(|o| format!(" `{o}`"))
                        .unwrap_or_default(),
                    i.start_line,
                    i.end_line,
                    if i.is_closed() { "" } else { " (unclosed)" },
                    lines.join(", ")
                ));
            }
        }
        if out.is_empty() {
            out = "no construct instance".into();
        }
        ToolOutput::ok(cap(out, ctx.config.max_result_chars))
    }
}

struct CheckSymbols;

impl Tool for CheckSymbols {
    fn name(&self) -> &'static str {
        "check_symbols"
    }
    fn description(&self) -> &'static str {
        w::D_CHECK_SYMBOLS
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "code": {"type": "string"}, "path": {"type": "string"}}})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let (name, text) = if let Some(code) = arg_str(args, "code") {
            let ext = ctx
                .corpus
                .engine
                .script_extensions
                .first()
                .cloned()
                .unwrap_or_else(|| ".js".into());
            (format!("snippet{ext}"), code.to_string())
        } else if let Some(p) = arg_str(args, "path") {
            match confine(ctx.root, p) {
                Ok((abs, rel)) => match ctx.workspace.read(&abs) {
                    Ok(b) => (rel, String::from_utf8_lossy(&b).into_owned()),
                    Err(e) => return ToolOutput::refused(format!("{rel}: {e}")),
                },
                Err(e) => return ToolOutput::refused(format!("refused: {e}")),
            }
        } else {
            return ToolOutput::refused("give `code` or `path`");
        };
        ctx.progress.say(&format!("checking {name}"));
        let index = super::project_index(ctx);
        let found = check::check_text(ctx.corpus, &index, &name, &text);
        if found.is_empty() {
            return ToolOutput::ok(format!("{name}: no findings"));
        }
        let lines: Vec<String> = found
            .iter()
            .map(|f| {
                format!(
                    "{name}:{}:{} {} {}: {}",
                    f.line,
                    f.column,
                    if f.severity == check::Severity::Error {
                        "error"
                    } else {
                        "warning"
                    },
                    f.code.as_str(),
                    f.message
                )
            })
            .collect();
        ToolOutput::ok(cap(lines.join("\n"), ctx.config.max_result_chars))
    }
}

struct DryRun;

impl Tool for DryRun {
    fn name(&self) -> &'static str {
        "dry_run"
    }
    fn description(&self) -> &'static str {
        w::D_DRY_RUN
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"entry": {"type": "string"}}})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let entry = match arg_str(args, "entry") {
            Some(e) => match confine(ctx.root, e) {
                Ok((_, rel)) => Some(rel),
                Err(e) => return ToolOutput::refused(format!("refused: {e}")),
            },
            None => ctx.entry.clone(),
        };
        ctx.progress
            .say("running the project against the fake engine");
        let entries = grounded_dryrun::entries(ctx.corpus, ctx.root, entry.as_deref());
        let overlay = ctx.workspace.overlay();
        let report = grounded_dryrun::run_project(
            ctx.corpus,
            ctx.root,
            &entries,
            &overlay,
            &grounded_dryrun::Options {
                globals: super::project_globals(ctx.root),
                ..Default::default()
            },
        );
        let mut out = String::new();
        if report.findings.is_empty() {
            out.push_str("the dry run found nothing\n");
        }
        for f in &report.findings {
            out.push_str(&format!(
                "{}:{}:{} {}\n",
                f.path, f.line, f.column, f.message
            ));
            // The other side of a blame (the call that failed, when the finding is at
            // the declaration): the model edits where it is pointed, and needs both.
            for p in &f.places {
                out.push_str(&format!(
                    "  related: {}:{}:{} {}\n",
                    p.path, p.line, p.column, p.message
                ));
            }
        }
        out.push_str("what it cannot prove:\n");
        for l in &report.limits {
            out.push_str(&format!("- {l}\n"));
        }
        ToolOutput::ok(cap(out, ctx.config.max_result_chars))
    }
}
