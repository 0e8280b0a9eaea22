//! Engines whose API arrives through modules (corpus-format.md, "Modules (turn 6)"):
//! import and `require` bindings are declarations typed by the module's interface, an
//! unknown module is a `module` finding, relative imports name project files, and
//! `Scripts run alone: yes` keeps each script to what it loads. Through the real binary,
//! on the Relay demo (`corpus/relay`, `examples/relay`) and on corpora written here.

use std::path::{Path, PathBuf};

use crate::common::atlas::{array, json, write};
use crate::common::shown_findings as shown;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Relay demo's corpus, by absolute path (the temp projects below use it).
fn relay_docs() -> String {
    repo().join("corpus/relay").to_string_lossy().into_owned()
}

/// A temp project on `docs` with `toml` appended to its `grounded.toml` and `files`.
fn project(docs: &str, toml: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "grounded.toml",
        &format!("docs = {docs:?}\n{toml}"),
    );
    for (rel, text) in files {
        write(dir.path(), rel, text);
    }
    dir
}

fn check(root: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["check", "--format", "json"];
    all.extend(args);
    array(root, &all)
}

#[test]
fn the_relay_demo_is_silent_on_good_scripts_and_finds_each_planted_mistake() {
    let root = repo().join("examples/relay");
    let fs = check(&root, &["."]);
    let got = shown(&fs);
    // (file, code, line, column, words of the message)
    let planted: &[(&str, &str, u64, u64, &str)] = &[
        (
            "mistakes/module.js",
            "module",
            2,
            22,
            "did you mean `relay/net`",
        ),
        (
            "mistakes/member.js",
            "member",
            2,
            10,
            "module `relay` has no export `chek`; did you mean `check`",
        ),
        (
            "mistakes/namespace.js",
            "member",
            5,
            7,
            "`Net` has no member `gett`",
        ),
        (
            "mistakes/require.js",
            "member",
            2,
            9,
            "has no export `fnd`; did you mean `find`",
        ),
        (
            "mistakes/default.js",
            "member",
            5,
            11,
            "`DeviceHub` has no member `devise`",
        ),
        (
            "mistakes/call.js",
            "member",
            5,
            16,
            "`Device` has no member `switchOn`",
        ),
        (
            "mistakes/file.js",
            "file",
            2,
            23,
            "names no file of the project",
        ),
        (
            "mistakes/function.js",
            "function",
            4,
            10,
            "declared in the project's `lib/rooms.js`, which this script does not load",
        ),
    ];
    for (file, code, line, column, words) in planted {
        let here: Vec<&Value> = fs.iter().filter(|f| f["path"] == *file).collect();
        assert_eq!(here.len(), 1, "{file}: exactly one finding: {got:#?}");
        let f = here[0];
        assert_eq!(f["code"], *code, "{file}: {got:#?}");
        assert_eq!(
            (f["line"].as_u64(), f["column"].as_u64()),
            (Some(*line), Some(*column)),
            "{file}"
        );
        assert!(
            f["message"].as_str().unwrap().contains(words),
            "{file}: {}",
            f["message"]
        );
    }
    // main.js, legacy.js and lib/rooms.js: every form of import, require and export.
    assert_eq!(fs.len(), planted.len(), "{got:#?}");
    // The unknown module's fix replaces the specifier inside its quotes.
    let module = fs.iter().find(|f| f["code"] == "module").unwrap();
    assert_eq!(module["fixes"][0]["edits"][0]["text"], "relay/net");
}

#[test]
fn corpus_lists_the_modules_and_doc_shows_a_modules_exports() {
    let root = repo().join("examples/relay");
    let v = json(&root, &["corpus", "--format", "json"]);
    assert_eq!(v["modules"]["relay/devices"], "Devices");
    assert_eq!(v["module_forms"], serde_json::json!(["esm", "commonjs"]));
    assert_eq!(v["remote_modules"], true);
    assert_eq!(
        v["entry_exports"],
        serde_json::json!(["setup", "default", "teardown"])
    );
    assert_eq!(v["scripts_run_alone"], true);
    assert_eq!(v["diagnostics"], serde_json::json!([]));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["doc", "relay/net"])
        .current_dir(&root)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("Exports of module \"relay/net\" (2)"),
        "{text}"
    );
    assert!(text.contains("get(url: string): Response"), "{text}");
}

