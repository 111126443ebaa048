//! Linear Pegasos with the examples supplied by the caller: the client side of
//! `pegasos_rs.dask`'s exact mode.
//!
//! The rows stay on a cluster. This object holds what the client needs (the solver
//! states, the pass plans, the constants of the update rule) and nothing of size m:
//! it draws the examples of the next steps from counts only, Python fetches those
//! rows, and `run` takes the steps on them, so the model is the in-memory
//! solver's, bit for bit (`pegasos_core::solvers::linear::run_drawn`).

use std::borrow::Cow;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::error::try_filled_vec;
use pegasos_core::parallel::for_each_problem;
use pegasos_core::solvers::linear::{current_model, loss_sum, objective_from_loss, zero_loss_sum};
use pegasos_core::solvers::loss::{Loss, LossFunction};
use pegasos_core::solvers::multiclass::problem_label;
use pegasos_core::solvers::sampler::{Drawn, KeyDraws};
use pegasos_core::thresholds::SMALL_VISITS;
use pegasos_core::Monitor;
use pegasos_core::{
    finish_linear_fit, initial_states, plan_linear_fit, run_drawn, Labels, LinearState, PassPlan,
    Rows, StepRule, ValidParams,
};

use crate::arrays::{slice, Matrix, MatrixAndVector};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::linear::LinearSolverState;
use crate::params::{LabelWeights, LossSpec, SolverParams};

/// What the client knows of the training labels without holding them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LabelSummary<'py> {
    n_classes: usize,
    class_weight: PyReadonlyArray1<'py, f64>,
    /// Examples of each class.
    class_counts: PyReadonlyArray1<'py, u64>,
    /// Per binary problem, `sum_i c_i l(0, y_i)` in row order (`zero_loss_sums`
    /// in `pegasos_rs._core`); `None` when every weight is 1.
    zero_loss_sums: Option<PyReadonlyArray1<'py, f64>>,
}

impl LabelSummary<'_> {
    /// Per binary problem, the mean weighted loss at zero `L0` of the `n_rows` rows
    /// (`class_weight`: the classes' weights), as the in-memory solver computes it
    /// (`pegasos_core::solvers::linear::mean_zero_loss`).
    fn zero_losses(
        &self,
        class_weight: &[f64],
        loss: &LossFunction,
        n_rows: usize,
        n_problems: usize,
    ) -> PyResult<Vec<f64>> {
        let means = match &self.zero_loss_sums {
            Some(s) => slice(s)?.iter().map(|s| s / n_rows as f64).collect(),
            None if class_weight.iter().all(|&c| c == 1.0) => {
                vec![loss.value(0.0, 1.0); n_problems]
            }
            None => {
                return Err(PyValueError::new_err(
                    "zero_loss_sums are needed when a class weight is not 1",
                ))
            }
        };
        if means.len() != n_problems {
            return Err(PyValueError::new_err(format!(
                "{} loss sums for {n_problems} binary problems",
                means.len()
            )));
        }
        Ok(means)
    }
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
    n_classes: usize,
    class_weight: Vec<f64>,
    n_threads: usize,
}

impl StreamedLinearFit {
    fn labels<'a>(&'a self, codes: &'a [u32], sample_weight: Option<&'a [f64]>) -> Labels<'a> {
        Labels {
            codes,
            n_classes: self.n_classes,
            sample_weight,
            class_weight: &self.class_weight,
        }
    }
}

