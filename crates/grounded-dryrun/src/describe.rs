//! The corpus as the fake engine sees it: a compact JSON description of every interface,
//! global, constructor and global function, injected into the generic prelude.
//!
//! Generated at run time from the member index, so any corpus gets its own fake engine;
//! nothing here names an engine.

use serde_json::{json, Map, Value};

use grounded_docs::model::GLOBAL_INTERFACE as GLOBAL_INTERFACE_NAME;
use grounded_docs::{Corpus, MemberKind, Type};

/// Encodes a documented type for the prelude's `make()`: `"v"` void, `"s"` string,
/// `"n"` number, `"b"` boolean, `"a"` any, `"o"` object, `"f"` Function, `"p"` path,
/// `{"i": I}` an interface, `{"r": T}` an array, `{"B": name}` a language built-in.
/// A union is `"a"`: the run cannot know which member of it the engine gives.
pub fn type_code(t: &Type) -> Value {
    match t {
        Type::Void => json!("v"),
        Type::Any | Type::Union(_) | Type::Named(_) | Type::Promise(_) => json!("a"),
        Type::String | Type::StringLit(_) => json!("s"),
        Type::Number | Type::NumberLit(_) => json!("n"),
        Type::Boolean => json!("b"),
        Type::Object => json!("o"),
        Type::Function | Type::Func(..) => json!("f"),
        Type::Path => json!("p"),
        Type::Array(inner) => json!({ "r": type_code(inner) }),
        Type::Builtin(n) => json!({ "B": n }),
        Type::Interface(n) => json!({ "i": n }),
    }
}

/// One member: `[kind, type, path parameter indices, function parameter indices]`.
fn member_code(m: &grounded_docs::Member) -> Value {
    let kind = match m.kind {
        MemberKind::Method => "m",
        MemberKind::Property => "p",
        MemberKind::Unknown => "u",
    };
    let mut paths: Vec<usize> = Vec::new();
    let mut funcs: Vec<usize> = Vec::new();
    for sig in &m.overloads {
        for (i, p) in sig.params.iter().flatten().enumerate() {
            if p.ty.is_path() && !paths.contains(&i) {
                paths.push(i);
            }
            if p.ty.is_function() && !funcs.contains(&i) {
                funcs.push(i);
            }
        }
    }
    json!([kind, type_code(&m.value_type()), paths, funcs])
}

/// Whether a member of `Global` is a loader: a method with a `path` parameter runs the
/// named project file (found by signature, never by name).
pub fn is_loader(m: &grounded_docs::Member) -> bool {
    m.kind == MemberKind::Method
        && m.overloads
            .iter()
            .any(|s| s.params.iter().flatten().any(|p| p.ty.is_path()))
}

/// The names of the `Global` functions that load project files.
pub fn loader_names(corpus: &Corpus) -> Vec<String> {
    corpus
        .interfaces
        .get(GLOBAL_INTERFACE_NAME)
        .map(|g| {
            g.members
                .values()
                .filter(|m| is_loader(m))
                .map(|m| m.name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The whole description, as JSON text:
/// `{"i": {iface: {"parent": p, "anc": [ancestors, nearest first], "m": {own name:
///   member}, "k": string-index type, "n": number-index type, "x": extensible}},
///   "g": {var: iface},
///   "c": {name: iface}, "f": {name: member + loader flag}, "xg": [..], "xf": [..]}`.
pub fn describe(corpus: &Corpus) -> String {
    describe_project(corpus, &[])
}

/// [`describe`] with the project's globals (`grounded.toml`'s `globals`) as `"pg"`:
/// permissive objects, as the checker counts them defined and of no known interface. A
/// name the docs document keeps the docs' meaning, as in the checker.
pub fn describe_project(corpus: &Corpus, globals: &[String]) -> String {
    let mut ifaces = Map::new();
    for name in corpus.interfaces.keys() {
        if name == GLOBAL_INTERFACE_NAME {
            continue;
        }
        // Own members only: the prelude merges the ancestors' on first use, so a large
        // corpus costs memory only for the interfaces a script reaches.
        let iface = &corpus.interfaces[name];
        let members: Map<String, Value> = iface
            .members
            .values()
            .map(|m| (m.name.clone(), member_code(m)))
            .collect();
        let parent = iface.parents.first().cloned();
        let mut entry = json!({ "parent": parent, "anc": corpus.ancestors(name), "m": members });
        // Open objects, as the static check reads them (ancestors included): a run
        // that reported `xml.item`, `w.pbar = ...` on an extensible dialog or
        // `pages[0]` accused correct code the checker had stopped accusing.
        if corpus.open_keys(name) {
            let t = std::iter::once(name.as_str())
                .chain(corpus.ancestors(name).iter().map(String::as_str))
                .find_map(|i| corpus.interfaces.get(i)?.string_index.as_ref());
            entry["k"] = t.map_or(json!("a"), type_code);
        }
        if let Some(t) = corpus.number_index(name) {
            entry["n"] = type_code(t);
        }
        if corpus.is_extensible(name) {
            entry["x"] = json!(true);
        }
        // `Loose member names: yes` (docs::family): the prelude resolves a name equal
        // once lowercased with underscores removed to the documented member.
        if iface.loose_names {
            entry["l"] = json!(true);
        }
        // Documented sub-interfaces (transitive): the object may be of one, so their
        // members are no invention (a permissive value, as the checker does not type
        // them either). Names only, like `anc`: the prelude reads their members on
        // first use of the interface, so a deep family costs nothing until reached.
        let subs = corpus.descendants(name);
        if !subs.is_empty() {
            entry["ds"] = json!(subs);
        }
        ifaces.insert(name.clone(), entry);
    }
    // `Global`'s members, and those of `Global members: yes` interfaces, which scripts
    // use with no receiver too (`activeDocument`, `executeAction(...)`). Only
    // `Global`'s own loaders run files (corpus-format.md, "Member chunk").
    let mut funcs = Map::new();
    for m in corpus.global_members() {
        let mut code = member_code(m);
        if let Value::Array(a) = &mut code {
            a.push(json!(m.interface == GLOBAL_INTERFACE_NAME && is_loader(m)));
        }
        funcs.insert(m.name.clone(), code);
    }
    let ctors: Map<String, Value> = corpus
        .constructors
        .values()
        .map(|c| (c.name.clone(), json!(c.interface)))
        .collect();
    let mut project: Vec<String> = Vec::new();
    for g in globals {
        let documented = corpus.is_engine_global(g)
            || corpus.constructors.contains_key(g)
            || corpus.interfaces.contains_key(g);
        if !documented && !project.contains(g) {
            project.push(g.clone());
        }
    }
    // Modules: specifier → [its interface, the default export's interface or null].
    let modules: Map<String, Value> = corpus
        .modules
        .iter()
        .map(|(m, i)| {
            let d = corpus
                .interfaces
                .get(i)
                .and_then(|x| x.default_export.clone());
            (m.clone(), json!([i, d]))
        })
        .collect();
    json!({
        "md": modules,
        "cj": corpus.engine.has_commonjs(),
        "ee": corpus.engine.entry_exports,
        "pg": project,
        "i": ifaces,
        "g": corpus.globals,
        "c": ctors,
        "f": funcs,
        "xg": corpus.extra_globals,
        "xf": corpus.extra_functions,
    })
    .to_string()
}
