//! The character n-grams' part of the n-gram regression (`nn/ngrams.rs`): a second tf-idf
//! block, of each line's character 3- to 5-grams within words, beside the word n-grams and
//! the mean word vector, with a unit length of its own. A word is read as scikit-learn's
//! `char_wb` analyzer reads it: lowercased, a space added at either end, every 3-, 4- and
//! 5-gram of that (a word too short for a length once). The word n-grams say nothing of a
//! word no train line holds; its spelling shares pieces with words that train holds
//! (`docs/results.md`, "Character n-grams in the regression").
//!
//! Every character n-gram lies within one token, so a line's part of each logit is a sum of
//! its tokens' parts (each of a token's n-grams: its count in the token times its idf over
//! the line's norm, times its weight), and a deleted span (an occlusion) takes away its own
//! tokens' n-grams and nothing else. Only the network's vocabulary words are read: the
//! unknown word (id 0) has no characters, as it has no n-gram and no vector.
//!
//! Limits: a word's first [`MAX_WORD_CHARACTERS`] characters are read; the block keeps at
//! most half of the regression's n-gram weights ([`MAX_NGRAM_WEIGHTS`](super::ngrams)), the
//! n-grams in the most train lines; a vocabulary word's n-grams are kept once each, with
//! their counts, for the n-grams the block has (at most 3 × [`MAX_WORD_CHARACTERS`] a word).

use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::softmax_regression::SparseRow;
use crate::model::nn::tfidf::TfidfTable;
use candle_core::{Device, Result, Tensor};
use std::collections::HashMap;
use std::ops::Range;

/// The shortest character n-gram read.
pub const MIN_CHARACTERS: usize = 3;

/// The longest character n-gram read.
pub const MAX_CHARACTERS: usize = 5;

/// The most characters of a word whose n-grams are read (a longer word, a URL say, is read
/// by its first ones).
pub const MAX_WORD_CHARACTERS: usize = 64;

/// The checkpoint names of the block's tensors, after the regression's prefix: its n-grams
/// ([F × 5] code points as 32-bit floats, exact below 2^24; 0 past a shorter n-gram), their
/// idfs ([F]) and weights ([F × C]).
pub const CHARACTER_TENSORS: [&str; 3] = ["char_grams", "char_idf", "char_weight"];

/// A character n-gram: its code points, 0 past its end.
type CharacterGram = [u32; MAX_CHARACTERS];

/// The character n-grams of `word` as `char_wb` reads it (see the module's doc), repeats
/// kept.
pub fn word_grams(word: &str) -> Vec<CharacterGram> {
    let padded: Vec<u32> = std::iter::once(' ')
        .chain(word.to_lowercase().chars().take(MAX_WORD_CHARACTERS))
        .chain(std::iter::once(' '))
        .map(u32::from)
        .collect();
    let mut grams = Vec::new();
    for n in MIN_CHARACTERS..=MAX_CHARACTERS {
        for start in 0..=padded.len().saturating_sub(n) {
            let mut gram = [0; MAX_CHARACTERS];
            let end = (start + n).min(padded.len());
            gram[..end - start].copy_from_slice(&padded[start..end]);
            grams.push(gram);
        }
        // A word shorter than this length is read once, whole.
        if padded.len() <= n {
            break;
        }
    }
    grams
}

/// The block's n-grams, and each vocabulary word's features among them with their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterTable {
    table: TfidfTable<CharacterGram>,
    /// Word `id`'s features are `entries[offsets[id]..offsets[id + 1]]`, ascending.
    offsets: Vec<u32>,
    entries: Vec<(u32, f32)>,
}

