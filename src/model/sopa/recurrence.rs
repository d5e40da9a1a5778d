//! SoPa's recurrence in the max semirings as one fused operation with its own backward pass.
//!
//! As a chain of tensor operations a step costs about twenty dispatches on tensors of a few
//! thousand entries, which dominate training. Here the whole recurrence of a batch runs in
//! plain loops (papers-brief §2.4, the same arithmetic as `Sopa::recurrence_unfused`):
//! per sentence and pattern, before each token at most one ε-step
//! `hε[i] = max(h[i], h[i−1] + ε[i−1])`, then
//! `h'[0] = max(one, hε[0] + sl[0])` and `h'[i] = max(hε[i−1] + main[i−1], hε[i] + sl[i])`,
//! and the score is the maximum of `h'[end]` over the sentence's positions (from `zero`).
//! The forward pass records which term won at every state and step; a score is then the sum
//! of the weights on one path, so the backward pass walks each best path back and adds the
//! score's gradient to every transition and ε-step on it (ties go to one term, where the
//! tensor chain would split the gradient between them).
//! O(B · T · P · L) time and bytes each way. CPU only: on other devices, and for
//! sum-product, the model uses the chain of tensor operations.

use crate::model::nn::fused::{Kept, contiguous, values};
use candle_core::{CpuStorage, CustomOp2, Layout, Result, Shape, Tensor};

/// How a state's value was reached at a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    /// State 0 restarting at one.
    Restart,
    /// The main path from the previous state.
    Advanced,
    /// The state's self-loop.
    Looped,
}

/// The fused recurrence for one batch: applied to (weights [B, T, P, 2, L], ε [P, L − 1]),
/// it gives the document scores [B, P]. Build it with [`BestPaths::new`].
#[derive(Debug)]
pub(crate) struct BestPaths {
    /// Each sentence's padded length (≤ T).
    lengths: Vec<usize>,
    /// Each pattern's end state.
    ends: Vec<u32>,
    /// The semiring's zero, where scores start.
    zero: f32,
    kept: Kept<Trace>,
}

/// What the forward pass decided, for the backward pass.
#[derive(Debug)]
struct Trace {
    /// [B, T, P, L]: how each state was reached.
    moves: Vec<Move>,
    /// [B, T, P, L]: whether the state's value before the step came by an ε-step.
    skipped: Vec<bool>,
    /// [B, P]: the step at which the best score ended, if any beat `zero`.
    best_step: Vec<Option<usize>>,
}

#[derive(Debug, Clone, Copy)]
struct Dims {
    batch: usize,
    steps: usize,
    patterns: usize,
    states: usize,
}

impl Dims {
    fn weight(&self, b: usize, t: usize, p: usize, kind: usize, state: usize) -> usize {
        (((b * self.steps + t) * self.patterns + p) * 2 + kind) * self.states + state
    }

    fn cell(&self, b: usize, t: usize, p: usize, state: usize) -> usize {
        ((b * self.steps + t) * self.patterns + p) * self.states + state
    }
}

impl BestPaths {
    pub(crate) fn new(lengths: Vec<usize>, ends: Vec<u32>, zero: f32) -> BestPaths {
        BestPaths {
            lengths,
            ends,
            zero,
            kept: Kept::new(),
        }
    }

