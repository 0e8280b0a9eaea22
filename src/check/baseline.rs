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

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::Finding;

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

/// A baseline: counts by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    counts: BTreeMap<Key, usize>,
}

/// What matching findings against a baseline gave.
#[derive(Debug, Clone, Default)]
pub struct Matched {
    /// For each key given, whether the baseline covers it (the finding is silenced).
    pub silenced: Vec<bool>,
    /// Entries of the checked files that matched fewer findings than their count: the
    /// entry and how many of its count matched nothing.
    pub stale: Vec<(Entry, usize)>,
}

impl Baseline {
    /// A baseline of these findings' keys.
    pub fn record(keys: impl IntoIterator<Item = Key>) -> Baseline {
        let mut counts = BTreeMap::new();
        for k in keys {
            *counts.entry(k).or_insert(0) += 1;
        }
        Baseline { counts }
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
        self.counts.values().sum()
    }

    /// The entries, sorted.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.counts.iter().map(|(k, &count)| Entry {
            file: k.file.clone(),
            code: k.code.clone(),
            name: k.name.clone(),
            line: k.line.clone(),
            count,
        })
    }

    /// The file's text: a JSON array, one entry a line, sorted.
    pub fn to_json(&self) -> String {
        let mut out = String::from("[\n");
        let n = self.counts.len();
        for (i, e) in self.entries().enumerate() {
            out.push_str(&serde_json::to_string(&e).unwrap_or_default());
            if i + 1 < n {
                out.push(',');
            }
            out.push('\n');
        }
        out.push_str("]\n");
        out
    }

    /// Reads a baseline file's text. The error is one line: where the text stops being
    /// a baseline and why.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let entries: Vec<Entry> = serde_json::from_str(crate::textfile::without_bom(text))
            .map_err(|e| {
                format!(
                    "not a grounded baseline at line {} column {}: {}",
                    e.line(),
                    e.column(),
                    first_clause(&e.to_string())
                )
            })?;
        let mut counts = BTreeMap::new();
        for e in entries {
            if e.count == 0 {
                continue;
            }
            let key = Key {
                file: e.file,
                code: e.code,
                name: e.name,
                line: e.line,
            };
            *counts.entry(key).or_insert(0) += e.count;
        }
        Ok(Baseline { counts })
    }

    /// Matches the findings' keys against the baseline, each entry covering up to its
    /// count of findings in the order given. Stale entries are reported only for files
    /// in `checked` (relative to the root): checking one folder says nothing about the
    /// baseline's entries for the others.
    pub fn apply(&self, keys: &[Key], checked: &HashSet<&str>) -> Matched {
        let mut left: HashMap<&Key, usize> = self.counts.iter().map(|(k, &n)| (k, n)).collect();
        let silenced = keys
            .iter()
            .map(|k| match left.get_mut(k) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            })
            .collect();
        let stale = self
            .counts
            .iter()
            .filter_map(|(k, &count)| {
                let unmatched = *left.get(k).unwrap_or(&0);
                (unmatched > 0 && checked.contains(k.file.as_str())).then(|| {
                    (
                        Entry {
                            file: k.file.clone(),
                            code: k.code.clone(),
                            name: k.name.clone(),
                            line: k.line.clone(),
                            count,
                        },
                        unmatched,
                    )
                })
            })
            .collect();
        Matched { silenced, stale }
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
    use crate::check::{Code, Span};

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
