use super::*;

/// Everything a walk leaves in an analysis, in a comparable form.
fn fingerprint(a: &Analysis) -> String {
    let r = |n: Node| (n.start_byte(), n.end_byte(), n.kind_id());
    let mut out = String::new();
    for (i, &(kind, node, scope)) in a.sites.iter().enumerate() {
        let parts: Vec<_> = a.parts[i]
            .iter()
            .map(|p| p.map(|p| (r(p.node), p.kind, p.end)))
            .collect();
        out.push_str(&format!("site {kind:?} {:?} {scope} {parts:?}\n", r(node)));
    }
    for sc in &a.scopes {
        let mut names: Vec<_> = sc.names.iter().map(|(k, v)| (*k, *v)).collect();
        names.sort();
        out.push_str(&format!(
            "scope {:?} {} {} {:?} {names:?}\n",
            sc.kind, sc.start, sc.end, sc.parent
        ));
    }
    for b in &a.bindings {
        out.push_str(&format!("binding {b:?}\n"));
    }
    let items: Vec<_> = a.list_items.iter().map(|&n| r(n)).collect();
    out.push_str(&format!(
        "lists {:?} {items:?} {:?}\n",
        a.lists, a.list_kinds
    ));
    for c in &a.construct_paths {
        let path: Vec<_> = c
            .path
            .iter()
            .map(|p| (r(p.node), p.kind, p.end, p.end_row))
            .collect();
        out.push_str(&format!(
            "construct {path:?} {:?}\n",
            c.object.map(|o| (r(o.node), o.end))
        ));
    }
    let mut t: Vec<_> = a.typeof_names.iter().collect();
    t.sort();
    let mut n: Vec<_> = a.narrowed_globals.iter().collect();
    n.sort();
    let mut p: Vec<_> = a.polyfills.iter().collect();
    p.sort();
    out.push_str(&format!(
        "typeof {t:?} narrowed {n:?} polyfills {p:?} with {:?} lexical {}\n",
        a.with_ranges, a.lexical_until
    ));
    out
}

