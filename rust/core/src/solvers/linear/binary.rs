//! Linear Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated
//! sub-GrAdient SOlver for SVM", ICML 2007 / Math. Programming 2011).
//!
//! # Objective
//! `min_w  lambda/2 ||w||^2 + 1/m sum_i c_i l(<w, x_i> + b, y_i)`, with `lambda`
//! called `alpha` here, `c_i` the example weights and `l` a loss of
//! [`crate::solvers::shared::loss`] (the hinge `max(0, 1 - y p)` by default). LIBLINEAR's
//! and SVC's `C` is `1 / (alpha m)`.
//!
//! # Update rule (step t = 1, 2, ...)
//! Draw a batch `A_t` of `k` examples. With `eta_t = 1 / (lambda t)` and
//! `g_i = -dl/dp (<w_t, x_i> + b_t, y_i)` (all taken at `w_t`, as in the paper, not
//! sequentially; for the hinge `g_i = y_i` on the violators
//! `y_i (<w_t, x_i> + b_t) < 1` and 0 elsewhere):
//!
//! ```text
//! w_{t+1/2} = (1 - eta_t lambda) w_t + eta_t / k * sum_{i in A_t} c_i g_i x_i
//! w_{t+1}   = min(1, r / ||w_{t+1/2}||) w_{t+1/2}                     (optional)
//! b_{t+1}   = b_t + eta_t / k * sum_{i in A_t} c_i g_i        (unregularised bias)
//! ```
//!
//! The radius is `r = sqrt(kappa L0 / lambda)` with `L0 = 1/m sum_i c_i l(0, y_i)`:
//! the optimum lies in that ball ([`crate::solvers::shared::loss`] derives it). For the
//! hinge `kappa = 1` and `L0 = mean_i c_i` (the paper's duality argument with dual
//! variables bounded by `c_i`), the paper's `1/sqrt(lambda)` when all weights are 1.
//!
//! # The one-class SVM
//! With `params.one_class` the objective is Schölkopf et al.'s (2001) times `nu`,
//! `min_{w, rho} nu/2 ||w||^2 - nu rho + 1/m sum_i c_i max(0, rho - <w, x_i>)`
//! (scikit-learn's `SGDOneClassSVM`'s). With `b = 1 - rho` it is the hinge of the
//! rows all labelled `+1`, with `lambda = nu`, plus `nu b` (and a constant). Its
//! sub-gradient in `w` is the binary one, so the step of `w` is Pegasos' with
//! `eta_t = 1 / (nu t)`; in `b` it is `nu - 1/k sum_{violators} c_i`, so the bias
//! takes the binary step and drifts by `-eta_t nu = -1/t`:
//!
//! ```text
//! b_{t+1}   = b_t + eta_t / k * sum_{i in A_t} c_i g_i - 1/t
//! ```
//!
//! The dual makes `w = sum_i beta_i x_i` a convex combination of the rows, so the
//! optimum lies in the ball of radius `max_i ||x_i||`, the projection's radius here
//! ([`one_class_sq_radius`]). The decision value is `<w, x> + b - 1 = <w, x> - rho`,
//! the returned intercept `-rho`; the offset is solved exactly for the returned
//! weights, and after every pass for the iterate ([`crate::solvers::shared::one_class`]).
//!
//! # Cost of a step
//! `w` is stored as `a * v` with `||w||^2` tracked: the shrink and the projection
//! multiply the scalar `a` (O(1)); adding `x_i` touches only its non-zeros and
//! reports the change of `||v||^2` as it goes (no extra pass, no per-row norms). A
//! step costs O(nnz of the batch),
//! never `O(n_features)`. When `a` falls below `RESCALE_BELOW`, `v` is multiplied
//! out (O(d), rare), so neither small `lambda` nor long runs underflow. At `t = 1`
//! the shrink factor is exactly 0 and `w` restarts from zero (the paper's `w_1`
//! has no influence).
//!
//! # Averaging
//! The averaged iterate `S / n` with `S = sum_{s >= t0} w_s` is kept lazily as
//! `S = u + beta v`: when `v` changes by `dv`, `u -= beta dv` (O(nnz)); after each
//! step `beta += a`. See [`Averaging`] for the start `t0`. With
//! [`Averaging::Weighted`] the iterate of step `t` enters with weight `t`
//! (`beta += t a`) and `n` is the sum of the weights.
//!
//! The shrink, projection, rescale and average are `solvers::linear::scaled`'s,
//! shared with the Crammer–Singer state (a matrix `V` of one column here).

use crate::monitor::Monitor;

use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::solvers::linear::scaled::{scaled_parts, ScaledParts, ScaledState};
use crate::solvers::shared::held_out::HeldOut;
use crate::solvers::shared::loss::{check_loss_fits_task, first_step_of, Loss, LossFunction};
use crate::solvers::shared::one_class::{self, one_class_sq_radius, reset_stride, scaled_best_rho};
use crate::solvers::shared::params::{Averaging, Intercept, ValidParams};
use crate::solvers::shared::passes::{
    drive, probe_stride, runs_on_state, PassPlan, PassRunner, PassSubject, Probe,
};
use crate::solvers::shared::sampler::{Drawn, Draws, KeyDraws, Sampler};

/// Examples drawn in one block (the cancellation flag is read between blocks); a
/// block holds at least one step.
pub(crate) const BLOCK_EXAMPLES: usize = 4096;

/// How many examples ahead a row's values are prefetched (its location twice as far).
pub(crate) const PREFETCH_AHEAD: usize = 12;

/// The complete state of one binary Pegasos run. Training `T1` steps, then `T2`
/// more from the returned state, is bit-for-bit the same as `T1 + T2` at once.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearState {
    /// Direction `v` of `w = scale * v`; `n_features + 1` entries, the last one the
    /// weight of the bias-multiplier feature (0 unless that intercept mode is used).
    pub(crate) v: Vec<f64>,
    pub(crate) scale: f64,
    /// `||w||^2`, including the bias-multiplier weight.
    pub(crate) sq_norm: f64,
    /// Unregularised bias.
    pub(crate) bias: f64,
    /// Steps taken so far.
    pub(crate) t: u64,
    /// Generator and position of the example draws.
    pub(crate) sampler: Sampler,
    /// First step (1-based) included in the average; `u64::MAX` when off.
    pub(crate) avg_start: u64,
    pub(crate) avg_u: Vec<f64>,
    pub(crate) avg_beta: f64,
    pub(crate) avg_bias_sum: f64,
    pub(crate) avg_count: u64,
    /// The solver the state belongs to, and its part there.
    pub(crate) kind: StateKind,
}

