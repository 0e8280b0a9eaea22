//! Every fixed text the model or the user sees, in one place.
//!
//! Why one module: a hand-copied version of a correction once drifted from the one the
//! code used, and the model followed the stale one. Issue 13 owns the guardrails'
//! wording here; the loop's own texts (tool descriptions, step limit, refusals) live
//! here too so that a prompt never restates a schema that changed elsewhere.
//!
//! Nothing here names a particular engine: engine facts come from the corpus
//! (`prompt.rs`).

/// Shown when no `[model]` is configured anywhere.
pub const NO_MODEL: &str = "no model configured: set base_url and name in [model] of grounded.toml (or pass --base-url and --model; the editor setting grounded.agent.baseUrl)";

/// The fixed part of the system prompt, after the engine facts.
pub const SYSTEM_RULES: &str = "\
You edit script projects for this engine. The engine's documentation is the only truth: \
a member, option key or constructor that the documentation does not list does not exist, \
however familiar it looks from other environments.

Rules:
- Read a file with read_file in this turn before you edit it; edits are exact find/replace \
pairs copied from what read_file showed (without the line-number prefixes).
- To remove code, use delete_lines with the line numbers read_file showed; never rewrite a \
region to remove something.
- A symbol you already know by name is a fact check: lookup_docs. A question about how to \
do something is research: resolve_topic first, then rag_lookup.
- Writes that add checker findings are refused with the findings and the real members; use \
what they name, or leave out what has no real member and say so.
- There is no shell. Paths are relative to the project root.
- When you are done, answer in a few lines: what you changed, in which files. Say only what \
the tools showed.";

/// Sent (as a user-role message) when the step limit is reached; tools are withheld.
pub const STEP_LIMIT: &str = "[automated message from the agent, not the user] The step limit of this turn is reached: no tool will run. Answer now: say what you changed (the files the tools wrote) and what is left undone.";

/// Appended to the answer of a turn that was asked to change something and changed
/// nothing: "no usable edits" is a failure the user sees, never a success.
pub const UNCHANGED: &str = "No file was changed: the turn made no edit that landed.";

/// Appended when the turn's writes were undone because they made the project worse.
pub const UNDONE: &str = "The turn's writes were undone (files restored byte for byte, created files removed) because they made the project worse:";

/// Words of a request that asks for a change (English requests; engine-neutral).
pub const CHANGE_VERBS: &[&str] = &[
    "add",
    "append",
    "insert",
    "create",
    "write",
    "make",
    "remove",
    "delete",
    "drop",
    "fix",
    "change",
    "modify",
    "replace",
    "rename",
    "update",
    "edit",
    "refactor",
    "move",
    "split",
    "implement",
    "put",
    "set",
    "use",
    "convert",
    "correct",
    "repair",
];

/// The instruction given to the composing step of `rag_lookup`.
pub const RAG_COMPOSE: &str = "Answer the question from the documentation excerpts below and nothing else. Name only members, constructors and option keys that appear in the excerpts, exactly as written. If the excerpts do not answer, say so in one line.";

/// Description of `list_files`.
pub const D_LIST_FILES: &str =
    "List the project's files (paths relative to the root), optionally under a folder.";
/// Description of `read_file`.
pub const D_READ_FILE: &str = "Read a file with line numbers (`12| text`). Optional start_line/end_line (1-based, inclusive). A file must be read in this turn before it is edited.";
/// Description of the base `find_in_files`.
pub const D_FIND_PLAIN: &str = "Search the project's files for a literal string; lines that contain it, with paths and line numbers.";
/// Description of the domain `find_in_files`.
pub const D_FIND_DOMAIN: &str = "Search the project: a regex over file contents, file names that match, the lines that declare and configure a matched variable (its footprint), and, when nothing matches literally, the engine symbols a concept word stands for. Use it to find everything that belongs to a feature before removing it.";
/// Description of `write_file`.
pub const D_WRITE_FILE: &str = "Create a file, or overwrite one you read in this turn, with the whole content. Prefer edit_file for changes to an existing file. Content that adds checker findings is refused.";
/// Description of `edit_file`.
pub const D_EDIT_FILE: &str = "Change a file you read in this turn with exact find/replace pairs copied from it. Each find text must occur exactly once (indentation and trailing spaces may differ); otherwise nothing is written and the closest region is shown. Content that adds checker findings is refused.";
/// Description of `delete_lines`.
pub const D_DELETE_LINES: &str = "Remove whole lines of a file you read in this turn: marks like `12: DELETE` or `14-18: DELETE`, one a line, with read_file's line numbers. The file can only shrink. Use it for every pure removal.";
/// Description of `lookup_docs`.
pub const D_LOOKUP_DOCS: &str = "Full-text lookup in the engine's documentation: the chunks that literally contain the term, whole. Milliseconds, cannot invent. Use it to check a symbol you already know by name (`tableStart`, `Layout`).";
/// Description of `rag_lookup`.
pub const D_RAG_LOOKUP: &str = "Research a question in the documentation: retrieves the relevant chunks and composes an answer from them. Seconds, and the composed answer can be wrong: check any symbol it names with lookup_docs. Not for a symbol you already know.";
/// Description of `resolve_topic`.
pub const D_RESOLVE_TOPIC: &str = "Map a goal in your words (\"a footer with page numbers\") to the engine's real symbols, from a phrasebook mined from the docs. Use it before researching a feature.";
/// Description of `find_construct`.
pub const D_FIND_CONSTRUCT: &str = "List the construct instances (Start/End pairs) of a script with their footprints (declaration, configuration and Start..End lines), or of every script when no path is given.";
/// Description of `check_symbols`.
pub const D_CHECK_SYMBOLS: &str = "Run the checker on a code snippet (`code`) or a project file (`path`): invented members, option keys, constructors, syntax the engine's level lacks, missing files.";
/// Description of `dry_run`.
pub const D_DRY_RUN: &str = "Run the project (or one entry script) against a fake engine generated from the docs and report what it touched that the docs lack.";
