//! Narrowing, callbacks, loops, destructuring and awaits, by the type they give a use.

use grounded_docs::Corpus;

use crate::Analysis;

const DOCS: &str = "# Engine\n\nECMAScript: 2020\n\n\
    # App\n\nThis object is accessed using the global property \"app\".\n\n\
    ## App-page\n\nSyntax: readonly page: Page\n\n\
    ## App-byId\n\nSyntax: byId(id: string): Text | Frame | null\n\n\
    ## App-mixed\n\nSyntax: mixed(id: string): Text | string\n\n\
    ## App-styleAsync\n\nSyntax: styleAsync(id: string): Promise<Style>\n\n\
    ## App-each\n\nSyntax: each(cb: (s: Style, i: number) => void): void\n\n\
    ## App-loose\n\nSyntax: loose(cb: Function): void\n\n\
    # Page\n\n## Page-selection\n\nSyntax: readonly selection: (Text | Frame)[]\n\n\
    ## Page-kids\n\nSyntax: readonly kids: Kids\n\n\
    # Kids\n\nIndex: [index: number]: Text | Frame\n\n\
    # Text\n\nConstructor: new Text()\n\n## Text-type\n\nSyntax: readonly type: \"TEXT\"\n\n\
    ## Text-characters\n\nSyntax: characters: string\n\n\
    ## Text-parent\n\nSyntax: readonly parent: Text | Frame\n\n\
    # Frame\n\n## Frame-type\n\nSyntax: readonly type: \"FRAME\"\n\n\
    ## Frame-parent\n\nSyntax: readonly parent: Text | Frame\n\n\
    ## Frame-kids\n\nSyntax: readonly kids: Kids\n\n\
    # Style\n\n## Style-name\n\nSyntax: name: string\n";

/// The certain type of the identifier that starts the last `marker` in `script`
/// (`"n.x"` names that `n`), as text: `A`, `A | B`, `A[]`, `-`.
fn ty(script: &str, marker: &str) -> String {
    let corpus = Corpus::from_texts(&[("api.md", DOCS)]).unwrap();
    let tree = crate::parse(script);
    let a = Analysis::new(&corpus, script, &tree);
    let at = script.rfind(marker).expect("marker");
    let node = a.node_at(at, "identifier").expect("identifier");
    match a.certain(node) {
        Some(crate::Certain::Interface(i)) => i.to_string(),
        Some(crate::Certain::Union(u)) => u.text(),
        Some(crate::Certain::Array(t)) => {
            grounded_docs::Type::Array(Box::new(t.clone())).to_string()
        }
        Some(c) => format!("{c:?}"),
        None => "-".into(),
    }
}

#[test]
fn unions_and_their_narrowing() {
    assert_eq!(ty("const n = app.byId('1'); n.", "n."), "Text | Frame");
    assert_eq!(ty("const n = app.mixed('1'); n.", "n."), "-");
    let s = "const n = app.byId('1'); if (n.type === 'TEXT') { n.x; }";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "const n = app.byId('1'); if (n.type !== 'TEXT') return; n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "const n = app.byId('1'); if (n.type === 'TEXT') {} else { n.x; }";
    assert_eq!(ty(s, "n.x"), "Frame");
    let s = "const n = app.byId('1'); n.type === 'FRAME' && n.x;";
    assert_eq!(ty(s, "n.x"), "Frame");
    let s = "const n = app.byId('1'); const v = n.type === 'FRAME' ? 1 : n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "const n = app.byId('1'); switch (n.type) { case 'TEXT': n.x; break; }";
    assert_eq!(ty(s, "n.x"), "Text");
    // A case that falls into another may be either.
    let s = "const n = app.byId('1'); switch (n.type) { case 'FRAME': f(); case 'TEXT': n.x; }";
    assert_eq!(ty(s, "n.x"), "Text | Frame");
    let s = "const n = app.byId('1'); if (n instanceof Text) n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    // A constructor the docs do not give: the script expects something else there.
    let s = "const n = app.byId('1'); if (n instanceof Other) n.x;";
    assert_eq!(ty(s, "n.x"), "-");
    // A `let` assigned twice is narrowed where nothing runs between the test and the
    // use; a write (or anything that may run one) between keeps its union.
    let s = "let n = app.byId('1'); n = app.byId('2'); if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "let n = app.byId('1'); if (n.type === 'TEXT') { n = app.byId('2'); n.x; }";
    assert_eq!(ty(s, "n.x"), "Text | Frame");
    let s = "let n = app.byId('1'); if (n.type !== 'TEXT') return; n = app.byId('2'); n.x;";
    assert_eq!(ty(s, "n.x"), "Text | Frame");
    let s = "let n = app.byId('1'); if (n.type === 'TEXT') { while (more()) { n.x; n = \
             app.byId('2'); } }";
    assert_eq!(ty(s, "n.x"), "Text | Frame");
    // Swapped by a destructuring assignment: a write like any other.
    let s = "let n = app.byId('1'); [n] = [g()]; if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "-");
    // A declared function may run before the test (it is hoisted).
    let s = "const n = app.byId('1'); g(); if (n.type !== 'TEXT') return; function g() { n.x; }";
    assert_eq!(ty(s, "n.x"), "Text | Frame");
    // Reassigned to something uncertain: nothing is certain.
    let s = "let n = app.byId('1'); n = other(); n.x;";
    assert_eq!(ty(s, "n.x"), "-");
}

