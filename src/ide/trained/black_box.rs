//! A trained black box without a plain scorer (the S-LSTM): the editor has no view of its
//! insides, and never trains one on save, but `rulelens predict` and Python's
//! `Model.explain` label lines with it. Its view of a line is its prediction and
//! probabilities, computed by its tensors on the CPU (one sentence a call).

use super::{Line, TrainedModelError, Unprepared, tensors};
use crate::ide::hover::document::Document;
use crate::ide::hover::pieces::render_verdict;
use crate::model::checkpoint::Manifest;
use crate::model::{DeviceKind, Network, TextReader, Vocabulary, probabilities_of};
use crate::rules_file::RulesFile;
use std::fmt;
use std::sync::Arc;

/// A trained black box, with what its tensors read a sentence with.
pub struct TrainedBlackBox {
    pub manifest: Manifest,
    net: Arc<dyn Network>,
    /// The rules it was trained from: their alphabet reads a sentence into its batch.
    rules: Arc<RulesFile>,
    vocabulary: Option<Vocabulary>,
}

impl fmt::Debug for TrainedBlackBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrainedBlackBox")
            .field("model", &self.manifest.settings.model)
            .finish_non_exhaustive()
    }
}

/// A black box's view of a line: its prediction and probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelsView {
    /// The model (`S-LSTM`).
    pub kind: &'static str,
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// (label, probability), labels in the network's order.
    pub probabilities: Vec<(String, f64)>,
}

impl TrainedBlackBox {
    pub(super) fn new(from: Unprepared<'_>) -> TrainedBlackBox {
        TrainedBlackBox {
            manifest: from.manifest,
            net: from.net,
            rules: from.analysis.rules.clone(),
            vocabulary: from.vocabulary.cloned(),
        }
    }

    /// Its prediction and probabilities on `line` (the first label of the highest
    /// probability), its logits its own (no logit scale).
    pub(super) fn view(
        &self,
        line: &Line<'_>,
        stale: bool,
    ) -> Result<LabelsView, TrainedModelError> {
        let reader = TextReader {
            system: &self.rules.system,
            vocabulary: self.vocabulary.as_ref(),
            max_tokens: self.manifest.settings.max_sentence_tokens,
            probability_scale: self.manifest.probability_scale(),
        };
        let cpu = DeviceKind::Cpu.open().map_err(TrainedModelError::Tensors)?;
        let probabilities = probabilities_of(self.net.as_ref(), &reader, &[line.text], 1, &cpu)
            .map_err(tensors)?
            .pop()
            .unwrap_or_default();
        let predicted = (0..probabilities.len()).fold(0, |best, k| {
            if probabilities[k] > probabilities[best] {
                k
            } else {
                best
            }
        });
        let labels = &self.manifest.labels;
        Ok(LabelsView {
            kind: self.manifest.settings.model.display_name(),
            stale,
            prediction: labels.get(predicted).cloned().unwrap_or_default(),
            probabilities: labels.iter().cloned().zip(probabilities).collect(),
        })
    }
}

/// A black box's view of a line: its verdict alone.
pub(super) fn render(doc: &mut Document, view: &LabelsView, gold: Option<&str>) {
    let who = format!("The {}", view.kind);
    render_verdict(
        doc,
        (view.kind, &who),
        &view.prediction,
        &view.probabilities,
        gold,
        view.stale,
    );
}
