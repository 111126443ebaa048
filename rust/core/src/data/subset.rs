//! A view of some rows of a matrix, by their indices: the training or held-out
//! rows of a cross-validation fold, read in place (no copied matrix).
//!
//! Row `r` of the view is row `index[r]` of the underlying rows, and every method
//! answers as the underlying view does for that row: a solver run on the view of
//! rows `index` is, bit for bit, the run on a copy of those rows in that order
//! (what scikit-learn's `X[train]` gives an estimator inside `GridSearchCV`).

use crate::data::rows::Rows;
use crate::error::{Error, Result};

/// Rows `index[0], index[1], ...` of `rows`, as a [`Rows`] of `index.len()` rows.
#[derive(Clone, Copy, Debug)]
pub struct RowSubset<'a, R> {
    rows: &'a R,
    index: &'a [usize],
    stored: usize,
}

impl<'a, R: Rows> RowSubset<'a, R> {
    /// The view of rows `index` of `rows`; an error names the first index that is
    /// not a row of `rows`. Counts the stored entries once (`O(len)` for CSR).
    pub fn new(rows: &'a R, index: &'a [usize]) -> Result<Self> {
        if let Some(&bad) = index.iter().find(|&&i| i >= rows.n_rows()) {
            return Err(Error::InvalidInput(format!(
                "row index {bad} is out of range for {} rows",
                rows.n_rows()
            )));
        }
        let per_row = |i: usize| {
            let mut n = 0usize;
            rows.for_each_entry(i, |_, _| n += 1);
            n
        };
        let stored = if rows.n_rows() > 0 && rows.n_stored() == rows.n_rows() * rows.n_features() {
            index.len() * rows.n_features()
        } else if rows.is_checked() {
            index.iter().map(|&i| per_row(i)).sum()
        } else {
            // Rows read before their check: the count is an estimate, never read
            // for the arithmetic (only for the sizes of the thread blocks).
            index.len() * rows.n_stored().div_ceil(rows.n_rows().max(1))
        };
        Ok(Self {
            rows,
            index,
            stored,
        })
    }
}

impl<R: Rows> Rows for RowSubset<'_, R> {
    type Value = R::Value;

    #[inline]
    fn n_rows(&self) -> usize {
        self.index.len()
    }
    #[inline]
    fn n_features(&self) -> usize {
        self.rows.n_features()
    }
    fn n_stored(&self) -> usize {
        self.stored
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        self.rows.dot(self.index[i], w)
    }
    #[inline]
    fn dot_many(&self, i: usize, w_t: &[f64], lanes: &mut [f64], out: &mut [f64]) {
        self.rows.dot_many(self.index[i], w_t, lanes, out);
    }
    fn dot_block(&self, i: usize, w_t: &[f64]) -> [f64; crate::data::rows::DOT_BLOCK] {
        self.rows.dot_block(self.index[i], w_t)
    }
    fn dense_row(&self, i: usize) -> Option<&[Self::Value]> {
        self.rows.dense_row(self.index[i])
    }
    #[inline]
    fn axpy(&self, i: usize, alpha: f64, w: &mut [f64]) {
        self.rows.axpy(self.index[i], alpha, w);
    }
    #[inline]
    fn axpy_sq_delta(&self, i: usize, alpha: f64, w: &mut [f64]) -> f64 {
        self.rows.axpy_sq_delta(self.index[i], alpha, w)
    }
    #[inline]
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, f: F) {
        self.rows.for_each_entry(self.index[i], f);
    }
    fn is_checked(&self) -> bool {
        self.rows.is_checked()
    }
    fn check_row(&self, i: usize) -> Result<()> {
        self.rows.check_row(self.index[i])
    }
    #[inline]
    fn prefetch_locate(&self, i: usize) {
        self.rows.prefetch_locate(self.index[i]);
    }
    #[inline]
    fn prefetch_row(&self, i: usize) {
        self.rows.prefetch_row(self.index[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    #[test]
    fn a_subset_reads_its_rows_as_a_copy_would() {
        let x = [1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 5.0, 6.0];
        let dense = DenseRows::new(&x, 3, 3).unwrap();
        let index = [2, 0];
        let view = RowSubset::new(&dense, &index).unwrap();
        let copy = [4.0, 5.0, 6.0, 1.0, 0.0, 2.0];
        let copied = DenseRows::new(&copy, 2, 3).unwrap();
        let w = [0.5, -1.0, 0.25];
        for r in 0..2 {
            assert_eq!(view.dot(r, &w).to_bits(), copied.dot(r, &w).to_bits());
        }
        assert_eq!(
            (view.n_rows(), view.n_features(), view.n_stored()),
            (2, 3, 6)
        );
        let (data, indices, indptr) = (
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            [0u32, 2, 1, 0, 1, 2],
            [0u32, 2, 3, 6],
        );
        let csr = CsrRows::new(&data, &indices, &indptr, 3, 3).unwrap();
        let view = RowSubset::new(&csr, &index).unwrap();
        assert_eq!(view.n_stored(), 5);
        let mut a = [0.0; 3];
        view.axpy(1, 2.0, &mut a);
        assert_eq!(a, [2.0, 0.0, 4.0]);
        let e = RowSubset::new(&csr, &[0, 3]).unwrap_err().to_string();
        assert!(e.contains("row index 3 is out of range for 3 rows"), "{e}");
    }
}
