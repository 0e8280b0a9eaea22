//! Configuration, watched files and the dry run: what changes outside the buffer.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

const ENGINE: &str = "# Engine\n\nECMAScript: 3\n\n# Screen\n\nThe screen. This object is accessed using the global property \"screen\".\n\n## Screen-draw\n\nSyntax: draw(text: string): void\n\nDraws text.\n";
const PAINT: &str =
    "\n## Screen-paint\n\nSyntax: paint(color: string): void\n\nPaints the screen.\n";

fn corpus(with_paint: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = if with_paint {
        format!("{ENGINE}{PAINT}")
    } else {
        ENGINE.to_string()
    };
    std::fs::write(dir.path().join("api.md"), text).unwrap();
    dir
}

const SCRIPT: &str = "screen.draw(\"a\");\nscreen.paint(\"red\");\n";

fn hover_paint(lsp: &mut Lsp, uri: &str) -> Value {
    lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 9}}),
    )
}

fn has_member(ds: &[Value]) -> bool {
    ds.iter().any(|d| d["code"] == "member")
}

/// `workspace/didChangeConfiguration` makes the server pull the `grounded` section;
/// a new corpus path reloads the corpus and re-checks the open buffers.
#[test]
fn a_configuration_change_switches_the_corpus() {
    let a = corpus(false);
    let b = corpus(true);
    let dir = project(
        &a.path().display().to_string(),
        &[("s.js", SCRIPT.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, SCRIPT);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    assert!(hover_paint(&mut lsp, &u).is_null(), "corpus A has no paint");

    lsp.set_config(json!({"docs": b.path().display().to_string(), "debounceMs": 0}));
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    // The re-check after the reload publishes again; wait for it, then paint is known.
    lsp.diagnostics_where(&u, Some(1), |d| !has_member(d));
    let h = hover_paint(&mut lsp, &u);
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("Paints the screen"),
        "{h}"
    );
    lsp.shutdown();
}

/// The member finding follows the corpus switch (needs the checker).
#[test]
fn a_configuration_change_rechecks_open_files() {
    let a = corpus(false);
    let b = corpus(true);
    let dir = project(
        &a.path().display().to_string(),
        &[("s.js", SCRIPT.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, SCRIPT);
    lsp.diagnostics_where(&u, Some(1), has_member);
    // Pushed settings (no pull needed).
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"grounded": {"docs": b.path().display().to_string()}}}),
    );
    lsp.diagnostics_where(&u, Some(1), |d| !has_member(d));
    lsp.shutdown();
}

/// A corpus file changing on disk (a watched-file event) reloads the corpus.
#[test]
fn a_watched_corpus_change_reloads_the_corpus() {
    let a = corpus(false);
    let dir = project(
        &a.path().display().to_string(),
        &[("s.js", SCRIPT.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    let init = lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    assert_eq!(
        init["capabilities"]["textDocumentSync"]["change"], 2,
        "incremental"
    );
    // The server registers its file watchers with the client.
    let reg = lsp.wait_for("client/registerCapability", |m| {
        m["method"] == "client/registerCapability"
    });
    assert_eq!(
        reg["params"]["registrations"][0]["method"],
        "workspace/didChangeWatchedFiles"
    );
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, SCRIPT);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    assert!(hover_paint(&mut lsp, &u).is_null());
    let api = a.path().join("api.md");
    std::fs::write(&api, format!("{ENGINE}{PAINT}")).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&api), "type": 2}]}),
    );
    lsp.diagnostics_where(&u, Some(1), |d| !has_member(d));
    let h = hover_paint(&mut lsp, &u);
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("Paints"),
        "{h}"
    );
    lsp.shutdown();
}

/// A project file changing on disk re-checks the open files that depend on it: a
/// function defined there by the change is no longer a `function` finding (needs the
/// checker's project index).
#[test]
fn a_watched_script_change_rechecks_dependents() {
    let main = "loadJS(\"lib.js\");\nhelper();\n";
    let dir = project(
        &demo_corpus(),
        &[
            ("main.js", main.as_bytes()),
            ("lib.js", b"function other() {}\n"),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, main);
    let ds = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "function"));
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let lib = dir.path().join("lib.js");
    std::fs::write(&lib, "function other() {}\nfunction helper() {}\n").unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&lib), "type": 2}]}),
    );
    lsp.diagnostics_where(&u, Some(1), |d| d.is_empty());
    // Deleted: the finding comes back.
    std::fs::remove_file(&lib).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&lib), "type": 3}]}),
    );
    lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "function"));
    lsp.shutdown();
}

