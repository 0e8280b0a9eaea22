//! What is silenced, and by what: ignore comments (`// grounded-ignore CODE: why`), the
//! `[check]` rules of `grounded.toml` (`select`, `ignore`, `severity`, `exclude`,
//! `[[check.overrides]]`), and, through the same [`Ignored`] mark, a baseline.
//!
//! A silenced finding is kept and marked, never dropped here: human and JSON output leave
//! it out, `--show-ignored` lists it, SARIF keeps it as a suppression (code-scanning
//! dashboards count what was dismissed, and why). The families never see any of this:
//! they report everything, and [`apply`] decides afterwards, the same for the command
//! line, the server and the agent's measurements.
//!
//! Imports `super::finding` and `crate::project` (the raw `[check]` table) only.

use std::collections::HashMap;
use std::path::PathBuf;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::finding::{Code, Finding, Fix, Severity, Span, CODES};
use grounded_project::{CheckSection, Spanned};

// `Ignored` and `IgnoredBy` live with the finding that carries them (`finding.rs`):
// here they made `finding` and `suppress` import each other.
pub use super::finding::{Ignored, IgnoredBy};

/// The word every ignore comment starts with.
pub const DIRECTIVE: &str = "grounded-ignore";

/// The code that silences every code, said explicitly (a bare `grounded-ignore` silenced
/// everything in other tools and hid the very mistakes this checker exists for).
pub const ALL: &str = "all";

/// One ignore comment of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The comment, its delimiters included.
    pub span: Span,
    /// The bytes that removing the comment deletes: the whole line when the comment is
    /// alone on it, else the comment and the blanks before it.
    pub removal: Span,
    /// `grounded-ignore-file`: the whole file.
    pub file: bool,
    /// 1-based line of the comment.
    pub line: usize,
    /// 1-based line it silences (`None` for a file comment).
    pub target: Option<usize>,
    /// The codes as written, each with its span.
    pub codes: Vec<(String, Span)>,
    /// The span of the list of codes (what a correction replaces).
    pub codes_span: Span,
    /// The text after `:`, if any.
    pub reason: Option<String>,
    /// Why the comment is malformed (it then silences nothing).
    pub problem: Option<String>,
    /// The comment's text and the trimmed text of the line it silences: how the agent
    /// tells an ignore that was there before its turn from one the turn wrote.
    pub key: (String, String),
}

impl Directive {
    /// Whether the comment silences `code` on 1-based `line`.
    fn covers(&self, code: Code, line: usize) -> Option<usize> {
        if self.problem.is_some() || !(self.file || self.target == Some(line)) {
            return None;
        }
        self.codes
            .iter()
            .position(|(c, _)| c == ALL || c == code.as_str())
    }
}

/// The ignore comments of a file. `script` is what the parser sees of it
/// (`js::script_text`: Markdown prose blanked), so a `// grounded-ignore` in prose is
/// no comment; Markdown prose gives `<!-- grounded-ignore-file CODE -->` instead.
pub fn directives(path: &str, text: &str, script: &str) -> Vec<Directive> {
    // The common case costs one scan of the bytes.
    if !text.contains(DIRECTIVE) {
        return Vec::new();
    }
    let markdown = grounded_js::is_markdown(path);
    let mut out = Vec::new();
    let mut alone_lines = Vec::new();
    let mut starts = Vec::new();
    let mut pos = 0usize;
    for (i, line) in script.split_inclusive('\n').enumerate() {
        let start = pos;
        pos += line.len();
        starts.push(start);
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(d) = in_script_line(body, start, i + 1, line.len()) {
            if d.file || d.target == Some(i + 2) {
                alone_lines.push(i + 1);
            }
            out.push(d);
        } else if markdown && body.trim().is_empty() {
            let orig = text.get(start..start + body.len()).unwrap_or("");
            if let Some(d) = in_markdown_line(orig, start, i + 1, line.len()) {
                out.push(d);
            }
        }
    }
    // A comment alone on its line silences the next line that is not itself such a
    // comment, so that two ignores with two reasons can stack.
    for d in &mut out {
        if let Some(t) = d.target {
            if t != d.line {
                let mut next = d.line + 1;
                while alone_lines.contains(&next) {
                    next += 1;
                }
                d.target = Some(next);
            }
        }
    }
    let first_code = first_statement(script);
    for d in &mut out {
        if d.file
            && d.problem.is_none()
            && !markdown_prose(text, script, d)
            && d.span.start > first_code
        {
            d.problem = Some(format!(
                "`{DIRECTIVE}-file` must come before the first statement (line {}); move it to the top of the file",
                line_of(script, first_code)
            ));
        }
        let target_text = d
            .target
            .and_then(|t| starts.get(t - 1).map(|&s| (s, t)))
            .map(|(s, t)| {
                let end = starts.get(t).copied().unwrap_or(text.len());
                let line = text.get(s..end).unwrap_or("");
                if t == d.line {
                    // The line without the comment: the code it silences.
                    let cut = d.span.start.saturating_sub(s);
                    line.get(..cut).unwrap_or(line).trim().to_string()
                } else {
                    line.trim().to_string()
                }
            })
            .unwrap_or_default();
        d.key.1 = target_text;
    }
    out
}

