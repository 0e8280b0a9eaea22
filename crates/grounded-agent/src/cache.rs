//! `cache`: query normalisation, the fuzzy turn cache, and the persistent lookup cache.
//!
//! Rules of the persistent cache (each learned the hard way):
//!
//! 1. **Flagged answers are never stored.** A lookup cache once held 126 entries out of
//!    137 that carried warnings: it had stored the retrieval step's invented APIs and
//!    served them back as facts. An answer whose self-audit found anything is not cached,
//!    in the turn or on disk.
//! 2. **The key is the normalised query, the corpus hash and the model.** A changed
//!    corpus changes the hash, so an answer composed from old docs is never served
//!    against new ones; another model composes afresh. A hit is served as `disk`,
//!    never as `live`: the user reading a transcript must see it was not composed now.
//! 3. **A bad file loses nothing and stops nothing.** An unreadable or corrupt cache is an
//!    empty cache; a corrupt line is skipped; writes go to a temp file and a rename, so a
//!    crash mid-write leaves the previous file whole.
//! 4. **Exact keys only across turns.** Fuzzy matching is for rewordings inside one turn,
//!    where the conversation shows what was asked; across turns a near miss is a guess.
//!
//! Normalisation is deliberately a string job, not embeddings: a per-probe model call on
//! the hot path for a string problem. Lowercase, drop stopwords, stem lightly (a double
//! consonant collapses: "splitting" → "split"), sort the tokens.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use grounded_docs::Corpus;

/// Words that carry no topic. Question scaffolding ("how do I") is what rewordings vary.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "into", "on", "onto", "at", "by", "for",
    "from", "with", "as", "is", "are", "be", "been", "it", "its", "this", "that", "these", "those",
    "i", "me", "my", "we", "our", "you", "your", "how", "do", "does", "did", "can", "could",
    "should", "would", "will", "want", "need", "please", "what", "which", "when", "where", "there",
    "then", "so", "if", "some", "any", "way", "ways", "there", "about", "use", "using", "example",
    "examples", "way", "show", "me", "tell", "is", "there",
];

/// Light stemming: suffixes off, then a final double consonant collapses and a final `e`
/// drops, so "creating", "create", "creates" and "created" meet, and "splitting" is
/// "split". Applied the same way to both sides, it only has to be consistent.
pub fn stem(word: &str) -> String {
    let mut w = word.to_lowercase();
    let n = w.chars().count();
    // The plural first, then the verb ending: "paddings" → "padding" → "padd".
    if n > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if n > 4
        && w.ends_with("es")
        && ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|s| w[..w.len() - 2].ends_with(s))
    {
        w.truncate(w.len() - 2);
    } else if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        w.truncate(w.len() - 1);
    }
    let n = w.chars().count();
    if n > 5 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
    } else if n > 4 && w.ends_with("ed") {
        w.truncate(w.len() - 2);
    }
    let b = w.as_bytes();
    if b.len() > 3 {
        let (x, y) = (b[b.len() - 1], b[b.len() - 2]);
        if x == y && x.is_ascii_alphabetic() && !b"aeiou".contains(&x) {
            w.truncate(w.len() - 1);
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.truncate(w.len() - 1);
    }
    w
}

/// The normalised form of a query: lowercase words (API names kept whole), stopwords
/// dropped, stemmed, deduplicated, sorted.
pub fn normalize(query: &str) -> String {
    let mut toks: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|t| !t.is_empty())
        .map(|t| t.to_lowercase())
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .map(|t| stem(&t))
        .collect();
    toks.sort();
    toks.dedup();
    toks.join(" ")
}

/// How alike two normalised queries are, 0 to 1 (a difflib-style ratio over characters).
pub fn similarity(a: &str, b: &str) -> f64 {
    strsim::normalized_levenshtein(a, b)
}

/// The turn's cache of unflagged lookup answers, by normalised query.
#[derive(Debug, Default)]
pub struct TurnCache {
    entries: Vec<(String, String)>,
}

