//! A trained rule network (the FA-RNN family) as the editor features read it: plain data
//! only (the one-sentence [`FaRnnScorer`], each pattern read back as a regex with what it
//! does to dev accuracy, and the network's prediction on every train line), built once in
//! the background after training so that hover and code actions never wait and never touch
//! tensors; its view of a line (its top patterns with their best spans, and the n-grams
//! whose deletion moves its prediction most, measured by occlusion), that view as a
//! document, and the finding it adds to a save (I0504).
//!
//! Building costs one scored sentence per train line (SMS: about 0.6 s) and, where the
//! patterns are read back (the editor; not `predict` or Python), one reconstruction of every
//! pattern and one rules analysis plus dev evaluation per pattern for the accuracy change
//! its reconstruction would bring; `cancelled` is polled between these steps.

use super::ngram_regression::RegressionParts;
use super::{TrainedModelError, Unprepared, still_there, tensors};
use crate::automata::{CompileConfig, Scratch, evaluate};
use crate::diagnostic::Code;
use crate::explain::{NEGLIGIBLE, ReconstructConfig, reconstruct, rewrite_rules};
use crate::ide::analysis::{PatternKey, RulesAnalysis};
use crate::ide::findings::{Finding, MIN_EVIDENCE, describe};
use crate::ide::hover::config::{HoverConfig, match_span, token_range};
use crate::ide::hover::document::{Block, Document, Inline, described};
use crate::ide::hover::pieces::{note, plural, render_verdict, snippet};
use crate::ide::measured_lines::{MEASURED_LINE_BUDGET, MeasuredLine, MeasuredLines};
use crate::model::checkpoint::{LeftOutRule, Manifest};
use crate::model::{FaRnnScorer, Network, Vocabulary, WeightedAutomaton, on_two_threads};
use crate::rules_file::{RulesFile, same_language};
use crate::syntax::{Formula, LabelId, PatternId, print_regex};
use crate::text::{SourceText, tokenize};
use std::collections::HashMap;
use std::sync::Arc;
use text_size::TextRange;

/// One pattern read back from the network.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconstructedPattern {
    pub pattern: PatternKey,
    /// In `.rules` syntax; `None` when the network's pattern accepts nothing.
    pub regex: Option<String>,
    /// Dev accuracy of the rules with this pattern replaced (`None` without a dev corpus).
    pub dev_accuracy: Option<f64>,
    /// Whether the regex read back matches exactly the sentences the pattern matches (it
    /// may still be written differently: alternatives in another order, say).
    pub same_language: bool,
}

/// The trained network's view of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkView {
    /// The architecture (`FA-RNN`, `FA-GRU`, …).
    pub kind: &'static str,
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// Whether the prediction is a label no rule names, whose logit the network's
    /// word-vector path gives (`model::FaRnn`), with the n-gram regression's when it has one.
    pub prediction_from_words: bool,
    /// The part of the prediction's logit that the n-gram regression beside the network adds
    /// (the training setting `ngram_weight`), when it has one: the probabilities and the
    /// n-grams' effects include it.
    pub ngram_regression: Option<RegressionParts>,
    /// (label, probability), labels in priority order.
    pub probabilities: Vec<(String, f64)>,
    pub top_patterns: Vec<PatternScore>,
    /// The strongest n-grams toward or away from the prediction.
    pub ngrams: Vec<NgramContribution>,
    /// The longest n-gram deleted, in tokens (0 for a line without tokens).
    pub max_ngram_len: usize,
    /// Whether the line is too long for [`HoverConfig::max_ngram_len`] within
    /// `HoverConfig::occlusion_budget`, so that `max_ngram_len` is shorter.
    pub ngram_len_capped: bool,
    /// Whether the line is capped, and measuring it ahead of its hover
    /// (`TrainedFaRnn::measure_ahead`, which the language server does in the background for
    /// open corpora) would measure longer n-grams.
    pub measuring_ahead: bool,
}

/// A pattern's score on a line.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternScore {
    pub pattern: String,
    /// Its index in the rules being edited.
    pub index: usize,
    pub score: f32,
    /// The span whose deletion lowers the score the most (`explain::best_span`), else where
    /// the pattern's automaton matches; in bytes of the line's text.
    pub span: Option<TextRange>,
}

/// An n-gram of a line and what deleting it does to the probability of the network's
/// prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct NgramContribution {
    /// In bytes of the line's text.
    pub range: TextRange,
    /// P(prediction | line) − [`NgramContribution::without`]: positive when the n-gram
    /// pushes toward the prediction.
    pub contribution: f64,
    /// P(prediction | the line without the n-gram's tokens).
    pub without: f64,
}