/// Whether a file comment is the Markdown prose form (allowed anywhere in the prose).
fn markdown_prose(text: &str, script: &str, d: &Directive) -> bool {
    text.get(d.span.start..d.span.start + 4) == Some("<!--")
        && script.get(d.span.start..d.span.start + 4) != Some("<!--")
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map(|t| t.matches('\n').count() + 1)
        .unwrap_or(1)
}

/// The offset of the first byte of code: after blanks, comments and a `#!` line.
fn first_statement(script: &str) -> usize {
    let b = script.as_bytes();
    let mut i = 0;
    if script.starts_with("#!") {
        i = script.find('\n').unwrap_or(script.len());
    }
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            i = script[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if b[i..].starts_with(b"/*") {
            i = script[i + 2..]
                .find("*/")
                .map_or(b.len(), |n| i + 2 + n + 2);
        } else {
            break;
        }
    }
    i
}

/// Whether the quotes before `upto` are all closed: `"// grounded-ignore"` inside a
/// string is no comment.
fn outside_strings(prefix: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in prefix.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (None, '"' | '\'' | '`') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    quote.is_none()
}

/// The ignore comment of one script line, if it has one.
fn in_script_line(body: &str, start: usize, line: usize, line_len: usize) -> Option<Directive> {
    let mut from = 0;
    while let Some(k) = body.get(from..)?.find(DIRECTIVE) {
        let at = from + k;
        from = at + DIRECTIVE.len();
        let before = body[..at].trim_end_matches([' ', '\t']);
        let (open, block) = if before.ends_with("//") {
            (before.len() - 2, false)
        } else if before.ends_with("/*") {
            (before.len() - 2, true)
        } else {
            continue;
        };
        if !outside_strings(&body[..open]) {
            continue;
        }
        let close = if block {
            body[at..].find("*/").map(|n| at + n)
        } else {
            None
        };
        let content_end = close.unwrap_or(body.len());
        let comment_end = close.map_or(body.len(), |c| c + 2);
        let prefix = body[..open].trim();
        let suffix = body[comment_end..].trim();
        // `{/* grounded-ignore member */}` is how JSX writes a comment alone on a line.
        let alone = (prefix.is_empty() && suffix.is_empty()) || (prefix == "{" && suffix == "}");
        let removal = if alone {
            Span::new(start, start + line_len)
        } else {
            let blank_before = body[..open].len() - body[..open].trim_end().len();
            let mut end = comment_end;
            if suffix.is_empty() || blank_before > 0 {
                end = comment_end;
            } else if body[comment_end..].starts_with(' ') {
                end = comment_end + 1;
            }
            Span::new(start + open - blank_before, start + end)
        };
        let mut d = parse(
            &body[at..content_end],
            start + at,
            Span::new(start + open, start + comment_end),
            removal,
            line,
        );
        if !d.file {
            d.target = Some(if alone { line + 1 } else { line });
        }
        if block && close.is_none() {
            d.problem = Some(format!(
                "a `/* {DIRECTIVE} ... */` comment must close on its own line"
            ));
        }
        return Some(d);
    }
    None
}

/// `<!-- grounded-ignore-file CODE -->` on a Markdown prose line.
fn in_markdown_line(orig: &str, start: usize, line: usize, line_len: usize) -> Option<Directive> {
    let trimmed = orig.trim_start();
    let rest = trimmed.strip_prefix("<!--")?;
    let inner = rest.trim_start();
    if !inner.starts_with(DIRECTIVE) {
        return None;
    }
    let open = orig.len() - trimmed.len();
    let at = open + 4 + (rest.len() - inner.len());
    let close = orig[at..].find("-->").map(|n| at + n);
    let content_end = close.unwrap_or(orig.len());
    let comment_end = close.map_or(orig.len(), |c| c + 3);
    let mut d = parse(
        &orig[at..content_end],
        start + at,
        Span::new(start + open, start + comment_end),
        Span::new(start, start + line_len),
        line,
    );
    if d.problem.is_none() && !d.file {
        d.problem = Some(format!(
            "in Markdown prose only `<!-- {DIRECTIVE}-file CODE -->` (the whole file) is read; inside a fenced block write `// {DIRECTIVE} CODE`"
        ));
    }
    if close.is_none() && d.problem.is_none() {
        d.problem = Some("the `<!--` comment is not closed on its line".into());
    }
    Some(d)
}

