//! The README's commands, run as written (issue 28): the quick start's `grounded check`
//! lines, the corpus commands, the agent's example on a copy of the demo, and the model
//! server's command with `--help`. Each line is parsed out of README.md and run through
//! `bash` with the built binary first on `PATH`, so the README and the tool cannot
//! drift apart: a newcomer found `python tests/model-server/serve.py --model
//! SmolLM2-135M-Instruct.Q4_1.gguf ...` failing as written, and the agent's example
//! failing on a copy of the demo.
//!
//! Not run here: `cargo install` and `cargo run --release` (the build this suite already
//! is) and `cargo test` (this suite); their lines are asserted to be there as written.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::model_server::ModelServer;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The lines of the first ```sh block after the line that starts with `marker`.
fn sh_block_after(text: &str, marker: &str) -> Vec<String> {
    let start = text
        .lines()
        .position(|l| l.starts_with(marker))
        .unwrap_or_else(|| panic!("README has no line starting {marker:?}"));
    let mut lines = text.lines().skip(start + 1);
    lines
        .by_ref()
        .find(|l| l.trim() == "```sh")
        .unwrap_or_else(|| panic!("no ```sh block after {marker:?}"));
    lines
        .take_while(|l| l.trim() != "```")
        .map(|l| l.to_string())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// A README line without its trailing `# comment` (two spaces or more before `#`,
/// outside quotes).
fn without_comment(line: &str) -> String {
    let mut quoted = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'#' if !quoted && i >= 2 && &line[i - 2..i] == "  " => {
                return line[..i].trim_end().to_string();
            }
            _ => {}
        }
    }
    line.trim_end().to_string()
}

/// Runs one README line with bash in `dir`, the built `grounded` first on `PATH`.
fn sh(line: &str, dir: &Path, env: &[(&str, &str)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_grounded")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("GROUNDED_CACHE_DIR", "");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("bash runs")
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_quick_start_runs_as_written() {
    let readme = readme();
    let lines: Vec<String> = sh_block_after(&readme, "## Quick start")
        .iter()
        .map(|l| without_comment(l))
        .collect();
    assert_eq!(lines[0], "cargo install --locked --path .");
    assert!(lines.iter().any(|l| l == "cargo test"), "{lines:?}");
    // Where the README says the findings are, as it spells them.
    let places: Vec<&str> = [
        "examples/demo/mistakes/member.js:8:8",
        "examples/demo/mistakes/dynamic.js:6:10",
    ]
    .into_iter()
    .filter(|p| readme.contains(&format!("`{p}")))
    .collect();
    assert_eq!(places.len(), 2, "the README names both places");
    let checks: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("grounded "))
        .collect();
    assert_eq!(checks.len(), 2, "{lines:?}");
    for line in checks {
        let out = sh(line, &repo(), &[]);
        // "the exit status is 1 (findings at error severity)"
        assert_eq!(out.status.code(), Some(1), "{line}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(places[0]), "{line}: {}", text(&out));
        if line.contains("--dry-run") {
            assert!(stdout.contains(places[1]), "{line}: {}", text(&out));
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("dry run of "),
                "{line}: {}",
                text(&out)
            );
        } else {
            assert!(!stdout.contains(places[1]), "{line}: {}", text(&out));
        }
    }
}

#[test]
fn the_corpus_commands_run_as_written() {
    let readme = readme();
    let lines = sh_block_after(&readme, "Every command finds the corpus the same way");
    assert!(lines.len() >= 4, "{lines:?}");
    for line in &lines {
        let line = without_comment(line);
        assert!(line.starts_with("grounded "), "{line}");
        let out = sh(&line, &repo(), &[]);
        assert_eq!(out.status.code(), Some(0), "{line}: {}", text(&out));
        assert!(!out.stdout.is_empty(), "{line}");
    }
}

/// The agent's example: the copy is made by the README's own line, and each agent line
/// runs against a model configured the README's way (the user's config file), here a
/// scripted server. Before, the copy failed with `corpus not found`.
#[test]
fn the_agent_example_runs_on_a_copy_as_written() {
    let readme = readme();
    let lines: Vec<String> = sh_block_after(&readme, "`grounded agent \"REQUEST\"` runs one turn")
        .iter()
        .map(|l| without_comment(l))
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].contains("cp -r examples/demo /tmp/demo"),
        "{lines:?}"
    );
    // The README's `/tmp/demo`, made private to this run.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("demo");
    let lines: Vec<String> = lines
        .iter()
        .map(|l| l.replace("/tmp/demo", copy.to_str().unwrap()))
        .collect();
    let out = sh(&lines[0], &repo(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(copy.join("main.js").is_file());
    let home = tempfile::tempdir().unwrap();
    let server = ModelServer::start(Vec::new());
    let config = home.path().join("grounded");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[model]\nbase_url = \"{}\"\nname = \"scripted\"\n",
            server.url
        ),
    )
    .unwrap();
    let h = home.path().to_str().unwrap();
    let env = [("HOME", h), ("XDG_CONFIG_HOME", h), ("XDG_CACHE_HOME", h)];
    let mut asked = 0;
    for line in &lines[1..] {
        assert!(line.contains("grounded agent"), "{line}");
        let out = sh(line, &repo(), &env);
        let all = text(&out);
        // 0 done or 1 ended without the change (the scripted model only talks); never
        // 2, a configuration or corpus error.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{line}: {all}");
        assert!(!all.contains("corpus not found"), "{line}: {all}");
        assert!(
            server.received().len() > asked,
            "{line}: the model was asked"
        );
        asked = server.received().len();
    }
    assert!(
        copy.join("turn.jsonl").is_file(),
        "the transcript, in the copy"
    );
    // The repository's own demo was not the one used.
    assert!(!repo().join("examples/demo/turn.jsonl").exists());
}

/// The model server's command, as the README names it, with `--help`: it runs without
/// the install (and prints the server's own options when the install is there).
#[test]
fn the_model_server_command_runs_with_help() {
    let readme = readme();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| llama-cpp-python's server"))
        .expect("the llama-cpp-python row");
    let cmd = row
        .split('`')
        .find(|s| s.contains("tests/model-server/serve"))
        .expect("a command naming tests/model-server/serve*")
        .to_string();
    let script = cmd
        .split_whitespace()
        .find(|w| w.starts_with("tests/model-server/"))
        .unwrap();
    assert!(repo().join(script).is_file(), "{script}");
    assert!(
        row.contains("bash tests/model-server/install.sh")
            && repo().join("tests/model-server/install.sh").is_file()
    );
    assert!(row.contains("max_tokens"), "the small model's max_tokens");
    let out = sh(&format!("{cmd} --help"), &repo(), &[]);
    assert_eq!(out.status.code(), Some(0), "{cmd} --help: {}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for want in [
        "serve.py",
        "--model",
        "--chat_format chatml-function-calling",
        "127.0.0.1",
        "8000",
    ] {
        assert!(stdout.contains(want), "{want}: {stdout}");
    }
    // The port the README's row gives is the one the command serves on.
    assert!(row.contains("`http://127.0.0.1:8000/v1`"), "{row}");
}
