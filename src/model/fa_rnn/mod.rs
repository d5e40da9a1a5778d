//! FA-RNN: the weighted automaton of a rule system as a recurrent network (Jiang et al.
//! 2020, §3.2–3.3, eq. 5–7), on candle.
//!
//! Parameters (tensor names are the checkpoint format, see `models/README.md`):
//! `symbol_embedding` E_R [S, r], `d1` [K, r], `d2` [K, r], `wildcard` W [K, K], `start`
//! h₀ [1, K], `finals` α∞ [K, P], and with word embeddings `word_embedding` E_w [V, D] and
//! `g` G [D, r]. A token with symbol s and word w gets
//! `z = E_R[s] + (1−β)·E_w[w]·G` (no second term without word embeddings), G starting at
//! zero: the word-vector path is added to the rules' symbols, not mixed with them, so the
//! untrained network reads exactly the rules' symbols and predicts what the rules predict,
//! word vectors or not, and training opens the path (β weighs how fast). The paper mixes
//! `β·E_R[s] + (1−β)·E_w[w]·G` with G = pinv(E_w)·E_R; a matching rule of three literals
//! then scores about β³ ≈ 0.34 and loses to the default label (on TREC dev the untrained
//! network agreed with the rules on 90.6 % of the lines). One step:
//! - forward (sum-product): `h_t = ((h_{t−1} D1) ⊙ z) D2ᵀ + h_{t−1} W`;
//! - Viterbi (max-product): `h_t[j] = max_i h_{t−1}[i] · T(z)[i, j]` with
//!   `T(z) = D1 diag(z) D2ᵀ + W`.
//!
//! Free states ([`FaRnn::with_free_states`], the paper's K′; `--free-states`, 30 by
//! default): K′ states after the rules', which every state reads and writes through D1 and
//! D2 and which score no pattern, for what the rules do not say. Their rows of D1 start as
//! small noise and those of D2, W, h₀ and α∞ at zero: nothing writes them until training
//! moves D2, so the untrained network is the rules' (the paper's code starts D2's rows, W's
//! and the aggregation's as noise too, which is not exact). Forward scoring only.
//! Every step's state is clamped to [−[`STATE_BOUND`], `STATE_BOUND`] (exact in value,
//! leaking in gradient, `nn/leaky_clamp.rs`): on the rules' own network states are 0 or 1, so
//! the clamp changes nothing there, while a trained network's sum-product scores would
//! otherwise grow geometrically with sentence length (SMS messages run to 190 tokens) until
//! they overflow (the reference code cuts sentences at 30 tokens, papers-brief §1.12).
//! After the last token of each sentence, pattern scores `h_N α∞` go through the
//! aggregation layer. Padding is masked: a padded position leaves the state unchanged.
//! Labels of the train corpus that no rule names ([`RuleSystem::corpus_labels`]) get their
//! logits from the word-vector path alone: the sentence's mean word vector times
//! `corpus_labels.weight` U [D, C'] plus `corpus_labels.bias` [C'], U starting at zero and
//! the bias at [`CORPUS_LABEL_LOGIT`] (below the default and every label the rules make
//! true), so the untrained network still predicts what the rules predict and training
//! learns every label of the corpus.
//! With an exact decomposition the untrained network computes, on every sentence, exactly
//! the rule system's pattern matches, and so its predictions ("zero-shot").
//! On the CPU, FA-RNN's whole recurrence over a batch is one fused operation:
//! `recurrence.rs` for forward scoring, `viterbi_recurrence.rs` for Viterbi scoring. On
//! other devices it is a chain of tensor operations, one step per token
//! ([`FaRnn::final_states_unfused`]), as is FA-GRU, the FA-RNN step inside the update and
//! reset gates of `gates.rs`, on every device (its Viterbi step on the CPU the fused step of
//! `viterbi.rs`). Trainable by default, as in the paper: D1, D2, G and the gates (and the
//! corpus labels' U and bias); E_R, E_w, W, h₀, α∞ and the aggregation stay fixed. The
//! tensors are declared once, in [`declare`] (and the gates' in `gates.rs`), in a
//! [`Parameters`] store that makes them for a new network or takes them from a checkpoint.

pub(crate) mod bidirectional;
pub mod decompose;
pub(crate) mod ensemble;
pub(crate) mod gates;
pub(crate) mod recurrence;
pub(crate) mod scorer;
mod sparse_step;
pub(crate) mod viterbi;
pub(crate) mod viterbi_recurrence;
pub(crate) mod weighted;

use crate::automata::RuleSystem;
use crate::automata::{Alphabet, SymbolId};
use crate::model::aggregation::{Aggregation, DEFAULT_LOGIT};
use crate::model::fa_rnn::decompose::Decomposition;
use crate::model::fa_rnn::gates::Gates;
use crate::model::fa_rnn::recurrence::{Recurrence, STATE_BOUND};
use crate::model::fa_rnn::viterbi::ViterbiStep;
use crate::model::fa_rnn::viterbi_recurrence::ViterbiRecurrence;
use crate::model::fa_rnn::weighted::{WeightedAutomaton, pattern_blocks};
use crate::model::nn::batch::Batch;
use crate::model::nn::embeddings::{Vocabulary, WordVectors};
use crate::model::nn::fused::values;
use crate::model::nn::leaky_clamp::leaky_clamp;
use crate::model::nn::network::Network;
use crate::model::nn::parameters::{Init, Parameters, normal};
use crate::model::nn::rng::SplitMix64;
use crate::text::{TokenKind, tokenize};
use candle_core::{DType, Device, Result, Tensor, Var};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// The parameters of the recurrence as plain row-major vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainNetwork {
    pub n_states: usize,
    pub rank: usize,
    pub n_patterns: usize,
    /// [K, r]
    pub d1: Vec<f32>,
    /// [K, r]
    pub d2: Vec<f32>,
    /// [K, K]
    pub wildcard: Vec<f32>,
    /// [K]
    pub start: Vec<f32>,
    /// [K, P]
    pub finals: Vec<f32>,
    /// Each pattern's states, in order ([`pattern_blocks`]); the free states
    /// ([`FaRnn::with_free_states`]) follow the last block, up to K.
    pub blocks: Vec<Range<usize>>,
}

