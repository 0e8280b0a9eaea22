//! `check --fix` and `check --diff`: each finding's one sure fix, to a fixed point
//! ([`crate::check::fix`]), written back atomically or printed as a unified diff.
//!
//! The bytes written are the file's own bytes with the fixed lines swapped in: the
//! checker reads a file through [`crate::textfile::decode`] (byte-order mark dropped,
//! lone CRs as LF), and writing that text back would have turned a Windows or classic
//! Mac file's untouched lines into Unix ones. Unchanged lines are copied byte for byte;
//! a changed line ends as the file's lines end.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Fail;
use crate::check::fix::{self, Outcome};
use crate::check::{Finding, ProjectChecker};

/// The test hook that makes the race with another writer reproducible: with it set,
/// `--fix` creates `<value>.ready` once it has read and fixed a file in memory and
/// waits (up to 20 s) for `<value>` to exist before it writes. A check that a file
/// changed meanwhile is only trustworthy if a test can make it change meanwhile.
pub const DEBUG_WAIT_ENV: &str = "GROUNDED_DEBUG_FIX_WAIT";

/// What a `--fix` or `--diff` pass did.
#[derive(Default)]
pub(super) struct Fixed {
    /// The findings of each file as fixed (or as it is, when it was left): `--diff`
    /// reports its exit status from these.
    pub left: Vec<Finding>,
    /// Texts of the fixed files (shown path, text), for `--diff`'s positions.
    pub texts: Vec<(String, String)>,
    /// Whether some file could not be written or read back (exit 2 after the report).
    pub failed: bool,
}

/// A file's bytes as read, before any fix.
pub(super) struct Original {
    /// The bytes on disk.
    pub(super) raw: Vec<u8>,
    bom: bool,
    /// The text the checker reads (byte-order mark dropped, lone CRs as LF).
    pub(super) text: String,
}

/// The file as read for fixing: `None` for one the check does not read (too large,
/// binary); an error for one that is not UTF-8.
pub(super) fn read_original(file: &Path) -> Result<Option<Original>, String> {
    let meta = std::fs::metadata(file).map_err(|e| e.to_string())?;
    if meta.len() > crate::check::project::MAX_SCRIPT_BYTES {
        return Ok(None);
    }
    let raw = std::fs::read(file).map_err(|e| e.to_string())?;
    let body = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&raw);
    let Ok(text) = std::str::from_utf8(body) else {
        return Err("not valid UTF-8; not fixed (a fix would rewrite the invalid bytes)".into());
    };
    if crate::textfile::looks_binary(text) {
        return Ok(None);
    }
    let text = crate::textfile::normalize_cr(text).into_owned();
    let bom = body.len() != raw.len();
    Ok(Some(Original { raw, bom, text }))
}

/// How the file's lines end, for the lines a fix changed: the ending most of its
/// lines have (CRLF, a lone CR, or LF).
fn dominant_ending(raw: &[u8]) -> &'static str {
    let (mut crlf, mut cr, mut lf) = (0usize, 0usize, 0usize);
    for (i, &b) in raw.iter().enumerate() {
        match b {
            b'\r' if raw.get(i + 1) == Some(&b'\n') => crlf += 1,
            b'\r' => cr += 1,
            b'\n' if i == 0 || raw[i - 1] != b'\r' => lf += 1,
            _ => {}
        }
    }
    if crlf > lf && crlf >= cr {
        "\r\n"
    } else if cr > lf && cr > crlf {
        "\r"
    } else {
        "\n"
    }
}

/// The file's new bytes: its own bytes for every line the fixes left alone, the fixed
/// lines with the file's line ending.
pub(super) fn rebuild(orig: &Original, fixed: &str) -> Vec<u8> {
    let old: Vec<&str> = orig.text.split_inclusive('\n').collect();
    let new: Vec<&str> = fixed.split_inclusive('\n').collect();
    let ending = dominant_ending(&orig.raw);
    let base = if orig.bom { 3 } else { 0 };
    let mut starts = Vec::with_capacity(old.len() + 1);
    let mut at = base;
    for l in &old {
        starts.push(at);
        at += l.len();
    }
    starts.push(at);
    let mut out = Vec::with_capacity(orig.raw.len() + 64);
    if orig.bom {
        out.extend_from_slice(&orig.raw[..3]);
    }
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
        match op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                out.extend_from_slice(&orig.raw[starts[old_index]..starts[old_index + len]]);
            }
            similar::DiffOp::Delete { .. } => {}
            similar::DiffOp::Insert {
                new_index, new_len, ..
            }
            | similar::DiffOp::Replace {
                new_index, new_len, ..
            } => {
                for l in &new[new_index..new_index + new_len] {
                    match l.strip_suffix('\n') {
                        Some(body) => {
                            out.extend_from_slice(
                                body.strip_suffix('\r').unwrap_or(body).as_bytes(),
                            );
                            out.extend_from_slice(ending.as_bytes());
                        }
                        None => out.extend_from_slice(l.as_bytes()),
                    }
                }
            }
        }
    }
    out
}

/// The unified diff of one file, `a/` and `b/` prefixed as `git diff` prints them (so
/// `git apply` takes it as is).
fn unified(shown: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}

