//! The bundled demo engine and the docs commands, through the real binary.

use std::process::Command;

use grounded::docs::{bundled, topic::RouteKind, Library};

fn grounded(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bundled_corpus_has_the_domain() {
    let c = bundled::demo().unwrap();
    let (interfaces, members, globals, _) = c.counts();
    assert!(interfaces >= 25, "{interfaces}");
    assert!(members >= 250, "{members}");
    assert!(globals >= 3);
    assert_eq!(c.global_interface("layout"), Some("Layout"));
    for id in ["table", "block"] {
        assert!(c.constructs.contains_key(id), "construct {id}");
    }
    assert!(c.skipped_pairs.iter().any(|s| s.start == "keepStart"));
    assert!(c.absent_reason("Layout", "tableCellEnd").is_some());
    // Only the expected diagnostic: the primitive pair.
    assert!(
        c.diagnostics
            .iter()
            .all(|d| d.message.contains("not a construct")),
        "{:?}",
        c.diagnostics
    );
}

#[test]
fn topic_routes_table_goal_to_the_table_construct() {
    let c = Library::from(bundled::demo().unwrap());
    let a = c.resolve_topic("display the data in a table", 5);
    assert!(a.strict);
    assert_eq!(a.matches[0].route.kind, RouteKind::Construct);
    assert_eq!(a.matches[0].route.name, "table");
    assert!(a.matches[0]
        .route
        .symbols
        .iter()
        .any(|s| s == "layout.tableStart"));
}

#[test]
fn topic_single_shared_word_is_weak() {
    let c = Library::from(bundled::demo().unwrap());
    let a = c.resolve_topic("footer with page numbers", 5);
    // Strict only if the route explains two or more words, never from a single one.
    assert!(!a.strict || a.matches[0].explained.len() >= 2, "{a}");
    let weak = c.resolve_topic("zebra giraffe footer", 5);
    assert!(!weak.strict);
    assert!(weak.to_string().starts_with("WEAK MATCH"), "{weak}");
    let none = c.resolve_topic("zebra giraffe", 5);
    assert!(none.matches.is_empty() && !none.strict);
}

#[test]
fn lookup_returns_the_member_chunk_first() {
    let c = Library::from(bundled::demo().unwrap());
    let hits = c.lookup("tableStart", 5);
    assert_eq!(hits[0].title, "Layout-tableStart");
    // By part: `start` finds the same chunk, and every hit literally contains the term.
    let parts = c.lookup("start", 50);
    assert!(parts.iter().any(|h| h.title == "Layout-tableStart"));
    let whole = c.lookup("Table-borderWidth", 3);
    assert_eq!(whole[0].title, "Table-borderWidth");
    assert!(c
        .lookup("tableCellEnd", 5)
        .iter()
        .all(|h| c.chunks[h.chunk].text.contains("tableCellEnd")));
    assert!(c.lookup("qqqzzzxxx", 5).is_empty());
}

#[test]
fn cli_lookup_topic_corpus() {
    let (code, out, err) = grounded(&["lookup", "tableStart"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().next().unwrap().starts_with("Layout-tableStart"),
        "{out}"
    );
    assert!(
        err.contains("bundled demo"),
        "the fallback is announced: {err}"
    );
    let (code, out, _) = grounded(&["topic", "display the data in a table"]);
    assert_eq!(code, 0);
    assert!(out.contains("construct `table`"), "{out}");
    let (code, out, _) = grounded(&["corpus", "--docs", "corpus/demo", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["members"].as_u64().unwrap() >= 250);
    assert_eq!(v["skipped_pairs"][0]["start"], "keepStart");
}

#[test]
fn cli_corpus_errors_exit_2_with_one_line() {
    let (code, out, err) = grounded(&["corpus", "--docs", "no/such/folder"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no/such/folder"));
}

#[test]
fn cli_finds_the_corpus_through_grounded_toml() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs/\"\n").unwrap();
    std::fs::write(
        dir.path().join("docs/api.md"),
        "# Kiln\naccessed using the global property \"kiln\".\n## Kiln-fireStart\nSyntax: fireStart(name: string): void\n",
    )
    .unwrap();
    // From a subfolder: the nearest grounded.toml above decides.
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["corpus", "--format", "json"])
        .current_dir(dir.path().join("src/deep"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("bundled"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["globals"]["kiln"], "Kiln");
    assert_eq!(v["members"], 1);
    assert_eq!(
        v["skipped_pairs"].as_array().unwrap().len(),
        0,
        "no fireEnd: not a pair at all"
    );
}

#[test]
fn a_bare_file_name_finds_the_grounded_toml_of_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs/\"\n").unwrap();
    std::fs::write(
        dir.path().join("docs/api.md"),
        "# Kiln\naccessed using the global property \"kiln\".\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.js"), "kiln.fire();\n").unwrap();
    let root = grounded::project::find_root(&dir.path().join("a.js")).unwrap();
    assert_eq!(root, std::fs::canonicalize(dir.path()).unwrap());
    let cwd = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let found = grounded::project::find_root(std::path::Path::new("a.js"));
    std::env::set_current_dir(cwd).unwrap();
    assert_eq!(found, Some(std::fs::canonicalize(dir.path()).unwrap()));
}
