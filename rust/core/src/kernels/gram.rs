//! The Gram matrix of a training set, read one row (or one block of columns) at a
//! time: the one interface through which the kernel solver and the Nyström map get
//! kernel values, whether from a kernel function on data rows ([`DataGram`]) or from
//! a matrix the caller computed ([`PrecomputedGram`]).

use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::kernels::function::{InvertedBlock, KernelRows, Query, Targets};
use crate::kernels::scratch::with_scratch;

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

/// Target indices mapped per call of [`SubsetGram::eval_into`] (on the stack).
const MAP_CHUNK: usize = 256;

/// The Gram matrix of a subset of the rows of another one (a principal submatrix):
/// row `i` of the view is row `rows[i]` of the whole. One-vs-one trains each pair of
/// classes on such a view, so the kernel values are those of the whole matrix, bit
/// for bit, whichever pair asks.
pub struct SubsetGram<'a, G> {
    whole: &'a G,
    rows: &'a [u32],
}

impl<'a, G: Gram> SubsetGram<'a, G> {
    /// The view of the rows `rows` of `whole` (each below `whole.n()`).
    pub fn new(whole: &'a G, rows: &'a [u32]) -> Result<Self> {
        if let Some(&r) = rows.iter().find(|&&r| r as usize >= whole.n()) {
            return Err(Error::ShapeMismatch(format!(
                "row {r} of a subset of a Gram matrix of {} rows",
                whole.n()
            )));
        }
        Ok(Self { whole, rows })
    }

    /// Row of the whole matrix behind row `i` of the view.
    #[inline]
    fn global(&self, i: usize) -> usize {
        self.rows[i] as usize
    }
}

impl<G: Gram> Gram for SubsetGram<'_, G> {
    fn n(&self) -> usize {
        self.rows.len()
    }
    fn load(&self, q: &mut Query, i: usize) -> Result<()> {
        self.whole.load(q, self.global(i))
    }
    fn eval_into(&self, q: &Query, i: usize, targets: Targets<'_>, out: &mut [f64]) {
        let gi = self.global(i);
        match targets {
            Targets::Range(from) => {
                let list = &self.rows[from..from + out.len()];
                self.whole.eval_into(q, gi, Targets::List(list), out);
            }
            Targets::List(list) => {
                for (o, l) in out.chunks_mut(MAP_CHUNK).zip(list.chunks(MAP_CHUNK)) {
                    with_scratch::<u32, MAP_CHUNK, _>(o.len(), |m| {
                        for (g, &j) in m.iter_mut().zip(l) {
                            *g = self.rows[j as usize];
                        }
                        self.whole.eval_into(q, gi, Targets::List(m), o);
                    });
                }
            }
        }
    }
    fn query(&self) -> Query {
        self.whole.query()
    }
    fn mean_row_nonzeros(&self) -> f64 {
        self.whole.mean_row_nonzeros()
    }
    type Block = G::Block;
    fn block(&self) -> G::Block {
        self.whole.block()
    }
    fn set_block(&self, block: &mut G::Block, targets: &[u32]) {
        let mapped: Vec<u32> = targets.iter().map(|&j| self.rows[j as usize]).collect();
        self.whole.set_block(block, &mapped);
    }
    fn eval_block(&self, block: &G::Block, j: usize, out: &mut [f64]) {
        self.whole.eval_block(block, self.global(j), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;
    use crate::kernels::function::Kernel;

    /// Every way of reading the view gives the whole matrix's values, bit for bit.
    #[test]
    fn a_subset_reads_the_whole_matrix_values() {
        let (n, d) = (40, 3);
        let x: Vec<f64> = (0..n * d).map(|v| ((v * 37) % 11) as f64 / 7.0).collect();
        let rows = DenseRows::new(&x, n, d).unwrap();
        let whole = DataGram::new(
            &rows,
            KernelRows::new(Kernel::Rbf { gamma: 0.3 }, &rows).unwrap(),
        );
        let pick: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).collect();
        let sub = SubsetGram::new(&whole, &pick).unwrap();
        let m = sub.n();
        let value = |i: usize, j: usize| {
            let mut q = whole.query();
            whole.load(&mut q, i).unwrap();
            let mut out = [0.0];
            whole.eval_into(&q, i, Targets::List(&[j as u32]), &mut out);
            out[0]
        };
        let mut q = sub.query();
        let all: Vec<u32> = (0..m as u32).collect();
        let mut block = sub.block();
        sub.set_block(&mut block, &all);
        for i in 0..m {
            sub.load(&mut q, i).unwrap();
            let mut by_range = vec![0.0; m];
            sub.eval_into(&q, i, Targets::Range(0), &mut by_range);
            let mut by_list = vec![0.0; m];
            sub.eval_into(&q, i, Targets::List(&all), &mut by_list);
            let want: Vec<f64> = (0..m)
                .map(|j| value(pick[i] as usize, pick[j] as usize))
                .collect();
            assert_eq!(by_range, want);
            assert_eq!(by_list, want);
            let mut by_block = vec![0.0; m];
            sub.eval_block(&block, i, &mut by_block);
            let mut whole_block = whole.block();
            let global: Vec<u32> = all.iter().map(|&j| pick[j as usize]).collect();
            whole.set_block(&mut whole_block, &global);
            let mut want_block = vec![0.0; m];
            whole.eval_block(&whole_block, pick[i] as usize, &mut want_block);
            assert_eq!(by_block, want_block);
        }
        assert!(SubsetGram::new(&whole, &[n as u32]).is_err());
    }
}
