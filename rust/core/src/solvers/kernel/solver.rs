//! Kernel Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal
//! Estimated sub-GrAdient SOlver for SVM", Math. Programming 2011, sections
//! "Incorporating kernels" and "Other prediction problems and loss functions").
//!
//! # Objective
//! `min  lambda/2 ||w||^2 + 1/m sum_i c_i l(<w, phi(x_i)> + b, y_i)` in the feature
//! space `phi` of the kernel, for a loss `l` of [`crate::solvers::shared::loss`] that is flat
//! somewhere ([`Loss::has_flat_region`]): the hinge (the SVM, by default), the
//! squared hinge (the L2-loss SVM), modified Huber, and on real targets the
//! epsilon-insensitive losses (LIBSVM's epsilon-SVR, `svm-train -s 3`, and its
//! squared form). A loss with a slope everywhere (logistic, least squares, Huber)
//! would make every example drawn a support vector: [`check_kernel_params`] refuses
//! it and points to an explicit feature map and the linear solver.
//!
//! # Update rule (step t = 1, 2, ...)
//! The state is a signed coefficient `a_j` per training example and the bias `b`.
//! The iterate is never formed; it is
//!
//! ```text
//! w_t = 1 / (lambda (t - 1)) * sum_j a_j phi(x_j)                 (w_1 = 0)
//! ```
//!
//! Draw a batch `A_t` of `k` examples. Every example `i` of the batch gets
//! `a_i += c_i g_i / k` (`c_i` its weight), with `g_i = -dl/dp (p_i, y_i)` at its
//! prediction `p_i = <w_t, phi(x_i)> + b_t` (all predictions at `w_t`;
//! [`Loss::step_weight`]), and the unregularised bias, when learned,
//! `b_{t+1} = b_t + 1/(lambda t k) sum c_i g_i`. Only the examples with `g_i != 0`
//! are touched, and only they join the support set. For the hinge `g_i = y_i` on
//! the margin violators `y_i p_i < 1` and 0 elsewhere: `a_j = alpha_j y_j` with
//! `alpha_j >= 0` the paper's count of violations, and the increments are
//! `(c_i / k) y_i`, the same numbers bit for bit as before the losses were
//! generalised (the golden models hold).
//!
//! This is the exact kernelization of the linear update without projection: with
//! `u_t = lambda (t-1) w_t`, the linear step
//! `w_{t+1} = (1 - 1/t) w_t + 1/(lambda t k) sum c_i g_i x_i` is
//! `u_{t+1} = u_t + 1/k sum c_i g_i x_i`. The paper's figure scales by `1/(lambda t)`
//! at step `t`; that is the scale of `w_{t+1}`, one step ahead. With the linear
//! kernel, this solver reproduces the linear solver's decision values (tested).
//! After `T` steps the model is `f(x) = 1/(lambda T) sum_j a_j K(x_j, x) + b`,
//! a sum over the support vectors (`a_j != 0`) only.
//!
//! # The one-class SVM
//! With `params.one_class` the objective is Schölkopf et al.'s (2001) times `nu`
//! in the feature space, `nu/2 ||w||^2 - nu rho + 1/m sum_i c_i max(0, rho -
//! <w, phi(x_i)>)` (scikit-learn's `OneClassSVM` divided by `C m`): the hinge of the
//! rows all labelled `+1` with `lambda = nu` and `b = 1 - rho`, as for the linear
//! solver ([`crate::solvers::linear::binary`], where the steps are derived). The
//! coefficients take the two-class steps, the bias drifts by `-1/t` each step, and
//! at the steps `t = 2, 4, 8, ...` and after every pass it is reset to `1 - rho`
//! with `rho` the `nu`-quantile of the iterate's scores on at most [`RESET_ROWS`](crate::solvers::shared::one_class::RESET_ROWS)
//! rows ([`crate::solvers::shared::one_class`]). The early resets matter: the first step
//! moves the bias by `1/nu - 1` (every row violates at `w = 0`), and its drift of
//! `-1/t` would take `e^(1/nu - 1)` steps to bring it back (8,000 at `nu = 0.1`),
//! the whole first pass of a small set with no other row a support vector.
//! The model's scores are `sum_s dual_coef[s] K(x_{support[s]}, x)`; its exact
//! offset over all the rows is the caller's: the `nu`-quantile of the returned
//! model's scores computed as its predictions compute them
//! ([`crate::solvers::shared::one_class::nu_quantile`]), so the nu-property holds on the
//! training rows bit for bit.
//!
//! # Where a run starts
//! The losses with a curvature ([`Loss::curvature`] `Some(kappa)`: the squared
//! losses and the modified Huber loss): from `t = 1` the first steps, `eta_t c_i
//! kappa K(x_i, x_i) > 2`, overshoot by more than they correct, and the coefficients
//! grow geometrically (overflow within a pass). A fresh run of such a loss starts at
//! the largest row's stable step, as the linear solver's losses of unbounded slope
//! do ([`crate::solvers::linear::binary::first_step`], where `||x_i||^2` is this `K(x_i,
//! x_i)`; the linear modified Huber loss starts from a mean instead, see
//! `crate::solvers::shared::loss`), `t0 = ceil(kappa max_i c_i (K(x_i, x_i) + e) / lambda)` (`e` = 1 with the
//! unregularised bias, 0 without; [`first_step`]): every step is then at most
//! `1 / (kappa c_i (K(x_i, x_i) + e))`, stable. The schedule stays `1/(lambda t)`;
//! the state counts steps from `t0 - 1`, so the model's scale `1/(lambda t)` and
//! the reported steps include the offset. There is no projection to bound the
//! iterates instead: the kernel solver never forms `w`.
//!
//! # Evaluating the margins: two strategies
//! - [`Strategy::SupportSet`]: each step computes `sum_j a_j K(x_i, x_j)` over the
//!   support set (a compact list in order of first violation). The kernel row of
//!   `x_i` against the support set is cached (LRU) and extended as the set grows.
//!   Cost per step: `|S|` kernel values (fewer when cached).
//! - [`Strategy::Margins`]: keeps `g_i = sum_j a_j K(x_i, x_j)` for every training
//!   example. A step that violates nothing costs O(1); a violation of `x_j` (an
//!   example whose loss has a slope) adds `delta_j K(., x_j)` to `g`, one kernel
//!   column (cached per support vector).
//!   Cost: `n` kernel values per violation of an uncached column. The primal
//!   objective is then available in O(n) per pass.
//!
//! The two give the same model up to rounding, not bit for bit. [`Strategy::Auto`]
//! chooses from the run's own counts, never from timings (see `strategy.rs`):
//! small fits keep the margin vector; the others run a pilot of 1/16 of the first
//! pass on the support set, then switch to the margin vector when its projected cost
//! over the whole fit is lower ([`margins_pay_off`]).
//!
//! Kernel values are rounded to the storage type `S` (the input's float type)
//! whether or not they come from the cache, so the cache size never changes a
//! result. Values over many rows are computed in parallel chunks, each value
//! independently, and summed in a fixed order: results do not depend on the number
//! of threads.

