//! The chunks of the corpus, in the words of corpus-format.md: an interface chunk per
//! entity with its relation lines, a member chunk per member with its signature first,
//! `Global` for functions and untyped globals, and the `Engine` chunk.
//!
//! Imports the parent `import` (settings), `map` (the model) and `dts` (declarations),
//! and `grounded_docs::signature` to keep prose lines from reading as signatures.

use std::collections::{BTreeMap, BTreeSet};

use super::dts::{module_spec, DeclKind, Doc, MemberDecl, MemberKind, Ty};
use super::map::{Entity, Model};
use super::Settings;

mod signature;

use signature::{as_method, ctor_params_text, signature_lines};

/// One chunk to write.
#[derive(Debug, serde::Serialize)]
pub struct Chunk {
    /// Its title.
    pub title: String,
    /// Its text.
    pub text: String,
    /// `file:line` of the declaration.
    pub source: String,
    /// What it was declared as.
    pub declared: String,
}

/// Counts for the summary.
#[derive(Debug, Default)]
pub struct Counts {
    /// Interface chunks.
    pub interfaces: usize,
    /// Member chunks.
    pub members: usize,
    /// Global variables (`accessed using the global property`) and `Global` members.
    pub globals: usize,
    /// `Constructor:` lines.
    pub constructors: usize,
    /// Classes given TypeScript's implicit constructor (declared without one).
    pub implicit_constructors: usize,
    /// Classes whose constructors the options' `no_constructor` left out.
    pub withheld_constructors: usize,
    /// Interfaces declared `extends Array<T>`, by corpus name: indexable as `T`, with
    /// the language's `Array` members.
    pub array_collections: Vec<String>,
}

/// The name of the global functions' interface.
const GLOBAL: &str = "Global";

