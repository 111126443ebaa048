//! `out += A B` and its relatives, the products of the explicit feature maps:
//! - [`sparse_product`]: the stored entries of a block of rows times a dense `B`
//!   (random Fourier projections `xᵀW`; inner products with Nyström landmarks),
//!   costing the rows' non-zeros times the output width;
//! - [`upper_product`]: dense rows times an upper-triangular `B` (`B[p][c] = 0` for
//!   `c < p`), which maps the Nyström kernel values (in pivot order) through `L⁻ᵀ`;
//! - [`lower_rank_update`] and [`subtract_lower_product`]: the trailing updates of
//!   the blocked pivoted Cholesky factorisation and triangular inverse of the
//!   Nyström fit.
//!
//! All are register-blocked in the manner of BLAS. The dense ones keep tiles of `MR`
//! rows by `NR` output columns (two AVX2 registers per row) in registers over chunks
//! of `KC` inner indices, with `A` packed per tile and `B` stored in panels of `NR`
//! columns, so each output is loaded and stored once per chunk and each coefficient
//! of `B` once per `MR` rows. The sparse one keeps `NS` outputs of one row in
//! registers over all the row's entries, and walks the output in column tiles small
//! enough that the tile of `B` the block of rows reads stays in L2; when no such
//! tile fits (high-dimensional sparse rows), it streams runs of `B`'s rows instead.
//!
//! Every output is the sum over the inner index in increasing order (the row's
//! stored order for the sparse product), written with separate multiplies and adds
//! (never fused): vector width changes which outputs are computed together, not
//! their value, so the result is bit-identical on every CPU. On x86-64 the same code
//! is also compiled for AVX2 and chosen at run time ([`crate::simd`]). Measured on one core here (AMD
//! EPYC, 64 rows x 2048 outputs): the triangular product 8.9 G multiply-adds per
//! second in `f64`, the sparse product 4.7 G (on 20 % dense rows of 784 features).

use std::borrow::Cow;

use rayon::prelude::*;

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::parallel::ROW_BLOCK;
use crate::simd::{with_avx2, Job};

/// Rows per register tile.
const MR: usize = 4;
/// Output columns per register tile in `f64` (`f32` tiles have twice as many).
pub(crate) const NR: usize = 8;
/// Landmarks per chunk (the chunk of `A`'s rows stays in L2).
const KC: usize = 256;
/// Output columns one row of the sparse product keeps in registers.
const NS: usize = 32;
/// Bytes of `B` one column tile of the sparse product may read (L2 is 512 KiB).
const TILE_BYTES: usize = 256 << 10;
/// Fewest columns per tile kept in L2. When even that would not fit (many rows of
/// `B` touched per block: high-dimensional sparse data), the product streams
/// instead: each entry adds a run of [`STREAM_TILE`] coefficients of its row of `B`
/// to the row's output, which the hardware prefetcher follows.
const MIN_TILE: usize = 32;
/// Columns of an output run when streaming (4 KiB of `f64`, in L1).
const STREAM_TILE: usize = 512;

/// `B` stored in panels of `nr` columns (two AVX2 registers: 8 in `f64`, 16 in
/// `f32`), each panel's rows contiguous (`rank x nr`, the last panel padded with
/// zeros), as the register tiles read it.
#[derive(Clone, Debug)]
pub(crate) struct Panel<O> {
    /// Rows of `B` (the inner dimension of the product).
    pub rank: usize,
    /// Output columns.
    pub n_out: usize,
    /// Columns per panel.
    nr: usize,
    /// `n_out / nr` (rounded up) panels of `rank x nr` coefficients.
    u: Vec<O>,
}

impl<O: Float> Panel<O> {
    /// An all-zero `rank x n_out` matrix.
    pub fn zeros(rank: usize, n_out: usize) -> Self {
        let nr = if std::mem::size_of::<O>() == 4 {
            2 * NR
        } else {
            NR
        };
        Self {
            rank,
            n_out,
            nr,
            u: vec![O::ZERO; n_out.div_ceil(nr) * rank * nr],
        }
    }

    /// `B[p][c] = v`.
    pub fn set(&mut self, p: usize, c: usize, v: O) {
        self.u[((c / self.nr) * self.rank + p) * self.nr + c % self.nr] = v;
    }

