//! `check_code`, the pre-write check for any agent; `check_files` and `dry_run`, the
//! command line's own runs.
//!
//! Why a pre-write check (agent-design.md): refusing invented content before it became
//! a file was the single largest improvement; asked afterwards, the model would rather
//! explain or annotate than un-invent. `check_code` judges the text as the file it will
//! be (the checker's `check_text` over the project index with the text in place of the
//! file, then its ignore comments, `[check]` and the baseline, as the language server
//! judges an unsaved buffer), and its answer says what to change and where the docs say
//! what exists, in the words of the finding.
//!
//! Why `check_files` and `dry_run` run the binary: "exactly what `check --format json`
//! gives" holds by construction only if it is `check --format json` (its baseline
//! handling, its paths, its dry-run budget, its stderr notes); a second driver here
//! would drift from it. A process costs tens of milliseconds, which a whole-project
//! check can spend; the per-write check runs in process.
//!
//! May import `args`, `paths`, `session`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use grounded_check::{suppress, Finding, Severity};
use serde_json::{json, Value};

use super::args::Args;
use super::paths::{inside, Inside};
use super::session::Session;
use super::{Answer, MAX_ARG, MAX_CODE};

/// How long `check_files` and `dry_run` may run before they are stopped: the dry run
/// has its own budget per script; this bounds a project of many.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// `check_code {code, path?}`.
pub fn check_code(s: &Session, roots: &[PathBuf], a: &Args) -> Result<Answer, String> {
    let code = match a.opt_string("code", "layout.tableStart(t);", MAX_CODE) {
        Ok(Some(c)) => c,
        // An empty file is a text too: nothing in it is wrong.
        Err(e) if e.contains("is empty") => String::new(),
        Err(e) => return Err(e),
        Ok(None) => {
            return Err(
                "`check_code` needs `code`, the whole text of the file as you intend to write it, for example {\"code\": \"var t = new Table();\", \"path\": \"main.js\"}".into(),
            )
        }
    };
    let ext = s
        .corpus
        .engine
        .script_extensions
        .first()
        .cloned()
        .unwrap_or_else(|| ".js".into());
    let given = a.opt_string("path", "main.js", MAX_ARG)?;
    let target = match &given {
        Some(p) => inside(s.root(), roots, p)?,
        None => new_script(s, roots, &ext)?,
    };
    let rel = target.rel.clone();
    if !grounded_check::project::is_script(&s.corpus, Path::new(&rel))
        && !grounded_js::is_markdown(&rel)
    {
        return Err(format!(
            "`{rel}` is not a script of this engine: its script extensions are {} (and Markdown's fenced js blocks); name the file with one of them",
            s.corpus.engine.script_extensions.join(" ")
        ));
    }
    let (found, silenced) = judge(s, &rel, &code);
    let excluded = s.rules.excluded(&rel);
    let findings: Vec<Value> = found
        .iter()
        .map(|f| (s.options.finding_json)(f, &code, &s.corpus))
        .collect();
    let mut text = String::new();
    let shown = if given.is_some() {
        format!("`{rel}`")
    } else {
        format!("a new script (`{rel}`)")
    };
    if excluded {
        text.push_str(&format!(
            "grounded.toml's [check] excludes `{rel}`: nothing in it is judged. Nothing was written.\n"
        ));
    } else if found.is_empty() {
        text.push_str(&format!(
            "No findings: the code, as {shown}, uses only what the engine's docs document. Nothing was written.\n"
        ));
    } else {
        let errors = found
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        text.push_str(&format!(
            "{} finding{} in the code as {shown} ({errors} error{}). Nothing was written. Change these before writing the file; the docs are complete, so a name they do not have does not exist in this engine:\n",
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            if errors == 1 { "" } else { "s" },
        ));
        for (f, j) in found.iter().zip(&findings) {
            text.push_str(&render(s, f, j));
        }
    }
    if silenced > 0 {
        text.push_str(&format!(
            "({silenced} more silenced by ignore comments, grounded.toml or the baseline.)\n"
        ));
    }
    Ok(Answer::ok(
        text,
        json!({"path": rel, "findings": findings, "silenced": silenced, "notes": s.notes}),
    ))
}

