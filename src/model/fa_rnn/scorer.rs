//! Scoring one sentence at a time in plain loops, without tensors: what the language server
//! and `rulelens predict` need, where a batch of one through candle would spend most of its
//! time dispatching small operations.
//!
//! A [`FaRnnScorer`] copies a network's parameters out of its tensors once, precomputing the
//! parts of the token vectors that do not depend on the sentence (E_R for each symbol and
//! (1 − β)·E_w·G for each vocabulary word, so a token's z is one sum of two rows), and packs
//! D1 and D2ᵀ ([`PackedMatrix`]) so that both products of a step stream through memory in
//! order. It then computes exactly what [`Network::logits`] computes for a batch of that one
//! sentence (FA-RNN and FA-GRU, forward and Viterbi scoring, one or two directions or an ensemble's, the
//! clamp on states and the soft-logic aggregation), up to floating-point rounding, which
//! `tests/scorer.rs` checks against the tensor path.
//!
//! A step multiplies the state by D1 only in the columns where the token vector z is not 0
//! (`sparse_step.rs`; z is wholly 0 for a word the rules do not name), so most steps cost a
//! few K-long dot products and the wildcard edges instead of a K × r product.
//!
//! [`FaRnnScorer::occlusions`] scores a sentence with each of its short spans deleted, for
//! explanations by occlusion (`explain::ngrams`): it keeps the state after every prefix, so
//! a deletion re-runs only the tokens after the span, and stops a re-run as soon as its
//! state equals the one the whole sentence had at that point. With word vectors every
//! token vector is dense, and the re-runs go side by side, a matrix of states through two
//! matrix products per token, instead of one state through two vector products per token
//! and span (2 to 3 times faster on SMS lines of 40 tokens and more: docs/performance.md).

use crate::automata::{Alphabet, RuleSystem};
use crate::model::aggregation::Aggregation;
use crate::model::fa_rnn::FaRnn;
use crate::model::fa_rnn::gates::GATE_SLOPE;
use crate::model::fa_rnn::recurrence::STATE_BOUND;
use crate::model::fa_rnn::sparse_step::{TokenInput, sparse_entries, sparse_product};
use crate::model::fa_rnn::{Reading, Scoring};
use crate::model::nn::batch::Sentence;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::matmul::{PackedMatrix, View, dot, matmul, padded, transposed};
use crate::model::nn::network::Network;
use crate::model::nn::ngrams::{NgramPart, NgramRegression, NgramSentence};
use crate::model::nn::probabilities::softmax;
use crate::text::Tokens;
use candle_core::{Result, Tensor};
use std::fmt;
use std::ops::Range;

/// How many times faster a multiply-add of the side-by-side re-runs' matrix products
/// ([`Direction::rerun_side_by_side`]) is than one of a single sentence's step, as
/// `occlusions_within` counts its budget (measured 3.1 to 3.8: docs/performance.md).
const SIDE_BY_SIDE_SPEEDUP: u64 = 3;

/// A step's fixed work (the token's vector, finding its nonzero entries, the loops'
/// overheads), in multiply-adds as `occlusions_within` counts them: on the development
/// machine a step costs about 0.72 µs plus its multiply-adds at 19.6 billion a second
/// (fitted to `score_text` on SMS with and without word vectors: 1.0 µs a token at about
/// 5,500 multiply-adds, 6.1 µs at 105,000; docs/performance.md), and 0.72 µs is 14,000 of
/// them.
const STEP_OVERHEAD: u64 = 14_000;

/// A Viterbi step's multiply-adds (a dot product per entry of T inside the patterns'
/// blocks) run at about half that rate (26 µs a token for 247,000 of them on SMS), so
/// `occlusions_within` counts each this many times.
const VITERBI_WEIGHT: u64 = 2;

/// The fewest re-runs [`Direction::rerun_side_by_side`] steps with matrix products: below
/// it, the products' packing of D1 and D2 costs more than the rows' arithmetic.
const SIDE_BY_SIDE_MIN_ROWS: usize = 12;

/// One gate's parameters: `σ(SLOPE·(h U + z V + b))`.
#[derive(Debug, Clone)]
struct PlainGate {
    /// U [K, K].
    state: PackedMatrix,
    /// V [r, K].
    token: PackedMatrix,
    /// b [K].
    bias: Vec<f32>,
}

