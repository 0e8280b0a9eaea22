//! `baseline`: today's findings recorded, so that CI fails on new ones alone
//! (`check --write-baseline FILE`, `check --baseline FILE`, `[check] baseline`).
//!
//! An entry is the file (relative to the project root, `/`-separated), the code, the
//! name the finding is about and the trimmed text of its line, with a count: never a
//! line number. Baselines keyed by line broke on the first edit above a finding, and
//! every old finding came back as new in the pull request that touched the file.
//! The count makes it a multiset: a second copy of a baselined line is new.
//!
//! The file is a JSON array sorted by entry, one entry a line, so that a pull request
//! that fixes a finding shows one removed line.

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use crate::Finding;

/// What a finding is, for the baseline: nothing that moves when lines are added above.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Key {
    /// The file, relative to the project root, `/`-separated.
    pub file: String,
    /// The finding's code.
    pub code: String,
    /// The text the finding is about (its range; the first line of it).
    pub name: String,
    /// The trimmed text of the finding's line.
    pub line: String,
}

/// One entry of a baseline file: a key and how many findings it covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The file, relative to the project root, `/`-separated.
    pub file: String,
    /// The finding's code.
    pub code: String,
    /// The text the finding is about.
    pub name: String,
    /// The trimmed text of the finding's line.
    pub line: String,
    /// How many findings of this key the baseline covers.
    pub count: usize,
}

/// The longest `name` or `line` kept: a minified script's one line would make the
/// baseline as large as the script, and the prefix identifies the line as well.
const MAX_TEXT: usize = 200;

