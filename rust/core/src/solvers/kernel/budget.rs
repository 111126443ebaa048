//! Kernel Pegasos with a budget of support vectors: budgeted stochastic gradient
//! descent (Wang, Crammer, Vucetic, "Breaking the curse of kernelization: budgeted
//! stochastic gradient descent for large-scale SVM training", JMLR 13, 2012), on
//! Pegasos' steps (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011,
//! "Incorporating kernels").
//!
//! # Update rule (step t = 1, 2, ...)
//! The model is `f(x) = 1/(lambda (t - 1)) sum_s a_s K(z_s, x) + b` over at most `B`
//! points `z_s`, which are training rows or points made by merging two of them. A
//! step draws `k` rows; each row `i` whose loss has a slope at `f(x_i)`
//! (`g_i = -dl/dp != 0`, [`crate::solvers::shared::loss::Loss::step_weight`]) adds
//! `c_i g_i / k` to its own point's coefficient (a new point when it has none), and
//! the unregularised bias takes `b += 1/(lambda t k) sum c_i g_i`: the steps of
//! [`crate::solvers::kernel::solver`], so that with a budget no fit reaches, the
//! model is that solver's (up to the rounding of the kernel values; tested). A step
//! costs `B` kernel values per drawn row, `O(B d)`, whatever the number of rows.
//!
//! # Keeping the budget
//! When a step leaves `B + 1` points, one maintenance step brings them back to `B`,
//! changing the model by the smallest amount its rule can find (the weight
//! degradation `||Delta||^2` of the paper, in the feature space):
//! - [`Maintenance::Remove`]: the point of smallest `|a_s|` is dropped (any kernel).
//! - [`Maintenance::Merge`] (rbf): the point `m` of smallest `|a_m|` is merged with
//!   the partner `n` of the same sign that degrades the model least, into
//!   `z = h z_m + (1 - h) z_n` with coefficient `a_z = a_m K(z_m, z) + a_n K(z_n, z)`
//!   (the best coefficient for that point). For rbf `K(z_m, z) = kappa^((1-h)^2)` and
//!   `K(z_n, z) = kappa^(h^2)` with `kappa = K(z_m, z_n)`, so `h` maximises
//!   `|a_m| kappa^((1-h)^2) + |a_n| kappa^(h^2)` on `[0, 1]`, found by golden-section
//!   search ([`best_merge`]); the degradation is
//!   `a_m^2 + a_n^2 + 2 a_m a_n kappa - a_z^2`. The best merge depends on
//!   `|a_m| / (|a_m| + |a_n|)` and `kappa` only, so, as Qaadan and Glasmachers do,
//!   its degradation (relative to `(|a_m| + |a_n|)^2`) is tabulated once and the
//!   partners are ranked by the table's value ([`quick_degradation`]: one kernel
//!   value a partner, no search); the chosen partner's `h` is then searched exactly. One kernel row of `z_m` against the
//!   points (`O(B d)`) and `O(1)` a partner: the step stays `O(B d)`.
//!   Without a partner of the same sign, `m` is removed.
//! - [`Maintenance::Project`] (positive semi-definite kernels: not sigmoid, nor poly
//!   with `coef0 < 0`): the point whose projection onto the span of the others
//!   degrades the model least is projected onto it and dropped (Orabona, Keshet,
//!   Caputo, "Bounded kernel-based online learning", JMLR 10, 2009, the Projectron;
//!   Wang et al.'s projection). The state keeps `Q = K^-1`, the inverse of the kernel
//!   matrix of the points, in their order (`Inverse`; `n^2` doubles: 32 MB a
//!   problem for `B = 2000`). Projecting point `r` changes the others' coefficients by
//!   `Delta_j = -a_r Q_jr / Q_rr` (`K_{-r,-r}^-1 k_{-r,r}` read from `Q` by the
//!   block inverse) and degrades the model by exactly `a_r^2 / Q_rr`, so the best
//!   projection is the argmin of that over all points, `O(n)`; `Q` is then downdated,
//!   `Q_{-r,-r} - Q_{-r,r} Q_{r,-r} / Q_rr`, `O(n^2)`.
//!
//!   A new point `x` with kernel column `k` against the points has Schur complement
//!   `s = K(x, x) - k^T Q k` (its squared distance to their span). When `s` is at
//!   most `IN_SPAN K(x, x)` (`IN_SPAN = 1e-10`) or the rounding bound of its
//!   computation, `2 n eps |k|^T |Q| |k|` (`x` in the span as far as can be told; a
//!   repeated row for one), `x` is not added but projected, `a += f Q k` (exact for
//!   a repeated row). Otherwise it is added, and `Q` grows by the block inverse
//!   (`u = Q k`: `[[Q + u u^T / s, -u / s], [-u^T / s, 1 / s]]`), `O(n^2)`; at a
//!   full budget the grown matrix is not formed: its diagonal (`Q_jj + u_j^2 / s`,
//!   and `1 / s`) picks the point to project among the `n + 1`, and the growth and
//!   the downdate are one rank-two update of `Q`, the new point taking the
//!   projected one's place. A step that adds a point costs `O(B d + B^2)`.
//!
//!   Rounding drifts `Q` away from `K^-1`: it is recomputed from scratch (Cholesky
//!   factor of `K`, then its inverse, `O(n^3)`) after `n` updates (amortised
//!   `O(n^2)`), when a Schur complement is negative beyond its rounding bound and
//!   `Q` was updated since it was computed (an ill-conditioned `K` alone does not
//!   recompute it at each step), when a `Q_rr` is not positive, and when a fit
//!   continues a state kept otherwise. A point whose Cholesky pivot (its squared
//!   distance to the span of the points before it) is at most `IN_SPAN` times its
//!   `K(z, z)` is then projected onto those points and dropped (counted as a
//!   maintenance step), so that `K` stays numerically positive definite.
//!
//! # The one-class SVM
//! With `params.one_class` the steps are the kernel solver's one-class steps (the
//! bias drifting by `-1/t`, reset to the `nu`-quantile of the iterate's scores at
//! `t = 2, 4, 8, ...` and after every pass); the caller places the returned model's
//! exact offset, as for the kernel solver.
//!
//! # Averaging
//! With suffix averaging the average of the iterates is kept on the same points:
//! point `s` accumulates `sum_t a_s^(t) / t` lazily (as the kernel solver's average),
//! and every maintenance step applies to the average the same linear map as to the
//! iterate (a removed point's share is dropped, a merged point's is
//! `acc_m K(z_m, z) + acc_n K(z_n, z)`, a projected point's adds
//! `-acc_r Q_jr / Q_rr` to point `j`'s): the averaged model has the same `B` points.
//! A new point projected in the span leaves the average as it is (its accumulated
//! share is zero), the points whose coefficients it changes settled first.

use std::collections::HashMap;

use crate::data::labels::{check_y_len, Labels};
use crate::data::rows::Rows;
use crate::data::subset::RowSubset;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::kernels::function::{Kernel, KernelRows};
use crate::math;
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::kernel::one_vs_one::{class_members, class_pairs, Pair};
use crate::solvers::kernel::solver::{check_kernel_params, KernelAverage};
use crate::solvers::shared::loss::Loss;
use crate::solvers::shared::one_class::{reset_stride, strided_rho};
use crate::solvers::shared::params::{Averaging, Intercept, ValidParams};
use crate::solvers::shared::passes::problem_label;
use crate::solvers::shared::passes::{drive, PassPlan, PassRunner, PassSubject};
use crate::solvers::shared::sampler::{Draws, Sampler};

/// How the budget is kept when a step exceeds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Maintenance {
    /// Drop the point of smallest coefficient (every kernel).
    Remove,
    /// Merge the point of smallest coefficient with its best partner (rbf only).
    Merge,
    /// Project the point whose projection degrades the model least onto the span of
    /// the others, keeping the inverse of the points' kernel matrix (positive
    /// semi-definite kernels only: not sigmoid, nor poly with `coef0 < 0`).
    Project,
}