/// Renders every chunk, sorted by title (deterministic bytes), the Engine chunk first.
pub fn chunks(model: &mut Model, files: &[String], settings: &Settings) -> (Vec<Chunk>, Counts) {
    let mut counts = Counts::default();
    let mut global_members: Vec<(MemberDecl, usize)> = Vec::new();
    let mut used_ctor_ifaces: BTreeSet<usize> = BTreeSet::new();
    // Global variables: an object of a declared interface, else a member of `Global`.
    let vars = std::mem::take(&mut model.vars);
    for v in &vars {
        let DeclKind::Var(ty) = &v.kind else { continue };
        if model.is_language_global(&v.name) {
            model.skip(
                v.file,
                v.line,
                format!("var {}", v.name),
                "a global of the language itself: the ECMAScript level (--es) says it exists",
            );
            continue;
        }
        let ent = ty.as_ref().and_then(|t| model.entity_of(t, v.file, &v.ns));
        match ent {
            Some(i) => {
                model.entities[i].globals.insert(v.name.clone());
                var_constructors(model, v, i, &mut used_ctor_ifaces);
            }
            None => global_members.push((
                MemberDecl {
                    name: Some(v.name.clone()),
                    raw: v.name.clone(),
                    kind: MemberKind::Prop,
                    is_static: false,
                    readonly: false,
                    hidden: false,
                    params: Vec::new(),
                    ty: ty.clone().or(Some(Ty::Prim("any".into()))),
                    doc: v.doc.clone(),
                    line: v.line,
                    ctx: None,
                },
                v.file,
            )),
        }
    }
    model.vars = vars;
    // A module's constants constructible the same way (`export const SharedArray: {
    // new (...): ... }`): a script writes the name it imports after `new`.
    let values = std::mem::take(&mut model.module_values);
    for v in &values {
        if let DeclKind::Var(Some(t)) = &v.kind {
            if let Some(i) = model.entity_of(t, v.file, &v.ns) {
                var_constructors(model, v, i, &mut used_ctor_ifaces);
            }
        }
    }
    model.module_values = values;
    // Classes, enums and namespaces that own their name are globals themselves.
    for i in 0..model.entities.len() {
        let e = &model.entities[i];
        if e.dropped || e.kind == "class object" {
            continue;
        }
        let top = e.ns.is_empty() && e.owns_name;
        // A module's class: a script writes the name it imports after `new`; it is
        // no global.
        let in_module = e.ns.len() == 1 && module_spec(&e.ns[0]).is_some();
        if e.is_class {
            let ctors: Vec<(MemberDecl, usize)> = e
                .statics
                .iter()
                .filter(|(m, _)| m.kind == MemberKind::Construct)
                .cloned()
                .collect();
            let (short, ns, name) = (e.short.clone(), e.ns.clone(), e.name.clone());
            let obj = e.class_object;
            let ctors_declared = ctors.len();
            for (c, f) in ctors {
                if c.hidden {
                    model.skip(
                        f,
                        c.line,
                        format!("{short} constructor"),
                        "a private or protected constructor",
                    );
                } else if top || in_module {
                    let params = ctor_params_text(model, &c.params, f, &ns, Some(&name));
                    model.entities[i]
                        .constructors
                        .push(format!("Constructor: new {short}({params})"));
                } else {
                    model.skip(
                        f,
                        c.line,
                        format!("new {}(...)", model.entities[i].qualified()),
                        if ns.is_empty() {
                            "another declaration of this name owns the global (see prefer in the options)"
                        } else {
                            "a namespaced class: the corpus names a constructor by one identifier"
                        },
                    );
                }
            }
            let abstract_ = model.entities[i].is_abstract;
            if ctors_declared == 0 && (top || in_module) && !abstract_ {
                if let Some(list) = super::implied::implicit_constructors(model, i) {
                    for c in list {
                        let params =
                            ctor_params_text(model, &c.params, c.file, &c.ns, Some(&c.this));
                        let line = format!("Constructor: new {short}({params})");
                        if !model.entities[i].constructors.contains(&line) {
                            model.entities[i].constructors.push(line);
                        }
                    }
                    model.entities[i].implicit_ctor = true;
                }
            }
            if let (Some(o), true) = (obj, top) {
                model.entities[o].globals.insert(short);
            }
        } else if top && (e.enum_prim.is_some() || e.kind == "namespace") {
            let short = e.short.clone();
            model.entities[i].globals.insert(short);
        }
    }
    for f in std::mem::take(&mut model.functions) {
        if model.is_language_global(&f.name) {
            model.skip(
                f.file,
                f.line,
                format!("function {}", f.name),
                "a function of the language itself: the ECMAScript level (--es) says it exists",
            );
            continue;
        }
        for mut m in f.members {
            m.doc = if m.doc.text.is_empty() {
                f.doc.clone()
            } else {
                m.doc
            };
            global_members.push((m, f.file));
        }
    }
    let mut out = vec![engine_chunk(settings, files.len())];
    let mut order: Vec<usize> = (0..model.entities.len())
        .filter(|&i| !model.entities[i].dropped)
        .collect();
    order.sort_by(|&a, &b| model.entities[a].name.cmp(&model.entities[b].name));
    for i in order {
        entity_chunks(
            model,
            i,
            files,
            settings,
            &used_ctor_ifaces,
            &mut out,
            &mut counts,
        );
    }
    if !global_members.is_empty() {
        let g = Entity {
            name: GLOBAL.into(),
            short: GLOBAL.into(),
            kind: "globals",
            members: global_members,
            owns_name: true,
            ..Entity::default()
        };
        model.entities.push(g);
        let i = model.entities.len() - 1;
        entity_chunks(
            model,
            i,
            files,
            settings,
            &used_ctor_ifaces,
            &mut out,
            &mut counts,
        );
        model.entities[i].dropped = true;
    }
    out[1..].sort_by(|a, b| a.title.cmp(&b.title));
    (out, counts)
}

