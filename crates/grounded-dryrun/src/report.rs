//! Events of a run to findings: engine positions to byte spans over the name that is
//! wrong, messages that name the interface and the docs' reason, duplicates dropped.
//!
//! May import `blame` (who takes the blame), `engine` (the events) and `source`; none of
//! them imports this (it once lent `blame` its position helper, and the two could not be
//! read apart: `byte_at` now lives in `source`).

use std::collections::{HashMap, HashSet};

use grounded_check::{Code, Finding, Fix, Span};
use grounded_docs::Corpus;
use grounded_js::LineIndex;

use super::blame::{self, Verdict};
use super::engine::{Event, Loc};
use super::source::{byte_at, Sources};

/// Turns one entry's events into findings. `entry` is where a finding without a
/// location (a non-Error thrown, an engine that could not start) is attached.
pub fn findings(
    corpus: &Corpus,
    sources: &Sources,
    entry: &str,
    events: &[Event],
    opts: &super::Options,
    texts: &mut HashMap<String, Option<String>>,
    limits: &mut Vec<String>,
) -> Vec<Finding> {
    let (budget_ms, memory_limit) = (opts.budget_ms, opts.memory_limit);
    let mut out = Vec::new();
    let ran: HashSet<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Ran { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    // Read only when a failure needs to know who declared what (see `blame`).
    let mut project: Option<blame::Project> = None;
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
                    format!("`{path}` does not exist in the project: this load has no file to load (paths are relative to the project root)")
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
                format!("did not finish in {budget_ms} ms: an endless loop, or work far beyond what the fake engine's empty data explains"),
                Anchor::Loop,
            ),
            Event::Uncaught { name, message, at } => {
                // The engine places a ReferenceError of top-level code at the script's
                // start: the name it could not find is the thing to point at.
                let undefined = message
                    .strip_suffix(" is not defined")
                    .filter(|_| name == "ReferenceError");
                if let Some(n) = undefined {
                    // Engines whose scripts share one global scope see every script's
                    // top-level names: a name another script declares is not the run's
                    // to judge (the static check knows the project's scopes).
                    if let Some(file) =
                        super::source::declared_elsewhere(corpus, sources.root(), n, &ran)
                    {
                        limits.push(format!(
                            "the run of `{entry}` stopped early: `{n}` is declared by `{file}`, which it did not load (with one global scope shared by all scripts, that is no mistake); what follows went unexercised"
                        ));
                        continue;
                    }
                }
                let anchor = match undefined {
                    Some(n) => Anchor::Identifier(n.to_string()),
                    None => match property_of(message) {
                        Some(p) => Anchor::Name(p.to_string()),
                        None => Anchor::Token,
                    },
                };
                (
                    at.as_ref(),
                    Code::DryRun,
                    crash_message(name, message, memory_limit),
                    anchor,
                )
            }
            Event::Unsure { message, at } => {
                let place = at
                    .as_ref()
                    .map(|l| {
                        let text = texts
                            .entry(l.file.clone())
                            .or_insert_with(|| code_of(sources, &l.file));
                        let line = match (text.as_deref(), property_of_error(message)) {
                            (Some(t), Some(p)) => {
                                let idx = LineIndex::new(t);
                                let span =
                                    span_at(t, &idx, l.line, l.col, &Anchor::Name(p.into()));
                                idx.line_col(span.start).0
                            }
                            _ => l.line,
                        };
                        format!(" at {}:{line}", l.file)
                    })
                    .unwrap_or_default();
                limits.push(format!(
                    "the run of `{entry}` stopped{place} on {message}, after the script had read values the fake engine stubs (empty strings, zero, empty arrays): real data may not fail there, so it is no finding; what follows went unexercised"
                ));
                continue;
            }
            Event::TooLarge { path } => {
                limits.push(format!(
                    "`{path}` ran out of memory while the dry run compiled it (it allows {} MiB), before any of its lines ran: a script this large can need more than that, so it is no finding; the run of `{entry}` stopped there and what follows went unexercised",
                    memory_limit >> 20
                ));
                continue;
            }
            Event::NoEntry { .. } | Event::Ran { .. } | Event::Unparsed { .. } => continue,
        };
        let fallback = Loc {
            file: entry.to_string(),
            line: 1,
            col: 1,
        };
        let at = at.unwrap_or(&fallback);
        let text = texts
            .entry(at.file.clone())
            .or_insert_with(|| code_of(sources, &at.file));
        let Some(text) = text.as_deref() else {
            continue;
        };
        let idx = LineIndex::new(text);
        let mut span = span_at(text, &idx, at.line, at.col, &anchor);
        // A member the script tests before use (`typeof app.key !== "undefined"`) is
        // read by the test itself: the static check's guard rule decides, here too.
        if matches!(ev, Event::Invented { .. }) && grounded_check::member_guarded(text, span) {
            continue;
        }
        let mut message = message;
        if let Event::Uncaught { name, .. } = ev {
            let unparsed = events
                .iter()
                .any(|e| matches!(e, Event::Unparsed { path } if *path == at.file));
            if name == "SyntaxError" && unparsed {
                // Which syntax exists is the static check's to judge (the engine's
                // level and its `Also allows:`), and it places a parse error where it
                // is; QuickJS, a later edition without the engine's extras, stopped
                // on E4X the engine takes, and placed a missing `)` on the next line.
                let index = grounded_check::ProjectIndex::default();
                let statics = grounded_check::check_text(corpus, &index, &at.file, text);
                match statics.into_iter().find(|s| s.code == Code::Syntax) {
                    Some(s) => {
                        span = s.span;
                        message = format!("syntax error: {}", s.message);
                    }
                    None => {
                        limits.push(format!(
                            "`{}` has syntax the dry run's language cannot run ({}), which the static check takes for this engine: the run of `{entry}` stopped there and what follows went unexercised",
                            at.file,
                            message.strip_prefix("syntax error: ").unwrap_or(&message)
                        ));
                        continue;
                    }
                }
            }
        }
        let mut f = Finding::with_index(&at.file, &idx, span, code, message);
        if let Event::Uncaught { name, message, .. } = ev {
            let engine_pos = byte_at(text, &idx, at.line, at.col);
            if name == "TypeError" && message == "not a function" {
                if let Some((s, e)) = blame::callee_name(&at.file, text, engine_pos) {
                    // The name that was called, as written: QuickJS says only "not a
                    // function", and `s.toUpperCas()` on a string gave no clue which.
                    let m = match text.get(s..e).filter(|n| !n.is_empty()) {
                        Some(n) => format!("uncaught TypeError: `{n}` is not a function"),
                        None => f.message.clone(),
                    };
                    f = Finding::with_index(&at.file, &idx, Span::new(s, e), code, m);
                }
            }
            let project = project.get_or_insert_with(|| {
                let also: Vec<&str> = ran.iter().copied().collect();
                blame::Project::scan(corpus, sources, &also)
            });
            let failure = blame::Failure {
                file: &at.file,
                text,
                // A missing name is where the span found it; anything else where the
                // engine pointed (the call, the read).
                pos: if name == "ReferenceError" {
                    span.start
                } else {
                    engine_pos
                },
                name,
                message,
                shown: &f.message,
            };
            let loads: Vec<(String, Option<(String, usize)>)> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Ran { path, from } => {
                        Some((path.clone(), from.as_ref().and_then(|l| project.byte_of(l))))
                    }
                    _ => None,
                })
                .collect();
            match project.judge(&failure, &loads) {
                Some(Verdict::Moved { at: decl }) => {
                    if let Some(mut moved) = project.finding(&decl, Code::DryRun) {
                        moved.places.push(grounded_check::Place {
                            path: f.path.clone(),
                            line: f.line,
                            column: f.column,
                            message: format!("the run stopped here: {}", f.message),
                        });
                        f = moved;
                    }
                }
                Some(Verdict::Stays(notes)) => {
                    f.places = notes.iter().filter_map(|n| project.place(n)).collect();
                }
                None => {}
            }
        }
        if let Event::Uncaught { name, message, .. } = ev {
            near_global(corpus, text, name, message, &mut f);
        }
        if let Event::Invented { iface, member, .. } = ev {
            f.related = grounded_check::suggest::interface_related(corpus, iface);
            let spans_name = text.get(span.start..span.end) == Some(member.as_str());
            if let Some(n) = near_member(corpus, iface, member).filter(|_| spans_name) {
                f.fixes.push(Fix::Replace {
                    title: format!("Replace with `{n}`"),
                    span,
                    text: n,
                    safe: false,
                });
            }
        }
        out.push(f);
    }
    out
}

