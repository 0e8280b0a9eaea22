//! Construct footprints and the `construct` finding family, on the demo corpus and on a
//! corpus written here (another engine, other construct names).

use grounded::check::{construct, Code, Severity};
use grounded::docs::{bundled, Corpus};
use grounded::footprint::{
    self, delete_lines, delete_lines_in_text, instances, variable_footprint, At, FileStamp,
};

/// 1-based inclusive line ranges.
type Ranges = Vec<(usize, usize)>;

fn fixture(name: &str) -> String {
    let p = format!(
        "{}/tests/fixtures/footprint/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn removing_a_table_removes_exactly_its_lines_and_keeps_neighbours() {
    let corpus = bundled::demo().unwrap();
    let text = fixture("remove_table.js");
    let expected = fixture("remove_table.expected.js");
    let tree = grounded::js::parse(&text);
    let found = instances(&corpus, &text, &tree);
    let kinds: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|i| (i.construct.as_str(), i.object.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("block", Some("note")),
            ("table", Some("orders")),
            ("table", Some("totals"))
        ]
    );
    let orders = &found[1];
    // Declaration, configuration, Start, rows, End: lines 8-20 and nothing else.
    assert_eq!(orders.lines, vec![(8, 20)]);
    assert_eq!((orders.start_line, orders.end_line), (11, 20));
    assert_eq!(found[0].lines, vec![(2, 6)]);
    assert_eq!(found[2].lines, vec![(22, 28)]);

    let out = delete_lines_in_text(&text, &orders.line_numbers(), &FileStamp::of(&text)).unwrap();
    assert_eq!(out.text, expected);
    assert!(out.text.len() < text.len());
    assert_eq!(out.removed.len(), 13);

    // The same through the file, and through the byte spans an editor would delete.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.js");
    std::fs::write(&path, &text).unwrap();
    delete_lines(&path, &orders.line_numbers(), &FileStamp::of(&text)).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    let mut by_spans = text.clone();
    for r in orders.byte_spans(&text).into_iter().rev() {
        by_spans.replace_range(r, "");
    }
    assert_eq!(by_spans, expected);
}

#[test]
fn nested_constructs_each_get_their_own_footprint() {
    let corpus = bundled::demo().unwrap();
    let text = fixture("nested.js");
    let tree = grounded::js::parse(&text);
    let found = instances(&corpus, &text, &tree);
    let got: Vec<(&str, usize, usize, Ranges)> = found
        .iter()
        .map(|i| {
            (
                i.construct.as_str(),
                i.start_line,
                i.end_line,
                i.lines.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("table", 3, 14, vec![(1, 14)]),
            ("block", 6, 12, vec![(5, 12)]),
            ("table", 9, 11, vec![(7, 11)]),
        ]
    );
    assert!(construct::check(&corpus, "nested.js", &text, &tree).is_empty());
}

#[test]
fn unclosed_and_stray_constructs_are_warnings_on_the_member_name() {
    // Each function of the fixture also pairs a block, so neither is a helper (a
    // function that only opens or only closes is paired where it is called).
    let corpus = bundled::demo().unwrap();
    let text = fixture("unclosed_stray.js");
    let tree = grounded::js::parse(&text);
    let f = construct::check(&corpus, "u.js", &text, &tree);
    let got: Vec<(usize, usize, usize, &str)> = f
        .iter()
        .map(|x| {
            (
                x.line,
                x.column,
                x.end_column,
                &text[x.span.start..x.span.end],
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (3, 12, 22, "tableStart"),
            (10, 12, 20, "tableEnd"),
            (17, 8, 15, "listEnd")
        ]
    );
    assert!(f
        .iter()
        .all(|x| x.code == Code::Construct && x.severity == Severity::Warning));
    assert!(
        f[0].message
            .starts_with("`layout.tableStart` has no matching `layout.tableEnd()`"),
        "{}",
        f[0].message
    );
    assert!(f[1].message.contains("closes no open `layout.tableStart`"));
    // tableCellEnd (absent by the overlay) is no End of anything: the member family
    // reports it, this one stays silent about it.
    assert!(!f.iter().any(|x| x.message.contains("tableCellEnd")));

    // The unclosed table is still an instance: its footprint ends at its Start.
    let found = instances(&corpus, &text, &tree);
    let t = &found[0];
    assert_eq!(
        (t.construct.as_str(), t.start_line, t.end_line),
        ("table", 3, 3)
    );
    assert!(!t.is_closed());
    assert_eq!(t.lines, vec![(2, 3)]);
}

#[test]
fn the_demo_mistake_is_found_and_the_demo_scripts_are_clean() {
    let corpus = bundled::demo().unwrap();
    let root = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(format!("{root}/mistakes/construct.js")).unwrap();
    let f = construct::check(&corpus, "c.js", &text, &grounded::js::parse(&text));
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].line, f[0].column), (6, 8));
    for clean in ["main.js", "lib/helpers.js", "lib/tables.js"] {
        let text = std::fs::read_to_string(format!("{root}/{clean}")).unwrap();
        let f = construct::check(&corpus, clean, &text, &grounded::js::parse(&text));
        assert!(f.is_empty(), "{clean}: {f:?}");
    }
}