/// One directive's words: `grounded-ignore[-file] CODE[, CODE...][: reason]`, starting
/// at `base` in the file.
fn parse(words: &str, base: usize, span: Span, removal: Span, line: usize) -> Directive {
    let after = &words[DIRECTIVE.len()..];
    let (file, args_at) = match after.strip_prefix("-file") {
        Some(_) => (true, DIRECTIVE.len() + 5),
        None => (false, DIRECTIVE.len()),
    };
    let mut d = Directive {
        span,
        removal,
        file,
        line,
        target: None,
        codes: Vec::new(),
        codes_span: Span::new(base + args_at, base + args_at),
        reason: None,
        problem: None,
        key: (String::new(), String::new()),
    };
    let args = &words[args_at..];
    if let Some(c) = args.chars().next() {
        if !(c.is_whitespace() || c == ':') {
            let word: String = words
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ':')
                .collect();
            d.problem = Some(format!(
                "unknown directive `{word}`: write `{DIRECTIVE} CODE` (this line, or the next when alone on its line) or `{DIRECTIVE}-file CODE`"
            ));
            return d;
        }
    }
    // The reason follows a colon, or ESLint's ` -- ` (`// eslint-disable-line no-alert
    // -- why`), which teams moving from ESLint write by habit: read as a code list it
    // was a malformed comment whose only fix deleted the reason.
    let colon = args.find(':').map(|k| (k, k + 1));
    let dashes = eslint_separator(args).filter(|&(k, _)| colon.is_none_or(|(c, _)| k < c));
    let (list, reason) = match dashes.or(colon) {
        Some((k, after)) => (&args[..k], Some(args[after..].trim())),
        None => (args, None),
    };
    d.key.0 = words.trim().to_string();
    d.reason = reason.filter(|r| !r.is_empty()).map(str::to_string);
    let lead = list.len() - list.trim_start().len();
    let list_at = base + args_at + lead;
    d.codes_span = Span::new(list_at, list_at + list.trim().len());
    let mut offset = args_at;
    for piece in list.split(',') {
        let at = offset + (piece.len() - piece.trim_start().len());
        offset += piece.len() + 1;
        let code = piece.trim();
        if code.is_empty() {
            continue;
        }
        if code.contains(char::is_whitespace) {
            d.problem = Some(format!(
                "`{code}` is not a code: codes are separated by commas, and the reason follows a colon (`{DIRECTIVE} member, object: why`)"
            ));
        }
        d.codes.push((
            code.to_string(),
            Span::new(base + at, base + at + code.len()),
        ));
    }
    if d.codes.is_empty() && d.problem.is_none() {
        d.problem = Some(format!(
            "`{}` names no code: say which (`{DIRECTIVE} member: why`, or `all` for every code)",
            &words[..args_at]
        ));
    }
    d
}

