//! From declarations to the corpus's model: which declaration becomes which interface
//! (merging, namespaces flattened, collisions renamed), what a type name refers to, and
//! types in the corpus's notation. Rendering the chunks is `render`'s.
//!
//! Imports the parent `import` (its options) and `dts` (the declarations), and
//! `grounded_es` (the language's built-in names, which a corpus never redefines).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::dts::{module_spec, Decl, DeclKind, Doc, MemberDecl, MemberKind, ModuleDecl, Ty};
use super::Settings;

mod hoist;
mod modules;
mod notation;
mod spaces;

pub use modules::spec_words;
pub use notation::{union, M};

/// One interface of the corpus to be written.
#[derive(Debug, Default)]
pub struct Entity {
    /// The name it is written under.
    pub name: String,
    /// Its declared name.
    pub short: String,
    /// Its namespace path.
    pub ns: Vec<String>,
    /// `class`, `interface`, `enum`, `type`, `namespace`, `class object`.
    pub kind: &'static str,
    /// Files and lines of its declarations.
    pub places: Vec<(usize, usize)>,
    /// Its doc comment (the first non-empty one).
    pub doc: Doc,
    /// `extends`/`implements` types, with the file they were written in.
    pub parents: Vec<(Ty, usize)>,
    /// Members, with the file each was written in.
    pub members: Vec<(MemberDecl, usize)>,
    /// For a class: the static members and constructors, which go to its class object.
    pub statics: Vec<(MemberDecl, usize)>,
    /// For an enum: the primitive its values are.
    pub enum_prim: Option<&'static str>,
    /// Whether it is a class (its statics make a class object).
    pub is_class: bool,
    /// The global names that hold an object of it.
    pub globals: BTreeSet<String>,
    /// `Constructor:` lines.
    pub constructors: Vec<String>,
    /// Whether this declaration owns its short name as a global (the winner of a
    /// collision, or the only one).
    pub owns_name: bool,
    /// The entity of its class object, for a class with statics.
    pub class_object: Option<usize>,
    /// Why it was renamed, when it was.
    pub renamed: Option<String>,
    /// Not written (a language built-in).
    pub dropped: bool,
    /// `abstract class`: no constructor, declared or implied.
    pub is_abstract: bool,
    /// Its `Constructor:` lines are TypeScript's implicit constructor (a class
    /// declared without one), not a declared one.
    pub implicit_ctor: bool,
    /// Declared with `export` at its module's top level.
    pub exported: bool,
    /// For a module's interface: its specifier (`Module: "k6/http"`).
    pub module: Option<String>,
    /// For a module's interface: what `import x from` it gives (`Default export:`).
    pub default_export: Option<String>,
    /// For a module's interface: whether it is the same as `Parent interface:` of the
    /// `export =` value, whose members are the module's.
    pub equals_parent: Option<String>,
}

impl Entity {
    /// `A.B.C`; a module's declaration as TypeScript writes it,
    /// `import("k6/http").Response`.
    pub fn qualified(&self) -> String {
        if let Some(spec) = self.ns.first().and_then(|n| module_spec(n)) {
            let mut s = format!("import(\"{spec}\")");
            for p in self.ns[1..].iter().chain(std::iter::once(&self.short)) {
                s.push('.');
                s.push_str(p);
            }
            return s;
        }
        let mut s = self.ns.join(".");
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(&self.short);
        s
    }
}

/// What a name refers to.
#[derive(Debug, Clone, Copy)]
enum Target {
    Entity(usize),
    Alias(usize),
}

/// Counts of types read as `any`, by why.
#[derive(Debug, Default)]
pub struct AnyCount {
    /// By reason.
    pub by_reason: BTreeMap<String, usize>,
}

impl AnyCount {
    fn add(&mut self, why: &str) {
        *self.by_reason.entry(why.to_string()).or_default() += 1;
    }
    /// The total.
    pub fn total(&self) -> usize {
        self.by_reason.values().sum()
    }
}

