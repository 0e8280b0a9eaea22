//! A documented name as a script or a reader writes it (`Layout`, `layout.tableStart`,
//! `Layout-tableStart`, `loadJS`, a guide's title), and the names near one the docs do
//! not have. `grounded doc` and the MCP server's `get_doc` both answer from here: two
//! copies of the resolution would drift, and an agent would read one answer where a
//! user reads another.

use crate::model::{split_member_title, GLOBAL_INTERFACE};
use crate::{Chunk, Corpus, Member};

/// What a documented name resolved to: a chunk, and for an interface its members.
#[derive(Debug, Clone, Copy)]
pub struct NameHit<'a> {
    /// The chunk that documents it (none for an `[extra]` member or an interface known
    /// only from its members' chunks).
    pub chunk: Option<&'a Chunk>,
    /// The interface the name is (an interface, or a global's interface).
    pub interface: Option<&'a str>,
    /// The member the name is, with the interface it was asked on.
    pub member: Option<(&'a str, &'a Member)>,
}

/// Resolves a name the way a script or a reader writes it; `None` when the docs
/// document no such name.
pub fn resolve<'a>(corpus: &'a Corpus, name: &str) -> Option<NameHit<'a>> {
    let name = name.trim();
    // A module by its specifier (`grounded doc "k6/http"`): its exports are its
    // interface's members.
    if let Some(iface) = corpus.module_interface(name.trim_matches(['"', '\''])) {
        return Some(NameHit {
            chunk: corpus
                .interfaces
                .get(iface)
                .and_then(|i| i.chunk)
                .map(|id| corpus.chunk(id)),
            interface: Some(iface),
            member: None,
        });
    }
    let iface_of = |n: &str| -> Option<&'a str> {
        if let Some((k, _)) = corpus.interfaces.get_key_value(n) {
            return Some(k.as_str());
        }
        corpus.global_interface(n)
    };
    let split = name.split_once('.').or_else(|| split_member_title(name));
    if let Some((owner, member)) = split {
        if let Some(iface) = iface_of(owner) {
            if let Some(m) = corpus.member(iface, member) {
                return Some(NameHit {
                    chunk: m.chunk.map(|id| corpus.chunk(id)),
                    interface: None,
                    member: Some((iface, m)),
                });
            }
        }
    } else if let Some(iface) = iface_of(name) {
        let chunk = corpus.interfaces.get(iface).and_then(|i| i.chunk);
        return Some(NameHit {
            chunk: chunk.map(|id| corpus.chunk(id)),
            interface: Some(iface),
            member: None,
        });
    } else if let Some(m) = corpus.global_member(name) {
        return Some(NameHit {
            chunk: m.chunk.map(|id| corpus.chunk(id)),
            interface: None,
            member: Some((GLOBAL_INTERFACE, m)),
        });
    }
    // A guide or any other chunk, by its title.
    let chunk = corpus.chunks.iter().find(|c| c.title == name).or_else(|| {
        corpus
            .chunks
            .iter()
            .find(|c| c.title.eq_ignore_ascii_case(name))
    })?;
    Some(NameHit {
        chunk: Some(chunk),
        interface: None,
        member: None,
    })
}

/// The documented names near `name`, nearest first, at most `limit`: chunk titles and
/// globals within a small edit distance of the whole name, and `Interface.member` for
/// members near its last part (`tabelStrat` finds `Layout.tableStart`: a swapped pair of
/// letters counts one edit, as a typist makes it). What an undocumented name's answer
/// offers instead of a bare "not found".
pub fn near_names(corpus: &Corpus, name: &str, limit: usize) -> Vec<String> {
    let wanted = name.trim().to_lowercase();
    let last = wanted
        .rsplit(['.', '-'])
        .next()
        .unwrap_or(&wanted)
        .to_string();
    // The distance is at least the difference in length: most of a large corpus's names
    // are passed over on that alone. Computing a distance to each of the 20,000 names of
    // `benches/mcp.rs`'s corpus made an empty lookup hundreds of times slower than a hit.
    // `osa_distance` counts a swapped pair as one edit without the general Damerau
    // distance's map per call.
    let close = |a: &str, b: &str| -> Option<usize> {
        let bound = 2.max(b.len() / 4);
        if a.len().abs_diff(b.len()) > bound {
            return None;
        }
        let d = strsim::osa_distance(&a.to_lowercase(), b);
        (d <= bound).then_some(d)
    };
    let mut near: Vec<(usize, String)> = corpus
        .chunks
        .iter()
        .map(|c| c.title.as_str())
        .chain(corpus.globals.keys().map(String::as_str))
        .filter_map(|t| close(t, &wanted).map(|d| (d, t.to_string())))
        .collect();
    if !last.is_empty() {
        for (iface, i) in &corpus.interfaces {
            for m in i.members.keys() {
                if let Some(d) = close(m, &last) {
                    near.push((d, format!("{iface}.{m}")));
                }
            }
        }
    }
    near.sort();
    near.dedup_by(|a, b| a.1 == b.1);
    near.into_iter().take(limit).map(|(_, t)| t).collect()
}
