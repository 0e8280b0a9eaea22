//! `grounded import dts` on declarations that are modules (turn 6), through the real
//! binary: a package folder whose files are ES modules, a file of `declare module`
//! blocks, a union-heavy typing, and known-bad module statements (a clear summary line
//! or error, never a panic).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{chunks, first_line, folder, grounded};

/// Imports `args` into `dir/out` (exit 0 or a panic): title → text, and the summary.
fn import_ok(dir: &Path, args: &[&str]) -> (BTreeMap<String, String>, String) {
    let mut all = vec!["import", "dts", "--es", "2020", "--out", "out"];
    all.extend(args);
    let o = grounded(&all, dir);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "import failed: {err}");
    (chunks(&dir.join("out")), err)
}

fn has(c: &BTreeMap<String, String>, key: &str, needle: &str) {
    let t = c.get(key).unwrap_or_else(|| {
        panic!(
            "no chunk `{key}`; chunks: {:?}",
            c.keys().collect::<Vec<_>>()
        )
    });
    assert!(t.contains(needle), "`{key}` lacks {needle:?}:\n{t}");
}

fn diagnostics(dir: &Path) -> Value {
    let o = grounded(&["corpus", "--docs", "out", "--format", "json"], dir);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["diagnostics"].clone()
}

/// A published package's layout: `package.json` names it (`@types/eng` is `eng`), each
/// file is a module named by its path (`http/index.d.ts` is `eng/http`).
const PACKAGE: &[(&str, &str)] = &[
    (
        "pkg/package.json",
        r#"{ "name": "@types/eng", "version": "1.0.0" }"#,
    ),
    (
        "pkg/index.d.ts",
        r#"import "./global.js";
/** Runs checks on a value. */
export function check(val: any, sets: object): boolean;
export const VERSION = "1.0";
export const LEVEL = 3;
export * as default from "eng";
"#,
    ),
    (
        "pkg/global.d.ts",
        r#"export {};
declare global {
    /** Opens a file. */
    function open(path: string): string;
}
"#,
    ),
    (
        "pkg/html/index.d.ts",
        r#"export interface Selection { text(): string; }
export function parseHTML(html: string): Selection;
"#,
    ),
    (
        "pkg/http/index.d.ts",
        r#"import { Selection } from "../html/index.js";
export interface Response { status: number; html(): Selection; }
/** Makes a GET request. */
export function get(url: string): Response;
export const TLS_1_2 = "tls1.2";
export class CookieJar {
    constructor();
    set(name: string, value: string): void;
}
export * as default from "eng/http";
"#,
    ),
    (
        "pkg/ws/index.d.ts",
        r#"export interface Response { url: string; }
export function connect(url: string): Response;
"#,
    ),
    (
        "pkg/data/index.d.ts",
        r#"export const SharedArray: {
    new (name: string, callback: () => []): [];
    new <T>(name: string, callback: () => T[]): T[];
};
"#,
    ),
    (
        "pkg/secrets/index.d.ts",
        r#"declare function get(key: string): Promise<string>;
declare const _default: { "get": typeof get; };
export default _default;
"#,
    ),
    (
        "pkg/all/index.d.ts",
        r#"export * from "../http/index.js";
export { connect as open } from "eng/ws";
import * as html from "eng/html";
export { html };
"#,
    ),
];

