//! `member`: a member that the receiver's interface does not have.
//!
//! What: `layout.tableCellEnd()` when neither `Layout` nor any of its parents documents
//! `tableCellEnd`; also writes, `layout.foo = 1`, a member the docs do not give.
//! Only receivers whose interface is certain are judged ([`grounded_js::Analysis`]).
//!
//! Open objects are not judged: an interface with `Index: [key: string]: T` takes any
//! key (HTTP headers, E4X child elements `xml.item`), and on an `Extensible: yes` one
//! a property the script assigns on a variable exists for that variable (dialog code:
//! `w.pbar = w.add(...)`, then `w.pbar.value = 3`). Real scripts drew dozens of wrong
//! findings from treating every object as closed.
//!
//! A closed interface's invented write is one mistake: reported once, at the write;
//! the reads of that member on that variable are the same mistake (an invented property
//! written once was reported at each of its 40 reads).
//!
//! Why: invented members are the most common mistake of a model writing for an engine
//! it has only half seen; the call throws at run time, and the write sets a property
//! the docs do not give. A member the overlay lists as `absent` is reported with its
//! `no_close` reason, and its fix deletes the statement: nothing is lost.
//!
//! Example: `layout.tabelStart(t)` → "`Layout` has no member `tabelStart`; did you mean
//! `tableStart`?", with a fix replacing the name.

use tree_sitter::Node;

use grounded_es::Proto;

use super::suggest::{and_list, construct_family, interface_related, near, or_list};
use super::{statement_lines, Code, Ctx, Fix, Span};

/// Interfaces with at most this many members are listed whole in the message.
const SHORT_INTERFACE: usize = 8;

/// Whether `node` (a member expression) is the target of an assignment.
pub(crate) fn is_write(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "assignment_expression" | "augmented_assignment_expression"
        ) && p
            .child_by_field_id(grounded_js::query::fields().left)
            .is_some_and(|l| l.id() == node.id())
    })
}

/// Whether `node` (a member expression) is written: assigned (`x.a = 1`, `x.a += 1`)
/// or stepped (`x.a++`).
fn is_written(node: Node) -> bool {
    is_write(node)
        || node.parent().is_some_and(|p| {
            p.kind() == "update_expression"
                && p.child_by_field_id(grounded_js::query::fields().argument)
                    .is_some_and(|a| a.id() == node.id())
        })
}

/// Judges a write of `m`, the documented member `node` (`receiver.prop`) names, on a
/// certain receiver: a member the docs give as `readonly` is not the script's to set.
///
/// Why: the docs say so, and nothing at run time may (the value is silently kept, or
/// the call throws, as the engine pleases); the message quotes the docs' own line.
pub(crate) fn readonly<'a>(
    cx: &mut Ctx<'a>,
    node: Node<'a>,
    m: &'a grounded_docs::Member,
    prop: Node<'a>,
) {
    let Some(sig) = m.overloads.first().filter(|s| s.readonly && !s.is_method()) else {
        return;
    };
    if !is_written(node) {
        return;
    }
    let msg = format!(
        "`{}.{}` is read-only: the docs give `{}`",
        m.interface, m.name, sig.text
    );
    // The member's own chunk, where the docs say it.
    let related = m
        .chunk
        .and_then(|id| cx.corpus.chunks.place(id))
        .map(|(file, line)| super::Related {
            file: file.to_string(),
            line,
            message: format!("`{}.{}`", m.interface, m.name),
        })
        .or_else(|| interface_related(cx.corpus, &m.interface));
    let f = cx.push_node(prop, Code::Member, msg);
    f.related = related;
}

