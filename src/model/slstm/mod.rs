//! S-LSTM, the sentence-state LSTM (Zhang, Liu and Song 2018; papers-brief §4), on candle: a
//! black-box yardstick that reads no rules, only the words.
//!
//! Every word has a state (h, c) and the sentence has one (g, c_g). For `steps` rounds all
//! states are updated at once from the previous round's: a word reads its own state, the sum
//! of the states `window` words to its left and to its right, its word vector and the
//! sentence state; the sentence reads itself and every word. As in the reference code rather
//! than the paper's equations:
//! - the word states start as the word vectors (two dropout masks for h and c), the sentence
//!   state as their mean;
//! - the window's neighbours are summed, left and right apart, not concatenated;
//! - a word's new cell mixes five candidates (left, right, its word vector, the sentence's
//!   cell, its own cell) with gates normalised by a softmax per dimension, and no tanh
//!   candidate;
//! - the sentence's new cell mixes the word cells and its own with a softmax over the
//!   sigmoid gates of the words and of itself;
//! - the classifier reads the mean of the final word states and the sentence state through
//!   a tanh layer of twice the hidden size;
//! - every weight starts N(0, 0.1²); the word vectors start as the given ones and are trained.
//!
//! One deviation, documented in `docs/cli.md`: means are over each sentence's own words (the
//! reference averages over the padded batch, so its outputs depend on the batch).
//! The hidden size is the word vectors' dimension, as in the reference code. Tensors are
//! declared once, in [`Slstm::declare`] (names in `models/README.md`).
//!
//! On the CPU a step's element-wise work (everything between its matrix products) runs in
//! three fused operations with their own backward passes (`slstm/cells.rs`), about half
//! the time of a training step as tensor operations (docs/performance.md); on other devices
//! the step is the chain of tensor operations of `Step::tensors`, which the tests also run
//! on the CPU to check the fused path against it.

pub(crate) mod cells;

use crate::model::nn::batch::Batch;
use crate::model::nn::dropout::dropped;
use crate::model::nn::network::Network;
use crate::model::nn::parameters::{Init, Parameters};
use crate::model::nn::rng::SplitMix64;
use crate::model::slstm::cells::{SentenceCell, Window, WordCells, Words, packed};
use candle_core::{DType, Device, Result, Tensor, Var};
use serde::{Deserialize, Serialize};
use std::any::Any;

/// The reference code's initialisation of every weight: N(0, 0.1²).
const INIT_STD: f64 = 0.1;

/// The most recurrent steps and the widest window a setting may ask for: beyond them a
/// typo; a step keeps batch × tokens × hidden × 20 floats for the gradient.
pub const MAX_SLSTM_STEPS: usize = 64;
/// See [`MAX_SLSTM_STEPS`].
pub const MAX_SLSTM_WINDOW: usize = 64;

/// The candidates a word's new cell mixes, in the order of its gates: the left and right
/// neighbours' cells, its word vector, the sentence's cell and its own cell.
const WORD_CANDIDATES: usize = 5;

/// An S-LSTM's tensors.
#[derive(Clone)]
struct Weights {
    /// Word vectors [V, H], trained.
    embedding: Tensor,
    /// A word's gates from its own state and its left and right sums: [3H, 6H], the six
    /// gates (five candidates' then the output gate) in blocks of H columns.
    word_recurrent: Tensor,
    /// ... from its word vector [H, 6H] and the sentence state [H, 6H], and their bias [6H].
    word_input: Tensor,
    word_sentence: Tensor,
    word_bias: Tensor,
    /// The sentence's gates (its own, its output, each word's) from the sentence state
    /// [H, 3H], from the words' mean (own and output) [H, 2H], from each word (the word's)
    /// [H, H], and their bias [3H].
    sentence_own: Tensor,
    sentence_mean: Tensor,
    sentence_word: Tensor,
    sentence_bias: Tensor,
    /// The classifier: tanh(r·W₂ + b₂)·W + b, W₂ [H, 2H], W [2H, C].
    head_hidden: Tensor,
    head_hidden_bias: Tensor,
    head_output: Tensor,
    head_output_bias: Tensor,
}

