//! Hover: a documented member or global, the project's own names (their declaring line
//! and comment), the language's built-ins with their edition, and option keys.
//!
//! Owns what a hover says; reads receivers through `lsp::typing` and the shared helpers
//! of the parent `features`. May import `features`, `lsp::typing`, `lsp::document`,
//! `js`, `es` and `docs`; never the server's state.

use super::*;

/// Hover on a member name, a global, the project's own names, the language's built-ins
/// and option keys.
///
/// `seed` is the checker's last seed of the file: with it, a large file analyses only
/// the statement under the cursor ([`FileCtx::at`]), and `whole` (the file beside that
/// statement) says where the rest of the file declares a top-level name.
pub fn hover(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    seed: Option<&Seed>,
    whole: Option<&Whole>,
) -> Option<Hover> {
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    let node = node_at(tree, offset)?;
    let parent = node.parent();
    if let Some(md) = super::modules::specifier_hover(corpus, text, tree, offset) {
        let s = super::modules::specifier_at(tree, text, offset)?;
        return Some(Hover {
            contents: HoverContents::Markup(markdown(md)),
            range: Some(crate::document::range_in(
                text,
                s.start_byte(),
                s.end_byte(),
            )),
        });
    }
    let md =
        match node.kind() {
            "property_identifier" => {
                let p = parent?;
                match p.kind() {
                    "member_expression" => match ctx.node_member(p) {
                        Some(m) => member_markdown(corpus, m),
                        None => match sub_interface_markdown(&ctx, p) {
                            Some(md) => md,
                            None => builtin_member_markdown(&ctx, p, text_of(node, text))?,
                        },
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
                    // from the seed, without where they are declared: the statements of
                    // the whole file that spell the name are analysed to find it.
                    let at = match whole.filter(|_| b.is_seeded()) {
                        Some(w) => w.top_level_declaration(corpus, text, name, b.kind)?,
                        None => b.start,
                    };
                    let mut md = declaration_markdown(text, b.kind, at);
                    // What the import takes from a documented module: the export's docs.
                    if let Some(docs) = ctx.analysis.binding_import(b).and_then(|(spec, part)| {
                        super::modules::import_markdown(corpus, spec, part)
                    }) {
                        md.push_str("\n\n");
                        md.push_str(&docs);
                    }
                    // The checker's type of the name here: what its members are judged by.
                    match ctx.analysis.certain(node) {
                        Some(Certain::Interface(i)) => md.push_str(&format!(
                            "\n\nType: `{i}` (every assignment is one, from the docs)"
                        )),
                        Some(Certain::Builtin(p)) if b.kind != BindingKind::Function => {
                            md.push_str(&format!("\n\nType: `{}`", builtin_type_name(p)))
                        }
                        Some(Certain::Union(u)) => {
                            let ifaces: Vec<&str> = u.interfaces().collect();
                            md.push_str(&format!("\n\n{}", union_markdown(corpus, &ifaces)));
                        }
                        Some(Certain::Array(t)) => md.push_str(&format!(
                            "\n\nType: `{}` (from the docs)",
                            Type::Array(Box::new(t.clone()))
                        )),
                        _ => {}
                    }
                    md
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
        range: Some(crate::document::range_in(
            text,
            node.start_byte(),
            node.end_byte(),
        )),
    })
}

/// A member that a documented sub-interface of the receiver's interface has
/// (`docs::family`): the checker takes it, and the hover says which interface has it.
fn sub_interface_markdown<'a>(ctx: &FileCtx<'a>, member: Node<'a>) -> Option<String> {
    let obj = member.child_by_field_name("object")?;
    let prop = member.child_by_field_name("property")?;
    let iface = ctx.node_interface(obj)?;
    let m = ctx
        .corpus
        .descendant_member(&iface, text_of(prop, ctx.text))?;
    Some(format!(
        "{}\n\n*`{}` has this member, an interface documented as extending `{iface}`: the `{iface}` here may be one.*",
        member_markdown(ctx.corpus, m),
        m.interface
    ))
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
    let p = ctx.analysis.certain(obj).and_then(Certain::proto)?;
    let since = es::proto_since(p, name)?;
    let (owner, plural) = proto_word(p);
    Some(format!(
        "```js\n{owner}.prototype.{name}\n```\n\na member of the language's {plural}, {}{}",
        es::edition_name(since),
        level_note(ctx.corpus, since)
    ))
}

/// The name of a built-in value type, as a hover shows it.
fn builtin_type_name(p: es::Proto) -> &'static str {
    match p {
        es::Proto::Array => "Array",
        es::Proto::String => "string",
        es::Proto::Number => "number",
        es::Proto::Function => "Function",
        es::Proto::Date => "Date",
        es::Proto::Object => "Object",
        es::Proto::RegExp => "RegExp",
    }
}
