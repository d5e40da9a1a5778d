//! The FA-RNN's Viterbi (max-product) recurrence as one fused operation with its own
//! backward pass, for the ungated network on the CPU.
//!
//! `h_t[j] = clamp(max_i h_{t−1}[i] · T_t[i, j], −b, b)` over the states i of j's pattern
//! (`viterbi.rs` says why the maximum stays inside a pattern's block of states), with
//! `T_t = D1 diag(z_t) D2ᵀ + W` and b = [`STATE_BOUND`] (the clamp leaking [`LEAK`] in
//! gradient as in `nn/leaky_clamp.rs`), run to each sentence's own length (a padded position
//! leaves the state unchanged), returning the final states. The entries of T the maximum
//! reads, (i, j) inside one block, number N = Σ_p K_p² (K_p the states of pattern p; SMS:
//! 891, against K² = 57,121), and each is linear in z_t: `T_t[i, j] = z_t · P[i, j] + W[i, j]`
//! with the pair products `P[i, j] = D1[i] ⊙ D2[j]` [N, r], which do not depend on the
//! token. So T for every token of the batch is one matrix product, [B·L, r]·[r, N] (in
//! pieces of at most [`CHUNK`] entries), outside the sequential part, and what is left per
//! token is the maximum inside each block: Σ_p K_p² multiplications and comparisons. The
//! forward pass keeps, per token and state j, the pair (a_j, j) the maximum came from, T
//! there, h_{t−1}[a_j] and whether the clamp cut the maximum off.
//!
//! Backward, back-propagation through time per sentence: with G = ∂L/∂h_t before the clamp
//! (entries the clamp cut off scaled by LEAK), ∂h_{t−1}[a_j] += G_j · T_t[a_j, j] and
//! ∂T_t[a_j, j] = G_j · h_{t−1}[a_j] (every other entry of ∂T_t is 0; a padded position
//! passes its gradient through); then ∂Z = ∂T P and ∂P = ∂Tᵀ Z, two matrix products per
//! piece, and once ∂D1[i] = Σ_j ∂P[i, j] ⊙ D2[j] and ∂D2[j] = Σ_i ∂P[i, j] ⊙ D1[i]. A tie
//! of the maximum goes to the block's first state, as in `viterbi.rs`; the dense product's
//! maximum (other devices) sends the gradient to every tied state instead.
//!
//! Per token and sentence: N · r multiply-adds forward and 2 · N · r backward, all in matrix
//! products, against the forward recurrence's 2 · K · r and 4 · K · r (`recurrence.rs`;
//! SMS, K = 239: 2,673 · r against 1,434 · r, 1.9 times). Memory: the kept argmaxes,
//! O(B · L · K), and P, ∂P, T and ∂T of at most [`MAX_PAIR_PRODUCTS`] and [`CHUNK`] floats.
//! CPU only and FA-RNN only: FA-GRU's gates and other devices take the stepwise path
//! (`FaRnn::final_states_unfused`), as does a network whose pair products would pass
//! [`MAX_PAIR_PRODUCTS`].

use crate::model::fa_rnn::recurrence::STATE_BOUND;
use crate::model::nn::fused::{Kept, contiguous, values};
use crate::model::nn::leaky_clamp::LEAK;
use crate::model::nn::matmul::{View, matmul};
use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};
use std::ops::Range;

/// The most entries of the pair products P ([N, r]) the fused recurrence builds; larger
/// patterns take the stepwise path, which keeps one block's T at a time.
const MAX_PAIR_PRODUCTS: usize = 1 << 22;

/// The most entries of T (or ∂T) computed in one matrix product: as many whole sentences
/// of the batch as fit, or a sentence longer than `CHUNK / N` tokens in stretches.
const CHUNK: usize = 1 << 20;

/// Below this magnitude (2⁻⁶³) states, gradients and pair products are taken as 0, so that
/// the product of any two of them is 0 or a normal number. Viterbi's products of weights
/// below 1 decay geometrically along a sentence, into subnormal numbers, each of which
/// costs a hundred cycles or so as an operand on x86 (measured: with word vectors, 2 % of
/// an SMS batch's ∂Z was subnormal, and candle's product for ∂G on it took 4.5 times as long
/// as in a forward epoch); a value this small changes no state, score or update.
const TINY: f32 = 1.0 / (1u64 << 63) as f32;

