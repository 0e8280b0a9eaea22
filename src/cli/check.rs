//! `grounded check`: files, folders and Markdown files against the docs.
//!
//! Output: `human` (codespan-reporting excerpts with carets, the fix and where the docs
//! say more; colour only on a terminal and never under `NO_COLOR`), `json` (the array of
//! interfaces.md) or `sarif` (SARIF 2.1.0 for CI code scanning). Exit 0 when nothing is
//! at error severity, 1 otherwise, 2 on a usage, configuration or corpus error.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

use super::{project_and_corpus, Fail, Format};
use crate::check::{self, Code, Finding, Fix, Severity};

/// `grounded check [--docs P] [--format F] [--dry-run] PATHS...`
pub fn run(
    docs: Option<&Path>,
    format: Format,
    dry_run: bool,
    paths: &[PathBuf],
) -> Result<i32, Fail> {
    let paths: Vec<PathBuf> = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    for p in &paths {
        if !p.exists() {
            return Err(Fail(format!("{}: no such file or folder", p.display())));
        }
    }
    let (project, corpus) = project_and_corpus(&paths[0], docs)?;
    let (mut findings, unreadable) = check::check_paths(&corpus, &project.root, &paths);
    for u in &unreadable {
        eprintln!("grounded: {}: {}", u.path, u.reason);
    }

    // `--dry-run` merges what the fake-engine run of the project finds. Script files
    // named on the command line are the run's entries; otherwise the project's own
    // (grounded.toml's `entry`, else every top-level script).
    if dry_run {
        let named: Vec<PathBuf> = paths
            .iter()
            .filter(|p| p.is_file() && !crate::js::is_markdown(&p.to_string_lossy()))
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter_map(|p| p.strip_prefix(&project.root).ok().map(Path::to_path_buf))
            .collect();
        let entries = if named.is_empty() {
            crate::dryrun::project_entries(&corpus, &project)
        } else {
            named
        };
        let report = crate::dryrun::run_project(
            &corpus,
            &project.root,
            &entries,
            &HashMap::new(),
            &crate::dryrun::Options::default(),
        );
        let fresh = dedupe_dry_run(&findings, report.findings);
        findings.extend(fresh);
        for l in report.limits {
            eprintln!("grounded: dry run: {l}");
        }
        for f in report.failures {
            eprintln!("grounded: {f}");
        }
    }

    findings.sort_by(|a, b| {
        (a.path.as_str(), a.span.start, a.code).cmp(&(b.path.as_str(), b.span.start, b.code))
    });
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&findings)?),
        Format::Sarif => println!("{}", serde_json::to_string_pretty(&sarif(&findings))?),
        Format::Human => human(&findings, &paths, &project.root)?,
    }
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    Ok(if failed { 1 } else { 0 })
}

/// The dry run's findings that the static check has not already made. The run meets
/// the same invented member or missing file the static check saw on a certain
/// receiver; saying it twice would teach users to skim. Paths differ in form (as given,
/// or relative to the root), so a finding is the same when one path ends with the other
/// and the position is equal.
fn dedupe_dry_run(statics: &[Finding], dynamic: Vec<Finding>) -> Vec<Finding> {
    let same_file =
        |a: &str, b: &str| a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"));
    dynamic
        .into_iter()
        .filter(|d| {
            !statics
                .iter()
                .any(|s| s.line == d.line && s.column == d.column && same_file(&s.path, &d.path))
        })
        .collect()
}

/// Reads a file shown as `shown` back for its excerpt: as given, or under one of the
/// folders given, or under the project root.
fn read_back(shown: &str, paths: &[PathBuf], root: &Path) -> Option<String> {
    let mut candidates = vec![PathBuf::from(shown)];
    candidates.extend(paths.iter().filter(|p| p.is_dir()).map(|p| p.join(shown)));
    candidates.push(root.join(shown));
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .and_then(|p| crate::textfile::read(&p).ok().map(|d| d.text))
}

