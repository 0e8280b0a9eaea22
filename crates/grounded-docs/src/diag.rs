//! Load diagnostics: what the corpus loader could not read, said with file and line.

use std::fmt;

/// Something in the corpus that the loader skipped, repaired or could not interpret.
/// The load goes on: a diagnostic never stops the rest of the corpus from loading.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadDiagnostic {
    /// The corpus file, relative to the corpus root.
    pub file: String,
    /// 1-based line in that file.
    pub line: usize,
    /// What is wrong and what the loader did about it.
    pub message: String,
}

impl LoadDiagnostic {
    /// A diagnostic at `file:line`.
    pub fn new(file: &str, line: usize, message: impl Into<String>) -> Self {
        LoadDiagnostic {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}
