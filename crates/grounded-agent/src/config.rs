//! The agent's figures and where its model endpoint comes from.
//!
//! Every figure a guardrail or the loop uses is a field here with its default, so a
//! bench, a test or a user can change one without touching the code that reads it.
//!
//! The endpoint rule exists because a cloned project's `grounded.toml` is written by
//! someone else: if it could name any URL, opening a stranger's repository would send
//! the user's key to the stranger's server. So the key goes only to a loopback
//! endpoint, or to a `base_url` the user configured outside the project.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use grounded_project::Project;

/// The `max_tokens` sent when `[agent] max_tokens` is not set.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// The agent's figures. Issue 13's guardrails read theirs from here too.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The most model steps of one turn; the step after the last gets tools withheld
    /// and must answer.
    pub max_steps: usize,
    /// Seconds one model request may take before it counts as failed.
    pub request_timeout: Duration,
    /// The most tokens one answer may have, sent as `max_tokens` (default
    /// [`DEFAULT_MAX_TOKENS`]). A small local model may ramble until its context is
    /// full: minutes on a CPU.
    pub max_tokens: Option<u32>,
    /// How many times a request is retried after a 429, a 5xx or a connection error
    /// (never after a timeout: the server may still be generating).
    pub retries: u32,
    /// The first retry waits this long; each later one twice as long as the one before.
    pub retry_backoff: Duration,
    /// The identical-call breaker: this many identical calls run, the next is a stub.
    pub breaker_limit: usize,
    /// Live knowledge lookups per turn across wordings (charged tools only).
    pub live_lookup_budget: usize,
    /// Live runs of one identical (normalised) query; later ones are served from cache.
    pub per_query_live: usize,
    /// The tools the lookup budget charges.
    pub charged_tools: Vec<String>,
    /// Similarity at which two normalised queries count as the same.
    pub fuzzy_threshold: f64,
    /// Pushes the finish gates may make in one turn, all gates together.
    pub gate_budget: usize,
    /// Pushes kept back for a final draft that changed or brought new deeds.
    pub reserve_final: usize,
    /// The most search queries of the forced `search_queries` step.
    pub max_queries: usize,
    /// Whether the measurement includes the dry run (benches leave it out to measure
    /// the agent's own cost).
    pub dry_run: bool,
    /// The `[agent] validate` command, present only when the user allowed it
    /// (`--validate` or the editor's `agent.allowValidate`).
    pub validate: Option<String>,
    /// Seconds the validate command may run.
    pub validate_timeout: Duration,
    /// Characters of one tool result the model receives at most.
    pub max_result_chars: usize,
    /// Tools whose run counts as "a knowledge lookup ran this turn" for the write rule.
    pub knowledge_tools: Vec<String>,
    /// Read-only tools: collapsed when dispatched together on the same normalised query.
    pub read_only_tools: Vec<String>,
    /// Tools that write domain code and so need a knowledge lookup first (unless every
    /// constructor they use was provided by the prompt's fragments).
    pub domain_write_tools: Vec<String>,
    /// Calls over which an A/B alternation is a loop.
    pub stuck_alternation_steps: usize,
    /// Same call, same error, this many times: a loop.
    pub stuck_error_repeats: usize,
    /// The verify gate's own limit.
    pub verify_pushes: usize,
    /// The bail gate's own limit.
    pub bail_pushes: usize,
    /// The claim gate's own limit (a second false claim draws on what is left of the
    /// shared budget, then on the reserve).
    pub claim_pushes: usize,
    /// The checklist gate's own limit.
    pub checklist_pushes: usize,
    /// How many queries `search_queries` asks for; `-1` lets the model decide within
    /// `max_queries`; `0` skips the step.
    pub search_queries: i32,
    /// The de-nouning rewriter of retrieval queries ("creation of a table" → "create
    /// table"); ships disabled.
    pub denoun: bool,
    /// Phrasebook routes in the hint prepended to every lookup result.
    pub hint_routes: usize,
    /// Items a `plan` may have.
    pub plan_max_items: usize,
    /// Steps of one plan item's worker turn.
    pub worker_max_steps: usize,
    /// The persistent lookup cache (`None`: none). The CLI puts it in the user's cache
    /// folder; never inside the project, which may be shared.
    pub lookup_cache: Option<PathBuf>,
    /// The model's name at its endpoint: the cross-turn lookup cache is keyed by it, so
    /// another model composes afresh.
    pub model_name: String,
}

