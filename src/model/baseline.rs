//! Plain baselines, what any ML engineer tries first: multinomial logistic regression on a
//! sentence's mean word vector, and on its tf-idf unigrams and bigrams. `rulelens bench`
//! lays them beside the networks, so that a user sees at once whether a network beats them.
//!
//! - Mean word vectors: the average of the sentence's tokens' vectors (the networks' own
//!   vocabulary and vectors: the bundled GloVe table or `--embeddings`), 0 for an empty one.
//! - tf-idf: as scikit-learn's `TfidfVectorizer(ngram_range=(1, 2))` builds it by default:
//!   lowercased tokens (the rules' tokenizer) and their bigrams seen in train, raw counts
//!   times idf = ln((1 + n) / (1 + df)) + 1, each row scaled to unit length.
//! - The model: softmax regression with a bias, minimising the summed log-loss plus
//!   ‖W‖² / (2C) (scikit-learn's `LogisticRegression`, whose C is the inverse strength), by
//!   L-BFGS with a backtracking line search to a small gradient. C is chosen from
//!   [`C_GRID`] by accuracy on the selection lines (dev, as the networks stop early on it;
//!   ties go to the stronger regularisation), so there is no seed: the result is
//!   deterministic.
//!
//! Features are sparse rows in plain loops (candle has no sparse product, and a tf-idf
//! matrix of reviews would be dense in the hundreds of megabytes).

use crate::model::nn::embeddings::{Vocabulary, WordVectors};
use crate::text::Tokens;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Baseline {
    /// Logistic regression on the sentence's mean word vector.
    #[serde(rename = "logreg-vectors")]
    MeanVectors,
    /// Logistic regression on tf-idf unigrams and bigrams.
    #[serde(rename = "logreg-tfidf")]
    Tfidf,
}

impl Baseline {
    pub const ALL: [Baseline; 2] = [Baseline::MeanVectors, Baseline::Tfidf];

    /// The name `rulelens bench --models` takes.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::MeanVectors => "logreg-vectors",
            Baseline::Tfidf => "logreg-tfidf",
        }
    }

    /// The name a table shows.
    pub fn display_name(self) -> &'static str {
        match self {
            Baseline::MeanVectors => "logistic regression, mean word vector",
            Baseline::Tfidf => "logistic regression, tf-idf 1–2-grams",
        }
    }
}

/// The inverse regularisation strengths tried (scikit-learn's C).
pub const C_GRID: [f64; 5] = [0.01, 0.1, 1.0, 10.0, 100.0];

/// The most L-BFGS iterations of one fit.
const MAX_ITERATIONS: usize = 300;

/// A line's features: (feature index, value), sparse.
type Row = Vec<(u32, f32)>;

/// A line as a baseline reads it: its text and its label's index, `None` for a label the
/// baseline does not know (it then counts as an error).
pub type BaselineLine<'a> = (&'a str, Option<usize>);

/// What fitting a baseline found.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineFit {
    /// The C chosen.
    pub c: f64,
    /// How many features a line has room for (the vectors' dimension, or the train n-grams).
    pub n_features: usize,
    /// Accuracy on the selection lines with the chosen C.
    pub selection_accuracy: f64,
    /// Accuracy on the measured lines.
    pub accuracy: f64,
}

/// Fits `baseline` on `train` (labels in `0..n_labels`), chooses C on `selection` and
/// measures `measured`; `words` gives the vocabulary and vectors the mean-vector baseline
/// reads. `None` without train lines, or without `words` for the mean-vector baseline.
pub fn fit_baseline(
    baseline: Baseline,
    n_labels: usize,
    train: &[BaselineLine],
    selection: &[BaselineLine],
    measured: &[BaselineLine],
    words: Option<(&Vocabulary, &WordVectors)>,
) -> Option<BaselineFit> {
    let features = match baseline {
        Baseline::MeanVectors => {
            let (vocabulary, vectors) = words?;
            Features::MeanVector(vocabulary, vectors)
        }
        Baseline::Tfidf => Features::Tfidf(Tfidf::new(train.iter().map(|(text, _)| *text))),
    };
    let n_features = features.len();
    let rows = |lines: &[BaselineLine]| -> Vec<(Row, Option<usize>)> {
        lines
            .iter()
            .map(|(text, label)| (features.row(text), *label))
            .collect()
    };
    let train_rows: Vec<(Row, usize)> = rows(train)
        .into_iter()
        .filter_map(|(row, label)| Some((row, label?)))
        .collect();
    if train_rows.is_empty() || n_labels == 0 {
        return None;
    }
    let (selection_rows, measured_rows) = (rows(selection), rows(measured));
    let mut best: Option<(f64, Softmax)> = None;
    for c in C_GRID {
        let model = Softmax::fit(&train_rows, n_features, n_labels, c);
        let accuracy = model.accuracy(&selection_rows);
        if best.as_ref().is_none_or(|(a, _)| accuracy > *a) {
            best = Some((accuracy, model));
        }
    }
    let (selection_accuracy, model) = best?;
    Some(BaselineFit {
        c: model.c,
        n_features,
        selection_accuracy,
        accuracy: model.accuracy(&measured_rows),
    })
}

