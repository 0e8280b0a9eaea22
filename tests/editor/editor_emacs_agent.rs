//! Emacs (eglot): `editors/emacs/grounded.el`'s handler of `grounded/agentFinished` puts
//! the turn's answer, why it ended and the files it changed in the `*grounded agent*`
//! buffer (issue 27: the editor showed only the one-line status). The notification is
//! handed to the handler on a pipe connection (`editors/emacs/agent_smoke.el`): this is
//! the handler, not a session with the server. Skips when `emacs` is not installed
//! (fails instead under `GROUNDED_REQUIRE_EMACS`).

use std::process::{Command, Stdio};

#[test]
fn emacs_shows_the_agents_answer_in_a_buffer() {
    let has_emacs = Command::new("emacs")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_emacs {
        assert!(
            std::env::var_os("GROUNDED_REQUIRE_EMACS").is_none(),
            "emacs is required here (GROUNDED_REQUIRE_EMACS) but not installed"
        );
        eprintln!("emacs not installed: the Emacs agent test did not run");
        return;
    }
    let here = env!("CARGO_MANIFEST_DIR");
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("emacs")
        .args(["--batch", "-l"])
        .arg(format!("{here}/editors/emacs/agent_smoke.el"))
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .expect("run emacs");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "emacs failed: {err}");
    assert!(
        text.contains("grounded agent: done (turn 3)"),
        "{text}\n{err}"
    );
    assert!(
        text.contains("Added the footer to main.js."),
        "{text}\n{err}"
    );
    assert!(text.contains("why it ended: the model answered"), "{text}");
    assert!(text.contains("files changed: main.js"), "{text}");
}
