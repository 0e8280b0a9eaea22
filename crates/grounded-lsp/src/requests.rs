//! Feature requests: hover, completion, signature help, document symbols, definition and
//! code actions. Each takes a snapshot of the buffer, converts the protocol's UTF-16
//! positions to byte offsets, and hands over to [`super::features`] or
//! [`super::actions`] inside the panic guard.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::document::{range_of, Kind};
use super::state::{guard, read, Backend};
use super::store::RequestScript;
use super::{actions, features, navigation};
use grounded_js::LineIndex;

impl Backend {
    /// `textDocument/hover`.
    pub(super) async fn hover_at(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let Some(RequestScript {
            text,
            tree,
            seed,
            whole,
        }) = self.script_at(&p.text_document.uri, p.position).await
        else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let seed = seed.as_deref();
        let (found, name) = guard("hover", || {
            let off = grounded_js::offset_utf16(&text, p.position.line, p.position.character);
            match features::hover(&corpus, &text, &tree, off, seed, whole.as_ref()) {
                Some(h) => (Some(h), None),
                None => (
                    None,
                    features::undeclared_name_at(&corpus, &text, &tree, off, seed),
                ),
            }
        })?;
        if found.is_some() {
            return Ok(found);
        }
        // A top-level name of another project file: its declaration there.
        let Some(name) = name else { return Ok(None) };
        let declared = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            ix.files.values().any(|f| f.decls.contains(&name))
        };
        if !declared {
            return Ok(None);
        }
        let this = self.clone();
        let h = tokio::task::spawn_blocking(move || {
            guard("hover", || {
                let loc = this.find_function_in_project(&name)?;
                let text = match this.state.docs.get(loc.uri.as_str()) {
                    Some(e) => e.doc.text.clone(),
                    None => {
                        let p = loc.uri.to_file_path()?;
                        grounded_textfile::read(&p).ok()?.text
                    }
                };
                let at = LineIndex::new(&text)
                    .offset_utf16(loc.range.start.line, loc.range.start.character);
                let file = loc
                    .uri
                    .as_str()
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                features::foreign_declaration(&text, at, &file)
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        Ok(h)
    }

    /// `textDocument/completion`.
    pub(super) async fn complete_at(
        &self,
        params: CompletionParams,
    ) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let Some(RequestScript {
            text, tree, seed, ..
        }) = self.script_at(&p.text_document.uri, p.position).await
        else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let project = self.project_names(&p.text_document.uri);
        guard("completion", || {
            let off = grounded_js::offset_utf16(&text, p.position.line, p.position.character);
            let items = features::completion(&corpus, &text, &tree, off, &project, seed.as_deref());
            if items.len() > MAX_COMPLETION_ITEMS {
                return Some(CompletionResponse::List(CompletionList {
                    is_incomplete: true,
                    items: limit_completion(items, typed_word(&text, off)),
                }));
            }
            (!items.is_empty()).then_some(CompletionResponse::Array(items))
        })
    }

    /// `textDocument/signatureHelp`.
    pub(super) async fn signature_at(
        &self,
        params: SignatureHelpParams,
    ) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        let Some(RequestScript {
            text, tree, seed, ..
        }) = self.script_at(&p.text_document.uri, p.position).await
        else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("signatureHelp", || {
            let off = grounded_js::offset_utf16(&text, p.position.line, p.position.character);
            features::signature_help(&corpus, &text, &tree, off, seed.as_deref())
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
            let off = grounded_js::offset_utf16(&text, p.position.line, p.position.character);
            let from = uri.to_file_path();
            features::definition(&corpus, &root, from.as_deref(), &text, &tree, off)
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
            Some(features::Target::Docs(file, line)) => read(&self.state.corpus_dir)
                .and_then(|dir| Uri::from_file_path(navigation::normalize(&dir.join(file))))
                .map(|uri| {
                    let at = Position::new(line.saturating_sub(1) as u32, 0);
                    Location {
                        uri,
                        range: Range::new(at, at),
                    }
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

    /// `textDocument/references`: where the project name under the cursor is written.
    pub(super) async fn references_at(
        &self,
        params: ReferenceParams,
    ) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let Some((sym, _)) = self.symbol_at(&p).await? else {
            return Ok(None);
        };
        let this = self.clone();
        let home = p.text_document.uri.clone();
        let mut locs = tokio::task::spawn_blocking(move || {
            guard("references", || {
                let scripts = this.project_scripts(&home, sym.global);
                navigation::references(&this.corpus(), &home, &scripts, &sym)
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        if !params.context.include_declaration {
            locs.retain(|l| !self.is_declaration(l));
        }
        Ok(Some(locs))
    }

    /// `textDocument/rename`: every occurrence [`Backend::references_at`] finds, renamed;
    /// refused for names the project does not declare (the engine's, the language's)
    /// and for a new name that is not an identifier.
    pub(super) async fn rename_at(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position;
        if !navigation::is_identifier(&params.new_name) {
            return Err(Error::invalid_params(format!(
                "`{}` is not a name the script's language accepts",
                params.new_name
            )));
        }
        let Some((sym, _)) = self.symbol_at(&p).await? else {
            return Err(Error::invalid_params(
                "only the project's own functions and variables can be renamed",
            ));
        };
        let this = self.clone();
        let home = p.text_document.uri.clone();
        let new_name = params.new_name.clone();
        let changes = tokio::task::spawn_blocking(move || {
            guard("rename", || {
                let scripts = this.project_scripts(&home, sym.global);
                navigation::rename_edits(&this.corpus(), &home, &scripts, &sym, &new_name)
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        Ok(Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }))
    }

    /// `workspace/symbol`: the project's top-level names and the corpus's APIs.
    pub(super) async fn workspace_symbols(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let this = self.clone();
        let syms = tokio::task::spawn_blocking(move || {
            guard("workspace/symbol", || {
                let scripts = this.project_scripts_all();
                let dir = read(&this.state.corpus_dir);
                navigation::workspace_symbols(
                    &this.corpus(),
                    dir.as_deref(),
                    &scripts,
                    &params.query,
                )
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        Ok(Some(WorkspaceSymbolResponse::Flat(syms)))
    }

    /// The project's top-level names with the file declaring each, but those of `uri`'s
    /// own file (its analysis knows them better), for completion.
    fn project_names(&self, uri: &Uri) -> Vec<(String, String)> {
        let own = self
            .state
            .docs
            .get(uri.as_str())
            .map(|e| grounded_check::project::normalize(&e.rel));
        let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
        ix.files
            .iter()
            .filter(|(rel, _)| Some(rel.as_str()) != own.as_deref())
            .flat_map(|(rel, f)| f.decls.iter().map(move |d| (d.clone(), rel.clone())))
            .collect()
    }

    /// The project symbol under the cursor (see [`features::symbol_at`]).
    async fn symbol_at(
        &self,
        p: &TextDocumentPositionParams,
    ) -> Result<Option<(features::Symbol, usize)>> {
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let names: HashSet<String> = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            ix.files
                .values()
                .flat_map(|f| f.decls.iter().cloned())
                .collect()
        };
        guard("symbol", || {
            let off = grounded_js::offset_utf16(&text, p.position.line, p.position.character);
            features::symbol_at(&corpus, &text, &tree, off, &|n| names.contains(n))
                .map(|(s, start, _)| (s, start))
        })
    }

    /// The scripts references and rename read: for a local, its buffer; for a
    /// top-level name every script of the project. Blocking.
    fn project_scripts(&self, home: &Uri, global: bool) -> Vec<(Uri, String)> {
        if !global {
            return self
                .state
                .docs
                .get(home.as_str())
                .map(|e| vec![(e.uri.clone(), e.doc.text.clone())])
                .unwrap_or_default();
        }
        self.project_scripts_all()
    }

    /// Every script of the project: open buffers, then the files on disk. Blocking.
    fn project_scripts_all(&self) -> Vec<(Uri, String)> {
        let open: Vec<(Uri, Option<PathBuf>, String)> = self
            .state
            .docs
            .iter()
            .filter(|e| e.doc.kind != Kind::Skipped)
            .map(|e| (e.uri.clone(), e.path.clone(), e.doc.text.clone()))
            .collect();
        match self.root() {
            Some(root) => {
                navigation::project_scripts(&root, &self.corpus().engine.script_extensions, &open)
            }
            None => open.into_iter().map(|(u, _, t)| (u, t)).collect(),
        }
    }

    /// Whether a location is a declaration of the name there (after `var`, `function`,
    /// `let` or `const`), read from the text.
    fn is_declaration(&self, l: &Location) -> bool {
        let text = match self.state.docs.get(l.uri.as_str()) {
            Some(e) => e.doc.text.clone(),
            None => match l.uri.to_file_path().and_then(|p| std::fs::read(&*p).ok()) {
                Some(b) => grounded_textfile::decode(b).text,
                None => return false,
            },
        };
        let idx = LineIndex::new(&text);
        let at = idx.offset_utf16(l.range.start.line, l.range.start.character);
        let before = text[..at].trim_end();
        ["var", "function", "let", "const"]
            .iter()
            .any(|k| before.ends_with(k))
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
        let only = params.context.only.clone();
        if let Some(o) = only.as_deref() {
            // Asked for the source action alone (on save): the quick fixes of the
            // cursor's findings and the agent's actions are not what was asked.
            if actions::wanted(Some(o), actions::FIX_ALL) {
                let corpus = self.corpus();
                let index = super::state::read(&self.state.index);
                let (rel, text) = (snap.rel.clone(), snap.text.clone());
                let fixed = guard("codeAction", || {
                    match grounded_check::fix::fix_text(&text, None, |t| {
                        // What the editor shows: a finding an ignore comment or
                        // grounded.toml silences is not fixed.
                        let mut v = grounded_check::verdict_of(&corpus, &index, &rel, t);
                        v.findings =
                            self.unsilenced(&rel, t, v.findings, &corpus.engine.directives);
                        v
                    }) {
                        grounded_check::fix::Outcome::Fixed {
                            text: fixed,
                            applied,
                        } => actions::fix_all(&uri, &text, &fixed, applied),
                        grounded_check::fix::Outcome::Refused(why) => {
                            tracing::info!("{FIX}: {rel}: {why}", FIX = actions::FIX_ALL);
                            None
                        }
                    }
                })?;
                if o.iter()
                    .all(|k| actions::wanted(Some(std::slice::from_ref(k)), actions::FIX_ALL))
                {
                    return Ok(fixed.map(|a| vec![a]));
                }
            }
        }
        let (text, tree) = (snap.text, snap.tree);
        let corpus = self.corpus();
        let r = params.range;
        let actions = guard("codeAction", || {
            let idx = LineIndex::new(&text);
            let start = idx.offset_utf16(r.start.line, r.start.character);
            let end = idx.offset_utf16(r.end.line, r.end.character);
            let mut out = actions::quick_fixes(&uri, &text, &findings, start, end, |f| {
                self.diagnostic_of(Some(&uri), &idx, &text, f, true)
            });
            out.extend(actions::ignore_actions(
                &uri,
                &text,
                &findings,
                start,
                end,
                |f| self.diagnostic_of(Some(&uri), &idx, &text, f, true),
            ));
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
        if let Some(o) = only.as_deref() {
            actions.retain(|a| match a {
                CodeActionOrCommand::CodeAction(a) => a
                    .kind
                    .as_ref()
                    .is_some_and(|k| actions::wanted(Some(o), k.as_str())),
                CodeActionOrCommand::Command(_) => false,
            });
        }
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
            // Read by the one rule (a mark before the text is none of it), as the
            // positions found here are the editor's.
            let text = grounded_textfile::decode(bytes).text;
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

/// The most completion items one answer carries.
///
/// Why: in a 7.8 MB script of 34,000 functions, every completion listed all of them
/// (megabytes of JSON per keystroke; 2.5 s at p95 in `cargo bench --bench lsp`). Past
/// this many, the answer holds those that start with what is typed and says it is
/// incomplete, so the editor asks again as the word grows.
const MAX_COMPLETION_ITEMS: usize = 1000;

/// The identifier characters typed just before `off`.
fn typed_word(text: &str, off: usize) -> &str {
    let off = off.min(text.len());
    let head = text.get(..off).unwrap_or_default();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '$')
        .last()
        .map_or(off, |(i, _)| i);
    &head[start..]
}

/// The first [`MAX_COMPLETION_ITEMS`] items whose label starts with `typed` (ignoring
/// case), in their order.
fn limit_completion(items: Vec<CompletionItem>, typed: &str) -> Vec<CompletionItem> {
    let typed = typed.to_lowercase();
    items
        .into_iter()
        .filter(|i| i.label.to_lowercase().starts_with(&typed))
        .take(MAX_COMPLETION_ITEMS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_word_is_the_identifier_before_the_cursor() {
        assert_eq!(typed_word("var x = fo", 10), "fo");
        assert_eq!(typed_word("a.$el", 5), "$el");
        assert_eq!(typed_word("f(", 2), "");
        assert_eq!(typed_word("é1", 3), "é1");
    }

    #[test]
    fn a_long_list_keeps_what_starts_with_the_typed_word() {
        let items: Vec<CompletionItem> = (0..3000)
            .map(|i| CompletionItem {
                label: format!("{}{i}", if i % 2 == 0 { "Fa" } else { "g" }),
                ..Default::default()
            })
            .collect();
        let kept = limit_completion(items, "fa1");
        assert!(kept.iter().all(|i| i.label.starts_with("Fa1")));
        assert_eq!(
            kept.len(),
            555,
            "Fa10..Fa18, Fa100..Fa198, Fa1000..Fa1998, even"
        );
    }
}
