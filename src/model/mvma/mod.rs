//! MVMA-G (Sun and Lu 2022; papers-brief §3.1): a recurrent network whose state is, by
//! construction, the sum of its n-grams' representations, so that what each n-gram
//! contributes to a label is exact rather than approximate. A black box that reads no rules.
//!
//! The cell is a GRU linearised at h = 0 and trained as such: for a token with word vector
//! x, `a_q = x·W_q` (q ∈ r, z, n; no biases, as in the reference's cells), and
//! - `g(x) = (1 − σ(a_z)) ⊙ tanh(a_n)`, the GRU's output at h = 0;
//! - `A(x)·h = (1 − σ(a_z)) ⊙ (1 − tanh²(a_n)) ⊙ σ(a_r) ⊙ (h·U_n) − σ'(a_z) ⊙ tanh(a_n) ⊙ (h·U_z)
//!   + σ(a_z) ⊙ h`, its Jacobian there (U_r drops out: it multiplies h = 0);
//! - `h_t = g(x_t) + A(x_t)·h_{t−1}`, h_0 = 0.
//!
//! Unrolled, `h_t = Σ_{i≤t} v_{i:t}` with `v_{i:t} = A(x_t)···A(x_{i+1})·g(x_i)`, the
//! representation of the n-gram x_i..x_t. The logits are `h_N·W` (no bias), so label c's
//! logit is exactly `Σ_i v_{i:N}·W[:, c]`: the polarity of each suffix n-gram, summed
//! ([`Mvma::ngram_scores`]). Dropout (0.5, as in the reference) applies to the word vectors
//! and the final state in training. Word vectors start as the given ones and are trained
//! (the reference starts them at random); the hidden size is their dimension, as for the
//! S-LSTM; every weight starts U(±1/√H) as the reference's input weights do. Tensors are
//! declared once, in [`Mvma::declare`] (names in `models/README.md`).

use crate::model::nn::batch::Batch;
use crate::model::nn::dropout::dropped;
use crate::model::nn::network::Network;
use crate::model::nn::parameters::{Init, Parameters};
use crate::model::nn::rng::SplitMix64;
use candle_core::{D, Result, Tensor, Var};
use recurrence::MvmaRecurrence;
use std::any::Any;

mod recurrence;
mod scorer;

pub use scorer::{MvmaReading, MvmaScorer};

/// An MVMA-G's tensors.
#[derive(Clone)]
struct Weights {
    /// Word vectors [V, H], trained.
    embedding: Tensor,
    /// W_r, W_z, W_n side by side [H, 3H].
    input: Tensor,
    /// U_z, U_n side by side [H, 2H].
    recurrent: Tensor,
    /// The readout [H, C].
    output: Tensor,
}

impl Weights {
    /// The same values outside the gradient graph, for inference.
    fn detached(&self) -> Weights {
        Weights {
            embedding: self.embedding.detach(),
            input: self.input.detach(),
            recurrent: self.recurrent.detach(),
            output: self.output.detach(),
        }
    }
}

/// What the recurrence needs of each token, computed for all tokens at once: g [B, T, H],
/// and the coefficients of `A·h`: on h·U_n, on h·U_z, and on h itself, each [B, T, H].
struct TokenTerms {
    g: Tensor,
    on_n: Tensor,
    on_z: Tensor,
    on_h: Tensor,
}

/// An MVMA-G classifier.
pub struct Mvma {
    parameters: Parameters,
    weights: Weights,
    dropout: f64,
}

impl Mvma {
    /// Declares an MVMA-G's tensors in `parameters`: `n_labels` outputs, word vectors of
    /// `(n_words, dim)` whose values `vectors` gives for a fresh network (a checkpoint has
    /// its own), and `dropout` the share of the word vectors and final state dropped in
    /// training.
    pub fn declare(
        mut parameters: Parameters,
        n_labels: usize,
        (n_words, dim): (usize, usize),
        vectors: Option<&[f32]>,
        dropout: f64,
    ) -> Result<Mvma> {
        let h = dim;
        let embedding = parameters.declare(
            "word_embedding",
            &[n_words, h],
            match vectors {
                Some(values) => Init::Values(values.to_vec()),
                None => Init::Zeros,
            },
            true,
        )?;
        let bound = 1.0 / (h.max(1) as f64).sqrt();
        let mut uniform = |name: &str, dims: &[usize]| {
            parameters.declare(name, dims, Init::Uniform { bound }, true)
        };
        let input = uniform("cell.input", &[h, 3 * h])?;
        let recurrent = uniform("cell.recurrent", &[h, 2 * h])?;
        let output = uniform("output", &[h, n_labels])?;
        parameters.finish()?;
        Ok(Mvma {
            parameters,
            weights: Weights {
                embedding,
                input,
                recurrent,
                output,
            },
            dropout,
        })
    }

