//! What turns "not found" into "do this instead": near names by edit distance, the
//! members of the construct a wrong name seems to belong to, and the docs to read.

use crate::Related;
use grounded_docs::Corpus;

/// The nearest names to `wrong` among `candidates`, best first, at most three. Near
/// means a Damerau–Levenshtein distance (case-insensitive) of at most a third of the
/// name's length (at least 2), or one name containing the other.
pub fn near<'c>(wrong: &str, candidates: impl IntoIterator<Item = &'c str>) -> Vec<&'c str> {
    near_scored(wrong, candidates)
        .into_iter()
        .take(3)
        .map(|(_, c)| c)
        .collect()
}

/// Every candidate [`near`] `wrong` with its distance, best first (distance, then
/// name), each name once.
fn near_scored<'c>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Vec<(usize, &'c str)> {
    let w = wrong.to_ascii_lowercase();
    let w_chars = w.chars().count();
    // Short names are near almost anything: `x` is not a typo of `f`.
    let limit = match w_chars {
        0..=2 => 0,
        3..=5 => 1,
        n => (n / 3).max(2),
    };
    let mut scored: Vec<(usize, &'c str)> = candidates
        .into_iter()
        .filter(|c| *c != wrong)
        .filter_map(|c| {
            // One name inside the other counts when it is most of it (`tableCell` for
            // `tableCellEnd`), not a common word inside a long name (`Object`). Byte
            // lengths: lowercasing ASCII keeps them.
            let (short, long) = (c.len().min(w.len()), c.len().max(w.len()));
            let may_contain = short >= 4 && short * 3 >= long * 2;
            // The distance is at least the difference of the lengths in characters:
            // past the limit, a candidate can only be near by containing (scored at the
            // limit), and most of a large corpus is rejected here without lowercasing it
            // or filling a distance table (issue 48: scoring every candidate of a
            // project's names was 2% of a project's check).
            let c_chars = c.chars().count();
            let far = c_chars.abs_diff(w_chars) > limit;
            if far && !may_contain {
                return None;
            }
            let lc = c.to_ascii_lowercase();
            let contains = may_contain && {
                let (short, long) = if lc.len() < w.len() {
                    (&lc, &w)
                } else {
                    (&w, &lc)
                };
                long.contains(short.as_str())
            };
            if far {
                return contains.then_some((limit, c));
            }
            let d = strsim::damerau_levenshtein(&w, &lc);
            (d <= limit || contains).then_some((if contains { d.min(limit) } else { d }, c))
        })
        .collect();
    best_first(&mut scored);
    scored
}

/// Sorts scored names best first and keeps each name once (a name has one distance, so
/// its copies are neighbours).
fn best_first(scored: &mut Vec<(usize, &str)>) {
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
}

/// [`near`] for the names declared nowhere of one check, whose candidates are mostly
/// the same at every site: the docs' globals and the project's names (`fixed`), beside
/// the few bindings visible at the site (`local`). The fixed part is scored once per
/// wrong name and family, and only its best three are kept: the best three of all are
/// among them and the local ones.
///
/// Why: a real 84,000-line Photoshop script (six copies of a project's scripts) has
/// 18,000 findings of 15 names declared nowhere (`activeDocument` 10,890 times), and
/// scoring the whole corpus's globals at each was half of its check's CPU (issue 48).
#[derive(Debug, Default)]
pub(crate) struct NearMemo(BestByName);

/// Near names kept by family and wrong name: the best three, with their distances.
type BestByName = std::collections::HashMap<(u8, String), Vec<(usize, String)>>;

/// The best three of `scored`, owned.
fn best_three(scored: Vec<(usize, &str)>) -> Vec<(usize, String)> {
    scored
        .into_iter()
        .take(3)
        .map(|(d, c)| (d, c.to_string()))
        .collect()
}

/// [`NearMemo`]'s first tier for a run that checks many scripts against one corpus:
/// the candidates that come from the corpus alone (its globals, the language's
/// built-ins) are scored once per wrong name and family for the whole run, not once
/// per script.
///
/// Why: a real 392-file Photoshop project misspells the same dozen globals in most of
/// its files, and scoring the corpus's globals again in each file was 8% of its check
/// (issue 48). The best three of all candidates are among the best three of each part,
/// so the answer cannot change.
#[derive(Debug, Default)]
pub(crate) struct RunNear(std::sync::Mutex<BestByName>);

impl RunNear {
    /// The best three of `corpus()` for `wrong` in `family`, scored at most once per
    /// run (two threads may both score a name first; they find the same three).
    fn best<'c, I: IntoIterator<Item = &'c str>>(
        &self,
        family: u8,
        wrong: &str,
        corpus: impl FnOnce() -> I,
    ) -> Vec<(usize, String)> {
        let key = (family, wrong.to_string());
        if let Some(kept) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return kept;
        }
        // Scored outside the lock: the other threads' files go on meanwhile.
        let kept = best_three(near_scored(wrong, corpus()));
        if let Ok(mut m) = self.0.lock() {
            m.entry(key).or_insert_with(|| kept.clone());
        }
        kept
    }
}