    /// `B[p][c]`.
    #[cfg(test)]
    fn get(&self, p: usize, c: usize) -> O {
        self.u[((c / self.nr) * self.rank + p) * self.nr + c % self.nr]
    }
}

/// `out[r][c] += sum_{p <= c} a[r][p] u[p][c]` for `rows` rows (the terms with
/// `p > c` are skipped: `u` is upper triangular); `a` has row stride
/// `lda >= u.rank`, `out` row stride `ldo >= u.n_out`.
pub(crate) fn upper_product<O: Float>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    with_avx2(UpperJob {
        a,
        rows,
        lda,
        u,
        out,
        ldo,
    });
}

/// The stored entries of a block of rows, gathered once: row `r` is
/// `cols[starts[r]..starts[r + 1]]` with the same slice of `vals`, in stored order,
/// zeros dropped and adjacent repeats of a column added up.
#[derive(Clone, Debug)]
pub(crate) struct SparseBlock<O> {
    starts: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<O>,
}

impl<O: Float> SparseBlock<O> {
    /// Rows `first..first + rows` of `x`, values converted to `O`.
    pub fn gather<R: Rows>(x: &R, first: usize, rows: usize) -> Self {
        let mut block = Self {
            starts: Vec::with_capacity(rows + 1),
            cols: Vec::new(),
            vals: Vec::new(),
        };
        block.starts.push(0);
        for i in first..first + rows {
            let start = block.cols.len();
            x.for_each_entry(i, |j, v| {
                if v != 0.0 {
                    if block.cols.len() > start && block.cols.last() == Some(&j) {
                        if let Some(last) = block.vals.last_mut() {
                            *last += O::from_f64(v);
                        }
                    } else {
                        block.cols.push(j);
                        block.vals.push(O::from_f64(v));
                    }
                }
            });
            block.starts.push(block.cols.len());
        }
        block
    }

    /// The entries whose column `map` sends to `Some(new column)`, renamed, in the
    /// same rows and order.
    pub fn map_columns(&self, map: impl Fn(usize) -> Option<usize>) -> Self {
        let mut block = Self {
            starts: Vec::with_capacity(self.starts.len()),
            cols: Vec::new(),
            vals: Vec::new(),
        };
        block.starts.push(0);
        for r in 0..self.n_rows() {
            let (cols, vals) = self.row(r);
            for (&j, &v) in cols.iter().zip(vals) {
                if let Some(k) = map(j) {
                    block.cols.push(k);
                    block.vals.push(v);
                }
            }
            block.starts.push(block.cols.len());
        }
        block
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The columns and values of row `r`.
    pub fn row(&self, r: usize) -> (&[usize], &[O]) {
        let span = self.starts[r]..self.starts[r + 1];
        (&self.cols[span.clone()], &self.vals[span])
    }
}

/// A dense `rows x n_out` matrix `B` stored in column tiles for [`sparse_product`]:
/// tile `t` holds columns `t * tile..(t + 1) * tile` of every row, contiguously
/// (`rows x tile`, the last tile padded with zeros), so the part of `B` one pass over
/// a block of rows reads is one compact span (in L2, few pages).
#[derive(Clone, Debug)]
pub(crate) struct TiledPanel<'a, O: Clone> {
    rows: usize,
    n_out: usize,
    tile: usize,
    /// Stream (entry by entry over runs of a row) rather than keep outputs in
    /// registers; `B` is then row-major (one tile) and may be borrowed.
    stream: bool,
    data: Cow<'a, [O]>,
}

impl<'a, O: Float> TiledPanel<'a, O> {
    /// An all-zero `rows x n_out` matrix, tiled for products with row blocks of
    /// [`ROW_BLOCK`] rows of `row_nonzeros` stored entries on average.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when it cannot be allocated.
    pub fn zeros(rows: usize, n_out: usize, row_nonzeros: f64, what: &str) -> Result<Self> {
        let (tile, stream) = Self::layout(rows, n_out, row_nonzeros);
        let len = n_out
            .div_ceil(tile)
            .checked_mul(rows * tile)
            .ok_or_else(|| Error::OutOfMemory(format!("{what}: {rows} x {n_out}")))?;
        Ok(Self {
            rows,
            n_out,
            tile,
            stream,
            data: Cow::Owned(try_filled_vec(len, O::ZERO, what)?),
        })
    }

