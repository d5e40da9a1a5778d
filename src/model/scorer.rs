//! Scoring one sentence at a time in plain loops, without tensors: what the language server
//! and `rulelens predict` need, where a batch of one through candle would spend most of its
//! time dispatching small operations.
//!
//! A [`Scorer`] copies a network's parameters out of its tensors once, precomputing the
//! parts of the token vectors that do not depend on the sentence (β·E_R for each symbol and
//! (1 − β)·E_w·G for each vocabulary word, so a token's z is one sum of two rows), and packs
//! D1 and D2ᵀ ([`PackedMatrix`]) so that both products of a step stream through memory in
//! order. It then computes exactly what [`Network::logits`] computes for a batch of that one
//! sentence (FA-RNN and FA-GRU, forward and Viterbi scoring, one or two directions, the
//! clamp on states and the soft-logic aggregation), up to floating-point rounding, which
//! `tests/scorer.rs` checks against the tensor path.

use super::aggregation::Aggregation;
use super::batch::Sentence;
use super::embeddings::Vocabulary;
use super::fa_rnn::{FaRnn, STATE_BOUND};
use super::gates::GATE_SLOPE;
use super::matmul::{PackedMatrix, View, matmul, padded, transposed};
use super::network::Network;
use super::settings::Scoring;
use crate::automata::{Alphabet, RuleSystem};
use crate::text::Tokens;
use candle_core::{Result, Tensor};
use std::fmt;

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
    states: usize,
    rank: usize,
    /// β·E_R [S, r].
    symbol_z: Vec<f32>,
    /// (1 − β)·E_w·G [V, r]; empty without word embeddings.
    word_z: Vec<f32>,
    /// D1 [K, r].
    d1: PackedMatrix,
    /// D2ᵀ [r, K].
    d2t: PackedMatrix,
    /// W [K, K], for Viterbi scoring.
    wildcard: Vec<f32>,
    /// W's nonzero entries (from, to, weight), for forward scoring.
    wildcard_edges: Vec<(usize, usize, f32)>,
    /// h₀ [K].
    start: Vec<f32>,
    /// α∞'s nonzero entries (state, pattern, weight).
    finals: Vec<(usize, usize, f32)>,
    n_patterns: usize,
    /// FA-GRU's update and reset gates.
    gates: Option<[PlainGate; 2]>,
    scoring: Scoring,
    aggregation: Aggregation,
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

    /// The label probabilities `softmax(scale · logits)`, `scale` being the logit scale the
    /// network was trained with.
    pub fn probabilities(&self, scale: f64) -> Vec<f64> {
        let scaled: Vec<f64> = self.logits.iter().map(|&l| scale * f64::from(l)).collect();
        let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exp: Vec<f64> = scaled.iter().map(|&l| (l - max).exp()).collect();
        let sum: f64 = exp.iter().sum();
        exp.iter().map(|e| e / sum).collect()
    }
}

/// The pattern scores of every span of a sentence up to a length, each span read as a
/// sentence of its own by the network's linear recurrence: Sun & Lu's n-gram representation
/// `v_{i:t}`, started fresh from h₀ at the span's first token (papers-brief §5, "Rust recipe
/// for span explanations"). The recurrence here has no state clamp and no gates, so with
/// forward scoring a span's score is exactly the sum over its accepting paths of the trained
/// transition weights; where the network's own states would have been clamped
/// ([`SpanScores::left_bound`]) or gated ([`SpanScores::gates_left_out`]), the span scores
/// are those of the linear FA-RNN underneath, not of the network itself. With two directions
/// the backward one reads each span right to left, and the two scores are averaged, as the
/// logits are.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanScores {
    pub n_tokens: usize,
    /// The longest span scored, in tokens.
    pub max_len: usize,
    pub n_patterns: usize,
    /// Span (start, len) at `(start·max_len + len − 1)·n_patterns`.
    scores: Vec<f32>,
    /// Whether some state of some span left [−STATE_BOUND, STATE_BOUND].
    pub left_bound: bool,
    /// Whether the network has FA-GRU gates, which the span recurrence leaves out.
    pub gates_left_out: bool,
}

