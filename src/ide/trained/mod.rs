//! A trained network as the editor, `rulelens predict` and the Python package read it: one
//! [`TrainedNetwork`], whatever its family, prepared once from a checkpoint or a training
//! ([`TrainedNetwork::prepare`]) into plain data, so that a hover never waits and never
//! touches tensors. It owns, per family, what the callers above would otherwise choose by
//! family:
//!
//! - preparing it (`fa_rnn.rs`, `patterns.rs`, `mvma.rs`, `black_box.rs`: one file per
//!   family, with its view of a line and that view's rendering);
//! - whether it was trained on the rules being edited ([`TrainedNetwork::is_trained_on`]);
//! - its view of one line ([`TrainedNetwork::explain_line`], the one call behind the corpus
//!   line's hover, `predict` and Python's `Model.explain`) and that view as a document
//!   ([`LineView::render`]);
//! - the findings it adds to a save ([`TrainedNetwork::findings`]);
//! - its role in the editor ([`Role`]): the network that classifies, or the SoPa that
//!   learns patterns beside it. The language server holds one network per role.
//!
//! Adding a family with an editor view: a variant here and in [`LineView`], and a file
//! beside this one.

mod black_box;
mod fa_rnn;
mod mvma;
mod ngram_regression;
mod patterns;

pub use black_box::{LabelsView, TrainedBlackBox};
pub use fa_rnn::{
    NetworkView, NgramContribution, PatternScore, ReconstructedPattern, TrainedFaRnn,
};
pub use mvma::{LogitParts, MvmaView, SuffixPart, TrainedMvma};
pub use ngram_regression::RegressionParts;
pub use patterns::{PatternContribution, PatternsView, TrainedPatterns};

use super::analysis::{Cancelled, PatternKey, RulesAnalysis};
use super::findings::Finding;
use super::hover::config::HoverConfig;
use super::hover::document::Document;
use crate::explain::ReconstructConfig;
use crate::model::checkpoint::Manifest;
use crate::model::{ModelKind, Network, Vocabulary};
use crate::rules_file::RulesFile;
use crate::syntax::{PatternId, RuleSet};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// What a trained network does in the editor; the language server holds one of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The network that classifies the corpus lines: a rule network of the FA-RNN family, or
    /// a black box with a plain view trained in its place (`training.model`).
    Classifier,
    /// The SoPa that learns patterns beside it (`training.learnPatterns`), or alone
    /// (`training.model` `sopa`).
    LearnedPatterns,
}

impl Role {
    /// Every role, in the order a hover shows their views.
    pub const ALL: [Role; 2] = [Role::Classifier, Role::LearnedPatterns];

    /// The role a save trains a network of `kind` in, or `None` for a family the editor has
    /// no view of (the S-LSTM, a yardstick only).
    pub fn of(kind: ModelKind) -> Option<Role> {
        match kind {
            ModelKind::Sopa => Some(Role::LearnedPatterns),
            ModelKind::MvmaG => Some(Role::Classifier),
            kind if kind.is_rule_network() => Some(Role::Classifier),
            _ => None,
        }
    }

    /// What messages call a network of `kind` in this role: `rule network`, `black box`,
    /// `learned patterns`.
    pub fn name(self, kind: ModelKind) -> &'static str {
        match self {
            Role::LearnedPatterns => "learned patterns",
            Role::Classifier if kind.is_black_box() => "black box",
            Role::Classifier => "rule network",
        }
    }

    /// The prefix of its trainings' `$/progress` tokens (the save's generation follows).
    pub fn progress_token(self) -> &'static str {
        match self {
            Role::Classifier => "rulelens/train",
            Role::LearnedPatterns => "rulelens/patterns",
        }
    }
}

/// Why a network could not be prepared for the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrainedModelError {
    /// The network's tensors could not be read (a message from the tensor library).
    Tensors(String),
    /// Its manifest does not fit the rules (a message naming the record).
    Manifest(String),
    Cancelled,
}

impl fmt::Display for TrainedModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainedModelError::Tensors(message) => {
                write!(f, "cannot read the network's parameters: {message}")
            }
            TrainedModelError::Manifest(message) => {
                write!(f, "its manifest does not fit the rules: {message}")
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

/// A trained network as a checkpoint or a training leaves it, with what preparing it for the
/// editor reads.
pub struct Unprepared<'a> {
    pub manifest: Manifest,
    pub net: Arc<dyn Network>,
    pub vocabulary: Option<&'a Vocabulary>,
    /// The analysis of the rules the network was trained from, with the corpora it reads
    /// back on (none: no read-back figures).
    pub analysis: &'a RulesAnalysis,
    /// How a rule network's patterns are read back; `None`: they are not (`predict` and
    /// Python's `Model.explain`, which show no reconstruction, skip the cost).
    pub reconstruct: Option<&'a ReconstructConfig>,
    /// Polled while they are.
    pub cancelled: &'a dyn Fn() -> bool,
}

/// A trained network of any family, prepared.
// Made once per training and held behind an `Arc`: its size costs nothing, a box would.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum TrainedNetwork {
    /// FA-RNN, FA-GRU, their bidirectional forms and ensembles: patterns and n-grams by
    /// occlusion.
    RuleNetwork(TrainedFaRnn),
    /// SoPa: each pattern's leave-one-out contribution.
    Patterns(TrainedPatterns),
    /// MVMA-G: its logits split exactly into the parts of the suffix n-grams.
    Mvma(TrainedMvma),
    /// The S-LSTM, which has no plain view: its probabilities alone, from its tensors.
    BlackBox(TrainedBlackBox),
}