/// A file's text as the run placed things in it: a Markdown file's prose blanked (its
/// offsets kept), so that names are looked up in its code only; a parse of the whole
/// page found no member in it and spanned the wrong word.
fn code_of(sources: &Sources, file: &str) -> Option<String> {
    let text = sources.read(file)?;
    if grounded_js::is_markdown(file) {
        return Some(grounded_js::script_text(file, &text, &[]).into_owned());
    }
    Some(text)
}

/// Drops repeated findings (same file, line, column and message) and sorts by file,
/// then position. Findings with related places at one place are one blame (two
/// entries that stopped at two uses of the same wrong declaration): they become one,
/// with every use listed.
pub fn dedup(findings: &mut Vec<Finding>) {
    let mut seen: HashMap<(String, usize, usize, String), usize> = HashMap::new();
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    for f in findings.drain(..) {
        let message = if f.places.is_empty() {
            f.message.clone()
        } else {
            "\0related".to_string()
        };
        match seen.entry((f.path.clone(), f.line, f.column, message)) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let kept = &mut out[*e.get()];
                for p in f.places {
                    if !kept.places.contains(&p) {
                        kept.places.push(p);
                    }
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(out.len());
                out.push(f);
            }
        }
    }
    *findings = out;
    findings.sort_by(|a, b| {
        (&a.path, a.span.start, a.span.end, &a.message).cmp(&(
            &b.path,
            b.span.start,
            b.span.end,
            &b.message,
        ))
    });
}

