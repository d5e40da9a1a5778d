//! Label probabilities from a network's logits, as every family's plain scorer reports them,
//! and the temperature that calibrates them ([`calibrate`]).

/// The softmax of `logits` times `scale` (the training setting `logit_scale`).
pub fn softmax(logits: &[f32], scale: f64) -> Vec<f64> {
    let scaled: Vec<f64> = logits.iter().map(|&l| scale * f64::from(l)).collect();
    let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = scaled.iter().map(|&l| (l - max).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// The lowest and highest temperature [`calibrate`] fits. It only softens: on a
/// small dev that the network gets right but for near ties, the log loss falls as T falls,
/// without bound (a spam filter of 30 dev lines fitted the old floor, 0.01), and on the
/// hundred-line proxies the 29 of 432 runs whose dev wanted T under 1 (0.37 at the least)
/// had a lower test log loss at 1 (0.588 against 0.613; `docs/results.md`, "SoPa with the
/// n-gram regression").
pub const TEMPERATURE_RANGE: (f64, f64) = (1.0, 100.0);

/// A temperature fitted on labeled lines ([`calibrate`]) and the mean log loss of the
/// probabilities there at it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    pub temperature: f64,
    pub log_loss: f64,
}

/// The temperature T in [`TEMPERATURE_RANGE`] whose probabilities `softmax(logits, scale / T)`
/// have the smallest mean log loss on the lines with a label (Guo et al. 2017's temperature
/// scaling), and that log loss. Dividing every logit by one positive number changes no
/// prediction, only how sure the probabilities are. The log loss is convex in 1 / T, so a
/// golden-section search over ln T finds it to within 0.1 %. `None` without a labeled line.
pub fn calibrate(lines: &[(Vec<f32>, Option<usize>)], scale: f64) -> Option<Calibration> {
    let labeled: Vec<(&[f32], usize)> = lines
        .iter()
        .filter_map(|(logits, label)| {
            label
                .filter(|&label| label < logits.len())
                .map(|label| (logits.as_slice(), label))
        })
        .collect();
    if labeled.is_empty() {
        return None;
    }
    let loss = |ln_t: f64| -> f64 {
        let scale = scale / ln_t.exp();
        labeled
            .iter()
            .map(|&(logits, label)| -softmax(logits, scale)[label].max(f64::MIN_POSITIVE).ln())
            .sum::<f64>()
            / labeled.len() as f64
    };
    let (mut low, mut high) = (TEMPERATURE_RANGE.0.ln(), TEMPERATURE_RANGE.1.ln());
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    while high - low > 1e-3 {
        let (a, b) = (high - ratio * (high - low), low + ratio * (high - low));
        if loss(a) <= loss(b) {
            high = b;
        } else {
            low = a;
        }
    }
    let ln_t = (low + high) / 2.0;
    Some(Calibration {
        temperature: ln_t.exp(),
        log_loss: loss(ln_t),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines whose label is drawn from softmax(z / 2): the fit finds 2, and the fitted
    /// probabilities keep every line's most probable label.
    #[test]
    fn the_fitted_temperature_is_the_one_the_labels_were_drawn_at() {
        let mut state = 7u64;
        let mut uniform = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let lines: Vec<(Vec<f32>, Option<usize>)> = (0..20_000)
            .map(|_| {
                let logits: Vec<f32> = (0..3).map(|_| (6.0 * uniform() - 3.0) as f32).collect();
                let probabilities = softmax(&logits, 0.5);
                let draw = uniform();
                let mut sum = 0.0;
                let label = probabilities
                    .iter()
                    .position(|p| {
                        sum += p;
                        draw < sum
                    })
                    .unwrap_or(2);
                (logits, Some(label))
            })
            .collect();
        let t = calibrate(&lines, 1.0).unwrap().temperature;
        assert!((t - 2.0).abs() < 0.1, "{t}");
        for (logits, _) in &lines {
            let argmax = |p: &[f64]| (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap();
            assert_eq!(
                argmax(&softmax(logits, 1.0)),
                argmax(&softmax(logits, 1.0 / t))
            );
        }
    }

    /// Lines the logits get right, and one exact tie: the log loss would fall without bound
    /// as T falls, and the fit stops at the floor, 1.
    #[test]
    fn a_dev_the_network_gets_right_is_not_sharpened() {
        let mut lines: Vec<(Vec<f32>, Option<usize>)> = (0..30)
            .map(|i| (vec![0.0, 5.0 + i as f32], Some(1)))
            .collect();
        lines.push((vec![0.0, 0.0], Some(1)));
        let t = calibrate(&lines, 10.0).unwrap().temperature;
        assert!(
            (TEMPERATURE_RANGE.0..TEMPERATURE_RANGE.0 * 1.001).contains(&t),
            "{t}"
        );
        // The same lines with some confidently wrong: softer than the logit scale.
        lines.extend((0..10).map(|_| (vec![0.0, 5.0], Some(0))));
        assert!(calibrate(&lines, 10.0).unwrap().temperature > 2.0);
    }

    #[test]
    fn without_a_labeled_line_there_is_nothing_to_fit() {
        assert_eq!(calibrate(&[(vec![1.0, 2.0], None)], 10.0), None);
        assert_eq!(calibrate(&[], 10.0), None);
    }
}
