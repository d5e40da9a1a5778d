//! Word vectors for the suggestion engine: which words of the corpora are near a word set in
//! meaning. Induction lets a word that fixes a single train line join a word set when its
//! vector is close to the set's (`what ( actor | singer | boxer ) $*`), where without
//! vectors a word must fix two lines on its own ([`super::induce`]).

use crate::limits::ReadLimits;
use crate::model::{EmbeddingsError, VectorSource, Vocabulary, read_vectors};
use std::collections::HashMap;

/// The word vectors of the words of some corpora, centred on their mean and scaled to unit
/// length, by word; a word the table has no vector for (not even through its pieces) has
/// none.
#[derive(Debug, Clone, Default)]
pub struct WordNeighbours {
    vectors: HashMap<String, Vec<f32>>,
}

impl WordNeighbours {
    /// The vectors of `words` from `source` (the bundled table, or a GloVe file read within
    /// `limits`), centred on their mean.
    pub fn read<'a>(
        words: impl IntoIterator<Item = &'a str>,
        source: VectorSource<'_>,
        limits: &ReadLimits,
    ) -> Result<WordNeighbours, EmbeddingsError> {
        let vocabulary = Vocabulary::new(words);
        let table = read_vectors(source, &vocabulary, limits)?;
        let dim = table.dim;
        let row = |id: usize| &table.data[id * dim..(id + 1) * dim];
        // Index 0 is the unknown word: a word with that vector has none of its own.
        let unknown = row(0);
        let known: Vec<(&String, &[f32])> = vocabulary
            .words()
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(id, _)| row(id) != unknown)
            .map(|(id, word)| (word, row(id)))
            .collect();
        // Centred on the words' mean: frequent words share a direction that would make
        // them near every set.
        let mut mean = vec![0.0f32; dim];
        for (_, vector) in &known {
            for (total, value) in mean.iter_mut().zip(*vector) {
                *total += value / known.len() as f32;
            }
        }
        let vectors = known
            .into_iter()
            .filter_map(|(word, vector)| {
                let centred: Vec<f32> = vector.iter().zip(&mean).map(|(v, m)| v - m).collect();
                Some((word.clone(), unit(&centred)?))
            })
            .collect();
        Ok(WordNeighbours { vectors })
    }

    /// Neighbours from vectors given by word, as they are (not centred), each scaled to
    /// unit length: for tests.
    #[cfg(test)]
    pub(crate) fn from_vectors<'a>(vectors: impl IntoIterator<Item = (&'a str, Vec<f32>)>) -> Self {
        WordNeighbours {
            vectors: vectors
                .into_iter()
                .filter_map(|(word, vector)| Some((word.to_string(), unit(&vector)?)))
                .collect(),
        }
    }

    /// The mean of the unit vectors of `words` that have one, scaled to unit length.
    pub fn centroid<'a>(&self, words: impl IntoIterator<Item = &'a str>) -> Option<Vec<f32>> {
        let mut sum: Vec<f32> = Vec::new();
        for vector in words.into_iter().filter_map(|word| self.vectors.get(word)) {
            if sum.is_empty() {
                sum = vec![0.0; vector.len()];
            }
            for (total, value) in sum.iter_mut().zip(vector) {
                *total += value;
            }
        }
        unit(&sum)
    }

    /// The cosine similarity of `word` to the unit vector `centroid`; `None` without a
    /// vector.
    pub fn similarity(&self, word: &str, centroid: &[f32]) -> Option<f32> {
        let vector = self.vectors.get(word)?;
        (vector.len() == centroid.len())
            .then(|| vector.iter().zip(centroid).map(|(a, b)| a * b).sum())
    }
}

/// `vector` scaled to unit length; `None` when it is empty or zero.
fn unit(vector: &[f32]) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| vector.iter().map(|v| v / norm).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_vectors_put_words_of_a_kind_near_each_other() {
        let words = ["actor", "actress", "singer", "carburetor", "zzqxvw"];
        let neighbours =
            WordNeighbours::read(words, VectorSource::Bundled, &ReadLimits::default()).unwrap();
        let people = neighbours.centroid(["actor", "singer"]).unwrap();
        let near = neighbours.similarity("actress", &people).unwrap();
        let far = neighbours.similarity("carburetor", &people).unwrap();
        assert!(near > far + 0.5, "actress {near}, carburetor {far}");
        // A word the table does not have gets no vector, rather than the mean of all.
        assert_eq!(neighbours.similarity("zzqxvw", &people), None);
        assert_eq!(neighbours.centroid(["zzqxvw"]), None);
    }
}
