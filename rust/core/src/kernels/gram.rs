//! The Gram matrix of a training set, read one row (or one block of columns) at a
//! time: the one interface through which the kernel solver and the Nyström map get
//! kernel values, whether from a kernel function on data rows ([`DataGram`]) or from
//! a matrix the caller computed ([`PrecomputedGram`]).

use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::kernels::function::{InvertedBlock, KernelRows, Query, Targets};

/// The Gram matrix of the training set, read one row at a time.
pub trait Gram: Sync {
    /// Number of training examples.
    fn n(&self) -> usize;
    /// Prepare `q` for [`Gram::eval_into`] with row `i`.
    fn load(&self, q: &mut Query, i: usize) -> Result<()>;
    /// `out[t] = K(x_i, x_j)` for the `t`-th `j` of `targets`, with `x_i` loaded in `q`.
    fn eval_into(&self, q: &Query, i: usize, targets: Targets<'_>, out: &mut [f64]);
    /// A query buffer.
    fn query(&self) -> Query;
    /// Mean non-zeros per row (the cost of one kernel value, roughly).
    fn mean_row_nonzeros(&self) -> f64;
    /// Scratch space of [`Gram::set_block`].
    type Block: Sync + Send;
    /// An empty block.
    fn block(&self) -> Self::Block;
    /// Make `block` stand for the training rows `targets`.
    fn set_block(&self, block: &mut Self::Block, targets: &[u32]);
    /// `out[c] = K(x_j, x_{targets[c]})` for the rows of `block`.
    fn eval_block(&self, block: &Self::Block, j: usize, out: &mut [f64]);
}

/// Gram matrix of a kernel function on data rows.
pub struct DataGram<'a, R> {
    rows: &'a R,
    prep: KernelRows<'a, R>,
}

impl<'a, R: Rows> DataGram<'a, R> {
    /// Kernel `prep` evaluated between the rows of the matrix it was prepared on.
    pub fn new(rows: &'a R, prep: KernelRows<'a, R>) -> Self {
        Self { rows, prep }
    }
}

impl<R: Rows> Gram for DataGram<'_, R> {
    fn n(&self) -> usize {
        self.rows.n_rows()
    }
    fn load(&self, q: &mut Query, i: usize) -> Result<()> {
        self.prep.load(q, self.rows, i)
    }
    fn eval_into(&self, q: &Query, _i: usize, targets: Targets<'_>, out: &mut [f64]) {
        self.prep.eval_into(q, targets, out);
    }
    fn query(&self) -> Query {
        self.prep.query()
    }
    fn mean_row_nonzeros(&self) -> f64 {
        self.prep.mean_row_nonzeros()
    }
    type Block = InvertedBlock;
    fn block(&self) -> InvertedBlock {
        self.prep.block()
    }
    fn set_block(&self, block: &mut InvertedBlock, targets: &[u32]) {
        self.prep.set_block(block, targets);
    }
    fn eval_block(&self, block: &InvertedBlock, j: usize, out: &mut [f64]) {
        self.prep.eval_block(block, j, out);
    }
}

/// A precomputed Gram matrix (`n x n`, row-major, assumed symmetric).
pub struct PrecomputedGram<'a> {
    values: &'a [f64],
    n: usize,
}

impl<'a> PrecomputedGram<'a> {
    /// View `values` as an `n x n` Gram matrix; checks the shape and finiteness.
    pub fn new(values: &'a [f64], n_rows: usize, n_cols: usize) -> Result<Self> {
        if n_rows != n_cols || n_rows.checked_mul(n_cols) != Some(values.len()) {
            return Err(Error::ShapeMismatch(format!(
                "a precomputed kernel for training must be a square matrix, got shape \
                 ({n_rows}, {n_cols})"
            )));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidInput(
                "the precomputed kernel contains NaN or infinity".into(),
            ));
        }
        Ok(Self { values, n: n_rows })
    }
}

impl Gram for PrecomputedGram<'_> {
    fn n(&self) -> usize {
        self.n
    }
    fn load(&self, _q: &mut Query, _i: usize) -> Result<()> {
        Ok(())
    }
    fn eval_into(&self, _q: &Query, i: usize, targets: Targets<'_>, out: &mut [f64]) {
        let row = &self.values[i * self.n..(i + 1) * self.n];
        match targets {
            Targets::Range(from) => out.copy_from_slice(&row[from..from + out.len()]),
            Targets::List(list) => {
                for (o, &j) in out.iter_mut().zip(list) {
                    *o = row[j as usize];
                }
            }
        }
    }
    fn query(&self) -> Query {
        Query::empty()
    }
    fn mean_row_nonzeros(&self) -> f64 {
        self.n as f64
    }
    type Block = Vec<u32>;
    fn block(&self) -> Vec<u32> {
        Vec::new()
    }
    fn set_block(&self, block: &mut Vec<u32>, targets: &[u32]) {
        block.clear();
        block.extend_from_slice(targets);
    }
    fn eval_block(&self, block: &Vec<u32>, j: usize, out: &mut [f64]) {
        let row = &self.values[j * self.n..(j + 1) * self.n];
        for (o, &p) in out.iter_mut().zip(block) {
            *o = row[p as usize];
        }
    }
}
