//! The demo: every fenced `js` example of the demo corpus checks clean, and every
//! mistake planted in `examples/demo/mistakes/` is found by the real binary with the
//! right code and position, and nothing else (the README's table is the expectation).

use std::path::{Path, PathBuf};
use std::process::Command;

use grounded::check::{self, Code, ProjectIndex};
use grounded::docs::bundled;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

#[test]
fn every_fenced_example_of_the_demo_corpus_checks_clean() {
    let corpus = bundled::demo().expect("bundled corpus");
    let mut files = Vec::new();
    markdown_files(&repo().join("corpus/demo"), &mut files);
    let mut blocks = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        blocks += text
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("```js") || t.starts_with("```javascript")
            })
            .count();
        let rel = f
            .strip_prefix(repo())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let findings: Vec<_> = check::check_text(&corpus, &ProjectIndex::default(), &rel, &text)
            .into_iter()
            .filter(|x| x.code != Code::Construct)
            .collect();
        assert!(
            findings.is_empty(),
            "{rel}: {:#?}",
            findings
                .iter()
                .map(|x| format!("{}:{} {}", x.line, x.column, x.message))
                .collect::<Vec<_>>()
        );
    }
    assert!(blocks >= 20, "the demo corpus has its examples ({blocks})");
}

/// `(file, code, line, column)` rows of the README's table of planted mistakes.
fn planted() -> Vec<(String, String, usize, usize)> {
    let readme = std::fs::read_to_string(repo().join("examples/demo/README.md")).unwrap();
    let mut out = Vec::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].starts_with("`mistakes/") {
            continue;
        }
        let file = cells[1].trim_matches('`').to_string();
        let code = cells[2]
            .trim_matches('`')
            .split_whitespace()
            .next()
            .unwrap()
            .trim_matches('`')
            .to_string();
        let (l, c) = cells[3].split_once(':').expect("line:column");
        out.push((file, code, l.parse().unwrap(), c.parse().unwrap()));
    }
    out
}

#[test]
fn every_planted_mistake_is_found_and_nothing_else() {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "."])
        .current_dir(repo().join("examples/demo"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "errors exit 1");
    let findings: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("a JSON array");
    let rows = planted();
    assert_eq!(rows.len(), 10, "the README lists ten planted mistakes");
    for (file, code, line, column) in &rows {
        let here: Vec<&serde_json::Value> = findings
            .iter()
            .filter(|f| f["path"] == file.as_str())
            .collect();
        match code.as_str() {
            // The dry run's mistake: the static check stays silent.
            "dry-run" => assert!(here.is_empty(), "{file}: {here:?}"),
            // The unclosed Start: exactly one warning, on the Start's name.
            "construct" => {
                assert_eq!(here.len(), 1, "{file}: exactly one finding: {here:?}");
                let f = here[0];
                assert_eq!(f["code"], "construct", "{file}");
                assert_eq!(
                    (f["line"].clone(), f["column"].clone()),
                    (serde_json::json!(*line), serde_json::json!(*column)),
                    "{file}"
                );
                assert_eq!(f["severity"], "warning", "{file}");
            }
            _ => {
                assert_eq!(here.len(), 1, "{file}: exactly one finding: {here:?}");
                let f = here[0];
                assert_eq!(f["code"], code.as_str(), "{file}");
                assert_eq!(f["line"], *line, "{file}");
                assert_eq!(f["column"], *column, "{file}");
                assert_eq!(f["severity"], "error", "{file}");
            }
        }
    }
    // Nothing outside mistakes/ (main.js, lib/*.js, README.md) is reported.
    let others: Vec<_> = findings
        .iter()
        .filter(|f| !f["path"].as_str().unwrap_or("").starts_with("mistakes/"))
        .collect();
    assert!(others.is_empty(), "{others:?}");
    // The member mistake carries the overlay's reason.
    let member = findings
        .iter()
        .find(|f| f["code"] == "member")
        .expect("member finding");
    assert!(member["message"]
        .as_str()
        .unwrap()
        .contains("Rows and cells end implicitly"));
}

#[test]
fn main_and_lib_check_clean() {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "main.js", "lib"])
        .current_dir(repo().join("examples/demo"))
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "[]",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
}
