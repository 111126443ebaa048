//! Linear Pegasos with the examples supplied by the caller: the client side of
//! `pegasos_rs.dask`'s exact mode.
//!
//! The rows stay on a cluster. This object holds what the client needs (the solver
//! states, the pass plans, the constants of the update rule) and nothing of size m:
//! it draws the examples of the next steps from counts only, Python fetches those
//! rows, and `run` takes the steps on them, so the model is the in-memory
//! solver's, bit for bit (`pegasos_core::solvers::linear::run_drawn`). The problems
//! are those of one-vs-rest classification, or the one problem of a regression.

use std::borrow::Cow;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::error::try_filled_vec;
use pegasos_core::parallel::for_each_problem;
use pegasos_core::solvers::linear::{
    current_model, first_step_from_sums, first_step_sums as core_first_step_sums, loss_sum,
    objective_from_loss, start_at, zero_loss_sum, FirstStepSums,
};
use pegasos_core::solvers::loss::{Loss, LossFunction};
use pegasos_core::solvers::multiclass::problem_label;
use pegasos_core::solvers::sampler::{Drawn, KeyDraws};
use pegasos_core::thresholds::SMALL_VISITS;
use pegasos_core::Monitor;
use pegasos_core::{
    finish_linear_fit, initial_states, plan_linear_fit, run_drawn, BinaryTask, Labels, LinearState,
    PassPlan, Rows, StepRule, ValidParams,
};

use crate::arrays::{slice, Matrix, MatrixAndVector};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::linear::LinearSolverState;
use crate::params::{Examples, LabelWeights, LossSpec, SolverParams, Targets};

/// What the client knows of the training labels without holding them. A
/// regression has no classes: `n_classes`, `class_weight` and `class_counts` are
/// absent (or None), and `zero_loss_sums` is needed.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LabelSummary<'py> {
    #[pyo3(default)]
    n_classes: Option<usize>,
    #[pyo3(default)]
    class_weight: Option<PyReadonlyArray1<'py, f64>>,
    /// Examples of each class.
    #[pyo3(default)]
    class_counts: Option<PyReadonlyArray1<'py, u64>>,
    /// Per problem, `sum_i c_i l(0, y_i)` in row order (`zero_loss_sums` in
    /// `pegasos_rs._core`); `None` when every weight is 1 and the loss a margin
    /// loss.
    zero_loss_sums: Option<PyReadonlyArray1<'py, f64>>,
    /// Per problem, `(total, heaviest)` of `first_step_sums` over all rows in
    /// order: needed when fresh states of a loss that starts late (`starts_late`)
    /// are to start at the in-memory solver's first step.
    #[pyo3(default)]
    first_step_sums: Option<Vec<(f64, f64)>>,
}

impl LabelSummary<'_> {
    /// The classes and their counts (`None` and no counts for a regression),
    /// checked against `n_rows` rows.
    fn classes(&self, n_rows: usize) -> PyResult<(Option<Classes>, Vec<u64>)> {
        let (n_classes, cw, counts) =
            match (&self.n_classes, &self.class_weight, &self.class_counts) {
                (None, None, None) => return Ok((None, Vec::new())),
                (Some(n), Some(cw), Some(counts)) => (*n, cw, counts),
                _ => {
                    return Err(PyValueError::new_err(
                        "n_classes, class_weight and class_counts go together (all absent: a \
                     regression)",
                    ))
                }
            };
        let (class_weight, counts) = (slice(cw)?.to_vec(), slice(counts)?.to_vec());
        if n_classes < 2 || class_weight.len() != n_classes || counts.len() != n_classes {
            return Err(PyValueError::new_err(format!(
                "{n_classes} classes with {} class weights and {} class counts",
                class_weight.len(),
                counts.len()
            )));
        }
        if counts.iter().sum::<u64>() != n_rows as u64 {
            return Err(PyValueError::new_err(format!(
                "the class counts add up to {}, not to the {n_rows} rows",
                counts.iter().sum::<u64>()
            )));
        }
        let classes = Classes {
            n_classes,
            class_weight,
        };
        Ok((Some(classes), counts))
    }

    /// Per problem, `L0` of the `n_rows` rows (see [`zero_losses_of`]); without
    /// `zero_loss_sums`, every class weight must be 1.
    fn zero_losses(
        &self,
        classes: Option<&Classes>,
        loss: &LossFunction,
        n_rows: usize,
        n_problems: usize,
    ) -> PyResult<Vec<f64>> {
        let sums = match &self.zero_loss_sums {
            Some(s) => Some(slice(s)?),
            None => None,
        };
        if sums.is_none() && classes.is_some_and(|c| c.class_weight.iter().any(|&w| w != 1.0)) {
            return Err(PyValueError::new_err(
                "zero_loss_sums are needed when a class weight is not 1",
            ));
        }
        zero_losses_of(loss, n_rows, n_problems, sums)
    }
}