#[test]
fn a_module_named_twice_a_default_export_of_nothing_and_a_stray_module_line_are_load_diagnostics() {
    let dir = project(
        "docs",
        "",
        &[(
            "docs/api.md",
            "# Engine\n\nECMAScript: 2015\n\n# A\n\nModule: \"m\"\n\nDefault export: Nothing\n\n## A-x\n\nSyntax: x: number\n\n# B\n\nModule: \"m\"\n\n## B-y\n\nSyntax: y: number\n\nModule: \"n\"\n",
        )],
    );
    let v = json(dir.path(), &["corpus", "--format", "json"]);
    let diags: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        diags
            .iter()
            .any(|d| d.contains("module \"m\" is named by `A` and `B`")),
        "{diags:#?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d.contains("`Default export: Nothing` names no documented interface")),
        "{diags:#?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d.contains("`Module: \"n\"` in `B-y`, which is no interface chunk")),
        "{diags:#?}"
    );
    // The first interface keeps the module; the dropped default gives the module object.
    assert_eq!(v["modules"]["m"], "A");
    write(
        dir.path(),
        "s.js",
        "import m from \"m\";\nm.x = 1;\nm.z = 2;\n",
    );
    let got = shown(&check(dir.path(), &["s.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("`A` has no member `z`"), "{got:#?}");
}

#[test]
fn import_bindings_are_declarations_typed_by_their_module() {
    let dir = project(
        &relay_docs(),
        "",
        &[(
            "s.js",
            "import devices, { find as f } from \"relay/devices\";\nimport * as net from \"relay/net\";\nimport { hub } from \"relay/devices\";\n\
             devices.device(\"a\").turnOn();\nf(\"b\").level = 3;\nhub.count;\nnet.post(\"u\", \"b\").status;\n\
             devices.count.toFixed(0);\nf(\"c\").nmae;\nhub.cuont;\n",
        )],
    );
    let got = shown(&check(dir.path(), &["s.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].contains("s.js:9:8 member `Device` has no member `nmae`"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("s.js:10:5 member `DeviceHub` has no member `cuont`"),
        "{got:#?}"
    );
}

#[test]
fn commonjs_names_are_the_engines_only_where_its_modules_line_says_commonjs() {
    let script = "const { find } = require(\"relay/devices\");\nmodule.exports = find;\nexports.x = require(\"relay/net\").gett;\n";
    let dir = project(&relay_docs(), "", &[("s.js", script)]);
    let got = shown(&check(dir.path(), &["s.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("s.js:3:34 member `Net` has no member `gett`"),
        "{got:#?}"
    );
    // An ES-modules-only engine: `require`, `module` and `exports` are names like any.
    let docs = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("corpus/relay/engine.md"))
        .unwrap()
        .replace("Modules: esm commonjs", "Modules: esm");
    write(docs.path(), "engine.md", &text);
    std::fs::copy(
        repo().join("corpus/relay/modules.md"),
        docs.path().join("modules.md"),
    )
    .unwrap();
    let esm = project(&docs.path().to_string_lossy(), "", &[("s.js", script)]);
    let got = shown(&check(esm.path(), &["s.js"]));
    assert!(
        got.iter()
            .any(|g| g.contains("`require` is defined nowhere")),
        "{got:#?}"
    );
    assert!(
        got.iter()
            .any(|g| g.contains("`module` is declared nowhere")),
        "{got:#?}"
    );
}

#[test]
fn bundled_modules_remote_urls_dynamic_imports_and_computed_requires_are_never_judged() {
    let script = "import _ from \"lodash\";\nimport fp from \"lodash/fp\";\nimport { r } from \"https://cdn.example/r.js\";\n\
                  const name = \"relay\";\nconst x = require(name);\nimport(\"relay/nowhere\").then(function (m) { return m; });\n\
                  _.chunk(fp, r, x);\n";
    let dir = project(
        &relay_docs(),
        "modules = [\"lodash\"]\n",
        &[("s.js", script)],
    );
    assert_eq!(shown(&check(dir.path(), &["s.js"])), Vec::<String>::new());
    // Without the project's word, the same imports are modules the engine lacks.
    let bare = project(&relay_docs(), "", &[("s.js", script)]);
    let got = shown(&check(bare.path(), &["s.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got.iter().all(|g| g.contains(" module `lodash")),
        "{got:#?}"
    );
    // Without `Remote modules: yes`, a URL is no module of the engine either.
    let docs = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("corpus/relay/engine.md"))
        .unwrap()
        .replace("Remote modules: yes\n", "");
    write(docs.path(), "engine.md", &text);
    std::fs::copy(
        repo().join("corpus/relay/modules.md"),
        docs.path().join("modules.md"),
    )
    .unwrap();
    let local = project(
        &docs.path().to_string_lossy(),
        "modules = [\"lodash\"]\n",
        &[("s.js", script)],
    );
    let got = shown(&check(local.path(), &["s.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("`https://cdn.example/r.js` is not a module"),
        "{got:#?}"
    );
}

#[test]
fn relative_imports_outside_the_project_circular_ones_and_odd_specifiers_never_panic() {
    let dir = project(
        &relay_docs(),
        "",
        &[
            ("a.js", "import { b } from \"./b.js\";\nexport function a() { return b(); }\n"),
            ("b.js", "import { a } from \"./a\";\nexport function b() { return a(); }\n"),
            // Imported by default below: it says `export default` (a default import of a
            // file with none is a finding of its own test).
            ("lib/index.js", "export const v = 1;\nexport default v;\n"),
            ("c.js", "import { v } from \"./lib\";\nimport w from \"../outside.js\";\nimport q from \"/lib/index.js\";\nconst t = require(`relay`);\nv + w + q + t;\n"),
        ],
    );
    let got = shown(&check(dir.path(), &["."]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("c.js:2:15 file \"../outside.js\" leaves the project folder"),
        "{got:#?}"
    );
}

#[test]
fn scripts_that_run_alone_see_only_what_they_load() {
    let files: &[(&str, &str)] = &[
        (
            "docs/engine.md",
            "# Engine\n\nECMAScript: 5\nScripts run alone: yes\n",
        ),
        (
            "helpers.js",
            "function helper() { return 1; }\nfunction format() { return 2; }\n",
        ),
        ("b.js", "helper();\nformt();\n"),
    ];
    let dir = project("docs", "", files);
    let got = shown(&check(dir.path(), &["b.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].contains(
            "`helper` is declared in the project's `helpers.js`, which this script does not load"
        ),
        "{got:#?}"
    );
    // Near names come only from what the script sees: `format` of helpers.js is none.
    assert!(
        got[1].contains("`formt` is defined nowhere") && !got[1].contains("format"),
        "{got:#?}"
    );
    // Without the line, the project's scripts share one scope: `helper` is there.
    let shared = project("docs", "", files);
    write(
        shared.path(),
        "docs/engine.md",
        "# Engine\n\nECMAScript: 5\n",
    );
    let got = shown(&check(shared.path(), &["b.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("did you mean `format`"), "{got:#?}");
}

/// The second demo made from TypeScript declarations the test writes (a package folder
/// of ES modules and a `declare module` file), imported with `grounded import dts`, then
/// a good script and one planted mistake per kind checked against it.
#[test]
fn a_corpus_imported_from_module_declarations_checks_module_scripts() {
    let dir = project(
        "corpus",
        "",
        &[
            ("types/relaykit/package.json", "{\"name\": \"@types/relaykit\"}\n"),
            (
                "types/relaykit/index.d.ts",
                "export interface Device {\n  readonly name: string;\n  turnOn(): void;\n}\n\
                 export function find(name: string): Device;\nexport function log(message: string): void;\n",
            ),
            (
                "types/relaykit/net/index.d.ts",
                "export interface Response {\n  readonly status: number;\n}\n\
                 export function get(url: string): Response;\n",
            ),
            (
                "types/extra.d.ts",
                "declare module \"relaykit-extra\" {\n  export function ping(): number;\n}\n",
            ),
        ],
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args([
            "import",
            "dts",
            "--es",
            "2020",
            "--out",
            "corpus",
            "types/relaykit",
            "types/extra.d.ts",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(dir.path(), &["corpus", "--format", "json"]);
    for m in ["relaykit", "relaykit/net", "relaykit-extra"] {
        assert!(v["modules"][m].is_string(), "{m}: {:#}", v["modules"]);
    }
    write(
        dir.path(),
        "good.js",
        "import { find, log } from \"relaykit\";\nimport * as net from \"relaykit/net\";\nimport { ping } from \"relaykit-extra\";\n\
         find(\"a\").turnOn();\nlog(\"x\" + net.get(\"u\").status + ping() + find(\"b\").name);\n",
    );
    assert_eq!(
        shown(&check(dir.path(), &["good.js"])),
        Vec::<String>::new()
    );
    write(
        dir.path(),
        "bad.js",
        "import { fnd } from \"relaykit\";\nimport * as net from \"relaykit/nett\";\nimport * as web from \"relaykit/net\";\nimport { find } from \"relaykit\";\n\
         web.gett(\"u\");\nfind(\"a\").turnOff();\nfnd(net);\n",
    );
    let got = shown(&check(dir.path(), &["bad.js"]));
    assert_eq!(got.len(), 4, "{got:#?}");
    assert!(
        got[0].contains(
            "bad.js:1:10 member module `relaykit` has no export `fnd`; did you mean `find`"
        ),
        "{got:#?}"
    );
    assert!(
        got[1].contains("bad.js:2:22 module `relaykit/nett` is not a module of this engine"),
        "{got:#?}"
    );
    assert!(
        got[2].contains("bad.js:5:5 member") && got[2].contains("`gett`"),
        "{got:#?}"
    );
    assert!(
        got[3].contains("bad.js:6:11 member") && got[3].contains("`turnOff`"),
        "{got:#?}"
    );
}

/// A class a documented module exports is built with `new` of its import binding, and
/// the object is as certain as a global constructor's: on a real module engine (k6's
/// `import { Client } from "k6/net/grpc"; const client = new Client()`), typing every
/// declared name as unknown lost every `new` site that was caught when the same class
/// was a global.
#[test]
fn new_of_an_imported_class_is_typed_by_its_documented_constructor() {
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "api.md",
        "# Engine\n\nECMAScript: 2015\n\n# Wire\n\nModule: \"wire\"\n\n## Wire-Socket\n\nSyntax: readonly Socket: Function\n\n\
         # Socket\n\nConstructor: new Socket(url: string)\n\n## Socket-send\n\nSyntax: send(data: string): void\n\n\
         ## Socket-close\n\nSyntax: close(): void\n",
    );
    let dir = project(
        &docs.path().to_string_lossy(),
        "",
        &[
            (
                "good.js",
                "import { Socket } from \"wire\";\nimport { Socket as S } from \"wire\";\n\
                 const s = new Socket(\"ws://a\");\ns.send(\"x\");\nnew S(\"ws://b\").close();\n",
            ),
            (
                "bad.js",
                "import { Socket as S } from \"wire\";\nconst s = new S(\"ws://a\");\ns.sendd(\"x\");\n",
            ),
            (
                // A class of the script's own, of the same name: not the docs' one.
                "own.js",
                "class Socket { sendd() {} }\nconst s = new Socket();\ns.sendd();\n",
            ),
        ],
    );
    assert!(shown(&check(dir.path(), &["good.js"])).is_empty());
    assert!(shown(&check(dir.path(), &["own.js"])).is_empty());
    let got = shown(&check(dir.path(), &["bad.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("bad.js:3:3 member `Socket` has no member `sendd`"),
        "{got:#?}"
    );
}

/// A relative import reads the project file's exports like a module's (issue 44, "What
/// to build" 2): a named import or destructured `require` name the file does not export
/// is a `member` finding with near names, only where the file's exports are certain.
#[test]
fn names_a_project_file_does_not_export_are_member_findings_only_when_its_exports_are_certain() {
    let dir = project(
        &relay_docs(),
        "modules = [\"lodash\"]\n",
        &[
            (
                "lib/util.js",
                "import { find } from \"relay/devices\";\nexport const lamp = find(\"lamp\");\n\
                 export function format(x) { return \"\" + x; }\nexport { format as fmt };\nexport default function () {}\n",
            ),
            (
                "lib/all.js",
                "export * from \"./util.js\";\nexport * from \"relay/net\";\nexport * from \"./all.js\";\nexport const extra = 1;\n",
            ),
            (
                "lib/cj.js",
                "module.exports = { helper, run() {} };\nexports.more = 2;\nmodule.exports.last = 3;\nfunction helper() {}\n",
            ),
            // Uncertain exports: computed, not an object, a star from an unknown module,
            // a plain script, both systems at once, a syntax error.
            (
                "lib/cjdev.js",
                "const devices = require(\"relay/devices\");\nconst dev = devices.find(\"lamp\");\nmodule.exports = { dev };\n",
            ),
            ("lib/dyn.js", "const k = \"a\";\nmodule.exports[k] = 1;\n"),
            ("lib/made.js", "module.exports = make();\nfunction make() { return {}; }\n"),
            ("lib/star.js", "export * from \"lodash\";\n"),
            ("lib/plain.js", "function notExported() {}\n"),
            ("lib/mixed.js", "export const a = 1;\nmodule.exports.b = 2;\n"),
            ("lib/broken.js", "export const a = ;\n"),
            (
                "good.js",
                "import d, { fmt, lamp, format } from \"./lib/util.js\";\nimport { extra, post, format as f2 } from \"./lib/all.js\";\n\
                 import { anything } from \"./lib/dyn.js\";\nimport { x } from \"./lib/star.js\";\nimport { notExported } from \"./lib/plain.js\";\n\
                 import { b } from \"./lib/mixed.js\";\nimport { zz } from \"./lib/broken.js\";\nimport { helper } from \"./lib/cj.js\";\n\
                 const { helper: h, more, last, run } = require(\"./lib/cj\");\nconst { whatever } = require(\"./lib/dyn\");\n\
                 const { y } = require(\"./lib/made.js\");\nconst { lamp: l2 } = require(\"./lib/util.js\");\n\
                 export { extra as again } from \"./lib/all.js\";\nd(fmt, lamp, format, extra, post, f2, anything, x, notExported, b, zz, helper, h, more, last, run, whatever, y, l2);\n\
                 lamp.turnOn();\nimport { default as u } from \"./lib/util.js\";\nu();\n\
                 const { dev } = require(\"./lib/cjdev\");\ndev.turnOn();\n",
            ),
            (
                "bad.js",
                "import { formt, nope } from \"./lib/util.js\";\nimport { zzz } from \"./lib/all.js\";\n\
                 export { gone } from \"./lib/util\";\nconst { helpr } = require(\"./lib/cj\");\nformt(nope, zzz, helpr);\n\
                 import { lamp } from \"./lib/all.js\";\nlamp.nmae;\n\
                 import whole from \"./lib/all.js\";\nwhole();\n\
                 const { dev } = require(\"./lib/cjdev\");\ndev.nmae;\n",
            ),
        ],
    );
    let got = shown(&check(dir.path(), &["."]));
    let broken: Vec<&String> = got.iter().filter(|g| g.contains("lib/broken.js")).collect();
    let rest: Vec<&String> = got
        .iter()
        .filter(|g| !g.contains("lib/broken.js"))
        .collect();
    assert!(!broken.is_empty(), "the syntax error is said: {got:#?}");
    assert_eq!(rest.len(), 8, "{got:#?}");
    assert!(
        rest[0].contains("bad.js:1:10 member \"./lib/util.js\" (`lib/util.js`) has no export `formt`; did you mean `format`?"),
        "{got:#?}"
    );
    assert!(
        rest[1].contains("bad.js:1:17 member \"./lib/util.js\" (`lib/util.js`) has no export `nope`; its exports are `fmt`, `format`, `lamp`"),
        "{got:#?}"
    );
    // Through `export *`: the project file's names and the documented module's.
    assert!(
        rest[2].contains("bad.js:2:10 member \"./lib/all.js\" (`lib/all.js`) has no export `zzz`; its exports are `extra`, `fmt`, `format`, `get`, `lamp`, `post`"),
        "{got:#?}"
    );
    assert!(
        rest[3].contains("bad.js:3:10 member \"./lib/util\" (`lib/util.js`) has no export `gone`"),
        "{got:#?}"
    );
    assert!(
        rest[4].contains("bad.js:4:9 member \"./lib/cj\" (`lib/cj.js`) has no export `helpr`; did you mean `helper`?"),
        "{got:#?}"
    );
    // The binding is typed as the file's own typing types the export (`find(...)` of
    // `relay/devices` gives a `Device`), through `export *` too.
    assert!(
        rest[5].contains("bad.js:7:6 member `Device` has no member `nmae`"),
        "{got:#?}"
    );
    // `export *` passes no default export on: a default import of such a file is empty.
    assert!(
        rest[6].contains("bad.js:8:8 member \"./lib/all.js\" (`lib/all.js`) has no default export"),
        "{got:#?}"
    );
    // A destructured `require` of a project file is typed from its certain
    // `module.exports` the same way (`dev` is what `devices.find(...)` gives).
    assert!(
        rest[7].contains("bad.js:11:5 member `Device` has no member `nmae`"),
        "{got:#?}"
    );
    // The near name is the finding's fix; the file's exports, not the finding, say it.
    let fs = check(dir.path(), &["bad.js"]);
    let fix = |i: usize| fs[i]["fixes"][0]["edits"][0]["text"].clone();
    assert_eq!(fix(0), "format", "{fs:#?}");
    assert!(
        fs[1]["fixes"].as_array().is_none_or(|a| a.is_empty()),
        "{fs:#?}"
    );
    assert_eq!(fix(4), "helper", "{fs:#?}");
    // Fixed as the editor would: the importer is silent.
    write(
        dir.path(),
        "bad.js",
        "import { format, fmt } from \"./lib/util.js\";\nimport { get } from \"./lib/all.js\";\n\
         export { lamp } from \"./lib/util\";\nconst { helper } = require(\"./lib/cj\");\nformat(fmt, get, helper);\n",
    );
    assert_eq!(shown(&check(dir.path(), &["bad.js"])), Vec::<String>::new());
}

/// A fictional engine whose tabs run code the docs take as a function or as its source
/// text (`string | ((arg: any) => any)`): that function runs elsewhere, so names the
/// script does not declare are not judged inside it (k6's `page.evaluate(() =>
/// window...)`: 18 wrong accusations on real scripts); the corpus's typed receivers
/// still are, and the same names outside it, in a callback the docs take only as a
/// function, or where the docs take `string | Function`, are findings.
#[test]
fn names_inside_a_function_the_docs_take_as_source_text_are_not_judged() {
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "engine.md",
        "# Engine\n\nScope drives browser tabs from scripts.\n\nECMAScript: 2020\nScript extensions: .js\nModules: esm\n",
    );
    write(
        docs.path(),
        "scope.md",
        "# Scope\n\nModule: \"scope\"\n\n## Scope-open\n\nSyntax: open(url: string): Tab\n\nOpens a tab.\n\n\
         # Tab\n\nA browser tab.\n\n## Tab-run\n\nSyntax: run(code: string | ((arg: any) => any), arg?: any): any\n\n\
         Runs `code` in the tab's page; a string is the code's source text.\n\n\
         ## Tab-go\n\nSyntax: go(step: (arg: any) => any): void\n\nCalls `step` in the script.\n\n\
         ## Tab-later\n\nSyntax: later(code: string | Function): void\n\nRuns `code` in the script later.\n\n\
         ## Tab-title\n\nSyntax: readonly title: string\n\nThe page's title.\n",
    );
    let dir = project(
        &docs.path().to_string_lossy(),
        "",
        &[
            (
                "good.js",
                "import { open } from \"scope\";\nconst tab = open(\"u\");\n\
                 tab.run(function () { return window.location.href + document.title + navigator.userAgent; });\n\
                 tab.run(() => { scrollTo(0, 0); window.x.y(); }, 1);\n\
                 tab.run(\"document.title\");\nconst holder = { t: tab };\n\
                 holder.t.run(function () { return window.innerWidth; });\n",
            ),
            (
                "bad.js",
                "import { open } from \"scope\";\nconst tab = open(\"u\");\n\
                 tab.go(() => window.title);\ntab.run(function () { return tab.titel; });\n\
                 tab.go(function () { scrollTo(0, 0); });\nwindow.alert(\"x\");\n\
                 tab.later(function () { return document.title; });\n",
            ),
        ],
    );
    let got = shown(&check(dir.path(), &["."]));
    assert_eq!(got.len(), 5, "{got:#?}");
    assert!(
        got[0].contains("bad.js:3:14 object `window` is declared nowhere"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("bad.js:4:34 member `Tab` has no member `titel`"),
        "{got:#?}"
    );
    assert!(
        got[2].contains("bad.js:5:22 function `scrollTo` is defined nowhere"),
        "{got:#?}"
    );
    assert!(
        got[3].contains("bad.js:6:1 object `window` is declared nowhere"),
        "{got:#?}"
    );
    // `string | Function` (InDesign's `doScript` has one too) runs in the script's own
    // engine: names there are judged as anywhere.
    assert!(
        got[4].contains("bad.js:7:32 object `document` is declared nowhere"),
        "{got:#?}"
    );
}

/// `await` of a value the docs do not type as a promise is the value itself (issue 44,
/// the CommonJS measurement's miss D: `await app.documents.getByName(n)` on Photoshop
/// UXP scripts lost the `Document`). Only an interface that documents no `then` keeps
/// its type: `await` of a thenable is whatever its `then` gives, so nothing is judged.
#[test]
fn await_of_a_documented_value_that_is_no_promise_keeps_its_interface() {
    let docs = tempfile::tempdir().unwrap();
    let modules = std::fs::read_to_string(repo().join("corpus/relay/modules.md"))
        .unwrap()
        .replace(
            "# Device\n",
            "## DeviceHub-job\n\nSyntax: job(): Job\n\n# Device\n",
        )
        + "\n# Job\n\nA thenable task.\n\n## Job-then\n\nSyntax: then(done: any): void\n\n## Job-id\n\nSyntax: readonly id: number\n";
    write(docs.path(), "modules.md", &modules);
    write(
        docs.path(),
        "engine.md",
        &std::fs::read_to_string(repo().join("corpus/relay/engine.md")).unwrap(),
    );
    let d = docs.path().to_string_lossy().into_owned();
    let good = "const devices = require(\"relay/devices\");\nconst hub = require(\"relay/devices\").hub;\n\
                async function f() {\n  const d = await devices.find(\"x\");\n  d.turnOn();\n\
                  const j = await hub.job();\n  j.whatever;\n  const n = await hub.count;\n  n.toFixed(1);\n}\nf();\n";
    let bad = "const devices = require(\"relay/devices\");\n\
               async function f() {\n  const d = await devices.find(\"x\");\n  d.turnOnn();\n  (await devices.find(\"y\")).nmae;\n}\nf();\n";
    let dir = project(&d, "", &[("good.js", good), ("bad.js", bad)]);
    assert_eq!(
        shown(&check(dir.path(), &["good.js"])),
        Vec::<String>::new()
    );
    let got = shown(&check(dir.path(), &["bad.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].contains("bad.js:4:5 member `Device` has no member `turnOnn`"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("bad.js:5:29 member `Device` has no member `nmae`"),
        "{got:#?}"
    );
}

/// The Relay corpus without `Scripts run alone: yes`, in a temp folder (its path).
fn relay_shared_docs() -> tempfile::TempDir {
    let docs = tempfile::tempdir().unwrap();
    let engine = std::fs::read_to_string(repo().join("corpus/relay/engine.md"))
        .unwrap()
        .replace("Scripts run alone: yes\n", "");
    write(docs.path(), "engine.md", &engine);
    write(
        docs.path(),
        "modules.md",
        &std::fs::read_to_string(repo().join("corpus/relay/modules.md")).unwrap(),
    );
    docs
}

/// A plug-in laid out as Photoshop UXP ones are (issue 44, the CommonJS measurement,
/// B): the panel loads `ui/js/main.js`, whose `require("./modules/util.js")` names the
/// plug-in's `modules/util.js`. Nothing in the docs says where `require` starts, so a
/// file that a folder above the script's holds is no `file` finding, and its exports are
/// judged; a name no folder resolves still is, and an ES `import` keeps its fixed rule.
#[test]
fn a_relative_require_may_name_a_file_from_a_folder_above_the_script() {
    let docs = relay_shared_docs();
    let d = docs.path().to_string_lossy().into_owned();
    let files: &[(&str, &str)] = &[
        (
            "plugin/ui/js/main.js",
            "const util = require(\"./modules/util.js\");\nconst { go } = require(\"./modules/util\");\n\
             const { any } = require(\"./lib/twice.js\");\nutil.go(go, any);\n",
        ),
        ("plugin/modules/util.js", "module.exports = { go };\nfunction go() {}\n"),
        // Two files answer `./lib/twice.js` (the script's folder's and the plug-in's):
        // which one loads is not certain, so neither's exports are judged.
        ("plugin/ui/js/lib/twice.js", "module.exports = { one: 1 };\n"),
        ("plugin/lib/twice.js", "module.exports = { two: 2 };\n"),
        (
            "plugin/ui/js/bad.js",
            "const { goo } = require(\"./modules/util.js\");\nrequire(\"./modules/nothere.js\");\ngoo();\n",
        ),
        (
            "plugin/ui/js/esm.js",
            "import { go } from \"./modules/util.js\";\ngo();\n",
        ),
    ];
    let dir = project(&d, "", files);
    let got = shown(&check(dir.path(), &["plugin/ui/js/main.js"]));
    assert_eq!(got, Vec::<String>::new());
    let got = shown(&check(dir.path(), &["plugin/ui/js/bad.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].contains("bad.js:1:9 member \"./modules/util.js\" (`plugin/modules/util.js`) has no export `goo`; did you mean `go`?"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("bad.js:2:9 file \"./modules/nothere.js\" names no file of the project (from this script's folder: `plugin/ui/js/modules/nothere.js`, with or without a script extension, nor from a folder above it up to the project's)"),
        "{got:#?}"
    );
    let got = shown(&check(dir.path(), &["plugin/ui/js/esm.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("esm.js:1:20 file \"./modules/util.js\" names no file of the project (from this script's folder: `plugin/ui/js/modules/util.js`, with or without a script extension); the project has `plugin/modules/util.js`"),
        "{got:#?}"
    );
}

/// A CommonJS file sees the top-level names of the project's plain scripts (issue 44,
/// the CommonJS measurement, C): the panel's classic entry script declares `helper` and
/// `require`s `modules/util.js`, which uses it; at run time the name is a global. A
/// module's names stay its own (a CommonJS file's, an ES module's), an ES module sees no
/// plain script's names it does not load, and where scripts run alone nothing is shared.
#[test]
fn a_commonjs_file_sees_the_top_level_names_of_plain_scripts() {
    let docs = relay_shared_docs();
    let d = docs.path().to_string_lossy().into_owned();
    let files: &[(&str, &str)] = &[
        (
            "ui/js/main.js",
            "const helper = { run() {} };\nvar themes = [];\nconst util = require(\"./modules/util.js\");\nutil.go();\n",
        ),
        (
            "modules/util.js",
            "module.exports = { go };\nfunction go() { helper.run(); themes.push(1); }\n",
        ),
        (
            "modules/other.js",
            "module.exports = { inner };\nfunction inner() {}\n",
        ),
        (
            "modules/bad.js",
            "module.exports = { f };\nfunction f() { inner(); }\n",
        ),
        (
            "esm.js",
            "import { log } from \"relay\";\nexport function g() { log(\"\"); helper.run(); }\n",
        ),
    ];
    let dir = project(&d, "", files);
    let got = shown(&check(dir.path(), &["modules/util.js", "ui/js/main.js"]));
    assert_eq!(got, Vec::<String>::new());
    // `inner` is a CommonJS module's own name: not shared.
    let got = shown(&check(dir.path(), &["modules/bad.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("modules/bad.js:2:16 function `inner` is declared in the project's `modules/other.js`, which this script does not load"),
        "{got:#?}"
    );
    let got = shown(&check(dir.path(), &["esm.js"]));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("esm.js:2:32 object `helper`"), "{got:#?}");
    // Where the docs say scripts run alone, the file sees only what it loads.
    let alone = project(&relay_docs(), "", files);
    let got = shown(&check(alone.path(), &["modules/util.js"]));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].contains("modules/util.js:2:17 object `helper`"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("modules/util.js:2:31 object `themes`"),
        "{got:#?}"
    );
}
