//! The six tools: their descriptions, input schemas, output schemas and annotations
//! (every one read-only), and the dispatch of a call to its answer.
//!
//! Why descriptions that say when to call: an agent picks tools by their description,
//! and "judges code" was not picked before a write; "call before writing" is.
//!
//! May import `args`, `cache`, `check_tools`, `docs_tools`, `session`.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::args::Args;
use super::session::Session;
use super::{check_tools, docs_tools, Answer};

/// A tool as the protocol lists it: name, title, description, input and output schema.
pub struct ToolDef {
    /// The name agents call.
    pub name: &'static str,
    /// A human title.
    pub title: &'static str,
    /// When and why to call it.
    pub description: &'static str,
    /// JSON Schema of the arguments.
    pub input: Value,
    /// JSON Schema of the structured content.
    pub output: Value,
}

/// The schema of one finding: `check --format json`'s object.
fn finding_schema() -> Value {
    json!({
        "type": "object",
        "description": "A finding, exactly as `grounded check --format json` prints it",
        "properties": {
            "path": {"type": "string"}, "line": {"type": "integer"}, "column": {"type": "integer"},
            "end_line": {"type": "integer"}, "end_column": {"type": "integer"},
            "code": {"type": "string"}, "severity": {"type": "string"}, "message": {"type": "string"},
            "fixes": {"type": "array"}, "docs": {"type": ["object", "null"]}
        },
        "required": ["path", "line", "column", "code", "severity", "message"]
    })
}

/// The output schema of the tools that answer findings.
fn findings_output(extra: Value) -> Value {
    let mut props = json!({
        "findings": {"type": "array", "items": finding_schema()},
        "notes": {"type": "array", "items": {"type": "string"}}
    });
    if let (Value::Object(p), Value::Object(e)) = (&mut props, extra) {
        p.extend(e);
    }
    json!({"type": "object", "properties": props, "required": ["findings"]})
}

/// `served` and `asked` of a cached tool's answer.
fn served() -> Value {
    json!({
        "served": {"type": "string", "enum": ["live", "cache"], "description": "`cache`: an identical call of this session was answered before"},
        "asked": {"type": "integer"}
    })
}

fn with(mut props: Value, extra: Value) -> Value {
    if let (Value::Object(p), Value::Object(e)) = (&mut props, extra) {
        p.extend(e);
    }
    props
}

