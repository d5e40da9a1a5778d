//! tf-idf as scikit-learn's `TfidfVectorizer` weighs it by default, over any kind of n-gram
//! key: the n-grams seen in a train corpus are the features, a line's row holds each
//! one's raw count times its idf = ln((1 + n) / (1 + df)) + 1 (n train lines, df of them
//! holding it), scaled to unit length. Read by the tf-idf baseline (n-grams as lowercased
//! strings) and by the FA-RNN family's n-gram regression (n-grams as vocabulary ids).

use crate::model::nn::softmax_regression::SparseRow;
use std::collections::HashMap;
use std::hash::Hash;

/// The n-grams of a train corpus with their feature index and idf.
#[derive(Debug, Clone, PartialEq)]
pub struct TfidfTable<K: Hash + Eq> {
    /// Feature index of each n-gram.
    features: HashMap<K, u32>,
    /// Each feature's idf, by index.
    idf: Vec<f32>,
}

impl<K: Hash + Ord + Clone> TfidfTable<K> {
    /// The n-grams of `documents` (each a train line's n-grams, repeated as often as the line
    /// holds them): at most `max_features` of them, those in the most lines (ties: the first
    /// seen), numbered in the order they were first seen (within a line, in sorted order).
    pub fn new(documents: impl Iterator<Item = Vec<K>>, max_features: usize) -> TfidfTable<K> {
        let mut df: HashMap<K, (usize, usize)> = HashMap::new();
        let mut n = 0usize;
        for mut grams in documents {
            n += 1;
            grams.sort();
            grams.dedup();
            for gram in grams {
                let first = df.len();
                df.entry(gram).or_insert((0, first)).0 += 1;
            }
        }
        let mut order: Vec<(K, usize, usize)> = df
            .into_iter()
            .map(|(gram, (count, first))| (gram, count, first))
            .collect();
        if order.len() > max_features {
            order.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
            order.truncate(max_features);
        }
        order.sort_by_key(|&(_, _, first)| first);
        let (grams, idf): (Vec<K>, Vec<f32>) = order
            .into_iter()
            .map(|(gram, count, _)| {
                let idf = ((1.0 + n as f64) / (1.0 + count as f64)).ln() + 1.0;
                (gram, idf as f32)
            })
            .unzip();
        TfidfTable::from_parts(grams, idf)
    }

    /// A table of `grams` with their idfs, numbered in order (as a checkpoint stores it).
    pub fn from_parts(grams: Vec<K>, idf: Vec<f32>) -> TfidfTable<K> {
        let features = grams
            .into_iter()
            .enumerate()
            .map(|(i, gram)| (gram, i as u32))
            .collect();
        TfidfTable { features, idf }
    }

    /// The n-grams in feature order.
    pub fn grams(&self) -> Vec<K> {
        let mut sorted: Vec<(&K, &u32)> = self.features.iter().collect();
        sorted.sort_by_key(|&(_, &index)| index);
        sorted.into_iter().map(|(gram, _)| gram.clone()).collect()
    }

    /// Each feature's idf, by index.
    pub fn idf(&self) -> &[f32] {
        &self.idf
    }

    /// An n-gram's feature index, if train had it.
    pub fn feature(&self, gram: &K) -> Option<u32> {
        self.features.get(gram).copied()
    }

    pub fn len(&self) -> usize {
        self.features.len()
    }

    /// The row of a line holding `grams` (repeated as often as it holds them), unit length,
    /// features in order; empty when it holds no train n-gram.
    pub fn row(&self, grams: impl IntoIterator<Item = K>) -> SparseRow {
        let mut counts: HashMap<u32, f32> = HashMap::new();
        for gram in grams {
            if let Some(&index) = self.features.get(&gram) {
                *counts.entry(index).or_insert(0.0) += 1.0;
            }
        }
        self.row_of_counts(counts)
    }

    /// The row of a line holding each feature `counts` says it holds, unit length, features
    /// in order; empty when it holds none.
    pub fn row_of_counts(&self, counts: HashMap<u32, f32>) -> SparseRow {
        let mut row: SparseRow = counts
            .into_iter()
            .map(|(index, count)| (index, count * self.idf[index as usize]))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn grams(text: &str) -> Vec<String> {
        let words: Vec<&str> = text.split(' ').collect();
        let mut grams: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        grams.extend(words.windows(2).map(|pair| pair.join(" ")));
        grams
    }

    #[test]
    fn rows_are_scikit_learns_and_a_capped_table_keeps_the_most_frequent_n_grams() {
        // Two documents: "a b" and "a c". idf(a) = ln(3/3) + 1 = 1, idf(b) = ln(3/2) + 1.
        let table = TfidfTable::new(["a b", "a c"].into_iter().map(grams), usize::MAX);
        assert_eq!(table.len(), 5); // a, b, "a b", c, "a c"
        let row = table.row(grams("a b b zz"));
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
        assert!(table.row(grams("zz yy")).is_empty());
        // Capped at 2: `a` (in both lines), then `a b`, the first seen of the others.
        let capped = TfidfTable::new(["a b", "a c"].into_iter().map(grams), 2);
        let kept = capped.grams();
        assert_eq!(kept, ["a", "a b"]);
        assert_eq!(capped.idf(), [1.0, idf_b]);
        assert_eq!(TfidfTable::from_parts(kept, vec![1.0, idf_b]), capped);
    }
}
