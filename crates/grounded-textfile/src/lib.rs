//! One rule for turning a file's bytes into text, for every reader (corpus, project
//! index, checker, dry run, search, language server), and the name of the file being
//! read, for the one-line message of a panic.
//!
//! Why one rule: a Latin-1 library file was read leniently by go-to-definition and
//! refused by the project scan (`read_to_string`), so `helperX()` defined there was
//! "defined nowhere" until the file was opened. Now every reader decodes the same way:
//!
//! - invalid UTF-8 is replaced by U+FFFD (lossy), and the caller says so once;
//! - a lone CR (classic Mac line endings) becomes LF. Editors count a lone CR as a line
//!   break, tree-sitter and our line index count only LF: without this, every finding of
//!   a CR-only file pointed at line 1. One byte for one byte, so byte offsets do not move.
//! - a UTF-8 byte-order mark at the start is not part of the text ([`strip_bom`]).
//!   Editors hide it and save it back; read as text, it made `#target photoshop` on
//!   line 1 "unexpected `#target`" at 1:2 (the directive did not start its line), hid a
//!   Markdown file's first fence, and shifted every column of line 1 by one. Text that
//!   did not come through [`decode`] (an editor's buffer, the agent's raw reads) may
//!   still carry one: [`without_bom`] and [`BOM`] let the readers of lines step over it.
//!
//! ## Layer
//!
//! May depend on: nothing of the workspace (its `Cargo.toml`, which the compiler holds;
//! `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: what the text is for: every layer may use it, so it can use none of
//! them.

#![warn(missing_docs)]

pub mod diff;

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::Path;
use std::sync::OnceLock;

/// What a reader says, once per file, when the file was not valid UTF-8.
pub const LOSSY_NOTE: &str = "not valid UTF-8; invalid bytes were read as U+FFFD";

/// A file's text, decoded by the one rule.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// Whether invalid UTF-8 was replaced (say [`LOSSY_NOTE`] once).
    pub lossy: bool,
}

/// The byte-order mark, as a character (U+FEFF; `EF BB BF` in UTF-8).
pub const BOM: char = '\u{feff}';

/// `text` without a leading byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Removes a leading byte-order mark in place (no copy when there is none).
pub fn strip_bom(mut text: String) -> String {
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    text
}

