//! Atlas, an engine written for the tests (not the demo's): ES3, `.jsx` scripts, a
//! `loadScript` loader, a data reader, open headers, an extensible dialog window, E4X,
//! numeric-indexed page lists, a `group` construct on `canvas`.

use std::path::Path;

/// The Engine chunk.
pub const ENGINE: &str = "# Engine\n\nAtlas automates documents.\n\nECMAScript: 3\nScript extensions: .jsx\nAlso allows: trailing-commas e4x\nAlso has: Array.prototype.indexOf\n";

/// The API chunks.
pub const API: &str = r#"# Global

## Global-loadScript

Syntax: loadScript(file: path): void

## Global-readCSV

Syntax: readCSV(file: path): string

## Global-log

Syntax: log(message: any): void

# Net

This object is accessed using the global property "net".

## Net-request

Syntax: request(url: string, headers?: Headers): string

# Headers

Index: [key: string]: string

## Headers-Accept

Syntax: Accept: string

# Window

Constructor: new Window(title: string)

Extensible: yes

## Window-add

Syntax: add(kind: string): Control

## Window-title

Syntax: title: string

# Control

## Control-value

Syntax: value: number

# XML

Constructor: new XML(text: string)

Index: [key: string]: XML

## XML-toXMLString

Syntax: toXMLString(): string

# Doc

This object is accessed using the global property "doc".

## Doc-pages

Syntax: pages: PageList

# PageList

Index: [index: number]: Page

## PageList-length

Syntax: length: number

# Page

## Page-label

Syntax: label: string

# Sheet

Constructor: new Sheet()

## Sheet-name

Syntax: name: string

## Sheet-format

Syntax: format(style: Style): void

# Style

## Style-color

Syntax: color: string

# Canvas

This object is accessed using the global property "canvas".

## Canvas-groupStart

Syntax: groupStart(group: Group): void

## Canvas-groupEnd

Syntax: groupEnd(): void

## Canvas-text

Syntax: text(s: string): void

# Group

Constructor: new Group()

## Group-opacity

Syntax: opacity: number
"#;

/// An application interface whose members are global names (`Global members: yes`),
/// as an image editor's scripting documents it: scripts write `activeDocument` and
/// `executeAction(...)` with no receiver. Written beside [`API`] as `docs/app.md` by the
/// tests that need it, so Atlas's other tests keep their corpus.
pub const APP: &str = r#"# Application

The running application. Scripts use its members with no receiver.

Global members: yes

## Application-activeDocument

Syntax: activeDocument: Document

## Application-documents

Syntax: documents: Documents

## Application-preferences

Syntax: preferences: Preferences

## Application-executeAction

Syntax: executeAction(eventID: number, descriptor?: ActionDescriptor, mode?: number): ActionDescriptor

## Application-executeActionGet

Syntax: executeActionGet(reference: any): ActionDescriptor

## Application-charIDToTypeID

Syntax: charIDToTypeID(charID: string): number

## Application-stringIDToTypeID

Syntax: stringIDToTypeID(stringID: string): number

# Document

## Document-activeLayer

Syntax: activeLayer: Layer

## Document-name

Syntax: name: string

# Layer

## Layer-name

Syntax: name: string

# Documents

Index: [index: number]: Document

## Documents-add

Syntax: add(width?: number, height?: number): Document

## Documents-length

Syntax: length: number

# Preferences

## Preferences-rulerUnits

Syntax: rulerUnits: number

# ActionDescriptor

Constructor: new ActionDescriptor()

## ActionDescriptor-putString

Syntax: putString(key: number, value: string): void
"#;

/// Writes `text` at `rel` under `root`, folders made.
pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A temp project of Atlas scripts: the corpus (with `engine` as its Engine chunk) and
/// a `grounded.toml` naming it.
pub fn project(engine: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/engine.md", engine);
    write(dir.path(), "docs/api.md", API);
    write(dir.path(), "grounded.toml", "docs = \"docs\"\n");
    dir
}

/// `grounded ARGS` run in `root`, its stdout read as JSON (both streams shown when it
/// is not JSON).
pub fn json(root: &Path, args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// [`json`] that must be an array (findings, construct instances).
pub fn array(root: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    match json(root, args) {
        serde_json::Value::Array(a) => a,
        other => panic!("not a JSON array: {other:#}"),
    }
}
