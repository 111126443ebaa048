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

use std::time::Instant;

use crate::error::Result;
use crate::monitor::Monitor;
use crate::solvers::params::{Averaging, ValidParams};

/// What the driver needs from a solver's state between passes.
pub trait PassSubject {
    /// Start averaging the iterates at the next step unless averaging has begun;
    /// whether it was started (suffix averaging cut short by `tol`).
    fn average_if_unstarted(&mut self) -> bool;

    /// The solver's part of a verbose pass line (after the objective).
    fn describe(&self) -> String;
}

/// A solver the driver runs one pass at a time.
pub trait PassRunner: PassSubject {
    /// Run `steps` steps (checking the monitor for cancellation) and end the pass.
    fn run_pass(&mut self, steps: u64) -> Result<()>;

    /// The primal objective of the model the fit would return now, when the solver
    /// computes one after this pass (see [`PassPlan::wants_objective`]).
    fn objective(&mut self) -> Result<Option<f64>>;
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

    /// With `tol`: whether its rule was met (`false`: the passes ran out first).
    pub fn converged(&self, params: &ValidParams) -> Option<bool> {
        params.tol.map(|_| self.converged)
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
        if let Some(obj) = objective {
            self.objective = Some(obj);
            monitor.set_objective(obj);
        }
        if params.verbose {
            let obj = objective.map_or(String::new(), |o| format!("objective {o:.6e}, "));
            monitor.say(|| {
                format!(
                    "{label}pass {}/{}: {obj}{}, {:.2}s",
                    self.pass,
                    self.last_pass,
                    subject.describe(),
                    self.started.elapsed().as_secs_f64()
                )
            });
        }
        if let (Some(tol), Some(obj)) = (params.tol, objective) {
            self.apply_tol(tol, obj, params, subject, monitor, label);
        }
    }

    /// The stopping rule of `tol` after a pass that ended at objective `obj`.
    fn apply_tol<S: PassSubject>(
        &mut self,
        tol: f64,
        obj: f64,
        params: &ValidParams,
        subject: &mut S,
        monitor: &Monitor,
        label: &str,
    ) {
        if self.finishing_average {
            return; // converged; the suffix average runs to `last_pass`
        }
        if obj > self.best - tol * self.best.abs() {
            self.no_improvement += 1;
        } else {
            self.no_improvement = 0;
        }
        self.best = self.best.min(obj);
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
                        "{label}converged at pass {} (tol): the average of the iterates \
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
                monitor.say(|| format!("{label}converged at pass {} (tol)", self.pass));
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
        let objective = runner.objective()?;
        plan.end_pass(params, runner, objective, monitor, label);
    }
    Ok(())
}
