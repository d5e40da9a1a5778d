//! Multinomial logistic regression on sparse rows, as scikit-learn's `LogisticRegression`
//! fits it: the summed log-loss plus ‖W‖² / (2C) (C the inverse strength; the biases are
//! not penalised), minimised by L-BFGS with a backtracking line search to a small gradient,
//! from zero, so that a fit is deterministic. C is chosen from [`C_GRID`] on selection
//! lines, by their accuracy or their log loss ([`SoftmaxRegression::fit_chosen`]). Plain
//! loops over sparse rows: candle has no sparse product, and the rows of a tf-idf matrix are
//! mostly empty. Read by the plain baselines (C by accuracy) and by the n-gram regression
//! beside the networks (C by log loss). A train row is taught its label, or a probability
//! for each label (a line the label model labeled: the cross-entropy against that
//! distribution).

/// A line's features: (feature index, value), sparse.
pub type SparseRow = Vec<(u32, f32)>;

/// What a train row is taught.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Its label.
    Label(usize),
    /// A probability for each label.
    Distribution(Vec<f32>),
}

impl Target {
    /// The target's probability of label `c`.
    fn probability(&self, c: usize) -> f64 {
        match self {
            Target::Label(label) => f64::from(u8::from(c == *label)),
            Target::Distribution(probabilities) => {
                probabilities.get(c).copied().map_or(0.0, f64::from)
            }
        }
    }
}

/// The inverse regularisation strengths tried (scikit-learn's C).
pub const C_GRID: [f64; 5] = [0.01, 0.1, 1.0, 10.0, 100.0];

/// How [`SoftmaxRegression::fit_chosen`] judges a C on the selection lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// The share predicted right, as scikit-learn's grid search scores a classifier (ties
    /// go to the smaller C).
    Accuracy,
    /// The mean log loss of the lines with a label the model knows: on fifty or a hundred
    /// lines accuracy moves in steps of a line and ties at many C, the loss does not.
    LogLoss,
}

/// The most L-BFGS iterations of one fit.
const MAX_ITERATIONS: usize = 300;

/// A fitted softmax regression: weights [F × C] row-major, then the C biases.
pub struct SoftmaxRegression {
    theta: Vec<f64>,
    n_features: usize,
    n_labels: usize,
    /// The inverse regularisation strength it was fitted with.
    pub c: f64,
}

