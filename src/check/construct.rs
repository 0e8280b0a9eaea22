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
use crate::footprint::{analysis::Analysis, constructs::match_calls};

/// The construct findings of a script (warnings).
pub fn check(corpus: &Corpus, path: &str, text: &str, tree: &tree_sitter::Tree) -> Vec<Finding> {
    if !crate::footprint::mentions_constructs(corpus, text) {
        return Vec::new();
    }
    let an = Analysis::new(text, tree, Some(corpus));
    if an.calls.is_empty() {
        return Vec::new();
    }
    let m = match_calls(&an.calls);
    let idx = crate::js::LineIndex::new(text);
    let mut out = Vec::new();
    for &(s, e) in &m.pairs {
        if e.is_some() {
            continue;
        }
        let c = &an.calls[s];
        let end = corpus
            .constructs
            .get(&c.construct)
            .map_or("End", |k| k.end.as_str());
        let span = Span::new(c.member_span.0, c.member_span.1);
        out.push(Finding::with_index(
            path,
            &idx,
            span,
            Code::Construct,
            format!(
                "`{}.{}` has no matching `{}.{end}()` before the end of its {}: everything added after it lands inside the {}",
                c.receiver,
                c.member,
                c.receiver,
                if c.scope == 0 { "script" } else { "function" },
                c.construct
            ),
        ));
    }
    for &i in &m.stray {
        let c = &an.calls[i];
        let start = corpus
            .constructs
            .get(&c.construct)
            .map_or("Start", |k| k.start.as_str());
        let span = Span::new(c.member_span.0, c.member_span.1);
        out.push(Finding::with_index(
            path,
            &idx,
            span,
            Code::Construct,
            format!(
                "`{}.{}()` closes no open `{}.{start}` in this {}: delete it, or open the {} before it",
                c.receiver,
                c.member,
                c.receiver,
                if c.scope == 0 { "script" } else { "function" },
                c.construct
            ),
        ));
    }
    out.sort_by_key(|f| f.span.start);
    out
}
