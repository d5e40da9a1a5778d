//! A trained SoPa as the editor features read it: plain data only (the one-sentence
//! [`SopaScorer`] and every learned pattern read back as a rule, with its fidelity,
//! precision and top phrases), built once in the background after training so that hovers
//! and code actions never wait and never touch tensors.
//!
//! Its view of a line is each pattern's leave-one-out contribution to the prediction,
//! measured by the network itself, and the n-gram regression's exact parts where the
//! network has one beside it.
//!
//! Building costs the read-back (`explain::read_back`: the network over the train and dev
//! corpora in plain loops, then one candidate regex set matched on both).

use super::ngram_regression::RegressionParts;
use super::{TrainedModelError, Unprepared, still_there, tensors};
use crate::explain::{LearnedPattern, NEGLIGIBLE, ReadBack, read_back};
use crate::ide::findings::describe;
use crate::ide::hover::config::{HoverConfig, token_range};
use crate::ide::hover::document::{Block, Document, Inline, described};
use crate::ide::hover::pieces::{render_verdict, snippet};
use crate::model::checkpoint::Manifest;
use crate::model::sopa::{Contribution, PatternRef, SopaScorer};
use crate::rules_file::RulesFile;
use crate::suggest::LearnedRule;
use crate::text::tokenize;
use std::sync::Arc;
use text_size::TextRange;

/// A trained SoPa's view of a corpus line: its prediction and the patterns whose
/// leave-one-out contribution (the change in the probability of the prediction when the
/// network runs without the pattern's score, measured by the network itself) is largest.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternsView {
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// (label, probability), labels in the network's order.
    pub probabilities: Vec<(String, f64)>,
    /// The part of the prediction's logit that the n-gram regression beside the network adds
    /// (the training setting `ngram_weight`), when it has one: the probabilities and the
    /// contributions include it.
    pub ngram_regression: Option<RegressionParts>,
    /// At most [`HoverConfig::max_listed`]: those that change it by `explain::NEGLIGIBLE`
    /// or more, the largest change first, then the others by score (a prediction no single
    /// pattern decides).
    pub contributions: Vec<PatternContribution>,
}

/// One pattern's part in a SoPa's prediction of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternContribution {
    /// A rule's pattern, described, or `learned pattern N`.
    pub pattern: String,
    /// Which: a rule's pattern by its index in the rules being edited, or a learned one.
    pub reference: PatternRef,
    /// A learned pattern's regex, as read back (`None` for a rule, or a learned pattern
    /// that read back as nothing).
    pub regex: Option<String>,
    /// The feature the head reads.
    pub score: f32,
    /// P(prediction) − P(prediction without the pattern).
    pub delta: f64,
    /// The tokens of the pattern's best path, in bytes of the line's text.
    pub span: Option<TextRange>,
}

/// A trained SoPa, ready for the editor.
#[derive(Debug, Clone)]
pub struct TrainedPatterns {
    pub manifest: Manifest,
    /// The rules the network was trained from.
    pub rules: Arc<RulesFile>,
    pub scorer: SopaScorer,
    /// The learned patterns read back as rules on the analysis's train and dev corpora
    /// (none without them).
    pub read_back: Option<ReadBack>,
}

impl TrainedPatterns {
    /// Prepares the SoPa of `from`, trained from `from.analysis.rules`.
    pub(super) fn new(from: Unprepared<'_>) -> Result<TrainedPatterns, TrainedModelError> {
        let Unprepared {
            manifest,
            net,
            vocabulary,
            analysis,
            cancelled,
            ..
        } = from;
        let max_tokens = manifest.settings.max_sentence_tokens;
        let Some(scorer) =
            vocabulary.and_then(|vocabulary| net.sopa_scorer(vocabulary, max_tokens))
        else {
            return Err(TrainedModelError::Tensors(
                "a SoPa with its vocabulary was expected".to_string(),
            ));
        };
        let scorer = scorer.map_err(tensors)?;
        if cancelled() {
            return Err(TrainedModelError::Cancelled);
        }
        let read_back = match (analysis.corpus("train"), analysis.corpus("dev")) {
            (Some(train), Some(dev)) if scorer.n_free_patterns() > 0 => {
                Some(read_back(&scorer, &train.file.examples, &dev.file.examples))
            }
            _ => None,
        };
        Ok(TrainedPatterns {
            manifest,
            rules: analysis.rules.clone(),
            scorer,
            read_back,
        })
    }

    /// The learned patterns read back, in order of their index.
    pub fn learned(&self) -> &[LearnedPattern] {
        self.read_back
            .as_ref()
            .map_or(&[], |r| r.patterns.as_slice())
    }

    /// The name of a learned pattern's label.
    pub fn label(&self, pattern: &LearnedPattern) -> &str {
        self.scorer
            .system()
            .labels()
            .get(pattern.label)
            .map_or("", String::as_str)
    }

