//! Padded batches of sentences as the network reads them: symbol ids of the rules'
//! alphabet and a padding mask, right-padded to the longest sentence of the batch.

use crate::automata::{RuleSystem, SymbolId};
use crate::text::Tokens;
use candle_core::{Device, Result, Tensor};

/// A batch: `symbols` [batch, len] (u32), `mask` [batch, len] (f32, 1 on tokens), and
/// each sentence's length.
#[derive(Debug, Clone)]
pub struct Batch {
    pub symbols: Tensor,
    pub mask: Tensor,
    pub lengths: Vec<usize>,
}

impl Batch {
    /// Tokenizes and symbolizes `texts` with the rule system's tokenizer and alphabet.
    pub fn from_texts(system: &RuleSystem, texts: &[&str], device: &Device) -> Result<Batch> {
        let mut tokens = Tokens::default();
        let mut symbols: Vec<Vec<SymbolId>> = Vec::with_capacity(texts.len());
        for text in texts {
            tokens.tokenize(text);
            let mut sentence = Vec::with_capacity(tokens.len());
            system.alphabet().symbolize(&tokens, &mut sentence);
            symbols.push(sentence);
        }
        Batch::from_symbols(&symbols, device)
    }

    /// Pads symbol sequences into a batch.
    pub fn from_symbols(sentences: &[Vec<SymbolId>], device: &Device) -> Result<Batch> {
        let len = sentences.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = vec![0u32; sentences.len() * len];
        let mut mask = vec![0f32; sentences.len() * len];
        for (b, sentence) in sentences.iter().enumerate() {
            for (t, symbol) in sentence.iter().enumerate() {
                ids[b * len + t] = symbol.0;
                mask[b * len + t] = 1.0;
            }
        }
        let shape = (sentences.len(), len);
        Ok(Batch {
            symbols: Tensor::from_vec(ids, shape, device)?,
            mask: Tensor::from_vec(mask, shape, device)?,
            lengths: sentences.iter().map(Vec::len).collect(),
        })
    }
}
