//! The mean word vector's part of the n-gram regression (`nn/ngrams.rs`). A line's mean
//! word vector (over its tokens whose word has a vector of its own or of its pieces, repeats
//! counted), over √D, is appended to its tf-idf row, and the weights the regression fits for
//! it are folded into one row per vocabulary word: the word's vector over √D times those
//! weights. A line's part of each logit is then the mean of its counted tokens' rows: one
//! part per token, so the logits stay sums of parts for the hovers, and a deleted span (an
//! occlusion) costs the span's rows alone. The tf-idf n-grams say nothing of a word no train
//! line holds; its vector does (`docs/results.md`, "The mean word vector beside the
//! n-grams").
//!
//! The weights of the mean vector's features are kept beside the rows, so that a word the
//! vocabulary did not hold when the regression was fitted gets its row when a loaded model
//! is opened to it (`train/open_vocabulary.rs`).
//!
//! Limits: at most [`MAX_WORD_ROW_WEIGHTS`] weights (words with a vector × labels); past
//! it, or without word vectors, the regression reads n-grams alone; words opened past it
//! get no row.

use crate::model::nn::embeddings::{Vocabulary, WordVectors};
use candle_core::{Device, Result, Tensor};
use std::collections::HashMap;
use std::ops::Range;

/// The most weights (words × labels) the mean vector's part keeps: 2,097,152 (8 MB), as
/// many as the n-grams' (`nn/ngrams.rs`).
pub const MAX_WORD_ROW_WEIGHTS: usize = 1 << 21;

/// The mean vector's features are its entries times this over √D (D its dimension): a
/// line's features then weigh about as much as its unit-length tf-idf row's. Chosen on the
/// proxies of `docs/results.md`, "The mean word vector beside the n-grams".
pub const FEATURE_SCALE: f64 = 1.0;

/// The checkpoint names of the part's tensors, after the regression's prefix: the words'
/// vocabulary ids ([K], as 32-bit floats) and their rows ([K × C]).
pub const WORD_ROW_TENSORS: [&str; 2] = ["vector_words", "vector_weight"];

/// The checkpoint name, after the regression's prefix, of the weights that fold a word's
/// vector into its row ([D × C]; absent in checkpoints of training version 9 or older).
pub const WORD_ROW_FOLD_TENSOR: &str = "vector_fold";

/// The word vectors a regression is fitted with: the features of a line's mean vector.
pub struct MeanVectors<'a> {
    vectors: &'a WordVectors,
}

