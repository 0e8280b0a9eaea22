//! Completion: members of a certain receiver, names in scope, built-in members, construct
//! snippets and an options literal's keys.
//!
//! Owns what is offered at a cursor; reads receivers through `lsp::typing` and the open
//! brackets through `lsp::scan`. May import `features`, `lsp::typing`, `lsp::scan`, `js`,
//! `es` and `docs`; never the server's state.

use super::*;

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

/// The members that documented sub-interfaces of `iface` add (`docs::family`): the
/// value may be one of them, so the checker takes them; each names the interface that
/// has it, and sorts after the interface's own.
fn sub_interface_items(corpus: &Corpus, iface: &str) -> Vec<CompletionItem> {
    let mut seen = std::collections::HashSet::new();
    corpus
        .descendants(iface)
        .iter()
        .flat_map(|d| corpus.members_of(d))
        .filter(|m| corpus.member(iface, &m.name).is_none() && seen.insert(m.name.as_str()))
        .map(|m| {
            let mut item = member_item(corpus, m);
            let sig = m.signature().map(|s| s.text.as_str()).unwrap_or(&m.name);
            item.detail = Some(format!(
                "{sig} (of `{}`, an interface extending `{iface}`)",
                m.interface
            ));
            item.sort_text = Some(format!("~{}", m.name));
            item
        })
        .collect()
}

/// The members of a value of a union the docs give: those all its interfaces share
/// first, then those only some have, each naming them (the checker takes either).
fn union_items(corpus: &Corpus, ifaces: &[&str]) -> Vec<CompletionItem> {
    let (shared, some) = union_members(corpus, ifaces);
    let mut out: Vec<CompletionItem> = shared.into_iter().map(|m| member_item(corpus, m)).collect();
    for (m, has) in some {
        let mut item = member_item(corpus, m);
        let sig = m.signature().map(|s| s.text.as_str()).unwrap_or(&m.name);
        item.detail = Some(format!("{sig} (only of {})", has.join(", ")));
        item.sort_text = Some(format!("~{}", m.name));
        out.push(item);
    }
    out
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
    // A module specifier is a string where names do complete: the engine's modules.
    if let Some(items) = super::modules::specifier_completion(corpus, text, tree, offset) {
        return items;
    }
    if in_comment_or_string(tree, offset) {
        return Vec::new();
    }
    if let Some(items) = super::modules::export_completion(corpus, text, offset) {
        return items;
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
            out.extend(sub_interface_items(corpus, &iface));
            out.extend(construct_snippets(corpus, text, &iface, recv, word));
            return out;
        }
        if let Some(ifaces) = ctx.range_union(start, dot) {
            return union_items(corpus, &ifaces);
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
        if let Some(p) = ctx.analysis.certain(x).and_then(Certain::proto) {
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

/// The option interface's keys not yet written in the literal (but the one under the
/// cursor at `word`).
fn option_keys(ctx: &FileCtx, call: Open, lit: Open, word: usize) -> Option<Vec<CompletionItem>> {
    let iface = open_literal_interface(ctx, call, lit)?;
    let written = crate::scan::literal_keys(ctx.text, lit.at, word);
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