/// Per problem, the mean weighted loss at zero `L0` of `n_rows` rows from their
/// summed `zero_loss_sums` (`None`: every weight 1, margin losses only), as the
/// in-memory solver computes it (`pegasos_core::solvers::linear::mean_zero_loss`).
fn zero_losses_of(
    loss: &LossFunction,
    n_rows: usize,
    n_problems: usize,
    sums: Option<&[f64]>,
) -> PyResult<Vec<f64>> {
    let means = match sums {
        Some(s) => s.iter().map(|s| s / n_rows as f64).collect(),
        None if loss.is_margin_loss() => vec![loss.value(0.0, 1.0); n_problems],
        None => {
            return Err(PyValueError::new_err(format!(
                "zero_loss_sums are needed for the regression loss {:?}",
                loss.name()
            )))
        }
    };
    if means.len() != n_problems {
        return Err(PyValueError::new_err(format!(
            "{} loss sums for {n_problems} problems",
            means.len()
        )));
    }
    Ok(means)
}

/// The classes of a classification fit: how many, and their weights.
struct Classes {
    n_classes: usize,
    class_weight: Vec<f64>,
}

/// An error unless `loss` suits the targets (a margin loss for classes).
fn check_loss_fits(loss: &LossFunction, regression: bool) -> PyResult<()> {
    if loss.is_margin_loss() == regression {
        let (what, needs) = if regression {
            ("a classification loss", "class labels")
        } else {
            ("a regression loss", "real targets")
        };
        return Err(PyValueError::new_err(format!(
            "loss {:?} is {what}: it needs {needs}",
            loss.name()
        )));
    }
    Ok(())
}

/// The solver states and pass plans of a fit whose rows live elsewhere.
#[pyclass(module = "pegasos_rs._core")]
pub struct StreamedLinearFit {
    params: ValidParams,
    states: Vec<LinearState>,
    plans: Vec<PassPlan>,
    rules: Vec<StepRule>,
    draws: Vec<KeyDraws<'static>>,
    /// Whether problem `p` takes part in the current pass.
    active: Vec<bool>,
    n_rows: usize,
    /// `None` for a regression.
    classes: Option<Classes>,
    n_threads: usize,
}

impl StreamedLinearFit {
    /// The examples of supplied rows whose targets are `y` (class codes for a
    /// classification, real targets for a regression).
    fn examples<'a>(
        &'a self,
        y: &'a Targets<'_>,
        sample_weight: Option<&'a [f64]>,
    ) -> PyResult<Examples<'a>> {
        match (&self.classes, y) {
            (Some(c), Targets::Codes(codes)) => Ok(Examples::Classes(Labels {
                codes: slice(codes)?,
                n_classes: c.n_classes,
                sample_weight,
                class_weight: &c.class_weight,
            })),
            (None, Targets::Values(targets)) => Ok(Examples::Regression(
                BinaryTask::regression(slice(targets)?, sample_weight).map_err(CoreError)?,
            )),
            (Some(_), Targets::Values(_)) => Err(PyValueError::new_err(
                "this fit is a classification: y must be class codes (uint32)",
            )),
            (None, Targets::Codes(_)) => Err(PyValueError::new_err(
                "this fit is a regression: y must be real targets (float64)",
            )),
        }
    }
}