    /// The hidden size (the word vectors' dimension).
    pub fn hidden_size(&self) -> usize {
        self.weights.embedding.dim(1).unwrap_or(0)
    }

    /// The terms of every token of `words` [B, T] (vocabulary ids), the word vectors
    /// dropped out when `rng` is given.
    fn token_terms(
        &self,
        w: &Weights,
        words: &Tensor,
        rng: Option<&mut SplitMix64>,
    ) -> Result<TokenTerms> {
        let (b, n) = words.dims2()?;
        let h = self.hidden_size();
        let vectors = w.embedding.index_select(&words.flatten_all()?, 0)?;
        let vectors = dropped(&vectors, self.dropout, rng)?;
        let a = vectors.matmul(&w.input)?.reshape((b, n, 3 * h))?;
        let reset = candle_nn::ops::sigmoid(&a.narrow(D::Minus1, 0, h)?)?;
        let update = candle_nn::ops::sigmoid(&a.narrow(D::Minus1, h, h)?)?;
        let candidate = a.narrow(D::Minus1, 2 * h, h)?.tanh()?;
        let keep = update.affine(-1.0, 1.0)?; // 1 − σ(a_z)
        let g = (&keep * &candidate)?;
        let on_n = ((&keep * candidate.sqr()?.affine(-1.0, 1.0)?)? * reset)?;
        let on_z = ((&update * &keep)? * &candidate)?;
        Ok(TokenTerms {
            g,
            on_n,
            on_z,
            on_h: update,
        })
    }

    /// `A(x_t)·h` for every sentence of the batch at position `t`.
    fn apply_a(w: &Weights, terms: &TokenTerms, t: usize, h: &Tensor) -> Result<Tensor> {
        let size = h.dim(1)?;
        let at = |x: &Tensor| x.narrow(1, t, 1)?.squeeze(1);
        let products = h.matmul(&w.recurrent)?;
        let through_z = products.narrow(1, 0, size)?;
        let through_n = products.narrow(1, size, size)?;
        ((at(&terms.on_n)? * through_n)? - (at(&terms.on_z)? * through_z)?)?
            + (at(&terms.on_h)? * h)?
    }

    /// Each sentence's final state [B, H]: the recurrence run to its last token.
    fn final_states(
        &self,
        w: &Weights,
        batch: &Batch,
        rng: Option<&mut SplitMix64>,
    ) -> Result<Tensor> {
        let b = batch.lengths.len();
        let size = self.hidden_size();
        let device = w.embedding.device();
        let h = Tensor::zeros((b, size), candle_core::DType::F32, device)?;
        if batch.words.dim(1)? == 0 {
            return Ok(h);
        }
        let terms = self.token_terms(w, &batch.words, rng)?;
        if device.is_cpu() {
            let side_by_side = Tensor::cat(&[&terms.g, &terms.on_n, &terms.on_z, &terms.on_h], 2)?;
            let recurrence = MvmaRecurrence::new(batch.lengths.clone());
            return side_by_side.apply_op2(&w.recurrent.contiguous()?, recurrence);
        }
        Self::final_states_unfused(w, &terms, &batch.mask, h)
    }

    /// [`Mvma::final_states`] as a chain of tensor operations, a step at a time: the path of
    /// devices other than the CPU (whose fused operation it is tested against).
    fn final_states_unfused(
        w: &Weights,
        terms: &TokenTerms,
        mask: &Tensor,
        mut h: Tensor,
    ) -> Result<Tensor> {
        for t in 0..mask.dim(1)? {
            let next = (terms.g.narrow(1, t, 1)?.squeeze(1)? + Self::apply_a(w, terms, t, &h)?)?;
            // Padding keeps the state of the sentence's last token.
            let mask = mask.narrow(1, t, 1)?;
            h = (next.broadcast_mul(&mask)? + h.broadcast_mul(&mask.affine(-1.0, 1.0)?)?)?;
        }
        Ok(h)
    }

