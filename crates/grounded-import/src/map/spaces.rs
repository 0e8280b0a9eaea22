//! Namespaces that are values: a namespace holding a class, an enum or another such
//! namespace is an object at run time (TypeScript's "instantiated" namespace), with
//! that class, enum or namespace as a member.
//!
//! Why: only a namespace's variables and functions made it an object, so UXP's
//! `declare module "uxp" { namespace storage { class Entry } }` was dropped, and
//! `require("uxp").storage` became "`Uxp` has no member `storage`" (12 wrong
//! accusations on real plugins), though TypeScript accepts it. A module whose blocks
//! held only such namespaces was dropped whole ("it exports nothing").

use std::collections::BTreeSet;

use super::super::dts::{module_spec, Decl, DeclKind, Ty};

/// The member variables the value-holding namespaces get: for each class or enum
/// declared in a namespace, `Name: typeof Name` in that namespace; for each namespace
/// that is a value and is itself inside a namespace, the same in the outer one. A
/// module's top level is no namespace: its classes and namespaces are its exports
/// already. Each is declared where the class or namespace is (its file and line).
/// Namespaces outside any module are left as they were (see the note inside).
pub fn namespace_values(decls: &[Decl]) -> Vec<Decl> {
    let is_space = |ns: &[String]| match ns {
        [] => false,
        [only] => module_spec(only).is_none(),
        _ => true,
    };
    // Every namespace path that is a value, with where its first value is declared.
    let mut spaces: Vec<(Vec<String>, usize, usize)> = Vec::new();
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut out: Vec<Decl> = Vec::new();
    let mut made: BTreeSet<(Vec<String>, String)> = BTreeSet::new();
    for d in decls {
        let value = matches!(
            d.kind,
            DeclKind::Class | DeclKind::Enum | DeclKind::Var(_) | DeclKind::Function
        );
        // Only inside a module, for now: a global namespace of enums (Apps Script's
        // `GoogleAppsScript.Charts`) became an interface colliding with the service of
        // its name (`Charts` renamed `ChartsCharts`) and a global `GoogleAppsScript`
        // that the engine does not have, though the .d.ts declares it.
        let in_module = d.ns.first().and_then(|n| module_spec(n)).is_some();
        if !value || !in_module || !is_space(&d.ns) {
            continue;
        }
        if matches!(d.kind, DeclKind::Class | DeclKind::Enum)
            && made.insert((d.ns.clone(), d.name.clone()))
        {
            out.push(member(d, &d.ns, &d.name));
        }
        for k in 1..=d.ns.len() {
            let p = d.ns[..k].to_vec();
            if is_space(&p) && seen.insert(p.clone()) {
                spaces.push((p, d.file, d.line));
            }
        }
    }
    for (p, file, line) in spaces {
        let (last, outer) = p.split_last().expect("a namespace path is never empty");
        if is_space(outer) && made.insert((outer.to_vec(), last.clone())) {
            let mut d = member_at(outer, last, file, line);
            d.exported = true;
            out.push(d);
        }
    }
    out
}

fn member(d: &Decl, ns: &[String], name: &str) -> Decl {
    let mut m = member_at(ns, name, d.file, d.line);
    m.doc = d.doc.clone();
    m
}

fn member_at(ns: &[String], name: &str, file: usize, line: usize) -> Decl {
    Decl::made(
        DeclKind::Var(Some(Ty::Query(vec![name.to_string()]))),
        name.to_string(),
        ns.to_vec(),
        file,
        line,
        true,
    )
}
