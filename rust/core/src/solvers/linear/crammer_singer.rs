//! The Crammer–Singer multiclass SVM trained by Pegasos.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated
//! sub-GrAdient SOlver for SVM", Math. Programming 2011, section 5 "Extensions",
//! multiclass categorization) applied to the multiclass hinge loss of Crammer and
//! Singer ("On the algorithmic implementation of multiclass kernel-based vector
//! machines", JMLR 2001).
//!
//! # Objective
//! One weight vector `w_r` per class `r` (`W` the `K x d` matrix of them):
//!
//! ```text
//! lambda/2 sum_r ||w_r||^2
//!   + 1/m sum_i c_i max_r [1(r != y_i) + <w_r - w_{y_i}, x_i> + b_r - b_{y_i}]
//! ```
//!
//! with `lambda` called `alpha`, `c_i` the example weights (sample weight times
//! the class weight of `y_i`) and `b_r` the intercepts: zero
//! ([`Intercept::None`]), unregularised ([`Intercept::Unregularized`]), or
//! `b_r = B w_{r,B}` for a constant feature `B` whose weights `w_{r,B}` are part of
//! `W` and regularised ([`Intercept::BiasMultiplier`], LIBLINEAR's and
//! scikit-learn's `intercept_scaling`).
//!
//! # Update rule (step t = 1, 2, ...)
//! Draw a batch `A_t` of `k` examples. With `eta_t = 1 / (lambda t)` and, for
//! each drawn example, the scores `s_r = <w_r, x_i> + b_r` at `W_t` (all taken at
//! `W_t`, not sequentially) and `r* = argmax_{r != y_i} s_r` (the first such
//! class on ties), the example has a positive loss when `1 + s_{r*} - s_{y_i} > 0`:
//!
//! ```text
//! W_{t+1/2} = (1 - eta_t lambda) W_t
//! for each i in A_t with a positive loss:
//!     w_{y_i} += eta_t c_i / k * x_i,     w_{r*} -= eta_t c_i / k * x_i
//!     b_{y_i} += eta_t c_i / k,           b_{r*} -= eta_t c_i / k   (unregularised)
//! W_{t+1}   = min(1, R / ||W_{t+1/2}||_F) W_{t+1/2}                 (optional)
//! ```
//!
//! # Projection radius
//! The dual of the objective (without or with an unregularised bias) maximises
//! `1/m sum_i sum_{r != y_i} alpha_ir - lambda/2 ||W(alpha)||_F^2` over
//! `alpha_ir >= 0` with `sum_r alpha_ir <= c_i`; its linear part is at most
//! `L0 = mean_i c_i`, the loss of `W = 0` (every example's loss is 1 there). At
//! the optimum primal and dual values agree, so
//! `lambda/2 ||W*||^2 + L(W*) = 1/m sum alpha* - lambda/2 ||W*||^2 <= L0 -
//! lambda/2 ||W*||^2`, hence `||W*||_F <= R = sqrt(L0 / lambda)`: the paper's
//! binary argument, and the radius of the binary hinge in
//! [`crate::solvers::linear::binary`] (`kappa = 1`).
//!
//! # Cost of a step
//! `W` is stored as `a V` with `||W||_F^2` tracked, `V` feature-major (the `K`
//! weights of feature `j` contiguous, `V[j K + r]`, the last row the weights of the
//! bias feature): the scores of a row are `nnz x K` contiguous multiply-adds; the
//! shrink and the projection multiply the scalar `a`; an update touches two
//! classes' weights of the row's non-zeros. When `a` falls below
//! [`RESCALE_BELOW`], `V` is multiplied out (rare). A step costs
//! `O(nnz K)` for the scores plus `O(nnz)` per update, never `O(d K)`.
//!
//! # Averaging, passes, state
//! The averaged iterate `S / n` is kept lazily as `S = U + beta V` (one `beta`:
//! `W` has one scale), as in [`crate::solvers::linear::binary`], with the same
//! [`Averaging`] modes and starts. Passes, `tol`, the objective, verbose lines and
//! cancellation are `drive`'s. The state of a fit ([`CrammerSingerState`]) is
//! saved as a list of [`LinearState`]s (see [`CrammerSingerState::to_states`]) so
//! that the model files and the binding keep one kind of solver state; a fit
//! continued from it is bit for bit the uninterrupted fit. The steps are
//! sequential (every class takes part in every step): the model does not depend
//! on the number of threads.

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::prefetch::prefetch;
use crate::simd::{with_avx2, Job};
use crate::solvers::linear::binary::{
    begin_step, bias_feature, check_drawn, check_drawn_batches, check_every_row, drawn_blocks,
    for_each_batch, plan_averaged, run_in_blocks, FitOutput, LinearState, StateKind,
};
use crate::solvers::linear::scaled::{scaled_parts, ScaledParts, ScaledState};
use crate::solvers::linear::shared_block::{load_row, WEIGHTS_AHEAD};
use crate::solvers::shared::loss::LossFunction;
use crate::solvers::shared::params::{Averaging, Intercept, Sampling, ValidParams};
use crate::solvers::shared::passes::{
    drive, probe_stride, runs_on_state, PassPlan, PassRunner, PassSubject, Probe,
};
use crate::solvers::shared::sampler::{Drawn, Draws, KeyDraws, Sampler};