    /// Label logits [B, C], with dropout when `rng` is given (training).
    fn forward(
        &self,
        w: &Weights,
        batch: &Batch,
        mut rng: Option<&mut SplitMix64>,
    ) -> Result<Tensor> {
        let h = self.final_states(w, batch, rng.as_deref_mut())?;
        dropped(&h, self.dropout, rng)?.matmul(&w.output)
    }

    /// The exact parts of one sentence's logits: for each start i, the representation of
    /// the n-gram from token i to the last, `v_{i:N}`, read out by each label, [N][C]. They
    /// sum to the sentence's logits (up to rounding).
    pub fn ngram_scores(&self, words: &[u32]) -> Result<Vec<Vec<f32>>> {
        let w = self.weights.detached();
        let device = w.embedding.device();
        let n = words.len();
        let ids = Tensor::from_vec(words.to_vec(), (1, n), device)?;
        let terms = self.token_terms(&w, &ids, None)?;
        let mut scores = Vec::with_capacity(n);
        for start in 0..n {
            let mut v = terms.g.narrow(1, start, 1)?.squeeze(1)?;
            for t in start + 1..n {
                v = Self::apply_a(&w, &terms, t, &v)?;
            }
            scores.push(v.matmul(&w.output)?.squeeze(0)?.to_vec1()?);
        }
        Ok(scores)
    }

    /// The polarity of the n-gram that is the whole of `words`, `v_{1:N}` read out by each
    /// label (Sun and Lu's phrase polarity: "not good" is `A(good)·g(not)`, without
    /// `g(good)`).
    pub fn phrase_scores(&self, words: &[u32]) -> Result<Vec<f32>> {
        match self.ngram_scores(words)?.into_iter().next() {
            Some(scores) => Ok(scores),
            None => Ok(vec![0.0; self.weights.output.dim(1)?]),
        }
    }
}