/// The property of a `TypeError: cannot read property 'x' of undefined` line.
fn property_of_error(message: &str) -> Option<&str> {
    property_of(message.split_once(": ").map(|(_, m)| m).unwrap_or(message))
}

/// The property of a `cannot read property 'x' of undefined` message.
fn property_of(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("cannot read property '")
        .or_else(|| message.strip_prefix("cannot set property '"))?;
    rest.split_once('\'')
        .map(|(p, _)| p)
        .filter(|p| !p.is_empty())
}

/// A name the run found defined nowhere, still at its use: the engine's global names
/// near it in spelling, as the static check suggests them (`activeDocumnt`: did you
/// mean `activeDocument`?, the member of a `Global members: yes` interface), with
/// the fix. A finding the blame moved to a declaration is the project's, not a typo of
/// the engine's.
fn near_global(corpus: &Corpus, text: &str, name: &str, message: &str, f: &mut Finding) {
    let Some(n) = message
        .strip_suffix(" is not defined")
        .filter(|_| name == "ReferenceError")
    else {
        return;
    };
    if text.get(f.span.start..f.span.end) != Some(n) {
        return;
    }
    let members = corpus.global_members();
    let candidates = corpus
        .globals
        .keys()
        .chain(&corpus.extra_globals)
        .chain(&corpus.extra_functions)
        .map(String::as_str)
        .chain(members.iter().map(|m| m.name.as_str()));
    let close = grounded_check::suggest::near(n, candidates);
    let Some(best) = close.first() else {
        return;
    };
    f.message.push_str(&format!(
        "; did you mean {}?",
        grounded_check::suggest::or_list(&close)
    ));
    let home = corpus
        .global_member(best)
        .map(|m| m.interface.clone())
        .or_else(|| corpus.global_interface(best).map(str::to_string));
    if let Some(i) = home {
        f.related = grounded_check::suggest::interface_related(corpus, &i);
    }
    for c in &close {
        f.fixes.push(Fix::Replace {
            title: format!("Replace with `{c}`"),
            span: f.span,
            text: c.to_string(),
            safe: false,
        });
    }
}

/// The documented member of `iface` nearest to `member` in spelling, if any is near.
/// The nearest documented member, by the same measure the static check uses, so
/// both layers suggest the same name for the same typo.
fn near_member(corpus: &Corpus, iface: &str, member: &str) -> Option<String> {
    let members = corpus.members_of(iface);
    grounded_check::suggest::near(member, members.iter().map(|m| m.name.as_str()))
        .first()
        .map(|n| n.to_string())
}