/// The complete state of a Crammer–Singer Pegasos run. Training `T1` steps, then
/// `T2` more from the returned state, is bit for bit `T1 + T2` at once.
#[derive(Clone, Debug, PartialEq)]
pub struct CrammerSingerState {
    /// Number of classes `K`.
    k: usize,
    /// `(n_features + 1) x K`, feature-major: `V[j K + r]`; row `n_features` the
    /// bias-feature weights.
    v: Vec<f64>,
    /// The scale `a` of `W = a V`.
    scale: f64,
    /// `||W||_F^2`, including the bias-feature weights.
    sq_norm: f64,
    /// Unregularised biases, `K`.
    bias: Vec<f64>,
    /// Steps taken so far.
    t: u64,
    /// Generator and position of the draws.
    sampler: Sampler,
    /// First step (1-based) in the average; `u64::MAX` when off.
    avg_start: u64,
    /// Empty, or laid out as `v`.
    avg_u: Vec<f64>,
    avg_beta: f64,
    avg_bias_sum: Vec<f64>,
    avg_count: u64,
}

impl CrammerSingerState {
    /// Fresh state (`W = 0`, `b = 0`, `t = 0`) of `n_classes` classes and
    /// `n_features` features, drawing from stream 0 of `seed`.
    ///
    /// Fails with [`Error::OutOfMemory`] when the weights cannot be allocated.
    pub fn new(n_classes: usize, n_features: usize, seed: u64) -> Result<Self> {
        let len = n_features
            .checked_add(1)
            .and_then(|w| w.checked_mul(n_classes))
            .ok_or_else(|| {
                Error::OutOfMemory(format!("{n_classes} classes x {n_features} features"))
            })?;
        Ok(Self {
            k: n_classes,
            v: try_filled_vec(len, 0.0, "the weights")?,
            scale: 1.0,
            sq_norm: 0.0,
            bias: vec![0.0; n_classes],
            t: 0,
            sampler: Sampler::new(seed, 0),
            avg_start: u64::MAX,
            avg_u: Vec::new(),
            avg_beta: 0.0,
            avg_bias_sum: vec![0.0; n_classes],
            avg_count: 0,
        })
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.k
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.v.len() / self.k.max(1) - 1
    }

    /// `||W||_F^2` of the last iterate (tracked, not recomputed).
    #[cfg(test)]
    pub fn sq_norm(&self) -> f64 {
        self.sq_norm
    }

    /// The state as `K + 1` [`LinearState`]s, the form model files and the
    /// binding keep: first a header with no features (of kind
    /// [`StateKind::CrammerSingerHeader`]) holding the shared scale, `||W||_F^2`, step count, generator and averaging
    /// counters; then class `r`'s weights (class-major), bias, running sums.
    /// [`CrammerSingerState::from_states`] reads it back exactly.
    pub fn to_states(&self) -> Vec<LinearState> {
        let k = self.k;
        let mut header = LinearState::new(0, 0, 0).expect("one weight");
        header.kind = StateKind::CrammerSingerHeader;
        header.scale = self.scale;
        header.sq_norm = self.sq_norm;
        header.t = self.t;
        header.sampler = self.sampler.clone();
        header.avg_start = self.avg_start;
        header.avg_beta = self.avg_beta;
        header.avg_count = self.avg_count;
        let mut avg_u = class_major(&self.avg_u, k).into_iter();
        let mut out = vec![header];
        for (r, v) in class_major(&self.v, k).into_iter().enumerate() {
            let mut s = LinearState::new(0, 0, 0).expect("one weight");
            s.v = v;
            s.avg_u = avg_u.next().unwrap_or_default();
            s.bias = self.bias[r];
            s.avg_bias_sum = self.avg_bias_sum[r];
            s.t = self.t;
            s.sampler = self.sampler.clone();
            s.kind = StateKind::CrammerSingerClass;
            out.push(s);
        }
        out
    }