    /// The scores [B, P] and the trace of their paths.
    fn run(&self, dims: Dims, weights: &[f32], epsilon: &[f32]) -> (Vec<f32>, Trace) {
        let Dims {
            batch,
            patterns,
            states,
            ..
        } = dims;
        let cells = batch * dims.steps * patterns * states;
        let mut trace = Trace {
            moves: vec![Move::Restart; cells],
            skipped: vec![false; cells],
            best_step: vec![None; batch * patterns],
        };
        let mut scores = vec![self.zero; batch * patterns];
        let mut h = vec![0f32; states];
        let mut h_eps = vec![0f32; states];
        let mut next = vec![0f32; states];
        for b in 0..batch {
            for p in 0..patterns {
                let end = self.ends[p] as usize;
                h.fill(self.zero);
                h[0] = 0.0;
                for t in 0..self.lengths[b] {
                    h_eps[0] = h[0];
                    for i in 1..=end {
                        let skip = h[i - 1] + epsilon[p * (states - 1) + i - 1];
                        let came_by_skip = skip > h[i];
                        h_eps[i] = if came_by_skip { skip } else { h[i] };
                        trace.skipped[dims.cell(b, t, p, i)] = came_by_skip;
                    }
                    for i in 0..=end {
                        let looped = h_eps[i] + weights[dims.weight(b, t, p, 0, i)];
                        let (other, other_move) = if i == 0 {
                            (0.0, Move::Restart)
                        } else {
                            let main = weights[dims.weight(b, t, p, 1, i - 1)];
                            (h_eps[i - 1] + main, Move::Advanced)
                        };
                        let (value, step) = if looped > other {
                            (looped, Move::Looped)
                        } else {
                            (other, other_move)
                        };
                        next[i] = value;
                        trace.moves[dims.cell(b, t, p, i)] = step;
                    }
                    let score = &mut scores[b * patterns + p];
                    if next[end] > *score {
                        *score = next[end];
                        trace.best_step[b * patterns + p] = Some(t);
                    }
                    std::mem::swap(&mut h, &mut next);
                }
            }
        }
        (scores, trace)
    }
}

impl CustomOp2 for BestPaths {
    fn name(&self) -> &'static str {
        "sopa-best-paths"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (batch, steps, patterns, _, states) = l1.shape().dims5()?;
        let weights = contiguous("sopa recurrence", s1, l1, "weights")?;
        let epsilon = contiguous("sopa recurrence", s2, l2, "epsilon")?;
        if self.lengths.len() != batch
            || self.ends.len() != patterns
            || epsilon.len() != patterns * (states - 1)
            || self.lengths.iter().any(|&len| len > steps)
            || self.ends.iter().any(|&end| end as usize >= states)
        {
            candle_core::bail!("sopa recurrence: inputs of mismatched shapes");
        }
        let dims = Dims {
            batch,
            steps,
            patterns,
            states,
        };
        let (scores, trace) = self.run(dims, weights, epsilon);
        self.kept.keep(trace);
        Ok((CpuStorage::F32(scores), Shape::from((batch, patterns))))
    }

    fn bwd(
        &self,
        weights: &Tensor,
        epsilon: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (batch, steps, patterns, _, states) = weights.dims5()?;
        let dims = Dims {
            batch,
            steps,
            patterns,
            states,
        };
        let kept = self.kept.take();
        let trace = match kept {
            Some(trace) => trace,
            None => {
                let w: Vec<f32> = values(weights)?;
                let e: Vec<f32> = values(epsilon)?;
                self.run(dims, &w, &e).1
            }
        };
        let grads: Vec<f32> = values(grad_res)?;
        let mut grad_weights = vec![0f32; weights.elem_count()];
        let mut grad_epsilon = vec![0f32; epsilon.elem_count()];
        for b in 0..batch {
            for p in 0..patterns {
                let Some(last) = trace.best_step[b * patterns + p] else {
                    continue;
                };
                let g = grads[b * patterns + p];
                let mut state = self.ends[p] as usize;
                for t in (0..=last).rev() {
                    // How the state was reached at step t, then how its value before the
                    // step was reached (an ε-step or not).
                    match trace.moves[dims.cell(b, t, p, state)] {
                        Move::Restart => break,
                        Move::Looped => grad_weights[dims.weight(b, t, p, 0, state)] += g,
                        Move::Advanced => {
                            state -= 1;
                            grad_weights[dims.weight(b, t, p, 1, state)] += g;
                        }
                    }
                    if state > 0 && trace.skipped[dims.cell(b, t, p, state)] {
                        state -= 1;
                        grad_epsilon[p * (states - 1) + state] += g;
                    }
                }
            }
        }
        Ok((
            Some(Tensor::from_vec(
                grad_weights,
                weights.shape(),
                weights.device(),
            )?),
            Some(Tensor::from_vec(
                grad_epsilon,
                epsilon.shape(),
                epsilon.device(),
            )?),
        ))
    }
}