/// Relative width of the interval golden-section search stops at.
const SEARCH_TOL: f64 = 1e-6;

/// The checked settings of a budgeted fit: at least 2 points; merging needs a
/// kernel with a merge rule (rbf), projection a positive semi-definite kernel (not
/// sigmoid, nor poly with `coef0 < 0`).
pub fn check_budget(kernel: Kernel, budget: usize, maintenance: Maintenance) -> Result<()> {
    if budget < 2 {
        return Err(Error::InvalidParameter(format!(
            "budget must be at least 2 support vectors, got {budget}"
        )));
    }
    if maintenance == Maintenance::Merge && !matches!(kernel, Kernel::Rbf { .. }) {
        return Err(Error::InvalidParameter(format!(
            "merging support vectors has a rule for the rbf kernel only, not {}; use \
             budget_maintenance='remove'",
            kernel.name()
        )));
    }
    if maintenance == Maintenance::Project {
        let refused = match kernel {
            Kernel::Sigmoid { .. } => Some("the sigmoid kernel"),
            Kernel::Poly { coef0, .. } if coef0 < 0.0 => Some("the poly kernel with coef0 < 0"),
            _ => None,
        };
        if let Some(what) = refused {
            return Err(Error::InvalidParameter(format!(
                "projecting support vectors needs a positive semi-definite kernel, which \
                 {what} is not; use budget_maintenance='remove'"
            )));
        }
    }
    Ok(())
}

/// The points of the budget: dense rows with their squared norms and sums, their
/// coefficients `a_s`, and the training row each one is (`-1` for a merged point).
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetPoints {
    d: usize,
    data: Vec<f64>,
    sq_norm: Vec<f64>,
    sum: Vec<f64>,
    coef: Vec<f64>,
    source: Vec<i64>,
}

impl BudgetPoints {
    fn new(d: usize) -> Self {
        Self {
            d,
            data: Vec::new(),
            sq_norm: Vec::new(),
            sum: Vec::new(),
            coef: Vec::new(),
            source: Vec::new(),
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.coef.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.coef.is_empty()
    }

    fn row(&self, s: usize) -> &[f64] {
        &self.data[s * self.d..(s + 1) * self.d]
    }

    fn push(&mut self, row: &[f64], coef: f64, source: i64) {
        self.data.extend_from_slice(row);
        self.finish_push(coef, source);
    }

    /// Add the row whose non-zero entries are `entries`.
    fn push_entries(&mut self, entries: &[(usize, f64)], coef: f64, source: i64) {
        let start = self.data.len();
        self.data.resize(start + self.d, 0.0);
        for &(k, v) in entries {
            self.data[start + k] = v;
        }
        self.finish_push(coef, source);
    }

    /// The last row's squared norm and sum, its coefficient and source.
    fn finish_push(&mut self, coef: f64, source: i64) {
        let (sq, sum) = Self::norms(&self.data[self.data.len() - self.d..]);
        self.sq_norm.push(sq);
        self.sum.push(sum);
        self.coef.push(coef);
        self.source.push(source);
    }

    /// A row's squared norm and sum.
    fn norms(row: &[f64]) -> (f64, f64) {
        row.iter()
            .fold((0.0, 0.0), |(sq, sum), v| (sq + v * v, sum + v))
    }

    /// Make point `s` the row whose non-zero entries are `entries`.
    fn replace_entries(&mut self, s: usize, entries: &[(usize, f64)], coef: f64, source: i64) {
        let row = &mut self.data[s * self.d..(s + 1) * self.d];
        row.fill(0.0);
        for &(k, v) in entries {
            row[k] = v;
        }
        (self.sq_norm[s], self.sum[s]) = Self::norms(row);
        self.coef[s] = coef;
        self.source[s] = source;
    }

    /// Remove point `s`, the last point taking its place.
    fn swap_remove(&mut self, s: usize) {
        let last = self.len() - 1;
        if s != last {
            let (a, b) = self.data.split_at_mut(last * self.d);
            a[s * self.d..(s + 1) * self.d].copy_from_slice(&b[..self.d]);
        }
        self.data.truncate(last * self.d);
        self.sq_norm.swap_remove(s);
        self.sum.swap_remove(s);
        self.coef.swap_remove(s);
        self.source.swap_remove(s);
    }
}

/// One row's non-zero entries (repeated columns summed) and their squared norm and
/// sum: the query of the kernel values against the points.
struct RowQuery {
    entries: Vec<(usize, f64)>,
    scratch: Vec<f64>,
    sq: f64,
    sum: f64,
}

impl RowQuery {
    fn new(d: usize) -> Self {
        Self {
            entries: Vec::new(),
            scratch: vec![0.0; d],
            sq: 0.0,
            sum: 0.0,
        }
    }

    fn load<R: Rows>(&mut self, rows: &R, i: usize) {
        let scratch = &mut self.scratch;
        let entries = &mut self.entries;
        entries.clear();
        rows.for_each_entry(i, |k, v| {
            if scratch[k] == 0.0 {
                entries.push((k, 0.0));
            }
            scratch[k] += v;
        });
        let (mut sq, mut sum) = (0.0, 0.0);
        entries.retain_mut(|(k, v)| {
            *v = std::mem::take(&mut scratch[*k]);
            sq += *v * *v;
            sum += *v;
            *v != 0.0
        });
        entries.sort_unstable_by_key(|e| e.0);
        self.sq = sq;
        self.sum = sum;
    }

    /// Load point `s` of `pts` (its non-zero entries, squared norm and sum).
    fn load_point(&mut self, pts: &BudgetPoints, s: usize) {
        self.entries.clear();
        self.entries.extend(
            pts.row(s)
                .iter()
                .enumerate()
                .filter(|e| *e.1 != 0.0)
                .map(|(k, &v)| (k, v)),
        );
        self.sq = pts.sq_norm[s];
        self.sum = pts.sum[s];
    }