    /// The state `states` hold ([`CrammerSingerState::from_states`]), or a fresh one
    /// of `n_classes` and `n_features` drawing from `seed` when there are none.
    pub fn continue_or_new(
        states: &[LinearState],
        n_classes: usize,
        n_features: usize,
        seed: u64,
    ) -> Result<Self> {
        if states.is_empty() {
            Self::new(n_classes, n_features, seed)
        } else {
            Self::from_states(states)
        }
    }

    /// Read back [`CrammerSingerState::to_states`]' form. Fails with
    /// [`Error::InvalidState`] for states of another solver (one-vs-rest).
    pub fn from_states(states: &[LinearState]) -> Result<Self> {
        let not_ours = || {
            let trained_by = states
                .first()
                .map_or("no solver (the state is empty)", |s| s.kind.trained_by());
            Error::InvalidState(format!(
                "the solver state was trained with {trained_by}: it is not a \
                 multi_class='crammer_singer' state, so the Crammer-Singer solver cannot \
                 continue it"
            ))
        };
        let (header, classes) = states.split_first().ok_or_else(not_ours)?;
        let in_place = |s: &LinearState| s.kind == StateKind::CrammerSingerClass;
        if header.kind != StateKind::CrammerSingerHeader
            || !classes.iter().all(in_place)
            || header.v.len() != 1
            || classes.len() < 2
        {
            return Err(not_ours());
        }
        let k = classes.len();
        let width = classes[0].v.len();
        let avg_len = classes[0].avg_u.len();
        if classes
            .iter()
            .any(|s| s.v.len() != width || s.avg_u.len() != avg_len)
            || (avg_len != 0 && avg_len != width)
        {
            return Err(Error::InvalidState(
                "the Crammer-Singer classes' states have different widths".into(),
            ));
        }
        let v = feature_major(classes.iter().map(|s| s.v.as_slice()), width, "the weights")?;
        let avg_u = feature_major(
            classes.iter().map(|s| s.avg_u.as_slice()),
            avg_len,
            "the averaged weights",
        )?;
        Ok(Self {
            k,
            v,
            scale: header.scale,
            sq_norm: header.sq_norm,
            bias: classes.iter().map(|s| s.bias).collect(),
            t: header.t,
            sampler: header.sampler.clone(),
            avg_start: header.avg_start,
            avg_u,
            avg_beta: header.avg_beta,
            avg_bias_sum: classes.iter().map(|s| s.avg_bias_sum).collect(),
            avg_count: header.avg_count,
        })
    }

    /// Draw the next `count` examples through `draws`, advancing the generator as
    /// the in-memory solver does when it draws them (see `run_drawn`).
    pub fn draw(&mut self, draws: &KeyDraws<'_>, count: usize, out: &mut Vec<Drawn>) {
        out.extend((0..count).map(|_| draws.draw(&mut self.sampler)));
    }

    /// Write the model a fit returns (the average when one exists, else the last
    /// iterate) into `w` (`K` rows of `n_features`, class-major) and its
    /// intercepts into `intercepts` (`K`), the bias feature `bf` folded in.
    pub fn write_model(&self, bf: f64, w: &mut [f64], intercepts: &mut [f64]) {
        let (k, d) = (self.k, self.n_features());
        let n = self.avg_count as f64;
        let model = |j: usize, r: usize| {
            if self.avg_count == 0 {
                self.v[j * k + r] * self.scale
            } else {
                (self.avg_u[j * k + r] + self.avg_beta * self.v[j * k + r]) / n
            }
        };
        // Feature by feature: `V` and `U` are read in their (feature-major) order,
        // the class rows of `w` written as `K` sequential streams.
        let w = &mut w[..k * d];
        for j in 0..d {
            for r in 0..k {
                w[r * d + j] = model(j, r);
            }
        }
        for (r, b) in intercepts.iter_mut().take(k).enumerate() {
            *b = if self.avg_count == 0 {
                self.bias[r] + bf * model(d, r)
            } else {
                self.avg_bias_sum[r] / n + bf * model(d, r)
            };
        }
    }
}

