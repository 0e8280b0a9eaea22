//! The server and what can go wrong around it: a panic in the corpus load or in the dry
//! run is shown to the user and survived; a client that leaves requests unanswered
//! delays nothing; a file over the analysed size is said, not silently empty; what the
//! project scan skipped is said once; CR-only buffers get findings on the right line.

use crate::common;

use common::*;
use serde_json::json;

const OK_JS: &str = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n";

/// The dynamic mistake only the dry run sees (the static check cannot judge `grid`).
const DYNAMIC_JS: &str = "function configure(grid) {\n    grid.columns = 2;\n    grid.cellSpacing = 2;\n}\nvar stock = new Table();\nconfigure(stock);\nlayout.tableStart(stock, { cellPadding: 3 });\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\n";

fn messages(lsp: &Lsp, needle: &str) -> usize {
    lsp.inbox
        .iter()
        .filter(|m| {
            m["method"] == "window/showMessage"
                && m["params"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains(needle)
        })
        .count()
}

/// The corpus load panics (a test switch makes reading one corpus file panic): the user
/// is told, with the file and that it is a bug, and the session goes on with the
/// bundled corpus.
#[test]
fn a_panic_in_the_corpus_load_is_shown_and_survived() {
    let docs = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(demo_corpus()).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, docs.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(docs.path().join("boom.md"), "# Boom\n").unwrap();
    let dir = project(
        docs.path().to_str().unwrap(),
        &[("ok.js", OK_JS.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[("GROUNDED_DEBUG_PANIC_ON", "boom.md")]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let m = lsp.wait_for("the message about the panic", |m| {
        m["method"] == "window/showMessage"
    });
    let text = m["params"]["message"].as_str().unwrap();
    assert!(text.contains("boom.md"), "{text}");
    assert!(text.contains("bug in grounded"), "{text}");
    assert_eq!(m["params"]["type"], 1, "an error: {m}");
    let u = uri(&dir.path().join("ok.js"));
    lsp.open(&u, OK_JS);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    hover_works(&mut lsp, &u);
    lsp.shutdown();
}

/// The dry run's thread panics (reading a loaded file): the user is told; the next run
/// runs again.
#[test]
fn a_panic_in_the_dry_run_is_shown_and_survived() {
    let dir = project(
        &demo_corpus(),
        &[
            ("main.js", b"loadJS(\"lib/boom.js\");\n"),
            ("lib/boom.js", b"var x = 1;\n"),
        ],
    );
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\nentry = \"main.js\"\n", demo_corpus()),
    )
    .unwrap();
    // Absolute: the dry run names what it reads by its full path; the project scan by
    // the relative one, so only the dry run trips the switch.
    let trigger = dir
        .path()
        .join("lib/boom.js")
        .to_string_lossy()
        .into_owned();
    let mut lsp = Lsp::start(&[], &[("GROUNDED_DEBUG_PANIC_ON", &trigger)]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, "loadJS(\"lib/boom.js\");\n");
    lsp.diagnostics_where(&u, Some(1), |_| true);
    for _ in 0..2 {
        lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
        let m = lsp.wait_for("the message about the dry run's panic", |m| {
            m["method"] == "window/showMessage"
                && m["params"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains("dry run")
        });
        let text = m["params"]["message"].as_str().unwrap();
        assert!(
            text.contains("boom.js") && text.contains("bug in grounded"),
            "{text}"
        );
    }
    assert!(lsp.alive());
    lsp.shutdown();
}

/// A client that never answers `window/workDoneProgress/create` still gets the dry run's
/// diagnostics: the run does not wait for the answer (the timeout is set far beyond the
/// test's patience, so a run that waited could not pass).
#[test]
fn an_unanswered_progress_request_does_not_delay_the_dry_run() {
    let dir = project(&demo_corpus(), &[("dynamic.js", DYNAMIC_JS.as_bytes())]);
    let mut lsp = Lsp::start_ignoring(
        &[],
        &[("GROUNDED_CLIENT_TIMEOUT_MS", "600000")],
        &["window/workDoneProgress/create"],
    );
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = uri(&dir.path().join("dynamic.js"));
    lsp.open(&u, DYNAMIC_JS);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
    let ds = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "dry-run"));
    assert_eq!(
        ds.iter().find(|x| x["code"] == "dry-run").unwrap()["range"]["start"]["line"],
        2
    );
    // It did ask, and the question is still open.
    lsp.wait_for("the unanswered create request", |m| {
        m["method"] == "window/workDoneProgress/create"
    });
    lsp.shutdown();
}

/// A client that never answers `client/registerCapability` still has its configuration
/// pulled and applied: here the setting points at another corpus, without `layout`.
#[test]
fn an_unanswered_registration_does_not_delay_the_configuration() {
    let other = tempfile::tempdir().unwrap();
    std::fs::write(
        other.path().join("a.md"),
        "# Table\n## Table-columns\nSyntax: columns: number\n",
    )
    .unwrap();
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start_ignoring(
        &[],
        &[("GROUNDED_CLIENT_TIMEOUT_MS", "600000")],
        &["client/registerCapability"],
    );
    lsp.set_config(json!({"docs": other.path().to_string_lossy()}));
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("ok.js"));
    lsp.open(&u, OK_JS);
    // Under the other corpus, `layout` is declared nowhere.
    let ds = lsp.diagnostics_where(&u, None, |d| d.iter().any(|x| x["code"] == "object"));
    assert!(!ds.is_empty());
    lsp.wait_for("the unanswered registration", |m| {
        m["method"] == "client/registerCapability"
    });
    lsp.shutdown();
}