use crate::monitor::Monitor;

use rayon::prelude::*;

use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::kernels::cache::{KernelCache, SharedColumns};
use crate::kernels::function::{Query, Targets};
use crate::kernels::gram::Gram;
use crate::kernels::scratch::with_scratch;
use crate::solvers::kernel::held_out::HeldOutScore;
use crate::solvers::shared::loss::{check_loss_fits_task, first_step_of};
use crate::solvers::shared::loss::{Loss, LossFunction};
use crate::solvers::shared::one_class::{reset_stride, strided_rho};
use crate::solvers::shared::params::{Averaging, Intercept, ValidParams};
use crate::solvers::shared::passes::{drive, PassPlan, PassRunner, PassSubject};
use crate::solvers::shared::sampler::{Draws, Sampler};

/// Steps counted as done at once on the progress monitor (a kernel step costs
/// microseconds or more; counting each would contend between classes' threads).
const PROGRESS_STEPS: u64 = 64;
/// Kernel values computed per parallel task.
const CHUNK: usize = 1024;

/// Below this many kernel values a row or column is computed on one thread.
const PARALLEL_MIN: usize = 4096;

/// Violations collected before the margin vector is updated in one pass over the
/// data ([`Strategy::Margins`]).
const PENDING_COLUMNS: usize = 64;

#[path = "strategy.rs"]
mod strategy;
pub use strategy::{margins_pay_off, pilot_steps, PilotCounts, Strategy};

/// Settings of the kernel solver besides the shared [`ValidParams`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSolver {
    /// Margin evaluation strategy.
    pub strategy: Strategy,
    /// Kernel cache budget in bytes, for this problem.
    pub cache_bytes: usize,
    /// Compute long rows and columns with rayon (on the current pool).
    pub parallel: bool,
}

/// Check that `params` asks only for what the kernel solver implements.
pub fn check_kernel_params(params: &ValidParams) -> Result<()> {
    let bad = |m: &str| Err(Error::InvalidParameter(m.into()));
    if !params.loss.has_flat_region() {
        return Err(Error::InvalidParameter(never_flat(&params.loss)));
    }
    if params.projection {
        return bad("the kernel solver does not project; set projection off");
    }
    if let Averaging::FromStep(_) | Averaging::Weighted = params.averaging {
        return bad("the kernel solver averages the last half of each fit (suffix) or not at all");
    }
    if let Intercept::BiasMultiplier(_) = params.intercept {
        return bad("the kernel solver learns an unregularised bias, not a bias multiplier");
    }
    if params.max_steps.is_some() {
        return bad("the kernel solver runs whole passes (no max_steps)");
    }
    Ok(())
}

/// An error for `tol` without held-out rows: the kernel solver runs its passes,
/// and stops early only by a held-out score (whose improvement `tol` sets).
fn check_tol(params: &ValidParams, held_out: bool) -> Result<()> {
    if params.tol.is_some() && !held_out {
        return Err(Error::InvalidParameter(
            "the kernel solver runs a fixed number of passes: tol sets the improvement \
             of the held-out score with early stopping only"
                .into(),
        ));
    }
    Ok(())
}

/// Why the kernel solver refuses `loss`, whose slope is nowhere zero, and what to
/// use instead.
fn never_flat(loss: &LossFunction) -> String {
    let name = loss.name();
    let instead = if loss.is_margin_loss() {
        format!("Nystroem + PegasosClassifier(loss='{name}')")
    } else {
        format!("Nystroem + PegasosRegressor(loss='{name}')")
    };
    format!(
        "the kernel solver does not take loss='{name}': its slope is never zero, so every \
         example drawn would become a support vector (a model as large as the training \
         set, each step as costly as a prediction on all of it); map the data explicitly \
         and train the linear solver on it, for example {instead}"
    )
}

/// The complete state of one binary kernel Pegasos run. Training `T1` steps, then
/// `T2` more from the returned state, is bit-for-bit the same as `T1 + T2` at once
/// with a given strategy (with [`Strategy::Auto`], the choice at the pilot's end
/// weighs the passes of the call it falls in).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelState {
    /// Examples whose loss has had a slope when drawn (`a_j` changed), in order
    /// of that first step.
    pub(crate) support: Vec<u32>,
    /// The signed coefficient `a_j` of `support[s]`, at index `s` (for the hinge
    /// `alpha_j y_j`, `alpha_j` the weighted count of violations).
    pub(crate) coef: Vec<f64>,
    /// Position of each example in `support` (`u32::MAX` when absent).
    pub(crate) position: Vec<u32>,
    /// `g_i` per example ([`Strategy::Margins`] only).
    pub(crate) margins: Vec<f64>,
    pub(crate) strategy: Strategy,
    /// The step at which [`Strategy::Auto`] decides whether to switch from the
    /// support set to the margin vector (`0`: no decision to take).
    pub(crate) decide_at: u64,
    /// The step before the pilot's first (the run's first step is `pilot_from + 1`:
    /// 0, or `t0 - 1` for a squared loss; see [`first_step`]).
    pub(crate) pilot_from: u64,
    /// Support vectors halfway through that pilot.
    pub(crate) pilot_half_support: usize,
    /// The step after which [`Strategy::Auto`] switched to the margin vector.
    pub(crate) switched_at: Option<u64>,
    pub(crate) bias: f64,
    pub(crate) t: u64,
    pub(crate) sampler: Sampler,
    /// Averaging: see [`KernelAverage`].
    pub(crate) avg: KernelAverage,
}

