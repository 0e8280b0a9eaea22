//! Neovim, headless, as a real client of the built server and a scripted model over real
//! HTTP: `editors/neovim/agent_smoke.lua` runs `:GroundedAsk` and waits for the turn's
//! answer in the `grounded://agent` buffer (issue 27: the editor showed only "done").
//! Skips when `nvim` is not installed (fails instead under `GROUNDED_REQUIRE_NVIM`).

use crate::common;

use std::time::Duration;

use common::model_server::{say, ModelServer, Scripted};
use common::{demo_corpus, project};

#[test]
fn neovim_shows_the_agents_answer_in_a_buffer() {
    if !common::nvim::installed("Neovim agent test") {
        return;
    }
    let server = ModelServer::start(vec![Scripted::Json(say(
        "main.js lays out one table with one cell.",
    ))]);
    let dir = project(
        &demo_corpus(),
        &[(
            "main.js",
            b"var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n",
        )],
    );
    let home = tempfile::tempdir().unwrap();
    let (status, log) = common::nvim::run(
        "agent_smoke.lua",
        dir.path(),
        home.path(),
        &[("GROUNDED_MODEL_URL", &server.url)],
        Duration::from_secs(90),
    );
    assert!(
        status.success(),
        "agent_smoke.lua failed ({status}):\n{log}"
    );
    assert!(
        log.contains("answer buffer: main.js lays out one table with one cell."),
        "{log}"
    );
    assert!(log.contains("answer buffer: grounded agent: done"), "{log}");
    assert!(log.contains("buffer name: grounded://agent"), "{log}");
}