fn scripts_under(dir: &std::path::Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            scripts_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "js") {
            out.push(std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}

#[test]
fn stepping_over_tokens_misses_nothing_the_analysis_reads() {
    let corpus = grounded_docs::bundled::demo().unwrap();
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut scripts = Vec::new();
    scripts_under(&root.join("tests/fixtures"), &mut scripts);
    scripts_under(&root.join("examples/demo"), &mut scripts);
    scripts.extend(
            [
                "if (typeof JSON === 'undefined') { JSON = {}; }\nif (x instanceof Table) { x.columns = 2; }",
                "for (var k in o) { o[k] **= 2; } var a = b ?? c; d ||= e;",
                "let t = new Table(); const u = t; for (const v of w) { layout.tableStart(v); }",
                "var o = { a: 1, b: [1, 2,], 'c': function (p, q,) { return p; }, };\nf(1, 2,);",
                "function f(a, b) { with (a) { b(); } try { g(); } catch (e) { e.x(); } }",
                "layout.tableStart(t /* c */); layout.tableEnd(); x = /a/y; y = 0b1 + 1_000 + 10n;",
                "var x = ; f(1,, 2 } layout.blockStart(",
            ]
            .map(String::from),
        );
    assert!(scripts.len() > 20, "{}", scripts.len());
    let mut stepped = 0;
    for text in &scripts {
        let tree = crate::parse(text);
        let skipping = Analysis::build(&corpus, text, &tree, false);
        let full = Analysis::build(&corpus, text, &tree, true);
        assert_eq!(fingerprint(&skipping), fingerprint(&full), "{text}");
        if !query::anonymous_roots().unlisted_in(text) {
            stepped += 1;
        }
    }
    assert!(stepped > 20, "most scripts step over tokens ({stepped})");
}

#[test]
fn recording_refs_changes_nothing_the_checker_reads() {
    // The footprints' analysis is the checker's with refs recorded: the scopes,
    // bindings and sites must be the same, or the two would answer differently.
    let corpus = grounded_docs::bundled::demo().unwrap();
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut scripts = Vec::new();
    scripts_under(&root.join("tests/fixtures/footprint"), &mut scripts);
    scripts_under(&root.join("examples/demo"), &mut scripts);
    scripts.push("try { f(); } catch (e) { var v = e; } e.x = 1; z = 2;".into());
    assert!(scripts.len() > 5, "{}", scripts.len());
    for text in &scripts {
        let tree = crate::parse(text);
        let plain = Analysis::new(&corpus, text, &tree);
        let mut visited = 0;
        let with = Analysis::with_refs(&corpus, text, &tree, tree.root_node(), |_| {
            visited += 1;
        });
        assert_eq!(fingerprint(&plain), fingerprint(&with), "{text}");
        assert!(plain.refs().is_empty());
        let idents = text.matches(|c: char| c.is_ascii_alphabetic()).count();
        assert!(with.refs().len() <= idents && visited >= with.refs().len());
    }
}

/// The binding kind that the identifier starting the `nth` occurrence of `needle`
/// names.
fn kind_of_ref(a: &Analysis, text: &str, needle: &str, nth: usize) -> Option<BindingKind> {
    let at = text.match_indices(needle).nth(nth).unwrap().0;
    let r = a.ref_starting_at(at).expect("an identifier starts there");
    assert!(needle.starts_with(&text[r.start..r.end]), "{needle}");
    r.binding.map(|b| a.bindings[b].kind)
}

#[test]
fn refs_name_what_es3_scopes_say() {
    let c = corpus();
    let text = "function f(a) {
  try { g(); } catch (e) { e.x = 1; var v = e; }
  e.y = 2;
  return a + v + h + layout;
  function h() {}
}
var a = 1;
z = 2;
z;
";
    let tree = crate::parse(text);
    let a = Analysis::with_refs(&c, text, &tree, tree.root_node(), |_| {});
    // `catch` binds its parameter for the clause only.
    assert_eq!(kind_of_ref(&a, text, "e", 1), Some(BindingKind::Catch));
    assert_eq!(kind_of_ref(&a, text, "e", 2), Some(BindingKind::Catch));
    assert_eq!(kind_of_ref(&a, text, "e.y", 0), None);
    // `var` inside the catch hoists to the function; declarations hoist.
    let v = text.find("v + h").unwrap();
    let r = a.ref_at(v).unwrap();
    assert_eq!(a.bindings[r.binding.unwrap()].kind, BindingKind::Var);
    assert_ne!(a.bindings[r.binding.unwrap()].scope, 0);
    assert_eq!(kind_of_ref(&a, text, "h +", 0), Some(BindingKind::Function));
    // The parameter shadows the top-level `var a`.
    assert_eq!(kind_of_ref(&a, text, "a + v", 0), Some(BindingKind::Param));
    assert_eq!(kind_of_ref(&a, text, "a = 1", 0), Some(BindingKind::Var));
    // Undeclared: a global, implicit when assigned.
    assert_eq!(kind_of_ref(&a, text, "layout", 0), None);
    assert_eq!(kind_of_ref(&a, text, "z", 0), Some(BindingKind::Implicit));
    assert_eq!(kind_of_ref(&a, text, "z", 1), Some(BindingKind::Implicit));
    assert_eq!(a.refs_on_row(3).len(), 4);
}

#[test]
fn a_subtree_s_refs_leave_outer_names_unresolved() {
    let c = corpus();
    let text = "var t = 1;
function f(p) { var q = p + t; }
";
    let tree = crate::parse(text);
    let f = tree.root_node().named_child(1).unwrap();
    assert!(is_function_kind(f.kind_id()));
    let a = Analysis::with_refs(&c, text, &tree, f, |_| {});
    assert_eq!(kind_of_ref(&a, text, "t;", 0), None);
    assert_eq!(kind_of_ref(&a, text, "p +", 0), Some(BindingKind::Param));
    assert_eq!(kind_of_ref(&a, text, "f(", 0), Some(BindingKind::Function));
    assert!(a.ref_starting_at(0).is_none(), "outside the subtree");
}

fn corpus() -> Corpus {
    Corpus::from_texts(&[(
        "a.md",
        "# Layout\n\nThis object is accessed using the global property \"layout\".\n\n\
             ## Layout-currentPage\n\nSyntax: currentPage(): Page\n\n\
             # Page\n\n## Page-frame\n\nSyntax: frame: Frame\n\n\
             # Frame\n\n## Frame-x\n\nSyntax: x: number\n\n\
             # Table\n\nConstructor: new Table()\n\n## Table-columns\n\nSyntax: columns: number\n",
    )])
    .unwrap()
}