/// How a baseline turns a line into a feature row.
enum Features<'a> {
    MeanVector(&'a Vocabulary, &'a WordVectors),
    Tfidf(Tfidf),
}

impl Features<'_> {
    fn len(&self) -> usize {
        match self {
            Features::MeanVector(_, vectors) => vectors.dim,
            Features::Tfidf(tfidf) => tfidf.len(),
        }
    }

    fn row(&self, text: &str) -> Row {
        match self {
            Features::MeanVector(vocabulary, vectors) => mean_vector(text, vocabulary, vectors),
            Features::Tfidf(tfidf) => tfidf.row(text),
        }
    }
}

/// The mean of `text`'s tokens' word vectors, as a sparse row of every dimension.
fn mean_vector(text: &str, vocabulary: &Vocabulary, vectors: &WordVectors) -> Row {
    let dim = vectors.dim;
    let mut sum = vec![0f32; dim];
    let mut tokens = Tokens::default();
    tokens.tokenize(text);
    for token in tokens.iter() {
        let id = vocabulary.id(token.text) as usize;
        for (s, &x) in sum.iter_mut().zip(&vectors.data[id * dim..(id + 1) * dim]) {
            *s += x;
        }
    }
    let scale = 1.0 / tokens.len().max(1) as f32;
    sum.into_iter()
        .enumerate()
        .map(|(i, s)| (i as u32, s * scale))
        .collect()
}

/// tf-idf over the unigrams and bigrams of a train corpus.
struct Tfidf {
    /// Feature index and idf of each n-gram seen in train.
    features: HashMap<String, (u32, f32)>,
}

impl Tfidf {
    fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Tfidf {
        let mut df: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut n = 0usize;
        for text in texts {
            n += 1;
            let mut seen: Vec<String> = ngrams(text);
            seen.sort();
            seen.dedup();
            for gram in seen {
                let count = df.entry(gram.clone()).or_insert(0);
                if *count == 0 {
                    order.push(gram);
                }
                *count += 1;
            }
        }
        let features = order
            .into_iter()
            .enumerate()
            .map(|(i, gram)| {
                let idf = ((1.0 + n as f64) / (1.0 + df[&gram] as f64)).ln() + 1.0;
                (gram, (i as u32, idf as f32))
            })
            .collect();
        Tfidf { features }
    }

    fn len(&self) -> usize {
        self.features.len()
    }

    /// `text`'s tf-idf row, unit length (empty when it has no train n-gram).
    fn row(&self, text: &str) -> Row {
        let mut counts: HashMap<u32, (f32, f32)> = HashMap::new();
        for gram in ngrams(text) {
            if let Some(&(index, idf)) = self.features.get(&gram) {
                counts.entry(index).or_insert((0.0, idf)).0 += 1.0;
            }
        }
        let mut row: Vec<(u32, f32)> = counts
            .into_iter()
            .map(|(index, (count, idf))| (index, count * idf))
            .collect();
        row.sort_by_key(|&(index, _)| index);
        let norm = row.iter().map(|(_, x)| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, x) in &mut row {
                *x /= norm;
            }
        }
        row
    }
}

/// A text's lowercased tokens and its bigrams (two tokens joined by a space).
fn ngrams(text: &str) -> Vec<String> {
    let mut tokens = Tokens::default();
    tokens.tokenize(text);
    let words: Vec<String> = tokens.iter().map(|t| t.text.to_lowercase()).collect();
    let mut grams = words.clone();
    grams.extend(
        words
            .windows(2)
            .map(|pair| format!("{} {}", pair[0], pair[1])),
    );
    grams
}

/// A fitted softmax regression: weights [F × C] row-major, then the C biases.
struct Softmax {
    theta: Vec<f64>,
    n_features: usize,
    n_labels: usize,
    c: f64,
}

