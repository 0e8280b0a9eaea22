//! Delete-scan: deletion without generation.
//!
//! A model asked to remove code and allowed to rewrite the file will also "tidy"
//! neighbours, re-indent, or regenerate a line from memory, wrongly. Here a removal is
//! a list of line numbers and nothing else: the lines marked are dropped, every other
//! byte is kept as it was, and the result is strictly shorter than the input. Marks
//! out of range, an empty list, or a file that changed since it was read (its
//! [`FileStamp`] differs) are refused with a reason, and nothing is written. A file is
//! replaced through a temporary file and a rename, so a failed write leaves the old
//! file whole.

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// What a file's content was when it was read: its length and a 64-bit FNV-1a hash
/// (stable across runs and builds, unlike `std`'s hasher).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct FileStamp {
    /// Length in bytes.
    pub len: usize,
    /// FNV-1a of the bytes.
    pub hash: u64,
}

impl FileStamp {
    /// The stamp of some bytes.
    pub fn of_bytes(bytes: &[u8]) -> FileStamp {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        FileStamp {
            len: bytes.len(),
            hash: h,
        }
    }

    /// The stamp of a text.
    pub fn of(text: &str) -> FileStamp {
        FileStamp::of_bytes(text.as_bytes())
    }

    /// The stamp of a file as it is now on disk.
    pub fn of_file(path: &Path) -> std::io::Result<FileStamp> {
        Ok(FileStamp::of_bytes(&std::fs::read(path)?))
    }
}

impl fmt::Display for FileStamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}:{}", self.hash, self.len)
    }
}

/// What a deletion did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteOutcome {
    /// The text after the deletion.
    pub text: String,
    /// The lines removed: 1-based number (in the old text) and content, without the
    /// line ending.
    pub removed: Vec<(usize, String)>,
    /// Bytes before.
    pub before_len: usize,
    /// Bytes after (always fewer).
    pub after_len: usize,
    /// The stamp of the new text, for a next deletion on the same file.
    pub stamp: FileStamp,
}

/// Why a deletion was refused. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum DeleteRefusal {
    /// No line was marked.
    NoMarks,
    /// A mark names no line of the file.
    OutOfRange {
        /// The mark.
        line: usize,
        /// How many lines the file has.
        lines: usize,
    },
    /// The file is not the version that was read.
    Changed {
        /// The stamp of the version read.
        expected: FileStamp,
        /// The stamp of the file now.
        found: FileStamp,
    },
    /// The file is not UTF-8 text.
    NotText,
    /// Reading or writing failed.
    Io(String),
}

impl fmt::Display for DeleteRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeleteRefusal::NoMarks => write!(f, "no line is marked for deletion; nothing was changed"),
            DeleteRefusal::OutOfRange { line, lines } => write!(
                f,
                "line {line} is out of range: the file has {lines} line{}; nothing was changed",
                if *lines == 1 { "" } else { "s" }
            ),
            DeleteRefusal::Changed { expected, found } => write!(
                f,
                "the file changed since it was read (read {expected}, now {found}); read it again and mark the lines anew; nothing was changed"
            ),
            DeleteRefusal::NotText => write!(f, "the file is not UTF-8 text; nothing was changed"),
            DeleteRefusal::Io(e) => write!(f, "{e}; nothing was changed"),
        }
    }
}

impl std::error::Error for DeleteRefusal {}

