//! The dry run blames the file that declares or uses wrongly (issue 14, "Data is
//! data"): a script that only uses a name another file declared wrongly is not the one
//! to edit. Each rule has a known-good project (silent) and a known-bad one (exactly
//! these findings, with the other side as related information), with the entry as a
//! `.jsx` script and as fenced Markdown, on the tests' own Atlas corpus
//! (`tests/common/atlas.rs`), not the demo's. Everything goes through the real binary.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::atlas::{array, write, ENGINE};
use serde_json::Value;

/// An Atlas project: the entry (`main.jsx` or `main.md`) and the library it loads.
fn atlas(entry: &str, main: &str, lib: &str) -> tempfile::TempDir {
    let dir = common::atlas::project(ENGINE);
    write(dir.path(), entry, main);
    write(dir.path(), "lib/b.jsx", lib);
    dir
}

/// The findings of `grounded ARGS --format json` in `root`.
fn run(root: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    array(root, &all)
}

/// Lines of prose before the fence in the Markdown shape: the entry's line `n` is the
/// Markdown file's line `n + MD_SHIFT`.
const MD_SHIFT: u64 = 5;

fn markdown(code: &str) -> String {
    format!("# Setup\n\nWhat the script sets up.\n\n```js\n{code}```\n\nMore prose.\n")
}

/// A place: `"main"` is the entry (shifted in the Markdown shape), else a path.
type At = (&'static str, u64);

/// One rule: a good project (silent), a bad one (the findings, each with the related
/// places it must list).
struct Rule {
    name: &'static str,
    good: (&'static str, &'static str),
    bad: (&'static str, &'static str),
    /// Per finding: where it is, and where its related places must include.
    want: &'static [(At, &'static [At])],
}

const RULES: &[Rule] = &[
    Rule {
        // `var helper = 5` in the entry; the library calls it: the declaration is wrong.
        name: "declared-not-a-function",
        good: (
            "function helper() {\n    return 1;\n}\nloadScript(\"lib/b.jsx\");\n",
            "function draw() {\n    log(1);\n    helper();\n}\ndraw();\n",
        ),
        bad: (
            "var helper = 5;\nloadScript(\"lib/b.jsx\");\n",
            "function draw() {\n    log(1);\n    helper();\n}\ndraw();\n",
        ),
        want: &[(("main", 1), &[("lib/b.jsx", 3)])],
    },
    Rule {
        // A member of a project object set to a string, called as a method elsewhere.
        name: "member-set-wrongly",
        good: (
            "var ui = {};\nui.render = function () {};\nloadScript(\"lib/b.jsx\");\n",
            "ui.render();\n",
        ),
        bad: (
            "var ui = {};\nui.render = \"ready\";\nloadScript(\"lib/b.jsx\");\n",
            "ui.render();\n",
        ),
        want: &[(("main", 2), &[("lib/b.jsx", 1)])],
    },
    Rule {
        // Declared inside the function that was meant to set it up for everyone.
        name: "declared-locally",
        good: (
            "var settings = {};\nfunction init() {\n    settings.title = \"T\";\n}\ninit();\nloadScript(\"lib/b.jsx\");\n",
            "log(settings.title);\n",
        ),
        bad: (
            "function init() {\n    var settings = { title: \"T\" };\n}\ninit();\nloadScript(\"lib/b.jsx\");\n",
            "log(settings.title);\n",
        ),
        want: &[(("main", 2), &[("lib/b.jsx", 1)])],
    },
    Rule {
        // Declared without a value, and a property of it read elsewhere.
        name: "declared-without-a-value",
        good: (
            "var page = { width: 10 };\nloadScript(\"lib/b.jsx\");\n",
            "log(page.width);\n",
        ),
        bad: (
            "var page;\nloadScript(\"lib/b.jsx\");\n",
            "log(page.width);\n",
        ),
        want: &[(("main", 1), &[("lib/b.jsx", 1)])],
    },
    Rule {
        // The entry calls what the library was to declare, and it declares it inside
        // a function: the library's declaration is wrong, not the entry's call.
        name: "library-declared-locally",
        good: (
            "loadScript(\"lib/b.jsx\");\nformat(1);\n",
            "function format(n) {\n    return n;\n}\n",
        ),
        bad: (
            "loadScript(\"lib/b.jsx\");\nformat(1);\n",
            "function setup() {\n    function format(n) {\n        return n;\n    }\n}\nsetup();\n",
        ),
        want: &[(("lib/b.jsx", 2), &[("main", 2)])],
    },
    Rule {
        // No file declares the name: the use keeps the finding, and says where the
        // library came from and which near name is declared.
        name: "declared-nowhere",
        good: (
            "function helper() {}\nloadScript(\"lib/b.jsx\");\n",
            "helper();\n",
        ),
        bad: (
            "function helpr() {}\nloadScript(\"lib/b.jsx\");\n",
            "helper();\n",
        ),
        want: &[(("lib/b.jsx", 1), &[("main", 2), ("main", 1)])],
    },
    Rule {
        // No file sets the member: the use keeps it, pointing at the object.
        name: "member-set-nowhere",
        good: (
            "var ui = {};\nui.render = function () {};\nloadScript(\"lib/b.jsx\");\n",
            "ui.render();\n",
        ),
        bad: (
            "var ui = {};\nui.rendr = function () {};\nloadScript(\"lib/b.jsx\");\n",
            "ui.render();\n",
        ),
        want: &[(("lib/b.jsx", 1), &[("main", 1), ("main", 2)])],
    },
    Rule {
        // An invented engine member is the wrong use itself: it stays at the use,
        // even when the object came from the entry.
        name: "invented-engine-member",
        good: (
            "var c = canvas;\nloadScript(\"lib/b.jsx\");\n",
            "c.text(\"x\");\n",
        ),
        bad: (
            "var c = canvas;\nloadScript(\"lib/b.jsx\");\n",
            "c.txt(\"x\");\n",
        ),
        want: &[(("lib/b.jsx", 1), &[])],
    },
];