/// `x`, or 0 when |x| < [`TINY`].
#[inline(always)]
fn flushed(x: f32) -> f32 {
    if x.abs() < TINY { 0.0 } else { x }
}

/// The fused recurrence for one batch; the tensors it applies to are (z [B, L, r],
/// D1 [K, r], D2 [K, r]) and its result is h_N [B, K]. Build it with
/// [`ViterbiRecurrence::new`].
#[derive(Debug)]
pub(crate) struct ViterbiRecurrence {
    /// h₀, length K.
    start: Vec<f32>,
    pairs: Pairs,
    /// The rows of z of one matrix product over T: [`CHUNK`] / N.
    chunk_rows: usize,
    /// Each sentence's length (≤ L).
    lengths: Vec<usize>,
    /// The forward pass's argmaxes, kept for the backward pass (which otherwise recomputes
    /// them); the backward pass gets the same tensors the forward pass got.
    kept: Kept<Trace>,
}

/// The entries (i, j) of T inside each block, numbered block after block and, inside a
/// block of n states from `s`, pair (i, j) at `first + (i − s) · n + (j − s)`.
#[derive(Debug)]
struct Pairs {
    /// Each block's states and its first pair.
    blocks: Vec<(Range<usize>, usize)>,
    /// Per pair, the states (i, j).
    ends: Vec<(u32, u32)>,
    /// The pairs on which the wildcard matrix is 1 (it is 0 elsewhere inside blocks).
    wildcard: Vec<usize>,
}

