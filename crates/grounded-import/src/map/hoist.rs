//! Inline object types become interfaces of their own: `const _default: { get(key:
//! string): Promise<string> }`, `options: { headers: ... }`. Named after what holds
//! them (the variable `_default` → `Default`, the member `Params.tags` → `ParamsTags`).
//!
//! Why: a value typed by an inline object type was `object`, so nothing read on it was
//! judged and nothing it documented showed in hover or completion (k6's `SharedArray`
//! and `secrets` are such values). Parameters are left alone: an object literal passed
//! for an interface takes only its members as keys, and an inline parameter type is
//! often partial (`{ [key: string]: any }` aside), so judging those keys would accuse.
//!
//! A constant whose inline type only constructs arrays (`const SharedArray: { new
//! (name: string, f: () => T[]): T[] }`) also gets the interface of what `new` gives:
//! `SharedArray`, an array of `T` (as a class `extends Array<T>` is).

use std::collections::BTreeSet;

use super::super::dts::{Decl, DeclKind, Doc, MemberKind, Ty};

/// `decls` with every inline object type of a variable, a property or a method's
/// result replaced by a reference to a new interface declaration (appended).
pub fn hoist(mut decls: Vec<Decl>) -> Vec<Decl> {
    // Types and values are named apart (TypeScript's `const SharedArray` and `interface
    // SharedArray` are two things): only types take a name here.
    let mut taken: BTreeSet<(Vec<String>, String)> = decls
        .iter()
        .filter(|d| !matches!(d.kind, DeclKind::Var(_) | DeclKind::Function))
        .map(|d| (d.ns.clone(), d.name.clone()))
        .collect();
    let mut new: Vec<Decl> = Vec::new();
    for d in decls.iter_mut() {
        let ctx = Ctx {
            ns: d.ns.clone(),
            file: d.file,
            line: d.line,
        };
        match &mut d.kind {
            DeclKind::Var(Some(t)) => {
                // `declare const _default: { ... }; export default _default;`: named by
                // its module (`SecretsDefault`), not `Default`.
                let mut base = cap(&d.name);
                if base == "Default" {
                    if let Some(w) =
                        d.ns.first()
                            .and_then(|n| super::module_spec(n))
                            .and_then(|s| super::spec_words(s).pop())
                    {
                        base = format!("{w}Default");
                    }
                }
                let construct_only = matches!(t, Ty::Object(ms) if !ms.is_empty()
                    && ms.iter().all(|m| m.kind == MemberKind::Construct));
                let name = if construct_only {
                    format!("{base}Constructor")
                } else {
                    base.clone()
                };
                walk(t, &name, &ctx, &mut taken, &mut new, 0);
                if construct_only {
                    array_instances(&d.name, &base, &ctx, &mut taken, &mut new);
                }
            }
            DeclKind::Interface | DeclKind::Class | DeclKind::Alias(_) => {
                let owner = d.name.clone();
                for m in d.members.iter_mut() {
                    if matches!(
                        m.kind,
                        MemberKind::Prop | MemberKind::Method | MemberKind::Getter
                    ) {
                        if let (Some(t), Some(n)) = (m.ty.as_mut(), m.name.as_ref()) {
                            let name = format!("{owner}{}", cap(n));
                            walk(t, &name, &ctx, &mut taken, &mut new, 0);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The new interfaces' own inline members, a few levels deep.
    let mut round = new;
    for _ in 0..4 {
        if round.is_empty() {
            break;
        }
        let mut more = Vec::new();
        for d in round.iter_mut() {
            let ctx = Ctx {
                ns: d.ns.clone(),
                file: d.file,
                line: d.line,
            };
            let owner = d.name.clone();
            for m in d.members.iter_mut() {
                if let (Some(t), Some(n)) = (m.ty.as_mut(), m.name.as_ref()) {
                    if m.kind != MemberKind::Construct {
                        let name = format!("{owner}{}", cap(n));
                        walk(t, &name, &ctx, &mut taken, &mut more, 0);
                    }
                }
            }
        }
        decls.append(&mut round);
        round = more;
    }
    decls.append(&mut round);
    decls
}

struct Ctx {
    ns: Vec<String>,
    file: usize,
    line: usize,
}

/// `name` with its first letter upper-cased, leading `_` and `$` dropped.
fn cap(name: &str) -> String {
    let t = name.trim_start_matches(['_', '$']);
    let mut cs = t.chars();
    match cs.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + cs.as_str(),
        None => "Value".into(),
    }
}

fn fresh(ns: &[String], base: &str, taken: &mut BTreeSet<(Vec<String>, String)>) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&(ns.to_vec(), name.clone())) {
        name = format!("{base}{n}");
        n += 1;
    }
    taken.insert((ns.to_vec(), name.clone()));
    name
}

/// Replaces the inline object types in `t` (itself, a union's parts, an array's
/// element, `Promise<T>`'s `T`) by references to new interfaces named from `base`.
fn walk(
    t: &mut Ty,
    base: &str,
    ctx: &Ctx,
    taken: &mut BTreeSet<(Vec<String>, String)>,
    new: &mut Vec<Decl>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    match t {
        Ty::Object(ms) if representable(ms) => {
            let name = fresh(&ctx.ns, base, taken);
            new.push(Decl {
                kind: DeclKind::Interface,
                name: name.clone(),
                ns: ctx.ns.clone(),
                file: ctx.file,
                line: ctx.line,
                doc: Doc::default(),
                parents: Vec::new(),
                members: std::mem::take(ms),
                is_abstract: false,
                exported: false,
            });
            *t = Ty::Ref(vec![name], Vec::new());
        }
        Ty::Union(v) => {
            let objects = v.iter().filter(|x| matches!(x, Ty::Object(_))).count();
            for (k, x) in v.iter_mut().enumerate() {
                let b = if objects > 1 {
                    format!("{base}{}", k + 1)
                } else {
                    base.to_string()
                };
                walk(x, &b, ctx, taken, new, depth + 1);
            }
        }
        Ty::Array(x) => walk(x, &format!("{base}Item"), ctx, taken, new, depth + 1),
        Ty::Ref(p, args)
            if p.len() == 1 && matches!(p[0].as_str(), "Promise" | "Array" | "ReadonlyArray") =>
        {
            for a in args.iter_mut() {
                walk(a, base, ctx, taken, new, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether every member of an object type can be written in the corpus. One that
/// cannot (a mapped key `[f in Field]?: T`, a computed name, a call signature) would
/// leave the interface without a member the value has, and a script's read of it
/// would be accused: such a type stays `object`, unjudged.
fn representable(ms: &[super::super::dts::MemberDecl]) -> bool {
    !ms.is_empty()
        && ms.iter().all(|m| match m.kind {
            MemberKind::Index => matches!(m.name.as_deref(), Some("string") | Some("number")),
            MemberKind::Call => false,
            MemberKind::Construct => true,
            _ => m.name.is_some() && !m.hidden,
        })
}

/// For a constant whose inline type only constructs arrays, the interface of what
/// `new` gives (an array of the element type) and the construct signatures pointed at
/// it.
fn array_instances(
    var: &str,
    base: &str,
    ctx: &Ctx,
    taken: &mut BTreeSet<(Vec<String>, String)>,
    new: &mut Vec<Decl>,
) {
    let Some(last) = new.len().checked_sub(1) else {
        return;
    };
    let members = &new[last].members;
    let all_arrays = members
        .iter()
        .all(|m| matches!(&m.ty, Some(Ty::Array(_)) | Some(Ty::Tuple(_))));
    let elem = members.iter().find_map(|m| match &m.ty {
        Some(Ty::Array(e)) => Some((**e).clone()),
        _ => None,
    });
    let elem = match (all_arrays, elem) {
        (true, Some(e)) => e,
        (true, None) => Ty::Prim("any".into()),
        _ => return,
    };
    let name = fresh(&ctx.ns, base, taken);
    for m in new[last].members.iter_mut() {
        m.ty = Some(Ty::Ref(vec![name.clone()], Vec::new()));
    }
    let doc = Doc {
        text: format!(
            "What `new {var}(...)` gives: an array (the declarations type the result as one)."
        ),
        ..Doc::default()
    };
    new.push(Decl {
        kind: DeclKind::Interface,
        name,
        ns: ctx.ns.clone(),
        file: ctx.file,
        line: ctx.line,
        doc,
        parents: vec![Ty::Ref(vec!["Array".into()], vec![elem])],
        members: Vec::new(),
        is_abstract: false,
        exported: false,
    });
}
