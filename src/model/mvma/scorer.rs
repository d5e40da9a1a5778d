//! A trained MVMA-G as plain numbers, for the editor: one sentence's logits and the exact
//! parts they are the sum of, in plain loops (no tensors), prepared once by
//! [`Mvma::scorer`].
//!
//! The logits come from the recurrence itself, `h_t = g(x_t) + A(x_t)·h_{t−1}` read out by
//! W. The parts, each suffix n-gram's `v_{i:N}·W` ([`Mvma::ngram_scores`]), come from the
//! other end: with `R_N = W` and `R_{t−1} = A(x_t)ᵀ R_t` (in the row-vector convention,
//! `h·M_t = A(x_t)·h` and `R_{t−1} = M_t·R_t`), part i is `g(x_i)·R_i`. That is O(N·H²·C)
//! for all N parts where running each n-gram forward is O(N²·H²); the two computations
//! share no sums, so that the parts adding up to the logits is a check, not a tautology.

use super::Mvma;
use crate::model::nn::embeddings::Vocabulary;
use crate::text::tokenize;
use candle_core::Result;
use std::fmt;

/// An MVMA-G's weights as plain row-major arrays, with its vocabulary.
#[derive(Clone)]
pub struct MvmaScorer {
    vocabulary: Vocabulary,
    /// The tokens of a sentence the network reads (the training setting
    /// `max_sentence_tokens`).
    max_tokens: usize,
    hidden: usize,
    n_labels: usize,
    /// [V, H].
    embedding: Vec<f32>,
    /// W_r, W_z, W_n side by side [H, 3H].
    input: Vec<f32>,
    /// U_z, U_n side by side [H, 2H].
    recurrent: Vec<f32>,
    /// [H, C].
    output: Vec<f32>,
}

impl fmt::Debug for MvmaScorer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MvmaScorer")
            .field("words", &self.vocabulary.len())
            .field("hidden", &self.hidden)
            .field("n_labels", &self.n_labels)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// One sentence as an MVMA-G reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct MvmaReading {
    /// The tokens read: the sentence's first `max_tokens`.
    pub n_tokens: usize,
    /// `h_N·W`, by label.
    pub logits: Vec<f32>,
    /// For each start i (0-based), `v_{i:N}·W` by label: the part of the logits that the
    /// n-gram from token i to the last one read contributes.
    pub parts: Vec<Vec<f32>>,
}

/// What the recurrence needs of one token: g, and the coefficients of `A·h` on h·U_n, on
/// h·U_z and on h.
struct Terms {
    g: Vec<f32>,
    on_n: Vec<f32>,
    on_z: Vec<f32>,
    on_h: Vec<f32>,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Mvma {
    /// The network as a [`MvmaScorer`], reading words through `vocabulary` and the first
    /// `max_tokens` tokens of a sentence.
    pub fn scorer(&self, vocabulary: &Vocabulary, max_tokens: usize) -> Result<MvmaScorer> {
        let w = self.weights.detached();
        let flat = |t: &candle_core::Tensor| t.flatten_all()?.to_vec1::<f32>();
        Ok(MvmaScorer {
            vocabulary: vocabulary.clone(),
            max_tokens,
            hidden: self.hidden_size(),
            n_labels: w.output.dim(1)?,
            embedding: flat(&w.embedding)?,
            input: flat(&w.input)?,
            recurrent: flat(&w.recurrent)?,
            output: flat(&w.output)?,
        })
    }
}

impl MvmaScorer {
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// `text` tokenized, its first `max_tokens` tokens read.
    pub fn read_text(&self, text: &str) -> MvmaReading {
        let words: Vec<u32> = tokenize(text)
            .iter()
            .take(self.max_tokens)
            .map(|token| self.vocabulary.id(token.text))
            .collect();
        self.read(&words)
    }

    /// The sentence of vocabulary ids `words` (all of them), read.
    pub fn read(&self, words: &[u32]) -> MvmaReading {
        let (h, c) = (self.hidden, self.n_labels);
        let terms: Vec<Terms> = words.iter().map(|&word| self.terms(word)).collect();
        // Forward: the state after the last token, read out.
        let mut state = vec![0f32; h];
        for t in &terms {
            let a = self.apply_a(t, &state);
            state = t.g.iter().zip(&a).map(|(g, a)| g + a).collect();
        }
        let logits = self.read_out(&state, &self.output);
        // Backward: R_N = W, part i = g_i·R_i, R_{i−1} = M_i·R_i.
        let mut readout = self.output.clone();
        let mut parts = vec![Vec::new(); terms.len()];
        for (i, t) in terms.iter().enumerate().rev() {
            parts[i] = self.read_out(&t.g, &readout);
            if i > 0 {
                readout = self.transposed_a(t, &readout);
            }
        }
        debug_assert!(parts.iter().all(|p| p.len() == c));
        MvmaReading {
            n_tokens: words.len(),
            logits,
            parts,
        }
    }