impl CharacterTable {
    /// The character n-grams of the train lines `lines` (vocabulary ids) in `vocabulary`: at
    /// most `max_features`, those in the most lines.
    pub fn new<'a>(
        vocabulary: &Vocabulary,
        lines: impl Iterator<Item = &'a [u32]>,
        max_features: usize,
    ) -> CharacterTable {
        let words = vocabulary.words();
        // One line's n-grams at a time: memory holds the distinct n-grams, not the corpus's.
        let documents = lines.map(|line| {
            line.iter()
                .filter(|&&id| id != 0)
                .filter_map(|&id| words.get(id as usize))
                .flat_map(|word| word_grams(word))
                .collect()
        });
        let table = TfidfTable::new(documents, max_features);
        CharacterTable::of_words(table, vocabulary)
    }

    /// `table` with the features of each word of `vocabulary`.
    fn of_words(table: TfidfTable<CharacterGram>, vocabulary: &Vocabulary) -> CharacterTable {
        let empty = CharacterTable {
            table,
            offsets: vec![0],
            entries: Vec::new(),
        };
        empty.with_words_from(vocabulary, 0)
    }

    /// The table with the features of `vocabulary`'s words from id `first` on, where it has
    /// those of its first `first` words (`vocabulary` extends the one it was made for).
    fn with_words_from(mut self, vocabulary: &Vocabulary, first: usize) -> CharacterTable {
        for (id, word) in vocabulary.words().iter().enumerate().skip(first) {
            if id > 0 {
                let mut counts: HashMap<u32, f32> = HashMap::new();
                for gram in word_grams(word) {
                    if let Some(feature) = self.table.feature(&gram) {
                        *counts.entry(feature).or_insert(0.0) += 1.0;
                    }
                }
                let start = self.entries.len();
                self.entries.extend(counts);
                self.entries[start..].sort_by_key(|&(feature, _)| feature);
            }
            self.offsets.push(self.entries.len() as u32);
        }
        self
    }

    /// How many character n-grams it has.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// The features of vocabulary id `id` with their counts (none for the unknown word or an
    /// id past the vocabulary).
    fn word(&self, id: u32) -> &[(u32, f32)] {
        match (
            self.offsets.get(id as usize),
            self.offsets.get(id as usize + 1),
        ) {
            (Some(&start), Some(&end)) => &self.entries[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Each feature's count in the sentence `words`.
    fn counts(&self, words: &[u32]) -> HashMap<u32, f32> {
        let mut counts: HashMap<u32, f32> = HashMap::new();
        for &id in words {
            for &(feature, count) in self.word(id) {
                *counts.entry(feature).or_insert(0.0) += count;
            }
        }
        counts
    }

    /// The block's row of the sentence `words`, unit length, its features numbered from
    /// `first`; empty when it holds no train n-gram.
    pub fn row(&self, words: &[u32], first: u32) -> SparseRow {
        let mut row = self.table.row_of_counts(self.counts(words));
        for (feature, _) in &mut row {
            *feature += first;
        }
        row
    }

    /// The same n-grams with the features of the words of `vocabulary`.
    fn for_vocabulary(&self, vocabulary: &Vocabulary) -> CharacterTable {
        CharacterTable::of_words(self.table.clone(), vocabulary)
    }
}

/// The fitted block: its table and each feature's weights, scaled to the network's logits.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterRows {
    table: CharacterTable,
    /// [F × C] row-major.
    weight: Vec<f32>,
    n_labels: usize,
}

impl CharacterRows {
    /// The block of `table` with the regression's `weights` of its features ([F × C]
    /// row-major), times `factor`.
    pub fn new(table: CharacterTable, weights: &[f64], n_labels: usize, factor: f32) -> Self {
        CharacterRows {
            table,
            weight: weights.iter().map(|&w| factor * w as f32).collect(),
            n_labels,
        }
    }

    /// How many character n-grams it weighs.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// The weights times `k`.
    pub fn scaled(&self, k: f32) -> CharacterRows {
        CharacterRows {
            weight: self.weight.iter().map(|w| w * k).collect(),
            ..self.clone()
        }
    }

    /// The block for a network of the vocabulary `to` (its n-grams are of characters, so
    /// any vocabulary has them).
    pub fn remapped(&self, to: &Vocabulary) -> CharacterRows {
        CharacterRows {
            table: self.table.for_vocabulary(to),
            ..self.clone()
        }
    }

    /// The block for the vocabulary `to`, which extends this block's with words from id
    /// `first` on: theirs are added, the others' kept.
    pub fn opened(&self, to: &Vocabulary, first: usize) -> CharacterRows {
        CharacterRows {
            table: self.table.clone().with_words_from(to, first),
            weight: self.weight.clone(),
            n_labels: self.n_labels,
        }
    }

    /// Adds the part of `words` (vocabulary ids) without its tokens `deleted` to `logits`.
    pub fn add_to(&self, words: &[u32], deleted: Range<usize>, logits: &mut [f32]) {
        self.sentence(words).add_to(deleted, logits);
    }

    /// `words` prepared for scoring deletions ([`CharacterSentence::add_to`]).
    pub fn sentence(&self, words: &[u32]) -> CharacterSentence<'_> {
        let counts = self.table.counts(words);
        let (sum, norm2) = self.sums(&counts);
        CharacterSentence {
            rows: self,
            words: words.to_vec(),
            counts,
            sum,
            norm2,
        }
    }

    /// Σ count·idf·weight per label, and Σ (count·idf)², of a line's `counts`.
    fn sums(&self, counts: &HashMap<u32, f32>) -> (Vec<f64>, f64) {
        let (mut sum, mut norm2) = (vec![0f64; self.n_labels], 0f64);
        for (&feature, &count) in counts {
            let x = f64::from(count) * f64::from(self.table.table.idf()[feature as usize]);
            norm2 += x * x;
            for (s, &w) in sum.iter_mut().zip(self.weights(feature)) {
                *s += x * f64::from(w);
            }
        }
        (sum, norm2)
    }

    /// The weights of feature `feature`, one per label.
    fn weights(&self, feature: u32) -> &[f32] {
        &self.weight[feature as usize * self.n_labels..][..self.n_labels]
    }

    /// Its tensors under their names after `prefix`, on `device`.
    pub fn named_tensors(&self, prefix: &str, device: &Device) -> Result<Vec<(String, Tensor)>> {
        let grams = self.table.table.grams();
        let f = grams.len();
        let grams: Vec<f32> = grams.iter().flatten().map(|&c| c as f32).collect();
        let [grams_name, idf_name, weight_name] = CHARACTER_TENSORS;
        Ok(vec![
            (
                format!("{prefix}{grams_name}"),
                Tensor::from_vec(grams, (f, MAX_CHARACTERS), device)?,
            ),
            (
                format!("{prefix}{idf_name}"),
                Tensor::from_vec(self.table.table.idf().to_vec(), f, device)?,
            ),
            (
                format!("{prefix}{weight_name}"),
                Tensor::from_vec(self.weight.clone(), (f, self.n_labels), device)?,
            ),
        ])
    }

    /// The block a checkpoint's three tensors hold (see [`CHARACTER_TENSORS`]; `grams`,
    /// `idf` and `weight` in that order), for a network of `vocabulary` and `n_labels`
    /// labels, checked: the shapes, at most `max_weights` weights, finite idfs and weights,
    /// and n-grams of 3 to 5 characters (no NUL), each once.
    pub fn from_tensors(
        [grams, idf, weight]: [&Tensor; 3],
        vocabulary: &Vocabulary,
        n_labels: usize,
        (prefix, max_weights): (&str, usize),
    ) -> Result<CharacterRows> {
        let f = idf.dim(0)?;
        if idf.dims() != [f]
            || grams.dims() != [f, MAX_CHARACTERS]
            || weight.dims() != [f, n_labels]
        {
            candle_core::bail!(
                "the tensors `{prefix}{}` do not fit {f} character n-grams and {n_labels} labels",
                CHARACTER_TENSORS.join("`, `")
            );
        }
        if f.saturating_mul(n_labels) > max_weights {
            candle_core::bail!(
                "the n-gram regression has {f} character n-grams of {n_labels} labels, more than {max_weights} weights"
            );
        }
        let plain = |t: &Tensor| -> Result<Vec<f32>> { t.flatten_all()?.to_vec1() };
        let (codes, idf, weight) = (plain(grams)?, plain(idf)?, plain(weight)?);
        if !idf.iter().chain(&weight).all(|x| x.is_finite()) {
            candle_core::bail!("the n-gram regression's character weights are not all finite");
        }
        let grams: Option<Vec<CharacterGram>> = codes
            .chunks_exact(MAX_CHARACTERS)
            .map(character_gram)
            .collect();
        let Some(grams) = grams else {
            candle_core::bail!(
                "the n-gram regression's character n-grams are not all of {MIN_CHARACTERS} to {MAX_CHARACTERS} characters"
            );
        };
        let table = TfidfTable::from_parts(grams, idf);
        if table.len() != f {
            candle_core::bail!("the n-gram regression names a character n-gram twice");
        }
        Ok(CharacterRows {
            table: CharacterTable::of_words(table, vocabulary),
            weight,
            n_labels,
        })
    }
}

