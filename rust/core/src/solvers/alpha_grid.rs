//! Cross-validation of linear Pegasos over a grid of `alpha`: every (fold, alpha)
//! pair of a search in one call, each drawn row stepping every `alpha` of its fold.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011) draws
//! its examples independently of `w`: with one seed, the fits of one fold for
//! different `lambda` (here `alpha`) draw the same rows in the same order. So the
//! grid draws each fold's rows once, and each drawn batch steps every `alpha`'s
//! state in turn while its rows are in cache. Column `a` follows the update rule
//! of [`crate::solvers::linear`] with its own `alpha_a`, through the binary
//! solver's own step ([`StepRule`] on a [`LinearState`]):
//!
//! ```text
//! t_a       = t0_a, t0_a + 1, ...           (t0_a: the start of the squared losses)
//! w_a      <- (1 - 1/t_a) w_a + 1/(alpha_a t_a k) sum_{i in A_t} c_i g_ia x_i
//! w_a      <- min(1, r_a / ||w_a||) w_a                            (optional)
//! ```
//!
//! So column `a`'s model is, bit for bit, that of
//! [`crate::solvers::linear::fit_binary`] with `alpha_a` on the fold's training
//! rows (a [`RowSubset`]: no copied matrix), and so is everything its fit
//! decides from them: the first step, the projection radius, the averaging start,
//! and with `tol` its own passes (a column that stops leaves the draws to the
//! others). A one-vs-rest fold is one problem per class (class `p` draws from
//! stream `p`, as the independent one-vs-rest fit); with shared draws
//! ([`MultiClass::SharedDraws`]) one problem per fold whose columns are the pairs
//! (class, alpha), each alpha's classes sharing their first step and stopping
//! rule as [`crate::solvers::shared_ovr`] has them (whose classes are, bit for
//! bit, the binary solver on the shared draws).
//!
//! The problems run on the thread pool; each ends by scoring its models on the
//! fold's held-out rows (the decision values), so that no fold's models outlive
//! their problem.

use std::ops::Range;

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::data::subset::RowSubset;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::linear::{
    check_drawn, check_every_row, current_model, first_step, for_each_batch, mean_zero_loss,
    plan_linear_fit, primal_objective, start_at, LinearState, StepRule, Violators, BLOCK_EXAMPLES,
};
use crate::solvers::linear_svm::MultiClass;
use crate::solvers::params::{Params, Sampling, ValidParams};
use crate::solvers::passes::{PassPlan, PassSubject};
use crate::solvers::sampler::{Draws, Sampler};

/// What a grid learns: class codes (`0..n_classes`, one-vs-rest problems) or
/// real targets (a regression).
#[derive(Clone, Copy, Debug)]
pub enum GridTargets<'a> {
    /// Class codes and the number of classes (at least 2).
    Classes {
        /// The class code of every row.
        codes: &'a [u32],
        /// The number of classes.
        n_classes: usize,
    },
    /// The real target of every row.
    Real(&'a [f64]),
}

/// One fold of a search: its training and held-out rows (indices into the rows of
/// the search), the class weights its training rows give (one per class; empty for
/// a regression) and the `alpha` of every grid point for this fold.
#[derive(Clone, Copy, Debug)]
pub struct Fold<'a> {
    /// The rows the fold's models train on, in the order a copy would hold them.
    pub train: &'a [usize],
    /// The held-out rows the models are scored on.
    pub test: &'a [usize],
    /// Per-class weights of the fold's fit (empty for a regression).
    pub class_weight: &'a [f64],
    /// `alpha` of each grid point (the same number of points in every fold).
    pub alphas: &'a [f64],
}

/// What one fold of a search gives.
#[derive(Clone, Debug, PartialEq)]
pub struct FoldResult {
    /// The decision values of the held-out rows, point-major:
    /// `decision[(a * n_test + r) * n_outputs + p]` for grid point `a`, held-out
    /// row `r` and output `p` (one output for two classes or a regression, one per
    /// class otherwise).
    pub decision: Vec<f64>,
    /// Outputs per row of `decision`.
    pub n_outputs: usize,
    /// Passes run by each grid point (the most of its binary problems).
    pub n_iter: Vec<usize>,
}

