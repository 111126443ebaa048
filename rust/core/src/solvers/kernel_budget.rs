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
//! (`g_i = -dl/dp != 0`, [`crate::solvers::loss::Loss::step_weight`]) adds
//! `c_i g_i / k` to its own point's coefficient (a new point when it has none), and
//! the unregularised bias takes `b += 1/(lambda t k) sum c_i g_i`: the steps of
//! [`crate::solvers::kernel_solver`], so that with a budget no fit reaches, the
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
//!   `a_m^2 + a_n^2 + 2 a_m a_n kappa - a_z^2`. The best `h` depends on
//!   `|a_m| / (|a_m| + |a_n|)` and `kappa` only, so, as Qaadan and Glasmachers do,
//!   it is tabulated once and the partners are ranked by the degradation at the
//!   table's `h` ([`quick_merge`]: two exponentials a partner); the chosen
//!   partner's `h` is then searched exactly. One kernel row of `z_m` against the
//!   points (`O(B d)`) and `O(1)` a partner: the step stays `O(B d)`.
//!   Without a partner of the same sign, `m` is removed.
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
//! `acc_m K(z_m, z) + acc_n K(z_n, z)`): the averaged model has the same `B` points.

use std::collections::HashMap;

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::data::subset::RowSubset;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::kernels::function::{Kernel, KernelRows};
use crate::math;
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::kernel_solver::{check_kernel_params, KernelAverage};
use crate::solvers::loss::Loss;
use crate::solvers::multiclass::problem_label;
use crate::solvers::one_class::{reset_stride, strided_rho};
use crate::solvers::one_vs_one::{class_members, class_pairs, Pair};
use crate::solvers::params::{Averaging, Intercept, ValidParams};
use crate::solvers::passes::{drive, PassPlan, PassRunner, PassSubject};
use crate::solvers::sampler::{Draws, Sampler};

/// How the budget is kept when a step exceeds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Maintenance {
    /// Drop the point of smallest coefficient (every kernel).
    Remove,
    /// Merge the point of smallest coefficient with its best partner (rbf only).
    Merge,
}

/// Relative width of the interval golden-section search stops at.
const SEARCH_TOL: f64 = 1e-6;

/// The checked settings of a budgeted fit: at least 2 points; merging needs a
/// kernel with a merge rule (rbf).
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
        let row = &self.data[self.data.len() - self.d..];
        let (sq, sum) = row
            .iter()
            .fold((0.0, 0.0), |(sq, sum), v| (sq + v * v, sum + v));
        self.sq_norm.push(sq);
        self.sum.push(sum);
        self.coef.push(coef);
        self.source.push(source);
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

/// The best `h` of [`best_merge`] at the table's nodes: it depends on `r` and
/// `kappa` only (`|a_z| / (|a_m| + |a_n|) = r kappa^((1-h)^2) + (1-r) kappa^(h^2)`),
/// computed once per process (Qaadan and Glasmachers' precomputation).
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
                t.push(best_merge(r.max(1e-12), 1.0 - r, gd).0);
            }
        }
        t
    })
}

/// A merge of `a_m` into `a_n` (same sign, `|a_m| <= |a_n|`) at `gd` with `h` read
/// from the merge table (the best of the four nodes around `(r, kappa)`): `(h, a_z,
/// degradation)` exact for that `h`, at
/// least [`best_merge`]'s degradation and close to it. Ranks the partners; the
/// chosen one's merge is [`best_merge`]'s.
pub fn quick_merge(a_m: f64, a_n: f64, gd: f64) -> (f64, f64, f64) {
    let table = merge_table();
    let r = (a_m.abs() / (a_m.abs() + a_n.abs())).min(0.5);
    let kappa = math::exp(-gd);
    let (x, y) = (r / 0.5 * TABLE_R as f64, kappa * TABLE_K as f64);
    let (i, j) = ((x as usize).min(TABLE_R - 1), (y as usize).min(TABLE_K - 1));
    let at = |i: usize, j: usize| table[i * (TABLE_K + 1) + j];
    // The best of the four surrounding nodes' h (where h jumps between the two ends
    // of the segment, an interpolated h would fall between the peaks).
    let value =
        |h: f64| a_m * math::exp(-(1.0 - h) * (1.0 - h) * gd) + a_n * math::exp(-h * h * gd);
    let (h, a_z) = [at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1)]
        .into_iter()
        .map(|h| (h, value(h)))
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .unwrap_or((0.5, value(0.5)));
    let degradation = a_m * a_m + a_n * a_n + 2.0 * a_m * a_n * kappa - a_z * a_z;
    (h, a_z, degradation)
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
        let avg = &self.avg;
        let (coef, intercept): (Vec<f64>, f64) = if avg.active() {
            avg.averaged(&pts.coef, alpha_reg)
        } else {
            let scale = if self.t == 0 {
                0.0
            } else {
                1.0 / (alpha_reg * self.t as f64)
            };
            (pts.coef.iter().map(|c| c * scale).collect(), self.bias)
        };
        BudgetModel {
            n_features: pts.d,
            points: pts.data.clone(),
            dual_coef: coef,
            source: pts.source.clone(),
            intercept,
        }
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
    /// Maintenance steps taken (merges or removals).
    pub maintenance_steps: u64,
    /// Of those, points removed without a merge.
    pub removals: u64,
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

