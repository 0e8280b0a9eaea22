//! `Global members: yes` (corpus-format.md): an interface whose members scripts use with
//! no receiver. Through the real binary: the checker, the dry run, `grounded corpus`,
//! and the server's hover, completion and definition. Atlas's corpus plus
//! `common::atlas::APP`; nothing of the engine is in the code.

use crate::common;

use std::path::Path;

use common::atlas::{array, write, APP, ENGINE};
use common::*;
use serde_json::{json, Value};

/// Real usage of such an engine: every name here is a member of the application
/// interface, read, called and written with no receiver.
const GOOD: &str = r#"var layer = activeDocument.activeLayer.name;
var d = new ActionDescriptor();
d.putString(charIDToTypeID("Nm  "), "x");
executeAction(charIDToTypeID("Opn "), d);
executeAction(stringIDToTypeID("open"), d, 3);
var result = executeActionGet(null);
var doc = documents.add();
doc.activeLayer.name = "Top";
preferences.rulerUnits = 1;
var first = documents[0].name;
activeDocument = documents[0];
"#;

/// A project of Atlas with the application interface (`app.md`), or without its
/// `Global members: yes` line.
fn project(marked: bool) -> tempfile::TempDir {
    let dir = common::atlas::project(ENGINE);
    let app = if marked {
        APP.to_string()
    } else {
        APP.replace("Global members: yes\n", "")
    };
    write(dir.path(), "docs/app.md", &app);
    dir
}

fn check(root: &Path, files: &[&str]) -> Vec<Value> {
    let mut args = vec!["check", "--format", "json"];
    args.extend(files);
    array(root, &args)
}

fn codes(fs: &[Value]) -> Vec<String> {
    fs.iter()
        .map(|f| format!("{}:{} {}", f["line"], f["code"], f["message"]))
        .collect()
}

