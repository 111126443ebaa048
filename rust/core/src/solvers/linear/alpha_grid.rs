//! Cross-validation of linear Pegasos over a grid of `alpha`: every (fold, alpha)
//! pair of a search in one call, each drawn row stepping every `alpha` of its fold.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011) draws
//! its examples independently of `w`: with one seed, the fits of one fold for
//! different `lambda` (here `alpha`) draw the same rows in the same order. So the
//! grid draws each fold's rows once, and each drawn batch steps every `alpha`'s
//! state in turn while its rows are in cache (when the states' weights are too
//! wide for the cache to hold them all, [`WEIGHTS_IN_CACHE`], each `alpha` runs
//! its passes alone from the same draws instead). Column `a` follows the update rule
//! of [`crate::solvers::linear::binary`] with its own `alpha_a`, through the binary
//! solver's own step ([`StepRule`] on a [`LinearState`]):
//!
//! ```text
//! t_a       = t0_a, t0_a + 1, ...           (t0_a: the start of the squared losses)
//! w_a      <- (1 - 1/t_a) w_a + 1/(alpha_a t_a k) sum_{i in A_t} c_i g_ia x_i
//! w_a      <- min(1, r_a / ||w_a||) w_a                            (optional)
//! ```
//!
//! So column `a`'s model is, bit for bit, that of
//! [`crate::solvers::linear::binary::fit_binary`] with `alpha_a` on the fold's training
//! rows (a [`RowSubset`]: no copied matrix), and so is everything its fit
//! decides from them: the first step, the projection radius, the averaging start,
//! and with `tol` its own passes (a column that stops leaves the draws to the
//! others). A one-vs-rest fold is one problem per class (class `p` draws from
//! stream `p`, as the independent one-vs-rest fit); with shared draws
//! ([`MultiClass::SharedDraws`]) one problem per fold whose columns are the pairs
//! (class, alpha), each alpha's classes sharing their first step and stopping
//! rule as [`crate::solvers::linear::shared_ovr`] has them (whose classes are, bit for
//! bit, the binary solver on the shared draws).
//!
//! The problems run on the thread pool; each ends by scoring its models on the
//! fold's held-out rows (the decision values), so that no fold's models outlive
//! their problem.

use std::ops::Range;

use crate::data::labels::{check_y_len, Labels, RowTargets};
use crate::data::rows::Rows;
use crate::data::subset::RowSubset;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::linear::binary::{
    check_drawn, check_every_row, current_model, first_step, for_each_batch, mean_zero_loss,
    plan_linear_fit, primal_objective, run_in_blocks, start_at, violators_buffer, LinearState,
    StepRule,
};
use crate::solvers::linear::one_vs_rest::predicted_class;
use crate::solvers::linear::svm::MultiClass;
use crate::solvers::shared::params::{Params, Sampling, ValidParams};
use crate::solvers::shared::passes::{PassPlan, PassSubject};
use crate::solvers::shared::sampler::{Draws, Sampler};

/// What a grid learns: class codes (`0..n_classes`, one-vs-rest problems) or
/// real targets (a regression).
pub type GridTargets<'a> = RowTargets<'a>;

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

/// How a search spends its passes on the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Search {
    /// Every grid point runs all its passes in every fold.
    Exact,
    /// Successive halving over the passes (as scikit-learn's
    /// `HalvingGridSearchCV` over a resource): after the first passes, the
    /// points whose mean held-out score over the folds is in the best
    /// `1 / factor` go on, the others stop there, until one runs all the passes.
    /// The score ranking the points is the accuracy (classes) or the negated
    /// mean squared error (regression).
    Halving {
        /// The share of points kept at each rung is `1 / factor` (> 1).
        factor: f64,
    },
}

/// The most bytes of models a halving search keeps between its rungs (every
/// fold's models at once); a larger search trains each rung's points again from
/// the start instead, one problem at a time (the same draws: the same models).
pub const HALVING_MEMORY: usize = 2 << 30;

