//! What turns "not found" into "do this instead": near names by edit distance, the
//! members of the construct a wrong name seems to belong to, and the docs to read.

use crate::Related;
use grounded_docs::Corpus;

/// The nearest names to `wrong` among `candidates`, best first, at most three. Near
/// means a Damerau–Levenshtein distance (case-insensitive) of at most a third of the
/// name's length (at least 2), or one name containing the other.
pub fn near<'c>(wrong: &str, candidates: impl IntoIterator<Item = &'c str>) -> Vec<&'c str> {
    let w = wrong.to_ascii_lowercase();
    // Short names are near almost anything: `x` is not a typo of `f`.
    let limit = match w.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        n => (n / 3).max(2),
    };
    let mut scored: Vec<(usize, &'c str)> = candidates
        .into_iter()
        .filter(|c| *c != wrong)
        .filter_map(|c| {
            let lc = c.to_ascii_lowercase();
            let d = strsim::damerau_levenshtein(&w, &lc);
            // One name inside the other counts when it is most of it (`tableCell` for
            // `tableCellEnd`), not a common word inside a long name (`Object`).
            let (short, long) = if lc.len() < w.len() {
                (&lc, &w)
            } else {
                (&w, &lc)
            };
            let contains = short.len() >= 4
                && short.len() * 3 >= long.len() * 2
                && long.contains(short.as_str());
            (d <= limit || contains).then_some((if contains { d.min(limit) } else { d }, c))
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// [`near`] on an interface with loose member names (`docs::family`): names compared
/// once lowercased with underscores removed, so `pageOrign` is near `PAGE_ORIGIN`,
/// which the plain distance between the spellings would not say.
pub fn near_loose<'c>(wrong: &str, candidates: impl IntoIterator<Item = &'c str>) -> Vec<&'c str> {
    let fold = |s: &str| s.replace('_', "").to_ascii_lowercase();
    let all: Vec<(String, &'c str)> = candidates.into_iter().map(|c| (fold(c), c)).collect();
    let w = fold(wrong);
    near(&w, all.iter().map(|(f, _)| f.as_str()))
        .into_iter()
        .filter_map(|f| all.iter().find(|(g, _)| g == f).map(|(_, c)| *c))
        .collect()
}

/// `` `a`, `b` or `c` `` for a message.
pub fn or_list(names: &[&str]) -> String {
    join(names, "or")
}

/// `` `a`, `b` and `c` `` for a message.
pub fn and_list(names: &[&str]) -> String {
    join(names, "and")
}

fn join(names: &[&str], word: &str) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} {word} {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// The construct of `iface` whose id the wrong name starts with (`tableCellEnd` →
/// the `table` construct), as a sentence naming its Start, End and the members that
/// share its prefix.
pub fn construct_family(corpus: &Corpus, iface: &str, wrong: &str) -> Option<String> {
    let c = corpus
        .constructs
        .values()
        .filter(|c| corpus.is_a(iface, &c.interface) || c.interface == iface)
        .filter(|c| !c.id.is_empty() && wrong.starts_with(c.id.as_str()))
        .max_by_key(|c| c.id.len())?;
    let mut family: Vec<&str> = corpus
        .members_of(iface)
        .into_iter()
        .map(|m| m.name.as_str())
        .filter(|n| n.starts_with(c.id.as_str()) && *n != c.start && *n != c.end)
        .collect();
    family.sort_unstable();
    let mut all = vec![c.start.as_str()];
    all.extend(family);
    all.push(c.end.as_str());
    Some(format!(
        "the `{}` construct is {}",
        c.id,
        all.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Where the docs describe `iface`: its chunk.
pub fn interface_related(corpus: &Corpus, iface: &str) -> Option<Related> {
    let id = corpus.interfaces.get(iface)?.chunk?;
    // The place only: a cached corpus decodes its chunks' text on first use, and a
    // finding's link must not cost a `check` all of them.
    let (file, line) = corpus.chunks.place(id)?;
    Some(Related {
        file: file.to_string(),
        line,
        message: format!("interface `{iface}`"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names() {
        let c = ["tableStart", "tableEnd", "tableCell", "paragraph"];
        assert_eq!(near("tabelStart", c), vec!["tableStart"]);
        assert_eq!(
            near("borderColour", ["borderColor", "padding"]),
            vec!["borderColor"]
        );
        assert!(near("zzz", c).is_empty());
        assert_eq!(or_list(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