    /// The tile width, and whether to stream.
    fn layout(rows: usize, n_out: usize, row_nonzeros: f64) -> (usize, bool) {
        // The rows of B one block reads, at most.
        #[allow(clippy::cast_precision_loss)]
        let touched = ((ROW_BLOCK as f64 * row_nonzeros).ceil() as usize).clamp(1, rows.max(1));
        let fit = TILE_BYTES / (touched * std::mem::size_of::<O>()) / NS * NS;
        if fit < MIN_TILE {
            (n_out.max(1), true)
        } else {
            (fit.min(n_out.div_ceil(NS).max(1) * NS), false)
        }
    }

    /// `B` from row-major `b` (`rows x n_out`), tiled as by [`TiledPanel::zeros`]
    /// (borrowed, not copied, when streaming).
    ///
    /// # Errors
    /// As [`TiledPanel::zeros`]; [`Error::ShapeMismatch`] when `b` is too short.
    pub fn from_row_major(
        b: &'a [O],
        rows: usize,
        n_out: usize,
        row_nonzeros: f64,
        what: &str,
    ) -> Result<Self> {
        let Some(b) = b.get(..rows.saturating_mul(n_out)) else {
            return Err(Error::ShapeMismatch(format!(
                "{what}: {} values for {rows} x {n_out}",
                b.len()
            )));
        };
        let (tile, stream) = Self::layout(rows, n_out, row_nonzeros);
        if stream {
            return Ok(Self {
                rows,
                n_out,
                tile,
                stream,
                data: Cow::Borrowed(b),
            });
        }
        let mut panel = Self::zeros(rows, n_out, row_nonzeros, what)?;
        let tile = panel.tile;
        let data = panel.data.to_mut();
        for (j, row) in b.chunks_exact(n_out.max(1)).enumerate() {
            for (t, part) in row.chunks(tile).enumerate() {
                let start = (t * rows + j) * tile;
                data[start..start + part.len()].copy_from_slice(part);
            }
        }
        Ok(panel)
    }

    /// `B[j][c] += v`.
    pub fn add(&mut self, j: usize, c: usize, v: O) {
        let (t, q) = (c / self.tile, c % self.tile);
        self.data.to_mut()[(t * self.rows + j) * self.tile + q] += v;
    }
}

/// `out[r][c] += sum over the entries (j, v) of row r of a, in order, of v b[j][c]`
/// for every output column `c` of `b`; `out` has row stride `ldo >= b.n_out`, and
/// every column the entries name must be a row of `b`.
pub(crate) fn sparse_product<O: Float>(
    a: &SparseBlock<O>,
    b: &TiledPanel<'_, O>,
    out: &mut [O],
    ldo: usize,
) {
    with_avx2(SparseJob { a, b, out, ldo });
}

/// [`sparse_product`]'s arguments.
struct SparseJob<'a, O: Clone> {
    a: &'a SparseBlock<O>,
    b: &'a TiledPanel<'a, O>,
    out: &'a mut [O],
    ldo: usize,
}

impl<O: Float> Job for SparseJob<'_, O> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        sparse_rows(self.a, self.b, self.out, self.ldo);
    }
}

/// [`upper_product`]'s arguments.
struct UpperJob<'a, O> {
    a: &'a [O],
    rows: usize,
    lda: usize,
    u: &'a Panel<O>,
    out: &'a mut [O],
    ldo: usize,
}

impl<O: Float> Job for UpperJob<'_, O> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        if self.u.nr == 2 * NR {
            product::<O, { 2 * NR }>(self.a, self.rows, self.lda, self.u, self.out, self.ldo);
        } else {
            product::<O, NR>(self.a, self.rows, self.lda, self.u, self.out, self.ldo);
        }
    }
}