/// One corpus line to explain: its text and, when labeled, its gold label.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub text: &'a str,
    pub gold: Option<&'a str>,
}

/// A network's view of one line ([`TrainedNetwork::explain_line`]); ranges in bytes of the
/// line's text.
#[derive(Debug, Clone, PartialEq)]
pub enum LineView {
    RuleNetwork(NetworkView),
    Patterns(PatternsView),
    Mvma(MvmaView),
    BlackBox(LabelsView),
}

impl TrainedNetwork {
    /// Prepares the network in `from` by its family (the manifest's model).
    pub fn prepare(from: Unprepared<'_>) -> Result<TrainedNetwork, TrainedModelError> {
        Ok(match from.manifest.settings.model {
            ModelKind::Sopa => TrainedNetwork::Patterns(TrainedPatterns::new(from)?),
            ModelKind::MvmaG => TrainedNetwork::Mvma(TrainedMvma::new(from)?),
            kind if kind.is_rule_network() => TrainedNetwork::RuleNetwork(TrainedFaRnn::new(from)?),
            _ => TrainedNetwork::BlackBox(TrainedBlackBox::new(from)),
        })
    }

    pub fn manifest(&self) -> &Manifest {
        match self {
            TrainedNetwork::RuleNetwork(network) => &network.manifest,
            TrainedNetwork::Patterns(network) => &network.manifest,
            TrainedNetwork::Mvma(network) => &network.manifest,
            TrainedNetwork::BlackBox(network) => &network.manifest,
        }
    }

    /// Whether it was trained from exactly the rules text `rules_text`.
    pub fn is_trained_on(&self, rules_text: &str) -> bool {
        self.manifest().is_trained_on(rules_text)
    }

    /// The rule network, if it is one: what code actions, inlay hints and measuring ahead
    /// read.
    pub fn rule_network(&self) -> Option<&TrainedFaRnn> {
        match self {
            TrainedNetwork::RuleNetwork(network) => Some(network),
            _ => None,
        }
    }

    /// The SoPa, if it is one: what the rules hover and the learned patterns' suggestions
    /// read.
    pub fn patterns(&self) -> Option<&TrainedPatterns> {
        match self {
            TrainedNetwork::Patterns(network) => Some(network),
            _ => None,
        }
    }

    /// The findings it adds to the save of `analysis` (which it must have been prepared
    /// with), or `None` when it adds none: the rule network's I0504.
    pub fn findings(&self, analysis: &RulesAnalysis) -> Option<Vec<Finding>> {
        self.rule_network()
            .map(|network| network.findings(analysis))
    }

    /// Its view of `line` under `rules`, the rules being edited (the view says so when the
    /// network was trained from others, and lists only the patterns they still have), within
    /// `config`. Fails only for a black box, whose tensors compute it.
    pub fn explain_line(
        &self,
        line: &Line<'_>,
        rules: &RulesFile,
        config: &HoverConfig,
    ) -> Result<LineView, TrainedModelError> {
        let stale = !self.is_trained_on(&rules.source.text);
        Ok(match self {
            TrainedNetwork::RuleNetwork(network) => {
                LineView::RuleNetwork(network.view(line.text, rules, stale, config))
            }
            TrainedNetwork::Patterns(network) => {
                LineView::Patterns(network.view(line.text, rules, stale, config))
            }
            TrainedNetwork::Mvma(network) => LineView::Mvma(network.view(line, stale, config)),
            TrainedNetwork::BlackBox(network) => LineView::BlackBox(network.view(line, stale)?),
        })
    }
}

impl LineView {
    /// The network's prediction and each label's probability, labels in its order.
    pub fn prediction(&self) -> (&str, &[(String, f64)]) {
        let (prediction, probabilities) = match self {
            LineView::RuleNetwork(view) => (&view.prediction, &view.probabilities),
            LineView::Patterns(view) => (&view.prediction, &view.probabilities),
            LineView::Mvma(view) => (&view.prediction, &view.probabilities),
            LineView::BlackBox(view) => (&view.prediction, &view.probabilities),
        };
        (prediction, probabilities)
    }

    /// The view appended to `doc`, for the line `text` whose gold label is `gold`.
    pub fn render(&self, doc: &mut Document, gold: Option<&str>, text: &str) {
        match self {
            LineView::RuleNetwork(view) => fa_rnn::render(doc, view, gold, text),
            LineView::Patterns(view) => patterns::render(doc, view, gold, text),
            LineView::Mvma(view) => mvma::render(doc, view, gold, text),
            LineView::BlackBox(view) => black_box::render(doc, view, gold),
        }
    }
}

/// For a network trained from `trained` (of an earlier save when `stale`), each of its
/// patterns' index in `rules`, the rules being edited: the same index when not stale, else
/// the pattern with the same key (kind, name or label, and regex), or `None` for a pattern
/// changed or deleted since. A network of an earlier save lists only the patterns the rules
/// still have, described as they are now; a pattern changed since shows the rules' figures
/// alone.
fn still_there(stale: bool, rules: &RuleSet, trained: &RuleSet) -> impl Fn(usize) -> Option<usize> {
    let now: Option<(HashMap<PatternKey, PatternId>, Vec<PatternKey>)> =
        stale.then(|| (PatternKey::index(rules), PatternKey::all(trained)));
    move |p: usize| match &now {
        None => Some(p),
        Some((index, keys)) => keys
            .get(p)
            .and_then(|key| index.get(key))
            .map(|id| id.index()),
    }
}
