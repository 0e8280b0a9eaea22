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
use crate::check::{self, Finding, Fix, Severity, CODES};

/// `--fix` / `--diff` / neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FixMode {
    /// Report only.
    #[default]
    Off,
    /// Write the sure fixes, then report what is left.
    Write,
    /// Print the diff of the sure fixes; write nothing.
    Diff,
}

/// The flags of `grounded check` beside `--docs`, `--format` and the paths.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--select`.
    pub select: Option<Vec<String>>,
    /// `--ignore`.
    pub ignore: Option<Vec<String>>,
    /// `--show-ignored`.
    pub show_ignored: bool,
    /// `--fix` / `--diff`.
    pub fix: FixMode,
    /// `--baseline FILE` (over `[check] baseline`).
    pub baseline: Option<PathBuf>,
    /// `--write-baseline FILE`.
    pub write_baseline: Option<PathBuf>,
    /// `--unsafe-fixes`: `--fix`/`--diff` apply a finding's only fix even when unsafe.
    pub unsafe_fixes: bool,
    /// `--add-ignore[=REASON]`: an ignore comment for every finding left (the reason,
    /// empty for none).
    pub add_ignore: Option<String>,
    /// `--prune-baseline`: drop the baseline's stale entries, add nothing.
    pub prune_baseline: bool,
    /// `--no-baseline`: the configured baseline is not read.
    pub no_baseline: bool,
    /// `--output FILE` / `-o`: the chosen format to the file, the human report of what
    /// is not silenced on the terminal.
    pub output: Option<PathBuf>,
}

