//! `audit`: what the corpus hands the model and what the model hands back, checked.
//!
//! - **Prompt fragments** (one per construct family) are generated from the corpus and
//!   declare the symbols they provide. A write whose engine symbols were all provided
//!   needs no lookup first: the mandatory lookup once made an agent spend three of five
//!   lookups re-confirming names already listed in its prompt.
//! - **The self-audit of `rag_lookup`**: the composing step of retrieval invented
//!   `layout.tableCellEnd` and `Table.cellSpacing`, claiming they came from the context,
//!   and the agent faithfully copied them for seven rounds. The composed answer's fenced
//!   snippets and inline calls go through the write path's checker; the result carries
//!   the answer, its corrections and the interface's real members together.
//! - **The phrasebook hint**, prepended to every lookup result, found or not.
//! - **The de-nouning rewriter** (ships disabled): operations only, never API names.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

use grounded_check::{self as check, Code, ProjectIndex};
use grounded_docs::{Corpus, Library};

use super::wording;

/// A prompt fragment for one construct family and the symbols it gives the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fragment {
    /// The construct's id (`table`).
    pub family: String,
    /// The text for the system prompt.
    pub text: String,
    /// What the text names, as the code would write it: `Table` (a constructor),
    /// `layout.tableStart` (a global's member), `Table.columns` (an object's member).
    pub provides: Vec<String>,
}

/// One fragment per construct of the corpus, in id order.
pub fn fragments(corpus: &Corpus) -> Vec<Fragment> {
    let mut out = Vec::new();
    for c in corpus.constructs.values() {
        let mut provides = Vec::new();
        let ctors: Vec<&str> = corpus
            .constructors
            .values()
            .filter(|k| k.interface == c.object || corpus.is_a(&k.interface, &c.object))
            .map(|k| k.name.as_str())
            .collect();
        provides.extend(ctors.iter().map(|s| s.to_string()));
        let gi = corpus.global_interface(&c.global).unwrap_or(&c.interface);
        // The family: the global's methods sharing the construct's prefix
        // (`tableStart`, `tableRow`, `tableCell`, `tableEnd`).
        let family: Vec<String> = corpus
            .members_of(gi)
            .iter()
            .filter(|m| m.name.starts_with(&c.id))
            .map(|m| m.name.clone())
            .collect();
        provides.extend(family.iter().map(|m| format!("{}.{m}", c.global)));
        let object_members: Vec<String> = corpus
            .members_of(&c.object)
            .iter()
            .map(|m| m.name.clone())
            .collect();
        provides.extend(object_members.iter().map(|m| format!("{}.{m}", c.object)));
        let ctor = ctors.first().copied().unwrap_or(&c.object);
        let mut text = format!(
            "Construct `{}`: `var x = new {ctor}();` then `{}.{}(x)` ... `{}.{}()`.",
            c.id, c.global, c.start, c.global, c.end
        );
        if !family.is_empty() {
            text.push_str(&format!(" Family: {}.", family.join(", ")));
        }
        if !object_members.is_empty() {
            text.push_str(&format!(
                " `{}` members: {}.",
                c.object,
                object_members.join(", ")
            ));
        }
        if let Some(n) = &c.no_close {
            text.push(' ');
            text.push_str(n);
        }
        out.push(Fragment {
            family: c.id.clone(),
            text,
            provides,
        });
    }
    out
}

/// Every symbol the fragments provide.
pub fn provided(frags: &[Fragment]) -> BTreeSet<String> {
    frags
        .iter()
        .flat_map(|f| f.provides.iter().cloned())
        .collect()
}

fn new_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\bnew\s+([A-Za-z_$][\w$]*)").unwrap())
}

fn dotted_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\b([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)").unwrap())
}

