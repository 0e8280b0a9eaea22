//! Neovim, headless, as a real client of the built server: `editors/neovim/smoke.lua`
//! opens the demo's `mistakes/member.js`, waits for the `member` squiggle, asks for
//! hover, applies the *Delete* quick fix and waits for the squiggle to go.
//!
//! `.ci/run` installs Neovim from the distribution's packages when it is missing and
//! sets `GROUNDED_REQUIRE_NVIM=1`, so in CI a missing `nvim` fails this test instead of
//! skipping it.

use crate::common;

use std::path::Path;
use std::time::Duration;

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
    if !common::nvim::installed("Neovim smoke test") {
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
    let (status, log) = common::nvim::run(
        "smoke.lua",
        &demo,
        dir.path(),
        &[],
        Duration::from_secs(120),
    );
    assert!(status.success(), "smoke.lua failed ({status}):\n{log}");
    assert!(log.contains("diagnostic"), "{log}");
    assert!(log.contains("fixed: no diagnostics left"), "{log}");
}
