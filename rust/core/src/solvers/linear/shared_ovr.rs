//! One-vs-rest with shared draws: one drawn row serves every class's step.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated
//! sub-GrAdient SOlver for SVM", Math. Programming 2011) is run on the `K` binary
//! problems of one-vs-rest (class `c` against the rest, weights as in
//! [`crate::data::labels::Labels::task`]), each minimising its own objective
//! `lambda/2 ||w_c||^2 + 1/m sum_i c_ic max(0, 1 - y_ic (<w_c, x_i> + b_c))`, with the
//! update rule of [`crate::solvers::linear::binary`] (see [`crate::solvers::linear::shared_block`]).
//! What differs from [`crate::solvers::linear::one_vs_rest::fit_one_vs_rest`] is only the
//! draws: all problems take their step `t` on the same batch `A_t`, drawn from
//! stream 0 of the seed (the stream class 0 draws from in independent one-vs-rest).
//! So each row is fetched once for all `K` classes, and the weights are kept
//! feature-major (`K` contiguous weights per feature): the margins of all classes
//! are `nnz x K` contiguous multiply-adds, the update one more sweep of the row.
//!
//! Given the same draws, class `c`'s model is bit for bit that of
//! [`crate::solvers::linear::binary::fit_binary`] on task `c` with a state on stream 0. The
//! classes are split into contiguous blocks run in parallel, each block drawing the
//! same rows from its own copy of the generator, so the models do not depend on
//! the number of threads.
//!
//! The passes, averaging, cancellation and verbose lines are those of
//! [`crate::solvers::shared::passes::drive`], run once for all classes; the objective it
//! sees (for `tol`) is the sum of the classes' objectives.

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::linear::binary::{
    check_drawn, check_every_row, first_step, loss_sum, mean_zero_loss, objective_from_loss,
    plan_linear_fit, probe_binary, regularised_bias_sq, run_in_blocks, start_at, FitOutput,
    LinearState, StepRule,
};
use crate::solvers::linear::one_vs_rest::check_one_vs_rest;
use crate::solvers::linear::shared_block::{Block, Scratch};
use crate::solvers::shared::params::{Intercept, Sampling, ValidParams};
use crate::solvers::shared::passes::{
    drive, probe_stride, PassPlan, PassRunner, PassSubject, Probe,
};
use crate::solvers::shared::sampler::Draws;

/// Fresh states for a shared-draw fit: every problem on stream 0 of `seed`.
pub fn shared_initial_states(
    n_problems: usize,
    n_features: usize,
    seed: u64,
) -> Result<Vec<LinearState>> {
    (0..n_problems)
        .map(|_| LinearState::new(n_features, seed, 0))
        .collect()
}

/// What every block reads and nothing changes during a fit.
struct Shared<'a, R> {
    rows: &'a R,
    tasks: Vec<BinaryTask<'a>>,
    rule: StepRule,
    sq_radius: Vec<f64>,
    draws: Draws<'a>,
}

/// A shared-draw fit as the pass driver runs it.
struct SharedRun<'a, 's, R> {
    shared: Shared<'a, R>,
    params: &'a ValidParams,
    blocks: Vec<Block>,
    coef: &'s mut [f64],
    intercepts: Vec<f64>,
    objectives: Vec<Option<f64>>,
    n_threads: usize,
    monitor: &'a Monitor,
    all_checked: bool,
}