#[test]
fn a_package_folder_is_one_interface_per_module_and_its_exports_are_no_globals() {
    let dir = folder(PACKAGE);
    let (c, err) = import_ok(dir.path(), &["pkg"]);
    // One interface per module, named from its specifier; the file's path names it.
    has(&c, "Eng", "Module: \"eng\"");
    has(&c, "EngHttp", "Module: \"eng/http\"");
    has(&c, "EngWs", "Module: \"eng/ws\"");
    has(&c, "EngAll", "Module: \"eng/all\"");
    // `export * as default from` itself: the default import is the module object, so no
    // `Default export:` line.
    assert!(
        !c["EngHttp"].contains("Default export:"),
        "{}",
        c["EngHttp"]
    );
    assert_eq!(
        first_line(&c, "Eng-check"),
        "check(val: any, sets: object): boolean"
    );
    // A constant with a literal initializer is accepted, its literal its type.
    assert_eq!(first_line(&c, "Eng-VERSION"), "readonly VERSION: \"1.0\"");
    assert_eq!(first_line(&c, "Eng-LEVEL"), "readonly LEVEL: 3");
    assert_eq!(
        first_line(&c, "EngHttp-TLS_1_2"),
        "readonly TLS_1_2: \"tls1.2\""
    );
    // Two modules' `Response`: two interfaces, named by their modules, each saying so.
    assert!(!c.contains_key("Response"));
    assert_eq!(
        first_line(&c, "EngHttp-get"),
        "get(url: string): HttpResponse"
    );
    assert_eq!(
        first_line(&c, "EngWs-connect"),
        "connect(url: string): WsResponse"
    );
    has(
        &c,
        "HttpResponse",
        "interface `Response` of module `eng/http`",
    );
    has(&c, "HttpResponse", "Renamed from `Response`");
    has(&c, "WsResponse-url", "`Response.url` of module `eng/ws`");
    // An import of another file of the package resolves to its module.
    assert_eq!(first_line(&c, "HttpResponse-html"), "html(): Selection");
    // Exports stay module members: the globals are what `declare global` declares.
    has(&c, "Global-open", "open(path: string): string");
    for g in [
        "Global-check",
        "Global-get",
        "Global-connect",
        "Global-VERSION",
    ] {
        assert!(!c.contains_key(g), "{g} became a global");
    }
    assert!(!c
        .values()
        .any(|t| t.contains("accessed using the global property")));
    // A module's class is constructible by the name a script imports.
    has(&c, "CookieJar", "Constructor: new CookieJar()");
    has(&c, "EngHttp-CookieJar", "readonly CookieJar: Function");
    // A constant with construct signatures is constructible; what `new` gives here is an
    // array, so it is an array's interface.
    has(
        &c,
        "SharedArray",
        "Constructor: new SharedArray(name: string, callback: Function)",
    );
    has(&c, "SharedArray", "Index: [index: number]: any");
    assert_eq!(
        first_line(&c, "EngData-SharedArray"),
        "readonly SharedArray: SharedArrayConstructor"
    );
    // `export default _default` of an inline object type: an interface of its own,
    // its `typeof get` member a method.
    has(&c, "EngSecrets", "Default export: SecretsDefault");
    assert_eq!(
        first_line(&c, "SecretsDefault-get"),
        "get(key: string): Promise<string>"
    );
    // `export *`, `export { a as b } from`, an import exported again.
    assert_eq!(
        first_line(&c, "EngAll-get"),
        "get(url: string): HttpResponse"
    );
    assert_eq!(
        first_line(&c, "EngAll-open"),
        "open(url: string): WsResponse"
    );
    assert_eq!(first_line(&c, "EngAll-html"), "readonly html: EngHtml");
    assert!(
        err.contains("modules: 7 (one interface each"),
        "the summary counts modules: {err}"
    );
    assert!(err.contains("eng, eng/all, eng/data"), "{err}");
    assert!(
        err.contains("`module \"eng/global\"`: it exports nothing"),
        "{err}"
    );
    assert_eq!(diagnostics(dir.path()), serde_json::json!([]));
}

#[test]
fn the_options_say_how_scripts_load_modules() {
    let mut files = PACKAGE.to_vec();
    files.push((
        "opts.toml",
        "modules = [\"esm\"]\nremote_modules = true\nentry_exports = [\"setup\", \"default\"]\nscripts_run_alone = true\n",
    ));
    let dir = folder(&files);
    let (c, _) = import_ok(dir.path(), &["--options", "opts.toml", "pkg"]);
    for line in [
        "Modules: esm\n",
        "Remote modules: yes\n",
        "Entry exports: setup default\n",
        "Scripts run alone: yes\n",
    ] {
        assert!(c["Engine"].contains(line), "{line:?} in {}", c["Engine"]);
    }
    let (c, _) = import_ok(dir.path(), &["pkg"]);
    assert!(!c["Engine"].contains("Modules:"), "{}", c["Engine"]);
}

#[test]
fn one_file_of_the_package_is_named_by_its_path_and_its_relative_imports_are_read() {
    let dir = folder(PACKAGE);
    let (c, err) = import_ok(dir.path(), &["pkg/http/index.d.ts"]);
    has(&c, "EngHttp", "Module: \"eng/http\"");
    // `../html/index.js` was read with it.
    has(&c, "EngHtml", "Module: \"eng/html\"");
    assert_eq!(first_line(&c, "Response-html"), "html(): Selection");
    assert!(err.contains("read 2 files"), "{err}");
}

#[test]
fn declare_module_blocks_are_modules_and_the_rest_of_the_file_is_global() {
    let dir = folder(&[(
        "host.d.ts",
        r#"declare module "host" {
    export function open(name: string): Doc;
    export interface Doc { name: string; save(): void; }
    export const app: App;
    interface App { version: string; }
}
declare module "host/util" {
    function log(message: string): void;
    namespace colors { const red: string; }
}
declare module "legacy" {
    interface Api { run(): void; }
    const api: Api;
    export = api;
}
declare module "*.css" { const s: string; }
declare module "shorthand";
/** Shows a message. */
declare function alert(message: string): void;
"#,
    )]);
    let (c, err) = import_ok(dir.path(), &["host.d.ts"]);
    has(&c, "Host", "Module: \"host\"");
    assert_eq!(first_line(&c, "Host-open"), "open(name: string): Doc");
    assert_eq!(first_line(&c, "Host-app"), "readonly app: App");
    // A block that marks no export exports all it declares (TypeScript's rule).
    has(&c, "HostUtil", "Module: \"host/util\"");
    assert_eq!(first_line(&c, "HostUtil-log"), "log(message: string): void");
    assert_eq!(first_line(&c, "HostUtil-colors"), "readonly colors: colors");
    // `export =`: the module object is the value's interface.
    has(&c, "Legacy", "Module: \"legacy\"");
    has(&c, "Legacy", "Parent interface: Api");
    // The rest of the file is global; no export became one.
    has(&c, "Global-alert", "alert(message: string): void");
    assert!(!c.contains_key("Global-open") && !c.contains_key("Global-log"));
    assert!(err.contains("a module pattern"), "{err}");
    assert!(err.contains("declared without a body"), "{err}");
    assert!(err.contains("modules: 3"), "{err}");
    assert_eq!(diagnostics(dir.path()), serde_json::json!([]));
}