/// One reading direction's parameters, as plain row-major vectors.
#[derive(Debug, Clone)]
struct Direction {
    /// Whether it reads the sentence right to left.
    backward: bool,
    states: usize,
    rank: usize,
    /// E_R [S, r].
    symbol_z: Vec<f32>,
    /// (1 − β)·E_w·G [V, r]; empty without word embeddings.
    word_z: Vec<f32>,
    /// D1 [K, r].
    d1: PackedMatrix,
    /// D1 [K, r], row-major: the right operand of the side-by-side re-runs' first product.
    d1_rows: Vec<f32>,
    /// D2ᵀ [r, K padded], row-major, zero in the padding: their second product's.
    d2t_padded: Vec<f32>,
    /// D1ᵀ [r, K], row-major: the columns of D1 a sparse token vector needs.
    d1t: Vec<f32>,
    /// D2ᵀ [r, K].
    d2t: PackedMatrix,
    /// D2ᵀ [r, K], row-major: the rows a sparse token vector needs.
    d2t_rows: Vec<f32>,
    /// W [K, K], for Viterbi scoring.
    wildcard: Vec<f32>,
    /// D2 [K, r], for Viterbi scoring.
    d2_rows: Vec<f32>,
    /// Each pattern's states: Viterbi scoring maximises inside them.
    blocks: Vec<std::ops::Range<usize>>,
    /// W's nonzero entries for forward scoring, as one gather and a list: each state's
    /// first edge in (from, weight), (0, 0) for a state without one; then the other edges
    /// (to, from, weight), in order of destination, then origin, so that each state sums
    /// its edges in order of origin (W, a DFA's moves on words the rules do not name, has
    /// few states with more than one edge in).
    wildcard_first: Vec<(u32, f32)>,
    wildcard_rest: Vec<(u32, u32, f32)>,
    /// h₀ [K].
    start: Vec<f32>,
    /// α∞'s nonzero entries (state, pattern, weight).
    finals: Vec<(usize, usize, f32)>,
    n_patterns: usize,
    /// FA-GRU's update and reset gates.
    gates: Option<[PlainGate; 2]>,
    scoring: Scoring,
    aggregation: Aggregation,
    /// The labels no rule names: their logits from the sentence's mean word vector.
    corpus_labels: Option<PlainCorpusLabels>,
}

/// The word-vector path of the labels no rule names, per vocabulary word.
#[derive(Debug, Clone)]
struct PlainCorpusLabels {
    /// E_w·U [V, C'].
    rows: Vec<f32>,
    /// [C'].
    bias: Vec<f32>,
}

impl PlainCorpusLabels {
    /// The logits of the labels no rule names for a sentence of `words` (vocabulary ids)
    /// without its tokens `deleted`: the kept words' mean row, plus the bias.
    fn logits(&self, words: &[usize], deleted: Range<usize>) -> Vec<f32> {
        let c = self.bias.len();
        let mut sum = vec![0f32; c];
        let mut n = 0usize;
        for (t, &w) in words.iter().enumerate() {
            if !deleted.contains(&t) {
                for (s, &x) in sum.iter_mut().zip(&self.rows[w * c..(w + 1) * c]) {
                    *s += x;
                }
                n += 1;
            }
        }
        let scale = 1.0 / n.max(1) as f32;
        sum.iter()
            .zip(&self.bias)
            .map(|(s, b)| s * scale + b)
            .collect()
    }
}

/// A network's scores for one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Label logits, labels in priority order (what [`Network::logits`] gives).
    pub logits: Vec<f32>,
    /// Pattern scores `h_N α∞` of each direction (left to right first), in pattern order.
    pub pattern_scores: Vec<Vec<f32>>,
}

impl Scores {
    /// The predicted label: the first of the largest logits (as `argmax` picks).
    pub fn prediction(&self) -> usize {
        let mut best = 0;
        for (c, &logit) in self.logits.iter().enumerate() {
            if logit > self.logits[best] {
                best = c;
            }
        }
        best
    }

    /// Pattern p's score, averaged over the directions (0 for a pattern the network does not
    /// have).
    pub fn pattern_score(&self, p: usize) -> f32 {
        let sum: f32 = self.pattern_scores.iter().filter_map(|s| s.get(p)).sum();
        sum / self.pattern_scores.len().max(1) as f32
    }

    /// The label probabilities `softmax(scale · logits)`, `scale` being the logit scale the
    /// network was trained with.
    pub fn probabilities(&self, scale: f64) -> Vec<f64> {
        softmax(&self.logits, scale)
    }
}

/// A sentence's scores, and its scores with each span of up to [`Occlusions::max_len`]
/// tokens deleted ([`FaRnnScorer::occlusions`]): what occlusion explanations measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Occlusions {
    pub n_tokens: usize,
    /// The longest span deleted, in tokens (0 when none was).
    pub max_len: usize,
    /// The whole sentence's scores (what [`FaRnnScorer::score_text`] gives).
    pub scores: Scores,
    /// The sentence without span (start, len) at `start·max_len + len − 1`; `None` past the
    /// sentence's end.
    deleted: Vec<Option<Scores>>,
}

impl Occlusions {
    /// The scores of the sentence without its tokens `start..start + len`; `None` for an
    /// empty span, one past the sentence's end or one longer than [`Occlusions::max_len`].
    pub fn without(&self, start: usize, len: usize) -> Option<&Scores> {
        if len == 0 || len > self.max_len || start + len > self.n_tokens {
            return None;
        }
        self.deleted.get(start * self.max_len + len - 1)?.as_ref()
    }

    /// Every deleted span (token indices) with the sentence's scores without it, in order of
    /// start, then length.
    pub fn spans(&self) -> impl Iterator<Item = (Range<usize>, &Scores)> {
        self.deleted.iter().enumerate().filter_map(|(i, scores)| {
            let (start, len) = (i / self.max_len, i % self.max_len + 1);
            Some((start..start + len, scores.as_ref()?))
        })
    }
}