fn human(findings: &[Finding], paths: &[PathBuf], root: &Path) -> Result<(), Fail> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let choice = if !no_color && std::io::stdout().is_terminal() {
        termcolor::ColorChoice::Auto
    } else {
        termcolor::ColorChoice::Never
    };
    let stdout = termcolor::StandardStream::stdout(choice);
    let config = term::Config::default();
    let mut files = SimpleFiles::new();
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    for f in findings {
        let id = *ids.entry(f.path.clone()).or_insert_with(|| {
            let text = read_back(&f.path, paths, root).unwrap_or_default();
            files.add(f.path.clone(), text)
        });
        let source_len = files.get(id).map(|s| s.source().len()).unwrap_or(0);
        let mut diag = match f.severity {
            Severity::Error => Diagnostic::error(),
            Severity::Warning => Diagnostic::warning(),
        }
        .with_code(f.code.as_str())
        .with_message(&f.message);
        if f.span.end <= source_len {
            diag = diag.with_labels(vec![Label::primary(id, f.span.start..f.span.end)]);
        } else {
            diag = diag.with_notes(vec![format!("at {}:{}:{}", f.path, f.line, f.column)]);
        }
        let mut notes = Vec::new();
        for fix in &f.fixes {
            match fix {
                Fix::Replace { title, .. } => notes.push(format!("fix: {title}")),
                Fix::Delete { title, .. } => notes.push(format!("fix: {title}")),
            }
        }
        if let Some(r) = &f.related {
            notes.push(format!("docs: {} at {}:{}", r.message, r.file, r.line));
        }
        diag = diag.with_notes(notes);
        let mut lock = stdout.lock();
        term::emit_to_write_style(&mut lock, &config, &files, &diag)
            .map_err(|e| Fail(e.to_string()))?;
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    if findings.is_empty() {
        println!("no findings");
    } else {
        println!("{errors} error(s), {warnings} warning(s)");
    }
    Ok(())
}

fn describe(code: Code) -> &'static str {
    match code {
        Code::Member => "A member that the receiver's interface does not have",
        Code::Object => "A receiver that is declared nowhere",
        Code::Function => "A bare call of a function defined nowhere",
        Code::Syntax => "Syntax above the engine's ECMAScript level, or a parse error",
        Code::Option => "An object-literal key that the parameter's interface does not have",
        Code::Constructor => {
            "new X() of a constructor that neither the docs nor the language define"
        }
        Code::Engine => "A built-in that the engine's ECMAScript level lacks",
        Code::File => "A path argument naming a file that does not exist",
        Code::Construct => "A construct's Start with no matching End, or an End with no Start",
        Code::DryRun => "What the fake-engine run found",
    }
}

/// The findings as a SARIF 2.1.0 log.
pub fn sarif(findings: &[Finding]) -> serde_json::Value {
    use serde_json::json;
    let codes = [
        Code::Member,
        Code::Object,
        Code::Function,
        Code::Syntax,
        Code::Option,
        Code::Constructor,
        Code::Engine,
        Code::File,
        Code::Construct,
        Code::DryRun,
    ];
    let rules: Vec<_> = codes
        .iter()
        .map(|c| {
            json!({
                "id": c.as_str(),
                "shortDescription": {"text": describe(*c)},
                "defaultConfiguration": {"level": match c.severity() {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                }},
            })
        })
        .collect();
    let results: Vec<_> = findings
        .iter()
        .map(|f| {
            let mut r = json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": codes.iter().position(|c| *c == f.code).unwrap_or(0),
                "level": match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace('\\', "/")},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        }
                    }
                }],
            });
            if let Some(rel) = &f.related {
                r["relatedLocations"] = json!([{
                    "id": 0,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": rel.file},
                        "region": {"startLine": rel.line},
                    }
                }]);
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "grounded",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }]
    })
}