fn iface_at(text: &str, needle: &str, kind: &str) -> Option<String> {
    let c = corpus();
    let tree = crate::parse(text);
    let a = Analysis::new(&c, text, &tree);
    let n = a.node_at(text.find(needle).unwrap(), kind).unwrap();
    a.interface_of(n)
}

#[test]
fn chains_and_globals() {
    let t = "layout.currentPage().frame.x = 1;";
    assert_eq!(
        iface_at(t, "frame", "member_expression").as_deref(),
        Some("Frame")
    );
    assert_eq!(
        iface_at(t, "layout", "identifier").as_deref(),
        Some("Layout")
    );
}

#[test]
fn shadowing_params_and_catch() {
    let t = "function f(layout) { layout.q(); }";
    assert_eq!(iface_at(t, "layout.q", "identifier"), None);
    let t = "function f() { layout.q(); var layout = {}; }";
    assert_eq!(iface_at(t, "layout.q", "identifier"), None);
    let t = "try {} catch (layout) { layout.q(); }\nlayout.r();";
    assert_eq!(iface_at(t, "layout.q", "identifier"), None);
    assert_eq!(
        iface_at(t, "layout.r", "identifier").as_deref(),
        Some("Layout")
    );
}

#[test]
fn variables_by_every_assignment() {
    let t = "var t = new Table();\nt.columns = 2;";
    assert_eq!(
        iface_at(t, "t.columns", "identifier").as_deref(),
        Some("Table")
    );
    let t = "var t = new Table();\nt = other();\nt.columns = 2;";
    assert_eq!(iface_at(t, "t.columns", "identifier"), None);
    let t = "var t = new Table();\nif (t instanceof Foo) {}\nt.columns = 2;";
    assert_eq!(iface_at(t, "t.columns", "identifier"), None);
    let t = "function Table() {}\nvar t = new Table();\nt.columns = 2;";
    assert_eq!(iface_at(t, "t.columns", "identifier"), None);
}

#[test]
fn variables_typed_from_the_docs() {
    let page = |t: &str, at: &str| iface_at(t, at, "identifier");
    // A member's value, a global, another certain variable, in any order.
    let t = "var b = a;\nvar a = layout.currentPage();\nb.frame;\na.frame;";
    assert_eq!(page(t, "a.frame").as_deref(), Some("Page"));
    assert_eq!(page(t, "b.frame").as_deref(), Some("Page"));
    let t = "var l = layout;\nl.x;";
    assert_eq!(page(t, "l.x").as_deref(), Some("Layout"));
    // A cycle is not certain, and ends.
    let t = "var a = b;\nvar b = a;\na.x;\nb.x;";
    assert_eq!(page(t, "a.x"), None);
    assert_eq!(page(t, "b.x"), None);
    // Two interfaces, an uncertain branch, another function's write, a parameter's
    // member, the project's own function.
    let t = "var p = layout.currentPage();\np = layout;\np.x;";
    assert_eq!(page(t, "p.x"), None);
    let t = "var p = layout.currentPage();\nif (q) p = make();\np.x;";
    assert_eq!(page(t, "p.x"), None);
    let t = "var p;\nfunction init() { p = layout.currentPage(); }\np.x;";
    assert_eq!(page(t, "p.x"), None);
    let t = "function f(l) { var p = l.currentPage(); p.x; }";
    assert_eq!(page(t, "p.x"), None);
    let t = "function currentPage() { return {}; }\nvar p = currentPage();\np.x;";
    assert_eq!(page(t, "p.x"), None);
    // Inside `with (o)`, `p` may be `o.p`.
    let t = "var p = layout.currentPage();\nwith (o) { p.x; }";
    assert_eq!(page(t, "p.x"), None);
    // A name a destructuring binds holds part of a value: never certain.
    let t = "var { p } = obj;\np.x;\nif (c) p = layout.currentPage();";
    assert_eq!(page(t, "p.x"), None);
    // A chain deeper than the settling depth is not certain rather than a stack
    // overflow.
    let mut t = String::from("var v0 = layout;\n");
    for i in 1..200 {
        t.push_str(&format!("var v{i} = v{};\n", i - 1));
    }
    t.push_str("v199.x;\nv3.x;");
    assert_eq!(page(&t, "v3.x").as_deref(), Some("Layout"));
}
