//! Python entry points of linear Pegasos: extract inputs with the GIL held, run the
//! core with it released, hand back numpy arrays.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use pegasos_core::io::codec::{decode_states, encode_states};
use pegasos_core::{
    class_counts as core_class_counts, decision_function as core_decision,
    decision_function_many as core_decision_many, split_labels, split_targets, FitOutput,
    FittedLinearModel, HeldOutRows, LinearRanker, LinearRegressor, LinearState, LinearSvm, Rows,
};

use crate::arrays::{slice, Matrix, MatrixAndVector};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::params::{LabelWeights, SolverParams};
use pegasos_core::thresholds::{is_small, SMALL_VISITS};

/// The complete solver state of a linear model (one entry per binary problem), kept
/// in Rust between calls; it is serialized only when pickled.
#[pyclass(module = "pegasos_rs._core")]
#[derive(Default)]
pub struct LinearSolverState {
    pub(crate) states: Vec<LinearState>,
}

#[pymethods]
impl LinearSolverState {
    /// An empty state (a fit starts fresh from it).
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Number of binary problems.
    fn __len__(&self) -> usize {
        self.states.len()
    }

    /// The last iterate of each problem: `w` with the bias-multiplier weight last
    /// (`(n_problems, n_features + 1)`), the unregularised biases, the step counts.
    fn iterates<'py>(&self, py: Python<'py>) -> PyResult<(MatrixAndVector<'py>, Vec<u64>)> {
        let width = self.states.first().map_or(0, |s| s.n_features() + 1);
        let mut v = Vec::with_capacity(self.states.len() * width);
        let mut bias = Vec::with_capacity(self.states.len());
        for s in &self.states {
            let (w, b) = s.iterate();
            v.extend_from_slice(&w);
            bias.push(b);
        }
        Ok((
            (
                PyArray1::from_vec(py, v).reshape([self.states.len(), width])?,
                PyArray1::from_vec(py, bias),
            ),
            self.states.iter().map(LinearState::steps).collect(),
        ))
    }

    /// Replace the states by states at these iterates (see `iterates`), without an
    /// average, problem `p` drawing from stream `p` of `seed`.
    fn set_iterates(
        &mut self,
        v: PyReadonlyArray2<'_, f64>,
        bias: PyReadonlyArray1<'_, f64>,
        t: Vec<u64>,
        seed: u64,
    ) -> PyResult<()> {
        let (k, width) = crate::arrays::shape2(&v);
        let (v, bias) = (slice(&v)?, slice(&bias)?);
        if bias.len() != k || t.len() != k {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "one bias and one step count per iterate",
            ));
        }
        self.states = (0..k)
            .map(|p| {
                LinearState::at_iterate(
                    v[p * width..(p + 1) * width].to_vec(),
                    bias[p],
                    t[p],
                    seed,
                    p as u64,
                )
            })
            .collect::<pegasos_core::Result<_>>()
            .map_err(CoreError)?;
        Ok(())
    }

    /// Versioned little-endian encoding (see `pegasos_core::io::codec`).
    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &encode_states(&self.states))
    }

    /// Restore from `__getstate__`'s bytes.
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.states = decode_states(state).map_err(CoreError)?;
        Ok(())
    }
}

/// What `fit_linear` returns to Python: a dict of `coef` (`n_problems`, `n_features`),
/// `intercept`, and per problem `n_iter` (passes run), `t` (steps so far),
/// `objective` (after the last pass, or None), `converged` (whether `tol`'s rule
/// was met; None without `tol`) and `settling` (without `tol`, how much the last of
/// two passes or more lowered the objective, relative to it; else None).
pub(crate) type FitReturn<'py> = Bound<'py, PyDict>;

