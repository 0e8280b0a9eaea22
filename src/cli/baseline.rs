//! `check`'s baseline: read (`--baseline FILE`, `[check] baseline`), matched against the
//! findings, recorded (`--write-baseline FILE [PATHS]`) and pruned (`--prune-baseline`).
//!
//! A team keeps its baseline short by dropping what was fixed. The only way once was
//! `--write-baseline`, which also recorded every new finding (and, given a path,
//! replaced the whole file with that path's entries): the tool meant to stop new
//! findings hid them. Now pruning adds nothing, a write with paths replaces only the
//! checked files' entries, and an entry is stale only when it matches nothing at all
//! (a finding silenced by a comment still matches it) or its file is gone.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::check::Texts;
use super::Fail;
use crate::check::baseline::{Baseline, Key, Matched};
use crate::check::{self, Finding, IgnoredBy};

/// Reads a baseline file; a missing, unreadable or hand-broken one is exit 2 with one
/// line naming it (the file itself is left as it is).
pub(super) fn read(file: &Path) -> Result<Baseline, Fail> {
    let shown = super::from_cwd(file);
    let bytes = std::fs::read(file).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            " (record one with `grounded check --write-baseline FILE`)"
        } else {
            ""
        };
        Fail(format!("baseline {}: {e}{hint}", shown))
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Fail(format!("baseline {}: not valid UTF-8", shown)))?;
    Baseline::parse(&text).map_err(|e| Fail(format!("baseline {}: {e}", shown)))
}

/// The baseline key of a finding: its file relative to the project root (the report's
/// shown path when the check did not read it, a dry run's load), code, name, line.
pub(super) fn key_of(f: &Finding, rels: &HashMap<String, String>, texts: &mut Texts) -> Key {
    let rel = rels.get(&f.path).cloned().unwrap_or_else(|| f.path.clone());
    crate::check::baseline::key_of(f, &rel, texts.get(&f.path))
}

/// Whether a baseline entry's file (relative to `root`) no longer exists.
fn gone(root: &Path) -> impl Fn(&str) -> bool + '_ {
    move |file: &str| !root.join(file).exists()
}

/// Marks the findings the baseline records as silenced by it (`"ignored": {"by":
/// "baseline"}`); says on stderr how many, and each entry that matches nothing any more.
/// Findings a comment or grounded.toml already silence stay silenced by those, but
/// still match their entries: such an entry is not stale, the finding is not gone.
pub(super) fn mark(
    findings: &mut [Finding],
    file: &Path,
    b: &Baseline,
    rels: &HashMap<String, String>,
    texts: &mut Texts,
    root: &Path,
    pruning: bool,
) -> Matched {
    let (open, quiet): (Vec<usize>, Vec<usize>) =
        (0..findings.len()).partition(|&i| findings[i].ignored.is_none());
    let keys: Vec<Key> = open
        .iter()
        .chain(&quiet)
        .map(|&i| key_of(&findings[i], rels, texts))
        .collect();
    let checked: HashSet<&str> = rels.values().map(String::as_str).collect();
    let m = b.apply_with(&keys, &checked, gone(root));
    let shown = super::from_cwd(file);
    let mut silenced = 0;
    for (&i, s) in open.iter().zip(&m.silenced) {
        if *s {
            silenced += 1;
            findings[i].ignored = Some(check::Ignored {
                by: IgnoredBy::Baseline,
                reason: Some(format!("recorded in {shown}")),
            });
        }
    }
    if silenced > 0 {
        eprintln!(
            "grounded: baseline {shown}: {silenced} known finding{} silenced",
            if silenced == 1 { "" } else { "s" }
        );
    }
    let is_gone = gone(root);
    for (e, unmatched) in &m.stale {
        let of = if e.count > 1 {
            format!(" ({unmatched} of {})", e.count)
        } else {
            String::new()
        };
        let why = if is_gone(&e.file) {
            "its file is gone"
        } else {
            "matches nothing any more"
        };
        let then = if pruning {
            "dropped"
        } else {
            "--prune-baseline drops it"
        };
        eprintln!(
            "grounded: baseline {shown}: stale entry{of}, {why}: {} {} `{}` in `{}` ({then})",
            e.file, e.code, e.name, e.line
        );
    }
    m
}

/// `--prune-baseline`: writes the baseline less its stale entries (nothing added), or
/// leaves the file untouched when nothing is stale.
pub(super) fn prune(file: &Path, b: &Baseline, m: &Matched) -> Result<(), Fail> {
    let shown = super::from_cwd(file);
    if m.stale.is_empty() {
        eprintln!("grounded: baseline {shown}: nothing stale; left as it was");
        return Ok(());
    }
    let (text, kept, dropped) = b.pruned_json(&m.stale);
    crate::textfile::write_atomic(file, text.as_bytes())
        .map_err(|e| Fail(format!("baseline {e}")))?;
    eprintln!(
        "grounded: pruned {shown}: {dropped} stale finding{} dropped, {kept} entr{} left, nothing added",
        if dropped == 1 { "" } else { "s" },
        if kept == 1 { "y" } else { "ies" },
    );
    Ok(())
}

/// `--write-baseline FILE`: records the findings no comment or grounded.toml silences.
/// `whole`: the run checked the whole project, and the file is replaced (a broken one
/// included: this is how it is recorded again); else the file's entries for the files
/// this run checked are replaced, the others kept, and those of deleted files dropped.
pub(super) fn write(
    file: &Path,
    findings: &[Finding],
    rels: &HashMap<String, String>,
    texts: &mut Texts,
    root: &Path,
    whole: bool,
) -> Result<(), Fail> {
    // What a comment or grounded.toml already silences is not recorded: it is
    // silenced where the team can read why.
    let keys = findings
        .iter()
        .filter(|f| f.ignored.is_none())
        .map(|f| key_of(f, rels, texts))
        .collect::<Vec<_>>();
    let fresh = Baseline::record(keys);
    let shown = super::from_cwd(file);
    let (b, kept) = if whole || !file.exists() {
        (fresh, String::new())
    } else {
        let old = read(file).map_err(|Fail(e)| {
            Fail(format!(
                "{e}; --write-baseline with paths keeps the other files' entries, so it reads the file: record it again over the whole project (`grounded check --write-baseline {shown}` at the root)"
            ))
        })?;
        let checked: HashSet<&str> = rels.values().map(String::as_str).collect();
        let b = old.updated(&fresh, &checked, gone(root));
        let is_gone = gone(root);
        let kept = old
            .entries()
            .filter(|e| !checked.contains(e.file.as_str()) && !is_gone(&e.file))
            .count();
        (
            b,
            format!(
                "; {kept} entr{} of files not checked kept",
                if kept == 1 { "y" } else { "ies" }
            ),
        )
    };
    crate::textfile::write_atomic(file, b.to_json().as_bytes())
        .map_err(|e| Fail(format!("baseline {e}")))?;
    eprintln!(
        "grounded: wrote {shown} ({} entr{}, {} finding{}{kept})",
        b.len(),
        if b.len() == 1 { "y" } else { "ies" },
        b.findings(),
        if b.findings() == 1 { "" } else { "s" },
    );
    Ok(())
}

/// Whether `paths` cover the project root (`.` at the root, or the root named): a
/// `--write-baseline` of them replaces the whole file.
pub(super) fn covers_root(paths: &[std::path::PathBuf], root: &Path) -> bool {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    paths
        .iter()
        .any(|p| std::fs::canonicalize(p).is_ok_and(|p| root.starts_with(&p)))
}
