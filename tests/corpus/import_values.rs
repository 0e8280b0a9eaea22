//! `grounded import dts` on module values TypeScript reaches through a namespace or a
//! type query, through the real binary: a namespace holding only classes and
//! namespaces is a member of its module (UXP's `require("uxp").storage`), and
//! `import("./lib").App` and `typeof ns` of an imported namespace, class or module
//! object are typed (@types/photoshop's `app` and `core`), each with scripts checked
//! against the corpus: the known-good silent, the known-bad named at their lines; what
//! the importer cannot type is named in its summary.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{chunks, first_line, folder, grounded};

const OPTIONS: (&str, &str) = (
    "opts.toml",
    "es = \"2020\"\nextensions = [\".js\"]\nmodules = [\"commonjs\"]\n",
);

/// Imports `path` with the CommonJS options into `dir/out`: title → text, and the
/// summary.
fn import_ok(dir: &Path, path: &str) -> (BTreeMap<String, String>, String) {
    let o = grounded(
        &[
            "import",
            "dts",
            "--options",
            "opts.toml",
            "--out",
            "out",
            path,
        ],
        dir,
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "import failed: {err}");
    assert!(err.contains("the corpus loads with no diagnostic"), "{err}");
    (chunks(&dir.join("out")), err)
}

/// `grounded check` of one script against `out`: (line, message) of each finding.
fn check(dir: &Path, name: &str, text: &str) -> Vec<(u64, String)> {
    std::fs::write(dir.join(name), text).unwrap();
    let o = grounded(&["check", "--docs", "out", "--format", "json", name], dir);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// UXP's shape: `storage` holds only classes and a namespace, in a block of its own.
const SPACES: &str = r#"declare module "m" {
    namespace storage {
        class Entry { name: string; }
        namespace deep { class Inner { x: number; } }
    }
}
declare module "m" {
    export const shell: number;
    export namespace other { const lost: Nowhere; }
}
"#;

#[test]
fn a_namespace_of_classes_is_a_member_of_its_module() {
    let dir = folder(&[OPTIONS, ("m.d.ts", SPACES)]);
    let (c, err) = import_ok(dir.path(), "m.d.ts");
    assert_eq!(first_line(&c, "M-storage"), "readonly storage: storage");
    assert_eq!(first_line(&c, "storage-deep"), "deep: deep");
    // What it cannot type is named in the summary, with why.
    assert!(
        err.contains("`other.lost`: its declared type became `any` (a type parameter, or a name no file read declares)"),
        "{err}"
    );
    // A class in a namespace: the constructor value (no class object: no statics).
    assert_eq!(first_line(&c, "storage-Entry"), "Entry: Function");
    assert_eq!(first_line(&c, "deep-Inner"), "Inner: Function");
    let good = check(
        dir.path(),
        "good.js",
        "const st = require(\"m\").storage;\nconst E = require(\"m\").storage.Entry;\n\
         const I = st.deep.Inner;\nconst n = require(\"m\").shell + 1;\n",
    );
    assert!(good.is_empty(), "{good:?}");
    let bad = check(
        dir.path(),
        "bad.js",
        "const st = require(\"m\").storage;\nst.nmae;\nrequire(\"m\").storage.deep.Innr;\n",
    );
    let lines: Vec<u64> = bad.iter().map(|f| f.0).collect();
    assert_eq!(lines, vec![2, 3], "{bad:?}");
    assert!(
        bad[0].1.contains("`storage` has no member `nmae`"),
        "{bad:?}"
    );
    assert!(bad[1].1.contains("did you mean `Inner`"), "{bad:?}");
}

#[test]
fn a_module_of_only_such_namespaces_is_kept() {
    let first_block = SPACES
        .split("declare module \"m\" {\n    export")
        .next()
        .unwrap();
    let dir = folder(&[OPTIONS, ("m.d.ts", first_block)]);
    let (c, err) = import_ok(dir.path(), "m.d.ts");
    assert!(!err.contains("exports nothing"), "{err}");
    assert_eq!(first_line(&c, "M-storage"), "readonly storage: storage");
    let good = check(
        dir.path(),
        "good.js",
        "const st = require(\"m\").storage;\n",
    );
    assert!(good.is_empty(), "{good:?}");
    let bad = check(dir.path(), "bad.js", "const st = require(\"m\").stroage;\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].1.contains("`M` has no member `stroage`"), "{bad:?}");
}

/// @types/photoshop's shape: the index exports values typed by `import("./lib").T`
/// and `typeof` of what it imports.
const PACKAGE: &[(&str, &str)] = &[
    OPTIONS,
    (
        "m/package.json",
        r#"{ "name": "m", "types": "index.d.ts" }"#,
    ),
    (
        "m/lib.d.ts",
        r#"export declare class App { name: string; }
export declare namespace ns { function run(): void; }
"#,
    ),
    (
        "m/index.d.ts",
        r#"import { ns, App } from "./lib";
import * as lib from "./lib";
export declare const app: import("./lib").App;
export declare const core: typeof ns;
export declare const all: typeof lib;
export declare const K: typeof App;
export declare const far: import("./missing").T;
export declare const lost: typeof nowhere;
"#,
    ),
];

#[test]
fn import_types_and_typeof_of_imports_are_typed() {
    let dir = folder(PACKAGE);
    let (c, err) = import_ok(dir.path(), "m");
    assert_eq!(first_line(&c, "M-app"), "readonly app: App");
    assert_eq!(first_line(&c, "M-core"), "readonly core: ns");
    assert_eq!(first_line(&c, "M-all"), "readonly all: MLib");
    assert_eq!(first_line(&c, "M-K"), "readonly K: Function");
    // What it cannot type is named, with why, not only counted.
    assert!(
        err.contains("`M.far`: its declared type became `any`"),
        "{err}"
    );
    assert!(
        err.contains("`M.lost`: its declared type became `any`"),
        "{err}"
    );
    assert!(!err.contains("`M.app`"), "{err}");
    let good = check(
        dir.path(),
        "good.js",
        "const app = require(\"m\").app;\napp.name;\nrequire(\"m\").core.run();\n\
         require(\"m\").all.ns.run();\nconst K = require(\"m\").K;\n",
    );
    assert!(good.is_empty(), "{good:?}");
    let bad = check(
        dir.path(),
        "bad.js",
        "const app = require(\"m\").app;\napp.nmae;\nrequire(\"m\").core.rnu();\n\
         require(\"m\").all.sn;\n",
    );
    let lines: Vec<u64> = bad.iter().map(|f| f.0).collect();
    assert_eq!(lines, vec![2, 3, 4], "{bad:?}");
    assert!(bad[0].1.contains("`App` has no member `nmae`"), "{bad:?}");
    assert!(bad[1].1.contains("`ns` has no member `rnu`"), "{bad:?}");
}
