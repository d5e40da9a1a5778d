//! The server's extensions to LSP: the custom requests' method names, parameters and
//! results, types only (`docs/lsp.md` documents them, `editors/vscode/src/lsp_ext.ts`
//! mirrors this file; the handlers are in `handlers/automaton.rs` and `sync.rs`).
//!
//! - `rulelens/showAutomaton`: a pattern's minimal DFA as Graphviz DOT.
//! - `rulelens/train`: train the network of a rules file now, even with training switched
//!   off in the settings (a cached network for the same rules, settings and corpora is
//!   loaded instead).

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::{Position, TextDocumentIdentifier};

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

/// The method name of `rulelens/showAutomaton`.
pub const SHOW_AUTOMATON: &str = "rulelens/showAutomaton";
/// The method name of `rulelens/train`.
pub const TRAIN: &str = "rulelens/train";

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
}

/// `rulelens/train` result: training started in the background (progress and diagnostics
/// follow), or why not.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainResult {
    pub started: bool,
    pub message: String,
}