#[pymethods]
impl StreamedLinearFit {
    /// Start a fit of `n_rows` x `n_features` rows continuing `solver`'s states
    /// (fresh ones when it is empty). `solver` itself is not changed until
    /// `finish`.
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
        let class_weight = slice(&labels.class_weight)?.to_vec();
        let counts = slice(&labels.class_counts)?;
        let n_classes = labels.n_classes;
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
        if n_features == 0 {
            return Err(PyValueError::new_err("the data has no features"));
        }
        let n_problems = if n_classes == 2 { 1 } else { n_classes };
        let zero_losses = labels.zero_losses(&class_weight, &params.loss, n_rows, n_problems)?;
        let mut states = if solver.states.is_empty() {
            initial_states(n_problems, n_features, params.seed).map_err(CoreError)?
        } else {
            solver.states.clone()
        };
        if states.len() != n_problems {
            return Err(PyValueError::new_err(format!(
                "{} solver states for {n_problems} binary problems",
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
            let positive = if n_classes == 2 { 1 } else { p };
            draws.push(
                KeyDraws::new(
                    Cow::Owned(params.sampling.clone()),
                    n_rows,
                    counts[positive] as usize,
                )
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
            n_classes,
            class_weight,
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
    /// `x` (whole batches, in draw order), whose class codes and sample weights
    /// are `codes` and `sample_weight`. Problems run in parallel (GIL released;
    /// Ctrl-C stops them).
    #[pyo3(signature = (x, codes, sample_weight, drawn))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        x: Matrix<'py>,
        codes: PyReadonlyArray1<'py, u32>,
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
        let codes = slice(&codes)?;
        let sample_weight = match &sample_weight {
            Some(a) => Some(slice(a)?),
            None => None,
        };
        let total: usize = drawn.iter().map(Vec::len).sum();
        let small =
            (total as f64) * (x.stored_entries() as f64 / x.n_rows().max(1) as f64) < SMALL_VISITS;
        let mut states = std::mem::take(&mut self.states);
        let outcome = {
            let labels = self.labels(codes, sample_weight);
            let (rules, n_threads) = (&self.rules, self.n_threads);
            dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
                let rows = make()?;
                labels.check(rows.n_rows())?;
                let items: Vec<_> = states.iter_mut().zip(&drawn).collect();
                for_each_problem(items, n_threads, |p, (state, idx)| {
                    let task = labels.task(p)?;
                    run_drawn(&rows, &task, &rules[p], state, idx, cancel)
                })?;
                Ok(())
            }))
        };
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

    /// End the pass of the problems that ran it, with their summed weighted hinge
    /// losses over the training set (`hinge_sums`; `None` unless
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

/// Per binary problem, `acc[p] + sum_i c_i l(0, y_i)` over these rows in order
/// (see `pegasos_core::solvers::linear::zero_loss_sum`).
#[pyfunction]
#[pyo3(signature = (codes, labels, acc, loss=LossSpec::default()))]
pub fn zero_loss_sums(
    codes: PyReadonlyArray1<'_, u32>,
    labels: LabelWeights<'_>,
    acc: Vec<f64>,
    loss: LossSpec,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let codes = slice(&codes)?;
    let labels = labels.with_codes(codes)?;
    labels.check(codes.len()).map_err(CoreError)?;
    if acc.len() != labels.n_problems() {
        return Err(PyValueError::new_err("one accumulator per binary problem"));
    }
    acc.iter()
        .enumerate()
        .map(|(p, &a)| Ok(zero_loss_sum(&labels.task(p).map_err(CoreError)?, &loss, a)))
        .collect()
}

/// Per binary problem `p`, `acc[p] + sum_i c_i l(<coef[p], x_i> + intercept[p],
/// y_i)` over the rows of `x` in order (see
/// `pegasos_core::solvers::linear::loss_sum`).
#[pyfunction]
#[pyo3(signature = (x, codes, labels, coef, intercept, acc, loss=LossSpec::default()))]
#[allow(clippy::too_many_arguments)]
pub fn loss_sums<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    labels: LabelWeights<'py>,
    coef: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    acc: Vec<f64>,
    loss: LossSpec,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let codes = slice(&codes)?;
    let labels = labels.with_codes(codes)?;
    let (coef, intercept) = (slice(&coef)?, slice(&intercept)?);
    let k = labels.n_problems();
    if acc.len() != k || intercept.len() != k {
        return Err(PyValueError::new_err(
            "one accumulator and one intercept per binary problem",
        ));
    }
    dispatch_rows!(x, make => detach(py, || {
        let rows = make()?;
        labels.check(rows.n_rows())?;
        let d = rows.n_features();
        if coef.len() != k * d {
            return Err(pegasos_core::Error::ShapeMismatch(format!(
                "coef has {} values for {k} problems x {d} features",
                coef.len()
            )));
        }
        (0..k)
            .map(|p| {
                let task = labels.task(p)?;
                let w = &coef[p * d..(p + 1) * d];
                Ok(loss_sum(&rows, &task, &loss, w, intercept[p], acc[p]))
            })
            .collect()
    }))
}

/// Check a matrix as training does (structure, finite values) without training.
#[pyfunction]
pub fn check_matrix<'py>(py: Python<'py>, x: Matrix<'py>) -> PyResult<()> {
    dispatch_rows!(x, make => detach(py, || make().map(|_| ())))
}
