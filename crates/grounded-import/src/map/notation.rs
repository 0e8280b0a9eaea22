//! Types in the corpus's notation: [`M`], and a declaration's type mapped to it
//! (aliases followed, names resolved in their namespace and file first, what cannot be
//! written counted as `any`).

use super::super::dts::{DeclKind, Ty};
use super::{Model, Target};

/// A type in the corpus's notation.
#[derive(Debug, Clone, PartialEq)]
pub enum M {
    /// `any`.
    Any,
    /// `void`.
    Void,
    /// A primitive, built-in or interface name.
    Named(String),
    /// `T[]`.
    Array(Box<M>),
    /// `A | B`.
    Union(Vec<M>),
    /// `Promise<T>`.
    Promise(Box<M>),
    /// A function type, `(node: SceneNode) => boolean`, as written.
    Func(String),
}

impl std::fmt::Display for M {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            M::Any => f.write_str("any"),
            M::Void => f.write_str("void"),
            M::Named(n) => f.write_str(n),
            M::Array(t) => match **t {
                M::Union(_) | M::Func(_) => write!(f, "({t})[]"),
                _ => write!(f, "{t}[]"),
            },
            M::Union(v) => {
                for (i, t) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    match t {
                        M::Func(_) => write!(f, "({t})")?,
                        _ => write!(f, "{t}")?,
                    }
                }
                Ok(())
            }
            M::Promise(t) => write!(f, "Promise<{t}>"),
            M::Func(s) => f.write_str(s),
        }
    }
}