/// `grounded check [--docs P] [--format F] [--dry-run] [--select C] [--ignore C]
/// [--show-ignored] [--fix|--diff] [--baseline F | --write-baseline F] PATHS...`
pub fn run(
    docs: Option<&Path>,
    format: Format,
    opts: &Options,
    paths: &[PathBuf],
) -> Result<i32, Fail> {
    let dry_run = opts.dry_run;
    let fix = opts.fix;
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
    super::report::load_diagnostics(&project, &corpus);
    let rules = check::Rules::new(
        &project.config.check,
        &project.root,
        opts.select.as_deref(),
        opts.ignore.as_deref(),
    )
    .map_err(Fail)?;
    if let Some(why) = rules.nothing_selected() {
        return Err(Fail(format!(
            "nothing to check: every code is turned off ({why})"
        )));
    }
    // Read before anything is fixed or printed: a broken baseline is a configuration
    // error, and saying it after a page of findings hid it. `--write-baseline` reads
    // the file only to keep the entries of files it did not check (baseline.rs).
    let configured = if opts.no_baseline {
        None
    } else {
        rules.baseline.as_ref()
    };
    let known = match (&opts.write_baseline, &opts.baseline, configured) {
        (Some(_), _, _) => None,
        (None, Some(b), _) | (None, None, Some(b)) => Some((b.clone(), super::baseline::read(b)?)),
        (None, None, None) => None,
    };
    if opts.prune_baseline && known.is_none() {
        return Err(Fail(
            "--prune-baseline needs a baseline: --baseline FILE, or `baseline` in grounded.toml's [check]".into(),
        ));
    }
    let mut fix_failed = false;
    if fix != FixMode::Off {
        let fixed = super::fix::run(
            &corpus,
            &project,
            &rules,
            &paths,
            fix == FixMode::Write,
            opts.unsafe_fixes,
        )?;
        fix_failed = fixed.failed;
        if fix == FixMode::Diff {
            // The diff is the output: what is left only sets the exit status.
            let mut texts = Texts::default();
            for (shown, text) in fixed.texts {
                texts.read.insert(shown, Some(text));
            }
            let rels = rels_of(&project.root, &paths, &corpus);
            let mut left = fixed.left;
            if let Some((file, b)) = &known {
                super::baseline::mark(&mut left, file, b, &rels, &mut texts, &project.root, false);
            }
            std::mem::forget(corpus);
            return Ok(exit_status(&left, fix_failed));
        }
    }
    let checked = check::check_paths_opts(
        &corpus,
        &project.root,
        &paths,
        check::PathsOptions {
            globals: &project.config.globals,
            rules: Some(&rules),
            exits_after: true,
        },
    );
    project_globals_said(&checked);
    for g in &checked.unmatched_globs {
        eprintln!("grounded: warning: {g}");
    }
    for u in &checked.unreadable {
        eprintln!("grounded: {}: {}", u.path, u.reason);
    }
    // A file no path named, read for its top-level names only: "latin1.js: not valid
    // UTF-8" under `check bom.js` read as if bom.js's check had read it.
    for u in &checked.scanned {
        eprintln!(
            "grounded: {} (read for the project's names, not checked): {}",
            super::from_cwd(&project.root.join(&u.path)),
            u.reason
        );
    }
    // "no findings" after checking nothing once read as a clean project: a folder of
    // `.jsx` files under an engine whose docs did not list `.jsx` looked perfect.
    if !checked.checked.iter().any(|c| c.script) && checked.unreadable.is_empty() {
        // `exclude = ["*.js"]` checked nothing and said "no findings".
        if !checked.excluded.is_empty() {
            return Err(Fail(super::report::all_excluded(&paths, &checked.excluded)));
        }
        match prose_only(&paths, &checked.checked) {
            // A prose README staged alone: checked (its ignore comments too), clean.
            Some(note) => eprintln!("grounded: {note}"),
            None => return Err(Fail(no_script(&paths, &checked.checked, &corpus))),
        }
    }
    let mut texts = Texts::default();
    for c in &checked.checked {
        texts.files.insert(c.shown.clone(), c.file.clone());
    }
    let mut findings = checked.findings;

    if dry_run {
        let entries = dry_run_entries(&corpus, &project, &paths);
        if entries.is_empty() {
            eprintln!("grounded: dry run: no script to run (every script is loaded by another)");
        } else {
            let how = if project.config.entry.is_some() && entries_from_config(&paths) {
                " (grounded.toml's entry)"
            } else {
                ""
            };
            let names: Vec<String> = entries
                .iter()
                .map(|e| shown_from_root(&project.root, e, &checked.checked))
                .collect();
            eprintln!("grounded: dry run of {}{how}", names.join(", "));
        }
        let report = crate::dryrun::run_project(
            &corpus,
            &project.root,
            &entries,
            &HashMap::new(),
            &crate::dryrun::Options {
                globals: project.config.globals.clone(),
                ..Default::default()
            },
        );
        let dynamic: Vec<Finding> = report
            .findings
            .into_iter()
            .map(|mut f| {
                let shown = shown_from_root(&project.root, Path::new(&f.path), &checked.checked);
                texts
                    .files
                    .entry(shown.clone())
                    .or_insert_with(|| project.root.join(&f.path));
                f.path = shown;
                for p in &mut f.places {
                    p.path = shown_from_root(&project.root, Path::new(&p.path), &checked.checked);
                }
                f
            })
            .collect();
        let mut fresh = dedupe_dry_run(&findings, dynamic);
        dry_run_rules(&mut fresh, &rules, &project.root, &mut texts, &corpus);
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
    let rels: HashMap<String, String> = checked
        .checked
        .iter()
        .map(|c| {
            (
                c.shown.clone(),
                crate::check::project::relative(&project.root, &c.file),
            )
        })
        .collect();
    if let Some(file) = &opts.write_baseline {
        let whole = super::baseline::covers_root(&paths, &project.root);
        super::baseline::write(file, &findings, &rels, &mut texts, &project.root, whole)?;
        std::mem::forget(corpus);
        return Ok(if fix_failed { 2 } else { 0 });
    }
    if let Some((file, b)) = &known {
        let prune = opts.prune_baseline;
        let m = super::baseline::mark(
            &mut findings,
            file,
            b,
            &rels,
            &mut texts,
            &project.root,
            prune,
        );
        if prune {
            super::baseline::prune(file, b, &m)?;
            std::mem::forget(corpus);
            return Ok(0);
        }
    }
    if let Some(reason) = &opts.add_ignore {
        let code = super::add_ignore::run(&corpus, &project, &rules, &findings, &texts, reason)?;
        std::mem::forget(corpus);
        return Ok(code);
    }
    let summary = super::report::Summary::of(&findings, opts.unsafe_fixes);
    // SARIF keeps what was silenced, as suppressions; the others list it only when asked.
    let keep_silenced = format == Format::Sarif || opts.show_ignored;
    let (findings, silenced): (Vec<Finding>, Vec<Finding>) = if keep_silenced {
        (findings, Vec::new())
    } else if findings.iter().all(|f| f.ignored.is_none()) {
        // Nothing silenced (the common case): no finding is moved.
        (findings, Vec::new())
    } else {
        findings.into_iter().partition(|f| f.ignored.is_none())
    };
    let rendered = match format {
        Format::Json => {
            texts.prepare_all(&findings, &corpus);
            Some(json_array(&findings, &texts, &corpus)?)
        }
        Format::Sarif => {
            Some(serde_json::to_string_pretty(&sarif(&findings, &mut texts, &corpus))? + "\n")
        }
        Format::Human => None,
    };
    match (&opts.output, rendered) {
        (None, Some(text)) => print!("{text}"),
        (None, None) => {
            let mut out = stdout_color();
            human(
                &mut out,
                &findings,
                silenced.len(),
                &mut texts,
                &corpus,
                &summary,
            )?;
        }
        (Some(file), rendered) => {
            let text = match rendered {
                Some(t) => t,
                None => {
                    let mut buf = termcolor::NoColor::new(Vec::new());
                    human(
                        &mut buf,
                        &findings,
                        silenced.len(),
                        &mut texts,
                        &corpus,
                        &summary,
                    )?;
                    String::from_utf8_lossy(&buf.into_inner()).into_owned()
                }
            };
            super::report::write_output(file, &text)?;
            // The terminal: what is not silenced, as people read it (a CI log that
            // said only "36 known findings silenced" before exit 1 told nobody what failed).
            let (open, quiet): (Vec<Finding>, Vec<Finding>) = if opts.show_ignored {
                (findings.clone(), Vec::new())
            } else {
                findings.iter().cloned().partition(|f| f.ignored.is_none())
            };
            let hidden = silenced.len() + quiet.len();
            let mut out = stdout_color();
            human(&mut out, &open, hidden, &mut texts, &corpus, &summary)?;
        }
    }
    // The process ends after this command: freeing a 20,000-chunk corpus one
    // allocation at a time was a tenth of a warm `check`'s instructions, for memory
    // the system takes back whole at exit (and a project's thousands of findings, its
    // texts and index after it, a serial stretch at the end of its run).
    std::mem::forget(corpus);
    let status = exit_status(&findings, fix_failed);
    std::mem::forget((findings, silenced, texts, project));
    Ok(status)
}

/// 1 when a finding left (and not silenced) is at error severity, else 0; 2 when a fix
/// could not be written (the report of what is left still went out).
fn exit_status(left: &[Finding], fix_failed: bool) -> i32 {
    if fix_failed {
        2
    } else if left
        .iter()
        .any(|f| f.severity == Severity::Error && f.ignored.is_none())
    {
        1
    } else {
        0
    }
}

/// The project-relative file of each shown path the check reads (for `--diff`, which
/// does not run the report's check).
fn rels_of(
    root: &Path,
    paths: &[PathBuf],
    corpus: &crate::docs::Corpus,
) -> HashMap<String, String> {
    check::files_of(corpus, paths)
        .0
        .into_iter()
        .map(|(shown, file)| (shown, crate::check::project::relative(root, &file)))
        .collect()
}

/// Why a run checked no script (and no named Markdown file: [`prose_only`]).
fn no_script(
    paths: &[PathBuf],
    _checked: &[check::Checked],
    corpus: &crate::docs::Corpus,
) -> String {
    let under: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "no scripts found under {}: the engine's script extensions are {} (and Markdown files' fenced js blocks)",
        under.join(", "),
        corpus.engine.script_extensions.join(" ")
    )
}