/// `declare var File: FileConstructor` with `new (path?: string): File`: `new
/// File(...)` gives a `File` (a `Constructor:` line in `File`'s chunk).
fn var_constructors(
    model: &mut Model,
    v: &super::dts::Decl,
    i: usize,
    used_ctor_ifaces: &mut BTreeSet<usize>,
) {
    used_ctor_ifaces.insert(i);
    let ctors: Vec<(MemberDecl, usize)> = model.entities[i]
        .members
        .iter()
        .filter(|(m, _)| m.kind == MemberKind::Construct)
        .cloned()
        .collect();
    for (c, f) in ctors {
        let ns = model.entities[i].ns.clone();
        let target = c.ty.as_ref().and_then(|t| model.entity_of(t, f, &ns));
        match target {
            Some(t) => {
                let params = ctor_params_text(model, &c.params, f, &ns, None);
                let line = format!("Constructor: new {}({params})", v.name);
                if !model.entities[t].constructors.contains(&line) {
                    model.entities[t].constructors.push(line);
                }
            }
            None => model.skip(
                f,
                c.line,
                format!("new {}(...)", v.name),
                "a construct signature whose result is not a declared interface",
            ),
        }
    }
}

fn engine_chunk(s: &Settings, nfiles: usize) -> Chunk {
    let mut t = format!("ECMAScript: {}\n", s.es);
    if !s.extensions.is_empty() {
        t.push_str(&format!("Script extensions: {}\n", s.extensions.join(" ")));
    }
    if !s.directives.is_empty() {
        t.push_str(&format!("Directives: {}\n", s.directives.join(" ")));
    }
    if !s.also_allows.is_empty() {
        t.push_str(&format!("Also allows: {}\n", s.also_allows.join(" ")));
    }
    if !s.also_has.is_empty() {
        t.push_str(&format!("Also has: {}\n", s.also_has.join(" ")));
    }
    // What declarations cannot say about how scripts load modules (k6 loads
    // `https://jslib.k6.io/...` itself and calls `setup`, `default`, `teardown`).
    if !s.modules.is_empty() {
        t.push_str(&format!("Modules: {}\n", s.modules.join(" ")));
    }
    if s.remote_modules {
        t.push_str("Remote modules: yes\n");
    }
    if !s.entry_exports.is_empty() {
        t.push_str(&format!("Entry exports: {}\n", s.entry_exports.join(" ")));
    }
    if s.scripts_run_alone {
        t.push_str("Scripts run alone: yes\n");
    }
    t.push_str(&format!(
        "\nImported by `grounded import dts` from {nfiles} declaration file{}; the lines above come from its options, not from the declarations.\n",
        if nfiles == 1 { "" } else { "s" }
    ));
    Chunk {
        title: "Engine".into(),
        text: t,
        source: String::new(),
        declared: "options".into(),
    }
}

fn place(files: &[String], p: (usize, usize)) -> String {
    format!(
        "{}:{}",
        files.get(p.0).map(String::as_str).unwrap_or("?"),
        p.1
    )
}

