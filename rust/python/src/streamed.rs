//! Linear Pegasos with the examples supplied by the caller: the client side of
//! `pegasos_rs.dask`'s exact mode.
//!
//! The rows stay on a cluster. This object holds what the client needs (the solver
//! states, the pass plans, the constants of the update rule) and nothing of size m:
//! it draws the examples of the next steps from counts only, Python fetches those
//! rows, and `run` takes the steps on them, so the model is the in-memory
//! solver's, bit for bit (`pegasos_core::StreamedFit`, which holds the
//! solver; this module converts arrays). The problems are those of one-vs-rest
//! classification, the one problem of a regression (or of the one-class SVM), or
//! the joint problem of the Crammer–Singer multiclass SVM.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::thresholds::SMALL_VISITS;
use pegasos_core::{
    one_class_sq_norm as core_sq_norm, ClassSummary, FirstStepSums, LabelSummary as CoreSummary,
    StreamedFit, Targets as CoreTargets,
};

use crate::arrays::{slice, Matrix, MatrixAndVector};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::linear::LinearSolverState;
use crate::params::{LabelWeights, LossSpec, MultiClass, SolverParams, Targets};

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
    zero_loss_sums: Option<Vec<f64>>,
    /// Per problem, `(total, squares, largest, heaviest)` of `first_step_sums` over
    /// all rows in order: needed when fresh states of a loss that starts late (`starts_late`)
    /// are to start at the in-memory solver's first step.
    #[pyo3(default)]
    first_step_sums: Option<Vec<Sums>>,
    /// The one-class SVM with projection: the largest squared norm of the rows of
    /// positive weight (`one_class_sq_norm` of every block, the largest).
    #[pyo3(default)]
    one_class_sq_norm: Option<f64>,
}

impl LabelSummary<'_> {
    /// The core's summary.
    fn to_core(&self) -> PyResult<CoreSummary> {
        let classes = match (&self.n_classes, &self.class_weight, &self.class_counts) {
            (None, None, None) => None,
            (Some(n), Some(cw), Some(counts)) => {
                let (class_weight, counts) = (slice(cw)?.to_vec(), slice(counts)?.to_vec());
                if class_weight.len() != *n || counts.len() != *n {
                    return Err(PyValueError::new_err(format!(
                        "{n} classes with {} class weights and {} class counts",
                        class_weight.len(),
                        counts.len()
                    )));
                }
                Some(ClassSummary {
                    class_weight,
                    counts,
                })
            }
            _ => {
                return Err(PyValueError::new_err(
                    "n_classes, class_weight and class_counts go together (all absent: a \
                     regression)",
                ))
            }
        };
        Ok(CoreSummary {
            classes,
            zero_loss_sums: self.zero_loss_sums.clone(),
            first_step_sums: self
                .first_step_sums
                .as_ref()
                .map(|s| s.iter().copied().map(first_sums).collect()),
            one_class_sq_norm: self.one_class_sq_norm,
        })
    }
}

/// A linear fit whose rows live elsewhere (`pegasos_core::StreamedFit`).
#[pyclass(module = "pegasos_rs._core")]
pub struct StreamedLinearFit {
    fit: StreamedFit,
    n_threads: usize,
}