impl SoftmaxRegression {
    /// Fits one regression per C of [`C_GRID`] and keeps the one `criterion` judges best
    /// on `selection` (ties go to the stronger regularisation, the smaller C), with its
    /// accuracy there; `None` without train rows or labels.
    pub fn fit_chosen(
        train: &[(SparseRow, Target)],
        n_features: usize,
        n_labels: usize,
        selection: &[(SparseRow, Option<usize>)],
        criterion: Selection,
    ) -> Option<(f64, SoftmaxRegression)> {
        if train.is_empty() || n_labels == 0 {
            return None;
        }
        let mut best: Option<(f64, SoftmaxRegression)> = None;
        for c in C_GRID {
            let model = SoftmaxRegression::fit(train, n_features, n_labels, c);
            let score = match criterion {
                Selection::Accuracy => model.accuracy(selection),
                Selection::LogLoss => -model.log_loss(selection),
            };
            if best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, model));
            }
        }
        best.map(|(_, model)| (model.accuracy(selection), model))
    }

    /// Minimises Σ log-loss + ‖W‖² / (2c) by L-BFGS (memory 10) with Armijo backtracking,
    /// from zero, until the gradient's largest entry is under 1e-5 per train line or
    /// [`MAX_ITERATIONS`].
    pub fn fit(
        rows: &[(SparseRow, Target)],
        n_features: usize,
        n_labels: usize,
        c: f64,
    ) -> SoftmaxRegression {
        let mut model = SoftmaxRegression {
            theta: vec![0.0; (n_features + 1) * n_labels],
            n_features,
            n_labels,
            c,
        };
        let tolerance = 1e-5 * rows.len() as f64;
        let (mut value, mut gradient) = model.loss(rows, &model.theta);
        let mut history: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::new();
        for _ in 0..MAX_ITERATIONS {
            if gradient.iter().all(|g| g.abs() <= tolerance) {
                break;
            }
            // Two-loop recursion: the search direction −H·g.
            let mut q = gradient.clone();
            let mut alphas = Vec::with_capacity(history.len());
            for (s, y, rho) in history.iter().rev() {
                let alpha = rho * dot(s, &q);
                axpy(-alpha, y, &mut q);
                alphas.push(alpha);
            }
            if let Some((s, y, _)) = history.last() {
                let gamma = dot(s, y) / dot(y, y);
                q.iter_mut().for_each(|x| *x *= gamma);
            }
            for ((s, y, rho), alpha) in history.iter().zip(alphas.into_iter().rev()) {
                let beta = rho * dot(y, &q);
                axpy(alpha - beta, s, &mut q);
            }
            let mut direction: Vec<f64> = q.into_iter().map(|x| -x).collect();
            let mut slope = dot(&gradient, &direction);
            if slope >= 0.0 {
                // Not a descent direction: restart from the gradient.
                history.clear();
                direction = gradient.iter().map(|g| -g).collect();
                slope = -dot(&gradient, &gradient);
            }
            let mut step = if history.is_empty() {
                1.0 / gradient.iter().map(|g| g.abs()).fold(1.0, f64::max)
            } else {
                1.0
            };
            let mut accepted = None;
            for _ in 0..40 {
                let mut candidate = model.theta.clone();
                axpy(step, &direction, &mut candidate);
                let (candidate_value, candidate_gradient) = model.loss(rows, &candidate);
                if candidate_value <= value + 1e-4 * step * slope {
                    accepted = Some((candidate, candidate_value, candidate_gradient));
                    break;
                }
                step *= 0.5;
            }
            let Some((theta, new_value, new_gradient)) = accepted else {
                break;
            };
            let s: Vec<f64> = theta.iter().zip(&model.theta).map(|(a, b)| a - b).collect();
            let y: Vec<f64> = new_gradient
                .iter()
                .zip(&gradient)
                .map(|(a, b)| a - b)
                .collect();
            let sy = dot(&s, &y);
            if sy > 1e-12 {
                history.push((s, y, 1.0 / sy));
                if history.len() > 10 {
                    history.remove(0);
                }
            }
            model.theta = theta;
            value = new_value;
            gradient = new_gradient;
        }
        model
    }

    /// The weights, [F × C] row-major, and the C biases.
    pub fn weights(&self) -> (&[f64], &[f64]) {
        self.theta.split_at(self.n_features * self.n_labels)
    }

    /// The logits of a row under `theta`.
    fn logits(&self, theta: &[f64], row: &[(u32, f32)]) -> Vec<f64> {
        let k = self.n_labels;
        let mut logits = theta[self.n_features * k..].to_vec();
        for &(feature, x) in row {
            let weights = &theta[feature as usize * k..(feature as usize + 1) * k];
            for (l, w) in logits.iter_mut().zip(weights) {
                *l += w * f64::from(x);
            }
        }
        logits
    }

    /// The objective and its gradient at `theta`.
    fn loss(&self, rows: &[(SparseRow, Target)], theta: &[f64]) -> (f64, Vec<f64>) {
        let k = self.n_labels;
        let weights = self.n_features * k;
        let mut gradient = vec![0.0; theta.len()];
        let mut value = 0.0;
        for (row, target) in rows {
            let logits = self.logits(theta, row);
            let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let exp: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
            let sum: f64 = exp.iter().sum();
            value += match target {
                Target::Label(label) => sum.ln() + max - logits[*label],
                Target::Distribution(_) => (0..k)
                    .map(|c| target.probability(c) * (sum.ln() + max - logits[c]))
                    .sum(),
            };
            let residual: Vec<f64> = exp
                .iter()
                .enumerate()
                .map(|(c, e)| e / sum - target.probability(c))
                .collect();
            for &(feature, x) in row {
                let g = &mut gradient[feature as usize * k..(feature as usize + 1) * k];
                for (g, r) in g.iter_mut().zip(&residual) {
                    *g += r * f64::from(x);
                }
            }
            for (g, r) in gradient[weights..].iter_mut().zip(&residual) {
                *g += r;
            }
        }
        for (g, w) in gradient[..weights].iter_mut().zip(&theta[..weights]) {
            *g += w / self.c;
        }
        value += theta[..weights].iter().map(|w| w * w).sum::<f64>() / (2.0 * self.c);
        (value, gradient)
    }

    /// The probability of each label for `row`.
    pub fn probabilities(&self, row: &[(u32, f32)]) -> Vec<f32> {
        let logits = self.logits(&self.theta, row);
        let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exp: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f64 = exp.iter().sum();
        exp.iter().map(|e| (e / sum) as f32).collect()
    }

    /// The mean negative log-probability of the label, over the `rows` with a label the
    /// model knows (0 for none).
    pub fn log_loss(&self, rows: &[(SparseRow, Option<usize>)]) -> f64 {
        let (sum, n) = rows
            .iter()
            .filter_map(|(row, label)| {
                label
                    .filter(|&label| label < self.n_labels)
                    .map(|l| (row, l))
            })
            .fold((0.0, 0usize), |(sum, n), (row, label)| {
                let logits = self.logits(&self.theta, row);
                let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let log_sum = logits.iter().map(|l| (l - max).exp()).sum::<f64>().ln() + max;
                (sum + log_sum - logits[label], n + 1)
            });
        if n == 0 { 0.0 } else { sum / n as f64 }
    }

    /// The share of `rows` predicted right (a row without a label the model knows is wrong;
    /// 0 for none).
    pub fn accuracy(&self, rows: &[(SparseRow, Option<usize>)]) -> f64 {
        if rows.is_empty() {
            return 0.0;
        }
        let correct = rows
            .iter()
            .filter(|(row, label)| {
                let logits = self.logits(&self.theta, row);
                let mut best = 0;
                for (c, &l) in logits.iter().enumerate() {
                    if l > logits[best] {
                        best = c;
                    }
                }
                *label == Some(best)
            })
            .count();
        correct as f64 / rows.len() as f64
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `y += a·x`.
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logistic_regression_reaches_the_optimum_and_separates_what_is_separable() {
        // Label 1 exactly when feature 0 is larger than feature 1.
        let rows: Vec<(SparseRow, Target)> = (0..40)
            .map(|i| {
                let (x, y) = ((i % 7) as f32 / 7.0, (i % 5) as f32 / 5.0 + 0.01);
                (vec![(0, x), (1, y)], Target::Label(usize::from(x > y)))
            })
            .collect();
        let model = SoftmaxRegression::fit(&rows, 2, 2, 100.0);
        let (_, gradient) = model.loss(&rows, &model.theta);
        assert!(
            gradient.iter().all(|g| g.abs() <= 1e-5 * rows.len() as f64),
            "{gradient:?}"
        );
        let labeled: Vec<(SparseRow, Option<usize>)> = rows
            .iter()
            .map(|(row, target)| match target {
                Target::Label(label) => (row.clone(), Some(*label)),
                Target::Distribution(_) => unreachable!(),
            })
            .collect();
        assert!(model.accuracy(&labeled) >= 0.95);
        // A line whose label the model does not know is an error.
        assert_eq!(model.accuracy(&[(vec![(0, 1.0)], None)]), 0.0);
        let (weights, biases) = model.weights();
        assert_eq!((weights.len(), biases.len()), (4, 2));
    }

    /// Where every C predicts the selection lines right, accuracy ties and keeps the
    /// smallest C; the log loss keeps the C whose probabilities are surest of the right
    /// labels, and it is the lowest loss of the grid.
    #[test]
    fn the_log_loss_chooses_among_c_where_accuracy_ties() {
        let line = |i: usize| {
            let label = i % 2;
            (vec![(label as u32, 1.0), (2, (i % 3) as f32)], label)
        };
        let train: Vec<(SparseRow, Target)> = (0..20)
            .map(|i| {
                let (row, label) = line(i);
                (row, Target::Label(label))
            })
            .collect();
        let selection: Vec<(SparseRow, Option<usize>)> = (0..6)
            .map(|i| {
                let (row, label) = line(i);
                (row, Some(label))
            })
            .collect();
        let chosen =
            |criterion| SoftmaxRegression::fit_chosen(&train, 3, 2, &selection, criterion).unwrap();
        let (accuracy, by_accuracy) = chosen(Selection::Accuracy);
        assert_eq!((accuracy, by_accuracy.c), (1.0, C_GRID[0]));
        let (accuracy, by_loss) = chosen(Selection::LogLoss);
        assert_eq!(accuracy, 1.0);
        assert!(by_loss.c > C_GRID[0], "{}", by_loss.c);
        for c in C_GRID {
            let loss = SoftmaxRegression::fit(&train, 3, 2, c).log_loss(&selection);
            assert!(by_loss.log_loss(&selection) <= loss, "C {c}: {loss}");
        }
        // Lines whose label the model does not know are left out of the loss.
        let mut unknown = selection.clone();
        unknown.push((vec![(0, 1.0)], None));
        unknown.push((vec![(0, 1.0)], Some(7)));
        assert_eq!(by_loss.log_loss(&unknown), by_loss.log_loss(&selection));
        assert_eq!(by_loss.log_loss(&[]), 0.0);
    }

    /// A row taught a distribution learns it: the fit's probabilities are the target's where
    /// the features can say them, and a one-hot distribution teaches what its label does.
    #[test]
    fn soft_targets_are_learned_as_distributions() {
        let rows = vec![
            (vec![(0, 1.0)], Target::Distribution(vec![0.8, 0.2])),
            (vec![(1, 1.0)], Target::Distribution(vec![0.1, 0.9])),
        ];
        let model = SoftmaxRegression::fit(&rows, 2, 2, 1e6);
        let probability = |row: &[(u32, f32)]| {
            let logits = model.logits(&model.theta, row);
            1.0 / (1.0 + (logits[0] - logits[1]).exp())
        };
        assert!((probability(&[(0, 1.0)]) - 0.2).abs() < 1e-3);
        assert!((probability(&[(1, 1.0)]) - 0.9).abs() < 1e-3);
        let hard = vec![(vec![(0, 1.0)], Target::Label(1))];
        let one_hot = vec![(vec![(0, 1.0)], Target::Distribution(vec![0.0, 1.0]))];
        assert_eq!(
            SoftmaxRegression::fit(&hard, 1, 2, 1.0).theta,
            SoftmaxRegression::fit(&one_hot, 1, 2, 1.0).theta
        );
    }
}
