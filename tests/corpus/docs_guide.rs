//! The user guides in `docs/` cannot go stale: the walkthrough of `docs/corpus.md` is
//! built from the page's own fenced blocks and checked with the real binary, and the
//! README's commands are run and held to what the README says they do.

use crate::common::{self, grounded};

use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced block of a Markdown page: its info string and its text.
struct Block {
    info: String,
    text: String,
}

fn blocks(page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<(String, String, Vec<&str>)> = None;
    for line in page.lines() {
        match &mut current {
            None => {
                if let Some(rest) = line.strip_prefix("```") {
                    current = Some(("```".into(), rest.trim().to_string(), Vec::new()));
                }
            }
            Some((fence, info, body)) => {
                if line.trim_end() == fence {
                    let mut text = body.join("\n");
                    text.push('\n');
                    out.push(Block {
                        info: info.clone(),
                        text,
                    });
                    current = None;
                } else {
                    body.push(line);
                }
            }
        }
    }
    assert!(current.is_none(), "an unclosed fence");
    out
}

/// The findings of human output, as `severity[code] path:line:col` lines.
fn heads(human: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut head: Option<String> = None;
    for line in human.lines() {
        if let Some((sev, rest)) = line.split_once('[') {
            if (sev == "error" || sev == "warning") && rest.contains("]: ") {
                head = Some(format!("{sev}[{}]", rest.split(']').next().unwrap()));
                continue;
            }
        }
        if let (Some(h), Some(at)) = (&head, line.trim_start().strip_prefix("┌─ ")) {
            out.push(format!("{h} {}", at.trim()));
            head = None;
        }
    }
    out.sort();
    out
}

#[test]
fn the_corpus_walkthrough_builds_and_checks_as_written() {
    let page = std::fs::read_to_string(repo().join("docs/corpus.md")).unwrap();
    let blocks = blocks(&page);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for b in &blocks {
        if let Some(name) = b
            .info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
        {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &b.text).unwrap();
            files.push(name.to_string());
        }
    }
    for must in [
        "grounded.toml",
        "show.js",
        "mistakes.js",
        "corpus/engine.md",
    ] {
        assert!(
            files.iter().any(|f| f == must),
            "the walkthrough writes {must}: {files:?}"
        );
    }
    let expected = blocks
        .iter()
        .find(|b| b.info == "text check")
        .expect("the walkthrough shows the check's output");

    // The corpus loads without a diagnostic: the guide's own corpus is well formed.
    let out = grounded(&["corpus", "--format", "json"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v:#}");
    assert!(
        v["constructs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "cue"),
        "{v:#}"
    );
    assert_eq!(v["globals"]["desk"], "Desk");

    // The right script is silent on its own.
    let out = grounded(&["check", "show.js"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("no findings"));

    // `grounded check` in the project finds exactly what the page shows, and exits 1.
    let out = grounded(&["check"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(
        heads(&stdout),
        heads(&expected.text),
        "real output:\n{stdout}"
    );
    assert!(!heads(&expected.text).is_empty());
    // And each message the page quotes says what the tool's says: the same start and
    // the same names in backticks (the page may shorten a message, never change it).
    for line in expected.text.lines() {
        let Some((head, _)) = line.split_once("]: ") else {
            continue;
        };
        let names: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        let real = stdout.lines().find(|l| {
            l.starts_with(&format!("{head}]: "))
                && names.iter().all(|n| l.contains(&format!("`{n}`")))
        });
        assert!(
            real.is_some(),
            "the page quotes `{line}`; the tool says:\n{stdout}"
        );
        assert!(
            real.unwrap()
                .starts_with(line.trim_end_matches(|c| c != '`')),
            "{line}"
        );
    }
}

#[test]
fn the_guides_link_each_other_and_the_readme_links_them() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for page in [
        "docs/corpus.md",
        "docs/cli.md",
        "docs/config.md",
        "docs/syntax-rules.md",
    ] {
        assert!(repo().join(page).is_file(), "{page} exists");
        assert!(readme.contains(page), "README links {page}");
    }
    assert!(
        !readme.contains("shared/specs"),
        "the README points inside the repository"
    );
    assert!(readme.contains("cargo install --locked --path ."));
    assert!(repo().join("LICENSE").is_file());
    let help = grounded(&["--help"], &repo());
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("docs/cli.md") && !help.contains("interfaces.md"),
        "{help}"
    );
}

#[test]
fn the_readme_commands_do_what_the_readme_says() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let repo = repo();

    // "the checker on the bundled demo engine's project": nine findings, exit 1, every
    // planted mistake but dynamic.js named by the path that opens from here.
    assert!(readme.contains("grounded check examples/demo"));
    let out = grounded(&["check", "--format", "json", "examples/demo"], &repo);
    assert_eq!(out.status.code(), Some(1));
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = v.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(v.len(), 9, "{paths:?}");
    for f in common::PLANTED {
        let p = format!("examples/demo/mistakes/{f}.js");
        assert!(paths.contains(&p.as_str()), "{p} in {paths:?}");
        assert!(repo.join(&p).is_file());
    }
    assert!(!paths.iter().any(|p| p.ends_with("dynamic.js")));

    // "`check --dry-run` catches it".
    assert!(readme.contains("grounded check --dry-run examples/demo"));
    let out = grounded(
        &["check", "--dry-run", "--format", "json", "examples/demo"],
        &repo,
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let dynamic: Vec<_> = v
        .iter()
        .filter(|f| f["path"] == "examples/demo/mistakes/dynamic.js")
        .collect();
    assert_eq!(dynamic.len(), 1, "{v:#?}");
    assert_eq!(dynamic[0]["code"], "dry-run");
    assert_eq!(dynamic[0]["line"], 6);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("dry run of") && stderr.contains("examples/demo/mistakes/dynamic.js"),
        "which entries ran: {stderr}"
    );
    // The correct scripts stay correct with the run.
    assert!(
        v.iter()
            .all(|f| f["path"].as_str().unwrap().contains("/mistakes/")),
        "{v:#?}"
    );

    // The docs commands of the README answer.
    for (args, needle) in [
        (vec!["corpus", "--docs", "corpus/demo"], "constructs"),
        (vec!["lookup", "tableStart"], "tableStart"),
        (vec!["doc", "Layout.tableStart"], "tableStart(table: Table"),
    ] {
        let shown = format!("grounded {}", args.join(" "));
        assert!(readme.contains(&shown), "README shows `{shown}`");
        let out = grounded(&args, &repo);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(needle),
            "{shown}"
        );
    }
}
