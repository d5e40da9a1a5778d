//! `textDocument/hover`: over a pattern or a label of a rules file, and over a corpus line.
//! The data comes from `ide::hover_rules` and `ide::hover_line`, the document from
//! `ide::render_*`, written as Markdown, or as plain text for a client whose
//! `hover.contentFormat` lacks `markdown`; hovers read the last finished network of each
//! role and never wait for training. A hover changes nothing: a line too long for its time
//! to measure is returned beside it, and is the next one the background measures
//! (`lsp::measure`, which the server starts after the hover).

use crate::ide::{
    AbsentNetwork, Figures, HoverConfig, LineView, Role, examples_in, hover_line, hover_rules,
    render_line_hover, render_rules_hover, render_unbound_corpus, training_note,
};
use crate::lsp::state::{Project, Snapshot};
use text_size::{TextRange, TextSize};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

/// The hover at the position, and where the corpus line it is over starts when the rule
/// network could measure that line's n-grams further ahead of its hover (`lsp::measure`
/// notes it after the answer).
pub fn hover(
    snapshot: &Snapshot,
    params: HoverParams,
) -> Result<(Option<Hover>, Option<TextSize>)> {
    let position = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    let config = HoverConfig::default();
    let mut unmeasured = None;
    let found = if let Some(view) = snapshot.rules(uri.as_str()) {
        let text = view.text();
        let offset = text.offset(position);
        let figures = Figures {
            analysis: view.project.saved.as_ref().map(|s| s.analysis.as_ref()),
            pending: view.project.is_analyzing(),
            patterns: (view.project.network(Role::LearnedPatterns)).and_then(|n| n.patterns()),
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
                    let networks: Vec<_> = (Role::ALL.iter())
                        .filter_map(|&role| project.network(role).map(|n| n.as_ref()))
                        .collect();
                    let absent = classifier_absent(snapshot, project);
                    let hover = hover_line(&example, &project.current, &networks, absent, &config);
                    let measuring_ahead = hover.views.iter().any(
                        |view| matches!(view, LineView::RuleNetwork(view) if view.measuring_ahead),
                    );
                    if measuring_ahead {
                        unmeasured = Some(range.start());
                    }
                    render_line_hover(&hover, &example.text)
                }
                None => render_unbound_corpus(),
            };
            Some((document, text.lsp_range(range)))
        })
    } else {
        None
    };
    let hover = found.map(|(document, range)| Hover {
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
    });
    Ok((hover, unmeasured))
}

/// Why the project holds no network that classifies, when it holds none: training one, off,
/// or the settings train only a SoPa.
fn classifier_absent(snapshot: &Snapshot, project: &Project) -> Option<AbsentNetwork> {
    if project.network(Role::Classifier).is_some() {
        return None;
    }
    let training = &snapshot.settings.training;
    Some(match project.training.as_deref() {
        Some(progress) => AbsentNetwork::Training {
            progress: progress.to_string(),
        },
        None if training.network(Role::Classifier).is_none() => AbsentNetwork::SopaOnly,
        None if training.enabled => AbsentNetwork::NotYetTrained,
        None => AbsentNetwork::TrainingOff,
    })
}
