//! Classes a module engine hands scripts through a member (issue 44, the CommonJS
//! measurement's `new` misses): `const SolidColor = require("photoshop").app.SolidColor;
//! new SolidColor()` makes an object of the docs' `Constructor: new SolidColor()` when
//! the member is documented as a `Function` of that name, and nothing is judged when
//! that is not certain. Through the real binary, and through a session whose
//! statement-alone re-checks must agree with a fresh check at every keystroke.

use std::sync::Arc;

use crate::common::atlas::{array, write};
use crate::common::shown_findings as shown;
use grounded::check::{self, ProjectIndex, Session};

/// A fictional CommonJS engine, `paint`, whose classes are members of `app` and
/// exports of the module, as UXP's declarations give them.
pub const PAINT: &str = "# Engine\n\nECMAScript: 2017\n\nModules: esm commonjs\n\n\
# Paint\n\nModule: \"paint\"\n\n## Paint-app\n\nSyntax: readonly app: Studio\n\n\
## Paint-Brush\n\nSyntax: readonly Brush: Function\n\n\
# Studio\n\nThe application.\n\n\
## Studio-Color\n\nSyntax: Color: Function\n\nThe class of colors.\n\n\
## Studio-Layer\n\nSyntax: Layer: Function\n\n\
## Studio-Mode\n\nSyntax: readonly Mode: Modes\n\nThe blending modes (an enumeration, not the class `Mode`).\n\n\
## Studio-Swatch\n\nSyntax: Swatch(name: string): Color\n\nA method named like the class `Swatch`.\n\n\
## Studio-Sheet\n\nSyntax: Sheet: Function\n\n\
## Studio-name\n\nSyntax: name: string\n\n\
# Color\n\nConstructor: new Color()\n\n## Color-rgb\n\nSyntax: readonly rgb: RGB\n\n\
# RGB\n\n## RGB-red\n\nSyntax: red: number\n\n\
# Layer\n\nConstructor: new Layer()\n\n## Layer-name\n\nSyntax: name: string\n\n\
# Brush\n\nConstructor: new Brush(size: number)\n\n## Brush-size\n\nSyntax: size: number\n\n\
# Mode\n\nConstructor: new Mode()\n\n## Mode-level\n\nSyntax: level: number\n\n\
# Modes\n\n## Modes-NORMAL\n\nSyntax: readonly NORMAL: string\n\n\
# Swatch\n\nConstructor: new Swatch()\n\n## Swatch-hex\n\nSyntax: hex: string\n\n\
# Sheet\n\nConstructor: new Sheet()\n\n## Sheet-rows\n\nSyntax: rows: number\n\n\
# PaperSheet\n\nA second class that scripts also create with `new Sheet()`.\n\n\
Constructor: new Sheet()\n\n## PaperSheet-ply\n\nSyntax: ply: number\n";

/// Every way a script takes the class and builds it: the member of the same name, a
/// destructured member, a module export, a name of its own (as `import { Socket as S }`
/// is), a binding inside a function. Silent when right, one finding per invented
/// member when wrong.
#[test]
fn new_of_a_class_a_member_holds_is_typed_by_the_documented_constructor() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/paint.md", PAINT);
    write(dir.path(), "grounded.toml", "docs = \"docs\"\n");
    let good = "const Color = require(\"paint\").app.Color;\n\
                const { Layer } = require(\"paint\").app;\n\
                const { Brush } = require(\"paint\");\n\
                const app = require(\"paint\").app;\n\
                const Tint = app.Color;\n\
                const c = new Color();\n\
                c.rgb.red = 175;\n\
                new Layer().name = \"top\";\n\
                const b = new Brush(3);\n\
                b.size = 4;\n\
                new Tint().rgb.red = 1;\n\
                function later() {\n  const Local = (app.Color);\n  const k = new Local();\n  k.rgb.red = 2;\n}\n\
                later();\n";
    let bad = "const Color = require(\"paint\").app.Color;\n\
               const goldenColor = new Color();\n\
               goldenColor.rgbQx.red = 175;\n\
               const { Layer } = require(\"paint\").app;\n\
               new Layer().nmae = \"top\";\n\
               const { Brush } = require(\"paint\");\n\
               const b = new Brush(3);\n\
               b.sise = 4;\n\
               const Tint = require(\"paint\").app.Color;\n\
               new Tint().rgbb;\n\
               function later() {\n  const Local = require(\"paint\").app.Color;\n  new Local().rgb.redd = 1;\n}\n\
               later();\n";
    write(dir.path(), "good.js", good);
    write(dir.path(), "bad.js", bad);
    let check = |f: &str| shown(&array(dir.path(), &["check", "--format", "json", f]));
    assert_eq!(check("good.js"), Vec::<String>::new());
    let got = check("bad.js");
    let want = [
        "bad.js:3:13 member `Color` has no member `rgbQx`",
        "bad.js:5:13 member `Layer` has no member `nmae`",
        "bad.js:8:3 member `Brush` has no member `sise`",
        "bad.js:10:12 member `Color` has no member `rgbb`",
        "bad.js:13:19 member `RGB` has no member `redd`",
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.starts_with(w), "{g} is not {w}\n{got:#?}");
    }
}

