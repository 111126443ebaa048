//! The pass driver shared by the linear and the kernel solver: passes of a fixed
//! number of steps, the objective after each, the verbose line, cancellation and
//! the stopping rule of `tol`.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011) runs
//! `T` steps; the paper analyses a fixed `T`. Grouping the steps into passes of
//! `ceil(m / k)` steps (one expected visit of each example) gives the points at
//! which the primal objective is evaluated, progress is reported and `tol`'s rule
//! (scikit-learn's `SGDClassifier` rule: stop after `n_iter_no_change` passes
//! without an improvement of the objective by `tol` relative to the best so far)
//! is applied. What happens within a pass is the solver's: see [`PassRunner`].
//!
//! Without `tol` a fit runs all its passes and nothing says whether they were
//! enough. The driver therefore measures, at the end of the last two passes of a fit
//! of two passes or more, the primal objective of the model the fit would return
//! then, on a probe of at most [`PROBE_ROWS`] rows (every `stride`-th row,
//! [`probe_stride`]), and
//! reports how much the last pass still lowered it ([`PassPlan::settling`]): the
//! same rows under two models, so the comparison is paired and the probe's cost is
//! bounded whatever the number of rows. It also compares the returned model's
//! objective with that of `w = 0` on the same rows ([`PassPlan::worse_than_zero`]):
//! a fit that ends above it has diverged, however settled it looks.
//!
//! # Early stopping
//! A solver given held-out rows ([`PassRunner::held_out_score`]) scores the model
//! it would return on them after every pass (accuracy, or R^2 for real targets;
//! see [`crate::solvers::shared::held_out`]), and the stopping rule reads that score
//! instead of the objective, as scikit-learn's `SGDClassifier(early_stopping=True)`
//! does: stop after `n_iter_no_change` passes whose score did not exceed the best
//! so far by `tol` (absolute; [`SCORE_TOL`] when `tol` is not set). The objective
//! is then computed only for the verbose lines.

use std::time::Instant;

use crate::error::Result;
use crate::monitor::Monitor;
use crate::solvers::shared::params::{Averaging, ValidParams};

/// What the driver needs from a solver's state between passes.
pub trait PassSubject {
    /// Start averaging the iterates at the next step unless averaging has begun;
    /// whether it was started (suffix averaging cut short by `tol`).
    fn average_if_unstarted(&mut self) -> bool;

    /// The solver's part of a verbose pass line (after the objective).
    fn describe(&self) -> String;
}

/// A run whose [`PassSubject`] is its solver state's: the driver starts the state's
/// average and shows the state's line.
pub trait RunsOnState {
    /// The state the run steps on.
    type State: PassSubject;
    /// The state, to change.
    fn state_mut(&mut self) -> &mut Self::State;
    /// The state, to read.
    fn state(&self) -> &Self::State;
}

impl<T: RunsOnState> PassSubject for T {
    fn average_if_unstarted(&mut self) -> bool {
        self.state_mut().average_if_unstarted()
    }

    fn describe(&self) -> String {
        self.state().describe()
    }
}

/// [`RunsOnState`] for a run `$run<'_, '_, R>` (over rows `R: Rows`) whose field
/// `state` is a `&mut $state`.
macro_rules! runs_on_state {
    ($run:ident, $state:ty) => {
        impl<R: $crate::data::rows::Rows> $crate::solvers::shared::passes::RunsOnState
            for $run<'_, '_, R>
        {
            type State = $state;

            fn state_mut(&mut self) -> &mut $state {
                self.state
            }

            fn state(&self) -> &$state {
                self.state
            }
        }
    };
}
pub(crate) use runs_on_state;

/// A solver the driver runs one pass at a time.
pub trait PassRunner: PassSubject {
    /// Run `steps` steps (checking the monitor for cancellation) and end the pass.
    fn run_pass(&mut self, steps: u64) -> Result<()>;

    /// The primal objective of the model the fit would return now, when the solver
    /// computes one after this pass (see [`PassPlan::wants_objective`]).
    fn objective(&mut self) -> Result<Option<f64>>;

    /// The primal objective of the model the fit would return now, and of `w = 0`,
    /// on the probe's rows (every [`probe_stride`]-th row; rows that fail their
    /// check left out), or `None` for a solver that has no probe.
    fn probe(&mut self) -> Result<Option<Probe>> {
        Ok(None)
    }

