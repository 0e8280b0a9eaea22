//! The project index's loads, reach and shared names, on small indexes built here.

use super::*;

fn corpus() -> Corpus {
    Corpus::from_texts(&[(
        "g.md",
        "# Global\n\n## Global-load\n\nSyntax: load(file: path): void\n",
    )])
    .unwrap()
}

#[test]
fn reach_follows_literal_loads_transitively() {
    let c = corpus();
    let mut idx = ProjectIndex::default();
    idx.update_file(&c, "main.js", "load(\"a.js\");\nmain();");
    idx.update_file(&c, "a.js", "load(\"./b.js\");\nfunction fa() {}");
    idx.update_file(&c, "b.js", "function fb() {}\nimplicitGlobal = 1;");
    idx.update_file(&c, "c.js", "function fc() {}");
    let own = idx.files["main.js"].clone();
    let r = idx.reach("main.js", &own);
    assert!(r.names.contains("fa") && r.names.contains("fb"));
    assert!(r.names.contains("implicitGlobal"));
    assert!(!r.names.contains("fc"), "c.js is not loaded");
    assert_eq!(idx.dependents("b.js"), vec!["a.js", "main.js"]);
    assert!(idx.dependents("c.js").is_empty());
    idx.remove_file("c.js");
    assert!(!idx.files.contains_key("c.js"));
}

#[test]
fn computed_loads_or_none_share_one_scope() {
    let c = corpus();
    let mut idx = ProjectIndex::default();
    idx.update_file(&c, "main.js", "var f = \"a.js\";\nload(f);");
    idx.update_file(&c, "a.js", "function fa() {}");
    idx.update_file(&c, "c.js", "function fc() {}");
    assert!(idx.shares_one_scope());
    let own = idx.files["c.js"].clone();
    assert!(idx.reach("c.js", &own).names.contains("fa"));
    let mut none = ProjectIndex::default();
    none.update_file(&c, "x.js", "function fx() {}");
    none.update_file(&c, "y.js", "fx();");
    let own = none.files["y.js"].clone();
    assert!(none.reach("y.js", &own).names.contains("fx"));
    assert_eq!(none.dependents("x.js"), vec!["y.js"]);
}

/// Only `Global`'s own functions with a `path` parameter load scripts
/// (corpus-format.md): a member of a `Global members: yes` interface is a global
/// name, and the dry run runs none of them as a loader, so the checker must not
/// follow one either.
#[test]
fn only_globals_own_path_functions_load_scripts() {
    let c = Corpus::from_texts(&[(
        "g.md",
        "# Global\n\n## Global-load\n\nSyntax: load(file: path): void\n\n\
         # Application\n\nGlobal members: yes\n\n\
         ## Application-open\n\nSyntax: open(file: path): void\n",
    )])
    .unwrap();
    assert!(c.global_member("open").is_some(), "open is a global name");
    let mut idx = ProjectIndex::default();
    idx.update_file(&c, "main.js", "open(\"a.js\");\nload(\"b.js\");");
    assert_eq!(idx.files["main.js"].loads, vec!["b.js".to_string()]);
    assert!(!idx.files["main.js"].dynamic_loads);
    idx.update_file(&c, "dynamic.js", "var f = \"a.js\";\nopen(f);");
    assert!(
        !idx.files["dynamic.js"].dynamic_loads,
        "a computed open() is no computed load"
    );
}

/// The shared names answer what `reach` answers, for every file of indexes that
/// share one scope (a name declared once, twice, by the file alone, a global).
#[test]
fn shared_names_are_reach_without_copies() {
    let c = corpus();
    let mut idx = ProjectIndex::default();
    idx.update_file(&c, "a.js", "function fa() {}\nvar both = 1;\nonlyA = 2;");
    idx.update_file(&c, "b.js", "function fb() {}\nvar both = 3;\nvar g = 1;");
    idx.update_file(&c, "c.js", "fa(); fb(); Object.keys = 1;");
    idx.set_globals(&c, &["g".to_string(), "h".to_string()]);
    let shared = idx.shared_names();
    for rel in ["a.js", "b.js", "c.js", "elsewhere.js"] {
        let own = idx.files.get(rel).cloned().unwrap_or_default();
        let want = idx.reach(rel, &own);
        let (names, polyfills) = idx.reach_shared(rel, &own, &shared).expect("one scope");
        let mut got: Vec<&String> = names.iter().collect();
        got.sort();
        let mut want_names: Vec<&String> = want.names.iter().collect();
        want_names.sort();
        assert_eq!(got, want_names, "{rel}");
        assert_eq!(polyfills, want.polyfills, "{rel}");
        for n in ["fa", "fb", "both", "onlyA", "g", "h", "zz"] {
            assert_eq!(names.contains(n), want.names.contains(n), "{rel}: {n}");
        }
    }
    // Loads followed: no shared answer.
    idx.update_file(&c, "c.js", "load(\"a.js\");\nfa();");
    let own = idx.files["c.js"].clone();
    assert!(idx
        .reach_shared("c.js", &own, &idx.shared_names())
        .is_none());
}

/// The run's one set of polyfills is what each script would gather for itself (the
/// others' polyfills, its own, the engine's `Also has:`) whenever the run says it may
/// stand for it, and the run says so only then: not when the script's text no longer
/// supplies what only it supplied, nor when it supplies something new.
#[test]
fn the_run_polyfills_stand_for_a_scripts_own_only_when_equal() {
    let c = corpus();
    let mut idx = ProjectIndex::default();
    idx.update_file(&c, "a.js", "Object.keys = 1;\nString.prototype.trim = 2;");
    idx.update_file(&c, "b.js", "String.prototype.trim = 3;");
    idx.update_file(&c, "c.js", "fa();");
    let shared = idx.shared_names();
    let gathered = |rel: &str, own: &FileFacts| -> HashSet<String> {
        let mut p = idx.reach(rel, own).polyfills;
        p.extend(own.polyfills.iter().cloned());
        p.extend(c.engine.also_has.iter().cloned());
        p
    };
    for rel in ["a.js", "b.js", "c.js", "elsewhere.js"] {
        let own = idx.files.get(rel).cloned().unwrap_or_default();
        assert!(idx.sees_every_polyfill(rel, &own, &shared), "{rel}");
        assert_eq!(shared.every_polyfill(&c), &gathered(rel, &own), "{rel}");
        let mut p = idx.polyfills_shared(rel, &shared);
        p.extend(own.polyfills.iter().cloned());
        p.extend(c.engine.also_has.iter().cloned());
        assert_eq!(p, gathered(rel, &own), "{rel}: the script's own gathering");
    }
    // a.js edited: `Object.keys` (only a.js's) gone, or `Array.isArray` new.
    for text in [
        "String.prototype.trim = 2;",
        "Object.keys = 1;\nArray.isArray = 4;",
    ] {
        let own = FileFacts::of(&c, "a.js", text);
        assert!(!idx.sees_every_polyfill("a.js", &own, &shared), "{text}");
        assert_ne!(shared.every_polyfill(&c), &gathered("a.js", &own), "{text}");
    }
}

#[test]
fn normalizes() {
    assert_eq!(normalize("./lib/../lib/x.js"), "lib/x.js");
    assert_eq!(normalize("../x.js"), "../x.js");
    assert_eq!(
        string_literal("\"a\\\"b\"", "string").as_deref(),
        Some("a\"b")
    );
    assert_eq!(string_literal("\"a\\nb\"", "string"), None);
}