/// What is not certain stays unjudged, whatever the invented member: a variable given
/// two classes, or written by another function; a member of the class's name that the
/// docs type otherwise (an enumeration, a method); a name two interfaces construct; a
/// variable named like a class that holds some other member.
#[test]
fn new_of_a_binding_that_is_not_certainly_one_documented_class_is_never_judged() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/paint.md", PAINT);
    write(dir.path(), "grounded.toml", "docs = \"docs\"\n");
    let unsure = "const app = require(\"paint\").app;\n\
                  let Again = app.Color;\n\
                  Again = app.Layer;\n\
                  new Again().rgbQ;\n\
                  let Later = app.Color;\n\
                  function swap() { Later = app.Color; }\n\
                  swap();\n\
                  new Later().rgbQ;\n\
                  const Mode = app.Mode;\n\
                  new Mode().levelQ;\n\
                  const Swatch = app.Swatch;\n\
                  new Swatch().hexQ;\n\
                  const Sheet = app.Sheet;\n\
                  new Sheet().rowsQ;\n\
                  const Color = app.name;\n\
                  new Color().rgbQ;\n\
                  var Layer = app.Layer;\n\
                  if (Layer instanceof Object) { new Layer().nameQ; }\n";
    write(dir.path(), "unsure.js", unsure);
    let got = shown(&array(
        dir.path(),
        &["check", "--format", "json", "unsure.js"],
    ));
    assert_eq!(got, Vec::<String>::new());
    // The same lines with each binding certain: every invented member is found, so the
    // silence above is the rule's and not a blind spot.
    let sure = "const app = require(\"paint\").app;\n\
                let Again = app.Color;\n\
                Again = app.Color;\n\
                new Again().rgbQ;\n\
                const Layer = app.Layer;\n\
                new Layer().nameQ;\n";
    write(dir.path(), "sure.js", sure);
    let got = shown(&array(
        dir.path(),
        &["check", "--format", "json", "sure.js"],
    ));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got[0].starts_with("sure.js:4:13 member `Color` has no member `rgbQ`"));
    assert!(got[1].starts_with("sure.js:6:13 member `Layer` has no member `nameQ`"));
}

/// Keystrokes that take the session's shortcuts (a top-level statement re-checked
/// alone against the file's seed, a line of a function re-checked alone against its
/// function's bindings) agree with a fresh check: the seed carries that a binding holds
/// a documented class. Without it, `new Color()` re-checked alone was unknown and the
/// typo below went unreported until the next whole check.
#[test]
fn keystrokes_after_new_of_a_class_a_member_holds_agree_with_a_full_check() {
    let corpus = Arc::new(grounded::docs::Corpus::from_texts(&[("paint.md", PAINT)]).unwrap());
    let project = Arc::new(ProjectIndex::default());
    let text = "const Color = require(\"paint\").app.Color;\n\
                const { Layer } = require(\"paint\").app;\n\
                new Color().rgb.red = 1;\n\
                function paint() {\n  const Local = require(\"paint\").app.Color;\n  \
                new Local().rgb.red = 2;\n  new Layer().name = \"x\";\n}\n\
                paint();\n";
    let mut s = Session::new(corpus.clone(), project.clone(), "s.js", text);
    assert!(s.findings().is_empty(), "{:?}", s.findings());
    let fresh = |s: &Session| {
        check::check_text(&corpus, &ProjectIndex::default(), "s.js", s.text())
            .iter()
            .map(|f| format!("{}:{} {}", f.line, f.column, f.message))
            .collect::<Vec<_>>()
    };
    let mine = |s: &Session| {
        s.findings()
            .iter()
            .map(|f| format!("{}:{} {}", f.line, f.column, f.message))
            .collect::<Vec<_>>()
    };
    for (after, nested, invented) in [
        ("new Color().rgb", false, "rgbQ"),
        ("new Local().rgb", true, "rgbQ"),
        ("new Layer().name", true, "nameQ"),
    ] {
        let at = s.text().find(after).unwrap() + after.len();
        let (top, inner) = (s.unparsed_edits(), s.inner_edits());
        s.edit(at, at, "Q");
        assert_eq!(mine(&s), fresh(&s), "after typing Q after `{after}`");
        assert_eq!(mine(&s).len(), 1, "{:?}", mine(&s));
        assert!(mine(&s)[0].contains(invented), "{:?}", mine(&s));
        if nested {
            assert!(s.inner_edits() > inner, "`{after}` went the nested way");
        } else {
            assert!(s.unparsed_edits() > top, "`{after}` went the statement way");
        }
        s.edit(at, at + 1, "");
        assert_eq!(mine(&s), fresh(&s), "after deleting it again");
        assert!(mine(&s).is_empty(), "{:?}", mine(&s));
    }
    // The function's own binding takes another class: what `new` of it gives changes,
    // and the line that reads it is judged again (a `Layer` has no `rgb`).
    let at = s.text().find("app.Color;\n  new Local").unwrap() + "app.".len();
    s.edit(at, at + "Color".len(), "Layer");
    assert_eq!(mine(&s), fresh(&s), "after `Color` → `Layer`");
    assert!(
        mine(&s).len() == 1 && mine(&s)[0].contains("`Layer` has no member `rgb`"),
        "{:?}",
        mine(&s)
    );
    s.edit(at, at + "Layer".len(), "Color");
    assert_eq!(mine(&s), fresh(&s), "after `Layer` → `Color`");
    assert!(mine(&s).is_empty(), "{:?}", mine(&s));
    // An ES import of the class, re-checked alone: the seed carries it the same way
    // (before, a statement re-checked alone lost `new` of any import binding).
    let text = "import { Brush } from \"paint\";\nnew Brush(1).size = 2;\n";
    let mut s = Session::new(corpus.clone(), project, "s.js", text);
    assert!(s.findings().is_empty(), "{:?}", s.findings());
    let at = text.find(".size").unwrap() + ".size".len();
    let top = s.unparsed_edits();
    s.edit(at, at, "Q");
    assert!(s.unparsed_edits() > top, "the statement way");
    assert_eq!(mine(&s), fresh(&s));
    assert!(
        mine(&s).len() == 1 && mine(&s)[0].contains("`Brush` has no member `sizeQ`"),
        "{:?}",
        mine(&s)
    );
}