/// Which solver a [`LinearState`] belongs to, and its part there. Saved with the
/// state (its tag in `io::codec`), so that a solver refuses another's state by
/// name rather than by the shape of its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// One binary problem of linear Pegasos: a one-vs-rest problem (also on shared
    /// draws), a regression, a ranking or a one-class SVM.
    Linear,
    /// The header of a Crammer–Singer state: the shared scale, `||W||_F^2`, step
    /// count, generator and averaging counters, no weights.
    CrammerSingerHeader,
    /// One class's weights, bias and running sums of a Crammer–Singer state.
    CrammerSingerClass,
}

impl StateKind {
    /// What trained a state of this kind, as the estimators' parameters say it.
    pub fn trained_by(self) -> &'static str {
        match self {
            StateKind::Linear => {
                "one state per binary problem (one-vs-rest, regression or ranking)"
            }
            StateKind::CrammerSingerHeader | StateKind::CrammerSingerClass => {
                "multi_class='crammer_singer'"
            }
        }
    }
}

/// An error unless every state of `states` is a binary problem's of linear Pegasos:
/// `solver` (one-vs-rest, a regression, ...) cannot continue another solver's state.
pub(crate) fn check_linear_states(states: &[LinearState], solver: &str) -> Result<()> {
    match states.iter().find(|s| s.kind != StateKind::Linear) {
        None => Ok(()),
        Some(other) => Err(Error::InvalidState(format!(
            "the solver state was trained with {}: {solver} cannot continue it",
            other.kind.trained_by()
        ))),
    }
}

/// What a fit returns besides the updated state.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOutput {
    /// Intercept of the returned model (its weights are written to the caller's
    /// buffer).
    pub intercept: f64,
    /// Passes run by this call.
    pub n_iter: usize,
    /// Primal objective of the returned model after the last pass, when computed.
    pub objective: Option<f64>,
    /// With `tol`: whether its stopping rule was met (`false`: the fit ran out of
    /// passes first). `None` without `tol`.
    pub converged: Option<bool>,
    /// Without `tol`, in a fit of two passes or more: how much the last pass lowered
    /// the returned model's objective, relative to it, on the probe's rows
    /// (`PassPlan::settling`); `None` otherwise.
    pub settling: Option<f64>,
    /// Measured with `settling`: whether the returned model's objective is above
    /// that of `w = 0` on the probe's rows (`PassPlan::worse_than_zero`).
    pub worse_than_zero: Option<bool>,
    /// With held-out rows (early stopping): the score of the model after each
    /// pass of this call (`solvers::shared::held_out`); empty otherwise.
    pub validation_scores: Vec<f64>,
}

impl LinearState {
    /// Fresh state (`w = 0`, `b = 0`, `t = 0`) using stream `stream` of `seed`.
    ///
    /// Fails with [`Error::OutOfMemory`] when the weight vector cannot be allocated.
    pub fn new(n_features: usize, seed: u64, stream: u64) -> Result<Self> {
        let len = n_features
            .checked_add(1)
            .ok_or_else(|| Error::OutOfMemory(format!("{n_features} features is too many")))?;
        Ok(Self {
            v: try_filled_vec(len, 0.0, "a weight vector")?,
            scale: 1.0,
            sq_norm: 0.0,
            bias: 0.0,
            t: 0,
            sampler: Sampler::new(seed, stream),
            avg_start: u64::MAX,
            avg_u: Vec::new(),
            avg_beta: 0.0,
            avg_bias_sum: 0.0,
            avg_count: 0,
            kind: StateKind::Linear,
        })
    }

    /// A state of no features and no steps, holding no memory: what a grid keeps
    /// of a model it stopped.
    pub(crate) fn empty() -> Self {
        Self {
            v: vec![0.0],
            scale: 1.0,
            sq_norm: 0.0,
            bias: 0.0,
            t: 0,
            sampler: Sampler::new(0, 0),
            avg_start: u64::MAX,
            avg_u: Vec::new(),
            avg_beta: 0.0,
            avg_bias_sum: 0.0,
            avg_count: 0,
            kind: StateKind::Linear,
        }
    }

    /// A state at the iterate `w = v` (`n_features + 1` entries, the last the
    /// bias-multiplier weight), unregularised bias `bias`, after `t` steps,
    /// drawing from stream `stream` of `seed`, without an average: where a
    /// parameter-mixing round starts each partition's local run.
    pub fn at_iterate(v: Vec<f64>, bias: f64, t: u64, seed: u64, stream: u64) -> Result<Self> {
        if v.is_empty() || !v.iter().all(|x| x.is_finite()) || !bias.is_finite() {
            return Err(Error::InvalidState(
                "an iterate needs at least the bias weight and finite values".into(),
            ));
        }
        let mut state = Self::new(0, seed, stream)?;
        state.sq_norm = v.iter().map(|x| x * x).sum();
        state.v = v;
        state.bias = bias;
        state.t = t;
        Ok(state)
    }

    /// The last iterate: `w` (`n_features + 1` entries, as in
    /// [`LinearState::at_iterate`]) and the unregularised bias.
    pub fn iterate(&self) -> (Vec<f64>, f64) {
        (self.v.iter().map(|x| x * self.scale).collect(), self.bias)
    }

    /// Start a running average at the next step, forgetting any previous one (the
    /// mean of the iterates from step `t + 1` on; see [`LinearState::averaged`]).
    pub fn average_from_next_step(&mut self) -> Result<()> {
        self.discard_average();
        self.avg_u = try_filled_vec(self.v.len(), 0.0, "an averaged weight vector")?;
        self.avg_start = self.t + 1;
        Ok(())
    }

    /// The running average in the form of [`LinearState::iterate`] (`None` before
    /// its first step).
    pub fn averaged(&self) -> Option<(Vec<f64>, f64)> {
        if self.avg_count == 0 {
            return None;
        }
        let n = self.avg_count as f64;
        let v = self
            .avg_u
            .iter()
            .zip(&self.v)
            .map(|(u, v)| (u + self.avg_beta * v) / n)
            .collect();
        Some((v, self.avg_bias_sum / n))
    }