    /// `K(x, x)` of the loaded row `x`.
    fn self_kernel(&mut self, kernel: Kernel) -> f64 {
        for &(k, v) in &self.entries {
            self.scratch[k] = v;
        }
        let value = point_kernel(kernel, self, &self.scratch, self.sq, self.sum);
        for &(k, _) in &self.entries {
            self.scratch[k] = 0.0;
        }
        value
    }
}

/// The share of `K(x, x)` below which the squared distance of `x` to the span of
/// the points (a Schur complement of their kernel matrix, or a Cholesky pivot) counts
/// as zero: `x` is then projected onto the span rather than added. Far above the
/// rounding of the kernel values (`1e-16` relative) and of a Cholesky pivot, and
/// small enough that what is projected is numerically in the span (a projection
/// error of at most `1e-10 a^2 K(x, x)`). A Schur complement computed from `Q` also
/// counts as zero within its own rounding bound, `2 n eps |k|^T |Q| |k|`, which is
/// larger when `K` is ill-conditioned (many points close together in few
/// features): a point is added only when its distance to the span is known to be
/// positive, which keeps `Q` as well conditioned as its rounding needs.
const IN_SPAN: f64 = 1e-10;

/// `sum a_i b_i` over the shorter of the two, in four interleaved sums (the
/// Cholesky factor's inner products, vectorised).
fn dot_lanes(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            lanes[l] += x[l] * y[l];
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// The inverse `Q = K^-1` of the kernel matrix `K` of the budget's points
/// ([`Maintenance::Project`]), row-major `n x n` in the points' order, kept exactly
/// symmetric: grown by the block inverse when a point is added, downdated when one
/// is projected, recomputed from scratch after `n` such updates.
#[derive(Clone, Debug, PartialEq, Default)]
struct Inverse {
    q: Vec<f64>,
    n: usize,
    /// Updates (a point added, projected, or both in one pass) since `Q` was
    /// computed from scratch.
    updates: usize,
}

impl Inverse {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.q[i * self.n + j]
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.q[i * self.n..(i + 1) * self.n]
    }

    /// `u = Q k` and `|Q| |k|` (the terms' sizes, for the rounding of `k^T u`), as
    /// `sum_j k_j Q_j` (`Q` symmetric): row by row, vectorised, `Q` read once.
    fn times(&self, k: &[f64], u: &mut Vec<f64>, sizes: &mut Vec<f64>) {
        u.clear();
        u.resize(self.n, 0.0);
        sizes.clear();
        sizes.resize(self.n, 0.0);
        for (j, &kj) in k.iter().enumerate() {
            let size = kj.abs();
            for ((v, a), q) in u.iter_mut().zip(sizes.iter_mut()).zip(self.row(j)) {
                *v += kj * q;
                *a += size * q.abs();
            }
        }
    }

    /// Add a point whose kernel column against the points gives `u = Q k` and the
    /// Schur complement `s = K(x, x) - k^T u > 0`:
    /// `Q' = [[Q + u u^T / s, -u / s], [-u^T / s, 1 / s]]`.
    fn grow(&mut self, u: &[f64], s: f64) {
        let n = self.n;
        let m = n + 1;
        self.q.resize(m * m, 0.0);
        // Rows from stride n to stride m, the last first (they only move up).
        for i in (1..n).rev() {
            self.q.copy_within(i * n..(i + 1) * n, i * m);
        }
        let inv = 1.0 / s;
        for i in 0..n {
            let row = &mut self.q[i * m..(i + 1) * m];
            for (j, q) in row[..n].iter_mut().enumerate() {
                *q += u[i] * u[j] * inv;
            }
            row[n] = -u[i] * inv;
        }
        for (q, uj) in self.q[n * m..n * m + n].iter_mut().zip(u) {
            *q = -uj * inv;
        }
        self.q[n * m + n] = inv;
        self.n = m;
        self.updates += 1;
    }

    /// Remove point `r` (the points' kernel matrix without it has the inverse
    /// `Q_{-r,-r} - Q_{-r,r} Q_{r,-r} / Q_rr`), the last point taking its place as
    /// in [`BudgetPoints::swap_remove`]; `col` is scratch space.
    fn shrink(&mut self, r: usize, col: &mut Vec<f64>) {
        let n = self.n;
        col.clear();
        col.extend_from_slice(self.row(r));
        let inv = 1.0 / col[r];
        for i in 0..n {
            let ci = col[i];
            for (q, cj) in self.q[i * n..(i + 1) * n].iter_mut().zip(col.iter()) {
                *q -= ci * cj * inv;
            }
        }
        let last = n - 1;
        if r != last {
            self.q.copy_within(last * n..(last + 1) * n, r * n);
            for i in 0..n {
                self.q[i * n + r] = self.q[i * n + last];
            }
        }
        for i in 1..last {
            self.q.copy_within(i * n..i * n + last, i * last);
        }
        self.q.truncate(last * last);
        self.n = last;
        self.updates += 1;
    }
}

/// `K(x, z)` for a query row `x` and a dense point `z` (squared norm `zsq`, sum
/// `zsum`), as [`Kernel`] defines it.
fn point_kernel(kernel: Kernel, x: &RowQuery, z: &[f64], zsq: f64, zsum: f64) -> f64 {
    match kernel {
        Kernel::Chi2 { gamma } => {
            let shared: f64 = x
                .entries
                .iter()
                .filter(|&&(k, v)| v > 0.0 && z[k] > 0.0)
                .map(|&(k, v)| 4.0 * v * z[k] / (v + z[k]))
                .sum();
            math::exp(-gamma * (x.sum + zsum - shared).max(0.0))
        }
        Kernel::Intersection => x.entries.iter().map(|&(k, v)| v.min(z[k])).sum(),
        _ => {
            let dot: f64 = x.entries.iter().map(|&(k, v)| v * z[k]).sum();
            dot_kernel(kernel, dot, x.sq, zsq)
        }
    }
}

/// A dot-product kernel from `<x, z>` and the squared norms.
fn dot_kernel(kernel: Kernel, dot: f64, xsq: f64, zsq: f64) -> f64 {
    match kernel {
        Kernel::Linear => dot,
        Kernel::Rbf { gamma } => math::exp(-gamma * (xsq + zsq - 2.0 * dot).max(0.0)),
        Kernel::Poly {
            gamma,
            coef0,
            degree,
        } => math::powi(gamma * dot + coef0, degree),
        Kernel::Sigmoid { gamma, coef0 } => math::tanh(gamma * dot + coef0),
        Kernel::Chi2 { .. } | Kernel::Intersection => unreachable!("additive kernels"),
    }
}

/// The best merge of a point of coefficient `a_m` into a partner of coefficient
/// `a_n` (same sign) at `gd = gamma ||z_m - z_n||^2` (rbf): `(h, a_z, degradation)`,
/// the merged point being `h z_m + (1 - h) z_n`, `a_z = a_m K(z_m, z) + a_n K(z_n,
/// z)` with `K(z_m, z) = exp(-(1 - h)^2 gd)`, `K(z_n, z) = exp(-h^2 gd)`. `h`
/// maximises `|a_z|`: golden-section search on each half of `[0, 1]` (far apart
/// points give a peak near each end), the better of the two.
pub fn best_merge(a_m: f64, a_n: f64, gd: f64) -> (f64, f64, f64) {
    let value =
        |h: f64| a_m * math::exp(-(1.0 - h) * (1.0 - h) * gd) + a_n * math::exp(-h * h * gd);
    let sign = a_m.signum();
    let size = |h: f64| sign * value(h);
    let h = [golden_max(&size, 0.0, 0.5), golden_max(&size, 0.5, 1.0)]
        .into_iter()
        .max_by(|a, b| size(*a).total_cmp(&size(*b)))
        .unwrap_or(0.5);
    let a_z = value(h);
    let kappa = math::exp(-gd);
    let degradation = a_m * a_m + a_n * a_n + 2.0 * a_m * a_n * kappa - a_z * a_z;
    (h, a_z, degradation)
}

/// Steps of the merge table in `r = |a_m| / (|a_m| + |a_n|)` over `[0, 1/2]` and in
/// `kappa = exp(-gd)` over `[0, 1]`.
const TABLE_R: usize = 64;
const TABLE_K: usize = 256;

/// The least degradation of a merge at the table's nodes, relative to
/// `(|a_m| + |a_n|)^2`: it depends on `r` and `kappa` only (`|a_z| / (|a_m| +
/// |a_n|) = r kappa^((1-h)^2) + (1-r) kappa^(h^2)` at the best `h`), computed once
/// per process with [`best_merge`] (Qaadan and Glasmachers' precomputation). It is
/// symmetric in `r` and `1 - r`.
fn merge_table() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Vec::with_capacity((TABLE_R + 1) * (TABLE_K + 1));
        for i in 0..=TABLE_R {
            let r = 0.5 * i as f64 / TABLE_R as f64;
            for j in 0..=TABLE_K {
                let kappa = j as f64 / TABLE_K as f64;
                // kappa = 0: points far apart (a large finite distance, not infinity).
                let gd = if j == 0 { 50.0 } else { -kappa.ln() };
                t.push(best_merge(r, 1.0 - r, gd).2.max(0.0));
            }
        }
        t
    })
}

/// The degradation of the best merge of `a_m` and `a_n` (same sign) whose points'
/// kernel value is `kappa`, read from the merge table (bilinear between its
/// nodes): no exponential, so that ranking the partners costs one kernel value
/// each. Close to [`best_merge`]'s (tested); the chosen partner's merge is
/// [`best_merge`]'s.
pub fn quick_degradation(a_m: f64, a_n: f64, kappa: f64) -> f64 {
    let table = merge_table();
    let total = a_m.abs() + a_n.abs();
    if total == 0.0 {
        return 0.0;
    }
    let r = a_m.abs() / total;
    let r = r.min(1.0 - r);
    let (x, y) = (
        r / 0.5 * TABLE_R as f64,
        kappa.clamp(0.0, 1.0) * TABLE_K as f64,
    );
    let (i, j) = ((x as usize).min(TABLE_R - 1), (y as usize).min(TABLE_K - 1));
    let (fx, fy) = (x - i as f64, y - j as f64);
    let at = |i: usize, j: usize| table[i * (TABLE_K + 1) + j];
    let low = at(i, j) * (1.0 - fy) + at(i, j + 1) * fy;
    let high = at(i + 1, j) * (1.0 - fy) + at(i + 1, j + 1) * fy;
    (low * (1.0 - fx) + high * fx) * total * total
}

