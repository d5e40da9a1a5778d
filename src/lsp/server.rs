//! The `LanguageServer` implementation: `initialize` and its negotiation, the settings, and
//! the routing of every request to its handler.
//!
//! Every request goes through one generic [`Server::dispatch`], keyed by the request type's
//! `METHOD`: it takes one snapshot of the state once the background analysis of the open
//! rules documents has caught up (`Session::settled_snapshot`), runs the handler on tokio's
//! blocking pool, and turns a panic into a JSON-RPC internal error and a log line, so the
//! server keeps serving. Requests to the client are never awaited inside a request handler;
//! the configuration pull after `initialized` runs in the background, with a timeout.
//! Document notifications do not come through here: `sync.rs` applies them in arrival order.

use super::capabilities::{ClientFlags, server_capabilities};
use super::config::Options;
use super::convert::{Encoding, path_of};
use super::ext;
use super::handlers::{
    automaton, code_action, completion, diagnostic, hover, lens, navigation, semantic_tokens,
    symbols,
};
use super::measure;
use super::state::{Session, Snapshot};
use super::sync;
use super::watch;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tower_lsp_server::LanguageServer;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::request::{
    CodeActionRequest, CodeActionResolveRequest, CodeLensRequest, Completion,
    DocumentDiagnosticRequest, DocumentSymbolRequest, GotoDefinition, HoverRequest,
    InlayHintRequest, PrepareRenameRequest, References, Rename, Request, SemanticTokensFullRequest,
};
use tower_lsp_server::ls_types::*;

/// How long the server waits for the client's answer to `workspace/configuration`.
const CONFIGURATION_TIMEOUT: Duration = Duration::from_secs(5);

/// The `rulelens serve` language server.
pub struct Server {
    pub session: Arc<Session>,
}

/// The message of a panic's payload.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// The error answering a request whose handler panicked, after logging it.
fn internal_error(session: &Session, method: &str, panic: &(dyn std::any::Any + Send)) -> Error {
    let message = panic_message(panic);
    session.log_error(format!("rulelens panicked in {method}: {message}"));
    Error {
        code: ErrorCode::InternalError,
        message: format!("rulelens failed in {method}: {message}").into(),
        data: None,
    }
}

impl Server {
    /// Answers request `R` with `handler`, on one settled snapshot, off the async threads.
    async fn dispatch<R>(
        &self,
        params: R::Params,
        handler: fn(&Snapshot, R::Params) -> Result<R::Result>,
    ) -> Result<R::Result>
    where
        R: Request,
        R::Params: Send + 'static,
        R::Result: Send + 'static,
    {
        self.on_snapshot(R::METHOD, params, handler).await
    }

    /// Runs `handler` for the request `method` on the blocking pool, on a settled snapshot.
    async fn on_snapshot<P, T>(
        &self,
        method: &str,
        params: P,
        handler: fn(&Snapshot, P) -> Result<T>,
    ) -> Result<T>
    where
        P: Send + 'static,
        T: Send + 'static,
    {
        let snapshot = self.session.settled_snapshot().await;
        match tokio::task::spawn_blocking(move || handler(&snapshot, params)).await {
            Ok(answer) => answer,
            Err(error) => match error.try_into_panic() {
                Ok(panic) => Err(internal_error(&self.session, method, &*panic)),
                Err(_) => Err(Error::request_cancelled()),
            },
        }
    }

