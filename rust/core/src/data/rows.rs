//! Row access to training data: one trait, two borrowed views (dense and CSR).
//!
//! Solvers are written once against [`Rows`]: they only need the inner product of a
//! row with a weight vector and `w += alpha * x_i` (optionally reporting how much
//! `||w||^2` changed). The views borrow
//! the caller's buffers (numpy arrays, scipy CSR components) without copying; their
//! constructors validate the structure once, in `O(nnz)`, so the hot loops can trust
//! it. Dot products accumulate in [`LANES`] independent partial sums (by position
//! among the stored entries), which breaks the serial chain of additions; a dense
//! row and its CSR form therefore agree to rounding, not bit for bit.

use crate::data::checks::{first_non_finite, first_out_of_range};
use crate::error::{Error, Result};
use crate::float::{Float, Index};
use crate::prefetch::prefetch;

/// Access to the rows of a data matrix with `f64` weight vectors.
pub trait Rows: Sync {
    /// The stored element type (`f32` or `f64`).
    type Value: Float;
    /// Number of rows (examples).
    fn n_rows(&self) -> usize;
    /// Number of columns (features).
    fn n_features(&self) -> usize;
    /// Number of stored values (dense: every entry, zeros included).
    fn n_stored(&self) -> usize;
    /// `<x_i, w>`, with `w.len() >= n_features()`.
    fn dot(&self, i: usize, w: &[f64]) -> f64;
    /// `<x_i, w_c>` for `k = out.len()` vectors stored feature-major (`w_t[j * k +
    /// c]` is `w_c[j]`), into `out[c]`: each bit for bit [`Rows::dot`] with `w_c`
    /// (the same lanes in the same order), with one read of the row for all.
    /// `lanes` is scratch of `k * LANES` values.
    fn dot_many(&self, i: usize, w_t: &[f64], lanes: &mut [f64], out: &mut [f64]);
    /// [`Rows::dot_many`] for exactly `DOT_BLOCK` (4) vectors (`w_t[j * DOT_BLOCK + c]`),
    /// the same bits; the storage types keep its accumulators in registers.
    fn dot_block(&self, i: usize, w_t: &[f64]) -> [f64; DOT_BLOCK] {
        let mut lanes = [0.0; DOT_BLOCK * LANES];
        let mut out = [0.0; DOT_BLOCK];
        self.dot_many(i, w_t, &mut lanes, &mut out);
        out
    }
    /// `w += alpha * x_i`.
    fn axpy(&self, i: usize, alpha: f64, w: &mut [f64]);
    /// `w += alpha * x_i`, returning `||w_new||^2 - ||w_old||^2`, accumulated entry by
    /// entry as `(new - old)(new + old)` (exact bookkeeping even for repeated indices).
    fn axpy_sq_delta(&self, i: usize, alpha: f64, w: &mut [f64]) -> f64;
    /// Call `f(j, x_ij)` for every stored entry of row `i`, in storage order (CSR rows
    /// may repeat a column; their values then add up).
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, f: F);
    /// Row `i` as a slice of all `n_features()` values, when the rows are stored
    /// densely ([`Rows::for_each_entry`] then yields them all in order).
    fn dense_row(&self, _i: usize) -> Option<&[Self::Value]> {
        None
    }
    /// Whether the whole input was validated on construction. When not (a view
    /// made to be checked as it is read, e.g. [`CsrRows::checked_when_read`]), a
    /// reader must call [`Rows::check_row`] on a row before any other method.
    fn is_checked(&self) -> bool {
        true
    }
    /// Validate row `i` (its bounds, column indices and values), as the whole-input
    /// check would; `Ok` always for a view that was checked on construction.
    fn check_row(&self, _i: usize) -> Result<()> {
        Ok(())
    }
    /// Hint that the location of row `i` will be needed soon (CSR: its `indptr`).
    fn prefetch_locate(&self, _i: usize) {}
    /// Hint that the values of row `i` will be needed soon.
    fn prefetch_row(&self, _i: usize) {}
}

