//! Neovim, headless, as a real client of the built server: `editors/neovim/smoke.lua`
//! opens the demo's `mistakes/member.js`, waits for the `member` squiggle, asks for
//! hover, applies the *Delete* quick fix and waits for the squiggle to go.
//!
//! `.ci/run` installs Neovim from the distribution's packages when it is missing and
//! sets `GROUNDED_REQUIRE_NVIM=1`, so in CI a missing `nvim` fails this test instead of
//! skipping it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn neovim_sees_the_member_squiggle_and_applies_the_delete_fix() {
    let has_nvim = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_nvim {
        assert!(
            std::env::var_os("GROUNDED_REQUIRE_NVIM").is_none(),
            "nvim is required here (GROUNDED_REQUIRE_NVIM) but not installed"
        );
        eprintln!("nvim not installed: the Neovim smoke test did not run");
        return;
    }
    let here = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    copy_dir(&Path::new(here).join("examples/demo"), &demo);
    // The copy names the corpus by its absolute path (the demo's is relative).
    std::fs::write(
        demo.join("grounded.toml"),
        format!(
            "docs = {:?}\nentry = \"main.js\"\n",
            format!("{here}/corpus/demo")
        ),
    )
    .unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(format!("{here}/editors/neovim/smoke.lua"))
        .current_dir(&demo)
        .env("GROUNDED_BIN", env!("CARGO_BIN_EXE_grounded"))
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nvim");
    // smoke.lua bounds each wait itself; this only guards against a hung editor.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(status.success(), "smoke.lua failed ({status}):\n{log}");
    assert!(log.contains("diagnostic"), "{log}");
    assert!(log.contains("fixed: no diagnostics left"), "{log}");
}