#[test]
fn a_global_never_expands_and_a_declared_variable_does() {
    let text = "var box = new Block();\nbox.name = \"n\";\nlayout.blockStart(box);\nlayout.paragraph(\"x\");\nlayout.blockEnd();\nfunction f(box) {\n    box.padding = 1;\n}\n";
    let tree = grounded::js::parse(text);
    let v = variable_footprint(text, &tree, At::Line(3));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].name, "box");
    assert_eq!(v[0].declared_line, 1);
    // The parameter `box` of `f` is another variable: line 7 is not this footprint.
    assert_eq!(v[0].lines, vec![1, 2, 3]);
    let at_layout = text.find("layout.paragraph").unwrap() + 2;
    assert!(variable_footprint(text, &tree, At::Offset(at_layout)).is_empty());
    assert!(variable_footprint(text, &tree, At::Line(4)).is_empty());
    let p = variable_footprint(text, &tree, At::Line(7));
    assert_eq!((p[0].name.as_str(), p[0].lines.clone()), ("box", vec![7]));
    let at_box = text.find("box);").unwrap() + 1;
    assert_eq!(
        variable_footprint(text, &tree, At::Offset(at_box))[0].lines,
        vec![1, 2, 3]
    );
}

#[test]
fn a_catch_parameter_is_the_clause_s_variable_as_the_checker_scopes_it() {
    // ES3: `catch (e)` binds `e` for the clause only. The footprint layer once scoped
    // it to the whole function, so `e.count` after the clause joined its footprint
    // while the checker called that `e` a global.
    let text = "function f() {\n    try { g(); } catch (e) {\n        e.handled = true;\n    }\n    e.count = 1;\n    var e2 = new Block();\n    e2.name = \"n\";\n}\n";
    let tree = grounded::js::parse(text);
    let v = variable_footprint(text, &tree, At::Line(3));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!((v[0].name.as_str(), v[0].declared_line), ("e", 2));
    assert_eq!(v[0].lines, vec![3]);
    assert!(variable_footprint(text, &tree, At::Line(5)).is_empty());
    let d = variable_footprint(text, &tree, At::Line(7));
    assert_eq!((d[0].name.as_str(), d[0].lines.clone()), ("e2", vec![6, 7]));
}

#[test]
fn a_shadowed_global_is_not_the_engine_s_construct() {
    let corpus = bundled::demo().unwrap();
    let text = "function f(layout) {\n    layout.tableStart(x);\n}\nvar layout2 = 1;\n";
    let tree = grounded::js::parse(text);
    assert!(instances(&corpus, text, &tree).is_empty());
    assert!(construct::check(&corpus, "s.js", text, &tree).is_empty());
}

