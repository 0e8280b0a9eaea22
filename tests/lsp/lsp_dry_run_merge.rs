//! The dry run's findings as the editor shows them (issue 27, point 8), over stdio as an
//! editor drives the real binary: a dry-run finding where a static finding stands is
//! one diagnostic (the static one), as the command line merges them; a dry-run finding
//! that stands alone keeps its whole message, not a second line at the same place.

use crate::common;

use common::{demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

/// Line 2: a receiver the static check cannot type (the dry run can); line 3: the same
/// invented member on a certain receiver (both see it).
const MAIN: &str = "var l = [layout][0];\nl.tableCellEnd();\nlayout.tableCellEnd();\n";

/// The table's `no_close`, long enough that the dry-run message passes the server's
/// 160-character split: the test sees whether that message is kept whole.
const LONG_NO_CLOSE: &str = "Rows and cells end implicitly: there is no tableCellEnd and no tableRowEnd, and a table closes with tableEnd alone, after its last row.";

/// The demo corpus, copied, with the table's `no_close` made long.
fn long_message_corpus() -> tempfile::TempDir {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let dest = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), dest).unwrap();
            }
        }
    }
    let d = tempfile::tempdir().unwrap();
    copy(std::path::Path::new(&demo_corpus()), d.path());
    let facts = d.path().join("facts.toml");
    let text = std::fs::read_to_string(&facts).unwrap();
    let short = "no_close = \"Rows and cells end implicitly: there is no tableCellEnd and no tableRowEnd.\"";
    assert!(
        text.contains(short),
        "the demo's table no_close changed: {text}"
    );
    std::fs::write(
        &facts,
        text.replace(short, &format!("no_close = {LONG_NO_CLOSE:?}")),
    )
    .unwrap();
    d
}

#[test]
fn a_dry_run_finding_where_a_static_one_stands_is_one_diagnostic() {
    let corpus = long_message_corpus();
    let dir = project(
        corpus.path().to_str().unwrap(),
        &[("main.js", MAIN.as_bytes())],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, MAIN);
    let first = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "member"));
    assert_eq!(first.len(), 1, "{first:#?}");
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
    let ds = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|x| x["code"] == "dry-run"));
    // Line 3 (0-based 2): one diagnostic, the static one.
    let at3: Vec<&Value> = ds
        .iter()
        .filter(|d| d["range"]["start"]["line"] == 2)
        .collect();
    assert_eq!(at3.len(), 1, "{ds:#?}");
    assert_eq!(at3[0]["code"], "member");
    // Line 2 (0-based 1): the dry run's own, its message whole, nothing related at the
    // same place.
    let at2: Vec<&Value> = ds
        .iter()
        .filter(|d| d["range"]["start"]["line"] == 1)
        .collect();
    assert_eq!(at2.len(), 1, "{ds:#?}");
    let d = at2[0];
    assert_eq!(d["code"], "dry-run");
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.chars().count() > 160 && msg.ends_with("after its last row."),
        "{msg}"
    );
    let same_place = d["relatedInformation"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter(|x| x["location"]["range"] == d["range"])
                .count()
        })
        .unwrap_or(0);
    assert_eq!(same_place, 0, "{d}");
    lsp.shutdown();
}
