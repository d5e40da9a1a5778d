//! Label probabilities from a network's logits, as every family's plain scorer reports them.

/// The softmax of `logits` times `scale` (the training setting `logit_scale`).
pub fn softmax(logits: &[f32], scale: f64) -> Vec<f64> {
    let scaled: Vec<f64> = logits.iter().map(|&l| scale * f64::from(l)).collect();
    let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = scaled.iter().map(|&l| (l - max).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}
