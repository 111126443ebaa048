//! Python entry points of linear Pegasos: extract inputs with the GIL held, run the
//! core with it released, hand back numpy arrays.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use pegasos_core::codec::{decode_states, encode_states};
use pegasos_core::error::try_filled_vec;
use pegasos_core::{
    decision_function as core_decision, fit_one_vs_rest, initial_states, Averaging, Intercept,
    Labels, LinearState, Params, Rows, Sampling,
};

use crate::arrays::{slice, Matrix};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;

/// The complete solver state of a linear model (one entry per binary problem), kept
/// in Rust between calls; it is serialized only when pickled.
#[pyclass(module = "pegasos_rs._core")]
#[derive(Default)]
pub struct LinearSolverState {
    states: Vec<LinearState>,
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

    /// Versioned little-endian encoding (see `pegasos_core::codec`).
    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &encode_states(&self.states))
    }

    /// Restore from `__getstate__`'s bytes.
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.states = decode_states(state).map_err(CoreError)?;
        Ok(())
    }
}

/// What `fit_linear` returns to Python.
type FitReturn<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Vec<usize>,
    Vec<u64>,
    Vec<Option<f64>>,
);

pub(crate) fn sampling(name: &str, order: Option<PyReadonlyArray1<'_, i64>>) -> PyResult<Sampling> {
    Ok(match (name, order) {
        ("uniform", None) => Sampling::Uniform,
        ("shuffle", None) => Sampling::Shuffle,
        ("balanced", None) => Sampling::Balanced,
        ("order", Some(o)) => Sampling::Order(
            slice(&o)?
                .iter()
                .map(|&i| {
                    usize::try_from(i).map_err(|_| {
                        PyValueError::new_err(format!("visiting order contains negative index {i}"))
                    })
                })
                .collect::<PyResult<_>>()?,
        ),
        (other, _) => {
            return Err(PyValueError::new_err(format!(
                "sampling must be 'uniform', 'shuffle', 'balanced' or an order, got {other:?}"
            )))
        }
    })
}

/// Train one-vs-rest linear Pegasos, continuing `solver` (fresh when it is empty)
/// and leaving the final state in it.
#[pyfunction]
#[pyo3(signature = (
    x, codes, n_classes, class_weight, sample_weight, solver, *,
    alpha, batch_size, projection, fit_intercept, intercept_scaling, average, average_start,
    sampling_name, order, max_iter, max_steps, tol, n_iter_no_change, seed, verbose, n_threads
))]
pub fn fit_linear<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    class_weight: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    mut solver: PyRefMut<'py, LinearSolverState>,
    alpha: f64,
    batch_size: usize,
    projection: bool,
    fit_intercept: bool,
    intercept_scaling: Option<f64>,
    average: &str,
    average_start: u64,
    sampling_name: &str,
    order: Option<PyReadonlyArray1<'py, i64>>,
    max_iter: usize,
    max_steps: Option<u64>,
    tol: Option<f64>,
    n_iter_no_change: usize,
    seed: u64,
    verbose: bool,
    n_threads: usize,
) -> PyResult<FitReturn<'py>> {
    let intercept = match (fit_intercept, intercept_scaling) {
        (false, _) => Intercept::None,
        (true, None) => Intercept::Unregularized,
        (true, Some(b)) => Intercept::BiasMultiplier(b),
    };
    let averaging = match average {
        "off" => Averaging::Off,
        "suffix" => Averaging::Suffix,
        "from" => Averaging::FromStep(average_start),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown averaging {other:?}"
            )))
        }
    };
    let params = Params {
        alpha,
        batch_size,
        projection,
        intercept,
        averaging,
        sampling: sampling(sampling_name, order)?,
        max_iter,
        max_steps,
        tol,
        n_iter_no_change,
        seed,
        verbose,
    }
    .validate()
    .map_err(CoreError)?;
    let codes = slice(&codes)?;
    let class_weight = slice(&class_weight)?;
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    // Moved out while the GIL is released; put back whatever happens.
    let mut states = std::mem::take(&mut solver.states);
    let labels = Labels {
        codes,
        n_classes,
        sample_weight,
        class_weight,
    };
    // About 10^7 visits of stored entries take a few milliseconds: below, no watcher.
    let visits = x.stored_entries() as f64 * max_iter as f64 * labels.n_problems() as f64;
    let small = visits < 1e7;
    let train = || {
        dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
            let rows = make()?;
            if states.is_empty() {
                states = initial_states(labels.n_problems(), rows.n_features(), params.seed)?;
            }
            let d = rows.n_features();
            let mut coef = try_filled_vec(states.len().saturating_mul(d), 0.0, "the coefficients")?;
            let out = fit_one_vs_rest(&rows, &labels, &params, &mut states, &mut coef, n_threads, cancel)?;
            Ok((out, coef, d))
        }))
    };
    let outputs = train();
    solver.states = states;
    let (outputs, coef, d) = outputs?;
    let coef = PyArray1::from_vec(py, coef).reshape([outputs.len(), d])?;
    let intercept = PyArray1::from_vec(py, outputs.iter().map(|o| o.intercept).collect());
    Ok((
        coef,
        intercept,
        outputs.iter().map(|o| o.n_iter).collect(),
        solver.states.iter().map(LinearState::steps).collect(),
        outputs.iter().map(|o| o.objective).collect(),
    ))
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
    let (values, n) = dispatch_rows!(x, make => detach(py, || {
        let rows = make()?;
        let out = core_decision(&rows, coef_s, intercept_s, n_threads)?;
        Ok((out, rows.n_rows()))
    }))?;
    PyArray1::from_vec(py, values).reshape([n, k])
}