    /// Number of features the state was created for.
    pub fn n_features(&self) -> usize {
        self.v.len() - 1
    }

    /// The solver the state belongs to, and its part there.
    pub fn kind(&self) -> StateKind {
        self.kind
    }

    /// Steps taken so far (the paper's `t`).
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// `||w||^2` of the last iterate (tracked, not recomputed).
    pub fn sq_norm(&self) -> f64 {
        self.sq_norm
    }

    /// Multiply `v` out so that `scale == 1` (O(d)). Does not change `w` or the
    /// average; recomputes `||w||^2` exactly, discarding accumulated rounding.
    pub fn rescale(&mut self) {
        self.rescale_iterate();
    }

    /// Write the last iterate's weights into `w` (`n_features` entries) and return
    /// its intercept, with the bias multiplier folded in.
    pub fn write_last_iterate(&self, intercept: Intercept, w: &mut [f64]) -> f64 {
        let d = self.n_features();
        for (o, v) in w.iter_mut().zip(&self.v[..d]) {
            *o = v * self.scale;
        }
        self.bias + bias_feature(intercept) * self.scale * self.v[d]
    }

    /// Write the averaged iterate into `w` and return its intercept; `None` (and `w`
    /// untouched) when no step has been averaged yet.
    pub fn write_averaged_iterate(&self, intercept: Intercept, w: &mut [f64]) -> Option<f64> {
        if self.avg_count == 0 {
            return None;
        }
        let n = self.avg_count as f64;
        let d = self.n_features();
        let mean = |j: usize| (self.avg_u[j] + self.avg_beta * self.v[j]) / n;
        for (j, o) in w.iter_mut().enumerate().take(d) {
            *o = mean(j);
        }
        Some(self.avg_bias_sum / n + bias_feature(intercept) * mean(d))
    }

    /// Draw the next `count` examples through `draws`, advancing the generator as
    /// the in-memory solver does when it draws them (see `run_drawn`).
    pub fn draw(&mut self, draws: &KeyDraws<'_>, count: usize, out: &mut Vec<Drawn>) {
        out.extend((0..count).map(|_| draws.draw(&mut self.sampler)));
    }

    /// Write the model a fit returns into `w` (the average when one exists, else the
    /// last iterate) and return its intercept.
    pub fn write_model(&self, intercept: Intercept, w: &mut [f64]) -> f64 {
        match self.write_averaged_iterate(intercept, w) {
            Some(b) => b,
            None => self.write_last_iterate(intercept, w),
        }
    }
}

impl LinearState {
    /// `w <- w + g x_i` for row `i` of `rows` (after [`LinearState::shrink`]): one
    /// sparse axpy on `v` that tracks `||w||^2`, and the lazy average's correction.
    /// The bias-multiplier weight is left alone.
    #[inline]
    pub(crate) fn add_row<R: Rows>(&mut self, rows: &R, i: usize, g: f64) {
        let dv = g / self.scale;
        let delta = rows.axpy_sq_delta(i, dv, &mut self.v);
        self.sq_norm += self.scale * self.scale * delta;
        if self.avg_beta != 0.0 {
            rows.axpy(i, -self.avg_beta * dv, &mut self.avg_u);
        }
    }
}

impl ScaledState for LinearState {
    const AVERAGE_NAME: &'static str = "an averaged weight vector";

    #[inline]
    fn parts(&mut self) -> ScaledParts<'_> {
        scaled_parts!(
            self,
            std::slice::from_ref(&self.bias),
            std::slice::from_mut(&mut self.avg_bias_sum)
        )
    }
}

/// Begin the next step of a linear solver: the step count `t` advances, and the
/// step's `1/t` and `eta_t / k = 1/(lambda t k)` are returned (`inv_alpha_k =
/// 1/(lambda k)`, computed once per fit): the paper's step size `eta_t = 1/(lambda t)`.
#[inline]
pub(crate) fn begin_step(t: &mut u64, inv_alpha_k: f64) -> (f64, f64) {
    *t += 1;
    let inv_t = 1.0 / *t as f64;
    (inv_t, inv_t * inv_alpha_k)
}

/// Value `B` of the constant bias feature (0 when that mode is off).
pub(crate) fn bias_feature(intercept: Intercept) -> f64 {
    match intercept {
        Intercept::BiasMultiplier(b) => b,
        _ => 0.0,
    }
}

/// The constants of the update rule for one binary problem: everything a step
/// needs besides the rows, the labels and the state.
#[derive(Clone, Copy, Debug)]
pub struct StepRule {
    pub(crate) loss: LossFunction,
    pub(crate) bias_feature: f64,
    pub(crate) learn_bias: bool,
    /// Squared projection radius `kappa L0 / lambda` (infinite without projection).
    pub(crate) sq_radius: f64,
    /// `1 / (lambda k)`.
    pub(crate) inv_alpha_k: f64,
    pub(crate) batch_size: usize,
    /// Weigh each averaged iterate by its step number ([`Averaging::Weighted`]).
    pub(crate) weighted: bool,
    /// The one-class SVM's drift of the bias, `b -= bias_drift / t` each step
    /// (`eta_t nu = 1 / t`, as `lambda = nu`); 0 otherwise.
    pub(crate) bias_drift: f64,
}

impl StepRule {
    /// The rule of `params` for examples whose mean weighted loss at zero is
    /// `zero_loss` (`L0 = 1/m sum_i c_i l(0, y_i)` over the whole training set,
    /// which sets the projection radius; the mean weight for the hinge).
    pub fn new(params: &ValidParams, zero_loss: f64) -> Self {
        let sq_radius = if params.projection && zero_loss > 0.0 {
            params.loss.radius_factor() * zero_loss / params.alpha
        } else {
            f64::INFINITY
        };
        Self {
            loss: params.loss,
            bias_feature: bias_feature(params.intercept),
            learn_bias: params.intercept == Intercept::Unregularized,
            sq_radius,
            inv_alpha_k: 1.0 / (params.alpha * params.batch_size as f64),
            batch_size: params.batch_size,
            weighted: params.averaging == Averaging::Weighted,
            bias_drift: if params.one_class { 1.0 } else { 0.0 },
        }
    }

