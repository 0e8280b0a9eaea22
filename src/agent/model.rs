//! The model endpoint: OpenAI-compatible chat completions with tool calling, over
//! `reqwest::blocking`, and the extractor for tool calls written as JSON in the text.
//!
//! Errors are one line each (unreachable, HTTP status, not a chat completion, no tool
//! calling) because the user reads them on a terminal or in an editor's message bar.
//! The key goes in the `Authorization` header and nowhere else: no error message, log
//! or transcript line carries it.

use std::time::Duration;

use serde_json::{json, Value};

use super::config::{AgentConfig, Endpoint};

/// One tool call as the model sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call's id (made up for calls found in the text).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as received: a JSON text.
    pub arguments: String,
}

/// One model answer.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    /// The message text.
    pub content: String,
    /// The tool calls, native or extracted from the text.
    pub tool_calls: Vec<ToolCall>,
    /// Whether the calls came from the text (the server has no tool-calling template):
    /// their results go back as user-role messages, not `tool` ones.
    pub from_text: bool,
}

/// Something that answers chat requests: the HTTP endpoint, or a script in a bench.
pub trait ChatModel: Sync {
    /// Sends `messages` offering `tools` (none: tools withheld) and returns the answer.
    fn chat(&self, messages: &[Value], tools: &[Value]) -> Result<Reply, String>;
}

/// The OpenAI-compatible HTTP endpoint.
pub struct HttpModel {
    http: reqwest::blocking::Client,
    endpoint: Endpoint,
    retries: u32,
    backoff: Duration,
}

impl HttpModel {
    /// A client for `endpoint` with the timeouts and retries of `config`.
    pub fn new(endpoint: Endpoint, config: &AgentConfig) -> Result<HttpModel, String> {
        let http = reqwest::blocking::Client::builder()
            .timeout(config.request_timeout)
            .connect_timeout(Duration::from_secs(10).min(config.request_timeout))
            .build()
            .map_err(|e| format!("cannot start the HTTP client: {e}"))?;
        Ok(HttpModel {
            http,
            endpoint,
            retries: config.retries,
            backoff: config.retry_backoff,
        })
    }

    /// The endpoint's base URL (for messages).
    pub fn base_url(&self) -> &str {
        &self.endpoint.base_url
    }

    fn post_once(&self, body: &Value) -> Result<(u16, String), Attempt> {
        let url = format!("{}/chat/completions", self.endpoint.base_url);
        let mut req = self.http.post(&url).json(body);
        if let Some(k) = &self.endpoint.api_key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().map_err(|e| {
            // reqwest's error text names the URL, never a header: no key in it.
            let what = if e.is_timeout() {
                "timed out".to_string()
            } else if e.is_connect() {
                "unreachable".to_string()
            } else {
                "failed".to_string()
            };
            Attempt::Retry(format!("model endpoint {} {what}", self.endpoint.base_url))
        })?;
        let status = resp.status().as_u16();
        let text = resp.text().map_err(|e| {
            Attempt::Retry(format!(
                "model endpoint {}: the answer could not be read ({})",
                self.endpoint.base_url,
                if e.is_timeout() {
                    "timed out"
                } else {
                    "broken"
                }
            ))
        })?;
        if status == 429 || status >= 500 {
            return Err(Attempt::Retry(format!(
                "model endpoint {} answered HTTP {status}: {}",
                self.endpoint.base_url,
                first_line(&text)
            )));
        }
        Ok((status, text))
    }
}

enum Attempt {
    Retry(String),
}

fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut out: String = line.chars().take(160).collect();
    if line.chars().count() > 160 {
        out.push('…');
    }
    out
}

impl ChatModel for HttpModel {
    fn chat(&self, messages: &[Value], tools: &[Value]) -> Result<Reply, String> {
        let mut body = json!({
            "model": self.endpoint.model,
            "messages": messages,
            "temperature": 0,
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
            body["tool_choice"] = json!("auto");
        }
        let mut wait = self.backoff;
        let mut last = String::new();
        for attempt in 0..=self.retries {
            if attempt > 0 {
                std::thread::sleep(wait);
                wait *= 2;
            }
            match self.post_once(&body) {
                Ok((status, text)) => {
                    if !(200..300).contains(&status) {
                        let line = first_line(&text);
                        if !tools.is_empty() && line.to_ascii_lowercase().contains("tool") {
                            return Err(format!(
                                "model endpoint {} has no tool calling for model `{}` (HTTP {status}: {line})",
                                self.endpoint.base_url, self.endpoint.model
                            ));
                        }
                        return Err(format!(
                            "model endpoint {} answered HTTP {status}: {line}",
                            self.endpoint.base_url
                        ));
                    }
                    return parse_completion(&text).map_err(|why| {
                        format!(
                            "model endpoint {} answered something that is not a chat completion ({why})",
                            self.endpoint.base_url
                        )
                    });
                }
                Err(Attempt::Retry(msg)) => last = msg,
            }
        }
        Err(format!(
            "{last} (after {} attempt{})",
            self.retries + 1,
            if self.retries == 0 { "" } else { "s" }
        ))
    }
}

/// Reads a chat-completion body: the first choice's message, its native tool calls,
/// or tool calls written as JSON in its text.
pub fn parse_completion(text: &str) -> Result<Reply, String> {
    let v: Value = serde_json::from_str(text).map_err(|_| "not JSON".to_string())?;
    let msg = v
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .ok_or_else(|| "no choices[0].message".to_string())?;
    let content = match msg.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    let mut calls = Vec::new();
    if let Some(Value::Array(tc)) = msg.get("tool_calls") {
        for (i, c) in tc.iter().enumerate() {
            let f = c.get("function").unwrap_or(c);
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                return Err("a tool call without a name".into());
            };
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => "{}".to_string(),
                Some(other) => other.to_string(),
            };
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_{i}"));
            calls.push(ToolCall {
                id,
                name: name.to_string(),
                arguments,
            });
        }
    }
    if !calls.is_empty() {
        return Ok(Reply {
            content,
            tool_calls: calls,
            from_text: false,
        });
    }
    let found = extract_tool_calls(&content);
    Ok(Reply {
        from_text: !found.is_empty(),
        content,
        tool_calls: found,
    })
}

