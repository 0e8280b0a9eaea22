//! The dry run of engines whose API arrives through modules (issue 44), through the
//! real binary on the Relay demo: imports and `require` give the corpus's fake modules,
//! the project's own files run as modules, and an entry's `Entry exports:` are called in
//! order after its top level.

use std::path::{Path, PathBuf};

use crate::common::atlas::{array, write};
use serde_json::Value;

fn relay() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/relay")
}

/// A temp project whose `grounded.toml` names the Relay corpus.
fn relay_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "grounded.toml",
        &format!("docs = {:?}\n", relay().to_string_lossy()),
    );
    dir
}

fn dry(root: &Path, file: &str) -> Vec<String> {
    array(root, &["dry-run", file, "--format", "json"])
        .iter()
        .map(|f: &Value| {
            format!(
                "{}:{}:{} {}",
                f["path"].as_str().unwrap_or(""),
                f["line"],
                f["column"],
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn the_relay_demo_runs_its_modules_silent_and_catches_invented_members() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/relay");
    assert_eq!(dry(&root, "main.js"), Vec::<String>::new());
    assert_eq!(dry(&root, "legacy.js"), Vec::<String>::new());
    // Inside the default export: reached only because the engine calls it.
    let got = dry(&root, "mistakes/call.js");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("mistakes/call.js:5:16 `Device` has no member `switchOn`"),
        "{got:#?}"
    );
    let got = dry(&root, "mistakes/namespace.js");
    assert!(
        got.len() == 1 && got[0].contains("`Net` has no member `gett`"),
        "{got:#?}"
    );
    let got = dry(&root, "mistakes/member.js");
    assert!(
        got.len() == 1 && got[0].contains("`Relay` has no member `chek`"),
        "{got:#?}"
    );
}

#[test]
fn entry_exports_are_called_in_order_and_project_files_are_modules() {
    let dir = relay_project();
    // Each step uses what the one before it set: in any other order a step reads
    // `undefined` and never reaches its invented member.
    write(
        dir.path(),
        "main.js",
        "import { find } from \"relay/devices\";\nimport { lamp } from \"./lib/house.js\";\n\
         var a, b;\n\
         export function teardown() { b.third(); }\n\
         export default function () { a.second(); b = lamp(); }\n\
         export function setup() { a = find(\"a\"); a.first(); }\n\
         var local = 1;\n",
    );
    write(
        dir.path(),
        "lib/house.js",
        "const { find } = require(\"relay/devices\");\nexports.lamp = function () { return find(\"lamp\"); };\n",
    );
    let got = dry(dir.path(), "main.js");
    let members: Vec<&str> = got
        .iter()
        .filter_map(|g| g.split("has no member `").nth(1))
        .map(|r| r.split('`').next().unwrap_or(""))
        .collect();
    let mut sorted = members.clone();
    sorted.sort();
    assert_eq!(sorted, ["first", "second", "third"], "{got:#?}");
    // A module's top-level names stay its own: `local` is no global of another file.
    write(dir.path(), "other.js", "import \"./main.js\";\nlocal.x;\n");
    let got = dry(dir.path(), "other.js");
    assert!(
        got.iter().any(|g| g.contains("local is not defined")),
        "{got:#?}"
    );
}

/// A name taken by destructuring is placed at its key: QuickJS gives that read the
/// place of what ran before it (a module's wrapper on line 1, the enclosing function's
/// start, the statement before), and the finding once said line 1.
#[test]
fn a_destructured_name_the_module_lacks_is_placed_at_its_key() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/relay");
    let got = dry(&root, "mistakes/require.js");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("mistakes/require.js:2:9 `Devices` has no member `fnd`"),
        "{got:#?}"
    );
    let dir = relay_project();
    write(
        dir.path(),
        "a.js",
        "// one\n// two\nconst { fnd } = require(\"relay/devices\");\nfunction f() {\n  const { hb } = require(\"relay/devices\");\n}\nf();\n\
         const net = require(\"relay/net\");\nconst { gett: g } = net;\nconst { get } = net;\nget(\"u\");\n",
    );
    let got = dry(dir.path(), "a.js");
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].starts_with("a.js:3:9 `Devices` has no member `fnd`"),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with("a.js:5:11 `Devices` has no member `hb`"),
        "{got:#?}"
    );
    assert!(
        got[2].starts_with("a.js:9:9 `Net` has no member `gett`"),
        "{got:#?}"
    );
}

/// A relative `require` starts where the checker's does (`module::resolve_require`): in
/// Photoshop UXP a script its panel loads from `ui/js/` requires `"./modules/util.js"`
/// from the plug-in's folder. With the import's rule (from the script's own folder) the
/// run loaded nothing, so what the file exports was never run and its invented member
/// was missed.
#[test]
fn a_require_loads_the_file_a_folder_above_the_script_names() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "grounded.toml",
        &format!("docs = {:?}\n", relay().to_string_lossy()),
    );
    write(
        dir.path(),
        "plugin/modules/util.js",
        "const { find } = require(\"relay/devices\");\nexports.lamp = function () { return find(\"lamp\"); };\n",
    );
    write(
        dir.path(),
        "plugin/ui/js/main.js",
        "const util = require(\"./modules/util.js\");\nconst lamp = util.lamp();\nlamp.switchOn();\n",
    );
    let got = dry(dir.path(), "plugin/ui/js/main.js");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("plugin/ui/js/main.js:3:6 `Device` has no member `switchOn`"),
        "{got:#?}"
    );
    // Known good: the same file with a documented member is silent.
    write(
        dir.path(),
        "plugin/ui/js/good.js",
        "const util = require(\"./modules/util.js\");\nutil.lamp();\n",
    );
    assert_eq!(
        dry(dir.path(), "plugin/ui/js/good.js"),
        Vec::<String>::new()
    );
    // A name no folder resolves loads nothing, as before (the checker's `file` finding
    // says so): the run goes on with a value that accepts everything, past it to the
    // corpus module's invented member on line 3.
    write(
        dir.path(),
        "plugin/ui/js/missing.js",
        "const util = require(\"./modules/nowhere.js\");\nutil.lamp().switchOn();\n\
         require(\"relay/devices\").find(\"x\").switchOn();\n",
    );
    let got = dry(dir.path(), "plugin/ui/js/missing.js");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with("plugin/ui/js/missing.js:3:"), "{got:#?}");
    // Two folders giving two files: which one loads is not certain, and neither runs.
    write(
        dir.path(),
        "plugin/ui/modules/util.js",
        "exports.lamp = function () { return { on: 1 }; };\n",
    );
    let got = dry(dir.path(), "plugin/ui/js/main.js");
    assert!(!got.iter().any(|g| g.contains("switchOn")), "{got:#?}");
}
