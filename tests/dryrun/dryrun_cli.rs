//! `grounded dry-run` driven as users drive it: the real binary on projects in temp
//! dirs and on the demo project.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grounded"));
    c.env("NO_COLOR", "1");
    c
}

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

fn demo_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo")
}

/// A temp project with a `grounded.toml` naming the demo corpus (and `entry` if given).
fn project(entry: Option<&str>, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut toml = format!("docs = {:?}\n", demo_corpus().display().to_string());
    if let Some(e) = entry {
        toml.push_str(&format!("entry = {e:?}\n"));
    }
    std::fs::write(dir.path().join("grounded.toml"), toml).unwrap();
    for (p, t) in files {
        let full = dir.path().join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, t).unwrap();
    }
    dir
}

fn json(out: &Output) -> Vec<Value> {
    let text = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(a)) => a,
        other => panic!(
            "not a JSON array: {other:?}\nstdout: {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[test]
fn the_demo_project_is_clean_and_exits_0() {
    // The demo names no entry (so that a folder's run reaches every planted mistake):
    // its main script is named here.
    let out = bin()
        .args(["dry-run", "--format", "json", "main.js"])
        .current_dir(demo_dir())
        .output()
        .unwrap();
    assert_eq!(json(&out), Vec::<Value>::new());
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn dynamic_js_json_has_its_one_finding() {
    let out = bin()
        .args(["dry-run", "--format", "json", "mistakes/dynamic.js"])
        .current_dir(demo_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let fs = json(&out);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    let f = &fs[0];
    assert_eq!(f["path"], "mistakes/dynamic.js");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(6), Some(10))
    );
    assert_eq!(
        (f["end_line"].as_u64(), f["end_column"].as_u64()),
        (Some(6), Some(21))
    );
    assert_eq!(f["code"], "dry-run");
    assert_eq!(f["severity"], "error");
}

#[test]
fn human_output_of_dynamic_js() {
    let out = bin()
        .args(["dry-run", "mistakes/dynamic.js"])
        .current_dir(demo_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_entry_comes_from_grounded_toml() {
    let dir = project(
        Some("start.js"),
        &[
            ("start.js", "loadJS(\"lib/t.js\");\nfill(new Table());\n"),
            (
                "lib/t.js",
                "function fill(t) {\n    t.columns = 2;\n    t.rowsPerPage = 30;\n}\n",
            ),
            // Not the entry: never run, so its mistake is not the dry run's to report.
            ("other.js", "layout.neverRun();\n"),
        ],
    );
    let out = bin()
        .args(["dry-run", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let fs = json(&out);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!(fs[0]["path"], "lib/t.js");
    assert_eq!(
        (fs[0]["line"].as_u64(), fs[0]["column"].as_u64()),
        (Some(3), Some(7))
    );
    // It says which entries ran: the configured one alone.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dry run of start.js\n"), "{err}");
}

#[test]
fn a_missing_load_is_code_file_on_the_literal() {
    let dir = project(
        None,
        &[("main.js", "var x = 1;\nloadJS(\"lib/gone.js\");\n")],
    );
    let out = bin()
        .args(["dry-run", "--format", "json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let fs = json(&out);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!(fs[0]["code"], "file");
    assert_eq!(
        (fs[0]["line"].as_u64(), fs[0]["column"].as_u64()),
        (Some(2), Some(8))
    );
    assert_eq!(fs[0]["end_column"].as_u64(), Some(21));
}

#[test]
fn every_hazard_is_a_finding_and_the_process_lives() {
    let dir = project(
        None,
        &[
            ("loop.js", "var i = 0;\nwhile (true) { i = i + 1; }\n"),
            ("alloc.js", "var s = \"x\";\nwhile (true) { s = s + s; }\n"),
            (
                "throw.js",
                "function f() {\n  throw new TypeError(\"bad input\");\n}\nf();\n",
            ),
            ("syntax.js", "var a = {;\n"),
            ("outside.js", "loadJS(\"../outside.js\");\n"),
        ],
    );
    let t0 = Instant::now();
    let out = bin()
        .args(["dry-run", "--format", "json", "--budget-ms", "300"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let fs = json(&out);
    let by_path = |p: &str| -> Vec<&Value> { fs.iter().filter(|f| f["path"] == p).collect() };
    let msg = |p: &str| -> String {
        let v = by_path(p);
        assert_eq!(v.len(), 1, "{p}: {fs:#?}");
        v[0]["message"].as_str().unwrap().to_string()
    };
    assert!(msg("loop.js").contains("did not finish in 300 ms"));
    let alloc = msg("alloc.js");
    assert!(
        alloc.contains("out of memory") || alloc.contains("RangeError"),
        "{alloc}"
    );
    assert!(msg("throw.js").contains("uncaught TypeError: bad input"));
    assert!(msg("syntax.js").starts_with("syntax error"));
    assert!(msg("outside.js").contains("outside the project root"));
    assert_eq!(by_path("throw.js")[0]["line"].as_u64(), Some(2));
    assert_eq!(fs.len(), 5, "{fs:#?}");
}

#[test]
fn a_missing_entry_is_a_usage_error() {
    let dir = project(None, &[("main.js", "var a = 1;\n")]);
    let out = bin()
        .args(["dry-run", "nope.js"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.js"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
