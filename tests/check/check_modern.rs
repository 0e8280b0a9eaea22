//! What modern typings say (issue 49): a fictional engine, Loom (`tests/fixtures/loom`),
//! whose docs type most values as unions of node interfaces told apart by `type`, take
//! callbacks, and return `Promise<T>` from `...Async` methods. Through the real binary:
//! the good script stays silent (narrowed unions, loops, callbacks, destructuring,
//! awaits, and the values that must stay unjudged), and each receiver kind's planted
//! mistake in the bad script is found, with near names from the docs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/loom")
}

/// `grounded check --format json` of `files` in a copy of the fixture.
fn check(files: &[&str]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    for rel in [
        "grounded.toml",
        "docs/engine.md",
        "docs/api.md",
        "good.js",
        "bad.js",
    ] {
        std::fs::copy(fixture().join(rel), root.join(rel)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json"])
        .args(files)
        .current_dir(root)
        .env("GROUNDED_CACHE_DIR", root.join("cache"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("load diagnostic"),
        "the fixture's docs load clean: {stderr}"
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

#[test]
fn modern_typings_good_script_is_silent() {
    let findings = check(&["good.js"]);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn modern_typings_one_mistake_per_receiver_kind_is_found() {
    let findings = check(&["bad.js"]);
    let got: Vec<(u64, u64, &str)> = findings
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["code"].as_str().unwrap(),
            )
        })
        .collect();
    let want: Vec<(u64, u64, &str)> = vec![
        (3, 7, "member"),   // a union: `selection[0].nmae`
        (4, 34, "member"),  // narrowed by `type === "TEXT"`
        (5, 24, "member"),  // a `for...of` variable over a `T[]`
        (6, 22, "member"),  // a `forEach` callback's element
        (7, 35, "member"),  // a callback the docs type `(node: ...) => boolean`
        (8, 43, "member"),  // destructured from the global
        (9, 72, "member"),  // awaited from `Promise<Style>`
        (10, 21, "member"), // a test against a `type` no interface has
        (11, 46, "member"), // a `for...of` over an `Index: [index: number]: T` collection
        (12, 39, "member"), // a `.then` callback's value
        (13, 43, "member"), // narrowed by a `switch` case
    ];
    assert_eq!(got, want, "{findings:#?}");
    let msg = |i: usize| findings[i]["message"].as_str().unwrap().to_string();
    // A union's near names come from all its interfaces (`fontSize` is `TextNode`'s).
    assert!(
        msg(2).contains("`FrameNode`, `TextNode` and `RectangleNode`"),
        "{}",
        msg(2)
    );
    assert!(msg(2).contains("did you mean `fontSize`?"), "{}", msg(2));
    // Narrowed: judged by the one interface left.
    assert!(
        msg(1).starts_with("`TextNode` has no member `charactres`"),
        "{}",
        msg(1)
    );
    assert!(
        msg(10).starts_with("`FrameNode` has no member `characters`"),
        "{}",
        msg(10)
    );
    // The misspelt literal: the literals the docs give, the near one first, and a fix
    // that replaces the text between the quotes.
    assert!(msg(7).contains("did you mean `\"TEXT\"`?"), "{}", msg(7));
    let fix = &findings[7]["fixes"][0]["edits"][0];
    assert_eq!(
        (fix["column"].as_u64(), fix["text"].as_str()),
        (Some(21), Some("TEXT")),
        "{fix}"
    );
}