impl TurnCache {
    /// The cached answer for `query`: an exact normalised key, else the closest key at or
    /// above `threshold`.
    pub fn get(&self, query: &str, threshold: f64) -> Option<&str> {
        let key = normalize(query);
        if key.is_empty() {
            return None;
        }
        if let Some((_, a)) = self.entries.iter().find(|(k, _)| *k == key) {
            return Some(a);
        }
        self.entries
            .iter()
            .map(|(k, a)| (similarity(k, &key), a))
            .filter(|(s, _)| *s >= threshold)
            .max_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, a)| a.as_str())
    }

    /// Stores an answer. Callers store only unflagged answers (rule 1 above).
    pub fn insert(&mut self, query: &str, answer: &str) {
        let key = normalize(query);
        if key.is_empty() {
            return;
        }
        self.entries.retain(|(k, _)| *k != key);
        self.entries.push((key, answer.to_string()));
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A stable hash of the corpus's content (FNV-1a over every chunk's source, title and
/// text): the std hasher may change between Rust releases, which would silently empty
/// every user's cache — or worse, never.
pub fn corpus_hash(corpus: &Corpus) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes().chain(std::iter::once(0u8)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in &corpus.chunks {
        eat(&c.file);
        eat(&c.title);
        eat(&c.text);
    }
    format!("{h:016x}")
}

/// The most answers the cross-turn cache keeps; past it the oldest written go first
/// (at a few kilobytes an answer, about two megabytes).
pub const MAX_ENTRIES: usize = 500;

/// The environment variable that turns the cross-turn lookup cache off (`off` or `0`).
pub const OFF_ENV: &str = "GROUNDED_LOOKUP_CACHE";

/// The persistent cache's file: `lookups.jsonl` in the user's cache folder, the one the
/// corpus cache uses (`GROUNDED_CACHE_DIR`, else `$XDG_CACHE_HOME/grounded`, else
/// `~/.cache/grounded`; `%LOCALAPPDATA%\grounded` on Windows). Never inside the project:
/// a shared repository would hand one user's cached answers to another. `None` when
/// `GROUNDED_LOOKUP_CACHE=off` (or `0`), or `GROUNDED_CACHE_DIR` is empty: no cache.
pub fn user_cache_path() -> Option<PathBuf> {
    let off = std::env::var(OFF_ENV).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        )
    });
    if off {
        return None;
    }
    let dir = match grounded_docs::cache::cache_dir() {
        Some(d) => d,
        None if std::env::var_os(grounded_docs::cache::CACHE_DIR_ENV).is_some() => return None,
        None if cfg!(windows) => PathBuf::from(std::env::var_os("LOCALAPPDATA")?).join("grounded"),
        None => return None,
    };
    Some(dir.join("lookups.jsonl"))
}

#[derive(Serialize, Deserialize)]
struct Line {
    corpus: String,
    /// The model that composed the answer (lines written before it was a key have none,
    /// and are never served).
    #[serde(default)]
    model: String,
    query: String,
    answer: String,
    /// When it was written (a counter that only grows): the oldest go first.
    #[serde(default)]
    at: u64,
}

/// The key of one answer: the corpus's content hash, the model, the normalised query.
type Key = (String, String, String);

/// The persistent lookup cache: one JSON object a line,
/// `{corpus, model, query, answer, at}`.
#[derive(Debug)]
pub struct LookupStore {
    path: PathBuf,
    corpus: String,
    model: String,
    entries: BTreeMap<Key, (u64, String)>,
}

impl LookupStore {
    /// Opens the cache at `path` for a corpus of hash `corpus` and the model `model`. A
    /// missing or unreadable file is an empty cache (rule 3).
    pub fn open(path: &Path, corpus: &str, model: &str) -> LookupStore {
        let mut entries = BTreeMap::new();
        if let Ok(text) = std::fs::read_to_string(path) {
            for l in text.lines() {
                if let Ok(e) = serde_json::from_str::<Line>(l) {
                    entries.insert((e.corpus, e.model, e.query), (e.at, e.answer));
                }
            }
        }
        LookupStore {
            path: path.to_path_buf(),
            corpus: corpus.to_string(),
            model: model.to_string(),
            entries,
        }
    }

    fn key(&self, query: &str) -> Key {
        (self.corpus.clone(), self.model.clone(), normalize(query))
    }

    /// The stored answer for `query` under this corpus and model: exact normalised key
    /// (rule 4).
    pub fn get(&self, query: &str) -> Option<&str> {
        self.entries.get(&self.key(query)).map(|(_, s)| s.as_str())
    }