/// The `K` class rows of the feature-major `a` (`a[j K + r]`; empty: none), read
/// in order.
fn class_major(a: &[f64], k: usize) -> Vec<Vec<f64>> {
    if a.is_empty() {
        return Vec::new();
    }
    let width = a.len() / k;
    let mut rows: Vec<Vec<f64>> = (0..k).map(|_| Vec::with_capacity(width)).collect();
    for chunk in a.chunks_exact(k) {
        for (row, &x) in rows.iter_mut().zip(chunk) {
            row.push(x);
        }
    }
    rows
}

/// The feature-major interleaving of the class rows `rows` (each `width` long).
fn feature_major<'a>(
    rows: impl ExactSizeIterator<Item = &'a [f64]>,
    width: usize,
    what: &str,
) -> Result<Vec<f64>> {
    let k = rows.len();
    let mut out = try_filled_vec(width * k, 0.0, what)?;
    let rows: Vec<&[f64]> = rows.collect();
    for (j, chunk) in out.chunks_exact_mut(k).enumerate() {
        for (o, row) in chunk.iter_mut().zip(&rows) {
            *o = row[j];
        }
    }
    Ok(out)
}

impl ScaledState for CrammerSingerState {
    const AVERAGE_NAME: &'static str = "the averaged weights";

    #[inline]
    fn parts(&mut self) -> ScaledParts<'_> {
        scaled_parts!(self, &self.bias, &mut self.avg_bias_sum)
    }
}

/// The constants of the update rule of a fit.
#[derive(Clone, Copy, Debug)]
pub struct CsRule {
    /// Value `B` of the bias feature (0 when off).
    bias_feature: f64,
    learn_bias: bool,
    /// `L0 / lambda` (infinite without projection).
    sq_radius: f64,
    /// `1 / (lambda k)`.
    inv_alpha_k: f64,
    batch_size: usize,
    weighted: bool,
}

impl CsRule {
    /// The rule of `params` for examples of mean weight `mean_weight` (`L0`).
    pub fn new(params: &ValidParams, mean_weight: f64) -> Self {
        Self {
            bias_feature: bias_feature(params.intercept),
            learn_bias: params.intercept == Intercept::Unregularized,
            sq_radius: if params.projection && mean_weight > 0.0 {
                mean_weight / params.alpha
            } else {
                f64::INFINITY
            },
            inv_alpha_k: 1.0 / (params.alpha * params.batch_size as f64),
            batch_size: params.batch_size,
            weighted: params.averaging == Averaging::Weighted,
        }
    }
}

/// The labels and weights of the examples: `c_i = sample_weight_i class_weight[y_i]`.
#[derive(Clone, Copy, Debug)]
struct Examples<'a> {
    codes: &'a [u32],
    sample_weight: Option<&'a [f64]>,
    class_weight: &'a [f64],
}

impl Examples<'_> {
    #[inline]
    fn class(&self, i: usize) -> usize {
        self.codes[i] as usize
    }

    #[inline]
    fn weight(&self, i: usize) -> f64 {
        let cw = self.class_weight[self.codes[i] as usize];
        match self.sample_weight {
            Some(sw) => sw[i] * cw,
            None => cw,
        }
    }

    /// Whether every weight is 1.
    fn unit_weights(&self) -> bool {
        self.sample_weight.is_none() && self.class_weight.iter().all(|&c| c == 1.0)
    }

    /// `acc + sum_i c_i`, added one by one in row order.
    fn weight_sum(&self, acc: f64) -> f64 {
        (0..self.codes.len()).fold(acc, |a, i| a + self.weight(i))
    }

    /// `L0 = 1/m sum_i c_i` (exactly 1 for unit weights).
    fn mean_weight(&self) -> f64 {
        if self.unit_weights() {
            return 1.0;
        }
        mean_weight_of(self.weight_sum(-0.0), self.codes.len())
    }
}

/// `L0` of `m` examples whose weights add up to `sum` (as [`weight_sum`] adds them).
pub fn mean_weight_of(sum: f64, m: usize) -> f64 {
    sum / m as f64
}

/// The example's scores `<v_r, x>` for every class, `acc[r]` (the row's entries
/// `cols`, `vals` against the feature-major `v`).
struct ScoreJob<'a> {
    cols: &'a [usize],
    vals: &'a [f64],
    v: &'a [f64],
    acc: &'a mut [f64],
}