/// Train one-vs-rest linear Pegasos, continuing `solver` (fresh when it is empty)
/// and leaving the final state in it. `labels` holds `n_classes`, `class_weight`
/// and `sample_weight`. With `params["check_input"]` false, `x` and the codes are
/// checked row by row as the solver reads them, not as a whole before it starts.
/// With `params["multi_class"] == "crammer_singer"`, the Crammer–Singer solver:
/// one coefficient row and one output per class (also for two classes), and the
/// state in `pegasos_core::CrammerSingerState::to_states`' form.
///
/// With `n_held_out > 0` the last `n_held_out` rows of `x` (and of the codes and
/// sample weights) are held out: the fit trains on the others, and each binary
/// problem scores its model on them after every pass, its stopping rule reading
/// that score (early stopping; one-vs-rest only); the scores are returned as
/// `validation_scores` (one list per problem).
#[pyfunction]
#[pyo3(signature = (x, codes, labels, solver, params, n_threads, n_held_out=0))]
#[allow(clippy::too_many_arguments)] // the inputs of a fit, each named
pub fn fit_linear<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    labels: LabelWeights<'py>,
    mut solver: PyRefMut<'py, LinearSolverState>,
    params: SolverParams<'py>,
    n_threads: usize,
    n_held_out: usize,
) -> PyResult<FitReturn<'py>> {
    let check_input = params.check_input;
    let mode = params.multi_class();
    let params = params.validate()?;
    let max_iter = params.max_iter;
    let builder = LinearSvm::with_params(params.into_params())
        .multi_class(mode.into())
        .n_threads(n_threads);
    let codes = slice(&codes)?;
    // A copy is trained: the estimator's state changes only when the fit
    // succeeds, so an interrupted or failed call leaves it as it was.
    let mut states = solver.states.clone();
    let labels = labels.with_codes(codes)?;
    let n_train = training_rows(&x, n_held_out)?;
    let (labels, held_targets, held_weights) =
        split_labels(&labels, n_held_out).map_err(CoreError)?;
    // About 10^7 visits of stored entries take a few milliseconds: below, no watcher.
    let visits = x.stored_entries() as f64 * max_iter as f64 * labels.n_problems() as f64;
    let small = visits < SMALL_VISITS;
    let model = dispatch_rows!(x, checked = check_input, make => detach_interruptible(py, small, |cancel| {
        let (train, held) = make()?.split_rows(n_train)?;
        let held = HeldOutRows::new(&held, held_targets, held_weights);
        let held = (n_held_out > 0).then_some(&held);
        builder.fit_held_out(&train, &labels, held, &mut states, cancel)
    }))?;
    solver.states = states;
    let d = model.n_features();
    let (coef, outputs) = model.into_parts();
    fit_return(py, &outputs, coef, d, &solver.states)
}

/// Train a linear regression (`params["loss"]` a regression loss) of `targets`,
/// continuing `solver` (fresh when it is empty: one state, stream 0 of the seed)
/// and leaving the final state in it; returns what `fit_linear` returns, for one
/// problem. With `params["check_input"]` false, `x` is checked row by row as the
/// solver reads it; the targets are always checked (one pass).
///
/// With `n_held_out > 0` the last `n_held_out` rows (targets, sample weights) are
/// held out and scored (R^2) after every pass, as `fit_linear` holds rows out.
#[pyfunction]
#[pyo3(signature = (x, targets, sample_weight, solver, params, n_held_out=0))]
pub fn fit_linear_regression<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    targets: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    mut solver: PyRefMut<'py, LinearSolverState>,
    params: SolverParams<'py>,
    n_held_out: usize,
) -> PyResult<FitReturn<'py>> {
    let check_input = params.check_input;
    let params = params.validate()?;
    let targets = slice(&targets)?;
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    let n_train = training_rows(&x, n_held_out)?;
    let ((targets, sample_weight), (held_targets, held_weights)) =
        split_targets(targets, sample_weight, n_held_out).map_err(CoreError)?;
    let visits = x.stored_entries() as f64 * params.max_iter as f64;
    let small = visits < SMALL_VISITS;
    let builder = LinearRegressor::with_params(params.into_params());
    let mut states = solver.states.clone();
    let model = dispatch_rows!(x, checked = check_input, make => detach_interruptible(py, small, |cancel| {
        let (train, held) = make()?.split_rows(n_train)?;
        let held = HeldOutRows::new(&held, held_targets, held_weights);
        let held = (n_held_out > 0).then_some(&held);
        builder.fit_held_out(&train, (targets, sample_weight), held, &mut states, cancel)
    }))?;
    solver.states = states;
    one_problem_return(py, model, &solver.states)
}

/// Train a ranking (`params["loss"]` `"hinge"` or `"log_loss"`, no intercept) of the
/// rows with relevance `y` grouped by the query ids `qid` (`None`: the whole set
/// is one query, AUC optimisation), continuing `solver` (fresh when empty: one
/// state, stream 0 of the seed) and leaving the final state in it; returns what
/// `fit_linear` returns, for one problem (intercept 0).
#[pyfunction]
#[pyo3(signature = (x, y, qid, solver, params))]
pub fn fit_ranking<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: PyReadonlyArray1<'py, f64>,
    qid: Option<PyReadonlyArray1<'py, i64>>,
    mut solver: PyRefMut<'py, LinearSolverState>,
    params: SolverParams<'py>,
) -> PyResult<FitReturn<'py>> {
    let check_input = params.check_input;
    let params = params.validate()?;
    let y = slice(&y)?;
    let qid = match &qid {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    let visits = x.stored_entries() as f64 * params.max_iter as f64 * 2.0;
    let small = visits < SMALL_VISITS;
    let builder = LinearRanker::with_params(params.into_params());
    let mut states = solver.states.clone();
    let model = dispatch_rows!(x, checked = check_input, make => detach_interruptible(py, small, |cancel| {
        builder.fit_from(&make()?, y, qid, &mut states, cancel)
    }))?;
    solver.states = states;
    one_problem_return(py, model, &solver.states)
}