/// Where ESLint's reason separator is in a comment's arguments: two or more dashes with
/// blanks (or the end) on both sides, as `-- why`; the range of the dashes' start and
/// the reason's start.
fn eslint_separator(args: &str) -> Option<(usize, usize)> {
    let b = args.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'-' && b[i + 1] == b'-' && (i == 0 || b[i - 1].is_ascii_whitespace()) {
            let mut j = i;
            while j < b.len() && b[j] == b'-' {
                j += 1;
            }
            if j == b.len() || b[j].is_ascii_whitespace() {
                return Some((i, j));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    None
}

/// The code named `name` (`None` for a name no row of the table has).
pub fn code_named(name: &str) -> Option<Code> {
    CODES.iter().find(|c| c.name == name).map(|c| c.code)
}

/// The known name nearest to `name`, when one is near.
fn near_code(name: &str) -> Option<&'static str> {
    CODES
        .iter()
        .map(|c| c.name)
        .chain([ALL])
        .map(|n| (strsim::damerau_levenshtein(name, n), n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min()
        .map(|(_, n)| n)
}

fn every_code() -> String {
    CODES
        .iter()
        .map(|c| c.name)
        .chain([ALL])
        .collect::<Vec<_>>()
        .join(", ")
}

/// Applies a file's ignore comments and its `[check]` rules to its findings (see
/// [`apply`]); the comments are read from the text.
pub fn apply_file(
    findings: &mut Vec<Finding>,
    shown: &str,
    text: &str,
    script: &str,
    rules: &FileRules,
) {
    let dirs = directives(shown, text, script);
    apply(findings, shown, text, &dirs, rules);
}

/// Marks the findings of one file that `dirs` (its ignore comments) and `rules` silence,
/// adds an `ignore` warning for each malformed comment, unknown code and ignore that
/// silenced nothing, and sets the severities `rules` give. `shown` names the file as its
/// findings do. Comments are judged against every finding the families made, before the
/// configuration: whether an ignore is needed does not depend on what is selected.
pub fn apply(
    findings: &mut Vec<Finding>,
    shown: &str,
    text: &str,
    dirs: &[Directive],
    rules: &FileRules,
) {
    if !dirs.is_empty() {
        let mut used: Vec<Vec<bool>> = dirs.iter().map(|d| vec![false; d.codes.len()]).collect();
        for f in findings.iter_mut().filter(|f| f.ignored.is_none()) {
            for (i, d) in dirs.iter().enumerate() {
                if let Some(c) = d.covers(f.code, f.line) {
                    used[i][c] = true;
                    f.ignored = Some(Ignored {
                        by: IgnoredBy::Comment,
                        reason: d.reason.clone(),
                    });
                    break;
                }
            }
        }
        let mut own = Vec::new();
        for (d, used) in dirs.iter().zip(&used) {
            own.extend(judge(d, used, shown, text));
        }
        // An `ignore` warning can itself be silenced (`grounded-ignore ignore`), but
        // such a comment is never reported unused: it would chase its own tail.
        for f in &mut own {
            if let Some(d) = dirs
                .iter()
                .find(|d| d.covers(f.code, f.line).is_some() && d.span != f.span)
            {
                f.ignored = Some(Ignored {
                    by: IgnoredBy::Comment,
                    reason: d.reason.clone(),
                });
            }
        }
        findings.extend(own);
    }
    if rules.is_default() {
        return;
    }
    for f in findings.iter_mut() {
        config(f, rules);
    }
}

/// Marks what `dirs` and `rules` silence and sets the severities `rules` give, and
/// says nothing about the comments themselves (findings of a run that happens only on
/// request, such as the dry run's).
pub fn mark(findings: &mut [Finding], dirs: &[Directive], rules: &FileRules) {
    for f in findings.iter_mut() {
        if f.ignored.is_none() {
            if let Some(d) = dirs.iter().find(|d| d.covers(f.code, f.line).is_some()) {
                f.ignored = Some(Ignored {
                    by: IgnoredBy::Comment,
                    reason: d.reason.clone(),
                });
            }
        }
        config(f, rules);
    }
}

fn config(f: &mut Finding, rules: &FileRules) {
    match &rules.levels[f.code.index()] {
        Level::Default => {}
        Level::Off(why) => {
            if f.ignored.is_none() {
                f.ignored = Some(Ignored {
                    by: IgnoredBy::Config,
                    reason: Some(why.clone()),
                });
            }
        }
        Level::Severity(s) => f.severity = *s,
    }
}

/// The `ignore` warnings of one comment, given which of its codes silenced something.
fn judge(d: &Directive, used: &[bool], shown: &str, text: &str) -> Vec<Finding> {
    // The removal of an ignore that silences nothing loses nothing: safe (the sure fix,
    // applied by `--fix`) unless the comment gives a reason, which no fix may drop
    // (a team's `--fix` deleted a malformed ignore with its reason). Any other removal
    // (malformed, unknown code) undoes what a person meant to say: unsafe.
    let remove = |title: &str| {
        let unused = title.contains("unused");
        let safe = unused && d.reason.is_none();
        let detail = unused.then(|| "it silences nothing".to_string());
        if d.removal.start < d.removal.end && text.get(d.removal.start..d.removal.end).is_some() {
            let alone =
                d.removal.start == 0 || text.as_bytes().get(d.removal.start - 1) == Some(&b'\n');
            let whole = alone
                && text[d.removal.start..d.removal.end].trim()
                    == text[d.span.start..d.span.end].trim();
            if whole {
                vec![Fix::Delete {
                    title: title.to_string(),
                    detail,
                    span: d.removal,
                    safe,
                }]
            } else {
                vec![Fix::Replace {
                    title: title.to_string(),
                    span: d.removal,
                    text: String::new(),
                    safe,
                }]
            }
        } else {
            Vec::new()
        }
    };
    let mut out = Vec::new();
    let what = if d.file {
        "in this file".to_string()
    } else {
        format!("on line {}", d.target.unwrap_or(d.line))
    };
    if let Some(problem) = &d.problem {
        let mut f = Finding::new(
            shown,
            text,
            d.span,
            Code::Ignore,
            format!("malformed ignore comment: {problem}"),
        );
        // Words beyond one code are what the author wrote as a reason (`member legacy
        // code`, the colon forgotten): no fix drops them, the author rewrites the comment.
        if d.reason.is_none() && !has_prose(d, text) {
            f.fixes = remove("Remove the malformed ignore");
        }
        out.push(f);
        return out;
    }
    let known: Vec<bool> = d
        .codes
        .iter()
        .map(|(c, _)| c == ALL || code_named(c).is_some())
        .collect();
    for ((c, span), _) in d.codes.iter().zip(&known).filter(|(_, k)| !**k) {
        let mut f = Finding::new(
            shown,
            text,
            *span,
            Code::Ignore,
            format!(
                "unknown code `{c}` in an ignore comment{}; codes: {}",
                match near_code(c) {
                    Some(n) => format!(" (did you mean `{n}`?)"),
                    None => String::new(),
                },
                every_code()
            ),
        );
        f.fixes = match near_code(c) {
            Some(n) => vec![Fix::Replace {
                title: format!("Replace with `{n}`"),
                span: *span,
                text: n.to_string(),
                // A near code is a guess: it would start silencing `n`.
                safe: false,
            }],
            None if d.codes.len() > 1 => correct(d, |i| {
                i != d
                    .codes
                    .iter()
                    .position(|(x, _)| x == c)
                    .unwrap_or(usize::MAX)
            }),
            None => remove("Remove the ignore"),
        };
        out.push(f);
    }
    let unused: Vec<usize> = (0..d.codes.len())
        .filter(|&i| {
            known[i]
                && !used[i]
                && d.codes[i].0 != Code::Ignore.as_str()
                && d.codes[i].0 != Code::DryRun.as_str()
        })
        .collect();
    let known_count = known.iter().filter(|k| **k).count();
    if unused.is_empty() {
        return out;
    }
    if unused.len() == known_count && known_count == d.codes.len() {
        let names: Vec<&str> = d.codes.iter().map(|(c, _)| c.as_str()).collect();
        let mut f = Finding::new(
            shown,
            text,
            d.span,
            Code::Ignore,
            format!(
                "unused ignore: no `{}` finding {what} to silence",
                names.join("`/`")
            ),
        );
        f.fixes = remove("Remove the unused ignore");
        out.push(f);
        return out;
    }
    for &i in &unused {
        let (c, span) = &d.codes[i];
        let mut f = Finding::new(
            shown,
            text,
            *span,
            Code::Ignore,
            format!("unused ignore: no `{c}` finding {what} to silence"),
        );
        f.fixes = correct(d, |j| j != i);
        out.push(f);
    }
    out
}

/// A fix that rewrites the comment's list of codes to those `keep` keeps.
fn correct(d: &Directive, keep: impl Fn(usize) -> bool) -> Vec<Fix> {
    let kept: Vec<&str> = d
        .codes
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, (c, _))| c.as_str())
        .collect();
    vec![Fix::Replace {
        title: format!("Correct the ignore to `{}`", kept.join(", ")),
        span: d.codes_span,
        text: kept.join(", "),
        // Only the list changes (the reason after it stays), and what it drops
        // silenced nothing.
        safe: true,
    }]
}

/// Whether a comment holds words beyond its directive and one code: the reason of a
/// malformed comment, written without its colon.
fn has_prose(d: &Directive, text: &str) -> bool {
    let inner = text.get(d.span.start..d.span.end).unwrap_or("");
    let inner = inner
        .trim_start_matches("//")
        .trim_start_matches("/*")
        .trim_start_matches("<!--")
        .trim_end_matches("-->")
        .trim_end_matches("*/")
        .trim();
    // `member, object` is one list however it is spaced.
    let mut list = inner.replace(',', " , ");
    while list.contains("  ") {
        list = list.replace("  ", " ");
    }
    let words = list.replace(" , ", ",");
    words.split_whitespace().count() > 2
}

/// The ignore comments of `now` that were already in `before` (the same comment over
/// the same line of code), each counted once: the agent's checker judges as if the
/// comments its own turn wrote were absent.
pub fn kept_from(before: &[Directive], now: Vec<Directive>) -> Vec<Directive> {
    let mut left: HashMap<&(String, String), usize> = HashMap::new();
    for d in before {
        *left.entry(&d.key).or_default() += 1;
    }
    now.into_iter()
        .filter(|d| match left.get_mut(&d.key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .collect()
}

/// What `[check]` does to one code in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Level {
    /// The code's own severity.
    Default,
    /// Not reported; where the configuration says so.
    Off(String),
    /// Reported at this severity.
    Severity(Severity),
}

/// The `[check]` rules of one file: a [`Level`] a code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRules {
    /// By [`Code::index`].
    pub levels: Vec<Level>,
}

impl Default for FileRules {
    fn default() -> Self {
        FileRules {
            levels: vec![Level::Default; CODES.len()],
        }
    }
}

impl FileRules {
    /// Whether nothing is changed.
    pub fn is_default(&self) -> bool {
        self.levels.iter().all(|l| *l == Level::Default)
    }
}

/// `select`, `ignore` and `severity` of one layer (the table, an override).
#[derive(Debug, Clone, Default)]
struct Layer {
    select: Option<(Vec<Code>, String)>,
    ignore: Vec<(Code, String)>,
    severity: Vec<(Code, Option<Severity>, String)>,
}

impl Layer {
    fn onto(&self, levels: &mut [Level]) {
        if let Some((codes, at)) = &self.select {
            for c in CODES {
                levels[c.code.index()] = if codes.contains(&c.code) {
                    Level::Default
                } else {
                    Level::Off(format!("not in `select` ({at})"))
                };
            }
        }
        for (c, at) in &self.ignore {
            levels[c.index()] = Level::Off(format!("`ignore` ({at})"));
        }
        for (c, s, at) in &self.severity {
            if matches!(levels[c.index()], Level::Off(_)) {
                continue;
            }
            levels[c.index()] = match s {
                Some(s) => Level::Severity(*s),
                None => Level::Off(format!("`severity` off ({at})")),
            };
        }
    }
}

/// A glob of `[check]` with where it was written (to say when it matches nothing).
#[derive(Debug, Clone)]
struct GlobAt {
    key: &'static str,
    glob: String,
    at: String,
    set: GlobSet,
}

/// `[check]` of `grounded.toml` with `--select`/`--ignore`, validated: codes known,
/// globs well-formed.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    base: Layer,
    overrides: Vec<(GlobSet, Layer)>,
    exclude: Option<GlobSet>,
    globs: Vec<GlobAt>,
    /// The baseline file named by `[check] baseline`, resolved against the project root.
    pub baseline: Option<PathBuf>,
}

