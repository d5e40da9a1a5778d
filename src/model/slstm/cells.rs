//! The S-LSTM step's element-wise work as three fused operations with their own backward
//! passes, on the CPU (`slstm/mod.rs` keeps the tensor operations for other devices).
//!
//! As a chain of tensor operations a step is about sixty dispatches forward and as many
//! backward, each reading and writing whole [B, N, 6H] operands on one thread; they took
//! about 70 % of training (docs/performance.md). Here everything between the step's matrix
//! products runs in plain loops over the batch:
//! - [`Window`]: a word's own state and the sums of the `window` states to its left and to
//!   its right, side by side ([B, N, H] → [B, N, 3H]), what the word gates' product reads;
//! - [`WordCells`]: from that product, the word vectors' and the sentence state's terms of
//!   the word gates, the words' new cells and states: sigmoid gates, a softmax per
//!   dimension over the five candidates' gates, the mix of the candidate cells (left and
//!   right sums, the word vector, the sentence's cell, the own cell), tanh and the output
//!   gate, padding zeroed;
//! - [`SentenceCell`]: the sentence's new cell and state: a softmax per dimension over the
//!   sigmoid gates of the words (padding takes no share) and of the sentence, the mix of the
//!   word cells and its own, tanh and the output gate.
//!
//! candle's custom operations take at most three tensors, so a step's word cells, sentence
//! cell and the sentence state's gate terms travel [`packed`] into one. The sums run in the
//! order the tensor operations add, e^x is a polynomial within 2 ulp of `expf` that
//! vectorises over a word's units, and tanh goes through it (within 2·10⁻⁷ of `tanhf`), so
//! the fused path equals the tensor path up to float rounding (tested in `slstm/mod.rs`; each
//! operation's gradient against finite differences below). In training the word cells keep
//! their forward arithmetic for the backward pass (12 floats a word and unit, where the
//! tensor chain kept about 150); the window and the sentence cell, cheaper, recompute
//! theirs. O(B · N · H · window) time and memory each way, one thread.

use crate::model::nn::fused::{Kept, contiguous, values};
use candle_core::{CpuStorage, CustomOp1, CustomOp3, Layout, Result, Shape, Tensor};
use std::ops::Range;
use std::sync::Arc;

/// The candidates a word's new cell mixes (left and right sums, the word vector, the
/// sentence's cell, its own cell); its gates are these five and the output gate.
const CANDIDATES: usize = 5;

/// Which positions of a padded batch [B, N] hold words (a nonzero mask entry), shared by the
/// operations of every step.
#[derive(Debug, Clone)]
pub(crate) struct Words {
    present: Arc<[bool]>,
    len: usize,
}

impl Words {
    /// From the batch's mask [B, N], row-major.
    pub(crate) fn new(mask: &[f32], len: usize) -> Words {
        Words {
            present: mask.iter().map(|&m| m != 0.0).collect(),
            len,
        }
    }

    fn batch(&self) -> usize {
        self.present.len().checked_div(self.len).unwrap_or(0)
    }

    fn check(&self, op: &str, batch: usize, len: usize) -> Result<()> {
        if self.len != len || self.batch() != batch {
            candle_core::bail!(
                "{op}: a mask of {} positions for a batch of {batch} × {len}",
                self.present.len()
            );
        }
        Ok(())
    }
}

