//! Feature requests: hover, completion, signature help, document symbols, definition and
//! code actions. Each takes a snapshot of the buffer, converts the protocol's UTF-16
//! positions to byte offsets, and hands over to [`super::features`] or
//! [`super::actions`] inside the panic guard.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::document::{range_of, Kind};
use super::server::{guard, Backend};
use super::{actions, features};
use crate::js::LineIndex;

impl Backend {
    /// `textDocument/hover`.
    pub(super) async fn hover_at(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("hover", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::hover(&corpus, &text, &tree, off)
        })
    }

    /// `textDocument/completion`.
    pub(super) async fn complete_at(
        &self,
        params: CompletionParams,
    ) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("completion", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            let items = features::completion(&corpus, &text, &tree, off);
            (!items.is_empty()).then_some(CompletionResponse::Array(items))
        })
    }

    /// `textDocument/signatureHelp`.
    pub(super) async fn signature_at(
        &self,
        params: SignatureHelpParams,
    ) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("signatureHelp", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::signature_help(&corpus, &text, &tree, off)
        })
    }

    /// `textDocument/documentSymbol`.
    pub(super) async fn symbols_of(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let Some((text, tree)) = self.script(&params.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("documentSymbol", || {
            Some(DocumentSymbolResponse::Nested(features::document_symbols(
                &corpus, &text, &tree,
            )))
        })
    }

    /// `textDocument/definition`: what [`features::definition`] finds; a function it
    /// names but cannot place in this buffer is looked up in the project.
    pub(super) async fn definition_at(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let uri = p.text_document.uri.clone();
        let Some((text, tree)) = self.script(&uri).await else {
            return Ok(None);
        };
        let Some(root) = self.root() else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let target = guard("definition", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::definition(&corpus, &root, &text, &tree, off)
        })?;
        let loc = match target {
            None => None,
            Some(features::Target::File(path)) => Uri::from_file_path(&path).map(|uri| Location {
                uri,
                range: Range::default(),
            }),
            Some(features::Target::Here(s, e)) => Some(Location {
                uri,
                range: range_of(&LineIndex::new(&text), s, e),
            }),
            Some(features::Target::Function(name)) => {
                let this = self.clone();
                tokio::task::spawn_blocking(move || {
                    guard("definition", || this.find_function_in_project(&name))
                })
                .await
                .map_err(|_| Error::internal_error())??
            }
        };
        Ok(loc.map(GotoDefinitionResponse::Scalar))
    }

    /// `textDocument/codeAction`: the quick fixes of the findings in range (only when
    /// they were computed for this very text) and the construct removal.
    pub(super) async fn actions_for(
        &self,
        params: CodeActionParams,
    ) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let Some(snap) = self.fresh_async(uri.as_str()).await else {
            return Ok(None);
        };
        if snap.kind == Kind::Skipped {
            return Ok(None);
        }
        // Fixes computed for another text would edit the wrong bytes.
        let findings = match self.state.docs.get(uri.as_str()) {
            Some(e) if e.findings_version == snap.version => e.findings.clone(),
            _ => Arc::new(Vec::new()),
        };
        let (text, tree) = (snap.text, snap.tree);
        let corpus = self.corpus();
        let r = params.range;
        let actions = guard("codeAction", || {
            let idx = LineIndex::new(&text);
            let start = idx.offset_utf16(r.start.line, r.start.character);
            let end = idx.offset_utf16(r.end.line, r.end.character);
            let mut out = actions::quick_fixes(&uri, &text, &findings, start, end, |f| {
                self.diagnostic_of(&idx, &text, f, true)
            });
            if let Some(tree) = &tree {
                out.extend(actions::remove_construct(
                    &corpus,
                    &uri,
                    &text,
                    tree,
                    r.start.line,
                ));
            }
            out
        })?;
        let mut actions = actions;
        actions.extend(self.agent_actions(&params));
        Ok((!actions.is_empty()).then_some(actions))
    }

    /// Where function `name` is declared in the project: open buffers first, then the
    /// files the index says declare it, then a bounded walk. Blocking.
    fn find_function_in_project(&self, name: &str) -> Option<Location> {
        let root = self.root()?;
        let corpus = self.corpus();
        // Open buffers first: they are the truth.
        for e in self.state.docs.iter() {
            if e.doc.kind == Kind::Script {
                if let Some((s, en)) = features::find_function(&e.doc.text, name) {
                    let idx = LineIndex::new(&e.doc.text);
                    return Some(Location {
                        uri: e.uri.clone(),
                        range: range_of(&idx, s, en),
                    });
                }
            }
        }
        // The index knows which files declare what: read those first.
        let declaring: Vec<PathBuf> = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            ix.files
                .iter()
                .filter(|(_, f)| f.decls.contains(name))
                .map(|(rel, _)| root.join(rel))
                .collect()
        };
        let exts = corpus.engine.script_extensions.clone();
        let walked = ignore::WalkBuilder::new(&root)
            .build()
            .flatten()
            .take(20_000)
            .map(|e| e.into_path());
        for p in declaring.into_iter().chain(walked) {
            let p = p.as_path();
            let name_s = p.to_string_lossy();
            if !p.is_file() || !exts.iter().any(|x| name_s.ends_with(x.as_str())) {
                continue;
            }
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            if bytes.len() > super::document::MAX_ANALYSED_BYTES {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            if !text.contains(name) {
                continue;
            }
            if let Some((s, en)) = features::find_function(&text, name) {
                let idx = LineIndex::new(&text);
                let uri = Uri::from_file_path(p)?;
                return Some(Location {
                    uri,
                    range: range_of(&idx, s, en),
                });
            }
        }
        None
    }
}
