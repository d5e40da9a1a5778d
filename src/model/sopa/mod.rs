//! SoPa, soft patterns (Schwartz, Thomson and Smith 2018; papers-brief §2), compiled from
//! the rules and learned from the corpus, on candle.
//!
//! A soft pattern is a chain of states with main-path transitions, self-loops on every state
//! and ε-transitions. A transition's logit for a token is `w·v + u[symbol] + b`: v the
//! token's word vector (fixed, unit length, zero for unknown words and the START/END padding),
//! u a weight per symbol of the rules' alphabet and the two padding tokens, b a bias. The
//! [`Semiring`] turns logits into weights and scores a sentence (padded with one START and
//! one END token) by ⊕ over the end positions of its best paths (or all paths).
//!
//! Two groups of patterns, each one batched recurrence over all its patterns:
//! - `rules.*`: each rule whose regex is a chain ([`compile::chain`]), with hard
//!   transitions (a logit of ±10 from u on the symbols it accepts, w = 0), so that the untrained pattern
//!   scores ≈ 1 exactly where the rule's DFA matches; trainable unless frozen. Other rules
//!   keep their exact DFA as a fixed 0/1 feature.
//! - `free.*`: the settings' free patterns, w rows unit-normalised N(0, 1) as in the
//!   reference code, u zero, b N(0, 0.1²); a fresh network's main paths start as the train
//!   corpus's most informative n-grams (`seed.rs`).
//!
//! The logits are the FA-RNN's soft-logic aggregation of the rules' pattern truths plus a
//! linear head (or one ReLU layer, `mlp_hidden`) over every pattern's feature. The head's
//! output starts at zero, so the untrained SoPa predicts what the rule system predicts.
//! Tensors are declared once, in [`Sopa::declare`] (names in `models/README.md`).

pub mod compile;
mod explain;
mod plain;
mod recurrence;
mod seed;
mod semiring;
mod spec;
#[cfg(test)]
mod tests;
mod transitions;

pub use compile::{Accepts, Chain, Padded};
pub use explain::{BestPath, Contribution, Explanation, PathStep, PatternRef, Step};
pub use plain::{SopaReading, SopaScorer};
pub use seed::{SEED_GAIN, SEED_THRESHOLD, informative_phrases};
pub use semiring::{HARD_LOGIT, Semiring};
pub use spec::{MAX_FREE_PATTERNS, MAX_PATTERN_STATES, PatternSpec};

use self::recurrence::BestPaths;
use self::transitions::TransitionWeights;
use super::aggregation::Aggregation;
use crate::automata::{RuleSystem, SymbolId};
use crate::model::nn::batch::Batch;
use crate::model::nn::network::Network;
use crate::model::nn::parameters::{Init, Parameters};
use crate::model::nn::rng::SplitMix64;
use crate::syntax::RuleSet;
use candle_core::{DType, Device, Result, Tensor, Var};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::borrow::Cow;

/// The most hidden units of the head's ReLU layer.
pub const MAX_MLP_HIDDEN: usize = 4_096;

/// The most transition rows (patterns × 2 × states, the rules' group and the free one
/// together) a SoPa may have: a batch's transition weights take batch × tokens × rows
/// floats (the SMS rules have 876 rows, the default free patterns 400).
pub const MAX_TRANSITION_ROWS: usize = 16_384;

/// The rules' patterns that are chains, in order, with their chains.
fn chains(system: &RuleSystem, rules: &RuleSet) -> Vec<(usize, Chain)> {
    rules
        .patterns
        .iter()
        .enumerate()
        .filter(|(p, _)| system.patterns()[*p].dfa.is_some())
        .filter_map(|(p, pattern)| {
            compile::chain(&pattern.regex, system.alphabet()).map(|c| (p, c))
        })
        .collect()
}

