//! The overlay, `facts.toml`: what documentation structure cannot give.
//!
//! Construct aliases and negative facts (`absent`: members agents keep inventing, with
//! the reason they do not exist) sharpen messages; `[extra]` closes the docs' gaps. It is
//! authored once per engine, never in code.

use serde::Deserialize;

/// The parsed overlay.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Facts {
    /// `[[construct]]` entries.
    pub construct: Vec<ConstructFacts>,
    /// `[extra]`
    pub extra: Extra,
}

/// One `[[construct]]` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ConstructFacts {
    /// Must match a construct derived from the docs (`table` for `tableStart`).
    pub id: String,
    /// Goal words that mean this construct.
    pub aliases: Vec<String>,
    /// Why there is nothing more to close.
    pub no_close: Option<String>,
    /// `Interface.member` names that do not exist.
    pub absent: Vec<String>,
}

/// `[extra]`: things the engine has that its docs never list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Extra {
    /// `Interface.member`
    pub members: Vec<String>,
    /// Global variable names.
    pub globals: Vec<String>,
    /// Global function names.
    pub functions: Vec<String>,
}

impl Facts {
    /// Parses `facts.toml`. On error, the message says where.
    pub fn parse(text: &str) -> Result<Facts, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}

/// The keys `facts.toml` knows, by table (`""` is the top level, `construct` each
/// `[[construct]]` entry).
const KNOWN_KEYS: &[(&str, &[&str])] = &[
    ("", &["construct", "extra"]),
    ("construct", &["id", "aliases", "no_close", "absent"]),
    ("extra", &["members", "globals", "functions"]),
];

/// The keys of a `facts.toml` text that the loader does not read, each as its dotted
/// name and a hint (the nearest known key, else the known keys). `[extra] membrs = [...]`
/// was once ignored in silence, while `grounded.toml` said "did you mean". A text that
/// does not parse gives none (its parse error is said instead).
pub fn unknown_keys(text: &str) -> Vec<(String, String)> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut check = |prefix: &str, t: &toml::Table, known: &[&str]| {
        for key in t.keys().filter(|k| !known.contains(&k.as_str())) {
            let near = known
                .iter()
                .map(|k| (strsim::damerau_levenshtein(key, k), *k))
                .min()
                .filter(|(d, _)| *d <= 2.max(key.len() / 3));
            let hint = match near {
                Some((_, k)) => format!("did you mean `{prefix}{k}`?"),
                None => format!("known keys here: {}", known.join(", ")),
            };
            out.push((format!("{prefix}{key}"), hint));
        }
    };
    for (name, known) in KNOWN_KEYS {
        if name.is_empty() {
            check("", &table, known);
            continue;
        }
        match table.get(*name) {
            Some(toml::Value::Table(sub)) => check(&format!("{name}."), sub, known),
            Some(toml::Value::Array(items)) => {
                for item in items {
                    if let toml::Value::Table(sub) = item {
                        check(&format!("{name}."), sub, known);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The 1-based line of the first occurrence of `needle` in `text`, or 1.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map(|i| text[..i].matches('\n').count() + 1)
        .unwrap_or(1)
}