/// Cache lines hinted per row and array (512 bytes; the hardware streams the rest
/// of a longer row). Measured: 2 lines 14 ns/nnz, 8 lines 8.3 ns/nnz on a
/// 200k x 20k text-like problem with uniform sampling.
const PREFETCH_LINES: usize = 8;

/// A borrowed C-ordered dense matrix.
#[derive(Clone, Copy, Debug)]
pub struct DenseRows<'a, T> {
    data: &'a [T],
    n_rows: usize,
    n_features: usize,
    checked: bool,
}

impl<'a, T: Float> DenseRows<'a, T> {
    /// View `data` as `n_rows x n_features`, row-major. Checks the length and that
    /// every value is finite.
    pub fn new(data: &'a [T], n_rows: usize, n_features: usize) -> Result<Self> {
        let rows = Self::checked_when_read(data, n_rows, n_features)?;
        check_finite(data, |k| (k / n_features.max(1), k % n_features.max(1)))?;
        Ok(Self {
            checked: true,
            ..rows
        })
    }

    /// View `data` as `n_rows x n_features` checking only its length (`O(1)`): each
    /// row's values are checked when a reader calls [`Rows::check_row`] on it.
    pub fn checked_when_read(data: &'a [T], n_rows: usize, n_features: usize) -> Result<Self> {
        let expected = n_rows.checked_mul(n_features).ok_or_else(|| {
            Error::ShapeMismatch(format!("shape ({n_rows}, {n_features}) is too large"))
        })?;
        if data.len() != expected {
            return Err(Error::ShapeMismatch(format!(
                "dense data has {} values, expected {n_rows} x {n_features} = {expected}",
                data.len()
            )));
        }
        Ok(Self {
            data,
            n_rows,
            n_features,
            checked: false,
        })
    }

    #[inline]
    fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.n_features..(i + 1) * self.n_features]
    }

    /// The first `n_head` rows and the rest, as two views of the same storage
    /// (checked as this view is): the training and held-out rows of a fit that
    /// holds its last rows out (early stopping).
    pub fn split_rows(&self, n_head: usize) -> Result<(Self, Self)> {
        check_split(n_head, self.n_rows)?;
        let (head, tail) = self.data.split_at(n_head * self.n_features);
        let view = |data, n_rows| Self {
            data,
            n_rows,
            ..*self
        };
        Ok((view(head, n_head), view(tail, self.n_rows - n_head)))
    }
}

/// An error unless `n_head <= n_rows` (see [`DenseRows::split_rows`]).
fn check_split(n_head: usize, n_rows: usize) -> Result<()> {
    if n_head > n_rows {
        return Err(Error::InvalidInput(format!(
            "cannot split {n_head} rows off a matrix of {n_rows} rows"
        )));
    }
    Ok(())
}

