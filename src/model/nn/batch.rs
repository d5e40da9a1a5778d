//! Padded batches of sentences as the network reads them: symbol ids of the rules'
//! alphabet and a padding mask, right-padded to the longest sentence of the batch.

use crate::automata::{RuleSystem, SymbolId};
use crate::model::nn::embeddings::Vocabulary;
use crate::text::Tokens;
use candle_core::{Device, Result, Tensor};

/// A batch: `symbols` and `words` [batch, len] (u32 ids of the rules' alphabet and of the
/// vocabulary, 0 for unknown words), `mask` [batch, len] (f32, 1 on tokens), and each
/// sentence's length.
#[derive(Debug, Clone)]
pub struct Batch {
    pub symbols: Tensor,
    pub words: Tensor,
    pub mask: Tensor,
    pub lengths: Vec<usize>,
}

impl Batch {
    /// Tokenizes `texts` and looks their first `max_tokens` tokens up in the rule system's
    /// alphabet and in `vocabulary` (all words unknown without one).
    pub fn from_texts(
        system: &RuleSystem,
        vocabulary: Option<&Vocabulary>,
        texts: &[&str],
        max_tokens: usize,
        device: &Device,
    ) -> Result<Batch> {
        let mut tokens = Tokens::default();
        let sentences: Vec<Sentence> = texts
            .iter()
            .map(|text| {
                tokens.tokenize(text);
                Sentence::new(system, vocabulary, &tokens, max_tokens)
            })
            .collect();
        let refs: Vec<&Sentence> = sentences.iter().collect();
        Batch::from_sentences(&refs, device)
    }

    /// Pads sentences into a batch.
    pub fn from_sentences(sentences: &[&Sentence], device: &Device) -> Result<Batch> {
        let len = sentences.iter().map(|s| s.symbols.len()).max().unwrap_or(0);
        let mut symbols = vec![0u32; sentences.len() * len];
        let mut words = vec![0u32; sentences.len() * len];
        let mut mask = vec![0f32; sentences.len() * len];
        for (b, sentence) in sentences.iter().enumerate() {
            for (t, (symbol, word)) in sentence.symbols.iter().zip(&sentence.words).enumerate() {
                symbols[b * len + t] = symbol.0;
                words[b * len + t] = *word;
                mask[b * len + t] = 1.0;
            }
        }
        let shape = (sentences.len(), len);
        Ok(Batch {
            symbols: Tensor::from_vec(symbols, shape, device)?,
            words: Tensor::from_vec(words, shape, device)?,
            mask: Tensor::from_vec(mask, shape, device)?,
            lengths: sentences.iter().map(|s| s.symbols.len()).collect(),
        })
    }

    /// The same sentences with their tokens in reverse order (still right-padded, so the
    /// mask is unchanged), for the backward direction of bidirectional networks.
    pub fn reversed(&self) -> Result<Batch> {
        let reverse = |ids: &Tensor| -> Result<Tensor> {
            let mut rows: Vec<Vec<u32>> = ids.to_vec2()?;
            for (row, &length) in rows.iter_mut().zip(&self.lengths) {
                row[..length].reverse();
            }
            let shape = ids.dims2()?;
            Tensor::from_vec(rows.concat(), shape, ids.device())
        };
        Ok(Batch {
            symbols: reverse(&self.symbols)?,
            words: reverse(&self.words)?,
            mask: self.mask.clone(),
            lengths: self.lengths.clone(),
        })
    }
}

/// One tokenized sentence as the network reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    pub symbols: Vec<SymbolId>,
    /// Vocabulary ids, 0 for unknown words.
    pub words: Vec<u32>,
}

impl Sentence {
    /// The sentence of `tokens` as the network reads it: its first `max_tokens` tokens
    /// (the training setting `max_sentence_tokens`).
    pub fn new(
        system: &RuleSystem,
        vocabulary: Option<&Vocabulary>,
        tokens: &Tokens,
        max_tokens: usize,
    ) -> Sentence {
        let alphabet = system.alphabet();
        let read = || tokens.iter().take(max_tokens);
        let symbols = read().map(|token| alphabet.symbol(token)).collect();
        let words = read()
            .map(|token| vocabulary.map_or(0, |v| v.id(token.text)))
            .collect();
        Sentence { symbols, words }
    }
}
