//! A trained MVMA-G (`training.model` = `mvma-g`) as the editor features read it: its label
//! names and the plain [`MvmaScorer`], built once after training so that a corpus line's
//! hover reads the network's prediction and the exact parts of its logits
//! ([`super::hover::mvma_view`]) without waiting and without tensors.

use super::trained_fa_rnn::TrainedModelError;
use crate::model::checkpoint::Manifest;
use crate::model::{MvmaScorer, Network, Vocabulary};

/// A trained MVMA-G, ready for the editor.
#[derive(Debug, Clone)]
pub struct TrainedMvma {
    pub manifest: Manifest,
    pub scorer: MvmaScorer,
}

impl TrainedMvma {
    /// Prepares `net`, an MVMA-G, with its checkpoint manifest and vocabulary.
    pub fn new(
        manifest: Manifest,
        net: &dyn Network,
        vocabulary: Option<&Vocabulary>,
    ) -> Result<TrainedMvma, TrainedModelError> {
        let (Some(mvma), Some(vocabulary)) = (net.mvma(), vocabulary) else {
            return Err(TrainedModelError::Tensors(
                "an MVMA-G with its vocabulary was expected".to_string(),
            ));
        };
        let scorer = mvma
            .scorer(vocabulary, manifest.settings.max_sentence_tokens)
            .map_err(|error| TrainedModelError::Tensors(error.to_string()))?;
        Ok(TrainedMvma { manifest, scorer })
    }

    /// The labels, in the order of the network's outputs.
    pub fn labels(&self) -> &[String] {
        &self.manifest.labels
    }
}
