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
        out.push(finding(
            c,
            format!(
                "`{}.{}` has no matching `{}.{end}()` before the end of its {}: everything added after it lands inside the {}",
                c.receiver, c.member, c.receiver, place(c), c.construct
            ),
        ));
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
