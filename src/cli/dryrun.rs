//! `grounded dry-run`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check::{Finding, Severity};
use crate::dryrun::{self, Options};

use super::{project_and_corpus, Fail, Format};

/// `grounded dry-run [--docs P] [--format F] [--budget-ms N] [ENTRY]`
///
/// The project is the one around ENTRY (else the current folder); the entries are
/// ENTRY, else `grounded.toml`'s `entry`, else every top-level script. Findings' paths
/// are relative to the project root.
pub fn run(
    docs: Option<&Path>,
    format: Format,
    budget_ms: u64,
    entry: Option<&Path>,
) -> Result<i32, Fail> {
    let format = super::plain_format("dry-run", format)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let start = match entry {
        Some(e) => {
            if !e.is_file() {
                return Err(Fail(format!("entry script {} does not exist", e.display())));
            }
            e.to_path_buf()
        }
        None => cwd.clone(),
    };
    let (mut project, corpus) = project_and_corpus(&start, docs)?;
    // Without a grounded.toml, an entry outside the current folder brings its own
    // folder as the root rather than failing.
    if let (Some(e), false) = (entry, project.has_config) {
        if let Ok(abs) = std::fs::canonicalize(e) {
            if !abs.starts_with(&project.root) {
                if let Some(dir) = abs.parent() {
                    project.root = dir.to_path_buf();
                }
            }
        }
    }
    let entries: Vec<PathBuf> = match entry {
        Some(e) => {
            let abs = std::fs::canonicalize(e).map_err(|err| format!("{}: {err}", e.display()))?;
            match abs.strip_prefix(&project.root) {
                Ok(rel) => vec![rel.to_path_buf()],
                Err(_) => {
                    return Err(Fail(format!(
                        "entry script {} is outside the project root {}",
                        e.display(),
                        project.root.display()
                    )))
                }
            }
        }
        None => match &project.config.entry {
            Some(e) => {
                if !project.root.join(e).is_file() {
                    return Err(Fail(format!(
                        "the entry `{e}` named in grounded.toml does not exist under {}",
                        project.root.display()
                    )));
                }
                dryrun::project_entries(&corpus, &project)
            }
            None => dryrun::project_entries(&corpus, &project),
        },
    };
    if entries.is_empty() {
        return Err(Fail(format!(
            "no script to run under {} (no entry given, none in grounded.toml, no top-level script)",
            project.root.display()
        )));
    }
    let names: Vec<String> = entries
        .iter()
        .map(|e| super::from_cwd(&project.root.join(e)))
        .collect();
    eprintln!("grounded: dry run of {}", names.join(", "));
    let opts = Options {
        budget_ms,
        globals: project.config.globals.clone(),
        ..Options::default()
    };
    let mut report = dryrun::run_project(&corpus, &project.root, &entries, &HashMap::new(), &opts);
    // Paths as the user names them from the current folder, as `check` prints them;
    // the texts are read back from the root-relative path first.
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let mut files = super::check::Texts::default();
    for f in &mut report.findings {
        let full = project.root.join(&f.path);
        let shown = super::from_cwd(&full);
        if !texts.contains_key(&shown) {
            texts.insert(
                shown.clone(),
                crate::textfile::read(&full).ok().map(|d| d.text),
            );
        }
        files.files.insert(shown.clone(), full);
        f.path = shown;
        for p in &mut f.places {
            p.path = super::from_cwd(&project.root.join(&p.path));
        }
    }
    match format {
        Format::Json => {
            // The same objects as `check --format json`, fixes and docs included.
            let out: Vec<_> = report
                .findings
                .iter()
                .map(|f| super::check::finding_json(f, &mut files, &corpus))
                .collect();
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        _ => print_human(&texts, &report),
    }
    for f in &report.failures {
        eprintln!("grounded: {f}");
    }
    let errors = report
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    Ok(if errors { 1 } else { 0 })
}

fn print_human(texts: &HashMap<String, Option<String>>, report: &dryrun::Report) {
    for f in &report.findings {
        let text = texts.get(&f.path).and_then(|t| t.as_deref());
        print_finding(f, text);
    }
    let n = report.findings.len();
    println!("dry run: {n} finding{}", if n == 1 { "" } else { "s" });
    for l in &report.limits {
        println!("  limit: {l}");
    }
}

fn print_finding(f: &Finding, text: Option<&str>) {
    let sev = f.severity.as_str();
    println!(
        "{}:{}:{}: {sev}[{}]: {}",
        f.path,
        f.line,
        f.column,
        f.code.as_str(),
        f.message
    );
    let Some(line) = text.and_then(|t| t.lines().nth(f.line.saturating_sub(1))) else {
        print_places(f);
        return;
    };
    let end = if f.end_line == f.line {
        f.end_column.saturating_sub(1)
    } else {
        f.column
    };
    let w = super::excerpt::window(
        line,
        f.column.saturating_sub(1),
        end,
        super::excerpt::width(),
    );
    println!("{:>5} | {}", f.line, w.text);
    println!("      | {}{}", " ".repeat(w.caret_at), "^".repeat(w.carets));
    print_places(f);
}

/// The other places a finding is about, one line each under its excerpt.
fn print_places(f: &Finding) {
    for p in &f.places {
        println!(
            "      = related: {}:{}:{}: {}",
            p.path, p.line, p.column, p.message
        );
    }
}
