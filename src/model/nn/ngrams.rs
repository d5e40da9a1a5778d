//! The n-gram regression beside the networks that read the rules (the FA-RNN family and
//! SoPa): a softmax regression on a line's tf-idf unigrams and bigrams (`nn/tfidf.rs`,
//! `nn/softmax_regression.rs`), fitted on the train lines once the network has trained, its
//! C chosen on dev, whose logits are added to the network's (an ensemble's averaged ones)
//! times a weight over the logit scale ([`WithNgrams`]; the setting `ngram_weight`, chosen
//! on dev by default). The two are models of different kinds, the rules' automata or soft
//! patterns and a bag of n-grams, and together they beat either (`docs/results.md`, issues
//! 32 and 50).
//!
//! Beside the n-grams, the row holds a block of the line's character 3- to 5-grams within
//! words, of unit length of its own (`nn/character_ngrams.rs`), and the line's mean word
//! vector, where the network reads word vectors (`nn/mean_vector.rs`): the n-grams say
//! nothing of a word no train line holds, its spelling and its vector do. A gold dev may
//! leave the character block out ([`Regularization::ChosenOn`]).
//!
//! Only a trained network gets one: the untrained network is the rules' alone, so it still
//! predicts what the rules predict. The logits stay sums of parts: the network's, and one
//! part per n-gram of the line (its tf-idf value times its weight), per token's character
//! n-grams and per word with a vector (its row over the line's count of such tokens), plus
//! the biases.
//!
//! The n-grams are of the network's vocabulary words, case folded (each id stands for the
//! smallest id of a word with the same lowercase form), and
//! the unknown word (id 0) is in none, so the regression reads a sentence as the network
//! does: its first `max_sentence_tokens` tokens. A deleted span's neighbours form a bigram,
//! as the network reads them one after the other.
//!
//! Limits: at most [`MAX_NGRAM_WEIGHTS`] weights (features × labels, word and character
//! n-grams together, the characters' at most half; the n-grams in the most train lines are
//! kept), and a vocabulary of at most [`MAX_NGRAM_VOCABULARY`] words
//! (a checkpoint stores the n-grams' word ids as 32-bit floats, exact up to 2^24).

use crate::model::nn::batch::Batch;
use crate::model::nn::character_ngrams::{
    CHARACTER_TENSORS, CharacterRows, CharacterSentence, CharacterTable,
};
use crate::model::nn::embeddings::{Vocabulary, WordVectors};
use crate::model::nn::mean_vector::{
    MeanVectors, WORD_ROW_FOLD_TENSOR, WORD_ROW_TENSORS, WordRows, WordRowsSentence,
};
use crate::model::nn::network::Network;
use crate::model::nn::softmax_regression::{Selection, SoftmaxRegression, SparseRow, Target};
use crate::model::nn::tfidf::TfidfTable;
use candle_core::{Device, Result, Tensor, Var};
use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// The most weights (n-gram features × labels) a regression keeps: 2,097,152, whose fit
/// keeps about 22 copies of the weights in f64 (L-BFGS's history of ten pairs), 370 MB.
pub const MAX_NGRAM_WEIGHTS: usize = 1 << 21;

/// The largest vocabulary whose n-grams a regression reads (see the module's doc).
pub const MAX_NGRAM_VOCABULARY: usize = 1 << 24;

/// The prefix of the regression's tensors in a checkpoint.
pub const NGRAM_PREFIX: &str = "ngrams.";

/// An n-gram: (word, word) for a bigram, (word, 0) for a unigram, as case classes.
type Gram = (u32, u32);

/// A fitted n-gram regression, its weights already scaled to the network's logits.
#[derive(Debug, Clone, PartialEq)]
pub struct NgramRegression {
    /// Each vocabulary id's case class: the smallest id of a word with the same lowercase
    /// form; 0 for the unknown word.
    classes: Vec<u32>,
    table: TfidfTable<Gram>,
    /// [F × C] row-major.
    weight: Vec<f32>,
    /// The character n-grams' part (none in a checkpoint of training version 8 or older).
    characters: Option<CharacterRows>,
    /// The mean word vector's part, where it was fitted with word vectors.
    word_rows: Option<WordRows>,
    bias: Vec<f32>,
    n_labels: usize,
}

/// A line as the regression is fitted on: its vocabulary ids, and its label's index
/// (`None`, or an index past the labels, for a label the network does not know).
pub type NgramLine<'a> = (&'a [u32], Option<usize>);

/// A train line as the regression is fitted on: its vocabulary ids, and what it is taught
/// (its label, or the label model's probabilities for a line without a gold label).
pub type NgramTrainLine<'a> = (&'a [u32], Target);

/// An n-gram's part of a logit: the tokens where it first occurs in the line, and the part.
pub type NgramPart = (Range<usize>, f32);

/// The regression's C where no dev line chooses it: where dev has no gold label, the label
/// model's labels of dev reward the regression that says the rules back: chosen on them, C
/// came out 100 on every proxy, and each fell or held (`docs/results.md`, "C chosen by the
/// regression's dev log loss").
pub const UNCHOSEN_C: f64 = 10.0;

/// How [`NgramRegression::fit`] sets C, and whether the regression reads character
/// n-grams.
#[derive(Debug, Clone, Copy)]
pub enum Regularization<'a, 'w> {
    /// The C of [`C_GRID`](super::softmax_regression::C_GRID) with the smallest log loss on
    /// these dev lines (ties to the smaller), fitted with character n-grams and without them,
    /// and of the two the one with the smaller log loss there (ties to the one with them);
    /// with no dev line, [`UNCHOSEN_C`] with character n-grams. On questions they cost some
    /// held-out lines, on reviews they gain (`docs/results.md`, "Character n-grams in the
    /// regression").
    ChosenOn(&'a [NgramLine<'w>]),
    /// This C, with character n-grams or without: the fit again on more lines once both were
    /// chosen.
    Fixed { c: f64, characters: bool },
}

/// What fitting an n-gram regression found.
#[derive(Debug, Clone, PartialEq)]
pub struct NgramFit {
    pub regression: NgramRegression,
    /// The C chosen on dev.
    pub c: f64,
}

impl NgramRegression {
    /// Fits the regression of `train`'s n-grams (and mean word vectors, given the
    /// vocabulary's `vectors`), its C and its character n-grams as `regularization` says,
    /// its logits scaled by `factor`; `None` without a train line, labels, or with a
    /// vocabulary past [`MAX_NGRAM_VOCABULARY`].
    pub fn fit(
        words: (&Vocabulary, Option<&WordVectors>),
        train: &[NgramTrainLine],
        regularization: Regularization,
        n_labels: usize,
        factor: f32,
    ) -> Option<NgramFit> {
        let fit = |characters| {
            NgramRegression::fit_reading(words, train, regularization, n_labels, factor, characters)
        };
        match regularization {
            Regularization::ChosenOn([]) => fit(true).map(|(fit, _)| fit),
            Regularization::ChosenOn(_) => {
                let (with, with_loss) = fit(true)?;
                let (without, without_loss) = fit(false)?;
                Some(if without_loss < with_loss {
                    without
                } else {
                    with
                })
            }
            Regularization::Fixed { characters, .. } => fit(characters).map(|(fit, _)| fit),
        }
    }

