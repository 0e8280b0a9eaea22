//! A member's signature lines in the corpus's notation: overloads merged then listed,
//! parameters, a function-holding property as the method it is.

use super::super::dts::{MemberDecl, MemberKind, ParamDecl, Ty};
use super::super::map::{union, Model, M};
use super::GLOBAL;

/// A read-only property holding a function (`readonly get: (key: string) =>
/// Promise<string>`, `get: typeof get`) is a method: scripts call it, and the corpus's
/// signature says so (`get(key: string): Promise<string>`) where a function type as a
/// property's type says less to the loader. A writable one stays a property: scripts
/// assign their own function to it (`figma.ui.onmessage = ...`).
pub(super) fn as_method(model: &mut Model, m: MemberDecl, f: usize, ns: &[String]) -> MemberDecl {
    if m.kind != MemberKind::Prop {
        return m;
    }
    let ns = m.ctx.clone().unwrap_or_else(|| ns.to_vec());
    let sig = match &m.ty {
        Some(Ty::Func(ps, r)) if m.readonly => Some((ps.clone(), (**r).clone())),
        Some(Ty::Query(p)) => model.function_sig(p, f, &ns),
        _ => None,
    };
    match sig {
        Some((params, ret)) => MemberDecl {
            kind: MemberKind::Method,
            params,
            ty: Some(ret),
            ..m
        },
        None => m,
    }
}

/// The signature lines of one member: for a method of several overloads, one merged
/// signature (each position's types joined, optional where any overload lacks it)
/// and then every overload; the word for what it was declared as.
pub(super) fn signature_lines(
    model: &mut Model,
    name: &str,
    decls: &[(MemberDecl, usize)],
    ns: &[String],
    this: &str,
) -> (Vec<String>, &'static str) {
    let props: Vec<&(MemberDecl, usize)> = decls
        .iter()
        .filter(|(m, _)| {
            matches!(
                m.kind,
                MemberKind::Prop | MemberKind::Getter | MemberKind::Setter | MemberKind::EnumValue
            )
        })
        .collect();
    let methods: Vec<&(MemberDecl, usize)> = decls
        .iter()
        .filter(|(m, _)| m.kind == MemberKind::Method)
        .collect();
    let mut lines = Vec::new();
    let mut word = "method";
    if let Some((first, f)) = props.first() {
        let has_setter = props.iter().any(|(m, _)| m.kind == MemberKind::Setter);
        let has_getter = props.iter().any(|(m, _)| m.kind == MemberKind::Getter);
        let readonly =
            first.readonly || first.kind == MemberKind::EnumValue || (has_getter && !has_setter);
        let ty = match first.kind {
            MemberKind::Setter => first.params.first().and_then(|p| p.ty.clone()),
            _ => first.ty.clone(),
        };
        let ty = ty.unwrap_or(Ty::Prim("any".into()));
        let ns_m = first.ctx.as_deref().unwrap_or(ns);
        let t = model.map(&ty, *f, ns_m, Some(this));
        let t = if t == M::Void { M::Any } else { t };
        word = match first.kind {
            MemberKind::EnumValue => "enum value",
            MemberKind::Getter | MemberKind::Setter => "accessor",
            _ if this == GLOBAL => "variable",
            _ => "property",
        };
        lines.push(format!(
            "{}{name}: {t}",
            if readonly { "readonly " } else { "" }
        ));
    }
    if !methods.is_empty() {
        if props.is_empty() {
            word = if this == GLOBAL { "function" } else { "method" };
        }
        let mut each = Vec::new();
        let mut positions: Vec<(String, Vec<M>, bool, bool)> = Vec::new();
        let mut rets = Vec::new();
        for (m, f) in &methods {
            let ns = m.ctx.as_deref().unwrap_or(ns);
            let ret = model.map(
                m.ty.as_ref().unwrap_or(&Ty::Prim("any".into())),
                *f,
                ns,
                Some(this),
            );
            let params = params_text(model, &m.params, *f, ns, Some(this));
            each.push(format!("{name}({params}): {ret}"));
            rets.push(ret);
            for (k, p) in m.params.iter().enumerate() {
                let t = param_type(model, p, *f, ns, this);
                if positions.len() <= k {
                    positions.push((p.name.clone(), Vec::new(), p.optional, p.rest));
                }
                let slot = &mut positions[k];
                slot.1.push(t);
                slot.2 |= p.optional;
                slot.3 |= p.rest;
            }
        }
        // A position some overload lacks is optional in the merged signature.
        let shortest = methods
            .iter()
            .map(|(m, _)| m.params.len())
            .min()
            .unwrap_or(0);
        for slot in positions.iter_mut().skip(shortest) {
            slot.2 = true;
        }
        if methods.len() > 1 {
            let mut ps = Vec::new();
            for (pname, ts, opt, rest) in positions {
                let t = union(ts);
                let t = if t == M::Void { M::Any } else { t };
                ps.push(format!(
                    "{}{pname}{}: {t}",
                    if rest { "..." } else { "" },
                    if opt && !rest { "?" } else { "" }
                ));
                if rest {
                    break;
                }
            }
            let ret = union(rets);
            lines.push(format!("{name}({}): {ret}", ps.join(", ")));
        }
        for l in each {
            if !lines.contains(&l) || methods.len() > 1 {
                lines.push(l);
            }
        }
    }
    (lines, word)
}

fn param_type(model: &mut Model, p: &ParamDecl, f: usize, ns: &[String], this: &str) -> M {
    let t = model.map(
        p.ty.as_ref().unwrap_or(&Ty::Prim("any".into())),
        f,
        ns,
        Some(this),
    );
    if t == M::Void {
        M::Any
    } else {
        t
    }
}

/// `a: string, b?: number, ...c: T[]`.
fn params_text(
    model: &mut Model,
    ps: &[ParamDecl],
    f: usize,
    ns: &[String],
    this: Option<&str>,
) -> String {
    params_with(model, ps, f, ns, this, |t| t)
}

/// A constructor's parameters for its `Constructor:` line: a function type is
/// `Function` there, as the line ends at its first `)` for the loader.
pub(super) fn ctor_params_text(
    model: &mut Model,
    ps: &[ParamDecl],
    f: usize,
    ns: &[String],
    this: Option<&str>,
) -> String {
    params_with(model, ps, f, ns, this, |t| match t {
        M::Func(_) => M::Named("Function".into()),
        M::Union(u) if u.iter().any(|x| matches!(x, M::Func(_))) => M::Any,
        t => t,
    })
}

/// Each parameter written `...name?: T`, its type passed through `ty` first.
fn params_with(
    model: &mut Model,
    ps: &[ParamDecl],
    f: usize,
    ns: &[String],
    this: Option<&str>,
    ty: impl Fn(M) -> M,
) -> String {
    let mut v = Vec::new();
    for p in ps {
        let t = ty(param_type(model, p, f, ns, this.unwrap_or("")));
        v.push(format!(
            "{}{}{}: {t}",
            if p.rest { "..." } else { "" },
            p.name,
            if p.optional && !p.rest { "?" } else { "" }
        ));
    }
    v.join(", ")
}