/// A token the network knows by name, or the stand-in for other tokens of a kind, with its
/// token vector z.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenVector {
    /// `None` for the stand-in of other tokens of `kind`.
    pub text: Option<String>,
    pub kind: TokenKind,
    /// Length r.
    pub z: Vec<f32>,
}

/// Word embeddings as a second input to the network.
#[derive(Debug, Clone)]
pub struct WordInput {
    pub vocabulary: Vocabulary,
    pub vectors: WordVectors,
    /// Weight of the rules' symbol embedding against the word embedding, in [0, 1].
    pub beta: f64,
}

#[derive(Debug, Clone)]
struct Words {
    embedding: Tensor,
    g: Tensor,
    beta: f64,
}

/// The checkpoint names of [`CorpusLabels`]' U and bias.
pub(crate) const CORPUS_LABEL_TENSORS: [&str; 2] = ["corpus_labels.weight", "corpus_labels.bias"];

/// The logits of the labels no rule names, from the sentence's mean word vector.
#[derive(Debug, Clone)]
struct CorpusLabels {
    /// U [D, C'].
    weight: Tensor,
    /// [C'].
    bias: Tensor,
}

/// An FA-RNN over a rule system's alphabet.
#[derive(Debug, Clone)]
pub struct FaRnn {
    /// Every tensor below, by checkpoint name, with the trainable set.
    parameters: Parameters,
    symbol_embedding: Tensor,
    d1: Tensor,
    d2: Tensor,
    words: Option<Words>,
    /// With labels no rule names (and then with word embeddings).
    corpus_labels: Option<CorpusLabels>,
    wildcard: Tensor,
    start: Tensor,
    finals: Tensor,
    /// The nonzero edges of `wildcard`, for the fused recurrence.
    wildcard_edges: Vec<(usize, usize)>,
    /// Each pattern's states ([`pattern_blocks`]): Viterbi scoring maximises inside them.
    /// The free states, if any, follow the last block.
    blocks: Arc<[Range<usize>]>,
    /// Per block, the nonzero edges of `wildcard` inside it, numbered from its first state.
    block_wildcard: Arc<[Vec<(usize, usize)>]>,
    /// FA-GRU's gates; `None` for FA-RNN.
    gates: Option<Gates>,
    aggregation: Aggregation,
    scoring: Scoring,
}

/// The sizes of an FA-RNN's tensors.
struct Dims {
    /// S symbols, K states, rank r, P patterns.
    symbols: usize,
    states: usize,
    rank: usize,
    patterns: usize,
    /// V words of D dimensions, with word embeddings.
    words: Option<(usize, usize)>,
    /// C' labels no rule names ([`RuleSystem::corpus_labels`]).
    corpus_labels: usize,
}

/// What a new network's tensors start as (row-major); a checkpoint brings its own.
struct Initial {
    symbol_embedding: Vec<f32>,
    d1: Vec<f32>,
    d2: Vec<f32>,
    /// E_w and G.
    words: Option<(Vec<f32>, Vec<f32>)>,
    wildcard: Vec<f32>,
    start: Vec<f32>,
    finals: Vec<f32>,
    /// U and the bias of the labels no rule names; `None`: their starting values.
    corpus_labels: Option<(Vec<f32>, Vec<f32>)>,
}

/// Declares an FA-RNN's tensors in `parameters` (named as in `models/README.md`; trainable:
/// D1, D2 and G) and builds the network: from `initial` when the store is fresh, from the
/// checkpoint's tensors, shapes checked, otherwise; with FA-GRU's gates when `gates` gives
/// their seed. `beta` is required with word embeddings.
fn declare(
    mut parameters: Parameters,
    system: &RuleSystem,
    dims: Dims,
    initial: Option<Initial>,
    beta: Option<f64>,
    gates: Option<u64>,
    scoring: Scoring,
) -> Result<FaRnn> {
    let Dims {
        symbols: s,
        states: k,
        rank: r,
        patterns: p,
        words,
        corpus_labels,
    } = dims;
    let (mut values, word_values, label_values) = match initial {
        Some(Initial {
            symbol_embedding,
            d1,
            d2,
            words,
            wildcard,
            start,
            finals,
            corpus_labels,
        }) => (
            Some([symbol_embedding, d1, d2, wildcard, start, finals]),
            words,
            corpus_labels,
        ),
        None => (None, None, None),
    };
    let (label_weight, label_bias) = match label_values {
        Some((weight, bias)) => (Init::Values(weight), Init::Values(bias)),
        None => (
            Init::Zeros,
            Init::Values(vec![CORPUS_LABEL_LOGIT as f32; corpus_labels]),
        ),
    };
    let mut next = |i: usize| match &mut values {
        Some(values) => Init::Values(std::mem::take(&mut values[i])),
        None => Init::Zeros,
    };
    let symbol_embedding = parameters.declare("symbol_embedding", &[s, r], next(0), false)?;
    let d1 = parameters.declare("d1", &[k, r], next(1), true)?;
    let d2 = parameters.declare("d2", &[k, r], next(2), true)?;
    let wildcard = parameters.declare("wildcard", &[k, k], next(3), false)?;
    let start = parameters.declare("start", &[1, k], next(4), false)?;
    let finals = parameters.declare("finals", &[k, p], next(5), false)?;
    let words = match words {
        Some((v, d)) => {
            let Some(beta) = beta else {
                candle_core::bail!("word embeddings without a beta");
            };
            let (embedding, g) = match word_values {
                Some((embedding, g)) => (Init::Values(embedding), Init::Values(g)),
                None => (Init::Zeros, Init::Zeros),
            };
            Some(Words {
                embedding: parameters.declare("word_embedding", &[v, d], embedding, false)?,
                g: parameters.declare("g", &[d, r], g, true)?,
                beta,
            })
        }
        None => None,
    };
    let corpus_labels = match (corpus_labels, &words) {
        (0, _) => None,
        (c, Some(words)) => Some(CorpusLabels {
            weight: parameters.declare(
                CORPUS_LABEL_TENSORS[0],
                &[words.embedding.dim(1)?, c],
                label_weight,
                true,
            )?,
            bias: parameters.declare(CORPUS_LABEL_TENSORS[1], &[c], label_bias, true)?,
        }),
        (_, None) => candle_core::bail!("labels no rule names are learned from word vectors"),
    };
    let gates = gates
        .map(|seed| Gates::declare(&mut parameters, k, r, seed))
        .transpose()?;
    parameters.finish()?;
    let dense: Vec<f32> = wildcard.flatten_all()?.to_vec1()?;
    let blocks = pattern_blocks(system);
    let wildcard_edges: Vec<(usize, usize)> = (0..k * k)
        .filter(|&e| dense[e] != 0.0)
        .map(|e| (e / k, e % k))
        .collect();
    if let Some(&(from, to)) = wildcard_edges.iter().find(|&&(from, to)| {
        let block = |state| blocks.partition_point(|b: &Range<usize>| b.end <= state);
        block(from) != block(to)
    }) {
        candle_core::bail!("the wildcard matrix has an edge between patterns, {from} → {to}");
    }
    Ok(FaRnn {
        parameters,
        symbol_embedding,
        d1,
        d2,
        words,
        corpus_labels,
        wildcard,
        start,
        finals,
        block_wildcard: per_block(&blocks, &wildcard_edges),
        blocks: blocks.into(),
        wildcard_edges,
        gates,
        aggregation: Aggregation::from_system(system),
        scoring,
    })
}