/// The byte ranges of a text's lines, each with its line ending. A final line ending
/// does not start another line.
fn line_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    // A lone CR ends a line too, as every reader counts lines (`grounded_textfile`): a
    // CR-only file taken as one line made "delete line 1" delete the whole file.
    let lf = grounded_textfile::normalize_cr(text);
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in lf.match_indices('\n') {
        out.push(start..i + 1);
        start = i + 1;
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Drops the marked 1-based lines of `text`, after checking it is the version read.
/// Duplicate marks count once; order does not matter.
pub fn delete_lines_in_text(
    text: &str,
    marks: &[usize],
    expected: &FileStamp,
) -> Result<DeleteOutcome, DeleteRefusal> {
    let found = FileStamp::of(text);
    if found != *expected {
        return Err(DeleteRefusal::Changed {
            expected: *expected,
            found,
        });
    }
    if marks.is_empty() {
        return Err(DeleteRefusal::NoMarks);
    }
    let lines = line_ranges(text);
    let mut marks = marks.to_vec();
    marks.sort_unstable();
    marks.dedup();
    if let Some(&bad) = marks.iter().find(|&&m| m == 0 || m > lines.len()) {
        return Err(DeleteRefusal::OutOfRange {
            line: bad,
            lines: lines.len(),
        });
    }
    let mut out = String::with_capacity(text.len());
    let mut removed = Vec::with_capacity(marks.len());
    let mut next = marks.iter().peekable();
    for (i, r) in lines.iter().enumerate() {
        let line = &text[r.clone()];
        if next.peek() == Some(&&(i + 1)) {
            next.next();
            let content = line
                .strip_suffix('\n')
                .or_else(|| line.strip_suffix('\r'))
                .unwrap_or(line);
            let content = content.strip_suffix('\r').unwrap_or(content);
            removed.push((i + 1, content.to_string()));
        } else {
            out.push_str(line);
        }
    }
    // Every line has at least one byte (a line ending or, for the last one, content),
    // so each removed line makes the text shorter.
    debug_assert!(out.len() < text.len());
    let stamp = FileStamp::of(&out);
    Ok(DeleteOutcome {
        before_len: text.len(),
        after_len: out.len(),
        text: out,
        removed,
        stamp,
    })
}

/// Drops the marked 1-based lines of the file at `path`, which must still be the
/// version stamped `expected`. The file is replaced through a temporary file in the
/// same folder and a rename; on any refusal or error nothing is written.
pub fn delete_lines(
    path: &Path,
    marks: &[usize],
    expected: &FileStamp,
) -> Result<DeleteOutcome, DeleteRefusal> {
    let bytes =
        std::fs::read(path).map_err(|e| DeleteRefusal::Io(format!("{}: {e}", path.display())))?;
    let found = FileStamp::of_bytes(&bytes);
    if found != *expected {
        return Err(DeleteRefusal::Changed {
            expected: *expected,
            found,
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| DeleteRefusal::NotText)?;
    let outcome = delete_lines_in_text(&text, marks, expected)?;
    write_replacing(path, outcome.text.as_bytes())
        .map_err(|e| DeleteRefusal::Io(format!("{}: {e}", path.display())))?;
    Ok(outcome)
}

fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.grounded-{}-{n}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(&tmp, meta.permissions());
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn mark_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*[Ll]?(\d+)\s*(?:-\s*[Ll]?(\d+)\s*)?:\s*(?i:delete)\s*$")
            .expect("static regex")
    })
}

/// The most lines one range mark may name (a typo such as `1-999999999` is refused,
/// not expanded).
const MAX_RANGE: usize = 100_000;

/// Parses the agent's deletion markers: one mark a line, `12: DELETE`, or a range
/// `12-15: DELETE` (an `L` before a number is allowed). Blank lines are skipped;
/// any other line is an error naming it, because a deletion must never proceed on
/// marks half understood.
pub fn parse_delete_marks(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Some(c) = mark_re().captures(line) else {
            return Err(format!(
                "marker line {} is not `N: DELETE` or `N-M: DELETE`: `{}`",
                i + 1,
                line.trim()
            ));
        };
        let a: usize = c[1]
            .parse()
            .map_err(|_| format!("marker line {}: `{}` is not a line number", i + 1, &c[1]))?;
        let b: usize = match c.get(2) {
            Some(m) => m.as_str().parse().map_err(|_| {
                format!(
                    "marker line {}: `{}` is not a line number",
                    i + 1,
                    m.as_str()
                )
            })?,
            None => a,
        };
        if b < a {
            return Err(format!(
                "marker line {}: the range {a}-{b} runs backwards",
                i + 1
            ));
        }
        if b - a >= MAX_RANGE {
            return Err(format!(
                "marker line {}: the range {a}-{b} names more than {MAX_RANGE} lines",
                i + 1
            ));
        }
        out.extend(a..=b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_exactly_the_marked_lines() {
        let t = "a\nb\r\nc\nd";
        let o = delete_lines_in_text(t, &[2, 4, 2], &FileStamp::of(t)).unwrap();
        assert_eq!(o.text, "a\nc\n");
        assert_eq!(o.removed, vec![(2, "b".into()), (4, "d".into())]);
        assert!(o.after_len < o.before_len);
    }

    #[test]
    fn refuses_bad_marks_and_changed_text() {
        let t = "a\nb\n";
        let s = FileStamp::of(t);
        assert_eq!(
            delete_lines_in_text(t, &[], &s),
            Err(DeleteRefusal::NoMarks)
        );
        assert_eq!(
            delete_lines_in_text(t, &[3], &s),
            Err(DeleteRefusal::OutOfRange { line: 3, lines: 2 })
        );
        assert!(matches!(
            delete_lines_in_text(t, &[0], &s),
            Err(DeleteRefusal::OutOfRange { line: 0, .. })
        ));
        assert!(matches!(
            delete_lines_in_text("a\nB\n", &[1], &s),
            Err(DeleteRefusal::Changed { .. })
        ));
    }

    #[test]
    fn parses_markers() {
        assert_eq!(
            parse_delete_marks("12: DELETE\n\n L14 : delete\n20-22: DELETE\n").unwrap(),
            vec![12, 14, 20, 21, 22]
        );
        assert!(parse_delete_marks("12: KEEP").is_err());
        assert!(parse_delete_marks("5-3: DELETE").is_err());
        assert!(parse_delete_marks("1-99999999999: DELETE").is_err());
        assert!(parse_delete_marks("99999999999999999999999: DELETE").is_err());
    }
}