impl Softmax {
    /// Minimises Σ log-loss + ‖W‖² / (2c) by L-BFGS (memory 10) with Armijo backtracking,
    /// from zero, until the gradient's largest entry is under 1e-5 per train line or
    /// [`MAX_ITERATIONS`].
    fn fit(rows: &[(Row, usize)], n_features: usize, n_labels: usize, c: f64) -> Softmax {
        let mut model = Softmax {
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
    fn loss(&self, rows: &[(Row, usize)], theta: &[f64]) -> (f64, Vec<f64>) {
        let k = self.n_labels;
        let weights = self.n_features * k;
        let mut gradient = vec![0.0; theta.len()];
        let mut value = 0.0;
        for (row, label) in rows {
            let logits = self.logits(theta, row);
            let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let exp: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
            let sum: f64 = exp.iter().sum();
            value += sum.ln() + max - logits[*label];
            let residual: Vec<f64> = exp
                .iter()
                .enumerate()
                .map(|(c, e)| e / sum - f64::from(u8::from(c == *label)))
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

    /// The share of `rows` predicted right (a row without a label the model knows is wrong;
    /// 0 for none).
    fn accuracy(&self, rows: &[(Row, Option<usize>)]) -> f64 {
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
    fn tfidf_rows_are_scikit_learns() {
        // Two documents: "a b" and "a c". idf(a) = ln(3/3) + 1 = 1, idf(b) = ln(3/2) + 1.
        let tfidf = Tfidf::new(["a b", "a c"].into_iter());
        assert_eq!(tfidf.len(), 5); // a, b, "a b", c, "a c"
        let row = tfidf.row("a b b zz");
        let idf_b = (1.5f64.ln() + 1.0) as f32;
        // a: 1 × 1, "a b": 1 × idf_b, b: 2 × idf_b; "b b" and "b zz" unseen.
        let raw = [1.0f32, idf_b, 2.0 * idf_b];
        let norm = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut values: Vec<f32> = row.iter().map(|&(_, x)| x).collect();
        values.sort_by(f32::total_cmp);
        assert_eq!(row.len(), 3);
        for (v, r) in values.iter().zip(raw) {
            assert!((v - r / norm).abs() < 1e-6, "{row:?}");
        }
        assert!(tfidf.row("zz yy").is_empty());
    }

    #[test]
    fn logistic_regression_reaches_the_optimum_and_separates_what_is_separable() {
        // Label 1 exactly when feature 0 is larger than feature 1.
        let rows: Vec<(Row, usize)> = (0..40)
            .map(|i| {
                let (x, y) = ((i % 7) as f32 / 7.0, (i % 5) as f32 / 5.0 + 0.01);
                (vec![(0, x), (1, y)], usize::from(x > y))
            })
            .collect();
        let model = Softmax::fit(&rows, 2, 2, 100.0);
        let (_, gradient) = model.loss(&rows, &model.theta);
        assert!(
            gradient.iter().all(|g| g.abs() <= 1e-5 * rows.len() as f64),
            "{gradient:?}"
        );
        let labeled: Vec<(Row, Option<usize>)> = rows
            .iter()
            .map(|(row, label)| (row.clone(), Some(*label)))
            .collect();
        assert!(model.accuracy(&labeled) >= 0.95);
        // A line whose label the model does not know is an error.
        assert_eq!(model.accuracy(&[(vec![(0, 1.0)], None)]), 0.0);
    }

    #[test]
    fn the_tfidf_baseline_learns_words_and_counts_unknown_labels_as_errors() {
        let train: Vec<BaselineLine> = vec![
            ("free prize now", Some(1)),
            ("win cash prize", Some(1)),
            ("see you at dinner", Some(0)),
            ("love you mum", Some(0)),
            ("free cash", Some(1)),
            ("dinner at home", Some(0)),
        ];
        let dev: Vec<BaselineLine> = vec![
            ("a free prize", Some(1)),
            ("dinner with mum", Some(0)),
            ("cash", Some(1)),
            ("mum at home", None),
        ];
        let fit = fit_baseline(Baseline::Tfidf, 2, &train, &dev, &dev, None).unwrap();
        assert_eq!(fit.accuracy, 0.75);
        assert_eq!(fit.selection_accuracy, 0.75);
        assert!(C_GRID.contains(&fit.c));
        // The mean-vector baseline needs vectors.
        assert!(fit_baseline(Baseline::MeanVectors, 2, &train, &dev, &dev, None).is_none());
    }
}
