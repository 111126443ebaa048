//! The step of shared-draw one-vs-rest on a block of classes whose weights are
//! stored feature-major (see [`crate::solvers::linear::shared_ovr`] for the algorithm).
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011), step
//! `t` for every class `c` of the block on the same drawn batch `A_t`:
//!
//! ```text
//! g_ic      = -dl/dp (<w_c, x_i> + b_c, y_ic)      (at w_t; hinge: y_ic if margin < 1)
//! w_c      <- (1 - 1/t) w_c + 1/(lambda t k) sum_{i in A_t} c_ic g_ic x_i
//! w_c      <- min(1, r_c / ||w_c||) w_c                            (optional)
//! ```
//!
//! Class `c`'s arithmetic is, operation for operation, that of
//! [`crate::solvers::linear::binary`] on the binary task `c` (`w_c = scale_c v_c`, the
//! margins summed in the same four lanes, the same lazy average and rescaling):
//! given the same draws, its model is the binary solver's bit for bit, whichever
//! block it is in.

use crate::data::rows::{Rows, LANES};
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::prefetch::prefetch;
use crate::simd::{with_avx2, Job};
use crate::solvers::linear::binary::{begin_step, for_each_batch, LinearState, StepRule};
use crate::solvers::linear::scaled::RESCALE_BELOW;
use crate::solvers::shared::loss::Loss;

/// The state of classes `first..first + k` of a shared-draw fit: every per-class
/// quantity of [`LinearState`] with the weights of feature `j` for the `k` classes
/// contiguous (`v[j * k + c]`), and the step count and generator they share.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// First class (binary problem) of the block.
    pub(crate) first: usize,
    /// Number of classes.
    pub(crate) k: usize,
    /// `(n_features + 1) x k`, feature-major; row `n_features` the bias-multiplier
    /// weights.
    pub(crate) v: Vec<f64>,
    pub(crate) scale: Vec<f64>,
    pub(crate) sq_norm: Vec<f64>,
    pub(crate) bias: Vec<f64>,
    pub(crate) t: u64,
    pub(crate) sampler: crate::solvers::shared::sampler::Sampler,
    pub(crate) avg_start: u64,
    /// Empty, or laid out as `v`.
    pub(crate) avg_u: Vec<f64>,
    pub(crate) avg_beta: Vec<f64>,
    pub(crate) avg_bias_sum: Vec<f64>,
    pub(crate) avg_count: u64,
}

/// Per-step scratch space of a block.
#[derive(Default)]
pub(crate) struct Scratch {
    /// `LANES x k` partial sums of the margins, or of the changes of `||v_c||^2`.
    lanes: Vec<f64>,
    /// `batch x k` steps `eta_t / k * c_ic * g_ic` (0 for a class whose loss is flat
    /// there).
    g: Vec<f64>,
    /// `k` steps of `v` for one row.
    dv: Vec<f64>,
    /// The classes a row violates.
    violated: Vec<usize>,
    /// The stored entries of the current row: columns and values.
    cols: Vec<usize>,
    vals: Vec<f64>,
}

/// Features per block of the transposes between the class-major states and the
/// feature-major weights: the block's `k`-wide rows stay in cache while every
/// class's run of it is copied, instead of one strided sweep of all weights per
/// class.
const TRANSPOSE_FEATURES: usize = 64;

/// Call `f` on the consecutive ranges of `TRANSPOSE_FEATURES` features of `0..n`.
fn for_feature_blocks(n: usize, mut f: impl FnMut(std::ops::Range<usize>)) {
    for start in (0..n).step_by(TRANSPOSE_FEATURES) {
        f(start..n.min(start + TRANSPOSE_FEATURES));
    }
}

/// Entries ahead whose weights are hinted into cache while one is processed (the
/// feature-major solvers: shared draws and Crammer–Singer).
pub(crate) const WEIGHTS_AHEAD: usize = 4;

/// Copy row `i`'s stored entries (in [`Rows::for_each_entry`]'s order).
pub(crate) fn load_row<R: Rows>(rows: &R, i: usize, cols: &mut Vec<usize>, vals: &mut Vec<f64>) {
    cols.clear();
    vals.clear();
    rows.for_each_entry(i, |j, x| {
        cols.push(j);
        vals.push(x);
    });
}

