//! Kernel functions for kernel Pegasos (the paper's "Incorporating kernels").
//!
//! Definitions follow scikit-learn's pairwise kernels, so that `gamma`, `degree` and
//! `coef0` mean the same thing as for `SVC`:
//!
//! | kernel | `K(x, y)` |
//! |---|---|
//! | linear | `<x, y>` |
//! | rbf | `exp(-gamma ||x - y||^2)` |
//! | poly | `(gamma <x, y> + coef0)^degree` |
//! | sigmoid | `tanh(gamma <x, y> + coef0)` |
//! | chi2 | `exp(-gamma sum_k (x_k - y_k)^2 / (x_k + y_k))`, terms with `x_k + y_k = 0` are 0 |
//! | intersection | `sum_k min(x_k, y_k)` |
//!
//! chi2 and intersection are additive kernels for histograms and need non-negative
//! data.
//!
//! # Evaluation
//! Kernel Pegasos needs one example against many others (the support vectors, or
//! all training rows). [`KernelRows`] with a [`Query`] scatters the query row into a dense buffer once
//! (`O(nnz(x))`) and gathers from it for each other row (`O(nnz(y))`). CSR rows then
//! need not be sorted, and repeated columns of the query add up as scipy says.
//! `||y||^2` and `sum_k y_k` of the other rows are computed once.
//! - rbf uses `||x||^2 + ||y||^2 - 2 <x, y>`, clamped at 0.
//! - chi2 uses `sum x + sum y - sum_{both > 0} 4 x y / (x + y)`: a column present in
//!   only one row contributes its value.
//!
//! The additive kernels read the other rows entry by entry, so those rows must not
//! repeat a column index (checked).

use crate::data::rows::{Rows, DOT_BLOCK};
use crate::error::{Error, Result};
use crate::float::Float;
use crate::math;

/// A kernel and its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// `<x, y>`.
    Linear,
    /// `exp(-gamma ||x - y||^2)`.
    Rbf {
        /// Width parameter (> 0).
        gamma: f64,
    },
    /// `(gamma <x, y> + coef0)^degree`.
    Poly {
        /// Scale of the inner product (> 0).
        gamma: f64,
        /// Constant term.
        coef0: f64,
        /// Degree (>= 1).
        degree: u32,
    },
    /// `tanh(gamma <x, y> + coef0)`.
    Sigmoid {
        /// Scale of the inner product (> 0).
        gamma: f64,
        /// Constant term.
        coef0: f64,
    },
    /// `exp(-gamma sum (x - y)^2 / (x + y))` on non-negative data.
    Chi2 {
        /// Width parameter (> 0).
        gamma: f64,
    },
    /// `sum min(x, y)` on non-negative data.
    Intersection,
}

impl Kernel {
    /// Check the parameters' ranges.
    pub fn validate(self) -> Result<Self> {
        let bad = |m: String| Err(Error::InvalidParameter(m));
        let gamma = match self {
            Kernel::Rbf { gamma }
            | Kernel::Poly { gamma, .. }
            | Kernel::Sigmoid { gamma, .. }
            | Kernel::Chi2 { gamma } => Some(gamma),
            Kernel::Linear | Kernel::Intersection => None,
        };
        if let Some(g) = gamma {
            if !(g.is_finite() && g > 0.0) {
                return bad(format!("gamma must be a positive finite number, got {g}"));
            }
        }
        if let Kernel::Poly { coef0, .. } | Kernel::Sigmoid { coef0, .. } = self {
            if !coef0.is_finite() {
                return bad(format!("coef0 must be finite, got {coef0}"));
            }
        }
        if let Kernel::Poly { degree: 0, .. } = self {
            return bad("degree must be >= 1".into());
        }
        Ok(self)
    }

    /// The kernel's name as scikit-learn spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Linear => "linear",
            Kernel::Rbf { .. } => "rbf",
            Kernel::Poly { .. } => "poly",
            Kernel::Sigmoid { .. } => "sigmoid",
            Kernel::Chi2 { .. } => "chi2",
            Kernel::Intersection => "intersection",
        }
    }

    /// `true` for the kernels that are a function of `<x, y>` and the squared norms
    /// (linear, rbf, poly, sigmoid): their values follow from a matrix product.
    pub fn is_dot_product(&self) -> bool {
        matches!(
            self,
            Kernel::Linear | Kernel::Rbf { .. } | Kernel::Poly { .. } | Kernel::Sigmoid { .. }
        )
    }

    /// `true` for the additive kernels (chi2, intersection).
    pub fn is_additive(&self) -> bool {
        matches!(self, Kernel::Chi2 { .. } | Kernel::Intersection)
    }
}

/// A kernel prepared against the rows of a fixed matrix ("others"): per-row squared
/// norms and sums computed once. Shared read-only between threads; each thread
/// loads its own [`Query`].
pub struct KernelRows<'a, R> {
    kernel: Kernel,
    others: &'a R,
    other_sq_norm: Vec<f64>,
    other_sum: Vec<f64>,
    stored: usize,
}

