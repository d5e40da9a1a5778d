//! The FA-RNN forward recurrence as one fused operation with its own backward pass.
//!
//! `h_t = clamp(((h_{t−1} D1) ⊙ z_t) D2ᵀ + h_{t−1} W, −b, b)` for every sentence of a batch
//! (b = [`STATE_BOUND`], the clamp leaking [`LEAK`] in gradient as in `nn/leaky_clamp.rs`), run
//! to each sentence's own length, returning the final states. As a chain of small tensor
//! operations each step costs several dispatches, which dominate at these sizes; here a
//! step is two matrix products over the whole batch (`nn/matmul.rs`: [B, K]·[K, r] and
//! [B, r]·[r, K]), an elementwise product and a gather over the wildcard matrix's nonzeros
//! (W is 0/1 with at most one nonzero per row). A sentence that has ended keeps its state.
//! The backward pass takes the forward pass's states (kept in the operation) and runs
//! back-propagation through time over the batch: with G = ∂L/∂H_t before the clamp (rows of
//! ended sentences zeroed, entries the clamp cut off scaled by LEAK), U = H_{t−1} D1 and
//! V = U ⊙ Z_t, ∂V = G D2, ∂D2 += Gᵀ V, ∂Z_t = ∂V ⊙ U, ∂U = ∂V ⊙ Z_t, ∂D1 += H_{t−1}ᵀ ∂U,
//! ∂H_{t−1} = ∂U D1ᵀ + G Wᵀ (and, for an ended sentence, ∂H_{t−1} = ∂H_t); the two weight
//! gradients are summed over all steps in one product each, after the loop.
//! O(B · L · K · r) time each way, O(L · B · (K + r)) memory.
//! CPU only: on other devices the model uses the unfused path.

use crate::model::nn::fused::{Kept, contiguous, values};
use crate::model::nn::leaky_clamp::LEAK;
use crate::model::nn::matmul::{ROW_BY_ROW_MAX, View, matmul, transposed};
use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};

/// The bound on every state of the recurrence: |h_t[i]| ≤ `STATE_BOUND` after each step.
pub const STATE_BOUND: f64 = 1.0;

/// The fused recurrence for one batch; the tensors it applies to are (z [B, L, r],
/// D1 [K, r], D2 [K, r]) and its result is h_N [B, K]. Build it with [`Recurrence::new`].
#[derive(Debug)]
pub(crate) struct Recurrence {
    /// h₀, length K.
    start: Vec<f32>,
    /// The wildcard matrix's nonzero edges (from, to), all of weight 1.
    wildcard: Vec<(usize, usize)>,
    /// Each sentence's length (≤ L).
    lengths: Vec<usize>,
    /// The forward pass's states, kept for the backward pass (which otherwise recomputes
    /// them); the backward pass gets the same tensors the forward pass got.
    kept: Kept<Trace>,
}

/// The two state factors, row-major [K, r].
#[derive(Clone, Copy)]
struct Factors<'a> {
    d1: &'a [f32],
    d2: &'a [f32],
}

/// Sizes of one application.
#[derive(Debug, Clone, Copy)]
struct Dims {
    len: usize,
    rank: usize,
    states: usize,
}

/// The forward pass over a batch: `hs` [steps + 1, B, K] (block t is H_t), `us`
/// [steps, B, r] (block t is H_t D1) and `clamped` [steps, B, K] (block t says which
/// entries of H_{t+1} the clamp cut off), where `steps` is the longest length.
#[derive(Debug)]
struct Trace {
    steps: usize,
    hs: Vec<f32>,
    us: Vec<f32>,
    clamped: Vec<bool>,
}

impl Recurrence {
    pub(crate) fn new(start: Vec<f32>, wildcard: Vec<(usize, usize)>, lengths: Vec<usize>) -> Self {
        Recurrence {
            start,
            wildcard,
            lengths,
            kept: Kept::new(),
        }
    }

    fn batch(&self) -> usize {
        self.lengths.len()
    }

