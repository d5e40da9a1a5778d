//! A trained SoPa as the editor features read it: plain data only (the one-sentence
//! [`SopaScorer`] and every learned pattern read back as a rule, with its fidelity,
//! precision and top phrases), built once in the background after training so that hovers
//! and code actions never wait and never touch tensors.
//!
//! Building costs the read-back (`explain::read_back`: the network over the train and dev
//! corpora in plain loops, then one candidate regex set matched on both).

use super::analysis::RulesAnalysis;
use super::trained_fa_rnn::TrainedModelError;
use crate::explain::{LearnedPattern, ReadBack, read_back};
use crate::model::checkpoint::Manifest;
use crate::model::sopa::SopaScorer;
use crate::model::{Network, Vocabulary};
use crate::rules_file::RulesFile;
use crate::suggest::LearnedRule;
use std::sync::Arc;

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
    /// Prepares `net`, a SoPa trained from `analysis.rules`, with its checkpoint manifest
    /// and vocabulary.
    pub fn new(
        manifest: Manifest,
        net: &dyn Network,
        vocabulary: Option<&Vocabulary>,
        analysis: &RulesAnalysis,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<TrainedPatterns, TrainedModelError> {
        let (Some(sopa), Some(vocabulary)) = (net.sopa(), vocabulary) else {
            return Err(TrainedModelError::Tensors(
                "a SoPa with its vocabulary was expected".to_string(),
            ));
        };
        let max_tokens = manifest.settings.max_sentence_tokens;
        let scorer = sopa
            .scorer(vocabulary, max_tokens)
            .map_err(|error| TrainedModelError::Tensors(error.to_string()))?;
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
