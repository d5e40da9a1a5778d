//! What training, evaluation and checkpoints need of a classifier network, whichever
//! family it is. The trait names no family: the training layer finds a network's family by
//! [`Network::as_any`] (`train/family.rs`).

use crate::model::nn::batch::Batch;
use crate::model::nn::rng::SplitMix64;
use candle_core::{Result, Tensor, Var};
use std::any::Any;

/// A network from sentences to label logits; shared between threads once loaded (the Python
/// package scores with the GIL released).
pub trait Network: Send + Sync {
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
    /// Those of [`Network::parameters`] that make a linear head on features training does
    /// not change (the FA-RNN's labels no rule names, read from the mean word vector): they
    /// start at zero, far from where they end, and training steps them at
    /// [`crate::model::train::settings::HEAD_LEARNING_RATE`] instead of the network's own
    /// step size.
    fn head_parameters(&self) -> Vec<Var> {
        Vec::new()
    }
    /// About how many bytes a training batch keeps for the gradient per sentence and
    /// (padded) token: its measured peak with a margin (`docs/performance.md`, "Long
    /// documents"), which [`crate::model::train::learn`] keeps each part of a batch under
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
    /// The network itself, for the training layer to tell its family.
    fn as_any(&self) -> &dyn Any;
}
