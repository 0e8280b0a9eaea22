//! `mcp`: grounded for the agents people already run (Claude Code, Copilot's agent
//! mode, Cursor, Codex, Cline): `grounded mcp` serves the Model Context Protocol on
//! stdio with six read-only tools (`lookup_docs`, `resolve_topic`, `get_doc`,
//! `check_code`, `check_files`, `dry_run`), the docs and the checker that say no
//! before an invented call is written.
//!
//! Built on **rmcp**, the Rust SDK the protocol's maintainers publish: it negotiates the
//! protocol revisions current clients speak (2024-11-05 to 2026-07-28), frames JSON-RPC
//! on stdio and answers a well-formed non-request with `Invalid Request`; this crate
//! adds the tools and a guard that answers what is not JSON.
//!
//! Glue only, like `grounded-lsp`: every answer comes from the layers below (the
//! checker's `check_text` and `[check]` rules, the docs' `Library`, the docs' name
//! resolution); a finding is rendered by the command line's own `check --format json`
//! code, handed in as [`Options::finding_json`], and `check_files` / `dry_run` run the
//! binary's own `check --format json` / `dry-run --format json`, so no second driver
//! of either exists to drift from the command line's.
//!
//! Rooms: `guard` (every stdin line read first, bounded; what is not JSON answered
//! with a parse error), `session` (the project, corpus and index of one server, loaded once),
//! `paths` (what a path argument may name: inside the project root and the client's
//! roots, else refused unread), `args` (arguments to values, nonsense to an error that
//! says what would work), `cache` (identical lookups served from this session's cache,
//! and said so), `tools` (the six tools' schemas), `docs_tools` and `check_tools` (the
//! answers), `server` (the protocol: rmcp's handler, roots, panic guard).
//!
//! ## Layer
//!
//! May depend on: `grounded-docs`, `grounded-project`, `grounded-js`, `grounded-check`
//! (its `Cargo.toml`, which the compiler holds; `tests/cli/layers.rs`
//! keeps this line equal to it).
//!
//! Must never know: the editor, the language server or grounded's own agent; how the
//! command line prints (it is handed the renderer); any particular engine. It never
//! writes a file and never reads one outside the project root or the client's roots.

#![warn(missing_docs)]

mod args;
mod cache;
mod check_tools;
mod docs_tools;
mod guard;
mod paths;
mod server;
mod session;
mod tools;

use std::path::PathBuf;

pub use server::{serve_stdio, Grounded};
pub use session::Session;
pub use tools::call as call_tool;

/// A finding as `check --format json`'s object (fixes and docs link included), given
/// the text of the finding's file: the command line's own renderer, handed in so that
/// the two can never differ.
pub type FindingJson =
    fn(&grounded_check::Finding, &str, &grounded_docs::Corpus) -> serde_json::Value;

/// One key of a finding's JSON object as text (`"member"`, `8`): the line an agent reads.
/// `check_code`'s answer and `grounded hook claude-code`'s reason both list findings
/// this way; two copies of the reading had begun to drift.
pub fn field_text(finding: &serde_json::Value, key: &str) -> String {
    finding
        .get(key)
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string())
        })
        .unwrap_or_default()
}

/// How the server is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--docs`: the corpus, over `grounded.toml`'s.
    pub docs: Option<PathBuf>,
    /// Where the project is looked for (`--root`, else the current folder).
    pub start: PathBuf,
    /// The `grounded` binary that `check_files` and `dry_run` run.
    pub exe: PathBuf,
    /// The command line's renderer of a finding.
    pub finding_json: FindingJson,
}

/// The largest `code` `check_code` judges (bytes): a buffer beyond it is a tool error
/// saying so. Four times the largest script of the real corpora in `benches/`.
pub const MAX_CODE: usize = 1 << 20;

/// The largest string any other argument may be (bytes): a query, a goal, a name, a
/// path. Longer is a tool error saying the bound.
pub const MAX_ARG: usize = 4096;

/// The largest JSON-RPC line the server reads (bytes); a longer one is dropped unread
/// (logged on stderr) and the server goes on.
pub const MAX_LINE: usize = 4 << 20;

/// What a tool answered: the text an agent reads, the structured content beside it,
/// and whether it is a tool error (`isError`).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The short text rendering.
    pub text: String,
    /// The structured content (an object).
    pub structured: serde_json::Value,
    /// A tool error: bad arguments, a path refused, a command that failed.
    pub error: bool,
}

impl Answer {
    /// A tool's answer.
    pub fn ok(text: impl Into<String>, structured: serde_json::Value) -> Answer {
        Answer {
            text: text.into(),
            structured,
            error: false,
        }
    }

    /// A tool error: one sentence saying what was wrong and what would work.
    pub fn error(text: impl Into<String>) -> Answer {
        let text = text.into();
        Answer {
            structured: serde_json::json!({ "error": text }),
            text,
            error: true,
        }
    }
}