fn invented_message(corpus: &Corpus, iface: &str, member: &str) -> String {
    if let Some(reason) = corpus.absent_reason(iface, member) {
        return format!("`{iface}` has no member `{member}` (reached at run time): {reason}");
    }
    let near = near_member(corpus, iface, member)
        .map(|n| format!("; did you mean `{n}`?"))
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
    /// A member's name: the first property of that name at or after the position in
    /// the file (the engine places a statement that makes no call at the last place
    /// it noted, which may be an earlier line), else the word on the position's line.
    Name(String),
    /// A string literal given to a `path` parameter.
    Literal(String),
    /// The first reference to a variable at or after the position, in the whole file
    /// (comments, strings and property names skipped).
    Identifier(String),
    /// The first loop at or after the position (the engine notes no place inside a
    /// loop that makes no call), else the token there.
    Loop,
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
        Anchor::Name(name) => {
            // The common case, cheaply: the name on the engine's line, at or after it.
            if let Some((s, e)) = find_word(line_text, name, pos).filter(|&(s, _)| s >= pos) {
                return Span::new(ls + s, ls + e);
            }
            // A destructuring key counts too: QuickJS notes no place of its own for the
            // read `const { fnd } = require("m")` makes, and gives the place of what ran
            // before it (the enclosing function's start: a module's, on line 1), so the
            // key is the first of that name after the engine's place.
            let kinds = [
                "property_identifier",
                "shorthand_property_identifier_pattern",
            ];
            if let Some((s, e)) = first_node(text, name, ls + pos, &kinds) {
                return Span::new(s, e);
            }
            find_word(line_text, name, pos)
        }
        Anchor::Literal(lit) => ["\"", "'"].iter().find_map(|q| {
            let needle = format!("{q}{lit}{q}");
            find_from(line_text, &needle, pos).map(|s| (s, s + needle.len()))
        }),
        Anchor::Identifier(name) => {
            if let Some((s, e)) = first_node(text, name, ls + pos, &["identifier"]) {
                return Span::new(s, e);
            }
            None
        }
        Anchor::Loop => {
            let kinds = [
                "while_statement",
                "for_statement",
                "for_in_statement",
                "do_statement",
            ];
            // A loop that starts on the line first: where the time budget interrupts the
            // run inside the loop (`while (...) {` or its body on the same line) depends
            // on how many instructions ran before, so the column may lie past the
            // loop's keyword (a longer fake-engine prelude once moved it onto `{`).
            let line_end = ls + line_text.len();
            let on_line = first_node(text, "", ls, &kinds).filter(|&(s, _)| s < line_end);
            if let Some((s, _)) = on_line.or_else(|| first_node(text, "", ls + pos, &kinds)) {
                let (a, b) = token_at(&text[s..], 0);
                return Span::new(s + a, s + b);
            }
            None
        }
        Anchor::Token => None,
    };
    let (s, e) = found.unwrap_or_else(|| token_at(line_text, pos));
    Span::new(ls + s, ls + e)
}

/// The byte range of the first node of one of `kinds` reading `name` (any text when
/// `name` is empty) at or after byte `from` (`identifier`: a variable reference;
/// `property_identifier`: a member name; never a comment or a string).
fn first_node(text: &str, name: &str, from: usize, kinds: &[&str]) -> Option<(usize, usize)> {
    // Several findings in one big file would parse it again and again: keep the last
    // file's tree.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(u64, tree_sitter::Tree)>> =
            const { std::cell::RefCell::new(None) };
    }
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        h.finish()
    };
    let tree = LAST.with(|c| {
        let mut c = c.borrow_mut();
        match &*c {
            Some((k, t)) if *k == key => t.clone(),
            _ => {
                let t = grounded_js::parse(text);
                *c = Some((key, t.clone()));
                t
            }
        }
    });
    let mut cursor = tree.walk();
    let mut best: Option<(usize, usize)> = None;
    loop {
        let node = cursor.node();
        let past = node.end_byte() < from || best.is_some_and(|(s, _)| node.start_byte() > s);
        if !past
            && kinds.contains(&node.kind())
            && node.start_byte() >= from
            && (name.is_empty() || text.get(node.start_byte()..node.end_byte()) == Some(name))
        {
            best = Some((node.start_byte(), node.end_byte()));
        }
        if !past && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return best;
            }
        }
    }
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