impl Weights {
    /// The same values outside the gradient graph: inference then keeps no step's
    /// intermediate tensors alive (a dev batch of 256 long SMS messages kept 4 GB).
    fn detached(&self) -> Weights {
        let d = |t: &Tensor| t.detach();
        Weights {
            embedding: d(&self.embedding),
            word_recurrent: d(&self.word_recurrent),
            word_input: d(&self.word_input),
            word_sentence: d(&self.word_sentence),
            word_bias: d(&self.word_bias),
            sentence_own: d(&self.sentence_own),
            sentence_mean: d(&self.sentence_mean),
            sentence_word: d(&self.sentence_word),
            sentence_bias: d(&self.sentence_bias),
            head_hidden: d(&self.head_hidden),
            head_hidden_bias: d(&self.head_hidden_bias),
            head_output: d(&self.head_output),
            head_output_bias: d(&self.head_output_bias),
        }
    }
}

/// An S-LSTM classifier.
pub struct Slstm {
    parameters: Parameters,
    weights: Weights,
    steps: usize,
    window: usize,
    dropout: f64,
}

/// The S-LSTM's own training settings, flattened into `TrainingSettings` (`rulelens
/// train`'s flags, the server's `training.*` settings, a checkpoint's manifest); declared here
/// once, with their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(default)]
pub struct SlstmSettings {
    /// The S-LSTM's rounds of updates of every state (its paper's best on dev: 9).
    #[arg(
        long = "slstm-steps",
        value_name = "N",
        default_value_t = SlstmSettings::DEFAULT.steps
    )]
    #[serde(rename = "slstmSteps")]
    pub steps: usize,
    /// How many words on each side an S-LSTM word state reads (its paper's best: 1).
    #[arg(
        long = "slstm-window",
        value_name = "N",
        default_value_t = SlstmSettings::DEFAULT.window
    )]
    #[serde(rename = "slstmWindow")]
    pub window: usize,
}

impl SlstmSettings {
    /// Every default.
    pub const DEFAULT: SlstmSettings = SlstmSettings {
        steps: 9,
        window: 1,
    };

    /// Why these settings cannot train, naming the setting, or `Ok`.
    pub fn check(&self) -> std::result::Result<(), String> {
        for (name, value, high) in [
            ("slstm steps", self.steps, MAX_SLSTM_STEPS),
            ("slstm window", self.window, MAX_SLSTM_WINDOW),
        ] {
            if !(1..=high).contains(&value) {
                return Err(format!("{name} must be between 1 and {high}, not {value}"));
            }
        }
        Ok(())
    }
}

impl Default for SlstmSettings {
    fn default() -> SlstmSettings {
        SlstmSettings::DEFAULT
    }
}

impl Slstm {
    /// Declares an S-LSTM's tensors in `parameters`: `n_labels` outputs, word vectors of
    /// `(n_words, dim)` whose values `vectors` gives for a fresh network (a checkpoint has
    /// its own), steps and window from `config`, and `dropout` the share of the word vectors
    /// and hidden states dropped in training.
    pub fn declare(
        mut parameters: Parameters,
        n_labels: usize,
        (n_words, dim): (usize, usize),
        vectors: Option<&[f32]>,
        (config, dropout): (&SlstmSettings, f64),
    ) -> Result<Slstm> {
        let h = dim;
        let normal = || Init::Normal { std: INIT_STD };
        let embedding = parameters.declare(
            "word_embedding",
            &[n_words, h],
            match vectors {
                Some(values) => Init::Values(values.to_vec()),
                None => Init::Zeros,
            },
            true,
        )?;
        let gates = WORD_CANDIDATES + 1;
        let mut weight =
            |name: &str, dims: &[usize]| parameters.declare(name, dims, normal(), true);
        let word_recurrent = weight("word.recurrent", &[3 * h, gates * h])?;
        let word_input = weight("word.input", &[h, gates * h])?;
        let word_sentence = weight("word.sentence", &[h, gates * h])?;
        let word_bias = weight("word.bias", &[gates * h])?;
        let sentence_own = weight("sentence.own", &[h, 3 * h])?;
        let sentence_mean = weight("sentence.mean", &[h, 2 * h])?;
        let sentence_word = weight("sentence.word", &[h, h])?;
        let sentence_bias = weight("sentence.bias", &[3 * h])?;
        let head_hidden = weight("head.hidden", &[h, 2 * h])?;
        let head_hidden_bias = weight("head.hidden_bias", &[2 * h])?;
        let head_output = weight("head.output", &[2 * h, n_labels])?;
        let head_output_bias = weight("head.output_bias", &[n_labels])?;
        parameters.finish()?;
        Ok(Slstm {
            parameters,
            weights: Weights {
                embedding,
                word_recurrent,
                word_input,
                word_sentence,
                word_bias,
                sentence_own,
                sentence_mean,
                sentence_word,
                sentence_bias,
                head_hidden,
                head_hidden_bias,
                head_output,
                head_output_bias,
            },
            steps: config.steps,
            window: config.window,
            dropout,
        })
    }