    /// [`NgramRegression::fit`] with character n-grams or without, and the fit's log loss on
    /// the dev lines it was chosen on (NaN without).
    fn fit_reading(
        (vocabulary, vectors): (&Vocabulary, Option<&WordVectors>),
        train: &[NgramTrainLine],
        regularization: Regularization,
        n_labels: usize,
        factor: f32,
        reads_characters: bool,
    ) -> Option<(NgramFit, f64)> {
        if vocabulary.len() > MAX_NGRAM_VOCABULARY || n_labels == 0 {
            return None;
        }
        let classes = classes(vocabulary);
        let train: Vec<&NgramTrainLine> = train
            .iter()
            .filter(|(_, target)| match target {
                Target::Label(label) => *label < n_labels,
                Target::Distribution(probabilities) => probabilities.len() == n_labels,
            })
            .collect();
        let vectors = vectors.and_then(|vectors| MeanVectors::new(vectors, n_labels));
        let dim = vectors.as_ref().map_or(0, MeanVectors::dim);
        let budget = (MAX_NGRAM_WEIGHTS / n_labels).saturating_sub(dim);
        let characters = reads_characters.then(|| {
            CharacterTable::new(
                vocabulary,
                train.iter().map(|(words, _)| *words),
                budget / 2,
            )
        });
        let n_characters = characters.as_ref().map_or(0, CharacterTable::len);
        let table = TfidfTable::new(
            train.iter().map(|(words, _)| grams(&classes, words, 0..0)),
            budget - n_characters,
        );
        let n_words = table.len();
        let row = |words: &[u32]| {
            let mut row = table.row(grams(&classes, words, 0..0));
            if let Some(characters) = &characters {
                row.extend(characters.row(words, n_words as u32));
            }
            if let Some(vectors) = &vectors {
                row.extend(vectors.features(words, (n_words + n_characters) as u32));
            }
            row
        };
        let n_features = n_words + n_characters + dim;
        let train_rows: Vec<(SparseRow, Target)> = train
            .iter()
            .map(|(words, target)| (row(words), target.clone()))
            .collect();
        let (model, dev_log_loss) = match regularization {
            Regularization::ChosenOn([]) => (
                SoftmaxRegression::fit(&train_rows, n_features, n_labels, UNCHOSEN_C),
                f64::NAN,
            ),
            Regularization::ChosenOn(dev) => {
                let dev_rows: Vec<(SparseRow, Option<usize>)> = dev
                    .iter()
                    .map(|&(words, label)| (row(words), label))
                    .collect();
                let model = SoftmaxRegression::fit_chosen(
                    &train_rows,
                    n_features,
                    n_labels,
                    &dev_rows,
                    Selection::LogLoss,
                )?
                .1;
                let log_loss = model.log_loss(&dev_rows);
                (model, log_loss)
            }
            Regularization::Fixed { c, .. } => (
                SoftmaxRegression::fit(&train_rows, n_features, n_labels, c),
                f64::NAN,
            ),
        };
        let (weight, bias) = model.weights();
        let (weight, rest) = weight.split_at(n_words * n_labels);
        let (character_weight, vector_weight) = rest.split_at(n_characters * n_labels);
        let scaled = |values: &[f64]| values.iter().map(|&w| factor * w as f32).collect();
        let fit = NgramFit {
            c: model.c,
            regression: NgramRegression {
                weight: scaled(weight),
                characters: characters
                    .map(|table| CharacterRows::new(table, character_weight, n_labels, factor)),
                word_rows: vectors.map(|vectors| vectors.fold(vector_weight, n_labels, factor)),
                bias: scaled(bias),
                classes,
                table,
                n_labels,
            },
        };
        Some((fit, dev_log_loss))
    }

    /// Whether it reads character n-grams (chosen on dev where it was fitted).
    pub fn reads_characters(&self) -> bool {
        self.characters.is_some()
    }

    /// The same regression with its logits times `k`.
    pub fn scaled(&self, k: f32) -> NgramRegression {
        NgramRegression {
            weight: self.weight.iter().map(|w| w * k).collect(),
            characters: self.characters.as_ref().map(|rows| rows.scaled(k)),
            word_rows: self.word_rows.as_ref().map(|rows| rows.scaled(k)),
            bias: self.bias.iter().map(|b| b * k).collect(),
            ..self.clone()
        }
    }

    /// The regression for a network of the vocabulary `to`, fitted for one of `from` (a warm
    /// start's previous network, trained on the same lines, so with the same n-grams): `None`
    /// when a word of its n-grams or with a vector row is not in `to`, or `to` folds two of
    /// its n-grams into one. Character n-grams are any vocabulary's.
    pub fn remapped(&self, from: &Vocabulary, to: &Vocabulary) -> Option<NgramRegression> {
        if to.len() > MAX_NGRAM_VOCABULARY {
            return None;
        }
        let classes = classes(to);
        let class = |id: u32| -> Option<u32> {
            if id == 0 {
                return Some(0);
            }
            let new = to.id(from.words().get(id as usize)?);
            (new != 0).then(|| classes[new as usize])
        };
        let grams: Vec<Gram> = self
            .table
            .grams()
            .into_iter()
            .map(|(a, b)| Some((class(a)?, class(b)?)))
            .collect::<Option<_>>()?;
        let n = grams.len();
        let table = TfidfTable::from_parts(grams, self.table.idf().to_vec());
        let word_rows = match &self.word_rows {
            Some(rows) => Some(rows.remapped(from, to)?),
            None => None,
        };
        (table.len() == n).then(|| NgramRegression {
            classes,
            table,
            weight: self.weight.clone(),
            characters: self.characters.as_ref().map(|rows| rows.remapped(to)),
            word_rows,
            bias: self.bias.clone(),
            n_labels: self.n_labels,
        })
    }

    /// The regression for the vocabulary `to`, which extends `from`, this regression's, with
    /// words after its own (a loaded model opened to a text's words,
    /// `train/open_vocabulary.rs`): a new word reads the n-grams of the word it is a case
    /// variant of, its character n-grams and, given `to`'s `vectors`, its vector's row.
    /// `None` where `to` does not extend `from` or is past [`MAX_NGRAM_VOCABULARY`]. The old
    /// words keep their ids, so its n-grams and rows are its own: only the new words' are
    /// made, not the whole regression remapped.
    pub fn opened(
        &self,
        from: &Vocabulary,
        to: &Vocabulary,
        vectors: Option<&WordVectors>,
    ) -> Option<NgramRegression> {
        let first = from.len();
        if to.len() > MAX_NGRAM_VOCABULARY || to.words().get(..first) != Some(from.words()) {
            return None;
        }
        let word_rows = match (&self.word_rows, vectors) {
            (Some(rows), Some(vectors)) => Some(rows.opened(vectors, first)),
            (rows, _) => rows.clone(),
        };
        Some(NgramRegression {
            // An old word's class is the first of its lowercase form, which comes first.
            classes: classes(to),
            table: self.table.clone(),
            weight: self.weight.clone(),
            characters: (self.characters.as_ref()).map(|rows| rows.opened(to, first)),
            word_rows,
            bias: self.bias.clone(),
            n_labels: self.n_labels,
        })
    }