impl Rules {
    /// The rules of `section` (paths relative to `root`), `--select`/`--ignore` (the
    /// command line's lists) replacing the table's. An unknown code, severity or a bad
    /// glob is an error naming its line.
    pub fn new(
        section: &CheckSection,
        root: &std::path::Path,
        cli_select: Option<&[String]>,
        cli_ignore: Option<&[String]>,
    ) -> Result<Rules, String> {
        let codes = |list: &[Spanned], key: &str| -> Result<Vec<(Code, String)>, String> {
            let mut out = Vec::new();
            for s in list {
                let at = section.at(s.span());
                out.extend(
                    codes_of(s.get_ref(), &format!("{at}: [check] {key}"))?
                        .into_iter()
                        .map(|c| (c, at.clone())),
                );
            }
            Ok(out)
        };
        let cli = |list: &[String], flag: &str| -> Result<Vec<(Code, String)>, String> {
            let mut out = Vec::new();
            for s in list.iter().flat_map(|s| s.split(',')) {
                out.extend(
                    codes_of(s.trim(), flag)?
                        .into_iter()
                        .map(|c| (c, flag.to_string())),
                );
            }
            Ok(out)
        };
        let severities = |map: &std::collections::BTreeMap<Spanned, Spanned>| -> Result<Vec<(Code, Option<Severity>, String)>, String> {
            let mut out = Vec::new();
            for (k, v) in map {
                let at = section.at(k.span());
                let level = match v.get_ref().as_str() {
                    "error" => Some(Severity::Error),
                    "warning" => Some(Severity::Warning),
                    "info" => Some(Severity::Info),
                    "hint" => Some(Severity::Hint),
                    "off" => None,
                    other => {
                        return Err(format!(
                            "{}: [check] severity: unknown severity `{other}` for `{}`; one of error, warning, info, hint, off",
                            section.at(v.span()),
                            k.get_ref()
                        ))
                    }
                };
                for c in codes_of(k.get_ref(), &format!("{at}: [check] severity"))? {
                    out.push((c, level, at.clone()));
                }
            }
            Ok(out)
        };
        let select_of =
            |sel: &Option<Vec<Spanned>>| -> Result<Option<(Vec<Code>, String)>, String> {
                match sel {
                    Some(list) => {
                        let at = list
                            .first()
                            .map(|s| section.at(s.span()))
                            .unwrap_or_else(|| section.at(0..0));
                        Ok(Some((
                            codes(list, "select")?.into_iter().map(|(c, _)| c).collect(),
                            at,
                        )))
                    }
                    None => Ok(None),
                }
            };
        let mut rules = Rules::default();
        rules.base.select = match cli_select {
            Some(list) => Some((
                cli(list, "--select")?.into_iter().map(|(c, _)| c).collect(),
                "--select".into(),
            )),
            None => select_of(&section.select)?,
        };
        rules.base.ignore = match cli_ignore {
            Some(list) => cli(list, "--ignore")?,
            None => codes(&section.ignore, "ignore")?,
        };
        rules.base.severity = severities(&section.severity)?;
        if !section.exclude.is_empty() {
            let mut b = GlobSetBuilder::new();
            for g in &section.exclude {
                let one = glob_set(g, section, "exclude")?;
                rules.globs.push(one.clone());
                add_glob(&mut b, g.get_ref(), section, g)?;
            }
            rules.exclude = Some(b.build().map_err(|e| e.to_string())?);
        }
        for o in &section.overrides {
            if o.files.is_empty() {
                return Err(format!(
                    "{}: [[check.overrides]] needs `files`, the globs it applies to",
                    section.at(0..0)
                ));
            }
            let mut b = GlobSetBuilder::new();
            for g in &o.files {
                rules.globs.push(glob_set(g, section, "overrides files")?);
                add_glob(&mut b, g.get_ref(), section, g)?;
            }
            let layer = Layer {
                select: select_of(&o.select)?,
                ignore: codes(&o.ignore, "overrides ignore")?,
                severity: severities(&o.severity)?,
            };
            rules
                .overrides
                .push((b.build().map_err(|e| e.to_string())?, layer));
        }
        if let Some(b) = &section.baseline {
            let p = b.get_ref().trim();
            if p.is_empty() {
                return Err(format!(
                    "{}: [check] baseline: an empty path",
                    section.at(b.span())
                ));
            }
            rules.baseline = Some(root.join(p));
        }
        Ok(rules)
    }