/// The six tools.
pub fn all() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "lookup_docs",
            title: "Look up the engine's docs",
            description: "Full-text search of the engine's documentation corpus (the only truth about this engine's API): the chunks that literally contain the words, with title, excerpt and source. Milliseconds, cannot invent. When nothing matches, it names what the corpus has nearby.",
            input: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words or a symbol, e.g. `tableStart` or `page footer`", "maxLength": super::MAX_ARG},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many chunks at most (default 10)"}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            output: json!({
                "type": "object",
                "properties": with(json!({
                    "query": {"type": "string"},
                    "hits": {"type": "array", "items": {"type": "object", "properties": {
                        "title": {"type": "string"}, "source": {"type": "string"}, "excerpt": {"type": "string"}
                    }}},
                    "near": {"type": "array", "items": {"type": "string"}, "description": "Documented names near the query's words, when nothing matched"},
                    "topic": {"type": "array", "items": {"type": "string"}, "description": "The phrasebook's real symbols for the query's words"}
                }), served()),
                "required": ["query", "hits"]
            }),
        },
        ToolDef {
            name: "resolve_topic",
            title: "Goal words to the engine's real symbols",
            description: "The phrasebook: a goal in your own words (\"display data in a table\") to the engine's real symbols, mined from the docs, no model. Call it when you do not know the engine's name for something, before guessing one.",
            input: json!({
                "type": "object",
                "properties": {"goal": {"type": "string", "description": "What you want to do, in words", "maxLength": super::MAX_ARG}},
                "required": ["goal"],
                "additionalProperties": false
            }),
            output: json!({
                "type": "object",
                "properties": with(json!({
                    "goal": {"type": "string"},
                    "strict": {"type": "boolean", "description": "false: the best route explains few of the goal's words, a weak hint"},
                    "matches": {"type": "array"}
                }), served()),
                "required": ["goal", "matches"]
            }),
        },
        ToolDef {
            name: "get_doc",
            title: "A documented name's docs",
            description: "A documented name's whole chunk: `Layout`, `Layout.tableStart`, `layout.tableStart`, a global function, a guide's title. An interface comes with its members and their signatures. An undocumented name answers \"not documented\" with the near names the docs do have.",
            input: json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "`Interface`, `Interface.member`, a global, a global function or a guide's title", "maxLength": super::MAX_ARG}},
                "required": ["name"],
                "additionalProperties": false
            }),
            output: json!({
                "type": "object",
                "properties": with(json!({
                    "name": {"type": "string"},
                    "documented": {"type": "boolean"},
                    "title": {"type": ["string", "null"]}, "source": {"type": ["string", "null"]},
                    "text": {"type": ["string", "null"]},
                    "interface": {"type": ["string", "null"]},
                    "members": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "interface": {"type": "string"},
                        "signatures": {"type": "array", "items": {"type": "string"}}
                    }}},
                    "near": {"type": "array", "items": {"type": "string"}}
                }), served()),
                "required": ["name", "documented"]
            }),
        },
        ToolDef {
            name: "check_code",
            title: "Check code before writing it",
            description: "The pre-write check: judges code you have not written yet as if it were the file `path` of this project (its loads, the project's globals, grounded.toml's [check] rules) against the engine's docs, and writes nothing. Call it before every write of engine script code; change what it reports (each finding names the real candidates and where the docs say what exists) before writing.",
            input: json!({
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The whole text of the file as you intend to write it", "maxLength": super::MAX_CODE},
                    "path": {"type": "string", "description": "The file it will be, relative to the project root (default: a new script)", "maxLength": super::MAX_ARG}
                },
                "required": ["code"],
                "additionalProperties": false
            }),
            output: findings_output(json!({
                "path": {"type": "string"},
                "silenced": {"type": "integer", "description": "Findings silenced by ignore comments, grounded.toml or the baseline"}
            })),
        },
        ToolDef {
            name: "check_files",
            title: "Check files on disk",
            description: "The findings of the project's files on disk, exactly what `grounded check --format json` gives (grounded.toml's rules, ignore comments, the baseline). Call it after writing.",
            input: json!({
                "type": "object",
                "properties": {
                    "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 256, "description": "Files and folders relative to the project root (default: the whole project)"}
                },
                "additionalProperties": false
            }),
            output: findings_output(json!({})),
        },
        ToolDef {
            name: "dry_run",
            title: "Run the project against a fake engine",
            description: "Runs the project in a sandbox against a fake engine generated from the docs (no file is written, no network): invented members reached at run time, crashes, loads of missing files. Exactly `grounded dry-run --format json`.",
            input: json!({
                "type": "object",
                "properties": {
                    "entry": {"type": "string", "description": "The entry script relative to the project root (default: grounded.toml's entry, else every top-level script)", "maxLength": super::MAX_ARG}
                },
                "additionalProperties": false
            }),
            output: findings_output(json!({})),
        },
    ]
}

/// The answer to a call of `name`; `None` for a tool that does not exist (a protocol
/// error, which the caller reports).
pub fn call(
    session: &Session,
    roots: &[PathBuf],
    name: &str,
    args: &Map<String, Value>,
) -> Option<Answer> {
    let known: &[&str] = match name {
        "lookup_docs" => &["query", "limit"],
        "resolve_topic" => &["goal"],
        "get_doc" => &["name"],
        "check_code" => &["code", "path"],
        "check_files" => &["paths"],
        "dry_run" => &["entry"],
        _ => return None,
    };
    let a = match Args::new(name, args, known) {
        Ok(a) => a,
        Err(e) => return Some(Answer::error(e)),
    };
    let answer = match name {
        "lookup_docs" => docs_tools::lookup(session, &a),
        "resolve_topic" => docs_tools::topic(session, &a),
        "get_doc" => docs_tools::get_doc(session, &a),
        "check_code" => check_tools::check_code(session, roots, &a),
        "check_files" => check_tools::check_files(session, roots, &a),
        _ => check_tools::dry_run(session, roots, &a),
    };
    Some(answer.unwrap_or_else(Answer::error))
}