/// The running average of the iterates `w_{t+1}`, `t = start, start + 1, ...`, kept
/// lazily: `w_{t+1} = 1/(lambda t) sum_j c_j^{(t)} phi(x_j)` with `c_j = a_j`
/// piecewise constant, so support vector `s` accumulates
/// `sum_t c_s^{(t)} / t` as `c_s (h(b) - h(a))` over each interval `[a, b]` on which
/// `c_s` was constant, `h(t) = sum_{u=start}^{t} 1/u`. O(1) per violation, O(|S|)
/// to read out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KernelAverage {
    /// First averaged step (1-based); `u64::MAX` when off.
    pub(crate) start: u64,
    /// `h(t)` for the last step taken.
    pub(crate) h: f64,
    /// Per support position: accumulated `sum c / t` up to `last[s]`.
    pub(crate) acc: Vec<f64>,
    /// Per support position: `h` at which `acc` was last brought up to date.
    pub(crate) last: Vec<f64>,
    /// Sum of the biases `b_{t+1}` over the averaged steps.
    pub(crate) bias_sum: f64,
    /// Steps averaged.
    pub(crate) count: u64,
}

impl KernelAverage {
    pub(crate) fn off() -> Self {
        Self {
            start: u64::MAX,
            h: 0.0,
            acc: Vec::new(),
            last: Vec::new(),
            bias_sum: 0.0,
            count: 0,
        }
    }

    /// Averaging has begun (at least one step averaged).
    pub(crate) fn active(&self) -> bool {
        self.count > 0
    }

    /// Start averaging at the step after `t` unless it has begun; whether it was
    /// started (the pass driver's `PassSubject::average_if_unstarted`).
    pub(crate) fn start_if_unstarted(&mut self, t: u64) -> bool {
        if self.active() {
            return false;
        }
        self.start = t + 1;
        true
    }

    /// Bring `acc[s]` up to the current step before `c_s` changes from `c`.
    #[inline]
    pub(crate) fn settle(&mut self, s: usize, c: f64) {
        if self.active() {
            self.acc[s] += c * (self.h - self.last[s]);
            self.last[s] = self.h;
        }
    }

    /// After step `t` of a model of `n` coefficients whose bias is now `bias`: from
    /// step `start` on, count the step (at `start` every coefficient starts from
    /// nothing, `h(start - 1) = 0`).
    pub(crate) fn after_step(&mut self, t: u64, n: usize, bias: f64) {
        if t < self.start {
            return;
        }
        if t == self.start {
            self.h = 0.0;
            self.acc = vec![0.0; n];
            self.last = vec![0.0; n];
            self.bias_sum = 0.0;
            self.count = 0;
        }
        self.h += 1.0 / t as f64;
        self.bias_sum += bias;
        self.count += 1;
    }

    /// The averaged coefficients of the coefficients `coef` (the current
    /// iterate's, unscaled) and bias, `1/(alpha_reg n)` scaling.
    pub(crate) fn averaged(&self, coef: &[f64], alpha_reg: f64) -> (Vec<f64>, f64) {
        let n = self.count as f64;
        let out = coef
            .iter()
            .enumerate()
            .map(|(s, c)| (self.acc[s] + c * (self.h - self.last[s])) / (alpha_reg * n))
            .collect();
        (out, self.bias_sum / n)
    }

    /// The coefficients and bias a fit returns from the iterate `coef` (unscaled),
    /// `bias` after `t` steps: the average once it has begun, else the iterate
    /// scaled by `1/(alpha_reg t)` (zeros before the first step).
    pub(crate) fn model_of(
        &self,
        coef: &[f64],
        bias: f64,
        t: u64,
        alpha_reg: f64,
    ) -> (Vec<f64>, f64) {
        if self.active() {
            return self.averaged(coef, alpha_reg);
        }
        let scale = if t == 0 {
            0.0
        } else {
            1.0 / (alpha_reg * t as f64)
        };
        (coef.iter().map(|c| c * scale).collect(), bias)
    }
}

/// A binary model: `f(x) = sum_s dual_coef[s] K(x_{support[s]}, x) + intercept`.
#[derive(Clone, Debug, PartialEq)]
pub struct BinaryKernelModel {
    /// Indices of the support vectors, increasing.
    pub support: Vec<usize>,
    /// `a_j / (lambda T)` of each support vector (`alpha_j y_j / (lambda T)` for
    /// the hinge), none zero.
    pub dual_coef: Vec<f64>,
    /// The bias.
    pub intercept: f64,
}

/// What a kernel fit reports.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFitOutput {
    /// Passes run by this call.
    pub n_iter: usize,
    /// Primal objective of the last iterate after the last pass
    /// ([`Strategy::Margins`] only).
    pub objective: Option<f64>,
    /// Kernel cache hits and misses.
    pub cache_hits: u64,
    /// Kernel cache misses.
    pub cache_misses: u64,
    /// Kernel values computed.
    pub kernel_evals: u64,
    /// With held-out rows: whether the stopping rule was met (`None` without).
    pub converged: Option<bool>,
    /// With held-out rows: the score of the model after each pass of this call
    /// ([`crate::solvers::kernel::held_out`]); empty otherwise.
    pub validation_scores: Vec<f64>,
}