impl<T: Float> Rows for DenseRows<'_, T> {
    type Value = T;
    fn n_rows(&self) -> usize {
        self.n_rows
    }
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn n_stored(&self) -> usize {
        self.n_rows * self.n_features
    }
    fn is_checked(&self) -> bool {
        self.checked
    }
    #[inline]
    fn check_row(&self, i: usize) -> Result<()> {
        if self.checked {
            return Ok(());
        }
        if i >= self.n_rows {
            return Err(Error::InvalidInput(format!(
                "row {i} of a matrix of {} rows",
                self.n_rows
            )));
        }
        let row = self.row(i);
        if T::all_finite(row) {
            return Ok(());
        }
        check_finite(row, |k| (i, k))
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        let mut lanes = Lanes::default();
        let row = self.row(i);
        let mut chunks = row.chunks_exact(LANES);
        let mut wchunks = w[..row.len()].chunks_exact(LANES);
        for (xs, ws) in (&mut chunks).zip(&mut wchunks) {
            for l in 0..LANES {
                lanes.0[l] += xs[l].to_f64() * ws[l];
            }
        }
        for (l, (x, wj)) in chunks
            .remainder()
            .iter()
            .zip(wchunks.remainder())
            .enumerate()
        {
            lanes.0[l] += x.to_f64() * wj;
        }
        lanes.sum()
    }
    #[inline]
    fn dot_many(&self, i: usize, w_t: &[f64], lanes: &mut [f64], out: &mut [f64]) {
        let k = out.len();
        lanes.fill(0.0);
        for (j, x) in self.row(i).iter().enumerate() {
            // Feature j goes to lane j % LANES, as `dot`'s chunks put it.
            add_to_lanes(lanes, j % LANES, x.to_f64(), &w_t[j * k..(j + 1) * k]);
        }
        sum_lanes(lanes, out);
    }
    #[inline]
    fn dot_block(&self, i: usize, w_t: &[f64]) -> [f64; DOT_BLOCK] {
        let mut acc: BlockLanes = Default::default();
        let row = self.row(i);
        let w_t = &w_t[..row.len() * DOT_BLOCK];
        let mut chunks = row.chunks_exact(LANES);
        let mut wchunks = w_t.chunks_exact(LANES * DOT_BLOCK);
        for (xs, ws) in (&mut chunks).zip(&mut wchunks) {
            for l in 0..LANES {
                add_block(
                    &mut acc,
                    l,
                    xs[l].to_f64(),
                    &ws[l * DOT_BLOCK..(l + 1) * DOT_BLOCK],
                );
            }
        }
        let rest = wchunks.remainder();
        for (l, x) in chunks.remainder().iter().enumerate() {
            add_block(
                &mut acc,
                l,
                x.to_f64(),
                &rest[l * DOT_BLOCK..(l + 1) * DOT_BLOCK],
            );
        }
        sum_block(&acc)
    }
    #[inline]
    fn axpy(&self, i: usize, alpha: f64, w: &mut [f64]) {
        for (wj, x) in w.iter_mut().zip(self.row(i)) {
            *wj += alpha * x.to_f64();
        }
    }
    #[inline]
    fn axpy_sq_delta(&self, i: usize, alpha: f64, w: &mut [f64]) -> f64 {
        let mut lanes = Lanes::default();
        for (k, (wj, x)) in w.iter_mut().zip(self.row(i)).enumerate() {
            lanes.0[k % LANES] += update(wj, alpha * x.to_f64());
        }
        lanes.sum()
    }
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
        for (j, x) in self.row(i).iter().enumerate() {
            f(j, x.to_f64());
        }
    }
    #[inline]
    fn dense_row(&self, i: usize) -> Option<&[T]> {
        Some(self.row(i))
    }
    fn prefetch_row(&self, i: usize) {
        let row = self.row(i);
        let step = 64 / std::mem::size_of::<T>();
        for k in (0..row.len()).step_by(step).take(PREFETCH_LINES) {
            prefetch(&row[k]);
        }
    }
}

/// A borrowed CSR matrix (scipy's `data`, `indices`, `indptr`).
#[derive(Clone, Copy, Debug)]
pub struct CsrRows<'a, T, I> {
    data: &'a [T],
    indices: &'a [I],
    indptr: &'a [I],
    n_rows: usize,
    n_features: usize,
    checked: bool,
}

