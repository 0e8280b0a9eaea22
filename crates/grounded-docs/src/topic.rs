//! `resolve_topic`: the phrasebook, from a goal in the user's words to the engine's real
//! symbols.
//!
//! Agents fail here first: asked for "a table of the XML data", they guess at names
//! (`layout.addTable`) instead of finding `tableStart`. The phrasebook is mined from the
//! corpus — construct families, member and interface prose, guide titles, overlay
//! aliases — never written by hand, so it works on an engine it has never seen.
//!
//! Matching is stopword-filtered token overlap ranked by hits. A route is strict only
//! when it explains at least half of the goal's significant words, or two or more of
//! them; otherwise the answer begins `WEAK MATCH`: one shared word is a hint, not a law.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use serde::Serialize;

use super::model::{ChunkKind, Corpus, MemberKind};
use super::search::tokens;

/// What a route leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RouteKind {
    /// A Start/End construct.
    Construct,
    /// A prose guide.
    Guide,
    /// One member.
    Member,
    /// An interface.
    Interface,
}

/// One destination of the phrasebook.
#[derive(Debug, Clone, Serialize)]
pub struct Route {
    /// What it is.
    pub kind: RouteKind,
    /// Its name: construct id, `Interface.member`, interface or guide title.
    pub name: String,
    /// The engine's real symbols to use.
    pub symbols: Vec<String>,
    /// A note on the pattern.
    pub note: String,
    /// The exact next lookup to run.
    pub next_lookup: String,
}

/// One ranked match.
#[derive(Debug, Clone, Serialize)]
pub struct TopicMatch {
    /// The route.
    pub route: Route,
    /// The goal words it explains.
    pub explained: Vec<String>,
    /// Weighted score.
    pub score: u32,
}

/// The phrasebook's answer to a goal.
#[derive(Debug, Clone, Serialize)]
pub struct TopicAnswer {
    /// The goal as asked.
    pub goal: String,
    /// Its significant words (stopwords removed, stemmed).
    pub significant: Vec<String>,
    /// Whether the best route is strict (see the module doc).
    pub strict: bool,
    /// Best first.
    pub matches: Vec<TopicMatch>,
}

/// The mined map from words to routes.
pub struct Phrasebook {
    routes: Vec<Route>,
    postings: HashMap<String, Vec<(u32, u8)>>,
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "into", "on", "onto", "at", "by", "for",
    "from", "with", "without", "as", "is", "are", "be", "been", "it", "its", "this", "that",
    "these", "those", "i", "me", "my", "we", "our", "you", "your", "how", "do", "does", "can",
    "could", "should", "would", "will", "want", "need", "please", "put", "make", "get", "use",
    "using", "some", "any", "all", "each", "every", "what", "which", "when", "where", "there",
    "then", "than", "so", "if", "not", "no", "but", "also", "via", "like", "just", "way", "thing",
    "things", "one", "has", "have", "had", "was", "were", "show", "let", "lets", "them", "they",
    "their", "he", "she", "his", "her", "up", "out", "about", "over", "under", "returns", "return",
    "null", "void", "given", "method", "property",
];

/// Light stemming: plurals to singular, so `numbers` meets `number`.
pub fn stem(w: &str) -> String {
    let w = w.to_lowercase();
    if w.len() > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
    {
        return w[..w.len() - 1].to_string();
    }
    w
}