/// Train every (fold, alpha) pair of `folds` with the parameters `params` (their
/// `alpha` replaced by each fold's), sharing each fold's draws between its alphas,
/// and return each fold's held-out decision values. `mode` is one-vs-rest or
/// shared draws (the Crammer–Singer solver has no grid: an error). Runs on
/// `n_threads` threads (0: all cores); the results do not depend on it.
#[allow(clippy::too_many_arguments)] // the inputs of a search, each named
pub fn fit_alpha_grid<R: Rows>(
    rows: &R,
    targets: GridTargets<'_>,
    sample_weight: Option<&[f64]>,
    folds: &[Fold<'_>],
    params: &ValidParams,
    mode: MultiClass,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<FoldResult>> {
    let problems = plan_problems(rows, targets, sample_weight, folds, params, mode)?;
    let n_folds = folds.len();
    let done = for_each_problem(problems, n_threads, |_, problem| {
        problem.run(rows, params, monitor)
    })?;
    let mut out: Vec<FoldResult> = folds
        .iter()
        .map(|f| {
            let n_outputs = match targets {
                GridTargets::Classes { n_classes, .. } if n_classes > 2 => n_classes,
                _ => 1,
            };
            let len = f.alphas.len() * f.test.len() * n_outputs;
            Ok(FoldResult {
                decision: try_filled_vec(len, 0.0, "the held-out decision values")?,
                n_outputs,
                n_iter: vec![0; f.alphas.len()],
            })
        })
        .collect::<Result<_>>()?;
    debug_assert_eq!(out.len(), n_folds);
    for d in done {
        let fold = &mut out[d.fold];
        let (n_test, k) = (folds[d.fold].test.len(), fold.n_outputs);
        for (col, values) in d
            .values
            .chunks(n_test.max(1))
            .enumerate()
            .take(d.outputs.len())
        {
            let (a, p) = d.outputs[col];
            for (r, &v) in values.iter().enumerate() {
                fold.decision[(a * n_test + r) * k + p] = v;
            }
        }
        for (a, n) in d.n_iter {
            fold.n_iter[a] = fold.n_iter[a].max(n);
        }
    }
    Ok(out)
}

/// The accuracy of each grid point of a fold: the share of held-out rows whose
/// predicted class (the sign for one output, class 1 when positive; else the
/// first largest value) is `codes[test[r]]`. `NaN` for a fold without held-out
/// rows.
pub fn fold_accuracy(result: &FoldResult, codes: &[u32], test: &[usize]) -> Vec<f64> {
    let k = result.n_outputs;
    let n_test = test.len();
    let per_point = n_test * k;
    result
        .decision
        .chunks(per_point.max(1))
        .take(result.n_iter.len())
        .map(|values| {
            let correct = values
                .chunks(k)
                .zip(test)
                .filter(|(row, &i)| predicted(row) == codes[i])
                .count();
            correct as f64 / n_test as f64
        })
        .collect()
}

/// The class a row of decision values predicts (see [`fold_accuracy`]).
fn predicted(row: &[f64]) -> u32 {
    if row.len() == 1 {
        return u32::from(row[0] > 0.0);
    }
    let mut best = 0;
    for (c, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = c;
        }
    }
    best as u32
}

/// One block of a search: a fold's binary problem (or all its classes, with
/// shared draws) with one column per grid point.
struct Problem<'a> {
    fold: usize,
    train: Vec<usize>,
    test: &'a [usize],
    /// The fold's class codes (or targets) and sample weights, in training order.
    codes: Vec<u32>,
    targets: Vec<f64>,
    weights: Option<Vec<f64>>,
    class_weight: &'a [f64],
    n_classes: usize,
    regression: bool,
    /// The binary problems of the block (classes; `[0]` for two classes or a
    /// regression) and the fold's alphas.
    classes: Vec<usize>,
    alphas: &'a [f64],
    stream: u64,
}

/// What a block hands back: its held-out decision values (one run of `n_test`
/// values per column) and what each column is.
struct Done {
    fold: usize,
    values: Vec<f64>,
    /// `(grid point, output)` of each column.
    outputs: Vec<(usize, usize)>,
    /// Passes run by each grid point's group.
    n_iter: Vec<(usize, usize)>,
}