/// Up to `width` query rows scattered feature-major into one buffer
/// (`buf[k * width + c]` is feature `k` of query `c`; unused columns stay 0), ready
/// to be compared with every row of a [`KernelRows`] in one read of each
/// ([`KernelRows::eval_query_block`]).
#[derive(Clone, Debug)]
pub struct QueryBlock {
    buf: Vec<f64>,
    touched: Vec<Vec<usize>>,
    sq_norm: Vec<f64>,
    width: usize,
    loaded: usize,
}

/// Queries of a [`QueryBlock`]: [`Rows::dot_block`]'s vectors.
pub const QUERY_BLOCK: usize = DOT_BLOCK;

/// One query row `x` scattered into a dense buffer, ready to be compared with every
/// row of a [`KernelRows`].
#[derive(Clone, Debug)]
pub struct Query {
    buf: Vec<f64>,
    touched: Vec<usize>,
    /// Every value of `buf` was written by a dense row (`touched` unused).
    full: bool,
    x_sq_norm: f64,
    x_sum: f64,
}

impl Query {
    /// A query with no buffer (for kernels that need none, such as precomputed ones).
    pub fn empty() -> Self {
        Self {
            buf: Vec::new(),
            touched: Vec::new(),
            full: false,
            x_sq_norm: 0.0,
            x_sum: 0.0,
        }
    }
}

impl<'a, R: Rows> KernelRows<'a, R> {
    /// Prepare to evaluate `kernel` against the rows of `others`.
    ///
    /// For the additive kernels, `others` must be non-negative without repeated
    /// column indices in a row.
    pub fn new(kernel: Kernel, others: &'a R) -> Result<Self> {
        let kernel = kernel.validate()?;
        let d = others.n_features();
        let n = others.n_rows();
        let mut buf = vec![0.0; d];
        let mut touched = Vec::new();
        let mut other_sq_norm = Vec::with_capacity(n);
        let mut other_sum = Vec::with_capacity(n);
        let mut stored = 0;
        for j in 0..n {
            let mut repeated = false;
            let mut negative = false;
            others.for_each_entry(j, |k, y| {
                stored += usize::from(y != 0.0);
                if buf[k] == 0.0 {
                    touched.push(k);
                } else {
                    repeated = true;
                }
                buf[k] += y;
                negative |= y < 0.0;
            });
            if kernel.is_additive() && negative {
                return Err(Error::InvalidInput(format!(
                    "the {} kernel needs non-negative data; row {j} has a negative value",
                    kernel.name()
                )));
            }
            if kernel.is_additive() && repeated {
                return Err(Error::InvalidInput(format!(
                    "row {j} repeats a column index; sum the duplicates first \
                     (scipy: X.sum_duplicates())"
                )));
            }
            let (sq, sum) = drain(&mut buf, &mut touched);
            other_sq_norm.push(sq);
            other_sum.push(sum);
        }
        Ok(Self {
            kernel,
            others,
            other_sq_norm,
            other_sum,
            stored,
        })
    }