impl Pairs {
    fn new(blocks: &[Range<usize>], wildcard: &[Vec<(usize, usize)>]) -> Pairs {
        let mut numbered = Vec::with_capacity(blocks.len());
        let mut ends = Vec::new();
        let mut edges = Vec::new();
        for (block, inside) in blocks.iter().zip(wildcard) {
            let (first, n) = (ends.len(), block.len());
            numbered.push((block.clone(), first));
            for i in block.clone() {
                ends.extend(block.clone().map(|j| (i as u32, j as u32)));
            }
            edges.extend(inside.iter().map(|&(i, j)| first + i * n + j));
        }
        Pairs {
            blocks: numbered,
            ends,
            wildcard: edges,
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// P [N, r]: row (i, j) is D1[i] ⊙ D2[j].
    fn products(&self, d1: &[f32], d2: &[f32], r: usize) -> Vec<f32> {
        let mut p = vec![0f32; self.len() * r];
        for (row, &(i, j)) in p.chunks_exact_mut(r.max(1)).zip(&self.ends) {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (&d1[i * r..(i + 1) * r], &d2[j * r..(j + 1) * r]);
            for ((out, &a), &b) in row.iter_mut().zip(a).zip(b) {
                *out = flushed(a * b);
            }
        }
        p
    }
}

/// Sizes of one application.
#[derive(Debug, Clone, Copy)]
struct Dims {
    len: usize,
    rank: usize,
    states: usize,
}

/// The forward pass over a batch. Rows are the tokens read, sentence after sentence
/// (`first_row[b]` is sentence b's first); per row and state j, `[row · K + j]`: the pair
/// (a_j, j) the maximum came from, T there, h_{t−1}[a_j], and whether the clamp cut the
/// maximum off.
#[derive(Debug)]
struct Trace {
    first_row: Vec<usize>,
    pair: Vec<u32>,
    weight: Vec<f32>,
    source: Vec<f32>,
    cut: Vec<bool>,
}

impl ViterbiRecurrence {
    /// `blocks` cover the K states in order; `wildcard` lists, per block, the wildcard
    /// matrix's edges inside it, numbered from the block's first state (all of weight 1).
    pub(crate) fn new(
        start: Vec<f32>,
        blocks: &[Range<usize>],
        wildcard: &[Vec<(usize, usize)>],
        lengths: Vec<usize>,
    ) -> Self {
        let pairs = Pairs::new(blocks, wildcard);
        ViterbiRecurrence {
            start,
            chunk_rows: (CHUNK / pairs.len().max(1)).max(1),
            pairs,
            lengths,
            kept: Kept::new(),
        }
    }

    /// Whether the fused recurrence takes a network with these blocks at rank `rank`
    /// (its pair products stay within [`MAX_PAIR_PRODUCTS`]).
    pub(crate) fn fits(blocks: &[Range<usize>], rank: usize) -> bool {
        let pairs: usize = blocks.iter().map(|block| block.len() * block.len()).sum();
        pairs.saturating_mul(rank) <= MAX_PAIR_PRODUCTS
    }

    /// The tokens each sentence reads.
    fn read(&self, len: usize) -> impl Iterator<Item = usize> + '_ {
        self.lengths.iter().map(move |&n| n.min(len))
    }

    /// The batch cut into pieces of at most `chunk_rows` rows of z [B·L, r] (padded
    /// positions included): whole sentences when one fits, else stretches of one sentence.
    fn pieces(&self, len: usize) -> Vec<Piece> {
        let batch = self.lengths.len();
        if len <= self.chunk_rows {
            let per = (self.chunk_rows / len.max(1)).max(1);
            return (0..batch)
                .step_by(per)
                .map(|b| Piece {
                    sentences: b..(b + per).min(batch),
                    tokens: 0..len,
                })
                .collect();
        }
        self.read(len)
            .enumerate()
            .flat_map(|(b, n)| {
                (0..n).step_by(self.chunk_rows).map(move |t| Piece {
                    sentences: b..b + 1,
                    tokens: t..(t + self.chunk_rows).min(n),
                })
            })
            .collect()
    }

    /// The final states [B, K] and the trace.
    fn trace(&self, dims: Dims, z: &[f32], d1: &[f32], d2: &[f32]) -> (Vec<f32>, Trace) {
        let (len, k, r, n_pairs) = (dims.len, dims.states, dims.rank, self.pairs.len());
        let read: Vec<usize> = self.read(len).collect();
        let mut first_row = Vec::with_capacity(read.len());
        let mut rows = 0;
        for &n in &read {
            first_row.push(rows);
            rows += n;
        }
        let mut trace = Trace {
            first_row,
            pair: vec![0; rows * k],
            weight: vec![0.0; rows * k],
            source: vec![0.0; rows * k],
            cut: vec![false; rows * k],
        };
        let products = self.pairs.products(d1, d2, r);
        let products_t = View::row_major(&products, n_pairs, r).t();
        let bound = STATE_BOUND as f32;
        let mut states: Vec<f32> = (0..read.len())
            .flat_map(|_| self.start.iter().copied())
            .collect();
        let mut next = vec![0f32; k];
        let mut t_piece = Vec::new();
        for piece in self.pieces(len) {
            // T for the piece's rows: Z Pᵀ, then W.
            let rows = piece.rows(len);
            t_piece.resize(rows.len() * n_pairs, 0.0);
            matmul(
                &mut t_piece,
                View::row_major(&z[rows.start * r..rows.end * r], rows.len(), r),
                products_t,
                false,
            );
            for row in t_piece.chunks_exact_mut(n_pairs) {
                for &p in &self.pairs.wildcard {
                    row[p] += 1.0;
                }
            }
            for b in piece.sentences.clone() {
                let h = &mut states[b * k..(b + 1) * k];
                for t in piece.tokens.start..piece.tokens.end.min(read[b]) {
                    let at = (trace.first_row[b] + t) * k;
                    let row = b * len + t - rows.start;
                    let row = &t_piece[row * n_pairs..(row + 1) * n_pairs];
                    for (block, first) in &self.pairs.blocks {
                        let width = block.len();
                        let h = &h[block.clone()];
                        for (jj, j) in block.clone().enumerate() {
                            let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
                            for (ii, &hi) in h.iter().enumerate() {
                                let value = hi * row[first + ii * width + jj];
                                if value > best {
                                    (best, arg) = (value, ii);
                                }
                            }
                            let pair = first + arg * width + jj;
                            trace.pair[at + j] = pair as u32;
                            trace.weight[at + j] = row[pair];
                            trace.source[at + j] = h[arg];
                            trace.cut[at + j] = best.abs() > bound;
                            next[j] = flushed(best.clamp(-bound, bound));
                        }
                    }
                    h.copy_from_slice(&next);
                }
            }
        }
        (states, trace)
    }
}

/// Sentences, and tokens of each, whose T one matrix product computes.
#[derive(Debug)]
struct Piece {
    sentences: Range<usize>,
    tokens: Range<usize>,
}

impl Piece {
    /// The piece's rows of z [B·L, r] (contiguous: either the tokens are all L, or there is
    /// one sentence).
    fn rows(&self, len: usize) -> Range<usize> {
        let first = self.sentences.start * len + self.tokens.start;
        let last = (self.sentences.end - 1) * len + self.tokens.end;
        first..last.max(first)
    }
}

impl CustomOp3 for ViterbiRecurrence {
    fn name(&self) -> &'static str {
        "fa-rnn-viterbi-recurrence"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        const OP: &str = "fa-rnn viterbi recurrence";
        let (batch, len, rank) = l1.shape().dims3()?;
        let (states, _) = l2.shape().dims2()?;
        let (z, d1, d2) = (
            contiguous(OP, s1, l1, "z")?,
            contiguous(OP, s2, l2, "d1")?,
            contiguous(OP, s3, l3, "d2")?,
        );
        let covered = self.pairs.blocks.last().map_or(0, |(block, _)| block.end);
        if self.lengths.len() != batch
            || self.start.len() != states
            || covered != states
            || l2.shape().dims2()? != (states, rank)
            || l3.shape().dims2()? != (states, rank)
        {
            candle_core::bail!(
                "{OP}: {} lengths, {} start states and blocks covering {covered} for z {:?}, d1 {:?} and d2 {:?}",
                self.lengths.len(),
                self.start.len(),
                l1.shape(),
                l2.shape(),
                l3.shape()
            );
        }
        let dims = Dims { len, rank, states };
        let (out, trace) = self.trace(dims, z, d1, d2);
        self.kept.keep(trace);
        Ok((CpuStorage::F32(out), Shape::from((batch, states))))
    }

