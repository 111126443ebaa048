//! Python entry points of kernel Pegasos: training, prediction through the support
//! vectors, and kernel matrices.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pegasos_core::thresholds::is_small;
use pegasos_core::{
    finish_gram as core_finish_gram, fit_budgeted_one_vs_one, fit_budgeted_one_vs_rest,
    fit_budgeted_regression, kernel_decision as core_kernel_decision,
    pairwise_kernel as core_pairwise_kernel, raw_gram as core_raw_gram, split_labels,
    split_targets, BudgetedModels, Decomposition, HeldOutRows, KernelReport, KernelSvm,
    KernelSvmParams, Maintenance, Params, PrecomputedGram, Rows, Strategy,
};

use crate::arrays::{slice, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::linear::training_rows;
use crate::params::{KernelMultiClass, KernelParams, KernelSpec, LabelWeights, StrategyName};

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Auto => StrategyName::Auto,
        Strategy::SupportSet => StrategyName::Support,
        Strategy::Margins => StrategyName::Margins,
    }
    .as_str()
}

/// What `fit_kernel` returns: a dict of `support` (indices), `dual_coef`
/// `(n_problems, n_sv)`, `intercept`, and per problem `strategy`, `steps`,
/// `kernel_evaluations`, `cache_hits`, `cache_misses`, `objective` and
/// `switched_at` (the step after which `"auto"` switched from the support set to
/// the margin vector, or `None`).
pub(crate) type FitReturn<'py> = Bound<'py, PyDict>;

/// The cache's size in bytes from `cache_size` megabytes.
fn cache_bytes(cache_size: f64) -> PyResult<usize> {
    if !(cache_size.is_finite() && cache_size >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "cache_size must be a non-negative number of megabytes, got {cache_size}"
        )));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok((cache_size * 1024.0 * 1024.0).min(usize::MAX as f64) as usize)
}

/// The builder of a kernel fit: the solver's settings, the margins' strategy, the
/// cache in bytes (from `cache_size` megabytes) and the threads; the kernel and
/// the decomposition are set by the caller.
fn builder(params: KernelParams<'_>, n_threads: usize) -> PyResult<KernelSvmParams> {
    let strategy: Strategy = params.strategy.into();
    let decomposition = match params.multi_class {
        KernelMultiClass::Ovr => Decomposition::OneVsRest,
        KernelMultiClass::Ovo => Decomposition::OneVsOne,
    };
    let cache_bytes = cache_bytes(params.cache_size)?;
    let solver = params.solver.validate()?;
    Ok(KernelSvm::params()
        .solver_params(Params::clone(&solver))
        .strategy(strategy)
        .decomposition(decomposition)
        .cache_bytes(cache_bytes)
        .n_threads(n_threads))
}

/// Train kernel Pegasos from scratch, one-vs-rest or one-vs-one (`multi_class` in
/// `params`; one-vs-one returns a row of `dual_coef` and a report per pair of
/// classes, in scikit-learn `SVC`'s order). `labels` holds `n_classes`,
/// `class_weight` and `sample_weight`; `params` the kernel (`kernel`) and the
/// solver's settings. With `n_held_out > 0` the last `n_held_out` rows (codes,
/// sample weights) are held out: each problem scores its model on its part of
/// them after every pass and stops by that score (early stopping; not with a
/// precomputed kernel); the support indices are among the training rows.
#[pyfunction]
#[pyo3(signature = (x, codes, labels, params, n_threads, n_held_out=0))]
pub fn fit_kernel<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    labels: LabelWeights<'py>,
    params: KernelParams<'py>,
    n_threads: usize,
    n_held_out: usize,
) -> PyResult<FitReturn<'py>> {
    let kern = params.kernel.kernel()?;
    let svm = builder(params, n_threads)?;
    let codes = slice(&codes)?;
    let small = svm.is_small_fit(codes.len());
    let labels = labels.with_codes(codes)?;
    let n_train = training_rows(&x, n_held_out)?;
    let (labels, held_targets, held_weights) =
        split_labels(&labels, n_held_out).map_err(CoreError)?;
    let model = match kern {
        None => {
            refuse_held_out_precomputed(n_held_out)?;
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                svm.fit_precomputed(&PrecomputedGram::new(values, rows, cols)?, &labels, monitor)
            })?
        }
        Some(kern) => {
            let svm = svm.kernel(kern);
            dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
                let (train, held) = make()?.split_rows(n_train)?;
                let held = HeldOutRows::new(&held, held_targets, held_weights);
                let held = (n_held_out > 0).then_some(&held);
                svm.fit_labels_held_out(&train, &labels, held, monitor)
            }))?
        }
    };
    let (support, dual, b) = (model.support(), model.dual_coef(), model.intercept());
    fit_return(py, support, dual, b, model.reports())
}

