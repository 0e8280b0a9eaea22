//! `grounded dry-run`.

use std::path::Path;

use super::{Fail, Format};

/// `grounded dry-run [--docs P] [--format F] [ENTRY]`
pub fn run(
    _docs: Option<&Path>,
    _format: Format,
    _budget_ms: u64,
    _entry: Option<&Path>,
) -> Result<i32, Fail> {
    Err(Fail("`dry-run` is not available in this build yet".into()))
}