/// e^x in plain arithmetic that the compiler vectorises over a loop (glibc's `expf` is a
/// call per value): Cephes' `expf`, a degree-5 polynomial after x = n·ln 2 + r, within
/// 2 ulp of `expf`; x is clamped to ±87 (the gates never get near).
fn exp(x: f32) -> f32 {
    // Adding and subtracting 1.5·2²³ rounds to an integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 87.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    // ln 2 in two parts, so that r is exact.
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5;
    (p * r * r + r + 1.0) * f32::from_bits(((n as i32 + 127) << 23) as u32)
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// Adds to `out` the rows `from` of `rows` (each `out.len()` wide) in the order given.
fn add_rows(out: &mut [f32], rows: &[f32], from: impl Iterator<Item = usize>) {
    let h = out.len();
    for j in from {
        for (o, &x) in out.iter_mut().zip(&rows[j * h..(j + 1) * h]) {
            *o += x;
        }
    }
}

/// The positions whose sum is the left (1..=window before `i`) and the right (1..=window
/// after `i`, below `len`) neighbours of `i`, nearest first, as the tensor path adds them.
fn left_of(i: usize, window: usize) -> impl Iterator<Item = usize> {
    (1..=window.min(i)).map(move |k| i - k)
}

fn right_of(i: usize, window: usize, len: usize) -> impl Iterator<Item = usize> {
    (1..=window)
        .map(move |k| i + k)
        .take_while(move |&j| j < len)
}

/// [x, left sums, right sums] along the last axis: applied to states [B, N, H], it gives
/// [B, N, 3H].
#[derive(Debug)]
pub(crate) struct Window {
    pub(crate) width: usize,
}

impl CustomOp1 for Window {
    fn name(&self) -> &'static str {
        "slstm-window"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (batch, len, h) = layout.shape().dims3()?;
        let x = contiguous("slstm window", storage, layout, "x")?;
        let mut out = vec![0f32; batch * len * 3 * h];
        for b in 0..batch {
            let rows = &x[b * len * h..(b + 1) * len * h];
            for i in 0..len {
                let at = (b * len + i) * 3 * h;
                let (own, sums) = out[at..at + 3 * h].split_at_mut(h);
                let (left, right) = sums.split_at_mut(h);
                own.copy_from_slice(&rows[i * h..(i + 1) * h]);
                add_rows(left, rows, left_of(i, self.width));
                add_rows(right, rows, right_of(i, self.width, len));
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((batch, len, 3 * h))))
    }

    fn bwd(&self, x: &Tensor, _res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        let (batch, len, h) = x.dims3()?;
        let g = values(grad_res)?;
        let mut grad = vec![0f32; batch * len * h];
        for b in 0..batch {
            let rows = &g[b * len * 3 * h..(b + 1) * len * 3 * h];
            for j in 0..len {
                let out = &mut grad[(b * len + j) * h..(b * len + j + 1) * h];
                // x_j is its own part, in the left sum of the words after it and in the
                // right sum of those before it.
                // Row 3i + p of `rows` (H wide) is part p of word i's gradient.
                out.copy_from_slice(&rows[j * 3 * h..j * 3 * h + h]);
                add_rows(out, rows, right_of(j, self.width, len).map(|i| 3 * i + 1));
                add_rows(out, rows, left_of(j, self.width).map(|i| 3 * i + 2));
            }
        }
        Ok(Some(Tensor::from_vec(grad, (batch, len, h), x.device())?))
    }
}

/// A step's word cells [B, N, H], sentence cell [B, H] and word gates' terms from the
/// sentence state [B, 6H], flattened one after the other into one tensor, as
/// [`WordCells`] and [`SentenceCell`] read them (candle's custom operations take at most
/// three tensors).
pub(crate) fn packed(cells: &Tensor, sentence_cell: &Tensor, terms: &Tensor) -> Result<Tensor> {
    Tensor::cat(
        &[
            cells.flatten_all()?,
            sentence_cell.flatten_all()?,
            terms.flatten_all()?,
        ],
        0,
    )
}

/// Where sentence `b`'s parts lie in a [`packed`] state of a batch of `batch` × `len` words
/// of `h` units.
#[derive(Debug, Clone, Copy)]
struct Parts {
    batch: usize,
    len: usize,
    h: usize,
}

impl Parts {
    fn size(&self) -> usize {
        self.batch * (self.len + 1 + GATES) * self.h
    }

    fn cells(&self, b: usize) -> Range<usize> {
        let size = self.len * self.h;
        b * size..(b + 1) * size
    }

