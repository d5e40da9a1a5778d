//! `textDocument/codeLens` (a pattern's figures above it, in a rules file) and
//! `textDocument/inlayHint` (the predicted labels at the end of corpus lines), from
//! `ide::pattern_lenses` and `ide::line_hints`.

use super::{corpus_snapshot, rules_snapshot};
use crate::ide::{line_hints, pattern_lenses};
use crate::lsp::server::Shared;
use tower_lsp_server::ls_types::{
    CodeLens, CodeLensParams, Command, InlayHint, InlayHintLabel, InlayHintParams, InlayHintTooltip,
};

pub fn code_lens(shared: &Shared, params: CodeLensParams) -> Option<Vec<CodeLens>> {
    let snapshot = rules_snapshot(shared, &params.text_document.uri)?;
    let saved = snapshot.saved.as_ref()?;
    let text = snapshot.text();
    Some(
        pattern_lenses(&snapshot.file, &saved.analysis)
            .into_iter()
            .map(|lens| CodeLens {
                range: text.lsp_range(lens.range),
                // A title only: clients show it, and there is nothing to run.
                command: Some(Command {
                    title: lens.title,
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            })
            .collect(),
    )
}

pub fn inlay_hints(shared: &Shared, params: InlayHintParams) -> Option<Vec<InlayHint>> {
    let snapshot = corpus_snapshot(shared, &params.text_document.uri)?;
    let project = snapshot.project.as_ref()?;
    let text = snapshot.text();
    let range = text.range(params.range);
    let hints = line_hints(
        &snapshot.text,
        &snapshot.index,
        snapshot.format,
        range,
        &project.rules,
        project.model.as_deref(),
    );
    Some(
        hints
            .into_iter()
            .map(|hint| InlayHint {
                position: text.position(hint.offset),
                label: InlayHintLabel::String(hint.label),
                kind: None,
                text_edits: None,
                tooltip: hint.tooltip.map(InlayHintTooltip::String),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
            .collect(),
    )
}
