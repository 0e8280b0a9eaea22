//! Issue 41 in the editor: the server applies ignore comments and `[check]` as
//! `grounded check` does, and offers *Ignore `CODE` on this line*, *Ignore `CODE` in
//! this file* and *Remove the unused ignore*, each applied as an editor applies it and
//! re-checked by the real server over stdio, in `.js`, `.jsx` and Markdown.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn start(extra_toml: &str, files: &[(&str, &[u8])]) -> (tempfile::TempDir, Lsp) {
    let dir = project(&demo_corpus(), files);
    let toml = dir.path().join("grounded.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(extra_toml);
    std::fs::write(toml, text).unwrap();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    (dir, lsp)
}

fn codes(d: &[Value]) -> Vec<&str> {
    d.iter().filter_map(|d| d["code"].as_str()).collect()
}

/// Applies the action titled `title` (a prefix) offered for the first diagnostic of
/// `code`, sends the new text as version 2, and returns it with its diagnostics.
fn act(lsp: &mut Lsp, uri: &str, text: &str, code: &str, title: &str) -> (String, Vec<Value>) {
    let before = lsp.diagnostics_where(uri, Some(1), |d| d.iter().any(|d| d["code"] == code));
    let target = before.iter().find(|d| d["code"] == code).unwrap().clone();
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": target["range"],
               "context": {"diagnostics": [target]}}),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["title"].as_str()).collect())
        .unwrap_or_default();
    let action = actions
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|x| x["title"].as_str().is_some_and(|t| t.starts_with(title)))
        })
        .unwrap_or_else(|| panic!("no action {title:?} among {titles:?}"))
        .clone();
    assert_eq!(action["kind"], "quickfix");
    let edits = action["edit"]["changes"][uri].as_array().unwrap().clone();
    let fixed = apply_edits(text, &edits);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let after = lsp.diagnostics_where(uri, Some(2), |_| true);
    (fixed, after)
}

#[test]
fn ignore_on_this_line_goes_above_at_its_indentation() {
    let text = "function row() {\n    layout.tableCellEnd();\n}\nmissing();\n";
    let (dir, mut lsp) = start("", &[("a.js", text.as_bytes())]);
    let uri = uri(&dir.path().join("a.js"));
    lsp.open(&uri, text);
    let (fixed, after) = act(
        &mut lsp,
        &uri,
        text,
        "member",
        "Ignore `member` on this line",
    );
    assert_eq!(
        fixed,
        "function row() {\n    // grounded-ignore member\n    layout.tableCellEnd();\n}\nmissing();\n"
    );
    // The member is silenced; the other finding stays; the new comment is used.
    assert_eq!(codes(&after), ["function"], "{after:#?}");
    lsp.shutdown();
}

#[test]
fn ignore_in_this_file_goes_at_the_top_in_jsx_and_markdown() {
    let jsx = "function Row() {\n    return <div>{layout.tableCellEnd()}</div>;\n}\n";
    let md = "# Notes\n\n```js\nlayout.tableCellEnd();\n```\n";
    let (dir, mut lsp) = start("", &[("b.jsx", jsx.as_bytes()), ("c.md", md.as_bytes())]);
    let jsx_uri = uri(&dir.path().join("b.jsx"));
    lsp.open(&jsx_uri, jsx);
    let (fixed, after) = act(
        &mut lsp,
        &jsx_uri,
        jsx,
        "member",
        "Ignore `member` in this file",
    );
    assert!(
        fixed.starts_with("// grounded-ignore-file member\nfunction Row()"),
        "{fixed}"
    );
    assert!(codes(&after).is_empty(), "{after:#?}");
    let md_uri = uri(&dir.path().join("c.md"));
    lsp.open(&md_uri, md);
    let (fixed, after) = act(
        &mut lsp,
        &md_uri,
        md,
        "member",
        "Ignore `member` in this file",
    );
    assert!(
        fixed.starts_with("<!-- grounded-ignore-file member -->\n# Notes"),
        "{fixed}"
    );
    assert!(codes(&after).is_empty(), "{after:#?}");
    lsp.shutdown();
}

#[test]
fn ignore_on_this_line_in_a_markdown_block() {
    let md = "# Notes\n\n```js\nlayout.tableCellEnd();\n```\n";
    let (dir, mut lsp) = start("", &[("c.md", md.as_bytes())]);
    let u = uri(&dir.path().join("c.md"));
    lsp.open(&u, md);
    let (fixed, after) = act(&mut lsp, &u, md, "member", "Ignore `member` on this line");
    assert_eq!(
        fixed,
        "# Notes\n\n```js\n// grounded-ignore member\nlayout.tableCellEnd();\n```\n"
    );
    assert!(codes(&after).is_empty(), "{after:#?}");
    lsp.shutdown();
}