/// The model: entities with their names, aliases, values, and what was skipped.
pub struct Model {
    /// Every entity (dropped ones included, marked).
    pub entities: Vec<Entity>,
    /// Type aliases: declaration and the file it is in.
    aliases: Vec<Decl>,
    by_qualified: HashMap<String, Vec<Target>>,
    /// Top-level `declare var/let/const` and namespace variables.
    pub vars: Vec<Decl>,
    /// Top-level functions.
    pub functions: Vec<Decl>,
    /// Types read as `any`.
    pub anys: AnyCount,
    /// `(file, line, what, why)` of what was not written.
    pub skipped: Vec<(usize, usize, String, String)>,
    /// `(old, new, file, line, note)` of each rename.
    pub renames: Vec<(String, String, usize, usize, String)>,
    /// The ECMAScript level's year (`--es 3` is 1999).
    pub level: u16,
    /// Built-ins the options' `also_has` gives the engine beyond its level.
    also_has: Vec<String>,
    /// Host declarations named like a built-in of a later edition than the level's,
    /// kept as the host's: `(name, the edition that has it)`.
    pub kept_builtins: BTreeMap<String, u16>,
    /// The modules read, as declared (one entry per file or block: a module declared
    /// twice, or augmented, has two).
    pub modules: Vec<ModuleDecl>,
    /// Variables and functions declared at a module's top level, exported or not.
    pub module_values: Vec<Decl>,
    /// Each module's interface: key (`"k6/http"`) → entity.
    pub module_entities: BTreeMap<String, usize>,
    /// Named exports written into module interfaces.
    pub exports_written: usize,
    /// The last round's exports, while a circle of `export *` is followed.
    prev_exports: BTreeMap<String, modules::Exports>,
    /// `import * as ns from "m"` in module `key`: `(key, ns)` → `m`'s key, so that the
    /// type `ns.Response` is `m`'s `Response`.
    ns_imports: HashMap<(String, String), String>,
}

/// Names the corpus gives a meaning by title: an interface of that name would be read
/// as something else.
const RESERVED: &[&str] = &["Engine", "Global"];

/// A readable prefix for a file: its stem, else the nearest folder whose name is an
/// identifier (`InDesign/2023/index.d.ts` → `InDesign`).
pub fn file_label(shown: &str) -> String {
    let parts: Vec<&str> = shown.split('/').collect();
    let stem = parts
        .last()
        .map(|f| f.trim_end_matches(".ts").trim_end_matches(".d"))
        .unwrap_or("");
    let mut cands = vec![stem];
    cands.extend(parts.iter().rev().skip(1));
    for c in cands {
        let id: String = c
            .chars()
            .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '$')
            .collect();
        if c != "index" && super::dts::is_ident(&id) {
            return id;
        }
    }
    "File".into()
}

impl Model {
    /// Groups the declarations into entities and names them.
    pub fn build(
        decls: Vec<Decl>,
        modules: Vec<ModuleDecl>,
        files: &[String],
        labels: &[String],
        settings: &Settings,
    ) -> Result<Model, String> {
        let mut m = Model {
            entities: Vec::new(),
            aliases: Vec::new(),
            by_qualified: HashMap::new(),
            vars: Vec::new(),
            functions: Vec::new(),
            anys: AnyCount::default(),
            skipped: Vec::new(),
            renames: Vec::new(),
            level: grounded_docs::model::es_year(settings.es.parse().unwrap_or(3)),
            also_has: settings.also_has.clone(),
            kept_builtins: BTreeMap::new(),
            modules,
            module_values: Vec::new(),
            module_entities: BTreeMap::new(),
            exports_written: 0,
            prev_exports: BTreeMap::new(),
            ns_imports: HashMap::new(),
        };
        let decls = hoist::hoist(decls);
        let mut ns_values: Vec<Decl> = spaces::namespace_values(&decls);
        for d in decls {
            match &d.kind {
                DeclKind::Alias(Ty::Object(members)) => {
                    let members = members.clone();
                    let mut d = d;
                    d.members = members;
                    m.add_entity(d, "type");
                }
                DeclKind::Alias(_) => {
                    let q = qualified(&d.ns, &d.name);
                    m.by_qualified
                        .entry(q)
                        .or_default()
                        .push(Target::Alias(m.aliases.len()));
                    m.aliases.push(d);
                }
                DeclKind::Interface => m.add_entity(d, "interface"),
                DeclKind::Class => m.add_entity(d, "class"),
                DeclKind::Enum => m.add_entity(d, "enum"),
                DeclKind::Var(_) | DeclKind::Function
                    if d.ns.len() == 1 && module_spec(&d.ns[0]).is_some() =>
                {
                    m.module_values.push(d)
                }
                DeclKind::Var(_) | DeclKind::Function if !d.ns.is_empty() => ns_values.push(d),
                DeclKind::Var(_) => m.vars.push(d),
                DeclKind::Function => m.functions.push(d),
            }
        }
        m.namespaces(ns_values);
        m.imported_types();
        m.drop_builtins();
        m.name_entities(files, labels, settings)?;
        m.class_objects();
        m.module_interfaces(files);
        Ok(m)
    }

