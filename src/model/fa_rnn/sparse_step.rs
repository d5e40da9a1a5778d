//! The sparse path of a forward step of the plain-loop scorer (`scorer.rs`): without word
//! vectors a token vector z is the symbol's row of E_R, which the exact decomposition leaves
//! 0 but for the symbol's own rank-1 terms, so the step multiplies the state by D1 only in
//! the columns where z is not 0, a few K-long dot products instead of a K × r product.

use crate::model::nn::matmul::dot_lanes;

/// A token vector with at most 1/`SPARSE_TOKEN` of its entries nonzero takes the sparse
/// path of a forward step (dot products with the columns of D1 it needs).
const SPARSE_TOKEN: usize = 8;

/// `next[..k] = Σ_{j ∈ active} z[j]·(h · D1[:, j])·D2ᵀ[j, :]`: the products of a forward
/// step with a sparse token vector, `d1t` and `d2t` being D1ᵀ and D2ᵀ [r, K] row-major;
/// compiled for AVX2 and FMA where the processor has them.
pub(super) fn sparse_product(
    h: &[f32],
    z: &[f32],
    active: &[usize],
    (d1t, d2t): (&[f32], &[f32]),
    next: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the processor has the instructions the function is compiled for.
            unsafe { sparse_product_avx2(h, z, active, (d1t, d2t), next) };
            return;
        }
    }
    sparse_product_any(h, z, active, (d1t, d2t), next);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn sparse_product_avx2(
    h: &[f32],
    z: &[f32],
    active: &[usize],
    factors: (&[f32], &[f32]),
    next: &mut [f32],
) {
    sparse_product_any(h, z, active, factors, next);
}

/// [`sparse_product`] in portable code, each dot product [`dot_lanes`].
#[inline(always)]
fn sparse_product_any(
    h: &[f32],
    z: &[f32],
    active: &[usize],
    (d1t, d2t): (&[f32], &[f32]),
    next: &mut [f32],
) {
    let k = h.len();
    next.fill(0.0);
    for &j in active {
        let u = dot_lanes(h, &d1t[j * k..(j + 1) * k]) * z[j];
        for (n, &d) in next[..k].iter_mut().zip(&d2t[j * k..(j + 1) * k]) {
            *n = u.mul_add(d, *n);
        }
    }
}

/// A token as a step reads it: its vector z and, when few of z's entries are nonzero,
/// their indices (the sparse path of a forward step).
#[derive(Debug, Clone, Copy)]
pub(super) struct TokenInput<'a> {
    pub(super) z: &'a [f32],
    pub(super) sparse: Option<&'a [usize]>,
}

/// The indices of `z`'s nonzero entries into `out`; whether they are few enough for the
/// sparse path.
pub(super) fn sparse_entries(z: &[f32], out: &mut Vec<usize>) -> bool {
    out.clear();
    out.extend((0..z.len()).filter(|&j| z[j] != 0.0));
    out.len() * SPARSE_TOKEN <= z.len()
}