impl<'a, T: Float, I: Index> CsrRows<'a, T, I> {
    /// View CSR components as an `n_rows x n_features` matrix.
    ///
    /// Validates, in `O(nnz)`: `indptr` has `n_rows + 1` entries, starts at 0, never
    /// decreases and ends at `data.len() == indices.len()`; every column index is in
    /// `[0, n_features)`; every value is finite. Duplicate or unsorted column indices
    /// are allowed and mean what scipy means by them (duplicates add up).
    pub fn new(
        data: &'a [T],
        indices: &'a [I],
        indptr: &'a [I],
        n_rows: usize,
        n_features: usize,
    ) -> Result<Self> {
        let rows = Self::checked_when_read(data, indices, indptr, n_rows, n_features)?;
        let mut prev = 0usize;
        for (k, p) in indptr.iter().enumerate() {
            let Some(p) = p.checked_usize() else {
                return malformed(format!("indptr[{k}] is negative"));
            };
            if p < prev {
                return malformed(format!("indptr is not non-decreasing at position {k}"));
            }
            prev = p;
        }
        if let Some(k) = first_out_of_range(indices, n_features) {
            return malformed(format!(
                "column index {:?} at position {k} is out of range [0, {n_features})",
                indices[k]
            ));
        }
        check_finite(data, |k| {
            let row = indptr
                .partition_point(|p| p.to_usize() <= k)
                .saturating_sub(1);
            (row, indices[k].to_usize())
        })?;
        Ok(Self {
            checked: true,
            ..rows
        })
    }

    /// View CSR components as an `n_rows x n_features` matrix checking, in `O(1)`,
    /// only the lengths of the arrays and the first and last entries of `indptr`:
    /// each row is checked as [`CsrRows::new`] would check it (bounds, column
    /// indices, values) when a reader calls [`Rows::check_row`] on it. Rows never
    /// read are never looked at.
    pub fn checked_when_read(
        data: &'a [T],
        indices: &'a [I],
        indptr: &'a [I],
        n_rows: usize,
        n_features: usize,
    ) -> Result<Self> {
        if indptr.len() != n_rows + 1 {
            return malformed(format!(
                "indptr has {} entries, expected n_rows + 1 = {}",
                indptr.len(),
                n_rows + 1
            ));
        }
        if data.len() != indices.len() {
            return malformed(format!(
                "data has {} entries but indices has {}",
                data.len(),
                indices.len()
            ));
        }
        if let Some(p) = indptr.first().filter(|p| p.checked_usize() != Some(0)) {
            return malformed(format!("indptr[0] is {p:?}, expected 0"));
        }
        let last = indptr[n_rows].checked_usize();
        if last != Some(data.len()) {
            return malformed(format!(
                "indptr[-1] is {:?} but there are {} stored values",
                indptr[n_rows],
                data.len()
            ));
        }
        Ok(Self {
            data,
            indices,
            indptr,
            n_rows,
            n_features,
            checked: false,
        })
    }

    /// The first `n_head` rows and the rest, as two views of the same storage
    /// (checked as this view is; the rest's `indptr` keeps its offsets into the
    /// whole `data`): see [`DenseRows::split_rows`].
    pub fn split_rows(&self, n_head: usize) -> Result<(Self, Self)> {
        check_split(n_head, self.n_rows)?;
        let head = Self {
            indptr: &self.indptr[..=n_head],
            n_rows: n_head,
            ..*self
        };
        let tail = Self {
            indptr: &self.indptr[n_head..],
            n_rows: self.n_rows - n_head,
            ..*self
        };
        Ok((head, tail))
    }

    #[inline]
    fn span(&self, i: usize) -> (&'a [T], &'a [I]) {
        let lo = self.indptr[i].to_usize();
        let hi = self.indptr[i + 1].to_usize();
        (&self.data[lo..hi], &self.indices[lo..hi])
    }
}

