//! `textDocument/codeLens` (a pattern's figures above it, in a rules file) and
//! `textDocument/inlayHint` (the predicted labels at the end of corpus lines), from
//! `ide::pattern_lenses` and `ide::line_hints`.

use crate::ide::{line_hints, pattern_lenses};
use crate::lsp::state::Snapshot;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    CodeLens, CodeLensParams, Command, InlayHint, InlayHintLabel, InlayHintParams, InlayHintTooltip,
};

pub fn code_lens(snapshot: &Snapshot, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let Some(view) = snapshot.rules(params.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let Some(saved) = &view.project.saved else {
        return Ok(None);
    };
    let text = view.text();
    Ok(Some(
        pattern_lenses(&view.file, &saved.analysis)
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
    ))
}

pub fn inlay_hints(snapshot: &Snapshot, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let Some(view) = snapshot.corpus(params.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let Some((_, project)) = view.project else {
        return Ok(None);
    };
    let text = view.text();
    let range = text.range(params.range);
    let hints = line_hints(
        &view.document.text,
        &view.document.index,
        view.format,
        range,
        &project.current,
        project.model.as_deref(),
    );
    Ok(Some(
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
    ))
}
