//! The tree-sitter queries of `grammars/javascript/*.scm`, compiled once.
//!
//! The patterns live in `.scm` files rather than in hand-written walks because a pattern
//! says "an object literal passed as an argument" in one line that anyone who knows
//! tree-sitter can read and extend; the Rust side only interprets the captures.

use std::sync::OnceLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

/// The sites the families judge (`sites.scm`).
pub const SITES_SCM: &str = include_str!("../../grammars/javascript/sites.scm");
/// Syntax above a language level (`syntax.scm`).
pub const SYNTAX_SCM: &str = include_str!("../../grammars/javascript/syntax.scm");

/// What a capture of the combined query is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureKind {
    /// `receiver.name`
    Member,
    /// `f(...)` or `o.f(...)`
    Call,
    /// `new X(...)`
    New,
    /// A syntax feature introduced in edition `year`; index into [`Queries::features`].
    Feature {
        /// Edition year (1999 = ES3).
        year: u16,
        /// Index of the feature key.
        feature: usize,
    },
    /// Regex flags, judged by flag (`y`, `u`, `s` are later than ES3).
    RegexFlags,
    /// A number literal, judged by form (`0b`, `0o`, `1_000`, `10n`).
    Number,
    /// A list whose trailing comma may be above the level: object literals (ES5).
    TrailingObject,
    /// Call arguments (trailing comma: ES2017).
    TrailingArguments,
    /// Formal parameters (trailing comma: ES2017).
    TrailingParameters,
}

/// The compiled query and what each capture index means.
pub struct Queries {
    /// Sites and syntax patterns in one query, so the tree is matched once.
    pub query: Query,
    /// Capture index → kind.
    pub kinds: Vec<CaptureKind>,
    /// Feature keys (`arrow_function`), indexed by [`CaptureKind::Feature::feature`].
    pub features: Vec<String>,
}

/// The queries, compiled on first use.
pub fn queries() -> &'static Queries {
    static Q: OnceLock<Queries> = OnceLock::new();
    Q.get_or_init(|| {
        let source = format!("{SITES_SCM}\n{SYNTAX_SCM}");
        let query = Query::new(&tree_sitter_javascript::LANGUAGE.into(), &source)
            .expect("the bundled .scm queries compile against the bundled grammar");
        let mut features = Vec::new();
        let kinds = query
            .capture_names()
            .iter()
            .map(|name| capture_kind(name, &mut features))
            .collect();
        Queries {
            query,
            kinds,
            features,
        }
    })
}

fn capture_kind(name: &str, features: &mut Vec<String>) -> CaptureKind {
    match name {
        "site.member" => CaptureKind::Member,
        "site.call" => CaptureKind::Call,
        "site.new" => CaptureKind::New,
        "regex_flags" => CaptureKind::RegexFlags,
        "number" => CaptureKind::Number,
        "trailing.object" => CaptureKind::TrailingObject,
        "trailing.arguments" => CaptureKind::TrailingArguments,
        "trailing.parameters" => CaptureKind::TrailingParameters,
        other => {
            let (year, feature) = other
                .strip_prefix("es")
                .and_then(|r| r.split_once('.'))
                .and_then(|(y, f)| Some((y.parse::<u16>().ok()?, f)))
                .unwrap_or((9999, other));
            let idx = match features.iter().position(|f| f == feature) {
                Some(i) => i,
                None => {
                    features.push(feature.to_string());
                    features.len() - 1
                }
            };
            CaptureKind::Feature { year, feature: idx }
        }
    }
}

/// Every capture of the combined query in `node`'s subtree, in document order of the
/// matches, as `(kind, node)`.
pub fn captures<'t>(node: Node<'t>, text: &str) -> Vec<(CaptureKind, Node<'t>)> {
    let q = queries();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut matches = cursor.matches(&q.query, node, text.as_bytes());
    while let Some(m) = matches.next() {
        for c in m.captures {
            out.push((q.kinds[c.index as usize], c.node));
        }
    }
    out
}

/// Every capture of the combined query whose node intersects `range` (byte offsets).
pub fn captures_in<'t>(
    node: Node<'t>,
    text: &str,
    range: std::ops::Range<usize>,
) -> Vec<(CaptureKind, Node<'t>)> {
    let q = queries();
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(range);
    let mut out = Vec::new();
    let mut matches = cursor.matches(&q.query, node, text.as_bytes());
    while let Some(m) = matches.next() {
        for c in m.captures {
            out.push((q.kinds[c.index as usize], c.node));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_compile_and_name_features() {
        let q = queries();
        assert!(q.features.iter().any(|f| f == "arrow_function"));
        assert!(q.kinds.iter().any(|k| matches!(k, CaptureKind::Member)));
        assert!(!q
            .kinds
            .iter()
            .any(|k| matches!(k, CaptureKind::Feature { year: 9999, .. })));
    }
}
