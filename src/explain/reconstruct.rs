//! Reading a trained FA-RNN back as regular expressions (Jiang et al. 2020, §3.4, eq. 9).
//!
//! For every token of the vocabulary (and one stand-in each for words, numbers and
//! punctuation the vocabulary does not have), the network's transition matrix is rebuilt
//! from its factors, `T̂(x) = W + Σ_r z_x[r]·D1[·,r]·D2[·,r]ᵀ`, and an edge i → j is kept
//! for the tokens with `T̂(x)[i, j] > threshold`. Each pattern's block of states, with its
//! start and accepting states, becomes an automaton whose edges carry token sets; an edge
//! taken by the stand-in for other words is written `$`, as is a set of more than
//! `max_listed` literals (both over-approximate: the regex accepts at least what the
//! network does on that edge); otherwise the set is written `( a | b )`, `%` and `&`
//! standing for other numbers and punctuation. State elimination then gives the regex.
//! Edges between different patterns' blocks, which training can create, are left out: each
//! pattern is read back on its own.

use super::state_elimination::{LabeledAutomaton, LiteralAtom, TokenSet, to_regex};
use crate::model::{PlainNetwork, TokenVector, times_transposed};
use crate::syntax::ast::Regex;
use crate::syntax::{PatternId, print_regex};
use crate::text::TokenKind;
use std::ops::Range;

/// Default for [`ReconstructConfig::threshold`].
pub const DEFAULT_THRESHOLD: f32 = 0.5;
/// Default for [`ReconstructConfig::max_listed`].
pub const DEFAULT_MAX_LISTED: usize = 20;

/// Settings of [`reconstruct`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReconstructConfig {
    /// γ: a transition weight above it is an edge. Default [`DEFAULT_THRESHOLD`].
    pub threshold: f32,
    /// The most literals an edge lists before it is written `$`. Default
    /// [`DEFAULT_MAX_LISTED`].
    pub max_listed: usize,
}

impl Default for ReconstructConfig {
    fn default() -> ReconstructConfig {
        ReconstructConfig {
            threshold: DEFAULT_THRESHOLD,
            max_listed: DEFAULT_MAX_LISTED,
        }
    }
}

/// One pattern read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Reconstruction {
    pub pattern: PatternId,
    /// `None` when the thresholded automaton accepts nothing.
    pub regex: Option<Regex>,
}

impl Reconstruction {
    /// The regex in `.rules` syntax; `None` for a pattern that accepts nothing, which the
    /// syntax cannot spell (see [`super::rewrite_rules`]).
    pub fn text(&self) -> Option<String> {
        self.regex.as_ref().map(print_regex)
    }
}

/// Reads every pattern back from the network. `pattern_states[p]` is pattern p's block of
/// states (see `model::WeightedAutomaton::pattern_states`).
pub fn reconstruct(
    network: &PlainNetwork,
    pattern_states: &[Range<usize>],
    tokens: &[TokenVector],
    config: &ReconstructConfig,
) -> Vec<Reconstruction> {
    reconstruct_at(
        network,
        pattern_states,
        tokens,
        &[config.threshold],
        config.max_listed,
    )
    .pop()
    .unwrap_or_default()
}

/// State pairs whose transition weights one matrix product computes: it bounds the
/// product's output at tokens × this many floats (10 MB for 10,000 tokens).
const PAIRS_PER_PRODUCT: usize = 256;

/// [`reconstruct`] at each of `thresholds` (one list of patterns per threshold, in order),
/// at the cost of one: every transition weight is computed once.
pub fn reconstruct_at(
    network: &PlainNetwork,
    pattern_states: &[Range<usize>],
    tokens: &[TokenVector],
    thresholds: &[f32],
    max_listed: usize,
) -> Vec<Vec<Reconstruction>> {
    let (k, r, p_count) = (network.n_states, network.rank, network.n_patterns);
    let mut out = vec![Vec::with_capacity(pattern_states.len()); thresholds.len()];
    // Every token's z, [tokens, r].
    let z: Vec<f32> = tokens
        .iter()
        .flat_map(|token| token.z.iter().copied())
        .collect();
    for (p, block) in pattern_states.iter().enumerate() {
        let n = block.len();
        let empty = LabeledAutomaton {
            n_states: n,
            start: block
                .clone()
                .position(|s| network.start[s] > 0.5)
                .unwrap_or(n),
            finals: block
                .clone()
                .enumerate()
                .filter(|&(_, s)| network.finals[s * p_count + p] > 0.5)
                .map(|(local, _)| local)
                .collect(),
            edges: Default::default(),
        };
        let mut automata = vec![empty; thresholds.len()];
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|li| (0..n).map(move |lj| (li, lj)))
            .collect();
        for chunk in pairs.chunks(PAIRS_PER_PRODUCT) {
            // Each pair's rank weights D1[i] ⊙ D2[j], then every token's weight on every
            // pair of the chunk in one product: [tokens, r] · [pairs, r]ᵀ.
            let mut weights = Vec::with_capacity(chunk.len() * r);
            for &(li, lj) in chunk {
                let (i, j) = (block.start + li, block.start + lj);
                weights.extend((0..r).map(|q| network.d1[i * r + q] * network.d2[j * r + q]));
            }
            let products = times_transposed(&z, &weights, tokens.len(), r, chunk.len());
            for (c, &(li, lj)) in chunk.iter().enumerate() {
                let base = network.wildcard[(block.start + li) * k + block.start + lj];
                let mut sets = vec![(TokenSet::default(), 0usize); thresholds.len()];
                for (t, token) in tokens.iter().enumerate() {
                    let value = base + products[t * chunk.len() + c];
                    for (&threshold, (set, n_literals)) in thresholds.iter().zip(&mut sets) {
                        if value <= threshold {
                            continue;
                        }
                        match (&token.text, token.kind) {
                            (None, TokenKind::Word) => set.any = true,
                            (None, TokenKind::Number) => set.numbers = true,
                            (None, TokenKind::Punct) => set.punctuation = true,
                            // Past `max_listed` the edge is `$`: only the count matters.
                            (Some(_), _) if *n_literals >= max_listed => *n_literals += 1,
                            (Some(text), TokenKind::Punct) => {
                                *n_literals += 1;
                                set.literals.insert(LiteralAtom::Punct(text.clone()));
                            }
                            (Some(text), _) => {
                                *n_literals += 1;
                                set.literals.insert(LiteralAtom::Word(text.clone()));
                            }
                        }
                    }
                }
                for ((mut set, n_literals), automaton) in sets.into_iter().zip(&mut automata) {
                    if n_literals > max_listed {
                        set.any = true;
                    }
                    if set.any {
                        set.literals.clear();
                        set.numbers = false;
                        set.punctuation = false;
                    }
                    if set != TokenSet::default() {
                        automaton.edges.insert((li, lj), set);
                    }
                }
            }
        }
        for (automaton, read) in automata.iter().zip(&mut out) {
            read.push(Reconstruction {
                pattern: PatternId(p as u32),
                regex: to_regex(automaton),
            });
        }
    }
    out
}