impl<'a> MeanVectors<'a> {
    /// The features of `vectors` (one per vocabulary id), `None` when the rows of its words
    /// for `n_labels` labels would pass [`MAX_WORD_ROW_WEIGHTS`] or it has no dimension.
    pub fn new(vectors: &'a WordVectors, n_labels: usize) -> Option<MeanVectors<'a>> {
        let words = vectors.known.iter().filter(|&&known| known).count();
        (vectors.dim > 0 && words.saturating_mul(n_labels) <= MAX_WORD_ROW_WEIGHTS)
            .then_some(MeanVectors { vectors })
    }

    /// How many features a line has: the vectors' dimension.
    pub fn dim(&self) -> usize {
        self.vectors.dim
    }

    /// The mean vector of the counted tokens of `words` (vocabulary ids) times
    /// [`FEATURE_SCALE`] over √D, as sparse
    /// entries numbered from `first`; none when no token is counted.
    pub fn features(&self, words: &[u32], first: u32) -> Vec<(u32, f32)> {
        let dim = self.vectors.dim;
        let mut sum = vec![0f64; dim];
        let mut count = 0usize;
        for &id in words {
            if self.vectors.known.get(id as usize) == Some(&true) {
                let vector = &self.vectors.data[id as usize * dim..][..dim];
                for (s, &x) in sum.iter_mut().zip(vector) {
                    *s += f64::from(x);
                }
                count += 1;
            }
        }
        if count == 0 {
            return Vec::new();
        }
        let scale = FEATURE_SCALE / (count as f64 * (dim as f64).sqrt());
        sum.iter()
            .enumerate()
            .map(|(d, s)| (first + d as u32, (s * scale) as f32))
            .collect()
    }

    /// The rows of every word with a vector: its vector times [`FEATURE_SCALE`] over √D times
    /// `weights` ([D × C]
    /// row-major, the regression's weights of the features), times `factor`.
    pub fn fold(&self, weights: &[f64], n_labels: usize, factor: f32) -> WordRows {
        let dim = self.vectors.dim;
        let scale = FEATURE_SCALE / (dim as f64).sqrt();
        let fold: Vec<f32> = weights
            .iter()
            .map(|&w| (f64::from(factor) * scale * w) as f32)
            .collect();
        let ids: Vec<u32> = (0..self.vectors.known.len() as u32)
            .filter(|&id| self.vectors.known[id as usize])
            .collect();
        let weight = ids
            .iter()
            .flat_map(|&id| {
                folded(
                    &self.vectors.data[id as usize * dim..][..dim],
                    &fold,
                    n_labels,
                )
            })
            .collect();
        WordRows::new(ids, weight, Some(fold), n_labels)
    }
}

/// A vector's row: the vector times `fold` ([D × C] row-major).
fn folded(vector: &[f32], fold: &[f32], n_labels: usize) -> Vec<f32> {
    (0..n_labels)
        .map(|c| {
            let logit: f64 = vector
                .iter()
                .enumerate()
                .map(|(d, &x)| f64::from(x) * f64::from(fold[d * n_labels + c]))
                .sum();
            logit as f32
        })
        .collect()
}

/// Each word's row: its part of every label's logit before the mean over a line's counted
/// tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct WordRows {
    /// The vocabulary ids with a row, ascending.
    ids: Vec<u32>,
    /// Each id's row in `weight`.
    index: HashMap<u32, u32>,
    /// [K × C] row-major.
    weight: Vec<f32>,
    /// What folds a word's vector into its row: [D × C] row-major (none in a checkpoint of
    /// training version 9 or older).
    fold: Option<Vec<f32>>,
    n_labels: usize,
}