/// Train a kernel regression (`params["solver"]["loss"]` a regression loss, such
/// as epsilon-insensitive: LIBSVM's epsilon-SVR) of the real `targets` from
/// scratch, with optional `sample_weight`; `params` as for `fit_kernel` (its
/// `multi_class` is not read: a regression is one problem). Returns what
/// `fit_kernel` returns, for one problem.
///
/// With `n_held_out > 0` the last `n_held_out` rows are held out and scored (R^2)
/// after every pass, as `fit_kernel` holds rows out.
#[pyfunction]
#[pyo3(signature = (x, targets, sample_weight, params, n_threads, n_held_out=0))]
pub fn fit_kernel_regression<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    targets: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: KernelParams<'py>,
    n_threads: usize,
    n_held_out: usize,
) -> PyResult<FitReturn<'py>> {
    let kern = params.kernel.kernel()?;
    let svr = builder(params, n_threads)?;
    let targets = slice(&targets)?;
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    let small = svr.is_small_fit(targets.len());
    let n_train = training_rows(&x, n_held_out)?;
    let ((targets, sample_weight), (held_targets, held_weights)) =
        split_targets(targets, sample_weight, n_held_out).map_err(CoreError)?;
    let model = match kern {
        None => {
            refuse_held_out_precomputed(n_held_out)?;
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                let gram = PrecomputedGram::new(values, rows, cols)?;
                svr.fit_regression_precomputed(&gram, targets, sample_weight, monitor)
            })?
        }
        Some(kern) => {
            let svr = svr.kernel(kern);
            dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
                let (train, held) = make()?.split_rows(n_train)?;
                let held = HeldOutRows::new(&held, held_targets, held_weights);
                let held = (n_held_out > 0).then_some(&held);
                svr.fit_regression_held_out(&train, (targets, sample_weight), held, monitor)
            }))?
        }
    };
    let (support, dual, b) = (model.support(), model.dual_coef(), model.intercept());
    fit_return(py, support, dual, b, model.reports())
}

/// The budget's maintenance from its name.
pub(crate) fn maintenance(name: &str) -> PyResult<Maintenance> {
    match name {
        "merge" => Ok(Maintenance::Merge),
        "remove" => Ok(Maintenance::Remove),
        "project" => Ok(Maintenance::Project),
        other => Err(PyValueError::new_err(format!(
            "budget_maintenance must be 'merge', 'remove' or 'project', got {other:?}"
        ))),
    }
}

/// Train kernel Pegasos with a budget of `budget` support vectors per binary
/// problem (one-vs-rest, or one-vs-one as `params["multi_class"]` says; one
/// problem for two classes), kept by `maintenance` ("merge", "remove" or
/// "project"); `labels` and `params` as for `fit_kernel` (a kernel on data rows).
/// Returns `points` (the support vectors, a dense `(n_sv, n_features)` array: training
/// rows and merged points), `source` (each one's training row, -1 when merged),
/// `dual_coef` `(n_problems, n_sv)`, `intercept`, and per problem `steps`,
/// `passes`, `kernel_evaluations`, `maintenance_steps`, `removals` and `in_span`
/// (rows projected onto the points' span instead of added, "project").
#[pyfunction]
#[pyo3(signature = (x, codes, labels, params, n_threads, budget, maintenance))]
#[allow(clippy::too_many_arguments)] // the fit's inputs and the budget's two settings
pub fn fit_kernel_budget<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    labels: LabelWeights<'py>,
    params: KernelParams<'py>,
    n_threads: usize,
    budget: usize,
    maintenance: &str,
) -> PyResult<FitReturn<'py>> {
    let kern = budget_kernel(&params)?;
    let settings = (kern, budget, self::maintenance(maintenance)?);
    let solver = params.solver.validate()?;
    let codes = slice(&codes)?;
    let labels = labels.with_codes(codes)?;
    let ovo = matches!(params.multi_class, KernelMultiClass::Ovo);
    let model = dispatch_rows!(x, make => detach_interruptible(py, false, |monitor| {
        let rows = make()?;
        if ovo {
            fit_budgeted_one_vs_one(&rows, &labels, &solver, settings, n_threads, monitor)
        } else {
            fit_budgeted_one_vs_rest(&rows, &labels, &solver, settings, n_threads, monitor)
        }
    }))?;
    budget_return(py, &model)
}