/// `(path, line)` of a place, the entry's name resolved and shifted.
fn place(at: At, entry: &str, shift: u64) -> (String, u64) {
    match at.0 {
        "main" => (entry.to_string(), at.1 + shift),
        p => (p.to_string(), at.1),
    }
}

fn got(f: &Value) -> ((String, u64), Vec<(String, u64)>) {
    let at = (
        f["path"].as_str().unwrap().to_string(),
        f["line"].as_u64().unwrap(),
    );
    let related = f["related"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["path"].as_str().unwrap().to_string(),
                        r["line"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (at, related)
}

#[test]
fn every_rule_blames_the_right_file_in_both_shapes() {
    let mut failures = Vec::new();
    for r in RULES {
        for (entry, shift) in [("main.jsx", 0), ("main.md", MD_SHIFT)] {
            let shape = |code: &str| {
                if shift == 0 {
                    code.to_string()
                } else {
                    markdown(code)
                }
            };
            let good = atlas(entry, &shape(r.good.0), r.good.1);
            let fs = run(good.path(), &["dry-run", entry]);
            if !fs.is_empty() {
                failures.push(format!("{} good, {entry}: wrong findings {fs:#?}", r.name));
            }
            let bad = atlas(entry, &shape(r.bad.0), r.bad.1);
            let fs = run(bad.path(), &["dry-run", entry]);
            let found: Vec<_> = fs.iter().map(got).collect();
            let ok = found.len() == r.want.len()
                && r.want
                    .iter()
                    .zip(&found)
                    .all(|((at, rel), (got_at, got_rel))| {
                        *got_at == place(*at, entry, shift)
                            && rel
                                .iter()
                                .all(|p| got_rel.contains(&place(*p, entry, shift)))
                            && (!rel.is_empty() || got_rel.is_empty())
                    });
            if !ok {
                failures.push(format!(
                    "{} bad, {entry}: want {:?}, got {fs:#?}",
                    r.name, r.want
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The moved finding says what the declaration gave the name and where the run
/// stopped, in the declaring file's own words; `check --dry-run` carries it too, with
/// the related place in JSON and SARIF.
#[test]
fn check_dry_run_reports_the_blame_at_the_declaration_with_the_use_related() {
    let r = RULES
        .iter()
        .find(|r| r.name == "declared-not-a-function")
        .unwrap();
    let dir = atlas("main.jsx", r.bad.0, r.bad.1);
    let fs = run(dir.path(), &["check", "--dry-run", "main.jsx"]);
    let blamed: Vec<&Value> = fs.iter().filter(|f| f["code"] == "dry-run").collect();
    assert_eq!(blamed.len(), 1, "{fs:#?}");
    let f = blamed[0];
    assert_eq!(
        (f["path"].as_str(), f["line"].as_u64()),
        (Some("main.jsx"), Some(1))
    );
    assert_eq!(
        (f["column"].as_u64(), f["end_column"].as_u64()),
        (Some(5), Some(11))
    );
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("`helper` is declared here as a number")
            && msg.contains("`lib/b.jsx:3` calls it"),
        "{msg}"
    );
    assert_eq!(f["related"][0]["path"], "lib/b.jsx", "{f:#}");
    assert_eq!(f["related"][0]["line"], 3, "{f:#}");
    let sarif = common::atlas::json(
        dir.path(),
        &["check", "--dry-run", "--format", "sarif", "main.jsx"],
    );
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let res = results
        .iter()
        .find(|r| r["ruleId"] == "dry-run")
        .expect("the dry run's result");
    let rel = &res["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["artifactLocation"]["uri"], "lib/b.jsx", "{res:#}");
    assert_eq!(rel["region"]["startLine"], 3, "{res:#}");
    // The human output lists the use under the excerpt of the declaration.
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["dry-run", "main.jsx"])
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("main.jsx:1:5: error[dry-run]")
            && text.contains("related: lib/b.jsx:3:5: the run stopped here"),
        "{text}"
    );
}

/// Two entries that stop at two uses of one wrong declaration are one finding there,
/// listing both uses.
#[test]
fn two_uses_of_one_wrong_declaration_are_one_finding() {
    let dir = atlas("lib/setup.jsx", "var helper = 5;\n", "helper();\n");
    write(
        dir.path(),
        "a.jsx",
        "loadScript(\"lib/setup.jsx\");\nloadScript(\"lib/b.jsx\");\n",
    );
    write(
        dir.path(),
        "c.jsx",
        "loadScript(\"lib/setup.jsx\");\nlog(1);\nhelper();\n",
    );
    let fs = run(dir.path(), &["dry-run"]);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!(fs[0]["path"], "lib/setup.jsx", "{fs:#?}");
    let (_, related) = got(&fs[0]);
    assert!(
        related.contains(&("lib/b.jsx".into(), 1)) && related.contains(&("c.jsx".into(), 3)),
        "{fs:#?}"
    );
}

/// In the editor: saving the entry runs the dry run, and the diagnostic is on the
/// declaration, with the failed call in the other file as related information.
#[test]
fn the_editor_shows_the_blame_on_the_declaration_with_the_call_related() {
    let r = RULES
        .iter()
        .find(|r| r.name == "declared-not-a-function")
        .unwrap();
    let dir = atlas("main.jsx", r.bad.0, r.bad.1);
    let mut lsp = common::Lsp::start(&[], &[]);
    lsp.initialize(
        dir.path(),
        serde_json::json!({"debounceMs": 0, "dryRun": {"enabled": true, "idleMs": 600000}}),
    );
    let u = common::uri(&dir.path().join("main.jsx"));
    lsp.open(&u, r.bad.0);
    lsp.notify(
        "textDocument/didSave",
        serde_json::json!({"textDocument": {"uri": u}}),
    );
    let ds = lsp.diagnostics_where(&u, None, |d| d.iter().any(|x| x["code"] == "dry-run"));
    let d = ds.iter().find(|x| x["code"] == "dry-run").unwrap();
    assert_eq!(d["range"]["start"]["line"], 0, "{d:#}");
    let related = d["relatedInformation"].as_array().expect("related");
    let call = related
        .iter()
        .find(|x| {
            x["location"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("/lib/b.jsx")
        })
        .unwrap_or_else(|| panic!("{d:#}"));
    assert_eq!(call["location"]["range"]["start"]["line"], 2, "{d:#}");
    assert_eq!(call["location"]["range"]["start"]["character"], 4, "{d:#}");
    lsp.shutdown();
}
