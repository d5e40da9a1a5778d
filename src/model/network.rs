//! What training, evaluation and checkpoints need of a classifier network, whichever
//! architecture it is: FA-RNN and FA-GRU ([`FaRnn`]) or their bidirectional versions
//! ([`BiFaRnn`](super::BiFaRnn)).

use super::batch::Batch;
use super::fa_rnn::FaRnn;
use candle_core::{Result, Tensor, Var};

/// A network from sentences to label logits.
pub trait Network {
    /// Label logits [batch, n_labels], labels in priority order.
    fn logits(&self, batch: &Batch) -> Result<Tensor>;
    /// The parameters training updates.
    fn parameters(&self) -> Vec<Var>;
    /// The checkpoint names of [`Network::parameters`], in the same order.
    fn parameter_names(&self) -> Vec<String>;
    /// Every tensor under its checkpoint name (see `models/README.md`).
    fn named_tensors(&self) -> Vec<(String, Tensor)>;
    /// The FA-RNNs reading left to right and, for bidirectional networks, right to left.
    fn directions(&self) -> Vec<&FaRnn>;
}

impl Network for FaRnn {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        self.forward(batch)
    }

    fn parameters(&self) -> Vec<Var> {
        self.trainable()
    }

    fn parameter_names(&self) -> Vec<String> {
        self.trainable_names()
            .into_iter()
            .map(String::from)
            .collect()
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        self.tensors()
            .into_iter()
            .map(|(name, tensor)| (name.to_string(), tensor))
            .collect()
    }

    fn directions(&self) -> Vec<&FaRnn> {
        vec![self]
    }
}
