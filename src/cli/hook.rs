//! `grounded hook claude-code`: Claude Code's PostToolUse hook in one line. Reads the
//! hook's JSON on stdin (`tool_input.file_path` of a `Write`, `Edit` or `MultiEdit`),
//! checks that file with `grounded check --format json`, and when it has findings hands
//! them back to the agent the hook protocol's way: `{"decision": "block", "reason": ...}`
//! on stdout, exit 0 (Claude Code shows the reason to the model; the edit stays).
//!
//! Why a subcommand: the recipe that pipes `jq` into `grounded check` and parses its
//! output in shell was eleven lines a user had to get right on every platform; this is
//! `grounded hook claude-code`. A file that is no script of the engine, or a hook input
//! without a file, is passed silently (exit 0, nothing on stdout): the hook runs after
//! every edit, and most edits are not engine scripts.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::Fail;

/// The most findings the hook's reason lists (the rest are counted): an agent reads a
/// short list and acts on it; a page of findings after one edit is skimmed.
const LISTED: usize = 20;

/// `grounded hook claude-code`: 0 always when the input was read (the edit happened;
/// findings go back as the hook's decision), 2 on input that is not the hook's JSON.
pub fn claude_code(docs: Option<&Path>) -> Result<i32, Fail> {
    let mut input = String::new();
    std::io::stdin()
        .take(16 << 20)
        .read_to_string(&mut input)
        .map_err(|e| Fail(format!("hook: reading stdin: {e}")))?;
    let v: Value = serde_json::from_str(&input)
        .map_err(|e| Fail(format!("hook: stdin is not the hook's JSON ({e})")))?;
    let file = v
        .pointer("/tool_input/file_path")
        .or_else(|| v.pointer("/tool_response/filePath"))
        .and_then(Value::as_str);
    let Some(file) = file else {
        return Ok(0);
    };
    let cwd = v
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let path = cwd.join(file);
    if !path.is_file() || !is_checked(&path, docs) {
        return Ok(0);
    }
    let exe = std::env::current_exe().map_err(|e| Fail(format!("hook: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.args(["check", "--format", "json"]);
    if let Some(d) = docs {
        cmd.arg("--docs").arg(d);
    }
    let out = cmd
        .arg("--")
        .arg(&path)
        .current_dir(&cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| Fail(format!("hook: running the check: {e}")))?;
    // Exit 2 (a configuration or corpus error) is the user's to fix, not the agent's:
    // said on stderr, which Claude Code shows the user, and the edit is not blocked.
    if !matches!(out.status.code(), Some(0) | Some(1)) {
        let err = String::from_utf8_lossy(&out.stderr);
        eprintln!(
            "{}",
            err.lines().last().unwrap_or("grounded: the check failed")
        );
        return Ok(0);
    }
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    if findings.is_empty() {
        return Ok(0);
    }
    println!("{}", decision(file, &findings));
    Ok(0)
}

/// Whether the check reads this file: a script of the engine (its `Script extensions`,
/// from the corpus of the file's project) or Markdown. Anything else an edit touched is
/// not the hook's business, and saying "no scripts found" after each edit of a README
/// would teach the user to ignore the hook.
fn is_checked(path: &Path, docs: Option<&Path>) -> bool {
    if crate::js::is_markdown(&path.to_string_lossy()) {
        return true;
    }
    match super::project_and_corpus(path, docs) {
        Ok((_, corpus)) => crate::check::project::is_script(&corpus, path),
        Err(_) => true,
    }
}

/// The hook's answer: the findings as the agent reads them, the docs' word that a name
/// they do not have does not exist, and what to do.
pub fn decision(file: &str, findings: &[Value]) -> Value {
    let mut reason = format!(
        "grounded check found {} finding{} in {file} after this edit (judged against the engine's docs, which are complete: a name they do not have does not exist in this engine). Fix them now, using the names the messages give; do not add ignore comments:\n",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" }
    );
    for f in findings.iter().take(LISTED) {
        let g = |k: &str| crate::mcp::field_text(f, k);
        reason.push_str(&format!(
            "- line {}:{} {}[{}]: {}\n",
            g("line"),
            g("column"),
            g("severity"),
            g("code"),
            g("message")
        ));
        for fix in f
            .get("fixes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = fix.get("title").and_then(Value::as_str) {
                reason.push_str(&format!("  fix: {t}\n"));
            }
        }
    }
    if findings.len() > LISTED {
        reason.push_str(&format!("(and {} more)\n", findings.len() - LISTED));
    }
    json!({
        "decision": "block",
        "reason": reason,
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": reason},
    })
}