/// The maximiser of `f` on `[lo, hi]` by golden-section search (a local one, for
/// `f` not unimodal there).
fn golden_max(f: &impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - ratio * (hi - lo);
    let mut x2 = lo + ratio * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    while hi - lo > SEARCH_TOL {
        if f1 < f2 {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = f(x2);
        } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = f(x1);
        }
    }
    0.5 * (lo + hi)
}

/// The complete state of a budgeted binary fit.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetState {
    points: BudgetPoints,
    /// The point of each training row that is one (not merged).
    of_row: HashMap<usize, usize>,
    bias: f64,
    t: u64,
    pub(crate) sampler: Sampler,
    avg: KernelAverage,
    /// With [`Maintenance::Project`]: the inverse of the points' kernel matrix
    /// (`None` otherwise, or not yet computed).
    inverse: Option<Inverse>,
}

impl BudgetState {
    /// A fresh state for rows of `n_features` features, stream `stream` of `seed`.
    pub fn new(n_features: usize, seed: u64, stream: u64) -> Self {
        Self {
            points: BudgetPoints::new(n_features),
            of_row: HashMap::new(),
            bias: 0.0,
            t: 0,
            sampler: Sampler::new(seed, stream),
            avg: KernelAverage::off(),
            inverse: None,
        }
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// Features of the rows the state takes.
    pub fn n_features(&self) -> usize {
        self.points.d
    }

    /// Number of points (support vectors) now.
    pub fn n_points(&self) -> usize {
        self.points.len()
    }

    /// The model a fit returns: the average of the iterates once it has begun,
    /// else the current iterate.
    pub fn model(&self, alpha_reg: f64) -> BudgetModel {
        let pts = &self.points;
        let (coef, intercept) = self.avg.model_of(&pts.coef, self.bias, self.t, alpha_reg);
        BudgetModel {
            n_features: pts.d,
            points: pts.data.clone(),
            dual_coef: coef,
            source: pts.source.clone(),
            intercept,
        }
    }
}

/// Keeping the points and the inverse of their kernel matrix
/// ([`Maintenance::Project`]; see the module doc).
impl BudgetState {
    /// Remove point `s`, the last point taking its place (its row's entry moved).
    fn drop_point(&mut self, s: usize) {
        let last = self.points.len() - 1;
        self.points.swap_remove(s);
        if self.avg.active() {
            self.avg.acc.swap_remove(s);
            self.avg.last.swap_remove(s);
        }
        if s != last {
            if let Ok(row) = usize::try_from(self.points.source[s]) {
                self.of_row.insert(row, s);
            }
        }
    }

    /// Forget point `s`'s training row and drop it.
    fn remove_point(&mut self, s: usize) {
        if let Ok(row) = usize::try_from(self.points.source[s]) {
            self.of_row.remove(&row);
        }
        self.drop_point(s);
    }

    /// Bring every point's average up to the current step (before a map changes
    /// their coefficients together).
    fn settle_all(&mut self) {
        if self.avg.active() {
            for (s, &c) in self.points.coef.iter().enumerate() {
                self.avg.settle(s, c);
            }
        }
    }

    /// `a_j += f beta_j` for the points `j < beta.len()` and their averages
    /// `acc_j += acc beta_j` (the average's share `acc` of the point the map takes
    /// away), every point settled first.
    fn add_combination(&mut self, beta: &[f64], f: f64, acc: f64) {
        self.settle_all();
        for (j, b) in beta.iter().enumerate() {
            self.points.coef[j] += f * b;
        }
        if self.avg.active() {
            for (j, b) in beta.iter().enumerate() {
                self.avg.acc[j] += acc * b;
            }
        }
    }

    /// The average's accumulated share of point `s` (settled), 0 without averaging.
    fn settled_acc(&mut self, s: usize) -> f64 {
        if !self.avg.active() {
            return 0.0;
        }
        self.avg.settle(s, self.points.coef[s]);
        self.avg.acc[s]
    }

    /// The kept inverse, computed from scratch when there is none, it does not
    /// match the points, or `n` updates have passed since it was (rounding drift).
    fn take_inverse(&mut self, kernel: Kernel, out: &mut BudgetFitOutput) -> Inverse {
        match self.inverse.take() {
            Some(q) if q.n == self.points.len() && (q.updates == 0 || q.updates < q.n) => q,
            _ => self.fresh_inverse(kernel, out),
        }
    }

    /// `Q = K^-1` computed from scratch: `K = L L^T` (Cholesky, row by row), then
    /// `Q = L^-T L^-1`, `O(n^3)`. A point whose pivot (its squared distance to the
    /// span of the points before it) is at most `IN_SPAN K(z, z)` is projected onto
    /// those points (`beta = L_{<i}^-T` of its row of `L`, the average mapped the
    /// same way) and dropped, the last point taking its place: the factor of the
    /// points before it stays as it is.
    fn fresh_inverse(&mut self, kernel: Kernel, out: &mut BudgetFitOutput) -> Inverse {
        let stride = self.points.len();
        let mut l = vec![0.0; stride * stride];
        let mut query = RowQuery::new(self.points.d);
        let mut i = 0;
        while i < self.points.len() {
            let pts = &self.points;
            query.load_point(pts, i);
            let (done, row) = l.split_at_mut(i * stride);
            let row = &mut row[..=i];
            for (j, v) in row.iter_mut().enumerate() {
                *v = point_kernel(kernel, &query, pts.row(j), pts.sq_norm[j], pts.sum[j]);
            }
            out.kernel_evals += i as u64 + 1;
            let kii = row[i];
            let mut pivot = kii;
            for j in 0..i {
                let lj = &done[j * stride..=j * stride + j];
                row[j] = (row[j] - dot_lanes(&row[..j], lj)) / lj[j];
                pivot -= row[j] * row[j];
            }
            if pivot > IN_SPAN * kii {
                row[i] = pivot.sqrt();
                i += 1;
                continue;
            }
            // In the span of the points before it: beta = L_{<i}^-T y, y its row.
            let mut beta = row[..i].to_vec();
            for j in (0..i).rev() {
                let lower: f64 = (j + 1..i).map(|k| done[k * stride + j] * beta[k]).sum();
                beta[j] = (beta[j] - lower) / done[j * stride + j];
            }
            let a = self.points.coef[i];
            let acc = self.settled_acc(i);
            self.add_combination(&beta, a, acc);
            self.remove_point(i);
            out.maintenance_steps += 1;
        }
        let n = self.points.len();
        // M = L^-1, row by row: (e_i - sum_{k<i} L_ik M_k) / L_ii.
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            let (done, rest) = m.split_at_mut(i * n);
            let row = &mut rest[..=i];
            row[i] = 1.0;
            for k in 0..i {
                let lik = l[i * stride + k];
                for (r, v) in row[..=k].iter_mut().zip(&done[k * n..=k * n + k]) {
                    *r -= lik * v;
                }
            }
            let lii = l[i * stride + i];
            for r in row.iter_mut() {
                *r /= lii;
            }
        }
        // Q = M^T M = sum_k M_k^T M_k, the lower half, then mirrored.
        let mut q = vec![0.0; n * n];
        for k in 0..n {
            let mk = &m[k * n..=k * n + k];
            for (i, &f) in mk.iter().enumerate() {
                for (v, w) in q[i * n..=i * n + i].iter_mut().zip(mk) {
                    *v += f * w;
                }
            }
        }
        for i in 0..n {
            for j in 0..i {
                q[j * n + i] = q[i * n + j];
            }
        }
        Inverse { q, n, updates: 0 }
    }

