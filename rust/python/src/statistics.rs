//! Python entry points of the portable statistics: Platt's sigmoids and the
//! probabilities of `probability=True` (`pegasos_core::fit_sigmoid`), and the
//! variance of `gamma="scale"` (`pegasos_core::moments`), and the one-class
//! SVM's offset (`pegasos_core::one_class_offset`).

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use pegasos_core::thresholds::is_small;
use pegasos_core::{
    class_probabilities, fit_sigmoid, moments as core_moments, one_class_offset as core_offset,
    sigmoid_classes, Moments, SigmoidFit, SIGMOID_MAX_ITER,
};

use crate::arrays::{shape2, slice, Matrix};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use crate::error::CoreError;

/// What `platt_fit` returns: `(A, B, n_iter, stop, (gradient_A, gradient_B))`.
type SigmoidReturn = (f64, f64, usize, &'static str, (f64, f64));

/// Platt's sigmoid fitted to `decision` (`positive`: whether each example is of the
/// positive class; `sample_weight`: None for unit weights): `(A, B, n_iter, stop,
/// (gradient_A, gradient_B))`, `stop` the rule that ended the fit (`"max_iter"`:
/// not converged). `max_iter` None is Lin, Lin and Weng's 100.
#[pyfunction]
#[pyo3(signature = (decision, positive, sample_weight, tol, max_iter=None))]
pub fn platt_fit(
    py: Python<'_>,
    decision: PyReadonlyArray1<'_, f64>,
    positive: PyReadonlyArray1<'_, bool>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    tol: f64,
    max_iter: Option<usize>,
) -> PyResult<SigmoidReturn> {
    let (f, pos) = (slice(&decision)?, slice(&positive)?);
    let w = sample_weight.as_ref().map(slice).transpose()?;
    let max_iter = max_iter.unwrap_or(SIGMOID_MAX_ITER);
    // About 30 elementary functions per example over a fit (a few Newton
    // iterations, each a pass for the derivatives and one or two for the objective).
    let small = is_small(f.len().saturating_mul(32));
    let fit: SigmoidFit = detach_interruptible(py, small, |monitor| {
        fit_sigmoid(f, pos, w, tol, max_iter, monitor)
    })?;
    Ok((
        fit.a,
        fit.b,
        fit.n_iter,
        fit.stop.name(),
        (fit.gradient[0], fit.gradient[1]),
    ))
}

/// The probabilities of the classes (their logarithms when `log`) from the decision
/// values `(n_samples, n_problems)` and the problems' sigmoids: `(n_samples, 2)`
/// for one problem, `(n_samples, n_problems)` otherwise.
#[pyfunction]
#[pyo3(signature = (decision, prob_a, prob_b, *, log))]
pub fn platt_proba<'py>(
    py: Python<'py>,
    decision: PyReadonlyArray2<'py, f64>,
    prob_a: PyReadonlyArray1<'py, f64>,
    prob_b: PyReadonlyArray1<'py, f64>,
    log: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (n, k) = shape2(&decision);
    let (f, a, b) = (slice(&decision)?, slice(&prob_a)?, slice(&prob_b)?);
    let width = sigmoid_classes(k);
    let out = detach(py, || class_probabilities(f, n, a, b, log))?;
    PyArray1::from_vec(py, out).reshape([n, width])
}

/// `(count, mean, m2)` of all the entries of `x` (implicit zeros of a CSR matrix
/// included, repeated entries added up), in a fixed order on `n_threads` threads.
#[pyfunction]
#[pyo3(signature = (x, n_threads))]
pub fn moments(py: Python<'_>, x: Matrix<'_>, n_threads: usize) -> PyResult<(u64, f64, f64)> {
    let small = is_small(x.stored_entries());
    let m = dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
        core_moments(&make()?, n_threads, cancel)
    }))?;
    Ok((m.count, m.mean, m.m2))
}

/// The variance of the union of groups given by their `(count, mean, m2)`, combined
/// pairwise in the order given (`moments` of one matrix, or of its blocks).
#[pyfunction]
pub fn variance_of(parts: Vec<(u64, f64, f64)>) -> PyResult<f64> {
    let merged =
        Moments::merge_all(
            parts
                .into_iter()
                .map(|(count, mean, m2)| Moments { count, mean, m2 }),
        );
    Ok(merged.variance().map_err(CoreError)?)
}

/// The one-class SVM's offset `rho`: the weighted `nu`-quantile of a model's
/// `scores` on its training rows (`sample_weight` None for unit weights; rows of
/// weight 0 skipped), `pegasos_core::one_class_offset`.
#[pyfunction]
#[pyo3(signature = (scores, sample_weight, nu))]
pub fn one_class_offset(
    scores: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    nu: f64,
) -> PyResult<f64> {
    let w = sample_weight.as_ref().map(slice).transpose()?;
    Ok(core_offset(slice(&scores)?, w, nu).map_err(CoreError)?)
}
