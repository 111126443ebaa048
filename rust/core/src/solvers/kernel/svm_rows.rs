//! A view of some rows of a matrix (the support vectors among the training rows),
//! read through the rows' own methods: kernel values against it are those against
//! the rows themselves, bit for bit.

use crate::data::rows::Rows;
use crate::error::{Error, Result};

/// The rows `picked` of `whole`, in that order.
pub(super) struct SubsetRows<'a, R> {
    whole: &'a R,
    picked: &'a [usize],
    stored: usize,
}

impl<'a, R: Rows> SubsetRows<'a, R> {
    /// The rows `picked` of `whole` (each checked when `whole` was not checked as
    /// a whole); an index out of range is an error.
    pub(super) fn new(whole: &'a R, picked: &'a [usize]) -> Result<Self> {
        let mut stored = 0;
        for &i in picked {
            if i >= whole.n_rows() {
                return Err(Error::ShapeMismatch(format!(
                    "support vector {i} is not one of the {} rows",
                    whole.n_rows()
                )));
            }
            whole.check_row(i)?;
            whole.for_each_entry(i, |_, _| stored += 1);
        }
        Ok(Self {
            whole,
            picked,
            stored,
        })
    }
}

impl<R: Rows> Rows for SubsetRows<'_, R> {
    type Value = R::Value;
    fn n_rows(&self) -> usize {
        self.picked.len()
    }
    fn n_features(&self) -> usize {
        self.whole.n_features()
    }
    fn n_stored(&self) -> usize {
        self.stored
    }
    fn dot(&self, i: usize, w: &[f64]) -> f64 {
        self.whole.dot(self.picked[i], w)
    }
    fn dot_many(&self, i: usize, w_t: &[f64], lanes: &mut [f64], out: &mut [f64]) {
        self.whole.dot_many(self.picked[i], w_t, lanes, out);
    }
    fn dot_block(&self, i: usize, w_t: &[f64]) -> [f64; crate::data::rows::DOT_BLOCK] {
        self.whole.dot_block(self.picked[i], w_t)
    }
    fn dense_row(&self, i: usize) -> Option<&[Self::Value]> {
        self.whole.dense_row(self.picked[i])
    }
    fn axpy(&self, i: usize, alpha: f64, w: &mut [f64]) {
        self.whole.axpy(self.picked[i], alpha, w);
    }
    fn axpy_sq_delta(&self, i: usize, alpha: f64, w: &mut [f64]) -> f64 {
        self.whole.axpy_sq_delta(self.picked[i], alpha, w)
    }
    fn for_each_entry<F: FnMut(usize, f64)>(&self, i: usize, f: F) {
        self.whole.for_each_entry(self.picked[i], f);
    }
    fn prefetch_locate(&self, i: usize) {
        self.whole.prefetch_locate(self.picked[i]);
    }
    fn prefetch_row(&self, i: usize) {
        self.whole.prefetch_row(self.picked[i]);
    }
}