/// A buffer over the analysed size gets one diagnostic that says so, not an empty
/// publish that looks like a clean file; a buffer under it is checked.
#[test]
fn a_file_over_the_analysed_size_is_said() {
    let dir = project(&demo_corpus(), &[("ok.js", OK_JS.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let line = "layout.tableCellEnd(); // padding padding padding padding padding\n";
    let big = line.repeat(9 * 1024 * 1024 / line.len() + 1);
    let big_uri = uri(&dir.path().join("big.js"));
    lsp.open(&big_uri, &big);
    let ds = lsp.diagnostics_where(&big_uri, Some(1), |_| true);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let msg = ds[0]["message"].as_str().unwrap();
    assert!(msg.contains("not analysed") && msg.contains("MB"), "{msg}");
    assert_eq!(ds[0]["severity"], 3, "information, not an error: {ds:#?}");
    let small = uri(&dir.path().join("small.js"));
    lsp.open(&small, &line.repeat(3));
    let ds = lsp.diagnostics_where(&small, Some(1), |_| true);
    assert_eq!(ds.len(), 3, "{ds:#?}");
    lsp.shutdown();
}

/// What the project scan skipped (a script over the size limit, dependency folders) is
/// said once, not at every reload.
#[test]
fn what_the_scan_skipped_is_said_once() {
    let huge = "var x = 1;\n".repeat((9 << 20) / 11 + 1);
    let dir = project(
        &demo_corpus(),
        &[
            ("ok.js", OK_JS.as_bytes()),
            ("gen/huge.js", huge.as_bytes()),
            ("node_modules/dep/index.js", b"var y;\n"),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let m = lsp.wait_for("the note about the scan", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("huge.js")
    });
    assert!(
        m["params"]["message"]
            .as_str()
            .unwrap()
            .contains("node_modules"),
        "{m}"
    );
    lsp.inbox.push_back(m);
    // A change of grounded.toml reloads and rescans: nothing new to say.
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&dir.path().join("grounded.toml")), "type": 2}]}),
    );
    let u = uri(&dir.path().join("ok.js"));
    lsp.open(&u, OK_JS);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    hover_works(&mut lsp, &u);
    assert_eq!(messages(&lsp, "huge.js"), 1, "{:#?}", lsp.inbox);
    lsp.shutdown();
}

/// A buffer with classic Mac line endings: the finding is on the line the editor shows.
#[test]
fn cr_only_buffers_get_findings_on_the_right_line() {
    let dir = project(&demo_corpus(), &[]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("cr.js"));
    lsp.open(&u, "var a = 1;\r// two\rlayout.tableCellEnd();\r");
    let ds = lsp.diagnostics_where(&u, Some(1), |d| !d.is_empty());
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0]["range"]["start"], json!({"line": 2, "character": 7}));
    lsp.shutdown();
}