    fn trace(&self, dims: Dims, z: &[f32], factors: Factors) -> Trace {
        let (batch, k, r) = (self.batch(), dims.states, dims.rank);
        let steps = self
            .lengths
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .min(dims.len);
        let mut hs = vec![0f32; (steps + 1) * batch * k];
        let mut us = vec![0f32; steps * batch * r];
        let mut clamped = vec![false; steps * batch * k];
        let bound = STATE_BOUND as f32;
        let mut v = vec![0f32; batch * r];
        // Many rows read D2ᵀ fastest as a contiguous copy, a few read D2's rows in place.
        let d2t = (batch > ROW_BY_ROW_MAX).then(|| transposed(factors.d2, k, r));
        let d2t = match &d2t {
            Some(copy) => View::row_major(copy, r, k),
            None => View::row_major(factors.d2, k, r).t(),
        };
        for b in 0..batch {
            hs[b * k..(b + 1) * k].copy_from_slice(&self.start);
        }
        for t in 0..steps {
            let (done, rest) = hs.split_at_mut((t + 1) * batch * k);
            let h = &done[t * batch * k..];
            let next = &mut rest[..batch * k];
            let u = &mut us[t * batch * r..(t + 1) * batch * r];
            matmul(
                u,
                View::row_major(h, batch, k),
                View::row_major(factors.d1, k, r),
                false,
            );
            for b in 0..batch {
                let zt = &z[(b * dims.len + t) * r..(b * dims.len + t + 1) * r];
                for ((out, &a), &c) in v[b * r..(b + 1) * r]
                    .iter_mut()
                    .zip(&u[b * r..(b + 1) * r])
                    .zip(zt)
                {
                    *out = a * c;
                }
            }
            matmul(next, View::row_major(&v, batch, r), d2t, false);
            for b in 0..batch {
                let (h, next) = (&h[b * k..(b + 1) * k], &mut next[b * k..(b + 1) * k]);
                if t < self.lengths[b] {
                    for &(from, to) in &self.wildcard {
                        next[to] += h[from];
                    }
                    let cut = &mut clamped[(t * batch + b) * k..(t * batch + b + 1) * k];
                    for (x, cut) in next.iter_mut().zip(cut) {
                        *cut = x.abs() > bound;
                        *x = x.clamp(-bound, bound);
                    }
                } else {
                    next.copy_from_slice(h);
                }
            }
        }
        Trace {
            steps,
            hs,
            us,
            clamped,
        }
    }
}

