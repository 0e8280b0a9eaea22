//! Edits at two places of one long function, in turn, as in `benches/lsp_client.py
//! --kinds decl-2000,call-2000`: a declaration's re-check parses the function from its
//! last parse there (issue 48), which must describe the text now whatever was typed
//! elsewhere in the function since.

use super::*;

/// A function of `n` calls in a loop, after a line, and a top-level call after it.
fn long_function(n: usize) -> String {
    let calls: String = (0..n)
        .map(|k| format!("        layout.text(lines[i] + \"{k}\", {{ fontSize: 9 }});\n"))
        .collect();
    format!(
        "var title = \"Report\";\nfunction big(lines) {{\n    var b = new Block();\n    layout.blockStart(b, {{ padding: 4 }});\n    for (var i = 0; i < lines.length; i++) {{\n{calls}    }}\n    layout.blockEnd();\n}}\nbig([title]);\n"
    )
}

/// An edit from where the declaration's and the call's edits land: bytes replaced and
/// by what.
type Step = fn(usize, usize) -> (usize, usize, String);

#[test]
fn edits_in_turn_at_two_places_of_a_long_function_publish_what_check_reports() {
    let (mut w, mut lsp) = one("long.js", &long_function(300));
    assert_agrees(&w, &lsp, "open");
    // Right after `Block` and after the middle call's `text`, typed-in letters or not.
    let decl = |w: &World| w.bufs[0].text.find("new Block").unwrap() + "new Block".len();
    let call = |w: &World| {
        let t = &w.bufs[0].text;
        let line = t.find("\"150\"").unwrap();
        t[..line].rfind("layout.text").unwrap() + "layout.text".len()
    };
    // (where, what it replaces, what it types): mistakes made and undone in turn, one
    // left in while the other place is edited, the declaration retyped to another class,
    // lines added above the function (it moves between two of its re-checks), and a
    // call added in the loop.
    let steps: Vec<(&str, Step)> = vec![
        ("`BlockQ`", |d, _| (d, d, "Q".into())),
        ("`BlockQ` undone", |d, _| (d, d + 1, String::new())),
        ("`textQ` in the loop", |_, c| (c, c, "Q".into())),
        ("`textQ` undone", |_, c| (c, c + 1, String::new())),
        ("`BlockQ` again", |d, _| (d, d, "Q".into())),
        ("`textQ` with `BlockQ` in", |_, c| (c, c, "Q".into())),
        ("`BlockQ` undone, `textQ` in", |d, _| {
            (d, d + 1, String::new())
        }),
        ("lines above the function", |_, _| {
            (0, 0, "var a = 1;\n\n".into())
        }),
        ("`Blockz` below them", |d, _| (d, d, "z".into())),
        ("`textQ` undone", |_, c| (c, c + 1, String::new())),
        ("`Blockz` undone", |d, _| (d, d + 1, String::new())),
        ("a call added in the loop", |_, c| {
            (c - 4, c - 4, "text(\"new\");\n        layout.".into())
        }),
        ("`Block` becomes `Table`", |d, _| (d - 5, d, "Table".into())),
    ];
    for (what, step) in steps {
        let (s, e, new) = step(decl(&w), call(&w));
        w.bufs[0].edit(&lsp, s, e, &new);
        settle(&mut lsp, &w.bufs[0]).unwrap();
        assert_agrees(&w, &lsp, what);
    }
    lsp.shutdown();
}