#[allow(clippy::too_many_arguments)]
fn entity_chunks(
    model: &mut Model,
    i: usize,
    files: &[String],
    settings: &Settings,
    used_ctor: &BTreeSet<usize>,
    out: &mut Vec<Chunk>,
    counts: &mut Counts,
) {
    let name = model.entities[i].name.clone();
    let ns = model.entities[i].ns.clone();
    let is_global = name == GLOBAL && model.entities[i].kind == "globals";
    let mut text = String::new();
    let doc = model.entities[i].doc.clone();
    push_doc(&mut text, &doc, None);
    let e = &model.entities[i];
    let source = e
        .places
        .first()
        .map(|p| place(files, *p))
        .unwrap_or_default();
    if is_global {
        text.push_str(
            "The engine's global functions and variables, as the declarations read give them.\n",
        );
    } else {
        let mut places: Vec<String> = e.places.iter().take(3).map(|p| place(files, *p)).collect();
        if e.places.len() > 3 {
            places.push(format!("and {} more", e.places.len() - 3));
        }
        let what = if e.kind == "class object" {
            format!(
                "the class object of class `{}` (its static members)",
                e.qualified()
            )
        } else if let Some(spec) = &e.module {
            format!("module `{spec}` (what `import` and `require` of it give)")
        } else if let Some(spec) = e.ns.first().and_then(|n| module_spec(n)) {
            // Said in words: `import("k6/http").Response` is TypeScript's notation,
            // not a reader's.
            let mut inner = e.ns[1..].join(".");
            if !inner.is_empty() {
                inner.push('.');
            }
            format!("{} `{inner}{}` of module `{spec}`", e.kind, e.short)
        } else {
            format!("{} `{}`", e.kind, e.qualified())
        };
        text.push_str(&format!("Declared as {what} in {}.\n", places.join(", ")));
        if let Some(r) = &e.renamed {
            text.push_str(&format!("Renamed from `{}`: {r}.\n", e.short));
        }
    }
    if let Some(spec) = &e.module {
        text.push_str(&format!("Module: \"{spec}\"\n"));
        if let Some(d) = &e.default_export {
            text.push_str(&format!("Default export: {d}\n"));
        }
        if let Some(p) = &e.equals_parent {
            text.push_str(&format!("Parent interface: {p}\n"));
        }
    }
    // Relation lines.
    let parents = model.entities[i].parents.clone();
    let mut seen = BTreeSet::new();
    let mut array_members = Vec::new();
    for (p, f) in parents {
        if let Some(elem) = super::implied::array_parent(&p) {
            // `class Documents extends Array<Document>`: indexable as `T`, with the
            // language's `Array` members (said in the summary).
            if array_members.is_empty() && !is_global {
                let any = Ty::Prim("any".into());
                let t = model.map(elem.unwrap_or(&any), f, &ns, Some(&name));
                let own_index = model.entities[i].members.iter().any(|(m, _)| {
                    m.kind == MemberKind::Index && m.name.as_deref() == Some("number")
                });
                if !own_index {
                    text.push_str(&format!("Index: [index: number]: {t}\n"));
                }
                let line = model.entities[i].places.first().map(|x| x.1).unwrap_or(0);
                array_members = super::implied::array_members(model.level, line);
                counts.array_collections.push(name.clone());
            }
            continue;
        }
        let target = model.entity_of(&p, f, &ns);
        match target {
            Some(t) if t != i && !model.entities[t].dropped => {
                let pn = model.entities[t].name.clone();
                if seen.insert(pn.clone()) {
                    text.push_str(&format!("Parent interface: {pn}\n"));
                }
            }
            _ => {
                let line = model.entities[i].places.first().map(|x| x.1).unwrap_or(0);
                model.skip(
                    f,
                    line,
                    format!("{name} extends {}", ty_words(&p)),
                    "the parent is not an interface or class of the files read",
                );
            }
        }
    }
    let e = &model.entities[i];
    for g in &e.globals {
        text.push_str(&format!("accessed using the global property \"{g}\"\n"));
        counts.globals += 1;
    }
    if !e.constructors.is_empty() && super::implied::withheld(model, i, files, settings) {
        // The options say the engine builds none of these with `new`.
        counts.withheld_constructors += 1;
    } else {
        for c in &e.constructors {
            text.push_str(c);
            text.push('\n');
            counts.constructors += 1;
        }
        if e.implicit_ctor && !e.constructors.is_empty() {
            counts.implicit_constructors += 1;
        }
    }
    let mut groups: BTreeMap<String, Vec<(MemberDecl, usize)>> = BTreeMap::new();
    let mut members = model.entities[i].members.clone();
    // The inherited `Array` members, where the class declares none of that name.
    let file = model.entities[i].places.first().map(|x| x.0).unwrap_or(0);
    for m in array_members {
        if !members.iter().any(|(own, _)| own.name == m.name) {
            members.push((m, file));
        }
    }
    for (m, f) in members {
        let what = format!("{name}.{}", if m.raw.is_empty() { "?" } else { &m.raw });
        match m.kind {
            MemberKind::Index => {
                let key = m.name.clone().unwrap_or_default();
                if key == "string" || key == "number" {
                    let ty = m.ty.clone().unwrap_or(Ty::Prim("any".into()));
                    let t = model.map(&ty, f, &ns, Some(&name));
                    text.push_str(&format!("Index: [key: {key}]: {t}\n"));
                } else {
                    model.skip(
                        f,
                        m.line,
                        format!("{name}[{key}]"),
                        "an index signature whose key is not string or number",
                    );
                }
            }
            MemberKind::Call => model.skip(
                f,
                m.line,
                format!("{name}(...)"),
                "a call signature: the corpus has no callable objects",
            ),
            MemberKind::Construct => {
                if !used_ctor.contains(&i) {
                    model.skip(
                        f,
                        m.line,
                        format!("new {name}(...)"),
                        "a construct signature of an interface no global variable holds",
                    );
                }
            }
            _ if m.hidden => model.skip(f, m.line, what, "private or protected"),
            _ => match m.name.clone() {
                Some(n) => {
                    let m = as_method(model, m, f, &ns);
                    groups.entry(n).or_default().push((m, f))
                }
                None => model.skip(f, m.line, what, "its name is not an identifier"),
            },
        }
    }
    for (opt, list, line) in [
        ("extensible", &settings.extensible, "Extensible: yes"),
        (
            "global members",
            &settings.global_members,
            "Global members: yes",
        ),
        (
            "loose",
            &settings.loose_member_names,
            "Loose member names: yes",
        ),
    ] {
        let _ = opt;
        let on = list.contains(&name)
            || (line.starts_with("Loose")
                && settings.loose_enums
                && model.entities[i].enum_prim.is_some());
        if on {
            text.push_str(line);
            text.push('\n');
        }
    }
    if is_global {
        counts.globals += groups.len();
    }
    let kind = model.entities[i].kind;
    out.push(Chunk {
        title: name.clone(),
        text,
        source,
        declared: kind.into(),
    });
    counts.interfaces += 1;
    let qual = if is_global {
        String::new()
    } else {
        format!("{}.", model.entities[i].qualified())
    };
    // A module's declaration in words: `Page.goto` of module `k6/browser`.
    let (qual, of_module) = match ns.first().and_then(|n| module_spec(n)) {
        Some(spec) => {
            let mut q = ns[1..].join(".");
            if !q.is_empty() {
                q.push('.');
            }
            q.push_str(&model.entities[i].short);
            q.push('.');
            (q, format!(" of module `{spec}`"))
        }
        None => (qual, String::new()),
    };
    for (mname, decls) in groups {
        let before = model.anys.by_reason.clone();
        let (lines, word) = signature_lines(model, &mname, &decls, &ns, &name);
        if matches!(kind, "module" | "namespace") {
            name_lost_value(model, &name, &mname, &decls, &lines, &before);
        }
        let mut t = String::new();
        let label = matches!(mname.to_ascii_lowercase().as_str(), "signature" | "syntax");
        for l in &lines {
            if label {
                t.push_str("Signature: ");
            }
            t.push_str(l);
            t.push('\n');
        }
        let doc = merged_doc(&decls);
        t.push('\n');
        push_doc(&mut t, &doc, Some(&mname));
        let (m0, f0) = &decls[0];
        let decl_line = format!(
            "Declared as {word} `{qual}{mname}`{of_module} in {}.",
            place(files, (*f0, m0.line))
        );
        push_guarded(&mut t, &decl_line, Some(&mname));
        out.push(Chunk {
            title: format!("{name}-{mname}"),
            text: t,
            source: place(files, (*f0, m0.line)),
            declared: word.into(),
        });
        counts.members += 1;
    }
}

