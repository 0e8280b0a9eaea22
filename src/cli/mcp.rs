//! `grounded mcp`: the MCP server on stdio (`grounded-mcp`), handed the command line's
//! own renderer of a finding so that its findings are `check --format json`'s objects.

use std::path::{Path, PathBuf};

use super::Fail;
use crate::check::Finding;
use crate::docs::Corpus;

/// A finding as `check --format json` prints it, `text` being its file's text (for
/// `check_code`, the text not yet written).
pub fn finding_json(f: &Finding, text: &str, corpus: &Corpus) -> serde_json::Value {
    let mut texts = super::check::Texts::default();
    texts.read.insert(f.path.clone(), Some(text.to_string()));
    super::check::finding_json(f, &mut texts, corpus)
}

/// The server's options: the project around `root` (else the current folder), this
/// binary for `check_files` and `dry_run`.
pub fn options(docs: Option<&Path>, root: Option<&Path>) -> Result<grounded_mcp::Options, Fail> {
    let start = match root {
        Some(r) if !r.is_dir() => {
            return Err(Fail(format!("--root {}: no such folder", r.display())))
        }
        Some(r) => r.to_path_buf(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let exe = std::env::current_exe().map_err(|e| Fail(format!("cannot find this binary: {e}")))?;
    Ok(grounded_mcp::Options {
        docs: docs.map(Path::to_path_buf),
        start,
        exe,
        finding_json,
    })
}

/// `grounded mcp [--docs P] [--root DIR]`: serves until the client closes stdin.
pub fn run(docs: Option<&Path>, root: Option<&Path>) -> Result<i32, Fail> {
    let options = options(docs, root)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Fail(format!("cannot start the runtime: {e}")))?;
    rt.block_on(grounded_mcp::serve_stdio(options))
        .map_err(Fail)
}