/// The standard deviation of the noise free states' rows of D1 start with
/// ([`FaRnn::with_free_states`]; the paper's code's `--random_noise`).
pub const FREE_STATE_NOISE: f64 = 1e-3;
/// The most free states a network may have: each is a row of D1 and D2 and of the K × K
/// matrices (a setting or a checkpoint beyond it is refused).
pub const MAX_FREE_STATES: usize = 1_024;
/// Keeps the free states' noise apart from the other draws from the seed (ALS, the gates).
const FREE_STATE_STREAM: u64 = 0xf4ee_5000_0000_0001;

/// The logit a label no rule names starts with, whatever the sentence: under the default
/// label's ([`DEFAULT_LOGIT`]) and every true label's, so that the untrained network
/// predicts what the rules predict, and close under the default's, so that training does
/// not first spend hundreds of steps raising it (at the logit scale 10, the label starts at
/// e⁻¹ of the default's odds).
pub const CORPUS_LABEL_LOGIT: f64 = DEFAULT_LOGIT - 0.1;

/// Which way a network reads a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    LeftToRight,
    RightToLeft,
}

/// How an FA-RNN combines the weights of the paths through its automaton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Sum over paths (the forward algorithm).
    Forward,
    /// Best path (max-product).
    Viterbi,
}

/// What a Viterbi step of the stepwise path reads beside the state: on the CPU, D1 and D2
/// side by side for the fused step ([`ViterbiStep`]); elsewhere, the mask that keeps the
/// dense product's maximum inside each block ([`FaRnn::between_blocks`]).
enum ViterbiInput {
    SideBySide(Tensor),
    BetweenBlocks(Tensor),
}

/// The edges inside each block, numbered from the block's first state (`edges` lie inside
/// blocks, which cover the states in order).
fn per_block(blocks: &[Range<usize>], edges: &[(usize, usize)]) -> Arc<[Vec<(usize, usize)>]> {
    let mut inside = vec![Vec::new(); blocks.len()];
    for &(from, to) in edges {
        let b = blocks.partition_point(|block| block.end <= from);
        if let Some(block) = blocks.get(b) {
            inside[b].push((from - block.start, to - block.start));
        }
    }
    inside.into()
}

/// A matrix's entries, row-major, in f32.
fn row_major(m: &DMatrix<f64>) -> Vec<f32> {
    // nalgebra is column-major.
    m.transpose().iter().map(|&x| x as f32).collect()
}

impl FaRnn {
    /// The untrained network of a rule system, from its automaton and a decomposition,
    /// with word embeddings if given.
    pub fn new(
        system: &RuleSystem,
        automaton: &WeightedAutomaton,
        decomposition: &Decomposition,
        words: Option<&WordInput>,
        scoring: Scoring,
        device: &Device,
    ) -> Result<FaRnn> {
        let symbol_factors = &decomposition.symbol_factors;
        let dims = Dims {
            symbols: symbol_factors.nrows(),
            states: automaton.n_states,
            rank: symbol_factors.ncols(),
            patterns: automaton.n_patterns(),
            words: words.map(|input| (input.vocabulary.len(), input.vectors.dim)),
            corpus_labels: system.corpus_labels().len(),
        };
        let initial = Initial {
            symbol_embedding: row_major(symbol_factors),
            d1: row_major(&decomposition.from_factors),
            d2: row_major(&decomposition.to_factors),
            // G starts at zero: the untrained network reads the rules' symbols alone.
            words: words.map(|input| {
                (
                    input.vectors.data.clone(),
                    vec![0.0; input.vectors.dim * symbol_factors.ncols()],
                )
            }),
            wildcard: automaton.wildcard.clone(),
            start: automaton.start.clone(),
            finals: automaton.finals.clone(),
            corpus_labels: None,
        };
        declare(
            Parameters::fresh(0, device),
            system,
            dims,
            Some(initial),
            words.map(|input| input.beta),
            None,
            scoring,
        )
    }

    /// This network with FA-GRU's gates, initialised (from `seed`) so that it still computes
    /// what it computed.
    pub fn with_gates(mut self, seed: u64) -> Result<FaRnn> {
        let (k, r) = self.d1.dims2()?;
        self.gates = Some(Gates::declare(&mut self.parameters, k, r, seed)?);
        Ok(self)
    }

