//! The model endpoint: OpenAI-compatible chat completions with tool calling, over
//! `reqwest` on a runtime of the client's own, and the extractor for tool calls written
//! as JSON in the text.
//!
//! Errors are one line each (unreachable, HTTP status, not a chat completion, no tool
//! calling) because the user reads them on a terminal or in an editor's message bar.
//! The key goes in the `Authorization` header and nowhere else: no error message, log
//! or transcript line carries it.
//!
//! A request's wait is watched ([`Watch`]): a CPU server answering a long prompt takes a
//! minute, and a blocking call that could only be cancelled between steps left the user
//! staring at a frozen spinner with Ctrl-C and the editor's cancel doing nothing until
//! the answer came. The request future is polled in short slices; between slices the
//! watch hears how long it has waited and may cancel, which drops the request (the
//! connection closes, the server stops waiting on us). No streaming: the long part of
//! a slow answer is the prompt's evaluation, before the first token, so a stream would
//! show nothing more during it than the clock does, and each server frames streamed
//! tool calls its own way.

use std::future::Future;
use std::time::{Duration, Instant};

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

/// What a model request watches while it waits for the answer.
pub trait Watch: Sync {
    /// Whether the user cancelled: a request in flight is dropped, and the call answers
    /// with an error the caller reads as the cancel.
    fn cancelled(&self) -> bool;
    /// Called about once a second while no answer has come, with the time waited so far
    /// (retries and their back-off included).
    fn waiting(&self, waited: Duration);
    /// Called before a retry, with why the last attempt failed and which attempt comes
    /// (`next` of `of`): a retry the user is not told about looks like a hang.
    fn retrying(&self, why: &str, next: u32, of: u32) {
        let _ = (why, next, of);
    }
}

/// A watch that never cancels and says nothing.
pub struct Unwatched;

impl Watch for Unwatched {
    fn cancelled(&self) -> bool {
        false
    }
    fn waiting(&self, _waited: Duration) {}
}

/// Something that answers chat requests: the HTTP endpoint, or a script in a bench.
pub trait ChatModel: Sync {
    /// Sends `messages` offering `tools` (none: tools withheld) and returns the answer.
    fn chat(&self, messages: &[Value], tools: &[Value]) -> Result<Reply, String>;
    /// Like [`ChatModel::chat`], asking the model to call the tool `name` (OpenAI's
    /// `tool_choice`). A model that cannot be forced answers as it would anyway; the
    /// caller handles a reply without that call.
    fn chat_forcing(
        &self,
        messages: &[Value],
        tools: &[Value],
        name: &str,
    ) -> Result<Reply, String> {
        let _ = name;
        self.chat(messages, tools)
    }
    /// [`ChatModel::chat`], or [`ChatModel::chat_forcing`] when `force` names a tool,
    /// with `watch` told how long the wait lasts and able to cancel it. A model that
    /// answers at once (a script) needs no watch: this default ignores it.
    fn chat_watched(
        &self,
        messages: &[Value],
        tools: &[Value],
        force: Option<&str>,
        watch: &dyn Watch,
    ) -> Result<Reply, String> {
        let _ = watch;
        match force {
            Some(name) => self.chat_forcing(messages, tools, name),
            None => self.chat(messages, tools),
        }
    }
}

/// How often a waiting request looks at its watch's cancel: short enough that a
/// cancel feels immediate, long enough that the wait costs nothing.
const SLICE: Duration = Duration::from_millis(200);

/// The OpenAI-compatible HTTP endpoint.
pub struct HttpModel {
    http: reqwest::Client,
    /// The client's own runtime: the caller is a plain thread (the CLI's, or the
    /// editor turn's), and the language server's runtime must not be blocked on.
    rt: tokio::runtime::Runtime,
    endpoint: Endpoint,
    max_tokens: Option<u32>,
    retries: u32,
    backoff: Duration,
    timeout: Duration,
}

/// What one attempt came to.
enum Attempt {
    /// Worth another try (a 429, a 5xx, a connection error): the one-line reason.
    Retry(String),
    /// Not worth another: a timeout. The server may still be generating the answer
    /// it was asked for; a retry queues a second one behind it (a small CPU model
    /// once kept generating for 382 s while the client retried twice and gave up).
    Final(String),
    /// The watch cancelled the wait.
    Cancelled,
}

/// The error a cancelled request answers with (the caller asks its own cancel flag).
pub const CANCELLED: &str = "the model request was cancelled";

impl HttpModel {
    /// A client for `endpoint` with the timeouts and retries of `config`.
    pub fn new(endpoint: Endpoint, config: &AgentConfig) -> Result<HttpModel, String> {
        // One worker drives the connections; the caller polls its own request, so
        // requests made from several threads at once (parallel lookups) all progress.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("grounded-http")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the HTTP client: {e}"))?;
        let entered = rt.enter();
        let http = reqwest::Client::builder()
            .timeout(config.request_timeout)
            .connect_timeout(Duration::from_secs(10).min(config.request_timeout))
            .build()
            .map_err(|e| format!("cannot start the HTTP client: {e}"))?;
        drop(entered);
        Ok(HttpModel {
            http,
            rt,
            endpoint,
            max_tokens: config.max_tokens,
            retries: config.retries,
            backoff: config.retry_backoff,
            timeout: config.request_timeout,
        })
    }