    fn sentence_cell(&self, b: usize) -> Range<usize> {
        let start = (self.batch * self.len + b) * self.h;
        start..start + self.h
    }

    fn terms(&self, b: usize) -> Range<usize> {
        let start = (self.batch * (self.len + 1) + b * GATES) * self.h;
        start..start + GATES * self.h
    }

    fn check(&self, op: &str, state: usize) -> Result<()> {
        if state != self.size() {
            candle_core::bail!("{op}: a packed state of {state} for {self:?}");
        }
        Ok(())
    }
}

/// tanh through one [`exp`] (glibc's `tanhf` goes through its slower `expm1f`): within
/// 2·10⁻⁷ of it.
fn tanh(x: f32) -> f32 {
    let e = exp(-2.0 * x.abs());
    ((1.0 - e) / (1.0 + e)).copysign(x)
}

/// The words' new cells and states: applied to (the word gates' products with the words'
/// [h, left, right] [B, N, 6H], the words' own inputs [B, N, 7H] (the gates' terms from
/// the word vector with their bias, then the word vector as a cell candidate), a
/// [`packed`] state), it gives [2, B, N, H]: the new cells, then the new states. Build it
/// with [`WordCells::new`].
#[derive(Debug)]
pub(crate) struct WordCells {
    window: usize,
    words: Words,
    /// Whether the backward pass will run (training): the forward pass then keeps each
    /// unit's [`WordUnit`] in `kept`, 12 floats, which the backward pass would otherwise
    /// recompute.
    keep: bool,
    kept: Kept<Vec<WordUnit>>,
}

/// The gates: five candidates' and the output gate.
const GATES: usize = CANDIDATES + 1;

/// One word's forward arithmetic at one dimension.
#[derive(Debug, Clone, Copy, Default)]
struct WordUnit {
    /// The six sigmoid gates.
    gates: [f32; GATES],
    /// The candidates' softmax weights.
    mix: [f32; CANDIDATES],
    /// tanh of the new cell.
    tanh: f32,
}

impl WordUnit {
    /// From the sigmoid gates, the exponentials of the candidates' and the candidates,
    /// with the new cell.
    fn new(
        gates: [f32; GATES],
        exps: [f32; CANDIDATES],
        candidates: &[f32; CANDIDATES],
    ) -> (WordUnit, f32) {
        let total: f32 = exps.iter().sum();
        let mix = exps.map(|e| e / total);
        let cell: f32 = mix.iter().zip(candidates).map(|(m, x)| m * x).sum();
        let unit = WordUnit {
            gates,
            mix,
            tanh: tanh(cell),
        };
        (unit, cell)
    }
}

/// The inputs of a [`WordCells`], as slices.
struct WordInputs<'a> {
    products: &'a [f32],
    inputs: &'a [f32],
    state: &'a [f32],
}

impl WordCells {
    pub(crate) fn new(window: usize, words: Words, keep: bool) -> WordCells {
        WordCells {
            window,
            words,
            keep,
            kept: Kept::new(),
        }
    }