/// The rows a fit of `x` trains on when its last `n_held_out` rows are held out:
/// an error unless both parts keep a row (without held-out rows, all of them).
pub(crate) fn training_rows(x: &Matrix<'_>, n_held_out: usize) -> PyResult<usize> {
    let n = x.n_rows();
    if n_held_out > 0 && n_held_out >= n {
        return Err(PyValueError::new_err(format!(
            "early stopping holds out {n_held_out} of {n} rows: both the training and the \
             held-out rows need at least one"
        )));
    }
    Ok(n - n_held_out)
}

/// The outputs of a one-problem fit (a regression, a ranking) as Python receives
/// them.
fn one_problem_return<'py>(
    py: Python<'py>,
    model: FittedLinearModel,
    states: &[LinearState],
) -> PyResult<FitReturn<'py>> {
    let d = model.coef().len();
    let (coef, output) = model.into_parts();
    fit_return(py, &[output], coef, d, states)
}

/// The fit's outputs as Python receives them.
pub(crate) fn fit_return<'py>(
    py: Python<'py>,
    outputs: &[FitOutput],
    coef: Vec<f64>,
    d: usize,
    states: &[LinearState],
) -> PyResult<FitReturn<'py>> {
    let out = PyDict::new(py);
    out.set_item(
        "coef",
        PyArray1::from_vec(py, coef).reshape([outputs.len(), d])?,
    )?;
    let intercept: Vec<f64> = outputs.iter().map(|o| o.intercept).collect();
    out.set_item("intercept", PyArray1::from_vec(py, intercept))?;
    let n_iter: Vec<usize> = outputs.iter().map(|o| o.n_iter).collect();
    out.set_item("n_iter", n_iter)?;
    let t: Vec<u64> = states.iter().map(LinearState::steps).collect();
    out.set_item("t", t)?;
    let objective: Vec<Option<f64>> = outputs.iter().map(|o| o.objective).collect();
    out.set_item("objective", objective)?;
    let converged: Vec<Option<bool>> = outputs.iter().map(|o| o.converged).collect();
    out.set_item("converged", converged)?;
    let settling: Vec<Option<f64>> = outputs.iter().map(|o| o.settling).collect();
    out.set_item("settling", settling)?;
    let worse: Vec<Option<bool>> = outputs.iter().map(|o| o.worse_than_zero).collect();
    out.set_item("worse_than_zero", worse)?;
    let scores: Vec<&[f64]> = outputs.iter().map(|o| &o.validation_scores[..]).collect();
    out.set_item("validation_scores", scores)?;
    Ok(out)
}

/// Decision values `X coef^T + intercept`, shape `(n_samples, n_outputs)`.
#[pyfunction]
#[pyo3(signature = (x, coef, intercept, n_threads))]
pub fn decision_function<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    coef: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let coef_s = slice(&coef)?;
    let intercept_s = slice(&intercept)?;
    let k = intercept_s.len();
    let small = is_small(x.stored_entries().saturating_mul(k.max(1)));
    let (values, n) = dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
        let rows = make()?;
        let out = core_decision(&rows, coef_s, intercept_s, n_threads, cancel)?;
        Ok((out, rows.n_rows()))
    }))?;
    PyArray1::from_vec(py, values).reshape([n, k])
}

/// Decision values of `k` models on the rows `ids` of `x` (in that order), each
/// model's bit for bit `decision_function`'s (`pegasos_core::decision_function_many`):
/// `coef_t` is the models' weights feature-major, shape `(n_features, k)`. Shape
/// `(len(ids), k)`.
#[pyfunction]
#[pyo3(signature = (x, ids, coef_t, intercept, n_threads))]
pub fn decision_function_rows<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    ids: PyReadonlyArray1<'py, i64>,
    coef_t: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let ids: Vec<usize> = slice(&ids)?
        .iter()
        .map(|&i| {
            usize::try_from(i)
                .map_err(|_| PyValueError::new_err(format!("row index {i} is negative")))
        })
        .collect::<PyResult<_>>()?;
    let coef_s = slice(&coef_t)?;
    let intercept_s = slice(&intercept)?;
    let k = intercept_s.len();
    let small = is_small(x.stored_entries().saturating_mul(k.max(1)));
    let values = dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
        let rows = make()?;
        core_decision_many(&rows, &ids, coef_s, intercept_s, n_threads, cancel)
    }))?;
    PyArray1::from_vec(py, values).reshape([ids.len(), k])
}

/// The number of examples of each of `n_classes` classes in `codes`, checking each
/// code in the same pass (`pegasos_core::class_counts`): what
/// `class_weight="balanced"` needs of the codes `fit(check_input=False)` takes.
#[pyfunction]
#[pyo3(signature = (codes, n_classes))]
pub fn class_counts<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let codes = slice(&codes)?;
    let counts = detach(py, || core_class_counts(codes, n_classes))?;
    Ok(PyArray1::from_vec(py, counts))
}