/// The engine symbols a piece of code uses, as [`Fragment::provides`] writes them:
/// constructors after `new` (the language's own built-ins left out) and members of the
/// engine's documented globals. A name that is neither documented nor built in is kept:
/// it is exactly what needs a lookup.
pub fn symbols_used(corpus: &Corpus, code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in new_re().captures_iter(code) {
        let n = &c[1];
        if corpus.constructors.contains_key(n) || grounded_es::global(n).is_none() {
            out.push(n.to_string());
        }
    }
    for c in dotted_re().captures_iter(code) {
        if corpus.globals.contains_key(&c[1]) {
            out.push(format!("{}.{}", &c[1], &c[2]));
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|s| seen.insert(s.clone()));
    out
}

/// What the self-audit of a composed answer found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audit {
    /// One line per invented name: what the checker says.
    pub corrections: Vec<String>,
    /// `(interface, its real members)` for each interface an invented member was used on.
    pub real_members: Vec<(String, Vec<String>)>,
}

impl Audit {
    /// Whether the answer names something that does not exist. Flagged answers are
    /// never cached.
    pub fn flagged(&self) -> bool {
        !self.corrections.is_empty()
    }
}

fn fence_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?s)```[A-Za-z]*\n(.*?)```").unwrap())
}

fn inline_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"`([^`\n]+)`").unwrap())
}

/// Families whose findings mean "this name does not exist": the poison of a composed
/// answer. Syntax and construct pairing of a fragment are not the answer's fault.
fn invented(code: Code) -> bool {
    matches!(
        code,
        Code::Member | Code::Object | Code::Constructor | Code::Option | Code::Engine
    )
}

/// Runs the checker over a composed answer: each fenced snippet as a script, and the
/// inline code spans that look like calls or member accesses as one statement each.
pub fn audit(corpus: &Corpus, answer: &str) -> Audit {
    let project = ProjectIndex::default();
    let ext = corpus
        .engine
        .script_extensions
        .first()
        .cloned()
        .unwrap_or_else(|| ".js".into());
    let path = format!(
        "answer{}",
        if ext.starts_with('.') {
            ext
        } else {
            format!(".{ext}")
        }
    );
    let mut snippets: Vec<String> = fence_re()
        .captures_iter(answer)
        .map(|c| c[1].to_string())
        .collect();
    let without_fences = fence_re().replace_all(answer, "");
    for c in inline_re().captures_iter(&without_fences) {
        let s = c[1].trim();
        if s.contains('.') || s.starts_with("new ") {
            snippets.push(format!("{s};"));
        }
    }
    let mut out = Audit::default();
    let mut ifaces: Vec<String> = Vec::new();
    for s in &snippets {
        for f in check::check_text(corpus, &project, &path, s) {
            if !invented(f.code) {
                continue;
            }
            let name = &s[f.span.start..f.span.end];
            let line = format!("`{name}`: {}", f.message);
            if !out.corrections.contains(&line) {
                out.corrections.push(line);
            }
            if f.code == Code::Member {
                if let Some(i) = receiver_interface(corpus, s, f.span.start) {
                    if !ifaces.contains(&i) {
                        ifaces.push(i);
                    }
                }
            }
        }
    }
    for i in ifaces {
        let members: Vec<String> = corpus
            .members_of(&i)
            .iter()
            .map(|m| m.name.clone())
            .collect();
        out.real_members.push((i, members));
    }
    out
}

/// The interface of the receiver right before `at` (`layout.` or `t.` where
/// `var t = new Table()` appears in the snippet).
fn receiver_interface(corpus: &Corpus, code: &str, at: usize) -> Option<String> {
    let before = code[..at].trim_end().strip_suffix('.')?.trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let recv = &before[start..];
    if let Some(i) = corpus.global_interface(recv) {
        return Some(i.to_string());
    }
    let decl = Regex::new(&format!(
        r"\b{}\s*=\s*new\s+([A-Za-z_$][\w$]*)",
        regex::escape(recv)
    ))
    .ok()?;
    let ctor = decl.captures(code)?[1].to_string();
    corpus.constructors.get(&ctor).map(|c| c.interface.clone())
}