/// How many transition rows a SoPa of these rules and free patterns has.
pub fn transition_rows(system: &RuleSystem, rules: &RuleSet, free: &PatternSpec) -> usize {
    let rows = |lengths: &[usize]| lengths.len() * 2 * lengths.iter().copied().max().unwrap_or(0);
    let chained: Vec<usize> = chains(system, rules)
        .iter()
        .map(|(_, c)| c.n_states())
        .collect();
    rows(&chained) + rows(&free.lengths())
}

/// One group of patterns sharing a recurrence: P patterns of at most L states, their
/// transitions in rows `(p·2 + kind)·L + state` (kind 0 the self-loop, 1 the main path).
struct Group {
    /// w [R, D].
    words: Tensor,
    /// u [S + 2, R].
    symbols: Tensor,
    /// b [R].
    bias: Tensor,
    /// ε logits [P, L − 1].
    epsilon: Tensor,
    /// Each pattern's end state.
    ends: Vec<u32>,
    n_states: usize,
}

/// The classifier head: features → logits, through one ReLU layer or none.
struct Head {
    hidden: Option<(Tensor, Tensor)>,
    weight: Tensor,
    bias: Tensor,
}

impl Head {
    /// Features [B, F] → the head's logits [B, C].
    fn forward(&self, features: &Tensor) -> Result<Tensor> {
        let mut x = features.clone();
        if let Some((weight, bias)) = &self.hidden {
            x = x.matmul(weight)?.broadcast_add(bias)?.relu()?;
        }
        x.matmul(&self.weight)?.broadcast_add(&self.bias)
    }
}

/// A SoPa over a rule system's alphabet and labels.
pub struct Sopa {
    parameters: Parameters,
    semiring: Semiring,
    system: RuleSystem,
    /// Fixed word vectors [V, D], unit rows, row 0 (unknown words) zero.
    embedding: Tensor,
    rules: Option<Group>,
    free: Option<Group>,
    /// The rule system's patterns with a chain, then those kept as DFAs.
    chained: Vec<usize>,
    exact: Vec<usize>,
    /// Where each rule-system pattern sits in `chained ++ exact`.
    order: Tensor,
    aggregation: Aggregation,
    head: Option<Head>,
    dropout: f32,
    word_dropout: f64,
}

/// A batch as SoPa reads it: START, the tokens, END, then padding.
struct PaddedBatch {
    symbols: Tensor,
    words: Tensor,
    /// [B, T + 2], 1 on START, tokens and END.
    mask: Tensor,
    /// Each sentence's length with START and END.
    lengths: Vec<usize>,
}

/// SoPa's own training settings, flattened into `TrainingSettings` (`rulelens train`'s
/// flags, the server's `training.*` settings, a checkpoint's manifest); declared here once,
/// with their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(rename_all = "camelCase", default)]
pub struct SopaSettings {
    /// SoPa's free patterns, STATES:COUNT pairs (`5:10,4:10` is ten patterns of five states
    /// and ten of four), or `none`.
    #[arg(long, value_name = "SPEC", default_value_t = SopaSettings::DEFAULT.patterns)]
    pub patterns: PatternSpec,
    /// How SoPa's patterns score a sentence.
    #[arg(long, value_enum, default_value_t = SopaSettings::DEFAULT.semiring)]
    pub semiring: Semiring,
    /// Keeps the soft patterns compiled from the rules as they are (SoPa).
    #[arg(long)]
    pub freeze_rules: bool,
    /// Hidden units of SoPa's classifier head (0: a linear head).
    #[arg(long, value_name = "N", default_value_t = SopaSettings::DEFAULT.mlp_hidden)]
    pub mlp_hidden: usize,
    /// Share of words SoPa reads as unknown in training, in [0, 1); unset: 0.2 on 400 or
    /// more train sentences of 40 tokens or more on average, else 0.
    #[arg(long, value_name = "P")]
    pub word_dropout: Option<f64>,
}

impl SopaSettings {
    /// Every default.
    pub const DEFAULT: SopaSettings = SopaSettings {
        patterns: PatternSpec(Cow::Borrowed(&[(5, 10), (4, 10), (3, 10), (2, 10)])),
        semiring: Semiring::MaxProduct,
        freeze_rules: false,
        mlp_hidden: 0,
        word_dropout: None,
    };