impl Job for ScoreJob<'_> {
    #[inline(always)]
    #[allow(clippy::inline_always)] // compiled into the AVX2 build (see `simd`)
    fn run(self) {
        let k = self.acc.len();
        for (e, (&j, &x)) in self.cols.iter().zip(self.vals).enumerate() {
            if let Some(&ahead) = self.cols.get(e + WEIGHTS_AHEAD) {
                for off in (0..k).step_by(8) {
                    prefetch(&self.v[ahead * k + off]);
                }
            }
            for (a, w) in self.acc.iter_mut().zip(&self.v[j * k..(j + 1) * k]) {
                *a += x * w;
            }
        }
    }
}

/// Scratch space of a run.
#[derive(Default)]
struct Scratch {
    cols: Vec<usize>,
    vals: Vec<f64>,
    acc: Vec<f64>,
    /// The violators of a step: the end of its entries in `kept_cols`, its class,
    /// the argmax class, `eta c_i / k`.
    violators: Vec<(usize, usize, usize, f64)>,
    /// The stored entries of the violators' rows, one after the other (read once
    /// for the scores, kept for the update).
    kept_cols: Vec<usize>,
    kept_vals: Vec<f64>,
}

impl CsRule {
    /// The scores `s_r = a (<v_r, x_i> + B v_{r,B}) + b_r` of row `i` (loaded in
    /// `s.cols`, `s.vals`) into `s.acc`.
    fn scores(&self, state: &CrammerSingerState, s: &mut Scratch) {
        let k = state.k;
        let d = state.n_features();
        s.acc.clear();
        s.acc.resize(k, 0.0);
        with_avx2(ScoreJob {
            cols: &s.cols,
            vals: &s.vals,
            v: &state.v,
            acc: &mut s.acc,
        });
        for r in 0..k {
            s.acc[r] =
                state.scale * (s.acc[r] + self.bias_feature * state.v[d * k + r]) + state.bias[r];
        }
    }

    /// The steps of the examples `drawn` (whole batches), the rows ahead hinted
    /// into cache.
    fn steps<R: Rows>(
        &self,
        rows: &R,
        ex: &Examples<'_>,
        state: &mut CrammerSingerState,
        drawn: &[usize],
        s: &mut Scratch,
    ) {
        for_each_batch(rows, drawn, self.batch_size, |batch| {
            self.step(rows, ex, state, batch, s);
        });
    }

    /// One step on the examples `batch`.
    fn step<R: Rows>(
        &self,
        rows: &R,
        ex: &Examples<'_>,
        state: &mut CrammerSingerState,
        batch: &[usize],
        s: &mut Scratch,
    ) {
        let (inv_t, eta_over_k) = begin_step(&mut state.t, self.inv_alpha_k);

        s.violators.clear();
        s.kept_cols.clear();
        s.kept_vals.clear();
        for &i in batch {
            let c = ex.weight(i);
            if c == 0.0 {
                continue;
            }
            load_row(rows, i, &mut s.cols, &mut s.vals);
            self.scores(state, s);
            let y = ex.class(i);
            let mut best = (f64::NEG_INFINITY, usize::MAX);
            for (r, &sr) in s.acc.iter().enumerate() {
                if r != y && sr > best.0 {
                    best = (sr, r);
                }
            }
            if best.1 != usize::MAX && 1.0 + best.0 - s.acc[y] > 0.0 {
                s.kept_cols.extend_from_slice(&s.cols);
                s.kept_vals.extend_from_slice(&s.vals);
                s.violators
                    .push((s.kept_cols.len(), y, best.1, eta_over_k * c));
            }
        }

        // Shrink: W <- (1 - eta lambda) W, exactly 1 - 1/t.
        state.shrink_iterate(inv_t);

        let mut start = 0;
        for &(end, y, r, g) in &s.violators {
            let (cols, vals) = (&s.kept_cols[start..end], &s.kept_vals[start..end]);
            self.add_violator(state, (y, r, g), cols, vals);
            start = end;
        }
        state.end_step(self.sq_radius, self.weighted);
    }

    /// `w_y += g x`, `w_r -= g x` (and the biases) for the row `cols`, `vals`, at
    /// `(y, r, g)`, with `||W||_F^2` and the lazy average kept up to date.
    fn add_violator(
        &self,
        state: &mut CrammerSingerState,
        (y, r, g): (usize, usize, f64),
        cols: &[usize],
        vals: &[f64],
    ) {
        let (k, d) = (state.k, state.n_features());
        let dv = g / state.scale;
        let beta = state.avg_beta;
        let mut delta = 0.0;
        let mut pair = |v: &mut [f64], u: &mut [f64], j: usize, x: f64| {
            let step = dv * x;
            let (a, b) = (j * k + y, j * k + r);
            let old = v[a];
            let new = old + step;
            v[a] = new;
            delta += step * (new + old);
            let old = v[b];
            let new = old - step;
            v[b] = new;
            delta -= step * (new + old);
            if beta != 0.0 {
                u[a] -= beta * step;
                u[b] += beta * step;
            }
        };
        for (&j, &x) in cols.iter().zip(vals) {
            pair(&mut state.v, &mut state.avg_u, j, x);
        }
        if self.bias_feature != 0.0 {
            pair(&mut state.v, &mut state.avg_u, d, self.bias_feature);
        }
        state.sq_norm += state.scale * state.scale * delta;
        if self.learn_bias {
            state.bias[y] += g;
            state.bias[r] -= g;
        }
    }
}