/// Decodes bytes: lossy UTF-8, a leading byte-order mark dropped, lone CRs to LF.
pub fn decode(mut bytes: Vec<u8>) -> Decoded {
    if bytes.starts_with(b"\xef\xbb\xbf") {
        bytes.drain(..3);
    }
    let (text, lossy) = match String::from_utf8(bytes) {
        Ok(t) => (t, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    Decoded {
        text: lone_cr_to_lf(text),
        lossy,
    }
}

/// Whether a text looks binary: a NUL byte in its first 8 KiB, as git decides. Every
/// reader skips such a file (and says so) rather than checking its bytes as a script;
/// the language server does the same with an open buffer.
pub fn looks_binary(text: &str) -> bool {
    text.as_bytes().iter().take(8192).any(|&b| b == 0)
}

/// Reads and decodes a file.
pub fn read(path: &Path) -> std::io::Result<Decoded> {
    Ok(decode(std::fs::read(path)?))
}

/// Reads and decodes a file, at most `max` bytes of it on disk: `Ok(None)` when it is
/// larger (the caller says it skipped it; reading it would cost what the limit guards).
pub fn read_at_most(path: &Path, max: u64) -> std::io::Result<Option<Decoded>> {
    if std::fs::metadata(path)?.len() > max {
        return Ok(None);
    }
    read(path).map(Some)
}

/// Replaces every CR not followed by LF with LF (same length, so offsets hold).
pub fn lone_cr_to_lf(text: String) -> String {
    match normalize_cr(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(t) => t,
    }
}

/// [`lone_cr_to_lf`] on a borrowed text: borrowed back when there is no lone CR.
pub fn normalize_cr(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let lone = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    // Found with `str::find` (memchr, a word at a time): testing every byte was 6% of
    // a warm `check` against a 5 MB corpus, all of whose files have no lone CR.
    let mut from = 0;
    let found = loop {
        match text.get(from..).and_then(|t| t.find('\r')) {
            Some(i) if lone(from + i) => break true,
            Some(i) => from += i + 1,
            None => break false,
        }
    };
    if !found {
        return Cow::Borrowed(text);
    }
    let mut out = b.to_vec();
    for (i, c) in out.iter_mut().enumerate() {
        if lone(i) {
            *c = b'\n';
        }
    }
    // Only ASCII CR bytes became ASCII LF bytes, so the text stays UTF-8.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

thread_local! {
    static BEING_READ: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The environment variable that makes [`reading`] panic on a file whose path contains
/// its value: how the tests reach the panic guards of the command line, the server's
/// corpus load and the dry run (a guard no test can trigger is a guard nobody knows works).
pub const DEBUG_PANIC_ENV: &str = "GROUNDED_DEBUG_PANIC_ON";

/// Notes that this thread now reads `path` (a corpus file, a script), so that a panic
/// can name it: "this is a bug" is only reportable with the input that caused it.
/// Cheap when the path has not changed.
pub fn reading(path: &str) {
    static TRIGGER: OnceLock<Option<String>> = OnceLock::new();
    BEING_READ.with(|b| {
        let mut b = b.borrow_mut();
        if *b != path {
            b.clear();
            b.push_str(path);
        }
    });
    let trigger = TRIGGER.get_or_init(|| {
        std::env::var(DEBUG_PANIC_ENV)
            .ok()
            .filter(|v| !v.is_empty())
    });
    if let Some(t) = trigger {
        if path.contains(t.as_str()) {
            panic!("debug panic while reading {path} ({DEBUG_PANIC_ENV} is set)");
        }
    }
}

/// The file this thread read last, if any (see [`reading`]).
pub fn being_read() -> Option<String> {
    BEING_READ.with(|b| {
        let b = b.borrow();
        (!b.is_empty()).then(|| b.clone())
    })
}

/// Replaces the file at `path` with `bytes` atomically: a temporary file beside it,
/// given the old file's permissions, synced, then renamed over it (through a symbolic
/// link, the file it points to). A reader sees the old bytes or the new, never half;
/// a failure leaves the old bytes and no temporary file. The error is one line.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.grounded-{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if let Ok(meta) = std::fs::metadata(&target) {
            f.set_permissions(meta.permissions())?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, &target)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_and_line_endings() {
        let d = decode(b"a\rb\r\nc\xffd\r".to_vec());
        assert!(d.lossy);
        assert_eq!(d.text, "a\nb\r\nc\u{fffd}d\n");
        let d = decode(b"plain\r\n".to_vec());
        assert!(!d.lossy);
        assert_eq!(d.text, "plain\r\n");
        assert!(matches!(normalize_cr("x\r\ny"), Cow::Borrowed(_)));
        assert!(matches!(normalize_cr("\r\n\r\nx\r\n"), Cow::Borrowed(_)));
        // A lone CR after CRLFs the search stepped over, and one at the very end.
        assert_eq!(normalize_cr("a\r\nb\r\nc\rd"), "a\r\nb\r\nc\nd");
        assert_eq!(normalize_cr("é\r\n€\r"), "é\r\n€\n");
        assert_eq!(normalize_cr("\r"), "\n");
    }

    #[test]
    fn a_byte_order_mark_is_not_text() {
        let d = decode(b"\xef\xbb\xbf#target x\r\nvar a;".to_vec());
        assert!(!d.lossy);
        assert_eq!(d.text, "#target x\r\nvar a;");
        // Only at the start: one inside the text is a character like any other.
        assert_eq!(decode(b"a\xef\xbb\xbf".to_vec()).text, "a\u{feff}");
        assert_eq!(strip_bom("\u{feff}x".into()), "x");
        assert_eq!(strip_bom("x".into()), "x");
        assert_eq!(without_bom("\u{feff}\u{feff}x"), "\u{feff}x");
    }
}