/// Hint the `k` weights of feature `j` into cache.
#[inline(always)]
#[allow(clippy::inline_always)] // inlined into the AVX2 build of the jobs
fn prefetch_weights(v: &[f64], j: usize, k: usize) {
    for off in (0..k).step_by(8) {
        prefetch(&v[j * k + off]);
    }
}

/// The margins' raw sums of all `k` classes for one row (see [`Block::raw_scores`]).
struct ScoreJob<'a> {
    cols: &'a [usize],
    vals: &'a [f64],
    v: &'a [f64],
    k: usize,
    lanes: &'a mut [f64],
}

impl Job for ScoreJob<'_> {
    #[inline(always)]
    #[allow(clippy::inline_always)] // compiled into the AVX2 build (see `simd`)
    fn run(self) {
        let k = self.k;
        for (e, (&j, &x)) in self.cols.iter().zip(self.vals).enumerate() {
            if let Some(&ahead) = self.cols.get(e + WEIGHTS_AHEAD) {
                prefetch_weights(self.v, ahead, k);
            }
            let lane = &mut self.lanes[(e % LANES) * k..(e % LANES + 1) * k];
            for (a, w) in lane.iter_mut().zip(&self.v[j * k..(j + 1) * k]) {
                *a += x * w;
            }
        }
    }
}

/// `v_c += dv_c x` for all `k` classes of one row, the changes of `||v_c||^2` added
/// to `lanes` as [`Rows::axpy_sq_delta`] adds them.
struct SweepJob<'a> {
    cols: &'a [usize],
    vals: &'a [f64],
    dv: &'a [f64],
    v: &'a mut [f64],
    k: usize,
    lanes: &'a mut [f64],
}

impl Job for SweepJob<'_> {
    #[inline(always)]
    #[allow(clippy::inline_always)] // compiled into the AVX2 build (see `simd`)
    fn run(self) {
        let k = self.k;
        for (e, (&j, &x)) in self.cols.iter().zip(self.vals).enumerate() {
            if let Some(&ahead) = self.cols.get(e + WEIGHTS_AHEAD) {
                prefetch_weights(self.v, ahead, k);
            }
            let lane = &mut self.lanes[(e % LANES) * k..(e % LANES + 1) * k];
            let w = &mut self.v[j * k..(j + 1) * k];
            for ((a, wj), dvc) in lane.iter_mut().zip(w).zip(self.dv) {
                let step = dvc * x;
                let old = *wj;
                let new = old + step;
                *wj = new;
                *a += step * (new + old);
            }
        }
    }
}

impl Block {
    /// The block of `states` (classes `first..first + states.len()`), which must
    /// share their step count, generator and averaging (a shared-draw fit's).
    pub(crate) fn from_states(first: usize, states: &[LinearState]) -> Result<Self> {
        let s0 = states
            .first()
            .ok_or_else(|| Error::InvalidState("a block without classes".into()))?;
        let shared = states.iter().all(|s| {
            s.t == s0.t
                && s.sampler == s0.sampler
                && s.avg_start == s0.avg_start
                && s.avg_count == s0.avg_count
                && s.v.len() == s0.v.len()
                && s.avg_u.len() == s0.avg_u.len()
        });
        if !shared {
            return Err(Error::InvalidState(
                "the solver state was trained with independent draws per class \
                 (multi_class='ovr'): shared draws cannot continue it"
                    .into(),
            ));
        }
        let k = states.len();
        let width = s0.v.len();
        let transpose = |col: &dyn Fn(&LinearState) -> &[f64], len: usize| {
            let mut out = vec![0.0; len * k];
            for_feature_blocks(len, |js| {
                for (c, s) in states.iter().enumerate() {
                    for (j, x) in js.clone().zip(&col(s)[js.clone()]) {
                        out[j * k + c] = *x;
                    }
                }
            });
            out
        };
        Ok(Self {
            first,
            k,
            v: transpose(&|s| &s.v, width),
            scale: states.iter().map(|s| s.scale).collect(),
            sq_norm: states.iter().map(|s| s.sq_norm).collect(),
            bias: states.iter().map(|s| s.bias).collect(),
            t: s0.t,
            sampler: s0.sampler.clone(),
            avg_start: s0.avg_start,
            avg_u: transpose(&|s| &s.avg_u, s0.avg_u.len()),
            avg_beta: states.iter().map(|s| s.avg_beta).collect(),
            avg_bias_sum: states.iter().map(|s| s.avg_bias_sum).collect(),
            avg_count: s0.avg_count,
        })
    }