#[allow(clippy::inline_always)]
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn sparse_rows<O: Float>(a: &SparseBlock<O>, b: &TiledPanel<'_, O>, out: &mut [O], ldo: usize) {
    let span = (b.rows * b.tile).max(1);
    if b.stream {
        // Row-major B: each entry adds runs of its row to the output row's run.
        for r in 0..a.n_rows() {
            let (cols, vals) = a.row(r);
            let o_row = &mut out[r * ldo..r * ldo + b.n_out];
            for (k, o) in o_row.chunks_mut(STREAM_TILE).enumerate() {
                let c0 = k * STREAM_TILE;
                for (&j, &v) in cols.iter().zip(vals) {
                    let w = &b.data[j * b.n_out + c0..j * b.n_out + c0 + o.len()];
                    for (s, &wq) in o.iter_mut().zip(w) {
                        *s += v * wq;
                    }
                }
            }
        }
        return;
    }
    for (t, tb) in b.data.chunks_exact(span).enumerate() {
        let c0 = t * b.tile;
        let width = b.tile.min(b.n_out - c0);
        for r in 0..a.n_rows() {
            let (cols, vals) = a.row(r);
            let o = &mut out[r * ldo + c0..r * ldo + c0 + width];
            let mut q0 = 0;
            while q0 + NS <= width {
                let mut acc = [O::ZERO; NS];
                acc.copy_from_slice(&o[q0..q0 + NS]);
                for (&j, &v) in cols.iter().zip(vals) {
                    let mut w = [O::ZERO; NS];
                    w.copy_from_slice(&tb[j * b.tile + q0..j * b.tile + q0 + NS]);
                    for q in 0..NS {
                        acc[q] += v * w[q];
                    }
                }
                o[q0..q0 + NS].copy_from_slice(&acc);
                q0 += NS;
            }
            if q0 < width {
                // The last columns, fewer than NS.
                for (&j, &v) in cols.iter().zip(vals) {
                    let w = &tb[j * b.tile + q0..j * b.tile + width];
                    for (s, &wq) in o[q0..].iter_mut().zip(w) {
                        *s += v * wq;
                    }
                }
            }
        }
    }
}

/// `a[i][j] -= sum_{k0 <= k < k1} a[i][k] a[j][k]` for `k1 <= j <= i < m`, `a`
/// row-major `m x m`: the trailing update of a blocked Cholesky factorisation after
/// the panel of columns `k0..k1` (each entry's terms subtracted in order of `k`, as
/// the unblocked rank-one updates would). Entries above the diagonal of the
/// diagonal blocks are overwritten with meaningless values. Row tiles run in
/// parallel on the current thread pool.
pub(crate) fn lower_rank_update(a: &mut [f64], m: usize, k0: usize, k1: usize) {
    let nb = k1 - k0;
    if k1 >= m || nb == 0 {
        return;
    }
    // The panel's rows j >= k1, NR at a time: bp[block][k][q] = a[j0 + q][k0 + k].
    let blocks = (m - k1).div_ceil(NR);
    let mut bp = vec![0.0; blocks * nb * NR];
    for (bi, panel) in bp.chunks_mut(nb * NR).enumerate() {
        for q in 0..NR {
            let j = k1 + bi * NR + q;
            if j < m {
                for (k, &v) in a[j * m + k0..j * m + k1].iter().enumerate() {
                    panel[k * NR + q] = v;
                }
            }
        }
    }
    let trailing = &mut a[k1 * m..];
    trailing
        .par_chunks_mut(MR * m)
        .enumerate()
        .for_each(|(t, rows)| {
            with_avx2(RankJob {
                rows,
                m,
                k0,
                k1,
                i0: k1 + t * MR,
                bp: &bp,
            });
        });
}

/// One row tile of [`lower_rank_update`].
struct RankJob<'a> {
    /// Rows `i0..` of `a` (at most `MR`).
    rows: &'a mut [f64],
    m: usize,
    k0: usize,
    k1: usize,
    i0: usize,
    bp: &'a [f64],
}

impl Job for RankJob<'_> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        let Self {
            rows,
            m,
            k0,
            k1,
            i0,
            bp,
        } = self;
        let nb = k1 - k0;
        let valid = rows.len() / m;
        // Negated, so that the tile's additions are the subtractions.
        let mut ap = vec![[0.0; MR]; nb];
        for rr in 0..valid {
            for (k, &v) in rows[rr * m + k0..rr * m + k1].iter().enumerate() {
                ap[k][rr] = -v;
            }
        }
        let last = i0 + valid - 1;
        for (bi, panel) in bp.chunks(nb * NR).enumerate() {
            let j0 = k1 + bi * NR;
            if j0 > last {
                break;
            }
            let cw = NR.min(m - j0);
            tile::<f64, NR>(&ap, panel, &mut rows[j0..], m, cw, valid);
        }
    }
}

