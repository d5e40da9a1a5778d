//! The FA-RNN forward recurrence as one fused operation with its own backward pass.
//!
//! `h_t = ((h_{t−1} D1) ⊙ z_t) D2ᵀ + h_{t−1} W` for every sentence of a batch, run to each
//! sentence's own length, returning the final states. As a chain of small tensor
//! operations each step costs several dispatches, which dominate at these sizes; here a
//! step is two vectorisable loops over the K×r factors plus a gather over the wildcard
//! matrix's nonzeros (W is 0/1 with at most one nonzero per row). The backward pass
//! recomputes the forward states and runs back-propagation through time:
//! with g = ∂L/∂h_t, v = u ⊙ z_t and u = h_{t−1} D1,
//! ∂D2 += gᵀ v, ∂v = g D2, ∂z_t = ∂v ⊙ u, ∂u = ∂v ⊙ z_t, ∂D1 += h_{t−1}ᵀ ∂u,
//! ∂h_{t−1} = ∂u D1ᵀ + g Wᵀ.
//! O(batch · length · K · r) time each way, O(length · (K + r)) extra memory per sentence.
//! CPU only: on other devices the model uses the unfused path.

use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};

/// The fused recurrence for one batch; the tensors it applies to are (z [B, L, r],
/// D1 [K, r], D2 [K, r]) and its result is h_N [B, K].
#[derive(Debug, Clone)]
pub(crate) struct Recurrence {
    /// h₀, length K.
    pub(crate) start: Vec<f32>,
    /// The wildcard matrix's nonzero edges (from, to), all of weight 1.
    pub(crate) wildcard: Vec<(usize, usize)>,
    /// Each sentence's length (≤ L).
    pub(crate) lengths: Vec<usize>,
}

fn contiguous<'a>(storage: &'a CpuStorage, layout: &Layout, what: &str) -> Result<&'a [f32]> {
    let data = storage.as_slice::<f32>()?;
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(&data[start..end]),
        None => candle_core::bail!("fa-rnn recurrence: {what} must be contiguous"),
    }
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

impl Recurrence {
    /// One step: `next = ((h D1) ⊙ z) D2ᵀ + h W`; `u` receives h D1.
    fn step(
        &self,
        dims: Dims,
        factors: Factors,
        h: &[f32],
        z: &[f32],
        u: &mut [f32],
        next: &mut [f32],
    ) {
        let (k, r) = (dims.states, dims.rank);
        let Factors { d1, d2 } = factors;
        u.fill(0.0);
        for (i, &weight) in h.iter().enumerate().take(k) {
            if weight != 0.0 {
                for (out, &f) in u.iter_mut().zip(&d1[i * r..(i + 1) * r]) {
                    *out += weight * f;
                }
            }
        }
        for j in 0..k {
            let row = &d2[j * r..(j + 1) * r];
            next[j] = row
                .iter()
                .zip(u.iter())
                .zip(z)
                .map(|((&a, &b), &c)| a * b * c)
                .sum();
        }
        for &(from, to) in &self.wildcard {
            next[to] += h[from];
        }
    }

    /// The states h_0..h_len of sentence `b` (row t is h_t), and the u of each step.
    fn states(&self, dims: Dims, b: usize, z: &[f32], factors: Factors) -> (Vec<f32>, Vec<f32>) {
        let (k, r) = (dims.states, dims.rank);
        let len = self.lengths[b].min(dims.len);
        let mut hs = vec![0f32; (len + 1) * k];
        let mut us = vec![0f32; len * r];
        hs[..k].copy_from_slice(&self.start);
        for t in 0..len {
            let zt = &z[(b * dims.len + t) * r..(b * dims.len + t + 1) * r];
            let (done, rest) = hs.split_at_mut((t + 1) * k);
            self.step(
                dims,
                factors,
                &done[t * k..],
                zt,
                &mut us[t * r..(t + 1) * r],
                &mut rest[..k],
            );
        }
        (hs, us)
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
            contiguous(s1, l1, "z")?,
            contiguous(s2, l2, "d1")?,
            contiguous(s3, l3, "d2")?,
        );
        if self.lengths.len() != batch || self.start.len() != states {
            candle_core::bail!(
                "fa-rnn recurrence: {} lengths and {} start states for a batch of {batch} and {states} states",
                self.lengths.len(),
                self.start.len()
            );
        }
        let mut out = vec![0f32; batch * states];
        for b in 0..batch {
            let (hs, _) = self.states(dims, b, z, Factors { d1, d2 });
            out[b * states..(b + 1) * states].copy_from_slice(&hs[hs.len() - states..]);
        }
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
        let zv: Vec<f32> = z.flatten_all()?.to_vec1()?;
        let d1v: Vec<f32> = d1.flatten_all()?.to_vec1()?;
        let d2v: Vec<f32> = d2.flatten_all()?.to_vec1()?;
        let gv: Vec<f32> = grad_res.flatten_all()?.to_vec1()?;
        let mut grad_z = vec![0f32; zv.len()];
        let mut grad_d1 = vec![0f32; d1v.len()];
        let mut grad_d2 = vec![0f32; d2v.len()];
        let mut dv = vec![0f32; r];
        let mut du = vec![0f32; r];
        let mut g_prev = vec![0f32; k];
        for b in 0..batch {
            let (hs, us) = self.states(dims, b, &zv, Factors { d1: &d1v, d2: &d2v });
            let steps = hs.len() / k - 1;
            let mut g = gv[b * k..(b + 1) * k].to_vec();
            for t in (0..steps).rev() {
                let offset = (b * len + t) * r;
                let zt = &zv[offset..offset + r];
                let u = &us[t * r..(t + 1) * r];
                let h_prev = &hs[t * k..(t + 1) * k];
                // v = u ⊙ z; ∂D2 += gᵀ v; ∂v = g D2.
                dv.fill(0.0);
                for (j, &gj) in g.iter().enumerate() {
                    if gj != 0.0 {
                        let row = &d2v[j * r..(j + 1) * r];
                        let grad_row = &mut grad_d2[j * r..(j + 1) * r];
                        for q in 0..r {
                            grad_row[q] += gj * u[q] * zt[q];
                            dv[q] += gj * row[q];
                        }
                    }
                }
                for q in 0..r {
                    grad_z[offset + q] += dv[q] * u[q];
                    du[q] = dv[q] * zt[q];
                }
                // ∂D1 += h_{t−1}ᵀ ∂u; ∂h_{t−1} = ∂u D1ᵀ + g Wᵀ.
                for i in 0..k {
                    let row = &d1v[i * r..(i + 1) * r];
                    if h_prev[i] != 0.0 {
                        let grad_row = &mut grad_d1[i * r..(i + 1) * r];
                        for q in 0..r {
                            grad_row[q] += h_prev[i] * du[q];
                        }
                    }
                    g_prev[i] = row.iter().zip(&du).map(|(&a, &c)| a * c).sum();
                }
                for &(from, to) in &self.wildcard {
                    g_prev[from] += g[to];
                }
                std::mem::swap(&mut g, &mut g_prev);
            }
        }
        let device = z.device();
        Ok((
            Some(Tensor::from_vec(grad_z, (batch, len, rank), device)?),
            Some(Tensor::from_vec(grad_d1, (states, rank), device)?),
            Some(Tensor::from_vec(grad_d2, (states, rank), device)?),
        ))
    }
}
