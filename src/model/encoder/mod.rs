//! The sentence encoder bundled into the binary: sentence-transformers' all-MiniLM-L6-v2
//! (a 6-layer BERT of 384 dimensions, Apache-2.0), 8 bits per matrix row
//! (`models/minilm_from_wheel.py` derives it from the model's published weights and checks
//! them by hash). A line's vector is the mean of its word pieces' last hidden states, unit
//! length, as sentence-transformers computes it. Training reads it to teach the lines
//! without a gold label (`train::teacher`); no checkpoint holds it.
//!
//! Limits: a line is cut at [`MAX_PIECES`] word pieces (the start and end pieces
//! included); the weights are dequantized once per encoder, 90 MB of float32. Cost: about
//! 2 × 22 M multiply-adds per piece; lines are encoded in batches of [`BATCH`] of similar
//! length, so that padding costs little.

pub(crate) mod wordpiece;

use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{LayerNorm, Linear, ops::softmax_last_dim};
use wordpiece::WordPiece;

/// The bundled weights (`models/minilm_from_wheel.py` writes them): safetensors, every
/// matrix as unsigned bytes q with its rows' float32 scales under `NAME.scale`, row r being
/// scale[r]·(q[r] − 128); vectors as float32.
const BUNDLED_WEIGHTS: &[u8] = include_bytes!("../../../models/all-MiniLM-L6-v2.q8.safetensors");

/// The bundled encoder's word-piece vocabulary, a piece per line.
const BUNDLED_VOCABULARY: &str = include_str!("../../../models/all-MiniLM-L6-v2.vocab.txt");

/// How the bundled encoder is named in messages.
pub const ENCODER_NAME: &str = "all-MiniLM-L6-v2 (bundled, 8-bit)";

/// The most word pieces of a line the encoder reads, its start and end pieces included (the
/// model reads at most 512; sentence-transformers cuts this model's input at 256).
pub const MAX_PIECES: usize = 128;

/// The dimension of a line's vector.
pub const DIM: usize = 384;

/// How many lines are encoded at once.
pub const BATCH: usize = 32;

const LAYERS: usize = 6;
const HEADS: usize = 12;
const HEAD_DIM: usize = DIM / HEADS;
const NORM_EPS: f64 = 1e-12;

/// The encoder, its weights read and dequantized.
pub struct SentenceEncoder {
    pieces: WordPiece,
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    norm: LayerNorm,
    layers: Vec<Layer>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl SentenceEncoder {
    /// The encoder bundled into the binary.
    pub fn bundled() -> candle_core::Result<SentenceEncoder> {
        let vocabulary = WordPiece::new(BUNDLED_VOCABULARY)
            .ok_or_else(|| candle_core::Error::Msg("the bundled vocabulary".into()))?;
        let mut tensors = candle_core::safetensors::load_buffer(BUNDLED_WEIGHTS, &Device::Cpu)?;
        let mut take = |name: &str| -> candle_core::Result<Tensor> {
            let tensor = tensors
                .remove(name)
                .ok_or_else(|| candle_core::Error::Msg(format!("no tensor {name}")))?;
            if tensor.dtype() != DType::U8 {
                return Ok(tensor);
            }
            let scale = tensors
                .remove(&format!("{name}.scale"))
                .ok_or_else(|| candle_core::Error::Msg(format!("no scale of {name}")))?;
            (tensor.to_dtype(DType::F32)? - 128.0)?.broadcast_mul(&scale.unsqueeze(1)?)
        };
        let linear = |take: &mut dyn FnMut(&str) -> candle_core::Result<Tensor>, name: &str| {
            Ok::<_, candle_core::Error>(Linear::new(
                take(&format!("{name}.weight"))?,
                Some(take(&format!("{name}.bias"))?),
            ))
        };
        let norm = |take: &mut dyn FnMut(&str) -> candle_core::Result<Tensor>, name: &str| {
            Ok::<_, candle_core::Error>(LayerNorm::new(
                take(&format!("{name}.weight"))?,
                take(&format!("{name}.bias"))?,
                NORM_EPS,
            ))
        };
        let layers = (0..LAYERS)
            .map(|l| {
                let p = format!("encoder.layer.{l}");
                Ok(Layer {
                    query: linear(&mut take, &format!("{p}.attention.self.query"))?,
                    key: linear(&mut take, &format!("{p}.attention.self.key"))?,
                    value: linear(&mut take, &format!("{p}.attention.self.value"))?,
                    attention_output: linear(&mut take, &format!("{p}.attention.output.dense"))?,
                    attention_norm: norm(&mut take, &format!("{p}.attention.output.LayerNorm"))?,
                    intermediate: linear(&mut take, &format!("{p}.intermediate.dense"))?,
                    output: linear(&mut take, &format!("{p}.output.dense"))?,
                    output_norm: norm(&mut take, &format!("{p}.output.LayerNorm"))?,
                })
            })
            .collect::<candle_core::Result<Vec<Layer>>>()?;
        Ok(SentenceEncoder {
            pieces: vocabulary,
            word: take("embeddings.word_embeddings.weight")?,
            position: take("embeddings.position_embeddings.weight")?,
            token_type: take("embeddings.token_type_embeddings.weight")?.get(0)?,
            norm: norm(&mut take, "embeddings.LayerNorm")?,
            layers,
        })
    }

    /// Each text's vector, [texts × DIM] row-major, each row of unit length (zero for a
    /// text without a piece... never: the start and end pieces are always read).
    pub fn encode(&self, texts: &[&str]) -> candle_core::Result<Vec<f32>> {
        let pieces: Vec<Vec<u32>> = texts
            .iter()
            .map(|text| {
                let mut ids = vec![self.pieces.start];
                ids.extend(self.pieces.pieces(text, MAX_PIECES - 2));
                ids.push(self.pieces.end);
                ids
            })
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| pieces[i].len());
        let mut out = vec![0.0f32; texts.len() * DIM];
        for batch in order.chunks(BATCH) {
            let vectors = self.encode_batch(batch.iter().map(|&i| pieces[i].as_slice()))?;
            for (row, &i) in vectors.chunks(DIM).zip(batch) {
                out[i * DIM..(i + 1) * DIM].copy_from_slice(row);
            }
        }
        Ok(out)
    }