/// `out[r][c] -= sum_{p < k} l[r][p] b[p][c]` for the `out.len() / ldo` rows of
/// `out` and the columns `c < k`, where `b` is lower triangular (`b[p][c] = 0` for
/// `c > p`, those terms skipped by blocks of [`NR`] columns) and `l` has row stride
/// `ldl`: the earlier rows' part of a blocked triangular inversion. Each entry's
/// terms are subtracted in order of `p`. Row tiles run in parallel on the current
/// thread pool.
pub(crate) fn subtract_lower_product(
    l: &[f64],
    ldl: usize,
    k: usize,
    b: &Panel<f64>,
    out: &mut [f64],
    ldo: usize,
) {
    if k == 0 {
        return;
    }
    out.par_chunks_mut(MR * ldo)
        .zip(l.par_chunks(MR * ldl))
        .for_each(|(out, l)| {
            with_avx2(LowerJob {
                l,
                ldl,
                k,
                b,
                out,
                ldo,
            });
        });
}

/// One row tile of [`subtract_lower_product`].
struct LowerJob<'a> {
    l: &'a [f64],
    ldl: usize,
    k: usize,
    b: &'a Panel<f64>,
    out: &'a mut [f64],
    ldo: usize,
}

impl Job for LowerJob<'_> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        let Self {
            l,
            ldl,
            k,
            b,
            out,
            ldo,
        } = self;
        let valid = out.len().div_ceil(ldo);
        // Negated, so that the tile's additions are the subtractions.
        let mut ap = vec![[0.0; MR]; k];
        for rr in 0..valid {
            for (p, &v) in l[rr * ldl..rr * ldl + k].iter().enumerate() {
                ap[p][rr] = -v;
            }
        }
        let mut c0 = 0;
        while c0 < k {
            let cw = NR.min(k - c0);
            let start = ((c0 / NR) * b.rank + c0) * NR;
            let end = ((c0 / NR) * b.rank + k) * NR;
            tile::<f64, NR>(&ap[c0..], &b.u[start..end], &mut out[c0..], ldo, cw, valid);
            c0 += NR;
        }
    }
}

// Inlined into the AVX2 build, which is the point of `inline(always)` here.
#[allow(clippy::inline_always)]
#[inline(always)]
fn product<O: Float, const C: usize>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    let tiles = rows.div_ceil(MR);
    // The chunk of A, packed tile by tile: `packed[t * KC + k][rr]` is row
    // `t * MR + rr` at inner index `p0 + k` (zero past the last row).
    let mut packed = vec![[O::ZERO; MR]; tiles * KC];
    let mut p0 = 0;
    while p0 < u.rank {
        let p1 = (p0 + KC).min(u.rank);
        for (t, dst) in packed.chunks_mut(KC).enumerate() {
            for rr in 0..MR {
                let r = t * MR + rr;
                if r < rows {
                    for (d, &v) in dst.iter_mut().zip(&a[r * lda + p0..r * lda + p1]) {
                        d[rr] = v;
                    }
                } else {
                    for d in dst.iter_mut() {
                        d[rr] = O::ZERO;
                    }
                }
            }
        }
        let mut c0 = (p0 / C) * C;
        while c0 < u.n_out {
            let cw = C.min(u.n_out - c0);
            // Upper triangular: only p <= c contributes, so p < c0 + C here.
            let pend = p1.min(c0 + C);
            let b = &u.u[((c0 / C) * u.rank + p0) * C..((c0 / C) * u.rank + u.rank) * C];
            for (t, ap) in packed.chunks(KC).enumerate() {
                let valid = MR.min(rows - t * MR);
                let o = &mut out[t * MR * ldo + c0..];
                tile::<O, C>(&ap[..pend - p0], b, o, ldo, cw, valid);
            }
            c0 += C;
        }
        p0 = p1;
    }
}

