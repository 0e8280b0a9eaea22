//! `grounded constructs` and `grounded find`.

use std::path::{Path, PathBuf};

use super::{Fail, Format};

/// `grounded constructs FILE`
pub fn constructs(_docs: Option<&Path>, _format: Format, _file: &Path) -> Result<i32, Fail> {
    Err(Fail(
        "`constructs` is not available in this build yet".into(),
    ))
}

/// `grounded find PATTERN [PATHS...]`
pub fn find(
    _docs: Option<&Path>,
    _format: Format,
    _fixed: bool,
    _context: usize,
    _pattern: &str,
    _paths: &[PathBuf],
) -> Result<i32, Fail> {
    Err(Fail("`find` is not available in this build yet".into()))
}
