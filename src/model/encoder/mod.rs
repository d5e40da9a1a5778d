//! The sentence encoder bundled into the binary: sentence-transformers' all-MiniLM-L6-v2
//! (a 6-layer BERT of 384 dimensions, Apache-2.0), 8 bits per matrix row
//! (`models/minilm_from_wheel.py` derives it from the model's published weights and checks
//! them by hash). A line's vector is the mean of its word pieces' last hidden states, unit
//! length, as sentence-transformers computes it. Training reads it to teach the lines
//! without a gold label (`train::teacher`); no checkpoint holds it.
//!
//! Limits: a line is cut at [`MAX_PIECES`] word pieces (the start and end pieces
//! included); the weights are dequantized once per encoder, 90 MB of float32. Cost: about
//! 10.6 M multiply-adds a word piece (the six layers' weights; the embeddings are looked
//! up); lines are encoded in batches of [`BATCH`] of similar length, so that padding costs
//! little, on two threads.

pub(crate) mod wordpiece;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};

use crate::digest::sha256_hex;
use crate::model::nn::threads::on_two_threads_in_chunks;
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

/// The most lines whose vectors [`line_vectors`] keeps, those met last: as many as training
/// encodes at most (`train::encoder_teacher::MAX_ENCODER_LINES`), each about 1.7 KB with
/// its text's SHA-256 (however long the text), some 34 MB at the limit.
pub const MAX_REMEMBERED_LINES: usize = 20_000;

/// The vectors [`line_vectors`] keeps, by their text's SHA-256, each with the number of the
/// call that met it last.
struct Remembered {
    calls: u64,
    vectors: BTreeMap<String, (u64, Vec<f32>)>,
}

impl Remembered {
    /// Keeps the vectors of one call's texts, and of at most `capacity` texts in all: past
    /// it, those met longest ago go, a call's all together.
    fn keep(&mut self, known: &BTreeMap<&str, Vec<f32>>, capacity: usize) {
        self.calls += 1;
        let call = self.calls;
        for (&text, vector) in known {
            self.vectors
                .insert(sha256_hex(text.as_bytes()), (call, vector.clone()));
        }
        let excess = self.vectors.len().saturating_sub(capacity);
        if excess > 0 {
            let mut calls: Vec<u64> = self.vectors.values().map(|(c, _)| *c).collect();
            calls.sort_unstable();
            let last_dropped = calls[excess - 1];
            self.vectors.retain(|_, (c, _)| *c > last_dropped);
        }
    }
}

static REMEMBERED: Mutex<Remembered> = Mutex::new(Remembered {
    calls: 0,
    vectors: BTreeMap::new(),
});

const LAYERS: usize = 6;
const HEADS: usize = 12;
const HEAD_DIM: usize = DIM / HEADS;
const NORM_EPS: f64 = 1e-12;

/// Each text's vector, [texts × DIM] row-major, as [`SentenceEncoder::encode`] gives it
/// (to rounding: a batch's padding may order a sum differently), or `None` where
/// `cancelled` said so first. Only texts this process has not met among the
/// [`MAX_REMEMBERED_LINES`] met last are encoded, each once however often it comes, so that
/// the language server's saves of a project whose corpora did not change encode nothing.
pub fn line_vectors(
    texts: &[&str],
    cancelled: &dyn Fn() -> bool,
) -> candle_core::Result<Option<Vec<f32>>> {
    let remembered = || REMEMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let distinct: BTreeSet<&str> = texts.iter().copied().collect();
    let mut known: BTreeMap<&str, Vec<f32>> = BTreeMap::new();
    let mut unknown: Vec<&str> = Vec::new();
    {
        let remembered = remembered();
        for text in distinct {
            match remembered.vectors.get(&sha256_hex(text.as_bytes())) {
                Some((_, vector)) => {
                    known.insert(text, vector.clone());
                }
                None => unknown.push(text),
            }
        }
    }
    if !unknown.is_empty() {
        let Some(vectors) = SentenceEncoder::bundled()?.encode(&unknown, cancelled)? else {
            return Ok(None);
        };
        known.extend(
            unknown
                .iter()
                .copied()
                .zip(vectors.chunks(DIM).map(<[f32]>::to_vec)),
        );
    }
    remembered().keep(&known, MAX_REMEMBERED_LINES);
    let mut out = Vec::with_capacity(texts.len() * DIM);
    for text in texts {
        out.extend_from_slice(&known[text]);
    }
    Ok(Some(out))
}

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

    /// Each text's vector, [texts × DIM] row-major, each row of unit length (the start
    /// and end pieces are always read), or `None` where `cancelled` said so first (polled
    /// before each batch). The batches are shared by two threads, each taking the next batch
    /// not yet taken, since the command line keeps candle's products on one thread
    /// (`main.rs`).
    pub fn encode(
        &self,
        texts: &[&str],
        cancelled: &dyn Fn() -> bool,
    ) -> candle_core::Result<Option<Vec<f32>>> {
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
        let batches: Vec<&[usize]> = order.chunks(BATCH).collect();
        let Some(vectors) = on_two_threads_in_chunks(
            &batches,
            1,
            &|batch| self.encode_batch(batch.iter().map(|&i| pieces[i].as_slice())),
            cancelled,
        ) else {
            return Ok(None);
        };
        let mut out = vec![0.0f32; texts.len() * DIM];
        for (batch, vectors) in batches.iter().zip(vectors) {
            for (row, &i) in vectors?.chunks(DIM).zip(*batch) {
                out[i * DIM..(i + 1) * DIM].copy_from_slice(row);
            }
        }
        Ok(Some(out))
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
        let hidden = gelu(&self.intermediate.forward(&x)?)?;
        self.output_norm
            .forward(&(self.output.forward(&hidden)? + &x)?)
    }
}

