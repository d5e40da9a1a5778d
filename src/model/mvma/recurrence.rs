//! MVMA-G's recurrence as one fused CPU operation with its own backward pass.
//!
//! `h_t = g_t + n_t ⊙ (h_{t−1}·U_n) − z_t ⊙ (h_{t−1}·U_z) + o_t ⊙ h_{t−1}`, h_0 = 0, for
//! every sentence of a batch, run to each sentence's own length, returning the final
//! states; the token terms g, n, z, o (each [B, T, H], computed from the word vectors
//! alone, `mvma/mod.rs`) come side by side as one [B, T, 4H] input, U = [U_z, U_n] as [H, 2H].
//! As a chain of tensor operations each step is about ten dispatches over [B, H], which
//! dominate at H = 50 (`docs/performance.md`); here a step is one matrix product over the
//! batch ([B, H]·[H, 2H], `nn/matmul.rs`) and one pass over its elements. A sentence that has
//! ended keeps its state.
//!
//! The backward pass takes the forward pass's states and products (kept in the operation)
//! and runs back-propagation through time: with G = ∂L/∂h_t and P = h_{t−1}·U, for a
//! sentence still running at t, ∂g_t = G, ∂n_t = G ⊙ P_n, ∂z_t = −G ⊙ P_z, ∂o_t = G ⊙ h_{t−1},
//! ∂P = [−G ⊙ z_t, G ⊙ n_t], ∂h_{t−1} = ∂P·Uᵀ + G ⊙ o_t (and ∂h_{t−1} = G for one that has
//! ended); ∂U = Σ_t h_{t−1}ᵀ·∂P, one product over all steps after the loop.
//! O(B · T · H²) time each way, O(T · B · H) memory. CPU only: on other devices the model
//! uses the unfused path.

use crate::model::nn::fused::{Kept, contiguous, values};
use crate::model::nn::matmul::{View, matmul, transposed};
use candle_core::{CpuStorage, CustomOp2, Layout, Result, Shape, Tensor};

/// The token terms a step reads, in the order of their blocks of H in the terms input.
const TERMS: usize = 4;

/// The fused recurrence for one batch; the tensors it applies to are (terms [B, T, 4H],
/// U [H, 2H]) and its result is h_T [B, H]. Build it with [`MvmaRecurrence::new`].
#[derive(Debug)]
pub(crate) struct MvmaRecurrence {
    /// Each sentence's length (≤ T).
    lengths: Vec<usize>,
    /// The forward pass's trace, kept for the backward pass (which otherwise recomputes it).
    kept: Kept<Trace>,
}

/// The forward pass: `hs` [steps + 1, B, H] (block t is h_t) and `ps` [steps, B, 2H]
/// (block t is h_t·U), where `steps` is the longest length.
#[derive(Debug)]
struct Trace {
    steps: usize,
    hs: Vec<f32>,
    ps: Vec<f32>,
}

impl MvmaRecurrence {
    pub(crate) fn new(lengths: Vec<usize>) -> MvmaRecurrence {
        MvmaRecurrence {
            lengths,
            kept: Kept::new(),
        }
    }

    fn trace(&self, len: usize, hidden: usize, terms: &[f32], recurrent: &[f32]) -> Trace {
        let (batch, h) = (self.lengths.len(), hidden);
        let steps = self.lengths.iter().copied().max().unwrap_or(0).min(len);
        let mut hs = vec![0f32; (steps + 1) * batch * h];
        let mut ps = vec![0f32; steps * batch * 2 * h];
        for t in 0..steps {
            let (done, rest) = hs.split_at_mut((t + 1) * batch * h);
            let previous = &done[t * batch * h..];
            let next = &mut rest[..batch * h];
            let p = &mut ps[t * batch * 2 * h..(t + 1) * batch * 2 * h];
            matmul(
                p,
                View::row_major(previous, batch, h),
                View::row_major(recurrent, h, 2 * h),
                false,
            );
            for b in 0..batch {
                let (old, new) = (&previous[b * h..(b + 1) * h], &mut next[b * h..(b + 1) * h]);
                if t >= self.lengths[b] {
                    new.copy_from_slice(old);
                    continue;
                }
                let at = (b * len + t) * TERMS * h;
                let term = |block: usize| &terms[at + block * h..at + (block + 1) * h];
                let (g, on_n, on_z, on_h) = (term(0), term(1), term(2), term(3));
                let (p_z, p_n) = p[b * 2 * h..(b + 1) * 2 * h].split_at(h);
                for k in 0..h {
                    new[k] = g[k] + on_n[k] * p_n[k] - on_z[k] * p_z[k] + on_h[k] * old[k];
                }
            }
        }
        Trace { steps, hs, ps }
    }
}