    fn initialize_now(&self, params: InitializeParams) -> InitializeResult {
        let capabilities = &params.capabilities;
        let encoding = Encoding::negotiate(
            capabilities
                .general
                .as_ref()
                .and_then(|g| g.position_encodings.as_deref()),
        );
        #[allow(deprecated)]
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|folders| folders.first())
            .and_then(|folder| path_of(&folder.uri))
            .or_else(|| params.root_uri.as_ref().and_then(path_of));
        let mut workspace_folders: Vec<PathBuf> = (params.workspace_folders.iter().flatten())
            .filter_map(|folder| path_of(&folder.uri))
            .collect();
        if workspace_folders.is_empty() {
            workspace_folders.extend(root.clone());
        }
        let options = params
            .initialization_options
            .map_or(Ok(Options::default()), Options::from_json);
        let (options, settings) =
            match options.and_then(|o| Ok((o.clone(), o.resolve(root.as_deref())?))) {
                Ok(resolved) => resolved,
                Err(message) => {
                    self.session.log(
                        MessageType::ERROR,
                        format!("initializationOptions ignored: {message}"),
                    );
                    (Options::default(), Default::default())
                }
            };
        let client = ClientFlags::of(capabilities);
        self.session.update(|state| {
            state.encoding = encoding;
            state.client = client;
            state.settings = Arc::new(settings);
            state.options = options;
            state.root = root;
            state.workspace_folders = workspace_folders.into();
            state.initialized = true;
        });
        InitializeResult {
            capabilities: server_capabilities(encoding, &client),
            server_info: Some(ServerInfo {
                name: "rulelens".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        }
    }

    /// Pulls the `rulelens` section of the client's configuration, in the background.
    fn pull_configuration(&self) {
        if !self.session.read(|state| state.client.configuration_pull) {
            return;
        }
        let session = self.session.clone();
        tokio::spawn(async move {
            let items = vec![ConfigurationItem {
                scope_uri: None,
                section: Some("rulelens".to_string()),
            }];
            let answer =
                tokio::time::timeout(CONFIGURATION_TIMEOUT, session.client.configuration(items))
                    .await;
            let Ok(Ok(values)) = answer else {
                return;
            };
            match values.into_iter().next().map(Options::from_json) {
                Some(Ok(options)) => sync::apply_options(&session, options),
                Some(Err(message)) => session.log(
                    MessageType::ERROR,
                    format!("rulelens settings ignored: {message}"),
                ),
                None => {}
            }
        });
    }

    /// `rulelens/showAutomaton`.
    /// `rulelens/suggest`.
    pub async fn suggest(&self, params: ext::SuggestParams) -> Result<ext::SuggestResult> {
        self.dispatch::<ext::Suggest>(params, code_action::suggest)
            .await
    }

    pub async fn show_automaton(
        &self,
        params: ext::ShowAutomatonParams,
    ) -> Result<ext::ShowAutomatonResult> {
        self.dispatch::<ext::ShowAutomaton>(params, automaton::show_automaton)
            .await
    }

    /// `rulelens/train`: changes the state (queues a job), so it runs on the session itself.
    pub async fn train(&self, params: ext::TrainParams) -> Result<ext::TrainResult> {
        let session = &self.session;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sync::train(session, params)
        }))
        .unwrap_or_else(|panic| Err(internal_error(session, ext::TRAIN, &*panic)))
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        Ok(self.initialize_now(params))
    }

    async fn initialized(&self, _: InitializedParams) {
        self.pull_configuration();
        watch::start(self.session.clone());
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let paths: Vec<_> = params
            .changes
            .iter()
            .filter_map(|change| path_of(&change.uri))
            .collect();
        watch::changed_on_disk(&self.session, &paths);
    }

    async fn shutdown(&self) -> Result<()> {
        self.session.update(|state| {
            state.shut_down = true;
            for project in state.projects.values() {
                if let Some(job) = &project.job {
                    job.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
        });
        Ok(())
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        match params.settings {
            // Clients of the pull model send nothing useful here: ask.
            Value::Null => self.pull_configuration(),
            Value::Object(ref map) if map.is_empty() => self.pull_configuration(),
            value => match Options::from_json(value) {
                Ok(options) => sync::apply_options(&self.session, options),
                Err(message) => self.session.log(
                    MessageType::ERROR,
                    format!("rulelens settings ignored: {message}"),
                ),
            },
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let uri = params
            .text_document_position_params
            .text_document
            .uri
            .clone();
        let answer = self
            .on_snapshot(HoverRequest::METHOD, params, hover::hover)
            .await;
        // A line the hover found not measured yet is measured soon, in the background.
        let unmeasured = answer.as_ref().ok().and_then(|(_, unmeasured)| *unmeasured);
        measure::after_hover(&self.session, uri.as_str(), unmeasured);
        answer.map(|(hover, _)| hover)
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.dispatch::<CodeActionRequest>(params, code_action::code_actions)
            .await
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        self.dispatch::<CodeActionResolveRequest>(action, code_action::resolve)
            .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.dispatch::<CodeLensRequest>(params, lens::code_lens)
            .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.dispatch::<InlayHintRequest>(params, lens::inlay_hints)
            .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.dispatch::<GotoDefinition>(params, navigation::goto_definition)
            .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.dispatch::<References>(params, navigation::find_references)
            .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.dispatch::<PrepareRenameRequest>(params, navigation::prepare)
            .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.dispatch::<Rename>(params, navigation::rename_symbol)
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.dispatch::<DocumentSymbolRequest>(params, symbols::document_symbol)
            .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        self.dispatch::<SemanticTokensFullRequest>(params, semantic_tokens::full)
            .await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        self.dispatch::<DocumentDiagnosticRequest>(params, diagnostic::diagnostic)
            .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        self.dispatch::<Completion>(params, completion::complete)
            .await
    }
}
