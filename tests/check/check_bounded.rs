//! Bounded work and one decoding rule, from outside (the real binary on real files):
//! a file given alone is its own project's folder; a scan skips dependency folders and
//! over-sized files and says so once; a Latin-1 library declares its functions like any
//! other; CR-only line endings put findings on the right line; a panic is one line.

use std::path::Path;
use std::process::{Command, Output};

fn demo_corpus() -> String {
    format!("{}/corpus/demo", env!("CARGO_MANIFEST_DIR"))
}

fn grounded(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grounded"));
    c.args(args).current_dir(dir).env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn findings(out: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
        .as_array()
        .unwrap()
        .clone()
}

/// A temp project whose `grounded.toml` names the demo corpus.
fn demo_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "grounded.toml",
        format!("docs = {:?}\n", demo_corpus()).as_bytes(),
    );
    dir
}

/// The one finding of a run (fails with all of them when there are more or none).
fn only(out: &Output) -> serde_json::Value {
    let f = findings(out);
    assert_eq!(f.len(), 1, "{f:?}");
    f[0].clone()
}

/// A file given alone, with no grounded.toml above it: its `path` arguments are relative
/// to its own folder, and nothing outside that folder is walked.
#[test]
fn a_file_given_alone_is_its_own_project() {
    let cwd = tempfile::tempdir().unwrap();
    write(
        cwd.path(),
        "sub/main.js",
        b"loadJS(\"lib.js\");\nhelper();\n",
    );
    write(cwd.path(), "sub/lib.js", b"function helper() {}\n");
    // Beside it in the current folder: a file over the size limit. Walking the current
    // folder would meet it (and say so).
    write(cwd.path(), "huge.js", &vec![b'\n'; 9 << 20]);
    let docs = demo_corpus();
    let out = grounded(
        &["check", "--docs", &docs, "--format", "json", "sub/main.js"],
        cwd.path(),
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{:?}", findings(&out));
    assert!(findings(&out).is_empty());
    assert!(
        !stderr.contains("huge.js"),
        "walked the current folder: {stderr}"
    );
    // The same file checked from its folder's parent with a missing load is a finding.
    write(cwd.path(), "sub/main.js", b"loadJS(\"nope.js\");\n");
    let out = grounded(
        &["check", "--docs", &docs, "--format", "json", "sub/main.js"],
        cwd.path(),
        &[],
    );
    assert_eq!(only(&out)["code"], "file");
}

/// node_modules is never walked; a file over the limit is skipped and said once (the
/// index's walk and the folder's walk meet it both).
#[test]
fn a_scan_skips_dependencies_and_huge_files_and_says_so_once() {
    let dir = demo_project();
    let root = dir.path();
    write(root, "main.js", b"print(1);\n");
    write(root, "node_modules/dep/index.js", b"layout.nope();\n");
    write(
        root,
        "gen/huge.js",
        &b"layout.nope();\n".repeat((9 << 20) / 15),
    );
    let out = grounded(&["check", "--format", "json", "."], root, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let f = findings(&out);
    assert!(f.is_empty(), "{f:?}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("huge.js").count(), 1, "{stderr}");
    assert!(stderr.contains("MB"), "{stderr}");
    assert_eq!(stderr.matches("node_modules").count(), 1, "{stderr}");
    // Known-bad beside it: the same mistake in a project file is found.
    write(root, "bad.js", b"layout.nope();\n");
    let out = grounded(&["check", "--format", "json", "."], root, &[]);
    assert_eq!(only(&out)["path"], "bad.js");
}

/// A Latin-1 library file is read like every other file: lossily, said once, and its
/// functions are defined.
#[test]
fn a_latin1_library_declares_its_functions() {
    let dir = demo_project();
    let root = dir.path();
    write(
        root,
        "lib/latin1.js",
        b"// caf\xe9 cr\xe8me\nfunction helperX() {}\n",
    );
    write(
        root,
        "main.js",
        b"loadJS(\"lib/latin1.js\");\nhelperX();\nundefinedY();\n",
    );
    let out = grounded(&["check", "--format", "json", "main.js"], root, &[]);
    let f = findings(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0]["message"].as_str().unwrap().contains("undefinedY"),
        "{f:?}"
    );
    // The folder walk checks it too, and says once that it was read lossily.
    let out = grounded(&["check", "--format", "json", "."], root, &[]);
    let stderr2 = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr2.matches("latin1.js").count(),
        1,
        "{stderr}\n{stderr2}"
    );
    assert!(stderr2.contains("UTF-8"), "{stderr2}");
}

/// Classic Mac line endings: findings on the line an editor shows.
#[test]
fn cr_only_line_endings_position_findings() {
    let dir = demo_project();
    let root = dir.path();
    write(
        root,
        "cr.js",
        b"var a = 1;\r// two\rlayout.tableCellEnd();\r",
    );
    write(
        root,
        "crlf.js",
        b"var a = 1;\r\n// two\r\nlayout.tableCellEnd();\r\n",
    );
    for file in ["cr.js", "crlf.js"] {
        let out = grounded(&["check", "--format", "json", file], root, &[]);
        let f = findings(&out);
        assert_eq!(f.len(), 1, "{file}: {f:?}");
        assert_eq!(f[0]["line"], 3, "{file}: {f:?}");
        assert_eq!(f[0]["column"], 8, "{file}: {f:?}");
    }
}

/// A panic is one line on stderr naming the file being read, exit 2, no backtrace.
#[test]
fn a_panic_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "docs/a.md", b"# Table\n");
    write(root, "docs/boom.md", b"# Boom\n");
    write(root, "main.js", b"var x = 1;\n");
    let docs = root.join("docs");
    let out = grounded(
        &["check", "--docs", docs.to_str().unwrap(), "main.js"],
        root,
        &[
            ("GROUNDED_DEBUG_PANIC_ON", "boom.md"),
            ("RUST_BACKTRACE", "1"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("boom.md"), "{stderr}");
    assert!(
        stderr.contains("this is a bug in grounded: please report it"),
        "{stderr}"
    );
    assert!(!stderr.contains("backtrace"), "{stderr}");
    // Without the switch, the same command is clean.
    let out = grounded(
        &["check", "--docs", docs.to_str().unwrap(), "main.js"],
        root,
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