fn clip(s: &str) -> String {
    if s.len() <= MAX_TEXT {
        return s.to_string();
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The key of `f`, a finding of the file `file` (relative to the root) whose text is
/// `text` (`None` when it could not be read back: the name and line stay empty).
pub fn key_of(f: &Finding, file: &str, text: Option<&str>) -> Key {
    let (name, line) = match text {
        Some(t) if f.span.start <= f.span.end && f.span.end <= t.len() => {
            let start = t[..f.span.start].rfind('\n').map_or(0, |i| i + 1);
            let end = t[f.span.start..]
                .find('\n')
                .map_or(t.len(), |i| f.span.start + i);
            let name = t
                .get(f.span.start..f.span.end)
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("")
                .trim();
            let line = t.get(start..end).unwrap_or("").trim();
            (clip(name), clip(line))
        }
        _ => (String::new(), String::new()),
    };
    Key {
        file: file.replace('\\', "/"),
        code: f.code.as_str().to_string(),
        name,
        line,
    }
}

/// A baseline: counts by key. Kept as a hash index into a vector of counts, so that
/// matching copies counts, not keys (a sorted map of 10,000 keys, cloned for every run,
/// was most of the matching's time), hashed with FxHash: SipHash over four strings a
/// key was the rest. The file is the team's own, so hash flooding is no concern.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    index: FxHashMap<Key, usize>,
    counts: Vec<usize>,
}

impl PartialEq for Baseline {
    fn eq(&self, other: &Baseline) -> bool {
        self.entries().eq(other.entries())
    }
}

impl Eq for Baseline {}

/// What matching findings against a baseline gave.
#[derive(Debug, Clone, Default)]
pub struct Matched {
    /// For each key given, whether the baseline covers it (the finding is silenced).
    pub silenced: Vec<bool>,
    /// Entries of the checked files that matched fewer findings than their count: the
    /// entry and how many of its count matched nothing, sorted.
    pub stale: Vec<(Entry, usize)>,
}

impl Baseline {
    fn add(&mut self, key: Key, n: usize) {
        match self.index.get(&key) {
            Some(&i) => self.counts[i] += n,
            None => {
                self.index.insert(key, self.counts.len());
                self.counts.push(n);
            }
        }
    }

    /// A baseline of these findings' keys.
    pub fn record(keys: impl IntoIterator<Item = Key>) -> Baseline {
        let mut b = Baseline::default();
        for k in keys {
            b.add(k, 1);
        }
        b
    }

    /// How many entries (distinct keys) it has.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether it has no entry.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many findings it covers.
    pub fn findings(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The entries, sorted.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        let mut keys: Vec<(&Key, usize)> = self.index.iter().map(|(k, &i)| (k, i)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|(k, i)| entry(k, self.counts[i]))
    }

    /// The file's text: a JSON array, one entry a line, sorted.
    pub fn to_json(&self) -> String {
        self.to_json_counts(&self.counts)
    }

    /// The file's text with `counts` for this baseline's keys (an entry at 0 left out),
    /// serialized from borrowed keys: cloning 10,000 keys to write them was most of
    /// `--prune-baseline`'s time.
    fn to_json_counts(&self, counts: &[usize]) -> String {
        #[derive(Serialize)]
        struct EntryRef<'a> {
            file: &'a str,
            code: &'a str,
            name: &'a str,
            line: &'a str,
            count: usize,
        }
        let mut keys: Vec<(&Key, usize)> = self
            .index
            .iter()
            .filter(|(_, &i)| counts[i] > 0)
            .map(|(k, &i)| (k, i))
            .collect();
        keys.sort_unstable();
        let mut out = String::with_capacity(keys.len() * 96 + 4);
        out.push_str("[\n");
        let n = keys.len();
        for (j, (k, i)) in keys.into_iter().enumerate() {
            let e = EntryRef {
                file: &k.file,
                code: &k.code,
                name: &k.name,
                line: &k.line,
                count: counts[i],
            };
            out.push_str(&serde_json::to_string(&e).unwrap_or_default());
            if j + 1 < n {
                out.push(',');
            }
            out.push('\n');
        }
        out.push_str("]\n");
        out
    }

    /// `--prune-baseline`'s file: the text of [`Baseline::pruned`], with how many
    /// entries it keeps and how many findings it drops, without building the new
    /// baseline (counts lowered in place of 10,000 keys cloned).
    pub fn pruned_json(&self, stale: &[(Entry, usize)]) -> (String, usize, usize) {
        let counts = self.pruned_counts(stale);
        let kept = counts.iter().filter(|&&c| c > 0).count();
        let dropped = self.findings() - counts.iter().sum::<usize>();
        (self.to_json_counts(&counts), kept, dropped)
    }

    fn pruned_counts(&self, stale: &[(Entry, usize)]) -> Vec<usize> {
        let mut counts = self.counts.clone();
        for (e, unmatched) in stale {
            let key = Key {
                file: e.file.clone(),
                code: e.code.clone(),
                name: e.name.clone(),
                line: e.line.clone(),
            };
            if let Some(&i) = self.index.get(&key) {
                counts[i] = counts[i].saturating_sub(*unmatched);
            }
        }
        counts
    }

    /// Reads a baseline file's text. The error is one line: where the text stops being
    /// a baseline and why.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let entries: Vec<Entry> = serde_json::from_str(grounded_textfile::without_bom(text))
            .map_err(|e| {
                format!(
                    "not a grounded baseline at line {} column {}: {}",
                    e.line(),
                    e.column(),
                    first_clause(&e.to_string())
                )
            })?;
        let mut b = Baseline {
            index: FxHashMap::with_capacity_and_hasher(entries.len(), Default::default()),
            counts: Vec::with_capacity(entries.len()),
        };
        for e in entries.into_iter().filter(|e| e.count > 0) {
            let key = Key {
                file: e.file,
                code: e.code,
                name: e.name,
                line: e.line,
            };
            b.add(key, e.count);
        }
        Ok(b)
    }

    /// Matches the findings' keys against the baseline, each entry covering up to its
    /// count of findings in the order given. Stale entries are reported only for files
    /// in `checked` (relative to the root): checking one folder says nothing about the
    /// baseline's entries for the others.
    pub fn apply(&self, keys: &[Key], checked: &HashSet<&str>) -> Matched {
        self.apply_with(keys, checked, |_| false)
    }

    /// [`Baseline::apply`], where the entries of a file that is `gone` (deleted since it
    /// was recorded) are stale too, wherever the run looked: a baseline whose deleted
    /// files' entries were never said stale only grew.
    pub fn apply_with(
        &self,
        keys: &[Key],
        checked: &HashSet<&str>,
        gone: impl Fn(&str) -> bool,
    ) -> Matched {
        let mut left = self.counts.clone();
        let silenced = keys
            .iter()
            .map(|k| match self.index.get(k) {
                Some(&i) if left[i] > 0 => {
                    left[i] -= 1;
                    true
                }
                _ => false,
            })
            .collect();
        // Asked once a file: a 10,000-entry baseline has a few hundred files.
        let mut gone_cache: FxHashMap<&str, bool> = FxHashMap::default();
        let mut stale: Vec<(Entry, usize)> = Vec::new();
        for (k, &i) in &self.index {
            if left[i] == 0 {
                continue;
            }
            let f = k.file.as_str();
            if checked.contains(f) || *gone_cache.entry(f).or_insert_with(|| gone(f)) {
                stale.push((entry(k, self.counts[i]), left[i]));
            }
        }
        stale.sort_unstable_by(|a, b| {
            (&a.0.file, &a.0.code, &a.0.name, &a.0.line)
                .cmp(&(&b.0.file, &b.0.code, &b.0.name, &b.0.line))
        });
        Matched { silenced, stale }
    }
}