/// Markdown files named one by one, all prose: checked (their ignore comments are
/// read) and clean, with a note that they hold no script. A prose README staged alone
/// once failed the pre-commit hook with exit 2; "no scripts found under README.md"
/// before that sent a newcomer looking for a folder.
fn prose_only(paths: &[PathBuf], checked: &[check::Checked]) -> Option<String> {
    let named_md = paths
        .iter()
        .all(|p| p.is_file() && crate::js::is_markdown(&p.to_string_lossy()));
    if !named_md || checked.is_empty() {
        return None;
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let has = if names.len() == 1 { "has" } else { "have" };
    Some(format!(
        "{} {has} no fenced js block: a Markdown file's scripts are its ```js blocks; nothing in it to check",
        names.join(", ")
    ))
}

/// Whether the dry run's entries include `grounded.toml`'s (a folder was named).
fn entries_from_config(paths: &[PathBuf]) -> bool {
    paths.iter().any(|p| p.is_dir())
}

/// The dry run's entries, relative to the project root. Script files named on the
/// command line run as given; a folder brings `grounded.toml`'s `entry` when it names
/// one, else every script inside the folder that no other script of the project loads.
/// The README once promised that `check --dry-run examples/demo` reports
/// `mistakes/dynamic.js`, while the run started at the entry alone.
fn dry_run_entries(
    corpus: &crate::docs::Corpus,
    project: &crate::project::Project,
    paths: &[PathBuf],
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut folders = Vec::new();
    for p in paths {
        let Ok(abs) = std::fs::canonicalize(p) else {
            continue;
        };
        if p.is_dir() {
            folders.push(abs);
        } else if let Ok(rel) = abs.strip_prefix(&project.root) {
            // A Markdown file named on its own runs its fenced blocks, as it is checked.
            out.push(rel.to_path_buf());
        }
    }
    if !folders.is_empty() {
        let found = match &project.config.entry {
            Some(e) => vec![PathBuf::from(e)],
            None => crate::dryrun::project_entries(corpus, project)
                .into_iter()
                .filter(|e| {
                    let abs = project.root.join(e);
                    folders.iter().any(|f| abs.starts_with(f))
                })
                .collect(),
        };
        for e in found {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// A file named by its path relative to the project root, as the user would name it:
/// the name a checked file was shown under, else relative to the current folder.
fn shown_from_root(root: &Path, rel: &Path, checked: &[check::Checked]) -> String {
    let abs = root.join(rel);
    let key = std::fs::canonicalize(&abs).ok();
    if let Some(k) = &key {
        for c in checked {
            if std::fs::canonicalize(&c.file).ok().as_ref() == Some(k) {
                return c.shown.clone();
            }
        }
    }
    super::from_cwd(&abs)
}

/// The dry run's findings that the static check has not already made. The run meets
/// the same invented member or missing file the static check saw on a certain
/// receiver; saying it twice would teach users to skim.
fn dedupe_dry_run(statics: &[Finding], dynamic: Vec<Finding>) -> Vec<Finding> {
    dynamic
        .into_iter()
        .filter(|d| {
            !statics
                .iter()
                .any(|s| s.line == d.line && s.column == d.column && s.path == d.path)
        })
        .collect()
}

/// The checked files' texts, read back once each for excerpts and fix positions.
#[derive(Default)]
pub(super) struct Texts {
    /// Where to read each shown path from (else the shown path itself).
    pub(super) files: HashMap<String, PathBuf>,
    /// Texts read (or given: `--diff`'s fixed texts, never on disk).
    pub(super) read: HashMap<String, Option<String>>,
    /// The line starts of each text, found once: each finding with a fix indexed its
    /// whole file again, 30% of checking a 100,000-line script (issue 48).
    starts: HashMap<String, Vec<usize>>,
    /// Where each docs file of the corpus is, as findings show it ([`docs_location`]),
    /// found once: each finding's link asked the file system again (two
    /// canonicalisations and two stats), thousands of times in a project's report.
    docs: HashMap<String, String>,
}

impl Texts {
    pub(super) fn get(&mut self, shown: &str) -> Option<&str> {
        let files = &self.files;
        self.read
            .entry(shown.to_string())
            .or_insert_with(|| {
                let p = files
                    .get(shown)
                    .cloned()
                    .unwrap_or_else(|| PathBuf::from(shown));
                crate::textfile::read(&p).ok().map(|d| d.text)
            })
            .as_deref()
    }

    /// The line index of a text ([`Texts::get`]), its line starts found once.
    fn index(&mut self, shown: &str) -> Option<crate::js::LineIndex<'_>> {
        self.get(shown)?;
        let text = self.read.get(shown)?.as_deref()?;
        let starts = self
            .starts
            .entry(shown.to_string())
            .or_insert_with(|| crate::js::LineIndex::new(text).into_starts());
        Some(crate::js::LineIndex::from_kept(text, starts))
    }

    /// Reads what [`finding_json_read`] will ask of `f`: its file's line index when it
    /// has fixes, where its docs link points.
    fn prepare(&mut self, f: &Finding, corpus: &crate::docs::Corpus) {
        if !f.fixes.is_empty() {
            self.index(&f.path);
        }
        if let Some(r) = &f.related {
            docs_location(self, corpus, r);
        }
    }

    /// [`Texts::prepare`] for every finding, the files that need a line index read and
    /// indexed on every core first.
    ///
    /// Why: read one by one after the check, the files of a real 392-file project's
    /// fixes were a serial stretch of its run (issue 48).
    fn prepare_all(&mut self, findings: &[Finding], corpus: &crate::docs::Corpus) {
        use rayon::prelude::*;
        let mut wanted: Vec<&str> = findings
            .iter()
            .filter(|f| !f.fixes.is_empty() && !self.starts.contains_key(&f.path))
            .map(|f| f.path.as_str())
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let files = &self.files;
        let read = &self.read;
        let found: Vec<(String, Option<String>)> = wanted
            .par_iter()
            .filter(|shown| !read.contains_key(**shown))
            .map(|&shown| {
                let p = files
                    .get(shown)
                    .cloned()
                    .unwrap_or_else(|| PathBuf::from(shown));
                let text = crate::textfile::read(&p).ok().map(|d| d.text);
                (shown.to_string(), text)
            })
            .collect();
        self.read.extend(found);
        let read = &self.read;
        let starts: Vec<(String, Vec<usize>)> = wanted
            .par_iter()
            .filter_map(|&shown| {
                let text = read.get(shown)?.as_deref()?;
                Some((
                    shown.to_string(),
                    crate::js::LineIndex::new(text).into_starts(),
                ))
            })
            .collect();
        self.starts.extend(starts);
        for f in findings {
            self.prepare(f, corpus);
        }
    }

    /// The line index [`Texts::index`] made of `shown`, if it did.
    fn index_made(&self, shown: &str) -> Option<crate::js::LineIndex<'_>> {
        let text = self.read.get(shown)?.as_deref()?;
        let starts = self.starts.get(shown)?;
        Some(crate::js::LineIndex::from_kept(text, starts))
    }
}

/// One edit of a fix, in the file's own 1-based lines and character columns.
struct Edit {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    text: String,
}

/// A fix's title and edits, positions taken from the file's text.
fn fix_edits(fix: &Fix, idx: &crate::js::LineIndex) -> (String, Vec<Edit>) {
    let (title, span, text) = match fix {
        Fix::Replace {
            title, span, text, ..
        } => (title, span, text.as_str()),
        Fix::Delete { title, span, .. } => (title, span, ""),
    };
    let (line, column) = idx.line_col(span.start);
    let (end_line, end_column) = idx.line_col(span.end);
    (
        title.clone(),
        vec![Edit {
            line,
            column,
            end_line,
            end_column,
            text: text.to_string(),
        }],
    )
}

/// Where the docs say more, as a path that opens from the current folder when the
/// corpus is on disk (the bundled corpus has no folder: its file name alone).
fn docs_location(
    texts: &mut Texts,
    corpus: &crate::docs::Corpus,
    related: &check::Related,
) -> (String, usize) {
    if let Some(path) = texts.docs.get(&related.file) {
        return (path.clone(), related.line);
    }
    let (path, line) = docs_location_uncached(corpus, related);
    texts.docs.insert(related.file.clone(), path.clone());
    (path, line)
}

/// [`docs_location`] asked of the file system.
fn docs_location_uncached(
    corpus: &crate::docs::Corpus,
    related: &check::Related,
) -> (String, usize) {
    let origin = Path::new(&corpus.origin);
    let path = if origin.is_dir() {
        super::from_cwd(&origin.join(&related.file))
    } else if origin.is_file() {
        super::from_cwd(origin)
    } else {
        related.file.clone()
    };
    (path, related.line)
}

/// A finding as interfaces.md's JSON object, with its fixes and docs link.
pub(super) fn finding_json(
    f: &Finding,
    texts: &mut Texts,
    corpus: &crate::docs::Corpus,
) -> serde_json::Value {
    texts.prepare(f, corpus);
    finding_json_read(f, texts, corpus)
}

/// [`finding_json`] from texts [`Texts::prepare`]d for `f`: read only, so a report's
/// findings are turned into JSON on every core.
fn finding_json_read(
    f: &Finding,
    texts: &Texts,
    corpus: &crate::docs::Corpus,
) -> serde_json::Value {
    use serde_json::json;
    let mut v = serde_json::to_value(f).unwrap_or_else(|_| json!({}));
    let index = if f.fixes.is_empty() {
        None
    } else {
        texts.index_made(&f.path)
    };
    let fixes: Vec<_> = match index {
        Some(idx) => f
            .fixes
            .iter()
            .map(|fix| {
                let (title, edits) = fix_edits(fix, &idx);
                let edits: Vec<_> = edits
                    .into_iter()
                    .map(|e| {
                        json!({"line": e.line, "column": e.column, "end_line": e.end_line,
                                   "end_column": e.end_column, "text": e.text})
                    })
                    .collect();
                json!({"title": title, "safe": fix.is_safe(), "edits": edits})
            })
            .collect(),
        None => Vec::new(),
    };
    v["fixes"] = json!(fixes);
    v["docs"] = match &f.related {
        Some(r) => {
            let (path, line) = match texts.docs.get(&r.file) {
                Some(path) => (path.clone(), r.line),
                None => docs_location_uncached(corpus, r),
            };
            json!({"path": path, "line": line})
        }
        None => serde_json::Value::Null,
    };
    v
}

/// The findings as the pretty JSON array `serde_json::to_string_pretty` writes (and a
/// line break), each finding made and written on every core from `texts` prepared for
/// it ([`Texts::prepare`]).
///
/// Why: the report is made after every file is checked, on one thread; made there, the
/// JSON of a real 392-file project's 3,122 findings was a sixth of the run's wall time
/// (issue 48).
fn json_array(
    findings: &[Finding],
    texts: &Texts,
    corpus: &crate::docs::Corpus,
) -> Result<String, serde_json::Error> {
    use rayon::prelude::*;
    if findings.is_empty() {
        return Ok("[]\n".to_string());
    }
    let items: Vec<String> = findings
        .par_iter()
        .map(|f| {
            let v = finding_json_read(f, texts, corpus);
            let text = serde_json::to_string_pretty(&v)?;
            // One level deeper, as inside the array: JSON strings hold no raw line
            // break, so every line of the text is a line of the layout.
            let mut out = String::with_capacity(text.len() + 64);
            for (i, line) in text.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str("  ");
                out.push_str(line);
            }
            Ok(out)
        })
        .collect::<Result<_, serde_json::Error>>()?;
    Ok(format!("[\n{}\n]\n", items.join(",\n")))
}

/// Whether any line the finding covers is too long for a screen line.
fn too_long(f: &Finding, text: &str, width: usize) -> bool {
    text.lines()
        .skip(f.line.saturating_sub(1))
        .take(f.end_line.saturating_sub(f.line) + 1)
        .any(|l| l.len() > width && l.chars().count() > width)
}

/// Standard output, in colour on a terminal unless `NO_COLOR`.
fn stdout_color() -> termcolor::StandardStream {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let choice = if !no_color && std::io::stdout().is_terminal() {
        termcolor::ColorChoice::Auto
    } else {
        termcolor::ColorChoice::Never
    };
    termcolor::StandardStream::stdout(choice)
}

/// The human report of `findings` to `out`: excerpts, then the summary (by code, how
/// many `--fix` fixes). `hidden`: how many silenced findings are not listed.
fn human(
    out: &mut dyn termcolor::WriteColor,
    findings: &[Finding],
    hidden: usize,
    texts: &mut Texts,
    corpus: &crate::docs::Corpus,
    summary: &super::report::Summary,
) -> Result<(), Fail> {
    let config = term::Config::default();
    let width = super::excerpt::width();
    let mut files = SimpleFiles::new();
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    for f in findings {
        let mut notes = Vec::new();
        for fix in &f.fixes {
            if fix.is_safe() {
                notes.push(format!("fix: {}", fix.title()));
            } else {
                notes.push(format!("fix (unsafe): {}", fix.title()));
            }
        }
        if let Some(r) = &f.related {
            let (path, line) = docs_location(texts, corpus, r);
            notes.push(format!("docs: {} at {path}:{line}", r.message));
        }
        for p in &f.places {
            notes.push(format!(
                "related: {}:{}:{}: {}",
                p.path, p.line, p.column, p.message
            ));
        }
        if let Some(ig) = &f.ignored {
            notes.push(ignored_note(ig));
        }
        let text = texts.get(&f.path).unwrap_or_default();
        if too_long(f, text, width) {
            long_line(out, f, text, width, &notes).map_err(|e| Fail(e.to_string()))?;
            continue;
        }
        let id = *ids
            .entry(f.path.clone())
            .or_insert_with(|| files.add(f.path.clone(), text.to_string()));
        let source_len = text.len();
        let mut diag = match f.severity {
            Severity::Error => Diagnostic::error(),
            Severity::Warning => Diagnostic::warning(),
            Severity::Info => Diagnostic::note(),
            Severity::Hint => Diagnostic::help(),
        }
        .with_code(f.code.as_str())
        .with_message(&f.message);
        if f.span.end <= source_len {
            diag = diag.with_labels(vec![Label::primary(id, f.span.start..f.span.end)]);
        } else {
            diag = diag.with_notes(vec![format!("at {}:{}:{}", f.path, f.line, f.column)]);
        }
        diag = diag.with_notes(notes);
        term::emit_to_write_style(out, &config, &files, &diag).map_err(|e| Fail(e.to_string()))?;
    }
    super::report::totals(out, findings, hidden, summary).map_err(|e| Fail(e.to_string()))
}

/// A finding on a line too long for the screen, in the excerpt's layout but with a
/// window of the line ([`super::excerpt`]).
fn long_line(
    out: &mut dyn termcolor::WriteColor,
    f: &Finding,
    text: &str,
    width: usize,
    notes: &[String],
) -> std::io::Result<()> {
    let sev = f.severity.as_str();
    let line = text.lines().nth(f.line.saturating_sub(1)).unwrap_or("");
    let end = if f.end_line == f.line {
        f.end_column.saturating_sub(1)
    } else {
        usize::MAX
    };
    let w = super::excerpt::window(line, f.column.saturating_sub(1), end, width);
    let gutter = f.line.to_string().len();
    let pad = " ".repeat(gutter + 1);
    writeln!(out, "{sev}[{}]: {}", f.code.as_str(), f.message)?;
    writeln!(out, "{pad}┌─ {}:{}:{}", f.path, f.line, f.column)?;
    writeln!(out, "{pad}│")?;
    writeln!(out, "{} │ {}", f.line, w.text)?;
    writeln!(
        out,
        "{pad}│ {}{}",
        " ".repeat(w.caret_at),
        "^".repeat(w.carets)
    )?;
    if !notes.is_empty() {
        writeln!(out, "{pad}│")?;
        for n in notes {
            writeln!(out, "{pad}= {n}")?;
        }
    }
    writeln!(out)
}

/// A SARIF artifact location: a relative path against `%SRCROOT%` (the current folder,
/// declared in `originalUriBaseIds`), an absolute one as a `file:` URI. Without the base
/// id, CI annotations resolved paths against nothing and missed their files.
fn artifact(path: &str) -> serde_json::Value {
    let p = path.replace('\\', "/");
    if Path::new(path).is_absolute() {
        let p = if p.starts_with('/') {
            p
        } else {
            format!("/{p}")
        };
        serde_json::json!({"uri": format!("file://{}", uri_escape(&p))})
    } else {
        serde_json::json!({"uri": uri_escape(&p), "uriBaseId": "%SRCROOT%"})
    }
}

/// Percent-encodes what a URI path cannot hold as is (spaces, `#`, `?`, non-ASCII).
fn uri_escape(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:@!$&'()*+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The findings as a SARIF 2.1.0 log: paths relative to `%SRCROOT%`, fixes as SARIF
/// fix objects, the docs link as a related location.
fn sarif(
    findings: &[Finding],
    texts: &mut Texts,
    corpus: &crate::docs::Corpus,
) -> serde_json::Value {
    use serde_json::json;
    let rules: Vec<_> = CODES
        .iter()
        .map(|c| {
            json!({
                "id": c.name,
                "shortDescription": {"text": c.sarif},
                "defaultConfiguration": {"level": c.severity.sarif_level()},
            })
        })
        .collect();
    let results: Vec<_> = findings
        .iter()
        .map(|f| {
            let mut r = json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": f.code.index(),
                "level": f.severity.sarif_level(),
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": artifact(&f.path),
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        }
                    }
                }],
            });
            let mut related = Vec::new();
            if let Some(rel) = &f.related {
                let (path, line) = docs_location(texts, corpus, rel);
                related.push(json!({
                    "id": 0,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": artifact(&path),
                        "region": {"startLine": line},
                    }
                }));
            }
            for p in &f.places {
                related.push(json!({
                    "id": related.len(),
                    "message": {"text": p.message},
                    "physicalLocation": {
                        "artifactLocation": artifact(&p.path),
                        "region": {"startLine": p.line, "startColumn": p.column},
                    }
                }));
            }
            if !related.is_empty() {
                r["relatedLocations"] = json!(related);
            }
            if let Some(ig) = &f.ignored {
                r["suppressions"] = json!([sarif_suppression(ig)]);
            }
            if let (false, Some(idx)) = (f.fixes.is_empty(), texts.index(&f.path)) {
                let fixes: Vec<_> = f
                    .fixes
                    .iter()
                    .map(|fix| {
                        let (title, edits) = fix_edits(fix, &idx);
                        let replacements: Vec<_> = edits
                            .into_iter()
                            .map(|e| {
                                json!({
                                    "deletedRegion": {
                                        "startLine": e.line,
                                        "startColumn": e.column,
                                        "endLine": e.end_line,
                                        "endColumn": e.end_column,
                                    },
                                    "insertedContent": {"text": e.text},
                                })
                            })
                            .collect();
                        json!({
                            "description": {"text": title},
                            "artifactChanges": [{
                                "artifactLocation": artifact(&f.path),
                                "replacements": replacements,
                            }],
                        })
                    })
                    .collect();
                r["fixes"] = json!(fixes);
            }
            r
        })
        .collect();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut root = cwd.to_string_lossy().replace('\\', "/");
    if !root.ends_with('/') {
        root.push('/');
    }
    if !root.starts_with('/') {
        root.insert(0, '/');
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "grounded",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": {
                "%SRCROOT%": {"uri": format!("file://{}", uri_escape(&root))},
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A silenced finding's note in human output.
fn ignored_note(ig: &check::Ignored) -> String {
    let by = match ig.by {
        check::IgnoredBy::Comment => "an ignore comment",
        check::IgnoredBy::Config => "grounded.toml",
        check::IgnoredBy::Baseline => "the baseline",
    };
    match &ig.reason {
        Some(r) => format!("ignored by {by}: {r}"),
        None => format!("ignored by {by}"),
    }
}

/// A SARIF suppression: `inSource` for an ignore comment, `external` for the
/// configuration and the baseline (SARIF 2.1.0, 3.35), with the justification.
fn sarif_suppression(ig: &check::Ignored) -> serde_json::Value {
    let kind = match ig.by {
        check::IgnoredBy::Comment => "inSource",
        check::IgnoredBy::Config | check::IgnoredBy::Baseline => "external",
    };
    let mut s = serde_json::json!({"kind": kind, "status": "accepted"});
    let by = match ig.by {
        check::IgnoredBy::Comment => "ignore comment",
        check::IgnoredBy::Config => "grounded.toml",
        check::IgnoredBy::Baseline => "baseline",
    };
    s["justification"] = serde_json::json!(match &ig.reason {
        Some(r) => format!("{by}: {r}"),
        None => by.to_string(),
    });
    s
}

/// The `[check]` rules and ignore comments applied to the dry run's findings (their
/// files' comments silence them; an ignore is never said unused for a run that may not
/// have happened).
fn dry_run_rules(
    found: &mut [Finding],
    rules: &check::Rules,
    root: &Path,
    texts: &mut Texts,
    corpus: &crate::docs::Corpus,
) {
    for f in found.iter_mut() {
        let file = texts
            .files
            .get(&f.path)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(&f.path));
        let rel = check::project::relative(root, &file);
        let Some(text) = texts.get(&f.path) else {
            continue;
        };
        let script = crate::js::script_text(&f.path, text, &corpus.engine.directives);
        let dirs = check::suppress::directives(&f.path, text, &script);
        check::suppress::mark(std::slice::from_mut(f), &dirs, &rules.for_file(&rel));
    }
}

