//! `constructor`: `new X()` of a constructor nobody defines.
//!
//! What: `new ActiveXObject("Microsoft.XMLDOM")` where `ActiveXObject` is neither a
//! documented constructor (`Constructor: new X()` in an interface chunk), nor a
//! constructor of the language at the engine's level, nor declared by the project. A
//! documented interface without a `Constructor:` line is not constructible either.
//!
//! Why: `new` of nothing throws at run time; agents reach for the browser's or another
//! host's classes. A language constructor of a later edition (`new Map()` under ES3) is
//! the `engine` family's.

use tree_sitter::Node;

use super::suggest::{and_list, near, or_list};
use super::{Code, Ctx, Fix, Span};

/// Judges the identifier (or member expression) after `new`.
pub(crate) fn check(cx: &mut Ctx, ctor: Node) {
    let name = cx.a.node_text(ctor);
    if cx.a.is_declared_anywhere(name, ctor.start_byte())
        || cx.corpus.constructors.contains_key(name)
        || project_own(cx, ctor)
    {
        return;
    }
    if let Some(g) = grounded_es::global(name) {
        if g.since > cx.level && !cx.polyfills.contains(name) {
            let msg = format!(
                "`{name}` is {}; this engine runs {}, which has no `{name}`{}",
                grounded_es::edition_name(g.since),
                cx.level_name(),
                super::engine::global_hint(name)
            );
            cx.push_node(ctor, Code::Engine, msg);
        }
        return;
    }
    if cx.a.in_with(ctor.start_byte()) || cx.a.is_typeof_tested(name) {
        return;
    }
    let documented: Vec<&str> = cx.corpus.constructors.keys().map(String::as_str).collect();
    let mut msg;
    let mut close = Vec::new();
    if cx.corpus.interfaces.contains_key(name) {
        msg = format!(
            "`{name}` is documented but not constructible: its docs give no `Constructor: new {name}()` line"
        );
        let holders: Vec<&str> = cx
            .corpus
            .globals
            .iter()
            .filter(|(_, i)| i.as_str() == name)
            .map(|(g, _)| g.as_str())
            .collect();
        if !holders.is_empty() {
            msg.push_str(&format!("; use the global {}", or_list(&holders)));
        }
    } else {
        msg = format!(
            "`{name}` is defined by neither this engine's docs, nor the language at {}, nor this project",
            cx.level_name()
        );
        let mut candidates = documented.clone();
        candidates.extend(
            grounded_es::GLOBALS
                .iter()
                .filter(|g| g.constructor && g.since <= cx.level)
                .map(|g| g.name),
        );
        close = near(name, candidates);
        if !close.is_empty() {
            msg.push_str(&format!("; did you mean {}?", or_list(&close)));
        } else if !documented.is_empty() && documented.len() <= 16 {
            msg.push_str(&format!(
                "; the documented constructors are {}",
                and_list(&documented)
            ));
        }
    }
    let fixes: Vec<Fix> = close
        .iter()
        .map(|c| Fix::Replace {
            title: format!("Replace with `{c}`"),
            span: Span::new(ctor.start_byte(), ctor.end_byte()),
            text: c.to_string(),
            safe: false,
        })
        .collect();
    let related = super::suggest::interface_related(cx.corpus, name).or_else(|| {
        close
            .first()
            .and_then(|c| cx.corpus.constructors.get(*c))
            .and_then(|c| super::suggest::interface_related(cx.corpus, &c.interface))
    });
    let f = cx.push_node(ctor, Code::Constructor, msg);
    f.fixes = fixes;
    f.related = related;
}

/// Whether `ctor` is a member expression (`new KIT.Manager(s)`): a constructor the docs
/// document is a bare name (`Constructor: new X()`), so a member is never the docs'
/// constructor to judge here. Where the head is the project's own object (`var KIT =
/// KIT || {}`, a project global) its members are whatever the project put there:
/// scripts that keep their code in a namespace object drew a `constructor` finding at
/// every `new`. A member of a documented global (`new app.Thing()`) is the member
/// family's, on a certain receiver; an undeclared head is the object family's.
fn project_own(_cx: &Ctx, ctor: Node) -> bool {
    ctor.kind() == "member_expression"
}