    /// Stores an answer unless it is `flagged` (rule 1), keeps the newest
    /// [`MAX_ENTRIES`], and writes the file through a temp file and a rename (rule 3).
    /// Returns whether it was stored.
    pub fn put(&mut self, query: &str, answer: &str, flagged: bool) -> std::io::Result<bool> {
        let key = self.key(query);
        if flagged || key.2.is_empty() {
            return Ok(false);
        }
        let at = self.entries.values().map(|(t, _)| *t).max().unwrap_or(0) + 1;
        self.entries.insert(key, (at, answer.to_string()));
        while self.entries.len() > MAX_ENTRIES {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (t, _))| *t)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.entries.remove(&k),
                None => break,
            };
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.path.with_extension("tmp");
        {
            let mut f = std::fs::File::create(&tmp)?;
            for ((corpus, model, query), (at, answer)) in &self.entries {
                let line = serde_json::to_string(&Line {
                    corpus: corpus.clone(),
                    model: model.clone(),
                    query: query.clone(),
                    answer: answer.clone(),
                    at: *at,
                })
                .map_err(std::io::Error::other)?;
                writeln!(f, "{line}")?;
            }
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &self.path)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stemming_meets_word_forms() {
        assert_eq!(stem("splitting"), "split");
        assert_eq!(stem("split"), "split");
        assert_eq!(stem("tables"), stem("table"));
        assert_eq!(stem("creating"), stem("create"));
        assert_eq!(stem("created"), stem("create"));
        assert_eq!(stem("entries"), "entry");
        assert_eq!(stem("classes"), stem("class"));
    }

    #[test]
    fn normalisation_drops_scaffolding_and_sorts() {
        assert_eq!(
            normalize("How do I create a table?"),
            normalize("create tables how")
        );
        assert_eq!(normalize("table create"), normalize("Create TABLE"));
        assert_ne!(normalize("create table"), normalize("create box"));
        // API names are kept whole, not split into their camelCase parts.
        assert_eq!(normalize("layout.tableStart"), "layout tablestart");
    }

    #[test]
    fn fuzzy_threshold_keeps_neighbours_apart_and_rewordings_together() {
        let mut c = TurnCache::default();
        c.insert("create table", "TABLE ANSWER");
        assert_eq!(c.get("how do I create a table", 0.8), Some("TABLE ANSWER"));
        assert_eq!(c.get("create tables how", 0.8), Some("TABLE ANSWER"));
        assert_eq!(c.get("create box", 0.8), None);
        assert!(similarity(&normalize("create table"), &normalize("create box")) < 0.8);
        // A close rewording (one word's form) still meets at 0.8.
        c.insert("add page numbers to the footer", "FOOTER");
        assert_eq!(c.get("adding page number in footers", 0.8), Some("FOOTER"));
        assert_eq!(c.get("footer page number adds", 0.8), Some("FOOTER"));
        // A different question sharing one word does not.
        assert_eq!(c.get("footer image", 0.8), None);
        // Nothing meaningful: no key at all.
        assert_eq!(c.get("how do I", 0.8), None);
    }

    #[test]
    fn near_miss_above_threshold_hits() {
        let mut c = TurnCache::default();
        c.insert("table cell padding", "PAD");
        // A typo is close, not equal: it hits at 0.8 and misses when only exact counts.
        assert_eq!(c.get("tabel cell padding", 0.8), Some("PAD"));
        assert_eq!(c.get("table cells paddings", 1.0), Some("PAD"));
        assert_eq!(c.get("tabel cell padding", 1.0), None);
    }

    #[test]
    fn store_never_keeps_flagged_answers_and_keys_by_corpus() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cache/lookups.jsonl");
        let mut s = LookupStore::open(&p, "aaaa", "m");
        assert!(!s.put("create table", "POISON", true).unwrap());
        assert_eq!(s.get("create table"), None);
        assert!(s.put("create table", "GOOD", false).unwrap());
        let s2 = LookupStore::open(&p, "aaaa", "m");
        assert_eq!(s2.get("how do I create a table"), Some("GOOD"));
        let other = LookupStore::open(&p, "bbbb", "m");
        assert_eq!(other.get("create table"), None);
        assert!(!std::fs::read_to_string(&p).unwrap().contains("POISON"));
        // Another model composes afresh.
        assert_eq!(
            LookupStore::open(&p, "aaaa", "other").get("create table"),
            None
        );
    }

    #[test]
    fn store_keeps_the_newest_entries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lookups.jsonl");
        let mut s = LookupStore::open(&p, "h", "m");
        for i in 0..MAX_ENTRIES + 2 {
            let key = s.key(&format!("query{i}"));
            s.entries.insert(key, (i as u64 + 1, "A".into()));
        }
        s.put(&format!("query{}", MAX_ENTRIES + 2), "A", false)
            .unwrap();
        let s = LookupStore::open(&p, "h", "m");
        assert_eq!(s.entries.len(), MAX_ENTRIES);
        assert_eq!(s.get("query0"), None);
        assert_eq!(s.get(&format!("query{}", MAX_ENTRIES + 2)), Some("A"));
    }

    #[test]
    fn a_corrupt_store_is_an_empty_one_and_keeps_good_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lookups.jsonl");
        std::fs::write(
            &p,
            "not json\n{\"corpus\":\"h\",\"query\":\"creat tabl\",\"answer\":\"A\"}\n{\"corpus\":",
        )
        .unwrap();
        let s = LookupStore::open(&p, "h", "");
        assert_eq!(s.get("create table"), Some("A"));
        let missing = LookupStore::open(&dir.path().join("nope/x.jsonl"), "h", "");
        assert_eq!(missing.get("create table"), None);
    }

    #[test]
    fn corpus_hash_follows_content() {
        let a = Corpus::from_texts(&[("a.md", "# Layout\n\nText.\n")]).unwrap();
        let b = Corpus::from_texts(&[("a.md", "# Layout\n\nText!\n")]).unwrap();
        let a2 = Corpus::from_texts(&[("a.md", "# Layout\n\nText.\n")]).unwrap();
        assert_eq!(corpus_hash(&a), corpus_hash(&a2));
        assert_ne!(corpus_hash(&a), corpus_hash(&b));
    }
}
