//! Figures shown inline: a code lens above each pattern with its coverage and precision on
//! the bound corpora, one on the `default` line with where the rules stand against the
//! networks and a black-box yardstick on dev, and an inlay hint at the end of each corpus
//! line with what the rules (and the trained network) predict for it.
//!
//! Lenses read the last saved analysis (by [`PatternKey`], so they stay on their pattern
//! while the text is edited); hints classify the lines asked for, and score them with the
//! network when there is one (SMS network: about 0.15 ms a line).

use super::analysis::{PatternKey, RulesAnalysis};
use super::corpus_lines::examples_in;
use super::trained::TrainedFaRnn;
use crate::corpus::Format;
use crate::rules_file::RulesFile;
use crate::syntax::ast::StatementKind;
use crate::text::LineIndex;
use text_size::{TextRange, TextSize};

/// A line of figures above a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lens {
    /// The pattern's statement.
    pub range: TextRange,
    pub title: String,
}

/// One lens per pattern the saved analysis knows, in file order.
pub fn pattern_lenses(file: &RulesFile, analysis: &RulesAnalysis) -> Vec<Lens> {
    let rules = &file.rules;
    let saved_keys = PatternKey::index(&analysis.rules.rules);
    let mut lenses = Vec::new();
    for (key, def) in PatternKey::all(rules).iter().zip(&rules.patterns) {
        let Some(&saved) = saved_keys.get(key) else {
            continue;
        };
        let parts: Vec<String> = analysis
            .corpora
            .iter()
            .map(|run| {
                let metrics = &run.evaluation.patterns[saved.index()];
                let coverage = run.evaluation.pattern_coverage(saved.index());
                format!(
                    "{} {} match{} · {} coverage · {} precision",
                    run.name,
                    metrics.matches,
                    if metrics.matches == 1 { "" } else { "es" },
                    coverage.map_or_else(|| "–".to_string(), |c| format!("{:.1}%", 100.0 * c)),
                    metrics
                        .precision()
                        .map_or_else(|| "–".to_string(), |p| format!("{:.0}%", 100.0 * p)),
                )
            })
            .collect();
        if !parts.is_empty() {
            lenses.push(Lens {
                range: def.range,
                title: parts.join("  |  "),
            });
        }
    }
    // The rule set lists named patterns before anonymous rules.
    lenses.sort_by_key(|lens| lens.range.start());
    lenses
}

/// How one model stands on dev, for [`yardstick_lens`].
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// `rules`, `FA-RNN`, `SoPa`, `black box (S-LSTM)`, ….
    pub name: String,
    pub dev: Measure,
}

/// A model's dev figure, or why there is none yet.
#[derive(Debug, Clone, PartialEq)]
pub enum Measure {
    /// Dev accuracy in [0, 1]; `earlier` when it is the network of an earlier save of the
    /// rules (the one for this text is not in yet).
    Accuracy { value: f64, earlier: bool },
    /// Training in the background.
    Training,
    /// Neither measured nor training (the black box: `rulelens bench`, or the setting that
    /// trains it in the background, measures it).
    NotMeasured,
}

/// The lens on the `default` statement (else the first statement) with how the rules and
/// the models of `standings` do on dev, in their order:
/// `dev: rules 57.2% · FA-RNN 91.0% · SoPa 90.1% · black box (S-LSTM) 92.3%`. `None`
/// without any standing.
pub fn yardstick_lens(file: &RulesFile, standings: &[Standing]) -> Option<Lens> {
    if standings.is_empty() {
        return None;
    }
    let statements = &file.parse.file.statements;
    let range = statements
        .iter()
        .find(|statement| matches!(statement.kind, StatementKind::Default { .. }))
        .or_else(|| statements.first())
        .map_or_else(TextRange::default, |statement| statement.range);
    let parts: Vec<String> = standings
        .iter()
        .map(|standing| match standing.dev {
            Measure::Accuracy { value, earlier } => format!(
                "{} {:.1}%{}",
                standing.name,
                100.0 * value,
                if earlier { " (earlier save)" } else { "" }
            ),
            Measure::Training => format!("{} training…", standing.name),
            Measure::NotMeasured => format!("{} not measured", standing.name),
        })
        .collect();
    Some(Lens {
        range,
        title: format!("dev: {}", parts.join(" · ")),
    })
}

