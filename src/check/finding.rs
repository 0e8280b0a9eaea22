//! The finding: what every family reports, the dry run included.
//!
//! Positions are byte offsets into the checked text (the analysis speaks bytes); the
//! 1-based line/column pairs are derived once, for output. The language server alone
//! converts to UTF-16.

use serde::Serialize;

/// The family that found it (interfaces.md's `code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// A member the receiver's interface does not have.
    Member,
    /// A receiver declared nowhere.
    Object,
    /// A bare call defined nowhere.
    Function,
    /// Syntax above the engine's level, or a parse error.
    Syntax,
    /// An options key the parameter's interface lacks.
    Option,
    /// `new X()` of nothing.
    Constructor,
    /// A built-in the engine's level lacks.
    Engine,
    /// A `path` argument naming no file.
    File,
    /// Start without End, End without Start.
    Construct,
    /// What the fake-engine run found.
    DryRun,
}

impl Code {
    /// The code as written in JSON and diagnostics.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Member => "member",
            Code::Object => "object",
            Code::Function => "function",
            Code::Syntax => "syntax",
            Code::Option => "option",
            Code::Constructor => "constructor",
            Code::Engine => "engine",
            Code::File => "file",
            Code::Construct => "construct",
            Code::DryRun => "dry-run",
        }
    }

    /// The severity of the family: every family is an error but `construct`.
    pub fn severity(self) -> Severity {
        match self {
            Code::Construct => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// How bad it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails on the engine.
    Error,
    /// Probably wrong.
    Warning,
}

/// A byte range `[start, end)` in the checked text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// A fix, as data: the quick fixes and the agent apply it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fix {
    /// Replace the bytes of `span` with `text` (a near candidate).
    Replace {
        /// The title of the action, e.g. ``Replace with `tableStart` ``.
        title: String,
        /// What to replace.
        span: Span,
        /// With what.
        text: String,
    },
    /// Delete whole lines: the statement that makes the call, and its line ending.
    Delete {
        /// The title of the action, e.g. ``Delete `layout.tableCellEnd()` ``.
        title: String,
        /// Why deleting loses nothing (the overlay's `no_close`), if known.
        detail: Option<String>,
        /// The bytes to remove (whole lines).
        span: Span,
    },
}

/// Where the docs say more (the interface's chunk).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// Corpus file of the chunk.
    pub file: String,
    /// 1-based line of the chunk.
    pub line: usize,
    /// What it is: "interface `Layout`".
    pub message: String,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The path as given on the command line, or relative to the folder given.
    pub path: String,
    /// Byte range in the checked text.
    #[serde(skip)]
    pub span: Span,
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column (in characters) of the start.
    pub column: usize,
    /// 1-based line of the end.
    pub end_line: usize,
    /// 1-based column (in characters) of the end, exclusive.
    pub end_column: usize,
    /// The family.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong and what to do: names the interface and the real candidates.
    pub message: String,
    /// Fixes as data.
    #[serde(skip)]
    pub fixes: Vec<Fix>,
    /// The docs chunk that says more.
    #[serde(skip)]
    pub related: Option<Related>,
}

impl Finding {
    /// A finding at `span` of `text`, positions derived from the text.
    pub fn new(
        path: &str,
        text: &str,
        span: Span,
        code: Code,
        message: impl Into<String>,
    ) -> Finding {
        let idx = crate::js::LineIndex::new(text);
        Finding::with_index(path, &idx, span, code, message)
    }

    /// Like [`Finding::new`] with a prebuilt line index (hot paths).
    pub fn with_index(
        path: &str,
        idx: &crate::js::LineIndex,
        span: Span,
        code: Code,
        message: impl Into<String>,
    ) -> Finding {
        let (line, column) = idx.line_col(span.start);
        let (end_line, end_column) = idx.line_col(span.end);
        Finding {
            path: path.to_string(),
            span,
            line,
            column,
            end_line,
            end_column,
            code,
            severity: code.severity(),
            message: message.into(),
            fixes: Vec::new(),
            related: None,
        }
    }
}