    fn bwd(
        &self,
        z: &Tensor,
        d1: &Tensor,
        d2: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (batch, len, rank) = z.dims3()?;
        let (states, _) = d1.dims2()?;
        let dims = Dims { len, rank, states };
        let (k, r, n_pairs) = (states, rank, self.pairs.len());
        let zv: Vec<f32> = values(z)?;
        let d1v: Vec<f32> = values(d1)?;
        let d2v: Vec<f32> = values(d2)?;
        let gv: Vec<f32> = values(grad_res)?;
        let kept = self.kept.take();
        let trace = match kept {
            Some(trace) => trace,
            None => self.trace(dims, &zv, &d1v, &d2v).1,
        };
        let products = self.pairs.products(&d1v, &d2v, r);
        let read: Vec<usize> = self.read(len).collect();
        let mut grad_z = vec![0f32; zv.len()];
        let mut grad_products = vec![0f32; n_pairs * r];
        let mut dt_piece = Vec::new();
        let mut g: Vec<f32> = gv.into_iter().map(flushed).collect();
        let mut g_prev = vec![0f32; k];
        let leak = LEAK as f32;
        for piece in self.pieces(len).iter().rev() {
            let rows = piece.rows(len);
            dt_piece.clear();
            dt_piece.resize(rows.len() * n_pairs, 0.0);
            for b in piece.sentences.clone() {
                let g = &mut g[b * k..(b + 1) * k];
                for t in (piece.tokens.start..piece.tokens.end.min(read[b])).rev() {
                    let at = (trace.first_row[b] + t) * k;
                    let row = b * len + t - rows.start;
                    let row = &mut dt_piece[row * n_pairs..(row + 1) * n_pairs];
                    g_prev.fill(0.0);
                    for (j, &gj) in g.iter().enumerate() {
                        let gj = if trace.cut[at + j] { gj * leak } else { gj };
                        if gj == 0.0 {
                            continue;
                        }
                        let pair = trace.pair[at + j] as usize;
                        let from = self.pairs.ends[pair].0 as usize;
                        g_prev[from] += gj * trace.weight[at + j];
                        row[pair] = flushed(gj * trace.source[at + j]);
                    }
                    for (g, &x) in g.iter_mut().zip(&g_prev) {
                        *g = flushed(x);
                    }
                }
            }
            // ∂Z = ∂T P, and ∂P += ∂Tᵀ Z, for the piece's rows.
            let (m, rows) = (rows.len(), rows.start * r..rows.end * r);
            matmul(
                &mut grad_z[rows.clone()],
                View::row_major(&dt_piece, m, n_pairs),
                View::row_major(&products, n_pairs, r),
                false,
            );
            matmul(
                &mut grad_products,
                View::row_major(&dt_piece, m, n_pairs).t(),
                View::row_major(&zv[rows], m, r),
                true,
            );
        }
        // ∂D1[i] += ∂P[i, j] ⊙ D2[j] and ∂D2[j] += ∂P[i, j] ⊙ D1[i].
        let mut grad_d1 = vec![0f32; d1v.len()];
        let mut grad_d2 = vec![0f32; d2v.len()];
        for (dp, &(i, j)) in grad_products.chunks_exact(r.max(1)).zip(&self.pairs.ends) {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (&d1v[i * r..(i + 1) * r], &d2v[j * r..(j + 1) * r]);
            for ((out, &dp), &b) in grad_d1[i * r..(i + 1) * r].iter_mut().zip(dp).zip(b) {
                *out += dp * b;
            }
            for ((out, &dp), &a) in grad_d2[j * r..(j + 1) * r].iter_mut().zip(dp).zip(a) {
                *out += dp * a;
            }
        }
        let device = z.device();
        Ok((
            Some(Tensor::from_vec(grad_z, (batch, len, rank), device)?),
            Some(Tensor::from_vec(grad_d1, (states, rank), device)?),
            Some(Tensor::from_vec(grad_d2, (states, rank), device)?),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    /// States that decay along a sentence reach 0 rather than subnormal numbers, and so
    /// do the gradients that flow back along it.
    #[test]
    fn no_subnormal_number_comes_out() {
        // Each token multiplies the states by T = 2 · 0.3 · 0.1 · 0.2 = 0.012: 0.012²⁰ is
        // about 4·10⁻³⁹, a subnormal number.
        let (k, r, len) = (2, 2, 20);
        let cpu = &Device::Cpu;
        let z = Var::from_vec(vec![0.1f32; len * r], (1, len, r), cpu).unwrap();
        let d1 = Var::from_vec(vec![0.3f32; k * r], (k, r), cpu).unwrap();
        let d2 = Var::from_vec(vec![0.2f32; k * r], (k, r), cpu).unwrap();
        let one_block = [Range { start: 0, end: k }];
        let op = ViterbiRecurrence::new(vec![1.0, 0.5], &one_block, &[vec![]], vec![len]);
        let states = z.apply_op3(&d1, &d2, op).unwrap();
        let grads = states.sum_all().unwrap().backward().unwrap();
        let mut values = states.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(values, [0.0, 0.0]);
        for var in [&z, &d1, &d2] {
            let grad = grads.get(var).unwrap().flatten_all().unwrap();
            values.extend(grad.to_vec1::<f32>().unwrap());
        }
        assert!(values.iter().all(|x| !x.is_subnormal()), "{values:?}");
    }

    /// The batch read in one piece, a sentence per piece or in stretches of two tokens gives
    /// the same states and gradients.
    #[test]
    fn the_batch_read_in_pieces_gives_the_same_result() {
        let (k, r, len) = (5, 3, 7);
        let wave = |n: usize, phase: f32| -> Vec<f32> {
            (0..n).map(|i| (i as f32 * 0.37 + phase).sin()).collect()
        };
        let cpu = &Device::Cpu;
        let z = Var::from_vec(wave(3 * len * r, 0.0), (3, len, r), cpu).unwrap();
        let d1 = Var::from_vec(wave(k * r, 1.0), (k, r), cpu).unwrap();
        let d2 = Var::from_vec(wave(k * r, 2.0), (k, r), cpu).unwrap();
        let blocks = [0..2, 2..5];
        let wildcard = [vec![(0, 0)], vec![(0, 0), (2, 2)]];
        let start = vec![0.5, 0.0, 0.5, 0.0, 0.0];
        let run = |chunk_rows: usize| {
            let mut op = ViterbiRecurrence::new(start.clone(), &blocks, &wildcard, vec![7, 3, 0]);
            op.chunk_rows = chunk_rows;
            let states = z.apply_op3(&d1, &d2, op).unwrap();
            let weights = Tensor::from_vec(wave(3 * k, 3.0), (3, k), cpu).unwrap();
            let grads = (&states * weights)
                .unwrap()
                .sum_all()
                .unwrap()
                .backward()
                .unwrap();
            let mut values = vec![states.flatten_all().unwrap().to_vec1::<f32>().unwrap()];
            for var in [&z, &d1, &d2] {
                let grad = grads.get(var).unwrap().flatten_all().unwrap();
                values.push(grad.to_vec1::<f32>().unwrap());
            }
            values
        };
        let whole = run(3 * len);
        assert!(
            whole.iter().all(|v| v.iter().any(|&x| x != 0.0)),
            "{whole:?}"
        );
        for pieces in [run(len), run(2)] {
            for (a, b) in whole.iter().zip(&pieces) {
                assert!(
                    a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-5),
                    "{a:?}\n{b:?}"
                );
            }
        }
    }
}
