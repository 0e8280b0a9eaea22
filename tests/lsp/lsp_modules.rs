//! Modules in the editor (issue 44), through the real server over stdio on the Relay
//! demo's corpus: hover, definition and completion on import bindings, completion of
//! module names in a specifier string and of exports inside `import { }`, and the quick
//! fix of an unknown module.

use std::path::PathBuf;

use crate::common::*;
use serde_json::{json, Value};

fn relay() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/relay")
        .to_string_lossy()
        .into_owned()
}

fn hover_text(h: &Value) -> String {
    h["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn position(text: &str, needle: &str, delta: u32) -> Value {
    let (line, col) = pos_of(text, needle);
    json!({"line": line, "character": col + delta})
}

#[test]
fn hover_definition_and_completion_know_import_bindings() {
    let text = "import { find, hub } from \"relay/devices\";\nimport * as net from \"relay/net\";\nimport { rooms } from \"./lib.js\";\n\
                find(\"a\").turnOn();\nnet.get(\"u\").status;\nrooms();\n";
    let dir = project(
        &relay(),
        &[
            ("s.js", text.as_bytes()),
            ("lib.js", b"export function rooms() { return 1; }\n"),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, text);
    let diags = lsp.diagnostics_where(&u, Some(1), |_| true);
    assert!(diags.is_empty(), "{diags:#?}");

    // Hover on a named import's use: the export's signature from the docs.
    let h = lsp.request("textDocument/hover", at(&u, text, "find(\"a\")", 1));
    let md = hover_text(&h);
    assert!(
        md.contains("Export `find` of module \"relay/devices\""),
        "{md}"
    );
    assert!(md.contains("find(name: string): Device"), "{md}");
    // On a namespace binding: the module's interface.
    let h = lsp.request("textDocument/hover", at(&u, text, "net.get", 1));
    assert!(
        hover_text(&h).contains("Module \"relay/net\": `Net`"),
        "{h}"
    );
    // On the specifier: the module and its exports.
    let h = lsp.request("textDocument/hover", at(&u, text, "relay/net", 2));
    let md = hover_text(&h);
    assert!(
        md.contains("module \"relay/net\": Net") && md.contains("`post`"),
        "{md}"
    );

    // Definition of a named import: the export's chunk in the corpus.
    let d = lsp.request("textDocument/definition", at(&u, text, "find(\"a\")", 1));
    assert!(
        d["uri"]
            .as_str()
            .unwrap_or_default()
            .ends_with("corpus/relay/modules.md"),
        "{d}"
    );
    let doc = std::fs::read_to_string(PathBuf::from(relay()).join("modules.md")).unwrap();
    let line = doc.lines().position(|l| l == "## Devices-find").unwrap();
    assert_eq!(d["range"]["start"]["line"], json!(line), "{d}");
    // Of a relative specifier: the project file.
    let d = lsp.request("textDocument/definition", at(&u, text, "./lib.js", 2));
    assert!(
        d["uri"].as_str().unwrap_or_default().ends_with("/lib.js"),
        "{d}"
    );

    // Completion after a namespace binding's dot: the module's exports.
    let last = text.matches('\n').count() as u32;
    lsp.change(&u, 2, [last, 0, last, 0], "net.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": {"line": last, "character": 4}}),
    );
    let l = labels(&items);
    assert!(
        l.contains(&"get".to_string()) && l.contains(&"post".to_string()),
        "{l:?}"
    );
    // After a call of a named import: the documented return's members.
    lsp.change(&u, 3, [last, 0, last, 4], "find(\"x\").");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": {"line": last, "character": 10}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"turnOn".to_string()), "{l:?}");
    lsp.shutdown();
}

#[test]
fn completion_offers_module_names_in_a_specifier_and_exports_in_braces() {
    let dir = project(&relay(), &[("s.js", b"")]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    let text =
        "import x from \"rel\";\nconst y = require(\"re\");\nimport {  } from \"relay/devices\";\n";
    lsp.open(&u, text);
    for (needle, delta) in [("\"rel\"", 4), ("\"re\")", 3)] {
        let items = lsp.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": u}, "position": position(text, needle, delta)}),
        );
        let l = labels(&items);
        for m in ["relay", "relay/devices", "relay/net"] {
            assert!(l.contains(&m.to_string()), "{needle}: {m}: {l:?}");
        }
    }
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": position(text, "{  }", 2)}),
    );
    let l = labels(&items);
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(
        l.contains(&"find".to_string()) && l.contains(&"hub".to_string()),
        "{l:?}"
    );
    lsp.shutdown();
}

