//! Hover, completion, signature help, document symbols and go to definition.
//!
//! Each works on byte offsets of one buffer and converts to the protocol's UTF-16
//! positions at the end.

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, DocumentSymbol, Documentation, Hover, HoverContents,
    MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, SignatureHelp,
    SignatureInformation, SymbolKind,
};
use tree_sitter::{Node, Tree};

use super::document::range_of;
use super::typing::{chain_start, parse_snippet, snippet_expr, walk, FileCtx};
use crate::docs::{Corpus, Member, MemberKind, Type};
use crate::js::LineIndex;

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

/// Hover on a member name or a global.
pub fn hover(corpus: &Corpus, text: &str, tree: &Tree, offset: usize) -> Option<Hover> {
    let ctx = FileCtx::new(corpus, text, tree);
    let node = node_at(tree, offset)?;
    let idx = LineIndex::new(text);
    let parent = node.parent();
    let md = match node.kind() {
        "property_identifier" => {
            let p = parent.filter(|p| p.kind() == "member_expression")?;
            let m = ctx.node_member(p)?;
            member_markdown(corpus, m)
        }
        "identifier" => {
            let name = text_of(node, text);
            if let Some(iface) = corpus.global_interface(name) {
                if ctx.node_interface(node).as_deref() != Some(iface) {
                    return None;
                }
                interface_markdown(corpus, name, iface)
            } else if let Some(m) = corpus.global_member(name) {
                member_markdown(corpus, m)
            } else if let Some(c) = corpus.constructors.get(name) {
                let mut s = format!("```js\n{}\n```", c.text.trim());
                if let Some(id) = corpus.interfaces.get(&c.interface).and_then(|i| i.chunk) {
                    s.push_str("\n\n");
                    s.push_str(corpus.chunk(id).text.trim());
                }
                s
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(markdown(md)),
        range: Some(range_of(&idx, node.start_byte(), node.end_byte())),
    })
}

/// Whether the cursor is inside a comment or a string, where nothing is completed.
fn in_comment_or_string(tree: &Tree, offset: usize) -> bool {
    let at = offset.saturating_sub(1);
    let Some(mut n) = tree.root_node().descendant_for_byte_range(at, at) else {
        return false;
    };
    loop {
        match n.kind() {
            "comment" | "string" | "template_string" | "regex" => {
                return n.start_byte() < offset
                    && offset < n.end_byte() + usize::from(n.kind() == "comment");
            }
            _ => {}
        }
        match n.parent() {
            Some(p) => n = p,
            None => return false,
        }
    }
}

fn member_item(corpus: &Corpus, m: &Member) -> CompletionItem {
    CompletionItem {
        label: m.name.clone(),
        kind: Some(match m.kind {
            MemberKind::Method => CompletionItemKind::METHOD,
            _ => CompletionItemKind::PROPERTY,
        }),
        detail: m.signature().map(|s| s.text.clone()),
        documentation: Some(Documentation::MarkupContent(markdown(member_markdown(
            corpus, m,
        )))),
        ..Default::default()
    }
}

fn ident_start(text: &str, offset: usize) -> usize {
    let b = text.as_bytes();
    let mut i = offset;
    while i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'$') {
        i -= 1;
    }
    i
}

