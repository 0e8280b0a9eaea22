//! The layers as the compiler holds them: each crate's `Cargo.toml` names the crates it
//! may use, and this test keeps the two texts that describe those arrows to people from
//! drifting away from them: ARCHITECTURE.md's crate graph (between its `crate-graph`
//! markers) and the `May depend on:` line that opens each crate's `lib.rs`.
//!
//! Why: the layering used to be a habit read from `use` lines; now that the compiler
//! holds it, the one way it can still lie is in the prose that explains it.
//! `GROUNDED_BLESS=1 cargo test --test cli layers` writes the graph into ARCHITECTURE.md
//! after a deliberate change of the crates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each workspace crate (`grounded-x`, the folder under `crates/`) with the workspace
/// crates its `[dependencies]` name, in the order its manifest lists them.
fn crate_graph(root: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let dir = e.expect("entry").path();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.insert(name, workspace_deps(&manifest));
    }
    out
}

/// The `grounded-*` names under `[dependencies]` (not dev-dependencies) of a manifest.
fn workspace_deps(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut out = Vec::new();
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            section = t;
        } else if section == "[dependencies]" && t.starts_with("grounded-") {
            let name = t.split([' ', '=', '.']).next().unwrap_or_default();
            out.push(name.to_string());
        }
    }
    out
}

/// The graph as ARCHITECTURE.md shows it: one line a crate, lowest layer first (a crate
/// comes after every crate it uses, ties by name).
fn render(graph: &BTreeMap<String, Vec<String>>) -> String {
    let mut done: Vec<String> = Vec::new();
    while done.len() < graph.len() {
        let next = graph
            .iter()
            .find(|(k, deps)| !done.contains(k) && deps.iter().all(|d| done.contains(d)))
            .map(|(k, _)| k.clone())
            .expect("no circle between crates (cargo refuses one)");
        done.push(next);
    }
    let width = done.iter().map(String::len).max().unwrap_or(0);
    let mut s = String::from("```\n");
    for k in &done {
        let deps = &graph[k];
        let uses = if deps.is_empty() {
            "(nothing of the workspace)".to_string()
        } else {
            let mut d = deps.clone();
            d.sort_by_key(|x| done.iter().position(|y| y == x));
            format!("← {}", d.join(", "))
        };
        s.push_str(&format!("{k:width$}  {uses}\n"));
    }
    s.push_str("grounded (the binary: cli)  ← every crate above\n```\n");
    s
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const BEGIN: &str =
    "<!-- crate-graph: generated from the crates' Cargo.toml by tests/cli/layers.rs -->\n";
const END: &str = "<!-- /crate-graph -->";

#[test]
fn architecture_md_shows_the_crate_graph_of_the_manifests() {
    let path = root().join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).expect("ARCHITECTURE.md");
    let start = text
        .find(BEGIN)
        .expect("ARCHITECTURE.md has the crate-graph markers")
        + BEGIN.len();
    let end = start + text[start..].find(END).expect("the closing marker");
    let want = render(&crate_graph(&root()));
    if std::env::var_os("GROUNDED_BLESS").is_some() {
        let new = format!("{}{}{}", &text[..start], want, &text[end..]);
        std::fs::write(&path, new).expect("write ARCHITECTURE.md");
        return;
    }
    assert_eq!(
        text[start..end],
        want,
        "ARCHITECTURE.md's crate graph differs from the manifests: \
         GROUNDED_BLESS=1 cargo test --test cli layers writes it"
    );
}

#[test]
fn each_crate_opens_with_what_it_may_depend_on_as_its_manifest_says() {
    let mut problems = Vec::new();
    for (name, deps) in crate_graph(&root()) {
        let lib = root().join("crates").join(&name).join("src/lib.rs");
        let text = std::fs::read_to_string(&lib).expect("lib.rs");
        let opener: String = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| format!("{}\n", l.trim_start_matches("//!").trim()))
            .collect();
        let Some(said) = opener.split("May depend on:").nth(1) else {
            problems.push(format!(
                "{name}: its lib.rs opener has no `May depend on:` line"
            ));
            continue;
        };
        let said = said.split(['.', '(']).next().unwrap_or_default();
        let mut said: Vec<String> = said
            .split([',', ' ', '\n', '`'])
            .filter(|w| w.starts_with("grounded-"))
            .map(str::to_string)
            .collect();
        said.sort();
        let mut deps = deps.clone();
        deps.sort();
        if said != deps {
            problems.push(format!(
                "{name}: lib.rs says {said:?}, Cargo.toml has {deps:?}"
            ));
        }
        if !opener.contains("Must never know:") {
            problems.push(format!(
                "{name}: its lib.rs opener has no `Must never know:` line"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_manifest_reader_and_the_renderer_see_what_is_written() {
    // Known-bad and known-good inputs for the two readers the checks above rest on.
    let m = "[package]\nname = \"grounded-x\"\n[dependencies]\ngrounded-a = { path = \"../grounded-a\" }\nregex.workspace = true\ngrounded-b.workspace = true\n[dev-dependencies]\ngrounded-c = { path = \"../grounded-c\" }\n";
    assert_eq!(workspace_deps(m), ["grounded-a", "grounded-b"]);
    let g = BTreeMap::from([
        ("grounded-b".to_string(), vec!["grounded-a".to_string()]),
        ("grounded-a".to_string(), vec![]),
    ]);
    let r = render(&g);
    assert!(
        r.find("grounded-a").unwrap() < r.find("grounded-b  ←").unwrap(),
        "{r}"
    );
    assert!(r.contains("grounded-b  ← grounded-a\n"), "{r}");
}

/// The outside dependencies a workspace crate's `[dependencies]` name.
fn outside_deps(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut out = Vec::new();
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            section = t;
        } else if section == "[dependencies]" && !t.is_empty() && !t.starts_with("grounded-") {
            out.push(
                t.split([' ', '=', '.'])
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    out
}

#[test]
fn the_checker_as_a_library_brings_no_server_no_http_and_no_quickjs() {
    // A user who wants the checker in a build step or an editor plugin takes
    // `grounded-check`; what it pulls in is the closure of its workspace crates.
    let graph = crate_graph(&root());
    let mut closure = vec!["grounded-check".to_string()];
    let mut i = 0;
    while i < closure.len() {
        for d in &graph[&closure[i]] {
            if !closure.contains(d) {
                closure.push(d.clone());
            }
        }
        i += 1;
    }
    assert!(!closure
        .iter()
        .any(|c| c == "grounded-lsp" || c == "grounded-agent"));
    for c in &closure {
        let manifest =
            std::fs::read_to_string(root().join("crates").join(c).join("Cargo.toml")).unwrap();
        for d in outside_deps(&manifest) {
            assert!(
                ![
                    "tower-lsp-server",
                    "tokio",
                    "reqwest",
                    "rquickjs",
                    "dashmap"
                ]
                .contains(&d.as_str()),
                "{c} (under grounded-check) depends on {d}"
            );
        }
    }
    // The reader sees a server crate's dependency (known-bad input).
    let lsp = std::fs::read_to_string(root().join("crates/grounded-lsp/Cargo.toml")).unwrap();
    assert!(outside_deps(&lsp).iter().any(|d| d == "tower-lsp-server"));
}
