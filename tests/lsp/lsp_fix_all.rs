//! The server's `source.fixAll.grounded` over stdio, as VS Code's
//! `editor.codeActionsOnSave` asks for it: one edit of the document holding the same
//! fixes `grounded check --fix` writes (the same file fixed both ways must read the
//! same), nothing for a clean buffer, and nothing when only quick fixes are asked.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::{json, Value};

const BAD_JS: &str = "var net = 100;\nconst VAT_RATE = 0.2;\nvar started = Date.now();\nvar t = new Table();\nlayout.tableStart(t, { cellPadding: 3 });\nlayout.tableRow();\nlayout.tableCell(\"Toner é\");\nlayout.tableCellEnd();\nlayout.tableEnd();\nlayout.tableSomething();\nlayout.paragraph(\"Gross: \" + net * (1 + VAT_RATE) + started);\n";

const GOOD_JS: &str = "var net = 100;\nlayout.paragraph(\"Net: \" + net);\n";

fn fix_all(lsp: &mut Lsp, uri: &str, only: &[&str]) -> Value {
    lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
               "context": {"diagnostics": [], "only": only, "triggerKind": 2}}),
    )
}

/// What `grounded check --fix` writes for `name` holding `text`, in a project of its own.
fn cli_fixed(name: &str, text: &str) -> String {
    let dir = project(&demo_corpus(), &[(name, text.as_bytes())]);
    Command::new(bin())
        .args(["check", "--fix", name])
        .current_dir(dir.path())
        .output()
        .unwrap();
    std::fs::read_to_string(dir.path().join(name)).unwrap()
}

fn open_and_wait(lsp: &mut Lsp, dir: &Path, name: &str, text: &str) -> String {
    let u = uri(&dir.join(name));
    lsp.open(&u, text);
    lsp.diagnostics_where(&u, Some(1), |_| true);
    u
}

#[test]
fn fix_all_on_save_is_what_check_fix_writes_in_js_jsx_and_markdown() {
    let md = format!("# Report\n\n```js\n{BAD_JS}```\n");
    let cases = [
        ("a.js", BAD_JS.to_string()),
        ("b.jsx", BAD_JS.to_string()),
        ("c.md", md),
    ];
    let dir = project(&demo_corpus(), &[]);
    let mut lsp = Lsp::start(&[], &[]);
    let init = lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let kinds = &init["capabilities"]["codeActionProvider"]["codeActionKinds"];
    assert!(
        kinds
            .as_array()
            .unwrap()
            .contains(&json!("source.fixAll.grounded")),
        "{kinds}"
    );
    for (name, text) in &cases {
        let u = open_and_wait(&mut lsp, dir.path(), name, text);
        for only in [
            &["source.fixAll"][..],
            &["source.fixAll.grounded"],
            &["source"],
        ] {
            let actions = fix_all(&mut lsp, &u, only);
            let a = actions
                .as_array()
                .unwrap_or_else(|| panic!("{only:?}: {actions}"));
            assert_eq!(
                a.len(),
                1,
                "only the fix-all action for {only:?}: {actions:#}"
            );
            assert_eq!(a[0]["kind"], "source.fixAll.grounded");
            let edits = a[0]["edit"]["changes"][&u].as_array().unwrap().clone();
            assert_eq!(edits.len(), 1, "one edit of the document: {edits:#?}");
            let fixed = apply_edits(text, &edits);
            assert_eq!(
                fixed,
                cli_fixed(name, text),
                "{name}: server and CLI differ"
            );
            assert!(
                fixed.contains("var VAT_RATE") && !fixed.contains("tableCellEnd"),
                "{fixed}"
            );
            assert!(
                fixed.contains("layout.tableSomething();"),
                "never a pick among names"
            );
        }
        // Only quick fixes asked: no source action among them.
        let quick = fix_all(&mut lsp, &u, &["quickfix"]);
        let kinds: Vec<&Value> = quick
            .as_array()
            .map(|a| a.iter().map(|x| &x["kind"]).collect())
            .unwrap_or_default();
        assert!(kinds.iter().all(|k| *k == "quickfix"), "{quick:#}");
    }
    // Known-good: a clean buffer has nothing to fix.
    let u = open_and_wait(&mut lsp, dir.path(), "good.js", GOOD_JS);
    assert_eq!(fix_all(&mut lsp, &u, &["source.fixAll"]), Value::Null);
    assert!(lsp.alive());
    lsp.shutdown();
}

#[test]
fn fix_all_that_would_bring_a_new_finding_offers_nothing() {
    let dir = project(&demo_corpus(), &[]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = open_and_wait(
        &mut lsp,
        dir.path(),
        "gain.js",
        "layout.paragraph(\"x\");\nlayout.tableEn();\n",
    );
    assert_eq!(
        fix_all(&mut lsp, &u, &["source.fixAll.grounded"]),
        Value::Null
    );
    assert!(lsp.alive());
    lsp.shutdown();
}

/// Issue 46: a near name is an unsafe fix even when it is the only one: offered as a
/// quick fix, never preferred, and never applied by fix-all (`layout.paragrap` →
/// `paragraph` and a function of an unrelated script were, at every save).
#[test]
fn fix_all_applies_only_safe_fixes_and_a_near_name_is_never_preferred() {
    let dir = project(
        &demo_corpus(),
        &[("other.js", b"function makeSelection() {}\n" as &[u8])],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let text = "layout.paragrap(\"x\");\nconst n = 1;\nmaskFromSelection();\n";
    let u = open_and_wait(&mut lsp, dir.path(), "a.js", text);
    let actions = fix_all(&mut lsp, &u, &["source.fixAll.grounded"]);
    let edits = actions[0]["edit"]["changes"][&u]
        .as_array()
        .unwrap_or_else(|| panic!("{actions:#}"))
        .clone();
    let fixed = apply_edits(text, &edits);
    // Known-good: the safe rewrite goes in; known-bad: the near names do not.
    assert_eq!(
        fixed,
        "layout.paragrap(\"x\");\nvar n = 1;\nmaskFromSelection();\n"
    );
    let quick = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u},
               "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 20}},
               "context": {"diagnostics": [], "only": ["quickfix"], "triggerKind": 1}}),
    );
    let by_title = |t: &str| -> Value {
        quick
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["title"] == t)
            .unwrap_or_else(|| panic!("no {t:?} in {quick:#}"))
            .clone()
    };
    assert_ne!(
        by_title("Replace with `paragraph`")["isPreferred"],
        json!(true)
    );
    assert_ne!(
        by_title("Replace with `makeSelection`")["isPreferred"],
        json!(true)
    );
    assert_eq!(
        by_title("Change `const` to `var`")["isPreferred"],
        json!(true)
    );
    assert!(lsp.alive());
    lsp.shutdown();
}
