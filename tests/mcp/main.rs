//! `grounded mcp` as the agents people already run meet it: the MCP Python SDK as the
//! client over stdio (`mcp_client`), and raw JSON-RPC lines for what no SDK sends
//! (`mcp_raw`: malformed input, unknown methods, bounds, stdout purity); and
//! `grounded hook claude-code` under Claude Code's hook input (`mcp_hook`).
//!
//! One test binary per area (each links the whole crate graph once); see
//! ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod mcp_client;
mod mcp_hook;
mod mcp_raw;

use std::path::{Path, PathBuf};

/// A copy of `examples/demo` in a temp folder, its `grounded.toml` naming the demo
/// corpus by absolute path (the copy is somewhere else).
pub fn demo_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    copy_dir(&from, dir.path());
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n", common::demo_corpus()),
    )
    .unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target: PathBuf = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `grounded check --format json ARGS` run in `dir`: the array.
pub fn cli_check(dir: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = std::process::Command::new(common::bin())
        .args(["check", "--format", "json"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v.as_array().unwrap().clone()
}