    /// The rules of the file `rel` (its path relative to the project root, `/`-separated).
    pub fn for_file(&self, rel: &str) -> FileRules {
        let mut levels = vec![Level::Default; CODES.len()];
        self.base.onto(&mut levels);
        for (set, layer) in &self.overrides {
            if set.is_match(rel) {
                layer.onto(&mut levels);
            }
        }
        FileRules { levels }
    }

    /// Why no code is left to report anywhere, when `select`, `ignore` and `severity`
    /// turn every one off and no override selects one back: a run that reports nothing
    /// because it looked for nothing is not clean (it once said "no findings").
    pub fn nothing_selected(&self) -> Option<String> {
        let mut levels = vec![Level::Default; CODES.len()];
        self.base.onto(&mut levels);
        if self.overrides.iter().any(|(_, l)| l.select.is_some()) {
            return None;
        }
        let mut why: Vec<&str> = Vec::new();
        for l in &levels {
            match l {
                Level::Off(w) => {
                    if !why.contains(&w.as_str()) {
                        why.push(w);
                    }
                }
                _ => return None,
            }
        }
        Some(why.join(", "))
    }

    /// Whether `exclude` leaves `rel` out.
    pub fn excluded(&self, rel: &str) -> bool {
        self.exclude.as_ref().is_some_and(|s| s.is_match(rel))
    }