    /// The block of classes `first..first + k` of a fresh fit, every class in the
    /// state `template` (of any width) with zero weights of `width` entries.
    pub(crate) fn fresh(
        first: usize,
        k: usize,
        width: usize,
        template: &LinearState,
    ) -> Result<Self> {
        let len = width
            .checked_mul(k)
            .ok_or_else(|| Error::OutOfMemory(format!("{k} classes x {width} weights")))?;
        let avg_u = if template.avg_u.is_empty() {
            Vec::new()
        } else {
            try_filled_vec(len, 0.0, "the averaged weights")?
        };
        Ok(Self {
            first,
            k,
            v: try_filled_vec(len, 0.0, "the weights")?,
            scale: vec![template.scale; k],
            sq_norm: vec![template.sq_norm; k],
            bias: vec![template.bias; k],
            t: template.t,
            sampler: template.sampler.clone(),
            avg_start: template.avg_start,
            avg_u,
            avg_beta: vec![template.avg_beta; k],
            avg_bias_sum: vec![template.avg_bias_sum; k],
            avg_count: template.avg_count,
        })
    }

    /// Write the block back into `states` (its classes only).
    pub(crate) fn write_states(&self, states: &mut [LinearState]) {
        let k = self.k;
        let states = &mut states[..k];
        let width = self.v.len() / k;
        for_feature_blocks(width, |js| {
            for (c, s) in states.iter_mut().enumerate() {
                for (j, x) in js.clone().zip(&mut s.v[js.clone()]) {
                    *x = self.v[j * k + c];
                }
            }
        });
        let avg_len = self.avg_u.len() / k;
        for s in states.iter_mut().filter(|s| s.avg_u.len() != avg_len) {
            s.avg_u = vec![0.0; avg_len];
        }
        for_feature_blocks(avg_len, |js| {
            for (c, s) in states.iter_mut().enumerate() {
                for (j, x) in js.clone().zip(&mut s.avg_u[js.clone()]) {
                    *x = self.avg_u[j * k + c];
                }
            }
        });
        for (c, s) in states.iter_mut().enumerate() {
            s.scale = self.scale[c];
            s.sq_norm = self.sq_norm[c];
            s.bias = self.bias[c];
            s.t = self.t;
            s.sampler = self.sampler.clone();
            s.avg_start = self.avg_start;
            s.avg_beta = self.avg_beta[c];
            s.avg_bias_sum = self.avg_bias_sum[c];
            s.avg_count = self.avg_count;
        }
    }

    /// Number of features.
    fn d(&self) -> usize {
        self.v.len() / self.k - 1
    }

    /// Write every class's model (the average when one exists, else the last
    /// iterate) into `w` (`k` rows of `n_features`, class-major) and its intercept
    /// into `intercepts`, each as [`LinearState::write_model`] does.
    pub(crate) fn write_models(&self, bias_feature: f64, w: &mut [f64], intercepts: &mut [f64]) {
        let (k, d) = (self.k, self.d());
        let n = self.avg_count as f64;
        let model = |j: usize, c: usize| {
            if self.avg_count == 0 {
                self.v[j * k + c] * self.scale[c]
            } else {
                (self.avg_u[j * k + c] + self.avg_beta[c] * self.v[j * k + c]) / n
            }
        };
        for_feature_blocks(d, |js| {
            for (c, row) in w.chunks_exact_mut(d).take(k).enumerate() {
                for (j, o) in js.clone().zip(&mut row[js.clone()]) {
                    *o = model(j, c);
                }
            }
        });
        for (c, b) in intercepts.iter_mut().take(k).enumerate() {
            *b = if self.avg_count == 0 {
                self.bias[c] + bias_feature * self.scale[c] * self.v[d * k + c]
            } else {
                self.avg_bias_sum[c] / n + bias_feature * model(d, c)
            };
        }
    }

    /// The margins' raw sums `<v_c, x_i>` of every class for the row in `s`, in the
    /// four lanes of [`Rows::dot`] (entry `e` of the row in lane `e % 4`), left in
    /// `s.lanes[l * k + c]`.
    fn raw_scores(&self, s: &mut Scratch) {
        let k = self.k;
        s.lanes.clear();
        s.lanes.resize(LANES * k, 0.0);
        with_avx2(ScoreJob {
            cols: &s.cols,
            vals: &s.vals,
            v: &self.v,
            k,
            lanes: &mut s.lanes,
        });
    }