    /// The kernel.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Mean number of non-zero values per row of the prepared matrix.
    pub fn mean_row_nonzeros(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.stored as f64 / self.len() as f64
        }
    }

    /// Number of other rows.
    pub fn len(&self) -> usize {
        self.other_sq_norm.len()
    }

    /// Number of features of the prepared rows.
    pub fn n_features(&self) -> usize {
        self.others.n_features()
    }

    /// `true` when there are no other rows.
    pub fn is_empty(&self) -> bool {
        self.other_sq_norm.is_empty()
    }

    /// An empty query buffer for these rows.
    pub fn query(&self) -> Query {
        Query {
            buf: vec![0.0; self.others.n_features()],
            touched: Vec::new(),
            full: false,
            x_sq_norm: 0.0,
            x_sum: 0.0,
        }
    }

    /// Make row `i` of `rows` the query `x` of `q`.
    pub fn load<Q: Rows>(&self, q: &mut Query, rows: &Q, i: usize) -> Result<()> {
        if rows.n_features() != q.buf.len() {
            return Err(Error::ShapeMismatch(format!(
                "X has {} features, but the model was fitted with {}",
                rows.n_features(),
                q.buf.len()
            )));
        }
        let (sq, sum, negative) = if let Some(row) = rows.dense_row(i) {
            // Every feature written: no scatter, and nothing to clear before the next
            // dense row. The sums run in feature order, as the scatter's would.
            if !q.full {
                drain(&mut q.buf, &mut q.touched);
            }
            q.full = true;
            let (mut sq, mut sum, mut negative) = (0.0, 0.0, false);
            for (b, x) in q.buf.iter_mut().zip(row) {
                // 0 + x, as the scatter adds to a cleared buffer (-0 becomes +0).
                let x = 0.0 + x.to_f64();
                *b = x;
                sq += x * x;
                sum += x;
                negative |= x < 0.0;
            }
            (sq, sum, negative)
        } else {
            if q.full {
                q.buf.fill(0.0);
                q.full = false;
            } else {
                drain(&mut q.buf, &mut q.touched);
            }
            scatter(rows, i, (&mut q.buf, 1, 0), &mut q.touched)
        };
        if self.kernel.is_additive() && negative {
            return Err(Error::InvalidInput(format!(
                "the {} kernel needs non-negative data; row {i} of X has a negative value",
                self.kernel.name()
            )));
        }
        q.x_sq_norm = sq;
        q.x_sum = sum;
        Ok(())
    }

    /// An empty [`QueryBlock`] of up to [`QUERY_BLOCK`] queries for these rows.
    pub fn query_block(&self) -> QueryBlock {
        let width = QUERY_BLOCK;
        QueryBlock {
            buf: vec![0.0; self.others.n_features() * width],
            touched: vec![Vec::new(); width],
            sq_norm: vec![0.0; width],
            width,
            loaded: 0,
        }
    }

    /// Make the rows `first..first + count` of `rows` (`count <= QUERY_BLOCK`) the
    /// queries of `b`, for [`KernelRows::eval_query_block`].
    pub fn load_block<Q: Rows>(
        &self,
        b: &mut QueryBlock,
        rows: &Q,
        first: usize,
        count: usize,
    ) -> Result<()> {
        if rows.n_features() != self.others.n_features() {
            return Err(Error::ShapeMismatch(format!(
                "X has {} features, but the model was fitted with {}",
                rows.n_features(),
                self.others.n_features()
            )));
        }
        let w = b.width;
        for (c, touched) in b.touched.iter_mut().enumerate() {
            for k in touched.drain(..) {
                b.buf[k * w + c] = 0.0;
            }
        }
        b.loaded = count.min(w);
        for c in 0..b.loaded {
            let (sq, _, _) = scatter(rows, first + c, (&mut b.buf, w, c), &mut b.touched[c]);
            b.sq_norm[c] = sq;
        }
        Ok(())
    }

    /// `out[c * len() + j] = K(x_c, y_j)` for the queries `x_c` loaded in `b` and
    /// every prepared row `y_j`: the same bits as [`KernelRows::eval_into`] of each
    /// query alone ([`Rows::dot_many`] keeps [`Rows::dot`]'s lanes), with each
    /// prepared row read once for all the queries. Only for the dot-product kernels
    /// ([`Kernel::is_dot_product`]); `out` holds at least `b`'s loaded queries' rows.
    pub fn eval_query_block(&self, b: &mut QueryBlock, out: &mut [f64]) {
        debug_assert!(self.kernel.is_dot_product());
        let (n, m) = (self.len(), b.loaded);
        for j in 0..n {
            let dots = self.others.dot_block(j, &b.buf);
            for (c, d) in dots[..m].iter().enumerate() {
                out[c * n + j] = *d;
            }
        }
        for (c, row) in out.chunks_mut(n.max(1)).take(m).enumerate() {
            self.finish(row, b.sq_norm[c], 0.0, |t| t);
        }
    }

    /// `K(x, y_j)` for the query `x` loaded in `q` (the same bits as
    /// [`KernelRows::eval_into`]).
    #[cfg(test)]
    #[inline]
    pub fn eval(&self, q: &Query, j: usize) -> f64 {
        let mut out = [0.0];
        self.fill(q, |_| j, &mut out);
        out[0]
    }

    /// `out[t] = K(x, y_j)` for the `t`-th row `j` of `targets`, with the query `x`
    /// loaded in `q`. Inner products first, then the kernel's function over the
    /// whole slice (a loop that vectorizes).
    pub fn eval_into(&self, q: &Query, targets: Targets<'_>, out: &mut [f64]) {
        match targets {
            Targets::Range(from) => self.fill(q, |t| from + t, out),
            Targets::List(list) => {
                // Rows scattered over the matrix: fetch them a few rows ahead.
                for &j in list.iter().take(out.len().min(2 * LIST_AHEAD)) {
                    self.others.prefetch_locate(j as usize);
                }
                self.fill(
                    q,
                    |t| {
                        if let Some(&j) = list.get(t + 2 * LIST_AHEAD) {
                            self.others.prefetch_locate(j as usize);
                        }
                        if let Some(&j) = list.get(t + LIST_AHEAD) {
                            self.others.prefetch_row(j as usize);
                        }
                        list[t] as usize
                    },
                    out,
                );
            }
        }
    }

    #[inline]
    fn fill(&self, q: &Query, js: impl Fn(usize) -> usize, out: &mut [f64]) {
        if let Kernel::Rbf { gamma } = self.kernel {
            // Fused with the products: `finish` would call `js` (and its prefetches)
            // a second time per row. The same arithmetic as `raw` then `finish`.
            let buf = &q.buf;
            for (t, o) in out.iter_mut().enumerate() {
                let j = js(t);
                let d = self.others.dot(j, buf);
                *o = (q.x_sq_norm + self.other_sq_norm[j] - 2.0 * d).max(0.0);
            }
            for o in out.iter_mut() {
                *o *= -gamma;
            }
            math::exp_in_place(out);
            return;
        }
        self.raw(q, &js, out);
        self.finish(out, q.x_sq_norm, q.x_sum, &js);
    }

    /// The values `finish` turns into kernel values, for the query loaded in `q` and
    /// the prepared rows `js(t)`: inner products (the dot-product kernels and rbf),
    /// the shared terms `sum_k 4 x_k y_k / (x_k + y_k)` (chi2), or the kernel's
    /// values themselves (intersection). None depends on `gamma`.
    #[inline]
    fn raw(&self, q: &Query, js: impl Fn(usize) -> usize, out: &mut [f64]) {
        let buf = &q.buf;
        match self.kernel {
            Kernel::Chi2 { .. } => {
                for (t, o) in out.iter_mut().enumerate() {
                    let mut shared = 0.0;
                    self.others.for_each_entry(js(t), |k, y| {
                        let x = buf[k];
                        if x > 0.0 && y > 0.0 {
                            shared += 4.0 * x * y / (x + y);
                        }
                    });
                    *o = shared;
                }
            }
            Kernel::Intersection => {
                for (t, o) in out.iter_mut().enumerate() {
                    let mut acc = 0.0;
                    self.others
                        .for_each_entry(js(t), |k, y| acc += y.min(buf[k]));
                    *o = acc;
                }
            }
            _ => {
                for (t, o) in out.iter_mut().enumerate() {
                    *o = self.others.dot(js(t), buf);
                }
            }
        }
    }

    /// The kernel's values before its function of `gamma`, `out[t]` for the query
    /// loaded in `q` and the prepared rows `from + t` (see [`KernelRows::finish_raw`]).
    pub fn raw_into(&self, q: &Query, from: usize, out: &mut [f64]) {
        self.raw(q, |t| from + t, out);
    }

    /// Turn [`KernelRows::raw_into`]'s values of prepared row `i` (loaded as the
    /// query) against the prepared rows `from + t` into this kernel's values: the
    /// same bits as [`KernelRows::eval_into`] gives, whatever `gamma` the raw values
    /// were computed with (they do not depend on it).
    pub fn finish_raw(&self, i: usize, from: usize, out: &mut [f64]) {
        self.finish(out, self.other_sq_norm[i], self.other_sum[i], |t| from + t);
    }
}