impl<T: Float, I: Index> Rows for CsrRows<'_, T, I> {
    type Value = T;
    fn n_rows(&self) -> usize {
        self.n_rows
    }
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn n_stored(&self) -> usize {
        // The rows of a split view start where the rows before them end (whose
        // offsets, in a view checked as it is read, are not checked yet).
        let at = |p: Option<&I>| p.and_then(|p| p.checked_usize()).unwrap_or(0);
        let last = at(self.indptr.last()).min(self.data.len());
        last.saturating_sub(at(self.indptr.first()))
    }
    fn is_checked(&self) -> bool {
        self.checked
    }
    #[inline]
    fn check_row(&self, i: usize) -> Result<()> {
        if self.checked {
            return Ok(());
        }
        if i >= self.n_rows {
            return malformed(format!("row {i} of a matrix of {} rows", self.n_rows));
        }
        let (lo, hi) = (
            self.indptr[i].checked_usize(),
            self.indptr[i + 1].checked_usize(),
        );
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return malformed(format!("indptr[{i}] or indptr[{}] is negative", i + 1));
        };
        if lo > hi || hi > self.data.len() {
            return malformed(format!(
                "row {i} spans [{lo}, {hi}) of {} stored values",
                self.data.len()
            ));
        }
        let (values, indices) = (&self.data[lo..hi], &self.indices[lo..hi]);
        // The branch-free tests first (a row is short: no block dispatch); the
        // position only when one fails.
        let max = I::max_unsigned(indices);
        if max > I::MAX_INDEX || max >= self.n_features as u64 {
            if let Some(k) = first_out_of_range(indices, self.n_features) {
                return malformed(format!(
                    "column index {:?} at position {} is out of range [0, {})",
                    indices[k],
                    lo + k,
                    self.n_features
                ));
            }
        }
        if T::all_finite(values) {
            return Ok(());
        }
        check_finite(values, |k| (i, indices[k].to_usize()))
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        let (vals, idx) = self.span(i);
        let mut lanes = Lanes::default();
        let mut vc = vals.chunks_exact(LANES);
        let mut ic = idx.chunks_exact(LANES);
        for (xs, js) in (&mut vc).zip(&mut ic) {
            for l in 0..LANES {
                lanes.0[l] += xs[l].to_f64() * w[js[l].to_usize()];
            }
        }
        for (l, (x, j)) in vc.remainder().iter().zip(ic.remainder()).enumerate() {
            lanes.0[l] += x.to_f64() * w[j.to_usize()];
        }
        lanes.sum()
    }
    #[inline]
    fn dot_many(&self, i: usize, w_t: &[f64], lanes: &mut [f64], out: &mut [f64]) {
        let k = out.len();
        let (vals, idx) = self.span(i);
        lanes.fill(0.0);
        // Entry e goes to lane e % LANES, as `dot`'s chunks put it.
        for (e, (x, j)) in vals.iter().zip(idx).enumerate() {
            let j = j.to_usize();
            add_to_lanes(lanes, e % LANES, x.to_f64(), &w_t[j * k..(j + 1) * k]);
        }
        sum_lanes(lanes, out);
    }
    #[inline]
    fn dot_block(&self, i: usize, w_t: &[f64]) -> [f64; DOT_BLOCK] {
        let (vals, idx) = self.span(i);
        let mut acc: BlockLanes = Default::default();
        let mut vc = vals.chunks_exact(LANES);
        let mut ic = idx.chunks_exact(LANES);
        let at = |j: usize| &w_t[j * DOT_BLOCK..(j + 1) * DOT_BLOCK];
        for (xs, js) in (&mut vc).zip(&mut ic) {
            for l in 0..LANES {
                add_block(&mut acc, l, xs[l].to_f64(), at(js[l].to_usize()));
            }
        }
        for (l, (x, j)) in vc.remainder().iter().zip(ic.remainder()).enumerate() {
            add_block(&mut acc, l, x.to_f64(), at(j.to_usize()));
        }
        sum_block(&acc)
    }
    #[inline]
    fn axpy(&self, i: usize, alpha: f64, w: &mut [f64]) {
        let (vals, idx) = self.span(i);
        for (x, j) in vals.iter().zip(idx) {
            w[j.to_usize()] += alpha * x.to_f64();
        }
    }
    #[inline]
    fn axpy_sq_delta(&self, i: usize, alpha: f64, w: &mut [f64]) -> f64 {
        let (vals, idx) = self.span(i);
        let mut lanes = Lanes::default();
        for (k, (x, j)) in vals.iter().zip(idx).enumerate() {
            lanes.0[k % LANES] += update(&mut w[j.to_usize()], alpha * x.to_f64());
        }
        lanes.sum()
    }
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, mut f: F) {
        let (vals, idx) = self.span(i);
        for (x, j) in vals.iter().zip(idx) {
            f(j.to_usize(), x.to_f64());
        }
    }
    fn prefetch_locate(&self, i: usize) {
        prefetch(&self.indptr[i]);
    }
    fn prefetch_row(&self, i: usize) {
        let (vals, idx) = self.span(i);
        let vstep = 64 / std::mem::size_of::<T>();
        for k in (0..vals.len()).step_by(vstep).take(PREFETCH_LINES) {
            prefetch(&vals[k]);
        }
        let istep = 64 / std::mem::size_of::<I>();
        for k in (0..idx.len()).step_by(istep).take(PREFETCH_LINES) {
            prefetch(&idx[k]);
        }
    }
}