/// `out[rr][q] += sum_k ap[k][rr] b[k][q]` for the `valid` rows and `cw` columns,
/// in registers; `b` holds rows of `C` columns, contiguously.
#[allow(clippy::inline_always)]
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn tile<O: Float, const C: usize>(
    ap: &[[O; MR]],
    b: &[O],
    out: &mut [O],
    ldo: usize,
    cw: usize,
    valid: usize,
) {
    if cw == C && valid == MR {
        // The common case, with sizes known at compile time so that `acc` lives in
        // registers.
        let mut acc = [[O::ZERO; C]; MR];
        for (rr, acc_r) in acc.iter_mut().enumerate() {
            acc_r.copy_from_slice(&out[rr * ldo..rr * ldo + C]);
        }
        tile_sum(ap, b, &mut acc);
        for (rr, acc_r) in acc.iter().enumerate() {
            out[rr * ldo..rr * ldo + C].copy_from_slice(acc_r);
        }
    } else {
        let mut acc = [[O::ZERO; C]; MR];
        for (rr, acc_r) in acc.iter_mut().enumerate().take(valid) {
            acc_r[..cw].copy_from_slice(&out[rr * ldo..rr * ldo + cw]);
        }
        tile_sum(ap, b, &mut acc);
        for (rr, acc_r) in acc.iter().enumerate().take(valid) {
            out[rr * ldo..rr * ldo + cw].copy_from_slice(&acc_r[..cw]);
        }
    }
}