/// The loss `max_r [1(r != y_i) + s_r - s_{y_i}]` of every example at the model
/// `coef` (`K x d`, class-major), `intercepts`, weighted and added one by one to
/// `acc` in row order (from `-0.0`; continued block after block, the bits of one
/// pass over all rows).
fn loss_sum<R: Rows>(
    rows: &R,
    ex: &Examples<'_>,
    coef: &[f64],
    intercepts: &[f64],
    acc: f64,
) -> f64 {
    loss_sum_over(rows, ex, coef, intercepts, acc, 0..rows.n_rows())
}

/// [`loss_sum`] over the rows `indices` only, in their order.
fn loss_sum_over<R: Rows>(
    rows: &R,
    ex: &Examples<'_>,
    coef: &[f64],
    intercepts: &[f64],
    acc: f64,
    indices: impl Iterator<Item = usize>,
) -> f64 {
    let k = intercepts.len();
    let d = rows.n_features();
    let mut scores = vec![0.0; k];
    indices.fold(acc, |acc, i| {
        for (r, s) in scores.iter_mut().enumerate() {
            *s = rows.dot(i, &coef[r * d..(r + 1) * d]) + intercepts[r];
        }
        let y = ex.class(i);
        let worst = scores
            .iter()
            .enumerate()
            .map(|(r, &s)| if r == y { 0.0 } else { 1.0 + s - scores[y] })
            .fold(0.0, f64::max);
        acc + ex.weight(i) * worst
    })
}

/// A Crammer–Singer fit as the pass driver runs it.
struct CsRun<'a, 's, R> {
    rows: &'a R,
    ex: Examples<'a>,
    task: BinaryTask<'a>,
    rule: CsRule,
    draws: Draws<'a>,
    params: &'a ValidParams,
    state: &'s mut CrammerSingerState,
    coef: &'s mut [f64],
    intercepts: Vec<f64>,
    monitor: &'a Monitor,
    all_checked: bool,
}

impl PassSubject for CrammerSingerState {
    fn average_if_unstarted(&mut self) -> bool {
        self.start_average_if_unstarted()
    }

    fn describe(&self) -> String {
        format!("||W||_F^2 {:.4e}, t {}", self.sq_norm, self.t)
    }
}

runs_on_state!(CsRun, CrammerSingerState);

impl<R: Rows> PassRunner for CsRun<'_, '_, R> {
    fn run_pass(&mut self, n_steps: u64) -> Result<()> {
        let k = self.rule.batch_size;
        let mut scratch = Scratch::default();
        let (rows, task, ex, rule, draws) =
            (self.rows, &self.task, &self.ex, &self.rule, &self.draws);
        run_in_blocks(
            &mut *self.state,
            (k, n_steps),
            (self.monitor, true),
            |state| draws.draw(&mut state.sampler),
            |state, drawn| {
                check_drawn(rows, task, drawn)?;
                rule.steps(rows, ex, state, drawn, &mut scratch);
                Ok(())
            },
        )
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        if !PassPlan::wants_objective(self.params) {
            return Ok(None);
        }
        check_every_row(self.rows, &self.task, &mut self.all_checked)?;
        let bf = self.rule.bias_feature;
        self.state.write_model(bf, self.coef, &mut self.intercepts);
        Ok(Some(objective(
            self.rows,
            &self.ex,
            self.params,
            self.coef,
            &self.intercepts,
        )))
    }