    /// `<w, x_i>` including the bias-multiplier feature, excluding `b`.
    #[inline]
    fn w_dot<R: Rows>(&self, rows: &R, state: &LinearState, i: usize) -> f64 {
        let d = state.v.len() - 1;
        state.scale * (rows.dot(i, &state.v) + self.bias_feature * state.v[d])
    }

    /// One Pegasos step on the examples `batch` (rows of `rows`); `violators` is
    /// scratch space: the examples whose loss has a slope, with their `g_i`.
    pub(crate) fn step<R: Rows>(
        &self,
        rows: &R,
        task: &BinaryTask<'_>,
        state: &mut LinearState,
        batch: &[usize],
        violators: &mut Violators,
    ) {
        let (inv_t, eta_over_k) = begin_step(&mut state.t, self.inv_alpha_k);

        violators.clear();
        for &i in batch {
            let c = task.weight(i);
            if c == 0.0 {
                continue;
            }
            let p = self.w_dot(rows, state, i) + state.bias;
            let g = self.loss.step_weight(p, task.y(i));
            if g != 0.0 {
                violators.push((i, g));
            }
        }

        state.shrink_iterate(inv_t);

        let d = state.v.len() - 1;
        let bf = self.bias_feature;
        for &(i, gi) in violators.iter() {
            let g = eta_over_k * task.weight(i) * gi;
            let dv = g / state.scale;
            let mut delta = rows.axpy_sq_delta(i, dv, &mut state.v);
            let old = state.v[d];
            state.v[d] += dv * bf;
            delta += (state.v[d] - old) * (state.v[d] + old);
            state.sq_norm += state.scale * state.scale * delta;
            if state.avg_beta != 0.0 {
                let du = -state.avg_beta * dv;
                rows.axpy(i, du, &mut state.avg_u);
                state.avg_u[d] += du * bf;
            }
            if self.learn_bias {
                state.bias += g;
            }
        }
        if self.learn_bias && self.bias_drift != 0.0 {
            state.bias -= self.bias_drift * inv_t;
        }
        state.end_step(self.sq_radius, self.weighted);
    }

    /// The steps of the drawn examples `drawn` (rows of `rows`, `k` per step, as many
    /// as `drawn` holds whole batches), prefetching rows a few examples ahead.
    fn steps<R: Rows>(
        &self,
        rows: &R,
        task: &BinaryTask<'_>,
        state: &mut LinearState,
        drawn: &[usize],
        violators: &mut Violators,
    ) {
        for_each_batch(rows, drawn, self.batch_size, |batch| {
            self.step(rows, task, state, batch, violators);
        });
    }
}

/// The step a fresh run of `params.loss` starts at on these rows: 1 for the losses
/// of bounded slope (the paper's rule); for the squared losses
/// `t0 = ceil(kappa max(mean_i c_i (||x_i||^2 + e), e max_i c_i) / lambda)`, with
/// `e` the squared value of the intercept's constant feature (1 for the
/// unregularised bias, `B^2` for a bias multiplier, 0 without an intercept); see
/// [`crate::solvers::shared::loss`]. One pass over the stored entries (none for the other
/// losses), in row order: [`first_step_sums`] from zero, then
/// [`first_step_from_sums`].
pub fn first_step<R: Rows>(rows: &R, task: &BinaryTask<'_>, params: &ValidParams) -> u64 {
    if params.loss.curvature().is_none() {
        return 1;
    }
    let sums = first_step_sums(rows, task, params, FirstStepSums::default());
    first_step_from_sums(params, sums)
}

/// What `first_step` reads of the rows, with `s_i = c_i (||x_i||^2 + e)`:
/// `total = sum_i s_i`, `squares = sum_i s_i^2`, `largest = max_i s_i` (terms
/// that are not finite left out: an unchecked row's NaN is refused when the row is
/// drawn, and must not make the start undefined) and `heaviest = max_i c_i`.
/// Start from [`FirstStepSums::default`] (zeros); the sums of blocks of rows add
/// up (their `largest` and `heaviest` are the largest).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FirstStepSums {
    /// `sum_i c_i (||x_i||^2 + e)` over the finite terms, in row order.
    pub total: f64,
    /// `sum_i (c_i (||x_i||^2 + e))^2` over the finite terms, in row order.
    pub squares: f64,
    /// `max_i c_i (||x_i||^2 + e)` over the finite terms.
    pub largest: f64,
    /// The largest example weight `max_i c_i`.
    pub heaviest: f64,
}

/// `e` of [`first_step`]: the squared value of the intercept's constant feature.
fn intercept_extra(intercept: Intercept) -> f64 {
    match intercept {
        Intercept::Unregularized => 1.0,
        _ => bias_feature(intercept) * bias_feature(intercept),
    }
}

/// [`FirstStepSums`] continued from `acc` over the rows of `rows` (one pass over
/// their stored entries, rows in order). Continuing the sums over the next rows
/// of the training set, block after block, gives the bits of one pass over all of
/// them: what a caller holding the rows in blocks (a cluster) chains to find
/// [`first_step`].
pub fn first_step_sums<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    acc: FirstStepSums,
) -> FirstStepSums {
    let extra = intercept_extra(params.intercept);
    let FirstStepSums {
        mut total,
        mut squares,
        mut largest,
        mut heaviest,
    } = acc;
    for i in 0..rows.n_rows() {
        let c = task.weight(i);
        let mut sq = extra;
        rows.for_each_entry(i, |_, x| sq += x * x);
        let s = c * sq;
        if (s * s).is_finite() {
            total += s;
            squares += s * s;
            largest = largest.max(s);
        }
        heaviest = heaviest.max(c);
    }
    FirstStepSums {
        total,
        squares,
        largest,
        heaviest,
    }
}

/// The first step [`first_step`] gives a fresh run of `params` whose rows'
/// [`first_step_sums`] are `sums` (1 for a loss of bounded slope): the one formula
/// of `t0`, `ceil(kappa max(R^2, e max_i c_i) / lambda)`, `R^2` the largest `s_i`
/// for a loss whose slope grows without bound and `sum_i s_i^2 / sum_i s_i` for one
/// whose slope is bounded (modified Huber; see the module documentation of
/// [`crate::solvers::shared::loss`]).
pub fn first_step_from_sums(params: &ValidParams, sums: FirstStepSums) -> u64 {
    let Some(kappa) = params.loss.curvature() else {
        return 1;
    };
    let extra = intercept_extra(params.intercept);
    let r2 = if !params.loss.slope_is_bounded() {
        sums.largest
    } else if sums.total > 0.0 {
        sums.squares / sums.total
    } else {
        0.0
    };
    first_step_of(kappa * r2.max(extra * sums.heaviest) / params.alpha)
}

