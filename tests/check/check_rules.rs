//! The four rules of the contract that keep judged receivers honest (interfaces.md,
//! "What is judged", "Projects and Markdown"; corpus-format.md, "Interface chunk"):
//! documented sub-interfaces, guards of members, loose member names, project globals;
//! and one mistake, one finding (lines a parse error swallowed, the project's own
//! objects after `new`). Each rule has a known-good script (silent) and a known-bad one
//! (exactly these findings), as `.js`, `.jsx` and fenced Markdown, through the real
//! binary; then the server (diagnostics, hover, completion, definition).

use crate::common;

use common::atlas::{array, write};
use common::{at, labels, uri, Lsp};
use serde_json::{json, Value};

const ENGINE: &str = "# Engine\n\nECMAScript: 3\nScript extensions: .js .jsx\n";

/// An image editor's application (a global), a layer family where the docs type
/// `activeLayer` by the general interface, an enumeration with loose member names.
const API: &str = r#"# Global

## Global-log

Syntax: log(message: any): void

# Application

This object is accessed using the global property "app".

## Application-activeLayer

Syntax: activeLayer: Layer

## Application-version

Syntax: version: string

# Layer

Constructor: new Layer()

## Layer-name

Syntax: name: string

# ArtLayer

Parent interface: Layer

## ArtLayer-kind

Syntax: kind: number

## ArtLayer-rasterize

Syntax: rasterize(): void

# RulerOrigin

The origin of the rulers. This object is accessed using the global property "RulerOrigin".

Loose member names: yes

## RulerOrigin-PAGE_ORIGIN

Syntax: readonly PAGE_ORIGIN: number

## RulerOrigin-SPREAD_ORIGIN

Syntax: readonly SPREAD_ORIGIN: number

# Sheet

Constructor: new Sheet()

## Sheet-name

Syntax: name: string
"#;

/// The project: corpus, and `grounded.toml` with its globals (`app` is documented:
/// the docs win).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/engine.md", ENGINE);
    write(dir.path(), "docs/api.md", API);
    write(
        dir.path(),
        "grounded.toml",
        "docs = \"docs\"\nglobals = [\"TaskSyncLib\", \"Bigquery\", \"app\"]\n",
    );
    dir
}

struct Rule {
    name: &'static str,
    good: &'static str,
    bad: &'static str,
    want: &'static [(&'static str, u64)],
}

const RULES: &[Rule] = &[
    Rule {
        name: "sub-interfaces",
        good: "var k = app.activeLayer.kind;\napp.activeLayer.rasterize();\nlog(app.activeLayer.name);\n",
        bad: "app.activeLayer.bogus();\nvar k = app.activeLayer.knd;\nvar made = new Layer();\nmade.rasterize();\n",
        want: &[("member", 1), ("member", 2), ("member", 4)],
    },
    Rule {
        name: "member-guards",
        good: "if (typeof app.vignetteKey !== \"undefined\" && app.vignetteKey !== null) {\n    log(app.vignetteKey);\n}\nif (\"gamma\" in app) {\n    log(app.gamma);\n}\nvar d = app.delta && app.delta.x;\nfunction key() {\n    if (typeof app.sigma === \"undefined\") return null;\n    return app.sigma;\n}\nvar v = app.omega ? app.omega : 0;\n",
        bad: "var d = typeof app.a !== \"undefined\" && app.b;\nif (app.c) {\n    log(app.e);\n}\nif (app.f == 3) {\n    log(1);\n}\nfunction key() {\n    if (typeof app.g === \"undefined\") return null;\n    return 1;\n}\nlog(app.g);\n",
        want: &[("member", 1), ("member", 3), ("member", 5), ("member", 12)],
    },
    Rule {
        name: "loose-names",
        good: "var o = RulerOrigin.pageOrigin;\nvar p = RulerOrigin.PAGE_ORIGIN;\nvar q = RulerOrigin.spread_origin;\nvar r = RulerOrigin.PageOrigin;\n",
        bad: "var o = RulerOrigin.pageOrign;\nvar s = new Sheet();\nvar n = s.NAME;\n",
        want: &[("member", 1), ("member", 3)],
    },
    Rule {
        name: "project-globals",
        good: "TaskSyncLib.handleEdit(1);\nvar job = Bigquery.newJob();\nvar j = new Bigquery.Job();\nlog(TaskSyncLib.version.major);\n",
        bad: "OtherLib.handleEdit(1);\napp.bogus(TaskSyncLib.x);\n",
        want: &[("object", 1), ("member", 2)],
    },
    Rule {
        name: "swallowed-lines",
        good: "var msg = \"it's fine\";\nlog(msg);\n",
        bad: "var msg = \"Line one\n  continues with foo(bar) and more(1) \";\nundefinedCall();\n",
        want: &[("syntax", 1), ("function", 3)],
    },
    Rule {
        name: "own-objects",
        good: "var KIT = KIT || {};\nKIT.Manager = function (s) {\n    this.s = s;\n};\nvar m = new KIT.Manager(1);\nvar j = KIT.JSON;\n",
        bad: "var m = new Manager(1);\n",
        want: &[("constructor", 1)],
    },
];