#[allow(clippy::inline_always)]
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn tile_sum<O: Float, const C: usize>(ap: &[[O; MR]], b: &[O], acc: &mut [[O; C]; MR]) {
    let mut sum = *acc;
    for (x, brow) in ap.iter().zip(b.chunks_exact(C)) {
        let mut w = [O::ZERO; C];
        w.copy_from_slice(brow);
        for rr in 0..MR {
            for q in 0..C {
                sum[rr][q] += x[rr] * w[q];
            }
        }
    }
    *acc = sum;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};
    use crate::rng::Rng;

    #[test]
    fn matches_the_naive_triangular_product_in_order() {
        let mut rng = Rng::seed_from_u64(5);
        for (rows, rank, n_out) in [(1, 1, 1), (7, 5, 9), (13, 300, 300), (5, 260, 270)] {
            let lda = rank + 3;
            let a: Vec<f64> = (0..rows * lda).map(|_| rng.next_f64() - 0.5).collect();
            let mut u = Panel::<f64>::zeros(rank, n_out);
            for p in 0..rank {
                for c in p..n_out {
                    u.set(p, c, rng.next_f64() - 0.5);
                }
            }
            let mut out = vec![0.25; rows * n_out];
            upper_product(&a, rows, lda, &u, &mut out, n_out);
            let mut naive = vec![0.25; rows * n_out];
            product::<f64, NR>(&a, rows, lda, &u, &mut naive, n_out); // no AVX2
            assert_eq!(out, naive, "bit-identical with and without AVX2");
            // The sparse product of the same rows adds the skipped terms, all zero.
            let dense: Vec<f64> = a
                .chunks(lda)
                .flat_map(|row| row[..rank].iter().copied())
                .collect();
            let block = SparseBlock::gather(&DenseRows::new(&dense, rows, rank).unwrap(), 0, rows);
            let rm: Vec<f64> = (0..rank * n_out)
                .map(|k| u.get(k / n_out, k % n_out))
                .collect();
            let tiled = TiledPanel::from_row_major(&rm, rank, n_out, 1.0, "B").unwrap();
            let mut full = vec![0.25; rows * n_out];
            sparse_product(&block, &tiled, &mut full, n_out);
            assert_eq!(full, out, "the skipped terms are the zeros");
            assert_sums_in_order(&a, lda, &u, &out, 0.25);
        }
    }

    /// Each output is `init` plus its terms `a[r][p] u[p][c]`, `p <= c`, in order.
    fn assert_sums_in_order<O: Float>(a: &[O], lda: usize, u: &Panel<O>, out: &[O], init: O) {
        for (r, row) in out.chunks(u.n_out).enumerate() {
            for (c, &got) in row.iter().enumerate() {
                let mut s = init;
                for p in 0..u.rank.min(c + 1) {
                    s += a[r * lda + p] * u.get(p, c);
                }
                assert_eq!(got, s, "same sum, same order ({r}, {c})");
            }
        }
    }

    #[test]
    fn f32_tiles_are_twice_as_wide_and_sum_in_order() {
        let mut rng = Rng::seed_from_u64(6);
        let (rows, rank, n_out) = (9, 70, 41);
        let a: Vec<f32> = (0..rows * rank)
            .map(|_| rng.next_f64() as f32 - 0.5)
            .collect();
        let mut u = Panel::<f32>::zeros(rank, n_out);
        assert_eq!(u.nr, 2 * NR);
        for p in 0..rank {
            for c in p..n_out {
                u.set(p, c, rng.next_f64() as f32 - 0.5);
            }
        }
        let mut out = vec![0.0_f32; rows * n_out];
        upper_product(&a, rows, rank, &u, &mut out, n_out);
        assert_sums_in_order(&a, rank, &u, &out, 0.0);
    }

    #[test]
    fn sparse_product_sums_the_stored_entries_in_order_across_tiles() {
        let mut rng = Rng::seed_from_u64(8);
        // Widths below, at and across the register chunk and the column tile.
        for (rows, d, n_out) in [(3, 4, 5), (9, 40, 16), (6, 30, 333), (4, 9000, 150)] {
            let (mut data, mut indices, mut indptr) = (vec![], vec![], vec![0_i64]);
            for _ in 0..rows {
                for j in 0..d {
                    if rng.below(3) == 0 {
                        data.push(rng.next_f64() - 0.5);
                        indices.push(i64::try_from(j).unwrap());
                    }
                }
                data.push(0.0); // a stored zero is skipped
                indices.push(i64::try_from(d - 1).unwrap());
                indptr.push(i64::try_from(data.len()).unwrap());
            }
            let x = CsrRows::new(&data, &indices, &indptr, rows, d).unwrap();
            let b: Vec<f64> = (0..d * n_out).map(|_| rng.next_f64() - 0.5).collect();
            let block = SparseBlock::gather(&x, 0, rows);
            let mut out = vec![1.5; rows * n_out];
            // Few entries per row: outputs in registers over L2 tiles; many (on the
            // wide B): streaming. Both give the same sums.
            for (k, row_nonzeros) in [1.0, 1e6].into_iter().enumerate() {
                let tiled = TiledPanel::from_row_major(&b, d, n_out, row_nonzeros, "B").unwrap();
                assert_eq!(tiled.stream, k == 1 && d == 9000);
                let mut by_entry = TiledPanel::zeros(d, n_out, row_nonzeros, "B").unwrap();
                for (e, &v) in b.iter().enumerate() {
                    by_entry.add(e / n_out, e % n_out, v);
                }
                assert_eq!(*tiled.data, *by_entry.data);
                let mut got = vec![1.5; rows * n_out];
                sparse_product(&block, &tiled, &mut got, n_out);
                let mut portable = vec![1.5; rows * n_out];
                sparse_rows(&block, &tiled, &mut portable, n_out);
                assert_eq!(got, portable, "bit-identical with and without AVX2");
                if k == 0 {
                    out = got;
                } else {
                    assert_eq!(got, out, "streaming and register tiles agree");
                }
            }
            for r in 0..rows {
                let span =
                    usize::try_from(indptr[r]).unwrap()..usize::try_from(indptr[r + 1]).unwrap();
                for c in 0..n_out {
                    let mut s = 1.5;
                    for k in span.clone() {
                        if data[k] != 0.0 {
                            s += data[k] * b[usize::try_from(indices[k]).unwrap() * n_out + c];
                        }
                    }
                    assert_eq!(out[r * n_out + c], s, "same sum, same order ({r}, {c})");
                }
            }
        }
        // Adjacent repeats of a column add up before the product.
        let x = CsrRows::new(&[1.0, 2.0, 4.0], &[1_i64, 1, 0], &[0, 3], 1, 2).unwrap();
        let block = SparseBlock::<f64>::gather(&x, 0, 1);
        assert_eq!(block.row(0), (&[1_usize, 0][..], &[3.0, 4.0][..]));
    }
}
