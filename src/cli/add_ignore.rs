//! `check --add-ignore[=REASON]`: an ignore comment above every line with a finding
//! left ([`crate::check::add_ignore`]), each file written as `--fix` writes (its own
//! bytes and line endings kept, atomically, never over a change made meanwhile), and
//! kept only when the check of the result agrees: it parses as before and gains no
//! finding (an ignore that silenced nothing would be one).

use std::collections::BTreeMap;

use super::check::Texts;
use super::Fail;
use crate::check::{fix, Finding, ProjectChecker};

/// Writes the comments for `findings` (those not silenced); the exit status: 0, or 2
/// when a file could not be written.
pub(super) fn run(
    corpus: &crate::docs::Corpus,
    project: &crate::project::Project,
    rules: &crate::check::Rules,
    findings: &[Finding],
    texts: &Texts,
    reason: &str,
) -> Result<i32, Fail> {
    let mut by_file: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings.iter().filter(|f| f.ignored.is_none()) {
        by_file.entry(f.path.as_str()).or_default().push(f);
    }
    let checker = ProjectChecker::open(corpus, &project.root, &project.config.globals, rules);
    let (mut comments, mut silenced, mut files, mut failed) = (0usize, 0usize, 0usize, false);
    for (shown, found) in by_file {
        let file = texts
            .files
            .get(shown)
            .cloned()
            .unwrap_or_else(|| shown.into());
        crate::textfile::reading(shown);
        let orig = match super::fix::read_original(&file) {
            Ok(Some(o)) => o,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("grounded: {shown}: {e}");
                failed = true;
                continue;
            }
        };
        let script = crate::js::script_text(shown, &orig.text, &corpus.engine.directives);
        let plan = crate::check::add_ignore::plan(&orig.text, &script, &found, reason);
        for line in &plan.skipped {
            eprintln!(
                "grounded: {shown}:{line}: no ignore comment added: the line starts inside a string, template, comment or JSX text"
            );
        }
        if plan.edits.is_empty() {
            continue;
        }
        let new = fix::apply(&orig.text, &plan.edits);
        let before = checker.verdict(shown, &file, &orig.text);
        let after = checker.verdict(shown, &file, &new);
        if after.parse_error && !before.parse_error {
            eprintln!("grounded: {shown}: the comments would break the parse; left as it was");
            continue;
        }
        if let Some(g) = fix::gained(&before.findings, &after.findings).first() {
            eprintln!(
                "grounded: {shown}: the comments would bring a new finding ({}: {}); left as it was",
                g.code.as_str(),
                g.message
            );
            continue;
        }
        let bytes = super::fix::rebuild(&orig, &new);
        match super::fix::write_fixed(&file, &orig.raw, &bytes) {
            Ok(()) => {
                comments += plan.edits.len();
                silenced += plan.silenced;
                files += 1;
            }
            Err(e) => {
                eprintln!("grounded: {shown}: {e}");
                failed = true;
            }
        }
    }
    let s = |n: usize| if n == 1 { "" } else { "s" };
    eprintln!(
        "grounded: added {comments} ignore comment{} for {silenced} finding{} in {files} file{}",
        s(comments),
        s(silenced),
        s(files)
    );
    Ok(if failed { 2 } else { 0 })
}