    /// `a += f` for the loaded row `x` (training row `i`, which has no point): a new
    /// point, `Q` grown, unless `x` is in the span of the points, then projected
    /// onto it (`a += f Q k`). With `budget` points already, the best of the `n + 1`
    /// is projected at once (one pass over `Q`): returns its index (`n` for `x`)
    /// and degradation.
    fn add_projecting(
        &mut self,
        kernel: Kernel,
        query: &mut RowQuery,
        (i, f): (usize, f64),
        budget: usize,
        out: &mut BudgetFitOutput,
    ) -> Option<(usize, f64)> {
        let kxx = query.self_kernel(kernel);
        let mut q = self.take_inverse(kernel, out);
        let (mut k, mut u, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
        let mut refreshed = false;
        let (s, zero) = loop {
            let pts = &self.points;
            k.clear();
            k.extend(
                (0..pts.len())
                    .map(|p| point_kernel(kernel, query, pts.row(p), pts.sq_norm[p], pts.sum[p])),
            );
            out.kernel_evals += pts.len() as u64;
            q.times(&k, &mut u, &mut sizes);
            let s = kxx - k.iter().zip(&u).map(|(a, b)| a * b).sum::<f64>();
            // The rounding of k^T Q k (n products summed twice): at most
            // 2 n eps |k|^T |Q| |k|, to first order.
            let terms: f64 = k.iter().zip(&sizes).map(|(a, b)| a.abs() * b).sum();
            let rounding = 2.0 * k.len() as f64 * f64::EPSILON * terms;
            let zero = (IN_SPAN * kxx).max(rounding);
            // Negative beyond that: Q has drifted from K^-1 since it was computed.
            if s >= -zero || refreshed || q.updates == 0 {
                break (s, zero);
            }
            q = self.fresh_inverse(kernel, out);
            refreshed = true;
        };
        out.kernel_evals += 1;
        let mut step = None;
        if s <= zero {
            self.add_combination(&u, f, 0.0);
            out.in_span += 1;
        } else if let Some(done) = (self.points.len() >= budget)
            .then(|| self.add_replacing(&mut q, (&u, s), &query.entries, (i, f)))
            .flatten()
        {
            out.maintenance_steps += 1;
            step = Some(done);
        } else {
            let n = self.points.len();
            self.points.push_entries(&query.entries, f, i as i64);
            if self.avg.active() {
                self.avg.acc.push(0.0);
                self.avg.last.push(self.avg.h);
            }
            self.of_row.insert(i, n);
            q.grow(&u, s);
        }
        self.inverse = Some(q);
        step
    }

    /// Add the row of non-zero entries `entries` (training row `i`, coefficient `f`;
    /// `u = Q k` and its Schur complement `s > 0`) and project the point of least
    /// degradation among the `n + 1` onto the others, without growing `Q`: with
    /// `Q'` the inverse of the `n + 1` points' kernel matrix by the block inverse,
    /// `Q'_jj = Q_jj + u_j^2 / s` (`1 / s` for the new point) and column `r` of `Q'`
    /// are read from `Q`, `u` and `s`, and `Q'' = Q'_{-r,-r} - c c^T / c_r` is
    /// `Q + u u^T / s - c c^T / c_r` on the old points, one pass, the new point's
    /// row and column taking `r`'s place (as a push and a swap-remove would).
    /// Returns the projected point's index among the `n + 1` (`n` for the new one:
    /// `a += f u`, `Q` unchanged) and its degradation; `None` (nothing done) when a
    /// `Q'_jj` is not positive.
    fn add_replacing(
        &mut self,
        q: &mut Inverse,
        (u, s): (&[f64], f64),
        entries: &[(usize, f64)],
        (i, f): (usize, f64),
    ) -> Option<(usize, f64)> {
        let n = q.n;
        let inv_s = 1.0 / s;
        let coef = &self.points.coef;
        let mut best: Option<(usize, f64)> = None;
        for r in 0..=n {
            let (a, d) = if r < n {
                (coef[r], q.at(r, r) + u[r] * u[r] * inv_s)
            } else {
                (f, inv_s)
            };
            if d.is_nan() || d <= 0.0 {
                return None;
            }
            let err = a * a / d;
            if best.is_none_or(|b| err < b.1) {
                best = Some((r, err));
            }
        }
        let (r, err) = best?;
        if r == n {
            self.add_combination(u, f, 0.0);
            return Some((r, err));
        }
        // Column r of Q': c_j = Q_jr + u_j u_r / s, and -u_r / s for the new point.
        let ur = u[r];
        let c: Vec<f64> = (0..n).map(|j| q.at(j, r) + u[j] * ur * inv_s).collect();
        let c_new = -ur * inv_s;
        let inv_c = 1.0 / c[r];
        let beta: Vec<f64> = c.iter().map(|v| -v * inv_c).collect();
        let beta_new = -c_new * inv_c;
        let a_r = self.points.coef[r];
        let acc_r = self.settled_acc(r);
        self.add_combination(&beta, a_r, acc_r);
        for a in 0..n {
            let (ua, ca) = (u[a], c[a]);
            for ((v, ub), cb) in q.q[a * n..(a + 1) * n].iter_mut().zip(u).zip(&c) {
                *v += ua * ub * inv_s - ca * cb * inv_c;
            }
        }
        for j in 0..n {
            let g = if j == r {
                inv_s - c_new * c_new * inv_c
            } else {
                -u[j] * inv_s - c_new * c[j] * inv_c
            };
            q.q[r * n + j] = g;
            q.q[j * n + r] = g;
        }
        q.updates += 1;
        if let Ok(row) = usize::try_from(self.points.source[r]) {
            self.of_row.remove(&row);
        }
        self.points
            .replace_entries(r, entries, f + a_r * beta_new, i as i64);
        if self.avg.active() {
            self.avg.acc[r] = acc_r * beta_new;
            self.avg.last[r] = self.avg.h;
        }
        self.of_row.insert(i, r);
        Some((r, err))
    }

    /// Project points onto the span of the others until at most `budget` are left,
    /// each time the one of least degradation `a_r^2 / Q_rr`. Returns the last
    /// projected point's index (before it was dropped) and degradation.
    fn project_to(
        &mut self,
        kernel: Kernel,
        budget: usize,
        out: &mut BudgetFitOutput,
    ) -> Option<(usize, f64)> {
        let mut q = self.take_inverse(kernel, out);
        if (0..q.n).any(|r| q.at(r, r).is_nan() || q.at(r, r) <= 0.0) {
            q = self.fresh_inverse(kernel, out);
        }
        let mut col = Vec::new();
        let mut last = None;
        while self.points.len() > budget {
            let coef = &self.points.coef;
            // After a fresh inverse every Q_rr > 0 (a sum of squares, one of them
            // 1 / L_rr^2) unless the kernel values overflowed.
            let Some((r, err)) = (0..q.n)
                .filter(|&r| q.at(r, r) > 0.0)
                .map(|r| (r, coef[r] * coef[r] / q.at(r, r)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
            else {
                // Kernel values out of range (overflowed): remove the point of
                // smallest coefficient instead.
                let m = (0..coef.len())
                    .min_by(|&a, &b| coef[a].abs().total_cmp(&coef[b].abs()))
                    .unwrap_or(0);
                self.remove_point(m);
                out.maintenance_steps += 1;
                out.removals += 1;
                q = self.fresh_inverse(kernel, out);
                continue;
            };
            let qr = q.row(r);
            let beta: Vec<f64> = qr.iter().map(|v| -v / qr[r]).collect();
            let a = self.points.coef[r];
            let acc = self.settled_acc(r);
            self.add_combination(&beta, a, acc);
            q.shrink(r, &mut col);
            // beta_r = -1: a_r + a_r beta_r = 0 before r is dropped.
            self.remove_point(r);
            out.maintenance_steps += 1;
            last = Some((r, err));
        }
        self.inverse = Some(q);
        last
    }
}

/// A budgeted binary model: `f(x) = sum_s dual_coef[s] K(z_s, x) + intercept`.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetModel {
    /// Features of a point.
    pub n_features: usize,
    /// The points, row-major `len x n_features`.
    pub points: Vec<f64>,
    /// The coefficient of each point.
    pub dual_coef: Vec<f64>,
    /// The training row each point is, or `-1` for a merged point.
    pub source: Vec<i64>,
    /// The bias.
    pub intercept: f64,
}

/// What a budgeted fit reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetFitOutput {
    /// Passes run.
    pub n_iter: usize,
    /// Maintenance steps taken (merges, removals or projections).
    pub maintenance_steps: u64,
    /// Of those, points removed without a merge.
    pub removals: u64,
    /// Rows projected onto the span of the points instead of added
    /// ([`Maintenance::Project`]).
    pub in_span: u64,
    /// Kernel values computed.
    pub kernel_evals: u64,
}

/// A budgeted fit: its rows, the settings and scratch space.
struct BudgetRun<'a, R> {
    rows: &'a R,
    task: &'a BinaryTask<'a>,
    params: &'a ValidParams,
    kernel: Kernel,
    budget: usize,
    maintenance: Maintenance,
    /// The in-memory fit's draws (`None`: the caller supplies the drawn rows).
    draws: Option<Draws<'a>>,
    state: &'a mut BudgetState,
    query: RowQuery,
    /// The step's examples: a row of `rows` and the training row it is (its key
    /// among the points; the same number in memory).
    batch: Vec<(usize, usize)>,
    violators: Vec<(usize, usize, f64)>,
    out: BudgetFitOutput,
    monitor: &'a Monitor,
}

