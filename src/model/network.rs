//! What training, evaluation and checkpoints need of a classifier network, whichever
//! architecture it is: FA-RNN and FA-GRU ([`FaRnn`]), their bidirectional versions
//! ([`BiFaRnn`](super::BiFaRnn)), SoPa ([`Sopa`](super::Sopa)) or a black box: the S-LSTM
//! ([`Slstm`](super::Slstm)) or MVMA-G ([`Mvma`]).

use super::batch::Batch;
use super::fa_rnn::FaRnn;
use super::mvma::Mvma;
use super::rng::SplitMix64;
use super::sopa::Sopa;
use candle_core::{Result, Tensor, Var};

/// A network from sentences to label logits.
pub trait Network {
    /// Label logits [batch, n_labels], labels in priority order.
    fn logits(&self, batch: &Batch) -> Result<Tensor>;
    /// The logits training takes its loss from: with the network's dropout, drawn from
    /// `rng`, where it has any.
    fn training_logits(&self, batch: &Batch, rng: &mut SplitMix64) -> Result<Tensor> {
        let _ = rng;
        self.logits(batch)
    }
    /// The parameters training updates.
    fn parameters(&self) -> Vec<Var>;
    /// About how many bytes a training batch keeps for the gradient per sentence and
    /// (padded) token: its measured peak with a margin (`docs/performance.md`, "Long
    /// documents"), which [`super::train`] keeps each part of a batch under
    /// [`super::MAX_TRAINING_BYTES`] with.
    fn training_bytes_per_token(&self) -> u64;
    /// How many numbers training updates.
    fn n_parameters(&self) -> usize {
        self.parameters().iter().map(|var| var.elem_count()).sum()
    }
    /// The checkpoint names of [`Network::parameters`], in the same order.
    fn parameter_names(&self) -> Vec<String>;
    /// Every tensor under its checkpoint name (see `models/README.md`).
    fn named_tensors(&self) -> Vec<(String, Tensor)>;
    /// The FA-RNNs reading left to right and, for bidirectional networks, right to left;
    /// none for SoPa and the black boxes.
    fn directions(&self) -> Vec<&FaRnn>;
    /// The network as a SoPa, if it is one.
    fn sopa(&self) -> Option<&Sopa> {
        None
    }
    /// The network as an MVMA-G, if it is one.
    fn mvma(&self) -> Option<&Mvma> {
        None
    }
}

impl Network for FaRnn {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        self.forward(batch)
    }

    fn parameters(&self) -> Vec<Var> {
        self.trainable()
    }

    fn training_bytes_per_token(&self) -> u64 {
        self.training_bytes_per_token()
    }

    fn parameter_names(&self) -> Vec<String> {
        self.trainable_names()
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        self.tensors()
    }

    fn directions(&self) -> Vec<&FaRnn> {
        vec![self]
    }
}