    /// This network with `n` free states after the rules' states (the paper's K'): the
    /// new rows of D1 start at N(0, [`FREE_STATE_NOISE`]²) per entry, as the paper's code
    /// starts them (papers-brief §1.8), and those of D2, h₀, W and α∞ at 0. So nothing
    /// writes a free state until training moves D2, and the network still computes what it
    /// computed; a gradient reaches D2's rows at once, through D1's. `seed` draws the
    /// noise. Forward scoring only, and before the gates, which are sized by the states.
    pub fn with_free_states(self, system: &RuleSystem, n: usize, seed: u64) -> Result<FaRnn> {
        if n == 0 {
            return Ok(self);
        }
        if self.scoring != Scoring::Forward {
            candle_core::bail!("free states need forward scoring");
        }
        if self.gates.is_some() {
            candle_core::bail!("free states are added before the gates");
        }
        let (k, r) = self.d1.dims2()?;
        let p = self.finals.dim(1)?;
        let mut rng = SplitMix64::new(seed ^ FREE_STATE_STREAM);
        let noise = (0..n * r).map(|_| (normal(&mut rng) * FREE_STATE_NOISE) as f32);
        let mut wildcard = vec![0.0; (k + n) * (k + n)];
        for (row, entries) in values(&self.wildcard)?.chunks(k.max(1)).enumerate() {
            wildcard[row * (k + n)..row * (k + n) + k].copy_from_slice(entries);
        }
        let zeros = |count: usize| std::iter::repeat_n(0.0, count);
        let initial = Initial {
            symbol_embedding: values(&self.symbol_embedding)?,
            d1: values(&self.d1)?.into_iter().chain(noise).collect(),
            d2: values(&self.d2)?.into_iter().chain(zeros(n * r)).collect(),
            words: match &self.words {
                Some(words) => Some((values(&words.embedding)?, values(&words.g)?)),
                None => None,
            },
            wildcard,
            start: values(&self.start)?.into_iter().chain(zeros(n)).collect(),
            finals: values(&self.finals)?
                .into_iter()
                .chain(zeros(n * p))
                .collect(),
            corpus_labels: match &self.corpus_labels {
                Some(labels) => Some((values(&labels.weight)?, values(&labels.bias)?)),
                None => None,
            },
        };
        let dims = Dims {
            symbols: self.symbol_embedding.dim(0)?,
            states: k + n,
            rank: r,
            patterns: p,
            words: match &self.words {
                Some(words) => Some(words.embedding.dims2()?),
                None => None,
            },
            corpus_labels: system.corpus_labels().len(),
        };
        let beta = self.words.as_ref().map(|words| words.beta);
        let device = self.parameters.device().clone();
        declare(
            Parameters::fresh(seed, &device),
            system,
            dims,
            Some(initial),
            beta,
            None,
            self.scoring,
        )
    }

    /// The free states after the rules' ([`FaRnn::with_free_states`]).
    pub fn free_states(&self) -> usize {
        let k = self.d1.dims()[0];
        k - self.blocks.last().map_or(0, |block| block.end)
    }

    /// Whether the network is an FA-GRU.
    pub fn is_gated(&self) -> bool {
        self.gates.is_some()
    }

    /// The network's tensors by checkpoint name.
    pub fn tensors(&self) -> Vec<(String, Tensor)> {
        self.parameters.named_tensors()
    }

    /// The checkpoint names of [`FaRnn::trainable`]'s parameters, in the same order.
    pub fn trainable_names(&self) -> Vec<String> {
        self.parameters.trainable_names()
    }

    /// The trained parameters: D1, D2, with word embeddings G, and FA-GRU's gates.
    pub fn trainable(&self) -> Vec<Var> {
        self.parameters.trainable()
    }

    /// The corpus labels' U and bias ([`Network::head_parameters`]), when the network has
    /// labels no rule names.
    pub fn head(&self) -> Vec<Var> {
        CORPUS_LABEL_TENSORS
            .into_iter()
            .filter_map(|name| self.parameters.var(name))
            .collect()
    }

    /// A network from named tensors (a checkpoint's, see [`FaRnn::tensors`]), checked
    /// against the rule system it must belong to; `beta` is required with word embeddings.
    /// The rank, the word vectors' size and whether there are gates are the checkpoint's;
    /// every shape is then checked against the declaration.
    pub fn from_tensors(
        system: &RuleSystem,
        tensors: HashMap<String, Tensor>,
        scoring: Scoring,
        beta: Option<f64>,
    ) -> Result<FaRnn> {
        let dims_of = |name: &str| -> Result<Vec<usize>> {
            match tensors.get(name) {
                Some(tensor) => Ok(tensor.dims().to_vec()),
                None => candle_core::bail!("missing tensor `{name}`"),
            }
        };
        let symbol_dims = dims_of("symbol_embedding")?;
        let &[s, r] = symbol_dims.as_slice() else {
            candle_core::bail!("tensor `symbol_embedding` has shape {symbol_dims:?}, not 2 axes");
        };
        if s != system.alphabet().len() {
            candle_core::bail!(
                "the network has {s} symbols, the rules {}",
                system.alphabet().len()
            );
        }
        let k = dims_of("d1")?.first().copied().unwrap_or(0);
        let n_states = pattern_blocks(system).last().map_or(0, |block| block.end);
        let Some(free) = k.checked_sub(n_states) else {
            candle_core::bail!("the network has {k} states, the rules' automata {n_states}");
        };
        if free > MAX_FREE_STATES {
            candle_core::bail!("the network has {free} free states, more than {MAX_FREE_STATES}");
        }
        if free > 0 && scoring != Scoring::Forward {
            candle_core::bail!(
                "the network has {free} free states: free states need forward scoring"
            );
        }
        let words = match (
            tensors.contains_key("word_embedding"),
            tensors.contains_key("g"),
        ) {
            (true, true) => match dims_of("word_embedding")?.as_slice() {
                &[v, d] => Some((v, d)),
                other => {
                    candle_core::bail!("tensor `word_embedding` has shape {other:?}, not 2 axes")
                }
            },
            (false, false) => None,
            _ => candle_core::bail!("`word_embedding` and `g` come together"),
        };
        let gated = tensors.keys().any(|name| Gates::is_gate_tensor(name));
        let dims = Dims {
            symbols: s,
            states: k,
            rank: r,
            patterns: system.patterns().len(),
            words,
            corpus_labels: system.corpus_labels().len(),
        };
        let device = tensors
            .values()
            .next()
            .map_or(Device::Cpu, |tensor| tensor.device().clone());
        declare(
            Parameters::checkpoint(tensors, &device),
            system,
            dims,
            None,
            beta,
            gated.then_some(0),
            scoring,
        )
    }

    /// Plain copies of the parameters the recurrence uses, for explanations (no tensor
    /// leaves this module).
    pub fn plain(&self) -> Result<PlainNetwork> {
        let (n_states, rank) = self.d1.dims2()?;
        Ok(PlainNetwork {
            n_states,
            rank,
            n_patterns: self.finals.dim(1)?,
            d1: self.d1.flatten_all()?.to_vec1()?,
            d2: self.d2.flatten_all()?.to_vec1()?,
            wildcard: self.wildcard.flatten_all()?.to_vec1()?,
            start: self.start.flatten_all()?.to_vec1()?,
            finals: self.finals.flatten_all()?.to_vec1()?,
            blocks: self.blocks.to_vec(),
        })
    }