#[test]
fn an_unknown_module_has_a_quick_fix_to_the_near_one() {
    let text = "import * as net from \"relay/nett\";\nnet.get(\"u\");\n";
    let dir = project(&relay(), &[("s.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, text);
    let d = lsp.diagnostics_where(&u, Some(1), |d| d.iter().any(|d| d["code"] == "module"));
    let target = d.iter().find(|d| d["code"] == "module").unwrap().clone();
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": target["range"],
               "context": {"diagnostics": [target]}}),
    );
    let action = actions
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|x| x["title"] == "Replace with \"relay/net\"")
        })
        .unwrap_or_else(|| panic!("{actions:#}"))
        .clone();
    let edits = action["edit"]["changes"][&u].as_array().unwrap().clone();
    let fixed = apply_edits(text, &edits);
    assert!(
        fixed.starts_with("import * as net from \"relay/net\";"),
        "{fixed}"
    );
    lsp.change(&u, 2, [0, 0, 2, 0], &fixed);
    let after = lsp.diagnostics_where(&u, Some(2), |_| true);
    assert!(after.is_empty(), "{after:#?}");
    lsp.shutdown();
}

/// A binding imported from a project file is typed as that file types its export, in
/// the editor too, and stays so through the re-check of one statement (nested in a
/// function, and at the top level) that follows a keystroke.
#[test]
fn a_binding_imported_from_a_project_file_is_typed_through_edits() {
    let text = "import { lamp } from \"./lib.js\";\nfunction go() {\n  lamp.turnOn();\n}\nlamp.nmae;\ngo();\n";
    let dir = project(
        &relay(),
        &[
            ("s.js", text.as_bytes()),
            (
                "lib.js",
                b"import { find } from \"relay/devices\";\nexport const lamp = find(\"lamp\");\n",
            ),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, text);
    let msgs = |d: &[Value]| -> Vec<String> {
        d.iter()
            .map(|x| x["message"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let d = lsp.diagnostics_where(&u, Some(1), |_| true);
    let m = msgs(&d);
    assert!(
        m.len() == 1 && m[0].contains("`Device` has no member `nmae`"),
        "{m:#?}"
    );
    // `turnOn` → `trnOn` inside the function.
    lsp.change(&u, 2, [2, 7, 2, 9], "t");
    let d = lsp.diagnostics_where(&u, Some(2), |_| true);
    let m = msgs(&d);
    assert_eq!(m.len(), 2, "{m:#?}");
    assert!(m.iter().any(|x| x.contains("no member `trnOn`")), "{m:#?}");
    // `nmae` → `name` at the top level.
    lsp.change(&u, 3, [4, 5, 4, 9], "name");
    let d = lsp.diagnostics_where(&u, Some(3), |_| true);
    let m = msgs(&d);
    assert!(m.len() == 1 && m[0].contains("no member `trnOn`"), "{m:#?}");
    lsp.shutdown();
}

/// Definition on a relative `require` leads where the checker's `resolve_require` does:
/// in Photoshop UXP, `ui/js/main.js`'s `"./modules/util.js"` is the plug-in's
/// `modules/util.js`, a folder above the script's; an ES `import` of the same name keeps
/// the script's folder, and a name no folder resolves leads nowhere.
#[test]
fn definition_on_a_require_finds_the_file_a_folder_above_names() {
    let text = "const util = require(\"./modules/util.js\");\nconst gone = require(\"./modules/nowhere.js\");\nutil.lamp();\n";
    let esm = "import { lamp } from \"./modules/util.js\";\nlamp();\n";
    let dir = project(
        &relay(),
        &[
            ("plugin/ui/js/main.js", text.as_bytes()),
            ("plugin/ui/js/esm.js", esm.as_bytes()),
            (
                "plugin/modules/util.js",
                b"exports.lamp = function () { return 1; };\n",
            ),
        ],
    );
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("plugin/ui/js/main.js"));
    lsp.open(&u, text);
    let d = lsp.request(
        "textDocument/definition",
        at(&u, text, "./modules/util.js", 2),
    );
    assert!(
        d["uri"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/plugin/modules/util.js"),
        "{d}"
    );
    let d = lsp.request(
        "textDocument/definition",
        at(&u, text, "./modules/nowhere.js", 2),
    );
    assert!(d.is_null(), "{d}");
    // An ES import starts at the script's folder only: nothing there.
    let e = uri(&dir.path().join("plugin/ui/js/esm.js"));
    lsp.open(&e, esm);
    let d = lsp.request(
        "textDocument/definition",
        at(&e, esm, "./modules/util.js", 2),
    );
    assert!(d.is_null(), "{d}");
    // Two folders giving two files: which one loads is not certain, no answer.
    std::fs::create_dir_all(dir.path().join("plugin/ui/modules")).unwrap();
    std::fs::write(
        dir.path().join("plugin/ui/modules/util.js"),
        "exports.lamp = function () { return 2; };\n",
    )
    .unwrap();
    let d = lsp.request(
        "textDocument/definition",
        at(&u, text, "./modules/util.js", 2),
    );
    assert!(d.is_null(), "{d}");
    lsp.shutdown();
}

/// A class a module engine hands scripts through a member (`const SolidColor =
/// require("photoshop").app.SolidColor; new SolidColor()`, issue 44) stays typed
/// through keystrokes the server re-checks alone (a line of a function, a top-level
/// statement), and what the server publishes is what `grounded check` says of the
/// same text.
#[test]
fn new_of_a_class_a_member_holds_is_typed_through_keystrokes() {
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(
        docs.path().join("paint.md"),
        "# Engine\n\nECMAScript: 2017\n\nModules: commonjs\n\n# Paint\n\nModule: \"paint\"\n\n\
         ## Paint-app\n\nSyntax: readonly app: Studio\n\n# Studio\n\n## Studio-Color\n\nSyntax: Color: Function\n\n\
         # Color\n\nConstructor: new Color()\n\n## Color-rgb\n\nSyntax: readonly rgb: RGB\n\n\
         # RGB\n\n## RGB-red\n\nSyntax: red: number\n",
    )
    .unwrap();
    let text = "const Color = require(\"paint\").app.Color;\nfunction f() {\n  new Color().rgb.red = 1;\n}\nnew Color().rgb.red = 2;\nf();\n";
    let dir = project(&docs.path().to_string_lossy(), &[("s.js", text.as_bytes())]);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    let u = uri(&dir.path().join("s.js"));
    lsp.open(&u, text);
    let shown = |d: &[Value]| -> Vec<String> {
        d.iter()
            .map(|x| {
                format!(
                    "{}:{} {}",
                    x["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                    x["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
                    x["message"].as_str().unwrap_or_default()
                )
            })
            .collect()
    };
    assert_eq!(
        shown(&lsp.diagnostics_where(&u, Some(1), |_| true)),
        Vec::<String>::new()
    );
    // `rgb` → `rgbQ` inside the function, then at the top level.
    lsp.change(&u, 2, [2, 17, 2, 17], "Q");
    let m = shown(&lsp.diagnostics_where(&u, Some(2), |_| true));
    assert!(
        m.len() == 1 && m[0].starts_with("3:15 `Color` has no member `rgbQ`"),
        "{m:#?}"
    );
    lsp.change(&u, 3, [4, 15, 4, 15], "Q");
    let m = shown(&lsp.diagnostics_where(&u, Some(3), |_| true));
    assert_eq!(m.len(), 2, "{m:#?}");
    // The command line on the same text says the same.
    let edited = text.replacen(".rgb.", ".rgbQ.", 2);
    std::fs::write(dir.path().join("s.js"), &edited).unwrap();
    let out = grounded_in(dir.path(), &["check", "--format", "json", "s.js"]);
    let fresh: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let fresh: Vec<String> = fresh
        .iter()
        .map(|f| {
            format!(
                "{}:{} {}",
                f["line"],
                f["column"],
                f["message"].as_str().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(m, fresh);
    lsp.shutdown();
}
