//! Plain baselines, what any ML engineer tries first: multinomial logistic regression on a
//! sentence's mean word vector, and on its tf-idf unigrams and bigrams. `rulelens bench`
//! lays them beside the networks, so that a user sees at once whether a network beats them.
//!
//! - Mean word vectors: the average of the sentence's tokens' vectors (the networks' own
//!   vocabulary and vectors: the bundled GloVe table or `--embeddings`), 0 for an empty one.
//! - tf-idf: as scikit-learn's `TfidfVectorizer(ngram_range=(1, 2))` builds it by default
//!   (`nn/tfidf.rs`): lowercased tokens (the rules' tokenizer) and their bigrams seen in
//!   train, raw counts times idf, each row scaled to unit length.
//! - The model: softmax regression with a bias, as scikit-learn's `LogisticRegression`
//!   fits it (`nn/softmax_regression.rs`). C is chosen from [`C_GRID`] by accuracy on the
//!   selection lines (dev, as the networks stop early on it; ties go to the stronger
//!   regularisation), so there is no seed: the result is deterministic.
//!
//! Features are sparse rows in plain loops (candle has no sparse product, and a tf-idf
//! matrix of reviews would be dense in the hundreds of megabytes).
//!
//! [`C_GRID`]: crate::model::C_GRID

use crate::model::nn::embeddings::{Vocabulary, WordVectors};
use crate::model::nn::softmax_regression::{Selection, SoftmaxRegression, SparseRow, Target};
use crate::model::nn::tfidf::TfidfTable;
use crate::text::Tokens;
use serde::{Deserialize, Serialize};

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
        Baseline::Tfidf => Features::Tfidf(TfidfTable::new(
            train.iter().map(|(text, _)| ngrams(text)),
            usize::MAX,
        )),
    };
    let n_features = features.len();
    let rows = |lines: &[BaselineLine]| -> Vec<(SparseRow, Option<usize>)> {
        lines
            .iter()
            .map(|(text, label)| (features.row(text), *label))
            .collect()
    };
    let train_rows: Vec<(SparseRow, Target)> = rows(train)
        .into_iter()
        .filter_map(|(row, label)| Some((row, Target::Label(label?))))
        .collect();
    let (selection_rows, measured_rows) = (rows(selection), rows(measured));
    let (selection_accuracy, model) = SoftmaxRegression::fit_chosen(
        &train_rows,
        n_features,
        n_labels,
        &selection_rows,
        Selection::Accuracy,
    )?;
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
    Tfidf(TfidfTable<String>),
}

impl Features<'_> {
    fn len(&self) -> usize {
        match self {
            Features::MeanVector(_, vectors) => vectors.dim,
            Features::Tfidf(tfidf) => tfidf.len(),
        }
    }

    fn row(&self, text: &str) -> SparseRow {
        match self {
            Features::MeanVector(vocabulary, vectors) => mean_vector(text, vocabulary, vectors),
            Features::Tfidf(tfidf) => tfidf.row(ngrams(text)),
        }
    }
}

/// The mean of `text`'s tokens' word vectors, as a sparse row of every dimension.
fn mean_vector(text: &str, vocabulary: &Vocabulary, vectors: &WordVectors) -> SparseRow {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(crate::model::C_GRID.contains(&fit.c));
        // The mean-vector baseline needs vectors.
        assert!(fit_baseline(Baseline::MeanVectors, 2, &train, &dev, &dev, None).is_none());
    }
}