    /// One line for each glob that matches none of `files` (paths relative to the root):
    /// a misspelt folder in `exclude` otherwise excludes nothing, silently.
    pub fn unmatched<'a>(&self, files: impl IntoIterator<Item = &'a str> + Clone) -> Vec<String> {
        self.globs
            .iter()
            .filter(|g| !files.clone().into_iter().any(|f| g.set.is_match(f)))
            .map(|g| {
                format!(
                    "{}: [check] {} glob `{}` matches no file of the project",
                    g.at, g.key, g.glob
                )
            })
            .collect()
    }
}

/// The codes a name stands for (`all`: every code).
fn codes_of(name: &str, at: &str) -> Result<Vec<Code>, String> {
    if name == ALL {
        return Ok(CODES.iter().map(|c| c.code).collect());
    }
    match code_named(name) {
        Some(c) => Ok(vec![c]),
        None => Err(format!(
            "{at}: unknown code `{name}`{}; codes: {}",
            near_code(name)
                .map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default(),
            every_code()
        )),
    }
}

/// A glob as `[check]` means it: relative to the project root, `*` within one folder,
/// and a glob without `/` matching at any depth (as in `.gitignore`: `*.min.js`).
fn add_glob(
    b: &mut GlobSetBuilder,
    glob: &str,
    section: &CheckSection,
    s: &Spanned,
) -> Result<(), String> {
    let glob = glob.trim_start_matches("./");
    let mut pats = vec![glob.to_string()];
    if !glob.contains('/') {
        pats.push(format!("**/{glob}"));
    }
    // `legacy/` and `legacy` name the folder's files too.
    let dir = glob.trim_end_matches('/');
    if !dir.contains(['*', '?', '[', '{']) {
        pats.push(format!("{dir}/**"));
    }
    for p in pats {
        let g = GlobBuilder::new(&p)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                format!(
                    "{}: [check] bad glob `{glob}`: {}",
                    section.at(s.span()),
                    e.kind()
                )
            })?;
        b.add(g);
    }
    Ok(())
}