    /// Calls `f(row, k, candidates, unit, cell)` for every word `row` (b·N + i) present
    /// and dimension k, sentence by sentence, with the left and right neighbour sums of
    /// the sentence's cells in `sums` at the start of each word; `units` gives the words'
    /// arithmetic, or `None` to compute it.
    fn each_unit(
        &self,
        parts: Parts,
        x: &WordInputs,
        units: Option<&[WordUnit]>,
        mut f: impl FnMut(usize, usize, [f32; CANDIDATES], WordUnit, f32),
    ) {
        let (len, h) = (parts.len, parts.h);
        let (mut left, mut right) = (vec![0f32; h], vec![0f32; h]);
        // A word's gates [6H] and the exponentials of the candidates' [5H], in loops over
        // all its units at once, which vectorise.
        let (mut gates, mut exps) = (vec![0f32; GATES * h], vec![0f32; CANDIDATES * h]);
        for b in 0..parts.batch {
            let cells = &x.state[parts.cells(b)];
            let sentence_cell = &x.state[parts.sentence_cell(b)];
            let terms = &x.state[parts.terms(b)];
            for i in (0..len).filter(|&i| self.words.present[b * len + i]) {
                left.fill(0.0);
                right.fill(0.0);
                add_rows(&mut left, cells, left_of(i, self.window));
                add_rows(&mut right, cells, right_of(i, self.window, len));
                let row = b * len + i;
                let products = &x.products[row * GATES * h..(row + 1) * GATES * h];
                let inputs = &x.inputs[row * (GATES + 1) * h..(row + 1) * (GATES + 1) * h];
                if units.is_none() {
                    for (((gate, &p), &x), &t) in
                        gates.iter_mut().zip(products).zip(inputs).zip(terms)
                    {
                        *gate = sigmoid(p + x + t);
                    }
                    for (e, &a) in exps.iter_mut().zip(&gates) {
                        *e = exp(a);
                    }
                }
                for k in 0..h {
                    let candidates = [
                        left[k],
                        right[k],
                        inputs[GATES * h + k],
                        sentence_cell[k],
                        cells[i * h + k],
                    ];
                    let (unit, cell) = match units {
                        Some(units) => (units[row * h + k], 0.0),
                        None => WordUnit::new(
                            std::array::from_fn(|j| gates[j * h + k]),
                            std::array::from_fn(|j| exps[j * h + k]),
                            &candidates,
                        ),
                    };
                    f(row, k, candidates, unit, cell);
                }
            }
        }
    }

    fn parts(&self, op: &str, products: &Shape, inputs: &Shape, state: usize) -> Result<Parts> {
        let (batch, len, gates_h) = products.dims3()?;
        let h = gates_h / GATES;
        if gates_h != GATES * h || inputs.dims3()? != (batch, len, (GATES + 1) * h) {
            candle_core::bail!("{op}: shapes {products:?} and {inputs:?}");
        }
        self.words.check(op, batch, len)?;
        let parts = Parts { batch, len, h };
        parts.check(op, state)?;
        Ok(parts)
    }
}

