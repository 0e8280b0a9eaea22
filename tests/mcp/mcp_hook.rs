//! `grounded hook claude-code`, Claude Code's PostToolUse hook: the hook's JSON on stdin
//! (as Claude Code sends it after a `Write` or `Edit`), the decision on stdout.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common;

/// Runs the hook with `input` on stdin in `dir`: exit status and stdout.
fn hook(dir: &Path, input: &str) -> (Option<i32>, String) {
    let mut child = Command::new(common::bin())
        .args(["hook", "claude-code"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

fn input(dir: &Path, file: &str) -> String {
    json!({
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": dir,
        "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": {"file_path": dir.join(file), "old_string": "a", "new_string": "b"},
        "tool_response": {"filePath": dir.join(file), "success": true}
    })
    .to_string()
}

/// An edited script with an invented member: the decision blocks with the finding and
/// its fix as the reason (what Claude Code hands the model); the same findings the
/// command line gives.
#[test]
fn an_edit_with_findings_is_handed_back_as_a_block_decision() {
    let dir = crate::demo_copy();
    let (code, out) = hook(dir.path(), &input(dir.path(), "mistakes/member.js"));
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(v["decision"], json!("block"));
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"],
        json!("PostToolUse")
    );
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("line 8:8 error[member]"), "{reason}");
    assert!(reason.contains("tableCellEnd"), "{reason}");
    assert!(
        reason.contains("fix: Delete `layout.tableCellEnd()`"),
        "{reason}"
    );
    let cli = crate::cli_check(dir.path(), &["mistakes/member.js"]);
    assert!(
        reason.starts_with(&format!("grounded check found {} finding", cli.len())),
        "{reason}"
    );
}

/// A clean script, a file that is no script, and a hook input without a file: nothing
/// on stdout, exit 0 (the edit goes on). Input that is not the hook's JSON: exit 2.
#[test]
fn a_clean_edit_or_another_file_passes_silently() {
    let dir = crate::demo_copy();
    assert_eq!(
        hook(dir.path(), &input(dir.path(), "main.js")),
        (Some(0), String::new())
    );
    assert_eq!(
        hook(dir.path(), &input(dir.path(), "grounded.toml")),
        (Some(0), String::new())
    );
    assert_eq!(
        hook(
            dir.path(),
            r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#
        ),
        (Some(0), String::new())
    );
    assert_eq!(hook(dir.path(), "not json").0, Some(2));
}