/// Train every (fold, alpha) pair of `folds` with the parameters `params` (their
/// `alpha` replaced by each fold's), sharing each fold's draws between its alphas,
/// and return each fold's held-out decision values. `mode` is one-vs-rest or
/// shared draws (the Crammer–Singer solver has no grid: an error); `search` how
/// the passes are spent. Runs on `n_threads` threads (0: all cores); the results
/// do not depend on it.
#[allow(clippy::too_many_arguments)] // the inputs of a search, each named
pub fn fit_alpha_grid<R: Rows>(
    rows: &R,
    targets: GridTargets<'_>,
    sample_weight: Option<&[f64]>,
    folds: &[Fold<'_>],
    params: &ValidParams,
    mode: MultiClass,
    search: Search,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<FoldResult>> {
    let problems = plan_problems(rows, targets, sample_weight, folds, params, mode)?;
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
    let n_points = folds[0].alphas.len();
    let all: Vec<usize> = (0..n_points).collect();
    let factor = match search {
        Search::Halving { factor } if !(factor > 1.0 && factor.is_finite()) => {
            return Err(Error::InvalidParameter(format!(
                "the halving factor must be a number above 1, got {factor}"
            )));
        }
        Search::Halving { factor } if n_points > 1 && params.max_steps.is_none() => factor,
        _ => {
            // One problem at a time on each thread: its models are freed as soon
            // as they are scored.
            let done = for_each_problem(problems, n_threads, |_, mut problem| {
                problem.advance(rows, params, usize::MAX, monitor)?;
                problem.held_out(rows, params, &all, monitor)
            })?;
            collect(&mut out, done, folds);
            return Ok(out);
        }
    };
    let kept = fits_in_memory(&problems, rows.n_features());
    halve(
        rows,
        targets,
        sample_weight,
        folds,
        params,
        mode,
        problems,
        kept,
        factor,
        (n_threads, monitor),
        &mut out,
    )?;
    Ok(out)
}

/// Whether a halving search may keep every fold's models between its rungs
/// (within [`HALVING_MEMORY`]); else each rung trains its points again from the
/// start, one problem at a time (the same draws: the same models, bit for bit).
fn fits_in_memory(problems: &[Problem<'_>], n_features: usize) -> bool {
    let columns: usize = problems
        .iter()
        .map(|p| p.alphas.len() * p.classes.len())
        .sum();
    let bytes = columns
        .saturating_mul(n_features + 1)
        .saturating_mul(2 * std::mem::size_of::<f64>());
    bytes <= HALVING_MEMORY
}

/// The pass each rung of a halving search ends at: `ceil(P / factor^(R - 1 - r))`
/// for rung `r` of `R`, the last at all `P` passes, `R` the rungs that bring
/// `n_points` down to one by keeping `ceil(n / factor)` each time.
pub fn halving_rungs(n_points: usize, max_iter: usize, factor: f64) -> Vec<usize> {
    let mut n = n_points;
    let mut reductions = 0;
    while n > 1 {
        n = (n as f64 / factor).ceil() as usize;
        reductions += 1;
    }
    (0..=reductions)
        .map(|r| {
            let share = factor.powi(reductions - r);
            ((max_iter as f64 / share).ceil() as usize).clamp(1, max_iter)
        })
        .collect()
}

/// The rungs of a halving search: the points ranked by their mean held-out score
/// after each rung's passes, the best `1 / factor` going on. With `kept`, every
/// problem keeps its models between rungs; otherwise each rung trains the points
/// still going from the start again, one problem at a time on each thread.
#[allow(clippy::too_many_arguments)] // one search's inputs and state
fn halve<'a, R: Rows>(
    rows: &R,
    targets: GridTargets<'_>,
    sample_weight: Option<&[f64]>,
    folds: &'a [Fold<'a>],
    params: &ValidParams,
    mode: MultiClass,
    mut problems: Vec<Problem<'a>>,
    kept: bool,
    factor: f64,
    (n_threads, monitor): (usize, &Monitor),
    out: &mut [FoldResult],
) -> Result<()> {
    let n_points = folds[0].alphas.len();
    let rungs = halving_rungs(n_points, params.max_iter, factor);
    let mut alive: Vec<usize> = (0..n_points).collect();
    let mut dropped: Vec<usize> = Vec::new();
    for (r, &until) in rungs.iter().enumerate() {
        let done = if kept {
            let refs: Vec<&mut Problem<'_>> = problems.iter_mut().collect();
            for_each_problem(refs, n_threads, |_, p| {
                p.advance(rows, params, until, monitor)
            })?;
            let refs: Vec<&Problem<'_>> = problems.iter().collect();
            for_each_problem(refs, n_threads, |_, p| {
                p.held_out(rows, params, &alive, monitor)
            })?
        } else {
            let mut fresh = plan_problems(rows, targets, sample_weight, folds, params, mode)?;
            for p in &mut fresh {
                p.skip.clone_from(&dropped);
            }
            for_each_problem(fresh, n_threads, |_, mut p| {
                p.advance(rows, params, until, monitor)?;
                p.held_out(rows, params, &alive, monitor)
            })?
        };
        collect(out, done, folds);
        if r + 1 == rungs.len() || alive.len() <= 1 {
            break;
        }
        let keep = ((alive.len() as f64 / factor).ceil() as usize).max(1);
        let mut ranked: Vec<(usize, f64)> = alive
            .iter()
            .map(|&a| (a, mean_score(out, folds, targets, a)))
            .collect();
        // Best first; ties to the earlier point (a stable sort).
        ranked.sort_by(|x, y| y.1.total_cmp(&x.1));
        let now: Vec<usize> = ranked[keep..].iter().map(|&(a, _)| a).collect();
        for p in &mut problems {
            p.drop_points(&now);
        }
        dropped.extend(now);
        alive = ranked[..keep].iter().map(|&(a, _)| a).collect();
        alive.sort_unstable();
    }
    Ok(())
}

/// The mean over the folds of grid point `a`'s held-out score: its accuracy, or
/// its negated mean squared error.
fn mean_score(out: &[FoldResult], folds: &[Fold<'_>], targets: GridTargets<'_>, a: usize) -> f64 {
    let mut total = 0.0;
    for (result, fold) in out.iter().zip(folds) {
        let (n_test, k) = (fold.test.len(), result.n_outputs);
        let values = &result.decision[a * n_test * k..(a + 1) * n_test * k];
        total += match targets {
            GridTargets::Classes { codes, .. } => accuracy(values, k, codes, fold.test),
            GridTargets::Real(y) => {
                let sse: f64 = values
                    .iter()
                    .zip(fold.test)
                    .map(|(&p, &i)| (p - y[i]) * (p - y[i]))
                    .sum();
                -sse / n_test as f64
            }
        };
    }
    total / folds.len() as f64
}

/// Write what problems handed back into their folds' results.
fn collect(out: &mut [FoldResult], done: Vec<Done>, folds: &[Fold<'_>]) {
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
}

/// The accuracy of each grid point of a fold: the share of held-out rows whose
/// predicted class (as a fitted model predicts it: the sign for one output, class
/// 1 when positive; else the first largest value) is `codes[test[r]]`. `NaN` for a fold without held-out
/// rows.
pub fn fold_accuracy(result: &FoldResult, codes: &[u32], test: &[usize]) -> Vec<f64> {
    let per_point = test.len() * result.n_outputs;
    result
        .decision
        .chunks(per_point.max(1))
        .take(result.n_iter.len())
        .map(|values| accuracy(values, result.n_outputs, codes, test))
        .collect()
}

/// The share of the rows `test` whose class, predicted from their decision values
/// `values` (`k` per row, [`predicted_class`]), is `codes[test[r]]`.
fn accuracy(values: &[f64], k: usize, codes: &[u32], test: &[usize]) -> f64 {
    let correct = values
        .chunks(k)
        .zip(test)
        .filter(|(row, &i)| predicted_class(row) == codes[i])
        .count();
    correct as f64 / test.len() as f64
}

/// One block of a search: a fold's binary problem (or all its classes, with
/// shared draws) with one column per grid point.
struct Problem<'a> {
    fold: usize,
    train: &'a [usize],
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
    /// The columns' training, once started (kept between the rungs of a halving
    /// search).
    run: Option<RunState>,
    /// Grid points not to train (a halving search dropped them).
    skip: Vec<usize>,
}

/// The trained part of a problem: one binary state per (grid point, class), its
/// step rule, the points' stopping rules and the columns' common generator.
struct RunState {
    states: Vec<LinearState>,
    rules: Vec<StepRule>,
    groups: Vec<Group>,
    all_checked: bool,
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
    check_y_len(n, n_targets, "entries")?;
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
            train: fold.train,
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
            run: None,
            skip: Vec::new(),
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
/// [`crate::solvers::shared::passes::drive`] keeps it for one fit.
struct Group {
    columns: Range<usize>,
    point: usize,
    plan: PassPlan,
    params: ValidParams,
    /// Its passes are over (its plan's end, or dropped by a halving search).
    done: bool,
    /// The generator of its draws (the same for every point of a problem: they
    /// draw the same rows).
    sampler: Sampler,
}

/// A group of columns seen by a [`PassPlan`] (for suffix averaging cut short by
/// `tol`), as [`crate::solvers::linear::shared_ovr`]'s classes are.
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

    /// The task of every column (grid point-major, then class).
    fn tasks(&self) -> Result<Vec<BinaryTask<'_>>> {
        let per_class = self
            .classes
            .iter()
            .map(|&p| self.task(p))
            .collect::<Result<Vec<_>>>()?;
        Ok((0..self.alphas.len())
            .flat_map(|_| per_class.iter().copied())
            .collect())
    }

    /// The columns and groups of the problem, fresh, as each fit would start.
    fn start<R: Rows>(
        &self,
        train: &R,
        tasks: &[BinaryTask<'_>],
        params: &ValidParams,
    ) -> Result<RunState> {
        let n_cls = self.classes.len();
        if self.regression {
            tasks[0].check_targets()?;
        }
        let mut run = RunState {
            states: Vec::with_capacity(tasks.len()),
            rules: Vec::with_capacity(tasks.len()),
            groups: Vec::with_capacity(self.alphas.len()),
            all_checked: false,
        };
        for (a, &alpha) in self.alphas.iter().enumerate() {
            let point = Params {
                alpha,
                verbose: false,
                ..(**params).clone()
            }
            .validate()?;
            let classes = &tasks[a * n_cls..(a + 1) * n_cls];
            // The latest first step of the point's classes (one class: its own).
            let mut t0 = 1;
            for task in classes {
                t0 = t0.max(first_step(train, task, &point));
            }
            let mut plan = None;
            let skipped = self.skip.contains(&a);
            for task in classes {
                let width = if skipped { 0 } else { train.n_features() };
                let mut state = LinearState::new(width, point.seed, self.stream)?;
                start_at(&mut state, t0);
                plan = Some(plan_linear_fit(&point, &mut state, train.n_rows())?);
                run.rules
                    .push(StepRule::new(&point, mean_zero_loss(task, &point.loss)));
                run.states.push(state);
            }
            run.groups.push(Group {
                columns: a * n_cls..(a + 1) * n_cls,
                point: a,
                plan: plan
                    .ok_or_else(|| Error::InvalidState("a problem without classes".into()))?,
                params: point,
                done: skipped,
                sampler: Sampler::new(params.seed, self.stream),
            });
        }
        Ok(run)
    }

    /// Run the passes of the points still going, each to pass `until` or its own
    /// end (the first call starts them, as each fit would start).
    fn advance<R: Rows>(
        &mut self,
        rows: &R,
        params: &ValidParams,
        until: usize,
        monitor: &Monitor,
    ) -> Result<()> {
        let taken = self.run.take();
        let run = self.advanced(rows, params, until, taken, monitor)?;
        self.run = Some(run);
        Ok(())
    }

    /// [`Problem::advance`] on the problem's run `taken` (`None`: not started).
    fn advanced<R: Rows>(
        &self,
        rows: &R,
        params: &ValidParams,
        until: usize,
        taken: Option<RunState>,
        monitor: &Monitor,
    ) -> Result<RunState> {
        let train = RowSubset::new(rows, self.train)?;
        let tasks = self.tasks()?;
        let mut run = if let Some(run) = taken {
            run
        } else {
            let run = self.start(&train, &tasks, params)?;
            monitor.add_total(run.groups[0].plan.planned_steps());
            run
        };
        let draws = Draws::new(&params.sampling, &tasks[0])?;
        let going: Vec<usize> = (0..run.groups.len())
            .filter(|&g| !run.groups[g].done)
            .collect();
        let weights: usize = going
            .iter()
            .flat_map(|&g| run.groups[g].columns.clone())
            .map(|c| (run.states[c].v.len() + run.states[c].avg_u.len()) * 8)
            .sum();
        let context = (&train, &tasks[..], &draws);
        if weights <= WEIGHTS_IN_CACHE {
            if let Some(&first) = going.first() {
                let mut sampler = run.groups[first].sampler.clone();
                passes(
                    context,
                    &mut run,
                    &going,
                    &mut sampler,
                    (params, until, monitor),
                )?;
                for &g in &going {
                    run.groups[g].sampler = sampler.clone();
                }
            }
        } else {
            for &g in &going {
                let mut sampler = run.groups[g].sampler.clone();
                passes(
                    context,
                    &mut run,
                    &[g],
                    &mut sampler,
                    (params, until, monitor),
                )?;
                run.groups[g].sampler = sampler;
            }
        }
        Ok(run)
    }

    /// Stop the grid points `points` where they are (a halving search's rung
    /// dropped them) and free their models.
    fn drop_points(&mut self, points: &[usize]) {
        if let Some(run) = &mut self.run {
            for g in run.groups.iter_mut().filter(|g| points.contains(&g.point)) {
                g.done = true;
                for c in g.columns.clone() {
                    run.states[c] = LinearState::empty();
                }
            }
        }
    }

    /// The held-out decision values of the grid points `points` now.
    fn held_out<R: Rows>(
        &self,
        rows: &R,
        params: &ValidParams,
        points: &[usize],
        monitor: &Monitor,
    ) -> Result<Done> {
        let run = self
            .run
            .as_ref()
            .ok_or_else(|| Error::InvalidState("a problem scored before it ran".into()))?;
        let groups: Vec<&Group> = run
            .groups
            .iter()
            .filter(|g| points.contains(&g.point))
            .collect();
        let states: Vec<&LinearState> = groups
            .iter()
            .flat_map(|g| g.columns.clone().map(|c| &run.states[c]))
            .collect();
        let values = held_out_values(rows, self.test, &states, params, monitor)?;
        let outputs = groups
            .iter()
            .flat_map(|g| self.classes.iter().map(move |&p| (g.point, p)))
            .collect();
        Ok(Done {
            fold: self.fold,
            values,
            outputs,
            n_iter: groups.iter().map(|g| (g.point, g.plan.passes())).collect(),
        })
    }
}

/// The passes of the groups `which` of `run` up to pass `until` (each to its own
/// end first), their columns stepping on the draws of `sampler`, each pass ended
/// by `tol`'s rule when set, as each grid point's fit ends it.
fn passes<R: Rows>(
    (train, tasks, draws): (&R, &[BinaryTask<'_>], &Draws<'_>),
    run: &mut RunState,
    which: &[usize],
    sampler: &mut Sampler,
    (params, until, monitor): (&ValidParams, usize, &Monitor),
) -> Result<()> {
    let mut coef = try_filled_vec(train.n_features(), 0.0, "a grid point's weights")?;
    loop {
        let mut steps = None;
        for &g in which {
            let g = &mut run.groups[g];
            if g.done || g.plan.passes() >= until {
                continue;
            }
            match g.plan.next_pass() {
                Some(s) => steps = Some(s),
                None => g.done = true,
            }
        }
        let Some(steps) = steps else { break };
        let active: Vec<usize> = which
            .iter()
            .map(|&g| &run.groups[g])
            .filter(|g| !g.done)
            .flat_map(|g| g.columns.clone())
            .collect();
        let columns = (&mut run.states[..], &run.rules[..], tasks);
        run_steps(train, columns, &active, draws, sampler, steps, monitor)?;
        if params.tol.is_none() {
            continue;
        }
        check_every_row(train, &tasks[0], &mut run.all_checked)?;
        for &g in which {
            let g = &mut run.groups[g];
            if g.done {
                continue;
            }
            let mut total = 0.0;
            for c in g.columns.clone() {
                let (b, reg_sq) = current_model(&g.params, &run.states[c], &mut coef);
                let p = &g.params;
                total += primal_objective(train, &tasks[c], &p.loss, &coef, b, reg_sq, p.alpha);
            }
            let mut subject = GroupSubject {
                states: &mut run.states[g.columns.clone()],
            };
            g.plan
                .end_pass(&g.params, &mut subject, Some(total), monitor, "");
        }
    }
    Ok(())
}

/// The decision values of the rows `test` of `rows` under each state's model
/// (the one its fit returns): one run of `test.len()` values per state.
fn held_out_values<R: Rows>(
    rows: &R,
    test: &[usize],
    states: &[&LinearState],
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

/// The most bytes of weights (and averages) of a problem's columns for which each
/// drawn batch steps every column in turn (sharing the rows it reads); above,
/// the cache could not hold them all and each grid point runs its passes alone,
/// from the same draws, as its fit would.
pub const WEIGHTS_IN_CACHE: usize = 8 << 20;

/// `n_steps` steps of the `active` columns (states, rules and tasks), drawing
/// from `sampler` (the columns' common generator) in blocks of
/// [`BLOCK_EXAMPLES`] examples, the monitor read between blocks: each batch steps
/// every active column while its rows are in cache.
fn run_steps<R: Rows>(
    rows: &R,
    (states, rules, tasks): (&mut [LinearState], &[StepRule], &[BinaryTask<'_>]),
    active: &[usize],
    draws: &Draws<'_>,
    sampler: &mut Sampler,
    n_steps: u64,
    monitor: &Monitor,
) -> Result<()> {
    let k = rules[0].batch_size;
    let mut violators = violators_buffer(k)?;
    run_in_blocks(
        sampler,
        (k, n_steps),
        (monitor, true),
        |sampler| draws.draw(sampler),
        |_, drawn| {
            check_drawn(rows, &tasks[0], drawn)?;
            for_each_batch(rows, drawn, k, |batch| {
                for &c in active {
                    rules[c].step(rows, &tasks[c], &mut states[c], batch, &mut violators);
                }
            });
            Ok(())
        },
    )
}

#[cfg(test)]
#[path = "alpha_grid_tests.rs"]
mod tests;