impl Network for Mvma {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        self.forward(&self.weights.detached(), batch, None)
    }

    /// About 71 floats per hidden unit, measured with the bundled vectors (H = 50); 150
    /// here.
    fn training_bytes_per_token(&self) -> u64 {
        150 * 4 * self.hidden_size() as u64
    }

    fn training_logits(&self, batch: &Batch, rng: &mut SplitMix64) -> Result<Tensor> {
        self.forward(&self.weights, batch, Some(rng))
    }

    fn parameters(&self) -> Vec<Var> {
        self.parameters.trainable()
    }

    fn parameter_names(&self) -> Vec<String> {
        self.parameters.trainable_names()
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        self.parameters.named_tensors()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::nn::batch::Sentence;
    use crate::model::train::settings::{ModelKind, TrainingSettings};
    use candle_core::{DType, Device};
    use std::collections::HashMap;

    const H: usize = 4;
    const N_WORDS: usize = 7;
    const N_LABELS: usize = 3;

    pub(super) fn network(device: &Device) -> Mvma {
        let settings = TrainingSettings {
            model: ModelKind::MvmaG,
            ..TrainingSettings::DEFAULT
        };
        let mut rng = SplitMix64::new(11);
        let vectors: Vec<f32> = (0..N_WORDS * H)
            .map(|_| (rng.next_f64() * 2.0 - 1.0) as f32)
            .collect();
        Mvma::declare(
            Parameters::fresh(5, device),
            N_LABELS,
            (N_WORDS, H),
            Some(&vectors),
            settings.dropout(),
        )
        .unwrap()
    }

    fn weights(net: &Mvma) -> HashMap<String, Vec<f32>> {
        net.named_tensors()
            .into_iter()
            .map(|(name, t)| (name, t.flatten_all().unwrap().to_vec1().unwrap()))
            .collect()
    }

    /// `x·W` for W of `cols` columns, row-major.
    fn times(x: &[f32], w: &[f32], cols: usize) -> Vec<f32> {
        (0..cols)
            .map(|j| {
                x.iter()
                    .enumerate()
                    .map(|(i, xi)| xi * w[i * cols + j])
                    .sum()
            })
            .collect()
    }

    fn sigmoid(x: f32) -> f32 {
        1.0 / (1.0 + (-x).exp())
    }

    /// A bias-free GRU cell with the network's input weights and U_z, U_n, and `reset`
    /// as U_r: `(1 − z) ⊙ n + z ⊙ h`.
    fn gru(w: &HashMap<String, Vec<f32>>, reset: &[f32], x: &[f32], h: &[f32]) -> Vec<f32> {
        let a = times(x, &w["cell.input"], 3 * H);
        let u = times(h, &w["cell.recurrent"], 2 * H);
        let ur = times(h, reset, H);
        (0..H)
            .map(|k| {
                let r = sigmoid(a[k] + ur[k]);
                let z = sigmoid(a[H + k] + u[k]);
                let n = (a[2 * H + k] + r * u[H + k]).tanh();
                (1.0 - z) * n + z * h[k]
            })
            .collect()
    }

    pub(super) fn batch(sentences: &[&[u32]], device: &Device) -> Batch {
        let sentences: Vec<Sentence> = sentences
            .iter()
            .map(|words| Sentence {
                symbols: vec![crate::automata::SymbolId(0); words.len()],
                words: words.to_vec(),
            })
            .collect();
        let refs: Vec<&Sentence> = sentences.iter().collect();
        Batch::from_sentences(&refs, device).unwrap()
    }

    #[test]
    fn g_and_a_are_the_gru_cell_and_its_jacobian_at_zero() {
        let net = network(&Device::Cpu);
        let w = weights(&net);
        let mut rng = SplitMix64::new(3);
        let reset: Vec<f32> = (0..H * H).map(|_| rng.next_f64() as f32 - 0.5).collect();
        for word in 1..N_WORDS as u32 {
            let x = &w["word_embedding"][word as usize * H..(word as usize + 1) * H];
            let ids = Tensor::new(&[[word]], &Device::Cpu).unwrap();
            let terms = net.token_terms(&net.weights, &ids, None).unwrap();
            let g: Vec<f32> = terms.g.flatten_all().unwrap().to_vec1().unwrap();
            let at_zero = gru(&w, &reset, x, &[0.0; H]);
            for (a, b) in g.iter().zip(&at_zero) {
                assert!((a - b).abs() < 1e-6, "g: {g:?} against {at_zero:?}");
            }
            // A's columns against central differences of the cell, whatever U_r is.
            for j in 0..H {
                let mut unit = vec![0f32; H];
                unit[j] = 1.0;
                let h = Tensor::from_vec(unit.clone(), (1, H), &Device::Cpu).unwrap();
                let column: Vec<f32> = Mvma::apply_a(&net.weights, &terms, 0, &h)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1()
                    .unwrap();
                let eps = 1e-3f32;
                let plus: Vec<f32> = unit.iter().map(|u| u * eps).collect();
                let minus: Vec<f32> = unit.iter().map(|u| -u * eps).collect();
                let (up, down) = (gru(&w, &reset, x, &plus), gru(&w, &reset, x, &minus));
                for k in 0..H {
                    let numeric = (up[k] - down[k]) / (2.0 * eps);
                    assert!(
                        (column[k] - numeric).abs() < 1e-3,
                        "A[{k}, {j}] = {} against {numeric}",
                        column[k]
                    );
                }
            }
        }
    }

    #[test]
    fn the_ngrams_scores_sum_to_the_logits_whatever_the_padding() {
        let sentences: [&[u32]; 4] = [&[1, 2, 3, 4, 5, 6], &[3], &[6, 2, 2], &[]];
        for device in crate::model::test_devices() {
            let net = network(&device);
            let logits: Vec<Vec<f32>> = net
                .logits(&batch(&sentences, &device))
                .unwrap()
                .to_device(&Device::Cpu)
                .unwrap()
                .to_vec2()
                .unwrap();
            for (sentence, got) in sentences.iter().zip(&logits) {
                let parts = net.ngram_scores(sentence).unwrap();
                assert_eq!(parts.len(), sentence.len());
                for c in 0..N_LABELS {
                    let sum: f32 = parts.iter().map(|part| part[c]).sum();
                    assert!(
                        (sum - got[c]).abs() < 1e-5,
                        "{sentence:?}, label {c}: the n-grams sum to {sum}, the logit is {}",
                        got[c]
                    );
                }
                let alone: Vec<Vec<f32>> = net
                    .logits(&batch(&[sentence], &device))
                    .unwrap()
                    .to_device(&Device::Cpu)
                    .unwrap()
                    .to_vec2()
                    .unwrap();
                for (a, b) in alone[0].iter().zip(got) {
                    assert!(
                        (a - b).abs() < 1e-5,
                        "{sentence:?}: {alone:?} against {got:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_fused_recurrence_computes_and_differentiates_what_the_tensor_steps_do() {
        let net = network(&Device::Cpu);
        let sentences: [&[u32]; 4] = [&[1, 2, 3, 4, 5, 6], &[3], &[], &[6, 2, 2]];
        let input = batch(&sentences, &Device::Cpu);
        // A loss that weighs every final state's entry differently.
        let mut rng = SplitMix64::new(9);
        let weights: Vec<f32> = (0..sentences.len() * H)
            .map(|_| rng.next_f64() as f32 - 0.5)
            .collect();
        let weights = Tensor::from_vec(weights, (sentences.len(), H), &Device::Cpu).unwrap();
        let run = |fused: bool| {
            let w = &net.weights;
            let states = if fused {
                net.final_states(w, &input, None).unwrap()
            } else {
                let terms = net.token_terms(w, &input.words, None).unwrap();
                let zeros = Tensor::zeros((sentences.len(), H), DType::F32, &Device::Cpu).unwrap();
                Mvma::final_states_unfused(w, &terms, &input.mask, zeros).unwrap()
            };
            let loss = (&states * &weights).unwrap().sum_all().unwrap();
            let grads = loss.backward().unwrap();
            let grads: Vec<Vec<f32>> = net
                .parameters()
                .iter()
                .map(|var| {
                    // The readout is not on the path to the states.
                    grads.get(var.as_tensor()).map_or_else(Vec::new, |grad| {
                        grad.flatten_all().unwrap().to_vec1().unwrap()
                    })
                })
                .collect();
            (states.to_vec2::<f32>().unwrap(), grads)
        };
        let (fused, fused_grads) = run(true);
        let (unfused, unfused_grads) = run(false);
        for (a, b) in fused.iter().flatten().zip(unfused.iter().flatten()) {
            assert!((a - b).abs() < 1e-5, "{fused:?} against {unfused:?}");
        }
        // The empty sentence keeps the zero state.
        assert!(fused[2].iter().all(|&x| x == 0.0));
        for (name, (a, b)) in net
            .parameter_names()
            .iter()
            .zip(fused_grads.iter().zip(&unfused_grads))
        {
            assert_eq!(a.len(), b.len(), "{name}");
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-5, "{name}: {a:?} against {b:?}");
            }
        }
        assert!(fused_grads.iter().flatten().any(|&g| g != 0.0));
    }

    #[test]
    fn a_phrase_is_its_longest_ngram_without_its_last_words_own_term() {
        let net = network(&Device::Cpu);
        let w = weights(&net);
        // "not good": A(good)·g(not), read out; g(good) is not in it.
        let (not, good) = (2u32, 5u32);
        let phrase = net.phrase_scores(&[not, good]).unwrap();
        let ids = Tensor::new(&[[not, good]], &Device::Cpu).unwrap();
        let terms = net.token_terms(&net.weights, &ids, None).unwrap();
        let g_not = terms.g.narrow(1, 0, 1).unwrap().squeeze(1).unwrap();
        let v = Mvma::apply_a(&net.weights, &terms, 1, &g_not).unwrap();
        let want = times(
            &v.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            &w["output"],
            N_LABELS,
        );
        for (a, b) in phrase.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{phrase:?} against {want:?}");
        }
        let whole = net.ngram_scores(&[not, good]).unwrap();
        assert_eq!(whole[0], phrase);
    }
}
