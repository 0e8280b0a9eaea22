//! The finding: what every family reports, the dry run included.
//!
//! Positions are byte offsets into the checked text (the analysis speaks bytes); the
//! 1-based line/column pairs are derived once, for output. The language server alone
//! converts to UTF-16.

use serde::Serialize;

/// One row of [`CODES`]: everything an output says about a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The family.
    pub code: Code,
    /// The code as written in JSON, SARIF `ruleId` and diagnostics.
    pub name: &'static str,
    /// The severity every finding of the family gets.
    pub severity: Severity,
    /// One line: what the family finds (the enum variant's documentation).
    pub summary: &'static str,
    /// The SARIF rule's `shortDescription`.
    pub sarif: &'static str,
    /// Where interfaces.md promises the family to users.
    pub anchor: &'static str,
}

// Why one macro row per family: the name, severity and SARIF text used to be listed in
// five places (the enum, `as_str`, `severity`, the SARIF rules, their order), and a new
// family that missed one went out with an empty SARIF rule. Now the variant and its row
// are the same line, and the SARIF rule order is the table's order.
macro_rules! code_table {
    ($($variant:ident => ($name:literal, $severity:ident, $summary:literal, $sarif:literal, $anchor:literal),)*) => {
        /// The family that found it (interfaces.md's `code`); one row of [`CODES`] each.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(#[doc = $summary] $variant,)*
        }

        /// The table of finding codes, in SARIF rule order (`ruleIndex` indexes it).
        pub const CODES: &[CodeInfo] = &[
            $(CodeInfo {
                code: Code::$variant,
                name: $name,
                severity: Severity::$severity,
                summary: $summary,
                sarif: $sarif,
                anchor: $anchor,
            },)*
        ];
    };
}

code_table! {
    Member => ("member", Error,
        "A member the receiver's interface does not have.",
        "A member that the receiver's interface does not have",
        "interfaces.md#check---format-json"),
    Object => ("object", Error,
        "A receiver declared nowhere.",
        "A receiver that is declared nowhere",
        "interfaces.md#check---format-json"),
    Function => ("function", Error,
        "A bare call defined nowhere.",
        "A bare call of a function defined nowhere",
        "interfaces.md#check---format-json"),
    Syntax => ("syntax", Error,
        "Syntax above the engine's level, or a parse error.",
        "Syntax above the engine's ECMAScript level, or a parse error",
        "interfaces.md#check---format-json"),
    Option => ("option", Error,
        "An options key the parameter's interface lacks.",
        "An object-literal key that the parameter's interface does not have",
        "interfaces.md#check---format-json"),
    Constructor => ("constructor", Error,
        "`new X()` of nothing.",
        "new X() of a constructor that neither the docs nor the language define",
        "interfaces.md#check---format-json"),
    Engine => ("engine", Error,
        "A built-in the engine's level lacks.",
        "A built-in that the engine's ECMAScript level lacks",
        "interfaces.md#check---format-json"),
    File => ("file", Error,
        "A `path` argument naming no file.",
        "A path argument naming a file that does not exist",
        "interfaces.md#check---format-json"),
    Module => ("module", Error,
        "A module specifier no `Module:` line of the docs names.",
        "An imported or required module that the engine's docs do not document",
        "interfaces.md#check---format-json"),
    Construct => ("construct", Warning,
        "Start without End, End without Start.",
        "A construct's Start with no matching End, or an End with no Start",
        "interfaces.md#check---format-json"),
    DryRun => ("dry-run", Error,
        "What the fake-engine run found.",
        "What the fake-engine run found",
        "interfaces.md#dry-run---format-json"),
    Ignore => ("ignore", Warning,
        "An ignore comment that is malformed, names an unknown code, or silences nothing.",
        "An ignore comment that is malformed, names an unknown code, or silences nothing",
        "interfaces.md#adopting-on-code-that-exists-turn-5"),
}

impl Code {
    /// The family's row of [`CODES`].
    pub fn info(self) -> &'static CodeInfo {
        &CODES[self.index()]
    }

    /// The family's position in [`CODES`] (the SARIF `ruleIndex`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The code as written in JSON and diagnostics.
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// The severity of the family, as the table gives it.
    pub fn severity(self) -> Severity {
        self.info().severity
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
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
    /// Worth knowing (only by `[check] severity` in `grounded.toml`).
    Info,
    /// A hint (only by `[check] severity` in `grounded.toml`).
    Hint,
}

impl Severity {
    /// The name `grounded.toml` and the outputs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }

    /// The SARIF `level`: SARIF has no info or hint, its `note` is both.
    pub fn sarif_level(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info | Severity::Hint => "note",
        }
    }
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