    /// The parts of label `label`'s logit of the sentence `words`: one per n-gram of the line
    /// that train had (its tf-idf value times its weight, a word's unigram with the parts of
    /// its character n-grams and its vector added), each with the tokens where it first
    /// occurs, in the order they first occur, then the character and vector parts of words
    /// with no unigram there; the bias and the parts add up to the logit
    /// [`NgramRegression::logits`] gives, up to rounding.
    pub fn parts(&self, words: &[u32], label: usize) -> Vec<NgramPart> {
        let sentence = self.sentence(words);
        let norm = sentence.norm2.sqrt() as f32;
        let (idf, labels) = (self.table.idf(), self.n_labels);
        let mut seen = HashSet::new();
        let mut parts = Vec::new();
        for (i, &unigram) in sentence.unigrams.iter().enumerate() {
            let bigram = sentence.bigrams.get(i).copied().flatten();
            for (feature, tokens) in [(unigram, i..i + 1), (bigram, i..i + 2)] {
                let Some(feature) = feature else { continue };
                if !seen.insert(feature) {
                    continue;
                }
                let x = sentence.counts[&feature] * idf[feature as usize] / norm;
                parts.push((tokens, x * self.weight[feature as usize * labels + label]));
            }
        }
        // Each word's part by the token where it first occurs, for the parts of its
        // characters and its vector to join it.
        let mut words_at: HashMap<usize, usize> = parts
            .iter()
            .enumerate()
            .filter(|(_, (tokens, _))| tokens.len() == 1)
            .map(|(i, (tokens, _))| (tokens.start, i))
            .collect();
        let characters = sentence
            .characters
            .as_ref()
            .map(|characters| characters.parts(label));
        let vectors = self.word_rows.as_ref().map(|rows| rows.parts(words, label));
        for (at, part) in characters.into_iter().chain(vectors).flatten() {
            match words_at.get(&at) {
                Some(&i) => parts[i].1 += part,
                None => {
                    words_at.insert(at, parts.len());
                    parts.push((at..at + 1, part));
                }
            }
        }
        parts
    }

    /// Label `label`'s bias.
    pub fn bias(&self, label: usize) -> f32 {
        self.bias.get(label).copied().unwrap_or(0.0)
    }