/// `fit_kernel_budget` for a regression of the real `targets` (one problem).
#[pyfunction]
#[pyo3(signature = (x, targets, sample_weight, params, budget, maintenance))]
pub fn fit_kernel_budget_regression<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    targets: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: KernelParams<'py>,
    budget: usize,
    maintenance: &str,
) -> PyResult<FitReturn<'py>> {
    let kern = budget_kernel(&params)?;
    let settings = (kern, budget, self::maintenance(maintenance)?);
    let solver = params.solver.validate()?;
    let targets = slice(&targets)?;
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    let model = dispatch_rows!(x, make => detach_interruptible(py, false, |monitor| {
        fit_budgeted_regression(&make()?, (targets, sample_weight), &solver, settings, monitor)
    }))?;
    budget_return(py, &model)
}

/// The kernel of a budgeted fit: one on data rows (a precomputed kernel matrix
/// holds no points to merge, and its support vectors must be training rows).
pub(crate) fn budget_kernel(params: &KernelParams<'_>) -> PyResult<pegasos_core::Kernel> {
    params.kernel.kernel()?.ok_or_else(|| {
        PyValueError::new_err(
            "a budget needs a kernel on data rows, not kernel='precomputed': the budget's \
             support vectors may be merged points, which have no row in the kernel matrix",
        )
    })
}

/// What `fit_kernel_budget` returns.
pub(crate) fn budget_return<'py>(
    py: Python<'py>,
    model: &BudgetedModels,
) -> PyResult<FitReturn<'py>> {
    let n_sv = model.source.len();
    let d = model.n_features;
    let out = PyDict::new(py);
    let points = PyArray1::from_slice(py, &model.points).reshape([n_sv, d])?;
    out.set_item("points", points)?;
    out.set_item("source", PyArray1::from_slice(py, &model.source))?;
    let k = model.intercept.len();
    let dual = PyArray1::from_slice(py, &model.dual_coef).reshape([k, n_sv])?;
    out.set_item("dual_coef", dual)?;
    out.set_item("intercept", PyArray1::from_slice(py, &model.intercept))?;
    let column = |name: &str, values: Vec<u64>| out.set_item(name, values);
    column("steps", model.reports.iter().map(|r| r.1).collect())?;
    let passes: Vec<usize> = model.reports.iter().map(|r| r.0.n_iter).collect();
    out.set_item("passes", passes)?;
    column(
        "kernel_evaluations",
        model.reports.iter().map(|r| r.0.kernel_evals).collect(),
    )?;
    column(
        "maintenance_steps",
        model
            .reports
            .iter()
            .map(|r| r.0.maintenance_steps)
            .collect(),
    )?;
    column(
        "removals",
        model.reports.iter().map(|r| r.0.removals).collect(),
    )?;
    column(
        "in_span",
        model.reports.iter().map(|r| r.0.in_span).collect(),
    )?;
    Ok(out)
}

/// Early stopping reads the held-out rows' kernel values against the training
/// rows, which a precomputed kernel matrix of the training rows does not hold.
fn refuse_held_out_precomputed(n_held_out: usize) -> PyResult<()> {
    if n_held_out > 0 {
        return Err(PyValueError::new_err(
            "early stopping is not available with kernel='precomputed': the held-out \
             rows' kernel values against the training rows are not in the training \
             kernel matrix",
        ));
    }
    Ok(())
}

/// The fitted model (support indices, dual coefficients, intercepts) and the
/// per-problem reports as Python receives them.
fn fit_return<'py>(
    py: Python<'py>,
    support: &[usize],
    dual_coef: &[f64],
    intercept: &[f64],
    reports: &[KernelReport],
) -> PyResult<FitReturn<'py>> {
    let n_sv = support.len();
    let support = PyArray1::from_vec(
        py,
        support
            .iter()
            .map(|&j| i64::try_from(j).unwrap_or(i64::MAX))
            .collect(),
    );
    let dual = PyArray1::from_slice(py, dual_coef).reshape([intercept.len(), n_sv])?;
    let out = PyDict::new(py);
    out.set_item("support", support)?;
    out.set_item("dual_coef", dual)?;
    out.set_item("intercept", PyArray1::from_slice(py, intercept))?;
    let column = |name: &str, values: Vec<_>| out.set_item(name, values);
    column("steps", reports.iter().map(|r| r.steps).collect())?;
    let evaluations = reports.iter().map(|r| r.kernel_evaluations).collect();
    column("kernel_evaluations", evaluations)?;
    column("cache_hits", reports.iter().map(|r| r.cache_hits).collect())?;
    column(
        "cache_misses",
        reports.iter().map(|r| r.cache_misses).collect(),
    )?;
    let strategies: Vec<&str> = reports.iter().map(|r| strategy_name(r.strategy)).collect();
    out.set_item("strategy", strategies)?;
    let objectives: Vec<Option<f64>> = reports.iter().map(|r| r.objective).collect();
    out.set_item("objective", objectives)?;
    let switched: Vec<Option<u64>> = reports.iter().map(|r| r.switched_at).collect();
    out.set_item("switched_at", switched)?;
    let passes: Vec<usize> = reports.iter().map(|r| r.passes).collect();
    out.set_item("passes", passes)?;
    let converged: Vec<Option<bool>> = reports.iter().map(|r| r.converged).collect();
    out.set_item("converged", converged)?;
    let scores: Vec<&[f64]> = reports.iter().map(|r| &r.validation_scores[..]).collect();
    out.set_item("validation_scores", scores)?;
    Ok(out)
}