/// Judges `node` (`receiver.prop`) whose receiver is certainly a value of the language
/// by how the script writes it (`"abc"`, `[1, 2]`, `/x/`, `(5)`, a variable only ever
/// assigned one): it has the members of the engine's edition and nothing else. A value
/// the docs type `string` or `T[]` is not judged so: an engine's collection documented
/// as an array may have members of its own (`documents.add()`).
///
/// Why: `"abc".toUpperCas()` is the same invented member as on a documented object and
/// throws the same way; the docs of the language are complete. A member of a later
/// edition is the `engine` family's (`"abc".trim()` under ES3); a member the engine's
/// `Also has:` lists, the script supplies (`String.prototype.x = ...`) or the corpus
/// documents on the built-in's name exists; an array takes the properties a script
/// gives it (`list.total = 0`), a function any property, so neither a write nor a
/// property the script writes is judged.
pub(crate) fn builtin<'a>(cx: &mut Ctx<'a>, node: Node<'a>, proto: Proto, prop: Node<'a>) {
    if !grounded_es::proto_is_complete(proto) {
        return;
    }
    let name = cx.a.node_text(prop);
    if grounded_es::proto_since(proto, name).is_some() {
        return;
    }
    let owner = match proto {
        Proto::String => "String",
        Proto::Number => "Number",
        Proto::Array => "Array",
        _ => "RegExp",
    };
    if cx.polyfills.contains(&format!("{owner}.prototype.{name}"))
        || cx.polyfills.contains(&format!("Object.prototype.{name}"))
        || cx.corpus.member(owner, name).is_some()
        || cx.corpus.member("Object", name).is_some()
        || is_written(node)
    {
        return;
    }
    let written = cx.a.head(node).is_some_and(|obj| {
        let path = format!("{}.{name}", cx.a.node_text(obj));
        cx.polyfills.contains(&path)
    });
    if written {
        return;
    }
    let what = match proto {
        Proto::String => "A string",
        Proto::Number => "A number",
        Proto::Array => "An array",
        _ => "A regular expression",
    };
    let close = near(name, grounded_es::proto_members(proto, cx.level));
    let mut msg = format!(
        "{what} has no member `{name}` (`{owner}.prototype` in {}, this engine's edition)",
        cx.level_name()
    );
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    }
    let span = Span::new(prop.start_byte(), prop.end_byte());
    let fixes = Fix::replace_each(&close, span);
    cx.push(span.start, span.end, Code::Member, msg).fixes = fixes;
}

/// Whether the receiver of `node` (`receiver.prop`) is an object the script made with
/// `new X()`, directly or through a variable only ever assigned so.
fn constructed<'a>(cx: &Ctx<'a>, node: Node<'a>) -> bool {
    cx.a.head(node).is_some_and(|obj| match obj.kind() {
        "new_expression" => true,
        "identifier" => {
            cx.a.is_constructed(cx.a.node_text(obj), cx.a.scope_at(obj.start_byte()))
        }
        _ => false,
    })
}

