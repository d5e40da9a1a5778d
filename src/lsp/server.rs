//! The language server: `initialize` and its negotiation (position encoding, progress,
//! configuration, code action resolution), the settings, and the `LanguageServer` methods,
//! each of which only translates between LSP and the library (`handlers/`, `sync.rs`).
//!
//! Every handler runs inside [`guard`]: a panic becomes a JSON-RPC internal error (or, in
//! a notification, a log line) and the server keeps serving. Requests to the client are
//! never awaited inside a request handler; the configuration pull after `initialized` and
//! progress creation run in background tasks, with timeouts.

use super::config::{ServerOptions, Settings};
use super::convert::{Encoding, path_of};
use super::ext;
use super::handlers;
use super::jobs::{self, Job};
use super::state::{ClientFlags, State};
use super::sync;
use futures::FutureExt;
use serde_json::Value;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// How long the server waits for the client's answer to `workspace/configuration`.
const CONFIGURATION_TIMEOUT: Duration = Duration::from_secs(5);

/// What the server, its publisher and its compile actor share.
pub struct Shared {
    pub client: Client,
    state: Mutex<State>,
    refresh: UnboundedSender<String>,
    jobs: UnboundedSender<Job>,
}

impl Shared {
    pub fn new(
        client: Client,
        refresh: UnboundedSender<String>,
        jobs: UnboundedSender<Job>,
    ) -> Shared {
        Shared {
            client,
            state: Mutex::new(State::new()),
            refresh,
            jobs,
        }
    }

    /// The state. A panic while it was held does not poison it for good: the handler that
    /// panicked left it as consistent as any early return would.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Asks the publisher to recompute and publish `uri`'s diagnostics.
    pub fn refresh(&self, uri: String) {
        let _ = self.refresh.send(uri);
    }

    pub fn send_job(&self, job: Job) {
        let _ = self.jobs.send(job);
    }

    /// Sends a `window/logMessage` from synchronous code.
    pub fn log(&self, typ: MessageType, message: String) {
        let client = self.client.clone();
        tokio::spawn(async move { client.log_message(typ, message).await });
    }

    pub fn log_error(&self, message: String) {
        self.log(MessageType::ERROR, message);
    }

    /// Asks the client to refresh inlay hints and code lenses, where it supports that.
    pub async fn refresh_views(&self) {
        let flags = self.lock().client;
        let client = self.client.clone();
        tokio::spawn(async move {
            if flags.inlay_hint_refresh {
                let _ =
                    tokio::time::timeout(CONFIGURATION_TIMEOUT, client.inlay_hint_refresh()).await;
            }
            if flags.code_lens_refresh {
                let _ =
                    tokio::time::timeout(CONFIGURATION_TIMEOUT, client.code_lens_refresh()).await;
            }
        });
    }

    /// Merges newly received options and re-runs every project's save job with the new
    /// settings (a changed training setting retrains; the rest reads the cache).
    pub fn apply_options(&self, options: ServerOptions) {
        let mut state = self.lock();
        state.options = std::mem::take(&mut state.options).merged(options);
        let settings = Settings::resolve(&state.options, state.root.as_deref());
        if *state.settings == settings {
            return;
        }
        state.settings = Arc::new(settings);
        let keys: Vec<_> = state.projects.keys().cloned().collect();
        for key in keys {
            let text = sync::rules_text(&state, &key);
            jobs::start(self, &mut state, &key, text, jobs::Training::IfEnabled);
        }
    }
}

/// Runs a handler, turning a panic into an internal error response (and a log line).
pub async fn guard<T>(
    shared: &Shared,
    method: &str,
    work: impl Future<Output = Result<T>>,
) -> Result<T> {
    caught(method, work, |message| shared.log_error(message)).await
}

/// [`guard`]'s work: runs `work`, and on a panic calls `log` and answers an internal error.
async fn caught<T>(
    method: &str,
    work: impl Future<Output = Result<T>>,
    log: impl FnOnce(String),
) -> Result<T> {
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let message = panic_message(&*panic);
            log(format!("rulelens panicked in {method}: {message}"));
            Err(Error {
                code: ErrorCode::InternalError,
                message: format!("rulelens failed in {method}: {message}").into(),
                data: None,
            })
        }
    }
}