impl Baseline {
    /// The baseline less what `stale` says matched nothing (`--prune-baseline`): each
    /// entry's count lowered by its unmatched findings, an entry at 0 dropped. Nothing
    /// is added: ESLint's `--prune-suppressions`, so that keeping the file short never
    /// records a new finding (`--write-baseline` did, and hid it).
    pub fn pruned(&self, stale: &[(Entry, usize)]) -> Baseline {
        let counts = self.pruned_counts(stale);
        let mut out = Baseline::default();
        for (k, &i) in &self.index {
            if counts[i] > 0 {
                out.add(k.clone(), counts[i]);
            }
        }
        out
    }

    /// This baseline with the entries of the files in `files` replaced by `fresh`'s,
    /// and those of a file that is `gone` dropped: `--write-baseline PATHS` updates the
    /// files it checked (it replaced the whole file once: 35 entries became 1).
    pub fn updated(
        &self,
        fresh: &Baseline,
        files: &HashSet<&str>,
        gone: impl Fn(&str) -> bool,
    ) -> Baseline {
        let mut out = Baseline::default();
        for (k, &i) in &self.index {
            if !files.contains(k.file.as_str()) && !gone(&k.file) {
                out.add(k.clone(), self.counts[i]);
            }
        }
        for (k, &i) in &fresh.index {
            out.add(k.clone(), fresh.counts[i]);
        }
        out
    }
}

fn entry(k: &Key, count: usize) -> Entry {
    Entry {
        file: k.file.clone(),
        code: k.code.clone(),
        name: k.name.clone(),
        line: k.line.clone(),
        count,
    }
}