    /// The token vector z of each (symbol, vocabulary id) pair: [n × r], row-major.
    pub fn token_vectors_of(&self, tokens: &[(SymbolId, u32)]) -> Result<Vec<f32>> {
        let device = self.d1.device();
        let symbols: Vec<u32> = tokens.iter().map(|(s, _)| s.0).collect();
        let words: Vec<u32> = tokens.iter().map(|(_, w)| *w).collect();
        let batch = Batch {
            symbols: Tensor::from_vec(symbols, (tokens.len(), 1), device)?,
            words: Tensor::from_vec(words, (tokens.len(), 1), device)?,
            mask: Tensor::ones((tokens.len(), 1), DType::F32, device)?,
            lengths: vec![1; tokens.len()],
        };
        self.token_vectors(&batch)?.flatten_all()?.to_vec1()
    }

    /// The token vector z of every token the network knows by name (the vocabulary's
    /// words, or the rules' literals without word embeddings) and of a stand-in for other
    /// words, numbers and punctuation (`None`), each with its kind.
    pub fn known_token_vectors(
        &self,
        system: &RuleSystem,
        vocabulary: Option<&Vocabulary>,
    ) -> Result<Vec<TokenVector>> {
        let alphabet = system.alphabet();
        let mut tokens: Vec<(Option<String>, TokenKind, SymbolId, u32)> =
            [TokenKind::Word, TokenKind::Number, TokenKind::Punct]
                .into_iter()
                .map(|kind| (None, kind, Alphabet::other(kind), 0))
                .collect();
        match vocabulary {
            Some(vocabulary) => {
                for (id, word) in vocabulary.words().iter().enumerate().skip(1) {
                    let tokenized = tokenize(word);
                    if let (1, Some(token)) = (tokenized.len(), tokenized.get(0)) {
                        tokens.push((
                            Some(word.clone()),
                            token.kind,
                            alphabet.symbol(token),
                            id as u32,
                        ));
                    }
                }
            }
            None => {
                for symbol in alphabet.ids() {
                    if let Some(text) = alphabet.literal(symbol) {
                        tokens.push((Some(text.to_string()), alphabet.kind(symbol), symbol, 0));
                    }
                }
            }
        }
        let pairs: Vec<(SymbolId, u32)> = tokens.iter().map(|t| (t.2, t.3)).collect();
        let z = self.token_vectors_of(&pairs)?;
        let rank = self.rank();
        Ok(tokens
            .into_iter()
            .enumerate()
            .map(|(i, (text, kind, _, _))| TokenVector {
                text,
                kind,
                z: z[i * rank..(i + 1) * rank].to_vec(),
            })
            .collect())
    }

    /// E_R [S, r], for `scorer.rs`.
    pub(super) fn symbol_embedding(&self) -> &Tensor {
        &self.symbol_embedding
    }

    /// E_w [V, D] and G [D, r] with word embeddings, for `scorer.rs`.
    pub(super) fn word_parts(&self) -> Option<(&Tensor, &Tensor)> {
        self.words
            .as_ref()
            .map(|words| (&words.embedding, &words.g))
    }

    /// E_w [V, D], U [D, C'] and the bias [C'] of the labels no rule names, for `scorer.rs`.
    pub(super) fn corpus_label_parts(&self) -> Option<(&Tensor, &Tensor, &Tensor)> {
        let words = self.words.as_ref()?;
        let labels = self.corpus_labels.as_ref()?;
        Some((&words.embedding, &labels.weight, &labels.bias))
    }

    /// FA-GRU's gates, for `scorer.rs`.
    pub(super) fn gates(&self) -> Option<&Gates> {
        self.gates.as_ref()
    }

    /// The aggregation layer, for `scorer.rs`.
    pub(super) fn aggregation(&self) -> &Aggregation {
        &self.aggregation
    }

    /// What a training batch keeps per sentence and token, in bytes: measured on SMS
    /// (K = 239, r = 219), about 7.3·(K + r) floats with the fused forward recurrence, 17
    /// with the Viterbi step's chain of tensor operations and 106 with FA-GRU's gates;
    /// twice that here.
    pub fn training_bytes_per_token(&self) -> u64 {
        let (k, r) = (self.d1.dims()[0] as u64, self.d1.dims()[1] as u64);
        let floats = if self.gates.is_some() {
            200
        } else if self.scoring == Scoring::Forward && self.d1.device().is_cpu() {
            16
        } else {
            32
        };
        floats * (k + r) * 4
    }

    /// The scoring the network uses.
    pub fn scoring(&self) -> Scoring {
        self.scoring
    }

    /// β, when the network reads word embeddings.
    pub fn beta(&self) -> Option<f64> {
        self.words.as_ref().map(|words| words.beta)
    }

    /// The rank r of the decomposition.
    pub fn rank(&self) -> usize {
        self.d1.dims()[1]
    }

    /// The token vectors z [batch, len, r] of a batch.
    fn token_vectors(&self, batch: &Batch) -> Result<Tensor> {
        let (size, len) = batch.symbols.dims2()?;
        let rank = self.symbol_embedding.dim(1)?;
        let symbols = self
            .symbol_embedding
            .index_select(&batch.symbols.flatten_all()?, 0)?;
        let z = match &self.words {
            None => symbols,
            Some(words) => {
                let vectors = words
                    .embedding
                    .index_select(&batch.words.flatten_all()?, 0)?;
                let mapped = vectors.matmul(&words.g)?;
                (symbols + mapped.affine(1.0 - words.beta, 0.0)?)?
            }
        };
        z.reshape((size, len, rank))
    }

    /// The state after each sentence's last token: [batch, K]. FA-RNN on the CPU runs one
    /// fused operation for the batch (forward: [`Recurrence`]; Viterbi:
    /// [`ViterbiRecurrence`] where its pair products fit), everything else the stepwise
    /// path ([`FaRnn::final_states_unfused`]).
    pub fn final_states(&self, batch: &Batch) -> Result<Tensor> {
        let z = self.token_vectors(batch)?;
        let k = self.wildcard.dim(0)?;
        if k == 0 {
            // Rules without patterns: the state is empty, whatever the sentence.
            return Tensor::zeros((z.dim(0)?, 0), DType::F32, z.device());
        }
        if self.gates.is_none() && z.device().is_cpu() {
            let start = self.start.flatten_all()?.to_vec1()?;
            let lengths = batch.lengths.clone();
            match self.scoring {
                Scoring::Forward => {
                    let recurrence = Recurrence::new(start, self.wildcard_edges.clone(), lengths);
                    return z.apply_op3(&self.d1, &self.d2, recurrence);
                }
                Scoring::Viterbi if ViterbiRecurrence::fits(&self.blocks, self.rank()) => {
                    let recurrence =
                        ViterbiRecurrence::new(start, &self.blocks, &self.block_wildcard, lengths);
                    return z.apply_op3(&self.d1, &self.d2, recurrence);
                }
                Scoring::Viterbi => {}
            }
        }
        self.final_states_unfused(&z, &batch.mask)
    }