fn glob_set(s: &Spanned, section: &CheckSection, key: &'static str) -> Result<GlobAt, String> {
    let mut b = GlobSetBuilder::new();
    add_glob(&mut b, s.get_ref(), section, s)?;
    Ok(GlobAt {
        key,
        glob: s.get_ref().clone(),
        at: section.at(s.span()),
        set: b.build().map_err(|e| e.to_string())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(text: &str) -> Vec<Directive> {
        directives("a.js", text, text)
    }

    #[test]
    fn forms_and_targets() {
        let t = "// grounded-ignore member: not yet documented\nlayout.x();\nlayout.y(); // grounded-ignore member, object\n";
        let d = dirs(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].target, Some(2));
        assert_eq!(d[0].reason.as_deref(), Some("not yet documented"));
        assert_eq!(d[1].target, Some(3));
        assert_eq!(d[1].codes.len(), 2);
        assert!(d.iter().all(|d| d.problem.is_none()));
        let s = "var s = \"// grounded-ignore member\";\n";
        assert!(dirs(s).is_empty(), "inside a string");
    }

    #[test]
    fn eslints_dashes_give_the_reason() {
        let d = dirs("// grounded-ignore member, object -- drawn by the host's plug-in\nx();\n");
        assert!(d[0].problem.is_none(), "{:?}", d[0]);
        let codes: Vec<&str> = d[0].codes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(codes, ["member", "object"]);
        assert_eq!(d[0].reason.as_deref(), Some("drawn by the host's plug-in"));
        // A colon first keeps its reason whole, dashes and all.
        let d = dirs("x(); // grounded-ignore member: a -- b\n");
        assert_eq!(d[0].reason.as_deref(), Some("a -- b"));
        // Known-bad: dashes glued to a word are no separator.
        let d = dirs("// grounded-ignore member--why\nx();\n");
        assert!(
            d[0].problem.is_none() && d[0].reason.is_none(),
            "{:?}",
            d[0]
        );
        assert_eq!(d[0].codes[0].0, "member--why");
    }

    #[test]
    fn malformed_and_misplaced() {
        assert!(dirs("// grounded-ignore\nx();\n")[0].problem.is_some());
        assert!(dirs("// grounded-ignore-next-line member\nx();\n")[0]
            .problem
            .is_some());
        assert!(dirs("// grounded-ignore member why\nx();\n")[0]
            .problem
            .is_some());
        assert!(dirs("x();\n// grounded-ignore-file member\n")[0]
            .problem
            .is_some());
        assert!(dirs("/* a */\n// grounded-ignore-file member\nx();\n")[0]
            .problem
            .is_none());
    }

    #[test]
    fn stacked_comments_reach_the_code() {
        let d = dirs("// grounded-ignore member\n/* grounded-ignore object */\nx.y();\n");
        assert_eq!(d[0].target, Some(3));
        assert_eq!(d[1].target, Some(3));
    }

    #[test]
    fn markdown_prose_file_form() {
        let md = "<!-- grounded-ignore-file member: old API -->\n# T\n\n```js\nlayout.x();\n```\n";
        let script = grounded_js::script_text("a.md", md, &[]);
        let d = directives("a.md", md, &script);
        assert_eq!(d.len(), 1);
        assert!(d[0].file && d[0].problem.is_none(), "{:?}", d[0]);
    }
}
