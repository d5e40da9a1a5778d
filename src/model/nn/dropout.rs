//! Dropout with masks drawn from the seeded generator, so that training runs are
//! reproducible on every platform (candle's own dropout draws from its own generator).

use crate::model::nn::rng::SplitMix64;
use candle_core::{Result, Tensor};

/// `x` with each entry kept with probability 1 − p and scaled by 1/(1 − p), the mask drawn
/// from `rng`; `x` itself without one (inference) or at p = 0.
pub(crate) fn dropped(x: &Tensor, p: f64, rng: Option<&mut SplitMix64>) -> Result<Tensor> {
    let Some(rng) = rng.filter(|_| p > 0.0) else {
        return Ok(x.clone());
    };
    let scale = (1.0 / (1.0 - p)) as f32;
    let keep: Vec<f32> = (0..x.elem_count())
        .map(|_| if rng.next_f64() < p { 0.0 } else { scale })
        .collect();
    x * Tensor::from_vec(keep, x.shape(), x.device())?
}
