//! A UTF-8 byte-order mark is not part of the script: directives after it are
//! directives, every family reads the text after it, and columns count from the first
//! character an editor shows. Through the real binary: `check` in every output format
//! for `.js`, `.jsx` and Markdown, and the language server.

use crate::common;

use std::path::Path;

use common::atlas::{array, write, API};
use common::*;
use serde_json::{json, Value};

const BOM: &str = "\u{feff}";

/// Atlas with `.js` scripts too and every directive form an engine may declare.
const ENGINE: &str = "# Engine\n\nECMAScript: 3\nScript extensions: .js .jsx\nDirectives: #target #targetengine #include #includepath #strict\n";

/// Each directive form: a bare word, a quoted argument (both quotes), none.
const DIRECTIVES: &[&str] = &[
    "#target atlas",
    "#targetengine \"main\"",
    "#include \"lib/util.jsx\"",
    "#include 'lib/util.jsx'",
    "#includepath \"lib\"",
    "#strict",
];

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/engine.md", ENGINE);
    write(dir.path(), "docs/api.md", API);
    write(dir.path(), "grounded.toml", "docs = \"docs\"\n");
    write(
        dir.path(),
        "lib/util.jsx",
        "function util() {\n    return 1;\n}\n",
    );
    dir
}

/// `(line, column, code)` of each finding of `grounded check --format json FILE`.
fn found(root: &Path, file: &str) -> Vec<(u64, u64, String)> {
    lines_and_codes(&array(root, &["check", "--format", "json", file]))
}

#[test]
fn directives_after_a_mark_are_directives_in_js_and_jsx() {
    let dir = project();
    for ext in ["js", "jsx"] {
        for d in DIRECTIVES {
            let body = format!("{d}\nutil();\nnet.requst(\"u\");\n");
            let plain = format!("plain.{ext}");
            let marked = format!("marked.{ext}");
            write(dir.path(), &plain, &body);
            write(dir.path(), &marked, &format!("{BOM}{body}"));
            let want = vec![(3, 5, "member".to_string())];
            assert_eq!(found(dir.path(), &plain), want, "{ext} {d}");
            assert_eq!(found(dir.path(), &marked), want, "{ext} {d} after a mark");
        }
    }
    // An include's file check reads the argument after the mark, at the editor's column.
    write(
        dir.path(),
        "inc.jsx",
        &format!("{BOM}#include \"lib/gone.jsx\"\n"),
    );
    assert_eq!(
        found(dir.path(), "inc.jsx"),
        vec![(1, 10, "file".to_string())]
    );
}

#[test]
fn columns_of_the_first_line_count_from_the_first_shown_character() {
    let dir = project();
    write(
        dir.path(),
        "first.js",
        &format!("{BOM}net.requst(\"u\");\n"),
    );
    assert_eq!(
        found(dir.path(), "first.js"),
        vec![(1, 5, "member".to_string())]
    );
    let human = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "first.js"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("first.js:1:5"), "{text}");
    let sarif = common::atlas::json(dir.path(), &["check", "--format", "sarif", "first.js"]);
    let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 1, "{sarif:#}");
    assert_eq!(region["startColumn"], 5, "{sarif:#}");
    // The fix replaces the name the editor shows there.
    let fs = array(dir.path(), &["check", "--format", "json", "first.js"]);
    assert_eq!(fs[0]["fixes"][0]["edits"][0]["column"], 5);
}

#[test]
fn markdown_after_a_mark_opens_its_first_fence() {
    let dir = project();
    let page = "```js\nnet.requst(\"u\");\n```\n\nText.\n\n```js\n#target atlas\nutil();\n```\n";
    write(dir.path(), "plain.md", page);
    write(dir.path(), "marked.md", &format!("{BOM}{page}"));
    let want = vec![(2, 5, "member".to_string())];
    assert_eq!(found(dir.path(), "plain.md"), want);
    assert_eq!(found(dir.path(), "marked.md"), want);
}