    /// The held-out score of the model the fit would return now (higher is
    /// better), or `None` for a fit without held-out rows: when some, the
    /// stopping rule reads it (see the module documentation).
    fn held_out_score(&mut self) -> Result<Option<f64>> {
        Ok(None)
    }
}

/// The improvement of the held-out score that counts when `tol` is not set (as
/// scikit-learn's default `tol`).
pub const SCORE_TOL: f64 = 1e-3;

/// What the probe measured at the end of a pass, on the same rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The primal objective of the model the fit would return.
    pub objective: f64,
    /// The primal objective of `w = 0` (no intercept): the loss at zero.
    pub at_zero: f64,
}

/// The most rows the probe of the last passes reads (see the module
/// documentation).
pub const PROBE_ROWS: usize = 4096;

/// The fewest rows the probe reads of a set that has them, when it reads less than
/// all ([`probe_stride`]).
pub const PROBE_MIN_ROWS: usize = 256;

/// The probe reads rows `0, stride, 2 stride, ...` of `n_rows`: at most
/// [`PROBE_ROWS`] of them and at most one in 16, so that two probes cost at most
/// an eighth of a pass of predictions whatever the rows (a fit of many one-vs-rest
/// problems probes each), but at least [`PROBE_MIN_ROWS`] of a set that has them.
pub fn probe_stride(n_rows: usize) -> usize {
    let sixteenth = n_rows.div_ceil(PROBE_MIN_ROWS).min(16);
    n_rows.div_ceil(PROBE_ROWS).max(sixteenth).max(1)
}

/// The pass structure of one binary fit: how many steps each pass runs, where the
/// run stops, and the stopping rule of `tol`. Shared by the in-memory solvers (via
/// [`drive`]) and by callers that supply the drawn examples themselves.
///
/// If `tol` would stop a run with suffix averaging at pass `p` before averaging has
/// begun, averaging begins there and the run goes on for up to `p` more passes
/// (within the planned passes), so the model returned is still the average of the
/// last half of the passes run.
#[derive(Clone, Debug)]
pub struct PassPlan {
    per_pass: u64,
    max_passes: usize,
    last_pass: usize,
    pass: usize,
    best: f64,
    no_improvement: usize,
    finishing_average: bool,
    converged: bool,
    objective: Option<f64>,
    /// The probe's measures at the end of the last two passes (oldest first).
    probes: [Option<Probe>; 2],
    /// The held-out score after each pass (early stopping; empty otherwise).
    scores: Vec<f64>,
    started: Instant,
}