/// A name for a new script: `untitled.js`, or `untitled-2.js` when that exists.
fn new_script(s: &Session, roots: &[PathBuf], ext: &str) -> Result<Inside, String> {
    let base = match roots.iter().find(|r| r.starts_with(s.root())) {
        Some(r) => r.clone(),
        None => s.root().to_path_buf(),
    };
    let dir = base.strip_prefix(s.root()).unwrap_or(Path::new(""));
    for n in 1.. {
        let name = if n == 1 {
            format!("untitled{ext}")
        } else {
            format!("untitled-{n}{ext}")
        };
        let rel = dir.join(&name);
        if !s.root().join(&rel).exists() {
            return inside(s.root(), roots, &rel.to_string_lossy());
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// The findings of `code` as the file `rel`, with what its comments, `[check]` and the
/// baseline silence left out (and counted). An excluded file has none.
pub fn judge(s: &Session, rel: &str, code: &str) -> (Vec<Finding>, usize) {
    if s.rules.excluded(rel) {
        return (Vec::new(), 0);
    }
    let mut found = s.with_index(|index| {
        // The text stands in for the file while it is judged, and the file's own entry
        // (its text on disk, or none) is put back after.
        let key = grounded_check::project::normalize(rel);
        let before = index.files.get(&key).cloned();
        index.update_file(&s.corpus, rel, code);
        let found = grounded_check::check_text(&s.corpus, index, rel, code);
        match before {
            Some(f) => {
                index.files.insert(key, f);
            }
            None => index.remove_file(rel),
        }
        found
    });
    let file_rules = s.rules.for_file(rel);
    let comments = code.contains(suppress::DIRECTIVE);
    if comments || !file_rules.is_default() || s.baseline.is_some() {
        let script = grounded_js::script_text(rel, code, &s.corpus.engine.directives);
        suppress::apply_file(&mut found, rel, code, &script, &file_rules);
        if let Some(b) = &s.baseline {
            let open: Vec<usize> = (0..found.len())
                .filter(|&i| found[i].ignored.is_none())
                .collect();
            let keys: Vec<_> = open
                .iter()
                .map(|&i| grounded_check::baseline::key_of(&found[i], rel, Some(code)))
                .collect();
            let m = b.apply(&keys, &std::collections::HashSet::new());
            for (&i, hit) in open.iter().zip(&m.silenced) {
                if *hit {
                    found[i].ignored = Some(grounded_check::Ignored {
                        by: grounded_check::IgnoredBy::Baseline,
                        reason: None,
                    });
                }
            }
        }
    }
    let before = found.len();
    found.retain(|f| f.ignored.is_none());
    found.sort_by_key(|f| (f.span.start, f.code));
    let silenced = before - found.len();
    (found, silenced)
}

/// One finding as the agent reads it: where, what, the fix, where the docs say more, and
/// for a member the interface's real members (from the docs' chunk the finding links).
fn render(s: &Session, f: &Finding, j: &Value) -> String {
    let mut out = format!(
        "- {}:{}:{} {}[{}]: {}\n",
        f.path,
        f.line,
        f.column,
        f.severity.as_str(),
        f.code.as_str(),
        f.message
    );
    if let Some(fixes) = j.get("fixes").and_then(Value::as_array) {
        for fix in fixes {
            if let Some(t) = fix.get("title").and_then(Value::as_str) {
                out.push_str(&format!("  fix: {t}\n"));
            }
        }
    }
    if let Some(r) = &f.related {
        let at = j
            .pointer("/docs/path")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| r.file.clone());
        out.push_str(&format!(
            "  docs: {} at {at}:{} (get_doc reads it)\n",
            r.message, r.line
        ));
        if f.code.as_str() == "member" {
            if let Some(iface) = interface_at(s, &r.file, r.line) {
                let names: Vec<String> = s
                    .corpus
                    .members_of(iface)
                    .iter()
                    .map(|m| m.name.clone())
                    .collect();
                if !names.is_empty() {
                    let more = if names.len() > 40 {
                        format!(", … ({} in all)", names.len())
                    } else {
                        String::new()
                    };
                    out.push_str(&format!(
                        "  {iface} has: {}{more}\n",
                        names
                            .iter()
                            .take(40)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
    }
    out
}

/// The interface whose chunk is at `file:line`, when the chunk documents one.
fn interface_at<'a>(s: &'a Session, file: &str, line: usize) -> Option<&'a str> {
    let c = s
        .corpus
        .chunks
        .iter()
        .find(|c| c.file == file && c.line == line)?;
    s.corpus
        .interfaces
        .get_key_value(c.title.as_str())
        .map(|(k, _)| k.as_str())
}

/// `check_files {paths?}`: `grounded check --format json PATHS` in the project root.
pub fn check_files(s: &Session, roots: &[PathBuf], a: &Args) -> Result<Answer, String> {
    let given = a.opt_strings("paths", "main.js", 256)?;
    let mut rels = Vec::new();
    match given {
        Some(ps) => {
            for p in ps {
                let i = inside(s.root(), roots, &p)?;
                if !i.abs.exists() {
                    return Err(format!(
                        "`{p}` does not exist under the project root {}; name a file or folder that does (check_code judges text not yet written)",
                        s.root().display()
                    ));
                }
                rels.push(i.rel);
            }
        }
        // The project, or the client's root inside it; a project outside every root
        // is refused like any path there.
        None => match roots.iter().find(|r| r.starts_with(s.root())) {
            Some(r) => rels.push(inside(s.root(), roots, &r.to_string_lossy())?.rel),
            None => rels.push(inside(s.root(), roots, ".")?.rel),
        },
    }
    let mut args: Vec<String> = vec!["check".into(), "--format".into(), "json".into()];
    if let Some(d) = s.docs_arg() {
        args.push("--docs".into());
        args.push(d.to_string_lossy().into_owned());
    }
    args.push("--".into());
    args.extend(rels.iter().cloned());
    let run = run_binary(s, &args)?;
    let (findings, notes) = findings_of(&run, "check")?;
    let text = summary(
        &findings,
        &format!("`check --format json {}`", rels.join(" ")),
        &notes,
    );
    Ok(Answer::ok(
        text,
        json!({"findings": findings, "notes": notes}),
    ))
}

/// `dry_run {entry?}`: `grounded dry-run --format json [ENTRY]` in the project root.
pub fn dry_run(s: &Session, roots: &[PathBuf], a: &Args) -> Result<Answer, String> {
    // The run starts from the root and reads what the scripts load: a project that is
    // not wholly inside the client's roots is not run.
    if !roots.is_empty() && !roots.iter().any(|r| s.root().starts_with(r)) {
        return Err(format!(
            "the dry run runs the project from its root {}, which is not inside the client's roots; check_code and check_files work inside them",
            s.root().display()
        ));
    }
    let entry = match a.opt_string("entry", "main.js", MAX_ARG)? {
        Some(e) => {
            let i = inside(s.root(), roots, &e)?;
            if !i.abs.is_file() {
                return Err(format!(
                    "the entry `{e}` is not a file under the project root {}; name a script that exists, or leave `entry` out to run grounded.toml's entry",
                    s.root().display()
                ));
            }
            Some(i.rel)
        }
        None => None,
    };
    let mut args: Vec<String> = vec!["dry-run".into(), "--format".into(), "json".into()];
    if let Some(d) = s.docs_arg() {
        args.push("--docs".into());
        args.push(d.to_string_lossy().into_owned());
    }
    if let Some(e) = &entry {
        args.push("--".into());
        args.push(e.clone());
    }
    let run = run_binary(s, &args)?;
    let (findings, notes) = findings_of(&run, "dry run")?;
    let text = summary(&findings, "the dry run", &notes);
    Ok(Answer::ok(
        text,
        json!({"findings": findings, "notes": notes}),
    ))
}

/// What a run of the binary gave.
struct Run {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs the `grounded` binary with `args` in the project root, stdin closed, both
/// outputs captured (nothing of it reaches the server's stdout), stopped after
/// [`RUN_LIMIT`].
fn run_binary(s: &Session, args: &[String]) -> Result<Run, String> {
    let mut child = Command::new(&s.options.exe)
        .args(args)
        .current_dir(s.root())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", s.options.exe.display()))?;
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut o = Vec::new();
        if let Some(out) = out.as_mut() {
            let _ = out.read_to_end(&mut o);
        }
        o
    });
    let err_reader = std::thread::spawn(move || {
        let mut e = Vec::new();
        if let Some(err) = err.as_mut() {
            let _ = err.read_to_end(&mut e);
        }
        e
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st.code(),
            Ok(None) if start.elapsed() > RUN_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the run took longer than {} s and was stopped; name fewer files",
                    RUN_LIMIT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let stdout = reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    Ok(Run {
        status,
        stdout,
        stderr,
    })
}

/// The findings array of a run and its stderr lines; exit 2 is the run's one-line
/// reason as a tool error.
fn findings_of(run: &Run, what: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    let notes: Vec<String> = run
        .stderr
        .lines()
        .map(|l| l.strip_prefix("grounded: ").unwrap_or(l).to_string())
        .filter(|l| !l.is_empty())
        .collect();
    match run.status {
        Some(0) | Some(1) => {}
        _ => {
            let why = notes.last().cloned().unwrap_or_else(|| "it stopped".into());
            return Err(format!("the {what} failed: {why}"));
        }
    }
    match serde_json::from_slice::<Value>(&run.stdout) {
        Ok(Value::Array(a)) => Ok((a, notes)),
        _ => Err(format!(
            "the {what} printed no JSON array (this is a bug in grounded)"
        )),
    }
}

/// The text of a run's findings.
fn summary(findings: &[Value], what: &str, notes: &[String]) -> String {
    let mut text = if findings.is_empty() {
        format!("No findings from {what}.\n")
    } else {
        format!(
            "{} finding{} from {what}:\n",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" }
        )
    };
    for f in findings {
        let g = |k: &str| super::field_text(f, k);
        text.push_str(&format!(
            "- {}:{}:{} {}[{}]: {}\n",
            g("path"),
            g("line"),
            g("column"),
            g("severity"),
            g("code"),
            g("message")
        ));
        if let Some(fixes) = f.get("fixes").and_then(Value::as_array) {
            for fix in fixes {
                if let Some(t) = fix.get("title").and_then(Value::as_str) {
                    text.push_str(&format!("  fix: {t}\n"));
                }
            }
        }
    }
    for n in notes {
        text.push_str(&format!("note: {n}\n"));
    }
    text
}