/// A statement re-checked alone (the editor's keystroke) narrows as the whole file
/// does: the seed says the name is assigned once.
#[test]
fn a_statement_analysed_alone_narrows_as_the_whole_file() {
    let corpus = Corpus::from_texts(&[("api.md", DOCS)]).unwrap();
    let cases = [
        ("const", "n", "Text"),
        ("var", "n", "Text"),
        ("const", "n.parent", "Text"),
        ("let", "n.parent", "Text | Frame"),
    ];
    for (decl, subject, want) in cases {
        let reassigned = if decl == "let" {
            "n = app.byId('2');"
        } else {
            ""
        };
        let script = format!(
            "{decl} n = app.byId('1');{reassigned}\nif ({subject}.type === 'TEXT') {subject}.x;\n"
        );
        let tree = crate::parse(&script);
        let whole = Analysis::new(&corpus, &script, &tree);
        let seed = whole.seed();
        let stmt = tree
            .root_node()
            .named_child(1 + usize::from(decl == "let"))
            .unwrap();
        assert_eq!(stmt.kind(), "if_statement");
        let alone = Analysis::for_node(&corpus, &script, &tree, stmt, &seed);
        let at = script.rfind(&format!("{subject}.x")).unwrap();
        for a in [&whole, &alone] {
            let node = tree
                .root_node()
                .descendant_for_byte_range(at, at + subject.len())
                .unwrap();
            let got = match a.certain(node) {
                Some(crate::Certain::Interface(i)) => i.to_string(),
                Some(crate::Certain::Union(u)) => u.text(),
                other => format!("{other:?}"),
            };
            assert_eq!(got, want, "{script}");
        }
    }
}