/// Saving runs the dry run off the request path; its findings arrive with code
/// `dry-run` and source `grounded` (the demo's `dynamic.js`, which the static check
/// cannot judge).
#[test]
fn saving_runs_the_dry_run() {
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let path = Path::new(&demo).join("mistakes/dynamic.js");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = uri(&path);
    lsp.open(&u, &text);
    let first = lsp.diagnostics_where(&u, Some(1), |_| true);
    assert!(first.is_empty(), "the static check is silent: {first:#?}");
    // Requests are answered while the dry run works.
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
    let ds = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "dry-run"));
    let d = ds.iter().find(|x| x["code"] == "dry-run").unwrap();
    assert_eq!(d["source"], "grounded");
    assert_eq!(d["range"]["start"]["line"], 5, "{d}");
    // The run was reported as work-done progress, begun and ended.
    lsp.wait_for("progress begin", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
    });
    let end = lsp.wait_for("progress end", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    });
    assert!(end["params"]["value"]["message"]
        .as_str()
        .unwrap()
        .contains("finding"));
    lsp.shutdown();
}

/// With the dry run off (a setting), saving publishes nothing new.
#[test]
fn the_dry_run_can_be_turned_off() {
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let path = Path::new(&demo).join("mistakes/dynamic.js");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let u = uri(&path);
    lsp.open(&u, &text);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
    // A marker edit after the save: its diagnostics come after any the save caused.
    lsp.change(&u, 2, [0, 0, 0, 0], " ");
    lsp.diagnostics_where(&u, Some(2), |_| true);
    let dry = lsp.published.iter().any(|m| {
        m["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "dry-run")
    });
    assert!(!dry);
    lsp.shutdown();
}

/// A project whose `main.js` loads `lib.js` and calls `helper`, which `lib` does not
/// declare yet: both open, `main`'s `function` finding published. The dependents tests
/// start here, then edit `lib`.
fn main_loading_lib(main: &str, lib: &str) -> (tempfile::TempDir, Lsp, String, String) {
    let dir = project(
        &demo_corpus(),
        &[("main.js", main.as_bytes()), ("lib.js", lib.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let um = uri(&dir.path().join("main.js"));
    let ul = uri(&dir.path().join("lib.js"));
    lsp.open(&um, main);
    lsp.diagnostics_where(&um, Some(1), |d| d.iter().any(|x| x["code"] == "function"));
    lsp.open(&ul, lib);
    (dir, lsp, um, ul)
}

/// Editing an open file re-checks the open files that load it: declaring the missing
/// function in the loaded buffer (unsaved) clears the `function` finding of its user.
#[test]
fn editing_a_loaded_buffer_rechecks_its_dependents() {
    let main = "loadJS(\"lib.js\");\nhelper();\n";
    let lib = "function other() {}\n";
    let (_dir, mut lsp, um, ul) = main_loading_lib(main, lib);
    lsp.change(&ul, 2, [1, 0, 1, 0], "function helper() {}\n");
    lsp.diagnostics_where(&um, Some(1), |d| d.is_empty());
    lsp.shutdown();
}

/// `grounded.toml` changing on disk (a watched-file event) re-reads the project's
/// configuration: a new `docs` reloads the corpus.
#[test]
fn a_watched_grounded_toml_change_rereads_the_project() {
    let a = corpus(false);
    let b = corpus(true);
    let dir = project(
        &a.path().display().to_string(),
        &[("s.js", SCRIPT.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, SCRIPT);
    lsp.diagnostics_where(&u, Some(1), has_member);
    let toml = dir.path().join("grounded.toml");
    std::fs::write(
        &toml,
        format!("docs = {:?}\n", b.path().display().to_string()),
    )
    .unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&toml), "type": 2}]}),
    );
    lsp.diagnostics_where(&u, Some(1), |d| !has_member(d));
    assert!(hover_paint(&mut lsp, &u)["contents"]["value"]
        .as_str()
        .unwrap_or("")
        .contains("Paints"));
    lsp.shutdown();
}

/// After an idle spell the dry run runs on the unsaved buffers too (no save needed).
#[test]
fn the_dry_run_runs_after_idle_on_unsaved_buffers() {
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let path = Path::new(&demo).join("main.js");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 50}}),
    );
    let u = uri(&path);
    lsp.open(&u, &text);
    lsp.diagnostics_where(&u, Some(1), |d| d.is_empty());
    // An unsaved edit that only the run can see: a member written on a parameter.
    let line = text.lines().count() as u32;
    lsp.change(
        &u,
        2,
        [line, 0, line, 0],
        "function configure(x) { x.cellSpacing = 2; }\nconfigure(new Table());\n",
    );
    let ds = lsp.diagnostics_where(&u, Some(2), |d| d.iter().any(|x| x["code"] == "dry-run"));
    let d = ds.iter().find(|x| x["code"] == "dry-run").unwrap();
    assert_eq!(d["range"]["start"]["line"], line, "{d}");
    lsp.shutdown();
}