impl<'a, R: Rows> BudgetRun<'a, R> {
    /// A run on `rows` labelled by `task` (checked against each other, the state
    /// and the kernel), without draws of its own.
    fn new(
        (rows, task): (&'a R, &'a BinaryTask<'a>),
        params: &'a ValidParams,
        (kernel, budget, maintenance): (Kernel, usize, Maintenance),
        state: &'a mut BudgetState,
        monitor: &'a Monitor,
    ) -> Result<Self> {
        if task.len() != rows.n_rows() || state.points.d != rows.n_features() {
            return Err(Error::ShapeMismatch(format!(
                "{} rows of {} features, {} labels, a budget state of {} features",
                rows.n_rows(),
                rows.n_features(),
                task.len(),
                state.points.d
            )));
        }
        if kernel.is_additive() {
            // Non-negative rows without repeated columns, as the kernel needs them.
            KernelRows::new(kernel, rows)?;
        }
        Ok(Self {
            rows,
            task,
            params,
            kernel,
            budget,
            maintenance,
            draws: None,
            state,
            query: RowQuery::new(rows.n_features()),
            batch: Vec::with_capacity(params.batch_size),
            violators: Vec::with_capacity(params.batch_size),
            out: BudgetFitOutput::default(),
            monitor,
        })
    }

    /// `sum_s a_s K(z_s, x_i)` with row `i` loaded.
    fn raw_margin(&mut self) -> f64 {
        let pts = &self.state.points;
        self.out.kernel_evals += pts.len() as u64;
        let query = &self.query;
        (0..pts.len())
            .map(|s| {
                let z = pts.row(s);
                point_kernel(self.kernel, query, z, pts.sq_norm[s], pts.sum[s]) * pts.coef[s]
            })
            .sum()
    }

    fn step(&mut self) -> Result<()> {
        let t = self.state.t + 1;
        let scale = if t == 1 {
            0.0
        } else {
            1.0 / (self.params.alpha * (t - 1) as f64)
        };
        self.violators.clear();
        for b in 0..self.batch.len() {
            let (i, key) = self.batch[b];
            if self.task.weight(i) == 0.0 {
                continue;
            }
            self.rows.check_row(i)?;
            let f = if t == 1 || self.state.points.is_empty() {
                0.0
            } else {
                self.query.load(self.rows, i);
                scale * self.raw_margin()
            };
            let g = self
                .params
                .loss
                .step_weight(f + self.state.bias, self.task.y(i));
            if g != 0.0 {
                self.violators.push((i, key, g));
            }
        }
        let k = self.params.batch_size as f64;
        let mut bias_step = 0.0;
        for v in 0..self.violators.len() {
            let (i, key, g) = self.violators[v];
            let c = self.task.weight(i);
            self.add(i, key, c / k * g);
            bias_step += c * g;
        }
        if self.params.intercept == Intercept::Unregularized {
            self.state.bias += bias_step / (self.params.alpha * t as f64 * k);
            if self.params.one_class {
                // The one-class SVM's drift (`crate::solvers::kernel::solver`).
                self.state.bias -= 1.0 / t as f64;
            }
        }
        let state = &mut *self.state;
        state.t = t;
        state.avg.after_step(t, state.points.len(), state.bias);
        Ok(())
    }

    /// `a += f` for the point of row `i` (training row `key`; a new point when it
    /// has none), then keep the budget.
    fn add(&mut self, i: usize, key: usize, f: f64) {
        let state = &mut *self.state;
        if let Some(&s) = state.of_row.get(&key) {
            state.avg.settle(s, state.points.coef[s]);
            state.points.coef[s] += f;
            return;
        }
        self.query.load(self.rows, i);
        if self.maintenance == Maintenance::Project {
            let out = &mut self.out;
            state.add_projecting(self.kernel, &mut self.query, (key, f), self.budget, out);
        } else {
            state
                .points
                .push_entries(&self.query.entries, f, key as i64);
            if state.avg.active() {
                state.avg.acc.push(0.0);
                state.avg.last.push(state.avg.h);
            }
            state.of_row.insert(key, state.points.len() - 1);
        }
        if state.points.len() > self.budget {
            self.keep_budget();
        }
    }

    /// One maintenance step: from `B + 1` points to `B`.
    fn keep_budget(&mut self) {
        if self.maintenance == Maintenance::Project {
            self.state
                .project_to(self.kernel, self.budget, &mut self.out);
            return;
        }
        self.out.maintenance_steps += 1;
        let pts = &self.state.points;
        let m = (0..pts.len())
            .min_by(|&a, &b| pts.coef[a].abs().total_cmp(&pts.coef[b].abs()))
            .unwrap_or(0);
        if self.maintenance == Maintenance::Merge {
            if let Some((n, h, a_z, gd)) = self.best_partner(m) {
                self.merge(m, n, h, a_z, gd);
                return;
            }
        }
        self.out.removals += 1;
        self.remove(m);
    }

    /// The partner `n` of point `m` whose merge degrades the model least (same
    /// sign), with the merge's `h`, coefficient and `gamma ||z_m - z_n||^2`.
    fn best_partner(&mut self, m: usize) -> Option<(usize, f64, f64, f64)> {
        let Kernel::Rbf { gamma } = self.kernel else {
            return None;
        };
        let pts = &self.state.points;
        let a_m = pts.coef[m];
        let zm = pts.row(m);
        let mut best: Option<(usize, f64, f64)> = None;
        for n in 0..pts.len() {
            let a_n = pts.coef[n];
            if n == m || a_n.signum() != a_m.signum() || a_n == 0.0 {
                continue;
            }
            let dot: f64 = zm.iter().zip(pts.row(n)).map(|(a, b)| a * b).sum();
            let dist = (pts.sq_norm[m] + pts.sq_norm[n] - 2.0 * dot).max(0.0);
            self.out.kernel_evals += 1;
            let degradation = quick_degradation(a_m, a_n, math::exp(-gamma * dist));
            if best.is_none_or(|b| degradation < b.1) {
                best = Some((n, degradation, gamma * dist));
            }
        }
        // The chosen partner's merge, searched exactly.
        best.map(|(n, _, gd)| {
            let (h, a_z, _) = best_merge(a_m, pts.coef[n], gd);
            (n, h, a_z, gd)
        })
    }

    /// Replace points `m` and `n` (at `gd = gamma ||z_m - z_n||^2`) by `h z_m + (1 -
    /// h) z_n` with coefficient `a_z` (the average's coefficients mapped the same
    /// way).
    fn merge(&mut self, m: usize, n: usize, h: f64, a_z: f64, gd: f64) {
        let state = &mut *self.state;
        let pts = &state.points;
        let z: Vec<f64> = pts
            .row(m)
            .iter()
            .zip(pts.row(n))
            .map(|(a, b)| h * a + (1.0 - h) * b)
            .collect();
        // K(z_m, z) and K(z_n, z) for the average's map.
        let k_m = math::exp(-(1.0 - h) * (1.0 - h) * gd);
        let k_n = math::exp(-h * h * gd);
        if state.avg.active() {
            state.avg.settle(m, pts.coef[m]);
            state.avg.settle(n, pts.coef[n]);
        }
        let acc = if state.avg.active() {
            state.avg.acc[m] * k_m + state.avg.acc[n] * k_n
        } else {
            0.0
        };
        for s in [m, n] {
            if let Ok(row) = usize::try_from(state.points.source[s]) {
                state.of_row.remove(&row);
            }
        }
        // Drop the larger index first, so that the smaller stays valid.
        let (hi, lo) = if m > n { (m, n) } else { (n, m) };
        for s in [hi, lo] {
            state.drop_point(s);
        }
        state.points.push(&z, a_z, -1);
        if state.avg.active() {
            state.avg.acc.push(acc);
            state.avg.last.push(state.avg.h);
        }
    }

    fn remove(&mut self, m: usize) {
        self.state.remove_point(m);
    }
}

impl<R: Rows> BudgetRun<'_, R> {
    fn resets_bias(&self) -> bool {
        self.params.one_class && self.params.intercept == Intercept::Unregularized
    }