/// A `var` assigned once, in its declaration and outside any loop, is narrowed as a
/// `const` is; one written again anywhere, declared empty, or written in a loop is
/// narrowed only where nothing runs between the test and the use (a function made in
/// one iteration reads whatever a later one wrote: it keeps its union).
#[test]
fn a_var_assigned_once_is_narrowed() {
    let s = "var n = app.byId('1'); if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "function f() { var n = app.byId('1'); if (n.type !== 'TEXT') return; n.x; }";
    assert_eq!(ty(s, "n.x"), "Text");
    let s = "var n = app.byId('1'); switch (n.type) { case 'FRAME': n.x; }";
    assert_eq!(ty(s, "n.x"), "Frame");
    let s = "var n = app.byId('1'); if (n instanceof Text) n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    // A loop of another function does not make it a loop's.
    let s = "var n = app.byId('1'); for (;;) { h(function () { var m = 1; }); }\n\
             if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "Text");
    for s in [
        "var n = app.byId('1'); n = app.byId('2'); if (n.type === 'TEXT') n.x;",
        "var n = app.byId('1'); var n = app.byId('2'); if (n.type === 'TEXT') n.x;",
        "var n; n = app.byId('1'); if (n.type === 'TEXT') n.x;",
        "while (more()) { var n = app.byId('1'); if (n.type === 'TEXT') n.x; }",
        "do { var n = app.byId('1'); if (n.type === 'TEXT') n.x; } while (more());",
        "for (var n of app.page.selection) { if (n.type === 'TEXT') n.x; }",
        // Only its own writes change a name no other function writes: a call between,
        // or an exit that throws `new Error(...)`, leaves the test standing.
        "var n = app.byId('1'); n = app.byId('2'); if (n.type === 'TEXT') { g(); n.x; }",
        "var n; n = app.byId('1'); if (n.type !== 'TEXT') throw new Error(n.type); n.x;",
    ] {
        assert_eq!(ty(s, "n.x"), "Text", "{s}");
    }
    for s in [
        "for (var i = 0; i < 2; i++) { var n = app.byId('1'); \
         if (n.type === 'TEXT') later(function () { n.x; }); }",
        "var n = app.byId('1'); if (n.type === 'TEXT') { n = app.byId('2'); g(); n.x; }",
        "for (var n of app.page.selection) { if (n.type !== 'TEXT') continue; n = \
         app.byId('2'); n.x; }",
    ] {
        assert_eq!(ty(s, "n.x"), "Text | Frame", "{s}");
    }
    // Written by a destructuring assignment, or by another function: not certain at all.
    let s = "var n = app.byId('1'); ({ n } = o); if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "-");
    let s =
        "var n = app.byId('1'); function w() { n = app.byId('2'); } if (n.type === 'TEXT') n.x;";
    assert_eq!(ty(s, "n.x"), "-");
}

#[test]
fn callbacks_loops_destructuring_and_await() {
    assert_eq!(
        ty("app.page.selection.forEach(n => n.x);", "n.x"),
        "Text | Frame"
    );
    assert_eq!(
        ty("app.page.selection.reduce((a, n) => n.x);", "n.x"),
        "Text | Frame"
    );
    assert_eq!(ty("app.page.selection.reduce((a, n) => a.x);", "a.x"), "-");
    assert_eq!(ty("app.each(function (s, i) { s.x; });", "s.x"), "Style");
    assert_eq!(
        ty("app.each(({ name }) => name.x);", "name.x"),
        "Builtin(String)"
    );
    // A parameter the docs leave untyped, or a callback reassigned: not certain.
    assert_eq!(ty("app.loose(s => s.x);", "s.x"), "-");
    assert_eq!(ty("app.each(s => { s = 1; s.x; });", "s.x"), "-");
    assert_eq!(ty("function cb(s) { s.x; } app.each(cb);", "s.x"), "-");
    assert_eq!(
        ty("for (const k of app.page.kids) k.x;", "k.x"),
        "Text | Frame"
    );
    assert_eq!(
        ty("for (const k of app.page.selection) k.x;", "k.x"),
        "Text | Frame"
    );
    assert_eq!(ty("for (const k in app.page.kids) k.x;", "k.x"), "-");
    assert_eq!(
        ty("app.page.kids.forEach(k => k.x);", "k.x"),
        "Text | Frame"
    );
    assert_eq!(ty("const { page } = app; page.x;", "page.x"), "Page");
    assert_eq!(ty("const { page: p } = app; p.x;", "p.x"), "Page");
    assert_eq!(ty("const { page = 1 } = app; page.x;", "page.x"), "-");
    assert_eq!(ty("const { nope } = app; nope.x;", "nope.x"), "-");
    let s = "async function f() { const s = await app.styleAsync('a'); s.x; }";
    assert_eq!(ty(s, "s.x"), "Style");
    assert_eq!(ty("app.styleAsync('a').then(s => s.x);", "s.x"), "Style");
    assert_eq!(ty("app.styleAsync('a').catch(s => s.x);", "s.x"), "-");
    let s = "const sel = app.page.selection; const t = sel.filter(n => 1); const e = t[0]; e.x;";
    assert_eq!(ty(s, "e.x"), "Text | Frame");
    assert_eq!(ty(s, "t[0]"), "(Text | Frame)[]");
}