    /// The train sentences' mean length, in tokens, from which SoPa drops words by default.
    pub const LONG_SENTENCE_TOKENS: f64 = 40.0;
    /// The fewest train sentences SoPa drops words from by default.
    pub const MIN_SENTENCES_FOR_WORD_DROPOUT: usize = 400;
    /// The share of words dropped by default.
    pub const DEFAULT_WORD_DROPOUT: f64 = 0.2;

    /// The share of words SoPa reads as unknown in training on `n_sentences` train
    /// sentences of `mean_tokens` tokens on average: the one asked for, else
    /// [`Self::DEFAULT_WORD_DROPOUT`] on at least [`Self::MIN_SENTENCES_FOR_WORD_DROPOUT`]
    /// sentences of [`Self::LONG_SENTENCE_TOKENS`] or more, and none otherwise
    /// (`docs/results.md`, "SoPa from nothing": on 1,440 reviews of 70 tokens it lifts dev
    /// accuracy by 4.2 points; on 100 of them it costs 4.4, on questions of 11 tokens 1.6).
    pub fn word_dropout_for(&self, mean_tokens: f64, n_sentences: usize) -> f64 {
        let long = mean_tokens >= Self::LONG_SENTENCE_TOKENS
            && n_sentences >= Self::MIN_SENTENCES_FOR_WORD_DROPOUT;
        self.word_dropout.unwrap_or(if long {
            Self::DEFAULT_WORD_DROPOUT
        } else {
            0.0
        })
    }

    /// Why these settings cannot train, naming the setting, or `Ok`.
    pub fn check(&self) -> std::result::Result<(), String> {
        if let Some(share) = self.word_dropout
            && !(0.0..1.0).contains(&share)
        {
            return Err(format!("word dropout must be in [0, 1), not {share}"));
        }
        if self.mlp_hidden > MAX_MLP_HIDDEN {
            return Err(format!(
                "mlp hidden must be between 0 and {MAX_MLP_HIDDEN}, not {}",
                self.mlp_hidden
            ));
        }
        Ok(())
    }
}

impl Default for SopaSettings {
    fn default() -> SopaSettings {
        SopaSettings::DEFAULT
    }
}