/// Start a fresh state (no step taken) at step `t0` (see [`first_step`]): its next
/// step is step `t0`. A state that has stepped is left as it is, so that a
/// continued fit continues the schedule.
pub fn start_at(state: &mut LinearState, t0: u64) {
    if state.t == 0 {
        state.t = t0.saturating_sub(1);
    }
}

/// Everything an in-memory fit needs that does not change during it.
struct Context<'a, R> {
    rows: &'a R,
    task: &'a BinaryTask<'a>,
    rule: StepRule,
    draws: Draws<'a>,
}

/// `sum_i c_i l(0, y_i)` over the examples of `task` (the sum of the weights for
/// the hinge, whose loss at zero is exactly 1), added one by one to `acc` in row
/// order: `m` times the `L0` of the projection radius. Start from `-0.0` (the
/// neutral element of `+`); continuing the sum over the next rows of the training
/// set, block after block, gives the same bits as one pass over all of them.
pub fn zero_loss_sum(task: &BinaryTask<'_>, loss: &LossFunction, acc: f64) -> f64 {
    (0..task.len()).fold(acc, |a, i| a + task.weight(i) * loss.value(0.0, task.y(i)))
}

/// `sum_i c_i l(<w, x_i> + b, y_i)` over the rows, added one by one to `acc` in
/// row order (continued block after block like [`zero_loss_sum`]).
pub fn loss_sum<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    loss: &LossFunction,
    w: &[f64],
    b: f64,
    acc: f64,
) -> f64 {
    (0..rows.n_rows()).fold(acc, |a, i| {
        a + task.weight(i) * loss.value(rows.dot(i, w) + b, task.y(i))
    })
}

/// The probe of a binary problem's model `w`, `b` ([`Probe`]) from the weighted
/// losses of every `stride`-th row, those that fail their check
/// ([`Rows::check_row`] and the label's, for rows not checked on construction)
/// left out, so that the probe never refuses a row the steps did not read; `None`
/// when no row is left. `reg_sq` as for [`objective_from_loss`].
pub(crate) fn probe_binary<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    (w, b, reg_sq): (&[f64], f64, f64),
    stride: usize,
) -> Option<Probe> {
    let checked = rows.is_checked();
    let (mut sum, mut at_zero, mut count) = (-0.0, -0.0, 0);
    for i in (0..rows.n_rows()).step_by(stride) {
        if !checked && (rows.check_row(i).is_err() || task.check_example(i).is_err()) {
            continue;
        }
        let (c, y) = (task.weight(i), task.y(i));
        sum += c * params.loss.value(rows.dot(i, w) + b, y);
        at_zero += c * params.loss.value(0.0, y);
        count += 1;
    }
    (count > 0).then(|| Probe {
        objective: objective_from_loss(sum, count, w, reg_sq, params.alpha),
        at_zero: at_zero / count as f64,
    })
}

/// The primal objective from the summed weighted loss of `m` examples:
/// `alpha/2 (||w||^2 + reg_sq) + loss_sum / m`.
pub fn objective_from_loss(loss_sum: f64, m: usize, w: &[f64], reg_sq: f64, alpha: f64) -> f64 {
    let norm: f64 = w.iter().map(|x| x * x).sum::<f64>() + reg_sq;
    0.5 * alpha * norm + loss_sum / m as f64
}

/// Primal objective `alpha/2 ||w||^2 + 1/m sum_i c_i l(<w,x_i> + b, y_i)`.
///
/// `reg_sq` is added to `||w||^2` (the squared bias-multiplier weight, when regularised).
pub fn primal_objective<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    loss: &LossFunction,
    w: &[f64],
    b: f64,
    reg_sq: f64,
    alpha: f64,
) -> f64 {
    let sum = loss_sum(rows, task, loss, w, b, -0.0);
    objective_from_loss(sum, rows.n_rows(), w, reg_sq, alpha)
}

/// Steps in one pass: `ceil(n_samples / batch_size)`.
pub fn steps_per_pass(n_samples: usize, batch_size: usize) -> u64 {
    n_samples.div_ceil(batch_size) as u64
}

/// Run `n_steps` Pegasos steps from `state`.
///
/// The examples of up to `BLOCK_STEPS` steps are drawn at once (the draws do not
/// depend on `w`, so this changes nothing but the memory access pattern) and their
/// rows are prefetched a few examples ahead. Checks `monitor` between blocks and
/// returns [`Error::Interrupted`] when set (the state is then left at a consistent
/// step boundary).
#[cfg(test)]
pub fn run_steps<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    state: &mut LinearState,
    n_steps: u64,
    monitor: &Monitor,
) -> Result<()> {
    make_context(rows, task, params, state, None)?.run(state, n_steps, monitor)
}

/// [`run_steps`] with the projection radius of examples whose mean weighted loss
/// at zero is `zero_loss` (that of the whole training set, when `rows` are a part
/// of it; see [`StepRule::new`]).
pub fn run_steps_in_part<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    zero_loss: f64,
    state: &mut LinearState,
    n_steps: u64,
    monitor: &Monitor,
) -> Result<()> {
    make_context(rows, task, params, state, Some(zero_loss))?.run(state, n_steps, monitor)
}

/// The examples of a step whose loss has a slope, with their `g_i`.
pub(crate) type Violators = Vec<(usize, f64)>;

/// Scratch buffers of a run: the violators of a step and a block of drawn examples.
/// Call `step` on each batch of `k` examples of `drawn` (whole batches), the rows
/// of the examples a few ahead hinted into cache (located, then loaded).
pub(crate) fn for_each_batch<R: Rows>(
    rows: &R,
    drawn: &[usize],
    k: usize,
    mut step: impl FnMut(&[usize]),
) {
    for &i in drawn.iter().take(2 * PREFETCH_AHEAD) {
        rows.prefetch_locate(i);
    }
    for (s, batch) in drawn.chunks_exact(k).enumerate() {
        for j in s * k..(s + 1) * k {
            if let Some(&i) = drawn.get(j + 2 * PREFETCH_AHEAD) {
                rows.prefetch_locate(i);
            }
            if let Some(&i) = drawn.get(j + PREFETCH_AHEAD) {
                rows.prefetch_row(i);
            }
        }
        step(batch);
    }
}

