//! `object`: a receiver declared nowhere.
//!
//! What: `engine.loadXML()` where `engine` is neither a global of the engine (the docs,
//! the overlay's `[extra]`), nor of the language at the engine's level, nor declared by
//! the script or a project file it loads.
//!
//! Why: agents borrow objects from other hosts (`window`, `console`, `app.activeDocument`
//! of a sibling product); the script dies with a ReferenceError on that line.
//!
//! A name the script tests with `typeof` is feature detection and is left alone. A
//! language built-in of a later edition (`JSON` under ES3) is the `engine` family's.

use tree_sitter::Node;

use super::suggest::or_list;
use super::{Code, Ctx, Fix};

/// This family's key in the near-name memo (`Ctx::near_memo`).
const NEAR_FAMILY: u8 = 0;

/// Judges the identifier receiver of a member expression. Returns whether the receiver
/// is declared (by the script, the project or the docs), so its member can be judged;
/// `false` for language built-ins (judged by the engine family) and reported names.
pub(crate) fn receiver<'a>(
    cx: &mut Ctx<'a>,
    ident: Node,
    name: &'a str,
    scope: grounded_js::ScopeId,
) -> bool {
    if cx.a.is_declared_in(name, scope) || cx.documented(name) {
        return true;
    }
    // Code the docs take as source text runs elsewhere, with that realm's globals
    // (`window` inside `page.evaluate(...)`: see `evaluated`).
    if super::evaluated::inside(cx, ident) {
        return false;
    }
    if let Some(g) = grounded_es::global(name) {
        if g.since > cx.level && !cx.polyfills.contains(name) {
            let msg = format!(
                "`{name}` is {}; this engine runs {}, which has no `{name}`{}",
                grounded_es::edition_name(g.since),
                cx.level_name(),
                super::engine::global_hint(name)
            );
            cx.push_node(ident, Code::Engine, msg);
        }
        return false;
    }
    if cx.a.in_with(ident.start_byte()) || cx.a.is_typeof_tested(name) || name == "this" {
        return false;
    }
    let (corpus, a) = (cx.corpus, &cx.a);
    let from_corpus = || {
        let mut c: Vec<&str> = corpus.globals.keys().map(String::as_str).collect();
        c.extend(corpus.extra_globals.iter().map(String::as_str));
        // Members that are global names (`Global` properties, `Global members: yes`):
        // `activeDocumnt` is near the member `activeDocument`, not near any global object.
        c.extend(
            corpus
                .global_members()
                .into_iter()
                .filter(|m| m.kind != grounded_docs::MemberKind::Method)
                .map(|m| m.name.as_str()),
        );
        c
    };
    // The program's names are the same at every site: scored once per file.
    let locals = cx.a.visible_below_program(ident.start_byte());
    let close = cx.near_memo.near(
        cx.run.map(|r| &r.near),
        NEAR_FAMILY,
        name,
        from_corpus,
        || a.program_names(),
        locals,
    );
    let close: Vec<&str> = close.iter().map(String::as_str).collect();
    let mut msg = format!(
        "`{name}` is declared nowhere: not a global of this engine's docs, not an {} global of the language, not declared in this file or a file it loads",
        cx.level_name()
    );
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    } else {
        let globals: Vec<&str> = cx.corpus.globals.keys().map(String::as_str).collect();
        if !globals.is_empty() && globals.len() <= 12 {
            msg.push_str(&format!(
                "; the engine's global objects are {}",
                super::suggest::and_list(&globals)
            ));
        }
    }
    let fixes: Vec<Fix> = close
        .iter()
        .map(|c| Fix::Replace {
            title: format!("Replace with `{c}`"),
            span: super::Span::new(ident.start_byte(), ident.end_byte()),
            text: c.to_string(),
            safe: false,
        })
        .collect();
    let related = close
        .first()
        .and_then(|c| {
            cx.corpus
                .global_interface(c)
                .or_else(|| cx.corpus.global_member(c).map(|m| m.interface.as_str()))
        })
        .and_then(|i| super::suggest::interface_related(cx.corpus, i));
    let f = cx.push_node(ident, Code::Object, msg);
    f.fixes = fixes;
    f.related = related;
    false
}
