//! The server's settings, merged from three places.
//!
//! Precedence, strongest first: `grounded serve --docs`, the client's settings
//! (`initializationOptions`, then `workspace/configuration` or the settings pushed with
//! `workspace/didChangeConfiguration`, section `grounded`), `grounded.toml`, the bundled
//! demo corpus. The client's settings win over `grounded.toml` because a user who typed a
//! corpus path into the editor's settings means it for this session; the project file is
//! what every other tool (CI, the command line) reads.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Settings the client may send (camelCase keys under the section `grounded`).
///
/// ```json
/// {"docs": "../corpus", "debounceMs": 50,
///  "dryRun": {"enabled": true, "budgetMs": 2000, "idleMs": 1500}}
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The corpus path from the client, relative to the workspace root.
    pub docs: Option<String>,
    /// Quiet time after an edit before the file is re-checked; 0 checks at once.
    pub debounce_ms: u64,
    /// Whether the dry run runs on save and after idle.
    pub dry_run: bool,
    /// The dry run's time budget.
    pub dry_run_budget_ms: u64,
    /// Quiet time after the last edit before the dry run runs on unsaved buffers.
    pub dry_run_idle_ms: u64,
    /// `agent.baseUrl`: the model endpoint, approved by the user (it may receive the key).
    pub agent_base_url: Option<String>,
    /// `agent.model`: the model's name.
    pub agent_model: Option<String>,
    /// `agent.apiKeyEnv`: the name of the variable holding the key.
    pub agent_api_key_env: Option<String>,
    /// `agent.allowValidate`: the user's consent to run `[agent] validate`.
    pub agent_allow_validate: bool,
    /// `agent.transcript`: where the editor's turns append their transcript (a path; a
    /// relative one is relative to the workspace root). The CLI had `--transcript` and
    /// the editor had nothing, so a turn that went wrong in the editor left no record.
    pub agent_transcript: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            docs: None,
            debounce_ms: 50,
            dry_run: true,
            dry_run_budget_ms: 2000,
            dry_run_idle_ms: 1500,
            agent_base_url: None,
            agent_model: None,
            agent_api_key_env: None,
            agent_allow_validate: false,
            agent_transcript: None,
        }
    }
}

impl Settings {
    /// No longer used by the server (issue 30: an edit is checked at once when no
    /// check runs; edits during a check are merged). Kept for the setting's readers.
    /// It was: how long to wait after an edit, given what the buffer's last check cost: as
    /// long as that check, capped by `debounceMs`. A fixed 50 ms made a 1 ms check
    /// arrive in 51 ms, slower than the typing it debounced; waiting one check's cost
    /// still merges the keystrokes that arrive while a slow check would run.
    pub fn debounce_for(&self, last_check: std::time::Duration) -> std::time::Duration {
        last_check.min(std::time::Duration::from_millis(self.debounce_ms))
    }

    /// Applies the keys present in `v` (an object, or an object holding `grounded`);
    /// absent or mistyped keys leave the setting as it was, so a half-filled settings
    /// page never resets the rest.
    pub fn merge(&mut self, v: &Value) {
        let v = match v.get("grounded") {
            Some(inner) if inner.is_object() => inner,
            _ => v,
        };
        if !v.is_object() {
            return;
        }
        match v.get("docs") {
            Some(Value::String(s)) if !s.trim().is_empty() => self.docs = Some(s.clone()),
            Some(Value::String(_)) | Some(Value::Null) => self.docs = None,
            _ => {}
        }
        if let Some(n) = v.get("debounceMs").and_then(Value::as_u64) {
            self.debounce_ms = n.min(10_000);
        }
        let dry = v.get("dryRun");
        if let Some(b) = dry.and_then(Value::as_bool) {
            self.dry_run = b;
        }
        if let Some(d) = dry.filter(|d| d.is_object()) {
            if let Some(b) = d.get("enabled").and_then(Value::as_bool) {
                self.dry_run = b;
            }
            if let Some(n) = d.get("budgetMs").and_then(Value::as_u64) {
                self.dry_run_budget_ms = n.clamp(10, 60_000);
            }
            if let Some(n) = d.get("idleMs").and_then(Value::as_u64) {
                self.dry_run_idle_ms = n.min(600_000);
            }
        }
        if let Some(a) = v.get("agent").filter(|a| a.is_object()) {
            let text = |k: &str| match a.get(k) {
                Some(Value::String(s)) if !s.trim().is_empty() => Some(Some(s.clone())),
                Some(Value::String(_)) | Some(Value::Null) => Some(None),
                _ => None,
            };
            if let Some(x) = text("baseUrl") {
                self.agent_base_url = x;
            }
            if let Some(x) = text("model") {
                self.agent_model = x;
            }
            if let Some(x) = text("apiKeyEnv") {
                self.agent_api_key_env = x;
            }
            if let Some(x) = text("transcript") {
                self.agent_transcript = x;
            }
            if let Some(b) = a.get("allowValidate").and_then(Value::as_bool) {
                self.agent_allow_validate = b;
            }
        }
    }

    /// The client's corpus path, resolved against the workspace root.
    pub fn docs_path(&self, root: &Path) -> Option<PathBuf> {
        self.docs.as_ref().map(|d| {
            let p = PathBuf::from(d);
            if p.is_absolute() {
                p
            } else {
                root.join(p)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_scales_with_the_last_check_and_is_capped() {
        use std::time::Duration;
        let s = Settings::default();
        assert_eq!(s.debounce_for(Duration::ZERO), Duration::ZERO);
        assert_eq!(
            s.debounce_for(Duration::from_millis(3)),
            Duration::from_millis(3)
        );
        assert_eq!(
            s.debounce_for(Duration::from_secs(2)),
            Duration::from_millis(50)
        );
        let mut off = Settings::default();
        off.merge(&serde_json::json!({"debounceMs": 0}));
        assert_eq!(off.debounce_for(Duration::from_secs(2)), Duration::ZERO);
    }

    #[test]
    fn merge_keeps_what_is_absent() {
        let mut s = Settings::default();
        s.merge(&serde_json::json!({"grounded": {"debounceMs": 0, "dryRun": {"budgetMs": 500}}}));
        assert_eq!(s.debounce_ms, 0);
        assert_eq!(s.dry_run_budget_ms, 500);
        assert!(s.dry_run);
        s.merge(&serde_json::json!({"dryRun": false, "docs": "d"}));
        assert!(!s.dry_run);
        assert_eq!(s.docs.as_deref(), Some("d"));
        s.merge(&serde_json::json!("nonsense"));
        assert_eq!(s.debounce_ms, 0);
    }
}
