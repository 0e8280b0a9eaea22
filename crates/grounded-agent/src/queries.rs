//! `queries`: query inflation with a brake — the forced `search_queries` call.
//!
//! When a question is worded unlike the corpus, retrieval comes back empty and the agent
//! concludes the knowledge base is empty. So before lookups, a forced tool call turns the
//! question into 2–3 *angles* (a focused how-to, a broad query of core nouns, an
//! example-seeking query), each with a short `about` label: written in the same call, the
//! progress line the user watches costs nothing. The queries go back into the prompt as
//! guidance — not fanned out by code — so the agent orders its searches and can stop
//! early. Not HyDE: in a domain the model has never seen, a made-up answer document is
//! pure invention, and searching by it finds whatever lies nearest to the invention.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::cache::normalize;
use super::wording::{self, fill};

/// The forced tool's name.
pub const TOOL: &str = "search_queries";

/// One planned search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// The query text.
    pub query: String,
    /// A short human label: the progress line the user sees.
    pub about: String,
}

/// The tool's schema (OpenAI function format): `count` queries asked for (`-1`: the
/// model decides), at most `max`.
pub fn schema(count: i32, max: usize) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": TOOL,
            "description": ask(count, max),
            "parameters": {
                "type": "object",
                "properties": {
                    "queries": {
                        "type": "array",
                        "maxItems": max,
                        "items": {
                            "type": "object",
                            "properties": {
                                "query": {"type": "string"},
                                "about": {"type": "string", "description": "a few words the user sees while it runs"}
                            },
                            "required": ["query", "about"]
                        }
                    }
                },
                "required": ["queries"]
            }
        }
    })
}

/// The `tool_choice` that forces the call.
pub fn tool_choice() -> Value {
    json!({"type": "function", "function": {"name": TOOL}})
}

/// The instruction sent with the forced call. `count` is the configured number of
/// queries; `-1` lets the model decide within `max`.
pub fn ask(count: i32, max: usize) -> String {
    let n = if count < 0 {
        format!("2-3 (at most {max})")
    } else {
        (count.max(1) as usize).min(max).to_string()
    };
    fill(wording::SEARCH_QUERIES_ASK, &[("count", &n)])
}

/// Reads the forced call's arguments: drops empty queries, verbatim echoes of the request
/// (an echo is one phrasing again) and duplicates by normalised form; keeps at most
/// `max`. An empty answer is an error the caller reports (and then runs without plan).
pub fn parse(args: &Value, request: &str, max: usize) -> Result<Vec<Query>, String> {
    let list = args
        .get("queries")
        .and_then(Value::as_array)
        .ok_or_else(|| "search_queries: no `queries` array".to_string())?;
    let echo = normalize(request);
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for q in list {
        let text = q.get("query").and_then(Value::as_str).unwrap_or("").trim();
        let key = normalize(text);
        if key.is_empty() || key == echo || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let about = q.get("about").and_then(Value::as_str).unwrap_or("");
        out.push(Query {
            query: text.to_string(),
            about: label(about)
                .or_else(|| label(text))
                .unwrap_or_else(|| "searching the docs".to_string()),
        });
        if out.len() == max {
            break;
        }
    }
    if out.is_empty() {
        return Err("search_queries: no usable query (empty or the request verbatim)".into());
    }
    Ok(out)
}

/// The most characters of a progress label.
const LABEL_CHARS: usize = 60;

/// A model's text as a progress line: its first line, in words, cut to
/// [`LABEL_CHARS`]; `None` when it is code or not words at all. Small models wrote
/// `./main.js`, `function search_query() {`, `1024` and `true` as labels, and the user
/// watched them as what the agent was doing.
pub fn label(raw: &str) -> Option<String> {
    let decoded = super::edits::decode_entities(raw);
    let line = decoded.lines().find(|l| !l.trim().is_empty())?.trim();
    let codeish = line.chars().any(|c| "{}()[];=<>|\\".contains(c))
        || line.starts_with(['.', '/', '#', '$', '"', '\''])
        || line.contains("//");
    // Words: at least one of three letters that is not a literal, and not a single file
    // name or path.
    let words: Vec<&str> = line.split_whitespace().collect();
    let single_path = words.len() == 1 && (line.contains('/') || line.contains('.'));
    let has_word = words.iter().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && !matches!(
                w,
                "true" | "false" | "null" | "undefined" | "function" | "var"
            )
    });
    if codeish || single_path || !has_word {
        return None;
    }
    let joined = words.join(" ");
    if joined.chars().count() <= LABEL_CHARS {
        return Some(joined);
    }
    let mut cut: String = joined.chars().take(LABEL_CHARS).collect();
    if let Some(i) = cut.rfind(' ') {
        cut.truncate(i);
    }
    cut.push('…');
    Some(cut)
}

/// The guidance that goes back into the prompt: the planned queries and the adaptive
/// tail telling the model to stop as soon as the results answer.
pub fn guidance(queries: &[Query]) -> String {
    let mut s = String::from("Planned searches:\n");
    for (i, q) in queries.iter().enumerate() {
        s.push_str(&format!("{}. [{}] {}\n", i + 1, q.about, q.query));
    }
    s.push_str(wording::SEARCH_QUERIES_TAIL);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_one_line_of_words_never_code() {
        for bad in [
            "./main.js",
            "function search_query() {",
            "1024",
            "true",
            "main.js",
            "",
        ] {
            assert_eq!(label(bad), None, "{bad}");
        }
        assert_eq!(
            label("the table calls\nand more").as_deref(),
            Some("the table calls")
        );
        assert_eq!(label("&#34;page numbers&#34; in footers"), None);
        assert_eq!(
            label("page numbers &amp; footers").as_deref(),
            Some("page numbers & footers")
        );
        let long = label(&"footer page number ".repeat(10)).unwrap();
        assert!(long.chars().count() <= 61 && long.ends_with('…'), "{long}");
    }

    #[test]
    fn parse_drops_echoes_and_duplicates_and_keeps_the_ceiling() {
        let req = "How do I add a table of prices?";
        let args = json!({"queries": [
            {"query": "add a table of prices", "about": "echo"},
            {"query": "tableStart tableRow tableCell", "about": "table calls"},
            {"query": "table cell row", "about": "core nouns"},
            {"query": "row cell table", "about": "same nouns"},
            {"query": "example table with header", "about": ""},
        ]});
        let q = parse(&args, req, 6).unwrap();
        assert_eq!(q.len(), 3, "{q:?}");
        assert_eq!(q[0].about, "table calls");
        assert_eq!(q[2].about, "example table with header");
        assert_eq!(parse(&args, req, 1).unwrap().len(), 1);
        assert!(parse(&json!({"queries": [{"query": "add table prices"}]}), req, 6).is_err());
        assert!(parse(&json!({}), req, 6).is_err());
    }

    #[test]
    fn ask_and_schema_carry_the_ceiling() {
        assert!(ask(-1, 6).contains("at most 6"));
        assert!(ask(9, 6).contains(" 6 "));
        let s = schema(-1, 6);
        assert_eq!(
            s["function"]["parameters"]["properties"]["queries"]["maxItems"],
            6
        );
        assert!(s["function"]["description"]
            .as_str()
            .unwrap()
            .contains("Never repeat"));
        assert_eq!(tool_choice()["function"]["name"], TOOL);
    }

    #[test]
    fn guidance_lists_labels_and_tells_to_stop() {
        let g = guidance(&[Query {
            query: "tableStart".into(),
            about: "table calls".into(),
        }]);
        assert!(g.contains("1. [table calls] tableStart"));
        assert!(g.contains("stop as soon as"));
    }
}