/// The significant words of a text: tokens, stopwords dropped, stemmed, deduplicated.
pub fn significant(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tokens(text) {
        if t.len() < 2 || t.chars().all(|c| c.is_ascii_digit()) || STOPWORDS.contains(&t.as_str()) {
            continue;
        }
        let s = stem(&t);
        if STOPWORDS.contains(&s.as_str()) {
            continue;
        }
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The prose of a member or interface chunk: the text without signature and relation
/// lines or code, cut to its first two sentences.
fn lead_prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || t.is_empty() || t.starts_with('#') {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("syntax:")
            || lower.starts_with("signature:")
            || lower.starts_with("parent interface")
            || lower.starts_with("constructor:")
        {
            continue;
        }
        out.push_str(t);
        out.push(' ');
        if out.matches(". ").count() >= 2 || out.len() > 300 {
            break;
        }
    }
    out.trim().to_string()
}

fn first_sentence(s: &str) -> String {
    let end = s.find(". ").map(|i| i + 1).unwrap_or(s.len());
    s[..end].to_string()
}

struct Builder {
    routes: Vec<Route>,
    postings: HashMap<String, Vec<(u32, u8)>>,
}

impl Builder {
    fn add(&mut self, route: Route, words: &[(&str, u8)]) -> u32 {
        let id = self.routes.len() as u32;
        self.routes.push(route);
        self.words(id, words);
        id
    }

    fn words(&mut self, id: u32, words: &[(&str, u8)]) {
        let mut best: HashMap<String, u8> = HashMap::new();
        for (text, w) in words {
            for s in significant(text) {
                let e = best.entry(s).or_insert(0);
                *e = (*e).max(*w);
            }
        }
        for (s, w) in best {
            self.postings.entry(s).or_default().push((id, w));
        }
    }
}

impl Phrasebook {
    /// Mines the phrasebook from a corpus.
    pub fn mine(c: &Corpus) -> Phrasebook {
        let mut b = Builder {
            routes: Vec::new(),
            postings: HashMap::new(),
        };
        // Which chunks' code mentions which construct: guide titles become the
        // construct's words, so "display data in a table" meets `tableStart`.
        let mut construct_ids: HashMap<String, u32> = HashMap::new();
        for con in c.constructs.values() {
            let family: Vec<String> = c
                .members_of(&c.globals[&con.global])
                .iter()
                .filter(|m| m.name.starts_with(&con.id) && m.kind == MemberKind::Method)
                .map(|m| format!("{}.{}", con.global, m.name))
                .collect();
            let mut symbols = vec![format!("{}.{}", con.global, con.start)];
            symbols.extend(
                family
                    .into_iter()
                    .filter(|s| !s.ends_with(&con.start) && !s.ends_with(&con.end)),
            );
            symbols.push(format!("{}.{}", con.global, con.end));
            if let Some(ctor) = c.constructors.values().find(|k| k.interface == con.object) {
                symbols.push(format!("new {}()", ctor.name));
            }
            let start_sig = c
                .member(&con.interface, &con.start)
                .and_then(|m| m.signature())
                .map(|s| s.text.clone())
                .unwrap_or_else(|| con.start.clone());
            let mut note = format!(
                "Open with `{}.{}`, close with `{}.{}()`; everything between belongs to the {}.",
                con.global, start_sig, con.global, con.end, con.id
            );
            if let Some(nc) = &con.no_close {
                note.push(' ');
                note.push_str(nc);
            }
            let start_prose = c
                .member(&con.interface, &con.start)
                .and_then(|m| c.member_doc(m))
                .map(lead_prose)
                .unwrap_or_default();
            let obj_prose = c
                .interfaces
                .get(&con.object)
                .and_then(|i| i.chunk)
                .map(|id| lead_prose(&c.chunks[id].text))
                .unwrap_or_default();
            let aliases = con.aliases.join(" ");
            let id = b.add(
                Route {
                    kind: RouteKind::Construct,
                    name: con.id.clone(),
                    symbols,
                    note,
                    next_lookup: format!("grounded lookup {}", con.start),
                },
                &[
                    (&con.id, 3),
                    (&aliases, 3),
                    (&con.start, 2),
                    (&con.object, 2),
                    (&start_prose, 1),
                    (&obj_prose, 1),
                ],
            );
            construct_ids.insert(con.start.clone(), id);
        }
        for (cid, chunk) in c.chunks.iter().enumerate() {
            match c.kinds[cid] {
                ChunkKind::Prose => {
                    let mut symbols: Vec<String> = Vec::new();
                    let mut uses: BTreeSet<u32> = BTreeSet::new();
                    for word in chunk.text.split(|ch: char| {
                        !(ch.is_alphanumeric() || ch == '_' || ch == '$' || ch == '.')
                    }) {
                        let Some((recv, member)) = word.rsplit_once('.') else {
                            continue;
                        };
                        let recv = recv.rsplit('.').next().unwrap_or(recv);
                        if let Some(iface) = c.global_interface(recv) {
                            if c.member(iface, member).is_some() {
                                let s = format!("{recv}.{member}");
                                if !symbols.contains(&s) && symbols.len() < 12 {
                                    symbols.push(s);
                                }
                                if let Some(&r) = construct_ids.get(member) {
                                    uses.insert(r);
                                }
                            }
                        }
                    }
                    let lead = lead_prose(&chunk.text);
                    b.add(
                        Route {
                            kind: RouteKind::Guide,
                            name: chunk.title.clone(),
                            symbols,
                            note: first_sentence(&lead),
                            next_lookup: format!("grounded lookup \"{}\"", chunk.title),
                        },
                        &[(&chunk.title, 3), (&lead, 1)],
                    );
                    for r in uses {
                        b.words(r, &[(&chunk.title, 2)]);
                    }
                }
                ChunkKind::Interface => {
                    let lead = lead_prose(&chunk.text);
                    let mut symbols = vec![chunk.title.clone()];
                    if let Some(g) = c.globals.iter().find(|(_, i)| **i == chunk.title) {
                        symbols.push(format!("global `{}`", g.0));
                    }
                    if let Some(k) = c.constructors.values().find(|k| k.interface == chunk.title) {
                        symbols.push(format!("new {}()", k.name));
                    }
                    b.add(
                        Route {
                            kind: RouteKind::Interface,
                            name: chunk.title.clone(),
                            symbols,
                            note: first_sentence(&lead),
                            next_lookup: format!("grounded lookup {}", chunk.title),
                        },
                        &[(&chunk.title, 3), (&lead, 1)],
                    );
                }
                ChunkKind::Member => {
                    let Some((iface, name)) = super::model::split_member_title(&chunk.title) else {
                        continue;
                    };
                    let Some(m) = c.member(iface, name) else {
                        continue;
                    };
                    let lead = lead_prose(&chunk.text);
                    let recv = c
                        .globals
                        .iter()
                        .find(|(_, i)| c.is_a(i, iface))
                        .map(|(g, _)| g.clone())
                        .unwrap_or_else(|| iface.to_string());
                    let sig = m
                        .signature()
                        .map(|s| s.text.trim_start_matches("readonly ").to_string())
                        .unwrap_or_else(|| name.to_string());
                    b.add(
                        Route {
                            kind: RouteKind::Member,
                            name: format!("{iface}.{name}"),
                            symbols: vec![format!("{recv}.{sig}")],
                            note: first_sentence(&lead),
                            next_lookup: format!("grounded lookup {}", chunk.title),
                        },
                        &[(name, 3), (iface, 2), (&lead, 1)],
                    );
                }
                ChunkKind::Engine => {}
            }
        }
        Phrasebook {
            routes: b.routes,
            postings: b.postings,
        }
    }

    /// Number of routes mined.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// Whether nothing was mined.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// Routes a goal to the engine's symbols, best `limit` first.
    pub fn resolve(&self, goal: &str, limit: usize) -> TopicAnswer {
        let mut sig = significant(goal);
        // Goal words are tracked as a bit set; a goal of more than 64 significant words
        // is a document, not a goal.
        sig.truncate(64);
        let mut acc: HashMap<u32, (u32, u64)> = HashMap::new();
        for (wi, w) in sig.iter().enumerate() {
            if let Some(ps) = self.postings.get(w) {
                for &(r, weight) in ps {
                    let e = acc.entry(r).or_insert((0, 0));
                    e.0 += weight as u32;
                    e.1 |= 1 << wi;
                }
            }
        }
        let mut ranked: Vec<(u32, u32, u64)> =
            acc.into_iter().map(|(r, (s, w))| (r, s, w)).collect();
        let order = |a: &(u32, u32, u64), b: &(u32, u32, u64)| {
            let (ra, rb) = (&self.routes[a.0 as usize], &self.routes[b.0 as usize]);
            b.2.count_ones()
                .cmp(&a.2.count_ones())
                .then(b.1.cmp(&a.1))
                .then(ra.kind.cmp(&rb.kind))
                .then(a.0.cmp(&b.0))
        };
        if ranked.len() > limit && limit > 0 {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_by(order);
        ranked.truncate(limit);
        let matches: Vec<TopicMatch> = ranked
            .into_iter()
            .map(|(r, score, words)| TopicMatch {
                route: self.routes[r as usize].clone(),
                explained: (0..sig.len())
                    .filter(|i| words & (1 << i) != 0)
                    .map(|i| sig[i].clone())
                    .collect(),
                score,
            })
            .collect();
        let strict = matches.first().is_some_and(|m| {
            let n = m.explained.len();
            n >= 2 || (n >= 1 && n * 2 >= sig.len())
        });
        TopicAnswer {
            goal: goal.to_string(),
            significant: sig,
            strict,
            matches,
        }
    }
}

impl fmt::Display for TopicAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.matches.is_empty() {
            writeln!(
                f,
                "NO MATCH: no documented construct, member or guide shares a significant word with \"{}\". Try `grounded lookup <word>` with an engine term.",
                self.goal
            )?;
            return Ok(());
        }
        let best = &self.matches[0];
        if self.strict {
            writeln!(
                f,
                "ROUTE for \"{}\" (explains: {})",
                self.goal,
                best.explained.join(", ")
            )?;
        } else {
            writeln!(
                f,
                "WEAK MATCH for \"{}\": only {} of the goal's words ({}) matched — a hint, not a law. Verify with the lookup below before writing code.",
                self.goal,
                best.explained.len(),
                best.explained.join(", ")
            )?;
        }
        for (i, m) in self.matches.iter().enumerate() {
            let kind = match m.route.kind {
                RouteKind::Construct => "construct",
                RouteKind::Guide => "guide",
                RouteKind::Member => "member",
                RouteKind::Interface => "interface",
            };
            writeln!(
                f,
                "{}. {kind} `{}` (matched: {})",
                i + 1,
                m.route.name,
                m.explained.join(", ")
            )?;
            if !m.route.symbols.is_empty() {
                writeln!(f, "   symbols: {}", m.route.symbols.join(", "))?;
            }
            if !m.route.note.is_empty() {
                writeln!(f, "   note: {}", m.route.note)?;
            }
            writeln!(f, "   next: {}", m.route.next_lookup)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_stopwords() {
        assert_eq!(stem("numbers"), "number");
        assert_eq!(stem("entries"), "entry");
        assert_eq!(stem("class"), "class");
        assert_eq!(significant("put the XML in a table"), vec!["xml", "table"]);
    }
}