fn wait_for_test_hook() {
    let Some(v) = std::env::var_os(DEBUG_WAIT_ENV) else {
        return;
    };
    let go = PathBuf::from(&v);
    let mut ready = v.clone();
    ready.push(".ready");
    let _ = std::fs::write(&ready, b"");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !go.exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Fixes the files `paths` name. `write`: write them back (`--fix`); else print the
/// unified diff of each on stdout (`--diff`) and write nothing.
pub(super) fn run(
    corpus: &crate::docs::Corpus,
    project: &crate::project::Project,
    rules: &crate::check::Rules,
    paths: &[PathBuf],
    write: bool,
    unsafe_fixes: bool,
) -> Result<Fixed, Fail> {
    let checker = ProjectChecker::open(corpus, &project.root, &project.config.globals, rules);
    let (files, _notes) = crate::check::files_of(corpus, paths);
    let mut seen = HashSet::new();
    let mut out = Fixed::default();
    let (mut applied, mut changed) = (0usize, 0usize);
    for (shown, file) in files {
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if !seen.insert(key) || checker.excluded(&file) {
            continue;
        }
        crate::textfile::reading(&shown);
        // Unreadable, binary and oversized files are said by the check that follows.
        let orig = match read_original(&file) {
            Ok(Some(o)) => o,
            Ok(None) => continue,
            Err(e) => {
                if e.starts_with("not valid") {
                    eprintln!("grounded: {shown}: {e}");
                }
                continue;
            }
        };
        let first = checker.verdict(&shown, &file, &orig.text);
        if fix::edits(&first.findings, orig.text.len(), unsafe_fixes).is_empty() {
            out.left.extend(first.findings);
            continue;
        }
        let before = first.findings.clone();
        let (text, n) = match fix::fix_text_with(&orig.text, Some(first), unsafe_fixes, |t| {
            checker.verdict(&shown, &file, t)
        }) {
            Outcome::Fixed { text, applied } if applied > 0 => (text, applied),
            Outcome::Fixed { .. } => {
                out.left.extend(before);
                continue;
            }
            Outcome::Refused(why) => {
                eprintln!("grounded: {shown}: {why}");
                out.left.extend(before);
                continue;
            }
        };
        let bytes = rebuild(&orig, &text);
        if !write {
            let old = String::from_utf8_lossy(&orig.raw).into_owned();
            let new = String::from_utf8_lossy(&bytes).into_owned();
            print!("{}", unified(&shown, &old, &new));
            out.left
                .extend(checker.verdict(&shown, &file, &text).findings);
            out.texts.push((shown, text));
            applied += n;
            changed += 1;
            continue;
        }
        wait_for_test_hook();
        match write_fixed(&file, &orig.raw, &bytes) {
            Ok(()) => {
                applied += n;
                changed += 1;
            }
            Err(e) => {
                eprintln!("grounded: {shown}: {e}");
                out.failed = true;
            }
        }
    }
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if write {
        eprintln!(
            "grounded: fixed {applied} finding{} in {changed} file{}",
            s(applied),
            s(changed)
        );
    } else {
        eprintln!(
            "grounded: {applied} fix{} in {changed} file{} (--diff: nothing written)",
            if applied == 1 { "" } else { "es" },
            s(changed)
        );
    }
    Ok(out)
}

/// Writes the fixed bytes over a file unless it is read-only or changed since it was
/// read; the error is the one line to print.
pub(super) fn write_fixed(file: &Path, raw: &[u8], bytes: &[u8]) -> Result<(), String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("not fixed: {e}"))?;
    // A rename replaces a read-only file as readily as any other: the permission that
    // says "do not change this" has to be asked for.
    if meta.permissions().readonly() {
        return Err("read-only; not fixed (its bytes are as they were)".into());
    }
    match std::fs::read(file) {
        Ok(now) if now == raw => {}
        Ok(_) => {
            return Err(
                "changed on disk while grounded fixed it; not fixed (run `check --fix` again)"
                    .into(),
            )
        }
        Err(e) => return Err(format!("not fixed: {e}")),
    }
    crate::textfile::write_atomic(file, bytes).map_err(|e| format!("not fixed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orig(raw: &[u8]) -> Original {
        let body = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        Original {
            raw: raw.to_vec(),
            bom: body.len() != raw.len(),
            text: crate::textfile::normalize_cr(std::str::from_utf8(body).unwrap()).into_owned(),
        }
    }

    /// Untouched lines keep their bytes; a changed line keeps the file's ending.
    #[test]
    fn line_endings_and_byte_order_mark_survive() {
        let o = orig(b"\xef\xbb\xbfvar a;\r\nconst b = 1;\r\nc();\n");
        let fixed = o.text.replace("const", "var");
        assert_eq!(
            rebuild(&o, &fixed),
            b"\xef\xbb\xbfvar a;\r\nvar b = 1;\r\nc();\n".to_vec()
        );
        let o = orig(b"a();\rconst b = 1;\rc();\r");
        let fixed = o.text.replace("const", "var");
        assert_eq!(rebuild(&o, &fixed), b"a();\rvar b = 1;\rc();\r".to_vec());
        let o = orig(b"a();\nx();\nb();");
        assert_eq!(rebuild(&o, "a();\nb();"), b"a();\nb();".to_vec());
    }
}