#[test]
fn a_union_heavy_typing_keeps_unions_literals_functions_and_promises() {
    let dir = folder(&[(
        "api.d.ts",
        r#"type SceneNode = TextNode | FrameNode;
interface TextNode { readonly type: "TEXT"; characters: string; }
interface FrameNode {
    readonly type: "FRAME";
    readonly children: ReadonlyArray<SceneNode>;
    findAll(callback?: (node: SceneNode) => boolean): SceneNode[];
}
interface API {
    readonly currentPage: FrameNode;
    getNodeById(id: string): SceneNode | null;
    getNodeByIdAsync(id: string): Promise<SceneNode | null>;
    readonly mixed: string | TextNode;
    readonly ui: { postMessage(message: any): void; };
    readonly size: 1 | 2 | -1;
}
declare const api: API;
"#,
    )]);
    let (c, _) = import_ok(dir.path(), &["api.d.ts"]);
    assert_eq!(first_line(&c, "TextNode-type"), "readonly type: \"TEXT\"");
    // A type alias of a union is a name for that union: written out where it is used.
    assert_eq!(
        first_line(&c, "FrameNode-children"),
        "readonly children: (TextNode | FrameNode)[]"
    );
    assert_eq!(
        first_line(&c, "FrameNode-findAll"),
        "findAll(callback?: (node: TextNode | FrameNode) => boolean): (TextNode | FrameNode)[]"
    );
    assert_eq!(
        first_line(&c, "API-getNodeById"),
        "getNodeById(id: string): TextNode | FrameNode"
    );
    assert_eq!(
        first_line(&c, "API-getNodeByIdAsync"),
        "getNodeByIdAsync(id: string): Promise<TextNode | FrameNode>"
    );
    assert_eq!(
        first_line(&c, "API-mixed"),
        "readonly mixed: string | TextNode"
    );
    assert_eq!(first_line(&c, "API-size"), "readonly size: 1 | 2 | -1");
    assert_eq!(first_line(&c, "API-ui"), "readonly ui: APIUi");
    assert_eq!(
        first_line(&c, "APIUi-postMessage"),
        "postMessage(message: any): void"
    );
}

#[test]
fn bad_module_statements_are_said_in_the_summary_never_a_panic() {
    let dir = folder(&[
        (
            "m/a.d.ts",
            r#"export * from "./b";
export * from "./missing";
export * from "other-package";
export { nothing };
export { gone } from "./b";
export default 1 + 2;
export function a(): void;
"#,
        ),
        (
            "m/b.d.ts",
            "export * from \"./a\";\nexport function b(): void;\n",
        ),
    ]);
    let (c, err) = import_ok(dir.path(), &["m"]);
    // A circle of `export *` ends where it began: each module has both.
    for k in ["MA-a", "MA-b", "MB-a", "MB-b"] {
        assert!(
            c.contains_key(k),
            "no {k}: {:?}",
            c.keys().collect::<Vec<_>>()
        );
    }
    assert!(
        err.contains("\"./missing\"`: a relative module that names no declaration file"),
        "{err}"
    );
    assert!(
        err.contains("`export * from \"other-package\"`: a module no file read declares"),
        "{err}"
    );
    assert!(
        err.contains("`export { nothing }`: it names no value"),
        "{err}"
    );
    assert!(
        err.contains("`export { gone } from \"m/b\"`: that module exports no value of this name"),
        "{err}"
    );
    assert!(err.contains("a default export of an expression"), "{err}");
    // An initializer that is no literal is a script's, not a declaration's: exit 2.
    let bad = folder(&[("x.d.ts", "export const X = make();\n")]);
    let o = grounded(&["import", "dts", "--out", "out", "x.d.ts"], bad.path());
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("x.d.ts:1:") && e.contains("not a literal"),
        "{e}"
    );
    assert!(!bad.path().join("out").exists());
}

#[test]
fn a_module_export_is_no_global_of_scripts() {
    let dir = folder(PACKAGE);
    import_ok(dir.path(), &["pkg"]);
    std::fs::write(
        dir.path().join("s.js"),
        "var t = open(\"data.csv\");\nget(\"https://example.com\");\n",
    )
    .unwrap();
    let o = grounded(
        &["check", "--docs", "out", "--format", "json", "s.js"],
        dir.path(),
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let lines: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    // `open` is declared global; `get` is an export of `eng/http`, which the script
    // does not import: it is declared nowhere the script can see.
    assert_eq!(lines, vec![2], "{v}");
}