/// A sentence whose ids do not belong to the scorer's rules or vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignSentence {
    pub position: usize,
}

impl fmt::Display for ForeignSentence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "token {} has a symbol or word id the network does not have",
            self.position
        )
    }
}

impl std::error::Error for ForeignSentence {}

/// Scores sentences one at a time with a network's parameters.
#[derive(Debug, Clone)]
pub struct FaRnnScorer {
    alphabet: Alphabet,
    vocabulary: Option<Vocabulary>,
    directions: Vec<Direction>,
    /// The n-gram regression whose logits are added to the directions' mean.
    ngrams: Option<NgramRegression>,
    /// The most tokens of a text read (the training setting `max_sentence_tokens`).
    max_tokens: usize,
}

fn plain(tensor: &Tensor) -> Result<Vec<f32>> {
    tensor.flatten_all()?.to_vec1()
}

impl Direction {
    fn new(net: &FaRnn, reading: Reading) -> Result<Direction> {
        let plain_net = net.plain()?;
        let (k, r) = (plain_net.n_states, plain_net.rank);
        let beta = net.beta().unwrap_or(1.0);
        let symbol_z = plain(net.symbol_embedding())?;
        let word_z = match net.word_parts() {
            Some((embedding, g)) => {
                let (v, d) = embedding.dims2()?;
                let (embedding, g) = (plain(embedding)?, plain(g)?);
                let mut word_z = vec![0f32; v * r];
                matmul(
                    &mut word_z,
                    View::row_major(&embedding, v, d),
                    View::row_major(&g, d, r),
                    false,
                );
                for x in &mut word_z {
                    *x *= (1.0 - beta) as f32;
                }
                word_z
            }
            None => Vec::new(),
        };
        let gates = match net.gates() {
            Some(gates) => {
                let gate = |g: &crate::model::fa_rnn::gates::Gate| -> Result<PlainGate> {
                    Ok(PlainGate {
                        state: PackedMatrix::new(&plain(&g.state)?, k, k),
                        token: PackedMatrix::new(&plain(&g.token)?, r, k),
                        bias: plain(&g.bias)?,
                    })
                };
                Some([gate(&gates.update)?, gate(&gates.reset)?])
            }
            None => None,
        };
        let p = plain_net.n_patterns;
        let d2t_rows = transposed(&plain_net.d2, k, r);
        let (mut wildcard_first, mut wildcard_rest) = (vec![(0, 0.0); k], Vec::new());
        for (to, first) in wildcard_first.iter_mut().enumerate() {
            let mut edges = (0..k)
                .map(|from| (from as u32, plain_net.wildcard[from * k + to]))
                .filter(|&(_, weight)| weight != 0.0);
            if let Some(edge) = edges.next() {
                *first = edge;
            }
            wildcard_rest.extend(edges.map(|(from, weight)| (to as u32, from, weight)));
        }
        Ok(Direction {
            backward: reading == Reading::RightToLeft,
            states: k,
            rank: r,
            symbol_z,
            word_z,
            d2t: PackedMatrix::new(&d2t_rows, r, k),
            d2t_padded: {
                let width = padded(k);
                let mut out = vec![0f32; r * width];
                for q in 0..r {
                    out[q * width..q * width + k].copy_from_slice(&d2t_rows[q * k..(q + 1) * k]);
                }
                out
            },
            d2t_rows,
            d2_rows: plain_net.d2,
            blocks: plain_net.blocks,
            d1: PackedMatrix::new(&plain_net.d1, k, r),
            d1t: transposed(&plain_net.d1, k, r),
            d1_rows: plain_net.d1,
            wildcard_first,
            wildcard_rest,
            wildcard: plain_net.wildcard,
            start: plain_net.start,
            finals: (0..k * p)
                .filter(|&e| plain_net.finals[e] != 0.0)
                .map(|e| (e / p, e % p, plain_net.finals[e]))
                .collect(),
            n_patterns: p,
            gates,
            scoring: net.scoring(),
            aggregation: net.aggregation().clone(),
            corpus_labels: match net.corpus_label_parts() {
                Some((embedding, weight, bias)) => {
                    let ((v, d), c) = (embedding.dims2()?, bias.dim(0)?);
                    let mut rows = vec![0f32; v * c];
                    matmul(
                        &mut rows,
                        View::row_major(&plain(embedding)?, v, d),
                        View::row_major(&plain(weight)?, d, c),
                        false,
                    );
                    Some(PlainCorpusLabels {
                        rows,
                        bias: plain(bias)?,
                    })
                }
                None => None,
            },
        })
    }

    /// Token t's vector z into `z`.
    fn token_vector(&self, symbol: usize, word: usize, z: &mut [f32]) {
        let r = self.rank;
        z.copy_from_slice(&self.symbol_z[symbol * r..(symbol + 1) * r]);
        if !self.word_z.is_empty() {
            for (z, &w) in z.iter_mut().zip(&self.word_z[word * r..(word + 1) * r]) {
                *z += w;
            }
        }
    }

