//! The dry run's findings as the editor shows them (issue 27, point 8), over stdio as an
//! editor drives the real binary: a dry-run finding where a static finding stands is
//! one diagnostic (the static one), as the command line merges them; a dry-run finding
//! that stands alone keeps its whole message, not a second line at the same place.

mod common;

use common::{demo_corpus, project, uri, Lsp};
use serde_json::{json, Value};

/// Line 2: a receiver the static check cannot type (the dry run can); line 3: the same
/// invented member on a certain receiver (both see it).
const MAIN: &str = "var l = [layout][0];\nl.tableCellEnd();\nlayout.tableCellEnd();\n";

#[test]
fn a_dry_run_finding_where_a_static_one_stands_is_one_diagnostic() {
    let dir = project(&demo_corpus(), &[("main.js", MAIN.as_bytes())]);
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
        msg.contains("tableCellEnd") && msg.ends_with("loses nothing."),
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
