//! `construct`: a construct's Start with no matching End, or an End with no Start.

use crate::check::Finding;
use crate::docs::Corpus;

/// The construct findings of a script (warnings).
pub fn check(
    _corpus: &Corpus,
    _path: &str,
    _text: &str,
    _tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    Vec::new()
}