impl KernelState {
    /// Fresh state for `n` examples using stream `stream` of `seed`.
    pub fn new(n: usize, seed: u64, stream: u64) -> Result<Self> {
        Ok(Self {
            support: Vec::new(),
            coef: Vec::new(),
            position: try_filled_vec(n, u32::MAX, "the support positions")?,
            margins: Vec::new(),
            strategy: Strategy::Auto,
            decide_at: 0,
            pilot_from: 0,
            pilot_half_support: 0,
            switched_at: None,
            bias: 0.0,
            t: 0,
            sampler: Sampler::new(seed, stream),
            avg: KernelAverage::off(),
        })
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// The strategy in use (`Auto` before the first fit).
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The step after which [`Strategy::Auto`] switched from the support set to the
    /// margin vector, if it did.
    pub fn switched_at(&self) -> Option<u64> {
        self.switched_at
    }

    /// The model a fit returns: the average of the iterates since averaging began,
    /// when it has, else the current iterate (`1/(lambda t)` scaling, `t` steps
    /// taken). Examples whose coefficient is zero (a regression's steps up and
    /// down that cancelled; never for the margin losses, whose steps on an example
    /// all have its label's sign) are left out.
    pub fn model(&self, alpha_reg: f64) -> BinaryKernelModel {
        let (coef, intercept) = self.avg.model_of(&self.coef, self.bias, self.t, alpha_reg);
        let mut pairs: Vec<(usize, f64)> = self
            .support
            .iter()
            .zip(coef)
            .filter(|&(_, c)| c != 0.0)
            .map(|(&j, c)| (j as usize, c))
            .collect();
        pairs.sort_unstable_by_key(|p| p.0);
        BinaryKernelModel {
            support: pairs.iter().map(|p| p.0).collect(),
            dual_coef: pairs.iter().map(|p| p.1).collect(),
            intercept,
        }
    }
}

/// The pending columns' kernel values found in the shared cache (`None` where not).
type CachedColumns<S> = Vec<Option<Vec<S>>>;

/// One binary problem on a Gram matrix: what a kernel fit trains on.
pub struct KernelProblem<'a, G> {
    /// The kernel matrix of the training rows.
    pub gram: &'a G,
    /// The problem's labels and weights.
    pub task: &'a BinaryTask<'a>,
    /// The parameters shared with the linear solver.
    pub params: &'a ValidParams,
    /// The held-out rows scored after every pass (early stopping), or `None`.
    pub held_out: Option<&'a dyn HeldOutScore>,
}

impl<G> Clone for KernelProblem<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for KernelProblem<'_, G> {}

impl<'a, G> KernelProblem<'a, G> {
    /// The problem of `task` on `gram` under `params`, scored on `held_out`'s rows
    /// after every pass when given (a scorer from [`crate::solvers::kernel::held_out`]).
    pub fn new(
        gram: &'a G,
        task: &'a BinaryTask<'a>,
        params: &'a ValidParams,
        held_out: Option<&'a dyn HeldOutScore>,
    ) -> Self {
        Self {
            gram,
            task,
            params,
            held_out,
        }
    }
}

/// Per-fit context of the kernel solver.
struct Run<'a, G: Gram, S> {
    gram: &'a G,
    task: &'a BinaryTask<'a>,
    params: &'a ValidParams,
    solver: KernelSolver,
    draws: Draws<'a>,
    /// Kernel rows against the support set ([`Strategy::SupportSet`]).
    cache: KernelCache<S>,
    /// Kernel columns ([`Strategy::Margins`]), possibly shared with other problems.
    columns: &'a SharedColumns<S>,
    query: Query,
    learn_bias: bool,
    evals: u64,
    /// Kernel rows or columns found in a cache, and not.
    hits: u64,
    misses: u64,
    /// Scratch space for the fresh columns of a flush.
    block: G::Block,
    /// Violations not yet added to the margin vector: (example, change of
    /// `alpha y`), at most [`PENDING_COLUMNS`]; flushed at the end of every pass.
    pending_idx: Vec<u32>,
    pending_coef: Vec<f64>,
    /// Scratch kernel values of one row against the pending examples.
    pending_values: Vec<f64>,
    /// Scratch kernel values of a flush's fresh columns, kept between flushes so
    /// that a flush neither allocates nor clears them (every value a flush reads it
    /// writes first).
    fresh_values: Vec<S>,
    /// Set when the caller asks the fit to stop (checked between steps and between
    /// the row chunks of a flush).
    monitor: &'a Monitor,
}