    /// `words` (vocabulary ids) prepared for [`NgramSentence::logits`].
    pub fn sentence(&self, words: &[u32]) -> NgramSentence<'_> {
        let classes = token_classes(&self.classes, words);
        // The unknown word is in no n-gram ((word, 0) is the word's unigram).
        let unigrams: Vec<Option<u32>> = classes
            .iter()
            .map(|&c| (c != 0).then(|| self.feature((c, 0))).flatten())
            .collect();
        let bigrams: Vec<Option<u32>> = classes
            .windows(2)
            .map(|pair| {
                (pair[0] != 0 && pair[1] != 0)
                    .then(|| self.feature((pair[0], pair[1])))
                    .flatten()
            })
            .collect();
        let mut counts: HashMap<u32, f32> = HashMap::new();
        for &feature in unigrams.iter().chain(&bigrams).flatten() {
            *counts.entry(feature).or_insert(0.0) += 1.0;
        }
        let labels = self.n_labels;
        let (mut sum, mut norm2) = (vec![0f64; labels], 0f64);
        for (&feature, &count) in &counts {
            let x = f64::from(count) * f64::from(self.table.idf()[feature as usize]);
            norm2 += x * x;
            let weights = &self.weight[feature as usize * labels..][..labels];
            for (s, &w) in sum.iter_mut().zip(weights) {
                *s += x * f64::from(w);
            }
        }
        NgramSentence {
            regression: self,
            characters: self.characters.as_ref().map(|rows| rows.sentence(words)),
            word_rows: self.word_rows.as_ref().map(|rows| rows.sentence(words)),
            classes,
            unigrams,
            bigrams,
            counts,
            sum,
            norm2,
        }
    }

    /// The feature of an n-gram, if train had it.
    fn feature(&self, gram: Gram) -> Option<u32> {
        self.table.feature(&gram)
    }

    /// How many n-grams it weighs.
    pub fn n_features(&self) -> usize {
        self.table.len()
    }

    /// How many character n-grams it weighs (0 in a checkpoint of training version 8 or
    /// older).
    pub fn n_character_features(&self) -> usize {
        self.characters.as_ref().map_or(0, CharacterRows::len)
    }

    /// How many words' vectors its mean word vector reads (0 for n-grams alone).
    pub fn n_vector_words(&self) -> usize {
        self.word_rows.as_ref().map_or(0, WordRows::len)
    }

    /// The logits of the sentence `words` (vocabulary ids) without its tokens `deleted`.
    pub fn logits(&self, words: &[u32], deleted: Range<usize>) -> Vec<f32> {
        let row = self.table.row(grams(&self.classes, words, deleted.clone()));
        let mut logits = self.bias.clone();
        let c = self.n_labels;
        for (feature, x) in row {
            let weights = &self.weight[feature as usize * c..(feature as usize + 1) * c];
            for (l, w) in logits.iter_mut().zip(weights) {
                *l += x * w;
            }
        }
        if let Some(rows) = &self.characters {
            rows.add_to(words, deleted.clone(), &mut logits);
        }
        if let Some(rows) = &self.word_rows {
            rows.add_to(words, deleted, &mut logits);
        }
        logits
    }

    /// Its tensors under their checkpoint names, on `device`.
    pub fn named_tensors(&self, device: &Device) -> Result<Vec<(String, Tensor)>> {
        let grams = self.table.grams();
        let f = grams.len();
        let grams: Vec<f32> = grams
            .into_iter()
            .flat_map(|(a, b)| [a as f32, b as f32])
            .collect();
        let mut tensors = vec![
            (
                format!("{NGRAM_PREFIX}grams"),
                Tensor::from_vec(grams, (f, 2), device)?,
            ),
            (
                format!("{NGRAM_PREFIX}idf"),
                Tensor::from_vec(self.table.idf().to_vec(), f, device)?,
            ),
            (
                format!("{NGRAM_PREFIX}weight"),
                Tensor::from_vec(self.weight.clone(), (f, self.n_labels), device)?,
            ),
            (
                format!("{NGRAM_PREFIX}bias"),
                Tensor::from_vec(self.bias.clone(), self.n_labels, device)?,
            ),
        ];
        if let Some(rows) = &self.characters {
            tensors.extend(rows.named_tensors(NGRAM_PREFIX, device)?);
        }
        if let Some(rows) = &self.word_rows {
            tensors.extend(rows.named_tensors(NGRAM_PREFIX, device)?);
        }
        Ok(tensors)
    }

    /// The regression a checkpoint's tensors hold, taken out of `tensors` (every name with
    /// [`NGRAM_PREFIX`]), for a network of `vocabulary` and `n_labels` labels; `None` when it
    /// holds none.
    pub fn take_from(
        tensors: &mut HashMap<String, Tensor>,
        vocabulary: Option<&Vocabulary>,
        n_labels: usize,
    ) -> Result<Option<NgramRegression>> {
        let names: Vec<String> = tensors
            .keys()
            .filter(|name| name.starts_with(NGRAM_PREFIX))
            .cloned()
            .collect();
        if names.is_empty() {
            return Ok(None);
        }
        let mut parts: HashMap<String, Tensor> = names
            .into_iter()
            .filter_map(|name| {
                let tensor = tensors.remove(&name)?;
                Some((name[NGRAM_PREFIX.len()..].to_string(), tensor))
            })
            .collect();
        let mut take = |name: &str| {
            parts.remove(name).ok_or_else(|| {
                candle_core::Error::Msg(format!("the tensor `{NGRAM_PREFIX}{name}` is missing"))
            })
        };
        let (grams, idf, weight, bias) =
            (take("grams")?, take("idf")?, take("weight")?, take("bias")?);
        // The mean vector's part: both of its tensors, or neither (a checkpoint of training
        // version 4 or older, or a network without word vectors).
        let [words_name, weight_name] = WORD_ROW_TENSORS;
        // What folds a word's vector into its row: absent in a checkpoint of training
        // version 9 or older.
        let fold = parts.remove(WORD_ROW_FOLD_TENSOR);
        let word_rows = match (parts.remove(words_name), parts.remove(weight_name)) {
            (Some(words), Some(weight)) => Some((words, weight)),
            (None, None) if fold.is_some() => {
                candle_core::bail!("the tensor `{NGRAM_PREFIX}{words_name}` is missing")
            }
            (None, None) => None,
            (None, Some(_)) => {
                candle_core::bail!("the tensor `{NGRAM_PREFIX}{words_name}` is missing")
            }
            (Some(_), None) => {
                candle_core::bail!("the tensor `{NGRAM_PREFIX}{weight_name}` is missing")
            }
        };
        // The character n-grams' part: all three of its tensors, or none (a checkpoint of
        // training version 8 or older).
        let characters = CHARACTER_TENSORS.map(|name| parts.remove(name));
        let characters = match characters {
            [Some(grams), Some(idf), Some(weight)] => Some([grams, idf, weight]),
            [None, None, None] => None,
            _ => {
                let missing = CHARACTER_TENSORS
                    .iter()
                    .zip(&characters)
                    .find(|(_, tensor)| tensor.is_none())
                    .map_or("", |(name, _)| *name);
                candle_core::bail!("the tensor `{NGRAM_PREFIX}{missing}` is missing")
            }
        };
        if let Some(name) = parts.keys().next() {
            candle_core::bail!("the tensor `{NGRAM_PREFIX}{name}` is not an n-gram regression's");
        }
        let Some(vocabulary) = vocabulary.filter(|v| v.len() <= MAX_NGRAM_VOCABULARY) else {
            candle_core::bail!(
                "an n-gram regression needs a vocabulary of at most {MAX_NGRAM_VOCABULARY} words, and the checkpoint has none"
            );
        };
        let f = idf.dim(0)?;
        if grams.dims() != [f, 2] || weight.dims() != [f, n_labels] || bias.dims() != [n_labels] {
            candle_core::bail!(
                "the n-gram regression's tensors do not fit {f} n-grams and {n_labels} labels"
            );
        }
        let characters = match &characters {
            Some([grams, idf, weight]) => Some(CharacterRows::from_tensors(
                [grams, idf, weight],
                vocabulary,
                n_labels,
                (NGRAM_PREFIX, MAX_NGRAM_WEIGHTS / 2),
            )?),
            None => None,
        };
        let n_characters = characters.as_ref().map_or(0, CharacterRows::len);
        if (f + n_characters) * n_labels > MAX_NGRAM_WEIGHTS {
            candle_core::bail!(
                "the n-gram regression has {f} word and {n_characters} character n-grams of {n_labels} labels, more than {MAX_NGRAM_WEIGHTS} weights"
            );
        }
        let plain = |t: &Tensor| -> Result<Vec<f32>> { t.flatten_all()?.to_vec1() };
        let (grams, idf, weight, bias) =
            (plain(&grams)?, plain(&idf)?, plain(&weight)?, plain(&bias)?);
        if !idf
            .iter()
            .chain(&weight)
            .chain(&bias)
            .all(|x| x.is_finite())
        {
            candle_core::bail!("the n-gram regression's weights are not all finite");
        }
        let words = vocabulary.len() as f32;
        if !grams
            .iter()
            .all(|&id| id >= 0.0 && id < words && id.fract() == 0.0)
        {
            candle_core::bail!(
                "the n-gram regression names a word id the vocabulary does not have"
            );
        }
        let grams: Vec<Gram> = grams
            .chunks_exact(2)
            .map(|pair| (pair[0] as u32, pair[1] as u32))
            .collect();
        let word_rows = match word_rows {
            Some((words, weight)) => Some(WordRows::from_tensors(
                [&words, &weight],
                fold.as_ref(),
                vocabulary.len(),
                n_labels,
                NGRAM_PREFIX,
            )?),
            None => None,
        };
        Ok(Some(NgramRegression {
            classes: classes(vocabulary),
            table: TfidfTable::from_parts(grams, idf),
            weight,
            characters,
            word_rows,
            bias,
            n_labels,
        }))
    }
}

/// A sentence's n-grams prepared for scoring it with spans deleted (the occlusions of a
/// hover): each deletion changes the counts of the few n-grams in or beside the span only,
/// so its logits cost O(span × labels) after O(tokens × labels) here, not a whole row each.
pub struct NgramSentence<'a> {
    regression: &'a NgramRegression,
    /// Its tokens' character n-grams.
    characters: Option<CharacterSentence<'a>>,
    /// The mean vector's rows of its tokens.
    word_rows: Option<WordRowsSentence<'a>>,
    /// Each token's case class.
    classes: Vec<u32>,
    /// Each token's unigram feature, and the feature of its bigram with the next token.
    unigrams: Vec<Option<u32>>,
    bigrams: Vec<Option<u32>>,
    /// The whole sentence's count of each n-gram feature.
    counts: HashMap<u32, f32>,
    /// Σ count·idf·weight per label, and Σ (count·idf)², of the whole sentence.
    sum: Vec<f64>,
    norm2: f64,
}

