//! `grounded check`.

use std::path::{Path, PathBuf};

use super::{Fail, Format};

/// `grounded check [--docs P] [--format F] [--dry-run] PATHS...`
pub fn run(
    _docs: Option<&Path>,
    _format: Format,
    _dry_run: bool,
    _paths: &[PathBuf],
) -> Result<i32, Fail> {
    Err(Fail("`check` is not available in this build yet".into()))
}
