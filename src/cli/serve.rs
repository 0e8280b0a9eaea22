//! `grounded serve`.

use std::path::Path;

use super::Fail;

/// `grounded serve [--docs P]`
pub fn run(_docs: Option<&Path>) -> Result<i32, Fail> {
    Err(Fail("`serve` is not available in this build yet".into()))
}
