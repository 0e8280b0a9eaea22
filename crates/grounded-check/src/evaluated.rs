//! Function literals the docs take as source text, to be evaluated elsewhere: the names
//! inside them are not the script's to declare.
//!
//! What: a function literal passed where the documented parameter is a union of `string`
//! and function types alone (`evaluate(pageFunction: string | ((arg: any) => any))`).
//! The docs accept the code as text there, so the function is run from its source
//! somewhere else (another realm with globals of its own), not in the script's scope.
//!
//! Why: on k6's real scripts, 18 of 335 findings were wrong: `window`, `document` and
//! `navigator` inside functions passed to `page.evaluate(...)`, which run in the browser
//! page. Only the names the script does not declare are let go there ("declared
//! nowhere", "defined nowhere", and the members of such names); a receiver the corpus
//! types is still judged inside, as everywhere. Nothing here names an engine: the rule
//! reads the parameter types of the docs (see `source_or_function` for the unions it
//! leaves alone, and the true findings that taught it).

use grounded_docs::signature::Type;
use grounded_docs::Member;
use tree_sitter::Node;

use super::Ctx;

/// Whether `node` lies inside a function literal the script passes as source text
/// (module docs). Read from the node's ancestors and the callee's name, not from the
/// receiver's type: a statement re-checked alone (the editor's path) sees the same
/// ancestors as the whole file, so both say the same. By name, a member of an
/// uncertain receiver (`this.page.evaluate(...)`) counts too: that only withholds
/// findings.
pub(crate) fn inside(cx: &Ctx, node: Node) -> bool {
    // Most corpora take no source text anywhere, and then no walk up is needed: each
    // step up is a descent from the root in tree-sitter, and walking up from every name
    // declared nowhere was 6% of a real 392-file project's check (issue 48).
    if cx.run.is_some_and(|run| {
        run.source_names
            .get_or_init(|| source_taking(cx.corpus))
            .is_empty()
    }) {
        return false;
    }
    let mut n = node;
    while let Some(p) = n.parent() {
        if grounded_js::is_function_kind(n.kind_id()) && p.kind() == "arguments" {
            if let Some(call) = p.parent().filter(|c| c.kind() == "call_expression") {
                if passed_as_source(cx, call, p, n) {
                    return true;
                }
            }
        }
        n = p;
    }
    false
}

/// Whether `f`, an argument of `call` (`args` its arguments), goes where a documented
/// member of the callee's name takes source text.
fn passed_as_source(cx: &Ctx, call: Node, args: Node, f: Node) -> bool {
    let mut c = args.walk();
    let Some(i) = args
        .named_children(&mut c)
        .filter(|n| !n.is_extra())
        .position(|n| n.id() == f.id())
    else {
        return false;
    };
    let Some(callee) = call.child_by_field_name("function") else {
        return false;
    };
    match callee.kind() {
        "member_expression" => {
            let Some(prop) = callee.child_by_field_name("property") else {
                return false;
            };
            let name = cx.a.node_text(prop);
            cx.corpus
                .interfaces
                .values()
                .filter_map(|iface| iface.members.get(name))
                .any(|m| source_positions(m).contains(&i))
        }
        "identifier" => cx
            .corpus
            .global_member(cx.a.node_text(callee))
            .is_some_and(|m| source_positions(m).contains(&i)),
        _ => false,
    }
}

/// The names of the corpus's members with a parameter that takes source text (global
/// members included: each is a member of an interface). Read once for a run
/// (`SharedNames`), where an empty answer spares [`inside`] its walk.
pub(crate) fn source_taking(corpus: &grounded_docs::Corpus) -> std::collections::HashSet<String> {
    corpus
        .interfaces
        .values()
        .flat_map(|i| i.members.values())
        .filter(|m| !source_positions(m).is_empty())
        .map(|m| m.name.clone())
        .collect()
}

/// The parameter positions of `m` (any overload) typed as a union with `string` and a
/// function.
fn source_positions(m: &Member) -> Vec<usize> {
    let mut v = Vec::new();
    for s in &m.overloads {
        for (i, p) in s.params.iter().flatten().enumerate() {
            if source_or_function(&p.ty) {
                v.push(i);
            }
        }
    }
    v
}

/// `string | ((arg: any) => any)`: code, as its source text or as the function whose
/// source it is, and nothing else. Not `string | Function`, nor a union with more
/// (InDesign's `doScript(script: File | string | Function)`): those run the function in
/// the script's own engine, and reading them so lost four true findings (`document`
/// for `app.activeDocument` inside `app.doScript(function () { ... })`).
fn source_or_function(t: &Type) -> bool {
    match t {
        Type::Union(v) => {
            v.iter().any(|t| matches!(t, Type::String))
                && v.iter().any(|t| matches!(t, Type::Func(..)))
                && v.iter().all(|t| matches!(t, Type::String | Type::Func(..)))
        }
        _ => false,
    }
}