impl Sopa {
    /// Declares a SoPa's tensors in `parameters` and builds it: `system` is the rule system
    /// (with every label the network predicts), `rules` its rule set (the patterns' regexes),
    /// `vocabulary` the word vectors' table size and dimension, `vectors` their values for a
    /// fresh network (a checkpoint has its own), `phrases` the word ids each free pattern's
    /// main path starts as ([`informative_phrases`]; none: all at random), `dropout` the
    /// share of transition weights dropped in training and `word_dropout` the share of words
    /// read as unknown ([`SopaSettings::word_dropout_for`]).
    pub fn declare(
        mut parameters: Parameters,
        system: &RuleSystem,
        rules: &RuleSet,
        (config, dropout, word_dropout): (&SopaSettings, f64, f64),
        (n_words, dim): (usize, usize),
        vectors: Option<&[f32]>,
        phrases: &[Option<Vec<u32>>],
    ) -> Result<Sopa> {
        let device = parameters.device().clone();
        let semiring = config.semiring;
        let embedding = parameters.declare(
            "word_embedding",
            &[n_words, dim],
            match vectors {
                Some(values) => Init::Values(unit_rows(values, dim)),
                None => Init::Zeros,
            },
            false,
        )?;
        let alphabet = system.alphabet();
        let n_symbols = alphabet.len() + 2;
        let (chained, chains): (Vec<usize>, Vec<Chain>) =
            self::chains(system, rules).into_iter().unzip();
        let exact: Vec<usize> = (0..rules.patterns.len())
            .filter(|p| !chained.contains(p))
            .collect();
        let rules_group = if chains.is_empty() {
            None
        } else {
            let lengths: Vec<usize> = chains.iter().map(Chain::n_states).collect();
            let hard = hard_transitions(system, &chains, semiring);
            Some(declare_group(
                &mut parameters,
                "rules",
                &lengths,
                (n_symbols, dim),
                GroupInit::Hard(hard),
                !config.freeze_rules,
            )?)
        };
        let free_lengths = config.patterns.lengths();
        let free = if free_lengths.is_empty() {
            None
        } else {
            let l = free_lengths.iter().copied().max().unwrap_or(2);
            let seeded = match vectors {
                Some(values) => seed::seeded_rows(phrases, l, values, dim),
                None => (Vec::new(), Vec::new()),
            };
            Some(declare_group(
                &mut parameters,
                "free",
                &free_lengths,
                (n_symbols, dim),
                GroupInit::Random(seeded),
                true,
            )?)
        };
        let n_features = chained.len() + exact.len() + free_lengths.len();
        let n_labels = system.labels().len();
        let head = if n_features == 0 || n_labels == 0 {
            None
        } else {
            let hidden = match config.mlp_hidden {
                0 => None,
                h => Some((
                    parameters.declare(
                        "head.hidden",
                        &[n_features, h],
                        Init::Normal {
                            std: (1.0 / n_features as f64).sqrt(),
                        },
                        true,
                    )?,
                    parameters.declare("head.hidden_bias", &[h], Init::Zeros, true)?,
                )),
            };
            let width = if config.mlp_hidden > 0 {
                config.mlp_hidden
            } else {
                n_features
            };
            Some(Head {
                hidden,
                weight: parameters.declare("head.weight", &[width, n_labels], Init::Zeros, true)?,
                bias: parameters.declare("head.bias", &[n_labels], Init::Zeros, true)?,
            })
        };
        parameters.finish()?;
        let mut position = vec![0u32; chained.len() + exact.len()];
        for (i, &p) in chained.iter().chain(&exact).enumerate() {
            position[p] = i as u32;
        }
        let order = Tensor::new(position.as_slice(), &device)?;
        Ok(Sopa {
            parameters,
            semiring,
            system: system.clone(),
            embedding,
            rules: rules_group,
            free,
            chained,
            exact,
            order,
            aggregation: Aggregation::from_system(system),
            head,
            dropout: dropout as f32,
            word_dropout,
        })
    }

    /// The rule system's patterns that are soft patterns (the others keep their DFA).
    pub fn chained_patterns(&self) -> &[usize] {
        &self.chained
    }

    /// How many free patterns the network learns.
    pub fn n_free_patterns(&self) -> usize {
        self.free.as_ref().map_or(0, |group| group.ends.len())
    }

    /// Each rule-system pattern's truth [batch, n_patterns] (the soft patterns' scores
    /// through [`Semiring::truth`], the others' DFA matches), and every pattern's feature
    /// for the head [batch, chained + exact + free].
    pub fn pattern_truths(&self, batch: &Batch) -> Result<(Tensor, Tensor)> {
        self.truths_and_features(batch, None)
    }