/// How many listed rows ahead values are prefetched (their location twice as far).
const LIST_AHEAD: usize = 6;

/// Which rows of the other matrix a batch of kernel values is for.
#[derive(Clone, Copy, Debug)]
pub enum Targets<'a> {
    /// Rows `from, from + 1, ...`.
    Range(usize),
    /// The listed rows.
    List(&'a [u32]),
}

/// A block of rows of the prepared matrix indexed by column (an inverted index): for
/// every column, the block rows that store a value there. Comparing another row of
/// the same matrix with the whole block then costs one pass over that row's entries
/// plus the number of column matches, instead of one gather per block row; it is
/// how kernel Pegasos adds many kernel columns to its margins at once.
#[derive(Clone, Debug, Default)]
pub struct InvertedBlock {
    /// Start of each column's entries (valid where `count > 0`).
    offset: Vec<u32>,
    count: Vec<u32>,
    touched: Vec<usize>,
    /// (position in the block, value), grouped by column.
    entries: Vec<(u32, f64)>,
    targets: Vec<u32>,
}

impl<R: Rows> KernelRows<'_, R> {
    /// An empty block for [`KernelRows::set_block`].
    pub fn block(&self) -> InvertedBlock {
        let d = self.others.n_features();
        InvertedBlock {
            offset: vec![0; d],
            count: vec![0; d],
            ..InvertedBlock::default()
        }
    }

    /// Make `block` index the rows `targets` of the prepared matrix.
    pub fn set_block(&self, block: &mut InvertedBlock, targets: &[u32]) {
        for k in block.touched.drain(..) {
            block.count[k] = 0;
        }
        for &p in targets {
            self.others.for_each_entry(p as usize, |k, w| {
                if w != 0.0 {
                    if block.count[k] == 0 {
                        block.touched.push(k);
                    }
                    block.count[k] += 1;
                }
            });
        }
        let mut total = 0u32;
        for &k in &block.touched {
            block.offset[k] = total;
            total += block.count[k];
        }
        block.entries.clear();
        block.entries.resize(total as usize, (0, 0.0));
        for (c, &p) in targets.iter().enumerate() {
            self.others.for_each_entry(p as usize, |k, w| {
                if w != 0.0 {
                    block.entries[block.offset[k] as usize] = (c as u32, w);
                    block.offset[k] += 1;
                }
            });
        }
        for &k in &block.touched {
            block.offset[k] -= block.count[k];
        }
        block.targets.clear();
        block.targets.extend_from_slice(targets);
    }

    /// `out[c] = K(y_j, y_{targets[c]})` for row `j` of the prepared matrix and the
    /// rows of `block`.
    pub fn eval_block(&self, block: &InvertedBlock, j: usize, out: &mut [f64]) {
        let (sq, sum) = (self.other_sq_norm[j], self.other_sum[j]);
        self.block_kernel(block, |f| self.others.for_each_entry(j, f), sq, sum, out);
    }

    /// `out[c] = K(x, y_{targets[c]})` for the query `x` loaded in `q` and the rows
    /// of `block`: one pass over the query's non-zeros plus the column matches,
    /// instead of one gather per block row (fast on sparse, high-dimensional rows).
    pub fn eval_block_loaded(&self, block: &InvertedBlock, q: &Query, out: &mut [f64]) {
        let entries = |f: &mut dyn FnMut(usize, f64)| {
            if q.full {
                // A dense row: every feature, in the order the scatter would touch them.
                for (k, &x) in q.buf.iter().enumerate() {
                    f(k, x);
                }
            } else {
                for &k in &q.touched {
                    f(k, q.buf[k]);
                }
            }
        };
        self.block_kernel(block, entries, q.x_sq_norm, q.x_sum, out);
    }

    /// The kernel between one row (its entries, squared norm and sum) and the rows
    /// of `block`.
    fn block_kernel(
        &self,
        block: &InvertedBlock,
        entries: impl Fn(&mut dyn FnMut(usize, f64)),
        x_sq_norm: f64,
        x_sum: f64,
        out: &mut [f64],
    ) {
        out.fill(0.0);
        let additive = self.kernel;
        entries(&mut |k, v| {
            let n = block.count[k] as usize;
            if v == 0.0 || n == 0 {
                return;
            }
            let start = block.offset[k] as usize;
            let list = &block.entries[start..start + n];
            match additive {
                Kernel::Chi2 { .. } => {
                    for &(c, w) in list {
                        if v > 0.0 && w > 0.0 {
                            out[c as usize] += 4.0 * v * w / (v + w);
                        }
                    }
                }
                Kernel::Intersection => {
                    for &(c, w) in list {
                        out[c as usize] += v.min(w);
                    }
                }
                _ => {
                    for &(c, w) in list {
                        out[c as usize] += v * w;
                    }
                }
            }
        });
        let targets = &block.targets;
        self.finish(out, x_sq_norm, x_sum, |t| targets[t] as usize);
    }

    /// Turn `out[j] = <x, y_j>` for the prepared rows `j = 0, 1, ...` into kernel
    /// values, given `||x||²`. Only for [`Kernel::is_dot_product`] kernels (others
    /// are left unchanged).
    pub fn finish_dot_products(&self, out: &mut [f64], x_sq_norm: f64) {
        if self.kernel.is_dot_product() {
            self.finish(out, x_sq_norm, 0.0, |t| t);
        }
    }

    /// Turn the accumulated inner products (or, for the additive kernels, the
    /// accumulated shared terms) `out[t]` against prepared row `row(t)` into kernel
    /// values, given the query's squared norm and sum.
    #[inline]
    fn finish(&self, out: &mut [f64], x_sq_norm: f64, x_sum: f64, row: impl Fn(usize) -> usize) {
        match self.kernel {
            Kernel::Linear | Kernel::Intersection => {}
            Kernel::Rbf { gamma } => {
                for (t, o) in out.iter_mut().enumerate() {
                    *o = -gamma * (x_sq_norm + self.other_sq_norm[row(t)] - 2.0 * *o).max(0.0);
                }
                math::exp_in_place(out);
            }
            Kernel::Poly {
                gamma,
                coef0,
                degree,
            } => {
                for o in out.iter_mut() {
                    *o = math::powi(gamma * *o + coef0, degree);
                }
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                for o in out.iter_mut() {
                    *o = math::tanh(gamma * *o + coef0);
                }
            }
            Kernel::Chi2 { gamma } => {
                for (t, o) in out.iter_mut().enumerate() {
                    *o = -gamma * (x_sum + self.other_sum[row(t)] - *o).max(0.0);
                }
                math::exp_in_place(out);
            }
        }
    }

    /// Whether the prepared rows are sparse enough (under 2 % non-zeros) for
    /// inverted-index evaluation to beat gathers.
    pub fn prefers_inverted(&self) -> bool {
        let d = self.others.n_features();
        d > 0 && self.mean_row_nonzeros() < 0.02 * d as f64
    }
}

