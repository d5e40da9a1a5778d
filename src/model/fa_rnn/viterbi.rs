//! One Viterbi (max-product) step of the FA-RNN as a fused operation with its own
//! backward pass.
//!
//! `h'[j] = max_{i ∈ P(j)} h[i] · T[i, j]` with `T = D1 diag(z) D2ᵀ + W`, where P(j) is
//! the block of states of j's pattern. The rules' automaton is block-diagonal (a pattern's
//! states lead only to its own), and a path that wandered from one pattern's states into
//! another's would mean nothing in the rules, so the maximum runs inside each block: with
//! the exact decomposition T is block-diagonal anyway and the step is the rules' own. As a
//! chain of tensor operations the step built T as [B, K, K] for every token and kept it for
//! the backward pass (22 GB for one SMS epoch); here a step costs B · Σ_p K_p² · r
//! multiply-adds for T's blocks (K_p the states of pattern p; about 4 for SMS and TREC, so
//! a few times the forward step's 2 · B · K · r) and keeps only where each maximum came
//! from and T's value there, [B, K] each.
//!
//! Backward, with g = ∂L/∂h', a_j the argmax of state j and d = g_j · h[a_j]:
//! ∂h[a_j] += g_j · T[a_j, j], ∂D1[a_j] += d · z ⊙ D2[j], ∂D2[j] += d · z ⊙ D1[a_j] and
//! ∂z += d · D1[a_j] ⊙ D2[j]: O(B · K · r). CPU only; on other devices the model masks the
//! dense product instead. FA-GRU's Viterbi scoring takes this step, inside its gates; the
//! ungated FA-RNN runs its whole recurrence at once (`viterbi_recurrence.rs`, which computes
//! T for every token in one matrix product), unless its patterns are too large for that.

use crate::model::nn::fused::{Kept, contiguous, values};
use crate::model::nn::matmul::dot_lanes;
use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};
use std::ops::Range;
use std::sync::Arc;

/// The step for one batch, applied to (h [B, K], z [B, r], D1 and D2 side by side
/// [K, 2r]); its result is h' [B, K]. Build one per step with [`ViterbiStep::new`].
#[derive(Debug)]
pub(crate) struct ViterbiStep {
    /// Each pattern's states, covering 0..K in order.
    blocks: Arc<[Range<usize>]>,
    /// Per block, the wildcard matrix's nonzero edges (from, to) inside it, numbered from
    /// the block's first state, all of weight 1 (W has no edge between blocks).
    wildcard: Arc<[Vec<(usize, usize)>]>,
    /// The forward pass's argmax and T there, for the backward pass (which otherwise
    /// recomputes them).
    kept: Kept<Argmax>,
}

/// Per (sentence, state): the state the maximum came from, and T's entry on that edge.
#[derive(Debug)]
struct Argmax {
    from: Vec<u32>,
    weight: Vec<f32>,
}

impl ViterbiStep {
    pub(crate) fn new(blocks: Arc<[Range<usize>]>, wildcard: Arc<[Vec<(usize, usize)>]>) -> Self {
        ViterbiStep {
            blocks,
            wildcard,
            kept: Kept::new(),
        }
    }