impl NearMemo {
    /// The nearest names to `wrong` (at most three, best first) among `corpus()` (the
    /// same for every script of the corpus), `file()` (the same at every site of this
    /// script) and `local`, as [`near`] answers for all three. With `run`, the corpus
    /// part is scored once for the whole run ([`RunNear`]).
    pub(crate) fn near<'c, 'f, 'l, I, J>(
        &mut self,
        run: Option<&RunNear>,
        family: u8,
        wrong: &str,
        corpus: impl FnOnce() -> I,
        file: impl FnOnce() -> J,
        local: impl IntoIterator<Item = &'l str>,
    ) -> Vec<String>
    where
        I: IntoIterator<Item = &'c str>,
        J: IntoIterator<Item = &'f str>,
    {
        let key = (family, wrong.to_string());
        let kept = self.0.entry(key).or_insert_with(|| match run {
            Some(run) => {
                let mut all = run.best(family, wrong, corpus);
                all.extend(best_three(near_scored(wrong, file())));
                let mut scored: Vec<(usize, &str)> =
                    all.iter().map(|(d, c)| (*d, c.as_str())).collect();
                best_first(&mut scored);
                best_three(scored)
            }
            None => {
                // One by one: each pushed name shortens to the list's lifetime.
                let mut all: Vec<&str> = Vec::new();
                for c in corpus() {
                    all.push(c);
                }
                for c in file() {
                    all.push(c);
                }
                best_three(near_scored(wrong, all))
            }
        });
        let mut all: Vec<(usize, &str)> = kept.iter().map(|(d, c)| (*d, c.as_str())).collect();
        all.extend(near_scored(wrong, local));
        best_first(&mut all);
        all.into_iter()
            .take(3)
            .map(|(_, c)| c.to_string())
            .collect()
    }
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

    /// [`near`] as it was before the length filter: every candidate scored.
    fn near_scoring_all<'c>(wrong: &str, candidates: &[&'c str]) -> Vec<&'c str> {
        let w = wrong.to_ascii_lowercase();
        let limit = match w.chars().count() {
            0..=2 => 0,
            3..=5 => 1,
            n => (n / 3).max(2),
        };
        let mut scored: Vec<(usize, &'c str)> = candidates
            .iter()
            .copied()
            .filter(|c| *c != wrong)
            .filter_map(|c| {
                let lc = c.to_ascii_lowercase();
                let d = strsim::damerau_levenshtein(&w, &lc);
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

    /// A repeatable random index below `n` at each call (xorshift), for the tests that
    /// compare two ways of answering on many generated names.
    fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// The filter before the distance cannot change an answer: on names and their
    /// typos (dropped, doubled, swapped, changed letters, case, prefixes and suffixes,
    /// non-ASCII), the filtered [`near`] answers what scoring every candidate answers.
    #[test]
    fn the_length_filter_never_changes_the_answer() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        let stems = [
            "table",
            "Start",
            "End",
            "cell",
            "row",
            "page",
            "Brek",
            "paragraph",
            "é",
            "ü",
            "x",
            "ab",
            "Layout",
            "border",
            "Colour",
            "_",
            "item",
            "list",
            "format",
            "9",
        ];
        let mut corpus: Vec<String> = Vec::new();
        for _ in 0..600 {
            let parts = 1 + next(4);
            corpus.push((0..parts).map(|_| stems[next(stems.len())]).collect());
        }
        let names: Vec<&str> = corpus.iter().map(String::as_str).collect();
        let mut wrongs: Vec<String> = Vec::new();
        for _ in 0..400 {
            let mut w: Vec<char> = names[next(names.len())].chars().collect();
            match next(7) {
                0 if !w.is_empty() => {
                    w.remove(next(w.len()));
                }
                1 if !w.is_empty() => {
                    let i = next(w.len());
                    w.insert(i, w[i]);
                }
                2 if w.len() > 1 => {
                    let i = next(w.len() - 1);
                    w.swap(i, i + 1);
                }
                3 if !w.is_empty() => {
                    let i = next(w.len());
                    w[i] = 'q';
                }
                4 => w.extend("End".chars()),
                5 => w.truncate(w.len() * 2 / 3),
                _ => w = w.iter().map(|c| c.to_ascii_uppercase()).collect(),
            }
            wrongs.push(w.into_iter().collect());
        }
        let mut found = 0;
        for w in &wrongs {
            let fast = near(w, names.iter().copied());
            assert_eq!(fast, near_scoring_all(w, &names), "for {w:?}");
            found += usize::from(!fast.is_empty());
        }
        assert!(found > 100, "the typos found near names: {found}");
    }

    /// Splitting the candidates into a kept part and a local one never changes the
    /// answer: on random names, typos and splits, [`NearMemo::near`] answers what
    /// [`near`] answers for all of them, asked once or again for the same name.
    #[test]
    fn the_memo_answers_what_near_answers() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let names = [
            "activeDocument",
            "activeLayer",
            "documents",
            "document",
            "doAction",
            "doActions",
            "preferences",
            "preference",
            "open",
            "opens",
            "charIDToTypeID",
            "stringIDToTypeID",
            "executeAction",
            "executeActionGet",
            "app",
            "ap",
            "layer",
            "layers",
            "tableCell",
            "tableCellEnd",
            "x",
            "xy",
        ];
        for round in 0..400 {
            // One run: its corpus part is the same for every file; each file has its own
            // part and its own memo, and the run's memo serves them all (or is absent,
            // as in the editor).
            let run = RunNear::default();
            let corpus: Vec<&str> = names.iter().copied().filter(|_| next(3) > 0).collect();
            let mut files: Vec<(Vec<&str>, NearMemo)> = (0..2)
                .map(|_| {
                    let own = names.iter().copied().filter(|_| next(5) == 0).collect();
                    (own, NearMemo::default())
                })
                .collect();
            let with_run = round % 2 == 0;
            for _ in 0..6 {
                let (file, memo) = &mut files[next(2)];
                let fixed: Vec<&str> = corpus.iter().chain(file.iter()).copied().collect();
                let local: Vec<&str> = names.iter().copied().filter(|_| next(4) == 0).collect();
                let base = names[next(names.len())];
                let mut w: Vec<char> = base.chars().collect();
                match next(4) {
                    0 if w.len() > 1 => {
                        w.remove(next(w.len()));
                    }
                    1 => w.insert(next(w.len() + 1), 'e'),
                    2 if w.len() > 1 => {
                        let i = next(w.len() - 1);
                        w.swap(i, i + 1);
                    }
                    _ => {}
                }
                let wrong: String = w.into_iter().collect();
                let all: Vec<&str> = fixed.iter().chain(&local).copied().collect();
                let want: Vec<String> = near(&wrong, all).into_iter().map(String::from).collect();
                let got = memo.near(
                    with_run.then_some(&run),
                    0,
                    &wrong,
                    || corpus.iter().copied(),
                    || file.iter().copied(),
                    local.iter().copied(),
                );
                assert_eq!(got, want, "round {round}: {wrong} in {fixed:?} + {local:?}");
            }
        }
    }
}