    fn add_entity(&mut self, d: Decl, kind: &'static str) {
        let q = qualified(&d.ns, &d.name);
        let mergeable = |e: &Entity| {
            // Interfaces merge with anything of their name (TypeScript's declaration
            // merging); two classes or enums of one name in two files are two things
            // (InDesign's DOM `Window` and ScriptUI's), kept apart and renamed.
            kind == "interface" || e.kind == "interface" || e.places.iter().any(|p| p.0 == d.file)
        };
        let found = self.by_qualified.get(&q).and_then(|ts| {
            ts.iter().find_map(|t| match t {
                Target::Entity(i) if mergeable(&self.entities[*i]) => Some(*i),
                _ => None,
            })
        });
        let idx = match found {
            Some(i) => i,
            None => {
                self.entities.push(Entity {
                    short: d.name.clone(),
                    ns: d.ns.clone(),
                    kind,
                    ..Entity::default()
                });
                let i = self.entities.len() - 1;
                self.by_qualified
                    .entry(q)
                    .or_default()
                    .push(Target::Entity(i));
                i
            }
        };
        let e = &mut self.entities[idx];
        if e.kind == "interface" && kind != "interface" {
            e.kind = kind;
        }
        e.places.push((d.file, d.line));
        if e.doc.text.is_empty() && e.doc.deprecated.is_none() {
            e.doc = d.doc.clone();
        }
        if matches!(d.kind, DeclKind::Class) {
            e.is_class = true;
        }
        e.is_abstract |= d.is_abstract;
        e.exported |= d.exported;
        if matches!(d.kind, DeclKind::Enum) {
            let string = d
                .members
                .iter()
                .any(|m| matches!(m.ty, Some(Ty::Lit("string"))));
            e.enum_prim = Some(if string { "string" } else { "number" });
        }
        for p in d.parents {
            e.parents.push((p, d.file));
        }
        for mem in d.members {
            if e.is_class && (mem.is_static || mem.kind == MemberKind::Construct) {
                e.statics.push((mem, d.file));
            } else {
                e.members.push((mem, d.file));
            }
        }
    }

    /// Namespace variables and functions: members of the namespace's object, an
    /// entity of its own (or the class or interface of the same name, merged).
    fn namespaces(&mut self, values: Vec<Decl>) {
        for d in values {
            let (last, outer) = d.ns.split_last().expect("namespaced");
            let q = d.ns.join(".");
            let existing = self.by_qualified.get(&q).and_then(|ts| {
                ts.iter().find_map(|t| match t {
                    Target::Entity(i) => Some(*i),
                    _ => None,
                })
            });
            let idx = match existing {
                Some(i) => i,
                None => {
                    self.entities.push(Entity {
                        short: last.clone(),
                        ns: outer.to_vec(),
                        kind: "namespace",
                        places: vec![(d.file, d.line)],
                        ..Entity::default()
                    });
                    let i = self.entities.len() - 1;
                    self.by_qualified
                        .entry(q)
                        .or_default()
                        .push(Target::Entity(i));
                    i
                }
            };
            let file = d.file;
            let members: Vec<MemberDecl> = match d.kind {
                DeclKind::Var(ty) => vec![MemberDecl {
                    name: Some(d.name.clone()),
                    raw: d.name.clone(),
                    kind: MemberKind::Prop,
                    is_static: true,
                    readonly: false,
                    hidden: false,
                    params: Vec::new(),
                    ty,
                    doc: d.doc,
                    line: d.line,
                    // Its type is written inside the namespace: `Entry` there is the
                    // namespace's own `Entry`, which the outer path did not find.
                    ctx: Some(d.ns.clone()),
                }],
                _ => d
                    .members
                    .into_iter()
                    .map(|mut m| {
                        m.ctx.get_or_insert_with(|| d.ns.clone());
                        m
                    })
                    .collect(),
            };
            let e = &mut self.entities[idx];
            for mut mem in members {
                mem.is_static = e.is_class;
                if e.is_class {
                    e.statics.push((mem, file));
                } else {
                    e.members.push((mem, file));
                }
            }
        }
    }

