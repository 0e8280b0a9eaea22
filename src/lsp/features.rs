//! Hover, completion, signature help, document symbols and go to definition.
//!
//! Each works on byte offsets of one buffer and converts to the protocol's UTF-16
//! positions at the end.

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
use crate::docs::{Corpus, Member, MemberKind, Type};
use crate::es::{self, Proto};
use crate::js::{BindingKind, Certain, LineIndex, Seed};

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

/// Hover on a member name, a global, the project's own names, the language's built-ins
/// and option keys.
///
/// `seed` is the checker's last seed of the file: with it, a large file analyses only
/// the statement under the cursor ([`FileCtx::at`]).
pub fn hover(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    seed: Option<&Seed>,
) -> Option<Hover> {
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    let node = node_at(tree, offset)?;
    let parent = node.parent();
    let md = match node.kind() {
        "property_identifier" => {
            let p = parent?;
            match p.kind() {
                "member_expression" => match ctx.node_member(p) {
                    Some(m) => member_markdown(corpus, m),
                    None => builtin_member_markdown(&ctx, p, text_of(node, text))?,
                },
                "pair" => {
                    let m = option_member(&ctx, p)?;
                    member_markdown(corpus, m)
                }
                _ => return None,
            }
        }
        "identifier" | "shorthand_property_identifier" => {
            let name = text_of(node, text);
            if let Some(b) = ctx.analysis.binding_at(name, node.start_byte()) {
                // A statement analysed alone knows the file's other top-level names
                // from the seed, without where they are declared.
                let at = match (ctx.local, b.scope) {
                    (true, 0) => top_level_declaration(tree, text, name)
                        .or_else(|| declaration_in_text(text, name))
                        .unwrap_or(b.start),
                    _ => b.start,
                };
                declaration_markdown(text, b.kind, at)
            } else if let Some(iface) = corpus.global_interface(name) {
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
            } else if let Some(g) = es::global(name) {
                builtin_global_markdown(corpus, g)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(markdown(md)),
        range: Some(super::document::range_in(
            text,
            node.start_byte(),
            node.end_byte(),
        )),
    })
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
    }
}

/// The line declaring a project name and the comment right above it: what the
/// script's author wrote about it is the only documentation a project name has.
fn declaration_markdown(text: &str, kind: BindingKind, at: usize) -> String {
    // The line around a byte, found from it: no index of the whole text (8 ms on a
    // 7.8 MB buffer, for one hover).
    let line_at = |at: usize| -> (usize, &str) {
        let at = at.min(text.len());
        let s = text
            .get(..at)
            .and_then(|h| h.rfind('\n'))
            .map_or(0, |i| i + 1);
        let e = text
            .get(at..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |i| at + i);
        (s, text.get(s..e).unwrap_or_default().trim_end())
    };
    let (mut start, line) = line_at(at);
    let decl: String = line.trim().chars().take(200).collect();
    let mut comment: Vec<&str> = Vec::new();
    while start > 0 {
        let (s, t) = line_at(start - 1);
        start = s;
        let t = t.trim();
        match t.strip_prefix("//") {
            Some(c) => comment.push(c.trim()),
            None if t.starts_with('*') || t.starts_with("/*") || t.ends_with("*/") => {
                let c = t
                    .trim_start_matches("/**")
                    .trim_start_matches("/*")
                    .trim_end_matches("*/")
                    .trim_start_matches('*')
                    .trim();
                if !c.is_empty() {
                    comment.push(c);
                }
            }
            None => break,
        }
    }
    comment.reverse();
    let mut s = format!("```js\n{decl}\n```\n\n*{}*", binding_word(kind));
    if !comment.is_empty() {
        s.push_str("\n\n");
        s.push_str(&comment.join("\n"));
    }
    s
}