/// A trained network, ready for the editor.
#[derive(Debug, Clone)]
pub struct TrainedFaRnn {
    pub manifest: Manifest,
    /// The rules the network was trained from, their system's labels followed by those of
    /// the corpus the network learned beside them (`RuleSystem::corpus_labels`).
    pub rules: Arc<RulesFile>,
    pub scorer: FaRnnScorer,
    /// Dev accuracy of the rules as they are (`None` without a dev corpus).
    pub dev_accuracy: Option<f64>,
    /// Per pattern of `rules`, in order.
    pub reconstructions: Vec<ReconstructedPattern>,
    /// The network's predicted label (an index into the rules' labels) for every line of
    /// the analysis's `train` corpus that a pattern decides ([`Outcome::deciding`](crate::ide::Outcome::deciding), what
    /// I0504 judges), in order, `None` for the others; empty without a train corpus.
    pub train_predictions: Vec<Option<usize>>,
    /// The long corpus lines measured ahead of their hover (`measured_lines.rs`).
    pub measured: Arc<MeasuredLines>,
    /// The multiply-adds measuring one line ahead may spend: [`MEASURED_LINE_BUDGET`] for
    /// each member of an ensemble, so that every member's n-grams are measured as far as
    /// one network's.
    pub ahead_budget: u64,
}

impl TrainedFaRnn {
    /// Prepares the network of `from`, trained from `from.analysis.rules`. Reads patterns
    /// back at `from.reconstruct`'s threshold, if it gives one.
    pub(super) fn new(from: Unprepared<'_>) -> Result<TrainedFaRnn, TrainedModelError> {
        let Unprepared {
            manifest,
            net,
            vocabulary,
            analysis,
            reconstruct: reconstruct_config,
            cancelled,
        } = from;
        let net = net.as_ref();
        // The rules' labels, then those of the corpus the network learned beside them; the
        // rules training left out, left out.
        let rules = Arc::new(
            (manifest.network_rules(&analysis.rules)).map_err(TrainedModelError::Manifest)?,
        );
        let system = &rules.system;
        let max_tokens = manifest.settings.max_sentence_tokens;
        let scorer = FaRnnScorer::new(net, system, vocabulary, max_tokens).map_err(tensors)?;
        // Both cores: the editor waits for this before it shows the network (SMS's 4,502
        // train lines took 0.40 s on one, its 41 % that a pattern decides 0.17 s).
        let train_predictions = match analysis.corpus("train") {
            Some(train) => {
                let decided: Vec<Option<&str>> = (train.outcomes.iter())
                    .zip(&train.file.examples)
                    .map(|(outcome, example)| {
                        let decided = outcome.deciding(&analysis.rules.rules).next().is_some();
                        decided.then_some(example.text.as_str())
                    })
                    .collect();
                on_two_threads(
                    &decided,
                    &|line| line.map(|text| scorer.score_text(text).prediction()),
                    cancelled,
                )
                .ok_or(TrainedModelError::Cancelled)?
            }
            None => Vec::new(),
        };
        let dev_accuracy = analysis
            .corpus("dev")
            .and_then(|run| run.evaluation.accuracy());
        let reconstructions = match reconstruct_config {
            Some(config) => {
                let from = ReadBackFrom {
                    net,
                    rules: &rules,
                    vocabulary,
                    analysis,
                    dev_accuracy,
                };
                read_back(&from, config, cancelled)?
            }
            None => Vec::new(),
        };
        Ok(TrainedFaRnn {
            manifest,
            rules,
            scorer,
            dev_accuracy,
            reconstructions,
            train_predictions,
            measured: Arc::default(),
            ahead_budget: MEASURED_LINE_BUDGET * net.members().len() as u64,
        })
    }

    /// The reconstruction of the pattern with this key.
    pub fn reconstruction(&self, key: &PatternKey) -> Option<&ReconstructedPattern> {
        self.reconstructions.iter().find(|r| &r.pattern == key)
    }

    /// The pattern of the network's rules with this key.
    pub fn pattern(&self, key: &PatternKey) -> Option<PatternId> {
        key.find(&self.rules.rules)
    }
}