/// A [`KernelRows`] with its own [`Query`]: the single-threaded convenience form
/// (the tests' reference kernel values).
#[cfg(test)]
pub struct KernelRow<'a, R> {
    rows: KernelRows<'a, R>,
    query: Query,
}

#[cfg(test)]
impl<'a, R: Rows> KernelRow<'a, R> {
    /// Prepare to evaluate `kernel` against the rows of `others`.
    pub fn new(kernel: Kernel, others: &'a R) -> Result<Self> {
        let rows = KernelRows::new(kernel, others)?;
        let query = rows.query();
        Ok(Self { rows, query })
    }

    /// Make row `i` of `query` the row `x` that [`KernelRow::eval`] compares with.
    pub fn load<Q: Rows>(&mut self, query: &Q, i: usize) -> Result<()> {
        self.rows.load(&mut self.query, query, i)
    }

    /// `K(x, y_j)` for the loaded row `x`.
    pub fn eval(&self, j: usize) -> f64 {
        self.rows.eval(&self.query, j)
    }
}

/// Zero the touched entries of `buf`, returning their sum of squares and their sum.
/// Scatter row `i` of `rows` into `buf[k * stride + column]` (zero there before),
/// recording in `touched` each feature the first time its value leaves 0; returns
/// the row's squared norm, its sum and whether a value is negative, summed over
/// `touched` in that order (repeated CSR columns first add up).
fn scatter<Q: Rows>(
    rows: &Q,
    i: usize,
    (buf, stride, column): (&mut [f64], usize, usize),
    touched: &mut Vec<usize>,
) -> (f64, f64, bool) {
    rows.for_each_entry(i, |k, x| {
        let slot = &mut buf[k * stride + column];
        if *slot == 0.0 {
            touched.push(k);
        }
        *slot += x;
    });
    let (mut sq, mut sum, mut negative) = (0.0, 0.0, false);
    for &k in touched.iter() {
        let x = buf[k * stride + column];
        sq += x * x;
        sum += x;
        negative |= x < 0.0;
    }
    (sq, sum, negative)
}