/// A union of `v`: `void` dropped (a value that may be absent is still the value),
/// `any` absorbing, duplicates merged.
pub fn union(v: Vec<M>) -> M {
    let mut out: Vec<M> = Vec::new();
    for t in v {
        match t {
            M::Void => {}
            M::Any => return M::Any,
            M::Union(inner) => {
                for i in inner {
                    if !out.contains(&i) {
                        out.push(i);
                    }
                }
            }
            t => {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    match out.len() {
        0 => M::Void,
        1 => out.pop().unwrap_or(M::Void),
        _ => M::Union(out),
    }
}

impl Model {
    /// `ty`, written in `file` inside `ns` (for `this`: in entity `this`), in the
    /// corpus's notation; what becomes `any` is counted.
    pub fn map(&mut self, ty: &Ty, file: usize, ns: &[String], this: Option<&str>) -> M {
        self.map_at(ty, file, ns, this, 0)
    }

    pub(super) fn map_at(
        &mut self,
        ty: &Ty,
        file: usize,
        ns: &[String],
        this: Option<&str>,
        depth: usize,
    ) -> M {
        if depth > 16 {
            self.anys.add("a type alias that refers to itself");
            return M::Any;
        }
        let d = depth + 1;
        match ty {
            Ty::Prim(p) => match p.as_str() {
                "string" | "number" | "boolean" | "object" => M::Named(p.clone()),
                "void" | "undefined" | "null" | "never" => M::Void,
                "any" | "unknown" => M::Any,
                _ => {
                    self.anys
                        .add(&format!("`{p}`: no such primitive in the corpus notation"));
                    M::Any
                }
            },
            Ty::Lit(p) => M::Named(p.to_string()),
            Ty::Literal(t) => M::Named(t.clone()),
            Ty::Module(key) => match self.module_entities.get(key) {
                Some(&i) => M::Named(self.entities[i].name.clone()),
                None => {
                    self.anys.add("a module no file read declares");
                    M::Any
                }
            },
            Ty::Ref(path, args) => {
                if path.len() == 1 && matches!(path[0].as_str(), "Array" | "ReadonlyArray") {
                    return match args.first() {
                        Some(a) => M::Array(Box::new(self.map_at(a, file, ns, this, d))),
                        None => M::Array(Box::new(M::Any)),
                    };
                }
                match self.lookup(path, file, ns) {
                    Some(Target::Entity(i)) => {
                        let e = &self.entities[i];
                        match e.enum_prim {
                            // An enum as a type is one of its values: shown with the
                            // enum (hover, completion and `doc` said `number`, and the
                            // values a member takes were lost), and a union, so the
                            // value is never judged as the enum's object.
                            Some(p) => M::Union(vec![M::Named(e.name.clone()), M::Named(p.into())]),
                            None => M::Named(e.name.clone()),
                        }
                    }
                    Some(Target::Alias(a)) => {
                        let al = self.aliases[a].clone();
                        match &al.kind {
                            DeclKind::Alias(t) => self.map_at(t, al.file, &al.ns, this, d),
                            _ => M::Any,
                        }
                    }
                    // `Promise<T>` keeps its `T`: `await browser.newPage()` is a `Page`.
                    None if path.len() == 1
                        && matches!(path[0].as_str(), "Promise" | "PromiseLike") =>
                    {
                        let t = match args.first() {
                            Some(a) => self.map_at(a, file, ns, this, d),
                            None => M::Any,
                        };
                        M::Promise(Box::new(t))
                    }
                    None if path.len() == 1 && grounded_es::is_builtin_object(&path[0]) => {
                        match path[0].as_str() {
                            "Function" => M::Named("Function".into()),
                            "Object" => M::Named("object".into()),
                            n => M::Named(n.into()),
                        }
                    }
                    None => {
                        self.anys
                            .add("a type parameter, or a name no file read declares");
                        M::Any
                    }
                }
            }
            Ty::Array(t) => M::Array(Box::new(self.map_at(t, file, ns, this, d))),
            Ty::Tuple(ts) => {
                let v = ts
                    .iter()
                    .map(|t| self.map_at(t, file, ns, this, d))
                    .collect();
                match union(v) {
                    M::Void => M::Array(Box::new(M::Any)),
                    u => M::Array(Box::new(u)),
                }
            }
            Ty::Union(ts) => {
                let v = ts
                    .iter()
                    .map(|t| self.map_at(t, file, ns, this, d))
                    .collect();
                union(v)
            }
            Ty::Func(params, ret) => {
                let mut ps = Vec::new();
                for p in params {
                    let t =
                        p.ty.as_ref()
                            .map(|t| self.map_at(t, file, ns, this, d))
                            .unwrap_or(M::Any);
                    let t = if t == M::Void { M::Any } else { t };
                    ps.push(format!(
                        "{}{}{}: {t}",
                        if p.rest { "..." } else { "" },
                        p.name,
                        if p.optional && !p.rest { "?" } else { "" }
                    ));
                }
                let r = self.map_at(ret, file, ns, this, d);
                M::Func(format!("({}) => {r}", ps.join(", ")))
            }
            Ty::Ctor => M::Named("Function".into()),
            Ty::Object(_) => M::Named("object".into()),
            Ty::Query(p) if self.imported_module(p, ns).is_some() => {
                M::Named(self.imported_module(p, ns).unwrap_or_default())
            }
            Ty::Query(p) if self.imported_path(p, file, ns).is_some() => {
                let q = self.imported_path(p, file, ns).unwrap_or_default();
                self.map_at(&Ty::Query(q), file, &[], this, d)
            }
            Ty::Query(p) => match self.value_entity(p, file, ns) {
                Some(i) => M::Named(self.entities[i].name.clone()),
                None => match self.value_type(p, file, ns, d) {
                    Some(t) => t,
                    None => {
                        self.anys
                            .add("`typeof` of a value that is not a class, enum, namespace, variable or function");
                        M::Any
                    }
                },
            },
            Ty::This => match this {
                Some(n) => M::Named(n.to_string()),
                None => M::Any,
            },
            Ty::Other(k) => {
                let words = k.replace('_', " ");
                let words = if words.ends_with("type") {
                    words
                } else {
                    format!("{words} type")
                };
                self.anys.add(&words);
                M::Any
            }
        }
    }
}
