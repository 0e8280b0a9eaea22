//! Events of a run to findings: engine positions to byte spans over the name that is
//! wrong, messages that name the interface and the docs' reason, duplicates dropped.

use std::collections::{HashMap, HashSet};

use crate::check::{Code, Finding, Span};
use crate::docs::Corpus;
use crate::js::LineIndex;

use super::engine::{Event, Loc};
use super::source::Sources;

/// Turns one entry's events into findings. `entry` is where a finding without a
/// location (a non-Error thrown, an engine that could not start) is attached.
pub fn findings(
    corpus: &Corpus,
    sources: &Sources,
    entry: &str,
    events: &[Event],
    budget_ms: u64,
    memory_limit: usize,
    texts: &mut HashMap<String, Option<String>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for ev in events {
        let (at, code, message, anchor) = match ev {
            Event::Invented { iface, member, at } => {
                let Some(at) = at else {
                    // A touch the stack cannot place: say nothing rather than guess.
                    continue;
                };
                (
                    Some(at),
                    Code::DryRun,
                    invented_message(corpus, iface, member),
                    Anchor::Name(member.clone()),
                )
            }
            Event::Missing { path, loader, at } => {
                let message = if *loader {
                    format!("`{path}` does not exist in the project: this load fails at run time (paths are relative to the project root)")
                } else {
                    format!("`{path}` does not exist in the project (paths are relative to the project root)")
                };
                (
                    at.as_ref(),
                    Code::File,
                    message,
                    Anchor::Literal(path.clone()),
                )
            }
            Event::Outside { path, at } => (
                at.as_ref(),
                Code::DryRun,
                format!("refused to load `{path}`: it is outside the project root, and the dry run reads nothing but the project's own files"),
                Anchor::Literal(path.clone()),
            ),
            Event::TooDeep { path, at } => (
                at.as_ref(),
                Code::DryRun,
                format!("loading `{path}` nests loads more than 64 deep: a file that loads itself, directly or through others, never finishes"),
                Anchor::Literal(path.clone()),
            ),
            Event::Timeout { at } => (
                at.as_ref(),
                Code::DryRun,
                format!("did not finish in {budget_ms} ms: stopped here (an endless loop, or work far beyond what the fake engine's empty data explains)"),
                Anchor::Token,
            ),
            Event::Uncaught { name, message, at } => (
                at.as_ref(),
                Code::DryRun,
                crash_message(name, message, memory_limit),
                Anchor::Token,
            ),
            Event::NoEntry { .. } => continue,
        };
        let fallback = Loc {
            file: entry.to_string(),
            line: 1,
            col: 1,
        };
        let at = at.unwrap_or(&fallback);
        let text = texts
            .entry(at.file.clone())
            .or_insert_with(|| sources.read(&at.file));
        let Some(text) = text.as_deref() else {
            continue;
        };
        let idx = LineIndex::new(text);
        let span = span_at(text, &idx, at.line, at.col, &anchor);
        out.push(Finding::with_index(&at.file, &idx, span, code, message));
    }
    out
}

/// Drops repeated findings (same file, line, column and message) and sorts by file,
/// then position.
pub fn dedup(findings: &mut Vec<Finding>) {
    let mut seen = HashSet::new();
    findings.retain(|f| seen.insert((f.path.clone(), f.line, f.column, f.message.clone())));
    findings.sort_by(|a, b| {
        (&a.path, a.span.start, a.span.end, &a.message).cmp(&(
            &b.path,
            b.span.start,
            b.span.end,
            &b.message,
        ))
    });
}

fn invented_message(corpus: &Corpus, iface: &str, member: &str) -> String {
    if let Some(reason) = corpus.absent_reason(iface, member) {
        return format!("`{iface}` has no member `{member}` (reached at run time): {reason}");
    }
    let near = corpus
        .members_of(iface)
        .into_iter()
        .map(|m| (strsim::jaro_winkler(&m.name, member), m.name.as_str()))
        .filter(|(s, _)| *s >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!("; did you mean `{n}`?"))
        .unwrap_or_default();
    format!(
        "`{iface}` has no member `{member}`: the value here at run time is a `{iface}`, and its documented members do not include `{member}`{near}"
    )
}

fn crash_message(name: &str, message: &str, memory_limit: usize) -> String {
    let message = message.trim();
    if name == "InternalError" && message.contains("out of memory") {
        return format!(
            "ran out of memory (the dry run allows {} MiB): a huge allocation, or one that grows without end",
            memory_limit >> 20
        );
    }
    if message.contains("call stack size exceeded") || message.contains("stack overflow") {
        return format!("stack overflow ({message}): endless recursion?");
    }
    match name {
        "SyntaxError" => format!("syntax error: {message}"),
        "" => format!("uncaught exception: {message} (a thrown value that is not an Error carries no location)"),
        n => format!("uncaught {n}: {message}"),
    }
}