/// Hover for a top-level name declared in another project file: its declaration line
/// and comment there (`at` is the byte offset of the declared name in `text`).
pub fn foreign_declaration(text: &str, at: usize, file: &str) -> Option<Hover> {
    let before = text.get(..at)?.trim_end();
    let kind = if before.ends_with("function") {
        BindingKind::Function
    } else {
        BindingKind::Var
    };
    let md = format!(
        "{}\n\ndeclared in `{file}`",
        declaration_markdown(text, kind, at)
    );
    Some(Hover {
        contents: HoverContents::Markup(markdown(md)),
        range: None,
    })
}

/// The identifier at `offset` when it is not declared in the file itself (the name a
/// project lookup needs).
pub fn undeclared_name_at(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    seed: Option<&Seed>,
) -> Option<String> {
    let node = node_at(tree, offset)?;
    if node.kind() != "identifier" {
        return None;
    }
    let name = text_of(node, text);
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    (!ctx.analysis.is_declared(name, node.start_byte())).then(|| name.to_string())
}

/// Where `function name` or `var name` first appears in `text`: the declaration of a
/// top-level name outside the statements a large file's request parsed.
fn declaration_in_text(text: &str, name: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = text[..i].trim_end_matches([' ', '\t']);
        let keyword = before.ends_with("function") || before.ends_with("var");
        let spaced = before.len() < i;
        let after_ok = !text[i + name.len()..].starts_with(ident);
        let word_before = before
            .strip_suffix("function")
            .or_else(|| before.strip_suffix("var"))
            .is_some_and(|b| !b.ends_with(ident));
        keyword && spaced && after_ok && word_before
    })
}

