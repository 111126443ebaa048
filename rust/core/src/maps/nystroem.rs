//! The Nyström feature map (Williams and Seeger, "Using the Nyström Method to Speed
//! Up Kernel Machines", NIPS 2001), for any kernel of the kernel solver.
//!
//! With `m` landmark rows `c_1..c_m` of the training data and `K_mm` their kernel
//! matrix, the map is `ψ(x) = L⁻¹ Pᵀ k_m(x)` where `k_m(x) = (K(x, c_j))_j` and
//! `P K_mm Pᵀ = L Lᵀ` is a Cholesky factorisation with diagonal pivoting, stopped at
//! the numerical rank `r` (pivots below `1e-10` times the largest diagonal entry
//! are dropped). Then `ψ(x)·ψ(y) = k_m(x)ᵀ K_mm⁺ k_m(y)`, the Nyström approximation
//! of `K(x, y)` (exact on the landmarks' span); the features are a rotation of the
//! `K_mm^{-1/2}` features of scikit-learn's `Nystroem`, which a linear SVM with an
//! L2 penalty cannot tell apart. Output columns `r..m` are zero.
//!
//! Landmarks are drawn uniformly without replacement, or by k-means++ seeding
//! (Arthur and Vassilvitskii 2007) in the kernel's feature space: each next
//! landmark is row `i` with probability proportional to its squared feature-space
//! distance to the nearest landmark so far, `K(x_i,x_i) + K(c,c) - 2K(x_i,c)`, which
//! spreads them over the data (Zhang, Tsang and Kwok, ICML 2008, show the Nyström
//! error is bounded by such a quantisation error). It costs `n m` kernel values,
//! computed in parallel blocks; the draws come from the crate's portable generator.
//!
//! The factorisation and the inverse `L⁻¹` are blocked in panels of 64 columns,
//! their trailing updates done by register-tiled products (`panel_product`), with
//! every entry's terms in the same order as the textbook algorithm's. The transform
//! evaluates `k_m(x)` for a block of rows (for inner-product kernels on dense-ish
//! data: the block's stored entries times the landmarks; on very sparse data the
//! same product for the features most landmarks store, and lists of landmark
//! entries for the rest), then multiplies by the
//! triangular `L⁻ᵀ` in the output's precision: about `r² / 2` multiply-adds per row.

use crate::monitor::Monitor;

use rayon::prelude::*;

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::kernels::function::{InvertedBlock, Kernel, KernelRows, Targets};
use crate::kernels::gram::Gram;
use crate::maps::panel_product::{
    lower_rank_update, sparse_product, subtract_lower_product, upper_product, Panel, SparseBlock,
    TiledPanel,
};
use crate::parallel::{check_cancel, row_blocks, row_blocks_with, thread_pool, ROW_BLOCK};
use crate::rng::Rng;

/// Pivots below this fraction of the largest diagonal entry end the factorisation.
const RANK_TOL: f64 = 1e-10;
/// Columns per panel of the blocked Cholesky factorisation.
const CHOLESKY_PANEL: usize = 64;
/// Rows per parallel task when computing one landmark's kernel column.
const COLUMN_BLOCK: usize = 4096;

/// How the landmarks are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landmarks {
    /// `m` distinct rows, uniformly (a partial Fisher–Yates shuffle).
    Uniform,
    /// k-means++ seeding in the kernel's feature space.
    KMeansPlusPlus,
    /// Every row (`m` must be the number of rows): the caller chose them.
    All,
}

/// The landmarks [`Landmarks::Uniform`] picks among `n` rows, sorted; they need no
/// kernel values, so a caller can draw them before touching the data.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `1 <= m <= n < 2^32`.
pub fn uniform_landmarks(n: usize, m: usize, seed: u64) -> Result<Vec<u32>> {
    check_sizes(n, m)?;
    let mut chosen = uniform(&mut Rng::seed_from_u64(seed), n, m)?;
    chosen.sort_unstable();
    Ok(chosen)
}

fn check_sizes(n: usize, m: usize) -> Result<()> {
    if m == 0 || m > n {
        return Err(Error::InvalidParameter(format!(
            "n_components must be between 1 and the number of training rows ({n}), got {m}"
        )));
    }
    if u32::try_from(n).is_err() {
        return Err(Error::InvalidInput(format!(
            "{n} rows: at most 2^32 - 1 supported"
        )));
    }
    Ok(())
}

/// A fitted normalisation: `psi(x)_r = sum_j columns[j][r] K(x, c_j)` for `r` in
/// `starts[j]..rank`.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalization {
    /// Number of landmarks `m` (the output width).
    pub m: usize,
    /// Numerical rank `r` of `K_mm`.
    pub rank: usize,
    /// Row-major `(m, m)`: row `j` holds landmark `j`'s coefficients on the outputs
    /// (zero before `starts[j]`, and everywhere for landmarks beyond the rank).
    pub columns: Vec<f64>,
}

impl Normalization {
    /// First output each landmark contributes to (`m` for a dropped landmark).
    #[must_use]
    pub fn starts(&self) -> Vec<usize> {
        (0..self.m)
            .map(|j| {
                let row = &self.columns[j * self.m..(j + 1) * self.m];
                row.iter().position(|&v| v != 0.0).unwrap_or(self.m)
            })
            .collect()
    }
}