    /// The hidden size (the word vectors' dimension).
    pub fn hidden_size(&self) -> usize {
        self.weights.embedding.dim(1).unwrap_or(0)
    }

    /// Label logits [B, C] with the weights `w`, with dropout when `rng` is given (training),
    /// the steps' element-wise work run as `path` says.
    fn forward(
        &self,
        w: &Weights,
        batch: &Batch,
        mut rng: Option<&mut SplitMix64>,
        path: Path,
    ) -> Result<Tensor> {
        let device = w.embedding.device();
        let b = batch.lengths.len();
        let h_dim = self.hidden_size();
        // An all-empty batch reads one padding position.
        let (words, mask) = if batch.lengths.iter().all(|&len| len == 0) {
            (
                Tensor::zeros((b, 1), DType::U32, device)?,
                Tensor::zeros((b, 1), DType::F32, device)?,
            )
        } else {
            (batch.words.clone(), batch.mask.clone())
        };
        let n = words.dim(1)?;
        let mask = mask.unsqueeze(2)?;
        let lengths: Vec<f32> = batch.lengths.iter().map(|&len| len as f32).collect();
        let lengths = Tensor::from_vec(lengths, (b, 1), device)?;
        let vectors = w
            .embedding
            .index_select(&words.flatten_all()?, 0)?
            .reshape((b, n, h_dim))?;
        let xh = dropped(&vectors, self.dropout, rng.as_deref_mut())?.broadcast_mul(&mask)?;
        let xc = dropped(&vectors, self.dropout, rng.as_deref_mut())?.broadcast_mul(&mask)?;
        let gates = WORD_CANDIDATES + 1;
        // What the word gates read of the word vector, the same at every step.
        let word_input = xh
            .reshape((b * n, h_dim))?
            .matmul(&w.word_input)?
            .broadcast_add(&w.word_bias)?
            .reshape((b, n, gates * h_dim))?;
        // The fused word cells read the word vectors' terms and the vectors themselves
        // side by side.
        let fused = match path {
            Path::Fused => Some((
                Words::new(&mask.flatten_all()?.to_vec1()?, n),
                Tensor::cat(&[&word_input, &xc], 2)?,
            )),
            Path::Tensors => None,
        };
        let step = Step {
            w,
            mask,
            lengths: lengths.clamp(1f32, f32::MAX)?,
            word_input,
            xc,
            window: self.window,
        };
        let mut state = State {
            g: step.mean_over_words(&xh)?,
            cg: step.mean_over_words(&step.xc)?,
            h: xh,
            c: step.xc.clone(),
        };
        for _ in 0..self.steps {
            state = match &fused {
                Some((words, inputs)) => step.fused(&state, words, inputs)?,
                None => step.tensors(&state)?,
            };
        }
        let h = dropped(&state.h, self.dropout, rng)?;
        // The mean of the word states and the sentence state.
        let representation = (h.sum(1)? + state.g)?.broadcast_div(&(lengths + 1.0)?)?;
        representation
            .matmul(&w.head_hidden)?
            .broadcast_add(&w.head_hidden_bias)?
            .tanh()?
            .matmul(&w.head_output)?
            .broadcast_add(&w.head_output_bias)
    }
}

