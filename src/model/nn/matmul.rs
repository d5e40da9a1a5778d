//! Small dense matrix products for the fused kernels, through `matrixmultiply` (already
//! under nalgebra; its AVX-512 kernels, chosen at run time, work on stable Rust, where the
//! `gemm` crate that candle uses has only AVX2 ones), behind a safe, bounds-checked
//! interface: a [`View`] is a matrix over a slice with any row and column strides.
//! Products run fastest when the right operand's rows are contiguous ([`transposed`]).

/// A read-only matrix over a slice: element (i, j) is `data[i·row_stride + j·col_stride]`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a> View<'a> {
    /// The row-major [rows, cols] matrix at the start of `data`.
    pub(crate) fn row_major(data: &'a [f32], rows: usize, cols: usize) -> View<'a> {
        View::strided(data, rows, cols, cols, 1)
    }

    /// A matrix with explicit strides; panics if it reaches past `data`.
    pub(crate) fn strided(
        data: &'a [f32],
        rows: usize,
        cols: usize,
        row_stride: usize,
        col_stride: usize,
    ) -> View<'a> {
        if rows > 0 && cols > 0 {
            let last = (rows - 1) * row_stride + (cols - 1) * col_stride;
            assert!(last < data.len(), "matrix view past its slice");
        }
        View {
            data,
            rows,
            cols,
            row_stride,
            col_stride,
        }
    }

    /// The transpose, sharing the data.
    pub(crate) fn t(self) -> View<'a> {
        View {
            data: self.data,
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
        }
    }
}

/// `out = a·b` (or `out += a·b` with `accumulate`), `out` row-major [a.rows, b.cols],
/// single-threaded. Panics on mismatched shapes.
pub(crate) fn matmul(out: &mut [f32], a: View, b: View, accumulate: bool) {
    assert_eq!(a.cols, b.rows, "matmul: inner dimensions differ");
    let (m, n, k) = (a.rows, b.cols, a.cols);
    assert!(out.len() >= m * n, "matmul: output too small");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            out[..m * n].fill(0.0);
        }
        return;
    }
    if m <= ROW_BY_ROW_MAX && row_products(out, a, b, accumulate).is_some() {
        return;
    }
    // SAFETY: every index the product touches is inside its slice: `View::strided` checked
    // the last element of `a` and `b`, and `out` holds m·n elements, row-major.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.data.as_ptr(),
            a.row_stride as isize,
            a.col_stride as isize,
            b.data.as_ptr(),
            b.row_stride as isize,
            b.col_stride as isize,
            if accumulate { 1.0 } else { 0.0 },
            out.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// `a·bᵀ` for row-major `a` [rows, inner] and `b` [cols, inner], row-major [rows, cols]:
/// the plain-vector product the layers above `model` use (they do not know
/// `matrixmultiply`). Panics when a slice is shorter than its shape.
pub fn times_transposed(a: &[f32], b: &[f32], rows: usize, inner: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    matmul(
        &mut out,
        View::row_major(a, rows, inner),
        View::row_major(b, cols, inner).t(),
        false,
    );
    out
}

/// Up to this many rows, a product is computed row by row ([`row_products`]) rather than
/// by `matrixmultiply`, whose packing of `b` costs as much as the arithmetic when `a` has a
/// single row (scoring one sentence).
pub(crate) const ROW_BY_ROW_MAX: usize = 2;

/// A product with few rows, for `b` with contiguous rows (as sums of `b`'s rows, skipping
/// zeros of `a`: an FA-RNN's states are mostly zero while its automata are still
/// deterministic) or with contiguous columns and `a` with contiguous rows (as dot
/// products); `None` for other layouts. The loops are compiled for the widest vector
/// instructions the processor has, chosen once per product.
fn row_products(out: &mut [f32], a: View, b: View, accumulate: bool) -> Option<()> {
    let shape = if b.col_stride == 1 {
        RowShape::SumOfRows
    } else if b.row_stride == 1 && a.col_stride == 1 {
        RowShape::Dots
    } else {
        return None;
    };
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has the instructions the function is compiled for.
            unsafe { row_products_avx512(out, a, b, accumulate, shape) };
            return Some(());
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: as above.
            unsafe { row_products_avx2(out, a, b, accumulate, shape) };
            return Some(());
        }
    }
    row_products_any(out, a, b, accumulate, shape);
    Some(())
}