impl<G: Gram, S: Float> Run<'_, G, S> {
    /// Kernel values `K(x_i, x_j)` for the rows `j` of `targets`, appended to `out`.
    fn compute(&mut self, i: usize, targets: &[u32], out: &mut Vec<S>) -> Result<()> {
        let count = targets.len();
        if count == 0 {
            return Ok(());
        }
        self.gram.load(&mut self.query, i)?;
        self.evals += count as u64;
        let start = out.len();
        out.resize(start + count, S::from_f64(0.0));
        let (gram, query) = (self.gram, &self.query);
        let fill = |(c, chunk): (usize, &mut [S])| {
            with_scratch::<f64, CHUNK, _>(chunk.len(), |tmp| {
                gram.eval_into(query, i, Targets::List(&targets[c * CHUNK..]), tmp);
                for (o, v) in chunk.iter_mut().zip(tmp.iter()) {
                    *o = S::from_f64(*v);
                }
            });
        };
        if self.solver.parallel && count >= PARALLEL_MIN {
            out[start..]
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(fill);
        } else {
            out[start..].chunks_mut(CHUNK).enumerate().for_each(fill);
        }
        Ok(())
    }

    /// `sum_j a_j K(x_i, x_j)` (before the `1/(lambda (t-1))` scale).
    fn raw_margin(&mut self, state: &KernelState, i: usize) -> Result<f64> {
        if state.strategy == Strategy::Margins {
            let p = self.pending_idx.len();
            if p == 0 {
                return Ok(state.margins[i]);
            }
            self.gram.load(&mut self.query, i)?;
            let values = &mut self.pending_values[..p];
            self.gram
                .eval_into(&self.query, i, Targets::List(&self.pending_idx), values);
            self.evals += p as u64;
            let extra: f64 = values
                .iter()
                .zip(&self.pending_coef)
                .map(|(v, f)| f * S::from_f64(*v).to_f64())
                .sum();
            return Ok(state.margins[i] + extra);
        }
        let mut row = if let Some(row) = self.cache.take(i) {
            self.hits += 1;
            row
        } else {
            self.misses += 1;
            Vec::new()
        };
        let have = row.len();
        self.compute(i, &state.support[have..], &mut row)?;
        let sum = row
            .iter()
            .zip(&state.coef)
            .map(|(k, c)| k.to_f64() * c)
            .sum();
        self.cache.put(i, row);
        Ok(sum)
    }

    /// `a_i += f`, keeping the support list and the margins in step.
    fn add(&mut self, state: &mut KernelState, i: usize, f: f64) -> Result<()> {
        if state.position[i] == u32::MAX {
            state.position[i] = state.support.len() as u32;
            state.support.push(i as u32);
            state.coef.push(0.0);
            if state.avg.active() {
                state.avg.acc.push(0.0);
                state.avg.last.push(state.avg.h);
            }
        }
        let s = state.position[i] as usize;
        state.avg.settle(s, state.coef[s]);
        state.coef[s] += f;
        if state.strategy == Strategy::Margins {
            if let Some(p) = self.pending_idx.iter().position(|&j| j == i as u32) {
                self.pending_coef[p] += f;
            } else {
                self.pending_idx.push(i as u32);
                self.pending_coef.push(f);
                if self.pending_idx.len() == PENDING_COLUMNS {
                    self.flush(state)?;
                }
            }
        }
        Ok(())
    }

    /// Add the pending violations to the margin vector in one pass over the data.
    ///
    /// Columns not in the cache are computed together: each training row is loaded
    /// once and compared with every such pending row, so the data is read once per
    /// [`PENDING_COLUMNS`] violations instead of once per violation. Then every
    /// `g_j` gets `sum_p f_p K(x_j, x_p)` in pending order, with the same kernel
    /// values whether they came from the cache or not, so the cache never changes
    /// the result.
    fn flush(&mut self, state: &mut KernelState) -> Result<()> {
        if self.pending_idx.is_empty() {
            return Ok(());
        }
        let n = self.gram.n();
        let (cached, fresh) = self.pending_columns();
        let u = fresh.len();
        self.evals += (n * u) as u64;
        // Row-major kernel values of the fresh columns, rounded to S; the stride is
        // at least 1 so that the rows can be chunked alongside `g` even when u = 0.
        let stride = u.max(1);
        let mut block = std::mem::take(&mut self.fresh_values);
        if block.len() < n * stride {
            block
                .try_reserve_exact(n * stride - block.len())
                .map_err(|_| Error::OutOfMemory(format!("{u} kernel columns of {n} values")))?;
            block.resize(n * stride, S::from_f64(0.0));
        }
        if u > 0 {
            self.gram.set_block(&mut self.block, &fresh);
        }
        let values = &mut block[..n * stride];
        self.add_pending(&mut state.margins, &cached, values, u);
        drop(cached);
        if self.monitor.is_stopped() {
            return Err(Error::Interrupted);
        }
        if u > 0 && self.columns.can_hold(n) {
            self.keep_columns(values, stride, &fresh);
        }
        self.fresh_values = block;
        self.pending_idx.clear();
        self.pending_coef.clear();
        Ok(())
    }

    /// The pending columns found in the shared cache (`None` where not) and the
    /// examples whose columns are not, counting the hits and misses.
    fn pending_columns(&mut self) -> (CachedColumns<S>, Vec<u32>) {
        let cached: CachedColumns<S> = self
            .pending_idx
            .iter()
            .map(|&j| self.columns.get(j as usize))
            .collect();
        let hits = cached.iter().filter(|c| c.is_some()).count() as u64;
        self.hits += hits;
        self.misses += self.pending_idx.len() as u64 - hits;
        let fresh: Vec<u32> = self
            .pending_idx
            .iter()
            .zip(&cached)
            .filter(|(_, c)| c.is_none())
            .map(|(&j, _)| j)
            .collect();
        (cached, fresh)
    }

    /// `g_j += sum_p f_p K(x_j, x_p)` for every example `j`, in pending order,
    /// the kernel values of the `u` fresh columns computed from the block into
    /// `block` (row-major, `max(u, 1)` per row), the others read from `cached`.
    fn add_pending(
        &self,
        margins: &mut [f64],
        cached: &[Option<Vec<S>>],
        block: &mut [S],
        u: usize,
    ) {
        let n = self.gram.n();
        let stride = u.max(1);
        let (gram, block_ref, coef) = (self.gram, &self.block, &self.pending_coef);
        let rows = CHUNK.div_ceil(u.max(1)).max(1);
        let monitor = self.monitor;
        // Once cancelled, the remaining chunks are skipped and the fit ends with
        // `Interrupted` in `flush`: the half-updated margins are never used.
        let work = |tmp: &mut Vec<f64>, (c, (g, kb)): (usize, (&mut [f64], &mut [S]))| {
            if monitor.is_stopped() {
                return;
            }
            tmp.resize(u, 0.0);
            for (r, g) in g.iter_mut().enumerate() {
                let j = c * rows + r;
                let k = &mut kb[r * stride..r * stride + u];
                if u > 0 {
                    gram.eval_block(block_ref, j, tmp);
                    for (k, v) in k.iter_mut().zip(tmp.iter()) {
                        *k = S::from_f64(*v);
                    }
                }
                let mut next_fresh = k.iter();
                let mut sum = 0.0;
                for (f, col) in coef.iter().zip(cached) {
                    let v = match col {
                        Some(col) => col[j],
                        None => *next_fresh.next().unwrap_or(&S::from_f64(0.0)),
                    };
                    sum += f * v.to_f64();
                }
                *g += sum;
            }
        };
        if self.solver.parallel && n * (u + 1) >= PARALLEL_MIN {
            margins
                .par_chunks_mut(rows)
                .zip(block.par_chunks_mut(rows * stride))
                .enumerate()
                .for_each_init(Vec::new, work);
        } else {
            let mut tmp = Vec::new();
            for item in margins
                .chunks_mut(rows)
                .zip(block.chunks_mut(rows * stride))
                .enumerate()
            {
                work(&mut tmp, item);
            }
        }
    }

    /// Store the fresh columns of `block` (row-major, `stride` per row) in the
    /// shared cache: transposed row by row (sequential reads, one sequential
    /// write per column).
    fn keep_columns(&self, block: &[S], stride: usize, fresh: &[u32]) {
        let n = self.gram.n();
        let mut cols: Vec<Vec<S>> = (0..fresh.len()).map(|_| Vec::with_capacity(n)).collect();
        for row in block.chunks_exact(stride) {
            for (col, &v) in cols.iter_mut().zip(row) {
                col.push(v);
            }
        }
        for (col, &i) in cols.into_iter().zip(fresh) {
            self.columns.put(i as usize, col);
        }
    }

    /// One step on `batch`; `violators` is scratch space: the examples whose loss
    /// has a slope, with their `g_i`.
    fn step(
        &mut self,
        state: &mut KernelState,
        batch: &[usize],
        violators: &mut Violators,
    ) -> Result<()> {
        let t = state.t + 1;
        let scale = if t == 1 {
            0.0
        } else {
            1.0 / (self.params.alpha * (t - 1) as f64)
        };
        violators.clear();
        for &i in batch {
            if self.task.weight(i) == 0.0 {
                continue;
            }
            let f = if t == 1 {
                0.0
            } else {
                scale * self.raw_margin(state, i)?
            };
            let g = self.params.loss.step_weight(f + state.bias, self.task.y(i));
            if g != 0.0 {
                violators.push((i, g));
            }
        }
        let k = self.params.batch_size as f64;
        let mut bias_step = 0.0;
        for &(i, g) in violators.iter() {
            let c = self.task.weight(i);
            // For the hinge g = y = +-1: the increment (c / k) y of the paper's
            // count, bit for bit.
            self.add(state, i, c / k * g)?;
            bias_step += c * g;
        }
        if self.learn_bias {
            state.bias += bias_step / (self.params.alpha * t as f64 * k);
            if self.params.one_class {
                // The one-class SVM's drift -eta_t nu (crate::solvers::linear::binary).
                state.bias -= 1.0 / t as f64;
            }
        }
        state.t = t;
        state.avg.after_step(t, state.coef.len(), state.bias);
        Ok(())
    }

    /// The one-class SVM after a pass: the bias set to `1 - rho`, `rho` the weighted
    /// `nu`-quantile of the iterate's scores `<w_{t+1}, phi(x_i)>` on at most
    /// [`RESET_ROWS`](crate::solvers::shared::one_class::RESET_ROWS) rows (a fixed stride; see [`crate::solvers::shared::one_class`]). The
    /// scores are the steps' own: the margin vector, or kernel rows against the
    /// support set (cached as a step's are).
    fn reset_one_class_bias(&mut self, state: &mut KernelState) -> Result<()> {
        if state.t == 0 {
            return Ok(());
        }
        let scale = 1.0 / (self.params.alpha * state.t as f64);
        let n = self.gram.n();
        let rho = strided_rho(n, reset_stride(n), self.params.alpha, |i| {
            let c = self.task.weight(i);
            if c > 0.0 {
                return Ok(Some((scale * self.raw_margin(state, i)?, c)));
            }
            Ok(None)
        })?;
        if let Some(rho) = rho {
            state.bias = 1.0 - rho;
        }
        Ok(())
    }

    /// Primal objective of the current (last) iterate from the margin vector.
    fn objective(&self, state: &KernelState) -> Option<f64> {
        if state.strategy != Strategy::Margins || state.t == 0 {
            return None;
        }
        let scale = 1.0 / (self.params.alpha * state.t as f64);
        let n = self.gram.n();
        // ||w||^2 = scale^2 sum_j a_j g_j (g_j here the raw margin of example j).
        let sq: f64 = state
            .support
            .iter()
            .zip(&state.coef)
            .map(|(&j, c)| c * state.margins[j as usize])
            .sum::<f64>()
            * scale
            * scale;
        let loss: f64 = (0..n)
            .map(|i| {
                let f = scale * state.margins[i] + state.bias;
                self.task.weight(i) * self.params.loss.value(f, self.task.y(i))
            })
            .sum();
        // The one-class SVM's `- nu rho` with `rho = 1 - b`.
        let offset = if self.params.one_class {
            self.params.alpha * (state.bias - 1.0)
        } else {
            0.0
        };
        Some(0.5 * self.params.alpha * sq + loss / n as f64 + offset)
    }
}

