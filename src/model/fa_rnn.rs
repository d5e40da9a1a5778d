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
//! Forward scoring on the CPU runs the fused recurrence of `recurrence.rs`; Viterbi
//! scoring, and any scoring on other devices, is a chain of tensor operations, one step per
//! token ([`FaRnn::final_states_unfused`]).

use super::aggregation::Aggregation;
use super::batch::Batch;
use super::decompose::Decomposition;
use super::recurrence::Recurrence;
use super::weighted::WeightedAutomaton;
use crate::automata::RuleSystem;
use crate::syntax::LabelId;
use candle_core::{DType, Device, Result, Tensor, Var};
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
    symbol_embedding: Var,
    d1: Var,
    d2: Var,
    wildcard: Tensor,
    start: Tensor,
    finals: Tensor,
    /// The nonzero edges of `wildcard`, for the fused recurrence.
    wildcard_edges: Vec<(usize, usize)>,
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
            symbol_embedding: Var::from_tensor(&matrix(&decomposition.symbol_factors, device)?)?,
            d1: Var::from_tensor(&matrix(&decomposition.from_factors, device)?)?,
            d2: Var::from_tensor(&matrix(&decomposition.to_factors, device)?)?,
            wildcard: Tensor::from_slice(&automaton.wildcard, (k, k), device)?,
            start: Tensor::from_slice(&automaton.start, (1, k), device)?,
            finals: Tensor::from_slice(&automaton.finals, (k, automaton.n_patterns()), device)?,
            wildcard_edges: (0..k * k)
                .filter(|&e| automaton.wildcard[e] != 0.0)
                .map(|e| (e / k, e % k))
                .collect(),
            aggregation: Aggregation::new(formulas, system.default_label()),
            scoring,
        })
    }

    /// The token vectors z [batch, len, r] of a batch.
    fn token_vectors(&self, batch: &Batch) -> Result<Tensor> {
        let (size, len) = batch.symbols.dims2()?;
        let rank = self.symbol_embedding.dim(1)?;
        self.symbol_embedding
            .index_select(&batch.symbols.flatten_all()?, 0)?
            .reshape((size, len, rank))
    }

    /// The state after each sentence's last token: [batch, K].
    pub fn final_states(&self, batch: &Batch) -> Result<Tensor> {
        let z = self.token_vectors(batch)?;
        if self.scoring == Scoring::Forward && z.device().is_cpu() {
            let recurrence = Recurrence {
                start: self.start.flatten_all()?.to_vec1()?,
                wildcard: self.wildcard_edges.clone(),
                lengths: batch.lengths.clone(),
            };
            return z.apply_op3(self.d1.as_tensor(), self.d2.as_tensor(), recurrence);
        }
        self.final_states_unfused(&z, &batch.mask)
    }

    /// [`FaRnn::final_states`] as a chain of tensor operations: `z` [batch, len, r],
    /// `mask` [batch, len].
    pub fn final_states_unfused(&self, z: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, len, _) = z.dims3()?;
        let k = self.wildcard.dim(0)?;
        let mut h = self.start.broadcast_as((batch, k))?.contiguous()?;
        let (d1, d2t) = (self.d1.as_tensor(), self.d2.t()?);
        for t in 0..len {
            let z = z.narrow(1, t, 1)?.squeeze(1)?;
            let next = match self.scoring {
                Scoring::Forward => {
                    let reduced = (h.matmul(d1)? * z)?;
                    (reduced.matmul(&d2t)? + h.matmul(&self.wildcard)?)?
                }
                Scoring::Viterbi => {
                    // T[b] = D1 diag(z_b) D2ᵀ + W: [batch, K, K].
                    let scaled = d1.unsqueeze(0)?.broadcast_mul(&z.unsqueeze(1)?)?;
                    let d2t = d2t.unsqueeze(0)?.broadcast_as((batch, d2t.dim(0)?, k))?;
                    let transitions = scaled
                        .matmul(&d2t.contiguous()?)?
                        .broadcast_add(&self.wildcard.unsqueeze(0)?)?;
                    h.unsqueeze(2)?.broadcast_mul(&transitions)?.max(1)?
                }
            };
            let m = mask.narrow(1, t, 1)?.to_dtype(DType::F32)?;
            h = (next.broadcast_mul(&m)? + h.broadcast_mul(&m.affine(-1.0, 1.0)?)?)?;
        }
        Ok(h)
    }

    /// Pattern scores [batch, n_patterns].
    pub fn pattern_scores(&self, batch: &Batch) -> Result<Tensor> {
        self.final_states(batch)?.matmul(&self.finals)
    }

    /// Label logits [batch, n_labels], labels in priority order.
    pub fn forward(&self, batch: &Batch) -> Result<Tensor> {
        self.aggregation.forward(&self.pattern_scores(batch)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::decompose::{AlsConfig, als};

    /// A small network with dense (ALS) factors, so every entry matters.
    fn network() -> (FaRnn, Batch) {
        let text = "default ham\nspam: $* free $* ( call | txt ) $*\nham: $* hi % $*\nspam <- p & !q\npattern p = won &? $*\npattern q = $* \"!\"\n";
        let parse = crate::syntax::parse(text);
        let (rules, _) = crate::syntax::lower(&parse, text);
        let (system, _) = crate::automata::compile(&rules, &Default::default());
        let automaton = WeightedAutomaton::new(&system);
        let decomposition = als(&automaton, 4, &AlsConfig::default());
        let net = FaRnn::new(
            &system,
            &automaton,
            &decomposition,
            Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        let texts = [
            "free call now",
            "hi 2 you!",
            "won , free txt",
            "",
            "a b c d e f free",
        ];
        let batch = Batch::from_texts(&system, &texts, &Device::Cpu).unwrap();
        (net, batch)
    }

    fn max_difference(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .unwrap()
            .abs()
            .unwrap()
            .flatten_all()
            .unwrap()
            .max(0)
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    #[test]
    fn fused_recurrence_matches_the_unfused_one_with_gradients() {
        let (net, batch) = network();
        let z = net.token_vectors(&batch).unwrap();
        let fused = net.final_states(&batch).unwrap();
        let unfused = net.final_states_unfused(&z, &batch.mask).unwrap();
        assert!(max_difference(&fused, &unfused) < 1e-5);

        let weights = Tensor::arange(0f32, fused.elem_count() as f32, &Device::Cpu)
            .unwrap()
            .reshape(fused.shape())
            .unwrap()
            .affine(0.1, -0.3)
            .unwrap();
        let grads_fused = (fused * &weights)
            .unwrap()
            .sum_all()
            .unwrap()
            .backward()
            .unwrap();
        let grads_unfused = (unfused * &weights)
            .unwrap()
            .sum_all()
            .unwrap()
            .backward()
            .unwrap();
        for var in [&net.d1, &net.d2, &net.symbol_embedding] {
            let (a, b) = (
                grads_fused.get(var).unwrap(),
                grads_unfused.get(var).unwrap(),
            );
            assert!(max_difference(a, b) < 1e-4, "{a}\n{b}");
        }
    }
}
