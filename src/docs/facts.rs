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

/// The 1-based line of the first occurrence of `needle` in `text`, or 1.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map(|i| text[..i].matches('\n').count() + 1)
        .unwrap_or(1)
}