impl CustomOp2 for MvmaRecurrence {
    fn name(&self) -> &'static str {
        "mvma-recurrence"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (batch, len, width) = l1.shape().dims3()?;
        let (hidden, _) = l2.shape().dims2()?;
        let terms = contiguous("mvma recurrence", s1, l1, "terms")?;
        let recurrent = contiguous("mvma recurrence", s2, l2, "recurrent")?;
        if self.lengths.len() != batch || width != TERMS * hidden {
            candle_core::bail!(
                "mvma recurrence: {} lengths and terms of width {width} for a batch of {batch} and {hidden} hidden units",
                self.lengths.len()
            );
        }
        let trace = self.trace(len, hidden, terms, recurrent);
        let out = trace.hs[trace.steps * batch * hidden..].to_vec();
        self.kept.keep(trace);
        Ok((CpuStorage::F32(out), Shape::from((batch, hidden))))
    }

    fn bwd(
        &self,
        terms: &Tensor,
        recurrent: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (batch, len, _) = terms.dims3()?;
        let (h, _) = recurrent.dims2()?;
        if batch != self.lengths.len() {
            candle_core::bail!(
                "mvma recurrence: {} lengths for a batch of {batch}",
                self.lengths.len()
            );
        }
        let tv: Vec<f32> = values(terms)?;
        let uv: Vec<f32> = values(recurrent)?;
        let kept = self.kept.take();
        let trace = kept.unwrap_or_else(|| self.trace(len, h, &tv, &uv));
        let steps = trace.steps;
        let ut = transposed(&uv, h, 2 * h);
        let mut grad_terms = vec![0f32; tv.len()];
        let mut dps = vec![0f32; steps * batch * 2 * h];
        let mut g: Vec<f32> = values(grad_res)?;
        let mut g_prev = vec![0f32; batch * h];
        for t in (0..steps).rev() {
            let previous = &trace.hs[t * batch * h..(t + 1) * batch * h];
            let p = &trace.ps[t * batch * 2 * h..(t + 1) * batch * 2 * h];
            let dp = &mut dps[t * batch * 2 * h..(t + 1) * batch * 2 * h];
            for b in 0..batch {
                if t >= self.lengths[b] {
                    continue;
                }
                let at = (b * len + t) * TERMS * h;
                let (gb, old) = (&g[b * h..(b + 1) * h], &previous[b * h..(b + 1) * h]);
                let (p_z, p_n) = p[b * 2 * h..(b + 1) * 2 * h].split_at(h);
                let (dp_z, dp_n) = dp[b * 2 * h..(b + 1) * 2 * h].split_at_mut(h);
                for k in 0..h {
                    let (on_n, on_z) = (tv[at + h + k], tv[at + 2 * h + k]);
                    grad_terms[at + k] = gb[k];
                    grad_terms[at + h + k] = gb[k] * p_n[k];
                    grad_terms[at + 2 * h + k] = -gb[k] * p_z[k];
                    grad_terms[at + 3 * h + k] = gb[k] * old[k];
                    dp_z[k] = -gb[k] * on_z;
                    dp_n[k] = gb[k] * on_n;
                }
            }
            // ∂h_{t−1} = ∂P·Uᵀ + G ⊙ o_t; an ended sentence passes G through.
            matmul(
                &mut g_prev,
                View::row_major(dp, batch, 2 * h),
                View::row_major(&ut, 2 * h, h),
                false,
            );
            for b in 0..batch {
                let rows = b * h..(b + 1) * h;
                if t < self.lengths[b] {
                    let at = (b * len + t) * TERMS * h + 3 * h;
                    for (k, out) in g_prev[rows.clone()].iter_mut().enumerate() {
                        *out += g[b * h + k] * tv[at + k];
                    }
                } else {
                    g_prev[rows.clone()].copy_from_slice(&g[rows]);
                }
            }
            std::mem::swap(&mut g, &mut g_prev);
        }
        // ∂U = Σ_t h_{t−1}ᵀ·∂P, the steps stacked as rows.
        let rows = steps * batch;
        let mut grad_u = vec![0f32; uv.len()];
        matmul(
            &mut grad_u,
            View::row_major(&trace.hs[..rows * h], rows, h).t(),
            View::row_major(&dps, rows, 2 * h),
            false,
        );
        let device = terms.device();
        Ok((
            Some(Tensor::from_vec(grad_terms, terms.shape(), device)?),
            Some(Tensor::from_vec(grad_u, (h, 2 * h), device)?),
        ))
    }
}
