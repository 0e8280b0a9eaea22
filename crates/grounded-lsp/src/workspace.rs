//! Configuration: where the project, the settings and the corpus come from (`--docs`,
//! the client's settings, `grounded.toml`, the bundled corpus), pulling and applying the
//! client's settings, file watching, and reloading all of it when it changes.
//!
//! The settings themselves and their precedence are [`super::config`]; this module is
//! the server's side of them: when to ask the client, what a change triggers.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::document::Kind;
use super::state::{client_timeout, guard, read, write, Backend};
use grounded_check::ProjectIndex;
use grounded_docs::{Corpus, Library};
use grounded_project::{Project, CONFIG_FILE};

/// The workspace folder the client opened (its first), else its deprecated root URI.
pub(super) fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    if let Some(f) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return f.uri.to_file_path().map(|p| p.into_owned());
    }
    #[allow(deprecated)]
    params
        .root_uri
        .as_ref()
        .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
}

impl Backend {
    /// When the workspace folder has no `grounded.toml` at or above it but the opened
    /// file has one (the repository opened at its top, a script project inside it), that
    /// file's project becomes the session's: its root, its corpus. Without this, `path`
    /// arguments would resolve against the wrong folder and every `loadJS` would be a
    /// false `file` finding. Returns whether the project changed (and all was re-checked).
    pub(super) async fn adopt_project_of(&self, key: &str) -> bool {
        if read(&self.state.project).is_some_and(|p| p.has_config) {
            return false;
        }
        let Some(path) = self.state.docs.get(key).and_then(|e| e.path.clone()) else {
            return false;
        };
        let Some(root) = grounded_project::find_root(&path) else {
            return false;
        };
        if self.root().as_deref() == Some(root.as_path()) {
            return false;
        }
        tracing::info!(
            "adopting the project of {}: {}",
            path.display(),
            root.display()
        );
        write(&self.state.root, Some(root));
        // Every open buffer is named relative to the new root.
        let keys: Vec<(String, Uri)> = self
            .state
            .docs
            .iter()
            .map(|e| (e.key().clone(), e.uri.clone()))
            .collect();
        for (k, uri) in keys {
            let (p, rel) = self.rel_of(&uri);
            if let Some(mut e) = self.state.docs.get_mut(&k) {
                e.path = p;
                e.rel = rel;
            }
        }
        self.reload().await;
        self.recheck_all();
        true
    }

    /// Where the corpus comes from now: `--docs`, the client's setting, `grounded.toml`,
    /// else `None` (bundled).
    fn docs_path(&self) -> Option<PathBuf> {
        if let Some(d) = &self.state.cli_docs {
            return Some(d.clone());
        }
        let root = self.root();
        if let Some(root) = &root {
            if let Some(p) = read(&self.state.settings).docs_path(root) {
                return Some(p);
            }
        }
        read(&self.state.project).and_then(|p| p.docs_path(None))
    }

    /// Says, once per session, what the last project scan left out (a script over the
    /// size limit, dependency folders, a walk cut short) or read lossily: a function
    /// declared in a skipped file is "defined nowhere", and the user must be able to
    /// tell why. Logged in full; shown as one message.
    pub(super) async fn say_scan_notes(&self) {
        let fresh: Vec<String> = {
            let pending = match self.state.scan_notes.lock() {
                Ok(mut p) => std::mem::take(&mut *p),
                Err(_) => return,
            };
            let Ok(mut said) = self.state.said.lock() else {
                return;
            };
            pending
                .into_iter()
                .filter(|n| said.insert(n.clone()))
                .collect()
        };
        if fresh.is_empty() {
            return;
        }
        for n in &fresh {
            tracing::info!("project scan: {n}");
        }
        let more = fresh.len().saturating_sub(3);
        let mut text = format!(
            "grounded: about the project's files: {}",
            fresh.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
        );
        if more > 0 {
            text.push_str(&format!(" (and {more} more in the log)"));
        }
        self.state
            .client
            .show_message(MessageType::WARNING, text)
            .await;
    }

