//! A group's transition weights as one fused CPU operation with its own backward pass.
//!
//! As tensor operations, `encode(w·v + u[symbol] + b)` over the padded tokens is a gather, two
//! additions and the semiring's encoding (six operations for max-product's log-sigmoid),
//! each allocating a [tokens, rows] tensor, and as many again backwards: with the
//! recurrence fused, they were most of a training step (`docs/performance.md`). Here the
//! product `w·v` stays a matrix product (its gradient flows through candle to w), and the
//! rest is one pass: applied to (`w·v` [N, R], u [S, R], b [R]) with the tokens' symbol ids,
//! it gives the weights [N, R]. The backward pass needs only the weights: the encoding's
//! derivative is `−expm1(y)` for max-product (1 − σ(x) with y = log σ(x)), 1 for max-sum
//! and `y(1 − y)` for sum-product; u's gradient sums the rows of each symbol and b's all rows.

use super::Semiring;
use crate::model::nn::fused::{contiguous, values};
use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};

/// The fused weights of one batch's padded tokens (see the module doc).
#[derive(Debug)]
pub(crate) struct TransitionWeights {
    /// Each token's symbol id (a row of u).
    symbols: Vec<u32>,
    semiring: Semiring,
}

impl TransitionWeights {
    pub(crate) fn new(symbols: Vec<u32>, semiring: Semiring) -> TransitionWeights {
        TransitionWeights { symbols, semiring }
    }
}

/// [`Semiring::encode`] on one logit.
pub(crate) fn encode(semiring: Semiring, x: f32) -> f32 {
    match semiring {
        // As the tensors compute it: ln(1 + e^−|x|), not ln_1p.
        Semiring::MaxProduct => x.min(0.0) - (1.0 + (-x.abs()).exp()).ln(),
        Semiring::MaxSum => x,
        Semiring::SumProduct => 1.0 / (1.0 + (-x).exp()),
    }
}

/// The derivative of [`encode`] at the logit whose weight is `y`.
fn slope(semiring: Semiring, y: f32) -> f32 {
    match semiring {
        Semiring::MaxProduct => -y.exp_m1(),
        Semiring::MaxSum => 1.0,
        Semiring::SumProduct => y * (1.0 - y),
    }
}

impl CustomOp3 for TransitionWeights {
    fn name(&self) -> &'static str {
        "sopa-transition-weights"
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
        let op = "sopa transition weights";
        let (n, rows) = l1.shape().dims2()?;
        let (n_symbols, u_rows) = l2.shape().dims2()?;
        let products = contiguous(op, s1, l1, "w·v")?;
        let u = contiguous(op, s2, l2, "u")?;
        let bias = contiguous(op, s3, l3, "b")?;
        if u_rows != rows
            || bias.len() != rows
            || self.symbols.len() != n
            || self.symbols.iter().any(|&s| s as usize >= n_symbols)
        {
            candle_core::bail!("{op}: inputs of mismatched shapes");
        }
        let mut out = Vec::with_capacity(n * rows);
        for (token, &symbol) in self.symbols.iter().enumerate() {
            let u_row = &u[symbol as usize * rows..(symbol as usize + 1) * rows];
            let row = &products[token * rows..(token + 1) * rows];
            out.extend(
                row.iter()
                    .zip(u_row)
                    .zip(bias)
                    .map(|((p, u), b)| encode(self.semiring, p + u + b)),
            );
        }
        Ok((CpuStorage::F32(out), Shape::from((n, rows))))
    }

    fn bwd(
        &self,
        products: &Tensor,
        u: &Tensor,
        bias: &Tensor,
        res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (_, rows) = products.dims2()?;
        let weights: Vec<f32> = values(res)?;
        let mut grad: Vec<f32> = values(grad_res)?;
        for (g, &y) in grad.iter_mut().zip(&weights) {
            *g *= slope(self.semiring, y);
        }
        let mut grad_u = vec![0f32; u.elem_count()];
        let mut grad_bias = vec![0f32; rows];
        for (row, &symbol) in grad.chunks_exact(rows).zip(&self.symbols) {
            let start = symbol as usize * rows;
            for ((gu, gb), g) in grad_u[start..start + rows]
                .iter_mut()
                .zip(grad_bias.iter_mut())
                .zip(row)
            {
                *gu += g;
                *gb += g;
            }
        }
        Ok((
            Some(Tensor::from_vec(grad, products.shape(), products.device())?),
            Some(Tensor::from_vec(grad_u, u.shape(), u.device())?),
            Some(Tensor::from_vec(grad_bias, bias.shape(), bias.device())?),
        ))
    }
}