#[derive(Clone, Copy)]
enum RowShape {
    SumOfRows,
    Dots,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn row_products_avx512(out: &mut [f32], a: View, b: View, accumulate: bool, shape: RowShape) {
    row_products_any(out, a, b, accumulate, shape);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn row_products_avx2(out: &mut [f32], a: View, b: View, accumulate: bool, shape: RowShape) {
    row_products_any(out, a, b, accumulate, shape);
}

#[inline(always)]
fn row_products_any(out: &mut [f32], a: View, b: View, accumulate: bool, shape: RowShape) {
    let (n, k) = (b.cols, a.cols);
    for (i, out) in out.chunks_exact_mut(n).take(a.rows).enumerate() {
        match shape {
            RowShape::SumOfRows => {
                if !accumulate {
                    out.fill(0.0);
                }
                for p in 0..k {
                    let x = a.data[i * a.row_stride + p * a.col_stride];
                    if x != 0.0 {
                        let row = &b.data[p * b.row_stride..p * b.row_stride + n];
                        for (y, &w) in out.iter_mut().zip(row) {
                            *y = x.mul_add(w, *y);
                        }
                    }
                }
            }
            RowShape::Dots => {
                let row = &a.data[i * a.row_stride..i * a.row_stride + k];
                for (j, out) in out.iter_mut().enumerate() {
                    let product = dot_lanes(row, &b.data[j * b.col_stride..j * b.col_stride + k]);
                    *out = if accumulate { *out + product } else { product };
                }
            }
        }
    }
}

/// `Σ a[i]·b[i]`: the one dot-product kernel of the fused operations and the plain scorers,
/// sixteen running sums of fused multiply-adds, so that the loop vectorizes (one sum could
/// not be reordered). Inlined into its caller, which is compiled for the processor's
/// features ([`dot`] chooses them itself); every build gives the same sums, in the same
/// order, whatever the vector width.
#[inline(always)]
pub(crate) fn dot_lanes(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut sums = [0f32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..LANES {
            sums[lane] = x[lane].mul_add(y[lane], sums[lane]);
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// [`dot_lanes`] compiled for AVX-512 or AVX2 and FMA where the processor has them, for
/// callers that are not compiled for them themselves.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has the instructions the function is compiled for.
            return unsafe { dot_avx512(a, b) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: as above.
            return unsafe { dot_avx2(a, b) };
        }
    }
    dot_lanes(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn dot_avx512(a: &[f32], b: &[f32]) -> f32 {
    dot_lanes(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
    dot_lanes(a, b)
}

/// Columns of one 512-bit vector of f32.
pub(crate) const LANES: usize = 16;
/// Columns of one panel of a [`PackedMatrix`]: eight vectors.
const PANEL: usize = 8 * LANES;

/// A [rows, cols] matrix packed for [`PackedMatrix::left_multiply`]: its columns cut into
/// panels of [`PANEL`] columns (the last one narrower), each panel stored row after row, so
/// that a product streams through memory in order; columns are padded with zeros to a
/// multiple of [`LANES`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PackedMatrix {
    rows: usize,
    cols: usize,
    /// The columns rounded up to a multiple of LANES.
    width: usize,
    data: Vec<f32>,
}

impl PackedMatrix {
    /// The packed copy of the row-major [rows, cols] matrix `data`.
    pub(crate) fn new(data: &[f32], rows: usize, cols: usize) -> PackedMatrix {
        assert_eq!(
            data.len(),
            rows * cols,
            "packed: not a [{rows}, {cols}] matrix"
        );
        let width = padded(cols);
        let mut packed = vec![0f32; rows * width];
        let mut offset = 0;
        for (start, panel) in panels(width) {
            for (p, row) in data.chunks_exact(cols.max(1)).enumerate() {
                let end = (start + panel).min(cols);
                if start < end {
                    let at = offset + p * panel;
                    packed[at..at + end - start].copy_from_slice(&row[start..end]);
                }
            }
            offset += rows * panel;
        }
        PackedMatrix {
            rows,
            cols,
            width,
            data: packed,
        }
    }

    /// Row i into `out` (cols long).
    pub(crate) fn copy_row(&self, i: usize, out: &mut [f32]) {
        let mut offset = 0;
        for (start, panel) in panels(self.width) {
            let end = (start + panel).min(self.cols);
            if start < end {
                let at = offset + i * panel;
                out[start..end].copy_from_slice(&self.data[at..at + end - start]);
            }
            offset += self.rows * panel;
        }
    }

    /// `out = x · self` for a row vector x of length `rows` (`out += …` with `accumulate`);
    /// `out` holds at least `cols` rounded up to a multiple of [`LANES`], the padding coming
    /// out 0. Rows where x is 0 are skipped (an untrained FA-RNN's states are mostly 0),
    /// listed in `nonzero`, a buffer the caller keeps so that products allocate nothing.
    /// Each panel's columns are summed in registers over all rows, so the product reads the
    /// matrix once, in order, and writes `out` once; compiled for the widest vector
    /// instructions the processor has.
    pub(crate) fn left_multiply(
        &self,
        x: &[f32],
        out: &mut [f32],
        accumulate: bool,
        nonzero: &mut Vec<usize>,
    ) {
        assert_eq!(x.len(), self.rows, "left_multiply: x has the wrong length");
        assert!(out.len() >= self.width, "left_multiply: output too small");
        // Branch-free: every row is written, and the count moves past the nonzero ones.
        nonzero.resize(self.rows, 0);
        let mut count = 0;
        for (p, &xp) in x.iter().enumerate() {
            nonzero[count] = p;
            count += usize::from(xp != 0.0);
        }
        let nonzero = &nonzero[..count];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the processor has the instructions the function is compiled for.
                unsafe { left_multiply_avx512(self, x, nonzero, out, accumulate) };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: as above.
                unsafe { left_multiply_avx2(self, x, nonzero, out, accumulate) };
                return;
            }
        }
        left_multiply_any(self, x, nonzero, out, accumulate);
    }

    /// Each panel's data with its first column and width.
    fn panel_data(&self) -> impl Iterator<Item = (usize, usize, &[f32])> {
        let mut offset = 0;
        panels(self.width).map(move |(start, panel)| {
            let data = &self.data[offset..offset + self.rows * panel];
            offset += self.rows * panel;
            (start, panel, data)
        })
    }
}

/// The panels (first column, width) of a packed matrix `width` columns wide.
fn panels(width: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..width)
        .step_by(PANEL)
        .map(move |start| (start, PANEL.min(width - start)))
}

/// `n` rounded up to a multiple of [`LANES`].
pub(crate) fn padded(n: usize) -> usize {
    n.div_ceil(LANES) * LANES
}

/// [`PackedMatrix::left_multiply`] with AVX-512 intrinsics: full panels with eight
/// vectors of sums, the narrower last one with its rows spread over several sets of sums,
/// so that there are always about eight independent multiply-add chains.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn left_multiply_avx512(
    m: &PackedMatrix,
    x: &[f32],
    nonzero: &[usize],
    out: &mut [f32],
    accumulate: bool,
) {
    for (start, panel, data) in m.panel_data() {
        let out = &mut out[start..start + panel];
        match panel / LANES {
            8 => vector_panel::<8, 1>(data, x, nonzero, out, accumulate),
            7 => vector_panel::<7, 1>(data, x, nonzero, out, accumulate),
            6 => vector_panel::<6, 1>(data, x, nonzero, out, accumulate),
            5 => vector_panel::<5, 1>(data, x, nonzero, out, accumulate),
            4 => vector_panel::<4, 2>(data, x, nonzero, out, accumulate),
            3 => vector_panel::<3, 2>(data, x, nonzero, out, accumulate),
            2 => vector_panel::<2, 4>(data, x, nonzero, out, accumulate),
            _ => vector_panel::<1, 8>(data, x, nonzero, out, accumulate),
        }
    }
}

/// One panel of N·LANES columns: `A` sets of `N` vector sums, row i going to set i mod A.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn vector_panel<const N: usize, const A: usize>(
    data: &[f32],
    x: &[f32],
    nonzero: &[usize],
    out: &mut [f32],
    accumulate: bool,
) {
    use std::arch::x86_64::*;
    let width = N * LANES;
    let mut sums = [[_mm512_setzero_ps(); N]; A];
    let add_row = |sums: &mut [__m512; N], p: usize| {
        let row = &data[p * width..][..width];
        let xp = _mm512_set1_ps(x[p]);
        for (v, sum) in sums.iter_mut().enumerate() {
            // SAFETY: `row` holds `width` = N·LANES floats, so LANES from v·LANES are in it.
            let w = unsafe { _mm512_loadu_ps(row.as_ptr().add(v * LANES)) };
            *sum = _mm512_fmadd_ps(xp, w, *sum);
        }
    };
    let mut rows = nonzero.chunks_exact(A);
    for group in &mut rows {
        for (sums, &p) in sums.iter_mut().zip(group) {
            add_row(sums, p);
        }
    }
    for (sums, &p) in sums.iter_mut().zip(rows.remainder()) {
        add_row(sums, p);
    }
    let out = &mut out[..width];
    for v in 0..N {
        let mut total = sums[0][v];
        for set in &sums[1..] {
            total = _mm512_add_ps(total, set[v]);
        }
        // SAFETY: `out` holds `width` floats, so LANES from v·LANES are in it.
        unsafe {
            let at = out.as_mut_ptr().add(v * LANES);
            if accumulate {
                total = _mm512_add_ps(total, _mm512_loadu_ps(at));
            }
            _mm512_storeu_ps(at, total);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn left_multiply_avx2(
    m: &PackedMatrix,
    x: &[f32],
    nonzero: &[usize],
    out: &mut [f32],
    accumulate: bool,
) {
    left_multiply_any(m, x, nonzero, out, accumulate);
}

/// [`PackedMatrix::left_multiply`] in portable code, vectorized by the compiler: one
/// block of LANES columns at a time.
#[inline(always)]
fn left_multiply_any(
    m: &PackedMatrix,
    x: &[f32],
    nonzero: &[usize],
    out: &mut [f32],
    accumulate: bool,
) {
    for (start, panel, data) in m.panel_data() {
        for block in (0..panel).step_by(LANES) {
            let mut sums = [0f32; LANES];
            for &p in nonzero {
                let xp = x[p];
                let row: &[f32; LANES] = data[p * panel + block..][..LANES]
                    .try_into()
                    .expect("a block of LANES columns");
                for j in 0..LANES {
                    sums[j] = xp.mul_add(row[j], sums[j]);
                }
            }
            let out = &mut out[start + block..start + block + LANES];
            for (out, sum) in out.iter_mut().zip(sums) {
                *out = if accumulate { *out + sum } else { sum };
            }
        }
    }
}

/// The row-major transpose [cols, rows] of the row-major [rows, cols] matrix `data`: a
/// product reads its right operand fastest when that operand's rows are contiguous.
pub(crate) fn transposed(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(
        data.len(),
        rows * cols,
        "transposed: not a [{rows}, {cols}] matrix"
    );
    let mut out = vec![0f32; data.len()];
    for (i, row) in data.chunks_exact(cols.max(1)).enumerate() {
        for (j, &x) in row.iter().enumerate() {
            out[j * rows + i] = x;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_with_transposes_and_strides_match_the_definition() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 0.5, -1.0, 2.0, 0.0, 1.0];
        // a [2,3] · (b as [2,3])ᵀ [3,2] = [2,2]
        let mut out = [0.0; 4];
        matmul(
            &mut out,
            View::row_major(&a, 2, 3),
            View::row_major(&b, 2, 3).t(),
            false,
        );
        assert_eq!(
            out,
            [
                1.0 + 1.0 - 3.0,
                2.0 + 0.0 + 3.0,
                4.0 + 2.5 - 6.0,
                8.0 + 0.0 + 6.0
            ]
        );
        matmul(
            &mut out,
            View::row_major(&a, 2, 3),
            View::row_major(&b, 2, 3).t(),
            true,
        );
        assert_eq!(out, [-2.0, 10.0, 1.0, 28.0]);
        // Every other row of a 4-row matrix: rows 0 and 2 of [[1,2],[9,9],[3,4],[9,9]].
        let c = [1.0, 2.0, 9.0, 9.0, 3.0, 4.0, 9.0, 9.0];
        let identity = [1.0, 0.0, 0.0, 1.0];
        matmul(
            &mut out,
            View::strided(&c, 2, 2, 4, 1),
            View::row_major(&identity, 2, 2),
            false,
        );
        assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn transposed_swaps_rows_and_columns() {
        assert_eq!(
            transposed(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
    }

    /// Deterministic inputs in [-1, 1) with every third entry 0 (the kernels skip zeros).
    fn inputs(n: usize, seed: u32) -> Vec<f32> {
        (0..n as u32)
            .map(|i| {
                if (i + seed).is_multiple_of(3) {
                    return 0.0;
                }
                let h = (i ^ seed).wrapping_mul(2_654_435_761) >> 8;
                h as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect()
    }

    type LeftMultiply = fn(&PackedMatrix, &[f32], &[usize], &mut [f32], bool);
    /// The kernels this processor can run (AVX-512 only where it has it), named.
    fn left_multiply_kernels() -> Vec<(&'static str, LeftMultiply)> {
        let mut kernels: Vec<(&'static str, LeftMultiply)> =
            vec![("portable", |m, x, nz, out, acc| {
                left_multiply_any(m, x, nz, out, acc)
            })];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the processor has AVX-512F.
                kernels.push(("avx512", |m, x, nz, out, acc| unsafe {
                    left_multiply_avx512(m, x, nz, out, acc)
                }));
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the processor has AVX2 and FMA.
                kernels.push(("avx2", |m, x, nz, out, acc| unsafe {
                    left_multiply_avx2(m, x, nz, out, acc)
                }));
            }
        }
        kernels
    }

    #[test]
    fn every_left_multiply_kernel_gives_the_definition_for_every_panel_width() {
        let kernels = left_multiply_kernels();
        // Every panel width from one vector to a full panel, alone and after full panels
        // (cols not a multiple of LANES included), with 1, 2, 5 and 9 rows.
        let widths = (1..=PANEL / LANES).flat_map(|v| {
            [
                v * LANES,
                v * LANES - 3,
                PANEL + v * LANES,
                2 * PANEL + v * LANES - 1,
            ]
        });
        for cols in widths {
            for rows in [1, 2, 5, 9] {
                let data = inputs(rows * cols, cols as u32);
                let x = inputs(rows, 7 + rows as u32);
                let m = PackedMatrix::new(&data, rows, cols);
                let expected: Vec<f32> = (0..cols)
                    .map(|j| (0..rows).map(|p| x[p] * data[p * cols + j]).sum())
                    .collect();
                let base = inputs(padded(cols), 3);
                for (name, kernel) in &kernels {
                    for accumulate in [false, true] {
                        let mut nonzero: Vec<usize> = (0..rows).filter(|&p| x[p] != 0.0).collect();
                        nonzero.shrink_to_fit();
                        let mut out = base.clone();
                        kernel(&m, &x, &nonzero, &mut out, accumulate);
                        for j in 0..padded(cols) {
                            let want = if j < cols { expected[j] } else { 0.0 }
                                + if accumulate { base[j] } else { 0.0 };
                            assert!(
                                (out[j] - want).abs() <= 1e-5 * (1.0 + want.abs()),
                                "{name}, [{rows}, {cols}], accumulate {accumulate}: column {j} is \
                                 {} instead of {want}",
                                out[j]
                            );
                        }
                    }
                }
                // And through the dispatching entry point.
                let mut out = vec![0.0; padded(cols)];
                m.left_multiply(&x, &mut out, false, &mut Vec::new());
                for j in 0..cols {
                    assert!((out[j] - expected[j]).abs() <= 1e-5 * (1.0 + expected[j].abs()));
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "past its slice")]
    fn a_view_past_its_slice_is_refused() {
        View::strided(&[0.0; 4], 2, 2, 3, 1);
    }
}