/// How the steps' element-wise work runs: fused operations (`slstm/cells.rs`) on the CPU,
/// tensor operations on other devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Fused,
    Tensors,
}

impl Path {
    fn on(device: &Device) -> Path {
        if device.is_cpu() {
            Path::Fused
        } else {
            Path::Tensors
        }
    }
}

/// The word states [B, N, H] (h, c) and the sentence state [B, H] (g, c_g) after a step.
struct State {
    h: Tensor,
    c: Tensor,
    g: Tensor,
    cg: Tensor,
}

/// What every step of a batch reads besides the previous states.
struct Step<'a> {
    w: &'a Weights,
    /// [B, N, 1], 1 on words.
    mask: Tensor,
    /// [B, 1], each sentence's length, at least 1.
    lengths: Tensor,
    /// [B, N, 6H]: the word gates' terms from the word vectors, with their bias.
    word_input: Tensor,
    /// [B, N, H]: the word vectors as the words' cell candidate (with their dropout mask).
    xc: Tensor,
    window: usize,
}

impl Step<'_> {
    fn mean_over_words(&self, x: &Tensor) -> Result<Tensor> {
        x.sum(1)?.broadcast_div(&self.lengths)
    }

    /// The sentence state's terms from the previous states: its own gate's and its output
    /// gate's pre-activations [B, H] each, and the words' gate bias from the sentence
    /// state [B, H], side by side [B, 3H].
    fn sentence_terms(&self, s: &State) -> Result<Tensor> {
        let h_dim = s.g.dim(1)?;
        let own =
            s.g.matmul(&self.w.sentence_own)?
                .broadcast_add(&self.w.sentence_bias)?;
        let from_mean = self.mean_over_words(&s.h)?.matmul(&self.w.sentence_mean)?;
        own + from_mean.pad_with_zeros(1, 0, h_dim)?
    }

    /// The word gates' products with each word's state [B, N, H].
    fn word_terms(&self, h: &Tensor) -> Result<Tensor> {
        let (b, n, h_dim) = h.dims3()?;
        h.reshape((b * n, h_dim))?
            .matmul(&self.w.sentence_word)?
            .reshape((b, n, h_dim))
    }

    /// The word gates' products with the words' [h, left, right] [B, N, 3H]: [B, N, 6H].
    fn word_products(&self, window: &Tensor) -> Result<Tensor> {
        let (b, n, three_h) = window.dims3()?;
        window
            .reshape((b * n, three_h))?
            .matmul(&self.w.word_recurrent)?
            .reshape((b, n, ()))
    }

    /// A step in fused operations (CPU); `inputs` [B, N, 7H] are the word gates' terms from
    /// the word vectors and the vectors as cell candidates, side by side.
    fn fused(&self, s: &State, words: &Words, inputs: &Tensor) -> Result<State> {
        let state = packed(&s.c, &s.cg, &s.g.matmul(&self.w.word_sentence)?)?;
        let sentence = self.word_terms(&s.h)?.apply_op3(
            &self.sentence_terms(s)?,
            &state,
            SentenceCell {
                words: words.clone(),
            },
        )?;
        let products = self.word_products(&s.h.apply_op1(Window { width: self.window })?)?;
        let keep = [&products, inputs, &state].iter().any(|t| t.track_op());
        let word = products.apply_op3(
            inputs,
            &state,
            WordCells::new(self.window, words.clone(), keep),
        )?;
        Ok(State {
            h: word.get(1)?,
            c: word.get(0)?,
            g: sentence.get(1)?,
            cg: sentence.get(0)?,
        })
    }

    /// A step in tensor operations (any device).
    fn tensors(&self, s: &State) -> Result<State> {
        let (b, n, h_dim) = s.h.dims3()?;
        let mask = &self.mask;
        // The sentence state, from the previous round's states.
        let terms = self.sentence_terms(s)?;
        let sentence_gate = terms.narrow(1, 0, h_dim)?;
        let output_gate = terms.narrow(1, h_dim, h_dim)?;
        let word_gates = self
            .word_terms(&s.h)?
            .broadcast_add(&terms.narrow(1, 2 * h_dim, h_dim)?.unsqueeze(1)?)?;
        // A softmax over the words' sigmoid gates and the sentence's, per dimension;
        // padding takes no share.
        let word_weights = candle_nn::ops::sigmoid(&word_gates)?
            .exp()?
            .broadcast_mul(mask)?;
        let sentence_weight = candle_nn::ops::sigmoid(&sentence_gate)?.exp()?;
        let total = (word_weights.sum(1)? + &sentence_weight)?;
        let new_cg = ((word_weights * &s.c)?.sum(1)? + (&sentence_weight * &s.cg)?)?
            .broadcast_div(&total)?;
        let new_g = (candle_nn::ops::sigmoid(&output_gate)? * new_cg.tanh()?)?;

        // The word states.
        let (h_left, h_right) = self.neighbours(&s.h)?;
        let (c_left, c_right) = self.neighbours(&s.c)?;
        let pre = self
            .word_products(&Tensor::cat(&[&s.h, &h_left, &h_right], 2)?)?
            .add(&self.word_input)?
            .broadcast_add(&s.g.matmul(&self.w.word_sentence)?.unsqueeze(1)?)?;
        let activated = candle_nn::ops::sigmoid(&pre)?;
        let mix = activated
            .narrow(2, 0, WORD_CANDIDATES * h_dim)?
            .reshape((b, n, WORD_CANDIDATES, h_dim))?
            .exp()?;
        let mix = mix.broadcast_div(&mix.sum_keepdim(2)?)?;
        let output = activated.narrow(2, WORD_CANDIDATES * h_dim, h_dim)?;
        let sentence_cell = s.cg.unsqueeze(1)?.broadcast_as((b, n, h_dim))?;
        let candidates = Tensor::stack(&[&c_left, &c_right, &self.xc, &sentence_cell, &s.c], 2)?;
        let new_c = (mix * candidates)?.sum(2)?.broadcast_mul(mask)?;
        let new_h = (output * new_c.tanh()?)?.broadcast_mul(mask)?;
        Ok(State {
            h: new_h,
            c: new_c,
            g: new_g,
            cg: new_cg,
        })
    }

    /// The sums of the states 1..=window positions to the left and to the right of each
    /// word (zeros beyond the sentence: padding states are zero).
    fn neighbours(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let (b, n, h) = x.dims3()?;
        let mut left = x.zeros_like()?;
        let mut right = x.zeros_like()?;
        for k in 1..=self.window.min(n.saturating_sub(1)) {
            let zeros = Tensor::zeros((b, k, h), x.dtype(), x.device())?;
            left = (left + Tensor::cat(&[&zeros, &x.narrow(1, 0, n - k)?], 1)?)?;
            right = (right + Tensor::cat(&[&x.narrow(1, k, n - k)?, &zeros], 1)?)?;
        }
        Ok((left, right))
    }
}

