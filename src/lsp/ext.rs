//! The server's extensions to LSP: the custom requests' method names, parameters and
//! results, types only (`docs/lsp.md` documents them, `editors/vscode/src/lsp_ext.ts`
//! mirrors this file; the handlers are in `handlers/automaton.rs` and `sync.rs`).
//!
//! - `rulelens/showAutomaton`: a pattern's minimal DFA as Graphviz DOT.
//! - `rulelens/train`: train the network of a rules file now, even with training switched
//!   off in the settings (a cached network for the same rules, settings and corpora is
//!   loaded instead).
//! - `rulelens/suggest`: every suggested edit of the saved rules, with its evidence, as code
//!   actions for a picker.

use crate::suggest::Source;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::{CodeAction, Position, TextDocumentIdentifier};

/// `rulelens/showAutomaton`, as a request type.
pub enum ShowAutomaton {}

impl Request for ShowAutomaton {
    type Params = ShowAutomatonParams;
    type Result = ShowAutomatonResult;
    const METHOD: &'static str = SHOW_AUTOMATON;
}

/// `rulelens/train`, as a request type.
pub enum Train {}

impl Request for Train {
    type Params = TrainParams;
    type Result = TrainResult;
    const METHOD: &'static str = TRAIN;
}

/// `rulelens/suggest`, as a request type.
pub enum Suggest {}

impl Request for Suggest {
    type Params = SuggestParams;
    type Result = SuggestResult;
    const METHOD: &'static str = SUGGEST;
}

/// The method name of `rulelens/showAutomaton`.
pub const SHOW_AUTOMATON: &str = "rulelens/showAutomaton";
/// The method name of `rulelens/train`.
pub const TRAIN: &str = "rulelens/train";
/// The method name of `rulelens/suggest`.
pub const SUGGEST: &str = "rulelens/suggest";

/// `rulelens/showAutomaton` parameters: a rules document and either a pattern name or a
/// position inside a pattern's statement; neither gives every pattern.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowAutomatonParams {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default)]
    pub position: Option<Position>,
}

/// `rulelens/showAutomaton` result.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowAutomatonResult {
    /// The pattern shown (`LABEL@LINE` for an anonymous rule), or `null` for all of them.
    pub pattern: Option<String>,
    /// Graphviz DOT.
    pub dot: String,
}

/// `rulelens/train` parameters: a rules document, or a corpus document its rules bind.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainParams {
    pub text_document: TextDocumentIdentifier,
    /// Train from scratch: no warm start from the previous network, and none held or
    /// cached for the same text (absent: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full: Option<bool>,
}

/// `rulelens/train` result: training started in the background (progress and diagnostics
/// follow), or why not.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainResult {
    pub started: bool,
    pub message: String,
}

/// `rulelens/suggest` parameters: a rules document, or a corpus document its rules bind.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestParams {
    pub text_document: TextDocumentIdentifier,
}

/// Whether the suggestions of the last save are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SuggestStatus {
    /// `suggestions` holds them all.
    Ready,
    /// Not yet: the save is being analyzed or its suggestions measured; ask again.
    Pending,
    /// None can be made (`message` says why: switched off, errors, no corpora).
    Unavailable,
}

/// `rulelens/suggest` result.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestResult {
    pub status: SuggestStatus,
    pub message: String,
    /// Best first (the largest dev accuracy after the edit).
    pub suggestions: Vec<SuggestionItem>,
}

/// One suggestion: where it comes from, its evidence in a line, and the code action that
/// applies it (resolved through `codeAction/resolve` when the client resolves actions; its
/// title is the edit with its evidence).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionItem {
    pub source: Source,
    pub detail: String,
    pub action: CodeAction,
}
