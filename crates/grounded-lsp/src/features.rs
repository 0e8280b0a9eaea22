//! Hover, completion, signature help, document symbols and go to definition.
//!
//! Each works on byte offsets of one buffer and converts to the protocol's UTF-16
//! positions at the end.

//!
//! Rooms: `hover`, `completion`, `signature` (signature help), `symbols` (the
//! outline, definition, the project's and the corpus's symbols) and `modules` (what
//! the editor says of specifiers and import bindings), each a child that
//! reads the shared helpers here (Markdown of a member, the node at an offset, the
//! callee and option interface around an argument) and never one another's.
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, DocumentSymbol, Documentation, Hover, HoverContents,
    InsertTextFormat, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel,
    SignatureHelp, SignatureInformation, SymbolKind,
};
use tree_sitter::{Node, Tree};

use super::document::range_of;
use super::scan::{open_brackets, Open};
use super::typing::{chain_start, parse_snippet, request_seed, snippet_expr, walk, FileCtx};
use grounded_docs::{Corpus, Member, MemberKind, Type};
use grounded_es::{self as es, Proto};
use grounded_js::{BindingKind, Certain, LineIndex, Seed, Whole};

mod completion;
mod hover;
mod modules;
mod signature;
mod symbols;

pub use completion::completion;
pub use hover::{foreign_declaration, hover, undeclared_name_at};
pub use signature::signature_help;
pub use symbols::{
    corpus_symbols, definition, document_symbols, find_function, occurrences, symbol_at,
    top_level_symbols, DocSymbol, Symbol, Target,
};

fn text_of<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

fn markdown(value: String) -> MarkupContent {
    MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    }
}

/// The signature lines of a member, as a fenced block.
fn signature_block(m: &Member) -> String {
    let mut s = String::from("```js\n");
    if m.overloads.is_empty() {
        s.push_str(&format!("{}.{}\n", m.interface, m.name));
    }
    for o in &m.overloads {
        match o.text.strip_prefix("readonly ") {
            Some(rest) => s.push_str(&format!("readonly {}.{}\n", m.interface, rest)),
            None => s.push_str(&format!("{}.{}\n", m.interface, o.text)),
        }
    }
    s.push_str("```");
    s
}

/// A member's Markdown: signatures, then the chunk's prose.
pub fn member_markdown(corpus: &Corpus, m: &Member) -> String {
    let mut s = signature_block(m);
    if let Some(doc) = corpus.member_doc(m) {
        s.push_str("\n\n");
        s.push_str(doc.trim());
    }
    s
}

fn interface_markdown(corpus: &Corpus, global: &str, iface: &str) -> String {
    let mut s = format!("```js\nvar {global}: {iface}\n```");
    if let Some(id) = corpus.interfaces.get(iface).and_then(|i| i.chunk) {
        s.push_str("\n\n");
        s.push_str(corpus.chunk(id).text.trim());
    }
    s
}

/// The smallest named node at `offset` (the one just before it when it sits at a name's
/// end, where the cursor usually is).
fn node_at(tree: &Tree, offset: usize) -> Option<Node<'_>> {
    let root = tree.root_node();
    let n = root.named_descendant_for_byte_range(offset, offset)?;
    if offset > 0 && (n.start_byte() == offset || n == root) {
        if let Some(prev) = root.named_descendant_for_byte_range(offset - 1, offset - 1) {
            if prev.end_byte() >= offset && prev.child_count() == 0 {
                return Some(prev);
            }
        }
    }
    Some(n)
}

/// How a name was declared, for hover and completion details.
fn binding_word(kind: BindingKind) -> &'static str {
    match kind {
        BindingKind::Var | BindingKind::Lexical => "variable",
        BindingKind::Function => "function",
        BindingKind::Class => "class",
        BindingKind::Param => "parameter",
        BindingKind::Catch => "caught exception",
        BindingKind::Implicit => "global assigned without `var`",
        BindingKind::Import => "import",
    }
}

fn proto_word(p: Proto) -> (&'static str, &'static str) {
    match p {
        Proto::Array => ("Array", "arrays"),
        Proto::String => ("String", "strings"),
        Proto::Function => ("Function", "functions"),
        Proto::Number => ("Number", "numbers"),
        Proto::Date => ("Date", "dates"),
        Proto::Object => ("Object", "objects"),
        Proto::RegExp => ("RegExp", "regular expressions"),
    }
}

