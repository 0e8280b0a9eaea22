//! Headless Neovim as a real client of the built server: whether it is here (in CI,
//! `GROUNDED_REQUIRE_NVIM` makes a missing `nvim` a failure, not a skip), and one run
//! of a Lua script of `editors/neovim/`, bounded in time.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Whether `nvim` runs here; when it does not, says which test did not run (or fails
/// under `GROUNDED_REQUIRE_NVIM`).
pub fn installed(test: &str) -> bool {
    let ok = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("GROUNDED_REQUIRE_NVIM").is_none(),
            "nvim is required here (GROUNDED_REQUIRE_NVIM) but not installed"
        );
        eprintln!("nvim not installed: the {test} did not run");
    }
    ok
}

/// Runs `editors/neovim/SCRIPT` headless in `cwd`, with `home` as its home and XDG
/// folders, the built server as `GROUNDED_BIN` and `env` besides; the script bounds each
/// wait itself, `limit` only guards against a hung editor. Its exit status and output
/// (stdout, then stderr).
pub fn run(
    script: &str,
    cwd: &Path,
    home: &Path,
    env: &[(&str, &str)],
    limit: Duration,
) -> (ExitStatus, String) {
    let here = env!("CARGO_MANIFEST_DIR");
    let mut child = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(format!("{here}/editors/neovim/{script}"))
        .current_dir(cwd)
        .env("GROUNDED_BIN", env!("CARGO_BIN_EXE_grounded"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nvim");
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim ({script}) did not finish in {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (status, log)
}