    /// One FA-RNN step from `h` [K] into `next` [K padded], not yet clamped.
    fn transition(&self, h: &[f32], token: TokenInput, next: &mut [f32], work: &mut Work) {
        let (k, r, z) = (self.states, self.rank, token.z);
        match self.scoring {
            Scoring::Forward => {
                // next = ((h D1) ⊙ z) D2ᵀ + h W, with only the columns of h D1 and the rows
                // of D2ᵀ that z keeps when it keeps few (see the module doc).
                match token.sparse {
                    Some(active) => {
                        sparse_product(h, z, active, (&self.d1t, &self.d2t_rows), next);
                    }
                    None => {
                        self.d1
                            .left_multiply(h, &mut work.u, false, &mut work.nonzero);
                        for (u, &z) in work.u.iter_mut().zip(z) {
                            *u *= z;
                        }
                        self.d2t
                            .left_multiply(&work.u[..r], next, false, &mut work.nonzero);
                    }
                }
                self.add_wildcard_edges(h, next);
            }
            Scoring::Viterbi => {
                // next[j] = max h[i]·T[i, j] over the states i of j's pattern,
                // T = D1 diag(z) D2ᵀ + W (`viterbi.rs`); a zero h[i] contributes 0 to its
                // block's maxima without computing its row.
                next[..k].fill(f32::NEG_INFINITY);
                for block in &self.blocks {
                    let mut any_zero = false;
                    for i in block.clone() {
                        let hi = h[i];
                        if hi == 0.0 {
                            any_zero = true;
                            continue;
                        }
                        self.d1.copy_row(i, &mut work.u);
                        for (u, &z) in work.u.iter_mut().zip(z) {
                            *u *= z;
                        }
                        for j in block.clone() {
                            let d2 = &self.d2_rows[j * r..(j + 1) * r];
                            let t = dot(&work.u[..r], d2);
                            next[j] = next[j].max(hi * (t + self.wildcard[i * k + j]));
                        }
                    }
                    if any_zero {
                        for n in &mut next[block.clone()] {
                            *n = n.max(0.0);
                        }
                    }
                }
            }
        }
    }

    /// `next[..K] += h W`, W's edges as forward scoring lists them.
    fn add_wildcard_edges(&self, h: &[f32], next: &mut [f32]) {
        // A state without an edge in adds h[0]·0, which changes no sum.
        for (n, &(from, weight)) in next[..self.states].iter_mut().zip(&self.wildcard_first) {
            *n += h[from as usize] * weight;
        }
        for &(to, from, weight) in &self.wildcard_rest {
            next[to as usize] += h[from as usize] * weight;
        }
    }

    /// One step of the network, clamped: `next` [K padded] from `h` [K padded] and a token.
    fn step(&self, h: &[f32], token: TokenInput, next: &mut [f32], work: &mut Work) {
        let (k, z) = (self.states, token.z);
        match &self.gates {
            None => self.transition(&h[..k], token, next, work),
            Some([update, reset]) => {
                let mut gated = std::mem::take(&mut work.gated);
                let mut nonzero = std::mem::take(&mut work.nonzero);
                self.open(update, &h[..k], z, &mut work.update, &mut nonzero);
                self.open(reset, &h[..k], z, &mut work.reset, &mut nonzero);
                work.nonzero = nonzero;
                // ĥ = (1 − r) ⊙ h₀ + r ⊙ h; h' = (1 − u) ⊙ h + u ⊙ step(ĥ).
                for (((g, &r), &h0), &h) in
                    gated.iter_mut().zip(&work.reset).zip(&self.start).zip(h)
                {
                    *g = h0 * (1.0 - r) + h * r;
                }
                self.transition(&gated[..k], token, next, work);
                for ((n, &u), &h) in next.iter_mut().zip(&work.update).zip(h) {
                    *n = h * (1.0 - u) + *n * u;
                }
                work.gated = gated;
            }
        }
        clamp_state(&mut next[..k]);
    }

    /// The final state [K] after reading the tokens `(symbol, word)`.
    fn final_state(&self, tokens: impl Iterator<Item = (usize, usize)>) -> Vec<f32> {
        let k = self.states;
        let width = padded(k);
        let mut h = vec![0f32; width];
        h[..k].copy_from_slice(&self.start);
        let mut next = vec![0f32; width];
        let mut z = vec![0f32; self.rank];
        let mut active = Vec::with_capacity(self.rank);
        let mut work = Work::new(k, self.rank, self.gates.is_some());
        for (symbol, word) in tokens {
            self.token_vector(symbol, word, &mut z);
            let sparse = sparse_entries(&z, &mut active);
            let token = TokenInput {
                z: &z,
                sparse: sparse.then_some(&active),
            };
            self.step(&h, token, &mut next, &mut work);
            std::mem::swap(&mut h, &mut next);
        }
        h.truncate(k);
        h
    }

