//! `rulelens/showAutomaton`: a pattern's minimal DFA (or every pattern's) as Graphviz DOT.

use crate::automata::{pattern_dot, system_dot};
use crate::lsp::ext::{ShowAutomatonParams, ShowAutomatonResult};
use crate::lsp::state::Snapshot;
use crate::syntax::PatternId;
use tower_lsp_server::jsonrpc::{Error, Result};

pub fn show_automaton(
    snapshot: &Snapshot,
    params: ShowAutomatonParams,
) -> Result<ShowAutomatonResult> {
    let uri = params.text_document.uri;
    let view = snapshot.rules(uri.as_str()).ok_or_else(|| {
        Error::invalid_params(format!("{} is not an open rules document", uri.as_str()))
    })?;
    let rules = &view.file.rules;
    let pattern = match (&params.pattern, params.position) {
        (Some(name), _) => Some(rules.pattern_by_name(name).ok_or_else(|| {
            Error::invalid_params(format!("no pattern `{name}` in {}", uri.as_str()))
        })?),
        (None, Some(position)) => {
            let offset = view.text().offset(position);
            let found = rules
                .patterns
                .iter()
                .position(|def| def.range.contains_inclusive(offset))
                .map(|p| PatternId(p as u32));
            Some(found.ok_or_else(|| Error::invalid_params("no pattern at this position"))?)
        }
        (None, None) => None,
    };
    Ok(match pattern {
        Some(id) => ShowAutomatonResult {
            pattern: Some(rules.patterns[id.index()].name.clone()),
            dot: pattern_dot(&view.file.system, id),
        },
        None => ShowAutomatonResult {
            pattern: None,
            dot: system_dot(&view.file.system),
        },
    })
}