    fn truths_and_features(
        &self,
        batch: &Batch,
        mut rng: Option<&mut SplitMix64>,
    ) -> Result<(Tensor, Tensor)> {
        let device = self.embedding.device();
        let padded = self.pad(batch, rng.as_deref_mut())?;
        let (b, t) = padded.symbols.dims2()?;
        let (vectors, symbols) = self.inputs(&padded)?;
        let score = |group: &Group, rng: Option<&mut SplitMix64>| -> Result<Tensor> {
            let weights = self.weights(group, &vectors, &symbols, rng)?;
            let p = group.ends.len();
            let weights = weights.reshape((b, t, p, 2, group.n_states))?;
            self.recurrence(group, &weights, &padded)
        };
        let chain_scores = match &self.rules {
            Some(group) => Some(score(group, rng.as_deref_mut())?),
            None => None,
        };
        let free_scores = match &self.free {
            Some(group) => Some(score(group, rng)?),
            None => None,
        };
        let exact = self.exact_matches(batch, device)?;
        let chain_truths = chain_scores
            .as_ref()
            .map(|s| self.semiring.truth(s))
            .transpose()?;
        let mut truth_parts: Vec<&Tensor> = Vec::new();
        if let Some(truths) = &chain_truths {
            truth_parts.push(truths);
        }
        if let Some(exact) = &exact {
            truth_parts.push(exact);
        }
        let truths = if truth_parts.is_empty() {
            Tensor::zeros((b, 0), DType::F32, device)?
        } else {
            Tensor::cat(&truth_parts, 1)?.index_select(&self.order, 1)?
        };
        let mut features: Vec<Tensor> = Vec::new();
        if let Some(scores) = &chain_scores {
            features.push(self.semiring.feature(scores)?);
        }
        if let Some(exact) = exact {
            features.push(exact);
        }
        if let Some(scores) = &free_scores {
            features.push(self.semiring.feature(scores)?);
        }
        let features = if features.is_empty() {
            Tensor::zeros((b, 0), DType::F32, device)?
        } else {
            Tensor::cat(&features, 1)?
        };
        Ok((truths, features))
    }

    /// Label logits, with dropout when `rng` is given (training).
    fn forward(&self, batch: &Batch, rng: Option<&mut SplitMix64>) -> Result<Tensor> {
        let (truths, features) = self.truths_and_features(batch, rng)?;
        self.logits_of(&truths, &features)
    }

    /// Label logits [B, C] from the rule patterns' truths [B, n_patterns] and every
    /// pattern's feature [B, F]: the rules' soft logic plus the head.
    fn logits_of(&self, truths: &Tensor, features: &Tensor) -> Result<Tensor> {
        let logits = self.aggregation.forward(truths)?;
        match &self.head {
            Some(head) => logits + head.forward(features)?,
            None => Ok(logits),
        }
    }

    /// START, the tokens, END: symbol ids (the padding tokens after the alphabet's), word
    /// ids (0, the zero vector, for the padding and, under word dropout, dropped words)
    /// and the mask.
    fn pad(&self, batch: &Batch, rng: Option<&mut SplitMix64>) -> Result<PaddedBatch> {
        let n_symbols = self.system.alphabet().len() as u32;
        let (start, end) = (n_symbols, n_symbols + 1);
        let symbols: Vec<Vec<u32>> = batch.symbols.to_vec2()?;
        let words: Vec<Vec<u32>> = batch.words.to_vec2()?;
        let n = batch.lengths.len();
        let width = batch.lengths.iter().max().map_or(2, |len| len + 2);
        let mut out_symbols = vec![0u32; n * width];
        let mut out_words = vec![0u32; n * width];
        let mut mask = vec![0f32; n * width];
        let mut rng = rng.filter(|_| self.word_dropout > 0.0);
        for (row, &len) in batch.lengths.iter().enumerate() {
            let at = row * width;
            out_symbols[at] = start;
            out_symbols[at + 1..at + 1 + len].copy_from_slice(&symbols[row][..len]);
            out_symbols[at + 1 + len] = end;
            out_words[at + 1..at + 1 + len].copy_from_slice(&words[row][..len]);
            if let Some(rng) = rng.as_deref_mut() {
                for word in &mut out_words[at + 1..at + 1 + len] {
                    if rng.next_f64() < self.word_dropout {
                        *word = 0;
                    }
                }
            }
            mask[at..at + len + 2].fill(1.0);
        }
        let device = self.embedding.device();
        Ok(PaddedBatch {
            symbols: Tensor::from_vec(out_symbols, (n, width), device)?,
            words: Tensor::from_vec(out_words, (n, width), device)?,
            mask: Tensor::from_vec(mask, (n, width), device)?,
            lengths: batch.lengths.iter().map(|len| len + 2).collect(),
        })
    }