    /// [`FaRnn::final_states`] as a chain of tensor operations: `z` [batch, len, r],
    /// `mask` [batch, len].
    pub fn final_states_unfused(&self, z: &Tensor, mask: &Tensor) -> Result<Tensor> {
        // Viterbi: D1 and D2 side by side for the fused step on the CPU; elsewhere, the
        // dense product with −∞ between blocks.
        let viterbi = match self.scoring {
            Scoring::Forward => None,
            Scoring::Viterbi if z.device().is_cpu() => Some(ViterbiInput::SideBySide(Tensor::cat(
                &[&self.d1, &self.d2],
                1,
            )?)),
            Scoring::Viterbi => Some(ViterbiInput::BetweenBlocks(
                self.between_blocks(z.device())?,
            )),
        };
        self.final_states_stepwise(z, mask, viterbi.as_ref())
    }

    /// [`FaRnn::final_states_unfused`] with the Viterbi step's input given.
    fn final_states_stepwise(
        &self,
        z: &Tensor,
        mask: &Tensor,
        viterbi: Option<&ViterbiInput>,
    ) -> Result<Tensor> {
        let (batch, len, _) = z.dims3()?;
        let k = self.wildcard.dim(0)?;
        let mut h = self.start.broadcast_as((batch, k))?.contiguous()?;
        let (d1, d2t) = (&self.d1, self.d2.t()?);
        let start = h.clone();
        for t in 0..len {
            let z = z.narrow(1, t, 1)?.squeeze(1)?;
            let step = |h: &Tensor| -> Result<Tensor> {
                match viterbi {
                    None => {
                        let reduced = (h.matmul(d1)? * &z)?;
                        reduced.matmul(&d2t)? + h.matmul(&self.wildcard)?
                    }
                    Some(ViterbiInput::SideBySide(factors)) => h.contiguous()?.apply_op3(
                        &z.contiguous()?,
                        factors,
                        ViterbiStep::new(self.blocks.clone(), self.block_wildcard.clone()),
                    ),
                    Some(ViterbiInput::BetweenBlocks(between_blocks)) => {
                        // T[b] = D1 diag(z_b) D2ᵀ + W: [batch, K, K].
                        let scaled = d1.unsqueeze(0)?.broadcast_mul(&z.unsqueeze(1)?)?;
                        let d2t = d2t.unsqueeze(0)?.broadcast_as((batch, d2t.dim(0)?, k))?;
                        let transitions = scaled
                            .matmul(&d2t.contiguous()?)?
                            .broadcast_add(&self.wildcard.unsqueeze(0)?)?;
                        h.unsqueeze(2)?
                            .broadcast_mul(&transitions)?
                            .broadcast_add(between_blocks)?
                            .max(1)
                    }
                }
            };
            let next = match &self.gates {
                Some(gates) => gates.step(&h, &start, &z, step)?,
                None => step(&h)?,
            };
            let next = leaky_clamp(&next, -STATE_BOUND, STATE_BOUND)?;
            let m = mask.narrow(1, t, 1)?.to_dtype(DType::F32)?;
            h = (next.broadcast_mul(&m)? + h.broadcast_mul(&m.affine(-1.0, 1.0)?)?)?;
        }
        Ok(h)
    }

    /// [1, K, K]: 0 between two states of one pattern, −∞ elsewhere, so that a maximum over
    /// the dense product stays inside each pattern's block.
    fn between_blocks(&self, device: &Device) -> Result<Tensor> {
        let k = self.wildcard.dim(0)?;
        let mut mask = vec![f32::NEG_INFINITY; k * k];
        for block in self.blocks.iter() {
            for i in block.clone() {
                mask[i * k + block.start..i * k + block.end].fill(0.0);
            }
        }
        Tensor::from_vec(mask, (1, k, k), device)
    }

    /// Pattern scores [batch, n_patterns].
    pub fn pattern_scores(&self, batch: &Batch) -> Result<Tensor> {
        self.final_states(batch)?.matmul(&self.finals)
    }

    /// Label logits [batch, n_labels], labels in priority order: the aggregation's, and for
    /// the labels no rule names (last, their aggregation logits 0) the word-vector path's.
    pub fn forward(&self, batch: &Batch) -> Result<Tensor> {
        let logits = self.aggregation.forward(&self.pattern_scores(batch)?)?;
        let (Some(words), Some(labels)) = (&self.words, &self.corpus_labels) else {
            return Ok(logits);
        };
        let (size, len) = batch.words.dims2()?;
        let dim = words.embedding.dim(1)?;
        let vectors = words
            .embedding
            .index_select(&batch.words.flatten_all()?, 0)?
            .reshape((size, len, dim))?;
        let sums = vectors.broadcast_mul(&batch.mask.unsqueeze(2)?)?.sum(1)?;
        let inverse_lengths: Vec<f32> = batch
            .lengths
            .iter()
            .map(|&n| 1.0 / n.max(1) as f32)
            .collect();
        let means = sums.broadcast_mul(&Tensor::from_vec(
            inverse_lengths,
            (size, 1),
            sums.device(),
        )?)?;
        let path = means.matmul(&labels.weight)?.broadcast_add(&labels.bias)?;
        let named = logits.dim(1)? - path.dim(1)?;
        Tensor::cat(
            &[
                &logits.narrow(1, 0, named)?,
                &(logits.narrow(1, named, path.dim(1)?)? + path)?,
            ],
            1,
        )
    }
}

