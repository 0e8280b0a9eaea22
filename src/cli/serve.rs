//! `grounded serve`: the language server on stdio.

use std::path::Path;

use super::Fail;

/// `grounded serve [--docs P]`: serves until the client exits; 0 then.
pub fn run(docs: Option<&Path>) -> Result<i32, Fail> {
    crate::lsp::serve_stdio(docs.map(Path::to_path_buf))?;
    Ok(0)
}