/// Runs a notification handler, turning a panic into a log line.
pub async fn guard_notification(shared: &Shared, method: &str, work: impl Future<Output = ()>) {
    let _ = guard(shared, method, work.map(Ok)).await;
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// The `rulelens serve` language server.
pub struct RulesServer {
    pub shared: Arc<Shared>,
}

impl RulesServer {
    fn initialize_now(&self, params: InitializeParams) -> InitializeResult {
        let capabilities = &params.capabilities;
        let encoding = Encoding::negotiate(
            capabilities
                .general
                .as_ref()
                .and_then(|g| g.position_encodings.as_deref()),
        );
        let text_document = capabilities.text_document.as_ref();
        let workspace = capabilities.workspace.as_ref();
        let flags = ClientFlags {
            work_done_progress: capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            configuration_pull: workspace.and_then(|w| w.configuration).unwrap_or(false),
            code_action_resolve: text_document
                .and_then(|t| t.code_action.as_ref())
                .and_then(|c| c.resolve_support.as_ref())
                .is_some_and(|r| r.properties.iter().any(|p| p == "edit")),
            document_changes: workspace
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            markdown_hover: text_document
                .and_then(|t| t.hover.as_ref())
                .and_then(|h| h.content_format.as_ref())
                .is_none_or(|formats| formats.contains(&MarkupKind::Markdown)),
            hierarchical_symbols: text_document
                .and_then(|t| t.document_symbol.as_ref())
                .and_then(|s| s.hierarchical_document_symbol_support)
                .unwrap_or(false),
            inlay_hint_refresh: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|i| i.refresh_support)
                .unwrap_or(false),
            code_lens_refresh: workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
        };
        #[allow(deprecated)]
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|folders| folders.first())
            .and_then(|folder| path_of(&folder.uri))
            .or_else(|| params.root_uri.as_ref().and_then(path_of));
        let options = match params.initialization_options {
            Some(value) => match ServerOptions::from_json(value) {
                Ok(options) => options,
                Err(error) => {
                    self.shared.log(
                        MessageType::ERROR,
                        format!("initializationOptions ignored: {error}"),
                    );
                    ServerOptions::default()
                }
            },
            None => ServerOptions::default(),
        };
        {
            let mut state = self.shared.lock();
            state.encoding = encoding;
            state.client = flags;
            state.settings = Arc::new(Settings::resolve(&options, root.as_deref()));
            state.options = options;
            state.root = root;
        }
        InitializeResult {
            capabilities: handlers::capabilities(encoding),
            server_info: Some(ServerInfo {
                name: "rulelens".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        }
    }

    /// Pulls the `rulelens` section of the client's configuration, in the background.
    fn pull_configuration(&self) {
        if !self.shared.lock().client.configuration_pull {
            return;
        }
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let items = vec![ConfigurationItem {
                scope_uri: None,
                section: Some("rulelens".to_string()),
            }];
            let answer =
                tokio::time::timeout(CONFIGURATION_TIMEOUT, shared.client.configuration(items))
                    .await;
            let Ok(Ok(values)) = answer else {
                return;
            };
            let Some(value) = values.into_iter().next() else {
                return;
            };
            match ServerOptions::from_json(value) {
                Ok(options) => shared.apply_options(options),
                Err(error) => {
                    shared.log(
                        MessageType::ERROR,
                        format!("rulelens settings ignored: {error}"),
                    );
                }
            }
        });
    }
}