    /// The joint objective on the probe's rows (those that fail their check left
    /// out, for rows not checked on construction).
    fn probe(&mut self) -> Result<Option<Probe>> {
        let bf = self.rule.bias_feature;
        self.state.write_model(bf, self.coef, &mut self.intercepts);
        let (rows, task) = (self.rows, &self.task);
        let checked = rows.is_checked();
        let read: Vec<usize> = (0..rows.n_rows())
            .step_by(probe_stride(rows.n_rows()))
            .filter(|&i| checked || (rows.check_row(i).is_ok() && task.check_example(i).is_ok()))
            .collect();
        if read.is_empty() {
            return Ok(None);
        }
        let loss = loss_sum_over(
            rows,
            &self.ex,
            self.coef,
            &self.intercepts,
            -0.0,
            read.iter().copied(),
        );
        // W = 0 scores every class 0: each example's loss is 1, weighted.
        let at_zero: f64 = read.iter().map(|&i| self.ex.weight(i)).sum::<f64>();
        Ok(Some(Probe {
            objective: objective_from_loss(
                loss,
                read.len(),
                self.params,
                self.coef,
                &self.intercepts,
            ),
            at_zero: at_zero / read.len() as f64,
        }))
    }
}

/// The primal objective of the model `coef` (`K x d`, class-major), `intercepts`:
/// `alpha/2 (||W||_F^2 + sum_r (b_r / B)^2) + 1/m sum_i c_i loss_i`, the
/// intercepts' term only with a bias feature `B` (regularised intercepts).
fn objective<R: Rows>(
    rows: &R,
    ex: &Examples<'_>,
    params: &ValidParams,
    coef: &[f64],
    intercepts: &[f64],
) -> f64 {
    let loss = loss_sum(rows, ex, coef, intercepts, -0.0);
    objective_from_loss(loss, rows.n_rows(), params, coef, intercepts)
}

/// The primal objective of the model `coef`, `intercepts` (see
/// [`crammer_singer_objective`]) from its summed weighted loss over `m` examples
/// ([`loss_sum_of`] over all rows).
pub fn objective_from_loss(
    loss_sum: f64,
    m: usize,
    params: &ValidParams,
    coef: &[f64],
    intercepts: &[f64],
) -> f64 {
    let mut sq: f64 = coef.iter().map(|x| x * x).sum();
    if let Intercept::BiasMultiplier(bf) = params.intercept {
        sq += intercepts.iter().map(|b| (b / bf) * (b / bf)).sum::<f64>();
    }
    0.5 * params.alpha * sq + loss_sum / m as f64
}

/// The primal objective of a Crammer–Singer model (see the module doc) on `rows`
/// and `labels`: `coef` is `K x n_features` (class-major), `intercepts` `K`.
#[cfg(test)]
pub fn crammer_singer_objective<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    coef: &[f64],
    intercepts: &[f64],
) -> Result<f64> {
    check_model(rows, labels, coef, intercepts)?;
    Ok(objective(rows, &examples(labels), params, coef, intercepts))
}

/// `acc + sum_i c_i` over the examples of `labels`, added one by one in row order:
/// from `-0.0` and continued block after block over the training set, `m` times the
/// `L0` of the projection radius as the in-memory fit computes it (see
/// [`mean_weight_of`]).
pub fn weight_sum(labels: &Labels<'_>, acc: f64) -> Result<f64> {
    labels.check(labels.codes.len())?;
    Ok(examples(labels).weight_sum(acc))
}

/// `acc + sum_i c_i loss_i` of the model `coef` (`K x n_features`, class-major),
/// `intercepts` over `rows`, added one by one in row order (continued block after
/// block like [`weight_sum`]): the loss term of the objective, `m` times.
pub fn loss_sum_of<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    coef: &[f64],
    intercepts: &[f64],
    acc: f64,
) -> Result<f64> {
    check_model(rows, labels, coef, intercepts)?;
    Ok(loss_sum(rows, &examples(labels), coef, intercepts, acc))
}

/// One label per row and a model of one weight row and one intercept per class.
fn check_model<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    coef: &[f64],
    intercepts: &[f64],
) -> Result<()> {
    labels.check(rows.n_rows())?;
    if coef.len() != labels.n_classes * rows.n_features() || intercepts.len() != labels.n_classes {
        return Err(Error::ShapeMismatch(
            "a Crammer-Singer model has one weight row and one intercept per class".into(),
        ));
    }
    Ok(())
}