    /// The padded tokens' word vectors [B·T, D] and symbol ids [B·T], as
    /// [`Sopa::weights`] reads them.
    fn inputs(&self, padded: &PaddedBatch) -> Result<(Tensor, Tensor)> {
        let vectors = self
            .embedding
            .index_select(&padded.words.flatten_all()?, 0)?;
        Ok((vectors, padded.symbols.flatten_all()?))
    }

    /// A group's transition weights [B·T, R] for the padded tokens: fused on the CPU
    /// (`transitions.rs`), with transition dropout when `rng` is given.
    fn weights(
        &self,
        group: &Group,
        vectors: &Tensor,
        symbols: &Tensor,
        rng: Option<&mut SplitMix64>,
    ) -> Result<Tensor> {
        let products = vectors.matmul(&group.words.t()?)?;
        let weights = if products.device().is_cpu() {
            let op = TransitionWeights::new(symbols.to_vec1()?, self.semiring);
            products.apply_op3(&group.symbols, &group.bias, op)?
        } else {
            self.weights_unfused(group, &products, symbols)?
        };
        match rng {
            Some(rng) if self.dropout > 0.0 => {
                // The reference's dropout on the transition scores: a dropped weight
                // becomes 0 (the max semirings' one), the others are scaled by 1/(1 − p).
                let keep: Vec<f32> = (0..weights.elem_count())
                    .map(|_| {
                        if rng.next_f64() < f64::from(self.dropout) {
                            0.0
                        } else {
                            1.0 / (1.0 - self.dropout)
                        }
                    })
                    .collect();
                let keep = Tensor::from_vec(keep, weights.shape(), weights.device())?;
                weights * keep
            }
            _ => Ok(weights),
        }
    }

    /// `encode(w·v + u[symbol] + b)` as a chain of tensor operations, from the products
    /// `w·v` [N, R] and the tokens' symbol ids [N] (what [`TransitionWeights`] fuses).
    fn weights_unfused(
        &self,
        group: &Group,
        products: &Tensor,
        symbols: &Tensor,
    ) -> Result<Tensor> {
        let logits = products
            .add(&group.symbols.index_select(symbols, 0)?)?
            .broadcast_add(&group.bias)?;
        self.semiring.encode(&logits)
    }

    /// The batched recurrence of one group (papers-brief §2.4): `weights` [B, T, P, 2, L]
    /// → document scores [B, P]; fused in the max semirings on the CPU (`recurrence.rs`).
    fn recurrence(&self, group: &Group, weights: &Tensor, padded: &PaddedBatch) -> Result<Tensor> {
        if self.semiring.is_max() && weights.device().is_cpu() {
            let epsilon = self.semiring.encode(&group.epsilon)?;
            let op = BestPaths::new(
                padded.lengths.clone(),
                group.ends.clone(),
                self.semiring.zero() as f32,
            );
            return weights.contiguous()?.apply_op2(&epsilon.contiguous()?, op);
        }
        self.recurrence_unfused(group, weights, &padded.mask)
    }