impl Default for AgentConfig {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        AgentConfig {
            max_steps: 24,
            request_timeout: Duration::from_secs(120),
            // A small local model left unbounded wrote 6,327 tokens (382 s on a CPU)
            // for one answer; 1024 is about a minute there and room for a tool call
            // that writes a file of a hundred lines.
            max_tokens: Some(DEFAULT_MAX_TOKENS),
            retries: 2,
            retry_backoff: Duration::from_millis(250),
            breaker_limit: 4,
            live_lookup_budget: 12,
            per_query_live: 2,
            charged_tools: vec!["rag_lookup".to_string()],
            fuzzy_threshold: 0.8,
            gate_budget: 3,
            reserve_final: 2,
            max_queries: 6,
            dry_run: true,
            validate: None,
            validate_timeout: Duration::from_secs(300),
            max_result_chars: 24_000,
            knowledge_tools: s(&["rag_lookup", "lookup_docs", "resolve_topic"]),
            read_only_tools: s(&[
                "rag_lookup",
                "lookup_docs",
                "resolve_topic",
                "read_file",
                "list_files",
                "find_in_files",
                "find_construct",
                "check_symbols",
                "dry_run",
            ]),
            domain_write_tools: s(&["write_file", "edit_file"]),
            stuck_alternation_steps: 6,
            stuck_error_repeats: 3,
            verify_pushes: 2,
            bail_pushes: 2,
            claim_pushes: 1,
            checklist_pushes: 1,
            search_queries: -1,
            denoun: false,
            hint_routes: 3,
            plan_max_items: 6,
            worker_max_steps: 12,
            lookup_cache: None,
            model_name: String::new(),
        }
    }
}

impl AgentConfig {
    /// Whether `tool` is charged against the live lookup budget.
    pub fn charged(&self, tool: &str) -> bool {
        self.charged_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` counts as a knowledge lookup.
    pub fn knowledge(&self, tool: &str) -> bool {
        self.knowledge_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` only reads.
    pub fn read_only(&self, tool: &str) -> bool {
        self.read_only_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` writes domain code.
    pub fn domain_write(&self, tool: &str) -> bool {
        self.domain_write_tools.iter().any(|t| t == tool)
    }

    /// The defaults, with the project's `[agent]` section applied. `allow_validate` is
    /// the user's own consent to run the project's validate command.
    pub fn for_project(project: &Project, allow_validate: bool) -> AgentConfig {
        let mut c = AgentConfig::default();
        if let Some(a) = &project.config.agent {
            if let Some(n) = a.max_steps {
                c.max_steps = n.max(1);
            }
            // A plan's worker has steps of its own: a project whose model needs more
            // than 12 for one item (or whose server is slow enough that 12 is too many)
            // could set the turn's steps but not its workers'.
            if let Some(n) = a.worker_max_steps {
                c.worker_max_steps = n.max(1);
            }
            if let Some(t) = a.timeout_secs {
                c.request_timeout = Duration::from_secs(t.max(1));
            }
            if let Some(n) = a.max_tokens {
                c.max_tokens = Some(n.max(1));
            }
            if allow_validate {
                c.validate = a.validate.clone();
            }
        }
        c
    }
}

/// The model endpoint as resolved: where, which model, and the key (if any).
#[derive(Clone)]
pub struct Endpoint {
    /// `http://host:port/v1`, without a trailing slash.
    pub base_url: String,
    /// The model's name.
    pub model: String,
    /// The key, read from the variable the configuration names.
    pub api_key: Option<String>,
}

impl std::fmt::Debug for Endpoint {
    // The key never reaches a log: a Debug print of the endpoint says only whether
    // there is one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

/// What the user gave outside the project: flags or editor settings.
#[derive(Debug, Clone, Default)]
pub struct UserModel {
    /// `--base-url` or the editor's setting.
    pub base_url: Option<String>,
    /// `--model` or the editor's setting.
    pub model: Option<String>,
    /// The name of the key's variable.
    pub api_key_env: Option<String>,
}

/// `[model]` of the user's own config file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct UserFile {
    model: Option<grounded_project::ModelConfig>,
}

/// The user's own config file: `$XDG_CONFIG_HOME/grounded/config.toml`, else
/// `~/.config/grounded/config.toml` (`%APPDATA%\grounded\config.toml` on Windows).
pub fn user_config_path() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(x).join("grounded").join("config.toml"));
    }
    if cfg!(windows) {
        if let Some(a) = std::env::var_os("APPDATA") {
            return Some(PathBuf::from(a).join("grounded").join("config.toml"));
        }
    }
    std::env::var_os("HOME").map(|h| {
        PathBuf::from(h)
            .join(".config")
            .join("grounded")
            .join("config.toml")
    })
}