/// Judges `node` (`receiver.prop`) whose receiver is certainly of `iface`.
pub(crate) fn check<'a>(cx: &mut Ctx<'a>, node: Node<'a>, iface: &'a str, prop: Node<'a>) {
    let name = cx.a.node_text(prop);
    if cx.a.member(iface, name).is_some() {
        return;
    }
    // Every object has Object.prototype's members (`toString`, `hasOwnProperty`).
    if grounded_es::proto_since(grounded_es::Proto::Object, name).is_some_and(|y| y <= cx.level) {
        return;
    }
    if cx.corpus.open_keys(iface) {
        return;
    }
    // `Page.prototype.freezePageNumbering = function () {...}`: the script gives every
    // object of the interface (or of a parent's) the member. A sloppy global typed by
    // its one write (`myOldDoc.pages[0].freezePageNumbering()`) was accused on a real
    // InDesign script that did so.
    let supplied = std::iter::once(iface)
        .chain(cx.corpus.ancestors(iface).iter().map(String::as_str))
        .any(|i| cx.polyfills.contains(&format!("{i}.prototype.{name}")));
    if supplied {
        return;
    }
    // The receiver may be of a documented sub-interface (`docs::family`), unless the
    // script constructed it (`new Block()` is a `Block`, exactly).
    if cx.corpus.descendant_member(iface, name).is_some() && !constructed(cx, node) {
        return;
    }
    let is_write = is_write(node);
    // The member paths the script assigns (`w.pbar`) are the analysis's polyfill
    // paths, kept for the whole file (and in the incremental check's seed). Anywhere
    // in the file, not only before: a function declared above the assignment runs
    // after it (`function update() { w.pbar.value = 3; }`).
    let written = cx.a.head(node).is_some_and(|obj| {
        let path = format!("{}.{name}", cx.a.node_text(obj));
        cx.polyfills.contains(&path)
    });
    if cx.corpus.is_extensible(iface) && (is_write || written) {
        return;
    }
    if written && !is_write {
        // The same mistake as the write, which is reported.
        return;
    }
    let span = Span::new(prop.start_byte(), prop.end_byte());
    let related = interface_related(cx.corpus, iface);
    let inherited = if cx.corpus.ancestors(iface).is_empty() {
        String::new()
    } else if cx.corpus.ancestors(iface).len() == 1 {
        format!(" (nor does its parent `{}`)", cx.corpus.ancestors(iface)[0])
    } else {
        format!(
            " (nor do its parents {})",
            and_list(
                &cx.corpus
                    .ancestors(iface)
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
            )
        )
    };
    if let Some(reason) = cx.corpus.absent_reason(iface, name).map(str::to_string) {
        let msg = format!("`{iface}` has no member `{name}`{inherited}. {reason}");
        let lines = statement_lines(cx.text, node);
        let stmt = cx.text[node.start_byte()..]
            .split(['\n', ';'])
            .next()
            .unwrap_or(name)
            .trim()
            .to_string();
        let f = cx.push(span.start, span.end, Code::Member, msg);
        f.fixes.push(Fix::Delete {
            title: format!("Delete `{stmt}`"),
            detail: Some(reason),
            span: lines,
            safe: true,
        });
        f.related = related;
        return;
    }
    let members = cx.corpus.members_of(iface);
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let close = if cx.corpus.has_loose_names(iface) {
        super::suggest::near_loose(name, names.iter().copied())
    } else {
        near(name, names.iter().copied())
    };
    let mut msg = format!("`{iface}` has no member `{name}`{inherited}");
    if is_write {
        msg.push_str(": the docs give no such property to assign");
    }
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    }
    if let Some(family) = construct_family(cx.corpus, iface, name) {
        msg.push_str(&format!("; {family}"));
    } else if names.len() <= SHORT_INTERFACE && !names.is_empty() {
        msg.push_str(&format!("; its members are {}", and_list(&names)));
    } else if close.is_empty() {
        msg.push_str(&format!(
            "; `{iface}` has {} members (see `grounded lookup {iface}`)",
            names.len()
        ));
    }
    let fixes = Fix::replace_each(&close, span);
    let f = cx.push(span.start, span.end, Code::Member, msg);
    f.fixes = fixes;
    f.related = related;
}

/// Judges `node` (`receiver.prop`) whose receiver is certainly one of `ifaces` (a union
/// the docs write, interfaces.md "What modern typings say"): judged like a family over
/// several roots, a member that none of them (nor a descendant of any) documents is a
/// finding; the near names are all of theirs.
///
/// Why: modern typings type most values as unions (`selection[0]` is one of 30 node
/// interfaces); a member none of them has is missing whatever the value is, and tsc
/// says so too. One that any documents is not reported: the script may know which.
pub(crate) fn check_union<'a>(
    cx: &mut Ctx<'a>,
    node: Node<'a>,
    ifaces: &[&'a str],
    prop: Node<'a>,
) {
    let name = cx.a.node_text(prop);
    if grounded_es::proto_since(Proto::Object, name).is_some_and(|y| y <= cx.level) {
        return;
    }
    let written = cx.a.head(node).is_some_and(|obj| {
        let path = format!("{}.{name}", cx.a.node_text(obj));
        cx.polyfills.contains(&path)
    });
    let is_write = is_write(node);
    for &i in ifaces {
        let supplied = std::iter::once(i)
            .chain(cx.corpus.ancestors(i).iter().map(String::as_str))
            .any(|x| cx.polyfills.contains(&format!("{x}.prototype.{name}")));
        if supplied
            || cx.corpus.open_keys(i)
            || cx.corpus.descendant_member(i, name).is_some()
            || (cx.corpus.is_extensible(i) && (is_write || written))
        {
            return;
        }
    }
    if written && !is_write {
        // The same mistake as the write, which is reported.
        return;
    }
    let mut names: Vec<&str> = Vec::new();
    for &i in ifaces {
        for m in cx.corpus.members_of(i) {
            if !names.contains(&m.name.as_str()) {
                names.push(m.name.as_str());
            }
        }
    }
    let close = near(name, names.iter().copied());
    let shown: Vec<String> = ifaces.iter().map(|i| format!("`{i}`")).collect();
    let mut msg = if shown.len() <= 5 {
        format!(
            "None of {} has a member `{name}` (the docs type this value as any of them)",
            and_list(ifaces)
        )
    } else {
        format!(
            "None of the {} interfaces the docs type this value as ({}, ...) has a member `{name}`",
            shown.len(),
            shown[..3].join(", ")
        )
    };
    if is_write {
        msg.push_str(": the docs give no such property to assign");
    }
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    }
    let span = Span::new(prop.start_byte(), prop.end_byte());
    let related = interface_related(cx.corpus, ifaces[0]);
    let f = cx.push(span.start, span.end, Code::Member, msg);
    f.fixes = Fix::replace_each(&close, span);
    f.related = related;
}