    /// [`Sopa::recurrence`] as a chain of tensor operations, one step per token: `mask`
    /// [B, T].
    fn recurrence_unfused(&self, group: &Group, weights: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, t, p, _, l) = weights.dims5()?;
        let device = weights.device();
        let semiring = self.semiring;
        let (zero, one) = (semiring.zero(), semiring.one());
        let one_column = Tensor::full(one as f32, (b, p, 1), device)?;
        let mut h = Tensor::cat(
            &[
                one_column.clone(),
                Tensor::full(zero as f32, (b, p, l - 1), device)?,
            ],
            2,
        )?;
        let mut score = Tensor::full(zero as f32, (b, p), device)?;
        let epsilon = semiring.encode(&group.epsilon)?.unsqueeze(0)?;
        let ends = Tensor::new(group.ends.as_slice(), device)?
            .reshape((1, p, 1))?
            .broadcast_as((b, p, 1))?
            .contiguous()?;
        for step in 0..t {
            let w = weights.narrow(1, step, 1)?.squeeze(1)?;
            let self_loops = w.narrow(2, 0, 1)?.squeeze(2)?;
            let main = w.narrow(2, 1, 1)?.squeeze(2)?.narrow(2, 0, l - 1)?;
            // At most one ε-step before the token, then the main path (state 0 restarts
            // at one) or a self-loop.
            let skipped = semiring.times(&h.narrow(2, 0, l - 1)?, &epsilon)?;
            let h_eps = Tensor::cat(
                &[
                    h.narrow(2, 0, 1)?,
                    semiring.plus(&h.narrow(2, 1, l - 1)?, &skipped)?,
                ],
                2,
            )?;
            let advanced = Tensor::cat(
                &[
                    one_column.clone(),
                    semiring.times(&h_eps.narrow(2, 0, l - 1)?, &main)?,
                ],
                2,
            )?;
            let next = semiring.plus(&advanced, &semiring.times(&h_eps, &self_loops)?)?;
            let m = mask.narrow(1, step, 1)?;
            let kept = m.affine(-1.0, 1.0)?;
            let m3 = m.unsqueeze(2)?;
            h = (next.broadcast_mul(&m3)? + h.broadcast_mul(&kept.unsqueeze(2)?)?)?;
            let end = next.gather(&ends, 2)?.squeeze(2)?;
            score = if semiring.is_max() {
                let end =
                    (end.broadcast_mul(&m)? + kept.affine(zero, 0.0)?.broadcast_as((b, p))?)?;
                score.maximum(&end)?
            } else {
                (score + end.broadcast_mul(&m)?)?
            };
        }
        Ok(score)
    }

    /// The DFA matches [B, n_exact] of the rule patterns without a chain.
    fn exact_matches(&self, batch: &Batch, device: &Device) -> Result<Option<Tensor>> {
        if self.exact.is_empty() {
            return Ok(None);
        }
        let symbols: Vec<Vec<u32>> = batch.symbols.to_vec2()?;
        let alphabet = self.system.alphabet();
        let mut values = Vec::with_capacity(symbols.len() * self.exact.len());
        let mut sentence = Vec::new();
        for (row, &len) in symbols.iter().zip(&batch.lengths) {
            sentence.clear();
            sentence.extend(row[..len].iter().map(|&s| SymbolId(s)));
            for &p in &self.exact {
                let matched = self.system.patterns()[p]
                    .dfa
                    .as_ref()
                    .is_some_and(|dfa| dfa.is_match(&sentence, alphabet));
                values.push(f32::from(u8::from(matched)));
            }
        }
        Tensor::from_vec(values, (symbols.len(), self.exact.len()), device).map(Some)
    }
}

