//! Issue 48: a declaration's re-check parses its function from its last parse there,
//! told only where the function's text differs now; edits elsewhere in the function in
//! between must leave every keystroke's findings those of a fresh check.

use super::*;

/// A function of `n` calls in a loop, after a line declaring `b`; and a short one.
fn long_function(n: usize) -> String {
    let calls: String = (0..n)
        .map(|k| format!("        layout.text(lines[i] + \"{k}\", {{ fontSize: 9 }});\n"))
        .collect();
    format!(
        "function big(lines) {{\n    var b = new Block();\n    layout.blockStart(b, {{ padding: 4 }});\n    for (var i = 0; i < lines.length; i++) {{\n{calls}    }}\n    layout.blockEnd();\n}}\nfunction small() {{\n    var t = new Table();\n    t.columns = 2;\n}}\nbig([]);\nsmall();\n"
    )
}

#[test]
fn declaration_edits_between_calls_typed_in_its_function_agree_with_a_full_check() {
    let mut s = demo_session(&long_function(300));
    assert!(s.findings().is_empty(), "{:#?}", shown(s.findings()));
    let decl = |s: &Session| s.text().find("new Block").unwrap() + "new Block".len();
    let call = |s: &Session| {
        let line = s.text().find("\"150\"").unwrap();
        s.text()[..line].rfind("layout.text").unwrap() + "layout.text".len()
    };
    let short = |s: &Session| s.text().find("new Table").unwrap() + "new Table".len();
    let (scoped, last) = (s.scoped_edits(), s.scoped_from_last_parse());
    for round in 0..3 {
        let at = decl(&s);
        splice_and_compare(&mut s, at, 0, "Q");
        assert!(
            shown(s.findings()).iter().any(|f| f.contains("BlockQ")),
            "round {round}: {:#?}",
            shown(s.findings())
        );
        let at = decl(&s);
        splice_and_compare(&mut s, at, 1, "");
        let at = call(&s);
        splice_and_compare(&mut s, at, 0, "Q");
        assert!(shown(s.findings()).iter().any(|f| f.contains("textQ")));
        let at = call(&s);
        splice_and_compare(&mut s, at, 1, "");
        // The short function's declaration in between: its parse is kept beside.
        let at = short(&s);
        splice_and_compare(&mut s, at, 0, "Q");
        let at = short(&s);
        splice_and_compare(&mut s, at, 1, "");
        assert!(s.findings().is_empty(), "{:#?}", shown(s.findings()));
    }
    // A call left mistyped while the declaration changes, then lines added above the
    // function (it moves), then the declaration retyped to another class.
    let at = call(&s);
    splice_and_compare(&mut s, at, 0, "Q");
    let at = decl(&s);
    splice_and_compare(&mut s, at, 0, "z");
    splice_and_compare(&mut s, 0, 0, "var a = 1;\n\n");
    let at = decl(&s);
    splice_and_compare(&mut s, at, 1, "");
    let at = decl(&s) - "Block".len();
    splice_and_compare(&mut s, at, "Block".len(), "Table");
    let at = call(&s);
    splice_and_compare(&mut s, at, 1, "");
    assert_eq!(
        s.scoped_edits() - scoped,
        15,
        "every declaration edit went scoped"
    );
    // All but the first in each function (nothing kept yet) and `Blockz` (its text
    // then differed from the last parse's from the declaration to the call: half the
    // function).
    assert_eq!(
        s.scoped_from_last_parse() - last,
        12,
        "declaration edits parsed from the function's last parse"
    );
}