impl NgramSentence<'_> {
    /// The logits of the sentence without its tokens `deleted`, as [`NgramRegression::logits`]
    /// computes them up to rounding.
    pub fn logits(&self, deleted: Range<usize>) -> Vec<f32> {
        let regression = self.regression;
        let n = self.classes.len();
        let (start, end) = (
            deleted.start.min(n),
            deleted.end.min(n).max(deleted.start.min(n)),
        );
        let mut deltas: Vec<(u32, f32)> = Vec::new();
        let mut change =
            |feature: u32, delta: f32| match deltas.iter_mut().find(|(f, _)| *f == feature) {
                Some((_, d)) => *d += delta,
                None => deltas.push((feature, delta)),
            };
        let c = &self.classes;
        if start < end {
            let removed = self.unigrams[start..end]
                .iter()
                .chain(&self.bigrams[start.saturating_sub(1)..end.min(n - 1)]);
            for &feature in removed.flatten() {
                change(feature, -1.0);
            }
            let (a, b) = (c[start.saturating_sub(1)], c[end.min(n - 1)]);
            if start > 0
                && end < n
                && a != 0
                && b != 0
                && let Some(feature) = regression.feature((a, b))
            {
                change(feature, 1.0);
            }
        }
        let (mut sum, mut norm2) = (self.sum.clone(), self.norm2);
        // Features left with a count: none leaves the biases alone (the rounding of `norm2`
        // must not be read as a row). Counts are small integers, exact in f32.
        let mut present = self.counts.len();
        let labels = regression.n_labels;
        for (feature, delta) in deltas {
            let idf = f64::from(regression.table.idf()[feature as usize]);
            let count = self.counts.get(&feature).copied().unwrap_or(0.0);
            let after = count + delta;
            present = present + usize::from(count == 0.0 && after > 0.0)
                - usize::from(count > 0.0 && after == 0.0);
            let (count, after, delta) = (f64::from(count), f64::from(after), f64::from(delta));
            norm2 += (after * after - count * count) * idf * idf;
            let weights = &regression.weight[feature as usize * labels..][..labels];
            for (s, &w) in sum.iter_mut().zip(weights) {
                *s += delta * idf * f64::from(w);
            }
        }
        let mut logits = regression.bias.clone();
        if present > 0 {
            let norm = norm2.sqrt();
            for (l, s) in logits.iter_mut().zip(sum) {
                *l += (s / norm) as f32;
            }
        }
        if let Some(characters) = &self.characters {
            characters.add_to(start..end, &mut logits);
        }
        if let Some(rows) = &self.word_rows {
            rows.add_to(start..end, &mut logits);
        }
        logits
    }
}

/// Each vocabulary id's case class: the smallest id of a word with the same lowercase form
/// (the unknown word, id 0, its own).
fn classes(vocabulary: &Vocabulary) -> Vec<u32> {
    let mut first: HashMap<String, u32> = HashMap::new();
    vocabulary
        .words()
        .iter()
        .enumerate()
        .map(|(id, word)| {
            if id == 0 {
                0
            } else {
                *first.entry(word.to_lowercase()).or_insert(id as u32)
            }
        })
        .collect()
}

/// The unigrams and bigrams of the sentence `words` without its tokens `deleted`, as case
/// classes; none holds the unknown word.
fn grams(classes: &[u32], words: &[u32], deleted: Range<usize>) -> Vec<Gram> {
    let kept: Vec<u32> = words[..deleted.start.min(words.len())]
        .iter()
        .chain(&words[deleted.end.min(words.len())..])
        .copied()
        .collect();
    grams_of_classes(&token_classes(classes, &kept))
}

/// The case class of each of `words` (vocabulary ids; 0 for an id past `classes`).
fn token_classes(classes: &[u32], words: &[u32]) -> Vec<u32> {
    words
        .iter()
        .map(|&id| classes.get(id as usize).copied().unwrap_or(0))
        .collect()
}

/// The unigrams and bigrams of a sentence of case classes; none holds the unknown word.
fn grams_of_classes(classes: &[u32]) -> Vec<Gram> {
    let mut out: Vec<Gram> = classes
        .iter()
        .filter(|&&c| c != 0)
        .map(|&c| (c, 0))
        .collect();
    out.extend(
        classes
            .windows(2)
            .filter(|pair| pair[0] != 0 && pair[1] != 0)
            .map(|pair| (pair[0], pair[1])),
    );
    out
}

/// A network of the FA-RNN family with its n-gram regression's logits added to its own.
pub struct WithNgrams {
    /// An `FaRnn`, a `BiFaRnn` or an `Ensemble`.
    pub network: Box<dyn Network>,
    pub ngrams: NgramRegression,
    /// The regression's tensors, on the network's device.
    tensors: Vec<(String, Tensor)>,
}

impl WithNgrams {
    pub fn new(network: Box<dyn Network>, ngrams: NgramRegression) -> Result<WithNgrams> {
        let device = network
            .named_tensors()
            .first()
            .map_or(Device::Cpu, |(_, t)| t.device().clone());
        let tensors = ngrams.named_tensors(&device)?;
        Ok(WithNgrams {
            network,
            ngrams,
            tensors,
        })
    }
}