    /// The language's own objects (`Object`, `Array`, `Date`... and the
    /// `XConstructor` interfaces of their globals) are the language's, known by its
    /// edition: a corpus that documents them turns every script's `[].push` into a
    /// question about the engine's docs.
    ///
    /// Only at a level that has them: a host's own `class Symbol` at ES3 is the host's,
    /// and dropping it made every value of that type `any`.
    fn drop_builtins(&mut self) {
        let mut drop: BTreeSet<usize> = BTreeSet::new();
        let mut kept = BTreeMap::new();
        for (i, e) in self.entities.iter().enumerate() {
            if !e.ns.is_empty() {
                continue;
            }
            if self.is_language_global(&e.short) {
                drop.insert(i);
            } else if let Some(g) = grounded_es::global(&e.short) {
                kept.insert(e.short.clone(), g.since);
            }
        }
        for v in self.vars.iter().chain(&self.functions) {
            if self.is_language_global(&v.name) {
                continue;
            }
            if let Some(g) = grounded_es::global(&v.name) {
                kept.insert(v.name.clone(), g.since);
            }
        }
        self.kept_builtins = kept;
        for v in &self.vars {
            if !self.is_language_global(&v.name) {
                continue;
            }
            if let DeclKind::Var(Some(ty)) = &v.kind {
                for path in refs_of(ty) {
                    if path.len() == 1
                        && (path[0] == v.name || path[0] == format!("{}Constructor", v.name))
                    {
                        if let Some(ts) = self.by_qualified.get(&path[0]) {
                            for t in ts {
                                if let Target::Entity(i) = t {
                                    drop.insert(*i);
                                }
                            }
                        }
                    }
                }
            }
        }
        for i in drop {
            let e = &mut self.entities[i];
            e.dropped = true;
            let (file, line) = e.places[0];
            self.skipped.push((
                file,
                line,
                format!("{} {}", e.kind, e.qualified()),
                "a built-in object of the language: the ECMAScript level (--es) says what it has"
                    .into(),
            ));
        }
    }

