//! Why a SoPa labeled a sentence as it did (Schwartz et al. 2018, §7): each pattern's
//! leave-one-out contribution, the change in the predicted label's probability when the
//! network runs with that pattern's score removed (its truth and its feature 0, as the
//! reference code zeroes a feature after `to_float`), for any number of labels; and each
//! pattern's best span, the tokens of its highest-scoring path (papers-brief §2.6).
//! Contributions are measured by running the network's own aggregation and head, all the
//! removals in one batch, so they are what the network does, not an approximation.

use super::{Group, Sopa};
use crate::model::batch::Batch;
use crate::syntax::PatternId;
use candle_core::{Result, Tensor};
use std::ops::Range;

/// Which pattern a feature is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternRef {
    /// A pattern of the rule system (a soft pattern compiled from it, or its DFA).
    Rule(usize),
    /// The i-th free pattern.
    Free(usize),
}

/// One pattern's part in a prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    pub pattern: PatternRef,
    /// Its feature: the score the head reads.
    pub score: f32,
    /// p(predicted label) − p(predicted label without this pattern): positive where the
    /// pattern supports the prediction.
    pub delta: f32,
    /// The tokens of its best path, if any path reaches its end on real tokens.
    pub span: Option<Range<usize>>,
}

/// A SoPa's label for one sentence and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Softmax of the scaled logits, labels in the rule system's order.
    pub probabilities: Vec<f32>,
    pub predicted: usize,
    /// One per pattern, in feature order (rules' chains, rules' DFAs, free patterns).
    pub contributions: Vec<Contribution>,
}