    /// Reads `grounded.toml`, loads the corpus, rescans the project; off the async
    /// threads. Errors are shown to the user and the previous corpus stays.
    pub(super) async fn reload(&self) {
        let this = self.clone();
        let mut rules_said = None;
        let res = tokio::task::spawn_blocking(move || {
            guard("reload", || {
                let mut rules_error = None;
                if let Some(root) = this.root() {
                    match Project::discover(&root, &root) {
                        Ok(p) => {
                            for w in &p.warnings {
                                tracing::warn!("{w}");
                            }
                            // A broken `[check]` is said, and the editor checks with
                            // every code meanwhile: a typo in the config must not
                            // hide every finding.
                            let rules = grounded_check::Rules::new(&p.config.check, &p.root, None, None)
                                .unwrap_or_else(|e| {
                                    rules_error = Some(e);
                                    grounded_check::Rules::default()
                                });
                            // The baseline is read with the rules; a broken one is said
                            // like a broken table, and nothing is silenced by it.
                            let baseline = rules.baseline.as_ref().and_then(|file| {
                                let read = std::fs::read(file)
                                    .map_err(|e| e.to_string())
                                    .and_then(|b| {
                                        String::from_utf8(b).map_err(|_| "not valid UTF-8".into())
                                    })
                                    .and_then(|t| grounded_check::baseline::Baseline::parse(&t));
                                match read {
                                    Ok(b) => Some(Arc::new(b)),
                                    Err(e) => {
                                        rules_error.get_or_insert(format!(
                                            "baseline {}: {e}",
                                            file.display()
                                        ));
                                        None
                                    }
                                }
                            });
                            write(&this.state.baseline, baseline);
                            write(&this.state.rules, Arc::new(rules));
                            write(&this.state.project, Some(p))
                        }
                        Err(e) => {
                            write(&this.state.rules, Arc::new(grounded_check::Rules::default()));
                            write(&this.state.baseline, None);
                            return Err(e);
                        }
                    }
                }
                let path = this.docs_path();
                let corpus = match &path {
                    // The content-keyed cache: an editor's start-up need not derive a
                    // big corpus again when its bytes have not changed.
                    Some(p) => Corpus::load_cached(p).map_err(|e| e.to_string())?,
                    None => {
                        tracing::warn!(
                            "no --docs, no `docs` setting and no `docs` in grounded.toml; using the bundled demo engine's corpus"
                        );
                        grounded_docs::bundled::demo().map_err(|e| e.to_string())?
                    }
                };
                let corpus = Arc::new(corpus);
                let dir = path.map(|p| {
                    let d = if p.is_file() {
                        p.parent().map(Path::to_path_buf).unwrap_or(p)
                    } else {
                        p
                    };
                    super::navigation::normalize(&d)
                });
                let index = match this.root() {
                    Some(root) => {
                        let mut ix = ProjectIndex::scan(&corpus, &root);
                        // `grounded.toml`'s `globals`, as the command line reads them.
                        let globals = read(&this.state.project)
                            .as_ref()
                            .map(|p| p.config.globals.clone())
                            .unwrap_or_default();
                        for g in ix.set_globals(&corpus, &globals) {
                            tracing::warn!("grounded.toml: global `{g}` is documented by the engine's docs; the docs' `{g}` is used");
                        }
                        if let Ok(mut n) = this.state.scan_notes.lock() {
                            *n = ix.notes.iter().map(|u| format!("{}: {}", u.path, u.reason)).collect();
                        }
                        for e in this.state.docs.iter() {
                            if this.inside_root(&e.rel) && e.doc.kind != Kind::Skipped {
                                ix.update_file(&corpus, &e.rel, &e.doc.text);
                            }
                        }
                        ix
                    }
                    None => ProjectIndex::default(),
                };
                tracing::info!("corpus {} loaded", corpus.origin);
                let caveat = corpus.load_caveat();
                // Another engine may have other directives: what the parser sees changes.
                for mut e in this.state.docs.iter_mut() {
                    if e.doc.directives != corpus.engine.directives {
                        e.doc.directives = corpus.engine.directives.clone();
                        e.doc.tree = None;
                        e.doc.dirty = true;
                    }
                }
                write(&this.state.corpus, Arc::new(Library::new(corpus)));
                write(&this.state.corpus_dir, dir);
                write(&this.state.index, Arc::new(index));
                Ok((caveat, rules_error))
            })
        })
        .await;
        let res = res.map(|r| {
            r.map(|r| {
                r.map(|(caveat, rules_error)| {
                    if let Some(e) = rules_error {
                        rules_said = Some(e);
                    }
                    caveat
                })
            })
        });
        if let Some(e) = rules_said {
            tracing::warn!("{e}");
            self.state
                .client
                .show_message(MessageType::ERROR, format!("grounded: {e}"))
                .await;
        }
        let msg = match res {
            // Said once per load, where findings are read: a broken corpus line
            // otherwise surfaced only as a false `member` finding.
            Ok(Ok(Ok(Some(caveat)))) => {
                tracing::warn!("{caveat}");
                self.state
                    .client
                    .show_message(MessageType::WARNING, format!("grounded: {caveat}"))
                    .await;
                None
            }
            Ok(Ok(Ok(None))) => None,
            Ok(Ok(Err(e))) => Some(e),
            Ok(Err(e)) => Some(e.message.to_string()),
            Err(e) => Some(format!("reload failed: {e}")),
        };
        if let Some(m) = msg {
            tracing::warn!("{m}");
            let m = if m.starts_with("grounded: ") {
                m
            } else {
                format!("grounded: {m}")
            };
            self.state.client.show_message(MessageType::ERROR, m).await;
        }
        self.say_scan_notes().await;
    }

