//! Why a SoPa labeled a sentence as it did (Schwartz et al. 2018, §7): each pattern's
//! leave-one-out contribution, the change in the predicted label's probability when the
//! network runs with that pattern's score removed (its truth and its feature 0, as the
//! reference code zeroes a feature after `to_float`), for any number of labels; and each
//! pattern's best span, the tokens of its highest-scoring path (papers-brief §2.6).
//! Contributions are measured by running the network's own aggregation and head, all the
//! removals in one batch, so they are what the network does, not an approximation.

use super::{Semiring, Sopa};
use crate::automata::SymbolId;
use crate::model::nn::batch::Batch;
use crate::model::nn::probabilities::softmax;
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
    pub delta: f64,
    /// The tokens of its best path, if any path reaches its end on real tokens.
    pub span: Option<Range<usize>>,
}

/// A SoPa's label for one sentence and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Softmax of the scaled logits, labels in the rule system's order.
    pub probabilities: Vec<f64>,
    pub predicted: usize,
    /// One per pattern, in feature order (rules' chains, rules' DFAs, free patterns).
    pub contributions: Vec<Contribution>,
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
        let probabilities = softmax(&logits, logit_scale);
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
                delta: probabilities[predicted] - softmax(&logits, logit_scale)[predicted],
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
        let len = batch.lengths[0];
        let mut paths = self.best_paths(batch)?.swap_remove(0).into_iter();
        let mut span = || paths.next().flatten().and_then(|path| path.span(len));
        let mut spans: Vec<Option<Range<usize>>> = self.chained.iter().map(|_| span()).collect();
        let symbols_of: Vec<Vec<u32>> = batch.symbols.to_vec2()?;
        let sentence: Vec<SymbolId> = symbols_of[0][..len].iter().map(|&s| SymbolId(s)).collect();
        spans.extend(
            self.exact
                .iter()
                .map(|&p| self.system.match_span(PatternId(p as u32), &sentence)),
        );
        spans.extend((0..self.n_free_patterns()).map(|_| span()));
        Ok(spans)
    }

    /// Every sentence's best path through each soft pattern (the rules' chains, then the
    /// free patterns): Viterbi in log space (the weights' logs in sum-product) with
    /// back-pointers, in plain loops. `None` where no path reaches the pattern's end.
    pub fn best_paths(&self, batch: &Batch) -> Result<Vec<Vec<Option<BestPath>>>> {
        let padded = self.pad(batch, None)?;
        let (n, width) = padded.symbols.dims2()?;
        let (vectors, symbols) = self.inputs(&padded)?;
        let mut paths: Vec<Vec<Option<BestPath>>> = vec![Vec::new(); n];
        for group in self.rules.iter().chain(&self.free) {
            let weights: Vec<Vec<f32>> =
                self.weights(group, &vectors, &symbols, None)?.to_vec2()?;
            let epsilon: Vec<Vec<f32>> = self.semiring.encode(&group.epsilon)?.to_vec2()?;
            for (b, sentence_paths) in paths.iter_mut().enumerate() {
                let rows = &weights[b * width..b * width + padded.lengths[b]];
                for (p, &end) in group.ends.iter().enumerate() {
                    sentence_paths.push(best_path(
                        self.semiring,
                        group.n_states,
                        (p, end as usize),
                        rows,
                        &epsilon[p],
                    ));
                }
            }
        }
        Ok(paths)
    }
}

/// The best path of pattern `p` (whose end state is `end`) of a group of patterns of at
/// most `l` states over one padded sentence's transition weights (one row per token,
/// rows `(p·2 + kind)·l + state`) and the pattern's ε weights.
pub(super) fn best_path(
    semiring: Semiring,
    l: usize,
    (p, end): (usize, usize),
    weights: &[Vec<f32>],
    epsilon: &[f32],
) -> Option<BestPath> {
    let log = |w: f32| {
        if semiring.is_max() {
            w
        } else {
            w.max(1e-30).ln()
        }
    };
    // Per step and state: how it was reached (the step before it, if an ε-step led to
    // its value before the token).
    let mut moves = vec![(Step::Restart, false); weights.len() * (end + 1)];
    let mut h = vec![f32::NEG_INFINITY; end + 1];
    h[0] = 0.0;
    let mut best: Option<(f32, usize)> = None;
    for (t, row) in weights.iter().enumerate() {
        let weight = |kind: usize, state: usize| log(row[(p * 2 + kind) * l + state]);
        let mut h_eps = h.clone();
        let mut skipped = vec![false; end + 1];
        for i in 1..=end {
            let skip = h[i - 1] + log(epsilon[i - 1]);
            if skip > h_eps[i] {
                h_eps[i] = skip;
                skipped[i] = true;
            }
        }
        let mut next = vec![f32::NEG_INFINITY; end + 1];
        for i in 0..=end {
            let looped = h_eps[i] + weight(0, i);
            let (other, step) = if i == 0 {
                (0.0, Step::Restart)
            } else {
                (h_eps[i - 1] + weight(1, i - 1), Step::Main)
            };
            let (value, step) = if looped > other {
                (looped, Step::Loop)
            } else {
                (other, step)
            };
            next[i] = value;
            // Where the value came from before the step: an ε-step into the state the
            // move left from.
            let from = if step == Step::Main { i - 1 } else { i };
            moves[t * (end + 1) + i] = (step, step != Step::Restart && skipped[from]);
        }
        if next[end].is_finite() && best.is_none_or(|(score, _)| next[end] > score) {
            best = Some((next[end], t));
        }
        h = next;
    }
    let (score, last) = best?;
    let mut steps = Vec::new();
    let mut state = end;
    for t in (0..=last).rev() {
        let (step, skipped) = moves[t * (end + 1) + state];
        match step {
            Step::Restart => break,
            Step::Loop => steps.push(PathStep {
                step,
                state,
                position: Some(t),
            }),
            Step::Main => {
                state -= 1;
                steps.push(PathStep {
                    step,
                    state,
                    position: Some(t),
                });
            }
            Step::Skip => unreachable!("moves record main paths, loops and restarts"),
        }
        if skipped {
            state -= 1;
            steps.push(PathStep {
                step: Step::Skip,
                state,
                position: None,
            });
        }
    }
    steps.reverse();
    Some(BestPath { score, steps })
}

/// What one step of a path does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// State 0, where every path starts, at every token.
    Restart,
    /// The main path from `state` to `state + 1`, reading a token.
    Main,
    /// The self-loop on `state`, reading a token.
    Loop,
    /// The ε-transition from `state` to `state + 1`, reading nothing.
    Skip,
}

/// One step of a best path; `position` is the padded token it reads (0 is START, the
/// sentence's tokens from 1, then END), `None` for an ε-step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathStep {
    pub step: Step,
    pub state: usize,
    pub position: Option<usize>,
}

/// A pattern's best path through a sentence: its score (log space) and its steps in order.
#[derive(Debug, Clone, PartialEq)]
pub struct BestPath {
    pub score: f32,
    pub steps: Vec<PathStep>,
}

impl BestPath {
    /// The sentence tokens the path reads (of a sentence of `len` tokens: START and END
    /// left out), `None` when it reads only padding.
    pub fn span(&self, len: usize) -> Option<Range<usize>> {
        let mut positions = self.steps.iter().filter_map(|step| step.position);
        let first = positions.next()?;
        let last = positions.next_back().unwrap_or(first);
        let from = first.max(1) - 1;
        let to = last.min(len);
        (from < to).then_some(from..to)
    }
}
