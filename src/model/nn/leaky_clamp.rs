//! A clamp that is exact in value and leaks in gradient: the soft-logic operators of the
//! aggregation and the bound on FA-RNN states both use it.
//!
//! `clamp(x, low, high)` cuts a value off its range, and a plain clamp's gradient is 0
//! outside the range, so a value pushed out by training would never come back. Here the
//! value is the exact clamp (so that logic stays exact on 0/1 inputs) and the gradient is
//! [`LEAK`] instead of 0 outside the range.

use candle_core::{Result, Tensor};

/// The slope of the clamps outside their range.
pub const LEAK: f64 = 0.01;

/// `clamp(x, low, high)` in value, with gradient 1 inside the closed range and [`LEAK`]
/// (instead of 0) outside it. At the bounds themselves the gradient is 1: the rules' own
/// network has states and scores of exactly 0 and 1, and candle's `clamp` would halve their
/// gradient there (it splits a tie of `maximum` between its arguments), once per step.
pub(crate) fn leaky_clamp(x: &Tensor, low: f64, high: f64) -> Result<Tensor> {
    let (low, high) = (low as f32, high as f32);
    let clamped = x.clamp(low, high)?.detach();
    let inside = x.ge(low)?.mul(&x.le(high)?)?.to_dtype(x.dtype())?;
    let slope = inside.affine(1.0 - LEAK, LEAK)?;
    let linear = (x * slope)?;
    // `linear − detach(linear)` is exactly 0 in value and has the slope as its gradient.
    clamped + (&linear - linear.detach())?
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn clamps_are_exact_in_value_and_leak_in_gradient() {
        let x = Var::new(&[-0.5f32, 0.0, 0.5, 1.0, 1.5], &Device::Cpu).unwrap();
        let y = leaky_clamp(x.as_tensor(), 0.0, 1.0).unwrap();
        assert_eq!(y.to_vec1::<f32>().unwrap(), [0.0, 0.0, 0.5, 1.0, 1.0]);
        let grads = y.sum_all().unwrap().backward().unwrap();
        let dx: Vec<f32> = grads.get(x.as_tensor()).unwrap().to_vec1().unwrap();
        let leak = LEAK as f32;
        assert_eq!(dx, [leak, 1.0, 1.0, 1.0, leak]);
    }
}
