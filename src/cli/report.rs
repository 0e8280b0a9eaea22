//! What `check` says around its findings: the summary (by code, how many `--fix` would
//! fix), the `--output` file, the corpus's load diagnostics, and why nothing was
//! checked.
//!
//! A failing CI step once showed only "36 known findings silenced" before exit 1, with
//! the SARIF on stdout going to a file: nobody could tell what failed without opening
//! it. `--output` sends the chosen format to a file and the human report of what is
//! not silenced to the terminal, and the summary names the codes.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Fail;
use crate::check::{Finding, Severity, CODES};

/// What the summary says beside the counts: how many findings `--fix` would fix.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Summary {
    /// Findings left (not silenced) with a safe fix.
    pub fixable: usize,
    /// Findings left whose only fix is unsafe (`--unsafe-fixes` applies it).
    pub unsafe_fixable: usize,
    /// Whether `--unsafe-fixes` was given.
    pub unsafe_on: bool,
}

impl Summary {
    /// The summary of `findings` (silenced ones are not counted).
    pub fn of(findings: &[Finding], unsafe_on: bool) -> Summary {
        let mut s = Summary {
            unsafe_on,
            ..Summary::default()
        };
        for f in findings.iter().filter(|f| f.ignored.is_none()) {
            if f.sure_fix().is_some() {
                s.fixable += 1;
            } else if f.fix_to_apply(true).is_some() {
                s.unsafe_fixable += 1;
            }
        }
        s
    }
}

/// The last lines of the human report: the findings by code (in the code table's
/// order), the totals by severity (`info` and `hint` as themselves: they were counted
/// as warnings), and what `--fix` would fix.
pub(super) fn totals(
    out: &mut dyn Write,
    findings: &[Finding],
    hidden: usize,
    summary: &Summary,
) -> std::io::Result<()> {
    let shown: Vec<&Finding> = findings.iter().filter(|f| f.ignored.is_none()).collect();
    let count = |s: Severity| shown.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, infos, hints) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
        count(Severity::Hint),
    );
    let ignored = findings.len() - shown.len() + hidden;
    let ignored = if hidden > 0 {
        format!(", {ignored} ignored (--show-ignored lists them)")
    } else if ignored > 0 {
        format!(", {ignored} ignored")
    } else {
        String::new()
    };
    if shown.is_empty() {
        return writeln!(out, "no findings{ignored}");
    }
    let by_code: Vec<String> = CODES
        .iter()
        .filter_map(|c| {
            let n = shown.iter().filter(|f| f.code == c.code).count();
            (n > 0).then(|| format!("{} {n}", c.name))
        })
        .collect();
    writeln!(out, "by code: {}", by_code.join(", "))?;
    let mut line = format!("{errors} error(s), {warnings} warning(s)");
    if infos > 0 {
        line.push_str(&format!(", {infos} info"));
    }
    if hints > 0 {
        line.push_str(&format!(", {hints} hint(s)"));
    }
    writeln!(out, "{line}{ignored}")?;
    let Summary {
        fixable,
        unsafe_fixable,
        unsafe_on,
    } = *summary;
    match (fixable, unsafe_fixable, unsafe_on) {
        (0, 0, _) => Ok(()),
        (n, 0, _) => writeln!(out, "{n} fixable with --fix"),
        (n, u, false) => writeln!(
            out,
            "{n} fixable with --fix ({u} more with --fix --unsafe-fixes: a near name or a deletion the docs do not explain; review them)"
        ),
        (n, u, true) => writeln!(
            out,
            "{} fixable with --fix --unsafe-fixes ({u} of them unsafe)",
            n + u
        ),
    }
}

/// Writes `--output`'s file whole (a temporary file renamed over it): a failed run
/// leaves the previous file or none, never half of one.
pub(super) fn write_output(file: &Path, text: &str) -> Result<(), Fail> {
    crate::textfile::write_atomic(file, text.as_bytes())
        .map_err(|e| Fail(format!("--output {}: {e}", super::from_cwd(file))))
}

/// Says the corpus's load diagnostics once, unless the project said it has read them
/// (`load_diagnostics_read = N` in grounded.toml, and the corpus has no more than N).
pub(super) fn load_diagnostics(project: &crate::project::Project, corpus: &crate::docs::Corpus) {
    let n = corpus.load_diagnostic_count();
    if n == 0
        || project
            .config
            .load_diagnostics_read
            .is_some_and(|read| n <= read)
    {
        return;
    }
    if let Some(c) = corpus.load_caveat() {
        let quiet = if project.has_config {
            format!("; once read, `load_diagnostics_read = {n}` in grounded.toml quiets this until there are more")
        } else {
            String::new()
        };
        eprintln!("grounded: warning: {c}{quiet}");
    }
}

/// Why a run whose paths held scripts checked none of them: `[check] exclude` left
/// every one out.
pub(super) fn all_excluded(paths: &[PathBuf], excluded: &[String]) -> String {
    let under: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let some: Vec<&str> = excluded.iter().take(3).map(String::as_str).collect();
    let more = if excluded.len() > some.len() {
        ", ..."
    } else {
        ""
    };
    format!(
        "nothing checked: grounded.toml's [check] exclude leaves out every script under {} ({} file{}: {}{more}); a run that looked at nothing is not clean",
        under.join(", "),
        excluded.len(),
        if excluded.len() == 1 { "" } else { "s" },
        some.join(", ")
    )
}