impl LanguageServer for RulesServer {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        guard(&self.shared, "initialize", async {
            Ok(self.initialize_now(params))
        })
        .await
    }

    async fn initialized(&self, _: InitializedParams) {
        guard_notification(&self.shared, "initialized", async {
            self.pull_configuration();
        })
        .await;
    }

    async fn shutdown(&self) -> Result<()> {
        let state = self.shared.lock();
        for project in state.projects.values() {
            if let Some((_, cancel)) = &project.job {
                cancel.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        guard_notification(&self.shared, "didOpen", async {
            sync::did_open(&self.shared, params);
        })
        .await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Synchronous, before any await: changes apply in arrival order.
        guard_notification(&self.shared, "didChange", async {
            sync::did_change(&self.shared, params);
        })
        .await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        guard_notification(&self.shared, "didSave", async {
            sync::did_save(&self.shared, params);
        })
        .await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        guard_notification(&self.shared, "didClose", async {
            sync::did_close(&self.shared, params);
        })
        .await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        guard_notification(&self.shared, "didChangeConfiguration", async {
            match params.settings {
                // Clients of the pull model send nothing useful here: ask.
                Value::Null => self.pull_configuration(),
                Value::Object(ref map) if map.is_empty() => self.pull_configuration(),
                value => match ServerOptions::from_json(value) {
                    Ok(options) => self.shared.apply_options(options),
                    Err(error) => self.shared.log(
                        MessageType::ERROR,
                        format!("rulelens settings ignored: {error}"),
                    ),
                },
            }
        })
        .await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guard(&self.shared, "hover", async {
            Ok(handlers::hover::hover(&self.shared, params))
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        guard(&self.shared, "codeAction", async {
            Ok(handlers::code_action::code_actions(&self.shared, params))
        })
        .await
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        guard(&self.shared, "codeAction/resolve", async {
            handlers::code_action::resolve(&self.shared, action)
        })
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        guard(&self.shared, "codeLens", async {
            Ok(handlers::lens::code_lens(&self.shared, params))
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        guard(&self.shared, "inlayHint", async {
            Ok(handlers::lens::inlay_hints(&self.shared, params))
        })
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        guard(&self.shared, "definition", async {
            Ok(handlers::navigation::goto_definition(&self.shared, params))
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        guard(&self.shared, "references", async {
            Ok(handlers::navigation::find_references(&self.shared, params))
        })
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        guard(&self.shared, "prepareRename", async {
            Ok(handlers::navigation::prepare(&self.shared, params))
        })
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        guard(&self.shared, "rename", async {
            handlers::navigation::rename_symbol(&self.shared, params)
        })
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        guard(&self.shared, "documentSymbol", async {
            Ok(handlers::symbols::document_symbol(&self.shared, params))
        })
        .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        guard(&self.shared, "semanticTokens/full", async {
            Ok(handlers::semantic_tokens::full(&self.shared, params))
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        guard(&self.shared, "completion", async {
            Ok(handlers::completion::complete(&self.shared, params))
        })
        .await
    }
}

impl RulesServer {
    /// `rulelens/showAutomaton`.
    pub async fn show_automaton(
        &self,
        params: ext::ShowAutomatonParams,
    ) -> Result<ext::ShowAutomatonResult> {
        guard(&self.shared, ext::SHOW_AUTOMATON, async {
            ext::show_automaton(&self.shared, params)
        })
        .await
    }

    /// `rulelens/train`.
    pub async fn train(&self, params: ext::TrainParams) -> Result<ext::TrainResult> {
        guard(&self.shared, ext::TRAIN, async {
            ext::train(&self.shared, params)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_handler_answers_an_internal_error_and_logs_it() {
        let mut logged = Vec::new();
        let answer: Result<()> = caught(
            "textDocument/hover",
            async { panic!("index out of bounds") },
            |message| logged.push(message),
        )
        .await;
        let error = answer.unwrap_err();
        assert_eq!(error.code, ErrorCode::InternalError);
        assert!(
            error.message.contains("textDocument/hover"),
            "{}",
            error.message
        );
        assert_eq!(
            logged,
            ["rulelens panicked in textDocument/hover: index out of bounds"]
        );
        let fine: Result<u8> = caught("hover", async { Ok(1) }, |_| panic!("no log")).await;
        assert_eq!(fine.unwrap(), 1);
    }
}
