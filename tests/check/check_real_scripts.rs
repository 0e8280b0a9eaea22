//! Real scripts by other people: what correct code does that the checker once accused,
//! and the real mistakes next to it that it must still find. Every rule has a known-good
//! and a known-bad fixture, each as a `.jsx` script and as fenced Markdown, on a corpus
//! written here (Atlas: ES3, `.jsx` scripts, open headers, an extensible dialog
//! window, E4X, numeric-indexed page lists, a `group` construct) — not the demo's.
//! Everything goes through the real binary.

use crate::common;

use std::path::Path;

use common::atlas::{array, write, ENGINE};
use serde_json::Value;

/// An Atlas project in a temp dir: corpus, `grounded.toml`, a data file whose text is
/// no script at all, a library script nothing loads.
fn atlas(engine: &str) -> tempfile::TempDir {
    let dir = common::atlas::project(engine);
    write(
        dir.path(),
        "data/products.csv",
        "name,price\nToner, 12.50 (boxed\n",
    );
    write(
        dir.path(),
        "lib/helper.jsx",
        "function helper() {\n    return 1;\n}\n",
    );
    dir
}

/// `(code, line)` of each finding of `grounded check --format json FILE`, and the
/// findings themselves.
fn check(root: &Path, file: &str) -> (Vec<(String, u64)>, Vec<Value>) {
    let findings = array(root, &["check", "--format", "json", file]);
    let got = findings
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    (got, findings)
}

/// Lines of prose before the fence in the Markdown shape (title, blank, prose, blank,
/// fence): a script's line `n` is the Markdown file's line `n + MD_SHIFT`.
const MD_SHIFT: u64 = 5;

fn markdown(code: &str) -> String {
    format!("# Example\n\nWhat the script does.\n\n```js\n{code}```\n\nMore prose.\n")
}

/// One rule: a good script (silent), a bad one (exactly these findings).
struct Rule {
    name: &'static str,
    good: &'static str,
    bad: &'static str,
    want: &'static [(&'static str, u64)],
}