    /// The multiply-adds of a step reading each token of `ids`: the products (only the
    /// columns a sparse token vector keeps), the gates, the wildcard edges, the K states and
    /// [`STEP_OVERHEAD`]; and of a re-run's step of a deletion, where the products of
    /// re-runs side by side count at 1/[`SIDE_BY_SIDE_SPEEDUP`] of theirs (in time, what the
    /// budget stands for).
    fn step_costs(&self, ids: &[(usize, usize)]) -> Vec<(u64, u64)> {
        let (k, r) = (self.states as u64, self.rank as u64);
        let edges = (self.wildcard_first.len() + self.wildcard_rest.len()) as u64;
        // A Viterbi step: each state's row of D1 ⊙ z, then its block's entries of T.
        let viterbi = k * r
            + self
                .blocks
                .iter()
                .map(|block| (block.len() * block.len()) as u64 * (r + 1))
                .sum::<u64>();
        let gates = if self.gates.is_some() {
            2 * (k * k + r * k)
        } else {
            0
        };
        let mut z = vec![0f32; self.rank];
        let mut active = Vec::with_capacity(self.rank);
        ids.iter()
            .map(|&(symbol, word)| {
                self.token_vector(symbol, word, &mut z);
                let product = match self.scoring {
                    Scoring::Forward if sparse_entries(&z, &mut active) => {
                        2 * k * active.len() as u64
                    }
                    Scoring::Forward => 2 * k * r,
                    Scoring::Viterbi => VITERBI_WEIGHT * viterbi,
                };
                let rest = gates + edges + k + STEP_OVERHEAD;
                let rerun = if self.reruns_side_by_side() {
                    product / SIDE_BY_SIDE_SPEEDUP
                } else {
                    product
                };
                (product + rest, rerun + rest)
            })
            .collect()
    }

    /// Whether [`Direction::occluded`] re-runs its deletions side by side
    /// ([`Direction::rerun_side_by_side`]): forward scoring without gates, with word vectors,
    /// whose token vectors are dense, so that every step of a re-run is two K × r products
    /// (and with states: a network of a `default`-only file has none).
    /// Without word vectors most token vectors are sparse and a re-run soon meets the whole
    /// sentence's states again, which one re-run at a time exploits better.
    fn reruns_side_by_side(&self) -> bool {
        self.scoring == Scoring::Forward
            && self.gates.is_none()
            && !self.word_z.is_empty()
            && self.states > 0
    }

    /// The pattern scores after reading `ids` (in this direction's reading order), and
    /// `emit(start, len, scores)` for each span of up to `max_len` tokens (start in reading
    /// order): the pattern scores after reading `ids` without it. The state after each
    /// prefix is kept, so a deletion re-runs only the tokens after the span, and a re-run
    /// stops where its state equals the whole sentence's state at the same token: from there
    /// on it would repeat it.
    fn occluded(
        &self,
        ids: &[(usize, usize)],
        max_len: usize,
        mut emit: impl FnMut(usize, usize, Vec<f32>),
    ) -> Vec<f32> {
        let (k, r, n) = (self.states, self.rank, ids.len());
        let width = padded(k);
        let mut work = Work::new(k, r, self.gates.is_some());
        let mut z = vec![0f32; n * r];
        let mut active: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut sparse = vec![false; n];
        for (t, &(symbol, word)) in ids.iter().enumerate() {
            let z = &mut z[t * r..(t + 1) * r];
            self.token_vector(symbol, word, z);
            sparse[t] = sparse_entries(z, &mut active[t]);
        }
        let token = |t: usize| TokenInput {
            z: &z[t * r..(t + 1) * r],
            sparse: sparse[t].then_some(active[t].as_slice()),
        };
        // prefixes[t]: the state after the first t tokens.
        let mut prefixes = vec![0f32; (n + 1) * width];
        prefixes[..k].copy_from_slice(&self.start);
        for t in 0..n {
            let (before, after) = prefixes.split_at_mut((t + 1) * width);
            self.step(
                &before[t * width..],
                token(t),
                &mut after[..width],
                &mut work,
            );
        }
        let prefix = |t: usize| &prefixes[t * width..t * width + k];
        if self.reruns_side_by_side() {
            self.rerun_side_by_side(token, &prefixes, max_len, &mut work, &mut emit);
            return self.pattern_scores(prefix(n));
        }
        let (mut h, mut next) = (vec![0f32; width], vec![0f32; width]);
        for start in 0..n {
            for end in start + 1..=(start + max_len).min(n) {
                h.copy_from_slice(&prefixes[start * width..(start + 1) * width]);
                let mut t = end;
                while t < n && h[..k] != *prefix(t) {
                    self.step(&h, token(t), &mut next, &mut work);
                    std::mem::swap(&mut h, &mut next);
                    t += 1;
                }
                let last = if t < n { prefix(n) } else { &h[..k] };
                emit(start, end - start, self.pattern_scores(last));
            }
        }
        self.pattern_scores(prefix(n))
    }

