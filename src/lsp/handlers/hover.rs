//! `textDocument/hover`: over a pattern or a label of a rules file, and over a corpus line.
//! The data comes from `ide::hover_rules` and `ide::hover_line`, the document from
//! `ide::render_*`, written as Markdown, or as plain text for a client whose
//! `hover.contentFormat` lacks `markdown`; hovers read the last finished network and never
//! wait for training. A line too long for a hover's time to measure is the next one the
//! background measures (`lsp::measure`, which the server starts after the hover).

use crate::ide::{
    Figures, HoverConfig, LineNetwork, examples_in, hover_line, hover_rules, mvma_view,
    patterns_view, render_line_hover, render_rules_hover, render_unbound_corpus, training_note,
};
use crate::lsp::state::Snapshot;
use text_size::TextRange;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub fn hover(snapshot: &Snapshot, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    let config = HoverConfig::default();
    let found = if let Some(view) = snapshot.rules(uri.as_str()) {
        let text = view.text();
        let offset = text.offset(position);
        let figures = Figures {
            analysis: view.project.saved.as_ref().map(|s| s.analysis.as_ref()),
            pending: view.project.is_analyzing(),
            patterns: view.project.patterns.network.as_deref(),
        };
        hover_rules(&view.file, offset, figures, &config).map(|(range, hover)| {
            let mut document = render_rules_hover(&hover);
            if let Some(training) = &view.project.training {
                document.push(training_note(training));
            }
            (document, text.lsp_range(range))
        })
    } else if let Some(view) = snapshot.corpus(uri.as_str()) {
        let text = view.text();
        let offset = text.offset(position);
        let document = view.document;
        examples_in(
            &document.text,
            &document.index,
            view.format,
            TextRange::empty(offset),
        )
        .into_iter()
        .next()
        .and_then(|example| {
            let range = example.text_range.or(example.label_range)?;
            let document = match view.project {
                Some((_, project)) => {
                    let current = &project.current.source.text;
                    let training = &snapshot.settings.training;
                    let network = match project.model.network.as_deref() {
                        Some(model) => LineNetwork::Trained {
                            model,
                            stale: !model.manifest.is_trained_on(current),
                        },
                        None => match project.training.as_deref() {
                            Some(progress) => LineNetwork::Training { progress },
                            None if training.mvma_network().is_some() => LineNetwork::MvmaOnly,
                            None if training.rules_network().is_none() => LineNetwork::SopaOnly,
                            None if training.enabled => LineNetwork::NotYetTrained,
                            None => LineNetwork::TrainingOff,
                        },
                    };
                    let mut hover = hover_line(&example, &project.current, network, &config);
                    // The line's n-grams are measured in the background (`lsp::measure`):
                    // this one first.
                    if let (Some(model), Ok(view)) = (&project.model.network, &hover.network)
                        && view.measuring_ahead
                    {
                        model.measured.look_at(uri.as_str(), range.start());
                    }
                    hover.mvma = project.mvma.network.as_deref().map(|mvma| {
                        let stale = !mvma.manifest.is_trained_on(current);
                        let gold = example.label.as_deref();
                        mvma_view(&example.text, gold, mvma, stale, &config)
                    });
                    hover.patterns = project.patterns.network.as_deref().map(|patterns| {
                        let stale = !patterns.manifest.is_trained_on(current);
                        patterns_view(&example.text, &project.current, patterns, stale, &config)
                    });
                    render_line_hover(&hover, &example.text)
                }
                None => render_unbound_corpus(),
            };
            Some((document, text.lsp_range(range)))
        })
    } else {
        None
    };
    Ok(found.map(|(document, range)| Hover {
        contents: HoverContents::Markup(if snapshot.client.markdown_hover {
            MarkupContent {
                kind: MarkupKind::Markdown,
                value: document.to_markdown(),
            }
        } else {
            MarkupContent {
                kind: MarkupKind::PlainText,
                value: document.to_plain_text(),
            }
        }),
        range: Some(range),
    }))
}
