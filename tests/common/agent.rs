//! `grounded agent` run as a user runs it: the real binary over a project folder,
//! talking to a scripted model server over real HTTP, its transcript read back. The
//! setup every agent test file shares.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::model_server::ModelServer;

/// What one turn left behind.
pub struct Run {
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
    /// The final answer and the files changed.
    pub stdout: String,
    /// Progress and errors.
    pub stderr: String,
    /// The transcript's events, one JSON object a line.
    pub transcript: Vec<Value>,
}

/// One turn over `root` with a home of its own (config and cache folders), `env` set.
pub fn run_agent(root: &Path, server: &ModelServer, request: &str, env: &[(&str, &str)]) -> Run {
    let home = tempfile::tempdir().unwrap();
    run_agent_in(root, server, request, home.path(), env)
}

/// Like [`run_agent`] with a given home: two turns that share it share the persistent
/// lookup cache. The user's own config, cache and colour settings never leak in.
pub fn run_agent_in(
    root: &Path,
    server: &ModelServer,
    request: &str,
    home: &Path,
    env: &[(&str, &str)],
) -> Run {
    let tdir = tempfile::tempdir().unwrap();
    let tpath = tdir.path().join("t.jsonl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grounded"));
    cmd.args(["agent", "--root"])
        .arg(root)
        .args([
            "--base-url",
            &server.url,
            "--model",
            "scripted",
            "--transcript",
        ])
        .arg(&tpath)
        .arg(request)
        .env("XDG_CONFIG_HOME", home)
        .env("XDG_CACHE_HOME", home)
        .env("HOME", home)
        .env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let transcript = std::fs::read_to_string(&tpath)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each transcript line is JSON"))
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        transcript,
    }
}

/// The transcript's events named `name`, in order.
pub fn events<'a>(t: &'a [Value], name: &str) -> Vec<&'a Value> {
    t.iter().filter(|e| e["event"] == name).collect()
}