impl Network for Slstm {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        let device = self.weights.embedding.device();
        self.forward(&self.weights.detached(), batch, None, Path::on(device))
    }

    /// 150 floats per hidden unit and step (measured with the fused steps: about 35 on SMS,
    /// H = 50, 9 steps; before them, SMS's longest batches, 32 × 190 tokens, peaked at
    /// 1.5 GB).
    fn training_bytes_per_token(&self) -> u64 {
        (150 * 4 * self.hidden_size() as u64).saturating_mul(self.steps as u64)
    }

    fn training_logits(&self, batch: &Batch, rng: &mut SplitMix64) -> Result<Tensor> {
        let device = self.weights.embedding.device();
        self.forward(&self.weights, batch, Some(rng), Path::on(device))
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
    use candle_core::Device;
    use std::collections::HashMap;

    const H: usize = 4;
    const N_WORDS: usize = 7;
    const N_LABELS: usize = 3;

    /// A fresh S-LSTM of hidden size [`H`] with N(0, 1) word vectors and `steps`, `window`.
    fn network(steps: usize, window: usize, device: &Device) -> Slstm {
        let settings = TrainingSettings {
            model: ModelKind::Slstm,
            slstm: SlstmSettings { steps, window },
            ..TrainingSettings::DEFAULT
        };
        let mut rng = SplitMix64::new(11);
        let vectors: Vec<f32> = (0..N_WORDS * H)
            .map(|_| (rng.next_f64() * 2.0 - 1.0) as f32)
            .collect();
        let parameters = Parameters::fresh(5, device);
        Slstm::declare(
            parameters,
            N_LABELS,
            (N_WORDS, H),
            Some(&vectors),
            (&settings.slstm, settings.dropout()),
        )
        .unwrap()
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

    /// The S-LSTM of papers-brief §4 on one sentence, written out over plain vectors
    /// without dropout: what the batched tensors must compute.
    fn plain_logits(net: &Slstm, words: &[u32]) -> Vec<f32> {
        let tensors: HashMap<String, Vec<f32>> = net
            .named_tensors()
            .into_iter()
            .map(|(name, t)| (name, t.flatten_all().unwrap().to_vec1().unwrap()))
            .collect();
        let w = |name: &str| &tensors[name];
        let n = words.len();
        let x: Vec<Vec<f32>> = words
            .iter()
            .map(|&id| w("word_embedding")[id as usize * H..(id as usize + 1) * H].to_vec())
            .collect();
        let mean = |states: &[Vec<f32>]| -> Vec<f32> {
            (0..H)
                .map(|k| states.iter().map(|s| s[k]).sum::<f32>() / n.max(1) as f32)
                .collect()
        };
        let (mut h, mut c) = (x.clone(), x.clone());
        let (mut g, mut cg) = (mean(&h), mean(&c));
        for _ in 0..net.steps {
            let own = times(&g, w("sentence.own"), 3 * H);
            let from_mean = times(&mean(&h), w("sentence.mean"), 2 * H);
            let bias = w("sentence.bias");
            let mut new_cg = vec![0f32; H];
            let mut new_g = vec![0f32; H];
            let word_gates: Vec<Vec<f32>> = h
                .iter()
                .map(|hi| {
                    let from_word = times(hi, w("sentence.word"), H);
                    (0..H)
                        .map(|k| sigmoid(from_word[k] + own[2 * H + k] + bias[2 * H + k]))
                        .collect()
                })
                .collect();
            for k in 0..H {
                let d = sigmoid(own[k] + from_mean[k] + bias[k]);
                let o = sigmoid(own[H + k] + from_mean[H + k] + bias[H + k]);
                let total: f32 = word_gates.iter().map(|f| f[k].exp()).sum::<f32>() + d.exp();
                let mixed: f32 = word_gates
                    .iter()
                    .zip(&c)
                    .map(|(f, ci)| f[k].exp() * ci[k])
                    .sum::<f32>()
                    + d.exp() * cg[k];
                new_cg[k] = mixed / total;
                new_g[k] = o * new_cg[k].tanh();
            }
            let mut new_h = vec![vec![0f32; H]; n];
            let mut new_c = vec![vec![0f32; H]; n];
            for i in 0..n {
                let sum = |states: &[Vec<f32>], range: &mut dyn Iterator<Item = usize>| {
                    let mut out = vec![0f32; H];
                    for j in range {
                        for k in 0..H {
                            out[k] += states[j][k];
                        }
                    }
                    out
                };
                let left = |s: &[Vec<f32>]| sum(s, &mut (i.saturating_sub(net.window)..i));
                let right = |s: &[Vec<f32>]| sum(s, &mut (i + 1..(i + 1 + net.window).min(n)));
                let input: Vec<f32> = [h[i].clone(), left(&h), right(&h)].concat();
                let recurrent = times(&input, w("word.recurrent"), 6 * H);
                let from_vector = times(&x[i], w("word.input"), 6 * H);
                let from_sentence = times(&g, w("word.sentence"), 6 * H);
                let gate = |j: usize, k: usize| {
                    let at = j * H + k;
                    sigmoid(
                        recurrent[at] + from_vector[at] + from_sentence[at] + w("word.bias")[at],
                    )
                };
                let (c_left, c_right) = (left(&c), right(&c));
                for k in 0..H {
                    let candidates = [c_left[k], c_right[k], x[i][k], cg[k], c[i][k]];
                    let total: f32 = (0..5).map(|j| gate(j, k).exp()).sum();
                    new_c[i][k] = (0..5)
                        .map(|j| gate(j, k).exp() / total * candidates[j])
                        .sum();
                    new_h[i][k] = gate(5, k) * new_c[i][k].tanh();
                }
            }
            (h, c, g, cg) = (new_h, new_c, new_g, new_cg);
        }
        let representation: Vec<f32> = (0..H)
            .map(|k| (h.iter().map(|s| s[k]).sum::<f32>() + g[k]) / (n + 1) as f32)
            .collect();
        let hidden: Vec<f32> = times(&representation, w("head.hidden"), 2 * H)
            .iter()
            .zip(w("head.hidden_bias"))
            .map(|(a, b)| (a + b).tanh())
            .collect();
        times(&hidden, w("head.output"), N_LABELS)
            .iter()
            .zip(w("head.output_bias"))
            .map(|(a, b)| a + b)
            .collect()
    }

    fn batch(sentences: &[&[u32]], device: &Device) -> Batch {
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
    fn the_batched_network_computes_the_papers_equations_whatever_the_padding() {
        let sentences: [&[u32]; 4] = [&[1, 2, 3, 4, 5, 6], &[3], &[6, 2, 2], &[]];
        for device in crate::model::test_devices() {
            for (steps, window) in [(1, 1), (3, 2), (9, 1)] {
                same_as_the_equations(&sentences, steps, window, &device);
            }
        }
    }

    /// Checks the network's logits for `sentences`, batched together and one at a time,
    /// against [`plain_logits`].
    fn same_as_the_equations(sentences: &[&[u32]], steps: usize, window: usize, device: &Device) {
        let net = network(steps, window, device);
        let logits_of = |sentences: &[&[u32]]| -> Vec<Vec<f32>> {
            net.logits(&batch(sentences, device))
                .unwrap()
                .to_device(&Device::Cpu)
                .unwrap()
                .to_vec2()
                .unwrap()
        };
        let logits = logits_of(sentences);
        for (sentence, got) in sentences.iter().zip(&logits) {
            let want = plain_logits(&net, sentence);
            for (a, b) in got.iter().zip(&want) {
                assert!(
                    (a - b).abs() < 1e-4,
                    "steps {steps}, window {window}, {sentence:?}: {got:?} against {want:?}"
                );
            }
            // Alone, without the padding of longer sentences, the same.
            let alone = logits_of(&[sentence]);
            for (a, b) in alone[0].iter().zip(got) {
                assert!(
                    (a - b).abs() < 1e-5,
                    "{sentence:?}: {alone:?} against {got:?}"
                );
            }
        }
    }

    /// The logits and every parameter's gradient (of the cross-entropy against labels 0, 1,
    /// 2, 0, …) of `net` on `sentences` with the steps run as `path`, with dropout drawn from
    /// `seed` when one is given.
    fn logits_and_gradients(
        net: &Slstm,
        sentences: &[&[u32]],
        seed: Option<u64>,
        path: Path,
    ) -> (Vec<f32>, Vec<Vec<f32>>) {
        let input = batch(sentences, &Device::Cpu);
        let mut rng = seed.map(SplitMix64::new);
        let logits = net
            .forward(&net.weights, &input, rng.as_mut(), path)
            .unwrap();
        let targets: Vec<u32> = (0..sentences.len() as u32)
            .map(|i| i % N_LABELS as u32)
            .collect();
        let targets = Tensor::new(targets.as_slice(), &Device::Cpu).unwrap();
        let loss = candle_nn::loss::cross_entropy(&logits, &targets).unwrap();
        let grads = loss.backward().unwrap();
        let gradients = net
            .parameters()
            .iter()
            .map(|p| {
                let grad = grads.get(p.as_tensor()).expect("a parameter's gradient");
                grad.flatten_all().unwrap().to_vec1().unwrap()
            })
            .collect();
        (logits.flatten_all().unwrap().to_vec1().unwrap(), gradients)
    }

    fn assert_close(got: &[f32], want: &[f32], what: &str) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (a, b) in got.iter().zip(want) {
            assert!(
                (a - b).abs() <= 1e-5 + 1e-4 * b.abs(),
                "{what}: {got:?} against {want:?}"
            );
        }
    }

    #[test]
    fn the_fused_steps_give_the_tensor_steps_logits_and_gradients() {
        let batches: [&[&[u32]]; 2] = [&[&[1, 2, 3, 4, 5, 6], &[3], &[6, 2, 2], &[]], &[&[], &[]]];
        for (steps, window) in [(1, 1), (3, 2), (2, 7)] {
            let net = network(steps, window, &Device::Cpu);
            for sentences in batches {
                for seed in [None, Some(4)] {
                    let (logits, gradients) =
                        logits_and_gradients(&net, sentences, seed, Path::Fused);
                    let (want_logits, want_gradients) =
                        logits_and_gradients(&net, sentences, seed, Path::Tensors);
                    let case = format!("steps {steps}, window {window}, dropout seed {seed:?}");
                    assert_close(&logits, &want_logits, &format!("{case}: logits"));
                    for ((name, got), want) in net
                        .parameter_names()
                        .iter()
                        .zip(&gradients)
                        .zip(&want_gradients)
                    {
                        assert_close(got, want, &format!("{case}: ∂{name}"));
                    }
                }
            }
        }
    }

    #[test]
    fn dropout_draws_from_the_seed_and_only_in_training() {
        let net = network(2, 1, &Device::Cpu);
        let input = batch(&[&[1, 2, 3], &[4, 5]], &Device::Cpu);
        let eval = |t: Tensor| -> Vec<Vec<f32>> { t.to_vec2().unwrap() };
        let plain = eval(net.logits(&input).unwrap());
        let first = eval(
            net.training_logits(&input, &mut SplitMix64::new(1))
                .unwrap(),
        );
        let again = eval(
            net.training_logits(&input, &mut SplitMix64::new(1))
                .unwrap(),
        );
        let other = eval(
            net.training_logits(&input, &mut SplitMix64::new(2))
                .unwrap(),
        );
        assert_eq!(first, again);
        assert_ne!(first, other);
        assert_ne!(first, plain);
        assert_eq!(plain, eval(net.logits(&input).unwrap()));
    }

    #[test]
    fn a_checkpoint_gives_back_the_same_network() {
        let net = network(3, 2, &Device::Cpu);
        let tensors: HashMap<String, Tensor> = net.named_tensors().into_iter().collect();
        let settings = TrainingSettings {
            model: ModelKind::Slstm,
            slstm: SlstmSettings {
                steps: 3,
                window: 2,
            },
            ..TrainingSettings::DEFAULT
        };
        let loaded = Slstm::declare(
            Parameters::checkpoint(tensors.clone(), &Device::Cpu),
            N_LABELS,
            (N_WORDS, H),
            None,
            (&settings.slstm, settings.dropout()),
        )
        .unwrap();
        let input = batch(&[&[1, 2, 3], &[6]], &Device::Cpu);
        assert_eq!(
            net.logits(&input).unwrap().to_vec2::<f32>().unwrap(),
            loaded.logits(&input).unwrap().to_vec2::<f32>().unwrap()
        );
        // Another label count does not fit the weights.
        let wrong = Slstm::declare(
            Parameters::checkpoint(tensors, &Device::Cpu),
            N_LABELS + 1,
            (N_WORDS, H),
            None,
            (&settings.slstm, settings.dropout()),
        );
        assert!(wrong.is_err());
    }
}