    /// Asks the client for the `grounded` section, with a timeout.
    async fn pull_configuration(&self) -> Option<Value> {
        if !self.state.can_pull_config.load(Ordering::Relaxed) {
            return None;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("grounded".into()),
        }];
        match tokio::time::timeout(client_timeout(), self.state.client.configuration(items)).await {
            Ok(Ok(mut v)) => v.pop(),
            Ok(Err(e)) => {
                tracing::warn!("workspace/configuration failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!(
                    "workspace/configuration: no answer in {:?}",
                    client_timeout()
                );
                None
            }
        }
    }

    /// Whether the client cannot be asked for configuration (then pushed settings are
    /// taken as they come).
    fn pull_configuration_skipped(&self) -> bool {
        !self.state.can_pull_config.load(Ordering::Relaxed)
    }

    /// Applies new client settings; reloads the corpus if its path changed.
    async fn apply_settings(&self, v: &Value) {
        let before = read(&self.state.settings);
        let mut after = before.clone();
        after.merge(v);
        if after == before {
            return;
        }
        write(&self.state.settings, after.clone());
        if after.docs != before.docs {
            self.reload().await;
        }
        self.recheck_all();
    }

    /// Registers file watchers for `grounded.toml`, the engine's scripts and the corpus
    /// files, when the client lets the server register them.
    async fn register_watchers(&self) {
        if !self.state.can_register_watchers.load(Ordering::Relaxed) {
            return;
        }
        let mut globs: Vec<String> = vec![format!("**/{CONFIG_FILE}")];
        for ext in &self.corpus().engine.script_extensions {
            globs.push(format!("**/*{ext}"));
        }
        globs.extend([
            "**/*.md".into(),
            "**/*.jsonl".into(),
            "**/facts.toml".into(),
        ]);
        let watchers = globs
            .into_iter()
            .map(|g| FileSystemWatcher {
                glob_pattern: GlobPattern::String(g),
                kind: None,
            })
            .collect();
        let reg = Registration {
            id: "grounded-watch".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                watchers,
            })
            .ok(),
        };
        match tokio::time::timeout(
            client_timeout(),
            self.state.client.register_capability(vec![reg]),
        )
        .await
        {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!("registering file watchers failed: {e}"),
            Err(_) => tracing::warn!(
                "client/registerCapability: no answer in {:?}",
                client_timeout()
            ),
        }
    }

    /// `initialized`: registers the watchers and pulls the settings.
    pub(super) fn on_initialized(&self) {
        // Requests to the client run in their own task: a handler awaiting an answer
        // holds one of the library's few concurrency slots, and a client slow to answer
        // would hold back the edits queued behind it.
        // And not one after the other: an unanswered registration once held the
        // configuration pull back by the whole client timeout.
        let this = self.clone();
        tokio::spawn(async move { this.register_watchers().await });
        let this = self.clone();
        tokio::spawn(async move {
            if let Some(v) = this.pull_configuration().await {
                this.apply_settings(&v).await;
            }
        });
    }

    /// `workspace/didChangeConfiguration`: settings pushed, or a hint to pull them.
    pub(super) fn change_configuration(&self, params: DidChangeConfigurationParams) {
        let pushed = match &params.settings {
            Value::Object(m) if !m.is_empty() => Some(params.settings.clone()),
            _ => None,
        };
        let this = self.clone();
        tokio::spawn(async move {
            let v = match pushed {
                Some(v) if v.get("grounded").is_some() || this.pull_configuration_skipped() => v,
                _ => match this.pull_configuration().await {
                    Some(v) => v,
                    None => params.settings,
                },
            };
            this.apply_settings(&v).await;
        });
    }

    /// `workspace/didChangeWatchedFiles`: `grounded.toml` or the corpus reloads; a script
    /// changed on disk updates the index and re-checks its dependents.
    pub(super) async fn change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let corpus_dir = read(&self.state.corpus_dir);
        let mut reload = false;
        let mut created_or_deleted = false;
        let mut changed_rels = Vec::new();
        for ch in params.changes {
            let Some(path) = ch.uri.to_file_path().map(|p| p.into_owned()) else {
                continue;
            };
            if path.file_name().is_some_and(|n| n == CONFIG_FILE) {
                reload = true;
                continue;
            }
            if let Some(dir) = &corpus_dir {
                if path.starts_with(dir) {
                    reload = true;
                    continue;
                }
            }
            let (_, rel) = self.rel_of(&ch.uri);
            if !self.inside_root(&rel) {
                continue;
            }
            let exts = self.corpus().engine.script_extensions.clone();
            if !exts.iter().any(|x| rel.ends_with(x.as_str())) && !rel.ends_with(".md") {
                // Data files (`path` targets): their existence matters to `file` findings.
                created_or_deleted |= ch.typ != FileChangeType::CHANGED;
                continue;
            }
            if self.state.docs.contains_key(ch.uri.as_str()) {
                continue; // the buffer wins over the disk
            }
            let this = self.clone();
            let rel2 = rel.clone();
            let changed = tokio::task::spawn_blocking(move || {
                guard("index update", || this.index_from_disk(&rel2, &path))
            })
            .await;
            created_or_deleted |= ch.typ != FileChangeType::CHANGED;
            if let Ok(Ok(true)) = changed {
                changed_rels.push(rel);
            }
        }
        if reload {
            self.reload().await;
            self.recheck_all();
        } else if created_or_deleted {
            self.recheck_all();
        } else {
            self.recheck_dependents(&changed_rels, None);
        }
    }
}