/// A workspace opened above a script project (no `grounded.toml` at its top): opening a
/// file of the project adopts that project's root and corpus, so its `loadJS` paths
/// resolve against the project, not the workspace folder.
#[test]
fn a_project_below_the_workspace_folder_is_adopted() {
    let c = corpus(true);
    let api = c.path().join("api.md");
    let mut docs = std::fs::read_to_string(&api).unwrap();
    docs.push_str("\n# Global\n\nThe global functions.\n\n## Global-loadJS\n\nSyntax: loadJS(file: path): void\n\nRuns a script of the project.\n");
    std::fs::write(&api, docs).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let proj = ws.path().join("scripts");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(
        proj.join("grounded.toml"),
        format!("docs = {:?}\n", c.path().display().to_string()),
    )
    .unwrap();
    std::fs::write(proj.join("lib.js"), "function helper() {}\n").unwrap();
    let main = "loadJS(\"lib.js\");\nhelper();\nscreen.paint(\"red\");\nscreen.flash();\n";
    std::fs::write(proj.join("main.js"), main).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(ws.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&proj.join("main.js"));
    lsp.open(&u, main);
    // The project's own corpus (Screen with paint, no flash); lib.js found; helper known.
    let ds = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "member"));
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0]["range"]["start"]["line"], 3);
    lsp.shutdown();
}

/// A dry-run finding is published with later versions of the buffer only while the
/// edits leave its text alone: moved with the lines an edit adds above it, gone with the
/// edit that touches it. It once stayed at its old line and column until the next dry
/// run, 1.5 s after the edit that fixed it.
#[test]
fn a_dry_run_finding_moves_with_edits_around_it_and_goes_with_an_edit_to_it() {
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let path = Path::new(&demo).join("mistakes/dynamic.js");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    // No idle run: every dry-run finding below comes from the run of the save.
    lsp.initialize(
        Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = uri(&path);
    lsp.open(&u, &text);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
    let dry = |ds: &[Value]| -> Vec<Value> {
        ds.iter()
            .filter(|x| x["code"] == "dry-run")
            .cloned()
            .collect()
    };
    let ds = lsp.diagnostics_where(&u, Some(1), |d| !dry(d).is_empty());
    let before = dry(&ds)[0]["range"].clone();
    assert_eq!(before["start"]["line"], 5, "{before}");
    // A line added above: the finding moves down with its text.
    lsp.change(&u, 2, [0, 0, 0, 0], "// a note\n");
    let ds = lsp.diagnostics_where(&u, Some(2), |_| true);
    let moved = dry(&ds);
    assert_eq!(moved.len(), 1, "{ds:#?}");
    assert_eq!(moved[0]["range"]["start"]["line"], 6, "{moved:#?}");
    assert_eq!(
        moved[0]["range"]["start"]["character"],
        before["start"]["character"]
    );
    // An edit inside the finding's text: the finding no longer speaks of this text.
    let c = before["start"]["character"].as_u64().unwrap() as u32 + 6;
    lsp.change(&u, 3, [6, c, 6, c], "x");
    let ds = lsp.diagnostics_where(&u, Some(3), |_| true);
    assert!(dry(&ds).is_empty(), "{ds:#?}");
    lsp.shutdown();
}

/// A keystroke inside a function body that declares a global (an assignment to an
/// undeclared name) changes the file's index entry: the files that load it are
/// re-checked. The index entry is refreshed only after edits that may change it, and a
/// re-check of one statement whose summary changed is such an edit.
#[test]
fn a_global_declared_inside_a_function_body_reaches_the_files_that_load_it() {
    let main = "loadJS(\"lib.js\");\nhelper();\n";
    let lib = "function other() {\n    var a = 1;\n}\n";
    let (_dir, mut lsp, um, ul) = main_loading_lib(main, lib);
    lsp.diagnostics_where(&ul, Some(1), |_| true);
    // A keystroke that changes nothing the index holds, then the one that does.
    lsp.change(&ul, 2, [1, 13, 1, 13], "2");
    lsp.diagnostics_where(&ul, Some(2), |_| true);
    lsp.change(&ul, 3, [1, 4, 1, 15], "helper = function () {};");
    lsp.diagnostics_where(&ul, Some(3), |_| true);
    lsp.diagnostics_where(&um, Some(1), |d| d.is_empty());
    lsp.shutdown();
}
