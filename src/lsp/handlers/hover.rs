//! `textDocument/hover`: over a pattern or a label of a rules file, and over a corpus line.
//! The data comes from `ide::hover_rules` and `ide::hover_line`, the Markdown from
//! `ide::render_*`; hovers read the last finished network and never wait for training.

use super::{corpus_snapshot, rules_snapshot};
use crate::ide::{examples_in, hover_line, hover_rules, render_line_hover, render_rules_hover};
use crate::lsp::server::Shared;
use text_size::TextRange;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub fn hover(shared: &Shared, params: HoverParams) -> Option<Hover> {
    let position = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    let (markdown, config) = {
        let state = shared.lock();
        (state.client.markdown_hover, state.settings.hover)
    };
    let (value, range) = if let Some(snapshot) = rules_snapshot(shared, &uri) {
        let text = snapshot.text();
        let offset = text.offset(position);
        let analysis = snapshot.saved.as_ref().map(|s| s.analysis.as_ref());
        let (range, hover) = hover_rules(&snapshot.file, offset, analysis, &config)?;
        let mut value = render_rules_hover(&hover);
        if let Some(training) = &snapshot.training {
            value.push_str(&format!("\n_Training: {training}_\n"));
        }
        (value, text.lsp_range(range))
    } else {
        let snapshot = corpus_snapshot(shared, &uri)?;
        let text = snapshot.text();
        let offset = text.offset(position);
        let example = examples_in(
            &snapshot.text,
            &snapshot.index,
            snapshot.format,
            TextRange::empty(offset),
        )
        .into_iter()
        .next()?;
        let range = example.text_range.or(example.label_range)?;
        let value = match &snapshot.project {
            Some(project) => {
                let model = project
                    .model
                    .as_deref()
                    .map(|m| (m, !m.is_trained_on(&project.rules.source.text)));
                let hover = hover_line(&example, &project.rules, model, &config);
                render_line_hover(&hover, &example.text)
            }
            None => {
                "_No rules file binds this corpus: add `corpus train \"…\"` to one._".to_string()
            }
        };
        (value, text.lsp_range(range))
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if markdown {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            },
            value,
        }),
        range: Some(range),
    })
}
