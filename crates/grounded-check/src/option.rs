//! `option`: a key of an object literal that the parameter's interface does not have.
//!
//! What: `layout.blockStart(box, { borderColour: "red" })` where the parameter is typed
//! `BlockStyle` and neither `BlockStyle` nor its parents document `borderColour`. Nested
//! literals are followed where a key's own type is an interface
//! (`{ headerTextStyle: { bold: true } }`).
//!
//! Why: a misspelled key is a setting the docs do not give, and nothing at run time
//! says so: the worst kind of bug, one nobody sees. An interface with
//! `Index: [key: string]: T` takes any key (HTTP headers `{ "Content-Type": ... }`) and
//! is never judged: real code drew 22 wrong findings from treating it as closed.

use tree_sitter::Node;

use grounded_docs::Param;

use super::suggest::{and_list, interface_related, near, or_list};
use super::{Code, Ctx, Fix, ScopeId, Span};

/// How deep nested option literals are followed.
const MAX_DEPTH: usize = 8;

/// The one interface every overload types parameter `i` with, if they agree.
fn param_interface<'p>(overloads: &[&'p [Param]], i: usize) -> Option<&'p str> {
    let mut found: Option<&str> = None;
    for params in overloads {
        let Some(p) = params.get(i) else {
            continue;
        };
        if p.rest {
            return None;
        }
        let iface = p.ty.interface()?;
        match found {
            Some(f) if f != iface => return None,
            _ => found = Some(iface),
        }
    }
    found
}

/// Judges the object literals among `args` against the parameters' interfaces.
/// `kinds`, when the walk read them, are the arguments' kinds; `scope` is the call's.
///
/// A variable that holds one object literal and nothing else (`var cfg = { bolt: true
/// }; r.format(cfg)`) is judged as the literal: options are often built first and
/// passed by name, and the invented key is the same mistake.
pub(crate) fn check_args<'a>(
    cx: &mut Ctx<'a>,
    overloads: &[&'a [Param]],
    list: &[Node<'a>],
    kinds: Option<&[u16]>,
    scope: ScopeId,
) {
    let ids = grounded_js::query::kind_ids();
    for (i, &arg) in list.iter().enumerate() {
        let kind = kinds
            .and_then(|k| k.get(i).copied())
            .unwrap_or_else(|| arg.kind_id());
        let obj = if kind == ids.object {
            arg
        } else if kind == ids.identifier {
            match cx.a.object_literal_of(cx.a.node_text(arg), scope) {
                Some(o) => o,
                None => continue,
            }
        } else {
            continue;
        };
        if let Some(iface) = param_interface(overloads, i) {
            check_object(cx, iface, obj, 0);
        }
    }
}

fn key_of<'t>(cx: &Ctx<'t>, child: Node<'t>) -> Option<(Node<'t>, std::borrow::Cow<'t, str>)> {
    let ids = grounded_js::query::kind_ids();
    let k = child.kind_id();
    let key = if k == ids.pair {
        // The key is a pair's first child (the node starts with it).
        child.child(0)?
    } else if k == ids.shorthand_property_identifier {
        child
    } else if k == ids.method_definition {
        child.child_by_field_id(grounded_js::query::fields().name)?
    } else {
        return None;
    };
    let text = cx.a.node_text(key);
    let k = key.kind_id();
    let name = if k == ids.property_identifier
        || k == ids.shorthand_property_identifier
        || k == ids.number
    {
        std::borrow::Cow::Borrowed(text)
    } else if k == ids.string {
        std::borrow::Cow::Owned(super::project::string_literal(text, "string")?)
    } else {
        return None;
    };
    Some((key, name))
}

fn check_object<'a>(cx: &mut Ctx<'a>, iface: &'a str, obj: Node<'a>, depth: usize) {
    if cx.corpus.open_keys(iface) {
        return;
    }
    let ids = grounded_js::query::kind_ids();
    let children = cx.kids(obj);
    for child in children {
        let Some((key, name)) = key_of(cx, child) else {
            continue;
        };
        let found = match &name {
            std::borrow::Cow::Borrowed(n) => cx.a.member(iface, n),
            std::borrow::Cow::Owned(n) => cx.corpus.member(iface, n),
        };
        if let Some(m) = found {
            if depth < MAX_DEPTH && child.kind_id() == ids.pair {
                // A key typed by an interface is itself an options object.
                if let Some(inner) = grounded_js::member_type(m).and_then(|t| t.interface()) {
                    let value = child.child_by_field_id(grounded_js::query::fields().value);
                    if let Some(value) = value.filter(|v| v.kind_id() == ids.object) {
                        check_object(cx, inner, value, depth + 1);
                    }
                }
            }
            continue;
        }
        report(cx, iface, key, &name);
    }
}

/// Removing the key with its value and one comma: the one after it, or the one before
/// it when it is the last key, so the literal stays a literal of the level (a trailing
/// comma in an object literal is ES5).
fn remove_key(text: &str, key: Node, name: &str) -> Option<Fix> {
    let item = match key.parent() {
        Some(p) if p.kind() == "pair" => p,
        _ => key,
    };
    let object = item.parent().filter(|o| o.kind() == "object")?;
    let (mut start, mut end) = (item.start_byte(), item.end_byte());
    match item.next_sibling() {
        Some(comma) if comma.kind() == "," => {
            end = comma.end_byte();
            // The spaces after the comma go too, up to the next key or line break.
            let rest = &text[end..object.end_byte()];
            end += rest.len() - rest.trim_start_matches([' ', '\t']).len();
        }
        _ => {
            if let Some(comma) = item.prev_sibling().filter(|c| c.kind() == ",") {
                start = comma.start_byte();
            }
        }
    }
    Some(Fix::Replace {
        title: format!("Remove the key `{name}`"),
        span: Span::new(start, end),
        text: String::new(),
        // The docs do not say what the key did: deleting it is the author's call.
        safe: false,
    })
}

fn report(cx: &mut Ctx, iface: &str, key: Node, name: &str) {
    let members = cx.corpus.members_of(iface);
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let close = near(name, names.iter().copied());
    let mut msg = format!("`{iface}` has no key `{name}`");
    if !close.is_empty() {
        msg.push_str(&format!(": did you mean {}?", or_list(&close)));
    } else if names.len() <= 12 && !names.is_empty() {
        msg.push_str(&format!(": its keys are {}", and_list(&names)));
    }
    if !msg.ends_with('?') {
        msg.push('.');
    }
    // Replace only the name: a quoted key keeps its quotes.
    let span = if key.kind() == "string" && key.end_byte() - key.start_byte() >= 2 {
        Span::new(key.start_byte() + 1, key.end_byte() - 1)
    } else {
        Span::new(key.start_byte(), key.end_byte())
    };
    let mut fixes: Vec<Fix> = Fix::replace_each(&close, span);
    fixes.extend(remove_key(cx.text, key, name));
    let related = interface_related(cx.corpus, iface);
    let f = cx.push_node(key, Code::Option, msg);
    f.fixes = fixes;
    f.related = related;
}