impl Network for Sopa {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        self.forward(batch, None)
    }

    /// About 6.7 floats per transition row, measured on SMS's rules with the default free
    /// patterns (1,276 rows); 16 here.
    fn training_bytes_per_token(&self) -> u64 {
        let rows: usize = [&self.rules, &self.free]
            .into_iter()
            .flatten()
            .map(|group| group.words.dims()[0])
            .sum();
        16 * 4 * rows as u64
    }

    fn training_logits(&self, batch: &Batch, rng: &mut SplitMix64) -> Result<Tensor> {
        self.forward(batch, Some(rng))
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

/// Word vectors scaled to unit length, the unknown word's (row 0) zero.
fn unit_rows(values: &[f32], dim: usize) -> Vec<f32> {
    let mut rows = unit_length(values, dim);
    let unknown = dim.min(rows.len());
    rows[..unknown].fill(0.0);
    rows
}

/// Vectors ([n × `dim`]) scaled to unit length, as SoPa's word embedding holds a word's (a
/// zero vector stays zero).
pub(crate) fn unit_length(values: &[f32], dim: usize) -> Vec<f32> {
    let mut rows = values.to_vec();
    for row in rows.chunks_mut(dim.max(1)) {
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 {
            row.fill(0.0);
        } else {
            row.iter_mut().for_each(|x| *x /= norm);
        }
    }
    rows
}

/// How a group's transitions start.
enum GroupInit {
    /// The rules' hard transitions: u [S + 2, R], b [R], ε [P, L − 1].
    Hard((Vec<f32>, Vec<f32>, Vec<f32>)),
    /// At random, but for the given rows of w and b (`seed.rs`).
    Random(seed::SeededRows),
}

/// Declares a group's tensors under `prefix`.
fn declare_group(
    parameters: &mut Parameters,
    prefix: &str,
    lengths: &[usize],
    (n_symbols, dim): (usize, usize),
    init: GroupInit,
    trainable: bool,
) -> Result<Group> {
    let p = lengths.len();
    let l = lengths.iter().copied().max().unwrap_or(2);
    let rows = p * 2 * l;
    let name = |part: &str| format!("{prefix}.{part}");
    let (words, symbols, bias, epsilon) = match init {
        GroupInit::Hard((symbols, bias, epsilon)) => (
            Init::Zeros,
            Init::Values(symbols),
            Init::Values(bias),
            Init::Values(epsilon),
        ),
        GroupInit::Random((words, bias)) => (
            Init::Overriding {
                base: Box::new(Init::UnitRows),
                rows: words,
            },
            Init::Zeros,
            Init::Overriding {
                base: Box::new(Init::Normal { std: 0.1 }),
                rows: bias,
            },
            Init::Normal { std: 1.0 },
        ),
    };
    Ok(Group {
        words: parameters.declare(&name("words"), &[rows, dim], words, trainable)?,
        symbols: parameters.declare(&name("symbols"), &[n_symbols, rows], symbols, trainable)?,
        bias: parameters.declare(&name("bias"), &[rows], bias, trainable)?,
        epsilon: parameters.declare(&name("epsilon"), &[p, l - 1], epsilon, trainable)?,
        ends: lengths.iter().map(|&len| (len - 1) as u32).collect(),
        n_states: l,
    })
}

/// The hard transitions of `chains`: u [S + 2, R] is 2·[`HARD_LOGIT`] on the symbols a
/// transition accepts, b [R] −[`HARD_LOGIT`] (so a logit is ±[`HARD_LOGIT`]; in max-sum,
/// where the logit is the weight, 0 and −[`HARD_LOGIT`]); ε [P, L − 1] is on past the
/// optional elements only.
fn hard_transitions(
    system: &RuleSystem,
    chains: &[Chain],
    semiring: Semiring,
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let alphabet = system.alphabet();
    let n_symbols = alphabet.len() + 2;
    let l = chains.iter().map(Chain::n_states).max().unwrap_or(2);
    let rows = chains.len() * 2 * l;
    let (on, off) = (semiring.hard_logit(true), semiring.hard_logit(false));
    let mut symbols = vec![0f32; n_symbols * rows];
    let bias = vec![off; rows];
    let mut epsilon = vec![off; chains.len() * (l - 1)];
    let padded = |s: usize| match s {
        s if s == alphabet.len() => Padded::Start,
        s if s == alphabet.len() + 1 => Padded::End,
        s => Padded::Token(SymbolId(s as u32)),
    };
    for (p, chain) in chains.iter().enumerate() {
        let row = |kind: usize, state: usize| (p * 2 + kind) * l + state;
        let mut set = |r: usize, accepts: &Accepts| {
            for s in 0..n_symbols {
                if Chain::accepts(alphabet, accepts, padded(s)) {
                    symbols[s * rows + r] = on - off;
                }
            }
        };
        for (state, element) in chain.elements.iter().enumerate() {
            set(row(1, state), element);
            if chain.optional[state] {
                epsilon[p * (l - 1) + state] = on;
            }
        }
        for (state, atoms) in chain.loops.iter().enumerate() {
            if !atoms.is_empty() {
                set(row(0, state), &Accepts::Tokens(atoms.clone()));
            }
        }
    }
    (symbols, bias, epsilon)
}