/// The result the model receives from a self-auditing `rag_lookup`: the answer, then
/// (when flagged) its corrections and the real members, in one text.
pub fn annotate(answer: &str, a: &Audit) -> String {
    if !a.flagged() {
        return answer.to_string();
    }
    let mut out = format!("{answer}\n\n{}\n", wording::RAG_CORRECTIONS);
    for c in &a.corrections {
        out.push_str(&format!("- {c}\n"));
    }
    for (i, ms) in &a.real_members {
        out.push_str(&wording::fill(
            wording::RAG_REAL_MEMBERS,
            &[("interface", i), ("members", &ms.join(", "))],
        ));
        out.push('\n');
    }
    out
}

/// The phrasebook's hint for `query`, prepended to a lookup result whatever it holds.
pub fn with_hint(corpus: &Library, query: &str, result: &str, routes: usize) -> String {
    let ans = corpus.resolve_topic(query, routes);
    let hint = if ans.matches.is_empty() {
        format!(
            "{} no construct, member or guide shares a word with \"{query}\".",
            wording::TERMINOLOGY_HINT
        )
    } else {
        let mut h = format!(
            "{}{}",
            wording::TERMINOLOGY_HINT,
            if ans.strict {
                ""
            } else {
                " (weak: a hint, not a law)"
            }
        );
        for m in &ans.matches {
            h.push_str(&format!("\n- {}", m.route.name));
            if !m.route.symbols.is_empty() {
                h.push_str(&format!(": {}", m.route.symbols.join(", ")));
            }
        }
        h
    };
    format!("{hint}\n\n{result}")
}

/// Nominalised operations and their verbs. Retrieval indexes say `tableStart`, `remove`;
/// a question says "the creation of a table", "removal of the footer".
const DENOUN: &[(&str, &str)] = &[
    ("creation", "create"),
    ("deletion", "delete"),
    ("removal", "remove"),
    ("insertion", "insert"),
    ("addition", "add"),
    ("modification", "modify"),
    ("replacement", "replace"),
    ("generation", "generate"),
    ("configuration", "configure"),
    ("conversion", "convert"),
    ("alignment", "align"),
    ("placement", "place"),
];

/// Rewrites nominalised operations to verbs ("creation of a table" → "create a table").
/// Words that are API names (a documented member, global, constructor or interface) are
/// never touched. Ships disabled ([`super::config::AgentConfig::denoun`]).
pub fn denoun(corpus: &Corpus, query: &str) -> String {
    denoun_except(query, |bare| {
        corpus.globals.contains_key(bare)
            || corpus.constructors.contains_key(bare)
            || corpus.interfaces.contains_key(bare)
            || corpus
                .interfaces
                .values()
                .any(|i| i.members.contains_key(bare))
    })
}

/// The API names [`denoun`] never touches, collected once: a turn's guard rewrites
/// every lookup's query with them before making its cache key.
pub fn api_names(corpus: &Corpus) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = corpus.globals.keys().cloned().collect();
    out.extend(corpus.constructors.keys().cloned());
    out.extend(corpus.interfaces.keys().cloned());
    for i in corpus.interfaces.values() {
        out.extend(i.members.keys().cloned());
    }
    out
}