#[test]
fn a_start_inside_an_if_takes_the_whole_if() {
    let corpus = bundled::demo().unwrap();
    let text = "var t = new Table();\nif (ready) {\n    layout.tableStart(t);\n}\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.paragraph(\"p\");\n";
    let tree = grounded::js::parse(text);
    let found = instances(&corpus, text, &tree);
    assert_eq!(found[0].lines, vec![(1, 6)]);
}

#[test]
fn a_variable_shared_by_two_instances_keeps_its_declaration() {
    let corpus = bundled::demo().unwrap();
    let text = "var b = new Block();\nb.padding = 2;\nlayout.blockStart(b);\nlayout.blockEnd();\nlayout.blockStart(b);\nlayout.paragraph(\"2\");\nlayout.blockEnd();\n";
    let tree = grounded::js::parse(text);
    let found = instances(&corpus, text, &tree);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].lines, vec![(3, 4)]);
    assert_eq!(found[1].lines, vec![(5, 7)]);
}

#[test]
fn instance_at_picks_the_innermost() {
    let corpus = bundled::demo().unwrap();
    let text = fixture("nested.js");
    let tree = grounded::js::parse(&text);
    let off = text.find("layout.tableCell(\"a\")").unwrap();
    let i = footprint::instance_at(&corpus, &text, &tree, off).unwrap();
    assert_eq!(i.object.as_deref(), Some("inner"));
    let off = text.find("after block").unwrap();
    let i = footprint::instance_at(&corpus, &text, &tree, off).unwrap();
    assert_eq!(i.object.as_deref(), Some("outer"));
}

/// Another engine: a `doc` global with `sectionStart`/`sectionEnd`. Nothing of the demo
/// engine may leak into what is found.
fn other_engine() -> Corpus {
    Corpus::from_texts(&[
        (
            "api.md",
            "# Document\n\nThe document. This object is accessed using the global property \"doc\".\n\n\
             ## Document-sectionStart\n\nSyntax: sectionStart(section: Section): void\n\nOpens a section.\n\n\
             ## Document-sectionEnd\n\nSyntax: sectionEnd(): void\n\nCloses the section.\n\n\
             ## Document-write\n\nSyntax: write(text: string): void\n\n\
             # Section\n\nA section. Constructor: new Section()\n\n\
             ## Section-title\n\nSyntax: title: string\n",
        ),
        (
            "facts.toml",
            "[[construct]]\nid = \"section\"\naliases = [\"chapter\", \"part\"]\n",
        ),
    ])
    .unwrap()
}

#[test]
fn another_engine_s_constructs_come_from_its_corpus() {
    let corpus = other_engine();
    assert!(corpus.constructs.contains_key("section"));
    let text = "var s = new Section();\ns.title = \"Intro\";\ndoc.sectionStart(s);\ndoc.write(\"hello\");\ndoc.sectionEnd();\nvar t = new Section();\ndoc.sectionStart(t);\nlayout.tableStart(x);\n";
    let tree = grounded::js::parse(text);
    let found = instances(&corpus, text, &tree);
    let got: Vec<(&str, Option<&str>, Ranges)> = found
        .iter()
        .map(|i| (i.construct.as_str(), i.object.as_deref(), i.lines.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("section", Some("s"), vec![(1, 5)]),
            ("section", Some("t"), vec![(6, 7)])
        ]
    );
    let f = construct::check(&corpus, "o.js", text, &tree);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].line, 7);
    assert!(f[0]
        .message
        .starts_with("`doc.sectionStart` has no matching `doc.sectionEnd()`"));

    // And the demo engine's constructs mean nothing to it.
    let demo = fixture("nested.js");
    assert!(instances(&corpus, &demo, &grounded::js::parse(&demo)).is_empty());
}