impl WordRows {
    fn new(ids: Vec<u32>, weight: Vec<f32>, fold: Option<Vec<f32>>, n_labels: usize) -> WordRows {
        let index = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i as u32))
            .collect();
        WordRows {
            ids,
            index,
            weight,
            fold,
            n_labels,
        }
    }

    /// The rows with a row added for each word of `vectors`' vocabulary from id `first` on
    /// that has a vector (`vectors` of a vocabulary that extends this one's), while the
    /// rows stay within [`MAX_WORD_ROW_WEIGHTS`]; the same rows without the fold.
    pub fn opened(&self, vectors: &WordVectors, first: usize) -> WordRows {
        let Some(fold) = &self.fold else {
            return self.clone();
        };
        let (dim, labels) = (vectors.dim, self.n_labels);
        let room = (MAX_WORD_ROW_WEIGHTS / labels.max(1)).saturating_sub(self.ids.len());
        let mut rows = self.clone();
        if fold.len() != dim * labels {
            return rows;
        }
        for id in (first..vectors.known.len())
            .filter(|&id| vectors.known[id])
            .take(room)
        {
            let row = folded(&vectors.data[id * dim..][..dim], fold, labels);
            rows.index.insert(id as u32, rows.ids.len() as u32);
            rows.ids.push(id as u32);
            rows.weight.extend(row);
        }
        rows
    }

    /// How many words have a row.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// The rows times `k`.
    pub fn scaled(&self, k: f32) -> WordRows {
        WordRows {
            weight: self.weight.iter().map(|w| w * k).collect(),
            fold: (self.fold.as_ref()).map(|fold| fold.iter().map(|w| w * k).collect()),
            ..self.clone()
        }
    }

    /// The row of the vocabulary id `id`, if it has one.
    fn row(&self, id: u32) -> Option<&[f32]> {
        let row = *self.index.get(&id)? as usize;
        Some(&self.weight[row * self.n_labels..][..self.n_labels])
    }

    /// Adds the part of `words` (vocabulary ids) without its tokens `deleted` to `logits`.
    pub fn add_to(&self, words: &[u32], deleted: Range<usize>, logits: &mut [f32]) {
        self.sentence(words).add_to(deleted, logits);
    }

    /// `words` prepared for scoring deletions ([`WordRowsSentence::add_to`]).
    pub fn sentence(&self, words: &[u32]) -> WordRowsSentence<'_> {
        let rows: Vec<Option<&[f32]>> = words.iter().map(|&id| self.row(id)).collect();
        let mut sum = vec![0f64; self.n_labels];
        for row in rows.iter().flatten() {
            for (s, &w) in sum.iter_mut().zip(*row) {
                *s += f64::from(w);
            }
        }
        let count = rows.iter().flatten().count();
        WordRowsSentence { rows, sum, count }
    }

    /// Label `label`'s part of each word of `words`: (the token where the word first
    /// occurs, the part of all its tokens), in the order words first occur; they add up to
    /// what [`WordRows::add_to`] adds.
    pub fn parts(&self, words: &[u32], label: usize) -> Vec<(usize, f32)> {
        let counted = words.iter().filter(|&&id| self.row(id).is_some()).count();
        let mut first: HashMap<u32, usize> = HashMap::new();
        let mut parts: Vec<(usize, f32)> = Vec::new();
        for (i, &id) in words.iter().enumerate() {
            let Some(row) = self.row(id) else { continue };
            let part = row[label] / counted as f32;
            match first.get(&id) {
                Some(&at) => parts[at].1 += part,
                None => {
                    first.insert(id, parts.len());
                    parts.push((i, part));
                }
            }
        }
        parts
    }

    /// The rows for a network of the vocabulary `to`, for one of `from`: `None` when a word
    /// with a row is not in `to`.
    pub fn remapped(&self, from: &Vocabulary, to: &Vocabulary) -> Option<WordRows> {
        let mut moved: Vec<(u32, &[f32])> = self
            .ids
            .iter()
            .map(|&id| {
                let new = to.id(from.words().get(id as usize)?);
                (new != 0).then(|| (new, self.row(id).unwrap_or_default()))
            })
            .collect::<Option<_>>()?;
        moved.sort_by_key(|&(id, _)| id);
        let ids = moved.iter().map(|&(id, _)| id).collect();
        let weight = moved
            .iter()
            .flat_map(|&(_, row)| row.iter().copied())
            .collect();
        Some(WordRows::new(ids, weight, self.fold.clone(), self.n_labels))
    }

    /// Its tensors under their names after `prefix`, on `device`.
    pub fn named_tensors(&self, prefix: &str, device: &Device) -> Result<Vec<(String, Tensor)>> {
        let k = self.ids.len();
        let ids: Vec<f32> = self.ids.iter().map(|&id| id as f32).collect();
        let [words, weight] = WORD_ROW_TENSORS;
        let mut tensors = vec![
            (
                format!("{prefix}{words}"),
                Tensor::from_vec(ids, k, device)?,
            ),
            (
                format!("{prefix}{weight}"),
                Tensor::from_vec(self.weight.clone(), (k, self.n_labels), device)?,
            ),
        ];
        if let Some(fold) = &self.fold {
            tensors.push((
                format!("{prefix}{WORD_ROW_FOLD_TENSOR}"),
                Tensor::from_vec(
                    fold.clone(),
                    (fold.len() / self.n_labels, self.n_labels),
                    device,
                )?,
            ));
        }
        Ok(tensors)
    }

    /// The rows a checkpoint's tensors hold (see [`WORD_ROW_TENSORS`] and, where there is
    /// one, [`WORD_ROW_FOLD_TENSOR`]), for a vocabulary of `n_words` words and `n_labels`
    /// labels, checked: the ids whole, ascending and in the vocabulary, the weights finite
    /// and within [`MAX_WORD_ROW_WEIGHTS`].
    pub fn from_tensors(
        [words, weight]: [&Tensor; 2],
        fold: Option<&Tensor>,
        n_words: usize,
        n_labels: usize,
        prefix: &str,
    ) -> Result<WordRows> {
        let k = words.dim(0)?;
        if words.dims() != [k] || weight.dims() != [k, n_labels] {
            candle_core::bail!(
                "the tensors `{prefix}{}` do not fit {k} words and {n_labels} labels",
                WORD_ROW_TENSORS.join("`, `")
            );
        }
        if k.saturating_mul(n_labels) > MAX_WORD_ROW_WEIGHTS {
            candle_core::bail!(
                "the n-gram regression's word vectors have {k} words of {n_labels} labels, more than {MAX_WORD_ROW_WEIGHTS} weights"
            );
        }
        let ids: Vec<f32> = words.to_vec1()?;
        let weight: Vec<f32> = weight.flatten_all()?.to_vec1()?;
        if !weight.iter().all(|w| w.is_finite()) {
            candle_core::bail!("the n-gram regression's word vector weights are not all finite");
        }
        let whole = ids
            .iter()
            .all(|&id| id >= 1.0 && id < n_words as f32 && id.fract() == 0.0);
        if !whole || ids.windows(2).any(|pair| pair[0] >= pair[1]) {
            candle_core::bail!(
                "the n-gram regression's word vectors name a word id the vocabulary does not have, or one twice"
            );
        }
        let fold = match fold {
            Some(fold) => {
                let dim = fold.dim(0)?;
                if fold.dims() != [dim, n_labels]
                    || dim.saturating_mul(n_labels) > MAX_WORD_ROW_WEIGHTS
                {
                    candle_core::bail!(
                        "the tensor `{prefix}{WORD_ROW_FOLD_TENSOR}` has shape {:?}, not [dimensions, {n_labels}] within {MAX_WORD_ROW_WEIGHTS} weights",
                        fold.dims()
                    );
                }
                let fold: Vec<f32> = fold.flatten_all()?.to_vec1()?;
                if !fold.iter().all(|w| w.is_finite()) {
                    candle_core::bail!(
                        "the tensor `{prefix}{WORD_ROW_FOLD_TENSOR}` is not all finite"
                    );
                }
                Some(fold)
            }
            None => None,
        };
        let ids = ids.into_iter().map(|id| id as u32).collect();
        Ok(WordRows::new(ids, weight, fold, n_labels))
    }
}

/// A sentence's rows prepared for scoring it with spans deleted: a deletion subtracts the
/// span's rows from the whole sentence's sum.
pub struct WordRowsSentence<'a> {
    rows: Vec<Option<&'a [f32]>>,
    sum: Vec<f64>,
    count: usize,
}

impl WordRowsSentence<'_> {
    /// Adds the part of the sentence without its tokens `deleted` to `logits`: the mean of
    /// the kept tokens' rows (nothing without one).
    pub fn add_to(&self, deleted: Range<usize>, logits: &mut [f32]) {
        let n = self.rows.len();
        let span = &self.rows[deleted.start.min(n)..deleted.end.min(n).max(deleted.start.min(n))];
        let mut sum = self.sum.clone();
        let mut count = self.count;
        for row in span.iter().flatten() {
            for (s, &w) in sum.iter_mut().zip(*row) {
                *s -= f64::from(w);
            }
            count -= 1;
        }
        if count > 0 {
            for (l, s) in logits.iter_mut().zip(sum) {
                *l += (s / count as f64) as f32;
            }
        }
    }
}