/// The documented member an object literal's key names, when the literal is an
/// argument of a documented call whose parameter is an options interface.
fn option_member<'a>(ctx: &FileCtx<'a>, pair: Node<'a>) -> Option<&'a Member> {
    let key = pair.child_by_field_name("key")?;
    let object = pair.parent().filter(|o| o.kind() == "object")?;
    let iface = literal_interface(ctx, object)?;
    ctx.corpus
        .member(&iface, text_of(key, ctx.text).trim_matches(['"', '\'']))
}

/// The options interface of an object literal given as an argument (or as the value of
/// a key typed by an interface, nested).
fn literal_interface<'a>(ctx: &FileCtx<'a>, object: Node<'a>) -> Option<String> {
    let parent = object.parent()?;
    match parent.kind() {
        "arguments" => {
            let call = parent.parent().filter(|p| p.kind() == "call_expression")?;
            let mut c = parent.walk();
            let i = parent
                .named_children(&mut c)
                .position(|a| a.id() == object.id())?;
            let m = callee_member(ctx, call)?;
            Some(param_type(m, i)?.interface()?.to_string())
        }
        "pair" => {
            let outer = parent.parent().filter(|o| o.kind() == "object")?;
            let iface = literal_interface(ctx, outer)?;
            let key = parent.child_by_field_name("key")?;
            let m = ctx.corpus.member(&iface, text_of(key, ctx.text))?;
            Some(grounded_js::member_type(m)?.interface()?.to_string())
        }
        _ => None,
    }
}

/// The parameter type an argument position takes, for `callee(args)`.
fn param_type(m: &Member, index: usize) -> Option<&Type> {
    m.overloads.iter().find_map(|o| {
        let ps = o.params.as_ref()?;
        let p = ps.get(index).or_else(|| ps.last().filter(|p| p.rest))?;
        Some(&p.ty)
    })
}

/// The documented member a call expression of the file's tree calls.
fn callee_member<'a>(ctx: &FileCtx<'a>, call: Node<'a>) -> Option<&'a Member> {
    let f = call.child_by_field_name("function")?;
    match f.kind() {
        "member_expression" => ctx.node_member(f),
        "identifier" => {
            let name = text_of(f, ctx.text);
            if ctx.analysis.is_declared(name, f.start_byte()) {
                return None;
            }
            ctx.corpus.global_member(name)
        }
        _ => None,
    }
}

/// The documented member called by the unclosed call whose `(` is `paren`.
fn open_callee<'a>(ctx: &FileCtx<'a>, paren: usize) -> Option<&'a Member> {
    let text = ctx.text;
    let start = chain_start(text, paren)?;
    let callee = &text[start..paren];
    match callee.rfind('.') {
        Some(dot) => {
            let name = callee[dot + 1..].trim();
            let iface = ctx.range_interface(start, start + dot)?;
            ctx.corpus.member(&iface, name)
        }
        None => {
            let t = parse_snippet(callee);
            let e = snippet_expr(&t)?;
            if e.kind() != "identifier" || ctx.analysis.is_declared(callee, start) {
                return None;
            }
            ctx.snippet_member(e, callee)
        }
    }
}

/// The option interface of the object literal opened by `lit` directly inside the call
/// opened by `call`: the parameter at the literal's argument position.
fn open_literal_interface<'a>(ctx: &FileCtx<'a>, call: Open, lit: Open) -> Option<&'a str> {
    let between = ctx.text[call.at + 1..lit.at].trim_end();
    if !(between.is_empty() || between.ends_with(',')) {
        return None;
    }
    let m = open_callee(ctx, call.at)?;
    param_type(m, call.commas)?.interface()
}

/// The most a diagnostic's message holds: editors show it inline, where a longer one
/// is cut or wraps over the code (one ran to 284 characters).
pub const MESSAGE_MAX: usize = 160;

