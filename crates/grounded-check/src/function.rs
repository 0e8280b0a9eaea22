//! `function`: a bare call of a function defined nowhere.
//!
//! What: `loadXMLData("x")` where `loadXMLData` is not a `Global` member of the docs (or
//! an `[extra]` function), not an ECMAScript built-in of the engine's level, and not
//! declared at the top level of this file or of a project file it loads (transitively;
//! every project file when the project's loads cannot be followed). A function a project
//! file declares but nothing this script loads is said as such, with the file.
//!
//! Why: a call of nothing throws `ReferenceError` at run time, usually after part of the
//! document was already laid out. `setTimeout()` and friends are the usual suspects.

use tree_sitter::Node;

use super::suggest::or_list;
use super::{Code, Ctx, Fix, Span};

/// Marks this family's key in the run's near-name memo when the shared names are
/// among the run's candidates.
const SHARED_NAMES: u8 = 0x80;

/// This family's key in the near-name memo (`Ctx::near_memo`).
const NEAR_FAMILY: u8 = 1;

/// Judges the callee identifier of `name(...)`.
pub(crate) fn check<'a>(
    cx: &mut Ctx<'a>,
    callee: Node,
    name: &'a str,
    scope: grounded_js::ScopeId,
) {
    if cx.a.is_declared_in(name, scope) || cx.documented(name) {
        return;
    }
    // Code the docs take as source text runs elsewhere, with that realm's globals
    // (`window` inside `page.evaluate(...)`: see `evaluated`).
    if super::evaluated::inside(cx, callee) {
        return;
    }
    if let Some(g) = grounded_es::global(name) {
        if g.since > cx.level && !cx.polyfills.contains(name) {
            let msg = format!(
                "`{name}` is {}; this engine runs {}, which has no `{name}`",
                grounded_es::edition_name(g.since),
                cx.level_name()
            );
            cx.push_node(callee, Code::Engine, msg);
        }
        return;
    }
    if cx.a.in_with(callee.start_byte()) || cx.a.is_typeof_tested(name) {
        return;
    }
    // A project file declares it but this script does not load that file: "defined
    // nowhere" sent a newcomer looking for a typo in a name that was right. (The file
    // itself, named from elsewhere, is left out: its own stale entry is no other file.)
    let me = std::path::Path::new(cx.path);
    let home: Vec<&str> = cx
        .project
        .files
        .iter()
        .filter(|(rel, facts)| facts.decls.contains(name) && !me.ends_with(rel.as_str()))
        .map(|(rel, _)| rel.as_str())
        .take(3)
        .collect();
    if !home.is_empty() {
        let msg = format!(
            "`{name}` is declared in the project's {}, which this script does not load, nor does any file it loads",
            or_list(&home)
        );
        cx.push_node(callee, Code::Function, msg);
        return;
    }
    // The global functions: `Global`'s, and the methods of `Global members: yes`
    // interfaces (`executeActon` is near `executeAction`), and the reachable project
    // files' functions: a misspelt helper is the commonest typo in a project, and only
    // a loaded file's name is one the fix can use.
    let (corpus, level, a) = (cx.corpus, cx.level, &cx.a);
    let from_corpus = || {
        let mut c: Vec<&str> = corpus
            .global_members()
            .into_iter()
            .filter(|m| m.kind != grounded_docs::MemberKind::Property)
            .map(|m| m.name.as_str())
            .collect();
        c.extend(corpus.extra_functions.iter().map(String::as_str));
        c.extend(
            grounded_es::GLOBALS
                .iter()
                .filter(|g| g.callable && g.since <= level)
                .map(|g| g.name),
        );
        c
    };
    let visible = a.visible_below_program(callee.start_byte());
    let close = match cx.run.filter(|_| cx.sees_shared) {
        // The script's project names are the run's shared set less names only it
        // declares, which are among its program's names: the shared set is scored once
        // for the run with the corpus's (under a key of its own), the program's per file.
        Some(run) => cx.near_memo.near(
            Some(&run.near),
            NEAR_FAMILY | SHARED_NAMES,
            name,
            || {
                let mut c = from_corpus();
                c.extend(run.names().iter().map(String::as_str));
                c
            },
            || a.program_names(),
            visible,
        ),
        // The project's and the program's names are the same at every site of the file.
        None => cx.near_memo.near(
            cx.run.map(|r| &r.near),
            NEAR_FAMILY,
            name,
            from_corpus,
            || {
                let mut c: Vec<&str> = a.project_names().collect();
                // One by one: `extend` would tie the list to the analysis's lifetime.
                for n in a.program_names() {
                    c.push(n);
                }
                c
            },
            visible,
        ),
    };
    let close: Vec<&str> = close.iter().map(String::as_str).collect();
    let mut msg = format!(
        "`{name}` is defined nowhere: not a global function of this engine's docs, not an {} built-in of the language, not declared in this file or a file it loads",
        cx.level_name()
    );
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    } else {
        let corpus = cx.corpus;
        let global_functions = || -> Vec<String> {
            corpus
                .global_members()
                .iter()
                .filter(|m| m.kind == grounded_docs::MemberKind::Method)
                .map(|m| m.name.clone())
                .collect()
        };
        // Read once for a run: every finding without a near name listed the corpus's
        // global members again (2% of a real 392-file project's check, issue 48).
        let own;
        let fns: &[String] = match cx.run {
            Some(run) => run.global_functions.get_or_init(global_functions),
            None => {
                own = global_functions();
                &own
            }
        };
        let fns: Vec<&str> = fns.iter().map(String::as_str).collect();
        if !fns.is_empty() && fns.len() <= 12 {
            msg.push_str(&format!(
                "; the engine's global functions are {}",
                super::suggest::and_list(&fns)
            ));
        }
    }
    let fixes: Vec<Fix> = close
        .iter()
        .map(|c| Fix::Replace {
            title: format!("Replace with `{c}`"),
            span: Span::new(callee.start_byte(), callee.end_byte()),
            text: c.to_string(),
            safe: false,
        })
        .collect();
    // The docs of the interface the suggestion belongs to (`Global`, or the one whose
    // members are globals).
    let home = close
        .first()
        .and_then(|c| cx.corpus.global_member(c))
        .map_or(grounded_docs::model::GLOBAL_INTERFACE, |m| {
            m.interface.as_str()
        });
    let related = super::suggest::interface_related(cx.corpus, home);
    let f = cx.push_node(callee, Code::Function, msg);
    f.fixes = fixes;
    f.related = related;
}
