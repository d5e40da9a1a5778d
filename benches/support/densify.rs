//! Trained-looking factors for the benchmarks that time an FA-RNN's kernels.

use candle_core::{Device, Tensor};
use rulelens::model::{FaRnn, SplitMix64};

/// Adds small seeded noise to every entry of D1 and D2, as training leaves them: the exact
/// decomposition's factors and the states they produce are mostly zeros, which the scoring
/// kernels and the stepwise Viterbi step's backward pass skip, so timing them would flatter
/// a trained network's speed.
pub fn densify(net: &FaRnn) {
    let mut rng = SplitMix64::new(11);
    for var in &net.trainable()[..2] {
        let values: Vec<f32> = var.flatten_all().expect("factor").to_vec1().expect("f32");
        let noisy: Vec<f32> = values
            .iter()
            .map(|x| x + 1e-3 * (rng.next_f64() as f32 - 0.5))
            .collect();
        let tensor = Tensor::from_vec(noisy, var.shape(), &Device::Cpu);
        var.set(&tensor.expect("same shape")).expect("set");
    }
}