impl Network for FaRnn {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        self.forward(batch)
    }

    fn parameters(&self) -> Vec<Var> {
        self.trainable()
    }

    fn head_parameters(&self) -> Vec<Var> {
        self.head()
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

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::fa_rnn::decompose::{AlsConfig, als};

    const NETWORK_RULES: &str = "default ham\nspam: $* free $* ( call | txt ) $*\nham: $* hi % $*\nspam <- p & !q\npattern p = won &? $*\npattern q = $* \"!\"\n";

    /// `words` with three-dimensional word vectors of a fixed pattern, β 0.5.
    pub(crate) fn tiny_word_input(words: &[&str]) -> WordInput {
        let vocabulary = Vocabulary::new(words.iter().copied());
        let data = (0..vocabulary.len() * 3)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) / 5.0)
            .collect();
        let known = (0..vocabulary.len()).map(|id| id > 0).collect();
        WordInput {
            vocabulary,
            vectors: WordVectors {
                dim: 3,
                data,
                n_found: words.len(),
                n_backed_off: 0,
                known,
                sha256: String::new(),
            },
            beta: 0.5,
        }
    }

    /// A small network with dense (ALS) factors, so every entry matters.
    fn network() -> (FaRnn, Batch) {
        let text = NETWORK_RULES;
        let parse = crate::syntax::parse(text);
        let (rules, _) = crate::syntax::lower(&parse, text);
        let (system, _) = crate::automata::compile(&rules, &Default::default());
        let automaton = WeightedAutomaton::new(&system);
        let decomposition = als(&automaton, 4, &AlsConfig::default());
        // Word vectors too, so that gradients reach G through the recurrence.
        let words = tiny_word_input(&["free", "call", "now", "hi", "you", "won", "txt"]);
        let net = FaRnn::new(
            &system,
            &automaton,
            &decomposition,
            Some(&words),
            Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        // A generic point, as training leaves the network: G away from its zero start, so
        // that the word-vector path matters, and D1 and D2 off the rules' structured
        // factors, whose equal paths tie in Viterbi's maximum (where more than one
        // subgradient exists and the fused step and the dense product may take different
        // ones).
        let wave = |var: &Var, phase: f32, scale: f64| {
            let values = Tensor::arange(0f32, var.elem_count() as f32, &Device::Cpu)
                .unwrap()
                .affine(0.37, f64::from(phase))
                .unwrap()
                .sin()
                .unwrap()
                .affine(scale, 0.0)
                .unwrap()
                .reshape(var.shape())
                .unwrap();
            var.set(&(var.as_tensor() + values).unwrap()).unwrap();
        };
        let trainable = net.trainable();
        wave(&trainable[0], 0.0, 0.05);
        wave(&trainable[1], 1.0, 0.05);
        wave(&trainable[2], 2.0, 0.2);
        let texts = [
            "free call now",
            "hi 2 you!",
            "won , free txt",
            "",
            "a b c d e f free",
        ];
        let batch = Batch::from_texts(
            &system,
            Some(&words.vocabulary),
            &texts,
            crate::model::TrainingSettings::DEFAULT.max_sentence_tokens,
            &Device::Cpu,
        )
        .unwrap();
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
    fn an_untrained_fa_gru_computes_what_the_fa_rnn_computes() {
        let (net, batch) = network();
        let gru = net.clone().with_gates(5).unwrap();
        assert!(gru.is_gated() && !net.is_gated());
        let a = net.final_states(&batch).unwrap();
        let b = gru.final_states(&batch).unwrap();
        assert!(max_difference(&a, &b) < 1e-5, "{a}\n{b}");
        // The gates are parameters and come back from the tensors.
        assert_eq!(gru.trainable().len(), net.trainable().len() + 6);
        let tensors = gru
            .tensors()
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect();
        let system = {
            let text = NETWORK_RULES;
            let parse = crate::syntax::parse(text);
            let (rules, _) = crate::syntax::lower(&parse, text);
            crate::automata::compile(&rules, &Default::default()).0
        };
        let restored = FaRnn::from_tensors(&system, tensors, Scoring::Forward, Some(0.5)).unwrap();
        assert!(restored.is_gated());
        assert!(max_difference(&restored.final_states(&batch).unwrap(), &b) < 1e-6);
    }

    #[test]
    fn free_states_change_nothing_until_training_writes_them_and_training_reaches_them() {
        let (net, batch) = network();
        let system = {
            let parse = crate::syntax::parse(NETWORK_RULES);
            let (rules, _) = crate::syntax::lower(&parse, NETWORK_RULES);
            crate::automata::compile(&rules, &Default::default()).0
        };
        let free = net.clone().with_free_states(&system, 7, 3).unwrap();
        assert_eq!((net.free_states(), free.free_states()), (0, 7));
        let (k, r) = net.d1.dims2().unwrap();
        let states = free.final_states(&batch).unwrap();
        assert_eq!(
            max_difference(
                &states.narrow(1, 0, k).unwrap(),
                &net.final_states(&batch).unwrap()
            ),
            0.0
        );
        assert_eq!(
            max_difference(
                &states.narrow(1, k, 7).unwrap(),
                &states.zeros_like().unwrap().narrow(1, k, 7).unwrap()
            ),
            0.0
        );
        let logits = free.logits(&batch).unwrap();
        assert_eq!(max_difference(&logits, &net.logits(&batch).unwrap()), 0.0);
        // A gradient reaches D2's free rows (through D1's), so training can write them.
        let d2 = &free.trainable()[1];
        assert_eq!(d2.dims(), [k + 7, r]);
        let grads = logits.sqr().unwrap().sum_all().unwrap().backward().unwrap();
        let grad: Vec<f32> = grads
            .get(d2)
            .unwrap()
            .narrow(0, k, 7)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        assert!(grad.iter().any(|&g| g != 0.0));
        // A checkpoint keeps them; Viterbi scoring has none.
        let tensors: HashMap<String, Tensor> = free.tensors().into_iter().collect();
        let restored =
            FaRnn::from_tensors(&system, tensors.clone(), Scoring::Forward, Some(0.5)).unwrap();
        assert_eq!(restored.free_states(), 7);
        assert_eq!(
            max_difference(&restored.logits(&batch).unwrap(), &logits),
            0.0
        );
        let viterbi = FaRnn::from_tensors(&system, tensors, Scoring::Viterbi, Some(0.5));
        assert!(
            viterbi
                .unwrap_err()
                .to_string()
                .contains("free states need forward scoring")
        );
    }

    /// The fused recurrence's states and gradients equal the chain of tensor operations'.
    fn assert_fused_matches_unfused(net: &FaRnn, batch: &Batch) -> Tensor {
        assert_fused_matches(net, batch, |z| {
            net.final_states_unfused(z, &batch.mask).unwrap()
        })
    }

    /// The fused recurrence's states and gradients (w.r.t. D1, D2, E_R and G) equal those of
    /// `stepwise`, a chain of tensor operations from the token vectors to the final states.
    fn assert_fused_matches(
        net: &FaRnn,
        batch: &Batch,
        stepwise: impl Fn(&Tensor) -> Tensor,
    ) -> Tensor {
        let z = net.token_vectors(batch).unwrap();
        let fused = net.final_states(batch).unwrap();
        let unfused = stepwise(&z);
        assert!(
            max_difference(&fused, &unfused) < 1e-5,
            "{fused}\n{unfused}"
        );

        let weights = Tensor::arange(0f32, fused.elem_count() as f32, &Device::Cpu)
            .unwrap()
            .reshape(fused.shape())
            .unwrap()
            .affine(0.1, -0.3)
            .unwrap();
        let grads_fused = (&fused * &weights)
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
        let g = &net.words.as_ref().unwrap().g;
        for var in [&net.d1, &net.d2, &net.symbol_embedding, g] {
            let (a, b) = (
                grads_fused.get(var).unwrap(),
                grads_unfused.get(var).unwrap(),
            );
            assert!(max_difference(a, b) < 1e-4, "{a}\n{b}");
        }
        fused
    }

    #[test]
    fn fused_recurrence_matches_the_unfused_one_with_gradients() {
        let (net, batch) = network();
        assert_fused_matches_unfused(&net, &batch);
    }

    /// The fused Viterbi step's states and gradients equal those of the dense product masked
    /// between blocks (the path of other devices), on dense (ALS) factors whose products
    /// between blocks are not zero, with and without gates.
    #[test]
    fn fused_viterbi_step_matches_the_masked_dense_product_with_gradients() {
        for gated in [false, true] {
            let (mut net, batch) = network();
            net.scoring = Scoring::Viterbi;
            if gated {
                net = net.with_gates(3).unwrap();
            }
            let z = net.token_vectors(&batch).unwrap();
            let side_by_side =
                ViterbiInput::SideBySide(Tensor::cat(&[&net.d1, &net.d2], 1).unwrap());
            let masked = ViterbiInput::BetweenBlocks(net.between_blocks(&Device::Cpu).unwrap());
            let fused = net
                .final_states_stepwise(&z, &batch.mask, Some(&side_by_side))
                .unwrap();
            let dense = net
                .final_states_stepwise(&z, &batch.mask, Some(&masked))
                .unwrap();
            assert!(max_difference(&fused, &dense) < 1e-5, "{fused}\n{dense}");
            let weights = Tensor::arange(0f32, fused.elem_count() as f32, &Device::Cpu)
                .unwrap()
                .reshape(fused.shape())
                .unwrap()
                .affine(0.1, -0.3)
                .unwrap();
            let grads = |states: &Tensor| {
                (states * &weights)
                    .unwrap()
                    .sum_all()
                    .unwrap()
                    .backward()
                    .unwrap()
            };
            let (grads_fused, grads_dense) = (grads(&fused), grads(&dense));
            let g = &net.words.as_ref().unwrap().g;
            for var in [&net.d1, &net.d2, &net.symbol_embedding, g] {
                let (a, b) = (grads_fused.get(var).unwrap(), grads_dense.get(var).unwrap());
                assert!(max_difference(a, b) < 1e-4, "gated {gated}: {a}\n{b}");
            }
        }
    }

    /// The largest |h_t[i]| over the sentences, states and steps t ≥ 1 of a batch.
    fn largest_state(net: &FaRnn, batch: &Batch) -> f32 {
        let z = net.token_vectors(batch).unwrap();
        let len = z.dim(1).unwrap();
        (1..=len)
            .map(|t| {
                let (z, mask) = (
                    z.narrow(1, 0, t).unwrap(),
                    batch.mask.narrow(1, 0, t).unwrap(),
                );
                let states = net.final_states_unfused(&z, &mask).unwrap();
                states
                    .abs()
                    .unwrap()
                    .max_all()
                    .unwrap()
                    .to_scalar()
                    .unwrap()
            })
            .fold(0.0, f32::max)
    }

    /// The fused Viterbi recurrence's states and gradients equal those of the stepwise path
    /// with the fused step and with the dense product masked between blocks, on a batch with
    /// padding and an empty sentence. The point is generic: the factors are dense and off the
    /// rules' structured values (no ties in a maximum) and no state comes near the clamp's
    /// bound, where rounding would decide between the clamp's gradient and its leak.
    #[test]
    fn fused_viterbi_recurrence_matches_the_stepwise_paths_with_gradients() {
        let (mut net, batch) = network();
        net.scoring = Scoring::Viterbi;
        // The start states at 1 and their wildcard loops, of weight 1 + D1 z D2ᵀ, would keep
        // states at the bound.
        net.start = net.start.affine(0.25, 0.0).unwrap();
        let largest = largest_state(&net, &batch);
        assert!(largest < 0.9 * STATE_BOUND as f32, "{largest}");
        let side_by_side = ViterbiInput::SideBySide(Tensor::cat(&[&net.d1, &net.d2], 1).unwrap());
        let masked = ViterbiInput::BetweenBlocks(net.between_blocks(&Device::Cpu).unwrap());
        for input in [side_by_side, masked] {
            assert_fused_matches(&net, &batch, |z| {
                net.final_states_stepwise(z, &batch.mask, Some(&input))
                    .unwrap()
            });
        }
    }

    #[test]
    fn states_are_bounded_and_the_bound_is_the_same_in_both_recurrences() {
        for scoring in [Scoring::Forward, Scoring::Viterbi] {
            let (mut net, batch) = network();
            net.scoring = scoring;
            // Factors three times too large: unbounded, the states would grow as 9^t.
            // D1 and D2, the first trainable tensors.
            for var in &net.trainable()[..2] {
                var.set(&var.as_tensor().affine(3.0, 0.0).unwrap()).unwrap();
            }
            let states = assert_fused_matches_unfused(&net, &batch);
            let largest: f32 = states
                .abs()
                .unwrap()
                .max_all()
                .unwrap()
                .to_scalar()
                .unwrap();
            assert_eq!(largest, STATE_BOUND as f32, "{scoring:?}: {states}");
        }
    }
}