/// GELU, x·Φ(x) = x·(1 + erf(x/√2))/2, as candle's `gelu_erf` computes it but with erf as
/// a rational function (below), a loop the compiler vectorizes where `gelu_erf` calls
/// libm's `erff` for each value: that call was a sixth of the encoder's time.
fn gelu(x: &Tensor) -> candle_core::Result<Tensor> {
    let mut values = x.flatten_all()?.to_vec1::<f32>()?;
    for v in &mut values {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
    Tensor::from_vec(values, x.shape(), x.device())
}

/// erf in float32 as a ratio of an odd polynomial of degree 13 and an even one of degree
/// 8, on x clamped to [−4, 4] (past which erf is ±1 in float32): the coefficients of
/// Eigen's `generic_fast_erf_float`, within 5·10⁻⁷ of erf everywhere.
fn erf(x: f32) -> f32 {
    const NUMERATOR: [f32; 7] = [
        -1.609_603_3e-2,
        -2.954_6e-3,
        -7.349_906_3e-4,
        -5.692_506_4e-5,
        -2.101_024e-6,
        2.770_681_4e-8,
        -2.726_142_3e-10,
    ];
    const DENOMINATOR: [f32; 5] = [
        -1.426_474e-2,
        -7.373_329e-3,
        -1.682_827e-3,
        -2.133_740_6e-4,
        -1.456_607_2e-5,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = NUMERATOR.iter().rev().fold(0.0, |p, &a| p * x2 + a) * x;
    let q = DENOMINATOR.iter().rev().fold(0.0, |q, &b| q * x2 + b);
    p / q
}

/// The cosine of two unit vectors.
#[cfg(test)]
fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorized GELU is candle's (libm's erf) to float32's precision.
    #[test]
    fn gelu_is_candles_gelu_erf() {
        let x: Vec<f32> = (-8000..8002).map(|i| i as f32 / 1000.0).collect();
        let x = Tensor::from_vec(x, (2, 8001), &Device::Cpu).unwrap();
        let ours = gelu(&x)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let candles = x.gelu_erf().unwrap().flatten_all().unwrap();
        let values = x.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for ((a, b), x) in ours
            .iter()
            .zip(candles.to_vec1::<f32>().unwrap())
            .zip(values)
        {
            assert!(
                (a - b).abs() <= 1e-6 * x.abs().max(1.0),
                "{x}: {a} against {b}"
            );
        }
        assert_eq!(erf(0.0), 0.0);
        assert!((erf(10.0) - 1.0).abs() < 5e-7 && (erf(-10.0) + 1.0).abs() < 5e-7);
    }

    /// A text met before is not encoded again: with every text remembered, a cancelled call
    /// still gives every vector, and equal texts get one vector.
    #[test]
    fn line_vectors_encode_a_text_once() {
        let texts = [
            "the line_vectors test's first line",
            "the line_vectors test's second line",
            "the line_vectors test's first line",
        ];
        let first = line_vectors(&texts, &|| false).unwrap().unwrap();
        let encoded = SentenceEncoder::bundled()
            .unwrap()
            .encode(&texts[..2], &|| false)
            .unwrap()
            .unwrap();
        assert!(cosine(&first[..DIM], &encoded[..DIM]) > 0.9999);
        assert!(cosine(&first[DIM..2 * DIM], &encoded[DIM..]) > 0.9999);
        assert_eq!(first[..DIM], first[2 * DIM..]);
        let again = line_vectors(&texts[1..], &|| true).unwrap().unwrap();
        assert_eq!(again, first[DIM..]);
        assert!(
            line_vectors(&["the line_vectors test's new line"], &|| true)
                .unwrap()
                .is_none()
        );
    }

    /// Past its capacity the vectors met longest ago go, a call's all together.
    #[test]
    fn the_vectors_met_longest_ago_go_first() {
        let mut remembered = Remembered {
            calls: 0,
            vectors: BTreeMap::new(),
        };
        let call = |texts: &[&'static str]| -> BTreeMap<&'static str, Vec<f32>> {
            texts.iter().map(|&t| (t, vec![t.len() as f32])).collect()
        };
        remembered.keep(&call(&["a", "bb"]), 3);
        remembered.keep(&call(&["ccc"]), 3);
        let kept = |r: &Remembered| {
            let mut lengths: Vec<f32> = r.vectors.values().map(|(_, v)| v[0]).collect();
            lengths.sort_by(f32::total_cmp);
            lengths
        };
        assert_eq!(kept(&remembered), [1.0, 2.0, 3.0]);
        // "a" met again is kept; "bb", met longest ago, goes.
        remembered.keep(&call(&["a", "dddd"]), 3);
        assert_eq!(kept(&remembered), [1.0, 3.0, 4.0]);
        // One call past the capacity keeps nothing older, nor itself.
        remembered.keep(&call(&["e", "f", "g", "h"]), 3);
        assert!(remembered.vectors.is_empty());
    }

    #[test]
    fn the_bundled_encoder_gives_the_published_similarities() {
        let encoder = SentenceEncoder::bundled().unwrap();
        let texts = [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The new movie is awesome",
            "The new movie is so great",
        ];
        let v = encoder.encode(&texts, &|| false).unwrap().unwrap();
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
        // Encoded again in batches of one size, each on either thread: the same vectors.
        let many: Vec<&str> = texts.iter().copied().cycle().take(3 * BATCH + 1).collect();
        let again = encoder.encode(&many, &|| false).unwrap().unwrap();
        for (i, vector) in again.chunks(DIM).enumerate() {
            assert!(cosine(vector, row(i % texts.len())) > 0.9999);
        }
        assert!(encoder.encode(&many, &|| true).unwrap().is_none());
    }
}