    /// The vectors of one batch of piece sequences, [batch × DIM].
    fn encode_batch<'p>(
        &self,
        batch: impl ExactSizeIterator<Item = &'p [u32]> + Clone,
    ) -> candle_core::Result<Vec<f32>> {
        let b = batch.len();
        let l = batch.clone().map(<[u32]>::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(b * l);
        let mut mask = Vec::with_capacity(b * l);
        for sequence in batch {
            ids.extend_from_slice(sequence);
            ids.extend(std::iter::repeat_n(0, l - sequence.len()));
            mask.extend(std::iter::repeat_n(1.0f32, sequence.len()));
            mask.extend(std::iter::repeat_n(0.0f32, l - sequence.len()));
        }
        let device = Device::Cpu;
        let ids = Tensor::from_vec(ids, b * l, &device)?;
        let mask = Tensor::from_vec(mask, (b, l), &device)?;
        let x = self.word.index_select(&ids, 0)?.reshape((b, l, DIM))?;
        let x = x
            .broadcast_add(&self.position.narrow(0, 0, l)?)?
            .broadcast_add(&self.token_type)?;
        let mut x = self.norm.forward(&x)?;
        // Padding gets −10⁴ before the softmax, as BERT's extended attention mask.
        let padding = ((&mask - 1.0)? * 1e4)?.reshape((b, 1, 1, l))?;
        for layer in &self.layers {
            x = layer.forward(&x, &padding)?;
        }
        let summed = x.broadcast_mul(&mask.unsqueeze(2)?)?.sum(1)?;
        let mean = summed.broadcast_div(&mask.sum_keepdim(1)?)?;
        let norm = mean
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12, f64::MAX)?;
        mean.broadcast_div(&norm)?.flatten_all()?.to_vec1()
    }
}

impl Layer {
    fn forward(&self, x: &Tensor, padding: &Tensor) -> candle_core::Result<Tensor> {
        let (b, l, _) = x.dims3()?;
        let heads = |t: Tensor| {
            t.reshape((b, l, HEADS, HEAD_DIM))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = heads(self.query.forward(x)?)?;
        let k = heads(self.key.forward(x)?)?;
        let v = heads(self.value.forward(x)?)?;
        let scores = (q.matmul(&k.t()?.contiguous()?)? / (HEAD_DIM as f64).sqrt())?;
        let attention = softmax_last_dim(&scores.broadcast_add(padding)?)?;
        let context = attention
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((b, l, DIM))?;
        let x = self
            .attention_norm
            .forward(&(self.attention_output.forward(&context)? + x)?)?;
        let hidden = self.intermediate.forward(&x)?.gelu_erf()?;
        self.output_norm
            .forward(&(self.output.forward(&hidden)? + &x)?)
    }
}

/// The cosine of two unit vectors.
#[cfg(test)]
fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_encoder_gives_the_published_similarities() {
        let encoder = SentenceEncoder::bundled().unwrap();
        let texts = [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The new movie is awesome",
            "The new movie is so great",
        ];
        let v = encoder.encode(&texts).unwrap();
        let row = |i: usize| &v[i * DIM..(i + 1) * DIM];
        for i in 0..texts.len() {
            assert!((cosine(row(i), row(i)) - 1.0).abs() < 1e-4);
        }
        // sentence-transformers' model card: 0.755 and 0.894 (float32 weights).
        assert!(
            (cosine(row(0), row(1)) - 0.755).abs() < 0.01,
            "{}",
            cosine(row(0), row(1))
        );
        assert!(
            (cosine(row(2), row(3)) - 0.894).abs() < 0.01,
            "{}",
            cosine(row(2), row(3))
        );
        assert!(cosine(row(0), row(2)) < 0.3);
    }
}