    /// [`Direction::occluded`]'s re-runs side by side, for dense token vectors
    /// ([`Direction::reruns_side_by_side`]): before token t, every span that ends at t joins
    /// as a row of a state matrix H [B, K] holding the state before the span, and with
    /// [`SIDE_BY_SIDE_MIN_ROWS`] rows or more one step of every row is two matrix products,
    /// `((H D1) ⊙ z_t) D2ᵀ`, then the wildcard edges and the clamp, row by row (with fewer,
    /// each row takes [`Direction::step`]). One re-run at a time streams D1 and D2 from
    /// memory at every step of every span; side by side they are read once per token for
    /// all spans, and the products run at the matrix kernels' speed. A row leaves where its
    /// state equals the whole sentence's, as there. `prefixes` holds the state after each
    /// prefix of the sentence [n + 1, K padded].
    fn rerun_side_by_side<'a>(
        &self,
        token: impl Fn(usize) -> TokenInput<'a>,
        prefixes: &[f32],
        max_len: usize,
        work: &mut Work,
        emit: &mut dyn FnMut(usize, usize, Vec<f32>),
    ) {
        let (k, r) = (self.states, self.rank);
        let width = padded(k);
        let n = prefixes.len() / width - 1;
        let prefix = |t: usize| &prefixes[t * width..(t + 1) * width];
        // rows[i]: the span (start, len) whose re-run is row i of h [B, K padded].
        let mut rows: Vec<(usize, usize)> = Vec::new();
        let (mut h, mut u, mut next) = (Vec::new(), Vec::new(), Vec::new());
        for t in 0..n {
            for len in 1..=max_len.min(t) {
                rows.push((t - len, len));
                h.extend_from_slice(prefix(t - len));
            }
            let b = rows.len();
            next.resize(b * width, 0.0);
            if b < SIDE_BY_SIDE_MIN_ROWS {
                for (state, next) in h.chunks_exact(width).zip(next.chunks_exact_mut(width)) {
                    self.step(state, token(t), next, work);
                }
            } else {
                u.resize(b * r, 0.0);
                matmul(
                    &mut u,
                    View::strided(&h, b, k, width, 1),
                    View::row_major(&self.d1_rows, k, r),
                    false,
                );
                let z = token(t).z;
                for row in u.chunks_exact_mut(r) {
                    for (u, &z) in row.iter_mut().zip(z) {
                        *u *= z;
                    }
                }
                matmul(
                    &mut next,
                    View::row_major(&u, b, r),
                    View::row_major(&self.d2t_padded, r, width),
                    false,
                );
                for (state, next) in h.chunks_exact(width).zip(next.chunks_exact_mut(width)) {
                    self.add_wildcard_edges(state, next);
                    clamp_state(&mut next[..k]);
                }
            }
            std::mem::swap(&mut h, &mut next);
            let mut i = 0;
            while i < rows.len() {
                if h[i * width..i * width + k] == prefix(t + 1)[..k] {
                    let (start, len) = rows.swap_remove(i);
                    emit(start, len, self.pattern_scores(&prefix(n)[..k]));
                    let last = rows.len();
                    h.copy_within(last * width..(last + 1) * width, i * width);
                    h.truncate(last * width);
                } else {
                    i += 1;
                }
            }
        }
        for (&(start, len), state) in rows.iter().zip(h.chunks_exact(width)) {
            emit(start, len, self.pattern_scores(&state[..k]));
        }
        // The spans at the sentence's end: the sentence without one is its prefix.
        for len in 1..=max_len.min(n) {
            emit(n - len, len, self.pattern_scores(&prefix(n - len)[..k]));
        }
    }

    /// A gate's value σ(SLOPE·(h U + z V + b)) into `out` [K padded].
    fn open(
        &self,
        gate: &PlainGate,
        h: &[f32],
        z: &[f32],
        out: &mut [f32],
        nonzero: &mut Vec<usize>,
    ) {
        gate.state.left_multiply(h, out, false, nonzero);
        gate.token.left_multiply(z, out, true, nonzero);
        for (o, &b) in out.iter_mut().zip(&gate.bias) {
            let x = (*o + b) * GATE_SLOPE as f32;
            *o = 1.0 / (1.0 + (-x).exp());
        }
    }

    fn pattern_scores(&self, h: &[f32]) -> Vec<f32> {
        let mut scores = vec![0f32; self.n_patterns];
        for &(state, pattern, weight) in &self.finals {
            scores[pattern] += h[state] * weight;
        }
        scores
    }
}

/// The longest span length whose deletions cost at most `budget`, `costs` being
/// [`FaRnnScorer::deletion_costs`] (which grow with the length), or 0.
fn longest_within(costs: &[u64], budget: u64) -> usize {
    costs.iter().take_while(|&&cost| cost <= budget).count()
}

/// Clamps a state to [−[`STATE_BOUND`], `STATE_BOUND`], as every step does.
fn clamp_state(state: &mut [f32]) {
    let bound = STATE_BOUND as f32;
    for x in state {
        *x = x.clamp(-bound, bound);
    }
}

/// Scratch vectors of one sentence's steps.
struct Work {
    u: Vec<f32>,
    update: Vec<f32>,
    reset: Vec<f32>,
    gated: Vec<f32>,
    /// The rows a product does not skip.
    nonzero: Vec<usize>,
}

impl Work {
    fn new(k: usize, r: usize, gated: bool) -> Work {
        let gate = if gated { padded(k) } else { 0 };
        Work {
            u: vec![0f32; padded(r)],
            update: vec![0f32; gate],
            reset: vec![0f32; gate],
            gated: vec![0f32; gate],
            nonzero: Vec::with_capacity(k.max(r)),
        }
    }
}