#[pymethods]
impl StreamedLinearFit {
    /// Start a fit of `n_rows` x `n_features` rows continuing `solver`'s states
    /// (fresh ones when it is empty, starting at the in-memory solver's first step:
    /// `labels["first_step_sums"]` for the losses that start late). `solver` itself
    /// is not changed until `finish`.
    #[new]
    #[pyo3(signature = (solver, params, n_rows, n_features, labels, n_threads))]
    fn new(
        solver: PyRef<'_, LinearSolverState>,
        params: SolverParams<'_>,
        n_rows: usize,
        n_features: usize,
        labels: LabelSummary<'_>,
        n_threads: usize,
    ) -> PyResult<Self> {
        let params = params.validate()?;
        let (classes, counts) = labels.classes(n_rows)?;
        check_loss_fits(&params.loss, classes.is_none())?;
        if n_features == 0 {
            return Err(PyValueError::new_err("the data has no features"));
        }
        let n_problems = match &classes {
            Some(c) if c.n_classes > 2 => c.n_classes,
            _ => 1,
        };
        let zero_losses = labels.zero_losses(classes.as_ref(), &params.loss, n_rows, n_problems)?;
        let mut states = if solver.states.is_empty() {
            initial_states(n_problems, n_features, params.seed).map_err(CoreError)?
        } else {
            solver.states.clone()
        };
        if states.len() != n_problems {
            return Err(PyValueError::new_err(format!(
                "{} solver states for {n_problems} problems",
                states.len()
            )));
        }
        let mut plans = Vec::with_capacity(n_problems);
        let mut rules = Vec::with_capacity(n_problems);
        let mut draws = Vec::with_capacity(n_problems);
        for (p, state) in states.iter_mut().enumerate() {
            if state.n_features() != n_features {
                return Err(PyValueError::new_err(format!(
                    "the solver state has {} features, the data {n_features}",
                    state.n_features()
                )));
            }
            if state.steps() == 0 && params.loss.curvature().is_some() {
                // As `fit_binary` starts a fresh state: at `first_step`.
                let Some(&(total, heaviest)) =
                    labels.first_step_sums.as_ref().and_then(|s| s.get(p))
                else {
                    return Err(PyValueError::new_err(format!(
                        "first_step_sums (one per problem) are needed to start a fresh fit \
                         of loss {:?}",
                        params.loss.name()
                    )));
                };
                let sums = FirstStepSums { total, heaviest };
                start_at(state, first_step_from_sums(&params, sums, n_rows));
            }
            let positives = match &classes {
                Some(c) => counts[if c.n_classes == 2 { 1 } else { p }] as usize,
                None => 0,
            };
            draws.push(
                KeyDraws::new(Cow::Owned(params.sampling.clone()), n_rows, positives)
                    .map_err(CoreError)?,
            );
            rules.push(StepRule::new(&params, zero_losses[p]));
            plans.push(plan_linear_fit(&params, state, n_rows).map_err(CoreError)?);
        }
        Ok(Self {
            params,
            states,
            plans,
            rules,
            draws,
            active: vec![false; n_problems],
            n_rows,
            classes,
            n_threads,
        })
    }

    /// Number of binary problems.
    #[getter]
    fn n_problems(&self) -> usize {
        self.states.len()
    }

    /// Whether `end_pass` needs the loss sums (`tol` or `verbose`).
    #[getter]
    fn wants_objective(&self) -> bool {
        PassPlan::wants_objective(&self.params)
    }

