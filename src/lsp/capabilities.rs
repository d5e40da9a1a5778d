//! What the client can do (read once from `initialize`) and what the server offers.

use super::convert::Encoding;
use tower_lsp_server::ls_types::*;

/// What the client said it can do, in `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientFlags {
    pub work_done_progress: bool,
    pub configuration_pull: bool,
    pub code_action_resolve: bool,
    pub document_changes: bool,
    pub markdown_hover: bool,
    pub hierarchical_symbols: bool,
    pub inlay_hint_refresh: bool,
    pub code_lens_refresh: bool,
    /// `textDocument.diagnostic` with `workspace.diagnostics.refreshSupport`: the client
    /// pulls diagnostics, gets none pushed, and is asked to pull again when a save or a
    /// network changes them. A client that pulls but cannot be asked again (Neovim 0.10)
    /// would miss those changes, which no edit of its own causes: it gets them pushed.
    pub pull_diagnostics: bool,
    /// `workspace.didChangeWatchedFiles.dynamicRegistration`: the client can watch the
    /// corpus files for the server (`watch.rs`).
    pub watched_files_registration: bool,
}

impl ClientFlags {
    pub fn of(capabilities: &ClientCapabilities) -> ClientFlags {
        let text_document = capabilities.text_document.as_ref();
        let workspace = capabilities.workspace.as_ref();
        ClientFlags {
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
            pull_diagnostics: text_document.is_some_and(|t| t.diagnostic.is_some())
                && workspace
                    .and_then(|w| w.diagnostics.as_ref())
                    .and_then(|d| d.refresh_support)
                    .unwrap_or(false),
            watched_files_registration: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
        }
    }
}

/// The semantic token types, in legend order (word lists, added last, after comments).
pub const TOKEN_TYPES: [SemanticTokenType; 9] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::STRING,
    SemanticTokenType::REGEXP,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::COMMENT,
    SemanticTokenType::VARIABLE,
];

/// The semantic token modifiers, in legend order.
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 1] = [SemanticTokenModifier::DEFINITION];

/// The code action kinds the server offers.
pub const CODE_ACTION_KINDS: [CodeActionKind; 2] =
    [CodeActionKind::QUICKFIX, CodeActionKind::REFACTOR_REWRITE];

/// What the server offers, given the negotiated position encoding and what the client can
/// do: pull diagnostics only to a client that pulls them (the others get them pushed).
pub fn server_capabilities(encoding: Encoding, client: &ClientFlags) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(CODE_ACTION_KINDS.to_vec()),
            resolve_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: TOKEN_TYPES.to_vec(),
                    token_modifiers: TOKEN_MODIFIERS.to_vec(),
                },
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            },
        )),
        // `@` starts a word list's name.
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["@".to_string()]),
            ..CompletionOptions::default()
        }),
        // A corpus's diagnostics follow the saves of the rules file that binds it.
        diagnostic_provider: client.pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("rulelens".to_string()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })
        }),
        ..ServerCapabilities::default()
    }
}