// Which fix is safe (ruff's split; interfaces.md, "A team's second week"). `--fix`,
// `source.fixAll.grounded` and the editor's preferred action apply only safe fixes;
// `--unsafe-fixes` adds a finding's only fix when it is unsafe. Taught by a team's
// `--fix` that rewrote `maskFromSelection()` to `makeSelection()` (a function of an
// unrelated script) and `layout.paragrap` to `layout.paragraph`: a near name is a
// guess about what the author meant, and a fixer that guesses changes what runs.
//
// Safe: the result is certain from the docs and the language, whatever the author meant:
//   - a deletion whose reason the docs give (`Fix::Delete` with a `detail`: a call the
//     facts declare absent, an ignore that silences nothing);
//   - syntax the engine's level lacks rewritten to what it has, meaning the same
//     (`const` → `var`, an arrow without `this` → a function expression, a template →
//     concatenation, a trailing comma dropped, a reserved-word key quoted);
//   - a built-in the level lacks written as the same value with what it has
//     (`Date.now()` → `new Date().getTime()`);
//   - an ignore comment's list of codes cut to those that silence something, its
//     reason kept.
// Unsafe: a pick among near names, even of one (member, object, function, option,
// constructor, file, the dry run's, an ignore's near code); a deletion the docs do not
// explain (an options key, a call without a stated reason); inserting a construct's End
// (one of two ways to close it); an equivalent that differs on some value
// (`[].includes(x)` → `indexOf(x) != -1`, unequal on `NaN`); removing an ignore comment
// that carries a reason. No fix rewrites or drops a comment's reason, safe or not.

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
        /// Whether the result is certain whatever the author meant (the rule above):
        /// only safe fixes go in without `--unsafe-fixes`.
        safe: bool,
    },
    /// Delete whole lines: the statement that makes the call, and its line ending.
    Delete {
        /// The title of the action, e.g. ``Delete `layout.tableCellEnd()` ``.
        title: String,
        /// Why deleting loses nothing (the overlay's `no_close`), if known.
        detail: Option<String>,
        /// The bytes to remove (whole lines).
        span: Span,
        /// Whether the result is certain (the rule above): a deletion is safe only
        /// with a `detail` from the docs.
        safe: bool,
    },
}

impl Fix {
    /// One *Replace with `name`* fix a near name, all on `span`: the member, option and
    /// string-member families offer the same choice the same way. Unsafe: a near name
    /// is a guess about what the author meant.
    pub fn replace_each<S: AsRef<str>>(names: &[S], span: Span) -> Vec<Fix> {
        names
            .iter()
            .map(|c| Fix::Replace {
                title: format!("Replace with `{}`", c.as_ref()),
                span,
                text: c.as_ref().to_string(),
                safe: false,
            })
            .collect()
    }

    /// Whether the fix is safe (the rule above the enum).
    pub fn is_safe(&self) -> bool {
        match self {
            Fix::Replace { safe, .. } | Fix::Delete { safe, .. } => *safe,
        }
    }

    /// The action's title.
    pub fn title(&self) -> &str {
        match self {
            Fix::Replace { title, .. } | Fix::Delete { title, .. } => title,
        }
    }

    /// The bytes the fix changes.
    pub fn span(&self) -> Span {
        match self {
            Fix::Replace { span, .. } | Fix::Delete { span, .. } => *span,
        }
    }
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

/// Another place of the project that a finding is about: the use that failed, when
/// the finding is at the declaration that made it fail; the declaration, the load or
/// a near name, when it stays at the use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The file, named as the finding's own path is.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What the place is.
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
    /// Other places of the project the finding is about (JSON `related`, only when
    /// there are some, so findings without any read as before).
    #[serde(rename = "related", skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<Place>,
    /// What silenced it (an ignore comment, `grounded.toml`, a baseline), if anything:
    /// human and JSON output leave it out unless `--show-ignored`, SARIF keeps it as a
    /// suppression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<Ignored>,
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
        let idx = grounded_js::LineIndex::new(text);
        Finding::with_index(path, &idx, span, code, message)
    }

    /// Like [`Finding::new`] with a prebuilt line index (hot paths).
    pub fn with_index(
        path: &str,
        idx: &grounded_js::LineIndex,
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
            places: Vec::new(),
            ignored: None,
        }
    }
}

impl Finding {
    /// The finding's one sure fix: what an editor marks preferred, `check --fix`
    /// applies and `source.fixAll.grounded` sends. Only a safe fix (the rule above
    /// [`Fix`]); a finding has at most one, since a choice is never safe.
    pub fn sure_fix(&self) -> Option<&Fix> {
        self.fixes.iter().find(|fix| fix.is_safe())
    }

    /// The fix `check --fix` applies: the sure fix; with `unsafe_fixes`, else the
    /// finding's only fix (never a pick among several near names, nor a construct's End,
    /// which has *Remove* as its other way even when not offered).
    pub fn fix_to_apply(&self, unsafe_fixes: bool) -> Option<&Fix> {
        self.sure_fix().or_else(|| {
            (unsafe_fixes && self.fixes.len() == 1 && self.code != Code::Construct)
                .then(|| &self.fixes[0])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Code::index` is the variant's discriminant: a row out of order would give a
    /// finding another family's name and SARIF rule.
    #[test]
    fn every_row_sits_at_its_variant_and_names_are_unique() {
        for (i, row) in CODES.iter().enumerate() {
            assert_eq!(row.code.index(), i, "{}", row.name);
            assert_eq!(row.code.info().name, row.name);
        }
        let mut names: Vec<_> = CODES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CODES.len());
    }
}

/// What silenced a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IgnoredBy {
    /// An ignore comment in the file (SARIF `inSource`).
    Comment,
    /// `grounded.toml`'s `[check]` or `--select`/`--ignore` (SARIF `external`).
    Config,
    /// A baseline file (SARIF `external`).
    Baseline,
}

/// Why a finding is not reported (`"ignored": {"by", "reason"}` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ignored {
    /// What silenced it.
    pub by: IgnoredBy,
    /// The comment's reason, or where the configuration says it.
    pub reason: Option<String>,
}