/// A client that sends the mark in its buffer counts it in its positions (the
/// protocol's coordinates are the buffer's); one that hides it, as editors do, sends
/// none. A file read from disk is read as the editor will show it.
#[test]
fn the_server_reads_after_the_mark() {
    let dir = project();
    let main =
        format!("{BOM}#target atlas\n#include \"lib/util.jsx\"\nnet.requst(\"u\");\nutil();\n");
    write(dir.path(), "main.jsx", &main);
    write(
        dir.path(),
        "lib/marked.jsx",
        &format!("{BOM}function helper() {{\n    return 2;\n}}\n"),
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("main.jsx"));
    lsp.open(&u, &main);
    let d = lsp.diagnostics_where(&u, Some(1), |d| !d.is_empty());
    let codes: Vec<&Value> = d.iter().map(|x| &x["code"]).collect();
    assert_eq!(codes, vec!["member"], "{d:#?}");
    assert_eq!(d[0]["range"]["start"], json!({"line": 2, "character": 4}));

    // On the first line, the client's positions count the mark it sent.
    let first = format!("{BOM}net.requst(\"u\");\nloadScript(\"lib/marked.jsx\");\nhelper();\n");
    let f = uri(&dir.path().join("first.jsx"));
    write(dir.path(), "first.jsx", &first);
    lsp.open(&f, &first);
    let d = lsp.diagnostics_where(&f, Some(1), |d| !d.is_empty());
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["range"]["start"], json!({"line": 0, "character": 5}));
    // An edit at those positions lands where the client meant it.
    lsp.change(&f, 2, [0, 5, 0, 11], "request");
    let d = lsp.diagnostics_where(&f, Some(2), |_| true);
    assert!(d.is_empty(), "{d:#?}");
    // A file read from disk: its mark is no column.
    let def = lsp.request("textDocument/definition", at(&f, &first, "helper();", 1));
    assert!(
        def["uri"]
            .as_str()
            .unwrap_or_default()
            .ends_with("lib/marked.jsx"),
        "{def}"
    );
    assert_eq!(def["range"]["start"], json!({"line": 0, "character": 9}));

    // A `.js` buffer with the mark and a directive.
    let js = format!("{BOM}#strict\nnet.requst(\"u\");\n");
    let j = uri(&dir.path().join("plain.js"));
    write(dir.path(), "plain.js", &js);
    lsp.open(&j, &js);
    let d = lsp.diagnostics_where(&j, Some(1), |d| !d.is_empty());
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["range"]["start"], json!({"line": 1, "character": 4}));

    // A Markdown buffer with the mark.
    let md = format!("{BOM}```js\nnet.requst(\"u\");\n```\n");
    let m = uri(&dir.path().join("page.md"));
    write(dir.path(), "page.md", &md);
    lsp.open(&m, &md);
    let d = lsp.diagnostics_where(&m, Some(1), |d| !d.is_empty());
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["range"]["start"], json!({"line": 1, "character": 4}));
    lsp.shutdown();
}

/// The dry run runs the script after the mark: its `#include` loads the file, and a
/// name that file declares is found.
#[test]
fn the_dry_run_reads_after_the_mark() {
    let dir = project();
    write(
        dir.path(),
        "main.jsx",
        &format!("{BOM}#target atlas\n#include \"lib/util.jsx\"\nlog(util());\n"),
    );
    let fs = array(dir.path(), &["dry-run", "--format", "json"]);
    assert!(fs.is_empty(), "{fs:#?}");
    // The same run accuses what is wrong after the mark, on the editor's column.
    write(
        dir.path(),
        "main.jsx",
        &format!("{BOM}net.requst(\"u\");\n"),
    );
    let fs = array(dir.path(), &["dry-run", "--format", "json"]);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!(
        (fs[0]["line"].clone(), fs[0]["column"].clone()),
        (json!(1), json!(5))
    );
}
