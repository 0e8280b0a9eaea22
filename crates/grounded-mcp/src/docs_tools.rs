//! `lookup_docs`, `resolve_topic`, `get_doc`: the corpus, through the same `Library`
//! and name resolution the command line's `lookup`, `topic` and `doc` use.
//!
//! Why an empty answer names what is nearby (agent-design.md): when a query was worded
//! unlike the corpus, an empty result made the agent conclude the docs were empty and
//! reach for browser JavaScript. So an empty lookup carries the documented names near
//! its words and the phrasebook's symbols for them, and says the docs are complete.
//!
//! May import `args`, `cache`, `session`.

use serde_json::{json, Value};

use super::args::Args;
use super::cache::key;
use super::session::Session;
use super::{Answer, MAX_ARG};

/// The phrasebook's symbols for `words` (its strict routes only: a weak hint beside a
/// lookup's answer read as a route).
fn topic_symbols(s: &Session, words: &str) -> Vec<String> {
    let t = s.library.resolve_topic(words, 3);
    if !t.strict {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for m in &t.matches {
        for sym in &m.route.symbols {
            if !out.contains(sym) {
                out.push(sym.clone());
            }
        }
    }
    out.truncate(12);
    out
}

/// Names near each word of `query` (and the whole of it).
fn near_words(s: &Session, query: &str) -> Vec<String> {
    let mut out: Vec<String> = grounded_docs::names::near_names(&s.corpus, query, 8);
    for w in query.split_whitespace() {
        for n in grounded_docs::names::near_names(&s.corpus, w, 5) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out.truncate(12);
    out
}

/// `lookup_docs {query, limit?}`.
pub fn lookup(s: &Session, a: &Args) -> Result<Answer, String> {
    let query = a.string("query", "tableStart", MAX_ARG)?;
    let limit = a.opt_count("limit", 1, 50)?.unwrap_or(10);
    let k = key("lookup_docs", &json!({"query": query, "limit": limit}));
    Ok(s.cache.answer(k, || {
        let hits = s.library.lookup(&query, limit);
        let topic = topic_symbols(s, &query);
        let items: Vec<Value> = hits
            .iter()
            .map(|h| json!({"title": h.title, "source": h.location, "excerpt": h.snippet}))
            .collect();
        let mut text = String::new();
        if !topic.is_empty() {
            text.push_str(&format!(
                "The engine's symbols for these words: {}\n",
                topic.join(", ")
            ));
        }
        let near = if hits.is_empty() {
            near_words(s, &query)
        } else {
            Vec::new()
        };
        if hits.is_empty() {
            text.push_str(&format!(
                "No chunk of the engine's docs contains `{}`. The docs are complete: what they do not say does not exist in this engine.",
                query.trim()
            ));
            if near.is_empty() {
                text.push_str(" Nothing documented is near it by name; try resolve_topic with your goal in words.\n");
            } else {
                text.push_str(&format!(
                    " Documented names nearby: {}. Read one with get_doc.\n",
                    near.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        } else {
            text.push_str(&format!(
                "{} chunk{} contain `{}`:\n",
                hits.len(),
                if hits.len() == 1 { "" } else { "s" },
                query.trim()
            ));
            for h in &hits {
                text.push_str(&format!("- {}  ({})\n  {}\n", h.title, h.location, h.snippet));
            }
        }
        Answer::ok(
            text,
            json!({"query": query, "hits": items, "near": near, "topic": topic}),
        )
    }))
}

/// `resolve_topic {goal}`.
pub fn topic(s: &Session, a: &Args) -> Result<Answer, String> {
    let goal = a.string("goal", "display data in a table", MAX_ARG)?;
    let k = key("resolve_topic", &json!({"goal": goal}));
    Ok(s.cache.answer(k, || {
        let t = s.library.resolve_topic(&goal, 5);
        let mut text = t.to_string();
        if t.matches.is_empty() {
            let near = near_words(s, &goal);
            if !near.is_empty() {
                text.push_str(&format!(
                    "Documented names near the goal's words: {}.\n",
                    near.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        let v = serde_json::to_value(&t).unwrap_or_else(|_| json!({}));
        Answer::ok(
            text,
            json!({"goal": goal, "strict": t.strict, "matches": v.get("matches").cloned().unwrap_or(json!([]))}),
        )
    }))
}

/// `get_doc {name}`.
pub fn get_doc(s: &Session, a: &Args) -> Result<Answer, String> {
    let name = a.string("name", "Layout.tableStart", MAX_ARG)?;
    let k = key("get_doc", &json!({"name": name}));
    Ok(s.cache.answer(k, || doc(s, name.trim())))
}

fn doc(s: &Session, name: &str) -> Answer {
    let corpus = &s.corpus;
    let Some(hit) = grounded_docs::names::resolve(corpus, name) else {
        let near = grounded_docs::names::near_names(corpus, name, 8);
        let mut text = format!(
            "`{name}` is not documented: the engine's docs have no such name, and the docs are complete. Do not use it."
        );
        if !near.is_empty() {
            text.push_str(&format!(
                " Documented names near it: {}.",
                near.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return Answer::ok(
            text,
            json!({"name": name, "documented": false, "near": near, "members": []}),
        );
    };
    let sigs = |m: &grounded_docs::Member| -> Vec<String> {
        m.overloads.iter().map(|s| s.text.clone()).collect()
    };
    let members: Vec<&grounded_docs::Member> = hit
        .interface
        .map(|i| corpus.members_of(i))
        .unwrap_or_default();
    let mut text = String::new();
    match hit.chunk {
        Some(c) => {
            text.push_str(&format!("{}  ({}:{})\n", c.title, c.file, c.line));
            if let Some((asked, m)) = hit.member {
                if asked != m.interface {
                    text.push_str(&format!("(inherited by {asked} from {})\n", m.interface));
                }
            }
            text.push('\n');
            text.push_str(c.text.trim_start_matches(['\n', '\r']).trim_end());
            text.push('\n');
        }
        None => {
            if let Some((_, m)) = hit.member {
                text.push_str(&format!(
                    "{}.{}: declared in facts.toml, no chunk documents it\n",
                    m.interface, m.name
                ));
            } else if let Some(i) = hit.interface {
                text.push_str(&format!(
                    "{i}: no chunk of its own; its members are documented\n"
                ));
            }
        }
    }
    if let Some(iface) = hit.interface {
        text.push_str(&format!("\nMembers of {iface} ({}):\n", members.len()));
        for m in &members {
            let from = if m.interface == iface {
                String::new()
            } else {
                format!("  (from {})", m.interface)
            };
            if m.overloads.is_empty() {
                text.push_str(&format!("  {}{from}\n", m.name));
            }
            for sig in &m.overloads {
                text.push_str(&format!("  {}{from}\n", sig.text));
            }
        }
    }
    let member_json = |m: &grounded_docs::Member| json!({"name": m.name, "interface": m.interface, "signatures": sigs(m)});
    Answer::ok(
        text,
        json!({
            "name": name,
            "documented": true,
            "title": hit.chunk.map(|c| c.title.clone()),
            "source": hit.chunk.map(|c| format!("{}:{}", c.file, c.line)),
            "text": hit.chunk.map(|c| c.text.clone()),
            "interface": hit.interface.or(hit.member.map(|(i, _)| i)),
            "member": hit.member.map(|(_, m)| member_json(m)),
            "members": members.iter().map(|m| member_json(m)).collect::<Vec<_>>(),
        }),
    )
}