/// Decision values `(n_samples, n_outputs)` of a kernel model whose support vectors
/// are the rows of `sv`; `kernel` describes the kernel (see `KernelSpec`).
#[pyfunction]
#[pyo3(signature = (sv, x, dual_coef, intercept, *, kernel, n_threads))]
pub fn kernel_decision<'py>(
    py: Python<'py>,
    sv: Matrix<'py>,
    x: Matrix<'py>,
    dual_coef: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    kernel: KernelSpec,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let Some(kern) = kernel.kernel()? else {
        return Err(PyValueError::new_err(
            "precomputed kernels are evaluated in Python",
        ));
    };
    let dual = slice(&dual_coef)?;
    let b = slice(&intercept)?;
    let k = b.len();
    let small = is_small(x.stored_entries().saturating_mul(sv.n_rows().max(1)));
    let (values, n) = dispatch_rows!(sv, make_sv => dispatch_rows!(x, make_x =>
        detach_interruptible(py, small, |monitor| {
        let sv_rows = make_sv()?;
        let rows = make_x()?;
        let values = core_kernel_decision(kern, &sv_rows, &rows, dual, b, n_threads, monitor)?;
        Ok((values, rows.n_rows()))
    })))?;
    PyArray1::from_vec(py, values).reshape([n, k])
}

/// The kernel matrix `K(x_i, y_j)`, shape `(n_x, n_y)`; `kernel` describes the
/// kernel (see `KernelSpec`).
#[pyfunction]
#[pyo3(signature = (x, y, *, kernel, n_threads))]
pub fn pairwise_kernel<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: Matrix<'py>,
    kernel: KernelSpec,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let kern = kernel.function()?;
    let small = is_small(x.stored_entries().saturating_mul(y.n_rows().max(1)));
    let (values, n, m) = dispatch_rows!(y, make_y => dispatch_rows!(x, make_x =>
        detach_interruptible(py, small, |monitor| {
        let y_rows = make_y()?;
        let x_rows = make_x()?;
        let values = core_pairwise_kernel(kern, &x_rows, &y_rows, n_threads, monitor)?;
        Ok((values, x_rows.n_rows(), y_rows.n_rows()))
    })))?;
    PyArray1::from_vec(py, values).reshape([n, m])
}

/// The `gamma`-free values of the kernel between every pair of rows of `x`, shape
/// `(n, n)` (inner products, or chi2's shared terms), for [`finish_gram`].
#[pyfunction]
#[pyo3(signature = (x, *, kernel, n_threads))]
pub fn raw_gram<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    kernel: KernelSpec,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let kern = kernel.function()?;
    let dense = matches!(x, Matrix::Dense(_));
    let n = x.n_rows();
    let small = is_small(x.stored_entries().saturating_mul(n.max(1)));
    let values = dispatch_rows!(x, make_x => detach_interruptible(py, small, |monitor| {
        let rows = make_x()?;
        core_raw_gram(kern, &rows, dense, n_threads, monitor)
    }))?;
    PyArray1::from_vec(py, values).reshape([n, n])
}

/// The kernel matrix of `x` with `kernel` (its `gamma`), shape `(n, n)`, from
/// [`raw_gram`]'s values for the same rows: `pairwise_kernel`'s bits.
#[pyfunction]
#[pyo3(signature = (x, raw, *, kernel, n_threads))]
pub fn finish_gram<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    raw: PyReadonlyArray2<'py, f64>,
    kernel: KernelSpec,
    n_threads: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let kern = kernel.function()?;
    let n = x.n_rows();
    let raw = slice(&raw)?;
    let small = is_small(raw.len());
    let values = dispatch_rows!(x, make_x => detach_interruptible(py, small, |monitor| {
        let rows = make_x()?;
        core_finish_gram(kern, &rows, raw, n_threads, monitor)
    }))?;
    PyArray1::from_vec(py, values).reshape([n, n])
}