fn merged_doc(decls: &[(MemberDecl, usize)]) -> Doc {
    let mut d = Doc::default();
    for (m, _) in decls {
        if d.text.is_empty() {
            d.text = m.doc.text.clone();
        }
        for (n, t) in &m.doc.params {
            if !d.params.iter().any(|(x, _)| x == n) {
                d.params.push((n.clone(), t.clone()));
            }
        }
        if d.returns.is_none() {
            d.returns = m.doc.returns.clone();
        }
        if d.deprecated.is_none() {
            d.deprecated = m.doc.deprecated.clone();
        }
    }
    d
}

/// A doc comment's prose, `@param`, `@returns` and `@deprecated`, each line kept from
/// reading as a signature of `member`.
fn push_doc(t: &mut String, doc: &Doc, member: Option<&str>) {
    let mut any = false;
    for l in doc.text.lines() {
        push_guarded(t, l, member);
        any = true;
    }
    if !doc.params.is_empty() {
        if any {
            t.push('\n');
        }
        t.push_str("Parameters:\n");
        for (n, d) in &doc.params {
            push_guarded(t, &format!("- `{n}`: {d}"), member);
        }
        any = true;
    }
    if let Some(r) = &doc.returns {
        push_guarded(t, &format!("Returns: {r}"), member);
        any = true;
    }
    if let Some(d) = &doc.deprecated {
        let line = if d.is_empty() {
            "Deprecated.".to_string()
        } else {
            format!("Deprecated: {d}")
        };
        push_guarded(t, &line, member);
        any = true;
    }
    if any {
        t.push('\n');
    }
}

