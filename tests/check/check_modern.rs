//! What modern typings say (issue 49): a fictional engine, Loom (`tests/fixtures/loom`),
//! whose docs type most values as unions of node interfaces told apart by `type`, take
//! callbacks, and return `Promise<T>` from `...Async` methods. Through the real binary:
//! the good script stays silent (narrowed unions, loops, callbacks, destructuring,
//! awaits, and the values that must stay unjudged), and each receiver kind's planted
//! mistake in the bad script is found, with near names from the docs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::lines_and_codes;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/loom")
}

/// `grounded check --format json` of `files` in a copy of the fixture.
fn check(files: &[&str]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    for rel in [
        "grounded.toml",
        "docs/engine.md",
        "docs/api.md",
        "good.js",
        "bad.js",
    ] {
        std::fs::copy(fixture().join(rel), root.join(rel)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json"])
        .args(files)
        .current_dir(root)
        .env("GROUNDED_CACHE_DIR", root.join("cache"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("load diagnostic"),
        "the fixture's docs load clean: {stderr}"
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

#[test]
fn modern_typings_good_script_is_silent() {
    let findings = check(&["good.js"]);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn modern_typings_one_mistake_per_receiver_kind_is_found() {
    let findings = check(&["bad.js"]);
    let got: Vec<(u64, u64, &str)> = findings
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["code"].as_str().unwrap(),
            )
        })
        .collect();
    let want: Vec<(u64, u64, &str)> = vec![
        (3, 7, "member"),   // a union: `selection[0].nmae`
        (4, 34, "member"),  // narrowed by `type === "TEXT"`
        (5, 24, "member"),  // a `for...of` variable over a `T[]`
        (6, 22, "member"),  // a `forEach` callback's element
        (7, 35, "member"),  // a callback the docs type `(node: ...) => boolean`
        (8, 43, "member"),  // destructured from the global
        (9, 72, "member"),  // awaited from `Promise<Style>`
        (10, 21, "member"), // a test against a `type` no interface has
        (11, 46, "member"), // a `for...of` over an `Index: [index: number]: T` collection
        (12, 39, "member"), // a `.then` callback's value
        (13, 43, "member"), // narrowed by a `switch` case
    ];
    assert_eq!(got, want, "{findings:#?}");
    let msg = |i: usize| findings[i]["message"].as_str().unwrap().to_string();
    // A union's near names come from all its interfaces (`fontSize` is `TextNode`'s).
    assert!(
        msg(2).contains("`FrameNode`, `TextNode` and `RectangleNode`"),
        "{}",
        msg(2)
    );
    assert!(msg(2).contains("did you mean `fontSize`?"), "{}", msg(2));
    // Narrowed: judged by the one interface left.
    assert!(
        msg(1).starts_with("`TextNode` has no member `charactres`"),
        "{}",
        msg(1)
    );
    assert!(
        msg(10).starts_with("`FrameNode` has no member `characters`"),
        "{}",
        msg(10)
    );
    // The misspelt literal: the literals the docs give, the near one first, and a fix
    // that replaces the text between the quotes.
    assert!(msg(7).contains("did you mean `\"TEXT\"`?"), "{}", msg(7));
    let fix = &findings[7]["fixes"][0]["edits"][0];
    assert_eq!(
        (fix["column"].as_u64(), fix["text"].as_str()),
        (Some(21), Some("TEXT")),
        "{fix}"
    );
}

/// `grounded check --format json s.js` where `s.js` is `script`, beside the fixture's docs.
fn check_text(script: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    for rel in ["grounded.toml", "docs/engine.md", "docs/api.md"] {
        std::fs::copy(fixture().join(rel), root.join(rel)).unwrap();
    }
    std::fs::write(root.join("s.js"), script).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--format", "json", "s.js"])
        .current_dir(root)
        .env("GROUNDED_CACHE_DIR", root.join("cache"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

/// A member read whose fallback is a literal (`node.width || 0`) is a default value,
/// not a feature test: the misspelt member is judged, on a union and on one interface.
#[test]
fn a_literal_fallback_does_not_keep_a_misspelt_member_from_being_judged() {
    let findings = check_text(concat!(
        "const first = loom.currentPage.selection[0];\n",
        "const a = first.nmae || \"untitled\";\n",
        "const b = loom.currentPage.nmae || `page`;\n",
        "const c = (first.idd || 0) + 1;\n",
        "const d = loom.currentPage.selectoin || [];\n",
        "const e = first.nmae || null;\n",
        "const f = first.nmae ?? {};\n",
        "const g = loom.currentPage.nmae || -1;\n",
        "const h = first.nmae || false;\n",
        "loom.currentPage.findAll((n) => n.nmae || { x: 0 });\n",
        "paint(a, b, c, d, e, f, g, h);\n",
        "function paint() {}\n",
    ));
    let want: Vec<(u64, u64, String)> = [
        (2, 17),
        (3, 28),
        (4, 18),
        (5, 28),
        (6, 17),
        (7, 17),
        (8, 28),
        (9, 17),
        (10, 35),
    ]
    .into_iter()
    .map(|(l, c)| (l, c, "member".to_string()))
    .collect();
    assert_eq!(lines_and_codes(&findings), want, "{findings:#?}");
    let msg = findings[0]["message"].as_str().unwrap();
    assert!(msg.contains("did you mean `name`?"), "{msg}");
}

/// What stays a feature test: a fallback that is another member, a name, a call or a
/// function (`app.newThing || app.oldThing`), a template with a substitution, and the
/// member's own fallback in a chain (`a.b || c.d || 0`). A documented member with a
/// literal default is right by the docs.
#[test]
fn a_fallback_to_another_way_stays_a_feature_test() {
    let findings = check_text(concat!(
        "const first = loom.currentPage.selection[0];\n",
        "const other = 3;\n",
        "const a = loom.getNodeByIdFast || loom.getNodeById;\n",
        "const b = first.exportAsync || first.remove;\n",
        "const c = first.fontSizeMixed || other;\n",
        "const d = first.measure || loom.createText();\n",
        "const e = first.frob || function () {};\n",
        "const f = first.frob || (() => 0);\n",
        "const g = first.label || `${other}`;\n",
        "const h = first.nmae || first.name || \"\";\n",
        "const i = first.name || \"untitled\";\n",
        "const j = loom.currentPage.name || \"\";\n",
        "if (first.frob || 0) first.remove();\n",
        "paint(a, b, c, d, e, f, g, h, i, j);\n",
        "function paint() {}\n",
    ));
    let got = lines_and_codes(&findings);
    // The condition's literal fallback is judged like any other (line 13); nothing else.
    assert_eq!(got, vec![(13, 11, "member".to_string())], "{findings:#?}");
}

/// A `var` assigned once, in its declaration and outside any loop, is narrowed like a
/// `const`; one reassigned, or written in a loop, is narrowed only where nothing runs
/// between the test and the use. Read by a function made in one iteration (which reads
/// whatever a later one wrote) it keeps its whole union, and stays silent on a member
/// only another interface of it has.
#[test]
fn a_var_assigned_once_is_narrowed_and_a_reassigned_or_looping_one_is_not() {
    let findings = check_text(concat!(
        "var first = loom.currentPage.selection[0];\n",
        "if (first.type === \"TEXT\") first.layoutMode = \"NONE\";\n",
        "function onFrame() {\n",
        "  var f = loom.getNodeById(\"1\");\n",
        "  if (!f || f.type !== \"FRAME\") return;\n",
        "  f.characters = \"x\";\n",
        "}\n",
        "var again = loom.currentPage.selection[0];\n",
        "again = loom.currentPage.selection[1];\n",
        "if (again.type === \"TEXT\") again.layoutMode = \"NONE\";\n",
        "for (var i = 0; i < 2; i++) {\n",
        "  var each = loom.currentPage.selection[i];\n",
        "  if (each.type === \"TEXT\") later(function () { each.layoutMode = \"NONE\"; });\n",
        "}\n",
        "for (var k of loom.currentPage.selection) {\n",
        "  if (k.type === \"TEXT\") k.layoutMode = \"NONE\";\n",
        "}\n",
        "function later(cb) { return cb; }\n",
        "onFrame();\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![
            (2, 34, "member".to_string()),
            (6, 5, "member".to_string()),
            (10, 34, "member".to_string()),
            (16, 28, "member".to_string()),
        ],
        "{findings:#?}"
    );
    let msg = findings[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("`TextNode` has no member `layoutMode`"),
        "{msg}"
    );
    let msg = findings[1]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("`FrameNode` has no member `characters`"),
        "{msg}"
    );
}

/// A property chain is narrowed by a test of that very chain where nothing runs between
/// (`if (n.parent.type === "PAGE") n.parent.layoutMode`: `PageNode` has none); with a
/// call between (`move(n)` may give it another parent), it keeps its whole union.
#[test]
fn a_property_chain_is_narrowed_only_where_nothing_runs_between() {
    let findings = check_text(concat!(
        "const first = loom.currentPage.selection[0];\n",
        "if (first.parent.type === \"PAGE\") first.parent.layoutMode = \"NONE\";\n",
        "if (first.parent.type === \"FRAME\") first.parent.layoutMode = \"NONE\";\n",
        "if (first.parent.type === \"PAGE\") {\n",
        "  move(first);\n",
        "  first.parent.layoutMode = \"NONE\";\n",
        "}\n",
        "function move(n) { return n; }\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![(2, 48, "member".to_string())],
        "{findings:#?}"
    );
    let msg = findings[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("`PageNode` has no member `layoutMode`"),
        "{msg}"
    );
}

/// An assignment before a function's `const` of the same name (an implicit global in a
/// loop's header, as a real plugin wrote it) writes the global, not the constant: the
/// constant declared later in a block keeps its one value and is judged. The global
/// is a name the script declares from then on, so reading it elsewhere is no finding.
#[test]
fn an_assignment_before_a_blocks_const_does_not_unsettle_the_const() {
    let findings = check_text(concat!(
        "function relabel(ids) {\n",
        "  for (const n of picked = loom.currentPage.selection) n.remove();\n",
        "  for (const id of ids) {\n",
        "    const picked = loom.createText();\n",
        "    picked.nmae = id;\n",
        "    picked.name = id;\n",
        "  }\n",
        "}\n",
        "function count() { return picked.length; }\n",
        "relabel([\"a\"]);\n",
        "count();\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![(5, 12, "member".to_string())],
        "{findings:#?}"
    );
    let msg = findings[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("`TextNode` has no member `nmae`"), "{msg}");
}

/// A feature test stays one on the right of `||` or `&&` (`if (!api || !api.getAsync)`,
/// `!(...) || typeof n.flatten !== "function"`): the member it asks about is not
/// judged, as on the left. A member that is the expression's value there (`ok &&
/// first.nmae`) is used, not tested, and stays judged.
#[test]
fn a_feature_test_on_the_right_of_an_or_stays_a_feature_test() {
    let findings = check_text(concat!(
        "const first = loom.currentPage.selection[0];\n",
        "const ok = first.name.length > 0;\n",
        "if (!loom.currentPage || !loom.currentPage.getAsync) loom.notify(\"old\");\n",
        "if (!ok || typeof first.flatten !== \"function\") loom.notify(\"no\");\n",
        "if (ok && !first.frob) loom.notify(\"no\");\n",
        "const v = ok && first.nmae;\n",
        "const w = ok || loom.currentPage.nmae;\n",
        "paint(v, w);\n",
        "function paint() {}\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![(6, 23, "member".to_string()), (7, 34, "member".to_string())],
        "{findings:#?}"
    );
}

/// A variable given two certain values in two branches (a lookup, the selection) holds
/// the docs' union that has both values' interfaces, and is judged so; a test of it
/// narrows where nothing runs between the test and the use, never across a write or
/// into a function made there.
#[test]
fn a_variable_written_in_two_branches_is_their_union() {
    let findings = check_text(concat!(
        "async function main(id) {\n",
        "  var target;\n",
        "  if (id) {\n",
        "    target = await loom.getNodeByIdAsync(id);\n",
        "    if (!target) throw new Error(\"none\");\n",
        "  } else {\n",
        "    target = loom.currentPage.selection[0];\n",
        "  }\n",
        "  target.nmae = \"x\";\n",
        "  if (target.type === \"TEXT\") target.layoutMode = \"NONE\";\n",
        "  if (target.type === \"TEXT\") {\n",
        "    target = loom.currentPage.selection[1];\n",
        "    target.layoutMode = \"NONE\";\n",
        "  }\n",
        "  if (target.type === \"TEXT\") later(() => target.layoutMode);\n",
        "  let other = loom.createText();\n",
        "  other = loom.getNodeById(\"2\");\n",
        "  other.nmae = 1;\n",
        "  let mixed = loom.createText();\n",
        "  if (id) mixed = loom.currentPage;\n",
        "  mixed.nmae = 1;\n",
        "}\n",
        "function later(f) { return f; }\n",
        "main(\"1\");\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![
            (9, 10, "member".to_string()),
            (10, 38, "member".to_string()),
            (18, 9, "member".to_string()),
        ],
        "{findings:#?}"
    );
    let msg = findings[1]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("`TextNode` has no member `layoutMode`"),
        "{msg}"
    );
}

/// A use right after a write the docs type is judged by that write, though the
/// variable as a whole holds values the docs do not type (a real handler declared `var
/// mainComponent` twice, once over such a value, and read it after an awaited lookup).
/// Silent where the write may not have run or the name may have changed since: a write
/// in a block that does not hold the use, another write between, a loop or a function
/// between, another function writing the name.
#[test]
fn a_use_right_after_a_write_is_typed_by_that_write() {
    let findings = check_text(concat!(
        "async function handler(msg) {\n",
        "  var style = msg.style;\n",
        "  if (msg.id) {\n",
        "    var style = await loom.getStyleAsync(msg.id);\n",
        "    loom.notify(style.nmae);\n",
        "  }\n",
        "  loom.notify(style.nmae);\n",
        "  style = await loom.getStyleAsync(\"a\");\n",
        "  later(() => style.nmae);\n",
        "  for (const k of [1]) loom.notify(style.nmae + k);\n",
        "  loom.notify(style.nmae);\n",
        "  style = msg.other;\n",
        "  loom.notify(style.nmae);\n",
        "}\n",
        "async function outer(msg) {\n",
        "  var v = msg.v;\n",
        "  v = await loom.getStyleAsync(\"b\");\n",
        "  function inner() { v = msg.w; }\n",
        "  inner();\n",
        "  loom.notify(v.nmae);\n",
        "}\n",
        "function later(f) { return f; }\n",
        "handler({});\n",
        "outer({});\n",
    ));
    assert_eq!(
        lines_and_codes(&findings),
        vec![
            (5, 23, "member".to_string()),
            (11, 21, "member".to_string())
        ],
        "{findings:#?}"
    );
    let msg = findings[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("`Style` has no member `nmae`"), "{msg}");
}
