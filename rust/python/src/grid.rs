//! Python entry point of a cross-validated search over `alpha` (the CV estimators
//! and `pegasos-rs train -C`): the folds as index arrays, every (fold, alpha) pair
//! trained by `pegasos_core::fit_alpha_grid` with the GIL released, and each
//! fold's held-out decision values handed back.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use pegasos_core::thresholds::SMALL_VISITS;
use pegasos_core::{fit_alpha_grid, fold_accuracy, Fold, GridTargets, Search};

use crate::arrays::{shape2, slice, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::params::SolverParams;

/// Row indices from Python (`intp`), checked non-negative.
fn indices(a: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<usize>> {
    slice(a)?
        .iter()
        .map(|&i| {
            usize::try_from(i)
                .map_err(|_| PyValueError::new_err(format!("{what} holds the negative row {i}")))
        })
        .collect()
}

/// Train every (fold, alpha) pair of a search with the parameters `params`
/// (`alpha` replaced by `alphas[f, a]` in fold `f`) on the rows `x`, classes
/// `codes` of `n_classes` (or real `targets`, `n_classes` 0), and return one
/// tuple per fold: the held-out decision values (`(n_points, n_test, n_outputs)`),
/// the passes of each point, and for classes the accuracy of each point.
/// `folds` holds `(train, test)` row indices; `class_weight` one row of class
/// weights per fold (`(n_folds, 0)` for a regression); `halving` the factor of a
/// successive-halving search (`None`: every point runs all its passes).
#[pyfunction]
#[pyo3(signature = (x, codes, targets, n_classes, sample_weight, folds, class_weight, alphas, params, halving, n_threads))]
#[allow(clippy::too_many_arguments)] // a search's inputs, each named
pub fn cv_linear<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: Option<PyReadonlyArray1<'py, u32>>,
    targets: Option<PyReadonlyArray1<'py, f64>>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    folds: Vec<(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>)>,
    class_weight: PyReadonlyArray2<'py, f64>,
    alphas: PyReadonlyArray2<'py, f64>,
    params: SolverParams<'py>,
    halving: Option<f64>,
    n_threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let search = halving.map_or(Search::Exact, |factor| Search::Halving { factor });
    let mode = params.multi_class();
    let params = params.validate()?;
    let split: Vec<(Vec<usize>, Vec<usize>)> = folds
        .iter()
        .map(|(tr, te)| Ok((indices(tr, "a training fold")?, indices(te, "a test fold")?)))
        .collect::<PyResult<_>>()?;
    let (n_cw, width_cw) = shape2(&class_weight);
    let (n_a, points) = shape2(&alphas);
    if n_a != split.len() || n_cw != split.len() {
        return Err(PyValueError::new_err(format!(
            "{} folds, but {n_a} rows of alphas and {n_cw} of class weights",
            split.len()
        )));
    }
    let (cw, al) = (slice(&class_weight)?, slice(&alphas)?);
    let fold_list: Vec<Fold<'_>> = split
        .iter()
        .enumerate()
        .map(|(f, (train, test))| Fold {
            train,
            test,
            class_weight: &cw[f * width_cw..(f + 1) * width_cw],
            alphas: &al[f * points..(f + 1) * points],
        })
        .collect();
    let codes = codes.as_ref().map(slice).transpose()?;
    let targets = match (codes, &targets) {
        (Some(codes), None) => GridTargets::Classes { codes, n_classes },
        (None, Some(y)) => GridTargets::Real(slice(y)?),
        _ => {
            return Err(PyValueError::new_err(
                "a search takes class codes or real targets, one of the two",
            ))
        }
    };
    let sample_weight = sample_weight.as_ref().map(slice).transpose()?;
    let visits = x.stored_entries() as f64 * params.max_iter as f64 * points as f64;
    let small = visits < SMALL_VISITS;
    let results = dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
        fit_alpha_grid(
            &make()?,
            targets,
            sample_weight,
            &fold_list,
            &params,
            mode.into(),
            search,
            n_threads,
            cancel,
        )
    }))?;
    let out = PyList::empty(py);
    for ((result, (_, test)), fold) in results.into_iter().zip(&split).zip(&fold_list) {
        let accuracy = match targets {
            GridTargets::Classes { codes, .. } => Some(fold_accuracy(&result, codes, fold.test)),
            GridTargets::Real(_) => None,
        };
        let shape = [points, test.len(), result.n_outputs];
        let values = PyArray1::from_vec(py, result.decision).reshape(shape)?;
        out.append((values, result.n_iter, accuracy))?;
    }
    Ok(out)
}