    /// The one-class SVM: the bias set to `1 - rho`, `rho` the `nu`-quantile of the
    /// iterate's scores on at most [`RESET_ROWS`](crate::solvers::shared::one_class::RESET_ROWS) rows, as the kernel solver sets
    /// it (at `t = 2, 4, 8, ...` and after every pass).
    fn reset_one_class_bias(&mut self) {
        let t = self.state.t;
        if t == 0 || self.state.points.is_empty() {
            return;
        }
        let scale = 1.0 / (self.params.alpha * t as f64);
        let n = self.rows.n_rows();
        let rho = strided_rho(n, reset_stride(n), self.params.alpha, |i| {
            let c = self.task.weight(i);
            if c > 0.0 && self.rows.check_row(i).is_ok() {
                self.query.load(self.rows, i);
                return Ok(Some((scale * self.raw_margin(), c)));
            }
            Ok(None)
        });
        if let Ok(Some(rho)) = rho {
            self.state.bias = 1.0 - rho;
        }
    }
}

/// A budgeted problem as the pass driver sees it between passes: its state, its
/// budget and what it reported so far.
pub(crate) struct BudgetSubject<'a> {
    pub(crate) state: &'a mut BudgetState,
    pub(crate) budget: usize,
    pub(crate) out: &'a BudgetFitOutput,
}

impl PassSubject for BudgetSubject<'_> {
    fn average_if_unstarted(&mut self) -> bool {
        self.state.avg.start_if_unstarted(self.state.t)
    }

    fn describe(&self) -> String {
        describe_budget(self.state, self.budget, self.out)
    }
}

/// A verbose pass line's description of a budgeted problem.
fn describe_budget(state: &BudgetState, budget: usize, out: &BudgetFitOutput) -> String {
    format!(
        "{} of {} support vectors, t {}, {} maintenance steps ({} removals)",
        state.points.len(),
        budget,
        state.t,
        out.maintenance_steps,
        out.removals
    )
}

impl<R: Rows> BudgetRun<'_, R> {
    fn subject(&mut self) -> BudgetSubject<'_> {
        BudgetSubject {
            state: self.state,
            budget: self.budget,
            out: &self.out,
        }
    }

    /// The steps of the drawn examples `local` (rows of `rows`, whole batches in
    /// draw order), which are the training rows `keys`.
    fn run_drawn(&mut self, local: &[usize], keys: &[usize]) -> Result<()> {
        let k = self.params.batch_size;
        for (rows, ids) in local.chunks(k).zip(keys.chunks(k)) {
            if self.monitor.is_stopped() {
                return Err(Error::Interrupted);
            }
            self.batch.clear();
            self.batch
                .extend(rows.iter().copied().zip(ids.iter().copied()));
            self.step()?;
        }
        Ok(())
    }
}

impl<R: Rows> PassSubject for BudgetRun<'_, R> {
    fn average_if_unstarted(&mut self) -> bool {
        self.subject().average_if_unstarted()
    }

    fn describe(&self) -> String {
        describe_budget(self.state, self.budget, &self.out)
    }
}

impl<R: Rows> PassRunner for BudgetRun<'_, R> {
    fn run_pass(&mut self, steps: u64) -> Result<()> {
        for _ in 0..steps {
            if self.monitor.is_stopped() {
                return Err(Error::Interrupted);
            }
            self.batch.clear();
            let Some(draws) = &self.draws else {
                return Err(Error::InvalidInput(
                    "a streamed budgeted fit takes its drawn rows from the caller".into(),
                ));
            };
            for _ in 0..self.params.batch_size {
                let i = draws.draw(&mut self.state.sampler);
                self.batch.push((i, i));
            }
            self.step()?;
            if self.resets_bias() && self.state.t.is_power_of_two() {
                self.reset_one_class_bias();
            }
        }
        self.monitor.advance(steps);
        if self.resets_bias() {
            self.reset_one_class_bias();
        }
        Ok(())
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        Ok(None)
    }
}

/// The checked settings of a budgeted fit of `params` (the kernel validated):
/// [`check_budget`]'s, the kernel solver's, and no `tol` or loss that starts late.
pub(crate) fn check_budgeted(
    kernel: Kernel,
    budget: usize,
    maintenance: Maintenance,
    params: &ValidParams,
) -> Result<Kernel> {
    let kernel = kernel.validate()?;
    check_budget(kernel, budget, maintenance)?;
    check_kernel_params(params)?;
    if params.tol.is_some() {
        return Err(Error::InvalidParameter(
            "a budgeted kernel fit runs a fixed number of passes: no tol".into(),
        ));
    }
    if params.loss.curvature().is_some() {
        return Err(Error::InvalidParameter(format!(
            "a budget is available for the hinge and epsilon-insensitive losses, not {:?} \
             (its run starts late, from the rows' kernel diagonal)",
            params.loss.name()
        )));
    }
    Ok(kernel)
}

/// Begin a fit of `params` on `n` rows kept by `maintenance`, continuing `state`:
/// its steps per pass, the suffix average set to begin halfway through the fit's
/// steps.
pub(crate) fn begin_budgeted(
    state: &mut BudgetState,
    params: &ValidParams,
    n: usize,
    maintenance: Maintenance,
) -> u64 {
    if maintenance != Maintenance::Project {
        // Other maintenance would leave it stale; a projecting fit recomputes it.
        state.inverse = None;
    }
    let per_pass = n.div_ceil(params.batch_size) as u64;
    state.avg = KernelAverage::off();
    if params.averaging == Averaging::Suffix {
        state.avg.start = state.t + per_pass * params.max_iter as u64 / 2 + 1;
    }
    per_pass
}

/// Fit one binary problem of `task` on `rows` with at most `budget` support
/// vectors, continuing `state`, for `params.max_iter` passes (`ceil(n / k)` steps
/// each). `params` as the kernel solver takes them (no early stopping).
#[allow(clippy::too_many_arguments)] // a fit's inputs and the budget's settings
pub fn fit_budgeted_binary<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    (kernel, budget, maintenance): (Kernel, usize, Maintenance),
    state: &mut BudgetState,
    monitor: &Monitor,
    label: &str,
) -> Result<BudgetFitOutput> {
    let kernel = check_budgeted(kernel, budget, maintenance, params)?;
    let n = rows.n_rows();
    if n == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    let draws = Draws::new(&params.sampling, task)?;
    let settings = (kernel, budget, maintenance);
    let mut run = BudgetRun::new((rows, task), params, settings, state, monitor)?;
    run.draws = Some(draws);
    let per_pass = begin_budgeted(run.state, params, n, maintenance);
    let mut plan = PassPlan::new(per_pass, params.max_iter);
    drive(&mut plan, &mut run, params, monitor, label)?;
    let mut out = run.out;
    out.n_iter = plan.passes();
    Ok(out)
}