fn read_user_file(path: &Path) -> Result<Option<grounded_project::ModelConfig>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str::<UserFile>(&text)
            .map(|f| f.model)
            .map_err(|e| format!("{}: {}", path.display(), e.message())),
        Err(_) => Ok(None),
    }
}

/// Whether `url`'s host is this machine.
pub fn is_loopback(url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = u.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// Resolves the endpoint: the user's flags, then the user's config file, then the
/// project's `[model]`. A project-only endpoint off this machine is refused with a
/// line saying how to approve it. Without any, the error says how to configure one.
pub fn resolve_endpoint(project: &Project, user: &UserModel) -> Result<Endpoint, String> {
    let user_file = match user_config_path() {
        Some(p) => read_user_file(&p)?,
        None => None,
    }
    .unwrap_or_default();
    let proj = project.config.model.clone().unwrap_or_default();
    let user_url = user.base_url.clone().or(user_file.base_url.clone());
    let (base_url, approved) = match (user_url, proj.base_url.clone()) {
        (Some(u), _) => (u, true),
        (None, Some(p)) => (p, false),
        (None, None) => return Err(crate::wording::NO_MODEL.to_string()),
    };
    let base_url = base_url.trim_end_matches('/').to_string();
    if reqwest::Url::parse(&base_url).is_err() {
        return Err(format!("model base_url `{base_url}` is not a URL"));
    }
    if !approved && !is_loopback(&base_url) {
        let where_ = user_config_path()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "your user config file".into());
        return Err(format!(
            "grounded.toml names the model endpoint {base_url}, which is not on this machine; a project file cannot send your key elsewhere: approve it with --base-url {base_url} or base_url in [model] of {where_}"
        ));
    }
    let model = user
        .model
        .clone()
        .or(user_file.name.clone())
        .or(proj.name.clone())
        .ok_or_else(|| crate::wording::NO_MODEL_NAME.to_string())?;
    // The variable's name may come from the project; its value only goes to an
    // endpoint that passed the rule above.
    let key_env = user
        .api_key_env
        .clone()
        .or(user_file.api_key_env.clone())
        .or(proj.api_key_env.clone());
    let api_key = key_env
        .and_then(|v| std::env::var(v).ok())
        .filter(|k| !k.is_empty());
    Ok(Endpoint {
        base_url,
        model,
        api_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_measured_figures() {
        let c = AgentConfig::default();
        assert_eq!(c.breaker_limit, 4);
        assert_eq!(c.live_lookup_budget, 12);
        assert_eq!(c.per_query_live, 2);
        assert!(c.charged("rag_lookup"));
        assert!(!c.charged("lookup_docs"));
        assert_eq!(c.fuzzy_threshold, 0.8);
        assert_eq!((c.gate_budget, c.reserve_final), (3, 2));
        assert!(!c.denoun);
        assert_eq!((c.max_steps, c.worker_max_steps), (24, 12));
    }

    #[test]
    fn agent_settings_come_from_grounded_toml() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("grounded.toml"),
            "[agent]\nmax_steps = 5\nworker_max_steps = 3\ntimeout_secs = 7\nmax_tokens = 99\n",
        )
        .unwrap();
        let p = Project::discover(dir.path(), dir.path()).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let c = AgentConfig::for_project(&p, false);
        assert_eq!((c.max_steps, c.worker_max_steps), (5, 3));
        assert_eq!(c.request_timeout, Duration::from_secs(7));
        assert_eq!(c.max_tokens, Some(99));
        std::fs::write(
            dir.path().join("grounded.toml"),
            "[agent]\nworker_max_steps = 0\n",
        )
        .unwrap();
        let p = Project::discover(dir.path(), dir.path()).unwrap();
        assert_eq!(AgentConfig::for_project(&p, false).worker_max_steps, 1);
    }

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost:11434/v1"));
        assert!(is_loopback("http://[::1]:1/v1"));
        assert!(!is_loopback("https://api.example.com/v1"));
        assert!(!is_loopback("http://10.0.0.2/v1"));
        assert!(!is_loopback("not a url"));
    }
}