/// [`denoun`] with the API names given as a predicate.
pub fn denoun_except(query: &str, is_api: impl Fn(&str) -> bool) -> String {
    query
        .split(' ')
        .map(|w| {
            let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
            match DENOUN.iter().find(|(n, _)| n.eq_ignore_ascii_case(bare)) {
                Some((_, v)) if !is_api(bare) => w.replacen(bare, v, 1),
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> &'static Corpus {
        static C: OnceLock<Corpus> = OnceLock::new();
        C.get_or_init(|| {
            Corpus::load(
                &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                    .join("corpus/demo"),
            )
            .unwrap()
        })
    }

    #[test]
    fn fragments_come_from_the_corpus_constructs() {
        let c = demo();
        let f = fragments(c);
        assert_eq!(f.len(), c.constructs.len());
        let table = f.iter().find(|f| f.family == "table").unwrap();
        let k = &c.constructs["table"];
        assert!(table
            .provides
            .contains(&format!("{}.{}", k.global, k.start)));
        assert!(table.provides.contains(&format!("{}.{}", k.global, k.end)));
        assert!(table.text.contains(&k.start));
        // No invented member rides along: the overlay's absent names are not provided.
        for (i, m) in &k.absent {
            assert!(
                !table.provides.contains(&format!("{}.{m}", k.global)),
                "{i}.{m}"
            );
        }
    }

    #[test]
    fn symbols_used_keeps_engine_names_and_drops_builtins() {
        let c = demo();
        let k = &c.constructs["table"];
        let code = format!(
            "var d = new Date(); var t = new {}(); {}.{}(t); var x = new ActiveXObject('a');",
            k.object, k.global, k.start
        );
        let s = symbols_used(c, &code);
        assert!(!s.contains(&"Date".to_string()));
        assert!(s.contains(&"ActiveXObject".to_string()));
        assert!(s.contains(&format!("{}.{}", k.global, k.start)));
    }

    #[test]
    fn audit_flags_an_invented_member_and_lists_the_real_ones() {
        let c = demo();
        let k = &c.constructs["table"];
        let answer = format!(
            "Open it with `{g}.{s}(t)` and close cells with `{g}.tableCellEnd()`.\n\n```js\nvar t = new {o}();\nt.cellSpacing = 2;\n```\n",
            g = k.global,
            s = k.start,
            o = k.object
        );
        let a = audit(c, &answer);
        assert!(a.flagged());
        assert!(
            a.corrections.iter().any(|l| l.contains("tableCellEnd")),
            "{a:?}"
        );
        assert!(
            a.corrections.iter().any(|l| l.contains("cellSpacing")),
            "{a:?}"
        );
        let gi = c.global_interface(&k.global).unwrap();
        let real = a.real_members.iter().find(|(i, _)| i == gi).unwrap();
        assert!(real.1.contains(&k.end));
        let text = annotate(&answer, &a);
        assert!(text.starts_with(&answer));
        assert!(text.contains(wording::RAG_CORRECTIONS));
    }

    #[test]
    fn audit_leaves_a_correct_answer_alone() {
        let c = demo();
        let k = &c.constructs["table"];
        let answer = format!(
            "Use `{g}.{s}(t)` and `{g}.{e}()`.\n\n```js\nvar t = new {o}();\n{g}.{s}(t);\n{g}.{e}();\n```\n",
            g = k.global,
            s = k.start,
            e = k.end,
            o = k.object
        );
        let a = audit(c, &answer);
        assert!(!a.flagged(), "{a:?}");
        assert_eq!(annotate(&answer, &a), answer);
    }

    #[test]
    fn hint_is_prepended_found_or_not() {
        let c = &Library::from(
            Corpus::load(
                &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                    .join("corpus/demo"),
            )
            .unwrap(),
        );
        let found = with_hint(c, "a table of prices", "RESULT", 3);
        assert!(found.starts_with(wording::TERMINOLOGY_HINT));
        assert!(found.ends_with("RESULT"));
        assert!(found.contains("table"));
        let none = with_hint(c, "zzqx", "", 3);
        assert!(none.starts_with(wording::TERMINOLOGY_HINT));
        assert!(none.contains("no construct"));
    }

    #[test]
    fn denoun_rewrites_operations_only() {
        let c = demo();
        assert_eq!(denoun(c, "creation of a table"), "create of a table");
        assert_eq!(denoun(c, "removal of the footer"), "remove of the footer");
        let k = &c.constructs["table"];
        assert_eq!(denoun(c, &k.start), k.start);
    }
}
