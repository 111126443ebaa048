//! The mean and the variance of all the entries of a matrix: `gamma="scale"`'s
//! `X.var()`, the same on every platform and for every thread count.
//!
//! # What is computed
//! For an `n x d` matrix, over all its `N = n d` entries `x_ij` (a CSR matrix's
//! implicit zeros included, and the repeated entries of a CSR row added up first,
//! as scipy reads them): the count `N`, the mean `μ = Σ x_ij / N` and the sum of
//! squared deviations `M2 = Σ (x_ij - μ)²`, all in `f64` whatever the data's float
//! type. The (population) variance is `M2 / N`, numpy's `X.var()` of the dense
//! matrix (which also counts every entry, zeros included).
//!
//! # How
//! The entries are grouped, and each group's [`Moments`] are computed exactly as
//! written here:
//! - a row's stored values in chunks of [`CHUNK`] consecutive values, each by the
//!   corrected two-pass algorithm: `m = Σ v / c`, then `e = Σ (v - m)` and
//!   `q = Σ (v - m)²`, giving mean `m + e / c` and `M2 = q - e² / c` (the term `e`
//!   corrects the rounding of `m`; Chan, Golub and LeVeque, "Algorithms for computing
//!   the sample variance: analysis and recommendations", The American Statistician
//!   37, 1983);
//! - a CSR row's implicit zeros as one group (`d - k` entries of mean 0, `M2` 0);
//! - groups are then combined pairwise (the groups of a row, the rows of a block, the
//!   blocks of the matrix) by the update of Chan, Golub and LeVeque ("Updating
//!   formulae and a pairwise algorithm for computing sample variances", 1979):
//!   `δ = μ_b - μ_a`, `μ = μ_a + δ n_b / n`, `M2 = M2_a + M2_b + δ² n_a n_b / n`.
//!
//! No sum of squares is ever differenced (`Σ x² / N - μ²` loses every digit of a
//! variance that is small against the squared mean), so the relative error stays a
//! small multiple of the unit roundoff on ordinary data (sums of at most [`CHUNK`]
//! terms, then pairwise combinations, `log2 N` deep).
//!
//! # Order
//! The grouping depends on the shape and on the stored values only: rows go in
//! blocks of [`BLOCK_ROWS`], whose moments may be computed in parallel, and the
//! blocks' moments are combined pairwise in block order on the calling thread. So the
//! bits of the result are the same for every thread count, on every platform (only
//! `+ - * /` are used, which Rust never contracts into fused multiply-adds). A dense
//! matrix and its CSR form are grouped differently (the CSR zeros are one group), so
//! they agree to rounding, not bit for bit.

use crate::error::{Error, Result};
use crate::monitor::Monitor;
use crate::parallel::row_blocks_with;

use super::rows::Rows;

/// Stored values per group of the corrected two-pass algorithm (a chunk of a row;
/// a shorter row is one group).
pub const CHUNK: usize = 256;

/// Rows per block whose moments are computed as one task.
pub const BLOCK_ROWS: usize = 256;

/// The count, mean and sum of squared deviations from the mean of a group of
/// numbers: enough to combine groups and to give their variance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    /// How many numbers.
    pub count: u64,
    /// Their mean (0 when there are none).
    pub mean: f64,
    /// `Σ (x - mean)²` (0 when there are none).
    pub m2: f64,
}

impl Moments {
    /// The moments of `count` zeros.
    pub fn zeros(count: u64) -> Self {
        Self {
            count,
            mean: 0.0,
            m2: 0.0,
        }
    }