/// The violators' buffer of a step of `k` examples (an error when it cannot be
/// allocated).
pub(crate) fn violators_buffer(k: usize) -> Result<Violators> {
    let mut violators = Vec::new();
    violators
        .try_reserve_exact(k)
        .map_err(|_| Error::OutOfMemory(format!("batch_size {k} needs a buffer of {k} indices")))?;
    Ok(violators)
}

/// The block loop of every linear solver: `n_steps` steps of `k` examples in blocks
/// of at most [`BLOCK_EXAMPLES`] examples (at least one step), the stop flag read
/// before each block. A block's examples are drawn by `draw` (one example from
/// `state`'s generator each), then `block` runs their steps on `state`; the
/// progress advances by the block's steps when `report`. Drawing a block ahead of
/// its steps changes nothing (the draws do not depend on `w`) but the memory
/// access pattern.
pub(crate) fn run_in_blocks<S, T>(
    state: &mut S,
    (k, n_steps): (usize, u64),
    (monitor, report): (&Monitor, bool),
    mut draw: impl FnMut(&mut S) -> T,
    mut block: impl FnMut(&mut S, &[T]) -> Result<()>,
) -> Result<()> {
    let block_steps = (BLOCK_EXAMPLES / k).max(1) as u64;
    let len = block_steps as usize * k;
    let mut drawn = Vec::new();
    drawn.try_reserve_exact(len).map_err(|_| {
        Error::OutOfMemory(format!("batch_size {k} needs a buffer of {len} examples"))
    })?;
    let mut remaining = n_steps;
    while remaining > 0 {
        if monitor.is_stopped() {
            return Err(Error::Interrupted);
        }
        let steps = remaining.min(block_steps) as usize;
        remaining -= steps as u64;
        drawn.clear();
        for _ in 0..steps * k {
            drawn.push(draw(state));
        }
        block(state, &drawn)?;
        if report {
            monitor.advance(steps as u64);
        }
    }
    Ok(())
}

/// Check the rows and labels of the examples `drawn` when `rows` were not checked
/// on construction (nothing to do otherwise), prefetching ahead as the steps do;
/// the steps then find the rows in cache.
pub(crate) fn check_drawn<R: Rows>(rows: &R, task: &BinaryTask<'_>, drawn: &[usize]) -> Result<()> {
    if rows.is_checked() {
        return Ok(());
    }
    for (k, &i) in drawn.iter().enumerate() {
        if let Some(&ahead) = drawn.get(k + 2 * PREFETCH_AHEAD) {
            rows.prefetch_locate(ahead);
        }
        if let Some(&ahead) = drawn.get(k + PREFETCH_AHEAD) {
            rows.prefetch_row(ahead);
        }
        rows.check_row(i)?;
        task.check_example(i)?;
    }
    Ok(())
}

impl<R: Rows> Context<'_, R> {
    /// The loop of [`run_steps`] on an already checked context.
    fn run(&self, state: &mut LinearState, n_steps: u64, monitor: &Monitor) -> Result<()> {
        let k = self.rule.batch_size;
        let mut violators = violators_buffer(k)?;
        run_in_blocks(
            state,
            (k, n_steps),
            (monitor, true),
            |state| self.draws.draw(&mut state.sampler),
            |state, drawn| {
                check_drawn(self.rows, self.task, drawn)?;
                self.rule
                    .steps(self.rows, self.task, state, drawn, &mut violators);
                Ok(())
            },
        )
    }
}

/// Run the steps of examples drawn elsewhere (see [`LinearState::draw`]): example
/// `j` of the run is row `drawn[j]` of `rows`, `k` examples per step, so `drawn`
/// must hold whole batches. `rows` and `task` hold the drawn examples only (a
/// cluster's sample of its rows); `rule` is that of the whole training set. With
/// the rows and weights of the examples the in-memory solver would draw, the
/// result is the in-memory solver's, bit for bit.
pub fn run_drawn<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    rule: &StepRule,
    state: &mut LinearState,
    drawn: &[usize],
    monitor: &Monitor,
) -> Result<()> {
    let k = rule.batch_size;
    check_drawn_batches(drawn, k, rows.n_rows())?;
    check_shapes(rows, task, state)?;
    let mut violators = violators_buffer(k)?;
    drawn_blocks(drawn, k, monitor, |part| {
        rule.steps(rows, task, state, part, &mut violators);
    })
}

/// The examples of a run drawn elsewhere (`run_drawn`): an error unless `drawn`
/// holds whole batches of `k` examples, each one of the `n_rows` rows supplied.
pub(crate) fn check_drawn_batches(drawn: &[usize], k: usize, n_rows: usize) -> Result<()> {
    if drawn.len() % k != 0 {
        return Err(Error::InvalidInput(format!(
            "{} drawn examples are not whole batches of {k}",
            drawn.len()
        )));
    }
    if let Some(&bad) = drawn.iter().find(|&&i| i >= n_rows) {
        return Err(Error::InvalidInput(format!(
            "drawn example {bad} is not one of the {n_rows} rows supplied"
        )));
    }
    Ok(())
}

/// `steps` on the blocks of the examples `drawn` elsewhere (whole batches of `k`,
/// at most [`BLOCK_EXAMPLES`] examples a block), the stop flag read before each.
pub(crate) fn drawn_blocks(
    drawn: &[usize],
    k: usize,
    monitor: &Monitor,
    mut steps: impl FnMut(&[usize]),
) -> Result<()> {
    for part in drawn.chunks((BLOCK_EXAMPLES / k).max(1) * k) {
        if monitor.is_stopped() {
            return Err(Error::Interrupted);
        }
        steps(part);
    }
    Ok(())
}