    /// The endpoint's base URL (for messages).
    pub fn base_url(&self) -> &str {
        &self.endpoint.base_url
    }

    /// Runs `fut` to its end unless `watch` cancels first (then `None`, and `fut` is
    /// dropped: a request in flight is abandoned and its connection closed). `said` is
    /// the last whole second reported to the watch, counted from `started`.
    fn watched<T>(
        &self,
        fut: impl Future<Output = T>,
        watch: &dyn Watch,
        started: Instant,
        said: &mut u64,
    ) -> Option<T> {
        let mut fut = std::pin::pin!(fut);
        loop {
            if watch.cancelled() {
                return None;
            }
            let slice = self
                .rt
                .block_on(async { tokio::time::timeout(SLICE, fut.as_mut()).await });
            if let Ok(v) = slice {
                return Some(v);
            }
            let waited = started.elapsed();
            if waited.as_secs() > *said {
                *said = waited.as_secs();
                watch.waiting(waited);
            }
        }
    }

    /// The error of a request that got no answer within the timeout.
    fn timed_out(&self) -> Attempt {
        Attempt::Final(format!(
            "model endpoint {} timed out after {} s; not retried, the server may still be generating: lower [agent] max_tokens or raise timeout_secs",
            self.endpoint.base_url,
            self.timeout.as_secs()
        ))
    }

    async fn post_once(&self, body: &Value) -> Result<(u16, String), Attempt> {
        let url = format!("{}/chat/completions", self.endpoint.base_url);
        let mut req = self.http.post(&url).json(body);
        if let Some(k) = &self.endpoint.api_key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                return self.timed_out();
            }
            // reqwest's error text names the URL, never a header: no key in it.
            if e.is_connect() && refused(&e) {
                // "unreachable" sent a user looking for a network fault when nothing
                // listened on the port (a model server not started yet).
                return Attempt::Retry(format!(
                    "model endpoint {}: connection refused (nothing listens there)",
                    self.endpoint.base_url
                ));
            }
            let what = if e.is_connect() {
                "unreachable"
            } else {
                "failed"
            };
            Attempt::Retry(format!("model endpoint {} {what}", self.endpoint.base_url))
        })?;
        let status = resp.status().as_u16();
        let text = resp.text().await.map_err(|e| {
            if e.is_timeout() {
                return self.timed_out();
            }
            Attempt::Retry(format!(
                "model endpoint {}: the answer could not be read (broken)",
                self.endpoint.base_url
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

    /// One attempt, watched.
    fn attempt(
        &self,
        body: &Value,
        watch: &dyn Watch,
        started: Instant,
        said: &mut u64,
    ) -> Result<(u16, String), Attempt> {
        match self.watched(self.post_once(body), watch, started, said) {
            None => Err(Attempt::Cancelled),
            Some(r) => r,
        }
    }
}

/// Whether a connect error was a refused connection (its cause chain holds one).
fn refused(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if err
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        {
            return true;
        }
        cur = err.source();
    }
    false
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
        self.chat_watched(messages, tools, None, &Unwatched)
    }

    fn chat_forcing(
        &self,
        messages: &[Value],
        tools: &[Value],
        name: &str,
    ) -> Result<Reply, String> {
        self.chat_watched(messages, tools, Some(name), &Unwatched)
    }

    fn chat_watched(
        &self,
        messages: &[Value],
        tools: &[Value],
        force: Option<&str>,
        watch: &dyn Watch,
    ) -> Result<Reply, String> {
        let choice = match force {
            Some(name) => json!({"type": "function", "function": {"name": name}}),
            None => json!("auto"),
        };
        self.chat_choice(messages, tools, choice, watch)
    }
}

impl HttpModel {
    fn chat_choice(
        &self,
        messages: &[Value],
        tools: &[Value],
        choice: Value,
        watch: &dyn Watch,
    ) -> Result<Reply, String> {
        let mut body = json!({
            "model": self.endpoint.model,
            "messages": messages,
            "temperature": 0,
        });
        if let Some(n) = self.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
            body["tool_choice"] = choice;
        }
        let started = Instant::now();
        let mut said = 0;
        let mut wait = self.backoff;
        let mut last = String::new();
        for attempt in 0..=self.retries {
            if attempt > 0 {
                watch.retrying(&last, attempt + 1, self.retries + 1);
                let pause = async move { tokio::time::sleep(wait).await };
                if self.watched(pause, watch, started, &mut said).is_none() {
                    return Err(CANCELLED.to_string());
                }
                wait *= 2;
            }
            match self.attempt(&body, watch, started, &mut said) {
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
                Err(Attempt::Cancelled) => return Err(CANCELLED.to_string()),
                Err(Attempt::Retry(msg)) => last = msg,
                Err(Attempt::Final(msg)) => return Err(msg),
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