/// The checks of a search's inputs as a whole; its number of classes (0 for a
/// regression) and of grid points.
fn check_search<R: Rows>(
    rows: &R,
    targets: GridTargets<'_>,
    sample_weight: Option<&[f64]>,
    folds: &[Fold<'_>],
    params: &ValidParams,
    mode: MultiClass,
) -> Result<(usize, usize)> {
    let n = rows.n_rows();
    if mode == MultiClass::CrammerSinger {
        return Err(Error::InvalidParameter(
            "the Crammer-Singer solver has no shared-draw grid: fit its candidates one \
             by one"
                .into(),
        ));
    }
    if rows.n_features() == 0 {
        return Err(Error::InvalidInput("the data has no features".into()));
    }
    let (n_targets, n_classes) = match targets {
        GridTargets::Classes { codes, n_classes } => (codes.len(), n_classes),
        GridTargets::Real(y) => (y.len(), 0),
    };
    if n_targets != n {
        return Err(Error::ShapeMismatch(format!(
            "X has {n} rows but y has {n_targets} entries"
        )));
    }
    if let Some(sw) = sample_weight {
        if sw.len() != n {
            return Err(Error::ShapeMismatch(format!(
                "sample_weight has {} entries for {n} rows",
                sw.len()
            )));
        }
    }
    let first = folds
        .first()
        .ok_or_else(|| Error::InvalidInput("a search needs at least one fold".into()))?;
    let n_points = first.alphas.len();
    if n_points == 0 {
        return Err(Error::InvalidParameter(
            "the grid of alphas is empty".into(),
        ));
    }
    if matches!(params.sampling, Sampling::Order(_)) {
        return Err(Error::InvalidParameter(
            "sampling as an order of rows names rows of one training set; a search's \
             folds train on different rows: use 'uniform', 'shuffle' or 'balanced'"
                .into(),
        ));
    }
    for (f, fold) in folds.iter().enumerate() {
        check_fold(f, fold, n, (n_classes, n_points), params)?;
    }
    Ok((n_classes, n_points))
}

/// The checks of fold `f` of a search of `n` rows, `n_classes` classes and
/// `n_points` grid points.
fn check_fold(
    f: usize,
    fold: &Fold<'_>,
    n: usize,
    (n_classes, n_points): (usize, usize),
    params: &ValidParams,
) -> Result<()> {
    if fold.alphas.len() != n_points {
        return Err(Error::ShapeMismatch(format!(
            "fold {f} has {} alphas, fold 0 {n_points}",
            fold.alphas.len()
        )));
    }
    for &a in fold.alphas {
        Params {
            alpha: a,
            ..(**params).clone()
        }
        .validate()?;
    }
    if fold.train.is_empty() {
        return Err(Error::InvalidInput(format!(
            "fold {f} has no training rows"
        )));
    }
    if let Some(&i) = fold.train.iter().chain(fold.test).find(|&&i| i >= n) {
        return Err(Error::InvalidInput(format!(
            "fold {f} names row {i}, but there are {n} rows"
        )));
    }
    if n_classes > 0 && fold.class_weight.len() != n_classes {
        return Err(Error::ShapeMismatch(format!(
            "fold {f} has {} class weights for {n_classes} classes",
            fold.class_weight.len()
        )));
    }
    Ok(())
}

/// The problems of a search, after the checks of its inputs: per fold, one per
/// binary problem (one-vs-rest) or one for all (shared draws, two classes, a
/// regression).
fn plan_problems<'a, R: Rows>(
    rows: &R,
    targets: GridTargets<'_>,
    sample_weight: Option<&[f64]>,
    folds: &'a [Fold<'a>],
    params: &ValidParams,
    mode: MultiClass,
) -> Result<Vec<Problem<'a>>> {
    let (n_classes, _) = check_search(rows, targets, sample_weight, folds, params, mode)?;
    let regression = matches!(targets, GridTargets::Real(_));
    let mut problems = Vec::new();
    for (f, fold) in folds.iter().enumerate() {
        let take_f64 = |v: &[f64]| fold.train.iter().map(|&i| v[i]).collect::<Vec<_>>();
        let (codes, y, classes) = match targets {
            GridTargets::Classes { codes, n_classes } => {
                let p = if n_classes == 2 { 1 } else { n_classes };
                let fold_codes: Vec<u32> = fold.train.iter().map(|&i| codes[i]).collect();
                (fold_codes, Vec::new(), (0..p).collect::<Vec<_>>())
            }
            GridTargets::Real(y) => (Vec::new(), take_f64(y), vec![0]),
        };
        let weights = sample_weight.map(take_f64);
        let problem = |classes: Vec<usize>, stream: u64| Problem {
            fold: f,
            train: fold.train.to_vec(),
            test: fold.test,
            codes: codes.clone(),
            targets: y.clone(),
            weights: weights.clone(),
            class_weight: fold.class_weight,
            n_classes,
            regression,
            classes,
            alphas: fold.alphas,
            stream,
        };
        if mode == MultiClass::OneVsRest && classes.len() > 1 {
            problems.extend(classes.iter().map(|&p| problem(vec![p], p as u64)));
        } else {
            problems.push(problem(classes, 0));
        }
    }
    Ok(problems)
}