    /// The moments of `values`, by the corrected two-pass algorithm (see the module
    /// documentation); use [`Moments::of_values`] for long slices.
    fn of_chunk(values: &[f64]) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        #[allow(clippy::cast_precision_loss)] // at most CHUNK
        let c = values.len() as f64;
        let m = lane_sum(values, |v| v) / c;
        let e = lane_sum(values, |v| v - m);
        let q = lane_sum(values, |v| (v - m) * (v - m));
        Self {
            count: values.len() as u64,
            mean: m + e / c,
            m2: q - e * e / c,
        }
    }

    /// The moments of `values`: chunks of `CHUNK` combined pairwise.
    pub fn of_values(values: &[f64]) -> Self {
        let mut acc = Pairwise::default();
        for chunk in values.chunks(CHUNK) {
            acc.push(Self::of_chunk(chunk));
        }
        acc.finish()
    }

    /// The moments of the union of the two groups (Chan, Golub and LeVeque's
    /// update). Exact when either group is empty.
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        if other.count == 0 {
            return self;
        }
        if self.count == 0 {
            return other;
        }
        #[allow(clippy::cast_precision_loss)] // counts below 2^53 are exact
        let (na, nb) = (self.count as f64, other.count as f64);
        let n = na + nb;
        let delta = other.mean - self.mean;
        Self {
            count: self.count + other.count,
            mean: self.mean + delta * (nb / n),
            m2: self.m2 + other.m2 + delta * delta * (na * nb / n),
        }
    }

    /// Combine `parts` pairwise, in their order.
    pub fn merge_all(parts: impl IntoIterator<Item = Self>) -> Self {
        let mut acc = Pairwise::default();
        for m in parts {
            acc.push(m);
        }
        acc.finish()
    }

    /// The population variance `m2 / count`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when there are no numbers, or when the mean or the
    /// variance is not finite (values too large for `f64` arithmetic).
    pub fn variance(&self) -> Result<f64> {
        if self.count == 0 {
            return Err(Error::InvalidInput(
                "the variance of a matrix without entries is undefined".into(),
            ));
        }
        #[allow(clippy::cast_precision_loss)]
        let var = self.m2 / self.count as f64;
        if !(self.mean.is_finite() && var.is_finite()) {
            return Err(Error::InvalidInput(
                "the variance of the input overflows: its values are too large for \
                 float64 arithmetic"
                    .into(),
            ));
        }
        // Rounding cannot make a sum of squares negative, but the corrections can
        // leave -0.0 or a few ulps below zero when every value is equal.
        Ok(var.max(0.0))
    }
}

/// Pairwise combination of a sequence of moments, in order: the partial results
/// of `2^k` consecutive groups are combined with each other only, as in pairwise
/// summation, so rounding grows with the logarithm of the number of groups.
#[derive(Default)]
struct Pairwise {
    /// `(level, moments of 2^level consecutive groups)`, levels decreasing.
    stack: Vec<(u32, Moments)>,
}

impl Pairwise {
    fn push(&mut self, m: Moments) {
        let (mut level, mut m) = (0, m);
        while let Some(&(top, earlier)) = self.stack.last() {
            if top != level {
                break;
            }
            self.stack.pop();
            m = earlier.merge(m);
            level += 1;
        }
        self.stack.push((level, m));
    }

    fn finish(mut self) -> Moments {
        let mut acc = self.stack.pop().map_or_else(Moments::default, |(_, m)| m);
        while let Some((_, earlier)) = self.stack.pop() {
            acc = earlier.merge(acc);
        }
        acc
    }
}