/// What reading a rule network's patterns back takes: the network, the rules it was
/// trained from (with the corpus's labels), its vocabulary, and the save's analysis, whose
/// dev corpus measures each reconstruction (the rules' own dev accuracy `dev_accuracy`).
struct ReadBackFrom<'a> {
    net: &'a dyn Network,
    rules: &'a RulesFile,
    vocabulary: Option<&'a Vocabulary>,
    analysis: &'a RulesAnalysis,
    dev_accuracy: Option<f64>,
}

/// Every pattern of `from.rules` read back from the network at `config`'s threshold, with
/// the dev accuracy its reconstruction would bring; `cancelled` is polled between patterns.
fn read_back(
    from: &ReadBackFrom<'_>,
    config: &ReconstructConfig,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<ReconstructedPattern>, TrainedModelError> {
    let rules = from.rules;
    let forward = from
        .net
        .first_forward()
        .ok_or_else(|| TrainedModelError::Tensors("the network has no direction".into()))?;
    let tokens = forward
        .known_token_vectors(&rules.system, from.vocabulary)
        .map_err(tensors)?;
    let automaton = WeightedAutomaton::new(&rules.system);
    let read_back = reconstruct(
        &forward.plain().map_err(tensors)?,
        &automaton.pattern_states,
        &tokens,
        config,
    );
    let dev = from.analysis.corpus("dev");
    let mut reconstructions = Vec::with_capacity(read_back.len());
    for ((key, reconstruction), def) in PatternKey::all(&rules.rules)
        .into_iter()
        .zip(&read_back)
        .zip(&rules.rules.patterns)
    {
        if cancelled() {
            return Err(TrainedModelError::Cancelled);
        }
        let regex = reconstruction.text();
        let same_language = regex
            .as_deref()
            .is_some_and(|regex| same_language(&print_regex(&def.regex), regex));
        // A regex of the pattern's own language classifies every line as the pattern
        // does: its rules' dev accuracy, without rewriting them.
        let dev_accuracy = dev.and_then(|run| {
            if same_language {
                return from.dev_accuracy;
            }
            let text = rewrite_rules(
                &rules.source.text,
                &rules.rules,
                &[(reconstruction.pattern, regex.clone())],
            );
            // Only its classifications are read: no language checks.
            let rewritten = RulesFile::analyze(
                SourceText::from_bytes(text.as_bytes()),
                None,
                &CompileConfig::MEASURING,
            );
            evaluate(
                &rewritten.system,
                run.file
                    .examples
                    .iter()
                    .map(|e| (e.text.as_str(), e.label.as_deref())),
            )
            .accuracy()
        });
        reconstructions.push(ReconstructedPattern {
            pattern: key,
            regex,
            dev_accuracy,
            same_language,
        });
    }
    Ok(reconstructions)
}

impl TrainedFaRnn {
    /// What a hover shows of the network on the line `text`: measured ahead when it was
    /// ([`TrainedFaRnn::measure_ahead`]), else now, within `config.occlusion_budget`.
    pub fn measure_line(&self, text: &str, config: &HoverConfig) -> Arc<MeasuredLine> {
        match self.measured.get(text, config) {
            Some(line) => line,
            None => Arc::new(self.measured_within(text, config, config.occlusion_budget)),
        }
    }

    /// Whether measuring `text` ahead of its hover would delete longer spans than the hover
    /// can, and it is not measured yet and would fit: a walk over its tokens.
    pub fn is_worth_measuring_ahead(&self, text: &str, config: &HoverConfig) -> bool {
        let budgets = [config.occlusion_budget, self.ahead_budget];
        !self.measured.is_full()
            && self.measured.get(text, config).is_none()
            && matches!(
                self.scorer.ngram_lens_within(text, config.max_ngram_len, &budgets)[..],
                [hover, ahead] if ahead > hover
            )
    }

    /// Measures `text` within [`TrainedFaRnn::ahead_budget`] and keeps it for its hovers;
    /// `false` when no more lines fit ([`MAX_MEASURED_LINES`]). Up to about 0.3 s of one
    /// core for each member of the network.
    pub fn measure_ahead(&self, text: &str, config: &HoverConfig) -> bool {
        if self.measured.is_full() {
            return false;
        }
        let line = self.measured_within(text, config, self.ahead_budget);
        self.measured.insert(text, config, line)
    }

    /// The line `text` measured now, its deletions within `budget` multiply-adds.
    fn measured_within(&self, text: &str, config: &HoverConfig, budget: u64) -> MeasuredLine {
        let occlusions = self
            .scorer
            .occlusions_within(text, config.max_ngram_len, budget);
        let scale = self.manifest.probability_scale();
        MeasuredLine::new(text, &occlusions, scale, config.max_listed)
    }
}

impl TrainedFaRnn {
    /// Its view of the line `text` under `rules`, the rules being edited (`stale` when it was
    /// trained from others: then the patterns changed since are left out): measured ahead
    /// when it was, else within `config.occlusion_budget`.
    pub(super) fn view(
        &self,
        text: &str,
        rules: &RulesFile,
        stale: bool,
        config: &HoverConfig,
    ) -> NetworkView {
        let labels = self.rules.system.labels();
        let measured = self.measure_line(text, config);
        let ngram_len_capped = measured.max_len < config.max_ngram_len.min(measured.n_tokens);
        let scores = &measured.scores;
        let probabilities = scores.probabilities(self.manifest.probability_scale());
        let prediction = scores.prediction();
        let tokens = tokenize(text);
        let current = still_there(stale, &rules.rules, &self.rules.rules);
        let mut by_score: Vec<(usize, usize, f32)> = (0..self.rules.rules.patterns.len())
            .filter_map(|p| Some((p, current(p)?, scores.pattern_score(p))))
            .filter(|&(_, _, score)| score > 0.0)
            .collect();
        by_score.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        by_score.truncate(config.max_listed);
        let mut scratch = Scratch::default();
        let top_patterns = by_score
            .into_iter()
            .map(|(p, index, score)| PatternScore {
                pattern: describe(&rules.rules, index),
                index,
                score,
                span: measured
                    .best_span(p)
                    .and_then(|span| token_range(&tokens, span))
                    .or_else(|| {
                        match_span(&self.rules.system, PatternId(p as u32), text, &mut scratch)
                    }),
            })
            .collect();
        let ngrams = measured
            .ngrams
            .iter()
            .map(|ngram| NgramContribution {
                range: ngram.range,
                contribution: ngram.contribution,
                without: ngram.without,
            })
            .collect();
        NetworkView {
            kind: self.manifest.settings.model.display_name(),
            stale,
            prediction: labels.get(prediction).cloned().unwrap_or_default(),
            prediction_from_words: prediction + self.rules.system.corpus_labels().len()
                >= labels.len(),
            ngram_regression: self.scorer.ngram_parts(text, prediction).map(|parts| {
                let scale = self.manifest.probability_scale() as f32;
                let label = labels.get(prediction).cloned().unwrap_or_default();
                RegressionParts::new(label, parts, scale, &tokens, config)
            }),
            probabilities: labels.iter().cloned().zip(probabilities).collect(),
            top_patterns,
            ngrams,
            max_ngram_len: measured.max_len,
            ngram_len_capped,
            measuring_ahead: ngram_len_capped && self.is_worth_measuring_ahead(text, config),
        }
    }
}

impl TrainedFaRnn {
    /// I0504: patterns the trained network overrules on at least half of the train lines they
    /// decide (lines they match whose rule-system prediction is their label): there the rules
    /// and the untrained network follow the pattern, and the trained network has learned not to.
    /// A rule of one pattern that training left out (`Manifest::rules_left_out`) is reported
    /// whatever the evidence: the trained network does not read it at all.
    /// It must have been prepared with `analysis`.
    pub fn findings(&self, analysis: &RulesAnalysis) -> Vec<Finding> {
        let model = self;
        let Some(train) = analysis.corpus("train") else {
            return Vec::new();
        };
        if model.train_predictions.len() != train.outcomes.len() {
            return Vec::new();
        }
        let rules = &analysis.rules.rules;
        let system = &analysis.rules.system;
        // Per pattern: decided lines, lines the network overrules, overruled lines it gets right.
        let mut counts = vec![[0usize; 3]; rules.patterns.len()];
        for ((outcome, &predicted), example) in train
            .outcomes
            .iter()
            .zip(&model.train_predictions)
            .zip(&train.file.examples)
        {
            let gold = example
                .label
                .as_deref()
                .and_then(|g| system.label_by_name(g));
            let Some(predicted) = predicted else {
                continue;
            };
            for p in outcome.deciding(rules) {
                let labels = &rules.patterns[p.index()].labels;
                let count = &mut counts[p.index()];
                count[0] += 1;
                if !labels.contains(&LabelId(predicted as u32)) {
                    count[1] += 1;
                    count[2] += usize::from(gold == Some(LabelId(predicted as u32)));
                }
            }
        }
        // The rules training left out that are one pattern alone, by that pattern.
        let left_out: HashMap<usize, &LeftOutRule> = (model.manifest.rules_left_out.iter())
            .filter_map(|left| match system.rules().get(left.rule)?.formula {
                Formula::Pattern(p) => Some((p.index(), left)),
                _ => None,
            })
            .collect();
        let mut findings = Vec::new();
        let keys = PatternKey::all(rules);
        for (p, [decided, overruled, right]) in counts.into_iter().enumerate() {
            if let Some(left) = left_out.get(&p) {
                findings.push(Finding {
                    code: Code::OverruledByModel,
                    pattern: keys[p].clone(),
                    message: format!(
                        "training left {} out of the {}: it is right on {} of the {} gold lines it fires on, and the network overrules it on {} of the {} train lines it decides",
                        describe(rules, p),
                        model.manifest.settings.model.display_name(),
                        left.right,
                        left.gold_lines,
                        overruled,
                        decided
                    ),
                    help: Some(
                        "narrow the rule or remove it; the setting `training.keepEveryRule` keeps every rule in the network"
                            .to_string(),
                    ),
                    related: None,
                });
                continue;
            }
            if overruled < MIN_EVIDENCE || 2 * overruled < decided {
                continue;
            }
            findings.push(Finding {
                code: Code::OverruledByModel,
                pattern: keys[p].clone(),
                message: format!(
                    "the trained {} overrules {} on {} of the {} train lines it decides, and is right on {} of those",
                    model.manifest.settings.model.display_name(),
                    describe(rules, p),
                    overruled,
                    decided,
                    right
                ),
                help: Some(
                    "hover the pattern for its matches; when the network reads it back differently, the code action \"Replace with reconstructed regex\" shows what it learned"
                        .to_string(),
                ),
                related: None,
            });
        }
        findings
    }
}

/// The rule network's view of a line, as a hover shows it.
pub(super) fn render(doc: &mut Document, network: &NetworkView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        (network.kind, "The network"),
        &network.prediction,
        &network.probabilities,
        gold,
        network.stale,
    );
    let label = &network.prediction;
    if network.prediction_from_words {
        let from = if network.ngram_regression.is_some() {
            "the line's mean word vector and the n-gram regression"
        } else {
            "the line's mean word vector alone"
        };
        doc.push(note(&format!(
            "No rule names {label}: the network learned it from the corpus, and its logit comes \
             from {from}."
        )));
    }
    if let Some(parts) = &network.ngram_regression {
        parts.render(doc, text, "the n-gram effects");
    }
    doc.push(Block::List {
        heading: if network.top_patterns.is_empty() {
            Vec::new()
        } else {
            vec![Inline::text("Top patterns:")]
        },
        items: network
            .top_patterns
            .iter()
            .map(|pattern| {
                let mut item = described(&pattern.pattern);
                item.push(Inline::Text(format!(" {:.2}", pattern.score)));
                if let Some(span) = pattern.span {
                    item.push(Inline::text(": "));
                    item.extend(snippet(text, span));
                }
                item
            })
            .collect(),
    });
    let later = |what: &str| {
        if network.measuring_ahead {
            format!("; the language server measures {what} in the background: hover again soon.")
        } else {
            ".".to_string()
        }
    };
    if network.ngram_len_capped && network.max_ngram_len == 0 {
        doc.push(note(&format!(
            "The line is too long to measure its n-grams within a hover's time{}",
            later("them")
        )));
    } else if network.ngrams.is_empty() {
        if network.max_ngram_len > 0 {
            doc.push(note(&format!(
                "Deleting any one n-gram of up to {} token{} changes P({label}) by less \
                 than {NEGLIGIBLE}.",
                network.max_ngram_len,
                plural(network.max_ngram_len)
            )));
        }
    } else {
        doc.push(Block::List {
            heading: vec![Inline::Text(format!(
                "Strongest n-grams (occlusion: what deleting each does to P({label})):"
            ))],
            items: network
                .ngrams
                .iter()
                .map(|ngram| {
                    let phrase = text
                        .get(usize::from(ngram.range.start())..usize::from(ngram.range.end()))
                        .unwrap_or("");
                    vec![
                        Inline::Highlight(phrase.to_string()),
                        Inline::Text(format!(
                            " {:+.2} toward {label} ({:.2} without it)",
                            ngram.contribution, ngram.without
                        )),
                    ]
                })
                .collect(),
        });
    }
    if network.ngram_len_capped && network.max_ngram_len > 0 {
        doc.push(note(&format!(
            "On a line this long, only n-grams of up to {} token{} are measured{}",
            network.max_ngram_len,
            plural(network.max_ngram_len),
            later("longer ones")
        )));
    }
}