/// The stopping state of one grid point's group of columns, as
/// [`crate::solvers::passes::drive`] keeps it for one fit.
struct Group {
    columns: Range<usize>,
    point: usize,
    plan: PassPlan,
    params: ValidParams,
    active: bool,
}

/// A group of columns seen by a [`PassPlan`] (for suffix averaging cut short by
/// `tol`), as [`crate::solvers::shared_ovr`]'s classes are.
struct GroupSubject<'b> {
    states: &'b mut [LinearState],
}

impl PassSubject for GroupSubject<'_> {
    fn average_if_unstarted(&mut self) -> bool {
        let mut started = false;
        for s in self.states.iter_mut() {
            started |= s.average_if_unstarted();
        }
        started
    }

    fn describe(&self) -> String {
        String::new()
    }
}

/// The columns of a problem: one binary state per (grid point, class), its step
/// rule and task.
struct Columns<'t> {
    states: Vec<LinearState>,
    rules: Vec<StepRule>,
    tasks: Vec<BinaryTask<'t>>,
}

impl Problem<'_> {
    /// The binary task of class `p` of the fold (or its regression), as
    /// [`Labels::task`] makes it for the fold's labels.
    fn task(&self, p: usize) -> Result<BinaryTask<'_>> {
        if self.regression {
            return BinaryTask::regression(&self.targets, self.weights.as_deref());
        }
        Labels {
            codes: &self.codes,
            n_classes: self.n_classes,
            sample_weight: self.weights.as_deref(),
            class_weight: self.class_weight,
        }
        .task(p)
    }

    /// The columns and groups of the problem, fresh, as each fit would start.
    fn columns<R: Rows>(
        &self,
        train: &R,
        params: &ValidParams,
    ) -> Result<(Columns<'_>, Vec<Group>)> {
        let per_class = self
            .classes
            .iter()
            .map(|&p| self.task(p))
            .collect::<Result<Vec<_>>>()?;
        if self.regression {
            per_class[0].check_targets()?;
        }
        let (n_points, n_cls) = (self.alphas.len(), self.classes.len());
        let mut columns = Columns {
            states: Vec::with_capacity(n_points * n_cls),
            rules: Vec::with_capacity(n_points * n_cls),
            tasks: Vec::with_capacity(n_points * n_cls),
        };
        let mut groups = Vec::with_capacity(n_points);
        for (a, &alpha) in self.alphas.iter().enumerate() {
            let point = Params {
                alpha,
                verbose: false,
                ..(**params).clone()
            }
            .validate()?;
            // The latest first step of the point's classes (one class: its own).
            let mut t0 = 1;
            for task in &per_class {
                t0 = t0.max(first_step(train, task, &point));
            }
            let mut plan = None;
            for task in &per_class {
                let mut state = LinearState::new(train.n_features(), point.seed, self.stream)?;
                start_at(&mut state, t0);
                plan = Some(plan_linear_fit(&point, &mut state, train.n_rows())?);
                columns
                    .rules
                    .push(StepRule::new(&point, mean_zero_loss(task, &point.loss)));
                columns.tasks.push(*task);
                columns.states.push(state);
            }
            groups.push(Group {
                columns: a * n_cls..(a + 1) * n_cls,
                point: a,
                plan: plan
                    .ok_or_else(|| Error::InvalidState("a problem without classes".into()))?,
                params: point,
                active: true,
            });
        }
        Ok((columns, groups))
    }

    /// Train the problem's columns and score them on the held-out rows.
    fn run<R: Rows>(self, rows: &R, params: &ValidParams, monitor: &Monitor) -> Result<Done> {
        let train = RowSubset::new(rows, &self.train)?;
        let (mut cols, mut groups) = self.columns(&train, params)?;
        let draws = Draws::new(&params.sampling, &cols.tasks[0])?;
        let mut sampler = cols.states[0].sampler.clone();
        monitor.add_total(groups[0].plan.planned_steps());
        let d = rows.n_features();
        let mut coef = try_filled_vec(d, 0.0, "a grid point's weights")?;
        let mut all_checked = false;
        loop {
            let mut steps = None;
            for g in &mut groups {
                match g.plan.next_pass() {
                    Some(s) if g.active => steps = Some(s),
                    _ => g.active = false,
                }
            }
            let Some(steps) = steps else { break };
            let active: Vec<usize> = groups
                .iter()
                .filter(|g| g.active)
                .flat_map(|g| g.columns.clone())
                .collect();
            run_steps(
                &train,
                &mut cols,
                &active,
                &draws,
                &mut sampler,
                steps,
                monitor,
            )?;
            if params.tol.is_none() {
                continue;
            }
            check_every_row(&train, &cols.tasks[0], &mut all_checked)?;
            for g in groups.iter_mut().filter(|g| g.active) {
                let mut total = 0.0;
                for c in g.columns.clone() {
                    let (b, reg_sq) = current_model(&g.params, &cols.states[c], &mut coef);
                    let p = &g.params;
                    total += primal_objective(
                        &train,
                        &cols.tasks[c],
                        &p.loss,
                        &coef,
                        b,
                        reg_sq,
                        p.alpha,
                    );
                }
                let mut subject = GroupSubject {
                    states: &mut cols.states[g.columns.clone()],
                };
                g.plan
                    .end_pass(&g.params, &mut subject, Some(total), monitor, "");
            }
        }
        let values = held_out_values(rows, self.test, &cols.states, params, monitor)?;
        let outputs = (0..self.alphas.len())
            .flat_map(|a| self.classes.iter().map(move |&p| (a, p)))
            .collect();
        Ok(Done {
            fold: self.fold,
            values,
            outputs,
            n_iter: groups.iter().map(|g| (g.point, g.plan.passes())).collect(),
        })
    }
}

