//! `js`: parsing scripts with tree-sitter, scopes, and receiver typing.
//!
//! Invariant: depends on `docs` and `es` only; knows nothing of findings' output formats
//! or the protocol.

mod lines;

pub use lines::LineIndex;

/// A tree-sitter parser for JavaScript.
pub fn parser() -> tree_sitter::Parser {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_javascript::LANGUAGE.into())
        .expect("the bundled JavaScript grammar matches the tree-sitter version");
    p
}

/// Parses a script (no old tree).
pub fn parse(text: &str) -> tree_sitter::Tree {
    parser()
        .parse(text, None)
        .expect("a parser with a language and no timeout always returns a tree")
}
