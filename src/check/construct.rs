//! `construct`: a construct's Start with no matching End, or an End with no Start.
//!
//! What: `layout.tableStart(t)` with no `layout.tableEnd()` before the end of its
//! function (or script), and a `tableEnd()` that closes nothing. Both are warnings.
//!
//! Why: an unclosed table swallows whatever the script adds after it (the paragraph
//! meant to follow the table lands in its last row), and the engine only complains, if
//! at all, at the end of the run, far from the cause.
//!
//! Example:
//!
//! ```js
//! var stock = new Table();
//! layout.tableStart(stock);   // `layout.tableStart` has no matching `layout.tableEnd()`
//! layout.tableCell("Toner");
//! ```
//!
//! The constructs are the corpus's (`corpus.constructs`); matching is the footprint
//! layer's, per function scope, nesting counted. A member the overlay marks absent
//! (`tableCellEnd`) is not the End of anything and is left to the `member` family.

use crate::check::{Code, Finding, Span};
use crate::docs::Corpus;
use crate::footprint::{
    analysis::{construct_calls_on_paths, Analysis, ConstructCall},
    constructs::match_calls,
};

/// The construct findings of a script (warnings).
pub fn check(corpus: &Corpus, path: &str, text: &str, tree: &tree_sitter::Tree) -> Vec<Finding> {
    if !crate::footprint::mentions_constructs(corpus, text) {
        return Vec::new();
    }
    let an = Analysis::new(text, tree, Some(corpus));
    findings(corpus, path, text, &an.calls)
}

/// Like [`check`], for a caller that has already analysed the script (the checker):
/// its walk located the construct calls and knows the scopes, so nothing is walked
/// again. `a` must be the full analysis of `text` (not of one statement).
pub fn check_with(
    corpus: &Corpus,
    path: &str,
    text: &str,
    a: &crate::js::Analysis,
) -> Vec<Finding> {
    let calls = construct_calls_on_paths(text, corpus, a.construct_paths(), &|n, o| {
        a.is_declared(n, o)
    });
    findings(corpus, path, text, &calls)
}

/// *Insert `layout.tableEnd()`* as the last statement of the block that holds the
/// Start, indented as the Start's statement: the pairing is per function in document
/// order, so an End there closes it. Offered only where the block's closing `}` opens
/// its line (or the block is the script): elsewhere the place to write is not clear.
fn insert_end(
    text: &str,
    idx: &crate::js::LineIndex,
    c: &ConstructCall,
    end: &str,
    markdown: bool,
) -> Option<crate::check::Fix> {
    let stmt = c.chain.iter().rposition(|n| n.list_child)?;
    if stmt == 1 && markdown {
        // The script's end is the Markdown file's end, outside the fenced block.
        return None;
    }
    let block = &c.chain[stmt.checked_sub(1)?];
    let line_start = idx.line_start(c.chain[stmt].start_row);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|ch| *ch == ' ' || *ch == '\t')
        .collect();
    let call = format!("{}.{end}()", c.receiver);
    let (at, new) = if stmt == 1 {
        // The script itself: after its last line.
        let nl = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        (text.len(), format!("{nl}{indent}{call};\n"))
    } else {
        let at = idx.line_start(block.end_row);
        if !text.get(at..)?.trim_start().starts_with('}')
            || block.end_row <= c.chain[stmt].start_row
        {
            return None;
        }
        (at, format!("{indent}{call};\n"))
    };
    Some(crate::check::Fix::Replace {
        title: format!("Insert `{call}`"),
        span: Span::new(at, at),
        text: new,
    })
}

fn findings(corpus: &Corpus, path: &str, text: &str, calls: &[ConstructCall]) -> Vec<Finding> {
    if calls.is_empty() {
        return Vec::new();
    }
    let m = match_calls(calls);
    if m.stray.is_empty() && m.pairs.iter().all(|&(_, e)| e.is_some()) {
        // Nothing to report: skip indexing the lines of the whole text.
        return Vec::new();
    }
    let idx = crate::js::LineIndex::new(text);
    let finding = |c: &ConstructCall, message: String| {
        let span = Span::new(c.member_span.0, c.member_span.1);
        Finding::with_index(path, &idx, span, Code::Construct, message)
    };
    let place = |c: &ConstructCall| if c.scope == 0 { "script" } else { "function" };
    let mut out = Vec::new();
    for &(s, e) in &m.pairs {
        if e.is_some() {
            continue;
        }
        let c = &calls[s];
        let end = corpus
            .constructs
            .get(&c.construct)
            .map_or("End", |k| k.end.as_str());
        let mut f = finding(
            c,
            format!(
                "`{}.{}` has no matching `{}.{end}()` before the end of its {}: everything added after it lands inside the {}",
                c.receiver, c.member, c.receiver, place(c), c.construct
            ),
        );
        f.fixes
            .extend(insert_end(text, &idx, c, end, crate::js::is_markdown(path)));
        out.push(f);
    }
    for &i in &m.stray {
        let c = &calls[i];
        let start = corpus
            .constructs
            .get(&c.construct)
            .map_or("Start", |k| k.start.as_str());
        out.push(finding(
            c,
            format!(
                "`{}.{}()` closes no open `{}.{start}` in this {}: delete it, or open the {} before it",
                c.receiver, c.member, c.receiver, place(c), c.construct
            ),
        ));
    }
    out.sort_by_key(|f| f.span.start);
    out
}