#[test]
fn remove_the_unused_ignore() {
    let text = "var t = new Table();\n    // grounded-ignore member: was needed once\nlayout.tableStart(t);\nlayout.tableEnd();\n";
    let (dir, mut lsp) = start("", &[("a.js", text.as_bytes())]);
    let u = uri(&dir.path().join("a.js"));
    lsp.open(&u, text);
    let (fixed, after) = act(&mut lsp, &u, text, "ignore", "Remove the unused ignore");
    assert_eq!(
        fixed,
        "var t = new Table();\nlayout.tableStart(t);\nlayout.tableEnd();\n"
    );
    assert!(codes(&after).is_empty(), "{after:#?}");
    // The misspelt code is corrected to the near one, which then silences the call.
    let text = "layout.tableCellEnd(); // grounded-ignore membr\n";
    lsp.open(&uri(&dir.path().join("b.js")), text);
    let bu = uri(&dir.path().join("b.js"));
    let (fixed, after) = act(&mut lsp, &bu, text, "ignore", "Replace with `member`");
    assert_eq!(fixed, "layout.tableCellEnd(); // grounded-ignore member\n");
    assert!(codes(&after).is_empty(), "{after:#?}");
    lsp.shutdown();
}

#[test]
fn the_check_table_holds_in_the_editor() {
    let toml = "[check]\nseverity = { member = \"hint\" }\nexclude = [\"vendor/**\"]\n\n[[check.overrides]]\nfiles = [\"legacy/**\"]\nignore = [\"function\"]\n";
    let bad = "layout.tableCellEnd();\nmissing();\n";
    let (dir, mut lsp) = start(
        toml,
        &[
            ("a.js", bad.as_bytes()),
            ("vendor/v.js", bad.as_bytes()),
            ("legacy/old.js", bad.as_bytes()),
        ],
    );
    let a = uri(&dir.path().join("a.js"));
    lsp.open(&a, bad);
    let d = lsp.diagnostics_where(&a, Some(1), |d| !d.is_empty());
    assert_eq!(codes(&d), ["member", "function"]);
    assert_eq!(d[0]["severity"], 4, "hint");
    assert_eq!(d[1]["severity"], 1);
    let v = uri(&dir.path().join("vendor/v.js"));
    lsp.open(&v, bad);
    let d = lsp.diagnostics_where(&v, Some(1), |_| true);
    assert!(d.is_empty(), "excluded: {d:#?}");
    let l = uri(&dir.path().join("legacy/old.js"));
    lsp.open(&l, bad);
    let d = lsp.diagnostics_where(&l, Some(1), |_| true);
    assert_eq!(codes(&d), ["member"]);
    lsp.shutdown();
}

/// The lines `grounded check --format json` reports for `file` in `dir`, with codes.
fn check_lines(dir: &std::path::Path, file: &str) -> Vec<(u64, String)> {
    let out = std::process::Command::new(bin())
        .args(["check", "--format", "json", file])
        .current_dir(dir)
        .output()
        .unwrap();
    let v: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v.iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_baseline_of_the_check_table_holds_in_the_editor() {
    // Recorded today: two findings. Then a line is added above them and a new mistake
    // typed, with a second copy of a recorded line: the editor shows the new mistake and
    // the second copy, as `grounded check` does, and not the recorded two.
    let old = "layout.tableCellEnd();\nmissing();\n";
    let (dir, lsp) = start("", &[("a.js", old.as_bytes())]);
    let out = std::process::Command::new(bin())
        .args(["check", "--write-baseline", "base.json", "a.js"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toml = dir.path().join("grounded.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("\n[check]\nbaseline = \"base.json\"\n");
    std::fs::write(&toml, text).unwrap();
    lsp.shutdown();
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));

    let new =
        "var x = 1;\nlayout.tableRowEndd();\nlayout.tableCellEnd();\nmissing();\nmissing();\n";
    std::fs::write(dir.path().join("a.js"), new).unwrap();
    let a = uri(&dir.path().join("a.js"));
    lsp.open(&a, new);
    let d = lsp.diagnostics_where(&a, Some(1), |d| !d.is_empty());
    let shown: Vec<(u64, String)> = d
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [(2, "member".to_string()), (5, "function".to_string())],
        "{d:#?}"
    );
    assert_eq!(
        shown,
        check_lines(dir.path(), "a.js"),
        "the editor shows what check prints"
    );

    // Known-bad: without the baseline key both recorded findings come back.
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text = text.replace("baseline = \"base.json\"\n", "");
    std::fs::write(&toml, text).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&toml), "type": 2}]}),
    );
    lsp.change(&a, 2, [0, 0, 0, 0], " ");
    let d = lsp.diagnostics_where(&a, Some(2), |d| d.len() == 4);
    assert_eq!(codes(&d), ["member", "member", "function", "function"]);
    lsp.shutdown();
}