/// Fit one binary problem for `params.max_iter` passes (`ceil(n / k)` steps each),
/// continuing `state`, with a kernel column cache of `solver.cache_bytes` of its
/// own. Checks `monitor` between steps ([`Error::Interrupted`]).
///
/// With `held_out`, the model is scored on those rows after every pass and the
/// stopping rule reads that score (early stopping).
#[allow(clippy::too_many_arguments)] // a fit's inputs and the held-out rows
pub fn fit_kernel_binary<G: Gram, S: Float>(
    gram: &G,
    task: &BinaryTask<'_>,
    held_out: Option<&dyn HeldOutScore>,
    params: &ValidParams,
    solver: KernelSolver,
    state: &mut KernelState,
    monitor: &Monitor,
    label: &str,
) -> Result<KernelFitOutput> {
    let columns = SharedColumns::new(gram.n(), solver.cache_bytes);
    let problem = KernelProblem::new(gram, task, params, held_out);
    fit_kernel_binary_shared::<G, S>(problem, solver, &columns, state, monitor, label)
}

/// [`fit_kernel_binary`] with a kernel column cache shared with other problems on
/// the same Gram matrix (one-vs-rest).
pub fn fit_kernel_binary_shared<G: Gram, S: Float>(
    problem: KernelProblem<'_, G>,
    solver: KernelSolver,
    columns: &SharedColumns<S>,
    state: &mut KernelState,
    monitor: &Monitor,
    label: &str,
) -> Result<KernelFitOutput> {
    let KernelProblem {
        gram, task, params, ..
    } = problem;
    check_kernel_params(params)?;
    check_tol(params, problem.held_out.is_some())?;
    check_shapes(gram.n(), task, state)?;
    check_loss_fits_task(&params.loss, task)?;
    task.check_targets()?;
    let per_pass = gram.n().div_ceil(params.batch_size) as u64;
    start_run(problem, solver.strategy, per_pass, state)?;
    let k = params.batch_size;
    let mut run = KernelRun {
        run: Run::new(problem, solver, columns, monitor)?,
        state,
        batch: index_buffer(k)?,
        violators: index_buffer(k)?,
        held_out: problem.held_out,
    };
    let mut plan = PassPlan::new(per_pass, params.max_iter);
    drive(&mut plan, &mut run, params, monitor, label)?;
    let Run {
        hits,
        misses,
        evals,
        ..
    } = run.run;
    Ok(KernelFitOutput {
        n_iter: plan.passes(),
        objective: plan.objective(),
        cache_hits: hits,
        cache_misses: misses,
        kernel_evals: evals,
        converged: problem.held_out.and(plan.converged(params)),
        validation_scores: plan.validation_scores().to_vec(),
    })
}