/// One label per row, and a state for the rows' number of features.
fn check_shapes<R: Rows>(rows: &R, task: &BinaryTask<'_>, state: &LinearState) -> Result<()> {
    if task.len() != rows.n_rows() {
        return Err(Error::ShapeMismatch(format!(
            "{} rows but {} labels",
            rows.n_rows(),
            task.len()
        )));
    }
    if state.n_features() != rows.n_features() {
        return Err(Error::ShapeMismatch(format!(
            "the solver state has {} features, the data {}",
            state.n_features(),
            rows.n_features()
        )));
    }
    Ok(())
}

/// `L0 = 1/m sum_i c_i l(0, y_i)` of the task (see [`StepRule::new`]). A margin
/// loss with all weights 1: `l(0)` itself (the sum would be exactly `m l(0)` for
/// the hinge, whose `l(0)` is 1, and `m < 2^53`).
pub fn mean_zero_loss(task: &BinaryTask<'_>, loss: &LossFunction) -> f64 {
    if task.unit_weights() && loss.is_margin_loss() {
        loss.value(0.0, 1.0)
    } else {
        zero_loss_sum(task, loss, -0.0) / task.len() as f64
    }
}

fn make_context<'a, R: Rows>(
    rows: &'a R,
    task: &'a BinaryTask<'a>,
    params: &'a ValidParams,
    state: &LinearState,
    zero_loss: Option<f64>,
) -> Result<Context<'a, R>> {
    let n = rows.n_rows();
    if n == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    check_shapes(rows, task, state)?;
    check_loss_fits_task(&params.loss, task)?;
    let draws = Draws::new(&params.sampling, task)?;
    // Real targets are checked here, once per call (O(m), as the sum below).
    task.check_targets()?;
    let zero_loss = zero_loss.unwrap_or_else(|| mean_zero_loss(task, &params.loss));
    let mut rule = StepRule::new(params, zero_loss);
    if params.one_class && params.projection {
        rule.sq_radius = one_class_sq_radius(rows, task)?;
    }
    Ok(Context {
        rows,
        task,
        rule,
        draws,
    })
}

/// Plan a fit of `params` on `n_rows` examples continuing `state` (see
/// `PassPlan`): sets the averaging start for this call (see [`Averaging`]; with
/// suffix averaging a previous call's average is discarded) and allocates the
/// average.
pub fn plan_linear_fit(
    params: &ValidParams,
    state: &mut LinearState,
    n_rows: usize,
) -> Result<PassPlan> {
    plan_averaged(params, state, n_rows)
}

/// Plan a fit of `params` on `n_rows` examples continuing `state`: the passes, and
/// the averaging start of this call (see [`Averaging`]; no averaging and suffix
/// averaging discard a previous call's average), the average allocated.
pub(crate) fn plan_averaged<S: ScaledState>(
    params: &ValidParams,
    state: &mut S,
    n_rows: usize,
) -> Result<PassPlan> {
    let (per_pass, max_passes) = pass_shape(params, n_rows);
    let (t, avg_count) = {
        let p = state.parts();
        (p.t, *p.avg_count)
    };
    let start = match params.averaging {
        Averaging::Off => {
            state.discard_average();
            u64::MAX
        }
        Averaging::Suffix => {
            state.discard_average();
            t + per_pass * max_passes as u64 / 2 + 1
        }
        Averaging::FromStep(s) => s,
        // Continue the running average; start one at the next step if none.
        Averaging::Weighted if avg_count > 0 => *state.parts().avg_start,
        Averaging::Weighted => t + 1,
    };
    *state.parts().avg_start = start;
    if params.averaging != Averaging::Off {
        state.ensure_average()?;
    }
    Ok(PassPlan::new(per_pass, max_passes))
}

/// Steps per pass and passes of a fit of `params` on `n_rows` examples: with
/// `max_steps`, one "pass" of exactly that many steps (the paper's T).
pub(crate) fn pass_shape(params: &ValidParams, n_rows: usize) -> (u64, usize) {
    match params.max_steps {
        Some(t) => (t, 1),
        None => (steps_per_pass(n_rows, params.batch_size), params.max_iter),
    }
}

/// Write the model `plan` returns to `coef` and report the fit.
pub fn finish_linear_fit(
    plan: &PassPlan,
    params: &ValidParams,
    state: &LinearState,
    coef: &mut [f64],
) -> FitOutput {
    FitOutput {
        intercept: state.write_model(params.intercept, coef),
        n_iter: plan.passes(),
        objective: plan.objective(),
        converged: plan.converged(params),
        settling: plan.settling(),
        worse_than_zero: plan.worse_than_zero(),
        validation_scores: plan.validation_scores().to_vec(),
    }
}

impl PassSubject for LinearState {
    fn average_if_unstarted(&mut self) -> bool {
        self.start_average_if_unstarted()
    }

    fn describe(&self) -> String {
        format!("||w||^2 {:.4e}, t {}", self.sq_norm, self.t)
    }
}

/// An in-memory binary fit as the pass driver runs it.
struct LinearRun<'a, 's, R> {
    ctx: Context<'a, R>,
    params: &'a ValidParams,
    state: &'s mut LinearState,
    coef: &'s mut [f64],
    monitor: &'a Monitor,
    /// Every example checked (rows that were not checked on construction).
    all_checked: bool,
    /// The rows scored after every pass (early stopping).
    held_out: Option<HeldOut<'a, R>>,
}

runs_on_state!(LinearRun, LinearState);

impl<R: Rows> PassRunner for LinearRun<'_, '_, R> {
    fn run_pass(&mut self, steps: u64) -> Result<()> {
        self.ctx.run(self.state, steps, self.monitor)?;
        if self.params.one_class && self.ctx.rule.learn_bias {
            reset_bias(self.ctx.rows, self.ctx.task, self.state, self.params.alpha);
        }
        Ok(())
    }

    fn probe(&mut self) -> Result<Option<Probe>> {
        if self.params.one_class {
            // Its objective is 0 at w = 0 and falls below 0, to about 0 on rows
            // around the origin: the last pass's decrease relative to it says
            // nothing there. Without tol the one-class fit is not probed.
            return Ok(None);
        }
        let (rows, task) = (self.ctx.rows, self.ctx.task);
        let stride = probe_stride(rows.n_rows());
        let (b, reg_sq) = current_model(self.params, self.state, self.coef);
        Ok(probe_binary(
            rows,
            task,
            self.params,
            (self.coef, b, reg_sq),
            stride,
        ))
    }