/// The n-gram of `codes` (code points as a checkpoint stores them): `None` unless each is a
/// whole character other than NUL, 3 to 5 of them, then zeros.
fn character_gram(codes: &[f32]) -> Option<CharacterGram> {
    let mut gram = [0u32; MAX_CHARACTERS];
    let mut ended = false;
    for (slot, &code) in gram.iter_mut().zip(codes) {
        if code == 0.0 {
            ended = true;
            continue;
        }
        let whole = code > 0.0 && code.fract() == 0.0 && code <= char::MAX as u32 as f32;
        if ended || !whole || char::from_u32(code as u32).is_none() {
            return None;
        }
        *slot = code as u32;
    }
    (gram[MIN_CHARACTERS - 1] != 0).then_some(gram)
}

/// A sentence's character n-grams prepared for scoring it with spans deleted: a deletion
/// takes its tokens' counts away, so its logits cost O(span's n-grams × labels).
pub struct CharacterSentence<'a> {
    rows: &'a CharacterRows,
    words: Vec<u32>,
    /// The whole sentence's count of each feature.
    counts: HashMap<u32, f32>,
    sum: Vec<f64>,
    norm2: f64,
}

impl CharacterSentence<'_> {
    /// Label `label`'s part of each word of the sentence: (the token where the word first
    /// occurs, the part of all its tokens' character n-grams), in the order words first
    /// occur; they add up to what [`CharacterSentence::add_to`] adds with nothing deleted.
    pub fn parts(&self, label: usize) -> Vec<(usize, f32)> {
        if self.norm2 == 0.0 {
            return Vec::new();
        }
        let norm = self.norm2.sqrt();
        let (table, idf) = (&self.rows.table, self.rows.table.table.idf());
        let mut first: HashMap<u32, usize> = HashMap::new();
        let mut parts: Vec<(usize, f32)> = Vec::new();
        for (i, &id) in self.words.iter().enumerate() {
            let features = table.word(id);
            if features.is_empty() {
                continue;
            }
            let part: f64 = features
                .iter()
                .map(|&(feature, count)| {
                    f64::from(count)
                        * f64::from(idf[feature as usize])
                        * f64::from(self.rows.weights(feature)[label])
                })
                .sum::<f64>()
                / norm;
            match first.get(&id) {
                Some(&at) => parts[at].1 += part as f32,
                None => {
                    first.insert(id, parts.len());
                    parts.push((i, part as f32));
                }
            }
        }
        parts
    }

    /// Adds the part of the sentence without its tokens `deleted` to `logits`, as
    /// [`CharacterRows::add_to`] computes it up to rounding (nothing when no n-gram is left).
    pub fn add_to(&self, deleted: Range<usize>, logits: &mut [f32]) {
        let n = self.words.len();
        let span = &self.words[deleted.start.min(n)..deleted.end.min(n).max(deleted.start.min(n))];
        // The span's features with their counts, summed over its tokens (sorted runs: no
        // map is built for a deletion).
        let mut deltas: Vec<(u32, f32)> = span
            .iter()
            .flat_map(|&id| self.rows.table.word(id).iter().copied())
            .collect();
        deltas.sort_unstable_by_key(|&(feature, _)| feature);
        let (mut sum, mut norm2) = (self.sum.clone(), self.norm2);
        let mut present = self.counts.len();
        let idf = self.rows.table.table.idf();
        for run in deltas.chunk_by(|a, b| a.0 == b.0) {
            let feature = run[0].0;
            let removed: f32 = run.iter().map(|&(_, count)| count).sum();
            let count = self.counts.get(&feature).copied().unwrap_or(0.0);
            let after = count - removed;
            if after == 0.0 {
                present -= 1;
            }
            let x = f64::from(idf[feature as usize]);
            let (count, after, removed) = (f64::from(count), f64::from(after), f64::from(removed));
            norm2 += (after * after - count * count) * x * x;
            for (s, &w) in sum.iter_mut().zip(self.rows.weights(feature)) {
                *s -= removed * x * f64::from(w);
            }
        }
        if present > 0 {
            let norm = norm2.sqrt();
            for (l, s) in logits.iter_mut().zip(sum) {
                *l += (s / norm) as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(gram: &CharacterGram) -> String {
        gram.iter()
            .take_while(|&&c| c != 0)
            .filter_map(|&c| char::from_u32(c))
            .collect()
    }

    #[test]
    fn a_word_is_read_as_scikit_learns_char_wb_reads_it() {
        let grams = |word: &str| -> Vec<String> { word_grams(word).iter().map(text).collect() };
        // " Ab " lowercased: its two 3-grams, then itself whole, once.
        assert_eq!(grams("Ab"), [" ab", "ab ", " ab "]);
        assert_eq!(grams("a"), [" a "]);
        assert_eq!(
            grams("cash"),
            [
                " ca", "cas", "ash", "sh ", " cas", "cash", "ash ", " cash", "cash "
            ]
        );
        // A word past the cap is read by its first characters.
        let long = "é".repeat(100);
        let read = grams(&long);
        assert_eq!(read.len(), 3 * (MAX_WORD_CHARACTERS + 2) - 3 - 4 - 5 + 3);
        assert!(read.iter().all(|g| g.chars().all(|c| c == 'é' || c == ' ')));
    }

    #[test]
    fn a_checkpoints_code_points_are_checked() {
        assert_eq!(
            character_gram(&[32.0, 97.0, 98.0, 0.0, 0.0]),
            Some([32, 97, 98, 0, 0])
        );
        for bad in [
            [32.0, 97.0, 0.0, 0.0, 0.0],
            [32.0, 0.0, 98.0, 99.0, 0.0],
            [32.0, 97.5, 98.0, 0.0, 0.0],
            [-1.0, 97.0, 98.0, 0.0, 0.0],
            [32.0, 55296.0, 98.0, 0.0, 0.0],
            [32.0, 2e6, 98.0, 0.0, 0.0],
        ] {
            assert_eq!(character_gram(&bad), None, "{bad:?}");
        }
    }
}