    /// Each learned pattern as a rule for the suggestion engine.
    pub fn learned_rules(&self) -> Vec<LearnedRule> {
        self.learned()
            .iter()
            .map(|pattern| LearnedRule {
                label: self.label(pattern).to_string(),
                regex: pattern.regex.clone(),
            })
            .collect()
    }

    /// The learned pattern with index `index` (`free.INDEX`).
    pub fn pattern(&self, index: usize) -> Option<&LearnedPattern> {
        self.learned().iter().find(|p| p.index == index)
    }
}

impl TrainedPatterns {
    /// A trained SoPa's view of the line `text` under `rules`, the rules being edited (`stale`
    /// when it was trained from other rules: then the rules' patterns changed since are left
    /// out).
    pub(super) fn view(
        &self,
        text: &str,
        rules: &RulesFile,
        stale: bool,
        config: &HoverConfig,
    ) -> PatternsView {
        let current = still_there(stale, &rules.rules, &self.rules.rules);
        let scale = self.manifest.probability_scale();
        let explanation = self.scorer.explain_text(text, scale);
        let labels = self.scorer.system().labels();
        let tokens = tokenize(text);
        // The decisive patterns by the size of their contribution, then (when fewer decide the
        // line: a saturated prediction) the others by their score.
        let mut contributions = explanation.contributions;
        contributions.retain(|c| match c.pattern {
            PatternRef::Rule(p) => current(p).is_some(),
            PatternRef::Free(_) => true,
        });
        contributions.sort_by(|a, b| {
            let decisive = |c: &Contribution| c.delta.abs() >= NEGLIGIBLE;
            let by_delta = || b.delta.abs().total_cmp(&a.delta.abs());
            decisive(b).cmp(&decisive(a)).then_with(|| {
                if decisive(a) {
                    by_delta()
                } else {
                    b.score.total_cmp(&a.score)
                }
            })
        });
        contributions.truncate(config.max_listed);
        let contributions = contributions
            .into_iter()
            .map(|c| {
                let (pattern, regex, reference) = match c.pattern {
                    PatternRef::Rule(p) => {
                        let p = current(p).unwrap_or(p);
                        (describe(&rules.rules, p), None, PatternRef::Rule(p))
                    }
                    PatternRef::Free(i) => (
                        format!("learned pattern {i}"),
                        self.pattern(i).map(|p| p.regex.clone()),
                        PatternRef::Free(i),
                    ),
                };
                PatternContribution {
                    pattern,
                    reference,
                    regex,
                    score: c.score,
                    delta: c.delta,
                    span: c.span.and_then(|span| token_range(&tokens, span)),
                }
            })
            .collect();
        let prediction = labels
            .get(explanation.predicted)
            .cloned()
            .unwrap_or_default();
        let ngram_regression = self
            .scorer
            .ngram_parts(text, explanation.predicted)
            .map(|parts| {
                let scale = scale as f32;
                RegressionParts::new(prediction.clone(), parts, scale, &tokens, config)
            });
        PatternsView {
            stale,
            prediction,
            ngram_regression,
            probabilities: labels
                .iter()
                .cloned()
                .zip(explanation.probabilities)
                .collect(),
            contributions,
        }
    }
}

/// The SoPa's view of a line: its prediction and the patterns it leans on most.
pub(super) fn render(doc: &mut Document, view: &PatternsView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        ("SoPa", "The SoPa"),
        &view.prediction,
        &view.probabilities,
        gold,
        view.stale,
    );
    if let Some(parts) = &view.ngram_regression {
        parts.render(doc, text, "the patterns' contributions");
    }
    let label = &view.prediction;
    let decisive = |delta: f64| delta.abs() >= NEGLIGIBLE;
    let heading = if view.contributions.iter().any(|c| decisive(c.delta)) {
        vec![Inline::Text(format!(
            "Patterns (leave-one-out: what the network's P({label}) loses without each):"
        ))]
    } else {
        vec![
            Inline::Emphasis(vec![Inline::Text(format!(
                "Leaving out any one pattern changes P({label}) by less than {NEGLIGIBLE}."
            ))]),
            Inline::text(" The patterns with the highest scores:"),
        ]
    };
    let items = view
        .contributions
        .iter()
        .map(|c| {
            let mut item = described(&c.pattern);
            if decisive(c.delta) {
                item.push(Inline::Text(format!(" {:+.2}", c.delta)));
            }
            if let Some(regex) = &c.regex {
                item.push(Inline::text(" "));
                item.push(Inline::code(regex.as_str()));
            }
            item.push(Inline::Text(format!(" (score {:.2})", c.score)));
            if let Some(span) = c.span {
                item.push(Inline::text(": "));
                item.extend(snippet(text, span));
            }
            item
        })
        .collect();
    doc.push(Block::List { heading, items });
}