/// Partial sums of a dot product: the `k`-th stored entry goes to lane `k % LANES`.
/// Four independent chains of additions instead of one serial chain (measured on
/// IMDB TF-IDF rows visited in order: 1.6 ns per non-zero with one chain).
pub const LANES: usize = 4;

/// Vectors of [`Rows::dot_block`].
pub const DOT_BLOCK: usize = 4;

/// [`Rows::dot_block`]'s accumulators: lane `l` of output `c` at `[l][c]`.
type BlockLanes = [[f64; DOT_BLOCK]; LANES];

/// `acc[lane][c] += x * w[c]`.
#[inline]
fn add_block(acc: &mut BlockLanes, lane: usize, x: f64, w: &[f64]) {
    let w: &[f64; DOT_BLOCK] = w.try_into().expect("a block of DOT_BLOCK weights");
    for c in 0..DOT_BLOCK {
        acc[lane][c] += x * w[c];
    }
}

/// Each output's lanes summed in [`Lanes::sum`]'s order.
#[inline]
fn sum_block(acc: &BlockLanes) -> [f64; DOT_BLOCK] {
    std::array::from_fn(|c| Lanes([acc[0][c], acc[1][c], acc[2][c], acc[3][c]]).sum())
}

#[derive(Default)]
struct Lanes([f64; LANES]);

impl Lanes {
    #[inline]
    fn sum(&self) -> f64 {
        (self.0[0] + self.0[1]) + (self.0[2] + self.0[3])
    }
}

/// `lanes[lane * k + c] += x * w[c]` for every output `c` of `k = w.len()` (the
/// product, then the sum: [`Rows::dot`]'s two roundings; the outputs of a lane
/// side by side, so the loop runs over contiguous values).
#[inline]
fn add_to_lanes(lanes: &mut [f64], lane: usize, x: f64, w: &[f64]) {
    let k = w.len();
    for (acc, wc) in lanes[lane * k..(lane + 1) * k].iter_mut().zip(w) {
        *acc += x * wc;
    }
}

/// `out[c]` = the sum of output `c`'s lanes, in [`Lanes::sum`]'s order.
#[inline]
fn sum_lanes(lanes: &[f64], out: &mut [f64]) {
    let k = out.len();
    for (c, o) in out.iter_mut().enumerate() {
        *o = Lanes([lanes[c], lanes[k + c], lanes[2 * k + c], lanes[3 * k + c]]).sum();
    }
}

/// `*w += step`, returning the change of `w^2`.
#[inline]
fn update(w: &mut f64, step: f64) -> f64 {
    let old = *w;
    let new = old + step;
    *w = new;
    step * (new + old)
}

/// [`Error::InvalidInput`] naming a malformed CSR matrix.
fn malformed<T>(msg: impl std::fmt::Display) -> Result<T> {
    Err(Error::InvalidInput(format!("malformed CSR matrix: {msg}")))
}