    /// The steps `g` of row `i` at batch position `b` (`at = (i, b)`) for every
    /// class, at the current iterate.
    fn violations<R: Rows>(
        &self,
        rows: &R,
        tasks: &[BinaryTask<'_>],
        rule: &StepRule,
        at: (usize, usize),
        eta_over_k: f64,
        scratch: &mut Scratch,
    ) {
        let (i, b) = at;
        let (k, d) = (self.k, self.d());
        load_row(rows, i, &mut scratch.cols, &mut scratch.vals);
        self.raw_scores(scratch);
        let l = &scratch.lanes;
        let g = &mut scratch.g[b * k..(b + 1) * k];
        for (c, task) in tasks.iter().enumerate() {
            let weight = task.weight(i);
            if weight == 0.0 {
                continue;
            }
            let raw = (l[c] + l[k + c]) + (l[2 * k + c] + l[3 * k + c]);
            let w_dot = self.scale[c] * (raw + rule.bias_feature * self.v[d * k + c]);
            let step = rule.loss.step_weight(w_dot + self.bias[c], task.y(i));
            if step != 0.0 {
                g[c] = eta_over_k * weight * step;
            }
        }
    }

    /// One Pegasos step of every class on the batch `batch`; `tasks` and
    /// `sq_radius` hold the block's classes.
    pub(crate) fn step<R: Rows>(
        &mut self,
        rows: &R,
        tasks: &[BinaryTask<'_>],
        rule: &StepRule,
        sq_radius: &[f64],
        batch: &[usize],
        scratch: &mut Scratch,
    ) {
        let (inv_t, eta_over_k) = begin_step(&mut self.t, rule.inv_alpha_k);
        scratch.g.clear();
        scratch.g.resize(batch.len() * self.k, 0.0);
        for (b, &i) in batch.iter().enumerate() {
            self.violations(rows, tasks, rule, (i, b), eta_over_k, scratch);
        }
        self.shrink(1.0 - inv_t);
        for (b, &i) in batch.iter().enumerate() {
            self.update(rows, rule, i, b, scratch);
        }
        let mut any_small = false;
        for (c, &radius) in sq_radius.iter().enumerate().take(self.k) {
            if self.sq_norm[c] < 0.0 {
                self.sq_norm[c] = 0.0;
            }
            if self.sq_norm[c] > radius {
                let f = (radius / self.sq_norm[c]).sqrt();
                self.scale[c] *= f;
                self.sq_norm[c] *= f * f;
            }
            any_small |= self.scale[c] < RESCALE_BELOW;
        }
        if any_small {
            self.rescale_small();
        }
        self.accumulate_average(rule.weighted);
    }

    /// `w <- shrink w` for every class (`shrink <= 0`: restart from zero).
    fn shrink(&mut self, shrink: f64) {
        if shrink <= 0.0 {
            for c in 0..self.k {
                self.fold_average(c);
            }
            self.v.fill(0.0);
            self.scale.fill(1.0);
            self.sq_norm.fill(0.0);
        } else {
            for (a, q) in self.scale.iter_mut().zip(&mut self.sq_norm) {
                *a *= shrink;
                *q *= shrink * shrink;
            }
        }
    }

    /// Add row `i` (batch position `b`) to the classes it violates: one sweep of
    /// the row over all `k` classes when many are violated, else one per class.
    fn update<R: Rows>(&mut self, rows: &R, rule: &StepRule, i: usize, b: usize, s: &mut Scratch) {
        let k = self.k;
        let g = &s.g[b * k..(b + 1) * k];
        s.violated.clear();
        s.violated.extend((0..k).filter(|&c| g[c] != 0.0));
        if s.violated.is_empty() {
            return;
        }
        s.dv.clear();
        s.dv.extend(g.iter().zip(&self.scale).map(|(g, a)| g / a));
        s.lanes.clear();
        s.lanes.resize(LANES * k, 0.0);
        load_row(rows, i, &mut s.cols, &mut s.vals);
        if 4 * s.violated.len() >= k {
            with_avx2(SweepJob {
                cols: &s.cols,
                vals: &s.vals,
                dv: &s.dv,
                v: &mut self.v,
                k,
                lanes: &mut s.lanes,
            });
        } else {
            for &c in &s.violated {
                self.sweep_one(&s.cols, &s.vals, c, s.dv[c], &mut s.lanes);
            }
        }
        let d = self.d();
        let bf = rule.bias_feature;
        for &c in &s.violated {
            let l = &s.lanes;
            let mut delta = (l[c] + l[k + c]) + (l[2 * k + c] + l[3 * k + c]);
            let dv = s.dv[c];
            let old = self.v[d * k + c];
            self.v[d * k + c] += dv * bf;
            let new = self.v[d * k + c];
            delta += (new - old) * (new + old);
            self.sq_norm[c] += self.scale[c] * self.scale[c] * delta;
            if self.avg_beta[c] != 0.0 {
                let du = -self.avg_beta[c] * dv;
                for (&j, &x) in s.cols.iter().zip(&s.vals) {
                    self.avg_u[j * k + c] += du * x;
                }
                self.avg_u[d * k + c] += du * bf;
            }
            if rule.learn_bias {
                self.bias[c] += g[c];
            }
        }
    }

    /// `v_c += dv_c x` for class `c` alone, on the row's entries `cols`, `vals`; the
    /// changes of `||v_c||^2` added to `lanes` as [`Rows::axpy_sq_delta`] adds them.
    fn sweep_one(&mut self, cols: &[usize], vals: &[f64], c: usize, dv: f64, lanes: &mut [f64]) {
        let k = self.k;
        for (e, (&j, &x)) in cols.iter().zip(vals).enumerate() {
            let step = dv * x;
            let wj = &mut self.v[j * k + c];
            let old = *wj;
            let new = old + step;
            *wj = new;
            lanes[(e % LANES) * k + c] += step * (new + old);
        }
    }

    /// Make `u_c` hold class `c`'s whole running sum (`beta_c = 0`).
    fn fold_average(&mut self, c: usize) {
        let beta = self.avg_beta[c];
        if beta != 0.0 {
            let k = self.k;
            for j in 0..self.v.len() / k {
                self.avg_u[j * k + c] += beta * self.v[j * k + c];
            }
            self.avg_beta[c] = 0.0;
        }
    }

    /// Multiply out `v_c` of every class whose scale fell below [`RESCALE_BELOW`]
    /// so that its scale is 1, folding its average first (see
    /// [`LinearState::rescale`]): one sweep of the feature-major weights for all of
    /// them, each class's arithmetic in the binary solver's order.
    fn rescale_small(&mut self) {
        let k = self.k;
        let small: Vec<usize> = (0..k).filter(|&c| self.scale[c] < RESCALE_BELOW).collect();
        let folds: Vec<(usize, f64)> = small
            .iter()
            .map(|&c| (c, self.avg_beta[c]))
            .filter(|&(_, beta)| beta != 0.0)
            .collect();
        for &c in &small {
            self.avg_beta[c] = 0.0;
            self.sq_norm[c] = 0.0;
        }
        for (j, row) in self.v.chunks_exact_mut(k).enumerate() {
            for &(c, beta) in &folds {
                self.avg_u[j * k + c] += beta * row[c];
            }
            for &c in &small {
                row[c] *= self.scale[c];
                self.sq_norm[c] += row[c] * row[c];
            }
        }
        for &c in &small {
            self.scale[c] = 1.0;
        }
    }

    /// Add the iterate of this step to the running averages.
    fn accumulate_average(&mut self, weighted: bool) {
        if self.t < self.avg_start {
            return;
        }
        if self.t == self.avg_start {
            self.avg_u.fill(0.0); // allocated by the plan
            self.avg_beta.fill(0.0);
            self.avg_bias_sum.fill(0.0);
            self.avg_count = 0;
        }
        let w = if weighted { self.t } else { 1 } as f64;
        for c in 0..self.k {
            self.avg_beta[c] += w * self.scale[c];
            self.avg_bias_sum[c] += w * self.bias[c];
        }
        self.avg_count = self
            .avg_count
            .saturating_add(if weighted { self.t } else { 1 });
    }

    /// The steps of the drawn examples `drawn` (whole batches of `rule.batch_size`),
    /// prefetching rows a few examples ahead.
    pub(crate) fn steps<R: Rows>(
        &mut self,
        rows: &R,
        tasks: &[BinaryTask<'_>],
        rule: &StepRule,
        sq_radius: &[f64],
        drawn: &[usize],
        scratch: &mut Scratch,
    ) {
        for_each_batch(rows, drawn, rule.batch_size, |batch| {
            self.step(rows, tasks, rule, sq_radius, batch, scratch);
        });
    }
}