/// Kernel values between rows and the landmark rows, by the fastest route for the
/// data: for the inner-product kernels on dense-ish data (at least 10 % non-zeros,
/// `d m <= 2^24`), the product of each block of rows' stored entries with the
/// landmarks transposed; for very sparse data an inverted index over the landmarks
/// (for the inner-product kernels split in two: the features many landmarks store
/// as dense rows through the same product, the rest as lists); pairwise evaluation
/// otherwise.
pub struct LandmarkKernel<'a, R: Rows> {
    prep: KernelRows<'a, R>,
    route: Route,
}

enum Route {
    /// The landmarks transposed, `d x m`.
    Product(TiledPanel<'static, f64>),
    Split(SplitIndex),
    Inverted(InvertedBlock),
    Pairs,
}

/// A feature stored by at least `1 / DENSE_SHARE` of the landmarks goes to the
/// dense part of a [`SplitIndex`]: a dense row costs a fraction of a cycle per
/// landmark in the register-tiled product, a list entry several cycles. Measured on
/// RCV1-shaped rows (m = 128 and 512), 8 beat 4, 16, 32 and 64.
const DENSE_SHARE: usize = 8;

/// The landmarks of very sparse data indexed by feature in two parts: the features
/// many landmarks store (text's frequent terms, where most of the matches between a
/// row and the landmarks are) as dense rows of a `h x m` matrix, multiplied with a
/// block of rows' entries by the register-tiled sparse product; the rest as lists
/// of (landmark, value), scattered. Inner products only.
struct SplitIndex {
    /// Feature `j`'s row of `dense`, or `u32::MAX` when it is listed.
    dense_row: Vec<u32>,
    dense: TiledPanel<'static, f64>,
    /// Feature `j`'s entries are `lists[starts[j]..starts[j + 1]]`.
    starts: Vec<usize>,
    lists: Vec<(u32, f64)>,
}

impl SplitIndex {
    fn new<R: Rows>(landmarks: &R) -> Result<Self> {
        let (m, d) = (landmarks.n_rows(), landmarks.n_features());
        let mut count = vec![0_usize; d];
        let mut stored = 0_usize;
        for c in 0..m {
            landmarks.for_each_entry(c, |j, v| {
                if v != 0.0 {
                    count[j] += 1;
                    stored += 1;
                }
            });
        }
        let min_dense = (m / DENSE_SHARE).max(2);
        let mut dense_row = vec![u32::MAX; d];
        let mut h = 0_u32;
        let mut dense_stored = 0;
        for (j, &k) in count.iter().enumerate() {
            if k >= min_dense {
                dense_row[j] = h;
                h += 1;
                dense_stored += k;
            }
        }
        // The dense rows a block of rows touches, for the product's tiling.
        #[allow(clippy::cast_precision_loss)]
        let row_nonzeros = dense_stored as f64 / m.max(1) as f64;
        let mut dense = TiledPanel::zeros(h as usize, m, row_nonzeros, "the landmarks")?;
        let mut starts = vec![0_usize; d + 1];
        for j in 0..d {
            let listed = if dense_row[j] == u32::MAX {
                count[j]
            } else {
                0
            };
            starts[j + 1] = starts[j] + listed;
        }
        let mut lists = try_filled_vec(stored - dense_stored, (0_u32, 0.0), "the landmarks")?;
        let mut next = starts.clone();
        for c in 0..m {
            landmarks.for_each_entry(c, |j, v| {
                if v != 0.0 {
                    if dense_row[j] == u32::MAX {
                        #[allow(clippy::cast_possible_truncation)] // m < 2^32 rows
                        let entry = (c as u32, v);
                        lists[next[j]] = entry;
                        next[j] += 1;
                    } else {
                        dense.add(dense_row[j] as usize, c, v);
                    }
                }
            });
        }
        Ok(Self {
            dense_row,
            dense,
            starts,
            lists,
        })
    }

    /// `out[r][c] = <x_r, c_c>` for the rows of `a` (`out` row-major, `m` wide).
    fn inner_products(&self, a: &SparseBlock<f64>, out: &mut [f64], m: usize) {
        out.fill(0.0);
        let dense_part = a.map_columns(|j| {
            let h = self.dense_row[j];
            (h != u32::MAX).then_some(h as usize)
        });
        sparse_product(&dense_part, &self.dense, out, m);
        for (r, o) in out.chunks_mut(m).enumerate() {
            let (cols, vals) = a.row(r);
            for (&j, &v) in cols.iter().zip(vals) {
                for &(c, w) in &self.lists[self.starts[j]..self.starts[j + 1]] {
                    o[c as usize] += v * w;
                }
            }
        }
    }
}

impl<'a, R: Rows> LandmarkKernel<'a, R> {
    /// Prepare `kernel` against the landmark rows.
    ///
    /// # Errors
    /// Errors of [`KernelRows::new`].
    pub fn new(kernel: Kernel, landmarks: &'a R) -> Result<Self> {
        let prep = KernelRows::new(kernel, landmarks)?;
        let (m, d) = (landmarks.n_rows(), landmarks.n_features());
        #[allow(clippy::cast_precision_loss)]
        let dense = prep.mean_row_nonzeros() >= 0.1 * d as f64;
        let route = if kernel.is_dot_product() && dense && d.saturating_mul(m) <= 1 << 24 {
            let mut ct = TiledPanel::zeros(d, m, prep.mean_row_nonzeros(), "the landmarks")?;
            for c in 0..m {
                landmarks.for_each_entry(c, |j, v| ct.add(j, c, v));
            }
            Route::Product(ct)
        } else if kernel.is_dot_product() && prep.prefers_inverted() {
            Route::Split(SplitIndex::new(landmarks)?)
        } else if prep.prefers_inverted() {
            let mut block = prep.block();
            #[allow(clippy::cast_possible_truncation)]
            let all: Vec<u32> = (0..m as u32).collect();
            prep.set_block(&mut block, &all);
            Route::Inverted(block)
        } else {
            Route::Pairs
        };
        Ok(Self { prep, route })
    }