/// Completion at `offset`: members after `receiver.`, option keys inside an options
/// literal, globals at a statement's start.
pub fn completion(corpus: &Corpus, text: &str, tree: &Tree, offset: usize) -> Vec<CompletionItem> {
    let offset = offset.min(text.len());
    if in_comment_or_string(tree, offset) {
        return Vec::new();
    }
    let ctx = FileCtx::new(corpus, text, tree);
    let word = ident_start(text, offset);
    // After `receiver.`
    if word > 0 && text.as_bytes()[word - 1] == b'.' {
        let dot = word - 1;
        let Some(start) = chain_start(text, dot) else {
            return Vec::new();
        };
        let Some(iface) = ctx.range_interface(start, dot) else {
            return Vec::new();
        };
        return corpus
            .members_of(&iface)
            .into_iter()
            .filter(|m| corpus.absent_reason(&iface, &m.name).is_none())
            .map(|m| member_item(corpus, m))
            .collect();
    }
    // Inside an object literal passed to an options parameter.
    if let Some(items) = option_keys(&ctx, offset) {
        return items;
    }
    // At a statement's start.
    let line_start = text[..word].rfind('\n').map_or(0, |i| i + 1);
    let before = text[line_start..word].trim();
    if before.is_empty() || before.ends_with(';') || before.ends_with('{') || before.ends_with('}')
    {
        let mut out = Vec::new();
        for (g, iface) in &corpus.globals {
            out.push(CompletionItem {
                label: g.clone(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: Some(iface.clone()),
                documentation: Some(Documentation::MarkupContent(markdown(interface_markdown(
                    corpus, g, iface,
                )))),
                ..Default::default()
            });
        }
        if let Some(global) = corpus.interfaces.get(crate::docs::model::GLOBAL_INTERFACE) {
            for m in global.members.values() {
                let mut item = member_item(corpus, m);
                if m.kind == MemberKind::Method {
                    item.kind = Some(CompletionItemKind::FUNCTION);
                }
                out.push(item);
            }
        }
        return out;
    }
    Vec::new()
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

fn option_keys(ctx: &FileCtx, offset: usize) -> Option<Vec<CompletionItem>> {
    let root = ctx.tree.root_node();
    let mut n = root.descendant_for_byte_range(offset, offset)?;
    // Climb to the object literal the cursor sits in.
    while n.kind() != "object" {
        n = n.parent()?;
    }
    let args = n.parent().filter(|p| p.kind() == "arguments")?;
    let call = args.parent().filter(|p| p.kind() == "call_expression")?;
    let index = {
        let mut c = args.walk();
        let i = args.named_children(&mut c).position(|a| a.id() == n.id());
        i?
    };
    let m = callee_member(ctx, call)?;
    let iface = param_type(m, index)?.interface()?;
    Some(
        ctx.corpus
            .members_of(iface)
            .into_iter()
            .filter(|m| m.kind != MemberKind::Method)
            .map(|m| {
                let mut item = member_item(ctx.corpus, m);
                item.kind = Some(CompletionItemKind::FIELD);
                item
            })
            .collect(),
    )
}

/// The innermost unclosed `(` before `offset` and the number of top-level commas after
/// it: works on text the parser cannot read yet (`layout.tableStart(t, `).
fn open_call(text: &str, offset: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut commas = 0usize;
    let mut i = offset.min(b.len());
    let floor = offset.saturating_sub(4000);
    while i > floor {
        i -= 1;
        match b[i] {
            b')' | b']' | b'}' => depth += 1,
            b'[' | b'{' => {
                if depth == 0 {
                    return None;
                }
                depth -= 1
            }
            b'(' => {
                if depth == 0 {
                    return Some((i, commas));
                }
                depth -= 1;
            }
            b',' if depth == 0 => commas += 1,
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// Signature help inside the parentheses of a documented method's or function's call.
pub fn signature_help(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
) -> Option<SignatureHelp> {
    let ctx = FileCtx::new(corpus, text, tree);
    let (paren, active) = open_call(text, offset)?;
    let start = chain_start(text, paren)?;
    let callee = &text[start..paren];
    let m = match callee.rfind('.') {
        Some(dot) => {
            let name = callee[dot + 1..].trim();
            let iface = ctx.range_interface(start, start + dot)?;
            corpus.member(&iface, name)?
        }
        None => {
            let t = parse_snippet(callee);
            let e = snippet_expr(&t)?;
            if e.kind() != "identifier" || ctx.analysis.is_declared(callee, start) {
                return None;
            }
            ctx.snippet_member(e, callee)?
        }
    };
    let doc = corpus
        .member_doc(m)
        .map(|d| Documentation::MarkupContent(markdown(d.trim().to_string())));
    let signatures: Vec<SignatureInformation> = m
        .overloads
        .iter()
        .filter(|o| o.is_method())
        .map(|o| SignatureInformation {
            label: o.text.clone(),
            documentation: doc.clone(),
            parameters: o.params.as_ref().map(|ps| {
                ps.iter()
                    .map(|p| ParameterInformation {
                        label: ParameterLabel::Simple(p.name.clone()),
                        documentation: Some(Documentation::String(format!("{}: {}", p.name, p.ty))),
                    })
                    .collect()
            }),
            active_parameter: None,
        })
        .collect();
    if signatures.is_empty() {
        return None;
    }
    let active_signature = m
        .overloads
        .iter()
        .filter(|o| o.is_method())
        .position(|o| {
            o.params
                .as_ref()
                .is_some_and(|p| p.len() > active || p.last().is_some_and(|l| l.rest))
        })
        .unwrap_or(0);
    Some(SignatureHelp {
        signatures,
        active_signature: Some(active_signature as u32),
        active_parameter: Some(active as u32),
    })
}

/// The outline: construct instances and functions.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written; `tags` replaces it.
pub fn document_symbols(corpus: &Corpus, text: &str, tree: &Tree) -> Vec<DocumentSymbol> {
    let idx = LineIndex::new(text);
    let mut out = Vec::new();
    for inst in crate::footprint::instances(corpus, text, tree) {
        let start = idx.line_start(inst.start_line.saturating_sub(1));
        let end_line0 = inst.end_line.saturating_sub(1);
        let end = idx
            .line_start(end_line0 + 1)
            .saturating_sub(1)
            .max(idx.line_start(end_line0));
        let end = end.max(start).min(text.len());
        let range = range_of(&idx, start, end);
        out.push(DocumentSymbol {
            name: match &inst.object {
                Some(o) => format!("{} {}", inst.construct, o),
                None => inst.construct.clone(),
            },
            detail: Some(format!("lines {}–{}", inst.start_line, inst.end_line)),
            kind: SymbolKind::STRUCT,
            tags: None,
            deprecated: None,
            range,
            selection_range: range,
            children: None,
        });
    }
    walk(tree, |n| {
        let (name, whole) = match n.kind() {
            "function_declaration" => (n.child_by_field_name("name"), n),
            "variable_declarator" => match n.child_by_field_name("value") {
                Some(v) if v.kind() == "function_expression" || v.kind() == "function" => {
                    (n.child_by_field_name("name"), n)
                }
                _ => return,
            },
            _ => return,
        };
        let Some(name) = name else { return };
        let sel = range_of(&idx, name.start_byte(), name.end_byte());
        out.push(DocumentSymbol {
            name: text_of(name, text).to_string(),
            detail: None,
            kind: SymbolKind::FUNCTION,
            tags: None,
            deprecated: None,
            range: range_of(&idx, whole.start_byte(), whole.end_byte()),
            selection_range: sel,
            children: None,
        });
    });
    out.sort_by_key(|s| (s.range.start.line, s.range.start.character));
    out
}

/// What go to definition found.
pub enum Target {
    /// A file named by a `path` literal.
    File(PathBuf),
    /// A function declared in this buffer, at a byte range.
    Here(usize, usize),
    /// A function to find among the project's files, by name.
    Function(String),
}

/// Go to definition at `offset`: a string literal given to a `path` parameter (or naming
/// an existing file) opens it; a bare call's name goes to its declaration.
pub fn definition(
    corpus: &Corpus,
    root: &Path,
    text: &str,
    tree: &Tree,
    offset: usize,
) -> Option<Target> {
    let ctx = FileCtx::new(corpus, text, tree);
    let node = node_at(tree, offset)?;
    let string = if node.kind() == "string" {
        Some(node)
    } else if node.kind() == "string_fragment" {
        node.parent()
    } else {
        None
    };
    if let Some(s) = string {
        let lit = text_of(s, text);
        let inner = lit.get(1..lit.len().saturating_sub(1)).unwrap_or("");
        let is_path_arg = s
            .parent()
            .filter(|a| a.kind() == "arguments")
            .and_then(|args| {
                let call = args.parent()?;
                let mut c = args.walk();
                let i = args.named_children(&mut c).position(|a| a.id() == s.id())?;
                let m = callee_member(&ctx, call)?;
                Some(param_type(m, i)?.is_path())
            })
            .unwrap_or(false);
        let p = root.join(inner);
        if !inner.is_empty() && (is_path_arg || p.is_file()) && crate::project::is_inside(root, &p)
        {
            return Some(Target::File(p));
        }
        return None;
    }
    if node.kind() != "identifier" {
        return None;
    }
    let name = text_of(node, text).to_string();
    let mut here = None;
    walk(tree, |n| {
        if here.is_none() && n.kind() == "function_declaration" {
            if let Some(nm) = n.child_by_field_name("name") {
                if text_of(nm, text) == name {
                    here = Some((nm.start_byte(), nm.end_byte()));
                }
            }
        }
    });
    match here {
        Some((s, e)) => Some(Target::Here(s, e)),
        None => Some(Target::Function(name)),
    }
}

/// The byte range of `function NAME` declared at the top of `text`, if any.
pub fn find_function(text: &str, name: &str) -> Option<(usize, usize)> {
    let tree = crate::js::parse(text);
    let mut found = None;
    walk(&tree, |n| {
        if found.is_none() && n.kind() == "function_declaration" {
            if let Some(nm) = n.child_by_field_name("name") {
                if text_of(nm, text) == name {
                    found = Some((nm.start_byte(), nm.end_byte()));
                }
            }
        }
    });
    found
}
