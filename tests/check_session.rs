//! The incremental re-check gives exactly the findings of a full check of the edited
//! text, whichever path it takes (one statement re-analysed, or everything).

use grounded::check::{self, Finding, ProjectIndex, Session};
use grounded::docs::bundled;

const SCRIPT: &str = r#"var t = new Table();
t.columns = 2;
function fill(rows) {
    layout.tableStart(t, { cellPadding: 3 });
    for (var i = 0; i < rows.length; i++) {
        layout.tableCell(rows[i]);
    }
    layout.tableEnd();
}
fill(["a", "b"]);
layout.paragraph("done", { bold: true });
var box = new Block();
box.name = "x";
"#;

fn shown(f: &[Finding]) -> Vec<String> {
    f.iter()
        .map(|x| {
            format!(
                "{}:{}-{}:{} {} {}",
                x.line,
                x.column,
                x.end_line,
                x.end_column,
                x.code.as_str(),
                x.message
            )
        })
        .collect()
}

fn edit_and_compare(session: &mut Session, find: &str, replace: &str) {
    let at = session.text().find(find).expect("present");
    let got = shown(session.edit(at, at + find.len(), replace));
    let corpus = bundled::demo().unwrap();
    let want = shown(&check::check_text(
        &corpus,
        &ProjectIndex::default(),
        "s.js",
        session.text(),
    ));
    assert_eq!(got, want, "after `{find}` → `{replace}`");
}

#[test]
fn edits_inside_one_statement_are_rechecked_alone_and_agree_with_a_full_check() {
    let corpus = bundled::demo().unwrap();
    let project = ProjectIndex::default();
    let mut s = Session::new(&corpus, &project, "s.js", SCRIPT);
    assert!(s.findings().is_empty());
    edit_and_compare(&mut s, "cellPadding: 3", "cellPading: 3");
    edit_and_compare(
        &mut s,
        "layout.paragraph(\"done\"",
        "layout.paragraf(\"done\"",
    );
    edit_and_compare(&mut s, "box.name", "box.nme");
    assert_eq!(s.findings().len(), 3);
    // Findings after the edited statement move with it (the edit changes the length).
    edit_and_compare(
        &mut s,
        "cellPading: 3",
        "cellPadding: 3, gridColor: \"#ccc\"",
    );
    edit_and_compare(&mut s, "rows[i]", "rows[i] + \"\\n\"");
    assert_eq!(s.findings().len(), 2);
    let incremental = s.incremental_edits();
    assert!(incremental >= 2, "statement-only re-checks: {incremental}");
    // An edit that changes what a statement gives the file: a full check.
    edit_and_compare(&mut s, "var t = new Table();", "var t = makeTable();");
    // A new top-level statement, a multi-line deletion, an edit across statements.
    edit_and_compare(
        &mut s,
        "fill([\"a\", \"b\"]);",
        "fill([\"a\", \"b\"]);\nlet z = 1;",
    );
    edit_and_compare(&mut s, "t.columns = 2;\nfunction", "function");
    edit_and_compare(&mut s, "box.nme = \"x\";", "box.nme = \"x\"");
    // Offsets past the end or inside a character are clamped, never a panic.
    let len = s.text().len();
    s.edit(len + 10, len + 20, "\n// é");
    let end = s.text().len();
    s.edit(end - 1, end + 3, "");
}