impl<R: Rows> BudgetRun<'_, R> {
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
                // The one-class SVM's drift (`crate::solvers::kernel_solver`).
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
        state
            .points
            .push_entries(&self.query.entries, f, key as i64);
        if state.avg.active() {
            state.avg.acc.push(0.0);
            state.avg.last.push(state.avg.h);
        }
        state.of_row.insert(key, state.points.len() - 1);
        if state.points.len() > self.budget {
            self.keep_budget();
        }
    }

    /// One maintenance step: from `B + 1` points to `B`.
    fn keep_budget(&mut self) {
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
            let (_, _, degradation) = quick_merge(a_m, a_n, gamma * dist);
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
            Self::drop_point(state, s);
        }
        state.points.push(&z, a_z, -1);
        if state.avg.active() {
            state.avg.acc.push(acc);
            state.avg.last.push(state.avg.h);
        }
    }

    fn remove(&mut self, m: usize) {
        let state = &mut *self.state;
        if let Ok(row) = usize::try_from(state.points.source[m]) {
            state.of_row.remove(&row);
        }
        Self::drop_point(state, m);
    }

    /// Remove point `s`, the last point taking its place (its row's entry moved).
    fn drop_point(state: &mut BudgetState, s: usize) {
        let last = state.points.len() - 1;
        state.points.swap_remove(s);
        if state.avg.active() {
            state.avg.acc.swap_remove(s);
            state.avg.last.swap_remove(s);
        }
        if s != last {
            if let Ok(row) = usize::try_from(state.points.source[s]) {
                state.of_row.insert(row, s);
            }
        }
    }
}

impl<R: Rows> BudgetRun<'_, R> {
    fn resets_bias(&self) -> bool {
        self.params.one_class && self.params.intercept == Intercept::Unregularized
    }

    /// The one-class SVM: the bias set to `1 - rho`, `rho` the `nu`-quantile of the
    /// iterate's scores on at most [`RESET_ROWS`](crate::solvers::one_class::RESET_ROWS) rows, as the kernel solver sets
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
        if self.state.avg.active() {
            return false;
        }
        self.state.avg.start = self.state.t + 1;
        true
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

/// Begin a fit of `params` on `n` rows continuing `state`: its steps per pass, the
/// suffix average set to begin halfway through the fit's steps.
pub(crate) fn begin_budgeted(state: &mut BudgetState, params: &ValidParams, n: usize) -> u64 {
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
    if kernel.is_additive() {
        // Non-negative rows without repeated columns, as the kernel needs them.
        KernelRows::new(kernel, rows)?;
    }
    let n = rows.n_rows();
    if n == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    if task.len() != n {
        return Err(Error::ShapeMismatch(format!(
            "{n} rows, {} labels",
            task.len()
        )));
    }
    if state.points.d != rows.n_features() {
        return Err(Error::ShapeMismatch(format!(
            "a budget state of {} features, rows of {}",
            state.points.d,
            rows.n_features()
        )));
    }
    let per_pass = begin_budgeted(state, params, n);
    let mut run = BudgetRun {
        rows,
        task,
        params,
        kernel,
        budget,
        maintenance,
        draws: Some(Draws::new(&params.sampling, task)?),
        state,
        query: RowQuery::new(rows.n_features()),
        batch: Vec::with_capacity(params.batch_size),
        violators: Vec::with_capacity(params.batch_size),
        out: BudgetFitOutput::default(),
        monitor,
    };
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
        KernelRows::new(kernel, rows)?;
    }
    let mut run = BudgetRun {
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
        out: std::mem::take(out),
        monitor,
    };
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

/// A binary problem per pair of classes of `labels` (`crate::solvers::one_vs_one`'s
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
    if targets.len() != rows.n_rows() {
        return Err(Error::ShapeMismatch(format!(
            "X has {} rows but y has {} targets",
            rows.n_rows(),
            targets.len()
        )));
    }
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
#[path = "kernel_budget_tests.rs"]
mod tests;
