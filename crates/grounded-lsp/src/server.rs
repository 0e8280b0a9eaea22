//! The protocol: the capabilities announced at `initialize` and the `LanguageServer`
//! dispatch, each handler one call into the module of its concern. The state and the
//! guards every module uses are `state`, below the handlers; the old paths here
//! re-export them.
//!
//! May import every handler and `state`; nothing imports this but the crate's entry.

use std::sync::atomic::Ordering;

use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::LanguageServer;

use super::state::{read, write};
use super::workspace::workspace_root;

pub use super::state::{
    client_timeout, Backend, State, CLIENT_TIMEOUT, DEBUG_PANIC_ENV, INDEX_IDLE,
};

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let root = workspace_root(&params);
        tracing::info!("initialize, root {:?}", root);
        write(&self.state.root, root);
        if let Some(opts) = &params.initialization_options {
            let mut s = read(&self.state.settings);
            s.merge(opts);
            write(&self.state.settings, s);
        }
        self.state.can_show_progress.store(
            params
                .capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            Ordering::Relaxed,
        );
        let ws = params.capabilities.workspace.as_ref();
        self.state.can_pull_config.store(
            ws.and_then(|w| w.configuration).unwrap_or(false),
            Ordering::Relaxed,
        );
        self.state.can_register_watchers.store(
            ws.and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            Ordering::Relaxed,
        );
        self.reload().await;
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "grounded".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".into()]),
                    ..Default::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    retrigger_characters: None,
                    work_done_progress_options: Default::default(),
                }),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::REFACTOR_REWRITE,
                        ]),
                        ..Default::default()
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![super::agent::ASK.into(), super::agent::CANCEL.into()],
                    work_done_progress_options: Default::default(),
                }),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.on_initialized();
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.open_document(params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.change_document(params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.saved(params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.close_document(params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.change_configuration(params);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.change_watched_files(params).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.hover_at(params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        self.complete_at(params).await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        self.signature_at(params).await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.symbols_of(params).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.definition_at(params).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.references_at(params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.rename_at(params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.workspace_symbols(params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.actions_for(params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        self.agent_command(params).await
    }
}