impl SpanScores {
    /// The pattern scores of the span of `len` tokens from token `start`; `None` for an empty
    /// span, one past the sentence's end or one longer than [`SpanScores::max_len`].
    pub fn get(&self, start: usize, len: usize) -> Option<&[f32]> {
        if len == 0 || len > self.max_len || start + len > self.n_tokens {
            return None;
        }
        let at = (start * self.max_len + len - 1) * self.n_patterns;
        self.scores.get(at..at + self.n_patterns)
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
pub struct Scorer {
    alphabet: Alphabet,
    vocabulary: Option<Vocabulary>,
    directions: Vec<Direction>,
}

fn plain(tensor: &Tensor) -> Result<Vec<f32>> {
    tensor.flatten_all()?.to_vec1()
}

impl Direction {
    fn new(net: &FaRnn) -> Result<Direction> {
        let plain_net = net.plain()?;
        let (k, r) = (plain_net.n_states, plain_net.rank);
        let beta = net.beta().unwrap_or(1.0);
        let symbol_z: Vec<f32> = plain(net.symbol_embedding())?
            .into_iter()
            .map(|x| x * beta as f32)
            .collect();
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
                let gate = |g: &super::gates::Gate| -> Result<PlainGate> {
                    Ok(PlainGate {
                        state: PackedMatrix::new(&plain(g.state.as_tensor())?, k, k),
                        token: PackedMatrix::new(&plain(g.token.as_tensor())?, r, k),
                        bias: plain(g.bias.as_tensor())?,
                    })
                };
                Some([gate(&gates.update)?, gate(&gates.reset)?])
            }
            None => None,
        };
        let p = plain_net.n_patterns;
        Ok(Direction {
            states: k,
            rank: r,
            symbol_z,
            word_z,
            d2t: PackedMatrix::new(&transposed(&plain_net.d2, k, r), r, k),
            d1: PackedMatrix::new(&plain_net.d1, k, r),
            wildcard_edges: (0..k * k)
                .filter(|&e| plain_net.wildcard[e] != 0.0)
                .map(|e| (e / k, e % k, plain_net.wildcard[e]))
                .collect(),
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
    fn transition(&self, h: &[f32], z: &[f32], next: &mut [f32], work: &mut Work) {
        let (k, r) = (self.states, self.rank);
        match self.scoring {
            Scoring::Forward => {
                // next = ((h D1) ⊙ z) D2ᵀ + h W
                self.d1
                    .left_multiply(h, &mut work.u, false, &mut work.nonzero);
                for (u, &z) in work.u.iter_mut().zip(z) {
                    *u *= z;
                }
                self.d2t
                    .left_multiply(&work.u[..r], next, false, &mut work.nonzero);
                for &(from, to, weight) in &self.wildcard_edges {
                    next[to] += h[from] * weight;
                }
            }
            Scoring::Viterbi => {
                // next[j] = max_i h[i]·T[i, j], T = D1 diag(z) D2ᵀ + W; a zero h[i]
                // contributes 0 to the maximum without computing its row.
                next.fill(f32::NEG_INFINITY);
                let mut any_zero = false;
                for (i, &hi) in h.iter().enumerate() {
                    if hi == 0.0 {
                        any_zero = true;
                        continue;
                    }
                    self.d1.copy_row(i, &mut work.u);
                    for (u, &z) in work.u.iter_mut().zip(z) {
                        *u *= z;
                    }
                    let row = &mut work.row;
                    row[..k].copy_from_slice(&self.wildcard[i * k..(i + 1) * k]);
                    self.d2t
                        .left_multiply(&work.u[..r], row, true, &mut work.nonzero);
                    for (n, &t) in next[..k].iter_mut().zip(row.iter()) {
                        *n = n.max(hi * t);
                    }
                }
                if any_zero {
                    for n in next[..k].iter_mut() {
                        *n = n.max(0.0);
                    }
                }
            }
        }
    }

    /// The final state [K] after reading the tokens `(symbol, word)`.
    fn final_state(&self, tokens: impl Iterator<Item = (usize, usize)>) -> Vec<f32> {
        let k = self.states;
        let width = padded(k);
        let mut h = vec![0f32; width];
        h[..k].copy_from_slice(&self.start);
        let mut next = vec![0f32; width];
        let mut z = vec![0f32; self.rank];
        let mut work = Work::new(k, self.rank, self.gates.is_some());
        let bound = STATE_BOUND as f32;
        for (symbol, word) in tokens {
            self.token_vector(symbol, word, &mut z);
            match &self.gates {
                None => self.transition(&h[..k], &z, &mut next, &mut work),
                Some([update, reset]) => {
                    let mut gated = std::mem::take(&mut work.gated);
                    let mut nonzero = std::mem::take(&mut work.nonzero);
                    self.open(update, &h[..k], &z, &mut work.update, &mut nonzero);
                    self.open(reset, &h[..k], &z, &mut work.reset, &mut nonzero);
                    work.nonzero = nonzero;
                    // ĥ = (1 − r) ⊙ h₀ + r ⊙ h; h' = (1 − u) ⊙ h + u ⊙ step(ĥ).
                    for (((g, &r), &h0), &h) in
                        gated.iter_mut().zip(&work.reset).zip(&self.start).zip(&h)
                    {
                        *g = h0 * (1.0 - r) + h * r;
                    }
                    self.transition(&gated[..k], &z, &mut next, &mut work);
                    for ((n, &u), &h) in next.iter_mut().zip(&work.update).zip(&h) {
                        *n = h * (1.0 - u) + *n * u;
                    }
                    work.gated = gated;
                }
            }
            for x in &mut next[..k] {
                *x = x.clamp(-bound, bound);
            }
            std::mem::swap(&mut h, &mut next);
        }
        h.truncate(k);
        h
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

    /// Adds `weight` times the linear span scores of this direction to `out` (laid out as in
    /// [`SpanScores`]); the backward direction reads each span from its end. Returns whether a
    /// state left the clamp's bounds.
    fn add_span_scores(
        &self,
        ids: &[(usize, usize)],
        max_len: usize,
        backward: bool,
        weight: f32,
        out: &mut [f32],
    ) -> bool {
        let (k, p) = (self.states, self.n_patterns);
        let n = ids.len();
        let width = padded(k);
        let (mut h, mut next) = (vec![0f32; width], vec![0f32; width]);
        let mut z = vec![0f32; self.rank];
        let mut work = Work::new(k, self.rank, false);
        let bound = STATE_BOUND as f32;
        let mut left_bound = false;
        // The span starts where this direction starts reading it: its first token forward,
        // its last token backward.
        for anchor in 0..n {
            h[..k].copy_from_slice(&self.start);
            for len in 1..=max_len {
                let position = if backward {
                    match anchor.checked_sub(len - 1) {
                        Some(position) => position,
                        None => break,
                    }
                } else if anchor + len <= n {
                    anchor + len - 1
                } else {
                    break;
                };
                let (symbol, word) = ids[position];
                self.token_vector(symbol, word, &mut z);
                next.fill(0.0);
                self.transition(&h[..k], &z, &mut next, &mut work);
                left_bound |= next[..k].iter().any(|x| x.abs() > bound);
                std::mem::swap(&mut h, &mut next);
                let start = if backward { position } else { anchor };
                let at = (start * max_len + len - 1) * p;
                for (o, score) in out[at..at + p].iter_mut().zip(self.pattern_scores(&h)) {
                    *o += weight * score;
                }
            }
        }
        left_bound
    }

    fn pattern_scores(&self, h: &[f32]) -> Vec<f32> {
        let mut scores = vec![0f32; self.n_patterns];
        for &(state, pattern, weight) in &self.finals {
            scores[pattern] += h[state] * weight;
        }
        scores
    }
}

/// Scratch vectors of one sentence's steps.
struct Work {
    u: Vec<f32>,
    row: Vec<f32>,
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
            row: vec![0f32; padded(k)],
            update: vec![0f32; gate],
            reset: vec![0f32; gate],
            gated: vec![0f32; gate],
            nonzero: Vec::with_capacity(k.max(r)),
        }
    }
}

impl Scorer {
    /// A scorer computing what `net` computes. `system` is the rule system the network was
    /// built from (its alphabet turns tokens into symbols) and `vocabulary` the network's,
    /// with word embeddings.
    pub fn new(
        net: &dyn Network,
        system: &RuleSystem,
        vocabulary: Option<&Vocabulary>,
    ) -> Result<Scorer> {
        let directions = net
            .directions()
            .into_iter()
            .map(Direction::new)
            .collect::<Result<Vec<_>>>()?;
        for direction in &directions {
            if direction.symbol_z.len() != system.alphabet().len() * direction.rank {
                candle_core::bail!("the network's symbols are not the rule system's");
            }
            let words = vocabulary.map_or(0, Vocabulary::len);
            if !direction.word_z.is_empty() && direction.word_z.len() != words * direction.rank {
                candle_core::bail!("the network's word embedding is not the vocabulary's");
            }
        }
        Ok(Scorer {
            alphabet: system.alphabet().clone(),
            vocabulary: vocabulary.cloned(),
            directions,
        })
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

    /// The pattern scores of every span of `text` up to `max_len` tokens (see
    /// [`SpanScores`]). Costs about `n_tokens · max_len` network steps.
    pub fn span_scores(&self, text: &str, max_len: usize) -> SpanScores {
        let ids = self.ids(text);
        let n_patterns = self.directions.first().map_or(0, |d| d.n_patterns);
        let max_len = max_len.max(1);
        let mut scores = vec![0f32; ids.len() * max_len * n_patterns];
        let weight = 1.0 / self.directions.len().max(1) as f32;
        let mut left_bound = false;
        for (d, direction) in self.directions.iter().enumerate() {
            left_bound |= direction.add_span_scores(&ids, max_len, d > 0, weight, &mut scores);
        }
        SpanScores {
            n_tokens: ids.len(),
            max_len,
            n_patterns,
            scores,
            left_bound,
            gates_left_out: self.directions.iter().any(|d| d.gates.is_some()),
        }
    }

    /// The (symbol, vocabulary word) ids of `text`'s tokens.
    fn ids(&self, text: &str) -> Vec<(usize, usize)> {
        let mut tokens = Tokens::default();
        tokens.tokenize(text);
        tokens
            .iter()
            .map(|token| {
                let word = self.vocabulary.as_ref().map_or(0, |v| v.id(token.text));
                (self.alphabet.symbol(token).index(), word as usize)
            })
            .collect()
    }

    fn score_ids(&self, ids: &[(usize, usize)]) -> Scores {
        let mut logits: Vec<f32> = Vec::new();
        let mut pattern_scores = Vec::with_capacity(self.directions.len());
        for (d, direction) in self.directions.iter().enumerate() {
            let h = if d == 0 {
                direction.final_state(ids.iter().copied())
            } else {
                direction.final_state(ids.iter().rev().copied())
            };
            let scores = direction.pattern_scores(&h);
            let direction_logits = direction.aggregation.logits(&scores);
            if logits.is_empty() {
                logits = direction_logits;
            } else {
                for (l, x) in logits.iter_mut().zip(direction_logits) {
                    *l += x;
                }
            }
            pattern_scores.push(scores);
        }
        if self.directions.len() > 1 {
            let n = self.directions.len() as f32;
            for l in &mut logits {
                *l /= n;
            }
        }
        Scores {
            logits,
            pattern_scores,
        }
    }
}
