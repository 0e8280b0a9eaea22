//! One version and one list of platforms across every way grounded is installed (issue
//! 40): Cargo.toml's version is the binary's `--version`, the VS Code extension's, the
//! npm launcher's and its platform packages'; the wheel takes it from Cargo.toml itself.
//! A release whose VSIX said 0.1.0 while its server said 0.2.0 would be a mismatch no
//! user can see until a bug report quotes the wrong version. The platforms are listed in
//! six places (release script, workflow, launcher, its optionalDependencies, the
//! extension, its package script): a platform added to one and not the others is a
//! package that never gets built, or a launcher that never looks for it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    read_in(&repo(), rel)
}

fn read_in(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn json(rel: &str) -> Value {
    json_in(&repo(), rel)
}

fn json_in(root: &Path, rel: &str) -> Value {
    serde_json::from_str(&read_in(root, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The manifests that state a version of their own.
const MANIFESTS: [&str; 3] = [
    "editors/vscode/package.json",
    "editors/vscode/package-lock.json",
    "npm/grounded/package.json",
];

/// Every version the manifests under `root` state that differs from Cargo.toml's, as
/// "where: version".
fn mismatches(root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for rel in MANIFESTS {
        let m = json_in(root, rel);
        let mut versions = vec![(rel.to_string(), m["version"].clone())];
        if let Some(deps) = m["optionalDependencies"].as_object() {
            for (name, v) in deps {
                versions.push((format!("{rel} optionalDependencies {name}"), v.clone()));
            }
        }
        for (what, v) in versions {
            if v.as_str() != Some(VERSION) {
                bad.push(format!("{what}: {v}"));
            }
        }
    }
    bad
}

#[test]
fn the_binary_says_cargo_tomls_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("grounded {VERSION}")
    );
}

#[test]
fn every_manifest_states_cargo_tomls_version() {
    let bad = mismatches(&repo());
    assert!(
        bad.is_empty(),
        "Cargo.toml says {VERSION}; these differ: {bad:#?}"
    );
}

#[test]
fn a_manifest_with_another_version_is_caught() {
    // The check above must see a mismatch when there is one: the same manifests, one
    // platform package's version bumped alone (the slip a hand edit makes).
    let dir = tempfile::tempdir().unwrap();
    for rel in MANIFESTS {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, read(rel)).unwrap();
    }
    assert_eq!(mismatches(dir.path()), Vec::<String>::new());
    let mut npm = json("npm/grounded/package.json");
    npm["optionalDependencies"]["grounded-js-darwin-arm64"] = Value::String("9.9.9".into());
    std::fs::write(
        dir.path().join("npm/grounded/package.json"),
        serde_json::to_string(&npm).unwrap(),
    )
    .unwrap();
    assert_eq!(
        mismatches(dir.path()),
        vec![r#"npm/grounded/package.json optionalDependencies grounded-js-darwin-arm64: "9.9.9""#]
    );
}

#[test]
fn the_wheel_takes_its_version_from_cargo_toml() {
    let py = read("pyproject.toml");
    assert!(
        py.lines().any(|l| l.trim() == r#"dynamic = ["version"]"#),
        "pyproject.toml must say dynamic = [\"version\"] (maturin then uses Cargo.toml's)"
    );
    assert!(
        !py.lines().any(|l| l.trim_start().starts_with("version =")),
        "pyproject.toml states a version of its own"
    );
    assert!(py.contains(r#"bindings = "bin""#));
}

/// The platforms (npm's `os-cpu`) a file names among the six os-cpu pairs, by the Rust
/// triple (`triples`) or by the quoted npm name.
fn platforms_in(rel: &str, triples: bool) -> Vec<String> {
    let text = read(rel);
    let mut found = Vec::new();
    for (os, triple_os) in [
        ("linux", "unknown-linux-gnu"),
        ("darwin", "apple-darwin"),
        ("win32", "pc-windows-msvc"),
    ] {
        for (cpu, triple_cpu) in [("x64", "x86_64"), ("arm64", "aarch64")] {
            let needle = if triples {
                format!("{triple_cpu}-{triple_os}")
            } else {
                format!("\"{os}-{cpu}\"")
            };
            if text.contains(&needle) {
                found.push(format!("{os}-{cpu}"));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_list_of_platforms_is_the_same() {
    let npm = json("npm/grounded/package.json");
    let mut want: Vec<String> = npm["optionalDependencies"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.trim_start_matches("grounded-js-").to_string())
        .collect();
    want.sort();
    assert_eq!(want.len(), 5, "{want:?}");
    for (rel, triples) in [
        ("dist/release.sh", true),
        (".github/workflows/release.yml", true),
        ("editors/vscode/src/server.ts", true),
        ("editors/vscode/scripts/package.js", true),
        ("npm/grounded/bin/grounded.js", false),
    ] {
        let got = platforms_in(rel, triples);
        assert_eq!(
            got, want,
            "{rel} names other platforms than npm's optionalDependencies"
        );
    }
}