    /// Begin the next pass of every problem still running: the number of steps of
    /// each (0 for problems that are done).
    fn next_pass(&mut self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.plans.len());
        for (plan, active) in self.plans.iter_mut().zip(&mut self.active) {
            let steps = plan.next_pass();
            *active = steps.is_some();
            out.push(steps.unwrap_or(0));
        }
        out
    }

    /// Draw the next `counts[p]` examples of each problem `p`. A row index for
    /// uniform, shuffled and ordered sampling; for balanced sampling the rank `r`
    /// of the example within its class, as `r` for a positive and `-(r + 1)` for a
    /// negative example (rows of a class in increasing order).
    fn draw<'py>(
        &mut self,
        py: Python<'py>,
        counts: Vec<usize>,
    ) -> PyResult<Vec<Bound<'py, PyArray1<i64>>>> {
        if counts.len() != self.states.len() {
            return Err(PyValueError::new_err(format!(
                "{} counts for {} problems",
                counts.len(),
                self.states.len()
            )));
        }
        let mut out = Vec::with_capacity(counts.len());
        let mut buf = Vec::new();
        for ((state, draws), &count) in self.states.iter_mut().zip(&self.draws).zip(&counts) {
            buf.clear();
            buf.try_reserve_exact(count).map_err(|_| {
                CoreError(pegasos_core::Error::OutOfMemory(format!("{count} draws")))
            })?;
            state.draw(draws, count, &mut buf);
            let keys: Vec<i64> = buf
                .iter()
                .map(|d| match *d {
                    Drawn::Row(i) | Drawn::Positive(i) => i as i64,
                    Drawn::Negative(r) => -(r as i64) - 1,
                })
                .collect();
            out.push(PyArray1::from_vec(py, keys));
        }
        Ok(out)
    }

    /// Take the steps of the drawn examples: problem `p`'s are rows `drawn[p]` of
    /// `x` (whole batches, in draw order), whose targets (class codes, or a
    /// regression's real targets) and sample weights are `y` and
    /// `sample_weight`. Problems run in parallel (GIL released; Ctrl-C stops them).
    #[pyo3(signature = (x, y, sample_weight, drawn))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        x: Matrix<'py>,
        y: Targets<'py>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        drawn: Vec<PyReadonlyArray1<'py, i64>>,
    ) -> PyResult<()> {
        if drawn.len() != self.states.len() {
            return Err(PyValueError::new_err(format!(
                "{} drawn index arrays for {} problems",
                drawn.len(),
                self.states.len()
            )));
        }
        let drawn: Vec<Vec<usize>> = drawn
            .iter()
            .map(|a| {
                slice(a)?
                    .iter()
                    .map(|&i| {
                        usize::try_from(i).map_err(|_| {
                            PyValueError::new_err(format!("negative example index {i}"))
                        })
                    })
                    .collect()
            })
            .collect::<PyResult<_>>()?;
        let sample_weight = match &sample_weight {
            Some(a) => Some(slice(a)?),
            None => None,
        };
        let total: usize = drawn.iter().map(Vec::len).sum();
        let small =
            (total as f64) * (x.stored_entries() as f64 / x.n_rows().max(1) as f64) < SMALL_VISITS;
        let mut states = std::mem::take(&mut self.states);
        let outcome = (|| {
            let examples = self.examples(&y, sample_weight)?;
            let (rules, n_threads) = (&self.rules, self.n_threads);
            dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
                let rows = make()?;
                examples.check(rows.n_rows())?;
                let items: Vec<_> = states.iter_mut().zip(&drawn).collect();
                for_each_problem(items, n_threads, |p, (state, idx)| {
                    let task = examples.task(p)?;
                    run_drawn(&rows, &task, &rules[p], state, idx, cancel)
                })?;
                Ok(())
            }))
        })();
        self.states = states;
        outcome
    }

    /// The models the current iterates return (`coef` of shape `(n_problems,
    /// n_features)`, intercepts), to evaluate the objective on the data.
    fn models<'py>(&self, py: Python<'py>) -> PyResult<MatrixAndVector<'py>> {
        let d = self.states[0].n_features();
        let mut coef =
            try_filled_vec(self.states.len() * d, 0.0, "the coefficients").map_err(CoreError)?;
        let intercept: Vec<f64> = self
            .states
            .iter()
            .zip(coef.chunks_mut(d))
            .map(|(s, w)| current_model(&self.params, s, w).0)
            .collect();
        let coef = PyArray1::from_vec(py, coef).reshape([self.states.len(), d])?;
        Ok((coef, PyArray1::from_vec(py, intercept)))
    }

    /// End the pass of the problems that ran it, with their summed weighted
    /// losses over the training set (`loss_sums`; `None` unless
    /// `wants_objective`): applies the stopping rule of `tol` and returns the
    /// verbose lines (empty unless `verbose`) for the caller to print.
    fn end_pass(&mut self, loss_sums: Option<Vec<f64>>) -> PyResult<Vec<String>> {
        if let Some(l) = &loss_sums {
            if l.len() != self.states.len() {
                return Err(PyValueError::new_err(format!(
                    "{} loss sums for {} problems",
                    l.len(),
                    self.states.len()
                )));
            }
        }
        let d = self.states[0].n_features();
        let mut coef = try_filled_vec(d, 0.0, "the coefficients").map_err(CoreError)?;
        let multi = self.states.len() > 1;
        let monitor = Monitor::new().with_lines();
        for p in 0..self.states.len() {
            if !self.active[p] {
                continue;
            }
            let objective = loss_sums.as_ref().map(|l| {
                let (_, reg_sq) = current_model(&self.params, &self.states[p], &mut coef);
                objective_from_loss(l[p], self.n_rows, &coef, reg_sq, self.params.alpha)
            });
            let label = problem_label(multi && self.params.verbose, p);
            self.plans[p].end_pass(
                &self.params,
                &mut self.states[p],
                objective,
                &monitor,
                &label,
            );
        }
        Ok(monitor.take_lines())
    }

    /// Write the final states to `solver` and return the fit as
    /// `pegasos_rs._core.fit_linear` does.
    fn finish<'py>(
        &self,
        py: Python<'py>,
        mut solver: PyRefMut<'py, LinearSolverState>,
    ) -> PyResult<crate::linear::FitReturn<'py>> {
        let d = self.states[0].n_features();
        let mut coef =
            try_filled_vec(self.states.len() * d, 0.0, "the coefficients").map_err(CoreError)?;
        let outputs: Vec<_> = self
            .plans
            .iter()
            .zip(&self.states)
            .zip(coef.chunks_mut(d))
            .map(|((plan, state), w)| finish_linear_fit(plan, &self.params, state, w))
            .collect();
        solver.states.clone_from(&self.states);
        crate::linear::fit_return(py, &outputs, coef, d, &solver.states)
    }
}