#[pymethods]
impl StreamedLinearFit {
    /// Start a fit of `n_rows` x `n_features` rows continuing `solver`'s states
    /// (fresh ones when it is empty, starting at the in-memory solver's first step:
    /// `labels["first_step_sums"]` for the losses that start late): one-vs-rest, a
    /// regression, or with `params["multi_class"] == "crammer_singer"` the one
    /// joint problem. `solver` itself is not changed until `finish`.
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
        let joint = match params.multi_class() {
            MultiClass::Ovr => false,
            MultiClass::CrammerSinger => true,
            MultiClass::OvrShared => {
                return Err(PyValueError::new_err(
                    "multi_class='ovr_shared' has no streamed form (its problems share \
                     draws)",
                ))
            }
        };
        let params = params.validate()?;
        let fit = StreamedFit::new(
            params,
            &solver.states,
            n_rows,
            n_features,
            &labels.to_core()?,
            joint,
        )
        .map_err(CoreError)?;
        Ok(Self { fit, n_threads })
    }

    /// Number of problems drawn separately (1 for a regression and for the
    /// Crammer–Singer problem).
    #[getter]
    fn n_problems(&self) -> usize {
        self.fit.n_problems()
    }

    /// Whether `end_pass` needs the loss sums (`tol` or `verbose`).
    #[getter]
    fn wants_objective(&self) -> bool {
        self.fit.wants_objective()
    }

    /// Begin the next pass of every problem still running: the number of steps of
    /// each (0 for problems that are done).
    fn next_pass(&mut self) -> Vec<u64> {
        self.fit.next_pass()
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
        let keys = self.fit.draw(&counts).map_err(CoreError)?;
        Ok(keys
            .into_iter()
            .map(|k| PyArray1::from_vec(py, k))
            .collect())
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
        let targets = match &y {
            Targets::Codes(c) => CoreTargets::Codes(slice(c)?),
            Targets::Values(v) => CoreTargets::Values(slice(v)?),
        };
        let total: usize = drawn.iter().map(Vec::len).sum();
        let small =
            (total as f64) * (x.stored_entries() as f64 / x.n_rows().max(1) as f64) < SMALL_VISITS;
        let (fit, n_threads) = (&mut self.fit, self.n_threads);
        dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
            let rows = make()?;
            fit.run(&rows, targets, sample_weight, &drawn, n_threads, cancel)
        }))
    }

    /// The models the current iterates return (`coef` of shape `(n_models,
    /// n_features)`: a row per problem, or per class of the Crammer–Singer
    /// problem; intercepts), to evaluate the objective on the data.
    fn models<'py>(&self, py: Python<'py>) -> PyResult<MatrixAndVector<'py>> {
        let (coef, intercept) = self.fit.model().map_err(CoreError)?;
        let rows = intercept.len();
        let d = coef.len() / rows.max(1);
        let coef = PyArray1::from_vec(py, coef).reshape([rows, d])?;
        Ok((coef, PyArray1::from_vec(py, intercept)))
    }

    /// The one-class SVM: the rows (global indices, in order) whose scores reset
    /// the bias after each pass (`one_class_reset`); empty for other fits.
    fn one_class_sample<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let rows = self.fit.one_class_sample();
        PyArray1::from_vec(py, rows.into_iter().map(|i| i as i64).collect())
    }

    /// The one-class SVM after a pass: the bias set from the scores of the rows
    /// `x` (those of `one_class_sample`, in order) with their sample weights, as
    /// the in-memory solver sets it; nothing for other fits.
    #[pyo3(signature = (x, sample_weight))]
    fn one_class_reset<'py>(
        &mut self,
        py: Python<'py>,
        x: Matrix<'py>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<()> {
        let sample_weight = match &sample_weight {
            Some(a) => Some(slice(a)?),
            None => None,
        };
        let fit = &mut self.fit;
        dispatch_rows!(x, make => detach(py, || {
            fit.one_class_reset(&make()?, sample_weight)
        }))
    }

    /// End the pass of the problems that ran it, with their summed weighted
    /// losses over the training set (`loss_sums`; `None` unless
    /// `wants_objective`): applies the stopping rule of `tol` and returns the
    /// verbose lines (empty unless `verbose`) for the caller to print. The
    /// one-class SVM with an offset to learn: `one_class_rho`, the exact offset of
    /// the iterate's weights (the losses summed with the intercept `1 - rho`).
    #[pyo3(signature = (loss_sums, one_class_rho=None))]
    fn end_pass(
        &mut self,
        loss_sums: Option<Vec<f64>>,
        one_class_rho: Option<f64>,
    ) -> PyResult<Vec<String>> {
        Ok(self
            .fit
            .end_pass(loss_sums.as_deref(), one_class_rho)
            .map_err(CoreError)?)
    }

    /// Write the final states to `solver` and return the fit as
    /// `pegasos_rs._core.fit_linear` does.
    fn finish<'py>(
        &self,
        py: Python<'py>,
        mut solver: PyRefMut<'py, LinearSolverState>,
    ) -> PyResult<crate::linear::FitReturn<'py>> {
        let (outputs, coef, states) = self.fit.finish().map_err(CoreError)?;
        let d = coef.len() / outputs.len().max(1);
        solver.states = states;
        crate::linear::fit_return(py, &outputs, coef, d, &solver.states)
    }
}