/// A binary kernel fit as the pass driver runs it: the solver's context, its
/// state and scratch space for the drawn batch and its violators.
struct KernelRun<'a, 's, G: Gram, S: Float> {
    run: Run<'a, G, S>,
    state: &'s mut KernelState,
    batch: Vec<usize>,
    violators: Violators,
    held_out: Option<&'a dyn HeldOutScore>,
}

impl<G: Gram, S: Float> PassSubject for KernelRun<'_, '_, G, S> {
    fn average_if_unstarted(&mut self) -> bool {
        self.state.avg.start_if_unstarted(self.state.t)
    }

    fn describe(&self) -> String {
        let Run {
            hits,
            misses,
            evals,
            ..
        } = self.run;
        format!(
            "{} support vectors, t {}, {evals} kernel values, cache {hits} hits / {misses} misses",
            self.state.support.len(),
            self.state.t,
        )
    }
}

impl<G: Gram, S: Float> PassRunner for KernelRun<'_, '_, G, S> {
    fn run_pass(&mut self, steps: u64) -> Result<()> {
        self.run
            .pass(self.state, steps, &mut self.batch, &mut self.violators)?;
        if self.run.params.one_class && self.run.learn_bias {
            self.run.reset_one_class_bias(self.state)?;
        }
        Ok(())
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        Ok(self.run.objective(self.state))
    }

    fn held_out_score(&mut self) -> Result<Option<f64>> {
        let Some(held_out) = self.held_out else {
            return Ok(None);
        };
        held_out
            .score(&self.state.model(self.run.params.alpha))
            .map(Some)
    }
}

/// An error unless there are examples and as many labels and dual coefficients.
fn check_shapes(n: usize, task: &BinaryTask<'_>, state: &KernelState) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    if task.len() != n || state.position.len() != n {
        return Err(Error::ShapeMismatch(format!(
            "{n} examples, {} labels, a solver state for {}",
            task.len(),
            state.position.len()
        )));
    }
    Ok(())
}

/// The step a fresh run of `params.loss` starts at on the examples of `gram` and
/// `task` (see the module documentation): 1 for the losses of bounded slope;
/// for the squared losses `t0 = ceil(kappa max_i c_i (K(x_i, x_i) + e) / lambda)`,
/// `e` = 1 with the unregularised bias and 0 without. `n` kernel values (none for
/// the other losses).
pub fn first_step<G: Gram>(gram: &G, task: &BinaryTask<'_>, params: &ValidParams) -> Result<u64> {
    let Some(kappa) = params.loss.curvature() else {
        return Ok(1);
    };
    let extra = if params.intercept == Intercept::Unregularized {
        1.0
    } else {
        0.0
    };
    let mut query = gram.query();
    let mut value = [0.0];
    let mut largest = 0.0_f64;
    for i in 0..gram.n() {
        let c = task.weight(i);
        if c == 0.0 {
            continue;
        }
        gram.load(&mut query, i)?;
        gram.eval_into(&query, i, Targets::List(&[i as u32]), &mut value);
        // `max` skips NaN; a kernel that is not positive definite (sigmoid) may
        // give K(x, x) < 0, which bounds nothing.
        largest = largest.max(c * (value[0] + extra));
    }
    Ok(first_step_of(kappa * largest / params.alpha))
}