/// Per problem, `acc[p] + sum_i c_i l(0, y_i)` over these rows in order (see
/// `pegasos_core::solvers::linear::zero_loss_sum`); `y` holds class codes or a
/// regression's real targets (checked: finite).
#[pyfunction]
#[pyo3(signature = (y, labels, acc, loss=LossSpec::default()))]
pub fn zero_loss_sums(
    y: Targets<'_>,
    labels: LabelWeights<'_>,
    acc: Vec<f64>,
    loss: LossSpec,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let examples = labels.examples(&y)?;
    examples.check(examples.n_examples()).map_err(CoreError)?;
    if acc.len() != examples.n_problems() {
        return Err(PyValueError::new_err("one accumulator per problem"));
    }
    acc.iter()
        .enumerate()
        .map(|(p, &a)| {
            Ok(zero_loss_sum(
                &examples.task(p).map_err(CoreError)?,
                &loss,
                a,
            ))
        })
        .collect()
}

/// Per problem `p`, `acc[p] + sum_i c_i l(<coef[p], x_i> + intercept[p], y_i)`
/// over the rows of `x` in order (see `pegasos_core::solvers::linear::loss_sum`);
/// `y` holds class codes or a regression's real targets.
#[pyfunction]
#[pyo3(signature = (x, y, labels, coef, intercept, acc, loss=LossSpec::default()))]
#[allow(clippy::too_many_arguments)]
pub fn loss_sums<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: Targets<'py>,
    labels: LabelWeights<'py>,
    coef: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    acc: Vec<f64>,
    loss: LossSpec,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let examples = labels.examples(&y)?;
    let (coef, intercept) = (slice(&coef)?, slice(&intercept)?);
    let k = examples.n_problems();
    if acc.len() != k || intercept.len() != k {
        return Err(PyValueError::new_err(
            "one accumulator and one intercept per problem",
        ));
    }
    dispatch_rows!(x, make => detach(py, || {
        let rows = make()?;
        examples.check(rows.n_rows())?;
        let d = rows.n_features();
        if coef.len() != k * d {
            return Err(pegasos_core::Error::ShapeMismatch(format!(
                "coef has {} values for {k} problems x {d} features",
                coef.len()
            )));
        }
        (0..k)
            .map(|p| {
                let task = examples.task(p)?;
                let w = &coef[p * d..(p + 1) * d];
                Ok(loss_sum(&rows, &task, &loss, w, intercept[p], acc[p]))
            })
            .collect()
    }))
}