const MD_SHIFT: u64 = 5;

fn markdown(code: &str) -> String {
    format!("# Example\n\nWhat the script does.\n\n```js\n{code}```\n\nMore prose.\n")
}

fn codes(findings: &[Value]) -> Vec<(String, u64)> {
    findings
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn shapes(name: &str, kind: &str, code: &str) -> Vec<(String, String, u64)> {
    vec![
        (format!("{name}/{kind}.js"), code.to_string(), 0),
        (format!("{name}/{kind}.jsx"), code.to_string(), 0),
        (format!("{name}/{kind}.md"), markdown(code), MD_SHIFT),
    ]
}

#[test]
fn every_rule_is_silent_on_correct_code_and_finds_the_mistake_in_three_shapes() {
    let dir = project();
    let mut failures = Vec::new();
    for r in RULES {
        for (kind, code) in [("good", r.good), ("bad", r.bad)] {
            for (file, text, shift) in shapes(r.name, kind, code) {
                write(dir.path(), &file, &text);
                let all = array(dir.path(), &["check", "--format", "json", &file]);
                let want: Vec<(String, u64)> = if kind == "good" {
                    Vec::new()
                } else {
                    r.want
                        .iter()
                        .map(|(c, l)| (c.to_string(), l + shift))
                        .collect()
                };
                if codes(&all) != want {
                    failures.push(format!("{file}: want {want:?}, got {all:#?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The dry run's fake engine follows the same rules where it runs the code: a loose
/// name is the member, a sub-interface's member is no invention, a project global is
/// a permissive object, and a tested member's reads (the test's own included) are not
/// reported.
#[test]
fn the_dry_run_takes_loose_names_sub_interfaces_and_project_globals() {
    let dir = project();
    let mut failures = Vec::new();
    for r in RULES.iter().filter(|r| {
        matches!(
            r.name,
            "sub-interfaces" | "loose-names" | "project-globals" | "member-guards"
        )
    }) {
        let file = format!("{}/dry.js", r.name);
        write(dir.path(), &file, r.good);
        let all = array(dir.path(), &["dry-run", "--format", "json", &file]);
        if !all.is_empty() {
            failures.push(format!("{file}: {all:#?}"));
        }
    }
    // Known-bad: the misspelling that is no case/underscore variant is still an
    // invention at run time, and a documented global stays the docs' object.
    write(
        dir.path(),
        "dry-bad.js",
        "var o = RulerOrigin.pageOrign;\nvar k = app.activeLayer.knd;\napp.bogus(1);\nvar d = typeof app.a !== \"undefined\" && app.b;\n",
    );
    let all = array(dir.path(), &["dry-run", "--format", "json", "dry-bad.js"]);
    let lines: Vec<u64> = all.iter().map(|f| f["line"].as_u64().unwrap()).collect();
    if lines != [1, 2, 3, 4] {
        failures.push(format!("dry-bad.js: {all:#?}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A misspelling on a loose interface names the documented spelling as its fix; the
/// check says on stderr which project globals it read, and that the docs keep `app`.
#[test]
fn messages_name_the_documented_spelling_and_the_globals_read() {
    let dir = project();
    write(dir.path(), "l.js", "var o = RulerOrigin.pageOrign;\n");
    let all = array(dir.path(), &["check", "--format", "json", "l.js"]);
    assert_eq!(all.len(), 1, "{all:#?}");
    assert!(
        all[0]["message"]
            .as_str()
            .unwrap()
            .contains("`PAGE_ORIGIN`"),
        "{all:#?}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "l.js"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("project globals (grounded.toml): TaskSyncLib, Bigquery"),
        "{err}"
    );
    assert!(err.contains("global `app` is documented"), "{err}");
    // `grounded corpus` lists the interfaces with loose names.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["corpus"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("loose member names of RulerOrigin"), "{text}");
    let v = common::atlas::json(dir.path(), &["corpus", "--format", "json"]);
    assert_eq!(v["loose_member_names"], json!(["RulerOrigin"]), "{v:#}");
}

const LSP_SCRIPT: &str = "var k = app.activeLayer.kind;\nvar o = RulerOrigin.pageOrigin;\nTaskSyncLib.handleEdit(1);\nif (typeof app.vignetteKey !== \"undefined\") {\n    log(app.vignetteKey);\n}\nvar bad = RulerOrigin.pageOrign;\n";

fn hover_text(lsp: &mut Lsp, uri: &str, needle: &str, delta: u32) -> String {
    let h = lsp.request("textDocument/hover", at(uri, LSP_SCRIPT, needle, delta));
    h["contents"]["value"].as_str().unwrap_or("").to_string()
}

/// The server: the same diagnostics (only the misspelling), a loose name hovers and
/// goes to the documented member, a sub-interface's member hovers naming the
/// interface that has it, and completion offers it so.
#[test]
fn the_server_follows_the_rules_in_diagnostics_hover_completion_and_definition() {
    let dir = project();
    let path = dir.path().join("s.js");
    std::fs::write(&path, LSP_SCRIPT).unwrap();
    let u = uri(&path);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    lsp.open(&u, LSP_SCRIPT);
    let diags = lsp.diagnostics_where(&u, None, |d| !d.is_empty());
    let lines: Vec<u64> = diags
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![6], "{diags:#?}");

    let loose = hover_text(&mut lsp, &u, "pageOrigin", 2);
    assert!(loose.contains("PAGE_ORIGIN"), "{loose}");
    let sub = hover_text(&mut lsp, &u, "kind", 1);
    assert!(
        sub.contains("kind: number") && sub.contains("`ArtLayer` has this member"),
        "{sub}"
    );

    let def = lsp.request(
        "textDocument/definition",
        at(&u, LSP_SCRIPT, "pageOrigin", 2),
    );
    let target = def.to_string();
    assert!(target.contains("api.md"), "{def:#}");

    // Completion after `app.activeLayer.` offers `Layer`'s own and `ArtLayer`'s.
    let text = format!("{LSP_SCRIPT}app.activeLayer.");
    let line = LSP_SCRIPT.matches('\n').count() as u32;
    lsp.change(&u, 2, [line, 0, line, 0], "app.activeLayer.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 16}}),
    );
    let l = labels(&items);
    assert!(l.contains(&"name".to_string()), "{l:?} in {text}");
    let kind = items
        .as_array()
        .or_else(|| items["items"].as_array())
        .unwrap()
        .iter()
        .find(|i| i["label"] == "kind")
        .unwrap_or_else(|| panic!("{l:?}"));
    assert!(
        kind["detail"].as_str().unwrap().contains("`ArtLayer`"),
        "{kind:#}"
    );
    lsp.shutdown();
}