impl FaRnnScorer {
    /// A scorer computing what `net` computes. `system` is the rule system the network was
    /// built from (its alphabet turns tokens into symbols) and `vocabulary` the network's,
    /// with word embeddings; a text is read up to its first `max_tokens` tokens.
    pub fn new(
        net: &dyn Network,
        system: &RuleSystem,
        vocabulary: Option<&Vocabulary>,
        max_tokens: usize,
    ) -> Result<FaRnnScorer> {
        let directions = net
            .directions()
            .into_iter()
            .map(|(net, reading)| Direction::new(net, reading))
            .collect::<Result<Vec<_>>>()?;
        if directions.is_empty() {
            candle_core::bail!("the plain-loop scorer scores the FA-RNN family, not SoPa");
        }
        for direction in &directions {
            if direction.symbol_z.len() != system.alphabet().len() * direction.rank {
                candle_core::bail!("the network's symbols are not the rule system's");
            }
            let words = vocabulary.map_or(0, Vocabulary::len);
            if !direction.word_z.is_empty() && direction.word_z.len() != words * direction.rank {
                candle_core::bail!("the network's word embedding is not the vocabulary's");
            }
        }
        Ok(FaRnnScorer {
            alphabet: system.alphabet().clone(),
            vocabulary: vocabulary.cloned(),
            directions,
            ngrams: net.ngram_regression().cloned(),
            max_tokens,
        })
    }

    /// Whether an n-gram regression adds to the logits.
    pub fn has_ngram_regression(&self) -> bool {
        self.ngrams.is_some()
    }

    /// The n-gram regression's part of label `label`'s logit of `text`: its bias, and one
    /// part per n-gram of the text that train had, with the tokens where it first occurs
    /// ([`NgramRegression::parts`]); `None` without a regression.
    pub fn ngram_parts(&self, text: &str, label: usize) -> Option<(f32, Vec<NgramPart>)> {
        let ngrams = self.ngrams.as_ref()?;
        let words: Vec<u32> = self.ids(text).iter().map(|&(_, w)| w as u32).collect();
        Some((ngrams.bias(label), ngrams.parts(&words, label)))
    }

    /// Tokenizes `text` and scores it.
    pub fn score_text(&self, text: &str) -> Scores {
        self.score_ids(&self.ids(text))
    }

    /// Scores a sentence built with this scorer's rule system and vocabulary.
    pub fn score(&self, sentence: &Sentence) -> std::result::Result<Scores, ForeignSentence> {
        let words = self.vocabulary.as_ref().map_or(1, Vocabulary::len);
        let ids: Vec<(usize, usize)> = sentence
            .symbols
            .iter()
            .zip(&sentence.words)
            .map(|(s, &w)| (s.index(), w as usize))
            .collect();
        if let Some(position) = ids
            .iter()
            .position(|&(s, w)| s >= self.alphabet.len() || w >= words)
        {
            return Err(ForeignSentence { position });
        }
        Ok(self.score_ids(&ids))
    }

    /// The scores of `text`, and of `text` with each span of up to `max_len` tokens deleted
    /// (its tokens left out, the others read in order; see [`Occlusions`]). Costs at most
    /// `n_tokens · (max_len + 1) · n_tokens / 2` network steps per direction, fewer where a
    /// deletion stops mattering.
    pub fn occlusions(&self, text: &str, max_len: usize) -> Occlusions {
        self.occlude(&self.ids(text), max_len.max(1))
    }

    /// [`FaRnnScorer::occlusions`] with spans as long as `budget` allows: of the lengths up to
    /// `max_len`, the longest whose deletions cost at most `budget` multiply-adds (an upper
    /// bound, counted per step as the step's products, its wildcard edges and its K states);
    /// no span at all ([`Occlusions::max_len`] 0) when deleting single tokens costs more.
    pub fn occlusions_within(&self, text: &str, max_len: usize, budget: u64) -> Occlusions {
        let ids = self.ids(text);
        let max_len = self.span_len_within(&ids, max_len, budget);
        self.occlude(&ids, max_len)
    }

    /// For each of `budgets`, the longest span [`FaRnnScorer::occlusions_within`] would
    /// delete from `text` within it (0 when none), without deleting any: a walk over the
    /// tokens.
    pub fn ngram_lens_within(&self, text: &str, max_len: usize, budgets: &[u64]) -> Vec<usize> {
        let costs = self.deletion_costs(&self.ids(text), max_len);
        budgets
            .iter()
            .map(|&budget| longest_within(&costs, budget))
            .collect()
    }

    /// Of the span lengths up to `max_len`, the longest whose deletions from the sentence
    /// `ids` cost at most `budget` (see [`FaRnnScorer::occlusions_within`]), or 0.
    fn span_len_within(&self, ids: &[(usize, usize)], max_len: usize, budget: u64) -> usize {
        longest_within(&self.deletion_costs(ids, max_len), budget)
    }

