//! `engine`: a built-in of the language that the engine's level lacks.
//!
//! What: `Object.keys(o)` (ES5) under an ES3 engine; `[1, 2].map(f)`, `"s".trim()`,
//! `layout.pages.forEach(f)` (a documented `Page[]`); `JSON` and `new Map()` (reported
//! where the receiver or constructor is judged). The editions come from one table,
//! [`crate::es`]; the level from the corpus's Engine chunk.
//!
//! Why: agents write ES5+ out of habit and `node --check` passes it; the engine throws
//! `undefined is not a function` at run time. Only receivers whose built-in type is
//! certain are judged (literals, `new Array()`, variables only ever assigned literals,
//! documented members typed `string`, `number`, `T[]`...). Anything the corpus
//! documents is never flagged, and a built-in the project assigns itself (a polyfill
//! such as `Array.prototype.forEach = ...`) exists.

use tree_sitter::Node;

use crate::es::{self, Proto};

use super::{Code, Ctx};

/// A hint for the built-ins agents reach for most, said once here rather than guessed.
pub(crate) fn global_hint(name: &str) -> &'static str {
    match name {
        "JSON" => ": build strings by concatenation, or add a JSON library file to the project and load it",
        "Map" | "Set" | "WeakMap" | "WeakSet" => ": use a plain object (`{}`) keyed by strings",
        "Promise" => ": call the code directly",
        _ => "",
    }
}

fn member_hint(owner: &str, name: &str) -> &'static str {
    match (owner, name) {
        ("Object", "keys") => {
            ": collect the keys with a `for (var k in obj)` loop and `hasOwnProperty`"
        }
        ("Object", "create") => ": use a constructor function and its `prototype`",
        ("Array", "isArray") => ": test `Object.prototype.toString.call(x) === \"[object Array]\"`",
        ("Date", "now") => ": use `new Date().getTime()`",
        ("Array", "forEach" | "map" | "filter" | "some" | "every" | "reduce" | "reduceRight") => {
            ": loop with an index, `for (var i = 0; i < a.length; i++)`"
        }
        ("Array", "indexOf" | "lastIndexOf" | "includes" | "find" | "findIndex") => {
            ": loop with an index and compare each element"
        }
        ("String", "trim" | "trimStart" | "trimEnd") => ": use `s.replace(/^\\s+|\\s+$/g, \"\")`",
        ("String", "startsWith") => ": compare `s.substring(0, prefix.length)`",
        ("String", "includes") => ": test `s.indexOf(part) != -1`",
        ("Function", "bind") => ": wrap the call in a `function () { ... }` that uses `apply`",
        _ => "",
    }
}

fn proto_name(p: Proto) -> &'static str {
    match p {
        Proto::Array => "Array",
        Proto::String => "String",
        Proto::Function => "Function",
        Proto::Number => "Number",
        Proto::Date => "Date",
        Proto::Object => "Object",
        Proto::RegExp => "RegExp",
    }
}

/// `Object.keys`: a static member of a language built-in (the receiver is a built-in
/// global of the level, neither declared nor documented).
pub(crate) fn static_member(cx: &mut Ctx, obj: Node, prop: Node) {
    let owner = cx.a.node_text(obj);
    let Some(g) = es::global(owner) else {
        return;
    };
    if g.since > cx.level || !es::statics_are_complete(owner) {
        return;
    }
    let name = cx.a.node_text(prop);
    let Some(since) = es::static_since(owner, name) else {
        return;
    };
    if since <= cx.level || cx.polyfills.contains(&format!("{owner}.{name}")) {
        return;
    }
    let msg = format!(
        "`{owner}.{name}` is {}; this engine runs {}, which has no `{owner}.{name}`{}",
        es::edition_name(since),
        cx.level_name(),
        member_hint(owner, name)
    );
    cx.push_node(prop, Code::Engine, msg);
}

/// `x.trim()` where `x` is certainly a string (array, number, ...).
pub(crate) fn proto_member(cx: &mut Ctx, proto: Proto, prop: Node) {
    let name = cx.a.node_text(prop);
    let Some(since) = es::proto_since(proto, name) else {
        return;
    };
    let owner = proto_name(proto);
    if since <= cx.level || cx.polyfills.contains(&format!("{owner}.prototype.{name}")) {
        return;
    }
    let msg = format!(
        "`{owner}.prototype.{name}` is {}; this engine runs {}, which has no `{name}` on {}{}",
        es::edition_name(since),
        cx.level_name(),
        match proto {
            Proto::Array => "arrays",
            Proto::String => "strings",
            Proto::Function => "functions",
            Proto::Number => "numbers",
            Proto::Date => "dates",
            Proto::RegExp => "regular expressions",
            Proto::Object => "objects",
        },
        member_hint(owner, name)
    );
    cx.push_node(prop, Code::Engine, msg);
}

/// `Array.prototype.forEach` written out (often with `.call`).
pub(crate) fn prototype_chain(cx: &mut Ctx, obj: Node, prop: Node) {
    if obj.kind() != "member_expression" {
        return;
    }
    let (Some(head), Some(p)) = (
        obj.child_by_field_id(crate::js::query::fields().object),
        obj.child_by_field_id(crate::js::query::fields().property),
    ) else {
        return;
    };
    if head.kind() != "identifier" || cx.a.node_text(p) != "prototype" {
        return;
    }
    let owner = cx.a.node_text(head);
    if cx.a.is_declared_anywhere(owner, head.start_byte()) || cx.documented(owner) {
        return;
    }
    let Some(proto) = crate::js::builtin_proto(owner) else {
        return;
    };
    proto_member(cx, proto, prop);
}
