//! SoPa's semirings (Schwartz et al. 2018, §3; papers-brief §2.3): how a transition's
//! logit becomes a weight, how weights combine along a path (⊗) and across paths (⊕), and
//! how a pattern's document score becomes a feature. The two max semirings live in log
//! space, so ⊗ is a sum in both; `ZERO` (−100) stands in for −∞ as in the reference code.

use candle_core::{Result, Tensor};
use serde::{Deserialize, Serialize};

/// How a soft pattern scores a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Semiring {
    /// The best path, its weight the product of the transitions' probabilities σ(x)
    /// (kept as a sum of log σ(x)): the paper's model.
    MaxProduct,
    /// The best path, its weight the sum of the transitions' logits.
    MaxSum,
    /// The sum over all paths of the product of σ(x): an expected match count.
    SumProduct,
}

/// The log-space stand-in for −∞.
const LOG_ZERO: f64 = -100.0;

impl Semiring {
    /// Whether ⊕ is a maximum (and weights are logs, ⊗ a sum).
    pub fn is_max(self) -> bool {
        !matches!(self, Semiring::SumProduct)
    }

    /// The semiring's zero, the weight of no path.
    pub fn zero(self) -> f64 {
        if self.is_max() { LOG_ZERO } else { 0.0 }
    }

    /// The semiring's one, the weight of the empty path.
    pub fn one(self) -> f64 {
        if self.is_max() { 0.0 } else { 1.0 }
    }

    /// The logit a rule's hard transition starts with where it accepts the token (`on`)
    /// and where it does not: its weight is then one (≈ 1 in probability) or ≈ zero.
    pub fn hard_logit(self, on: bool) -> f32 {
        match (self, on) {
            (Semiring::MaxSum, true) => 0.0,
            (_, true) => HARD_LOGIT,
            (_, false) => -HARD_LOGIT,
        }
    }

    /// Transition logits → weights.
    pub fn encode(self, logits: &Tensor) -> Result<Tensor> {
        match self {
            // log σ(x) = min(x, 0) − log(1 + e^−|x|), stable for every x.
            Semiring::MaxProduct => {
                let tail = (logits.abs()?.neg()?.exp()? + 1.0)?.log()?;
                logits.minimum(0f32)? - tail
            }
            Semiring::MaxSum => Ok(logits.clone()),
            Semiring::SumProduct => candle_nn::ops::sigmoid(logits),
        }
    }

    /// a ⊗ b.
    pub fn times(self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if self.is_max() {
            a.broadcast_add(b)
        } else {
            a.broadcast_mul(b)
        }
    }

    /// a ⊕ b.
    pub fn plus(self, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if self.is_max() {
            a.broadcast_maximum(b)
        } else {
            a.broadcast_add(b)
        }
    }

    /// A document score → the truth a rule's pattern feeds the label logic: the best
    /// path's probability in the max semirings (≈ 1 on a match of hard transitions, ≈ 0
    /// elsewhere), the expected count in sum-product (clamped to [0, 1] by the logic).
    pub fn truth(self, score: &Tensor) -> Result<Tensor> {
        if self.is_max() {
            score.minimum(0f32)?.exp()
        } else {
            Ok(score.clone())
        }
    }

    /// A document score → the feature a learned pattern feeds the classifier head (the
    /// reference code's `to_float`).
    pub fn feature(self, score: &Tensor) -> Result<Tensor> {
        match self {
            Semiring::MaxProduct => score.exp(),
            Semiring::MaxSum | Semiring::SumProduct => Ok(score.clone()),
        }
    }
}

/// The size of a hard transition's logit: σ(10) ≈ 1 − 4.5·10⁻⁵.
pub const HARD_LOGIT: f32 = 10.0;

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn log_sigmoid_is_stable_at_both_ends() {
        let x = Tensor::new(&[-200f32, -10.0, 0.0, 10.0, 200.0], &Device::Cpu).unwrap();
        let y: Vec<f32> = Semiring::MaxProduct.encode(&x).unwrap().to_vec1().unwrap();
        let expected = [-200.0, -10.000045, -std::f32::consts::LN_2, -4.54e-5, 0.0];
        for (a, b) in y.iter().zip(expected) {
            assert!((a - b).abs() < 1e-4, "{y:?}");
        }
    }
}