fn drain(buf: &mut [f64], touched: &mut Vec<usize>) -> (f64, f64) {
    let (mut sq, mut sum) = (0.0, 0.0);
    for k in touched.drain(..) {
        let v = std::mem::take(&mut buf[k]);
        sq += v * v;
        sum += v;
    }
    (sq, sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};
    use crate::rng::Rng;

    /// Non-negative `n x d` data with about half zeros.
    fn data(n: usize, d: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::seed_from_u64(seed);
        (0..n * d)
            .map(|_| {
                if rng.below(2) == 0 {
                    0.0
                } else {
                    rng.below(1000) as f64 / 250.0
                }
            })
            .collect()
    }

    /// CSR of `x` with every row's entries in reverse order (unsorted indices).
    fn reversed_csr(x: &[f64], n: usize, d: usize) -> (Vec<f64>, Vec<i32>, Vec<i32>) {
        let (mut v, mut c, mut p) = (vec![], vec![], vec![0]);
        for i in 0..n {
            for j in (0..d).rev() {
                if x[i * d + j] != 0.0 {
                    v.push(x[i * d + j]);
                    c.push(j as i32);
                }
            }
            p.push(v.len() as i32);
        }
        (v, c, p)
    }

    fn direct(kernel: Kernel, x: &[f64], y: &[f64]) -> f64 {
        let dot: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
        match kernel {
            Kernel::Linear => dot,
            Kernel::Rbf { gamma } => {
                (-gamma * x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()).exp()
            }
            Kernel::Poly {
                gamma,
                coef0,
                degree,
            } => (gamma * dot + coef0).powi(degree as i32),
            Kernel::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            Kernel::Chi2 { gamma } => {
                let s: f64 = x
                    .iter()
                    .zip(y)
                    .filter(|(a, b)| **a + **b > 0.0)
                    .map(|(a, b)| (a - b) * (a - b) / (a + b))
                    .sum();
                (-gamma * s).exp()
            }
            Kernel::Intersection => x.iter().zip(y).map(|(a, b)| a.min(*b)).sum(),
        }
    }

    const KERNELS: [Kernel; 6] = [
        Kernel::Linear,
        Kernel::Rbf { gamma: 0.3 },
        Kernel::Poly {
            gamma: 0.5,
            coef0: 1.0,
            degree: 3,
        },
        Kernel::Sigmoid {
            gamma: 0.1,
            coef0: -0.5,
        },
        Kernel::Chi2 { gamma: 0.2 },
        Kernel::Intersection,
    ];

    #[test]
    fn every_kernel_matches_its_formula_on_dense_and_unsorted_csr_rows() {
        let (n, m, d) = (7, 5, 9);
        let xs = data(n, d, 1);
        let ys = data(m, d, 2);
        let (v, c, p) = reversed_csr(&ys, m, d);
        let dense_y = DenseRows::new(&ys, m, d).unwrap();
        let csr_y = CsrRows::new(&v, &c, &p, m, d).unwrap();
        let (qv, qc, qp) = reversed_csr(&xs, n, d);
        let csr_x = CsrRows::new(&qv, &qc, &qp, n, d).unwrap();
        for kernel in KERNELS {
            let mut a = KernelRow::new(kernel, &dense_y).unwrap();
            let mut b = KernelRow::new(kernel, &csr_y).unwrap();
            for i in 0..n {
                a.load(&DenseRows::new(&xs, n, d).unwrap(), i).unwrap();
                b.load(&csr_x, i).unwrap();
                for j in 0..m {
                    let want = direct(kernel, &xs[i * d..(i + 1) * d], &ys[j * d..(j + 1) * d]);
                    for got in [a.eval(j), b.eval(j)] {
                        assert!(
                            (got - want).abs() <= 1e-10 * (1.0 + want.abs()),
                            "{kernel:?} ({i}, {j}): {got} vs {want}"
                        );
                    }
                }
            }
        }
    }

    /// Each value of `x`'s rows in blocks of `width` queries against `prep`, bit for
    /// bit `eval_into`'s of the query alone.
    fn check_query_blocks<R: Rows, Q: Rows>(prep: &KernelRows<'_, R>, x: &Q, width: usize) {
        let (n, m) = (x.n_rows(), prep.len());
        let mut q = prep.query();
        let mut one = vec![0.0; m];
        let mut block = prep.query_block();
        let mut many = vec![0.0; width * m];
        for first in (0..n).step_by(width) {
            let count = width.min(n - first);
            prep.load_block(&mut block, x, first, count).unwrap();
            prep.eval_query_block(&mut block, &mut many);
            for c in 0..count {
                prep.load(&mut q, x, first + c).unwrap();
                prep.eval_into(&q, Targets::Range(0), &mut one);
                let got = &many[c * m..(c + 1) * m];
                assert!(
                    got.iter()
                        .zip(&one)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{:?} width {width} row {}: {got:?} vs {one:?}",
                    prep.kernel(),
                    first + c
                );
            }
        }
    }

    #[test]
    fn query_blocks_give_each_query_s_values_bit_for_bit() {
        // Dense and unsorted CSR rows on both sides, a repeated query column, blocks
        // full and partial: every value equals eval_into's for the query alone.
        let (n, m, d) = (11, 13, 10);
        let xs = data(n, d, 4);
        let ys = data(m, d, 5);
        let (v, c, p) = reversed_csr(&ys, m, d);
        let (mut qv, mut qc, mut qp) = reversed_csr(&xs, n, d);
        // Row 0 repeats column 3 (the values add up).
        qv.insert(0, 0.75);
        qc.insert(0, 3);
        for e in qp.iter_mut().skip(1) {
            *e += 1;
        }
        let dense_y = DenseRows::new(&ys, m, d).unwrap();
        let csr_y = CsrRows::new(&v, &c, &p, m, d).unwrap();
        let dense_x = DenseRows::new(&xs, n, d).unwrap();
        let csr_x = CsrRows::new(&qv, &qc, &qp, n, d).unwrap();
        for kernel in KERNELS.into_iter().filter(Kernel::is_dot_product) {
            // Blocks of one, three (the last partial) and four queries.
            for width in [1, 3, QUERY_BLOCK] {
                let (a, b) = (
                    KernelRows::new(kernel, &dense_y).unwrap(),
                    KernelRows::new(kernel, &csr_y).unwrap(),
                );
                check_query_blocks(&a, &dense_x, width);
                check_query_blocks(&a, &csr_x, width);
                check_query_blocks(&b, &dense_x, width);
                check_query_blocks(&b, &csr_x, width);
            }
        }
    }

    #[test]
    fn dense_queries_load_as_their_sorted_csr_rows_do() {
        // A dense row is copied, not scattered; with one query alternating between
        // dense and CSR rows, every kernel value (gathered and through an inverted
        // block) keeps the bits of the CSR row loaded into a fresh query.
        let (n, m, d) = (6, 7, 9);
        let xs: Vec<f64> = data(n, d, 6).iter().map(|v| v - 1.0).collect();
        let ys = data(m, d, 7);
        let dense_x = DenseRows::new(&xs, n, d).unwrap();
        let (mut qv, mut qc, mut qp) = (vec![], vec![], vec![0]);
        for i in 0..n {
            for j in 0..d {
                if xs[i * d + j] != 0.0 {
                    qv.push(xs[i * d + j]);
                    qc.push(j as i32);
                }
            }
            qp.push(qv.len() as i32);
        }
        let csr_x = CsrRows::new(&qv, &qc, &qp, n, d).unwrap();
        let dense_y = DenseRows::new(&ys, m, d).unwrap();
        for kernel in KERNELS.into_iter().filter(|k| !k.is_additive()) {
            let prep = KernelRows::new(kernel, &dense_y).unwrap();
            let mut block = prep.block();
            prep.set_block(&mut block, &(0..m as u32).collect::<Vec<_>>());
            let mut shared = prep.query();
            let (mut a, mut b) = (vec![0.0; m], vec![0.0; m]);
            for i in [0, 1, 1, 2, 3, 3, 4, 5] {
                let from_dense = i % 2 == 0;
                if from_dense {
                    prep.load(&mut shared, &dense_x, i).unwrap();
                } else {
                    prep.load(&mut shared, &csr_x, i).unwrap();
                }
                let mut fresh = prep.query();
                prep.load(&mut fresh, &csr_x, i).unwrap();
                prep.eval_into(&shared, Targets::Range(0), &mut a);
                prep.eval_into(&fresh, Targets::Range(0), &mut b);
                assert_eq!(
                    a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{kernel:?} row {i}"
                );
                prep.eval_block_loaded(&block, &shared, &mut a);
                prep.eval_block_loaded(&block, &fresh, &mut b);
                assert_eq!(
                    a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{kernel:?} row {i} (block)"
                );
            }
        }
    }

    #[test]
    fn inverted_blocks_match_the_formulas() {
        let (m, d) = (9, 8);
        let ys = data(m, d, 3);
        let (v, c, p) = reversed_csr(&ys, m, d);
        let dense = DenseRows::new(&ys, m, d).unwrap();
        let csr = CsrRows::new(&v, &c, &p, m, d).unwrap();
        let row = |j: usize| &ys[j * d..(j + 1) * d];
        for kernel in KERNELS {
            let a = KernelRows::new(kernel, &dense).unwrap();
            let b = KernelRows::new(kernel, &csr).unwrap();
            let (mut ba, mut bb) = (a.block(), b.block());
            for targets in [vec![8u32, 0, 2, 2], vec![5], vec![1, 3, 4, 6, 7]] {
                a.set_block(&mut ba, &targets);
                b.set_block(&mut bb, &targets);
                let mut out = vec![0.0; targets.len()];
                for j in 0..m {
                    let mut got = vec![0.0; targets.len()];
                    // A query loaded from another view of the same row.
                    let mut q = b.query();
                    b.load(&mut q, &dense, j).unwrap();
                    b.eval_block_loaded(&bb, &q, &mut got);
                    for (g, &t) in got.iter().zip(&targets) {
                        let want = direct(kernel, row(j), row(t as usize));
                        assert!((g - want).abs() <= 1e-10 * (1.0 + want.abs()), "{kernel:?}");
                    }
                    a.eval_block(&ba, j, &mut out);
                    b.eval_block(&bb, j, &mut got);
                    for ((o, g), &t) in out.iter().zip(&got).zip(&targets) {
                        let want = direct(kernel, row(j), row(t as usize));
                        for v in [o, g] {
                            assert!(
                                (v - want).abs() <= 1e-10 * (1.0 + want.abs()),
                                "{kernel:?} ({j}, {t}): {v} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn repeated_query_columns_add_up() {
        let ys = [1.0, 2.0, 0.0, 3.0];
        let others = DenseRows::new(&ys, 2, 2).unwrap();
        // Row (0, 1.5) written as two entries 0.5 + 1.0 in column 1.
        let q = CsrRows::new(&[0.5, 1.0], &[1i32, 1], &[0, 2], 1, 2).unwrap();
        for kernel in KERNELS {
            let mut k = KernelRow::new(kernel, &others).unwrap();
            k.load(&q, 0).unwrap();
            for j in 0..2 {
                let want = direct(kernel, &[0.0, 1.5], &ys[j * 2..j * 2 + 2]);
                assert!((k.eval(j) - want).abs() < 1e-12, "{kernel:?}");
            }
        }
    }

    #[test]
    fn identical_rows_have_unit_rbf_and_chi2() {
        let xs = data(3, 6, 5);
        let rows = DenseRows::new(&xs, 3, 6).unwrap();
        for kernel in [Kernel::Rbf { gamma: 2.0 }, Kernel::Chi2 { gamma: 2.0 }] {
            let mut k = KernelRow::new(kernel, &rows).unwrap();
            for i in 0..3 {
                k.load(&rows, i).unwrap();
                assert!((k.eval(i) - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn bad_parameters_and_data_are_errors() {
        for kernel in [
            Kernel::Rbf { gamma: 0.0 },
            Kernel::Rbf { gamma: f64::NAN },
            Kernel::Chi2 { gamma: -1.0 },
            Kernel::Poly {
                gamma: 1.0,
                coef0: 0.0,
                degree: 0,
            },
            Kernel::Sigmoid {
                gamma: 1.0,
                coef0: f64::INFINITY,
            },
        ] {
            assert!(matches!(kernel.validate(), Err(Error::InvalidParameter(_))));
        }
        let neg = [1.0, -1.0];
        let rows = DenseRows::new(&neg, 1, 2).unwrap();
        assert!(KernelRow::new(Kernel::Intersection, &rows).is_err());
        assert!(KernelRow::new(Kernel::Rbf { gamma: 1.0 }, &rows).is_ok());
        let dup = CsrRows::new(&[1.0, 2.0], &[0i32, 0], &[0, 2], 1, 2).unwrap();
        assert!(KernelRow::new(Kernel::Chi2 { gamma: 1.0 }, &dup).is_err());
        let pos = [1.0, 1.0];
        let ok = DenseRows::new(&pos, 1, 2).unwrap();
        let mut k = KernelRow::new(Kernel::Chi2 { gamma: 1.0 }, &ok).unwrap();
        assert!(k.load(&rows, 0).is_err());
        let wide = DenseRows::new(&[1.0, 1.0, 1.0], 1, 3).unwrap();
        assert!(k.load(&wide, 0).is_err());
    }
}