/// A message cut to at most about [`MESSAGE_MAX`] characters, and the rest: the list of
/// names or the advice after the first `: ` or `. ` that fits, which the server moves
/// to related information so nothing is lost.
pub fn split_message(msg: &str) -> (String, Option<String>) {
    if msg.chars().count() <= MESSAGE_MAX {
        return (msg.to_string(), None);
    }
    // Room for the " (more below)" that marks the cut.
    let limit = msg
        .char_indices()
        .nth(MESSAGE_MAX - 14)
        .map_or(msg.len(), |(i, _)| i);
    let head = &msg[..limit];
    // Prefer a sentence end, then a clause before a list.
    let at = |sep: &str| head.rfind(sep).filter(|&i| i >= 40);
    let cut = at(". ")
        .map(|i| (i + 1, i + 2))
        .or_else(|| at("; ").map(|i| (i, i + 2)))
        .or_else(|| at(": ").map(|i| (i, i + 2)))
        .or_else(|| at(", ").map(|i| (i, i + 2)));
    match cut {
        Some((a, b)) => {
            let mut first = msg[..a].to_string();
            if !first.ends_with('.') {
                first.push_str(" (more below)");
            }
            (first, Some(msg[b..].trim().to_string()))
        }
        None => {
            let sp = head.rfind(' ').unwrap_or(limit);
            (
                format!("{}…", &msg[..sp]),
                Some(msg[sp..].trim().to_string()),
            )
        }
    }
}

/// What a value of a union the docs give may hold (`FrameNode | TextNode`): the members
/// every interface of it has, and those only some have, each with the interfaces that
/// have it (inherited members included), in name order.
pub(crate) fn union_members<'c>(
    corpus: &'c Corpus,
    ifaces: &[&str],
) -> (Vec<&'c Member>, Vec<(&'c Member, Vec<String>)>) {
    let mut all: std::collections::BTreeMap<&'c str, (&'c Member, Vec<String>)> =
        std::collections::BTreeMap::new();
    for &i in ifaces {
        for m in corpus.members_of(i) {
            let e = all.entry(m.name.as_str()).or_insert((m, Vec::new()));
            if !e.1.iter().any(|x| x == i) {
                e.1.push(i.to_string());
            }
        }
    }
    let mut shared = Vec::new();
    let mut some = Vec::new();
    for (_, (m, has)) in all {
        if has.len() == ifaces.len() {
            shared.push(m);
        } else {
            some.push((m, has));
        }
    }
    (shared, some)
}

/// A hover's account of a union: one of which interfaces, what all share and what some
/// have (a member that any of them has is taken by the checker).
pub(crate) fn union_markdown(corpus: &Corpus, ifaces: &[&str]) -> String {
    let names: Vec<String> = ifaces.iter().map(|i| format!("`{i}`")).collect();
    let (shared, some) = union_members(corpus, ifaces);
    let list = |v: Vec<String>| {
        let n = v.len();
        let mut s = v.into_iter().take(24).collect::<Vec<_>>().join(", ");
        if n > 24 {
            s.push_str(&format!(", ... ({n} in all)"));
        }
        s
    };
    let mut md = format!("Type: one of {} (a union the docs give)", names.join(" | "));
    if !shared.is_empty() {
        md.push_str(&format!(
            "\n\nAll have: {}",
            list(shared.iter().map(|m| format!("`{}`", m.name)).collect())
        ));
    }
    if !some.is_empty() {
        md.push_str(&format!(
            "\n\nSome have: {}",
            list(
                some.iter()
                    .map(|(m, has)| format!("`{}` ({})", m.name, has.join(", ")))
                    .collect()
            )
        ));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_where_a_list_starts_and_lose_nothing() {
        let short = "`Layout` has no member `x`.";
        assert_eq!(split_message(short), (short.to_string(), None));
        let names: Vec<String> = (0..30).map(|i| format!("`member{i}`")).collect();
        let long = format!(
            "`Layout` has no member `tableCellEnd`: its members are {}.",
            names.join(", ")
        );
        let (head, rest) = split_message(&long);
        assert!(head.chars().count() <= MESSAGE_MAX, "{head}");
        let rest = rest.expect("the rest is kept");
        assert!(rest.contains("member29"), "{rest}");
        for n in &names {
            assert!(
                head.contains(n.as_str()) || rest.contains(n.as_str()),
                "{n} lost"
            );
        }
    }
}