/// The decision values of the rows `test` of `rows` under each state's model
/// (the one its fit returns): one run of `test.len()` values per state.
fn held_out_values<R: Rows>(
    rows: &R,
    test: &[usize],
    states: &[LinearState],
    params: &ValidParams,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let test = RowSubset::new(rows, test)?;
    let n_test = test.n_rows();
    let mut coef = try_filled_vec(rows.n_features(), 0.0, "a grid point's weights")?;
    let mut values = try_filled_vec(states.len() * n_test, 0.0, "the held-out values")?;
    for (state, out) in states.iter().zip(values.chunks_mut(n_test.max(1))) {
        if monitor.is_stopped() {
            return Err(Error::Interrupted);
        }
        let b = state.write_model(params.intercept, &mut coef);
        for (r, o) in out.iter_mut().enumerate() {
            if !test.is_checked() {
                test.check_row(r)?;
            }
            *o = test.dot(r, &coef) + b;
        }
    }
    Ok(values)
}

/// `n_steps` steps of the `active` columns, drawing from `sampler` (the columns'
/// common generator) in blocks of [`BLOCK_EXAMPLES`] examples, the monitor read
/// between blocks: each batch steps every active column while its rows are in
/// cache.
fn run_steps<R: Rows>(
    rows: &R,
    cols: &mut Columns<'_>,
    active: &[usize],
    draws: &Draws<'_>,
    sampler: &mut Sampler,
    n_steps: u64,
    monitor: &Monitor,
) -> Result<()> {
    let k = cols.rules[0].batch_size;
    let block_steps = (BLOCK_EXAMPLES / k).max(1) as u64;
    let mut drawn = Vec::new();
    let mut violators: Violators = Vec::new();
    let oom = |_| Error::OutOfMemory(format!("batch_size {k} needs a buffer"));
    drawn
        .try_reserve_exact(block_steps as usize * k)
        .map_err(oom)?;
    violators.try_reserve_exact(k).map_err(oom)?;
    let mut remaining = n_steps;
    while remaining > 0 {
        if monitor.is_stopped() {
            return Err(Error::Interrupted);
        }
        let steps = remaining.min(block_steps) as usize;
        remaining -= steps as u64;
        drawn.clear();
        for _ in 0..steps * k {
            drawn.push(draws.draw(sampler));
        }
        check_drawn(rows, &cols.tasks[0], &drawn)?;
        for_each_batch(rows, &drawn, k, |batch| {
            for &c in active {
                cols.rules[c].step(
                    rows,
                    &cols.tasks[c],
                    &mut cols.states[c],
                    batch,
                    &mut violators,
                );
            }
        });
        monitor.advance(steps as u64);
    }
    Ok(())
}

#[cfg(test)]
#[path = "alpha_grid_tests.rs"]
mod tests;