impl CustomOp3 for WordCells {
    fn name(&self) -> &'static str {
        "slstm-word-cells"
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
        let op = "slstm word cells";
        let parts = self.parts(op, l1.shape(), l2.shape(), l3.shape().elem_count())?;
        let x = WordInputs {
            products: contiguous(op, s1, l1, "products")?,
            inputs: contiguous(op, s2, l2, "inputs")?,
            state: contiguous(op, s3, l3, "state")?,
        };
        let size = parts.batch * parts.len * parts.h;
        let mut out = vec![0f32; 2 * size];
        let mut units = vec![WordUnit::default(); if self.keep { size } else { 0 }];
        let (new_c, new_h) = out.split_at_mut(size);
        let h = parts.h;
        self.each_unit(parts, &x, None, |row, k, _, unit, cell| {
            new_c[row * h + k] = cell;
            new_h[row * h + k] = unit.gates[CANDIDATES] * unit.tanh;
            if let Some(kept) = units.get_mut(row * h + k) {
                *kept = unit;
            }
        });
        if self.keep {
            self.kept.keep(units);
        }
        Ok((
            CpuStorage::F32(out),
            Shape::from((2, parts.batch, parts.len, h)),
        ))
    }

    fn bwd(
        &self,
        products: &Tensor,
        inputs: &Tensor,
        state: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let parts = self.parts(
            "slstm word cells",
            products.shape(),
            inputs.shape(),
            state.elem_count(),
        )?;
        let (productv, inputv, statev, g) = (
            values(products)?,
            values(inputs)?,
            values(state)?,
            values(grad_res)?,
        );
        let x = WordInputs {
            products: &productv,
            inputs: &inputv,
            state: &statev,
        };
        let kept = self.kept.take();
        let (batch, len, h) = (parts.batch, parts.len, parts.h);
        let (grad_c, grad_h) = g.split_at(batch * len * h);
        let mut grad_inputs = vec![0f32; inputv.len()];
        // ∂L/∂ of each candidate (left sum, right sum, vector, sentence cell, own cell).
        let mut grad_candidates = vec![[0f32; CANDIDATES]; batch * len * h];
        self.each_unit(parts, &x, kept.as_deref(), |row, k, candidates, unit, _| {
            let output = unit.gates[CANDIDATES];
            let grad_h = grad_h[row * h + k];
            // new_h = o · tanh(new_c); new_c = Σ_j m_j x_j, m = softmax(σ(pre)).
            let d_cell = grad_c[row * h + k] + grad_h * output * (1.0 - unit.tanh * unit.tanh);
            let grad_pre = &mut grad_inputs[row * (GATES + 1) * h..(row + 1) * (GATES + 1) * h];
            grad_pre[CANDIDATES * h + k] = grad_h * unit.tanh * output * (1.0 - output);
            let d_mix = candidates.map(|x| d_cell * x);
            let dot: f32 = unit.mix.iter().zip(&d_mix).map(|(m, d)| m * d).sum();
            for j in 0..CANDIDATES {
                let (a, m) = (unit.gates[j], unit.mix[j]);
                grad_pre[j * h + k] = m * (d_mix[j] - dot) * a * (1.0 - a);
            }
            grad_candidates[row * h + k] = unit.mix.map(|m| d_cell * m);
        });
        // The products' gradient is the pre-activations', as are the terms' (summed over
        // the words); the candidates' go back to the cells they read.
        let mut grad_products = vec![0f32; productv.len()];
        let mut grad_state = vec![0f32; statev.len()];
        for b in 0..batch {
            let (cells, sentence_cell, terms) =
                (parts.cells(b), parts.sentence_cell(b), parts.terms(b));
            for i in 0..len {
                let row = b * len + i;
                let grad_pre = &mut grad_inputs[row * (GATES + 1) * h..(row + 1) * (GATES + 1) * h];
                grad_products[row * GATES * h..(row + 1) * GATES * h]
                    .copy_from_slice(&grad_pre[..GATES * h]);
                for (total, d) in grad_state[terms.clone()].iter_mut().zip(&grad_pre[..]) {
                    *total += d;
                }
                let grad_candidates = &grad_candidates[row * h..(row + 1) * h];
                for (k, d) in grad_candidates.iter().enumerate() {
                    grad_pre[GATES * h + k] = d[2];
                }
                let grad_cells = &mut grad_state[cells.clone()];
                for j in left_of(i, self.window) {
                    for (out, d) in grad_cells[j * h..(j + 1) * h]
                        .iter_mut()
                        .zip(grad_candidates)
                    {
                        *out += d[0];
                    }
                }
                for j in right_of(i, self.window, len) {
                    for (out, d) in grad_cells[j * h..(j + 1) * h]
                        .iter_mut()
                        .zip(grad_candidates)
                    {
                        *out += d[1];
                    }
                }
                for (out, d) in grad_cells[i * h..(i + 1) * h]
                    .iter_mut()
                    .zip(grad_candidates)
                {
                    *out += d[4];
                }
                for (out, d) in grad_state[sentence_cell.clone()]
                    .iter_mut()
                    .zip(grad_candidates)
                {
                    *out += d[3];
                }
            }
        }
        let device = products.device();
        Ok((
            Some(Tensor::from_vec(grad_products, products.shape(), device)?),
            Some(Tensor::from_vec(grad_inputs, inputs.shape(), device)?),
            Some(Tensor::from_vec(grad_state, state.shape(), device)?),
        ))
    }
}

/// The sentence's new cell and state: applied to (the sentence gates' products with each
/// word's state [B, N, H], the sentence's pre-activations [B, 3H] (its own gate, its output
/// gate, the words' gate bias from the sentence state), a [`packed`] state), it gives
/// [2, B, H]: the new cell, then the new state.
#[derive(Debug)]
pub(crate) struct SentenceCell {
    pub(crate) words: Words,
}

