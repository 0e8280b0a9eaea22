//! The document store: the open buffers and their versions (a `dashmap` that every
//! analysis reads instead of the disk), how each is named for the checker, and snapshots
//! of a buffer at one version for analysis off the store's lock.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp_server::ls_types::*;

use super::document::{Document, Kind};
use super::state::{guard, Backend, Entry};
use super::typing::LOCAL_ANALYSIS_BYTES;

/// A buffer's state at one version, for analysis off the store's lock.
pub(super) struct Snapshot {
    pub(super) rel: String,
    pub(super) text: String,
    pub(super) tree: Option<tree_sitter::Tree>,
    pub(super) kind: Kind,
    pub(super) version: i32,
}

/// What a request at a position reads of a buffer (see [`Backend::script_at`]).
pub(super) struct RequestScript {
    /// The buffer's text.
    pub(super) text: String,
    /// Its tree: the whole buffer's, or on a large buffer the statements around the
    /// position alone, at their offsets in `text`.
    pub(super) tree: tree_sitter::Tree,
    /// The seed of the buffer's last check (see [`Entry::seed`]).
    pub(super) seed: Option<Arc<grounded_js::Seed>>,
    /// On a large buffer, the whole file beside the piece in `tree`: what a request asks
    /// of the statements it did not parse (where a top-level name is declared).
    pub(super) whole: Option<grounded_js::Whole>,
}