/// Prepare `state` for a fit of `per_pass` steps per pass: a fresh run started at
/// its [`first_step`], the margin strategy chosen on a fresh run (with its margin
/// vector), the averaging window set.
fn start_run<G: Gram>(
    problem: KernelProblem<'_, G>,
    strategy: Strategy,
    per_pass: u64,
    state: &mut KernelState,
) -> Result<()> {
    let KernelProblem {
        gram, task, params, ..
    } = problem;
    let n = gram.n();
    if state.t == 0 {
        state.t = first_step(gram, task, params)? - 1;
    }
    if state.strategy == Strategy::Auto {
        let auto;
        (state.strategy, auto) = strategy.start(n, params.max_iter);
        // Regression stays on the support set: the tube's violations do not thin
        // out as a classifier's margin violations do (most examples stay outside
        // it), so a kernel column per violation never pays off. Measured at 8
        // passes, one thread (cpusmall, abalone, friedman1 12,000 rows): the margin
        // vector 1.1 to 1.4 times slower.
        if auto && params.loss.is_margin_loss() {
            // A fresh state: the pilot counts from its first step (its half is
            // halfway to `decide_at`).
            state.pilot_from = state.t;
            state.decide_at = state.t + pilot_steps(per_pass);
        }
        if state.strategy == Strategy::Margins {
            state.margins = try_filled_vec(n, 0.0, "the margin vector")?;
            if !state.support.is_empty() {
                return Err(Error::InvalidState(
                    "a margin vector cannot be added to a started run".into(),
                ));
            }
        }
    }
    state.avg = KernelAverage::off();
    if params.averaging == Averaging::Suffix {
        state.avg.start = state.t + per_pass * params.max_iter as u64 / 2 + 1;
    }
    Ok(())
}

/// The examples of a step whose loss has a slope, with their `g_i`.
type Violators = Vec<(usize, f64)>;

/// An empty buffer for `k` example indices (or violators).
fn index_buffer<T>(k: usize) -> Result<Vec<T>> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(k)
        .map_err(|_| Error::OutOfMemory(format!("batch_size {k} needs a buffer of {k} indices")))?;
    Ok(buf)
}

impl<'a, G: Gram, S: Float> Run<'a, G, S> {
    /// The context of a fit of `problem` with `solver`'s settings.
    fn new(
        problem: KernelProblem<'a, G>,
        solver: KernelSolver,
        columns: &'a SharedColumns<S>,
        monitor: &'a Monitor,
    ) -> Result<Self> {
        let KernelProblem {
            gram, task, params, ..
        } = problem;
        let n = gram.n();
        Ok(Run {
            gram,
            task,
            params,
            solver,
            draws: Draws::new(&params.sampling, task)?,
            cache: KernelCache::new(n, solver.cache_bytes),
            columns,
            query: gram.query(),
            learn_bias: params.intercept == Intercept::Unregularized,
            evals: 0,
            hits: 0,
            misses: 0,
            pending_idx: Vec::with_capacity(PENDING_COLUMNS),
            pending_coef: Vec::with_capacity(PENDING_COLUMNS),
            pending_values: vec![0.0; PENDING_COLUMNS],
            fresh_values: Vec::new(),
            block: gram.block(),
            monitor,
        })
    }

    /// At the pilot's end (step `state.decide_at`) of a fit [`Strategy::Auto`]
    /// started on the support set: switch to the margin vector when
    /// [`margins_pay_off`] projects the whole fit cheaper that way.
    fn choose_strategy(&mut self, state: &mut KernelState) -> Result<()> {
        state.decide_at = 0;
        let k = self.params.batch_size as u64;
        let pilot = PilotCounts {
            n: self.gram.n(),
            draws_per_pass: self.gram.n().div_ceil(self.params.batch_size) as u64 * k,
            passes: self.params.max_iter as u64,
            row_nonzeros: self.gram.mean_row_nonzeros(),
            value_bytes: std::mem::size_of::<S>(),
            drawn: (state.t - state.pilot_from) * k,
            support: state.support.len(),
            support_half: state.pilot_half_support,
        };
        if margins_pay_off(&pilot) {
            self.start_margins(state)?;
        }
        Ok(())
    }

    /// Switch from the support set to the margin vector: `g = sum_s coef_s K(., x_s)`
    /// over the support set, added in support order, [`PENDING_COLUMNS`] columns per
    /// pass over the data.
    fn start_margins(&mut self, state: &mut KernelState) -> Result<()> {
        let n = self.gram.n();
        state.margins = try_filled_vec(n, 0.0, "the margin vector")?;
        state.strategy = Strategy::Margins;
        state.switched_at = Some(state.t);
        self.cache = KernelCache::new(n, 0);
        for (idx, coef) in state
            .support
            .clone()
            .chunks(PENDING_COLUMNS)
            .zip(state.coef.clone().chunks(PENDING_COLUMNS))
        {
            self.pending_idx.extend_from_slice(idx);
            self.pending_coef.extend_from_slice(coef);
            self.flush(state)?;
        }
        Ok(())
    }

    /// One pass of `per_pass` steps, the pending violations flushed at its end;
    /// `batch` and `violators` are scratch space.
    fn pass(
        &mut self,
        state: &mut KernelState,
        per_pass: u64,
        batch: &mut Vec<usize>,
        violators: &mut Violators,
    ) -> Result<()> {
        let monitor = self.monitor;
        for step in 0..per_pass {
            if monitor.is_stopped() {
                return Err(Error::Interrupted);
            }
            if step % PROGRESS_STEPS == 0 {
                monitor.advance(PROGRESS_STEPS.min(per_pass - step));
            }
            batch.clear();
            for _ in 0..self.params.batch_size {
                batch.push(self.draws.draw(&mut state.sampler));
            }
            self.step(state, batch, violators)?;
            if self.params.one_class && self.learn_bias && state.t.is_power_of_two() {
                self.reset_one_class_bias(state)?;
            }
            if state.decide_at > 0
                && 2 * (state.t - state.pilot_from) == state.decide_at - state.pilot_from
            {
                state.pilot_half_support = state.support.len();
            }
            if state.t == state.decide_at {
                self.choose_strategy(state)?;
            }
        }
        self.flush(state)
    }
}

#[cfg(test)]
#[path = "solver_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "loss_tests.rs"]
mod loss_tests;