/// The first fix's replacement text.
fn fix_text(f: &Value) -> &str {
    f["fixes"][0]["edits"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn members_are_globals_when_the_interface_says_so() {
    let dir = project(true);
    write(dir.path(), "good.jsx", GOOD);
    assert_eq!(
        codes(&check(dir.path(), &["good.jsx"])),
        Vec::<String>::new()
    );
    // The line is what makes them globals: without it every one is accused.
    let bare = project(false);
    write(bare.path(), "good.jsx", GOOD);
    let fs = check(bare.path(), &["good.jsx"]);
    let c = codes(&fs);
    assert!(
        c.iter()
            .any(|f| f.contains("`documents` is declared nowhere")),
        "{c:?}"
    );
    assert!(
        c.iter()
            .any(|f| f.contains("`executeAction` is defined nowhere")),
        "{c:?}"
    );
    assert!(
        c.iter()
            .any(|f| f.contains("`preferences` is declared nowhere")),
        "{c:?}"
    );
}

#[test]
fn misspelt_members_are_reported_with_the_real_name() {
    let dir = project(true);
    write(
        dir.path(),
        "bad.jsx",
        "var n = activeDocumnt.activeLayer.name;\nvar d = new ActionDescriptor();\nexecuteActon(charIDToTypeID(\"Opn \"), d);\nvar l = activeDocument.activeLayr;\ndocuments.addd();\n",
    );
    let fs = check(dir.path(), &["bad.jsx"]);
    assert_eq!(fs.len(), 4, "{:#?}", codes(&fs));
    assert_eq!(fs[0]["code"], "object");
    assert!(
        fs[0]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `activeDocument`?"),
        "{}",
        fs[0]["message"]
    );
    assert_eq!(fix_text(&fs[0]), "activeDocument");
    assert_eq!(fs[1]["code"], "function");
    assert!(
        fs[1]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `executeAction`"),
        "{}",
        fs[1]["message"]
    );
    assert_eq!(fix_text(&fs[1]), "executeAction");
    // The bare name has the member's type: its own members are judged.
    assert_eq!(fs[2]["code"], "member");
    assert_eq!(fix_text(&fs[2]), "activeLayer");
    assert_eq!(fs[3]["code"], "member");
    assert_eq!(fix_text(&fs[3]), "add");
    // The suggestion's docs are the application interface's.
    assert_eq!(fs[0]["docs"]["path"], "docs/app.md", "{:#}", fs[0]);
}

#[test]
fn a_scripts_own_declaration_shadows_the_global() {
    let dir = project(true);
    write(
        dir.path(),
        "own.jsx",
        "var activeDocument = { title: 1 };\nvar t = activeDocument.title;\nfunction executeAction(a) { return a; }\nexecuteAction(1, 2, 3, 4, 5);\nfunction f(documents) { return documents.whatever; }\n",
    );
    assert_eq!(
        codes(&check(dir.path(), &["own.jsx"])),
        Vec::<String>::new()
    );
}

#[test]
fn the_dry_run_has_them_too() {
    let dir = project(true);
    write(dir.path(), "good.jsx", GOOD);
    let fs = array(
        dir.path(),
        &["check", "--dry-run", "--format", "json", "good.jsx"],
    );
    assert_eq!(codes(&fs), Vec::<String>::new());

    let dir = project(true);
    write(
        dir.path(),
        "one.jsx",
        "var n = activeDocumnt.activeLayer.name;\n",
    );
    write(
        dir.path(),
        "two.jsx",
        "var d = new ActionDescriptor();\nexecuteActon(charIDToTypeID(\"Opn \"), d);\n",
    );
    // Only the run: the static check would say the same of both.
    let fs = array(dir.path(), &["dry-run", "--format", "json"]);
    let c = codes(&fs);
    assert_eq!(fs.len(), 2, "{c:#?}");
    for (f, real) in fs.iter().zip(["activeDocument", "executeAction"]) {
        assert_eq!(f["code"], "dry-run", "{c:?}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains(&format!("did you mean `{real}`")),
            "{c:?}"
        );
        assert_eq!(fix_text(f), real);
    }
    // The run reaches an invented member through the global's value.
    let dir = project(true);
    write(
        dir.path(),
        "deep.jsx",
        "function name(o) { return o.activeLayr; }\nname(activeDocument);\n",
    );
    let fs = array(dir.path(), &["dry-run", "--format", "json"]);
    assert_eq!(fs.len(), 1, "{:#?}", codes(&fs));
    assert!(fs[0]["message"]
        .as_str()
        .unwrap()
        .contains("`Document` has no member `activeLayr`"));
}

#[test]
fn the_corpus_summary_names_the_interface() {
    let dir = project(true);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["corpus"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("global members of Application: its 7 members are global names"),
        "{text}"
    );
    let v = common::atlas::json(dir.path(), &["corpus", "--format", "json"]);
    assert_eq!(v["global_members"], json!(["Application"]));
    let bare = project(false);
    let v = common::atlas::json(bare.path(), &["corpus", "--format", "json"]);
    assert_eq!(v["global_members"], json!([]));
}

#[test]
fn hover_completion_and_definition_in_the_server() {
    let dir = project(true);
    let text =
        "var n = activeDocument.activeLayer.name;\nexecuteAction(charIDToTypeID(\"Opn \"));\n";
    write(dir.path(), "s.jsx", text);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.jsx"));
    lsp.open(&u, text);
    let diags = lsp.diagnostics_where(&u, Some(1), |_| true);
    assert!(diags.is_empty(), "{diags:#?}");

    // Hover on the bare name: the member, with its signature.
    let h = lsp.request("textDocument/hover", at(&u, text, "activeDocument", 2));
    let md = h["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("activeDocument: Document"), "{h}");
    let h = lsp.request("textDocument/hover", at(&u, text, "activeLayer", 2));
    let md = h["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("activeLayer: Layer"), "{h}");
    let h = lsp.request("textDocument/hover", at(&u, text, "charIDToTypeID", 2));
    let md = h["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("charIDToTypeID(charID: string): number"), "{h}");

    // Definition: the member's chunk in the corpus.
    let d = lsp.request("textDocument/definition", at(&u, text, "executeAction", 2));
    let target = d["uri"].as_str().unwrap_or_default();
    assert!(target.ends_with("docs/app.md"), "{d}");
    let app_line = APP
        .lines()
        .position(|l| l == "## Application-executeAction")
        .unwrap();
    assert_eq!(d["range"]["start"]["line"], json!(app_line), "{d}");

    // Completion: the members at a statement's start, and after the bare name's dot.
    let line = text.matches('\n').count() as u32;
    lsp.change(&u, 2, [line, 0, line, 0], "activeDocument.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 15}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"activeLayer".to_string()), "{l:?}");
    assert!(!l.contains(&"rulerUnits".to_string()), "{l:?}");
    lsp.change(&u, 3, [line, 0, line, 15], "exec");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 4}}),
    );
    let l = labels(&items);
    for name in [
        "executeAction",
        "executeActionGet",
        "activeDocument",
        "documents",
    ] {
        assert!(l.contains(&name.to_string()), "{name}: {l:?}");
    }
    lsp.shutdown();
}