#[test]
fn instance_at_widens_to_the_scope_that_declares_the_object() {
    let corpus = bundled::demo().unwrap();
    let text = "var t = new Table();\nt.columns = 2;\nfunction draw(rows) {\n    layout.tableStart(t);\n    for (var i = 0; i < rows.length; i++) {\n        layout.tableCell(rows[i]);\n    }\n    layout.tableEnd();\n}\nlayout.paragraph(\"after\");\n";
    let tree = grounded::js::parse(text);
    let off = text.find("tableCell").unwrap();
    let i = footprint::instance_at(&corpus, text, &tree, off).unwrap();
    assert_eq!(i.lines, vec![(1, 2), (4, 8)]);
    assert_eq!(i, instances(&corpus, text, &tree)[0]);
    // A callback inside a table belongs to the table around it.
    let text = "var t = new Table();\nlayout.tableStart(t);\nrows.each(function (r) {\n    layout.tableCell(r);\n});\nlayout.tableEnd();\n";
    let tree = grounded::js::parse(text);
    let off = text.find("tableCell").unwrap();
    let i = footprint::instance_at(&corpus, text, &tree, off).unwrap();
    assert_eq!(i.lines, vec![(1, 6)]);
    let off = text.len();
    assert!(footprint::instance_at(&corpus, text, &tree, off).is_none());
}

#[test]
fn starts_or_ends_in_alternative_branches_are_not_accused() {
    let corpus = bundled::demo().unwrap();
    let text = "var t = new Table();\nif (wide) {\n    layout.tableStart(t, { cellPadding: 8 });\n} else {\n    layout.tableStart(t);\n}\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nvar b = new Block();\nlayout.blockStart(b);\nswitch (mode) {\ncase 1:\n    layout.blockEnd();\n    break;\ndefault:\n    layout.blockEnd();\n}\n";
    let tree = grounded::js::parse(text);
    let f = construct::check(&corpus, "b.js", text, &tree);
    assert!(f.is_empty(), "{f:?}");
    let found = instances(&corpus, text, &tree);
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|i| i.is_closed()));
    // Two Starts in a row, not alternatives: the first is unclosed.
    let text = "layout.tableStart(a);\nlayout.tableStart(b);\nlayout.tableEnd();\n";
    let tree = grounded::js::parse(text);
    let f = construct::check(&corpus, "c.js", text, &tree);
    assert_eq!(f.iter().map(|x| x.line).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn an_object_that_lives_on_after_its_construct_keeps_its_declaration() {
    // The declaration and configuration are the construct's lines even when the object
    // is named after it (leaving them out left exactly the dead lines a removal must
    // not); the later line is listed as a use, and removal says it still uses `t`.
    let corpus = bundled::demo().unwrap();
    let text = "function make() {\n    var t = new Table();\n    t.columns = 2;\n    layout.tableStart(t);\n    layout.tableEnd();\n    return t;\n}\n";
    let tree = grounded::js::parse(text);
    let inst = &instances(&corpus, text, &tree)[0];
    assert_eq!(inst.lines, vec![(2, 5)]);
    assert_eq!(inst.uses, vec![(6, 6)]);
    let r = footprint::removal(text, &tree, inst);
    assert_eq!(r.lines, vec![(2, 5)]);
    assert_eq!(r.still_used, vec![6]);
    // A use that is a whole statement only reading the object goes with it.
    let text = "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableEnd();\nlog(t.columns);\nlayout.paragraph(\"after\");\n";
    let tree = grounded::js::parse(text);
    let inst = &instances(&corpus, text, &tree)[0];
    assert_eq!(
        (inst.lines.clone(), inst.uses.clone()),
        (vec![(1, 4)], vec![(5, 5)])
    );
    let r = footprint::removal(text, &tree, inst);
    assert_eq!(r.lines, vec![(1, 5)]);
    assert!(r.still_used.is_empty());
}

#[test]
fn a_start_on_an_expression_has_no_object() {
    let corpus = bundled::demo().unwrap();
    let text = "layout.blockStart(new Block());\nlayout.paragraph(\"x\");\nlayout.blockEnd();\n";
    let tree = grounded::js::parse(text);
    let found = instances(&corpus, text, &tree);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].object, None);
    assert_eq!(found[0].lines, vec![(1, 3)]);
    let json = serde_json::to_string(&found[0]).unwrap();
    assert_eq!(
        json,
        r#"{"construct":"block","object":null,"start_line":1,"end_line":3,"lines":[[1,3]],"uses":[]}"#
    );
}
