//! `footprint`: a construct is all of its lines, not the one that matched.

use crate::docs::Corpus;

/// One construct instance in a script.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConstructInstance {
    /// The construct's id (`table`).
    pub construct: String,
    /// The variable passed to Start, if Start took a plain identifier.
    pub object: Option<String>,
    /// 1-based line of Start.
    pub start_line: usize,
    /// 1-based line of End (of Start when unclosed).
    pub end_line: usize,
    /// The whole footprint, 1-based inclusive line ranges, sorted, merged.
    pub lines: Vec<(usize, usize)>,
}

/// Every construct instance of a script, in order of its Start.
pub fn instances(
    _corpus: &Corpus,
    _text: &str,
    _tree: &tree_sitter::Tree,
) -> Vec<ConstructInstance> {
    Vec::new()
}
