//! Modules: one interface per module (`Module: "k6/http"`), whose members are the
//! module's named exports, followed through `export { } from`, `export *`, `export *
//! as`, imports of other modules and `export =`; its `Default export:`.
//!
//! Why its own interface: exports flattened into globals made `post(url)` pass with
//! no import, and a module's exports are what a script imports, nothing else. A
//! module's declarations keep their namespace path (`"k6/http"` first), so they are
//! never globals and their names collide only when two modules each declare one.

use std::collections::{BTreeMap, BTreeSet};

use super::super::dts::{module_spec, Decl, DeclKind, Link, MemberDecl, MemberKind, Ty};
use super::{Model, Target, M, RESERVED};

/// What an export is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Exp {
    /// A value declared in a module (or namespace) path: a variable, function, class,
    /// enum or namespace.
    Value(Vec<String>, String),
    /// A module's object (`export * as ns from "m"`, `import * as m` exported again).
    Module(String),
}

#[derive(Debug, Clone, Default)]
pub(super) struct Exports {
    named: BTreeMap<String, Exp>,
    default: Option<Exp>,
    equals: Option<Exp>,
}

/// A module specifier in words for names: `@figma/plugin-typings` → `Figma`,
/// `Plugin`, `Typings`; `k6/net/grpc` → `K6`, `Net`, `Grpc`.
pub fn spec_words(spec: &str) -> Vec<String> {
    spec.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(c) => c.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

impl Model {
    fn is_module_key(k: &str) -> bool {
        module_spec(k).is_some()
    }

    /// Types a module imports (`import { Selection } from "../html/index.js"`) name
    /// the other module's declaration inside it; `import * as fs from "m"` makes
    /// `fs.File` the `File` of `m`. A declaration of the module's own wins.
    pub(super) fn imported_types(&mut self) {
        let mut adds = Vec::new();
        for m in &self.modules {
            for (l, line) in &m.links {
                match l {
                    Link::Import { spec, name, local } if !name.is_empty() && name != "default" => {
                        adds.push((
                            m.key.clone(),
                            m.file,
                            *line,
                            spec.clone(),
                            name.clone(),
                            local.clone(),
                        ));
                    }
                    Link::ImportAll { spec, local } => {
                        self.ns_imports
                            .insert((m.key.clone(), local.clone()), Self::target_key(spec));
                    }
                    _ => {}
                }
            }
        }
        for (key, file, line, spec, name, local) in adds {
            let q = format!("{key}.{local}");
            if self.by_qualified.contains_key(&q) {
                continue;
            }
            self.by_qualified
                .entry(q)
                .or_default()
                .push(Target::Alias(self.aliases.len()));
            self.aliases.push(Decl::made(
                DeclKind::Alias(Ty::Ref(vec![Self::target_key(&spec), name], Vec::new())),
                local,
                vec![key],
                file,
                line,
                false,
            ));
        }
    }

    /// Each module's interface, named from its specifier (`k6/http` → `K6Http`; with
    /// `Module` after it when a declaration already has that name), its members the
    /// module's named exports.
    pub(super) fn module_interfaces(&mut self, files: &[String]) {
        let mut keys: Vec<String> = Vec::new();
        for m in &self.modules {
            if !keys.contains(&m.key) {
                keys.push(m.key.clone());
            }
        }
        if keys.is_empty() {
            return;
        }
        // A circle of `export *` is cut where it closes; what the cut hid comes back in
        // the next round (each round starts from the last one's exports), until nothing
        // changes.
        let mut memo: BTreeMap<String, Exports> = BTreeMap::new();
        for _ in 0..4 {
            let prev = std::mem::take(&mut memo);
            self.prev_exports = prev.clone();
            for k in &keys {
                let mut stack = Vec::new();
                self.exports_of(k, &mut memo, &mut stack);
            }
            if memo
                .iter()
                .all(|(k, v)| prev.get(k).map(|p| p.named.len()) == Some(v.named.len()))
            {
                break;
            }
        }
        self.prev_exports.clear();
        let skipped = std::mem::take(&mut self.skipped);
        let mut seen = BTreeSet::new();
        self.skipped = skipped
            .into_iter()
            .filter(|s| seen.insert(s.clone()))
            .collect();
        let mut taken: BTreeSet<String> = self
            .entities
            .iter()
            .filter(|e| !e.dropped)
            .map(|e| e.name.clone())
            .collect();
        for k in &keys {
            let spec = module_spec(k).unwrap_or("").to_string();
            let ex = memo.get(k).cloned().unwrap_or_default();
            let first = self
                .modules
                .iter()
                .find(|m| &m.key == k)
                .map(|m| (m.file, m.line))
                .unwrap_or((0, 0));
            let umd: Vec<String> = self
                .modules
                .iter()
                .filter(|m| &m.key == k)
                .flat_map(|m| m.links.iter())
                .filter_map(|(l, _)| match l {
                    Link::Umd { global } => Some(global.clone()),
                    _ => None,
                })
                .collect();
            if ex.named.is_empty() && ex.default.is_none() && ex.equals.is_none() && umd.is_empty()
            {
                self.skip(
                    first.0,
                    first.1,
                    format!("module \"{spec}\""),
                    "it exports nothing (its `declare global` declarations, if any, are globals): no module interface is written",
                );
                continue;
            }
            let base: String = spec_words(&spec).concat();
            let base = if base.is_empty() || !super::super::dts::is_ident(&base) {
                format!("Module{base}")
            } else {
                base
            };
            let mut name = base.clone();
            let mut n = 2;
            if taken.contains(&name) || RESERVED.contains(&name.as_str()) {
                name = format!("{base}Module");
            }
            while taken.contains(&name) {
                name = format!("{base}Module{n}");
                n += 1;
            }
            taken.insert(name.clone());
            let places: Vec<(usize, usize)> = self
                .modules
                .iter()
                .filter(|m| &m.key == k)
                .map(|m| (m.file, m.line))
                .collect();
            self.entities.push(super::Entity {
                name: name.clone(),
                short: name.clone(),
                kind: "module",
                places,
                module: Some(spec.clone()),
                globals: umd.into_iter().collect(),
                ..super::Entity::default()
            });
            self.module_entities
                .insert(k.clone(), self.entities.len() - 1);
        }
        for k in &keys {
            let Some(&idx) = self.module_entities.get(k) else {
                continue;
            };
            let ex = memo.get(k).cloned().unwrap_or_default();
            let file = self.entities[idx].places[0].0;
            let mut members = Vec::new();
            for (exported, e) in &ex.named {
                members.extend(self.export_members(exported, e, file));
            }
            self.exports_written += members
                .iter()
                .filter_map(|(m, _): &(MemberDecl, usize)| m.name.clone())
                .collect::<BTreeSet<_>>()
                .len();
            self.entities[idx].members = members;
            let default = ex.default.as_ref().and_then(|d| self.interface_of(k, d));
            let equals = ex.equals.as_ref().and_then(|d| self.interface_of(k, d));
            if ex.default.is_some()
                && default.is_none()
                && ex.default != Some(Exp::Module(k.clone()))
            {
                let line = self.entities[idx].places[0].1;
                self.skip(
                    file,
                    line,
                    format!("export default of \"{}\"", module_spec(k).unwrap_or("")),
                    "the default export is a function, a class or a value of no declared interface: `Default export:` names an interface, so none is written",
                );
            }
            if ex.equals.is_some() && equals.is_none() {
                let line = self.entities[idx].places[0].1;
                self.skip(
                    file,
                    line,
                    format!("export = of \"{}\"", module_spec(k).unwrap_or("")),
                    "`export =` of a function, class or value of no declared interface: the module's interface has no members from it",
                );
            }
            self.entities[idx].default_export = default;
            self.entities[idx].equals_parent = equals;
        }
        let _ = files;
    }

    /// The interface an export's value is (for `Default export:` and `export =`).
    fn interface_of(&mut self, key: &str, e: &Exp) -> Option<String> {
        match e {
            Exp::Module(k) if k == key => None,
            Exp::Module(k) => self
                .module_entities
                .get(k)
                .map(|&i| self.entities[i].name.clone()),
            Exp::Value(ns, name) => {
                if let Some(v) = self.value_decl(ns, name) {
                    if let DeclKind::Var(Some(t)) = &v.kind {
                        let (t, f, vns) = (t.clone(), v.file, v.ns.clone());
                        return self
                            .entity_of(&t, f, &vns)
                            .map(|i| self.entities[i].name.clone());
                    }
                    return None;
                }
                let t = self.lookup(std::slice::from_ref(name), 0, ns)?;
                match t {
                    Target::Entity(i) => {
                        let e = &self.entities[i];
                        if e.kind == "namespace" || e.enum_prim.is_some() {
                            Some(e.name.clone())
                        } else {
                            e.class_object.map(|o| self.entities[o].name.clone())
                        }
                    }
                    Target::Alias(_) => None,
                }
            }
        }
    }

    /// A module-level (or namespace) variable or function declared at `ns` as `name`.
    fn value_decl(&self, ns: &[String], name: &str) -> Option<&Decl> {
        self.module_values
            .iter()
            .chain(self.vars.iter())
            .chain(self.functions.iter())
            .find(|d| d.name == name && d.ns == ns)
    }

    /// The members of the module interface for one export.
    fn export_members(&mut self, exported: &str, e: &Exp, file: usize) -> Vec<(MemberDecl, usize)> {
        let prop =
            |ty: Ty, line: usize, ctx: Vec<String>, doc: super::super::dts::Doc| MemberDecl {
                name: Some(exported.to_string()),
                raw: exported.to_string(),
                kind: MemberKind::Prop,
                is_static: false,
                readonly: true,
                hidden: false,
                params: Vec::new(),
                ty: Some(ty),
                doc,
                line,
                ctx: Some(ctx),
            };
        match e {
            Exp::Module(k) => vec![(
                prop(Ty::Module(k.clone()), 0, Vec::new(), Default::default()),
                file,
            )],
            Exp::Value(ns, name) => {
                let fns: Vec<&Decl> = self
                    .module_values
                    .iter()
                    .chain(self.functions.iter())
                    .filter(|d| {
                        &d.name == name && &d.ns == ns && matches!(d.kind, DeclKind::Function)
                    })
                    .collect();
                if !fns.is_empty() {
                    let mut out = Vec::new();
                    for d in fns {
                        for m in &d.members {
                            let mut m = m.clone();
                            m.name = Some(exported.to_string());
                            m.raw = exported.to_string();
                            m.ctx = Some(ns.clone());
                            if m.doc.text.is_empty() {
                                m.doc = d.doc.clone();
                            }
                            out.push((m, d.file));
                        }
                    }
                    return out;
                }
                if let Some(v) = self.value_decl(ns, name) {
                    if let DeclKind::Var(t) = &v.kind {
                        let t = t.clone().unwrap_or(Ty::Prim("any".into()));
                        return vec![(prop(t, v.line, ns.clone(), v.doc.clone()), v.file)];
                    }
                }
                match self.lookup(std::slice::from_ref(name), file, ns) {
                    Some(Target::Entity(i)) => {
                        let e = &self.entities[i];
                        let (f, l) = e.places[0];
                        let doc = e.doc.clone();
                        vec![(prop(Ty::Query(vec![name.clone()]), l, ns.clone(), doc), f)]
                    }
                    _ => Vec::new(),
                }
            }
        }
    }

    /// What module `key` exports, followed through its links (a circle of `export *`
    /// ends where it began).
    fn exports_of(
        &mut self,
        key: &str,
        memo: &mut BTreeMap<String, Exports>,
        stack: &mut Vec<String>,
    ) -> Exports {
        if let Some(e) = memo.get(key) {
            return e.clone();
        }
        if stack.iter().any(|k| k == key) || stack.len() > 64 {
            return self.prev_exports.get(key).cloned().unwrap_or_default();
        }
        stack.push(key.to_string());
        let mut ex = Exports::default();
        let ns = vec![key.to_string()];
        let implicit = self.modules.iter().any(|m| m.key == key && m.implicit);
        // Declarations marked `export` (or all, in a block that marks none).
        for d in &self.module_values {
            if d.ns == ns && (d.exported || implicit) {
                ex.named
                    .entry(d.name.clone())
                    .or_insert_with(|| Exp::Value(ns.clone(), d.name.clone()));
            }
        }
        for e in &self.entities {
            let valued = e.is_class || e.enum_prim.is_some() || e.kind == "namespace";
            if e.ns == ns
                && !e.dropped
                && valued
                && (e.exported || (implicit && e.kind == "namespace"))
            {
                ex.named
                    .entry(e.short.clone())
                    .or_insert_with(|| Exp::Value(ns.clone(), e.short.clone()));
            }
        }
        let links: Vec<(Link, usize, usize)> = self
            .modules
            .iter()
            .filter(|m| m.key == key)
            .flat_map(|m| {
                m.links
                    .iter()
                    .map(move |(l, line)| (l.clone(), m.file, *line))
            })
            .collect();
        for (l, file, line) in &links {
            match l {
                Link::Export { local, exported } => {
                    match self.local_value(key, local, &links, memo, stack) {
                        Some(v) => {
                            if exported == "default" {
                                ex.default = Some(v);
                            } else {
                                ex.named.insert(exported.clone(), v);
                            }
                        }
                        None => self.skip(
                            *file,
                            *line,
                            format!("export {{ {local} }}"),
                            "it names no value the module declares or imports (a type is no export a script can import)",
                        ),
                    }
                }
                Link::ReExport {
                    spec,
                    name,
                    exported,
                } => {
                    let target = Self::target_key(spec);
                    if !self.modules.iter().any(|m| m.key == target) {
                        self.skip(
                            *file,
                            *line,
                            format!("export {{ {name} }} from \"{spec}\""),
                            "a module no file read declares",
                        );
                        continue;
                    }
                    let other = self.exports_of(&target, memo, stack);
                    let v = if name == "default" {
                        other.default.clone()
                    } else {
                        other.named.get(name).cloned()
                    };
                    match v {
                        Some(v) if exported == "default" => ex.default = Some(v),
                        Some(v) => {
                            ex.named.insert(exported.clone(), v);
                        }
                        None => self.skip(
                            *file,
                            *line,
                            format!("export {{ {name} }} from \"{spec}\""),
                            "that module exports no value of this name",
                        ),
                    }
                }
                Link::Star { spec } => {
                    let target = Self::target_key(spec);
                    if !self.modules.iter().any(|m| m.key == target) {
                        self.skip(
                            *file,
                            *line,
                            format!("export * from \"{spec}\""),
                            "a module no file read declares",
                        );
                        continue;
                    }
                    let other = self.exports_of(&target, memo, stack);
                    for (n, v) in other.named {
                        ex.named.entry(n).or_insert(v);
                    }
                }
                Link::StarAs { spec, exported } => {
                    let target = Self::target_key(spec);
                    if !self.modules.iter().any(|m| m.key == target) {
                        self.skip(
                            *file,
                            *line,
                            format!("export * as {exported} from \"{spec}\""),
                            "a module no file read declares",
                        );
                        continue;
                    }
                    if exported == "default" {
                        ex.default = Some(Exp::Module(target));
                    } else {
                        ex.named.insert(exported.clone(), Exp::Module(target));
                    }
                }
                Link::Equals { local } => match self.local_value(key, local, &links, memo, stack) {
                    Some(v) => ex.equals = Some(v),
                    None => self.skip(
                        *file,
                        *line,
                        format!("export = {local}"),
                        "it names no value the module declares",
                    ),
                },
                Link::Umd { .. } | Link::Import { .. } | Link::ImportAll { .. } => {}
            }
        }
        stack.pop();
        memo.insert(key.to_string(), ex.clone());
        ex
    }

    /// A link's specifier as a module key (the parent resolved relative ones already).
    fn target_key(spec: &str) -> String {
        if Self::is_module_key(spec) {
            spec.to_string()
        } else {
            super::super::dts::module_key(spec)
        }
    }

    /// What `local` names in module `key`: its own value, or an import.
    fn local_value(
        &mut self,
        key: &str,
        local: &str,
        links: &[(Link, usize, usize)],
        memo: &mut BTreeMap<String, Exports>,
        stack: &mut Vec<String>,
    ) -> Option<Exp> {
        let ns = vec![key.to_string()];
        if self.value_decl(&ns, local).is_some() {
            return Some(Exp::Value(ns, local.to_string()));
        }
        let own = self.entities.iter().any(|e| {
            e.ns == ns
                && e.short == local
                && !e.dropped
                && (e.is_class || e.enum_prim.is_some() || e.kind == "namespace")
        });
        if own {
            return Some(Exp::Value(ns, local.to_string()));
        }
        for (l, _, _) in links {
            match l {
                Link::Import {
                    spec,
                    name,
                    local: l2,
                } if l2 == local => {
                    let t = Self::target_key(spec);
                    let other = self.exports_of(&t, memo, stack);
                    return if name == "default" {
                        other.default.or(Some(Exp::Module(t)))
                    } else {
                        other.named.get(name).cloned()
                    };
                }
                Link::ImportAll { spec, local: l2 } if l2 == local => {
                    return Some(Exp::Module(Self::target_key(spec)));
                }
                _ => {}
            }
        }
        None
    }

    /// What `typeof path` names when `path` is an import binding of the module `ns`
    /// is in (`import { ns } from "./lib"; typeof ns`): the other module's declaration,
    /// as a path from the top (`"m/lib"`, `ns`).
    ///
    /// Why: the binding is a type alias here, and `typeof` of an alias was `any`:
    /// @types/photoshop's `export declare const core: typeof ns` lost every member of
    /// `require("photoshop").core`.
    pub(super) fn imported_path(
        &self,
        path: &[String],
        file: usize,
        ns: &[String],
    ) -> Option<Vec<String>> {
        ns.first().and_then(|n| module_spec(n))?;
        let Target::Alias(a) = self.lookup(path, file, ns)? else {
            return None;
        };
        let al = &self.aliases[a];
        match &al.kind {
            DeclKind::Alias(Ty::Ref(p, args))
                if args.is_empty()
                    && al.ns.len() == 1
                    && module_spec(&al.ns[0]).is_some()
                    && p.len() >= 2
                    && module_spec(&p[0]).is_some() =>
            {
                Some(p.clone())
            }
            _ => None,
        }
    }

    /// The module interface of `typeof lib` where `lib` is an `import * as lib` of the
    /// module `ns` is in.
    pub(super) fn imported_module(&self, path: &[String], ns: &[String]) -> Option<String> {
        let ([one], Some(m)) = (path, ns.first()) else {
            return None;
        };
        let key = self.ns_imports.get(&(m.clone(), one.clone()))?;
        let &i = self.module_entities.get(key)?;
        Some(self.entities[i].name.clone())
    }

    /// The parameters and result of the function `typeof path` names (written in
    /// `file` inside `ns`), its first overload.
    pub fn function_sig(
        &self,
        path: &[String],
        _file: usize,
        ns: &[String],
    ) -> Option<(Vec<super::super::dts::ParamDecl>, Ty)> {
        let (last, head) = path.split_last()?;
        for k in (0..=ns.len()).rev() {
            let mut q: Vec<String> = ns[..k].to_vec();
            q.extend(head.iter().cloned());
            if let Some(d) = self.value_decl(&q, last) {
                if let DeclKind::Function = d.kind {
                    let m = d.members.first()?;
                    return Some((
                        m.params.clone(),
                        m.ty.clone().unwrap_or(Ty::Prim("any".into())),
                    ));
                }
                return None;
            }
        }
        None
    }

    /// The type of the value `typeof path` names when it is a variable, a function
    /// or a class without statics, written in `file` inside `ns`.
    pub(super) fn value_type(
        &mut self,
        path: &[String],
        file: usize,
        ns: &[String],
        depth: usize,
    ) -> Option<M> {
        let (last, head) = path.split_last()?;
        for k in (0..=ns.len()).rev() {
            let mut q: Vec<String> = ns[..k].to_vec();
            q.extend(head.iter().cloned());
            let found = self.value_decl(&q, last).cloned();
            if let Some(d) = found {
                return Some(match &d.kind {
                    DeclKind::Var(Some(t)) => self.map_at(t, d.file, &d.ns, None, depth + 1),
                    DeclKind::Function => {
                        let m = d.members.first()?;
                        let f = Ty::Func(
                            m.params.clone(),
                            Box::new(m.ty.clone().unwrap_or(Ty::Prim("any".into()))),
                        );
                        self.map_at(&f, d.file, &d.ns, None, depth + 1)
                    }
                    _ => M::Any,
                });
            }
        }
        match self.lookup(path, file, ns)? {
            Target::Entity(i) if self.entities[i].is_class => Some(M::Named("Function".into())),
            _ => None,
        }
    }
}