impl Backend {
    /// How a file is named for the checker and the index.
    pub(super) fn rel_of(&self, uri: &Uri) -> (Option<PathBuf>, String) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
            return (None, uri.as_str().to_string());
        };
        if let Some(root) = self.root() {
            let root_c = std::fs::canonicalize(&root).unwrap_or(root.clone());
            let full = std::fs::canonicalize(&path).unwrap_or(path.clone());
            for r in [&root, &root_c] {
                if let Ok(rel) = full.strip_prefix(r).or_else(|_| path.strip_prefix(r)) {
                    let rel = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/");
                    return (Some(path), rel);
                }
            }
        }
        let s = path.display().to_string();
        (Some(path), s)
    }

    /// Whether a name from [`Backend::rel_of`] is a file of the project (relative to its
    /// root), rather than an absolute path outside it or a non-file URI.
    pub(super) fn inside_root(&self, rel: &str) -> bool {
        !Path::new(rel).is_absolute() && !rel.contains(':') && self.root().is_some()
    }

    /// A buffer's text and current tree, reparsing (without holding the store's lock)
    /// when edits came since the last parse. Blocking: call off the async threads.
    pub(super) fn fresh(&self, key: &str) -> Option<Snapshot> {
        let (input, rel) = {
            let e = self.state.docs.get(key)?;
            match e.doc.parse_input() {
                None => {
                    return Some(Snapshot {
                        rel: e.rel.clone(),
                        text: e.doc.text.clone(),
                        tree: e.doc.tree.clone(),
                        kind: e.doc.kind,
                        version: e.doc.version,
                    })
                }
                Some(input) => (input, e.rel.clone()),
            }
        };
        let tree = input.parse(&rel);
        if let Some(mut e) = self.state.docs.get_mut(key) {
            e.doc.store_tree(input.version, tree.clone());
        }
        Some(Snapshot {
            rel,
            text: input.text,
            tree,
            kind: input.kind,
            version: input.version,
        })
    }

    /// [`Backend::fresh`] on the blocking pool.
    pub(super) async fn fresh_async(&self, key: &str) -> Option<Snapshot> {
        let this = self.clone();
        let key = key.to_string();
        tokio::task::spawn_blocking(move || guard("parse", || this.fresh(&key)))
            .await
            .ok()?
            .ok()?
    }

    /// A buffer with a tree (scripts, and Markdown's fenced blocks), for a request.
    pub(super) async fn script(&self, uri: &Uri) -> Option<(String, tree_sitter::Tree)> {
        match self.fresh_async(uri.as_str()).await? {
            Snapshot {
                text,
                tree: Some(tree),
                kind: Kind::Script | Kind::Markdown,
                ..
            } => Some((text, tree)),
            _ => None,
        }
    }

    /// [`Backend::script`] for a request at `pos`, with the seed of the buffer's last
    /// check (see [`Entry::seed`]).
    ///
    /// A buffer of [`LOCAL_ANALYSIS_BYTES`] and more is never parsed again for a
    /// request: the top-level statements around `pos` are cut from the buffer's last
    /// tree (edited to the text's positions) and parsed alone; the tree returned holds
    /// only them, at their offsets in the whole text. Why: tree-sitter's incremental
    /// reparse of a 7.8 MB script of 34,000 functions cost over a second of CPU, and
    /// hover and completion waited for it behind every keystroke. Before its first
    /// check, such a buffer answers nothing rather than wait seconds.
    pub(super) async fn script_at(&self, uri: &Uri, pos: Position) -> Option<RequestScript> {
        let large = self.state.docs.get(uri.as_str()).is_some_and(|e| {
            e.doc.kind == Kind::Script && e.doc.text.len() >= LOCAL_ANALYSIS_BYTES
        });
        if large {
            let this = self.clone();
            let key = uri.as_str().to_string();
            return tokio::task::spawn_blocking(move || {
                guard("parse", || this.piece_at(&key, pos)).ok().flatten()
            })
            .await
            .ok()
            .flatten();
        }
        match self.fresh_async(uri.as_str()).await? {
            Snapshot {
                text,
                tree: Some(tree),
                kind: Kind::Script | Kind::Markdown,
                ..
            } => {
                let seed = self.state.docs.get(uri.as_str())?.seed.clone();
                Some(RequestScript {
                    text,
                    tree,
                    seed,
                    whole: None,
                })
            }
            _ => None,
        }
    }

    /// The statements around `pos` of a large buffer, parsed alone (see
    /// [`Backend::script_at`]).
    fn piece_at(&self, key: &str, pos: Position) -> Option<RequestScript> {
        let (text, tree, seed, directives, rel) = {
            let e = self.state.docs.get(key)?;
            let seed = e.seed.clone()?;
            let tree = e.doc.tree.clone()?;
            (
                e.doc.text.clone(),
                tree,
                seed,
                e.doc.directives.clone(),
                e.rel.clone(),
            )
        };
        let offset = grounded_js::offset_utf16(&text, pos.line, pos.character);
        let node = super::typing::top_level_at(&tree, offset)?;
        let lo = node.prev_sibling().unwrap_or(node);
        let hi = node.next_sibling().unwrap_or(node);
        let start = lo.start_byte().min(text.len());
        // Through the cursor's line, for text typed after the last statement.
        let line_end = text[offset.min(text.len())..]
            .find('\n')
            .map_or(text.len(), |i| offset + i);
        let end = hi.end_byte().max(line_end).min(text.len());
        let script = match grounded_js::script_text(&rel, &text, &directives) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(s) => Some(s),
        };
        let read = script.as_deref().unwrap_or(&text);
        let piece = grounded_js::parse_range(read, start..end, lo.start_position())?;
        Some(RequestScript {
            text,
            tree: piece,
            seed: Some(seed),
            whole: Some(grounded_js::Whole { tree, script }),
        })
    }

    /// `textDocument/didOpen`: stores the buffer and checks it at once.
    pub(super) async fn open_document(&self, params: DidOpenTextDocumentParams) {
        let td = params.text_document;
        let key = td.uri.as_str().to_string();
        let (path, rel) = self.rel_of(&td.uri);
        let directives = self.corpus().engine.directives.clone();
        let doc = Document::open(&rel, td.text, td.version, &directives);
        if doc.kind == Kind::Skipped {
            tracing::warn!("{rel}: too large or binary, not analysed");
        }
        let version = doc.version;
        self.state.docs.insert(
            key.clone(),
            Entry {
                uri: td.uri,
                path,
                rel,
                doc,
                findings: Arc::new(Vec::new()),
                findings_version: -1,
                session: Arc::new(Mutex::new(None)),
                checks: Default::default(),
                facts_stale: true,
                seed: None,
            },
        );
        if self.adopt_project_of(&key).await {
            return; // everything open was re-checked against the new project
        }
        self.schedule_check(key, version, true, true);
    }

    /// `textDocument/didChange`: applies the edit, then schedules the check.
    pub(super) async fn change_document(&self, params: DidChangeTextDocumentParams) {
        // Applied before any `.await`: handlers interleave at awaits (tower-lsp #284),
        // and an edit applied late corrupts every later one.
        let key = params.text_document.uri.as_str().to_string();
        let version = params.text_document.version;
        {
            let Some(mut e) = self.state.docs.get_mut(&key) else {
                tracing::warn!("didChange for a document that is not open: {key}");
                return;
            };
            let rel = e.rel.clone();
            let res = guard("didChange", || {
                e.doc.apply(&rel, params.content_changes, version)
            });
            if res.is_err() {
                return;
            }
        }
        self.note_edit(&key);
        self.schedule_check(key, version, true, false);
    }

    /// `textDocument/didClose`: forgets the buffer; the file on disk speaks for it again.
    pub(super) async fn close_document(&self, params: DidCloseTextDocumentParams) {
        let key = params.text_document.uri.as_str().to_string();
        if let Some((_, e)) = self.state.docs.remove(&key) {
            // The file on disk is the truth again for its dependents.
            if let (true, Some(p)) = (self.inside_root(&e.rel), e.path.clone()) {
                let this = self.clone();
                let rel = e.rel.clone();
                let changed = tokio::task::spawn_blocking(move || {
                    guard("index update", || this.index_from_disk(&rel, &p))
                })
                .await;
                if let Ok(Ok(true)) = changed {
                    self.recheck_dependents(&[e.rel], None);
                }
            }
        }
        self.state.dry.remove(&key);
        if !self.state.docs.contains_key(&key) {
            if let Ok(uri) = key.parse::<Uri>() {
                self.state
                    .client
                    .publish_diagnostics(uri, Vec::new(), None)
                    .await;
            }
        }
        // Reopened while this close awaited: its publish may have gone out before the
        // clear above, which then left the editor showing a clean file with findings
        // on disk (issue 30). Publish the reopened buffer's findings again, last.
        let reopened = self
            .state
            .docs
            .get(&key)
            .is_some_and(|e| e.findings_version == e.doc.version);
        if reopened {
            self.publish(&key).await;
        }
        // A closed buffer's text, tree and session are freed, but glibc keeps the pages:
        // give them back, off the async threads (it walks every arena).
        tokio::task::spawn_blocking(super::trim_memory);
    }
}
