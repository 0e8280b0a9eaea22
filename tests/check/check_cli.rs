//! `grounded check` from outside: output formats, paths as given, colour, exit codes.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::paths_of;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

fn grounded(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("runs")
}

#[test]
fn json_paths_are_as_given_or_joined_to_the_folder() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = grounded(
        &[
            "check",
            "--format",
            "json",
            "examples/demo/mistakes/member.js",
        ],
        &repo,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["path"], "examples/demo/mistakes/member.js");
    assert_eq!(v[0]["end_line"], 8);
    assert_eq!(v[0]["end_column"], 20);
    let out = grounded(
        &["check", "--format", "json", "examples/demo/mistakes"],
        &repo,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths = paths_of(&v);
    // A file found in a folder argument: the folder as given, joined with the rest.
    assert!(
        paths.contains(&"examples/demo/mistakes/member.js"),
        "{paths:?}"
    );
    assert!(
        paths.windows(2).all(|w| w[0] <= w[1]),
        "file order: {paths:?}"
    );
    // Exactly the keys of interfaces.md.
    let keys: Vec<&String> = v[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "code",
            "column",
            "docs",
            "end_column",
            "end_line",
            "fixes",
            "line",
            "message",
            "path",
            "severity"
        ]
    );
}

#[test]
fn sarif_is_version_2_1_0_with_one_result_a_finding() {
    let out = grounded(&["check", "--format", "sarif", "mistakes"], &demo());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 8);
    let member = results
        .iter()
        .find(|r| r["ruleId"] == "member")
        .expect("member result");
    let region = &member["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 8);
    assert_eq!(region["startColumn"], 8);
    assert_eq!(
        member["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "mistakes/member.js"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn human_output_shows_the_excerpt_the_caret_and_the_fix() {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "mistakes/member.js"])
        .current_dir(demo())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error[member]"), "{text}");
    assert!(text.contains("layout.tableCellEnd();"), "{text}");
    assert!(text.contains("^^^^^^^^^^^^"), "{text}");
    assert!(
        text.contains("fix: Delete `layout.tableCellEnd()`"),
        "{text}"
    );
    assert!(text.contains("docs: interface `Layout`"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "no colour under NO_COLOR or off a terminal"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn exit_codes() {
    let clean = grounded(&["check", "main.js"], &demo());
    assert_eq!(clean.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&clean.stdout).contains("no findings"));

    let missing = grounded(&["check", "no/such/file.js"], &demo());
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(err.trim().lines().count(), 1, "one-line reason: {err}");
    assert!(err.contains("no/such/file.js"));

    let bad_docs = grounded(&["check", "--docs", "nowhere", "main.js"], &demo());
    assert_eq!(bad_docs.status.code(), Some(2));
}

#[test]
fn a_file_that_is_not_utf8_is_reported_and_the_rest_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.js"), [0xff, 0xfe, 0x00]).unwrap();
    std::fs::write(dir.path().join("ok.js"), "window.x = 1;\n").unwrap();
    let out = grounded(&["check", "--format", "json", "."], dir.path());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["path"], "ok.js");
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.js"));
}