/// The end (exclusive) of the JSON object that starts at `start` (a `{`), tracking
/// string literals and escapes: a `}` inside a string does not close the object.
///
/// Why: an extractor that counted braces alone stopped at the `}` of a find string
/// (`"find": "if (x) {"` ... `"}"`), parsed a truncated object, failed, and the edit was
/// silently dropped.
pub fn object_end(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    for (i, &c) in b.iter().enumerate().skip(start) {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Tool calls written as JSON objects in a message's text: `{"name": ..., "arguments":
/// {...}}` (also `parameters`, or wrapped as `{"function": {...}}` / `{"tool_call":
/// {...}}`), in order. Text that is not such an object is skipped.
pub fn extract_tool_calls(text: &str) -> Vec<ToolCall> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find('{') {
        let start = i + off;
        let Some(end) = object_end(text, start) else {
            i = start + 1;
            continue;
        };
        match serde_json::from_str::<Value>(&text[start..end])
            .ok()
            .and_then(|v| as_call(&v))
        {
            Some((name, arguments)) => {
                out.push(ToolCall {
                    id: format!("text_call_{}", out.len()),
                    name,
                    arguments,
                });
                i = end;
            }
            None => i = start + 1,
        }
    }
    out
}

fn as_call(v: &Value) -> Option<(String, String)> {
    for wrapper in ["function", "tool_call"] {
        if let Some(inner) = v.get(wrapper).filter(|x| x.is_object()) {
            return as_call(inner);
        }
    }
    let name = v.get("name")?.as_str()?.to_string();
    let args = v.get("arguments").or_else(|| v.get("parameters"))?;
    let arguments = match args {
        Value::String(s) => s.clone(),
        Value::Object(_) => args.to_string(),
        _ => return None,
    };
    Some((name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_inside_a_string_does_not_end_the_object() {
        let text = r#"I will edit it now.
{"name": "edit_file", "arguments": {"path": "a.js", "edits": [{"find": "if (x) {\n  y();\n}", "replace": "if (x) { z(\"}\"); }"}]}}
done"#;
        let calls = extract_tool_calls(text);
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].name, "edit_file");
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["edits"][0]["find"], "if (x) {\n  y();\n}");
        assert_eq!(args["edits"][0]["replace"], "if (x) { z(\"}\"); }");
    }

    #[test]
    fn a_brace_counting_extractor_would_fail_here() {
        // The first `}` at depth 0 by plain counting is inside the string.
        let text = r#"{"name": "write_file", "arguments": {"path": "b.js", "content": "}}}"}}"#;
        assert_eq!(object_end(text, 0), Some(text.len()));
        let calls = extract_tool_calls(text);
        assert_eq!(calls.len(), 1);
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["content"], "}}}");
    }

    #[test]
    fn escaped_quote_and_wrappers() {
        let text = r#"{"function": {"name": "read_file", "arguments": "{\"path\": \"x\\\"}.js\"}"}} and {"tool_call": {"name": "list_files", "parameters": {}}}"#;
        let calls = extract_tool_calls(text);
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(calls[0].name, "read_file");
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["path"], "x\"}.js");
        assert_eq!(calls[1].name, "list_files");
    }

    #[test]
    fn prose_braces_are_not_calls() {
        assert!(extract_tool_calls("use { and } freely; {\"a\": 1}").is_empty());
        assert!(extract_tool_calls("{\"name\": \"x\"").is_empty());
    }

    #[test]
    fn completion_parsing() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.js\"}"}}]}}]}"#;
        let r = parse_completion(body).unwrap();
        assert_eq!(r.tool_calls.len(), 1);
        assert!(!r.from_text);
        assert!(parse_completion("<html>").is_err());
        assert!(parse_completion("{\"error\": 1}").is_err());
    }
}