/// [`Error::InvalidInput`] for the first value of `data` that is NaN or infinite,
/// naming the row and column `at(k)` gives for its position `k`.
fn check_finite<T: Float>(data: &[T], at: impl Fn(usize) -> (usize, usize)) -> Result<()> {
    match first_non_finite(data) {
        None => Ok(()),
        Some(k) => {
            let (row, column) = at(k);
            Err(Error::InvalidInput(format!(
                "input contains NaN or infinity (value {:?} at row {row}, column {column})",
                data[k]
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_named_by_row_and_column() {
        let dense = [1.0f64, 0.0, 2.0, 0.0, f64::NAN, 0.5];
        let e = DenseRows::new(&dense, 2, 3).unwrap_err().to_string();
        assert!(e.contains("NaN at row 1, column 1"), "{e}");
        let data = [1.0f64, 2.0, -3.0, f64::INFINITY];
        let (indices, indptr) = ([0i32, 2, 1, 2], [0i32, 2, 2, 4]);
        let e = CsrRows::new(&data, &indices, &indptr, 3, 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("inf at row 2, column 2"), "{e}");
    }

    #[test]
    fn dense_and_csr_agree() {
        let dense = [1.0f64, 0.0, 2.0, 0.0, -3.0, 0.5];
        let d = DenseRows::new(&dense, 2, 3).unwrap();
        let data = [1.0f64, 2.0, -3.0, 0.5];
        let indices = [0i32, 2, 1, 2];
        let indptr = [0i32, 2, 4];
        let s = CsrRows::new(&data, &indices, &indptr, 2, 3).unwrap();
        let w = [0.3, -1.0, 2.0];
        for i in 0..2 {
            assert!((d.dot(i, &w) - s.dot(i, &w)).abs() < 1e-12);
            let mut a = w;
            let mut b = w;
            d.axpy(i, 0.7, &mut a);
            s.axpy(i, 0.7, &mut b);
            assert_eq!(a, b);
            let exact = w
                .iter()
                .zip(&dense[i * 3..i * 3 + 3])
                .map(|(p, q)| p * q)
                .sum::<f64>();
            assert!((s.dot(i, &w) - exact).abs() < 1e-12);
            let mut c = w;
            let delta = s.axpy_sq_delta(i, 0.7, &mut c);
            assert_eq!(c, b);
            let sq = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
            assert!((delta - (sq(&c) - sq(&w))).abs() < 1e-12);
        }
    }

    #[test]
    fn csr_duplicates_add_up() {
        let data = [1.0f32, 2.0];
        let s = CsrRows::new(&data, &[1i64, 1], &[0i64, 2], 1, 2).unwrap();
        assert_eq!(s.dot(0, &[0.0, 1.0]), 3.0);
        let mut w = [0.0, 1.0];
        // (1 + 3)^2 - 1^2, although the two entries are applied one by one.
        assert_eq!(s.axpy_sq_delta(0, 1.0, &mut w), 15.0);
    }

    #[test]
    fn csr_validation_rejects_malformed() {
        let d = [1.0f64];
        assert!(CsrRows::new(&d, &[5i32], &[0, 1], 1, 3).is_err());
        assert!(CsrRows::new(&d, &[-1i32], &[0, 1], 1, 3).is_err());
        assert!(CsrRows::new(&d, &[0i32], &[0, 2], 1, 3).is_err());
        assert!(CsrRows::new(&d, &[0i32], &[1, 0, 1], 2, 3).is_err());
        assert!(CsrRows::new(&d, &[0i32], &[0], 1, 3).is_err());
        assert!(CsrRows::new(&[f64::NAN], &[0i32], &[0, 1], 1, 3).is_err());
        assert!(DenseRows::new(&[1.0f64, 2.0], 1, 3).is_err());
        assert!(DenseRows::new(&[f32::INFINITY], 1, 1).is_err());
    }
}