impl Network for WithNgrams {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        let logits = self.network.logits(batch)?;
        let words = batch.words.to_vec2::<u32>()?;
        let added: Vec<f32> = words
            .iter()
            .zip(&batch.lengths)
            .flat_map(|(words, &len)| self.ngrams.logits(&words[..len], 0..0))
            .collect();
        let added = Tensor::from_vec(added, logits.dims2()?, logits.device())?;
        logits + added
    }

    fn training_bytes_per_token(&self) -> u64 {
        self.network.training_bytes_per_token()
    }

    fn parameters(&self) -> Vec<Var> {
        self.network.parameters()
    }

    fn head_parameters(&self) -> Vec<Var> {
        self.network.head_parameters()
    }

    fn parameter_names(&self) -> Vec<String> {
        self.network.parameter_names()
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        let mut tensors = self.network.named_tensors();
        tensors.extend(self.tensors.iter().cloned());
        tensors
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> Vocabulary {
        Vocabulary::new([
            "free", "prize", "now", "cash", "win", "see", "you", "at", "dinner", "mum", "Free",
            "money", "prizes",
        ])
    }

    /// Two-dimensional vectors: the spam words' (and `money`'s, which no train line holds)
    /// point one way, the others' the other; `now` and `prizes` have none of their own.
    fn vectors(v: &Vocabulary) -> WordVectors {
        let spam = ["free", "prize", "cash", "win", "Free", "money"];
        let mut data = vec![0.5, 0.5];
        let mut known = vec![false];
        for word in &v.words()[1..] {
            data.extend(if spam.contains(&word.as_str()) {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            });
            known.push(word != "now" && word != "prizes");
        }
        WordVectors {
            dim: 2,
            data,
            n_found: known.iter().filter(|&&k| k).count(),
            n_backed_off: 0,
            known,
            sha256: String::new(),
        }
    }

    fn ids(vocabulary: &Vocabulary, text: &str) -> Vec<u32> {
        text.split(' ').map(|word| vocabulary.id(word)).collect()
    }

    fn fitted(factor: f32) -> NgramFit {
        fitted_with(factor, None)
    }

    fn fitted_with(factor: f32, vectors: Option<&WordVectors>) -> NgramFit {
        let v = vocabulary();
        let texts = [
            ("free prize now", 1),
            ("win cash now", 1),
            ("free cash", 1),
            ("see you at dinner", 0),
            ("you at mum", 0),
            ("dinner now mum", 0),
        ];
        let lines: Vec<(Vec<u32>, Option<usize>)> = texts
            .iter()
            .map(|&(text, label)| (ids(&v, text), Some(label)))
            .collect();
        let dev: Vec<NgramLine> = lines.iter().map(|(w, l)| (w.as_slice(), *l)).collect();
        let train: Vec<NgramTrainLine> = lines
            .iter()
            .map(|(w, l)| (w.as_slice(), Target::Label(l.unwrap())))
            .collect();
        NgramRegression::fit(
            (&v, vectors),
            &train,
            Regularization::ChosenOn(&dev[..4]),
            2,
            factor,
        )
        .unwrap()
    }

    /// Prepared once, a sentence scores every deletion as the whole computation does, the
    /// deletion of every token (the biases alone) included.
    fn assert_every_deletion_prepared(regression: &NgramRegression, words: &[u32]) {
        let sentence = regression.sentence(words);
        for start in 0..=words.len() {
            for end in start..=words.len() {
                let direct = regression.logits(words, start..end);
                let prepared = sentence.logits(start..end);
                for (a, b) in direct.iter().zip(&prepared) {
                    assert!(
                        (a - b).abs() < 1e-5,
                        "{words:?} {start}..{end}: {direct:?} {prepared:?}"
                    );
                }
            }
        }
        assert_eq!(sentence.logits(0..words.len()), regression.bias);
    }

    /// The bias and the parts of each label's logit of `words` add up to it.
    fn assert_parts_add_up(regression: &NgramRegression, words: &[u32]) {
        for label in 0..2 {
            let parts = regression.parts(words, label);
            let sum = regression.bias(label) + parts.iter().map(|(_, x)| x).sum::<f32>();
            let logit = regression.logits(words, 0..0)[label];
            assert!((sum - logit).abs() < 1e-5, "{words:?}: {sum} {logit}");
        }
    }

    #[test]
    fn the_regression_learns_case_folded_n_grams_and_a_deleted_span_joins_its_neighbours() {
        let v = vocabulary();
        let NgramFit { regression, c } = fitted(0.5);
        // Every C gets the dev lines right: the log loss keeps the one surest of them, the
        // weakest regularisation.
        assert_eq!(c, 100.0);
        // The 10 unigrams and 11 bigrams of train.
        assert_eq!(regression.n_features(), 21);
        let logits = |text: &str| regression.logits(&ids(&v, text), 0..0);
        let spam = logits("win free cash");
        assert!(spam[1] > spam[0], "{spam:?}");
        let ham = logits("see you mum");
        assert!(ham[0] > ham[1], "{ham:?}");
        assert_eq!(logits("Free cash"), logits("free cash"));
        // Words it never saw (id 0) are in no n-gram: the biases alone.
        assert_eq!(logits("zz yy"), regression.bias);
        assert_eq!(logits(""), regression.bias);
        // "free at cash" without "at" is "free cash": the bigram across the deletion counts.
        assert_eq!(
            regression.logits(&ids(&v, "free at cash"), 1..2),
            logits("free cash")
        );
        for text in [
            "win free cash now zz free cash",
            "see you at dinner mum",
            "cash",
            "",
        ] {
            assert_every_deletion_prepared(&regression, &ids(&v, text));
        }
        // The parts of a label's logit add up to it, each n-gram at its first tokens.
        let words = ids(&v, "free cash zz free");
        for label in 0..2 {
            let parts = regression.parts(&words, label);
            let ranges: Vec<Range<usize>> = parts.iter().map(|(r, _)| r.clone()).collect();
            assert_eq!(ranges, [0..1, 0..2, 1..2]);
            let sum = regression.bias(label) + parts.iter().map(|(_, x)| x).sum::<f32>();
            let logit = regression.logits(&words, 0..0)[label];
            assert!((sum - logit).abs() < 1e-6, "{sum} {logit}");
        }
        assert!(regression.parts(&ids(&v, "zz"), 0).is_empty());
        // Remapped to a vocabulary with another word first and one more at the end (a warm
        // start's, after a rule with new words), it scores the same; without `cash`, it cannot.
        let mut words: Vec<&str> = v.words()[1..].iter().map(String::as_str).collect();
        words.insert(0, "claim");
        words.push("CASH");
        let to = Vocabulary::new(words.iter().copied());
        let remapped = regression.remapped(&v, &to).unwrap();
        assert_eq!(remapped.logits(&ids(&to, "win free cash"), 0..0), spam);
        assert_eq!(remapped.logits(&ids(&to, "win free CASH"), 0..0), spam);
        words.retain(|w| *w != "cash" && *w != "CASH");
        let without = Vocabulary::new(words.iter().copied());
        assert_eq!(regression.remapped(&v, &without), None);
        // The factor scales every logit.
        let doubled = fitted(1.0)
            .regression
            .logits(&ids(&v, "win free cash"), 0..0);
        for (a, b) in spam.iter().zip(&doubled) {
            assert!((2.0 * a - b).abs() < 1e-6, "{spam:?} {doubled:?}");
        }
    }

    #[test]
    fn a_regression_opened_to_new_words_scores_them_as_one_fitted_with_them_does() {
        // Train's words, then after them words no train line holds: `money` (a vector),
        // `Cash` (a case variant of `cash`) and `prizez` (spelled like `prize`; no vector).
        let small = Vocabulary::new(["free", "prize", "now", "cash", "win", "see", "you", "at"]);
        let mut words: Vec<&str> = small.words()[1..].iter().map(String::as_str).collect();
        words.extend(["dinner", "mum", "money", "Cash", "prizez"]);
        let large = Vocabulary::new(words.iter().copied());
        let mut vectors = vectors(&large);
        let prizez = large.id("prizez") as usize;
        vectors.known[prizez] = false;
        vectors.data[prizez * 2..][..2].copy_from_slice(&[0.5, 0.5]);
        let texts = [
            ("free prize now", 1),
            ("win cash now", 1),
            ("free cash", 1),
            ("see you at", 0),
            ("you at now", 0),
        ];
        let fit = |v: &Vocabulary, vectors: &WordVectors| {
            let lines: Vec<Vec<u32>> = texts.iter().map(|(text, _)| ids(v, text)).collect();
            let train: Vec<NgramTrainLine> = lines
                .iter()
                .zip(&texts)
                .map(|(w, &(_, label))| (w.as_slice(), Target::Label(label)))
                .collect();
            let dev: Vec<NgramLine> = lines
                .iter()
                .zip(&texts)
                .map(|(w, &(_, label))| (w.as_slice(), Some(label)))
                .collect();
            let regularization = Regularization::ChosenOn(&dev[..3]);
            (NgramRegression::fit((v, Some(vectors)), &train, regularization, 2, 1.5))
                .unwrap()
                .regression
        };
        let small_vectors = WordVectors {
            data: vectors.data[..small.len() * 2].to_vec(),
            known: vectors.known[..small.len()].to_vec(),
            ..vectors.clone()
        };
        let fitted = fit(&small, &small_vectors);
        let with_them = fit(&large, &vectors);
        let opened = fitted.opened(&small, &large, Some(&vectors)).unwrap();
        assert_eq!(
            opened.n_vector_words(),
            fitted.n_vector_words() + 4,
            "`dinner`, `mum`, `money` and `Cash`"
        );
        for text in [
            "money",
            "Cash money",
            "win prizez now",
            "see you Cash mum",
            "free",
        ] {
            let words = ids(&large, text);
            let (a, b) = (opened.logits(&words, 0..0), with_them.logits(&words, 0..0));
            for (a, b) in a.iter().zip(&b) {
                assert!((a - b).abs() < 1e-5, "{text}: {a} against {b}");
            }
            assert_every_deletion_prepared(&opened, &words);
            assert_parts_add_up(&opened, &words);
        }
        // It opens only to a vocabulary that keeps its words' ids.
        let reordered = Vocabulary::new(large.words()[1..].iter().rev().map(String::as_str));
        assert!(fitted.opened(&small, &reordered, Some(&vectors)).is_none());
        // Read as the unknown word, the new words say nothing; opened, they speak.
        let unknown = fitted.logits(&ids(&small, "money Cash prizez"), 0..0);
        assert_eq!(unknown, fitted.bias);
        let read = opened.logits(&ids(&large, "money Cash prizez"), 0..0);
        assert!(
            read[1] - read[0] > unknown[1] - unknown[0] + 0.1,
            "{read:?}"
        );
        // A regression of an older checkpoint (without what folds a vector) opens to the
        // new words' n-grams and spellings, not their vectors.
        let mut tensors: HashMap<String, Tensor> = (fitted.named_tensors(&Device::Cpu))
            .unwrap()
            .into_iter()
            .collect();
        tensors.remove("ngrams.vector_fold").expect("the fold");
        let older = NgramRegression::take_from(&mut tensors, Some(&small), 2)
            .unwrap()
            .unwrap();
        let older = older.opened(&small, &large, Some(&vectors)).unwrap();
        assert_eq!(older.n_vector_words(), fitted.n_vector_words());
    }

    #[test]
    fn the_mean_word_vector_speaks_for_a_word_no_train_line_holds_and_stays_additive() {
        let v = vocabulary();
        let vectors = vectors(&v);
        let plain = fitted(1.0).regression;
        let regression = fitted_with(1.0, Some(&vectors)).regression;
        // `now` has no vector of its own: the seven other words of train, and `money`.
        assert_eq!(regression.n_vector_words(), 11);
        assert_eq!(plain.n_vector_words(), 0);
        // No train line holds `money`: n-grams alone give it the biases, its vector spam.
        let money = ids(&v, "money");
        assert_eq!(plain.logits(&money, 0..0), plain.bias);
        let logits = regression.logits(&money, 0..0);
        assert!(
            logits[1] - regression.bias[1] > logits[0] - regression.bias[0],
            "{logits:?}"
        );
        // The same n-grams are read either way.
        assert_eq!(regression.n_features(), plain.n_features());
        for text in [
            "win free cash now zz free cash",
            "see you at dinner mum money",
            "now",
            "",
        ] {
            let words = ids(&v, text);
            assert_every_deletion_prepared(&regression, &words);
            // The parts (a word's vector with its unigram) add up to each logit.
            assert_parts_add_up(&regression, &words);
        }
        // A word no train line holds has a part of its own; one that train holds shares its
        // unigram's.
        let words = ids(&v, "free money free");
        let ranges: Vec<Range<usize>> = regression
            .parts(&words, 1)
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(ranges, [0..1, 1..2]);
        // Scaled, remapped and through its tensors, it scores the same.
        let doubled = regression.scaled(2.0).logits(&money, 0..0);
        for (a, b) in logits.iter().zip(&doubled) {
            assert!((2.0 * a - b).abs() < 1e-6);
        }
        let mut words: Vec<&str> = v.words()[1..].iter().map(String::as_str).collect();
        words.insert(0, "claim");
        let to = Vocabulary::new(words.iter().copied());
        let remapped = regression.remapped(&v, &to).unwrap();
        assert_eq!(
            remapped.logits(&ids(&to, "money free"), 0..0),
            regression.logits(&ids(&v, "money free"), 0..0)
        );
        words.retain(|w| *w != "money");
        assert_eq!(
            regression.remapped(&v, &Vocabulary::new(words.iter().copied())),
            None
        );
        let mut tensors: HashMap<String, Tensor> = regression
            .named_tensors(&Device::Cpu)
            .unwrap()
            .into_iter()
            .collect();
        let back = NgramRegression::take_from(&mut tensors.clone(), Some(&v), 2).unwrap();
        assert_eq!(back.as_ref(), Some(&regression));
        // Refused: one of its two tensors alone, a word id twice or past the vocabulary.
        let mut alone = tensors.clone();
        alone.remove("ngrams.vector_weight");
        let error = NgramRegression::take_from(&mut alone, Some(&v), 2).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("`ngrams.vector_weight` is missing"),
            "{error}"
        );
        let k = regression.n_vector_words();
        for bad in [v.len() as f32, 0.0] {
            let mut ids: Vec<f32> = (1..=k).map(|id| id as f32).collect();
            ids[k - 1] = bad;
            tensors.insert(
                "ngrams.vector_words".into(),
                Tensor::from_vec(ids, k, &Device::Cpu).unwrap(),
            );
            let error = NgramRegression::take_from(&mut tensors.clone(), Some(&v), 2).unwrap_err();
            assert!(error.to_string().contains("word id"), "{error}");
        }
    }

    #[test]
    fn character_n_grams_speak_for_a_word_spelled_like_train_words_and_stay_additive() {
        let v = vocabulary();
        let regression = fitted(1.0).regression;
        // " pr", "pri", …, "prize" and the others of `prize`, `free` and the other words.
        assert!(regression.n_character_features() > 40);
        // No train line holds `prizes`, and it has no vector: its characters alone lean spam.
        let logits = regression.logits(&ids(&v, "prizes"), 0..0);
        assert!(
            logits[1] - regression.bias[1] > logits[0] - regression.bias[0],
            "{logits:?}"
        );
        // Its part is its own token's, and the parts add up to each logit.
        for text in ["prizes", "see you prizes", "prizes free prizes"] {
            let words = ids(&v, text);
            assert_every_deletion_prepared(&regression, &words);
            assert_parts_add_up(&regression, &words);
        }
        let ranges: Vec<Range<usize>> = regression
            .parts(&ids(&v, "prizes free prizes"), 1)
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(ranges, [1..2, 0..1]);
        // A checkpoint of training version 8 or older has no character n-grams: it loads,
        // and reads the word n-grams alone.
        let tensors: HashMap<String, Tensor> = regression
            .named_tensors(&Device::Cpu)
            .unwrap()
            .into_iter()
            .collect();
        let mut older = tensors.clone();
        for name in CHARACTER_TENSORS {
            older.remove(&format!("{NGRAM_PREFIX}{name}"));
        }
        let older = NgramRegression::take_from(&mut older, Some(&v), 2)
            .unwrap()
            .unwrap();
        assert_eq!(older.n_character_features(), 0);
        assert_eq!(older.logits(&ids(&v, "prizes"), 0..0), older.bias);
        // One of its tensors alone, or an n-gram of two characters, is refused.
        let mut alone = tensors.clone();
        alone.remove("ngrams.char_idf");
        let error = NgramRegression::take_from(&mut alone, Some(&v), 2).unwrap_err();
        assert!(
            error.to_string().contains("`ngrams.char_idf` is missing"),
            "{error}"
        );
        let mut short = tensors.clone();
        let f = regression.n_character_features();
        let mut codes = vec![97.0f32; f * 5];
        codes[2] = 0.0;
        short.insert(
            "ngrams.char_grams".into(),
            Tensor::from_vec(codes, (f, 5), &Device::Cpu).unwrap(),
        );
        let error = NgramRegression::take_from(&mut short, Some(&v), 2).unwrap_err();
        assert!(error.to_string().contains("3 to 5 characters"), "{error}");
    }

    #[test]
    fn dev_chooses_whether_the_regression_reads_character_n_grams() {
        let v = vocabulary();
        let lines: Vec<(Vec<u32>, usize)> = [
            ("free prize now", 1),
            ("win cash now", 1),
            ("see you at dinner", 0),
            ("you at mum", 0),
        ]
        .iter()
        .map(|&(text, label)| (ids(&v, text), label))
        .collect();
        let train: Vec<NgramTrainLine> = lines
            .iter()
            .map(|(w, l)| (w.as_slice(), Target::Label(*l)))
            .collect();
        let prizes = ids(&v, "prizes");
        let fit = |regularization| NgramRegression::fit((&v, None), &train, regularization, 2, 1.0);
        // `prizes` is spelled like `prize`: where dev says it is spam, the characters help
        // there and are kept; where dev says it is not, they are left out.
        let spam_dev: Vec<NgramLine> = vec![(&prizes, Some(1)), (&lines[2].0, Some(0))];
        let kept = fit(Regularization::ChosenOn(&spam_dev)).unwrap().regression;
        assert!(kept.reads_characters() && kept.n_character_features() > 0);
        let ham_dev: Vec<NgramLine> = vec![(&prizes, Some(0)), (&lines[0].0, Some(1))];
        let left_out = fit(Regularization::ChosenOn(&ham_dev)).unwrap().regression;
        assert!(!left_out.reads_characters());
        assert_eq!(left_out.n_character_features(), 0);
        assert_eq!(left_out.logits(&prizes, 0..0), left_out.bias);
        // Without dev lines they are read; fitted again, as chosen.
        assert!(
            fit(Regularization::ChosenOn(&[]))
                .unwrap()
                .regression
                .reads_characters()
        );
        for characters in [false, true] {
            let again = fit(Regularization::Fixed { c: 1.0, characters }).unwrap();
            assert_eq!(again.regression.reads_characters(), characters);
        }
    }

    #[test]
    fn a_regression_round_trips_through_its_tensors_and_corrupt_ones_are_refused() {
        let v = vocabulary();
        let regression = fitted(0.5).regression;
        let tensors: HashMap<String, Tensor> = regression
            .named_tensors(&Device::Cpu)
            .unwrap()
            .into_iter()
            .collect();
        let mut all = tensors.clone();
        all.insert(
            "d1".into(),
            Tensor::zeros(1, candle_core::DType::F32, &Device::Cpu).unwrap(),
        );
        let back = NgramRegression::take_from(&mut all, Some(&v), 2).unwrap();
        assert_eq!(back.as_ref(), Some(&regression));
        // Only its own tensors are taken.
        assert_eq!(all.keys().collect::<Vec<_>>(), ["d1"]);
        assert_eq!(
            NgramRegression::take_from(&mut all, Some(&v), 2).unwrap(),
            None
        );
        let refused = |edit: &dyn Fn(&mut HashMap<String, Tensor>)| -> String {
            let mut corrupt = tensors.clone();
            edit(&mut corrupt);
            NgramRegression::take_from(&mut corrupt, Some(&v), 2)
                .unwrap_err()
                .to_string()
        };
        let set = |name: &str, values: Vec<f32>, shape: &[usize]| {
            let (name, tensor) = (
                format!("{NGRAM_PREFIX}{name}"),
                Tensor::from_vec(values, shape, &Device::Cpu).unwrap(),
            );
            move |t: &mut HashMap<String, Tensor>| {
                t.insert(name.clone(), tensor.clone());
            }
        };
        let f = regression.n_features();
        let mut grams = vec![1.0f32; 2 * f];
        grams[3] = v.len() as f32;
        assert!(refused(&set("grams", grams, &[f, 2])).contains("word id"));
        let mut grams = vec![1.0f32; 2 * f];
        grams[0] = 1.5;
        assert!(refused(&set("grams", grams, &[f, 2])).contains("word id"));
        let mut bias = regression.bias.clone();
        bias[0] = f32::NAN;
        assert!(refused(&set("bias", bias, &[2])).contains("finite"));
        assert!(refused(&set("bias", vec![0.0; 3], &[3])).contains("do not fit"));
        let missing = refused(&|t: &mut HashMap<String, Tensor>| {
            t.remove("ngrams.idf");
        });
        assert!(missing.contains("`ngrams.idf` is missing"), "{missing}");
        let stray = refused(&set("extra", vec![0.0], &[1]));
        assert!(stray.contains("`ngrams.extra`"), "{stray}");
        let mut again = tensors.clone();
        let error = NgramRegression::take_from(&mut again, None, 2).unwrap_err();
        assert!(error.to_string().contains("vocabulary"), "{error}");
    }
}