impl CustomOp3 for Recurrence {
    fn name(&self) -> &'static str {
        "fa-rnn-recurrence"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (batch, len, rank) = l1.shape().dims3()?;
        let (states, _) = l2.shape().dims2()?;
        let dims = Dims { len, rank, states };
        let (z, d1, d2) = (
            contiguous("fa-rnn recurrence", s1, l1, "z")?,
            contiguous("fa-rnn recurrence", s2, l2, "d1")?,
            contiguous("fa-rnn recurrence", s3, l3, "d2")?,
        );
        if self.lengths.len() != batch || self.start.len() != states {
            candle_core::bail!(
                "fa-rnn recurrence: {} lengths and {} start states for a batch of {batch} and {states} states",
                self.lengths.len(),
                self.start.len()
            );
        }
        let trace = self.trace(dims, z, Factors { d1, d2 });
        let out = trace.hs[trace.steps * batch * states..].to_vec();
        self.kept.keep(trace);
        Ok((CpuStorage::F32(out), Shape::from((batch, states))))
    }

    fn bwd(
        &self,
        z: &Tensor,
        d1: &Tensor,
        d2: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (batch, len, rank) = z.dims3()?;
        let (states, _) = d1.dims2()?;
        let dims = Dims { len, rank, states };
        let (k, r) = (states, rank);
        let zv: Vec<f32> = values(z)?;
        let d1v: Vec<f32> = values(d1)?;
        let d2v: Vec<f32> = values(d2)?;
        let gv: Vec<f32> = values(grad_res)?;
        if batch != self.batch() {
            candle_core::bail!(
                "fa-rnn recurrence: {} lengths for a batch of {batch}",
                self.batch()
            );
        }
        let mut grad_z = vec![0f32; zv.len()];
        let mut grad_d1 = vec![0f32; d1v.len()];
        let mut grad_d2 = vec![0f32; d2v.len()];
        let kept = self.kept.take();
        let trace = kept.unwrap_or_else(|| self.trace(dims, &zv, Factors { d1: &d1v, d2: &d2v }));
        let steps = trace.steps;
        let d1t = transposed(&d1v, k, r);
        // Per step: G before the clamp (rows of ended sentences zeroed), V and ∂U; the weight
        // gradients are one product each over all steps at the end, which runs much closer
        // to the machine's peak than a product with an inner dimension of B at every step.
        let mut g_actives = vec![0f32; steps * batch * k];
        let mut vs = vec![0f32; steps * batch * r];
        let mut dus = vec![0f32; steps * batch * r];
        let mut g = gv;
        let mut g_prev = vec![0f32; batch * k];
        let mut dv = vec![0f32; batch * r];
        for t in (0..steps).rev() {
            let u = &trace.us[t * batch * r..(t + 1) * batch * r];
            let g_active = &mut g_actives[t * batch * k..(t + 1) * batch * k];
            let v = &mut vs[t * batch * r..(t + 1) * batch * r];
            // G before the clamp, with the rows of sentences that had ended by step t zeroed;
            // V = U ⊙ Z_t.
            for b in 0..batch {
                let rows = b * k..(b + 1) * k;
                if t < self.lengths[b] {
                    let cut = &trace.clamped[(t * batch + b) * k..(t * batch + b + 1) * k];
                    for ((out, &g), &cut) in
                        g_active[rows.clone()].iter_mut().zip(&g[rows]).zip(cut)
                    {
                        *out = if cut { g * LEAK as f32 } else { g };
                    }
                }
                let zt = &zv[(b * len + t) * r..(b * len + t + 1) * r];
                for ((out, &a), &c) in v[b * r..(b + 1) * r]
                    .iter_mut()
                    .zip(&u[b * r..(b + 1) * r])
                    .zip(zt)
                {
                    *out = a * c;
                }
            }
            // ∂V = G D2.
            let g_active = &g_actives[t * batch * k..(t + 1) * batch * k];
            matmul(
                &mut dv,
                View::row_major(g_active, batch, k),
                View::row_major(&d2v, k, r),
                false,
            );
            // ∂Z_t = ∂V ⊙ U; ∂U = ∂V ⊙ Z_t.
            let du = &mut dus[t * batch * r..(t + 1) * batch * r];
            for b in 0..batch {
                let offset = (b * len + t) * r;
                for q in 0..r {
                    let i = b * r + q;
                    grad_z[offset + q] += dv[i] * u[i];
                    du[i] = dv[i] * zv[offset + q];
                }
            }
            // ∂H_{t−1} = ∂U D1ᵀ + G Wᵀ.
            matmul(
                &mut g_prev,
                View::row_major(du, batch, r),
                View::row_major(&d1t, r, k),
                false,
            );
            for b in 0..batch {
                let rows = b * k..(b + 1) * k;
                if t < self.lengths[b] {
                    let (g_prev, g_active) = (&mut g_prev[rows.clone()], &g_active[rows]);
                    for &(from, to) in &self.wildcard {
                        g_prev[from] += g_active[to];
                    }
                } else {
                    g_prev[rows.clone()].copy_from_slice(&g[rows]);
                }
            }
            std::mem::swap(&mut g, &mut g_prev);
        }
        // ∂D2 = Σ_t Gᵀ V and ∂D1 = Σ_t H_{t−1}ᵀ ∂U, the steps stacked as rows.
        let rows = steps * batch;
        matmul(
            &mut grad_d2,
            View::row_major(&g_actives, rows, k).t(),
            View::row_major(&vs, rows, r),
            false,
        );
        matmul(
            &mut grad_d1,
            View::row_major(&trace.hs[..rows * k], rows, k).t(),
            View::row_major(&dus, rows, r),
            false,
        );
        let device = z.device();
        Ok((
            Some(Tensor::from_vec(grad_z, (batch, len, rank), device)?),
            Some(Tensor::from_vec(grad_d1, (states, rank), device)?),
            Some(Tensor::from_vec(grad_d2, (states, rank), device)?),
        ))
    }
}
