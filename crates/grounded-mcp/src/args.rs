//! A tool's arguments to values, and nonsense to a tool error that says what would work.
//!
//! Why an error that names the fix (agent-design.md): a refusal an agent cannot act on
//! is re-sent as it was. "`limit` must be a whole number from 1 to 50, for example
//! 10" is re-sent right. Every bound is said with its number. The protocol's own
//! `Invalid params` reaches most clients as an opaque "internal error", so wrong
//! arguments are tool errors (`isError`), which the agent reads.
//!
//! Imports nothing of the crate but the bounds.

use serde_json::{Map, Value};

use super::MAX_ARG;

/// The arguments of one call.
pub struct Args<'a> {
    tool: &'a str,
    map: &'a Map<String, Value>,
}

/// A bad argument: the sentence the agent reads.
pub type Bad = String;

impl<'a> Args<'a> {
    /// The arguments of `tool`; `known` are its argument names, any other is refused
    /// (a misspelt `querry` silently ignored looks like an answer to the wrong call).
    pub fn new(
        tool: &'a str,
        map: &'a Map<String, Value>,
        known: &[&str],
    ) -> Result<Args<'a>, Bad> {
        for k in map.keys() {
            if !known.contains(&k.as_str()) {
                let takes = if known.is_empty() {
                    "no arguments".to_string()
                } else {
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(format!("`{tool}` has no argument `{k}`; it takes {takes}"));
            }
        }
        Ok(Args { tool, map })
    }

    /// A required string, non-empty after trimming, at most `max` bytes.
    pub fn string(&self, name: &str, example: &str, max: usize) -> Result<String, Bad> {
        match self.opt_string(name, example, max)? {
            Some(s) => Ok(s),
            None => Err(format!(
                "`{}` needs `{name}`, a non-empty string, for example {{\"{name}\": \"{example}\"}}",
                self.tool
            )),
        }
    }

    /// An optional string; empty or blank counts as absent only when absent is
    /// allowed, never as a value.
    pub fn opt_string(&self, name: &str, example: &str, max: usize) -> Result<Option<String>, Bad> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Err(format!(
                "`{name}` of `{}` is empty; give a non-empty string, for example \"{example}\"",
                self.tool
            )),
            Some(Value::String(s)) if s.len() > max => Err(format!(
                "`{name}` of `{}` is {} bytes; the bound is {max} bytes",
                self.tool,
                s.len()
            )),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(format!(
                "`{name}` of `{}` must be a string, not {}; for example \"{example}\"",
                self.tool,
                kind(v)
            )),
        }
    }

    /// An optional whole number in `lo..=hi`.
    pub fn opt_count(&self, name: &str, lo: u64, hi: u64) -> Result<Option<usize>, Bad> {
        let bad = |what: String| {
            format!(
                "`{name}` of `{}` must be a whole number from {lo} to {hi} (for example {}), not {what}",
                self.tool,
                lo.max(10.min(hi))
            )
        };
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) if (lo..=hi).contains(&v) => Ok(Some(v as usize)),
                _ => Err(bad(n.to_string())),
            },
            Some(v) => Err(bad(kind(v).to_string())),
        }
    }

    /// An optional list of strings (paths), each bounded.
    pub fn opt_strings(
        &self,
        name: &str,
        example: &str,
        max_items: usize,
    ) -> Result<Option<Vec<String>>, Bad> {
        let bad = |what: &str| {
            format!(
                "`{name}` of `{}` must be a list of strings, for example [\"{example}\"], not {what}",
                self.tool
            )
        };
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) => {
                if a.len() > max_items {
                    return Err(format!(
                        "`{name}` of `{}` has {} items; the bound is {max_items}: name a folder instead",
                        self.tool,
                        a.len()
                    ));
                }
                let mut out = Vec::new();
                for v in a {
                    match v {
                        Value::String(s) if s.trim().is_empty() => {
                            return Err(bad("an empty string"))
                        }
                        Value::String(s) if s.len() > MAX_ARG => {
                            return Err(format!(
                            "an item of `{name}` of `{}` is {} bytes; the bound is {MAX_ARG} bytes",
                            self.tool,
                            s.len()
                        ))
                        }
                        Value::String(s) => out.push(s.clone()),
                        v => return Err(bad(&format!("a list holding {}", kind(v)))),
                    }
                }
                Ok(Some(out))
            }
            // One path given as a string: what the agent meant is plain.
            Some(Value::String(s)) if !s.trim().is_empty() && s.len() <= MAX_ARG => {
                Ok(Some(vec![s.clone()]))
            }
            Some(v) => Err(bad(kind(v))),
        }
    }
}

/// A JSON value's kind, as an error names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn nonsense_says_what_would_work() {
        let m = map(json!({"querry": "x"}));
        let e = Args::new("lookup_docs", &m, &["query", "limit"])
            .err()
            .unwrap();
        assert_eq!(
            e,
            "`lookup_docs` has no argument `querry`; it takes `query`, `limit`"
        );
        let m = map(json!({"query": 3, "limit": -1}));
        let a = Args::new("lookup_docs", &m, &["query", "limit"]).unwrap();
        assert!(a
            .string("query", "tableStart", 10)
            .unwrap_err()
            .contains("must be a string, not a number"));
        assert!(a
            .opt_count("limit", 1, 50)
            .unwrap_err()
            .contains("from 1 to 50"));
        let m = map(json!({"query": "x".repeat(11)}));
        let a = Args::new("lookup_docs", &m, &["query"]).unwrap();
        assert!(a
            .string("query", "t", 10)
            .unwrap_err()
            .contains("the bound is 10 bytes"));
    }

    #[test]
    fn good_arguments_read() {
        let m = map(json!({"query": " tableStart ", "limit": 5, "paths": "main.js"}));
        let a = Args::new("t", &m, &["query", "limit", "paths"]).unwrap();
        assert_eq!(a.string("query", "", 100).unwrap(), " tableStart ");
        assert_eq!(a.opt_count("limit", 1, 50).unwrap(), Some(5));
        assert_eq!(
            a.opt_strings("paths", "", 5).unwrap(),
            Some(vec!["main.js".to_string()])
        );
        assert_eq!(a.opt_count("missing", 1, 5).unwrap(), None);
    }
}