/// What to span at the engine's position.
enum Anchor {
    /// A member's name: the first occurrence at or after the position on its line.
    Name(String),
    /// A string literal given to a `path` parameter.
    Literal(String),
    /// The token at the position.
    Token,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Byte span for a 1-based (line, column) of the engine's stack.
fn span_at(text: &str, idx: &LineIndex, line: usize, col: usize, anchor: &Anchor) -> Span {
    let line0 = line.saturating_sub(1).min(idx.len().saturating_sub(1));
    let ls = idx.line_start(line0);
    let le = text[ls..].find('\n').map(|i| ls + i).unwrap_or(text.len());
    let le = if le > ls && text.as_bytes()[le - 1] == b'\r' {
        le - 1
    } else {
        le
    };
    let line_text = &text[ls..le];
    // The engine counts columns in characters.
    let pos = line_text
        .char_indices()
        .nth(col.saturating_sub(1))
        .map(|(i, _)| i)
        .unwrap_or(line_text.len());
    let found = match anchor {
        Anchor::Name(name) => find_word(line_text, name, pos),
        Anchor::Literal(lit) => ["\"", "'"].iter().find_map(|q| {
            let needle = format!("{q}{lit}{q}");
            find_from(line_text, &needle, pos).map(|s| (s, s + needle.len()))
        }),
        Anchor::Token => None,
    };
    let (s, e) = found.unwrap_or_else(|| token_at(line_text, pos));
    Span::new(ls + s, ls + e)
}

/// `needle` at or after `pos`, else its last occurrence on the line.
fn find_from(hay: &str, needle: &str, pos: usize) -> Option<usize> {
    hay.get(pos..)
        .and_then(|h| h.find(needle))
        .map(|i| pos + i)
        .or_else(|| hay.rfind(needle))
}

/// The whole-word occurrence of `word` nearest after `pos` (else before it).
fn find_word(hay: &str, word: &str, pos: usize) -> Option<(usize, usize)> {
    let occurrences: Vec<usize> = hay
        .match_indices(word)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = hay[..i].chars().next_back();
            let after = hay[i + word.len()..].chars().next();
            !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
        })
        .collect();
    let s = occurrences
        .iter()
        .copied()
        .find(|&i| i >= pos)
        .or_else(|| occurrences.last().copied())?;
    Some((s, s + word.len()))
}

/// The identifier (or single character, or rest of the line when blank) at `pos`.
fn token_at(line: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(line.len());
    let rest = &line[pos..];
    let skip = rest.len() - rest.trim_start().len();
    let start = pos + skip;
    let tail = &line[start..];
    let word: usize = tail
        .char_indices()
        .find(|&(_, c)| !is_ident_char(c))
        .map(|(i, _)| i)
        .unwrap_or(tail.len());
    if word > 0 {
        return (start, start + word);
    }
    match tail.chars().next() {
        Some(c) => (start, start + c.len_utf8()),
        None => {
            // Past the end of the line: span the line's last token instead of nothing.
            let trimmed = line.trim_end();
            let first = line.len() - line.trim_start().len();
            if trimmed.len() > first {
                (first, trimmed.len())
            } else {
                (pos, pos)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_the_member_name_at_or_after_the_column() {
        let text = "var a = 1;\n    grid.cellSpacing = 2;\n";
        let idx = LineIndex::new(text);
        let s = span_at(text, &idx, 2, 5, &Anchor::Name("cellSpacing".into()));
        assert_eq!(&text[s.start..s.end], "cellSpacing");
        assert_eq!(idx.line_col(s.start), (2, 10));
        // Column past the name (the engine pointed at `=`): the earlier occurrence.
        let s = span_at(text, &idx, 2, 22, &Anchor::Name("cellSpacing".into()));
        assert_eq!(idx.line_col(s.start), (2, 10));
    }

    #[test]
    fn spans_the_literal_of_a_missing_file() {
        let text = "loadJS(\"lib/missing.js\");\n";
        let idx = LineIndex::new(text);
        let s = span_at(text, &idx, 1, 1, &Anchor::Literal("lib/missing.js".into()));
        assert_eq!(&text[s.start..s.end], "\"lib/missing.js\"");
    }

    #[test]
    fn token_at_a_blank_tail_spans_the_line() {
        let text = "  while (true) {}";
        let idx = LineIndex::new(text);
        let s = span_at(text, &idx, 1, 3, &Anchor::Token);
        assert_eq!(&text[s.start..s.end], "while");
        let s = span_at(text, &idx, 1, 99, &Anchor::Token);
        assert_eq!(&text[s.start..s.end], "while (true) {}");
    }
}