fn softmax(logits: &[f32], scale: f32) -> Vec<f32> {
    let max = logits
        .iter()
        .fold(f32::NEG_INFINITY, |m, &x| m.max(x * scale));
    let exps: Vec<f32> = logits.iter().map(|&x| (x * scale - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

impl Sopa {
    /// The features' patterns, in feature order.
    fn feature_patterns(&self) -> Vec<PatternRef> {
        let rules = self.chained.iter().chain(&self.exact).copied();
        rules
            .map(PatternRef::Rule)
            .chain((0..self.n_free_patterns()).map(PatternRef::Free))
            .collect()
    }

    /// Explains the prediction for the one sentence of `batch`, probabilities taken at
    /// `logit_scale` (the training setting).
    pub fn explain(&self, batch: &Batch, logit_scale: f64) -> Result<Explanation> {
        if batch.lengths.len() != 1 {
            candle_core::bail!("explain takes a batch of one sentence");
        }
        let (truths, features) = self.pattern_truths(batch)?;
        let logits: Vec<f32> = self.logits_of(&truths, &features)?.squeeze(0)?.to_vec1()?;
        let scale = logit_scale as f32;
        let probabilities = softmax(&logits, scale);
        let predicted = probabilities
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map_or(0, |(i, _)| i);
        let patterns = self.feature_patterns();
        let n = patterns.len();
        // Row i: the sentence with pattern i removed.
        let mut truth_rows: Vec<f32> = truths.squeeze(0)?.to_vec1()?.repeat(n);
        let feature_values: Vec<f32> = features.squeeze(0)?.to_vec1()?;
        let mut feature_rows = feature_values.repeat(n);
        let n_patterns = self.system.patterns().len();
        for (i, pattern) in patterns.iter().enumerate() {
            feature_rows[i * n + i] = 0.0;
            if let PatternRef::Rule(p) = pattern {
                truth_rows[i * n_patterns + p] = 0.0;
            }
        }
        let device = truths.device();
        let removed: Vec<Vec<f32>> = if n == 0 {
            Vec::new()
        } else {
            self.logits_of(
                &Tensor::from_vec(truth_rows, (n, n_patterns), device)?,
                &Tensor::from_vec(feature_rows, (n, n), device)?,
            )?
            .to_vec2()?
        };
        let spans = self.best_spans(batch)?;
        let contributions = patterns
            .into_iter()
            .zip(feature_values)
            .zip(removed)
            .zip(spans)
            .map(|(((pattern, score), logits), span)| Contribution {
                pattern,
                score,
                delta: probabilities[predicted] - softmax(&logits, scale)[predicted],
                span,
            })
            .collect();
        Ok(Explanation {
            probabilities,
            predicted,
            contributions,
        })
    }

    /// Each feature's best span in the one sentence of `batch`: the soft patterns' best
    /// paths (by the product of their transitions' weights), the DFAs' match spans.
    fn best_spans(&self, batch: &Batch) -> Result<Vec<Option<Range<usize>>>> {
        let padded = self.pad(batch, None)?;
        let vectors = self
            .embedding
            .index_select(&padded.words.flatten_all()?, 0)?;
        let symbols = padded.symbols.flatten_all()?;
        let len = batch.lengths[0];
        let mut spans = Vec::new();
        let mut group_spans = |group: &Group| -> Result<()> {
            let weights: Vec<Vec<f32>> =
                self.weights(group, &vectors, &symbols, None)?.to_vec2()?;
            let epsilon: Vec<Vec<f32>> = self.semiring.encode(&group.epsilon)?.to_vec2()?;
            for (p, &end) in group.ends.iter().enumerate() {
                spans.push(self.best_span(group, p, end as usize, &weights, &epsilon[p], len));
            }
            Ok(())
        };
        if let Some(group) = &self.rules {
            group_spans(group)?;
        }
        let symbols_of: Vec<Vec<u32>> = batch.symbols.to_vec2()?;
        let sentence: Vec<crate::automata::SymbolId> = symbols_of[0][..len]
            .iter()
            .map(|&s| crate::automata::SymbolId(s))
            .collect();
        let exact: Vec<Option<Range<usize>>> = self
            .exact
            .iter()
            .map(|&p| self.system.match_span(PatternId(p as u32), &sentence))
            .collect();
        if let Some(group) = &self.free {
            group_spans(group)?;
        }
        // The chains' spans, then the DFAs', then the free patterns'.
        let n_chained = self.chained.len();
        let free = spans.split_off(n_chained);
        spans.extend(exact);
        spans.extend(free);
        Ok(spans)
    }

    /// Pattern `p` of `group`'s best path over a padded sentence of `len` tokens, as a
    /// range of the sentence's tokens (the START and END padding left out): Viterbi in log
    /// space, each state carrying where its best path started.
    fn best_span(
        &self,
        group: &Group,
        p: usize,
        end: usize,
        weights: &[Vec<f32>],
        epsilon: &[f32],
        len: usize,
    ) -> Option<Range<usize>> {
        let l = group.n_states;
        let log = |w: f32| {
            if self.semiring.is_max() {
                w
            } else {
                w.max(1e-30).ln()
            }
        };
        let none = (f32::NEG_INFINITY, 0usize);
        let mut h = vec![none; l];
        let mut best: Option<(f32, usize, usize)> = None;
        for (t, row) in weights.iter().enumerate().take(len + 2) {
            let weight = |kind: usize, state: usize| log(row[(p * 2 + kind) * l + state]);
            // State 0 restarts here: a path starting at token t.
            h[0] = (0.0, t);
            let mut h_eps = h.clone();
            for i in 0..end {
                let skipped = h[i].0 + log(epsilon[i]);
                if skipped > h_eps[i + 1].0 {
                    h_eps[i + 1] = (skipped, h[i].1);
                }
            }
            let mut next = vec![none; l];
            for i in 0..=end {
                let looped = h_eps[i].0 + weight(0, i);
                if looped > next[i].0 {
                    next[i] = (looped, h_eps[i].1);
                }
                if i < end {
                    let advanced = h_eps[i].0 + weight(1, i);
                    if advanced > next[i + 1].0 {
                        next[i + 1] = (advanced, h_eps[i].1);
                    }
                }
            }
            let (score, start) = next[end];
            if score.is_finite() && best.is_none_or(|(b, _, _)| score > b) {
                best = Some((score, start, t));
            }
            h = next;
        }
        // Padded position t is token t − 1.
        let (_, start, last) = best?;
        let from = start.max(1) - 1;
        let to = last.min(len);
        (from < to).then_some(from..to)
    }
}