    /// The terms of the word with id `word` (the unknown word's for an id out of range).
    fn terms(&self, word: u32) -> Terms {
        let h = self.hidden;
        let n_rows = self.embedding.len() / h.max(1);
        let row = if (word as usize) < n_rows {
            word as usize
        } else {
            0
        };
        let x = &self.embedding[row * h..(row + 1) * h];
        let mut a = vec![0f32; 3 * h];
        for (k, xk) in x.iter().enumerate() {
            for (j, aj) in a.iter_mut().enumerate() {
                *aj += xk * self.input[k * 3 * h + j];
            }
        }
        let mut terms = Terms {
            g: vec![0.0; h],
            on_n: vec![0.0; h],
            on_z: vec![0.0; h],
            on_h: vec![0.0; h],
        };
        for k in 0..h {
            let reset = sigmoid(a[k]);
            let update = sigmoid(a[h + k]);
            let candidate = a[2 * h + k].tanh();
            let keep = 1.0 - update;
            terms.g[k] = keep * candidate;
            terms.on_n[k] = keep * (1.0 - candidate * candidate) * reset;
            terms.on_z[k] = update * keep * candidate;
            terms.on_h[k] = update;
        }
        terms
    }

    /// `A·h` for the token of `t`.
    fn apply_a(&self, t: &Terms, state: &[f32]) -> Vec<f32> {
        let h = self.hidden;
        let (mut through_z, mut through_n) = (vec![0f32; h], vec![0f32; h]);
        for (j, sj) in state.iter().enumerate() {
            let row = &self.recurrent[j * 2 * h..(j + 1) * 2 * h];
            for k in 0..h {
                through_z[k] += sj * row[k];
                through_n[k] += sj * row[h + k];
            }
        }
        (0..h)
            .map(|k| t.on_n[k] * through_n[k] - t.on_z[k] * through_z[k] + t.on_h[k] * state[k])
            .collect()
    }

    /// `M·R` for R [H, C], where `h·M = A·h` for the token of `t`:
    /// `(M·R)[j] = Σ_k U_n[j, k]·on_n[k]·R[k] − U_z[j, k]·on_z[k]·R[k] + on_h[j]·R[j]`.
    fn transposed_a(&self, t: &Terms, readout: &[f32]) -> Vec<f32> {
        let (h, c) = (self.hidden, self.n_labels);
        let mut next = vec![0f32; h * c];
        for j in 0..h {
            let row = &self.recurrent[j * 2 * h..(j + 1) * 2 * h];
            let out = &mut next[j * c..(j + 1) * c];
            for k in 0..h {
                let (z, n) = (row[k] * t.on_z[k], row[h + k] * t.on_n[k]);
                let r = &readout[k * c..(k + 1) * c];
                for (o, rk) in out.iter_mut().zip(r) {
                    *o += (n - z) * rk;
                }
            }
            let r = &readout[j * c..(j + 1) * c];
            for (o, rj) in out.iter_mut().zip(r) {
                *o += t.on_h[j] * rj;
            }
        }
        next
    }

    /// `v·R` for R [H, C].
    fn read_out(&self, v: &[f32], readout: &[f32]) -> Vec<f32> {
        let c = self.n_labels;
        let mut out = vec![0f32; c];
        for (k, vk) in v.iter().enumerate() {
            for (o, r) in out.iter_mut().zip(&readout[k * c..(k + 1) * c]) {
                *o += vk * r;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{batch, network};
    use crate::model::Network;
    use crate::model::Vocabulary;
    use candle_core::Device;

    #[test]
    fn the_plain_readings_are_the_networks_logits_and_ngram_scores() {
        let net = network(&Device::Cpu);
        let vocabulary = Vocabulary::new(["a", "b", "c", "d", "e", "f"]);
        let scorer = net.scorer(&vocabulary, 4).unwrap();
        let sentences: [&[u32]; 4] = [&[1, 2, 3, 4, 5, 6], &[3], &[6, 2, 2, 0], &[]];
        for words in sentences {
            let reading = scorer.read(words);
            let logits: Vec<f32> = net
                .logits(&batch(&[words], &Device::Cpu))
                .unwrap()
                .squeeze(0)
                .unwrap()
                .to_vec1()
                .unwrap();
            for (a, b) in reading.logits.iter().zip(&logits) {
                assert!(
                    (a - b).abs() < 1e-5,
                    "{words:?}: {reading:?} against {logits:?}"
                );
            }
            let parts = net.ngram_scores(words).unwrap();
            assert_eq!(reading.parts.len(), parts.len());
            for (got, want) in reading.parts.iter().zip(&parts) {
                for (a, b) in got.iter().zip(want) {
                    assert!((a - b).abs() < 1e-5, "{words:?}: {got:?} against {want:?}");
                }
            }
        }
        // From text: the first `max_tokens` tokens, unknown words as id 0.
        assert_eq!(
            scorer.read_text("A b zzz d e f"),
            scorer.read(&[1, 2, 0, 4])
        );
        assert_eq!(scorer.read_text("").logits, vec![0.0; 3]);
    }
}
