//! A trained network as the editor features read it: plain data only (the one-sentence
//! [`FaRnnScorer`], each pattern read back as a regex with what it does to dev accuracy, and
//! the network's prediction on every train line), built once in the background after
//! training so that hover and code actions never wait and never touch tensors.
//!
//! Building costs one scored sentence per train line (SMS: about 0.6 s), one reconstruction
//! of every pattern, and one rules analysis plus dev evaluation per pattern for the accuracy
//! change its reconstruction would bring; `cancelled` is polled between these steps.

use super::HoverConfig;
use super::analysis::{Cancelled, PatternKey, RulesAnalysis};
use super::measured_lines::{MEASURED_LINE_BUDGET, MeasuredLine, MeasuredLines};
use crate::automata::{CompileConfig, evaluate};
use crate::explain::{ReconstructConfig, reconstruct, rewrite_rules};
use crate::model::checkpoint::Manifest;
use crate::model::{FaRnnScorer, Network, Vocabulary, WeightedAutomaton, on_two_threads};
use crate::rules_file::{RulesFile, same_language};
use crate::syntax::PatternId;
use crate::syntax::print_regex;
use crate::text::SourceText;
use std::fmt;
use std::sync::Arc;

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
    /// the analysis's `train` corpus that a pattern decides ([`Outcome::deciding`](super::analysis::Outcome::deciding), what
    /// I0504 judges), in order, `None` for the others; empty without a train corpus.
    pub train_predictions: Vec<Option<usize>>,
    /// The long corpus lines measured ahead of their hover (`measured_lines.rs`).
    pub measured: Arc<MeasuredLines>,
    /// The multiply-adds measuring one line ahead may spend: [`MEASURED_LINE_BUDGET`] for
    /// each member of an ensemble, so that every member's n-grams are measured as far as
    /// one network's.
    pub ahead_budget: u64,
}

/// Why a network could not be prepared for the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrainedModelError {
    /// The network's tensors could not be read (a message from the tensor library).
    Tensors(String),
    Cancelled,
}

impl fmt::Display for TrainedModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainedModelError::Tensors(message) => {
                write!(f, "cannot read the network's parameters: {message}")
            }
            TrainedModelError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for TrainedModelError {}

/// A tensor library error as a [`TrainedModelError`].
fn tensors(error: impl fmt::Display) -> TrainedModelError {
    TrainedModelError::Tensors(error.to_string())
}

impl From<Cancelled> for TrainedModelError {
    fn from(_: Cancelled) -> TrainedModelError {
        TrainedModelError::Cancelled
    }
}

impl TrainedFaRnn {
    /// Prepares `net`, trained from `analysis.rules`, with its checkpoint manifest and
    /// vocabulary. Reads patterns back at `reconstruct_config`'s threshold.
    pub fn new(
        manifest: Manifest,
        net: &dyn Network,
        vocabulary: Option<&Vocabulary>,
        analysis: &RulesAnalysis,
        reconstruct_config: &ReconstructConfig,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<TrainedFaRnn, TrainedModelError> {
        if net.sopa().is_some() {
            return Err(TrainedModelError::Tensors(
                "a SoPa is prepared for the editor as `TrainedPatterns`, not `TrainedFaRnn`"
                    .to_string(),
            ));
        }
        // The rules' labels, then those of the corpus the network learned beside them.
        let mut rules = analysis.rules.clone();
        let known = rules.system.labels().len();
        if manifest.labels.len() > known {
            let mut extended = (*rules).clone();
            extended.system = extended
                .system
                .with_labels(manifest.labels.iter().skip(known).map(String::as_str));
            rules = Arc::new(extended);
        }
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
        let forward = net
            .first_forward()
            .ok_or_else(|| TrainedModelError::Tensors("the network has no direction".into()))?;
        let tokens = forward
            .known_token_vectors(system, vocabulary)
            .map_err(tensors)?;
        let automaton = WeightedAutomaton::new(system);
        let read_back = reconstruct(
            &forward.plain().map_err(tensors)?,
            &automaton.pattern_states,
            &tokens,
            reconstruct_config,
        );
        let dev = analysis.corpus("dev");
        let dev_accuracy = dev.and_then(|run| run.evaluation.accuracy());
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
                    return dev_accuracy;
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
        let scale = self.manifest.settings.logit_scale;
        MeasuredLine::new(text, &occlusions, scale, config.max_listed)
    }
}