    /// What scoring the sentence `ids` and deleting each of its spans of up to `len` tokens
    /// costs, for `len` in `1..=max_len`, in multiply-adds (an upper bound; see
    /// [`FaRnnScorer::occlusions_within`]).
    fn deletion_costs(&self, ids: &[(usize, usize)], max_len: usize) -> Vec<u64> {
        let mut total = vec![0u64; max_len];
        for direction in &self.directions {
            let mut costs = direction.step_costs(ids);
            if direction.backward {
                costs.reverse();
            }
            // after[i]: re-running the tokens from i on; a span ending at `end` re-runs the
            // tokens from `end` on.
            let mut after = vec![0u64; costs.len() + 1];
            for i in (0..costs.len()).rev() {
                after[i] = after[i + 1] + costs[i].1;
            }
            let mut cost: u64 = costs.iter().map(|c| c.0).sum();
            for (len, total) in (1..=max_len).zip(&mut total) {
                if len <= costs.len() {
                    cost += after[len..].iter().sum::<u64>();
                }
                *total += cost;
            }
        }
        total
    }

    fn occlude(&self, ids: &[(usize, usize)], max_len: usize) -> Occlusions {
        let n = ids.len();
        let words: Vec<u32> = ids.iter().map(|&(_, w)| w as u32).collect();
        let ngrams = self.ngrams.as_ref().map(|ngrams| ngrams.sentence(&words));
        // Per span, each direction's pattern scores, directions in order.
        let mut deleted: Vec<Vec<Vec<f32>>> = vec![Vec::new(); n * max_len];
        let mut whole = Vec::with_capacity(self.directions.len());
        for direction in &self.directions {
            let backward = direction.backward;
            let reading: Vec<(usize, usize)> = if backward {
                ids.iter().rev().copied().collect()
            } else {
                ids.to_vec()
            };
            whole.push(direction.occluded(&reading, max_len, |start, len, scores| {
                let start = if backward { n - start - len } else { start };
                deleted[start * max_len + len - 1].push(scores);
            }));
        }
        Occlusions {
            n_tokens: n,
            max_len,
            // The whole sentence as `score_text` scores it, to the last bit.
            scores: self.combine(whole, ids, 0..0, None),
            deleted: deleted
                .into_iter()
                .enumerate()
                .map(|(i, scores)| {
                    let (start, len) = (i / max_len, i % max_len + 1);
                    (!scores.is_empty())
                        .then(|| self.combine(scores, ids, start..start + len, ngrams.as_ref()))
                })
                .collect(),
        }
    }

    /// The (symbol, vocabulary word) ids of `text`'s tokens.
    fn ids(&self, text: &str) -> Vec<(usize, usize)> {
        let mut tokens = Tokens::default();
        tokens.tokenize(text);
        tokens
            .iter()
            .take(self.max_tokens)
            .map(|token| {
                let word = self.vocabulary.as_ref().map_or(0, |v| v.id(token.text));
                (self.alphabet.symbol(token).index(), word as usize)
            })
            .collect()
    }

    fn score_ids(&self, ids: &[(usize, usize)]) -> Scores {
        let finals = self.directions.iter().map(|direction| {
            let h = if direction.backward {
                direction.final_state(ids.iter().rev().copied())
            } else {
                direction.final_state(ids.iter().copied())
            };
            direction.pattern_scores(&h)
        });
        self.combine(finals.collect(), ids, 0..0, None)
    }

    /// The scores from each direction's pattern scores for the sentence `ids` without its
    /// tokens `deleted`: each direction's logits (the aggregation's, and the word-vector
    /// path's for the labels no rule names), averaged, plus the n-gram regression's (from
    /// `prepared`, the sentence's n-grams, where the caller deletes many spans of it).
    fn combine(
        &self,
        pattern_scores: Vec<Vec<f32>>,
        ids: &[(usize, usize)],
        deleted: Range<usize>,
        prepared: Option<&NgramSentence>,
    ) -> Scores {
        let words: Vec<usize> = ids.iter().map(|&(_, w)| w).collect();
        let mut logits: Vec<f32> = Vec::new();
        for (direction, scores) in self.directions.iter().zip(&pattern_scores) {
            let mut direction_logits = direction.aggregation.logits(scores);
            if let Some(labels) = &direction.corpus_labels {
                let path = labels.logits(&words, deleted.clone());
                let named = direction_logits.len() - path.len();
                for (l, x) in direction_logits[named..].iter_mut().zip(path) {
                    *l += x;
                }
            }
            if logits.is_empty() {
                logits = direction_logits;
            } else {
                for (l, x) in logits.iter_mut().zip(direction_logits) {
                    *l += x;
                }
            }
        }
        if self.directions.len() > 1 {
            let n = self.directions.len() as f32;
            for l in &mut logits {
                *l /= n;
            }
        }
        let added = match (prepared, &self.ngrams) {
            (Some(sentence), _) => Some(sentence.logits(deleted)),
            (None, Some(ngrams)) => {
                let words: Vec<u32> = words.iter().map(|&w| w as u32).collect();
                Some(ngrams.logits(&words, deleted))
            }
            (None, None) => None,
        };
        for (l, x) in logits.iter_mut().zip(added.into_iter().flatten()) {
            *l += x;
        }
        Scores {
            logits,
            pattern_scores,
        }
    }
}