const RULES: &[Rule] = &[
    Rule {
        name: "index-string",
        good: "net.request(\"u\", { Authorization: \"Bearer t\", \"Content-Type\": \"json\" });\nvar x = new XML(\"<a/>\");\nvar item = x.item;\nx.title = \"t\";\n",
        bad: "var s = new Sheet();\ns.format({ colour: \"red\" });\nvar n = s.nam;\n",
        want: &[("option", 2), ("member", 3)],
    },
    Rule {
        name: "index-number",
        good: "doc.pages[0].label = \"A\";\nvar i = 1;\nvar l = doc.pages[i].label;\n",
        bad: "doc.pages[0].lable = \"A\";\n",
        want: &[("member", 1)],
    },
    Rule {
        name: "extensible",
        good: "var w = new Window(\"Progress\");\nw.pbar = w.add(\"progressbar\");\nw.pbar.value = 3;\nlog(w.pbar);\n",
        bad: "var w = new Window(\"Progress\");\nlog(w.missing);\n",
        want: &[("member", 2)],
    },
    Rule {
        name: "write-once",
        good: "var s = new Sheet();\ns.name = \"A\";\nlog(s.name);\nlog(s.name);\n",
        bad: "var s = new Sheet();\ns.colour = \"red\";\nlog(s.colour);\nlog(s.colour);\n",
        want: &[("member", 2)],
    },
    Rule {
        name: "also-allows-trailing-commas",
        good: "var o = { a: 1, b: 2, };\n",
        bad: "var o = { a: 1, };\nlog(1, 2,);\n",
        want: &[("syntax", 2)],
    },
    Rule {
        name: "also-allows-e4x",
        good: "default xml namespace = \"http://ns\";\nvar x = new XML(\"<a/>\");\nvar id = x.@id;\nvar kids = x..child;\nvar sel = x.(@id == 1);\n",
        bad: "var x = new XML(\"<a/>\");\nvar y = 1 +* 2;\n",
        want: &[("syntax", 2)],
    },
    Rule {
        name: "also-has",
        good: "var i = [1, 2].indexOf(2);\n",
        bad: "var i = [1, 2].indexOf(2);\nvar j = [1, 2].lastIndexOf(2);\n",
        want: &[("engine", 2)],
    },
    Rule {
        name: "guards",
        good: "if (typeof JSON !== \"undefined\" && JSON.parse) {\n    log(JSON.parse(\"{}\"));\n}\nvar t = typeof JSON === \"object\" ? JSON.stringify({}) : \"\";\nif (Object.keys) {\n    log(Object.keys({}));\n}\nif (\"keys\" in Object) {\n    log(Object.keys({}));\n}\nif (typeof console != \"undefined\" && console.log) {\n    console.log(1);\n}\n",
        bad: "var ready = true;\nif (ready && JSON.parse) {\n    log(1);\n}\nlog(Object.keys({}));\n",
        want: &[("engine", 2), ("engine", 5)],
    },
    Rule {
        name: "construct-paths",
        good: "function draw(flag) {\n    var g = new Group();\n    canvas.groupStart(g);\n    if (flag) {\n        canvas.groupEnd();\n        return;\n    }\n    canvas.text(\"x\");\n    canvas.groupEnd();\n}\n",
        bad: "function draw(flag) {\n    var g = new Group();\n    canvas.groupStart(g);\n    if (flag) {\n        canvas.groupEnd();\n        return;\n    }\n    canvas.text(\"x\");\n}\n",
        want: &[("construct", 3)],
    },
    Rule {
        name: "construct-helpers",
        good: "function openGroup() {\n    canvas.groupStart(new Group());\n}\nfunction closeGroup() {\n    canvas.groupEnd();\n}\nopenGroup();\ncanvas.text(\"in\");\ncloseGroup();\n",
        bad: "function openGroup() {\n    canvas.groupStart(new Group());\n}\nopenGroup();\ncanvas.text(\"never closed\");\n",
        want: &[("construct", 4)],
    },
    Rule {
        name: "data-files",
        good: "var d = readCSV(\"data/products.csv\");\nvar h = helper();\n",
        bad: "var d = readCSV(\"data/missing.csv\");\nvar h = helpr();\n",
        want: &[("file", 1), ("function", 2)],
    },
    Rule {
        name: "function-prototype",
        good: "function f() {}\nvar r = f.call(null);\nf.apply(null, []);\n",
        bad: "function f() {}\nvar b = f.bind(null);\n",
        want: &[("engine", 2)],
    },
    Rule {
        name: "syntax-error-once",
        good: "for (var i = 0; i < 3; i++) {\n    log(i);\n}\n",
        bad: "log(1\nlog(2);\nlog(3);\n",
        want: &[("syntax", 1)],
    },
    Rule {
        name: "new-function",
        good: "var made = new function () {\n    this.a = 1;\n}();\n",
        bad: "var made = new Thing();\n",
        want: &[("constructor", 1)],
    },
];

