//! Bidirectional FA-RNN and FA-GRU (Jiang et al. 2020, §3.5; papers-brief §1.11): one
//! network reads the sentence left to right with the rules, another reads it right to left
//! with the reversed rules (`automata::compile_reversed`), and their label logits are
//! averaged, as the reference code does (the paper says hidden states). Each direction has
//! its own decomposition, G and gates; with exact decompositions both directions compute
//! the rule system, so the untrained BiFA network does too.
//! In checkpoints the backward direction's tensors carry the prefix [`BACKWARD_PREFIX`].

use crate::automata::RuleSystem;
use crate::model::fa_rnn::FaRnn;
use crate::model::fa_rnn::Scoring;
use crate::model::nn::batch::Batch;
use crate::model::nn::network::Network;
use candle_core::{Result, Tensor, Var};
use std::any::Any;
use std::collections::HashMap;

/// The prefix of the backward direction's tensor names.
pub const BACKWARD_PREFIX: &str = "backward.";

/// Two FA-RNNs (or FA-GRUs) reading in opposite directions.
#[derive(Debug, Clone)]
pub struct BiFaRnn {
    /// Reads left to right, built from the rule system.
    pub forward: FaRnn,
    /// Reads right to left, built from the reversed rule system.
    pub backward: FaRnn,
}

impl BiFaRnn {
    /// A bidirectional network from named tensors (a checkpoint's): the unprefixed ones are
    /// the forward direction's, checked against `system`, the prefixed ones the backward
    /// direction's, checked against `reversed`.
    pub fn from_tensors(
        system: &RuleSystem,
        reversed: &RuleSystem,
        tensors: HashMap<String, Tensor>,
        scoring: Scoring,
        beta: Option<f64>,
    ) -> Result<BiFaRnn> {
        let (backward, forward): (HashMap<_, _>, HashMap<_, _>) = tensors
            .into_iter()
            .partition(|(name, _)| name.starts_with(BACKWARD_PREFIX));
        let backward = backward
            .into_iter()
            .map(|(name, tensor)| (name[BACKWARD_PREFIX.len()..].to_string(), tensor))
            .collect::<HashMap<_, _>>();
        if backward.is_empty() {
            candle_core::bail!(
                "the backward direction's tensors (`{BACKWARD_PREFIX}*`) are missing"
            );
        }
        let forward = FaRnn::from_tensors(system, forward, scoring, beta)?;
        let backward = FaRnn::from_tensors(reversed, backward, scoring, beta)
            .map_err(|e| candle_core::Error::Msg(format!("backward direction: {e}")))?;
        if forward.is_gated() != backward.is_gated() {
            candle_core::bail!("one direction is gated and the other is not");
        }
        Ok(BiFaRnn { forward, backward })
    }

    /// Whether both directions are FA-GRUs.
    pub fn is_gated(&self) -> bool {
        self.forward.is_gated()
    }
}

impl BiFaRnn {
    /// The network reading left to right, then the one reading right to left.
    pub fn directions(&self) -> [&FaRnn; 2] {
        [&self.forward, &self.backward]
    }
}

impl Network for BiFaRnn {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        let forward = self.forward.forward(batch)?;
        let backward = self.backward.forward(&batch.reversed()?)?;
        (forward + backward)?.affine(0.5, 0.0)
    }

    fn training_bytes_per_token(&self) -> u64 {
        self.forward.training_bytes_per_token() + self.backward.training_bytes_per_token()
    }

    fn parameters(&self) -> Vec<Var> {
        let mut vars = self.forward.trainable();
        vars.extend(self.backward.trainable());
        vars
    }

    fn head_parameters(&self) -> Vec<Var> {
        let mut vars = self.forward.head();
        vars.extend(self.backward.head());
        vars
    }

    fn parameter_names(&self) -> Vec<String> {
        let mut names = self.forward.parameter_names();
        names.extend(
            self.backward
                .parameter_names()
                .into_iter()
                .map(|name| format!("{BACKWARD_PREFIX}{name}")),
        );
        names
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        let mut tensors = self.forward.named_tensors();
        tensors.extend(
            self.backward
                .named_tensors()
                .into_iter()
                .map(|(name, tensor)| (format!("{BACKWARD_PREFIX}{name}"), tensor)),
        );
        tensors
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