    /// `out[r][j] = K(x_{first + r}, c_j)`, row-major (`out.len() / m` rows of `x`
    /// from `first`).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `x` has another number of features.
    pub fn eval_rows<Q: Rows>(&self, x: &Q, first: usize, out: &mut [f64]) -> Result<()> {
        let m = self.prep.len();
        if m == 0 {
            return Ok(());
        }
        let rows = out.len() / m;
        let d = self.prep.n_features();
        if x.n_features() != d {
            return Err(Error::ShapeMismatch(format!(
                "X has {} features, the landmarks {d}",
                x.n_features()
            )));
        }
        match &self.route {
            Route::Product(_) | Route::Split(_) => {
                let a = SparseBlock::<f64>::gather(x, first, rows);
                if let Route::Product(ct) = &self.route {
                    out.fill(0.0);
                    sparse_product(&a, ct, out, m);
                } else if let Route::Split(index) = &self.route {
                    index.inner_products(&a, out, m);
                }
                for (r, o) in out.chunks_mut(m).enumerate() {
                    let sq = a.row(r).1.iter().map(|v| v * v).sum();
                    self.prep.finish_dot_products(o, sq);
                }
            }
            Route::Inverted(block) => {
                let mut q = self.prep.query();
                for (r, o) in out.chunks_mut(m).enumerate() {
                    self.prep.load(&mut q, x, first + r)?;
                    self.prep.eval_block_loaded(block, &q, o);
                }
            }
            Route::Pairs => {
                let mut q = self.prep.query();
                for (r, o) in out.chunks_mut(m).enumerate() {
                    self.prep.load(&mut q, x, first + r)?;
                    self.prep.eval_into(&q, Targets::Range(0), o);
                }
            }
        }
        Ok(())
    }
}

/// Choose `m` landmark rows of the training Gram matrix `gram`, returned sorted.
///
/// # Errors
/// [`Error::InvalidParameter`] when `m` is 0 or exceeds the number of rows;
/// [`Error::Interrupted`] when `monitor` is stopped; [`Error::OutOfMemory`].
pub fn select_landmarks<G: Gram>(
    gram: &G,
    m: usize,
    how: Landmarks,
    seed: u64,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<u32>> {
    let n = gram.n();
    check_sizes(n, m)?;
    let mut rng = Rng::seed_from_u64(seed);
    let mut chosen = match how {
        Landmarks::Uniform => uniform(&mut rng, n, m)?,
        Landmarks::KMeansPlusPlus => kmeans_pp(gram, &mut rng, m, n_threads, monitor)?,
        Landmarks::All if m == n => (0..n as u32).collect(),
        Landmarks::All => {
            return Err(Error::InvalidParameter(format!(
                "all {n} rows are landmarks, but n_components is {m}"
            )))
        }
    };
    chosen.sort_unstable();
    Ok(chosen)
}

/// `m` distinct indices of `0..n` by the first `m` steps of a Fisher–Yates shuffle.
#[allow(clippy::cast_possible_truncation)] // n < 2^32 checked by the caller
fn uniform(rng: &mut Rng, n: usize, m: usize) -> Result<Vec<u32>> {
    let mut all = try_filled_vec(n, 0_u32, "the row indices")?;
    for (i, v) in all.iter_mut().enumerate() {
        *v = i as u32;
    }
    for i in 0..m {
        let j = i + rng.below((n - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(m);
    Ok(all)
}

/// `out[i] = K(x_i, x_c)` for all rows, in parallel blocks.
fn kernel_column<G: Gram>(gram: &G, c: usize, out: &mut [f64]) -> Result<()> {
    out.par_chunks_mut(COLUMN_BLOCK)
        .enumerate()
        .try_for_each(|(b, chunk)| {
            let mut q = gram.query();
            gram.load(&mut q, c)?;
            gram.eval_into(&q, c, Targets::Range(b * COLUMN_BLOCK), chunk);
            Ok(())
        })
}

fn self_kernel<G: Gram>(gram: &G, i: usize) -> Result<f64> {
    let mut q = gram.query();
    gram.load(&mut q, i)?;
    let mut v = [0.0];
    #[allow(clippy::cast_possible_truncation)]
    gram.eval_into(&q, i, Targets::List(&[i as u32]), &mut v);
    Ok(v[0])
}

#[allow(clippy::cast_possible_truncation)] // n < 2^32 checked by the caller
fn kmeans_pp<G: Gram>(
    gram: &G,
    rng: &mut Rng,
    m: usize,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<u32>> {
    let n = gram.n();
    let mut diag = try_filled_vec(n, 0.0, "the kernel diagonal")?;
    let mut dist = try_filled_vec(n, f64::INFINITY, "the landmark distances")?;
    let mut column = try_filled_vec(n, 0.0, "a kernel column")?;
    let mut taken = try_filled_vec(n, false, "the landmark flags")?;
    let mut chosen = Vec::with_capacity(m);
    thread_pool(n_threads)?.install(|| -> Result<()> {
        diag.par_chunks_mut(COLUMN_BLOCK)
            .enumerate()
            .try_for_each(|(b, chunk)| {
                for (r, v) in chunk.iter_mut().enumerate() {
                    *v = self_kernel(gram, b * COLUMN_BLOCK + r)?;
                }
                Ok(())
            })?;
        let mut next = rng.below(n as u64) as usize;
        loop {
            if monitor.is_stopped() {
                return Err(Error::Interrupted);
            }
            chosen.push(next as u32);
            taken[next] = true;
            if chosen.len() == m {
                return Ok(());
            }
            kernel_column(gram, next, &mut column)?;
            let kcc = diag[next];
            for i in 0..n {
                let d2 = (diag[i] + kcc - 2.0 * column[i]).max(0.0);
                if d2 < dist[i] {
                    dist[i] = d2;
                }
            }
            // D² sampling over the rows not yet chosen (their distance is 0 anyway);
            // if every remaining row coincides with a landmark, uniformly among them.
            let total: f64 = (0..n).filter(|&i| !taken[i]).map(|i| dist[i]).sum();
            next = if total > 0.0 {
                let u = rng.next_f64() * total;
                let mut acc = 0.0;
                let mut pick = None;
                for i in (0..n).filter(|&i| !taken[i]) {
                    acc += dist[i];
                    if acc > u && dist[i] > 0.0 {
                        pick = Some(i);
                        break;
                    }
                }
                // Rounding can leave u at the very end: the last positive row.
                pick.unwrap_or_else(|| {
                    (0..n)
                        .rev()
                        .find(|&i| !taken[i] && dist[i] > 0.0)
                        .unwrap_or(0)
                })
            } else {
                let free: Vec<usize> = (0..n).filter(|&i| !taken[i]).collect();
                free[rng.below(free.len() as u64) as usize]
            };
        }
    })?;
    Ok(chosen)
}

/// `K_mm` of the landmarks (row-major), from the Gram matrix of the training rows.
///
/// # Errors
/// [`Error::OutOfMemory`]; errors of the Gram matrix.
pub fn landmark_kernel<G: Gram>(
    gram: &G,
    landmarks: &[u32],
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let m = landmarks.len();
    let mut kmm = try_filled_vec(m * m, 0.0, "the landmark kernel matrix")?;
    kmm.par_chunks_mut(m.max(1))
        .zip(landmarks.par_iter())
        .try_for_each(|(row, &a)| {
            check_cancel(monitor)?;
            let mut q = gram.query();
            gram.load(&mut q, a as usize)?;
            gram.eval_into(&q, a as usize, Targets::List(landmarks), row);
            Ok(())
        })?;
    Ok(kmm)
}

/// The normalisation of the module documentation from `K_mm` (row-major `m x m`;
/// only the lower triangle is read).
///
/// # Errors
/// [`Error::InvalidInput`] when `K_mm` has a non-finite value or no positive
/// diagonal entry (then every landmark maps to zero).
pub fn normalization(kmm: &[f64], m: usize, monitor: &Monitor) -> Result<Normalization> {
    if kmm.len() != m * m || m == 0 {
        return Err(Error::ShapeMismatch(format!(
            "a {m} x {m} landmark kernel needs {} values, got {}",
            m * m,
            kmm.len()
        )));
    }
    if kmm.iter().any(|v| !v.is_finite()) {
        return Err(Error::InvalidInput(
            "the kernel between the landmarks has NaN or infinite values".into(),
        ));
    }
    let max_diag = (0..m).map(|i| kmm[i * m + i]).fold(0.0, f64::max);
    if max_diag <= 0.0 {
        return Err(Error::InvalidInput(
            "the kernel between the landmarks has no positive diagonal entry".into(),
        ));
    }
    let (a, perm, rank) = pivoted_cholesky(kmm, m, RANK_TOL * max_diag, monitor)?;
    // inv = L⁻¹ (rank x rank, lower triangular), row by row: row i is
    // (e_i - sum_{k<i} L_ik inv_k) / L_ii, each inv_k non-zero up to column k. In
    // blocks of rows: the terms of the earlier blocks by one product (against their
    // rows, also kept in panels as the product reads them), then the block's own
    // terms row by row; each entry sees its terms in order of k either way.
    let mut inv = vec![0.0; rank * rank];
    let mut panels = Panel::<f64>::zeros(rank, rank);
    let mut i0 = 0;
    while i0 < rank {
        check_cancel(monitor)?;
        let i1 = (i0 + CHOLESKY_PANEL).min(rank);
        for i in i0..i1 {
            inv[i * rank + i] = 1.0;
        }
        let block = &mut inv[i0 * rank..i1 * rank];
        subtract_lower_product(&a[i0 * m..], m, i0, &panels, block, rank);
        for i in i0..i1 {
            let (before, rest) = block.split_at_mut((i - i0) * rank);
            let row = &mut rest[..rank];
            for k in i0..i {
                let l = a[i * m + k];
                if l != 0.0 {
                    let inv_k = &before[(k - i0) * rank..=(k - i0) * rank + k];
                    for (v, &w) in row[..=k].iter_mut().zip(inv_k) {
                        *v -= l * w;
                    }
                }
            }
            let lii = a[i * m + i];
            for v in &mut row[..=i] {
                *v /= lii;
            }
        }
        for i in i0..i1 {
            for c in 0..=i {
                panels.set(i, c, inv[i * rank + c]);
            }
        }
        i0 = i1;
    }
    // columns[landmark perm[c]][r] = inv[r][c].
    let mut columns = vec![0.0; m * m];
    for c in 0..rank {
        let row = &mut columns[perm[c] * m..(perm[c] + 1) * m];
        for r in c..rank {
            row[r] = inv[r * rank + c];
        }
    }
    Ok(Normalization { m, rank, columns })
}

/// The kernel between every pair of the rows of `x` (the landmarks themselves) by
/// the route [`LandmarkKernel`] picks for them, so that for inner-product kernels
/// on dense-ish rows it is one product; row blocks in parallel.
///
/// # Errors
/// Errors of [`LandmarkKernel::new`]; [`Error::OutOfMemory`].
pub fn landmark_kernel_rows<R: Rows>(
    kernel: Kernel,
    x: &R,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let m = x.n_rows();
    let route = LandmarkKernel::new(kernel, x)?;
    let mut kmm = try_filled_vec(m * m, 0.0, "the landmark kernel matrix")?;
    row_blocks(&mut kmm, m.max(1), n_threads, monitor, |first, block| {
        route.eval_rows(x, first, block)
    })?;
    Ok(kmm)
}

/// The pivoted Cholesky factorisation `P K Pᵀ = L Lᵀ` of the symmetric `m x m`
/// matrix `kmm`, stopped when the largest remaining diagonal is at most `tol`:
/// `(a, perm, rank)` with `L` in the lower triangle of row-major `a` (its first
/// `rank` columns) and `perm[k]` the row of `kmm` pivoted to position `k`.
fn pivoted_cholesky(
    kmm: &[f64],
    m: usize,
    tol: f64,
    monitor: &Monitor,
) -> Result<(Vec<f64>, Vec<usize>, usize)> {
    let mut a = kmm.to_vec();
    let mut perm: Vec<usize> = (0..m).collect();
    let mut rank = 0;
    // Blocked in panels of CHOLESKY_PANEL columns: within a panel each column is
    // finished left-looking from the panel's earlier columns, and the diagonal `d`
    // is kept up to date for the pivot choice; after the panel one product updates
    // the trailing matrix. Every entry sees the same subtractions in the same order
    // as the unblocked right-looking algorithm, so the factor is the same.
    let mut d = vec![0.0; m]; // set from the diagonal at each panel's start
    let mut k0 = 0;
    'panels: while k0 < m {
        check_cancel(monitor)?;
        let k1 = (k0 + CHOLESKY_PANEL).min(m);
        for i in k0..m {
            d[i] = a[i * m + i];
        }
        for k in k0..k1 {
            let (p, best) = (k..m)
                .map(|i| (i, d[i]))
                .fold(
                    (k, f64::NEG_INFINITY),
                    |acc, x| if x.1 > acc.1 { x } else { acc },
                );
            if best <= tol {
                break 'panels;
            }
            if p != k {
                swap_sym(&mut a, m, k, p);
                d.swap(k, p);
                perm.swap(k, p);
            }
            let lkk = d[k].sqrt();
            a[k * m + k] = lkk;
            let (head, tail) = a.split_at_mut((k + 1) * m);
            let row_k = &head[k * m + k0..k * m + k];
            for (row, di) in tail.chunks_mut(m).zip(&mut d[k + 1..]) {
                let mut v = row[k];
                for (&l, &lk) in row[k0..k].iter().zip(row_k) {
                    v -= l * lk;
                }
                let lik = v / lkk;
                row[k] = lik;
                *di -= lik * lik;
            }
            rank = k + 1;
        }
        lower_rank_update(&mut a, m, k0, k1);
        k0 = k1;
    }
    Ok((a, perm, rank))
}

/// Swap rows/columns `k < p` of the symmetric matrix held in the lower triangle of
/// `a` (only the entries of rows and columns `>= k` matter: the earlier columns of
/// rows `k` and `p` hold factor entries, swapped too).
fn swap_sym(a: &mut [f64], m: usize, k: usize, p: usize) {
    for j in 0..k {
        a.swap(k * m + j, p * m + j);
    }
    a.swap(k * m + k, p * m + p);
    for i in k + 1..p {
        a.swap(i * m + k, p * m + i);
    }
    for i in p + 1..m {
        a.swap(i * m + k, i * m + p);
    }
}

/// `psi(x_i)` for `n` rows, row-major `(n, m)` in `O`: `kernels(first, out)` writes
/// `K(x_i, c_j)` for the rows `i = first, first + 1, ...` of a block, row-major
/// (`out.len() / m` rows); `columns` is [`Normalization::columns`] in `O` and
/// `starts` its [`Normalization::starts`].
///
/// # Errors
/// [`Error::ShapeMismatch`] when the parts disagree; [`Error::Interrupted`] when
/// `monitor` is stopped; errors of `kernels`; [`Error::OutOfMemory`].
pub fn nystroem_transform<O, F>(
    n: usize,
    columns: &[O],
    starts: &[usize],
    kernels: F,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<O>>
where
    O: Float,
    F: Fn(usize, &mut [f64]) -> Result<()> + Sync,
{
    let len = n
        .checked_mul(starts.len())
        .ok_or_else(|| Error::OutOfMemory(format!("a {n} x {} feature matrix", starts.len())))?;
    let mut out = try_filled_vec(len, O::ZERO, "the transformed features")?;
    nystroem_transform_into(&mut out, columns, starts, kernels, n_threads, monitor)?;
    Ok(out)
}

/// [`nystroem_transform`] into `out` (`n x m` for `n = out.len() / m`, whatever it
/// holds before): for a caller that owns the output's memory.
///
/// # Errors
/// As [`nystroem_transform`].
pub fn nystroem_transform_into<O, F>(
    out: &mut [O],
    columns: &[O],
    starts: &[usize],
    kernels: F,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<()>
where
    O: Float,
    F: Fn(usize, &mut [f64]) -> Result<()> + Sync,
{
    let m = starts.len();
    if m == 0 || columns.len() != m * m || starts.iter().any(|&s| s > m) || out.len() % m != 0 {
        return Err(Error::ShapeMismatch(format!(
            "a normalisation for {m} landmarks needs {} coefficients, got {}, and an \
             output of whole rows, got {} values",
            m * m,
            columns.len(),
            out.len()
        )));
    }
    if out.is_empty() {
        return Ok(());
    }
    // U = L⁻ᵀ in pivot order: row p is the landmark whose outputs start at p.
    let mut perm = vec![usize::MAX; m];
    for (j, &s) in starts.iter().enumerate() {
        if s < m {
            if perm[s] != usize::MAX {
                return Err(Error::ShapeMismatch(
                    "the normalisation is not triangular in a landmark order".into(),
                ));
            }
            perm[s] = j;
        }
    }
    let rank = perm.iter().take_while(|&&j| j != usize::MAX).count();
    let mut u = Panel::<O>::zeros(rank, rank);
    for (p, &j) in perm[..rank].iter().enumerate() {
        for (c, &v) in columns[j * m..j * m + rank].iter().enumerate().skip(p) {
            u.set(p, c, v);
        }
    }
    // Scratch reused by a thread's blocks: the kernel values, then in pivot order.
    let scratch = || (vec![0.0; ROW_BLOCK * m], vec![O::ZERO; ROW_BLOCK * rank]);
    row_blocks_with(
        out,
        m,
        n_threads,
        monitor,
        scratch,
        |(k, a), first, block| {
            let rows = block.len() / m;
            let (k, a) = (&mut k[..rows * m], &mut a[..rows * rank]);
            kernels(first, k)?;
            for (ar, kr) in a.chunks_mut(rank.max(1)).zip(k.chunks(m)) {
                for (v, &j) in ar.iter_mut().zip(&perm[..rank]) {
                    *v = O::from_f64(kr[j]);
                }
            }
            block.fill(O::ZERO);
            upper_product(a, rows, rank, &u, block, m);
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;
    use crate::kernels::function::{Kernel, KernelRows};
    use crate::kernels::gram::{DataGram, PrecomputedGram};

    fn data(n: usize, d: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::seed_from_u64(seed);
        (0..n * d).map(|_| rng.next_f64() * 2.0 - 1.0).collect()
    }

    fn rbf(x: &[f64], d: usize, a: usize, b: usize, gamma: f64) -> f64 {
        let s: f64 = (0..d).map(|j| (x[a * d + j] - x[b * d + j]).powi(2)).sum();
        (-gamma * s).exp()
    }

    #[test]
    fn full_rank_landmarks_reproduce_the_kernel_on_the_training_rows() {
        let (n, d, gamma) = (40, 3, 0.7);
        let x = data(n, d, 2);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let gram = DataGram::new(
            &rows,
            KernelRows::new(Kernel::Rbf { gamma }, &rows).unwrap(),
        );
        let monitor = Monitor::new();
        for how in [Landmarks::Uniform, Landmarks::KMeansPlusPlus] {
            let lm = select_landmarks(&gram, n, how, 5, 2, &monitor).unwrap();
            assert_eq!(lm, (0..40).collect::<Vec<u32>>(), "all rows, sorted");
            let all = select_landmarks(&gram, n, Landmarks::All, 5, 1, &monitor).unwrap();
            assert_eq!(all, lm);
            let kmm = landmark_kernel(&gram, &lm, &Monitor::new()).unwrap();
            let norm = normalization(&kmm, n, &Monitor::new()).unwrap();
            assert_eq!(norm.rank, n);
            let starts = norm.starts();
            let f = |first: usize, out: &mut [f64]| {
                out.copy_from_slice(&kmm[first * n..first * n + out.len()]);
                Ok(())
            };
            let z = nystroem_transform(n, &norm.columns, &starts, f, 1, &monitor).unwrap();
            for a in 0..n {
                for b in 0..n {
                    let approx: f64 = (0..n).map(|r| z[a * n + r] * z[b * n + r]).sum();
                    let exact = rbf(&x, d, a, b, gamma);
                    assert!(
                        (approx - exact).abs() < 1e-7,
                        "{a},{b}: {approx} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_landmark_kernel_route_gives_the_pairwise_values() {
        use crate::data::rows::CsrRows;
        let mut rng = Rng::seed_from_u64(11);
        // (rows, features, density, landmarks): dense-ish (product route), very
        // sparse (split route for the inner-product kernels, inverted for chi2), in
        // between (pairs route); the last with its first 8 features stored by most
        // rows (the split route's dense part) and the rest by 1 %.
        for (n, d, density, m) in [
            (70, 12, 0.6, 9),
            (70, 400, 0.01, 9),
            (70, 40, 0.05, 9),
            (200, 1200, 0.01, 64),
        ] {
            let x: Vec<f64> = (0..n * d)
                .map(|k| {
                    let p = if m == 64 && k % d < 8 { 0.7 } else { density };
                    if rng.next_f64() < p {
                        rng.next_f64()
                    } else {
                        0.0
                    }
                })
                .collect();
            let (data, idx, ptr) = crate::test_support::to_csr::<i64>(&x, n, d);
            let csr = CsrRows::new(&data, &idx, &ptr, n, d).unwrap();
            let dense = DenseRows::new(&x, n, d).unwrap();
            let comp = DenseRows::new(&x[..m * d], m, d).unwrap();
            for kernel in [
                Kernel::Linear,
                Kernel::Rbf { gamma: 0.3 },
                Kernel::Poly {
                    gamma: 0.5,
                    coef0: 1.0,
                    degree: 3,
                },
                Kernel::Chi2 { gamma: 0.7 },
            ] {
                let lk = LandmarkKernel::new(kernel, &comp).unwrap();
                if let (Route::Split(index), 64) = (&lk.route, m) {
                    // Both parts in use: the frequent features dense, the rest listed.
                    assert!(index.dense_row[..8].iter().all(|&h| h != u32::MAX));
                    assert!(index.lists.len() > 100, "{}", index.lists.len());
                }
                let prep = KernelRows::new(kernel, &comp).unwrap();
                let mut q = prep.query();
                let mut got = vec![0.0; 5 * m];
                for first in [0, 40] {
                    lk.eval_rows(&dense, first, &mut got).unwrap();
                    let mut from_csr = vec![0.0; 5 * m];
                    lk.eval_rows(&csr, first, &mut from_csr).unwrap();
                    for r in 0..5 {
                        let mut want = vec![0.0; m];
                        prep.load(&mut q, &dense, first + r).unwrap();
                        prep.eval_into(&q, Targets::Range(0), &mut want);
                        for j in 0..m {
                            let (a, b, c) = (got[r * m + j], from_csr[r * m + j], want[j]);
                            assert!(
                                (a - c).abs() <= 1e-12 * c.abs().max(1.0),
                                "{kernel:?} {a} {c}"
                            );
                            assert!(
                                (b - c).abs() <= 1e-12 * c.abs().max(1.0),
                                "{kernel:?} {b} {c}"
                            );
                        }
                    }
                }
            }
            let wrong = DenseRows::new(&x[..d - 1], 1, d - 1).unwrap();
            let lk = LandmarkKernel::new(Kernel::Linear, &comp).unwrap();
            assert!(lk.eval_rows(&wrong, 0, &mut vec![0.0; m]).is_err());
        }
    }

    #[test]
    fn blocked_cholesky_is_the_unblocked_right_looking_factor() {
        // Rank 100 of 150 (past two panels), from random features.
        let (m, r) = (150, 100);
        let f = data(m, r, 21);
        let mut k = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                k[i * m + j] = (0..r).map(|t| f[i * r + t] * f[j * r + t]).sum();
            }
        }
        let tol = 1e-10 * (0..m).map(|i| k[i * m + i]).fold(0.0, f64::max);
        let (a, perm, rank) = pivoted_cholesky(&k, m, tol, &Monitor::new()).unwrap();
        // The textbook algorithm: a rank-one update of the trailing matrix per column.
        let mut b = k.clone();
        let mut bperm: Vec<usize> = (0..m).collect();
        let mut brank = 0;
        for c in 0..m {
            let p = (c..m).fold(c, |p, i| if b[i * m + i] > b[p * m + p] { i } else { p });
            if b[p * m + p] <= tol {
                break;
            }
            if p != c {
                swap_sym(&mut b, m, c, p);
                bperm.swap(c, p);
            }
            let lcc = b[c * m + c].sqrt();
            b[c * m + c] = lcc;
            for i in c + 1..m {
                b[i * m + c] /= lcc;
            }
            for i in c + 1..m {
                for j in c + 1..=i {
                    b[i * m + j] -= b[i * m + c] * b[j * m + c];
                }
            }
            brank = c + 1;
        }
        assert_eq!((rank, &perm), (brank, &bperm));
        assert!((95..=100).contains(&rank), "rank {rank}");
        for i in 0..m {
            for c in 0..rank.min(i + 1) {
                assert_eq!(
                    a[i * m + c].to_bits(),
                    b[i * m + c].to_bits(),
                    "L[{i}][{c}]"
                );
            }
        }
        // The blocked inverse equals the row-by-row one (up to the sign of zeros).
        let mut inv = vec![0.0; rank * rank];
        for i in 0..rank {
            let (done, rest) = inv.split_at_mut(i * rank);
            let row = &mut rest[..rank];
            row[i] = 1.0;
            for c in 0..i {
                for t in 0..=c {
                    row[t] -= b[i * m + c] * done[c * rank + t];
                }
            }
            for v in &mut row[..=i] {
                *v /= b[i * m + i];
            }
        }
        let norm = normalization(&k, m, &Monitor::new()).unwrap();
        assert_eq!(norm.rank, rank);
        for c in 0..rank {
            for r in c..rank {
                let got = norm.columns[perm[c] * m + r];
                assert_eq!(got, inv[r * rank + c], "inv[{r}][{c}]");
            }
        }
    }

    #[test]
    fn rank_deficient_landmarks_keep_the_projection() {
        // The linear kernel in 2 dimensions: K_mm has rank 2 whatever m is.
        let (n, d, m) = (30, 2, 6);
        let x = data(n, d, 4);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
        let monitor = Monitor::new();
        let lm = select_landmarks(&gram, m, Landmarks::Uniform, 1, 1, &monitor).unwrap();
        let kmm = landmark_kernel(&gram, &lm, &Monitor::new()).unwrap();
        let norm = normalization(&kmm, m, &Monitor::new()).unwrap();
        assert_eq!(norm.rank, 2);
        let starts = norm.starts();
        let kernels = |first: usize, out: &mut [f64]| {
            for (r, row) in out.chunks_mut(m).enumerate() {
                let i = first + r;
                for (o, &c) in row.iter_mut().zip(&lm) {
                    let c = c as usize;
                    *o = (0..d).map(|j| x[i * d + j] * x[c * d + j]).sum();
                }
            }
            Ok(())
        };
        let z = nystroem_transform(n, &norm.columns, &starts, kernels, 2, &monitor).unwrap();
        for a in 0..n {
            assert!(z[a * m + 2..(a + 1) * m].iter().all(|&v| v == 0.0));
            for b in 0..n {
                let approx: f64 = (0..m).map(|r| z[a * m + r] * z[b * m + r]).sum();
                let exact: f64 = (0..d).map(|j| x[a * d + j] * x[b * d + j]).sum();
                assert!((approx - exact).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn kmeans_pp_is_seeded_spreads_out_and_works_on_precomputed_kernels() {
        // Two tight clusters far apart: k-means++ with 2 landmarks takes one of each.
        let (n, d) = (200, 2);
        let mut x = data(n, d, 8);
        for i in 0..n {
            let shift = if i < 190 { 0.0 } else { 50.0 };
            x[i * d] = x[i * d] * 0.01 + shift;
            x[i * d + 1] *= 0.01;
        }
        let rows = DenseRows::new(&x, n, d).unwrap();
        let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
        let monitor = Monitor::new();
        for seed in 0..5 {
            let lm =
                select_landmarks(&gram, 2, Landmarks::KMeansPlusPlus, seed, 2, &monitor).unwrap();
            assert!(lm[0] < 190 && lm[1] >= 190, "seed {seed}: {lm:?}");
            let again =
                select_landmarks(&gram, 2, Landmarks::KMeansPlusPlus, seed, 1, &monitor).unwrap();
            assert_eq!(lm, again, "thread-count independent");
        }
        let k: Vec<f64> = (0..n * n)
            .map(|t| {
                (0..d)
                    .map(|j| x[(t / n) * d + j] * x[(t % n) * d + j])
                    .sum()
            })
            .collect();
        let pre = PrecomputedGram::new(&k, n, n).unwrap();
        let a = select_landmarks(&pre, 7, Landmarks::KMeansPlusPlus, 3, 1, &monitor).unwrap();
        let b = select_landmarks(&gram, 7, Landmarks::KMeansPlusPlus, 3, 1, &monitor).unwrap();
        assert_eq!(a, b, "the same draws from the same kernel values");
        assert!(select_landmarks(&gram, 0, Landmarks::Uniform, 0, 1, &monitor).is_err());
        assert!(select_landmarks(&gram, 3, Landmarks::All, 0, 1, &monitor).is_err());
        let u = select_landmarks(&gram, 9, Landmarks::Uniform, 4, 1, &monitor).unwrap();
        assert_eq!(
            u,
            uniform_landmarks(n, 9, 4).unwrap(),
            "drawn without the data"
        );
        assert!(select_landmarks(&gram, n + 1, Landmarks::Uniform, 0, 1, &monitor).is_err());
        monitor.stop();
        let r = select_landmarks(&gram, 5, Landmarks::KMeansPlusPlus, 0, 1, &monitor);
        assert_eq!(r, Err(Error::Interrupted));
        assert!(normalization(&[0.0; 4], 2, &Monitor::new()).is_err());
        assert!(normalization(&[1.0, f64::NAN, 0.0, 1.0], 2, &Monitor::new()).is_err());
        assert_eq!(
            normalization(&[1.0, 0.0, 0.0, 1.0], 2, &Monitor::stopped()).unwrap_err(),
            Error::Interrupted
        );
    }
}