/// Says on stderr which project globals (`grounded.toml`'s `globals`) the check read,
/// and which it left to the docs: a name the docs document keeps the docs' meaning, so
/// a user who listed it learns why its members are still judged.
fn project_globals_said(checked: &check::PathsReport) {
    if !checked.project_globals.is_empty() {
        eprintln!(
            "grounded: project globals (grounded.toml): {}",
            checked.project_globals.join(", ")
        );
    }
    for g in &checked.documented_globals {
        eprintln!(
            "grounded: grounded.toml: global `{g}` is documented by the engine's docs; the docs' `{g}` is used"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Code, Related, Span};

    /// The report's array, made finding by finding on every core, is byte for byte what
    /// `serde_json::to_string_pretty` writes of the same values: fixes with edits (in a
    /// text with a multi-byte character), docs links, nested empty arrays and `null`,
    /// a message with a line break and quotes, and no finding at all.
    #[test]
    fn the_json_array_is_what_serde_json_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.js");
        let text = "var é = app.activeDocumnt;\nfoo(\"x\");\n";
        std::fs::write(&path, text).unwrap();
        let shown = path.to_string_lossy().into_owned();
        let corpus = crate::docs::bundled::demo().unwrap();
        let at = |s: usize, e: usize, code, msg: &str| {
            Finding::new(&shown, text, Span::new(s, e), code, msg)
        };
        let start = text.find("activeDocumnt").unwrap();
        let mut typo = at(
            start,
            start + 13,
            Code::Member,
            "`activeDocumnt`: \"near\"\nx",
        );
        typo.fixes = vec![Fix::Replace {
            title: "Replace with `activeDocument`".into(),
            span: Span::new(start, start + 13),
            text: "activeDocument".into(),
            safe: false,
        }];
        typo.related = Some(Related {
            file: "application.md".into(),
            line: 3,
            message: "interface `Application`".into(),
        });
        let call = text.find("foo").unwrap();
        let plain = at(call, call + 3, Code::Function, "`foo` is defined nowhere");
        for findings in [vec![], vec![plain.clone()], vec![typo, plain]] {
            let mut texts = Texts::default();
            let want: Vec<serde_json::Value> = findings
                .iter()
                .map(|f| finding_json(f, &mut texts, &corpus))
                .collect();
            let want = serde_json::to_string_pretty(&want).unwrap() + "\n";
            let mut texts = Texts::default();
            texts.prepare_all(&findings, &corpus);
            let got = json_array(&findings, &texts, &corpus).unwrap();
            assert_eq!(got, want);
        }
    }
}