    fn held_out_score(&mut self) -> Result<Option<f64>> {
        let Some(held_out) = &self.held_out else {
            return Ok(None);
        };
        let (b, _) = current_model(self.params, self.state, self.coef);
        Ok(Some(held_out.linear_score(self.coef, b)))
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        if !PassPlan::wants_objective(self.params) {
            return Ok(None);
        }
        let (rows, task) = (self.ctx.rows, self.ctx.task);
        check_every_row(rows, task, &mut self.all_checked)?;
        let model = current_model(self.params, self.state, self.coef);
        let (b, reg_sq) = best_offset(rows, task, self.params, self.coef, model, 1);
        let alpha = self.params.alpha;
        Ok(Some(primal_objective(
            rows,
            task,
            &self.params.loss,
            self.coef,
            b,
            reg_sq,
            alpha,
        )))
    }
}

/// The model a pass ends with, written to `coef`: its intercept and what the
/// objective adds to `||w||^2` ([`objective_from_loss`]'s `reg_sq`): the squared
/// regularised bias weight, and for the one-class SVM `2 (b - 1)`, so that its
/// objective is `nu/2 ||w||^2 - nu rho + 1/m sum_i c_i max(0, rho - <w, x_i>)`
/// with `rho = 1 - b` (Schölkopf et al.'s, times `nu`).
pub fn current_model(params: &ValidParams, state: &LinearState, coef: &mut [f64]) -> (f64, f64) {
    let b = state.write_model(params.intercept, coef);
    let mut reg_sq = regularised_bias_sq(params.intercept, b);
    if params.one_class {
        reg_sq += 2.0 * (b - 1.0);
    }
    (b, reg_sq)
}

/// The one-class SVM's model `coef` with its best offset on every `stride`-th row
/// ([`one_class::best_rho`]): `(b, reg_sq)` as [`current_model`] gives them;
/// `model` (what `current_model` gave) for any other fit, or without an intercept.
pub(crate) fn best_offset<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    params: &ValidParams,
    coef: &[f64],
    model: (f64, f64),
    stride: usize,
) -> (f64, f64) {
    if !params.one_class || params.intercept != Intercept::Unregularized {
        return model;
    }
    match one_class::best_rho(rows, task, coef, params.alpha, stride) {
        Some(rho) => (1.0 - rho, -2.0 * rho),
        None => model,
    }
}

/// The squared regularised bias weight of a model with intercept `b`: with a bias
/// multiplier `B` the intercept is `B * w_B` (there is no other bias term), so the
/// regularised weight is recovered from it; 0 otherwise.
pub(crate) fn regularised_bias_sq(intercept: Intercept, b: f64) -> f64 {
    match intercept {
        Intercept::BiasMultiplier(bf) => (b / bf) * (b / bf),
        _ => 0.0,
    }
}

/// Before an objective reads every example: check the rows and labels the steps
/// have not (rows not checked on construction), once (`done` records it).
pub(crate) fn check_every_row<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    done: &mut bool,
) -> Result<()> {
    if rows.is_checked() || *done {
        return Ok(());
    }
    for i in 0..rows.n_rows() {
        rows.check_row(i)?;
        task.check_example(i)?;
    }
    *done = true;
    Ok(())
}

/// Fit one binary problem for up to `params.max_iter` passes, continuing `state`
/// (the passes, averaging and stopping rule of `PassPlan`, run by `drive`); when `params.tol`
/// is set (or `verbose`), the primal objective of the returned model is evaluated
/// once per pass. `label` prefixes the verbose lines.
///
/// The model's weights are written to `coef` (`n_features` entries).
///
/// With `held_out`, the model is scored on those rows after every pass and the
/// stopping rule reads that score (early stopping, see
/// [`crate::solvers::shared::passes`]). The steps never read the held-out rows, so the
/// passes run are those of the fit without them until the rule stops them.
#[allow(clippy::too_many_arguments)] // a fit's inputs and the held-out rows
pub fn fit_binary<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    held_out: Option<HeldOut<'_, R>>,
    params: &ValidParams,
    state: &mut LinearState,
    coef: &mut [f64],
    monitor: &Monitor,
    label: &str,
) -> Result<FitOutput> {
    if coef.len() != rows.n_features() {
        return Err(Error::ShapeMismatch(format!(
            "coefficient buffer of {} entries for {} features",
            coef.len(),
            rows.n_features()
        )));
    }
    if state.t == 0 {
        start_at(state, first_step(rows, task, params));
    }
    let mut plan = plan_linear_fit(params, state, rows.n_rows())?;
    let ctx = make_context(rows, task, params, state, None)?;
    let mut run = LinearRun {
        ctx,
        params,
        state,
        coef,
        monitor,
        all_checked: false,
        held_out,
    };
    drive(&mut plan, &mut run, params, monitor, label)?;
    let mut out = finish_linear_fit(&plan, params, run.state, run.coef);
    if params.one_class {
        // The one-class SVM's decision value is <w, x> + b - 1 = <w, x> - rho: its
        // intercept -rho, with the offset exact for the returned weights.
        let rho = match params.intercept {
            Intercept::Unregularized => one_class::best_rho(rows, task, run.coef, params.alpha, 1)
                .unwrap_or(1.0 - out.intercept),
            _ => 1.0 - out.intercept,
        };
        out.intercept = -rho;
    }
    Ok(out)
}

/// Set the bias of the iterate in `state` to `1 - rho`, [`best_rho`] of its weights on at
/// most [`RESET_ROWS`] rows (every [`reset_stride`]-th), after a pass.
pub fn reset_bias<R: Rows>(rows: &R, task: &BinaryTask<'_>, state: &mut LinearState, nu: f64) {
    reset_bias_strided(rows, task, state, nu, reset_stride(rows.n_rows()));
}

/// [`reset_bias`] on every `stride`-th row of `rows` (1: `rows` are the sample
/// already, as a caller holding only those rows supplies them).
pub fn reset_bias_strided<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    state: &mut LinearState,
    nu: f64,
    stride: usize,
) {
    // The bias-multiplier weight v[d] is 0: the one-class SVM's bias is b.
    if let Some(rho) = scaled_best_rho(rows, task, (&state.v, state.scale), nu, stride) {
        state.bias = 1.0 - rho;
    }
}

#[cfg(test)]
#[path = "binary_tests.rs"]
mod tests;