/// The certain type of the expression that `marker` (the last one in `script`) spells.
fn ty_of(script: &str, marker: &str) -> String {
    let corpus = Corpus::from_texts(&[("api.md", DOCS)]).unwrap();
    let tree = crate::parse(script);
    let a = Analysis::new(&corpus, script, &tree);
    let at = script.rfind(marker).expect("marker");
    let node = tree
        .root_node()
        .descendant_for_byte_range(at, at + marker.len())
        .expect("node");
    assert_eq!(a.node_text(node), marker, "{script}");
    match a.certain(node) {
        Some(crate::Certain::Interface(i)) => i.to_string(),
        Some(crate::Certain::Union(u)) => u.text(),
        Some(c) => format!("{c:?}"),
        None => "-".into(),
    }
}

/// A property chain (`n.parent`) is narrowed by a test of that very chain where nothing
/// runs between the test and the use: a call (which may move the node), an assignment,
/// an `await`, a loop or a function in between keeps the whole union.
#[test]
fn a_property_chain_is_narrowed_where_nothing_runs_between() {
    let decl = "const n = app.byId('1');";
    for (code, want) in [
        ("if (n.parent.type === 'TEXT') n.parent.x;", "Text"),
        (
            "if (n.parent.type === 'TEXT') {} else { n.parent.x; }",
            "Frame",
        ),
        ("n.parent.type === 'FRAME' && n.parent.x;", "Frame"),
        (
            "const v = n.parent.type !== 'FRAME' ? 1 : n.parent.x;",
            "Frame",
        ),
        (
            "switch (n.parent.type) { case 'TEXT': n.parent.x; }",
            "Text",
        ),
        (
            "function f() { g(); if (n.parent.type !== 'TEXT') return; n.parent.x; }",
            "Text",
        ),
        (
            "if (n.parent.type === 'TEXT') { const w = n.parent.x; n.parent.x; }",
            "Text",
        ),
        // Another chain, or a test of the head only, says nothing of this one.
        (
            "if (n.parent.parent.type === 'TEXT') n.parent.x;",
            "Text | Frame",
        ),
        ("if (n.type === 'TEXT') n.parent.x;", "Text | Frame"),
        // Something runs between: the chain may have changed.
        (
            "if (n.parent.type === 'TEXT') { move(n); n.parent.x; }",
            "Text | Frame",
        ),
        (
            "if (n.parent.type === 'TEXT') { k = 1; n.parent.x; }",
            "Text | Frame",
        ),
        (
            "if (n.parent.type === 'TEXT') { k++; n.parent.x; }",
            "Text | Frame",
        ),
        (
            "if (n.parent.type === 'TEXT' && move(n)) n.parent.x;",
            "Text | Frame",
        ),
        (
            "switch (n.parent.type) { case 'TEXT': move(n); n.parent.x; }",
            "Text | Frame",
        ),
        (
            "function f() { if (n.parent.type !== 'TEXT') return; move(n); n.parent.x; }",
            "Text | Frame",
        ),
        (
            "async function f() { if (n.parent.type === 'TEXT') { await w; n.parent.x; } }",
            "Text | Frame",
        ),
        (
            "if (n.parent.type === 'TEXT') { for (;;) { n.parent.x; } }",
            "Text | Frame",
        ),
        (
            "if (n.parent.type === 'TEXT') later(() => n.parent.x);",
            "Text | Frame",
        ),
    ] {
        let s = format!("{decl} {code}");
        assert_eq!(ty_of(&s, "n.parent"), want, "{s}");
    }
    // A head that may hold another value: no chain of it is narrowed.
    let s = "let n = app.byId('1'); n = app.byId('2'); if (n.parent.type === 'TEXT') n.parent.x;";
    assert_eq!(ty_of(s, "n.parent"), "Text | Frame");
}
