//! Measure, apply, measure: the project's checker findings, dry-run findings and the
//! optional validate command, before the turn's first write and after its last.
//!
//! Why keyed by contents: a typecheck once cached for five seconds with no file key
//! scored every change against the baseline's own result, so every change "passed".
//! Here a measurement is stored under a hash of every measured file's path and bytes,
//! and is reused only for exactly those contents.
//!
//! May import `edits` (the ledger, [`Measurement`]) and `tools` ([`ToolCtx`]); `landing`
//! and the turn import this.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::edits::finding_key;
pub use super::edits::Measurement;
use super::tools::ToolCtx;
use grounded_check::{self as check, Finding, ProjectIndex, Severity};

/// The measured files' contents: relative path → text.
fn contents(ctx: &ToolCtx) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for file in check::project::script_files(ctx.corpus, ctx.root, true).files {
        if ctx.exclude.iter().any(|e| file.starts_with(e)) {
            continue;
        }
        let Ok(rel) = file.strip_prefix(ctx.root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if let Ok(bytes) = ctx.workspace.read(&file) {
            if let Ok(text) = String::from_utf8(bytes) {
                out.insert(rel, text);
            }
        }
    }
    out
}

/// The key of a measurement: every measured script's path and text, and the bytes of
/// every file the turn wrote (a validate command reads files that are not scripts: a
/// key of the scripts alone once let an edit of a data file reuse the baseline).
fn stamp(ctx: &ToolCtx, files: &BTreeMap<String, String>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (p, t) in files {
        p.hash(&mut h);
        t.hash(&mut h);
    }
    for rel in ctx.edits.written() {
        rel.hash(&mut h);
        ctx.workspace.read(&ctx.root.join(&rel)).ok().hash(&mut h);
    }
    ctx.config.validate.hash(&mut h);
    h.finish()
}

/// Measures the project as the workspace shows it now, and writes a `measure` event.
pub fn measure(ctx: &ToolCtx, when: &str) -> Measurement {
    let files = contents(ctx);
    let key = stamp(ctx, &files);
    let m = ctx.edits.measurement(key, || measure_contents(ctx, &files));
    ctx.transcript.event(
        "measure",
        json!({"when": when, "findings": m.findings, "dry_run": m.dry_run,
               "validate": m.validate}),
    );
    m
}

fn measure_contents(ctx: &ToolCtx, files: &BTreeMap<String, String>) -> Measurement {
    let corpus = ctx.corpus;
    let mut index = ProjectIndex {
        root: ctx.root.to_path_buf(),
        files: files
            .iter()
            .filter(|(rel, _)| check::project::is_script(corpus, Path::new(rel)))
            .map(|(rel, text)| (rel.clone(), check::FileFacts::of(corpus, rel, text)))
            .collect(),
        notes: Vec::new(),
        ..ProjectIndex::default()
    };
    index.set_globals(corpus, &crate::tools::project_globals(ctx.root));
    let mut m = Measurement::default();
    for (rel, text) in files {
        let found: Vec<Finding> = check::check_text(corpus, &index, rel, text)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        if found.is_empty() {
            continue;
        }
        m.findings.insert(
            rel.clone(),
            found
                .iter()
                .map(|f| format!("{}:{} {}: {}", f.line, f.column, f.code.as_str(), f.message))
                .collect(),
        );
        m.keys
            .insert(rel.clone(), found.iter().map(finding_key).collect());
    }
    if ctx.config.dry_run {
        let overlay: HashMap<_, _> = files
            .iter()
            .map(|(rel, text)| (ctx.root.join(rel), text.clone()))
            .collect();
        let entries = grounded_dryrun::entries(corpus, ctx.root, ctx.entry.as_deref());
        let report = grounded_dryrun::run_project(
            corpus,
            ctx.root,
            &entries,
            &overlay,
            &grounded_dryrun::Options {
                globals: crate::tools::project_globals(ctx.root),
                ..Default::default()
            },
        );
        for f in &report.findings {
            m.dry_run
                .push(format!("{}:{}:{} {}", f.path, f.line, f.column, f.message));
            m.dry_keys.push(format!("{} {}", f.path, finding_key(f)));
        }
    }
    if let Some(cmd) = &ctx.config.validate {
        m.validate = Some(run_validate(cmd, ctx.root, ctx.config.validate_timeout));
    }
    m
}

/// Runs the validate command in `root`; passing means exit status 0 within `limit`.
pub fn run_validate(cmd: &str, root: &Path, limit: Duration) -> bool {
    let shell = if cfg!(windows) { "cmd" } else { "sh" };
    let flag = if cfg!(windows) { "/C" } else { "-c" };
    let Ok(mut child) = Command::new(shell)
        .arg(flag)
        .arg(cmd)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
}

/// What `after` has that `before` did not: new findings per file (multiset, by family
/// and message), new dry-run findings, a validate command that passed and now fails.
/// A change that merely does not improve has none: the user asked for it.
pub fn regressions(before: &Measurement, after: &Measurement) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, keys) in &after.keys {
        let mut had: HashMap<&str, usize> = HashMap::new();
        for k in before.keys.get(rel).into_iter().flatten() {
            *had.entry(k.as_str()).or_default() += 1;
        }
        for (i, k) in keys.iter().enumerate() {
            match had.get_mut(k.as_str()) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(format!(
                    "new finding in {rel}: {}",
                    after.findings[rel].get(i).map(String::as_str).unwrap_or(k)
                )),
            }
        }
    }
    let mut had: HashMap<&str, usize> = HashMap::new();
    for k in &before.dry_keys {
        *had.entry(k.as_str()).or_default() += 1;
    }
    for (i, k) in after.dry_keys.iter().enumerate() {
        match had.get_mut(k.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(format!("new dry-run finding: {}", after.dry_run[i])),
        }
    }
    if before.validate == Some(true) && after.validate == Some(false) {
        out.push(
            "the validate command passed before the turn's writes and fails after them".into(),
        );
    }
    out
}
