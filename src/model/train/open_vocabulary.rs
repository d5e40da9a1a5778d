//! Reading words past a trained model's vocabulary. A network's vocabulary is its train and
//! dev lines' words and its rules' literals; a word past it reads as the unknown word and
//! says nothing of itself. Opened to the texts it is about to read
//! ([`LoadedModel::opened_to`]), a loaded model reads each of their new words through what
//! it knows of words: its vector (the network's word embedding, which training never
//! changes, gets the word's row from the bundled table), and in the n-gram regression its
//! vector's row and its character n-grams (`NgramRegression::opened`). No train line holds a
//! new word, so the opened model computes what it would have computed had training's
//! vocabulary held it (`docs/results.md`, "Words past the vocabulary").
//!
//! Opened: the FA-RNN family and SoPa trained with the bundled vectors. The black boxes train
//! their embedding, so a row training never saw is not what training would have made of the
//! word; a model trained with vectors from a file would need the file read again. Those read
//! a new word as the unknown word, as before.
//!
//! Limits: at most [`MAX_OPENED_WORDS`] new words at a time, the first in reading order
//! (each text's first `max_sentence_tokens` tokens); the rest read as the unknown word. A new
//! word costs a row of D floats in each ensemble member's word embedding, and its character
//! n-grams and vector row in the regression (whose own limits hold: past
//! `MAX_WORD_ROW_WEIGHTS` a new word gets no vector row, and past `MAX_NGRAM_VOCABULARY`
//! words the model is not opened).

use crate::limits::ReadLimits;
use crate::model::nn::embeddings::{VectorSource, Vocabulary, bundled_sha256, read_vectors};
use crate::model::nn::network::Network;
use crate::model::nn::ngrams::WithNgrams;
use crate::model::train::kinds::{Declaration, Start, frozen_embedding_rows};
use crate::model::train::load::LoadedModel;
use crate::text::Tokens;
use candle_core::{Device, Result, Tensor};
use std::collections::{HashMap, HashSet};

/// The most words past its vocabulary a model is opened to at a time: 65,536, whose rows
/// take 13 MB in each member's word embedding at the bundled vectors' 50 dimensions.
pub const MAX_OPENED_WORDS: usize = 1 << 16;

/// The name every network gives its word embedding ([V × D]), after any member's or
/// direction's prefix.
const WORD_EMBEDDING: &str = "word_embedding";

impl LoadedModel {
    /// The model opened to the words of `texts` past its vocabulary (see the module's doc),
    /// on the device its network is on; `None` when there are none, or the model does not
    /// open.
    pub fn opened_to(&self, texts: &[&str]) -> Result<Option<LoadedModel>> {
        let (Some(vocabulary), Some(identity)) = (&self.vocabulary, &self.manifest.embeddings)
        else {
            return Ok(None);
        };
        let kind = self.manifest.settings.model;
        if identity.sha256 != bundled_sha256() || frozen_embedding_rows(kind, &[], 1).is_none() {
            return Ok(None);
        }
        let new = new_words(
            vocabulary,
            texts,
            self.manifest.settings.max_sentence_tokens,
        );
        if new.is_empty() {
            return Ok(None);
        }
        let opened = Vocabulary::new(
            vocabulary.words()[1..]
                .iter()
                .chain(&new)
                .map(String::as_str),
        );
        let vectors = read_vectors(VectorSource::Bundled, &opened, &ReadLimits::default())
            .map_err(|error| candle_core::Error::Msg(error.to_string()))?;
        let (dim, first) = (vectors.dim, vocabulary.len());
        let rows =
            frozen_embedding_rows(kind, &vectors.data[first * dim..], dim).unwrap_or_default();
        let (network, regression) = match self.net.as_any().downcast_ref::<WithNgrams>() {
            Some(with) => (with.network.as_ref(), Some(&with.ngrams)),
            None => (self.net.as_ref(), None),
        };
        let mut tensors: HashMap<String, Tensor> = network.named_tensors().into_iter().collect();
        let device =
            &(tensors.values().next()).map_or(Device::Cpu, |tensor| tensor.device().clone());
        let rows = Tensor::from_vec(rows, (opened.len() - first, dim), device)?;
        for (name, tensor) in tensors.iter_mut() {
            if name.ends_with(WORD_EMBEDDING) {
                if tensor.dims() != [first, dim] {
                    candle_core::bail!(
                        "the tensor `{name}` has shape {:?}, not the vocabulary's [{first}, {dim}]",
                        tensor.dims()
                    );
                }
                *tensor = Tensor::cat(&[&*tensor, &rows], 0)?;
            }
        }
        // The labels the rules name, then those the network learned from the corpus (as
        // loading adds them, once).
        let known = self.rules.system.labels().len();
        let system = (self.rules.system)
            .with_labels(self.manifest.labels.iter().skip(known).map(String::as_str));
        let declaration = Declaration {
            rules: &self.rules,
            system: &system,
            settings: &self.manifest.settings,
            device,
        };
        let start = Start::Checkpoint {
            tensors,
            words: (opened.len(), dim),
            beta: Some(self.manifest.settings.beta),
        };
        let net = declaration
            .declare(start)
            .map_err(|error| candle_core::Error::Msg(error.to_string()))?
            .net;
        let net: Box<dyn Network> = match regression {
            // Past the regression's vocabulary limit the model stays as it is.
            Some(regression) => match regression.opened(vocabulary, &opened, Some(&vectors)) {
                Some(regression) => Box::new(WithNgrams::new(net, regression)?),
                None => return Ok(None),
            },
            None => net,
        };
        let mut manifest = self.manifest.clone();
        manifest.vocabulary = opened.words().to_vec();
        Ok(Some(LoadedModel {
            manifest,
            rules: self.rules.clone(),
            net: net.into(),
            vocabulary: Some(opened),
        }))
    }
}

/// The words of `texts` (each text's first `max_tokens` tokens) that `vocabulary` lacks,
/// each once, in reading order, at most [`MAX_OPENED_WORDS`].
fn new_words(vocabulary: &Vocabulary, texts: &[&str], max_tokens: usize) -> Vec<String> {
    let mut tokens = Tokens::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut new = Vec::new();
    for text in texts {
        tokens.tokenize(text);
        for token in tokens.iter().take(max_tokens) {
            let word = token.text;
            if vocabulary.id(word) == 0 && !seen.contains(word) {
                if new.len() == MAX_OPENED_WORDS {
                    return new;
                }
                seen.insert(word.to_string());
                new.push(word.to_string());
            }
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_words_are_each_text_s_read_tokens_past_the_vocabulary_once_within_the_limit() {
        let vocabulary = Vocabulary::new(["free", "prize"]);
        let texts = [
            // Tokens are lowercased: `Cash` is `cash`.
            "free Cash now cash",
            "now prize later",
            "later again never read",
        ];
        assert_eq!(
            new_words(&vocabulary, &texts, 3),
            ["cash", "now", "later", "again", "never"].map(String::from)
        );
        assert_eq!(
            new_words(&vocabulary, &["free prize"], 3),
            Vec::<String>::new()
        );
        // Past the limit, the rest read as the unknown word.
        let many: Vec<String> = (0..MAX_OPENED_WORDS + 10)
            .map(|i| format!("w{i}"))
            .collect();
        let text = many.join(" ");
        let new = new_words(&vocabulary, &[&text], usize::MAX);
        assert_eq!(new.len(), MAX_OPENED_WORDS);
        assert_eq!(new.last(), Some(&format!("w{}", MAX_OPENED_WORDS - 1)));
    }
}