/// One sentence's forward arithmetic, kept for its backward pass: per dimension, the
/// softmax's total, the new cell, the output gate and the sentence's own weight and gate.
struct SentenceUnits {
    total: Vec<f32>,
    cell: Vec<f32>,
    output: Vec<f32>,
    own: Vec<f32>,
    own_gate: Vec<f32>,
}

impl SentenceCell {
    /// Sentence `b`'s arithmetic from its words' products `from_words` [N, H], its
    /// pre-activations [3H], its word cells [N, H] and its own cell [H].
    fn units(
        &self,
        b: usize,
        from_words: &[f32],
        sentence: &[f32],
        (cells, own_cell): (&[f32], &[f32]),
    ) -> SentenceUnits {
        let (len, h) = (self.words.len, own_cell.len());
        let mut total = vec![0f32; h];
        let mut mixed = vec![0f32; h];
        for i in (0..len).filter(|&i| self.words.present[b * len + i]) {
            for k in 0..h {
                let weight = exp(sigmoid(from_words[i * h + k] + sentence[2 * h + k]));
                total[k] += weight;
                mixed[k] += weight * cells[i * h + k];
            }
        }
        let own_gate: Vec<f32> = sentence[..h].iter().map(|&x| sigmoid(x)).collect();
        let own: Vec<f32> = own_gate.iter().map(|&d| exp(d)).collect();
        for k in 0..h {
            total[k] += own[k];
            mixed[k] = (mixed[k] + own[k] * own_cell[k]) / total[k];
        }
        SentenceUnits {
            total,
            cell: mixed,
            output: sentence[h..2 * h].iter().map(|&x| sigmoid(x)).collect(),
            own,
            own_gate,
        }
    }

    fn parts(&self, op: &str, from_words: &Shape, sentence: &Shape, state: usize) -> Result<Parts> {
        let (batch, len, h) = from_words.dims3()?;
        if sentence.dims2()? != (batch, 3 * h) {
            candle_core::bail!("{op}: shapes {from_words:?} and {sentence:?}");
        }
        self.words.check(op, batch, len)?;
        let parts = Parts { batch, len, h };
        parts.check(op, state)?;
        Ok(parts)
    }
}