/// Take the steps of the drawn examples `local` (rows of `rows`, whole batches in
/// draw order; they are the training rows `keys`) on `state`, for a fit begun with
/// [`begin_budgeted`] and settings checked by [`check_budgeted`], adding to `out`:
/// the in-memory fit's steps on the same draws.
#[allow(clippy::too_many_arguments)] // a run's rows, settings, state and draws
pub(crate) fn run_budgeted_drawn<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    (kernel, budget, maintenance): (Kernel, usize, Maintenance),
    state: &mut BudgetState,
    out: &mut BudgetFitOutput,
    (local, keys): (&[usize], &[usize]),
    monitor: &Monitor,
) -> Result<()> {
    if local.len() != keys.len() || local.len() % params.batch_size != 0 {
        return Err(Error::InvalidInput(format!(
            "{} drawn rows with {} training rows: whole batches of {} expected",
            local.len(),
            keys.len(),
            params.batch_size
        )));
    }
    if let Some(&bad) = local.iter().find(|&&i| i >= rows.n_rows()) {
        return Err(Error::InvalidInput(format!(
            "drawn example {bad} is not one of the {} rows supplied",
            rows.n_rows()
        )));
    }
    let settings = (kernel, budget, maintenance);
    let mut run = BudgetRun::new((rows, task), params, settings, state, monitor)?;
    run.out = std::mem::take(out);
    let result = run.run_drawn(local, keys);
    *out = run.out;
    result
}

/// The model of several budgeted problems: their points one after the other
/// (problem `p`'s are its own, with zero coefficients in the other problems' rows).
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetedModels {
    /// Features of a point.
    pub n_features: usize,
    /// The points, row-major `len x n_features`.
    pub points: Vec<f64>,
    /// The training row each point is, or `-1` for a merged point.
    pub source: Vec<i64>,
    /// Row-major `n_problems x len`: problem `p`'s coefficients of every point.
    pub dual_coef: Vec<f64>,
    /// One intercept per problem.
    pub intercept: Vec<f64>,
    /// What each problem's fit reported, with its steps.
    pub reports: Vec<(BudgetFitOutput, u64)>,
}

/// Every binary problem of `labels` (one-vs-rest; one for two classes) with a
/// budget of its own, problem `p` from stream `p` of the seed, on `n_threads`
/// threads (0: all cores; the models do not depend on it).
pub fn fit_budgeted_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    settings: (Kernel, usize, Maintenance),
    n_threads: usize,
    monitor: &Monitor,
) -> Result<BudgetedModels> {
    labels.check(rows.n_rows())?;
    let n_problems = labels.n_problems();
    let multi = n_problems > 1;
    let states: Vec<BudgetState> = (0..n_problems)
        .map(|p| BudgetState::new(rows.n_features(), params.seed, p as u64))
        .collect();
    let done = for_each_problem(states, n_threads, |p, mut state| {
        let task = labels.task(p)?;
        let label = problem_label(multi && params.verbose, p);
        let out = fit_budgeted_binary(rows, &task, params, settings, &mut state, monitor, &label)?;
        Ok((state, out))
    })?;
    Ok(join(rows.n_features(), params.alpha, &done))
}

/// A binary problem per pair of classes of `labels` (`crate::solvers::kernel::one_vs_one`'s
/// pairs, rows, labels and regularisation), each with a budget of its own, pair `p`
/// from stream `p` of the seed; two classes train their one problem
/// ([`fit_budgeted_one_vs_rest`]). The points' training rows are numbered among all
/// the rows.
pub fn fit_budgeted_one_vs_one<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    settings: (Kernel, usize, Maintenance),
    n_threads: usize,
    monitor: &Monitor,
) -> Result<BudgetedModels> {
    labels.check(rows.n_rows())?;
    if labels.n_classes == 2 {
        return fit_budgeted_one_vs_rest(rows, labels, params, settings, n_threads, monitor);
    }
    let members = class_members(labels.codes, labels.n_classes);
    let pairs = class_pairs(labels.n_classes);
    let done = for_each_problem(pairs, n_threads, |p, (i, j)| {
        let pair = Pair::new(labels, &members, (i, j), params)?;
        let index: Vec<usize> = pair.rows.iter().map(|&r| r as usize).collect();
        let view = RowSubset::new(rows, &index)?;
        let task = pair.task()?;
        let mut state = BudgetState::new(rows.n_features(), params.seed, p as u64);
        let label = if params.verbose {
            format!("[pair {i}-{j}] ")
        } else {
            String::new()
        };
        let out = fit_budgeted_binary(
            &view,
            &task,
            &pair.params,
            settings,
            &mut state,
            monitor,
            &label,
        )?;
        // The pair's rows numbered among all the rows.
        for source in &mut state.points.source {
            if let Ok(r) = usize::try_from(*source) {
                *source = i64::from(pair.rows[r]);
            }
        }
        state.of_row.clear();
        Ok((state, out, pair.params.alpha))
    })?;
    let models = done
        .iter()
        .map(|(s, o, alpha)| (s.model(*alpha), o.clone(), s.steps()))
        .collect();
    Ok(join_models(rows.n_features(), models))
}

/// A regression of the real `targets` (sample weights `sample_weight`) with a
/// budget, from stream 0 of the seed; `params.loss` a regression loss the kernel
/// solver takes.
pub fn fit_budgeted_regression<R: Rows>(
    rows: &R,
    (targets, sample_weight): (&[f64], Option<&[f64]>),
    params: &ValidParams,
    settings: (Kernel, usize, Maintenance),
    monitor: &Monitor,
) -> Result<BudgetedModels> {
    check_y_len(rows.n_rows(), targets.len(), "targets")?;
    let task = BinaryTask::regression(targets, sample_weight)?;
    task.check_targets()?;
    let mut state = BudgetState::new(rows.n_features(), params.seed, 0);
    let out = fit_budgeted_binary(rows, &task, params, settings, &mut state, monitor, "")?;
    Ok(join(rows.n_features(), params.alpha, &[(state, out)]))
}

/// The problems' models side by side (all regularised by `alpha`).
pub(crate) fn join(
    d: usize,
    alpha: f64,
    done: &[(BudgetState, BudgetFitOutput)],
) -> BudgetedModels {
    let models = done
        .iter()
        .map(|(s, o)| (s.model(alpha), o.clone(), s.steps()))
        .collect();
    join_models(d, models)
}

/// The models of the problems (with their reports and steps) side by side.
fn join_models(d: usize, done: Vec<(BudgetModel, BudgetFitOutput, u64)>) -> BudgetedModels {
    let total: usize = done.iter().map(|m| m.0.dual_coef.len()).sum();
    let mut out = BudgetedModels {
        n_features: d,
        points: Vec::with_capacity(total * d),
        source: Vec::with_capacity(total),
        dual_coef: vec![0.0; done.len() * total],
        intercept: done.iter().map(|m| m.0.intercept).collect(),
        reports: done.iter().map(|m| (m.1.clone(), m.2)).collect(),
    };
    let models: Vec<BudgetModel> = done.into_iter().map(|m| m.0).collect();
    let mut at = 0;
    for (p, m) in models.iter().enumerate() {
        out.points.extend_from_slice(&m.points);
        out.source.extend_from_slice(&m.source);
        let row = &mut out.dual_coef[p * total..(p + 1) * total];
        row[at..at + m.dual_coef.len()].copy_from_slice(&m.dual_coef);
        at += m.dual_coef.len();
    }
    out
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