/// Where the file's top level declares `name` (a function or a `var`): the position a
/// statement analysed alone does not know.
fn top_level_declaration(tree: &Tree, text: &str, name: &str) -> Option<usize> {
    let root = tree.root_node();
    let mut c = root.walk();
    for n in root.named_children(&mut c) {
        match n.kind() {
            "function_declaration" | "generator_function_declaration" => {
                if let Some(id) = n.child_by_field_name("name") {
                    if text_of(id, text) == name {
                        return Some(id.start_byte());
                    }
                }
            }
            "variable_declaration" | "lexical_declaration" => {
                let mut d = n.walk();
                for v in n.named_children(&mut d) {
                    if let Some(id) = v.child_by_field_name("name") {
                        if text_of(id, text) == name {
                            return Some(id.start_byte());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// What a built-in global of the language is, its edition, and whether the engine's
/// level has it (the level is the corpus's Engine chunk).
fn builtin_global_markdown(corpus: &Corpus, g: &es::Global) -> String {
    let what = if g.constructor {
        "a constructor"
    } else if g.callable {
        "a function"
    } else if g.name == "Math" || g.name == "JSON" {
        "an object"
    } else {
        "a value"
    };
    format!(
        "```js\n{}\n```\n\n{what} of the language, {}{}",
        g.name,
        es::edition_name(g.since),
        level_note(corpus, g.since)
    )
}

fn level_note(corpus: &Corpus, since: u16) -> String {
    let level = corpus.engine.es_year;
    if since > level {
        format!(
            "; this engine runs {}, which does not have it",
            es::edition_name(level)
        )
    } else {
        String::new()
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

/// Hover on `Math.max` or `s.toUpperCase` where the receiver is a built-in of the
/// language: the `es` table's edition, never a guess about an undocumented object.
fn builtin_member_markdown<'a>(ctx: &FileCtx<'a>, member: Node<'a>, name: &str) -> Option<String> {
    let obj = member.child_by_field_name("object")?;
    let recv = text_of(obj, ctx.text);
    if obj.kind() == "identifier"
        && !ctx.analysis.is_declared(recv, obj.start_byte())
        && !ctx.corpus.is_engine_global(recv)
        && es::global(recv).is_some()
    {
        let since = es::static_since(recv, name)?;
        return Some(format!(
            "```js\n{recv}.{name}\n```\n\na static member of the language's `{recv}`, {}{}",
            es::edition_name(since),
            level_note(ctx.corpus, since)
        ));
    }
    let Some(Certain::Builtin(p)) = ctx.analysis.certain(obj) else {
        return None;
    };
    let since = es::proto_since(p, name)?;
    let (owner, plural) = proto_word(p);
    Some(format!(
        "```js\n{owner}.prototype.{name}\n```\n\na member of the language's {plural}, {}{}",
        es::edition_name(since),
        level_note(ctx.corpus, since)
    ))
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
            Some(crate::js::member_type(m)?.interface()?.to_string())
        }
        _ => None,
    }
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

/// Completion at `offset`: members after `receiver.` (documented interfaces, and the
/// language's built-ins of the engine's level), option keys inside an options literal
/// (closed or still being typed), and elsewhere the names in scope: locals,
/// parameters, the file's and the project's top-level names, the engine's globals and
/// the language's globals of the engine's level. `project` is the project's top-level
/// names with the file declaring each.
pub fn completion(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    project: &[(String, String)],
    seed: Option<&Seed>,
) -> Vec<CompletionItem> {
    let offset = offset.min(text.len());
    if in_comment_or_string(tree, offset) {
        return Vec::new();
    }
    let (open, inside) = open_brackets(text, Some(tree), offset);
    if inside {
        return Vec::new();
    }
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    let word = ident_start(text, offset);
    let level = corpus.engine.es_year;
    // After `receiver.`
    let before_word = text[..word].trim_end();
    if before_word.ends_with('.') && !before_word.ends_with("..") {
        let dot = before_word.len() - 1;
        let Some(start) = chain_start(text, dot) else {
            return Vec::new();
        };
        if let Some(iface) = ctx.range_interface(start, dot) {
            let recv = &text[start..dot];
            let mut out: Vec<CompletionItem> = corpus
                .members_of(&iface)
                .into_iter()
                .filter(|m| corpus.absent_reason(&iface, &m.name).is_none())
                .map(|m| member_item(corpus, m))
                .collect();
            out.extend(construct_snippets(corpus, text, &iface, recv, word));
            return out;
        }
        return builtin_members(&ctx, start, dot, level);
    }
    // Inside an object literal passed to an options parameter, where a key goes.
    let key_place = before_word.ends_with('{') || before_word.ends_with(',');
    if let [.., call, lit] = open.as_slice() {
        if call.bracket == b'(' && lit.bracket == b'{' && key_place {
            if let Some(items) = option_keys(&ctx, *call, *lit, word) {
                return items;
            }
        }
    }
    // Declaring a new name: nothing to complete.
    let prev_word = before_word
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .next()
        .unwrap_or("");
    if matches!(prev_word, "var" | "let" | "const" | "function" | "catch") {
        return Vec::new();
    }
    let rest = seed.filter(|_| ctx.local);
    names_in_scope(&ctx, word, level, project, rest, &text[word..offset])
}

/// Every name usable at `at`: the file's scopes innermost first, then the project's,
/// the engine's and the language's.
///
/// `rest` is the whole seed of a large file whose statement was analysed with only the
/// names it spells: its other top-level names are offered from it (those starting with
/// `typed`, when there are thousands).
fn names_in_scope(
    ctx: &FileCtx,
    at: usize,
    level: u16,
    project: &[(String, String)],
    rest: Option<&Seed>,
    typed: &str,
) -> Vec<CompletionItem> {
    let corpus = ctx.corpus;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let binding_item = |name: &str, kind: BindingKind| CompletionItem {
        label: name.to_string(),
        kind: Some(match kind {
            BindingKind::Function => CompletionItemKind::FUNCTION,
            _ => CompletionItemKind::VARIABLE,
        }),
        detail: Some(binding_word(kind).to_string()),
        ..Default::default()
    };
    for b in ctx.analysis.visible_bindings(at) {
        if seen.insert(b.name.to_string()) {
            out.push(binding_item(b.name, b.kind));
        }
    }
    if let Some(seed) = rest {
        let typed = typed.to_lowercase();
        let many = seed.globals.len() > 1000;
        for (name, kind, _) in &seed.globals {
            if many && !name.to_lowercase().starts_with(&typed) {
                continue;
            }
            if seen.insert(name.clone()) {
                out.push(binding_item(name, *kind));
            }
        }
    }
    for (name, file) in project {
        if seen.insert(name.clone()) {
            out.push(CompletionItem {
                label: name.clone(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: Some(format!("declared in {file}")),
                ..Default::default()
            });
        }
    }
    for (g, iface) in &corpus.globals {
        if !seen.insert(g.clone()) {
            continue;
        }
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
    // `Global`'s members and those of `Global members: yes` interfaces.
    for m in corpus.global_members() {
        if !seen.insert(m.name.clone()) {
            continue;
        }
        let mut item = member_item(corpus, m);
        if m.kind == MemberKind::Method {
            item.kind = Some(CompletionItemKind::FUNCTION);
        }
        out.push(item);
    }
    for c in corpus.constructors.keys() {
        if seen.insert(c.clone()) {
            out.push(CompletionItem {
                label: c.clone(),
                kind: Some(CompletionItemKind::CLASS),
                detail: Some("constructor".into()),
                ..Default::default()
            });
        }
    }
    // The language's own globals, of the engine's level only: offering `JSON` to an
    // ES3 engine would write the very finding the checker then reports.
    for g in es::GLOBALS.iter().filter(|g| g.since <= level) {
        if seen.insert(g.name.to_string()) {
            out.push(CompletionItem {
                label: g.name.to_string(),
                kind: Some(if g.constructor {
                    CompletionItemKind::CLASS
                } else if g.callable {
                    CompletionItemKind::FUNCTION
                } else {
                    CompletionItemKind::CONSTANT
                }),
                detail: Some(format!("language built-in, {}", es::edition_name(g.since))),
                ..Default::default()
            });
        }
    }
    out
}

/// Members of a built-in receiver: `Math.` (a global of the language the file does not
/// declare and the docs do not document) or a certain string, array, number... The
/// engine's level only.
fn builtin_members(ctx: &FileCtx, start: usize, dot: usize, level: u16) -> Vec<CompletionItem> {
    let recv = &ctx.text[start..dot];
    let item = |name: &str, since: u16, detail: String| CompletionItem {
        label: name.to_string(),
        kind: Some(CompletionItemKind::METHOD),
        detail: Some(format!("{detail}, {}", es::edition_name(since))),
        ..Default::default()
    };
    let is_name = !recv.is_empty()
        && recv
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$');
    if is_name
        && es::global(recv).is_some()
        && !ctx.analysis.is_declared(recv, start)
        && !ctx.corpus.is_engine_global(recv)
    {
        return es::STATICS
            .iter()
            .filter(|(o, _, y)| *o == recv && *y <= level)
            .map(|(_, n, y)| item(n, *y, format!("{recv}.{n}")))
            .collect();
    }
    let root = ctx.tree.root_node();
    let mut n = root.named_descendant_for_byte_range(start, dot);
    let mut proto = None;
    while let Some(x) = n {
        if x.start_byte() != start || x.end_byte() != dot {
            break;
        }
        if let Some(Certain::Builtin(p)) = ctx.analysis.certain(x) {
            proto = Some(p);
            break;
        }
        n = x.parent();
    }
    if proto.is_none() {
        // A literal the tree cannot hold as a node yet (`"abc".` at the end).
        proto = match recv.as_bytes().first() {
            Some(b'"' | b'\'') => Some(Proto::String),
            Some(b'[') => Some(Proto::Array),
            _ => None,
        };
    }
    let Some(p) = proto else {
        return Vec::new();
    };
    es::PROTO
        .iter()
        .filter(|(q, _, y)| (*q == p || *q == Proto::Object) && *y <= level)
        .map(|(q, n, y)| item(n, *y, format!("{}.prototype.{n}", proto_word(*q).0)))
        .collect()
}

/// Snippets for the constructs whose Start the receiver's interface has:
/// `tableStart` completes to the Start, a placeholder line and the End.
fn construct_snippets(
    corpus: &Corpus,
    text: &str,
    iface: &str,
    recv: &str,
    word: usize,
) -> Vec<CompletionItem> {
    let line_start = text[..word].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    corpus
        .constructs
        .values()
        .filter(|c| {
            corpus.member(iface, &c.start).is_some() && corpus.member(iface, &c.end).is_some()
        })
        .map(|c| CompletionItem {
            label: format!("{} … {}", c.start, c.end),
            kind: Some(CompletionItemKind::SNIPPET),
            detail: Some(format!("the {} construct: Start and End", c.id)),
            filter_text: Some(c.start.clone()),
            insert_text: Some(format!(
                "{}(${{1:{}}});\n{indent}$0\n{indent}{recv}.{}();",
                c.start,
                c.object.to_lowercase(),
                c.end
            )),
            insert_text_format: Some(InsertTextFormat::SNIPPET),
            ..Default::default()
        })
        .collect()
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

/// The option interface's keys not yet written in the literal (but the one under the
/// cursor at `word`).
fn option_keys(ctx: &FileCtx, call: Open, lit: Open, word: usize) -> Option<Vec<CompletionItem>> {
    let iface = open_literal_interface(ctx, call, lit)?;
    let written = super::scan::literal_keys(ctx.text, lit.at, word);
    Some(
        ctx.corpus
            .members_of(iface)
            .into_iter()
            .filter(|m| m.kind != MemberKind::Method && !written.contains(&m.name))
            .map(|m| {
                let mut item = member_item(ctx.corpus, m);
                item.kind = Some(CompletionItemKind::FIELD);
                item
            })
            .collect(),
    )
}

/// Signature help inside the parentheses of a documented method's or function's call;
/// inside an object literal argument, the active parameter's documentation lists the
/// option interface's keys.
pub fn signature_help(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    seed: Option<&Seed>,
) -> Option<SignatureHelp> {
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    let (open, inside) = open_brackets(text, Some(tree), offset);
    if inside {
        return None;
    }
    let k = open.iter().rposition(|o| o.bracket == b'(')?;
    let call = open[k];
    let active = call.commas;
    let m = open_callee(&ctx, call.at)?;
    let keys = match open.get(k + 1) {
        Some(lit) if lit.bracket == b'{' => open_literal_interface(&ctx, call, *lit).map(|i| {
            let names: Vec<String> = corpus
                .members_of(i)
                .into_iter()
                .filter(|m| m.kind != MemberKind::Method)
                .map(|m| match m.signature() {
                    Some(s) => format!("- `{}`", s.text),
                    None => format!("- `{}`", m.name),
                })
                .collect();
            format!("`{i}` keys:\n{}", names.join("\n"))
        }),
        _ => None,
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
                    .enumerate()
                    .map(|(i, p)| ParameterInformation {
                        label: ParameterLabel::Simple(p.name.clone()),
                        documentation: Some(match (&keys, i == active) {
                            (Some(k), true) => Documentation::MarkupContent(markdown(format!(
                                "{}: {}\n\n{k}",
                                p.name, p.ty
                            ))),
                            _ => Documentation::String(format!("{}: {}", p.name, p.ty)),
                        }),
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
        let (name, whole, kind) = match n.kind() {
            "function_declaration" => (n.child_by_field_name("name"), n, SymbolKind::FUNCTION),
            "variable_declarator" => match n.child_by_field_name("value") {
                Some(v) if v.kind() == "function_expression" || v.kind() == "function" => {
                    (n.child_by_field_name("name"), n, SymbolKind::FUNCTION)
                }
                // Top-level variables are what other files of the project read.
                _ if n
                    .parent()
                    .and_then(|d| d.parent())
                    .is_some_and(|p| p.kind() == "program") =>
                {
                    (n.child_by_field_name("name"), n, SymbolKind::VARIABLE)
                }
                _ => return,
            },
            _ => return,
        };
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            return;
        };
        let sel = range_of(&idx, name.start_byte(), name.end_byte());
        out.push(DocumentSymbol {
            name: text_of(name, text).to_string(),
            detail: None,
            kind,
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
    /// A name declared in this buffer, at a byte range.
    Here(usize, usize),
    /// A top-level name to find among the project's files.
    Function(String),
    /// A documented API: its chunk's corpus file and 1-based line.
    Docs(String, usize),
}

/// The corpus chunk documenting what `node` names: a member of a certain receiver, a
/// `Global` function, a global object's interface, a constructor's interface.
fn docs_target<'a>(ctx: &FileCtx<'a>, node: Node<'a>) -> Option<Target> {
    let corpus = ctx.corpus;
    let name = text_of(node, ctx.text);
    let chunk = match node.kind() {
        "property_identifier" => {
            let p = node.parent()?;
            match p.kind() {
                "member_expression" => ctx.node_member(p)?.chunk?,
                "pair" => option_member(ctx, p)?.chunk?,
                _ => return None,
            }
        }
        "identifier" => {
            if ctx.analysis.is_declared(name, node.start_byte()) {
                return None;
            }
            if let Some(m) = corpus.global_member(name) {
                m.chunk?
            } else if let Some(iface) = corpus.global_interface(name) {
                corpus.interfaces.get(iface)?.chunk?
            } else if let Some(c) = corpus.constructors.get(name) {
                corpus.interfaces.get(&c.interface)?.chunk?
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let c = corpus.chunk(chunk);
    Some(Target::Docs(c.file.clone(), c.line))
}

/// Go to definition at `offset`: a string literal given to a `path` parameter (or naming
/// an existing file) opens it; a name declared in the file goes to its declaration, a
/// documented API to its chunk in the corpus, any other bare name to the project's
/// top-level declaration of it.
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
    if let Some(t) = docs_target(&ctx, node) {
        return Some(t);
    }
    if node.kind() != "identifier" {
        return None;
    }
    let name = text_of(node, text).to_string();
    if let Some(b) = ctx.analysis.binding_at(&name, node.start_byte()) {
        if b.kind != BindingKind::Implicit {
            return Some(Target::Here(b.start, b.end));
        }
    }
    Some(Target::Function(name))
}

/// The byte range of the top-level declaration of `name` in `text` (a function, or a
/// variable's first declaration), if any.
pub fn find_function(text: &str, name: &str) -> Option<(usize, usize)> {
    let tree = crate::js::parse(text);
    let mut found = None;
    walk(&tree, |n| {
        if found.is_some() {
            return;
        }
        let top = match n.kind() {
            "function_declaration" => n.parent().is_some_and(|p| p.kind() == "program"),
            "variable_declarator" => n
                .parent()
                .and_then(|d| d.parent())
                .is_some_and(|p| p.kind() == "program"),
            _ => false,
        };
        if let Some(nm) = n.child_by_field_name("name").filter(|_| top) {
            if text_of(nm, text) == name {
                found = Some((nm.start_byte(), nm.end_byte()));
            }
        }
    });
    found
}

/// What references and rename work on: a name the project declares, and whether it is
/// a top-level one (shared by every file the engine loads into the same global scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name.
    pub name: String,
    /// Whether it is a program-level (or undeclared, project-wide) name.
    pub global: bool,
    /// Start of the declaring identifier in this file, for a local name.
    decl: Option<usize>,
}

/// The project name under the cursor, if it is one: declared in the file, or a
/// top-level name of another project file (`project_names`). Documented engine names
/// and the language's built-ins are not the project's to rename.
pub fn symbol_at(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    project_names: &dyn Fn(&str) -> bool,
) -> Option<(Symbol, usize, usize)> {
    let node = node_at(tree, offset)?;
    if node.kind() != "identifier" {
        return None;
    }
    let a = crate::js::Analysis::new(corpus, text, tree);
    let name = text_of(node, text);
    let sym = match a.binding_at(name, node.start_byte()) {
        Some(b) => Symbol {
            name: name.to_string(),
            global: b.scope == 0,
            decl: (b.scope != 0).then_some(b.start),
        },
        None if project_names(name) => Symbol {
            name: name.to_string(),
            global: true,
            decl: None,
        },
        None => return None,
    };
    Some((sym, node.start_byte(), node.end_byte()))
}

/// The byte ranges in `text` where `sym` is written: identifiers of that name that
/// resolve to the same binding (a local), or to the program scope or nothing (a
/// top-level name: every project file shares the one global scope).
pub fn occurrences(corpus: &Corpus, text: &str, tree: &Tree, sym: &Symbol) -> Vec<(usize, usize)> {
    if !text.contains(sym.name.as_str()) {
        return Vec::new();
    }
    let a = crate::js::Analysis::with_refs(corpus, text, tree, tree.root_node(), |_| {});
    let mut out = Vec::new();
    for r in a.refs() {
        if text.get(r.start..r.end) != Some(sym.name.as_str()) {
            continue;
        }
        let b = r.binding.and_then(|b| a.bindings.get(b));
        let same = match (&sym.decl, b) {
            (Some(d), Some(b)) => b.start == *d,
            (Some(_), None) => false,
            (None, Some(b)) => b.scope == 0,
            (None, None) => true,
        };
        if same {
            out.push((r.start, r.end));
        }
    }
    out
}

/// A top-level declaration of a script, for workspace symbols: name, kind, byte range
/// of its name.
pub fn top_level_symbols(text: &str, tree: &Tree) -> Vec<(String, SymbolKind, usize, usize)> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut c = root.walk();
    for stmt in root.named_children(&mut c) {
        match stmt.kind() {
            "function_declaration" => {
                if let Some(n) = stmt.child_by_field_name("name") {
                    out.push((
                        text_of(n, text).to_string(),
                        SymbolKind::FUNCTION,
                        n.start_byte(),
                        n.end_byte(),
                    ));
                }
            }
            "variable_declaration" | "lexical_declaration" => {
                let mut c2 = stmt.walk();
                for d in stmt.named_children(&mut c2) {
                    let Some(n) = d
                        .child_by_field_name("name")
                        .filter(|n| n.kind() == "identifier")
                    else {
                        continue;
                    };
                    let is_fn = d
                        .child_by_field_name("value")
                        .is_some_and(|v| matches!(v.kind(), "function_expression" | "function"));
                    out.push((
                        text_of(n, text).to_string(),
                        if is_fn {
                            SymbolKind::FUNCTION
                        } else {
                            SymbolKind::VARIABLE
                        },
                        n.start_byte(),
                        n.end_byte(),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// A documented API as a workspace symbol: name, kind, container, corpus file, line.
pub type DocSymbol = (String, SymbolKind, Option<String>, String, usize);

/// The corpus's interfaces, their members and the globals whose name contains `query`
/// (any case), with the chunk that documents each.
pub fn corpus_symbols(corpus: &Corpus, query: &str, limit: usize) -> Vec<DocSymbol> {
    let q = query.to_lowercase();
    let hit = |s: &str| s.to_lowercase().contains(&q);
    let mut out = Vec::new();
    for (name, i) in &corpus.interfaces {
        if out.len() >= limit {
            break;
        }
        if let (true, Some(id)) = (hit(name), i.chunk) {
            let c = corpus.chunk(id);
            out.push((
                name.clone(),
                SymbolKind::INTERFACE,
                None,
                c.file.clone(),
                c.line,
            ));
        }
        for m in i.members.values() {
            if let (true, Some(id)) = (hit(&m.name), m.chunk) {
                let c = corpus.chunk(id);
                let kind = match m.kind {
                    MemberKind::Method => SymbolKind::METHOD,
                    _ => SymbolKind::PROPERTY,
                };
                out.push((
                    m.name.clone(),
                    kind,
                    Some(name.clone()),
                    c.file.clone(),
                    c.line,
                ));
            }
        }
    }
    for (g, iface) in &corpus.globals {
        if let (true, Some(id)) = (hit(g), corpus.interfaces.get(iface).and_then(|i| i.chunk)) {
            let c = corpus.chunk(id);
            out.push((
                g.clone(),
                SymbolKind::OBJECT,
                Some(iface.clone()),
                c.file.clone(),
                c.line,
            ));
        }
    }
    out.truncate(limit);
    out
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