impl CustomOp3 for SentenceCell {
    fn name(&self) -> &'static str {
        "slstm-sentence-cell"
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
        let op = "slstm sentence cell";
        let parts = self.parts(op, l1.shape(), l2.shape(), l3.shape().elem_count())?;
        let (batch, len, h) = (parts.batch, parts.len, parts.h);
        let from_words = contiguous(op, s1, l1, "from_words")?;
        let sentence = contiguous(op, s2, l2, "sentence")?;
        let state = contiguous(op, s3, l3, "state")?;
        let mut out = vec![0f32; 2 * batch * h];
        let (new_cg, new_g) = out.split_at_mut(batch * h);
        for b in 0..batch {
            let units = self.units(
                b,
                &from_words[b * len * h..(b + 1) * len * h],
                &sentence[b * 3 * h..(b + 1) * 3 * h],
                (&state[parts.cells(b)], &state[parts.sentence_cell(b)]),
            );
            for k in 0..h {
                new_cg[b * h + k] = units.cell[k];
                new_g[b * h + k] = units.output[k] * tanh(units.cell[k]);
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((2, batch, h))))
    }

    fn bwd(
        &self,
        from_words: &Tensor,
        sentence: &Tensor,
        state: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let parts = self.parts(
            "slstm sentence cell",
            from_words.shape(),
            sentence.shape(),
            state.elem_count(),
        )?;
        let (batch, len, h) = (parts.batch, parts.len, parts.h);
        let (wordv, sentencev, statev, g) = (
            values(from_words)?,
            values(sentence)?,
            values(state)?,
            values(grad_res)?,
        );
        let (grad_cg, grad_g) = g.split_at(batch * h);
        let mut grad_words = vec![0f32; wordv.len()];
        let mut grad_sentence = vec![0f32; sentencev.len()];
        let mut grad_state = vec![0f32; statev.len()];
        let mut d_cell = vec![0f32; h];
        for b in 0..batch {
            let words = b * len * h..(b + 1) * len * h;
            let sentence = &sentencev[b * 3 * h..(b + 1) * 3 * h];
            let (cells, own_cell) = (&statev[parts.cells(b)], &statev[parts.sentence_cell(b)]);
            let units = self.units(b, &wordv[words.clone()], sentence, (cells, own_cell));
            let grad_sentence = &mut grad_sentence[b * 3 * h..(b + 1) * 3 * h];
            // new_g = o · tanh(new_cg); new_cg = Σ_j w_j x_j / Σ_j w_j, w = exp(σ(·)).
            let grad_own_cell = &mut grad_state[parts.sentence_cell(b)];
            for k in 0..h {
                let (o, t) = (units.output[k], tanh(units.cell[k]));
                let grad_g = grad_g[b * h + k];
                d_cell[k] = grad_cg[b * h + k] + grad_g * o * (1.0 - t * t);
                grad_sentence[h + k] = grad_g * t * o * (1.0 - o);
                let d_weight = d_cell[k] * (own_cell[k] - units.cell[k]) / units.total[k];
                let d = units.own_gate[k];
                grad_sentence[k] = d_weight * units.own[k] * d * (1.0 - d);
                grad_own_cell[k] = d_cell[k] * units.own[k] / units.total[k];
            }
            let (from_words, grad_words) = (&wordv[words.clone()], &mut grad_words[words]);
            let grad_cells = &mut grad_state[parts.cells(b)];
            for i in (0..len).filter(|&i| self.words.present[b * len + i]) {
                for k in 0..h {
                    let gate = sigmoid(from_words[i * h + k] + sentence[2 * h + k]);
                    let weight = exp(gate);
                    let d_weight = d_cell[k] * (cells[i * h + k] - units.cell[k]) / units.total[k];
                    let d_pre = d_weight * weight * gate * (1.0 - gate);
                    grad_words[i * h + k] = d_pre;
                    grad_sentence[2 * h + k] += d_pre;
                    grad_cells[i * h + k] = d_cell[k] * weight / units.total[k];
                }
            }
        }
        let device = from_words.device();
        Ok((
            Some(Tensor::from_vec(grad_words, from_words.shape(), device)?),
            Some(Tensor::from_vec(grad_sentence, sentence.shape(), device)?),
            Some(Tensor::from_vec(grad_state, state.shape(), device)?),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::nn::rng::SplitMix64;
    use candle_core::{Device, Var};

    /// The step of the central differences.
    const EPS: f32 = 5e-3;

    fn random(n: usize, rng: &mut SplitMix64) -> Vec<f32> {
        (0..n)
            .map(|_| (rng.next_f64() * 2.0 - 1.0) as f32)
            .collect()
    }

    /// Checks the gradients `op`'s backward pass gives its inputs (random values of the
    /// given shapes) against central differences of Σ r ⊙ op(inputs) for a random r.
    fn gradients_match_finite_differences(
        shapes: &[&[usize]],
        op: impl Fn(&[Tensor]) -> Result<Tensor>,
    ) {
        let mut rng = SplitMix64::new(17);
        let inputs: Vec<Vec<f32>> = shapes
            .iter()
            .map(|shape| random(shape.iter().product(), &mut rng))
            .collect();
        let tensors = |inputs: &[Vec<f32>]| -> Vec<Tensor> {
            inputs
                .iter()
                .zip(shapes)
                .map(|(v, &shape)| Tensor::from_vec(v.clone(), shape, &Device::Cpu).unwrap())
                .collect()
        };
        let vars: Vec<Var> = tensors(&inputs)
            .iter()
            .map(|t| Var::from_tensor(t).unwrap())
            .collect();
        let out = op(&vars
            .iter()
            .map(|v| v.as_tensor().clone())
            .collect::<Vec<_>>())
        .unwrap();
        let weights = random(out.elem_count(), &mut rng);
        let r = Tensor::from_vec(weights.clone(), out.shape(), &Device::Cpu).unwrap();
        let grads = (&out * r).unwrap().sum_all().unwrap().backward().unwrap();
        let loss = |inputs: &[Vec<f32>]| -> f64 {
            let out = values(&op(&tensors(inputs)).unwrap()).unwrap();
            out.iter()
                .zip(&weights)
                .map(|(&o, &w)| o as f64 * w as f64)
                .sum()
        };
        for (which, var) in vars.iter().enumerate() {
            let got = values(grads.get(var.as_tensor()).unwrap()).unwrap();
            for at in 0..got.len() {
                let mut moved = inputs.clone();
                moved[which][at] += EPS;
                let up = loss(&moved);
                moved[which][at] -= 2.0 * EPS;
                let down = loss(&moved);
                let want = (up - down) / (2.0 * EPS as f64);
                assert!(
                    (got[at] as f64 - want).abs() < 1e-3 + 1e-2 * want.abs(),
                    "input {which}, entry {at}: {} against {want}",
                    got[at]
                );
            }
        }
    }

    /// Three sentences of 4, 2 and 0 words padded to 4.
    fn words() -> Words {
        let mask: Vec<f32> = [4, 2, 0]
            .iter()
            .flat_map(|&len| (0..4).map(move |i| if i < len { 1.0 } else { 0.0 }))
            .collect();
        Words::new(&mask, 4)
    }

    #[test]
    fn the_vectorised_exp_is_within_two_ulp_of_expf() {
        for i in -8600..=8600 {
            let x = i as f32 * 0.01 + 0.003;
            let (got, want) = (exp(x), x.exp());
            assert!(
                (got - want).abs() <= 2.0 * f32::EPSILON * want,
                "e^{x}: {got} against {want}"
            );
        }
    }

    #[test]
    fn the_window_sums_its_neighbours() {
        let x = Tensor::from_vec((1..=8).map(|v| v as f32).collect(), (1, 4, 2), &Device::Cpu);
        let out = x.unwrap().apply_op1(Window { width: 2 }).unwrap();
        let rows: Vec<Vec<f32>> = out.squeeze(0).unwrap().to_vec2().unwrap();
        assert_eq!(rows[0], [1.0, 2.0, 0.0, 0.0, 8.0, 10.0]);
        assert_eq!(rows[2], [5.0, 6.0, 4.0, 6.0, 7.0, 8.0]);
        assert_eq!(rows[3], [7.0, 8.0, 8.0, 10.0, 0.0, 0.0]);
    }

    #[test]
    fn the_windows_gradient_matches_finite_differences() {
        for width in [1, 2, 5] {
            gradients_match_finite_differences(&[&[2, 4, 3]], |t| t[0].apply_op1(Window { width }));
        }
    }

    #[test]
    fn the_word_cells_gradient_matches_finite_differences_whatever_the_padding() {
        // 3 sentences of 4 positions, H = 3; the packed state: cells, sentence cells, terms.
        let state = 3 * 4 * 3 + 3 * 3 + 3 * 18;
        for window in [1, 2] {
            for keep in [false, true] {
                gradients_match_finite_differences(&[&[3, 4, 18], &[3, 4, 21], &[state]], |t| {
                    let op = WordCells::new(window, words(), keep);
                    t[0].apply_op3(&t[1], &t[2], op)
                });
            }
        }
    }

    #[test]
    fn the_sentence_cells_gradient_matches_finite_differences_whatever_the_padding() {
        let state = 3 * 4 * 3 + 3 * 3 + 3 * 18;
        gradients_match_finite_differences(&[&[3, 4, 3], &[3, 9], &[state]], |t| {
            let words = words();
            t[0].apply_op3(&t[1], &t[2], SentenceCell { words })
        });
    }
}