/// Train every binary problem of `labels` with shared draws, continuing `states`
/// (one per problem, from [`shared_initial_states`] or a previous shared-draw
/// fit; empty: every problem starts fresh, as from [`shared_initial_states`]), on
/// `n_threads` threads (0 = all cores). Problem `p` writes its weights to row `p`
/// of `coef` (row-major, `n_problems x n_features`); `states` ends with one state
/// per problem.
///
/// Fails with [`Error::InvalidParameter`] for balanced sampling (which balances one
/// problem's classes, not all of them) and with [`Error::InvalidState`] for states
/// whose problems drew independently.
pub fn fit_shared_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    states: &mut Vec<LinearState>,
    coef: &mut [f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<FitOutput>> {
    let p = labels.n_problems();
    // A fresh fit builds its feature-major blocks from one template state: the
    // per-class states are not allocated and transposed only to be read as zeros.
    let fresh = states.is_empty();
    let mut template = LinearState::new(0, params.seed, 0)?;
    check_one_vs_rest(
        rows,
        labels,
        states,
        if fresh { p } else { states.len() },
        coef,
    )?;
    let inputs: &mut [LinearState] = if fresh {
        std::slice::from_mut(&mut template)
    } else {
        states
    };
    if params.sampling == Sampling::Balanced {
        return Err(Error::InvalidParameter(
            "sampling='balanced' balances the classes of one binary problem; with shared \
             draws every problem takes the same rows: use 'uniform' or 'shuffle'"
                .into(),
        ));
    }
    if inputs.iter().all(|s| s.t == 0) {
        // One step counter for all problems: the latest start any of them needs.
        let mut t0 = 1;
        for c in 0..p {
            t0 = t0.max(first_step(rows, &labels.task(c)?, params));
        }
        for s in inputs.iter_mut() {
            start_at(s, t0);
        }
    }
    let mut plans = inputs
        .iter_mut()
        .map(|s| plan_linear_fit(params, s, rows.n_rows()))
        .collect::<Result<Vec<_>>>()?;
    let shared = make_shared(rows, labels, params)?;
    let n_blocks = block_count(p, n_threads);
    let per = p.div_ceil(n_blocks).max(1);
    let width = rows.n_features() + 1;
    let blocks = (0..p)
        .step_by(per)
        .map(|first| {
            let k = per.min(p - first);
            if fresh {
                Block::fresh(first, k, width, &inputs[0])
            } else {
                Block::from_states(first, &inputs[first..first + k])
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let mut run = SharedRun {
        shared,
        params,
        blocks,
        coef,
        intercepts: vec![0.0; p],
        objectives: vec![None; p],
        n_threads,
        monitor,
        all_checked: false,
    };
    let plan = &mut plans[0];
    drive(plan, &mut run, params, monitor, "")?;
    run.write_models()?;
    if fresh {
        *states = shared_initial_states(p, width - 1, params.seed)?;
    }
    for b in &run.blocks {
        b.write_states(&mut states[b.first..b.first + b.k]);
    }
    Ok(outputs(&run, plan, params))
}

/// What a shared-draw fit reports per class: its intercept and objective, and the
/// passes, stopping rule and probe of the one plan.
fn outputs<R: Rows>(
    run: &SharedRun<'_, '_, R>,
    plan: &PassPlan,
    params: &ValidParams,
) -> Vec<FitOutput> {
    (0..run.intercepts.len())
        .map(|c| FitOutput {
            intercept: run.intercepts[c],
            n_iter: plan.passes(),
            objective: run.objectives[c],
            converged: plan.converged(params),
            settling: plan.settling(),
            worse_than_zero: plan.worse_than_zero(),
            validation_scores: Vec::new(),
        })
        .collect()
}

/// Blocks of classes run in parallel: one per thread, at most one per class.
fn block_count(n_problems: usize, n_threads: usize) -> usize {
    let threads = if n_threads == 0 {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    } else {
        n_threads
    };
    threads.clamp(1, n_problems.max(1))
}

/// The tasks, step rule, projection radii and draws of a fit.
fn make_shared<'a, R: Rows>(
    rows: &'a R,
    labels: &'a Labels<'a>,
    params: &'a ValidParams,
) -> Result<Shared<'a, R>> {
    let n = rows.n_rows();
    if n == 0 {
        return Err(Error::InvalidInput("no samples to train on".into()));
    }
    let tasks = (0..labels.n_problems())
        .map(|p| labels.task(p))
        .collect::<Result<Vec<_>>>()?;
    let rules: Vec<StepRule> = tasks
        .iter()
        .map(|t| StepRule::new(params, mean_zero_loss(t, &params.loss)))
        .collect();
    let draws = Draws::new(&params.sampling, &tasks[0])?;
    Ok(Shared {
        rows,
        rule: rules[0],
        sq_radius: rules.iter().map(|r| r.sq_radius).collect(),
        tasks,
        draws,
    })
}

impl<R: Rows> Shared<'_, R> {
    /// `n_steps` steps of one block; the first block reports the progress.
    fn run(&self, block: &mut Block, n_steps: u64, monitor: &Monitor) -> Result<()> {
        let k = self.rule.batch_size;
        let tasks = &self.tasks[block.first..block.first + block.k];
        let radius = &self.sq_radius[block.first..block.first + block.k];
        let mut scratch = Scratch::default();
        run_in_blocks(
            block,
            (k, n_steps),
            (monitor, block.first == 0),
            |block| self.draws.draw(&mut block.sampler),
            |block, drawn| {
                check_drawn(self.rows, &self.tasks[0], drawn)?;
                block.steps(self.rows, tasks, &self.rule, radius, drawn, &mut scratch);
                Ok(())
            },
        )
    }
}

impl<R: Rows> SharedRun<'_, '_, R> {
    /// Write every class's model to `coef` and its intercept to `intercepts`.
    fn write_models(&mut self) -> Result<()> {
        let d = self.shared.rows.n_features();
        let bf = match self.params.intercept {
            Intercept::BiasMultiplier(b) => b,
            _ => 0.0,
        };
        for block in &self.blocks {
            let (first, k) = (block.first, block.k);
            let w = self
                .coef
                .get_mut(first * d..(first + k) * d)
                .ok_or_else(|| Error::ShapeMismatch("coefficient buffer too short".into()))?;
            block.write_models(bf, w, &mut self.intercepts[first..first + k]);
        }
        Ok(())
    }
}

impl<R: Rows> PassSubject for SharedRun<'_, '_, R> {
    fn average_if_unstarted(&mut self) -> bool {
        let mut started = false;
        for b in &mut self.blocks {
            if b.avg_count == 0 {
                b.avg_start = b.t + 1;
                started = true;
            }
        }
        started
    }

    fn describe(&self) -> String {
        let sq: f64 = self.blocks.iter().flat_map(|b| &b.sq_norm).sum();
        let t = self.blocks.first().map_or(0, |b| b.t);
        format!("sum of ||w_c||^2 {sq:.4e}, t {t}")
    }
}

impl<R: Rows> PassRunner for SharedRun<'_, '_, R> {
    fn run_pass(&mut self, steps: u64) -> Result<()> {
        let shared = &self.shared;
        let monitor = self.monitor;
        let blocks: Vec<&mut Block> = self.blocks.iter_mut().collect();
        for_each_problem(blocks, self.n_threads, |_, b| shared.run(b, steps, monitor))?;
        Ok(())
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        if !PassPlan::wants_objective(self.params) {
            return Ok(None);
        }
        let rows = self.shared.rows;
        check_every_row(rows, &self.shared.tasks[0], &mut self.all_checked)?;
        self.write_models()?;
        let d = rows.n_features();
        let (alpha, intercept) = (self.params.alpha, self.params.intercept);
        let items: Vec<_> = self.coef.chunks(d).zip(&self.intercepts).collect();
        let tasks = &self.shared.tasks;
        let objectives = for_each_problem(items, self.n_threads, |c, (w, &b)| {
            let reg_sq = regularised_bias_sq(intercept, b);
            let loss = loss_sum(rows, &tasks[c], &self.params.loss, w, b, -0.0);
            Ok(objective_from_loss(loss, rows.n_rows(), w, reg_sq, alpha))
        })?;
        let total = objectives.iter().sum();
        self.objectives = objectives.into_iter().map(Some).collect();
        Ok(Some(total))
    }

    /// The sums over the classes of their probes.
    fn probe(&mut self) -> Result<Option<Probe>> {
        let rows = self.shared.rows;
        self.write_models()?;
        let d = rows.n_features();
        let intercept = self.params.intercept;
        let stride = probe_stride(rows.n_rows());
        let mut total = Probe {
            objective: 0.0,
            at_zero: 0.0,
        };
        for (c, (w, &b)) in self.coef.chunks(d).zip(&self.intercepts).enumerate() {
            let reg_sq = regularised_bias_sq(intercept, b);
            let task = &self.shared.tasks[c];
            let Some(p) = probe_binary(rows, task, self.params, (w, b, reg_sq), stride) else {
                return Ok(None);
            };
            total.objective += p.objective;
            total.at_zero += p.at_zero;
        }
        Ok(Some(total))
    }
}

#[cfg(test)]
#[path = "shared_ovr_tests.rs"]
mod tests;