/// Run the steps of examples drawn elsewhere (see [`CrammerSingerState::draw`]):
/// example `j` of the run is row `drawn[j]` of `rows` (whole batches). `rows` and
/// `labels` hold the drawn examples only (a cluster's sample of its rows); `rule`
/// is that of the whole training set. With the rows and weights of the examples
/// the in-memory solver would draw, the result is the in-memory fit's, bit for bit.
pub fn run_drawn<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    rule: &CsRule,
    state: &mut CrammerSingerState,
    drawn: &[usize],
    monitor: &Monitor,
) -> Result<()> {
    let k = rule.batch_size;
    check_drawn_batches(drawn, k, rows.n_rows())?;
    labels.check(rows.n_rows())?;
    if labels.n_classes != state.k || rows.n_features() != state.n_features() {
        return Err(Error::ShapeMismatch(format!(
            "the solver state has {} classes and {} features, the data {} and {}",
            state.k,
            state.n_features(),
            labels.n_classes,
            rows.n_features()
        )));
    }
    let ex = examples(labels);
    let mut scratch = Scratch::default();
    drawn_blocks(drawn, k, monitor, |part| {
        rule.steps(rows, &ex, state, part, &mut scratch);
    })
}

fn examples<'a>(labels: &Labels<'a>) -> Examples<'a> {
    Examples {
        codes: labels.codes,
        sample_weight: labels.sample_weight,
        class_weight: labels.class_weight,
    }
}

/// Train the Crammer–Singer multiclass SVM of `labels` (all `n_classes` classes,
/// also for two) for up to `params.max_iter` passes, continuing `states` (empty:
/// a fresh fit; else the form of [`CrammerSingerState::to_states`] from a previous
/// fit), which ends holding the new state in that form. Class `r`'s weights go to
/// row `r` of `coef` (`n_classes x n_features`, row-major); one [`FitOutput`] per
/// class (its intercept; the passes, objective and convergence, shared, repeated).
///
/// Fails with [`Error::InvalidParameter`] for a loss other than the hinge and for
/// balanced sampling, with [`Error::InvalidState`] for another solver's states.
pub fn fit_crammer_singer<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    states: &mut Vec<LinearState>,
    coef: &mut [f64],
    monitor: &Monitor,
) -> Result<Vec<FitOutput>> {
    if params.loss != LossFunction::Hinge {
        return Err(Error::InvalidParameter(format!(
            "multi_class='crammer_singer' minimises the Crammer-Singer multiclass hinge \
             loss: loss must be 'hinge', got {:?}",
            params.loss.name()
        )));
    }
    if params.sampling == Sampling::Balanced {
        return Err(Error::InvalidParameter(
            "sampling='balanced' balances the two classes of a binary problem; the \
             Crammer-Singer solver draws for all classes at once: use 'uniform' or 'shuffle'"
                .into(),
        ));
    }
    if rows.is_checked() {
        labels.check(rows.n_rows())?;
    } else {
        labels.check_shapes(rows.n_rows())?;
    }
    let (k, d) = (labels.n_classes, rows.n_features());
    if d == 0 {
        return Err(Error::InvalidInput("the data has no features".into()));
    }
    if rows.n_rows() == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    if Some(coef.len()) != k.checked_mul(d) {
        return Err(Error::ShapeMismatch(format!(
            "coefficient buffer of {} entries for {k} classes x {d} features",
            coef.len()
        )));
    }
    let mut state = CrammerSingerState::continue_or_new(states, k, d, params.seed)?;
    if state.k != k || state.n_features() != d {
        return Err(Error::ShapeMismatch(format!(
            "the solver state has {} classes and {} features, the data {k} and {d}",
            state.k,
            state.n_features()
        )));
    }
    // The task reads and checks the codes of unchecked rows; its weights are unused.
    let task = labels.task(0)?;
    let ex = examples(labels);
    let draws = Draws::new(&params.sampling, &task)?;
    let mut plan = plan_averaged(params, &mut state, rows.n_rows())?;
    let mut run = CsRun {
        rows,
        ex,
        task,
        rule: CsRule::new(params, ex.mean_weight()),
        draws,
        params,
        state: &mut state,
        coef,
        intercepts: vec![0.0; k],
        monitor,
        all_checked: false,
    };
    drive(&mut plan, &mut run, params, monitor, "")?;
    let bf = run.rule.bias_feature;
    run.state.write_model(bf, run.coef, &mut run.intercepts);
    let outputs = run
        .intercepts
        .iter()
        .map(|&b| FitOutput {
            intercept: b,
            n_iter: plan.passes(),
            objective: plan.objective(),
            converged: plan.converged(params),
            settling: plan.settling(),
            worse_than_zero: plan.worse_than_zero(),
            validation_scores: Vec::new(),
        })
        .collect();
    *states = state.to_states();
    Ok(outputs)
}

#[cfg(test)]
#[path = "crammer_singer_tests.rs"]
mod tests;