/// Per problem, `acc[p] + sum_i c_i l(0, y_i)` over these rows in order
/// (`StreamedFit::zero_loss_sums`); `y` holds class codes or a regression's real
/// targets (checked: finite). With `joint`, the one sum of the Crammer–Singer
/// problem, `acc[0] + sum_i c_i`.
#[pyfunction]
#[pyo3(signature = (y, labels, acc, loss=LossSpec::default(), joint=false))]
pub fn zero_loss_sums(
    y: Targets<'_>,
    labels: LabelWeights<'_>,
    acc: Vec<f64>,
    loss: LossSpec,
    joint: bool,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let examples = labels.examples(&y)?;
    StreamedFit::zero_loss_sums(&examples, &loss, &acc, joint).map_err(|e| CoreError(e).into())
}

/// Per problem `p`, `acc[p] + sum_i c_i l(<coef[p], x_i> + intercept[p], y_i)`
/// over the rows of `x` in order (`StreamedFit::loss_sums`); `y` holds class codes
/// or a regression's real targets. With `joint`, the one Crammer–Singer loss sum
/// of the model `coef` (a row per class), `intercept`.
#[pyfunction]
#[pyo3(signature = (x, y, labels, coef, intercept, acc, loss=LossSpec::default(), joint=false))]
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
    joint: bool,
) -> PyResult<Vec<f64>> {
    let loss = loss.loss()?;
    let examples = labels.examples(&y)?;
    let (coef, intercept) = (slice(&coef)?, slice(&intercept)?);
    dispatch_rows!(x, make => detach(py, || {
        StreamedFit::loss_sums(&make()?, &examples, &loss, coef, intercept, &acc, joint)
    }))
}

/// Per problem, `(total, squares, largest, heaviest)` of
/// `StreamedFit::first_step_sums` continued from `acc[p]` over the rows of `x` in
/// order: chained over the blocks of the training set from zeros (or the blocks'
/// sums added, their `largest` and `heaviest` maximised), what a fresh fit of a loss that starts late
/// (`starts_late`) starts from (`StreamedLinearFit`'s
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
    acc: Vec<Sums>,
) -> PyResult<Vec<Sums>> {
    let check_input = params.check_input;
    let params = params.validate()?;
    let examples = labels.examples(&y)?;
    let acc: Vec<FirstStepSums> = acc.into_iter().map(first_sums).collect();
    let sums = dispatch_rows!(x, checked = check_input, make => detach(py, || {
        StreamedFit::first_step_sums(&make()?, &examples, &params, &acc)
    }))?;
    Ok(sums
        .into_iter()
        .map(|s| (s.total, s.squares, s.largest, s.heaviest))
        .collect())
}

/// `FirstStepSums` as Python passes them: `(total, squares, largest, heaviest)`.
type Sums = (f64, f64, f64, f64);

/// `(total, squares, largest, heaviest)` as the core's sums.
fn first_sums((total, squares, largest, heaviest): Sums) -> FirstStepSums {
    FirstStepSums {
        total,
        squares,
        largest,
        heaviest,
    }
}

/// Whether a fresh run of `loss` starts after step 1 (the squared losses, whose
/// slope is unbounded: `LossFunction::starts_late`), so that a fit from fresh
/// states needs `first_step_sums`.
#[pyfunction]
pub fn starts_late(loss: LossSpec) -> PyResult<bool> {
    Ok(loss.loss()?.starts_late())
}

/// Per problem, the step a fresh run of `params` starts at, from its
/// `first_step_sums` over all of its rows (1 for a loss that does not start
/// late): `StreamedFit::first_steps`.
#[pyfunction]
pub fn first_steps(params: SolverParams<'_>, sums: Vec<Sums>) -> PyResult<Vec<u64>> {
    let params = params.validate()?;
    let sums: Vec<FirstStepSums> = sums.into_iter().map(first_sums).collect();
    Ok(StreamedFit::first_steps(&params, &sums))
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
    StreamedFit::mean_zero_losses(&loss.loss()?, zero_loss_sums.as_deref(), n_rows, n_problems)
        .map_err(|e| CoreError(e).into())
}

/// Check a matrix as training does (structure, finite values) without training.
#[pyfunction]
pub fn check_matrix<'py>(py: Python<'py>, x: Matrix<'py>) -> PyResult<()> {
    dispatch_rows!(x, make => detach(py, || make().map(|_| ())))
}

/// The largest squared norm of the rows of `x` of positive sample weight (0 when
/// none): `pegasos_core::largest_sq_norm`, the one-class SVM's projection radius
/// over a block (the blocks' largest is the training set's).
#[pyfunction]
#[pyo3(signature = (x, sample_weight))]
pub fn one_class_sq_norm<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<f64> {
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    dispatch_rows!(x, make => detach(py, || core_sq_norm(&make()?, sample_weight)))
}