/// Per problem, `(total, heaviest)` of `pegasos_core::solvers::linear::
/// first_step_sums` continued from `acc[p]` over the rows of `x` in order: chained
/// over the blocks of the training set from `(0.0, 0.0)`, what a fresh fit of a
/// loss that starts late (`starts_late`) starts from (`StreamedLinearFit`'s
/// `labels["first_step_sums"]`, `first_steps`). With `params["check_input"]`
/// false, `x` is read as the in-memory solver reads unchecked rows.
#[pyfunction]
#[pyo3(signature = (x, y, labels, params, acc))]
pub fn first_step_sums<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: Targets<'py>,
    labels: LabelWeights<'py>,
    params: SolverParams<'py>,
    acc: Vec<(f64, f64)>,
) -> PyResult<Vec<(f64, f64)>> {
    let check_input = params.check_input;
    let params = params.validate()?;
    let examples = labels.examples(&y)?;
    if acc.len() != examples.n_problems() {
        return Err(PyValueError::new_err("one accumulator per problem"));
    }
    dispatch_rows!(x, checked = check_input, make => detach(py, || {
        let rows = make()?;
        if rows.is_checked() {
            examples.check(rows.n_rows())?;
        } else {
            examples.check_shapes(rows.n_rows())?;
        }
        acc.iter()
            .enumerate()
            .map(|(p, &(total, heaviest))| {
                let task = examples.task(p)?;
                let s = core_first_step_sums(&rows, &task, &params, FirstStepSums { total, heaviest });
                Ok((s.total, s.heaviest))
            })
            .collect()
    }))
}

/// Whether a fresh run of `loss` starts after step 1 (the squared losses, whose
/// slope is unbounded: `pegasos_core::solvers::linear::first_step`), so that a fit
/// from fresh states needs `first_step_sums`.
#[pyfunction]
pub fn starts_late(loss: LossSpec) -> PyResult<bool> {
    Ok(loss.loss()?.curvature().is_some())
}

/// Per problem, the step a fresh run of `params` on `n_rows` rows starts at, from
/// its `first_step_sums` over all of them (1 for a loss that does not start
/// late): `pegasos_core::solvers::linear::first_step_from_sums`.
#[pyfunction]
pub fn first_steps(
    params: SolverParams<'_>,
    n_rows: usize,
    sums: Vec<(f64, f64)>,
) -> PyResult<Vec<u64>> {
    let params = params.validate()?;
    Ok(sums
        .into_iter()
        .map(|(total, heaviest)| {
            first_step_from_sums(&params, FirstStepSums { total, heaviest }, n_rows)
        })
        .collect())
}

/// Per problem, the mean weighted loss at zero `L0 = 1/m sum_i c_i l(0, y_i)`
/// (the projection radius's) of `n_rows` rows from their summed `zero_loss_sums`,
/// or, when every weight is 1 (`None`; margin losses only), `l(0)`: as the
/// in-memory solver computes it.
#[pyfunction]
#[pyo3(signature = (loss, n_rows, n_problems, zero_loss_sums))]
pub fn mean_zero_losses(
    loss: LossSpec,
    n_rows: usize,
    n_problems: usize,
    zero_loss_sums: Option<Vec<f64>>,
) -> PyResult<Vec<f64>> {
    zero_losses_of(&loss.loss()?, n_rows, n_problems, zero_loss_sums.as_deref())
}

/// Check a matrix as training does (structure, finite values) without training.
#[pyfunction]
pub fn check_matrix<'py>(py: Python<'py>, x: Matrix<'py>) -> PyResult<()> {
    dispatch_rows!(x, make => detach(py, || make().map(|_| ())))
}