/// `Σ f(v)` over `values` in four interleaved partial sums (position `k` to sum
/// `k % 4`), added as `(s0 + s1) + (s2 + s3)`: a fixed order that vectorises.
#[inline]
fn lane_sum(values: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let mut lanes = [0.0; 4];
    let mut chunks = values.chunks_exact(4);
    for c in &mut chunks {
        for l in 0..4 {
            lanes[l] += f(c[l]);
        }
    }
    for (l, &v) in chunks.remainder().iter().enumerate() {
        lanes[l] += f(v);
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

/// Reused buffers of one thread: a row's values, and its `(column, value)` pairs
/// when its columns are not increasing.
#[derive(Default)]
struct Scratch {
    values: Vec<f64>,
    pairs: Vec<(usize, f64)>,
}

impl Scratch {
    /// The moments of row `i` of `rows` (all `n_features` entries).
    fn row<R: Rows>(&mut self, rows: &R, i: usize) -> Moments {
        self.values.clear();
        let mut increasing = true;
        let mut last = None;
        rows.for_each_entry(i, |j, x| {
            increasing &= last.is_none_or(|l| j > l);
            last = Some(j);
            self.values.push(x);
        });
        if !increasing {
            // Repeated (or unsorted) columns: add up each column's values, in
            // storage order, before they count as one entry.
            self.pairs.clear();
            rows.for_each_entry(i, |j, x| self.pairs.push((j, x)));
            self.pairs.sort_by_key(|&(j, _)| j); // stable: storage order kept
            self.values.clear();
            let mut current = None;
            for &(j, x) in &self.pairs {
                if current == Some(j) {
                    if let Some(v) = self.values.last_mut() {
                        *v += x;
                    }
                } else {
                    self.values.push(x);
                    current = Some(j);
                }
            }
        }
        let stored = self.values.len() as u64;
        let zeros = (rows.n_features() as u64).saturating_sub(stored);
        Moments::of_values(&self.values).merge(Moments::zeros(zeros))
    }
}

/// The moments of all `n_rows x n_features` entries of `rows` (see the module
/// documentation), on `n_threads` threads (0: one per core), the same bits for
/// every thread count. A view made to be checked as it is read has each row checked
/// first.
///
/// # Errors
/// A row's check fails ([`Rows::check_row`]); [`Error::Interrupted`] once `monitor`
/// is stopped; the thread pool cannot be started.
pub fn moments<R: Rows>(rows: &R, n_threads: usize, monitor: &Monitor) -> Result<Moments> {
    let n = rows.n_rows();
    let mut blocks = vec![Moments::default(); n.div_ceil(BLOCK_ROWS)];
    row_blocks_with(
        &mut blocks,
        1,
        n_threads,
        monitor,
        Scratch::default,
        |scratch, first, out| {
            for (k, block) in out.iter_mut().enumerate() {
                let lo = (first + k) * BLOCK_ROWS;
                let mut acc = Pairwise::default();
                for i in lo..(lo + BLOCK_ROWS).min(n) {
                    if !rows.is_checked() {
                        rows.check_row(i)?;
                    }
                    acc.push(scratch.row(rows, i));
                }
                *block = acc.finish();
            }
            Ok(())
        },
    )?;
    Ok(Moments::merge_all(blocks))
}

/// The population variance of all the entries of `rows`, numpy's `X.var()` of the
/// dense matrix: [`moments`], then [`Moments::variance`].
///
/// # Errors
/// Those of [`moments`] and of [`Moments::variance`] (no entries; values too large).
#[cfg(test)]
pub fn variance<R: Rows>(rows: &R, n_threads: usize, monitor: &Monitor) -> Result<f64> {
    moments(rows, n_threads, monitor)?.variance()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    /// The variance written out, independently of the code above: every entry of
    /// the dense matrix, the mean, then the mean squared deviation, each sum
    /// compensated (Kahan–Neumaier: a plain running sum of 10^4 terms is already
    /// off by 1e-13 here).
    fn reference(dense: &[f64]) -> f64 {
        let n = dense.len() as f64;
        let mean = compensated(dense.iter().copied()) / n;
        compensated(dense.iter().map(|x| (x - mean) * (x - mean))) / n
    }

    fn compensated(terms: impl Iterator<Item = f64>) -> f64 {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for x in terms {
            let t = s + x;
            c += if s.abs() >= x.abs() {
                (s - t) + x
            } else {
                (x - t) + s
            };
            s = t;
        }
        s + c
    }

    /// A reproducible pseudo-random matrix (`n x d`, about `density` non-zero),
    /// values `offset + scale * u`, `u` uniform in `[-1, 1)`.
    fn matrix(n: usize, d: usize, density: f64, offset: f64, scale: f64, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::seed_from_u64(seed);
        (0..n * d)
            .map(|_| {
                if rng.next_f64() < density {
                    offset + scale * (2.0 * rng.next_f64() - 1.0)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// CSR components of a dense row-major matrix.
    fn csr(dense: &[f64], d: usize) -> (Vec<f64>, Vec<i64>, Vec<i64>) {
        let (mut data, mut indices, mut indptr) = (vec![], vec![], vec![0]);
        for row in dense.chunks(d) {
            for (j, &x) in row.iter().enumerate() {
                if x != 0.0 {
                    data.push(x);
                    indices.push(j as i64);
                }
            }
            indptr.push(data.len() as i64);
        }
        (data, indices, indptr)
    }

    /// The relative difference of `a` from `b` (0 when both are 0).
    fn rel(a: f64, b: f64) -> f64 {
        if a == b {
            0.0
        } else {
            ((a - b) / b).abs()
        }
    }

    #[test]
    fn dense_and_csr_match_a_straightforward_variance() {
        let monitor = Monitor::new();
        for (k, &(n, d, density, offset, scale)) in [
            (1, 1, 1.0, 0.5, 1.0),
            (7, 3, 1.0, 0.0, 1.0),
            (300, 8, 1.0, 3.0, 2.0),
            (1000, 13, 0.1, 0.0, 5.0),
            (513, 700, 0.02, 1.0, 1.0),
            (40, 2000, 0.5, -2.0, 0.1),
        ]
        .iter()
        .enumerate()
        {
            let x = matrix(n, d, density, offset, scale, k as u64);
            let want = reference(&x);
            let dense = variance(&DenseRows::new(&x, n, d).unwrap(), 1, &monitor).unwrap();
            let (data, indices, indptr) = csr(&x, d);
            let rows = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
            let sparse = variance(&rows, 1, &monitor).unwrap();
            assert!(rel(dense, want) < 1e-13, "{n}x{d}: {dense} vs {want}");
            assert!(rel(sparse, want) < 1e-13, "{n}x{d}: {sparse} vs {want}");
            let m = moments(&rows, 1, &monitor).unwrap();
            assert_eq!(m.count, (n * d) as u64);
            let mean = compensated(x.iter().copied()) / (n * d) as f64;
            assert!((m.mean - mean).abs() <= 1e-13 * mean.abs().max(1.0));
        }
    }

    #[test]
    fn a_large_mean_does_not_cancel_the_variance() {
        // 10^8 + k for k = 0..n: the variance is (n² - 1) / 12 exactly, while the
        // mean of the squares minus the squared mean keeps no correct digit.
        let n = 10_001usize;
        let x: Vec<f64> = (0..n).map(|k| 1e8 + k as f64).collect();
        let exact = ((n * n - 1) as f64) / 12.0;
        let monitor = Monitor::new();
        let got = variance(&DenseRows::new(&x, n, 1).unwrap(), 1, &monitor).unwrap();
        assert!(rel(got, exact) < 1e-14, "{got} vs {exact}");
        let wide = variance(&DenseRows::new(&x, 1, n).unwrap(), 1, &monitor).unwrap();
        assert!(rel(wide, exact) < 1e-14, "{wide} vs {exact}");
        let x32: Vec<f32> = (0..n).map(|k| 1e4 + (k % 100) as f32 * 0.01).collect();
        let wide: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
        let got = variance(&DenseRows::new(&x32, n, 1).unwrap(), 1, &monitor).unwrap();
        assert!(rel(got, reference(&wide)) < 1e-10);
    }

    #[test]
    fn the_bits_do_not_depend_on_the_thread_count() {
        let (n, d) = (20 * BLOCK_ROWS + 17, 9);
        let x = matrix(n, d, 0.3, 1.5, 2.0, 99);
        let (data, indices, indptr) = csr(&x, d);
        let monitor = Monitor::new();
        let dense = DenseRows::new(&x, n, d).unwrap();
        let sparse = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
        let one = (
            moments(&dense, 1, &monitor).unwrap(),
            moments(&sparse, 1, &monitor).unwrap(),
        );
        for threads in [2, 3, 0] {
            assert_eq!(moments(&dense, threads, &monitor).unwrap(), one.0);
            assert_eq!(moments(&sparse, threads, &monitor).unwrap(), one.1);
        }
        let (got, want) = (one.0.variance().unwrap(), reference(&x));
        assert!(
            rel(got, want) < 1e-13,
            "{got} {want} {}",
            one.1.variance().unwrap()
        );
    }

    #[test]
    fn repeated_and_unsorted_csr_columns_add_up_first() {
        // Row 0 is [3, 0, 2] stored as 1 + 2 in column 0, then column 2; row 1 is
        // [0, 5, 4] stored in the order 2, 1.
        let data = [2.0f32, 1.0, 2.0, 4.0, 5.0];
        let indices = [2i32, 0, 0, 2, 1];
        let indptr = [0i32, 3, 5];
        let rows = CsrRows::new(&data, &indices, &indptr, 2, 3).unwrap();
        let monitor = Monitor::new();
        let got = variance(&rows, 1, &monitor).unwrap();
        let want = reference(&[3.0, 0.0, 2.0, 0.0, 5.0, 4.0]);
        assert!(rel(got, want) < 1e-15, "{got} vs {want}");
        // Values that cancel in a column: an entry equal to zero.
        let rows = CsrRows::new(&[1.0f64, -1.0], &[0i64, 0], &[0i64, 2], 1, 2).unwrap();
        assert_eq!(variance(&rows, 1, &monitor).unwrap(), 0.0);
    }

    #[test]
    fn constant_data_has_variance_zero() {
        let monitor = Monitor::new();
        for v in [0.0, 1.0, 0.1, -3.7e5] {
            let x = vec![v; 1000];
            let got = variance(&DenseRows::new(&x, 100, 10).unwrap(), 1, &monitor).unwrap();
            assert_eq!(got.to_bits(), 0.0f64.to_bits(), "{v}");
        }
        let empty_rows = CsrRows::<f64, i32>::new(&[], &[], &[0, 0, 0], 2, 3).unwrap();
        assert_eq!(variance(&empty_rows, 1, &monitor).unwrap(), 0.0);
    }

    #[test]
    fn errors_are_typed() {
        let monitor = Monitor::new();
        let none = DenseRows::<f64>::new(&[], 0, 4).unwrap();
        assert!(matches!(
            variance(&none, 1, &monitor),
            Err(Error::InvalidInput(m)) if m.contains("without entries")
        ));
        let huge = [1e300, -1e300, 0.0];
        assert!(matches!(
            variance(&DenseRows::new(&huge, 1, 3).unwrap(), 1, &monitor),
            Err(Error::InvalidInput(m)) if m.contains("overflows")
        ));
        // A view checked as it is read: the bad row is reported, not a variance.
        let bad = [1.0, f64::NAN];
        let lazy = DenseRows::checked_when_read(&bad, 2, 1).unwrap();
        assert!(matches!(
            variance(&lazy, 1, &monitor),
            Err(Error::InvalidInput(m)) if m.contains("NaN")
        ));
        let x = vec![1.0; 4 * BLOCK_ROWS];
        let rows = DenseRows::new(&x, 4 * BLOCK_ROWS, 1).unwrap();
        assert_eq!(
            variance(&rows, 1, &Monitor::stopped()),
            Err(Error::Interrupted)
        );
    }

    #[test]
    fn merging_is_the_moments_of_the_union() {
        let x: Vec<f64> = (0..1000)
            .map(|k| f64::from((k * 37) % 101) * 0.3 - 7.0)
            .collect();
        let whole = Moments::of_values(&x);
        for cut in [0, 1, 17, 500, 999, 1000] {
            let parts = Moments::of_values(&x[..cut]).merge(Moments::of_values(&x[cut..]));
            assert_eq!(parts.count, whole.count);
            assert!(rel(parts.mean, whole.mean) < 1e-14);
            assert!(rel(parts.m2, whole.m2) < 1e-13);
        }
        assert!(rel(whole.variance().unwrap(), reference(&x)) < 1e-14);
        assert_eq!(Moments::merge_all([]), Moments::default());
    }
}
