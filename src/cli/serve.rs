//! `grounded serve`: the language server on stdio.

use std::path::Path;

use super::Fail;

/// `grounded serve [--docs P] [--stdio]`: serves until the client exits: 0 after `shutdown`, 1
/// when the session ended without it (the protocol's rule).
pub fn run(docs: Option<&Path>) -> Result<i32, Fail> {
    Ok(crate::lsp::serve_stdio(docs.map(Path::to_path_buf))?)
}