/// Pushes a prose line; one that would read as a signature of `member` (a doc line
/// that begins `name(` or `name:`) is quoted, so the loader does not take it for an
/// overload.
fn push_guarded(t: &mut String, line: &str, member: Option<&str>) {
    if let Some(m) = member {
        let s = grounded_docs::signature::strip_label(line);
        if grounded_docs::signature::is_signature_of(s, m) {
            t.push_str("> ");
            t.push_str(line.trim());
            t.push('\n');
            return;
        }
    }
    t.push_str(line);
    t.push('\n');
}

/// A value a script reaches through a module or a namespace (`require("m").app`) whose
/// declared type became `any` is named in the summary with why: a count by reason said
/// nothing of which export scripts lost (@types/photoshop's five exports were all
/// `any`, and the summary never named one).
fn name_lost_value(
    model: &mut Model,
    owner: &str,
    mname: &str,
    decls: &[(MemberDecl, usize)],
    lines: &[String],
    before: &BTreeMap<String, usize>,
) {
    let Some((m, f)) = decls
        .iter()
        .find(|(m, _)| matches!(m.kind, MemberKind::Prop | MemberKind::Getter))
    else {
        return;
    };
    let declared_any = match &m.ty {
        None => true,
        Some(Ty::Prim(p)) => p == "any" || p == "unknown",
        Some(_) => false,
    };
    let first = lines.first().map(String::as_str).unwrap_or("");
    if declared_any || !first.ends_with(": any") {
        return;
    }
    let why: Vec<String> = model
        .anys
        .by_reason
        .iter()
        .filter(|(k, n)| before.get(*k).copied().unwrap_or(0) < **n)
        .map(|(k, _)| k.clone())
        .collect();
    let why = if why.is_empty() {
        "its declared type".to_string()
    } else {
        why.join("; ")
    };
    model.skip(
        *f,
        m.line,
        format!("{owner}.{mname}"),
        &format!("its declared type became `any` ({why}): scripts get nothing checked through it"),
    );
}

fn ty_words(t: &Ty) -> String {
    match t {
        Ty::Ref(p, _) => p.join("."),
        _ => "a type".into(),
    }
}
