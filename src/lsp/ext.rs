//! The server's extensions to LSP: custom requests, with their parameters and results
//! (`docs/lsp.md` documents them, and `editors/vscode/src/lsp_ext.ts` mirrors this file).
//!
//! - `rulelens/showAutomaton`: a pattern's minimal DFA as Graphviz DOT.
//! - `rulelens/train`: train the network of a rules file now, even with training switched
//!   off in the settings (a cached network for the same rules, settings and corpora is
//!   loaded instead).

use super::convert::path_of;
use super::documents::Kind;
use super::handlers::rules_snapshot;
use super::jobs::{self, Training};
use super::server::Shared;
use super::state::State;
use super::sync::rules_text;
use crate::automata::{pattern_dot, system_dot};
use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{Position, TextDocumentIdentifier};

/// The method name of [`show_automaton`].
pub const SHOW_AUTOMATON: &str = "rulelens/showAutomaton";
/// The method name of [`train`].
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

pub fn show_automaton(shared: &Shared, params: ShowAutomatonParams) -> Result<ShowAutomatonResult> {
    let uri = params.text_document.uri;
    let snapshot = rules_snapshot(shared, &uri).ok_or_else(|| {
        Error::invalid_params(format!("{} is not an open rules document", uri.as_str()))
    })?;
    let rules = &snapshot.file.rules;
    let pattern = match (&params.pattern, params.position) {
        (Some(name), _) => Some(rules.pattern_by_name(name).ok_or_else(|| {
            Error::invalid_params(format!("no pattern `{name}` in {}", uri.as_str()))
        })?),
        (None, Some(position)) => {
            let offset = snapshot.text().offset(position);
            let found = rules
                .patterns
                .iter()
                .position(|def| def.range.contains_inclusive(offset))
                .map(|p| crate::syntax::PatternId(p as u32));
            Some(found.ok_or_else(|| Error::invalid_params("no pattern at this position"))?)
        }
        (None, None) => None,
    };
    Ok(match pattern {
        Some(id) => ShowAutomatonResult {
            pattern: Some(rules.patterns[id.index()].name.clone()),
            dot: pattern_dot(&snapshot.file.system, id),
        },
        None => ShowAutomatonResult {
            pattern: None,
            dot: system_dot(&snapshot.file.system),
        },
    })
}

pub fn train(shared: &Shared, params: TrainParams) -> Result<TrainResult> {
    let uri = params.text_document.uri;
    let mut state = shared.lock();
    let document = state
        .documents
        .get(uri.as_str())
        .ok_or_else(|| Error::invalid_params(format!("{} is not open", uri.as_str())))?;
    let key = match document.kind {
        Kind::Rules => State::rules_key(uri.as_str(), document),
        Kind::Corpus(_) => {
            let path = path_of(&uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
            match state.project_of_corpus(&path) {
                Some((key, _)) => key.clone(),
                None => {
                    return Ok(TrainResult {
                        started: false,
                        message: "no rules file binds this corpus".to_string(),
                    });
                }
            }
        }
    };
    if let Some(project) = state.projects.get(&key) {
        if project.current.has_errors() {
            return Ok(TrainResult {
                started: false,
                message: format!(
                    "{} has errors: fix them to train (see the diagnostics)",
                    key.display()
                ),
            });
        }
        let bound = jobs::bindings(&project.current, &key, project.on_disk, &state.settings);
        let missing: Vec<&str> = ["train", "dev"]
            .into_iter()
            .filter(|name| !bound.iter().any(|(n, _)| n == name))
            .collect();
        if !missing.is_empty() {
            return Ok(TrainResult {
                started: false,
                message: format!(
                    "{} binds no {} corpus: training needs `corpus train` and `corpus dev`",
                    key.display(),
                    missing.join(" or ")
                ),
            });
        }
    }
    let text = rules_text(&state, &key);
    jobs::start(shared, &mut state, &key, text, Training::Always);
    Ok(TrainResult {
        started: true,
        message: format!("training {} in the background", key.display()),
    })
}