    fn name_entities(
        &mut self,
        files: &[String],
        labels: &[String],
        settings: &Settings,
    ) -> Result<(), String> {
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, e) in self.entities.iter().enumerate() {
            if !e.dropped {
                groups.entry(e.short.clone()).or_default().push(i);
            }
        }
        let mut taken: BTreeSet<String> = groups
            .iter()
            .filter(|(k, v)| v.len() == 1 && !RESERVED.contains(&k.as_str()))
            .map(|(k, _)| k.clone())
            .collect();
        for (short, idxs) in &groups {
            if idxs.len() == 1 && !RESERVED.contains(&short.as_str()) {
                let e = &mut self.entities[idxs[0]];
                e.name = short.clone();
                e.owns_name = true;
                continue;
            }
            // A collision: each becomes its namespace's (or file's) name and its own;
            // as many namespace names as it takes to tell them apart
            // (`Drive.Schema.About`, `Drive.V3.Schema.About`: `DriveSchemaAbout`,
            // `V3SchemaAbout`).
            let prefix_of = |e: &Entity, k: usize| -> String {
                if idxs.len() == 1 && e.ns.is_empty() {
                    return "Declared".into();
                }
                let words = ns_words(&e.ns);
                let mut parts: Vec<String> = words.iter().rev().take(k).rev().cloned().collect();
                if parts.len() < k {
                    let label = labels
                        .get(e.places[0].0)
                        .cloned()
                        .unwrap_or_else(|| "File".into());
                    parts.insert(0, label);
                }
                parts.concat()
            };
            let mut news = Vec::new();
            for &i in idxs {
                // Its own shortest prefix that no other declaration of the group shares
                // at the same depth.
                let depth = ns_words(&self.entities[i].ns).len() + 1;
                let mut k = 1;
                while k < depth {
                    let mine = prefix_of(&self.entities[i], k);
                    let shared = idxs
                        .iter()
                        .any(|&j| j != i && prefix_of(&self.entities[j], k) == mine);
                    if !shared {
                        break;
                    }
                    k += 1;
                }
                let prefix = prefix_of(&self.entities[i], k);
                let mut name = format!("{prefix}{short}");
                let mut n = 2;
                while taken.contains(&name) || RESERVED.contains(&name.as_str()) {
                    name = format!("{prefix}{short}{n}");
                    n += 1;
                }
                taken.insert(name.clone());
                news.push(name);
            }
            // Which one a script means by the bare name: the option's choice, else the
            // only top-level one that scripts can reach as a value (a class object,
            // a constructor, an enum), else the first read.
            let pick = settings.prefer.get(short.as_str());
            let owner = if let Some(p) = pick {
                match news.iter().position(|n| n == p) {
                    Some(k) => Some(k),
                    None => {
                        return Err(format!(
                            "the options' prefer.{short} = \"{p}\" names none of {}",
                            news.join(", ")
                        ))
                    }
                }
            } else {
                // A script writes a bare class name mostly to construct it
                // (`new Window("dialog")`), then for its statics: a constructor
                // decides first (InDesign's DOM `Window` has static event names too).
                let top = |i: usize| self.entities[i].ns.is_empty();
                let has_ctor = |i: usize| {
                    top(i)
                        && self.entities[i]
                            .statics
                            .iter()
                            .any(|(m, _)| m.kind == MemberKind::Construct && !m.hidden)
                };
                let valued = |i: usize| {
                    let e = &self.entities[i];
                    top(i)
                        && (!e.statics.is_empty() || e.enum_prim.is_some() || e.kind == "namespace")
                };
                idxs.iter()
                    .position(|&i| has_ctor(i))
                    .or_else(|| idxs.iter().position(|&i| valued(i)))
                    .or_else(|| idxs.iter().position(|&i| top(i)))
            };
            if RESERVED.contains(&short.as_str()) && idxs.len() == 1 {
                // Not a collision but a reserved title: renamed, and still the name's.
            }
            for (k, &i) in idxs.iter().enumerate() {
                let others: Vec<String> = idxs
                    .iter()
                    .filter(|&&j| j != i)
                    .map(|&j| {
                        let o = &self.entities[j];
                        format!(
                            "`{}` ({}:{})",
                            o.qualified(),
                            files[o.places[0].0],
                            o.places[0].1
                        )
                    })
                    .collect();
                let e = &mut self.entities[i];
                e.name = news[k].clone();
                e.owns_name = owner == Some(k);
                let note = if others.is_empty() {
                    format!("`{short}` is a title the corpus format reserves")
                } else {
                    format!("`{short}` is also declared as {}", others.join(", "))
                };
                let own = if e.owns_name && e.ns.is_empty() {
                    format!("; the global `{short}` means this one")
                } else {
                    String::new()
                };
                e.renamed = Some(format!("{note}{own}"));
                let (f, l) = e.places[0];
                self.renames
                    .push((e.qualified(), e.name.clone(), f, l, format!("{note}{own}")));
            }
        }
        for (opt, list) in [
            ("extensible", &settings.extensible),
            ("global_members", &settings.global_members),
            ("loose_member_names", &settings.loose_member_names),
        ] {
            for n in list {
                if !self.entities.iter().any(|e| !e.dropped && &e.name == n) {
                    return Err(format!(
                        "the options' {opt} names `{n}`, which no declaration read becomes"
                    ));
                }
            }
        }
        Ok(())
    }

    /// A class with static members gets an object of its own: `Window.alert` is a
    /// member of `WindowClass`, the global `Window`'s interface.
    fn class_objects(&mut self) {
        let mut taken: BTreeSet<String> = self.entities.iter().map(|e| e.name.clone()).collect();
        for i in 0..self.entities.len() {
            let e = &self.entities[i];
            if e.dropped
                || !e
                    .statics
                    .iter()
                    .any(|(m, _)| m.kind != MemberKind::Construct)
            {
                continue;
            }
            let mut name = format!("{}Class", e.name);
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{}Class{n}", e.name);
                n += 1;
            }
            taken.insert(name.clone());
            let obj = Entity {
                name,
                short: e.short.clone(),
                ns: e.ns.clone(),
                kind: "class object",
                places: e.places.clone(),
                members: e
                    .statics
                    .iter()
                    .filter(|(m, _)| m.kind != MemberKind::Construct)
                    .cloned()
                    .collect(),
                owns_name: e.owns_name,
                ..Entity::default()
            };
            self.entities.push(obj);
            let j = self.entities.len() - 1;
            self.entities[i].class_object = Some(j);
        }
    }

    /// What `path`, written in `file` inside namespace `ns`, names: the innermost
    /// namespace first, a declaration of the same file first.
    fn lookup(&self, path: &[String], file: usize, ns: &[String]) -> Option<Target> {
        if let (Some(m), [first, rest @ ..]) = (ns.first(), path) {
            if let Some(target) = self.ns_imports.get(&(m.clone(), first.clone())) {
                if !rest.is_empty() {
                    let mut p = vec![target.clone()];
                    p.extend(rest.iter().cloned());
                    return self.lookup(&p, file, &[]);
                }
            }
        }
        for k in (0..=ns.len()).rev() {
            let mut q: Vec<String> = ns[..k].to_vec();
            q.extend(path.iter().cloned());
            let Some(ts) = self.by_qualified.get(&q.join(".")) else {
                continue;
            };
            let live: Vec<Target> = ts
                .iter()
                .copied()
                .filter(|t| !matches!(t, Target::Entity(i) if self.entities[*i].dropped))
                .collect();
            let same_file = live.iter().find(|t| match t {
                Target::Entity(i) => self.entities[*i].places.iter().any(|p| p.0 == file),
                Target::Alias(a) => self.aliases[*a].file == file,
            });
            let owner = live
                .iter()
                .find(|t| matches!(t, Target::Entity(i) if self.entities[*i].owns_name));
            if let Some(t) = same_file.or(owner).or(live.first()) {
                return Some(*t);
            }
        }
        None
    }

    /// The entity `ty` names, when it names exactly one (unions of one and `null`
    /// included): what a global variable of that type is.
    pub fn entity_of(&mut self, ty: &Ty, file: usize, ns: &[String]) -> Option<usize> {
        self.entity_at(ty, file, ns, 0)
    }

    fn entity_at(&mut self, ty: &Ty, file: usize, ns: &[String], depth: usize) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        match ty {
            Ty::Ref(p, _) => match self.lookup(p, file, ns)? {
                Target::Entity(i) if self.entities[i].enum_prim.is_none() => Some(i),
                Target::Alias(a) => {
                    let d = self.aliases[a].clone();
                    match d.kind {
                        DeclKind::Alias(t) => self.entity_at(&t, d.file, &d.ns, depth + 1),
                        _ => None,
                    }
                }
                _ => None,
            },
            Ty::Query(p) => self.value_entity(p, file, ns),
            Ty::Union(v) => {
                let live: Vec<&Ty> = v
                    .iter()
                    .filter(|t| !matches!(t, Ty::Prim(p) if p == "null" || p == "undefined"))
                    .collect();
                match live.as_slice() {
                    [one] => self.entity_at(one, file, ns, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The entity of the value `typeof path`: a class's object, an enum, a namespace.
    fn value_entity(&self, path: &[String], file: usize, ns: &[String]) -> Option<usize> {
        match self.lookup(path, file, ns)? {
            Target::Entity(i) => {
                let e = &self.entities[i];
                if e.is_class {
                    e.class_object
                } else if e.enum_prim.is_some() || e.kind == "namespace" {
                    Some(i)
                } else {
                    None
                }
            }
            Target::Alias(_) => None,
        }
    }

    /// Whether `name` is a global of the language at the import's level (or one the
    /// options' `also_has` gives the engine): the language's own, not the host's.
    pub fn is_language_global(&self, name: &str) -> bool {
        grounded_es::global(name)
            .is_some_and(|g| g.since <= self.level || self.also_has.iter().any(|h| h == name))
    }

    /// Records a declaration not written.
    pub fn skip(&mut self, file: usize, line: usize, what: String, why: &str) {
        self.skipped.push((file, line, what, why.to_string()));
    }
}

/// The words a namespace path gives a name that collides: a namespace's own name, a
/// module's specifier in words (`"k6/net/grpc"` → `K6`, `Net`, `Grpc`), so that
/// `Response` of `k6/http` becomes `HttpResponse`.
fn ns_words(ns: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for p in ns {
        match module_spec(p) {
            Some(spec) => out.extend(spec_words(spec)),
            None => out.push(p.clone()),
        }
    }
    out
}

fn qualified(ns: &[String], name: &str) -> String {
    let mut s = ns.join(".");
    if !s.is_empty() {
        s.push('.');
    }
    s.push_str(name);
    s
}

/// Every named reference in `ty`, outermost first.
fn refs_of(ty: &Ty) -> Vec<Vec<String>> {
    match ty {
        Ty::Ref(p, _) => vec![p.clone()],
        Ty::Union(v) => v.iter().flat_map(refs_of).collect(),
        _ => Vec::new(),
    }
}