impl PassPlan {
    /// A plan of up to `max_passes` passes of `per_pass` steps each.
    pub fn new(per_pass: u64, max_passes: usize) -> Self {
        Self {
            per_pass,
            max_passes,
            last_pass: max_passes,
            pass: 0,
            best: f64::INFINITY,
            no_improvement: 0,
            finishing_average: false,
            converged: false,
            objective: None,
            probes: [None, None],
            scores: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Begin the next pass: its number of steps, or `None` when the fit is over.
    pub fn next_pass(&mut self) -> Option<u64> {
        if self.pass >= self.last_pass {
            return None;
        }
        self.pass += 1;
        Some(self.per_pass)
    }

    /// Whether [`PassPlan::end_pass`] needs the objective (`tol` or `verbose`).
    pub fn wants_objective(params: &ValidParams) -> bool {
        params.tol.is_some() || params.verbose
    }

    /// Passes begun so far.
    pub fn passes(&self) -> usize {
        self.pass
    }

    /// The most steps this call can run (every pass run).
    pub fn planned_steps(&self) -> u64 {
        self.per_pass * self.max_passes as u64
    }

    /// The objective given to the last [`PassPlan::end_pass`] that had one.
    pub fn objective(&self) -> Option<f64> {
        self.objective
    }

    /// With `tol`, or held-out rows: whether the stopping rule was met (`false`:
    /// the passes ran out first).
    pub fn converged(&self, params: &ValidParams) -> Option<bool> {
        if !self.scores.is_empty() {
            return Some(self.converged);
        }
        params.tol.map(|_| self.converged)
    }

    /// The held-out score after each pass of this call (empty without held-out
    /// rows).
    pub fn validation_scores(&self) -> &[f64] {
        &self.scores
    }

    /// Whether the pass under way is one of the last two of a fit of two passes or
    /// more without `tol`, whose objective the probe measures.
    pub fn probing(&self, params: &ValidParams) -> bool {
        params.tol.is_none() && self.max_passes >= 2 && self.pass + 1 >= self.max_passes
    }

    /// Record the probe's measure at the end of the current pass.
    pub fn record_probe(&mut self, probe: Option<Probe>) {
        self.probes = [self.probes[1], probe];
    }

    /// Whether the last probe found the returned model's objective above that of
    /// `w = 0` (a fit that diverged); `None` when it was not measured.
    pub fn worse_than_zero(&self) -> Option<bool> {
        self.probes[1].map(|p| p.objective > p.at_zero)
    }

    /// How much the last pass lowered the probe's objective, relative to it:
    /// `(F_before - F_after) / |F_after|` (negative when it rose); `None` unless both
    /// were measured (`tol` set, a fit of one pass, a solver without a probe).
    pub fn settling(&self) -> Option<f64> {
        let [Some(before), Some(after)] = self.probes else {
            return None;
        };
        let (before, after) = (before.objective, after.objective);
        Some(if after.abs() > 0.0 {
            (before - after) / after.abs()
        } else if before > after {
            f64::INFINITY
        } else {
            0.0
        })
    }

    /// End the current pass with the primal objective of the model it returns
    /// (`None` when not computed): report it on `monitor` (the verbose line, when
    /// `params.verbose`) and apply the stopping rule of `tol`. `label` prefixes the
    /// verbose lines.
    pub fn end_pass<S: PassSubject>(
        &mut self,
        params: &ValidParams,
        subject: &mut S,
        objective: Option<f64>,
        monitor: &Monitor,
        label: &str,
    ) {
        self.end_scored_pass(params, subject, (objective, None), monitor, label);
    }

    /// [`PassPlan::end_pass`] with the held-out score of the returned model
    /// (`None`: no held-out rows), which the stopping rule then reads instead of
    /// the objective (see the module documentation).
    pub fn end_scored_pass<S: PassSubject>(
        &mut self,
        params: &ValidParams,
        subject: &mut S,
        (objective, score): (Option<f64>, Option<f64>),
        monitor: &Monitor,
        label: &str,
    ) {
        if let Some(obj) = objective {
            self.objective = Some(obj);
            monitor.set_objective(obj);
        }
        if params.verbose {
            let obj = objective.map_or(String::new(), |o| format!("objective {o:.6e}, "));
            let held = score.map_or(String::new(), |s| format!("validation score {s:.6}, "));
            monitor.say(|| {
                format!(
                    "{label}pass {}/{}: {obj}{held}{}, {:.2}s",
                    self.pass,
                    self.last_pass,
                    subject.describe(),
                    self.started.elapsed().as_secs_f64()
                )
            });
        }
        if let Some(score) = score {
            self.scores.push(score);
            // The score is maximised: its negation is the value the rule lowers,
            // by an absolute `tol`.
            let needed = params.tol.unwrap_or(SCORE_TOL);
            let stalled = -score > self.best - needed;
            let why = "validation score";
            self.apply_rule((stalled, -score, why), params, subject, monitor, label);
        } else if let (Some(tol), Some(obj)) = (params.tol, objective) {
            let stalled = obj > self.best - tol * self.best.abs();
            self.apply_rule((stalled, obj, "tol"), params, subject, monitor, label);
        }
    }

    /// The stopping rule after a pass that ended at `value` (the objective, or
    /// the negated held-out score), `stalled` when it did not improve on the best
    /// so far by the rule's tolerance; `why` names the rule in the verbose lines.
    fn apply_rule<S: PassSubject>(
        &mut self,
        (stalled, value, why): (bool, f64, &str),
        params: &ValidParams,
        subject: &mut S,
        monitor: &Monitor,
        label: &str,
    ) {
        if self.finishing_average {
            return; // converged; the suffix average runs to `last_pass`
        }
        if stalled {
            self.no_improvement += 1;
        } else {
            self.no_improvement = 0;
        }
        self.best = self.best.min(value);
        if self.no_improvement < params.n_iter_no_change {
            return;
        }
        self.converged = true;
        if params.averaging == Averaging::Suffix && subject.average_if_unstarted() {
            self.last_pass = (2 * self.pass).min(self.max_passes);
            self.finishing_average = true;
            if params.verbose && self.last_pass > self.pass {
                monitor.say(|| {
                    format!(
                        "{label}converged at pass {} ({why}): the average of the iterates \
                         begins now, so {} more passes run (to pass {})",
                        self.pass,
                        self.last_pass - self.pass,
                        self.last_pass
                    )
                });
            }
        } else {
            self.last_pass = self.pass;
            if params.verbose {
                monitor.say(|| format!("{label}converged at pass {} ({why})", self.pass));
            }
        }
    }
}

/// Run `runner` through `plan`: each pass's steps, then its objective, report and
/// stopping rule. The monitor's total grows by the planned steps.
pub fn drive<P: PassRunner>(
    plan: &mut PassPlan,
    runner: &mut P,
    params: &ValidParams,
    monitor: &Monitor,
    label: &str,
) -> Result<()> {
    monitor.add_total(plan.planned_steps());
    while let Some(steps) = plan.next_pass() {
        runner.run_pass(steps)?;
        let score = runner.held_out_score()?;
        // With a held-out score the rule does not read the objective: only a
        // verbose line does.
        let objective = if score.is_none() || params.verbose {
            runner.objective()?
        } else {
            None
        };
        if plan.probing(params) {
            let probe = runner.probe()?;
            plan.record_probe(probe);
        }
        plan.end_scored_pass(params, runner, (objective, score), monitor, label);
    }
    Ok(())
}

/// The prefix of problem `p`'s progress lines (empty unless `show`).
pub fn problem_label(show: bool, p: usize) -> String {
    if show {
        format!("[class {p}] ")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::shared::params::Params;

    /// Without `tol`, the last two passes of a fit of two or more are probed, and
    /// `settling` is the last pass's relative decrease; with `tol`, or one pass,
    /// nothing is probed.
    #[test]
    fn the_last_two_passes_are_probed_without_tol() {
        let free = Params::default().validate().unwrap();
        let mut plan = PassPlan::new(10, 4);
        let mut probed = Vec::new();
        let at = |objective| {
            Some(Probe {
                objective,
                at_zero: 9.0,
            })
        };
        while plan.next_pass().is_some() {
            probed.push(plan.probing(&free));
            if plan.probing(&free) {
                plan.record_probe(at(if plan.passes() == 3 { 10.0 } else { 8.0 }));
            }
        }
        assert_eq!(probed, [false, false, true, true]);
        assert_eq!(plan.settling(), Some(0.25));
        assert_eq!(plan.worse_than_zero(), Some(false));
        let with_tol = Params {
            tol: Some(1e-3),
            ..Params::default()
        }
        .validate()
        .unwrap();
        let mut plan = PassPlan::new(10, 4);
        while plan.next_pass().is_some() {
            assert!(!plan.probing(&with_tol));
        }
        assert_eq!(plan.settling(), None);
        let mut one = PassPlan::new(10, 1);
        assert!(one.next_pass().is_some() && !one.probing(&free));
        // A rise is a negative settling; an unmeasured pass gives none.
        let mut plan = PassPlan::new(10, 2);
        plan.record_probe(at(1.0));
        plan.record_probe(at(12.0));
        assert_eq!(plan.settling(), Some(-11.0 / 12.0));
        assert_eq!(plan.worse_than_zero(), Some(true));
        plan.record_probe(None);
        assert_eq!((plan.settling(), plan.worse_than_zero()), (None, None));
    }

    /// The probe reads all of a small set, at least 256 rows of a larger one, at
    /// most one in 16 and at most 4096.
    #[test]
    fn the_probe_reads_few_rows_of_large_sets() {
        let rows = |n: usize| n.div_ceil(probe_stride(n));
        assert_eq!(rows(0), 0);
        assert_eq!(rows(200), 200);
        assert_eq!(rows(569), 190);
        assert_eq!(rows(6412), 401);
        assert_eq!(rows(100_000), 4000);
        assert!(rows(10_000_000) <= PROBE_ROWS);
    }
}