/// Judges a test of `node` (`receiver.prop`, a documented member of each of `ifaces`)
/// against a literal (`node.type === "TXET"`, `switch (node.type) { case "TXET": }`):
/// when the docs type the member with literals alone on every interface the receiver
/// may be, a literal none of them gives is a finding, with the near literals.
///
/// Why `member`: the test names a value of the member that the docs say it never has,
/// the same mistake as a misspelt member (its branch never runs, silently), found by the
/// same reading of the receiver's interfaces; a code of its own would split one
/// mistake across two filters.
pub(crate) fn literal_test<'a>(
    cx: &mut Ctx<'a>,
    node: Node<'a>,
    ifaces: &[&'a str],
    prop: Node<'a>,
) {
    // The docs' literals first: most members have none, and asking a node for its
    // parent searches down from the tree's root (on a 100,000-line script this
    // function's `parent` was a twentieth of the check, for members with no literal).
    let name = cx.a.node_text(prop);
    let mut all: Vec<String> = Vec::new();
    for &i in ifaces {
        let Some(lits) = cx.a.literals_of(i, name) else {
            return;
        };
        for l in lits {
            if !all.contains(&l) {
                all.push(l);
            }
        }
    }
    let Some(parent) = node.parent() else {
        return;
    };
    let f = grounded_js::query::fields();
    let mut tested: Vec<Node<'a>> = Vec::new();
    match parent.kind() {
        "binary_expression" => {
            let op = parent.child_by_field_id(f.operator).map(|o| o.kind());
            if !matches!(op, Some("===" | "!==" | "==" | "!=")) {
                return;
            }
            let other = [f.left, f.right]
                .into_iter()
                .filter_map(|id| parent.child_by_field_id(id))
                .find(|n| n.id() != node.id());
            tested.extend(other);
        }
        "parenthesized_expression" => {
            let Some(switch) = parent.parent().filter(|s| s.kind() == "switch_statement") else {
                return;
            };
            let Some(body) = switch.child_by_field_name("body") else {
                return;
            };
            let mut c = body.walk();
            for case in body.named_children(&mut c) {
                tested.extend(case.child_by_field_id(f.value));
            }
        }
        _ => return,
    }
    for lit in tested {
        let text = cx.a.node_text(lit);
        let value = match lit.kind() {
            "string" => &text[1..text.len().saturating_sub(1).max(1)],
            "number" => text,
            _ => continue,
        };
        if all.iter().any(|l| l == value) {
            continue;
        }
        let close = near(value, all.iter().map(String::as_str));
        let whose = match ifaces {
            [one] => format!("`{one}.{name}`"),
            _ => format!("`{name}` of any interface this value may be"),
        };
        let quote = |l: &str| match lit.kind() {
            "string" => format!("\"{l}\""),
            _ => l.to_string(),
        };
        let shown: Vec<String> = all.iter().take(8).map(|l| quote(l)).collect();
        let mut msg = format!(
            "`{text}` is never {whose}: the docs give {}{}",
            or_list(&shown.iter().map(String::as_str).collect::<Vec<_>>()),
            if all.len() > 8 { ", ..." } else { "" }
        );
        if !close.is_empty() {
            let q: Vec<String> = close.iter().map(|l| quote(l)).collect();
            msg.push_str(&format!(
                "; did you mean {}?",
                or_list(&q.iter().map(String::as_str).collect::<Vec<_>>())
            ));
        }
        // The literal's text between its quotes is replaced.
        let inner = if lit.kind() == "string" {
            Span::new(lit.start_byte() + 1, lit.end_byte().saturating_sub(1))
        } else {
            Span::new(lit.start_byte(), lit.end_byte())
        };
        let fixes = Fix::replace_each(&close, inner);
        cx.push(inner.start, inner.end, Code::Member, msg).fixes = fixes;
    }
}