#[test]
fn every_rule_is_silent_on_correct_code_and_finds_the_mistake_in_both_shapes() {
    let dir = atlas(ENGINE);
    let mut failures = Vec::new();
    for r in RULES {
        let shapes = [
            (format!("{}/good.jsx", r.name), r.good.to_string(), 0),
            (format!("{}/good.md", r.name), markdown(r.good), MD_SHIFT),
        ];
        for (file, text, _) in &shapes {
            write(dir.path(), file, text);
            let (got, all) = check(dir.path(), file);
            if !got.is_empty() {
                failures.push(format!("{file}: wrong findings {all:#?}"));
            }
        }
        let shapes = [
            (format!("{}/bad.jsx", r.name), r.bad.to_string(), 0),
            (format!("{}/bad.md", r.name), markdown(r.bad), MD_SHIFT),
        ];
        for (file, text, shift) in &shapes {
            write(dir.path(), file, text);
            let (got, all) = check(dir.path(), file);
            let want: Vec<(String, u64)> = r
                .want
                .iter()
                .map(|(c, l)| (c.to_string(), l + shift))
                .collect();
            if got != want {
                failures.push(format!("{file}: want {want:?}, got {all:#?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// With the dry run too, every rule says exactly what the static check says: the run
/// takes open objects (`Index:`, `Extensible:`) as the checker does, reports an
/// invented write once (its reads are the same mistake), leaves syntax the engine
/// allows but QuickJS cannot run (E4X) to the static check as a stated limit, and
/// places a parse error where the static check does, so it is said once.
#[test]
fn every_rule_says_the_same_with_the_dry_run() {
    let dir = atlas(ENGINE);
    let mut failures = Vec::new();
    for r in RULES {
        for (kind, code) in [("good", r.good), ("bad", r.bad)] {
            for (file, text, shift) in [
                (format!("{}/dry-{kind}.jsx", r.name), code.to_string(), 0),
                (
                    format!("{}/dry-{kind}.md", r.name),
                    markdown(code),
                    MD_SHIFT,
                ),
            ] {
                write(dir.path(), &file, &text);
                let (statics, _) = check(dir.path(), &file);
                let all = array(
                    dir.path(),
                    &["check", "--dry-run", "--format", "json", &file],
                );
                let got: Vec<(String, u64)> = all
                    .iter()
                    .map(|f| {
                        (
                            f["code"].as_str().unwrap().to_string(),
                            f["line"].as_u64().unwrap(),
                        )
                    })
                    .collect();
                let want: Vec<(String, u64)> = if kind == "good" {
                    Vec::new()
                } else {
                    r.want
                        .iter()
                        .map(|(c, l)| (c.to_string(), l + shift))
                        .collect()
                };
                if got != want || statics != want {
                    failures.push(format!("{file}: want {want:?}, got {all:#?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The same correct E4X and trailing commas on an engine that does not list them are
/// reported: the allowance comes from the Engine chunk, nothing else.
#[test]
fn syntax_allowances_come_from_the_engine_chunk() {
    let dir = atlas("# Engine\n\nECMAScript: 3\nScript extensions: .jsx\n");
    let r = RULES.iter().find(|r| r.name == "also-allows-e4x").unwrap();
    write(dir.path(), "e4x.jsx", r.good);
    let (got, _) = check(dir.path(), "e4x.jsx");
    assert!(got.iter().any(|(c, l)| c == "syntax" && *l == 1), "{got:?}");
    assert!(got.iter().any(|(c, l)| c == "syntax" && *l == 3), "{got:?}");
    write(dir.path(), "commas.jsx", "var o = { a: 1, b: 2, };\n");
    let (got, _) = check(dir.path(), "commas.jsx");
    assert_eq!(got, vec![("syntax".to_string(), 1)]);
    // `Also has:` gone: the ES5 method is the engine's no more.
    write(dir.path(), "has.jsx", "var i = [1, 2].indexOf(2);\n");
    let (got, _) = check(dir.path(), "has.jsx");
    assert_eq!(got, vec![("engine".to_string(), 1)]);
    // An engine that allows `let` (by its rule name) takes `let`, not `const`.
    let dir = atlas("# Engine\n\nECMAScript: 3\nScript extensions: .jsx\nAlso allows: let\n");
    write(dir.path(), "let.jsx", "let a = 1;\nconst b = 2;\n");
    let (got, _) = check(dir.path(), "let.jsx");
    assert_eq!(got, vec![("syntax".to_string(), 2)]);
}

/// Messages say what the docs say: an invented write names the docs, never what the
/// engine would do with it; the reads of it are folded into it.
#[test]
fn an_invented_write_is_one_finding_that_says_what_the_docs_say() {
    let dir = atlas(ENGINE);
    let r = RULES.iter().find(|r| r.name == "write-once").unwrap();
    write(dir.path(), "w.jsx", r.bad);
    let (_, all) = check(dir.path(), "w.jsx");
    assert_eq!(all.len(), 1, "{all:#?}");
    let msg = all[0]["message"].as_str().unwrap();
    assert!(msg.contains("`Sheet` has no member `colour`"), "{msg}");
    assert!(!msg.contains("engine"), "{msg}");
    // An option key the docs lack says so, without claims about the engine.
    let r = RULES.iter().find(|r| r.name == "index-string").unwrap();
    write(dir.path(), "o.jsx", r.bad);
    let (_, all) = check(dir.path(), "o.jsx");
    let msg = all[0]["message"].as_str().unwrap();
    assert!(msg.contains("`Style` has no key `colour`"), "{msg}");
    assert!(
        !msg.contains("engine") && !msg.contains("never applies"),
        "{msg}"
    );
    // `new Thing()` quotes the name; `new function () {...}` is never quoted at all.
    let r = RULES.iter().find(|r| r.name == "new-function").unwrap();
    write(dir.path(), "n.jsx", r.bad);
    let (_, all) = check(dir.path(), "n.jsx");
    let msg = all[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("`Thing`"), "{msg}");
}

/// A construct left open on one path names the line where the other path closed it.
#[test]
fn a_construct_open_on_one_path_says_where_the_other_closed_it() {
    let dir = atlas(ENGINE);
    let r = RULES.iter().find(|r| r.name == "construct-paths").unwrap();
    write(dir.path(), "p.jsx", r.bad);
    let (_, all) = check(dir.path(), "p.jsx");
    let msg = all[0]["message"].as_str().unwrap();
    assert!(msg.contains("line 5"), "{msg}");
    assert_eq!(all[0]["severity"], "warning");
    let r = RULES
        .iter()
        .find(|r| r.name == "construct-helpers")
        .unwrap();
    write(dir.path(), "h.jsx", r.bad);
    let (_, all) = check(dir.path(), "h.jsx");
    let msg = all[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("`openGroup()`") && msg.contains("canvas.groupStart"),
        "{msg}"
    );
}

/// Every rule name the syntax check uses is in the users' documentation, and the
/// documentation names no rule the check does not have.
#[test]
fn the_syntax_rules_are_documented_by_their_stable_names() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/syntax-rules.md"))
            .unwrap();
    for name in grounded::check::RULE_NAMES {
        assert!(
            doc.contains(&format!("| `{name}` |")),
            "{name} is not in docs/syntax-rules.md"
        );
    }
    let listed = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1))
        .collect::<Vec<_>>();
    for name in &listed {
        assert!(
            grounded::check::RULE_NAMES.contains(name),
            "docs/syntax-rules.md lists `{name}`, which the check does not have"
        );
    }
    assert_eq!(listed.len(), grounded::check::RULE_NAMES.len());
}

/// The dry run never runs a data file: the CSV (no script at all) draws nothing, the
/// script's invented member is what it reports; a missing data file is a `file`
/// finding of the script that names it.
#[test]
fn the_dry_run_checks_data_files_exist_and_never_runs_them() {
    let dir = atlas(ENGINE);
    write(
        dir.path(),
        "main.jsx",
        "var d = readCSV(\"data/products.csv\");\nvar s = new Sheet();\ns.format({ color: \"red\" });\ns.fromat({ color: \"red\" });\n",
    );
    let findings = array(dir.path(), &["dry-run", "--format", "json", "main.jsx"]);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["path"], "main.jsx", "{findings:#?}");
    assert_eq!(findings[0]["line"], 4, "{findings:#?}");
    write(
        dir.path(),
        "main.jsx",
        "var d = readCSV(\"data/missing.csv\");\n",
    );
    let findings = array(dir.path(), &["dry-run", "--format", "json", "main.jsx"]);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["code"], "file", "{findings:#?}");
    assert_eq!(findings[0]["path"], "main.jsx", "{findings:#?}");
}

/// `constructs --format json`: the footprint keeps the object's declaration and
/// configuration when the object is read after the construct; that read is a `use`.
#[test]
fn a_footprint_keeps_its_object_and_lists_its_other_uses() {
    let dir = atlas(ENGINE);
    write(
        dir.path(),
        "f.jsx",
        "var g = new Group();\ng.opacity = 0.5;\ncanvas.groupStart(g);\ncanvas.text(\"x\");\ncanvas.groupEnd();\nlog(g.opacity);\ncanvas.text(\"after\");\n",
    );
    let got = array(dir.path(), &["constructs", "--format", "json", "f.jsx"]);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0]["lines"], serde_json::json!([[1, 5]]), "{got:#?}");
    assert_eq!(got[0]["uses"], serde_json::json!([[6, 6]]), "{got:#?}");
}