/// serde_json's message without its own " at line L column C" (said once, before it).
fn first_clause(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Code, Span};

    fn key(file: &str, name: &str) -> Key {
        Key {
            file: file.into(),
            code: "member".into(),
            name: name.into(),
            line: format!("layout.{name}();"),
        }
    }

    /// Sorted, one entry a line, and read back to the same baseline.
    #[test]
    fn file_round_trips_sorted_one_entry_a_line() {
        let b = Baseline::record(vec![key("b.js", "x"), key("a.js", "y"), key("a.js", "y")]);
        let text = b.to_json();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].starts_with("{\"file\":\"a.js\""), "{text}");
        assert!(lines[1].contains("\"count\":2"), "{text}");
        assert_eq!(Baseline::parse(&text).unwrap(), b);
    }

    /// A count covers that many findings and no more; an entry that matched less than
    /// its count is stale, for a checked file only.
    #[test]
    fn counts_cover_that_many_and_leftovers_are_stale() {
        let b = Baseline::record(vec![key("a.js", "y"), key("a.js", "y"), key("c.js", "z")]);
        let found = vec![key("a.js", "y"), key("a.js", "y"), key("a.js", "y")];
        let m = b.apply(&found, &HashSet::from(["a.js"]));
        assert_eq!(m.silenced, vec![true, true, false]);
        assert!(m.stale.is_empty());
        let m = b.apply(&found[..1], &HashSet::from(["a.js", "c.js"]));
        assert_eq!(m.stale.len(), 2);
        assert_eq!(m.stale[0].1, 1);
    }

    /// A deleted file's entries are stale wherever the run looked; pruning lowers
    /// counts and drops what reached 0, adding nothing; an update replaces only the
    /// checked files' entries.
    #[test]
    fn gone_files_are_stale_pruning_adds_nothing_updates_keep_the_rest() {
        let b = Baseline::record(vec![
            key("a.js", "y"),
            key("a.js", "y"),
            key("gone.js", "z"),
            key("other.js", "w"),
        ]);
        let found = vec![key("a.js", "y"), key("new.js", "q")];
        let m = b.apply_with(&found, &HashSet::from(["a.js", "new.js"]), |f| {
            f == "gone.js"
        });
        assert_eq!(m.silenced, vec![true, false]);
        let stale: Vec<(&str, usize)> =
            m.stale.iter().map(|(e, n)| (e.file.as_str(), *n)).collect();
        assert_eq!(stale, vec![("a.js", 1), ("gone.js", 1)]);
        let p = b.pruned(&m.stale);
        let left: Vec<(String, usize)> = p.entries().map(|e| (e.file, e.count)).collect();
        assert_eq!(left, vec![("a.js".into(), 1), ("other.js".into(), 1)]);
        // Known-bad for "adds nothing": the new finding's key is not in it.
        assert!(!p.to_json().contains("new.js"));
        let (text, kept, dropped) = b.pruned_json(&m.stale);
        assert_eq!((text, kept, dropped), (p.to_json(), 2, 2));

        let fresh = Baseline::record(vec![key("a.js", "v")]);
        let u = b.updated(&fresh, &HashSet::from(["a.js"]), |f| f == "gone.js");
        let left: Vec<(String, String)> = u.entries().map(|e| (e.file, e.name)).collect();
        assert_eq!(
            left,
            vec![("a.js".into(), "v".into()), ("other.js".into(), "w".into())]
        );
    }

    /// Broken by hand: one line that says where.
    #[test]
    fn a_broken_file_is_one_line_saying_where() {
        let e = Baseline::parse("[\n{\"file\": \"a.js\",\n").unwrap_err();
        assert!(e.starts_with("not a grounded baseline at line 3"), "{e}");
        assert!(!e.contains('\n'));
        let e = Baseline::parse("[{\"file\":\"a.js\",\"code\":\"member\",\"name\":\"x\",\"line\":\"x\",\"count\":1,\"lineno\":3}]").unwrap_err();
        assert!(e.contains("lineno"), "{e}");
    }

    /// The key is the name and the trimmed line: no line number, so a line added above
    /// changes nothing.
    #[test]
    fn the_key_ignores_where_the_line_is() {
        let a = "layout.foo();\n";
        let b = "var x = 1;\n\n    layout.foo();\n";
        let fa = Finding::new("t.js", a, Span::new(7, 10), Code::Member, "m");
        let fb = Finding::new("t.js", b, Span::new(23, 26), Code::Member, "m");
        let (ka, kb) = (key_of(&fa, "t.js", Some(a)), key_of(&fb, "t.js", Some(b)));
        assert_eq!(ka, kb);
        assert_eq!(ka.name, "foo");
        assert_eq!(ka.line, "layout.foo();");
    }
}