    /// The step on `h` [B, K] and `z` [B, r], with `d12` [K, 2r]: h' and its argmax; with
    /// AVX2 and FMA where the CPU has them.
    fn run(&self, h: &[f32], z: &[f32], d12: &[f32], k: usize, r: usize) -> (Vec<f32>, Argmax) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { self.run_avx2(h, z, d12, k, r) };
        }
        self.run_any(h, z, d12, k, r)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn run_avx2(
        &self,
        h: &[f32],
        z: &[f32],
        d12: &[f32],
        k: usize,
        r: usize,
    ) -> (Vec<f32>, Argmax) {
        self.run_any(h, z, d12, k, r)
    }

    #[inline(always)]
    fn run_any(&self, h: &[f32], z: &[f32], d12: &[f32], k: usize, r: usize) -> (Vec<f32>, Argmax) {
        let batch = h.len() / k.max(1);
        let mut out = vec![0f32; batch * k];
        let mut from = vec![0u32; batch * k];
        let mut weight = vec![0f32; batch * k];
        let mut t = Vec::new();
        let mut u = Vec::new();
        for b in 0..batch {
            let (h, z) = (&h[b * k..(b + 1) * k], &z[b * r..(b + 1) * r]);
            for (block, edges) in self.blocks.iter().zip(self.wildcard.iter()) {
                let n = block.len();
                // U = D1[block] ⊙ z, then T[block, block] = U D2[block]ᵀ + W[block, block].
                u.clear();
                for i in block.clone() {
                    let d1 = &d12[i * 2 * r..i * 2 * r + r];
                    u.extend(d1.iter().zip(z).map(|(d, z)| d * z));
                }
                t.clear();
                for i in 0..n {
                    let ui = &u[i * r..(i + 1) * r];
                    for j in block.clone() {
                        t.push(dot_lanes(ui, &d12[j * 2 * r + r..(j + 1) * 2 * r]));
                    }
                }
                for &(i, j) in edges {
                    t[i * n + j] += 1.0;
                }
                for (jj, j) in block.clone().enumerate() {
                    let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
                    for (ii, &hi) in h[block.clone()].iter().enumerate() {
                        let value = hi * t[ii * n + jj];
                        if value > best {
                            (best, arg) = (value, ii);
                        }
                    }
                    out[b * k + j] = best;
                    from[b * k + j] = (block.start + arg) as u32;
                    weight[b * k + j] = t[arg * n + jj];
                }
            }
        }
        (out, Argmax { from, weight })
    }
}

impl CustomOp3 for ViterbiStep {
    fn name(&self) -> &'static str {
        "fa-rnn-viterbi-step"
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
        let (batch, k) = l1.shape().dims2()?;
        let (_, r) = l2.shape().dims2()?;
        let (h, z, d12) = (
            contiguous("fa-rnn viterbi step", s1, l1, "h")?,
            contiguous("fa-rnn viterbi step", s2, l2, "z")?,
            contiguous("fa-rnn viterbi step", s3, l3, "d1 and d2")?,
        );
        let covered = self.blocks.last().map_or(0, |block| block.end);
        if covered != k || l3.shape().dims2()? != (k, 2 * r) || l2.shape().dims2()?.0 != batch {
            candle_core::bail!(
                "fa-rnn viterbi step: blocks cover {covered} states, h is {:?}, z {:?}, d1 and d2 {:?}",
                l1.shape(),
                l2.shape(),
                l3.shape()
            );
        }
        let (out, argmax) = self.run(h, z, d12, k, r);
        self.kept.keep(argmax);
        Ok((CpuStorage::F32(out), Shape::from((batch, k))))
    }

    fn bwd(
        &self,
        h: &Tensor,
        z: &Tensor,
        d12: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (batch, k) = h.dims2()?;
        let (_, r) = z.dims2()?;
        let hv: Vec<f32> = values(h)?;
        let zv: Vec<f32> = values(z)?;
        let dv: Vec<f32> = values(d12)?;
        let g: Vec<f32> = values(grad_res)?;
        let kept = self.kept.take();
        let argmax = kept.unwrap_or_else(|| self.run(&hv, &zv, &dv, k, r).1);
        let mut grad_h = vec![0f32; hv.len()];
        let mut grad_z = vec![0f32; zv.len()];
        let mut grad_d12 = vec![0f32; dv.len()];
        for b in 0..batch {
            let z = &zv[b * r..(b + 1) * r];
            for j in 0..k {
                let at = b * k + j;
                let (i, gj) = (argmax.from[at] as usize, g[at]);
                if gj == 0.0 {
                    continue;
                }
                grad_h[b * k + i] += gj * argmax.weight[at];
                let d = gj * hv[b * k + i];
                if d == 0.0 {
                    continue;
                }
                let (d1_row, d2_row) = (i * 2 * r, j * 2 * r + r);
                for c in 0..r {
                    let (d1, d2) = (dv[d1_row + c], dv[d2_row + c]);
                    grad_d12[d1_row + c] += d * z[c] * d2;
                    grad_d12[d2_row + c] += d * z[c] * d1;
                    grad_z[b * r + c] += d * d1 * d2;
                }
            }
        }
        let device = h.device();
        Ok((
            Some(Tensor::from_vec(grad_h, (batch, k), device)?),
            Some(Tensor::from_vec(grad_z, (batch, r), device)?),
            Some(Tensor::from_vec(grad_d12, (k, 2 * r), device)?),
        ))
    }
}
