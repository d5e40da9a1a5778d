//! FA-RNN: the weighted automaton of a rule system as a recurrent network (Jiang et al.
//! 2020, §3.2, eq. 5–7), on candle.
//!
//! Parameters (tensor names are the checkpoint format): `symbol_embedding` E_R [S, r],
//! `d1` [K, r], `d2` [K, r], `wildcard` W [K, K], `start` h₀ [K], `finals` α∞ [K, P].
//! One step, for a token of symbol s with z = E_R[s]:
//! - forward (sum-product): `h_t = ((h_{t−1} D1) ⊙ z) D2ᵀ + h_{t−1} W`;
//! - Viterbi (max-product): `h_t[j] = max_i h_{t−1}[i] · T(z)[i, j]` with
//!   `T(z) = D1 diag(z) D2ᵀ + W`.
//!
//! After the last token of each sentence, pattern scores `h_N α∞` go through the
//! aggregation layer. Padding is masked: a padded position leaves the state unchanged.
//! With an exact decomposition the network computes, on every sentence, exactly the rule
//! system's pattern matches, and so its predictions ("zero-shot").
//! This file is the straightforward chain of tensor operations, one step per token.

use super::aggregation::Aggregation;
use super::decompose::Decomposition;
use super::weighted::WeightedAutomaton;
use crate::automata::RuleSystem;
use crate::syntax::LabelId;
use candle_core::{DType, Device, Result, Tensor};
use nalgebra::DMatrix;

/// How path weights combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// Sum over paths (the forward algorithm).
    Forward,
    /// Best path (max-product).
    Viterbi,
}

/// An FA-RNN over a rule system's alphabet.
#[derive(Debug, Clone)]
pub struct FaRnn {
    symbol_embedding: Tensor,
    d1: Tensor,
    d2: Tensor,
    wildcard: Tensor,
    start: Tensor,
    finals: Tensor,
    aggregation: Aggregation,
    scoring: Scoring,
}

fn matrix(m: &DMatrix<f64>, device: &Device) -> Result<Tensor> {
    // nalgebra is column-major; candle wants rows.
    let data: Vec<f32> = m.transpose().iter().map(|&x| x as f32).collect();
    Tensor::from_vec(data, (m.nrows(), m.ncols()), device)
}

impl FaRnn {
    /// The untrained network of a rule system, from its automaton and a decomposition.
    pub fn new(
        system: &RuleSystem,
        automaton: &WeightedAutomaton,
        decomposition: &Decomposition,
        scoring: Scoring,
        device: &Device,
    ) -> Result<FaRnn> {
        let k = automaton.n_states;
        let formulas = (0..system.labels().len())
            .map(|c| system.label_formula(LabelId(c as u32)).clone())
            .collect();
        Ok(FaRnn {
            symbol_embedding: matrix(&decomposition.symbol_factors, device)?,
            d1: matrix(&decomposition.from_factors, device)?,
            d2: matrix(&decomposition.to_factors, device)?,
            wildcard: Tensor::from_slice(&automaton.wildcard, (k, k), device)?,
            start: Tensor::from_slice(&automaton.start, (1, k), device)?,
            finals: Tensor::from_slice(&automaton.finals, (k, automaton.n_patterns()), device)?,
            aggregation: Aggregation::new(formulas, system.default_label()),
            scoring,
        })
    }

    /// Pattern scores: `symbols` [batch, len] (u32 symbol ids), `mask` [batch, len] (1 for a
    /// token, 0 for padding) → [batch, n_patterns].
    pub fn pattern_scores(&self, symbols: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, len) = symbols.dims2()?;
        let k = self.wildcard.dim(0)?;
        let mut h = self.start.broadcast_as((batch, k))?.contiguous()?;
        let d2t = self.d2.t()?;
        for t in 0..len {
            let ids = symbols.narrow(1, t, 1)?.squeeze(1)?;
            let z = self.symbol_embedding.index_select(&ids, 0)?;
            let next = match self.scoring {
                Scoring::Forward => {
                    let reduced = (h.matmul(&self.d1)? * z)?;
                    (reduced.matmul(&d2t)? + h.matmul(&self.wildcard)?)?
                }
                Scoring::Viterbi => {
                    // T[b] = D1 diag(z_b) D2ᵀ + W: [batch, K, K].
                    let scaled = self.d1.unsqueeze(0)?.broadcast_mul(&z.unsqueeze(1)?)?;
                    let transitions = scaled
                        .matmul(
                            &d2t.unsqueeze(0)?
                                .broadcast_as((batch, d2t.dim(0)?, k))?
                                .contiguous()?,
                        )?
                        .broadcast_add(&self.wildcard.unsqueeze(0)?)?;
                    h.unsqueeze(2)?.broadcast_mul(&transitions)?.max(1)?
                }
            };
            let m = mask.narrow(1, t, 1)?.to_dtype(DType::F32)?;
            h = (next.broadcast_mul(&m)? + h.broadcast_mul(&m.affine(-1.0, 1.0)?)?)?;
        }
        h.matmul(&self.finals)
    }

    /// Label logits [batch, n_labels], labels in priority order.
    pub fn forward(&self, symbols: &Tensor, mask: &Tensor) -> Result<Tensor> {
        self.aggregation
            .forward(&self.pattern_scores(symbols, mask)?)
    }
}