/// A label shown at a position.
#[derive(Debug, Clone, PartialEq)]
pub struct InlayHint {
    pub offset: TextSize,
    pub label: String,
    pub tooltip: Option<String>,
}

/// A hint at the end of each corpus line that `range` touches: the rules' prediction and,
/// with a network, its prediction and probability; marked ✗ where it differs from gold.
pub fn line_hints(
    text: &str,
    index: &LineIndex,
    format: Format,
    range: TextRange,
    rules: &RulesFile,
    model: Option<&TrainedFaRnn>,
) -> Vec<InlayHint> {
    let system = &rules.system;
    let mark = |gold: Option<&str>, predicted: &str| match gold {
        Some(gold) if gold != predicted => " ✗",
        _ => "",
    };
    examples_in(text, index, format, range)
        .into_iter()
        .filter_map(|example| {
            let line_end = index.line_range(example.line)?.end();
            let gold = example.label.as_deref();
            let predicted = system
                .classify(&example.text)
                .prediction
                .map_or("nothing", |l| system.labels()[l.index()].as_str());
            let mut label = format!("rules: {predicted}{}", mark(gold, predicted));
            let mut tooltip = None;
            if let Some(model) = model {
                let scores = model.scorer.score_text(&example.text);
                let probabilities = scores.probabilities(model.manifest.probability_scale());
                let best = scores.prediction();
                let name = model.rules.system.labels().get(best)?;
                label.push_str(&format!(
                    " · {}: {name} {:.2}{}",
                    model.manifest.settings.model.display_name(),
                    probabilities.get(best).copied().unwrap_or_default(),
                    mark(gold, name)
                ));
                tooltip = Some(
                    model
                        .rules
                        .system
                        .labels()
                        .iter()
                        .zip(&probabilities)
                        .map(|(l, p)| format!("{l} {p:.3}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            Some(InlayHint {
                offset: line_end,
                label,
                tooltip,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::SourceText;

    fn file(text: &str) -> RulesFile {
        RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &Default::default(),
        )
    }

    #[test]
    fn the_yardstick_stands_on_the_default_line_and_lists_every_model_in_order() {
        let text = "spam: $* free $*\ndefault ham\npattern p = $* win $*\n";
        let standings = [
            Standing {
                name: "rules".into(),
                dev: Measure::Accuracy {
                    value: 0.572,
                    earlier: false,
                },
            },
            Standing {
                name: "FA-RNN".into(),
                dev: Measure::Accuracy {
                    value: 0.91,
                    earlier: true,
                },
            },
            Standing {
                name: "SoPa".into(),
                dev: Measure::Training,
            },
            Standing {
                name: "black box (S-LSTM)".into(),
                dev: Measure::NotMeasured,
            },
        ];
        let lens = yardstick_lens(&file(text), &standings).unwrap();
        assert_eq!(&text[lens.range], "default ham");
        assert_eq!(
            lens.title,
            "dev: rules 57.2% · FA-RNN 91.0% (earlier save) · SoPa training… · black box (S-LSTM) not measured"
        );
        // Without a `default`, on the first statement; nothing to show, no lens.
        let text = "\n# spam\nspam: $* free $*\n";
        let lens = yardstick_lens(&file(text), &standings[..1]).unwrap();
        assert_eq!(&text[lens.range], "spam: $* free $*");
        assert_eq!(yardstick_lens(&file(text), &[]), None);
        // An empty file: at its start.
        assert_eq!(
            yardstick_lens(&file(""), &standings[..1]).unwrap().range,
            TextRange::default()
        );
    }
}
