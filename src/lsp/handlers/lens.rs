//! `textDocument/codeLens` (a pattern's figures above it, and the rules against their
//! networks and the black-box yardstick on the `default` line, in a rules file) and
//! `textDocument/inlayHint` (the predicted labels at the end of corpus lines), from
//! `ide::pattern_lenses` and `ide::line_hints`.

use crate::ide::{
    Measure, Role, RulesAnalysis, Standing, line_hints, pattern_lenses, yardstick_lens,
};
use crate::lsp::state::{Project, Snapshot};
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
    let mut lenses = pattern_lenses(&view.file, &saved.analysis);
    lenses.extend(yardstick_lens(
        &view.file,
        &standings(snapshot, view.project, &saved.analysis),
    ));
    Ok(Some(
        lenses
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

/// How the rules, the save's networks and the black-box yardstick stand on dev; none
/// without a dev corpus.
fn standings(snapshot: &Snapshot, project: &Project, analysis: &RulesAnalysis) -> Vec<Standing> {
    let Some(rules) = analysis
        .corpus("dev")
        .and_then(|dev| dev.evaluation.accuracy())
    else {
        return Vec::new();
    };
    let mut standings = vec![Standing {
        name: "rules".to_string(),
        dev: Measure::Accuracy {
            value: rules,
            earlier: false,
        },
    }];
    let training = &snapshot.settings.training;
    // Each network the settings train on save, with the one the project holds in its role:
    // of this save or (until this save's is in) of an earlier one, under its own name.
    for role in Role::ALL {
        let Some(settings) = training.network(role) else {
            continue;
        };
        let held = project.held(role);
        let network = held.and_then(|held| held.network.as_ref());
        let model = network.map_or(settings.model, |n| n.manifest().settings.model);
        standings.push(Standing {
            name: model.display_name().to_string(),
            dev: match (network, held) {
                (Some(network), Some(held)) => Measure::Accuracy {
                    value: network.manifest().metrics.dev_accuracy,
                    earlier: held.key != held.wanted,
                },
                _ if training.enabled => Measure::Training,
                _ => Measure::NotMeasured,
            },
        });
    }
    if let Some(yardstick) = &project.yardstick {
        standings.push(Standing {
            name: format!("black box ({})", yardstick.model.display_name()),
            dev: yardstick.measure.clone(),
        });
    }
    standings
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
        project.rule_network(),
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
