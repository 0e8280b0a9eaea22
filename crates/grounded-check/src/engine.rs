//! `engine`: a built-in of the language that the engine's level lacks.
//!
//! What: `Object.keys(o)` (ES5) under an ES3 engine; `[1, 2].map(f)`, `"s".trim()`,
//! `layout.pages.forEach(f)` (a documented `Page[]`); `JSON` and `new Map()` (reported
//! where the receiver or constructor is judged). The editions come from one table,
//! [`grounded_es`]; the level from the corpus's Engine chunk.
//!
//! Why: agents write ES5+ out of habit and `node --check` passes it; the engine throws
//! `undefined is not a function` at run time. Only receivers whose built-in type is
//! certain are judged (literals, `new Array()`, variables only ever assigned literals,
//! documented members typed `string`, `number`, `T[]`...). Anything the corpus
//! documents is never flagged, and a built-in the project assigns itself (a polyfill
//! such as `Array.prototype.forEach = ...`) exists.

use tree_sitter::Node;

use grounded_es::{self as es, Proto};

use super::{Code, Ctx, Fix, Span};

/// A hint for the built-ins agents reach for most, said once here rather than guessed.
pub(crate) fn global_hint(name: &str) -> &'static str {
    match name {
        "JSON" => ": build strings by concatenation, or add a JSON library file to the project and load it",
        "Map" | "Set" | "WeakMap" | "WeakSet" => ": use a plain object (`{}`) keyed by strings",
        "Promise" => ": call the code directly",
        _ => "",
    }
}

/// What to write instead, under an engine of `level`: ES5 arrays have `indexOf`, so
/// "loop with an index" for `includes` sent ES5 users the long way round.
fn member_hint(owner: &str, name: &str, level: u16) -> &'static str {
    let has_index_of = es::proto_since(Proto::Array, "indexOf").is_some_and(|s| s <= level);
    match (owner, name) {
        ("Array", "includes") if has_index_of => ": test `a.indexOf(x) != -1`",
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
        // The same expression as the fix, so the message and the fix agree.
        ("String", "startsWith") => ": test `s.indexOf(prefix) === 0`",
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
        member_hint(owner, name, cx.level)
    );
    let fix = static_equivalent(cx.text, owner, name, prop);
    cx.push_node(prop, Code::Engine, msg).fixes.extend(fix);
}

/// The call `receiver.name(args)` whose callee's property is `prop`, with its
/// arguments' texts.
fn call_of<'t>(text: &'t str, prop: Node<'t>) -> Option<(Node<'t>, Vec<&'t str>)> {
    let member = prop.parent().filter(|m| m.kind() == "member_expression")?;
    let call = member.parent().filter(|c| {
        c.kind() == "call_expression"
            && c.child_by_field_name("function").map(|f| f.id()) == Some(member.id())
    })?;
    let args = call.child_by_field_name("arguments")?;
    let mut c = args.walk();
    let list: Vec<&str> = args
        .named_children(&mut c)
        .filter(|a| a.kind() != "comment")
        .map(|a| &text[a.byte_range()])
        .collect();
    Some((call, list))
}

/// The level's equivalent of a static built-in where it is one expression: the same
/// value, written with what ES3 has. Loops (`Object.keys`) are no expression and get
/// none; the message's hint says what to write.
fn static_equivalent(text: &str, owner: &str, name: &str, prop: Node) -> Option<Fix> {
    let (call, args) = call_of(text, prop)?;
    let new = match (owner, name, args.as_slice()) {
        ("Date", "now", []) => "new Date().getTime()".to_string(),
        ("Array", "isArray", [x]) => {
            format!("(Object.prototype.toString.call({x}) === \"[object Array]\")")
        }
        _ => return None,
    };
    Some(Fix::Replace {
        title: format!("Replace with `{new}`"),
        span: Span::new(call.start_byte(), call.end_byte()),
        text: new,
        safe: true,
    })
}

/// The level's equivalent of a prototype method where it is one expression.
fn proto_equivalent(text: &str, proto: Proto, name: &str, prop: Node, level: u16) -> Option<Fix> {
    let has_array_index_of = es::proto_since(Proto::Array, "indexOf").is_some_and(|s| s <= level);
    let (call, args) = call_of(text, prop)?;
    let member = prop.parent()?;
    let recv = &text[member.child_by_field_name("object")?.byte_range()];
    // `safe`: the same value for every input (interfaces.md's rule, finding.rs).
    let (from, new, safe) = match (proto, name, args.as_slice()) {
        // Only the method's name and arguments change: the receiver stays as written.
        (Proto::String, "trim", []) => (
            prop.start_byte(),
            r#"replace(/^\s+|\s+$/g, "")"#.to_string(),
            true,
        ),
        (Proto::String, "trimStart" | "trimLeft", []) => (
            prop.start_byte(),
            r#"replace(/^\s+/, "")"#.to_string(),
            true,
        ),
        (Proto::String, "trimEnd" | "trimRight", []) => (
            prop.start_byte(),
            r#"replace(/\s+$/, "")"#.to_string(),
            true,
        ),
        // A comparison binds looser than what may surround the call: parenthesised.
        (Proto::String, "includes", [x]) => (
            call.start_byte(),
            format!("({recv}.indexOf({x}) != -1)"),
            true,
        ),
        // Where the level's arrays have `indexOf` (ES5). It differs from `includes` on
        // `NaN` only, which `indexOf` never finds: so the rewrite is unsafe.
        (Proto::Array, "includes", [x]) if has_array_index_of => (
            call.start_byte(),
            format!("({recv}.indexOf({x}) != -1)"),
            false,
        ),
        (Proto::String, "startsWith", [x]) => (
            call.start_byte(),
            format!("({recv}.indexOf({x}) === 0)"),
            true,
        ),
        _ => return None,
    };
    let shown = if from == call.start_byte() {
        new.clone()
    } else {
        format!("{recv}.{new}")
    };
    Some(Fix::Replace {
        title: format!("Replace with `{shown}`"),
        span: Span::new(from, call.end_byte()),
        text: new,
        safe,
    })
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
        member_hint(owner, name, cx.level)
    );
    let fix = proto_equivalent(cx.text, proto, name, prop, cx.level);
    cx.push_node(prop, Code::Engine, msg).fixes.extend(fix);
}

/// `Array.prototype.forEach` written out (often with `.call`).
pub(crate) fn prototype_chain(cx: &mut Ctx, obj: Node, prop: Node) {
    if obj.kind() != "member_expression" {
        return;
    }
    let (Some(head), Some(p)) = (
        obj.child_by_field_id(grounded_js::query::fields().object),
        obj.child_by_field_id(grounded_js::query::fields().property),
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
    let Some(proto) = grounded_js::builtin_proto(owner) else {
        return;
    };
    proto_member(cx, proto, prop);
}
