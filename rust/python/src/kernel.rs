//! Python entry points of kernel Pegasos: training, prediction through the support
//! vectors, and kernel matrices.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pegasos_core::kernels::function::{Kernel, KernelRows};
use pegasos_core::solvers::kernel_model::{
    fit_kernel_one_vs_rest, initial_kernel_states, kernel_decision_function, kernel_matrix,
    KernelModel, KernelSettings,
};
use pegasos_core::solvers::kernel_regression::fit_kernel_regression as core_fit_regression;
use pegasos_core::solvers::kernel_solver::KernelState;
use pegasos_core::solvers::one_vs_one::{fit_kernel_one_vs_one, OneVsOneFit};
use pegasos_core::Monitor;

use pegasos_core::kernels::gram::{DataGram, Gram, PrecomputedGram};
use pegasos_core::solvers::kernel_solver::{KernelFitOutput, Strategy};
use pegasos_core::{Float, Labels, Rows, ValidParams};

use crate::arrays::{slice, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::params::{KernelMultiClass, KernelParams, KernelSpec, LabelWeights, StrategyName};
use pegasos_core::thresholds::{is_small, SMALL_KERNEL_VALUES};

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Auto => StrategyName::Auto,
        Strategy::SupportSet => StrategyName::Support,
        Strategy::Margins => StrategyName::Margins,
    }
    .as_str()
}

/// Per-problem report: (strategy, steps, kernel values computed, cache hits, cache
/// misses, objective, the step after which "auto" switched to the margin vector).
type Report = (&'static str, u64, u64, u64, u64, Option<f64>, Option<u64>);

/// What `fit_kernel` returns: a dict of `support` (indices), `dual_coef`
/// `(n_problems, n_sv)`, `intercept`, and per problem `strategy`, `steps`,
/// `kernel_evaluations`, `cache_hits`, `cache_misses`, `objective` and
/// `switched_at` (the step after which `"auto"` switched from the support set to
/// the margin vector, or `None`).
type FitReturn<'py> = Bound<'py, PyDict>;

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

/// Train kernel Pegasos from scratch, one-vs-rest or one-vs-one (`multi_class` in
/// `params`; one-vs-one returns a row of `dual_coef` and a report per pair of
/// classes, in scikit-learn `SVC`'s order). `labels` holds `n_classes`,
/// `class_weight` and `sample_weight`; `params` the kernel (`kernel`) and the
/// solver's settings.
#[pyfunction]
#[pyo3(signature = (x, codes, labels, params, n_threads))]
pub fn fit_kernel<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    codes: PyReadonlyArray1<'py, u32>,
    labels: LabelWeights<'py>,
    params: KernelParams<'py>,
    n_threads: usize,
) -> PyResult<FitReturn<'py>> {
    let kern = params.kernel.kernel()?;
    let strategy = params.strategy.into();
    let ovo = params.multi_class == KernelMultiClass::Ovo;
    let cache_bytes = cache_bytes(params.cache_size)?;
    let params = params.solver.validate()?;
    let codes = slice(&codes)?;
    let n = codes.len();
    let small = (n as f64) * (n as f64) * (params.max_iter as f64) < SMALL_KERNEL_VALUES;
    let job = Job {
        labels: labels.with_codes(codes)?,
        params: &params,
        settings: KernelSettings {
            strategy,
            cache_bytes,
            n_threads,
        },
        ovo,
    };
    let (model, reports) = match kern {
        None => {
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                job.train::<_, f64>(&PrecomputedGram::new(values, rows, cols)?, monitor)
            })?
        }
        Some(kern) => dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
            job.train_rows(&make()?, kern, monitor)
        }))?,
    };
    fit_return(py, model, &reports)
}

/// Train a kernel regression (`params["solver"]["loss"]` a regression loss, such
/// as epsilon-insensitive: LIBSVM's epsilon-SVR) of the real `targets` from
/// scratch, with optional `sample_weight`; `params` as for `fit_kernel` (its
/// `multi_class` is not read: a regression is one problem). Returns what
/// `fit_kernel` returns, for one problem.
#[pyfunction]
#[pyo3(signature = (x, targets, sample_weight, params, n_threads))]
pub fn fit_kernel_regression<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    targets: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    params: KernelParams<'py>,
    n_threads: usize,
) -> PyResult<FitReturn<'py>> {
    let kern = params.kernel.kernel()?;
    let settings = KernelSettings {
        strategy: params.strategy.into(),
        cache_bytes: cache_bytes(params.cache_size)?,
        n_threads,
    };
    let params = params.solver.validate()?;
    let targets = slice(&targets)?;
    let sample_weight = match &sample_weight {
        Some(a) => Some(slice(a)?),
        None => None,
    };
    let n = targets.len();
    let small = (n as f64) * (n as f64) * (params.max_iter as f64) < SMALL_KERNEL_VALUES;
    let job = RegressionJob {
        targets,
        sample_weight,
        params: &params,
        settings,
    };
    let (model, reports) = match kern {
        None => {
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                job.train::<_, f64>(&PrecomputedGram::new(values, rows, cols)?, monitor)
            })?
        }
        Some(kern) => dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
            job.train_rows(&make()?, kern, monitor)
        }))?,
    };
    fit_return(py, model, &reports)
}

/// The fitted model and the per-problem reports as Python receives them.
fn fit_return<'py>(
    py: Python<'py>,
    model: KernelModel,
    reports: &[Report],
) -> PyResult<FitReturn<'py>> {
    let n_sv = model.support.len();
    let support = PyArray1::from_vec(
        py,
        model
            .support
            .iter()
            .map(|&j| i64::try_from(j).unwrap_or(i64::MAX))
            .collect(),
    );
    let dual = PyArray1::from_vec(py, model.dual_coef).reshape([model.intercept.len(), n_sv])?;
    let out = PyDict::new(py);
    out.set_item("support", support)?;
    out.set_item("dual_coef", dual)?;
    out.set_item("intercept", PyArray1::from_vec(py, model.intercept))?;
    let column = |name: &str, values: Vec<_>| out.set_item(name, values);
    column("steps", reports.iter().map(|r| r.1).collect())?;
    column("kernel_evaluations", reports.iter().map(|r| r.2).collect())?;
    column("cache_hits", reports.iter().map(|r| r.3).collect())?;
    column("cache_misses", reports.iter().map(|r| r.4).collect())?;
    let strategies: Vec<&str> = reports.iter().map(|r| r.0).collect();
    out.set_item("strategy", strategies)?;
    let objectives: Vec<Option<f64>> = reports.iter().map(|r| r.5).collect();
    out.set_item("objective", objectives)?;
    let switched: Vec<Option<u64>> = reports.iter().map(|r| r.6).collect();
    out.set_item("switched_at", switched)?;
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
        let prep = KernelRows::new(kern, &sv_rows)?;
        let values = kernel_decision_function(&prep, &rows, dual, b, n_threads, monitor)?;
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
    let Some(kern) = kernel.kernel()? else {
        return Err(PyValueError::new_err(
            "'precomputed' is not a kernel function",
        ));
    };
    let small = is_small(x.stored_entries().saturating_mul(y.n_rows().max(1)));
    let (values, n, m) = dispatch_rows!(y, make_y => dispatch_rows!(x, make_x =>
        detach_interruptible(py, small, |monitor| {
        let y_rows = make_y()?;
        let x_rows = make_x()?;
        let prep = KernelRows::new(kern, &y_rows)?;
        let values = kernel_matrix(&prep, &x_rows, n_threads, monitor)?;
        Ok((values, x_rows.n_rows(), y_rows.n_rows()))
    })))?;
    PyArray1::from_vec(py, values).reshape([n, m])
}

/// What a regression fit needs besides the Gram matrix.
struct RegressionJob<'a> {
    targets: &'a [f64],
    sample_weight: Option<&'a [f64]>,
    params: &'a ValidParams,
    settings: KernelSettings,
}

impl KernelJob for RegressionJob<'_> {
    /// Train from a fresh state (stream 0 of the seed) on `gram`.
    fn train<G: Gram, S: Float>(
        &self,
        gram: &G,
        monitor: &Monitor,
    ) -> pegasos_core::Result<(KernelModel, Vec<Report>)> {
        let mut state = KernelState::new(gram.n(), self.params.seed, 0)?;
        let (model, out) = core_fit_regression::<G, S>(
            gram,
            self.targets,
            self.sample_weight,
            self.params,
            self.settings,
            &mut state,
            monitor,
        )?;
        Ok((model, vec![report(&state, &out)]))
    }
}

/// A kernel fit of classes or of real targets, on a Gram matrix or on data rows.
trait KernelJob {
    /// Train from fresh states on `gram`, kernel values stored as `S`.
    fn train<G: Gram, S: Float>(
        &self,
        gram: &G,
        monitor: &Monitor,
    ) -> pegasos_core::Result<(KernelModel, Vec<Report>)>;

    /// Train on kernel `kern` of the rows of `rows`, storing kernel values in the
    /// rows' own float type.
    fn train_rows<R: Rows>(
        &self,
        rows: &R,
        kern: Kernel,
        monitor: &Monitor,
    ) -> pegasos_core::Result<(KernelModel, Vec<Report>)> {
        let gram = DataGram::new(rows, KernelRows::new(kern, rows)?);
        self.train::<_, R::Value>(&gram, monitor)
    }
}

/// What Python reports of one problem's fit.
fn report(s: &KernelState, o: &KernelFitOutput) -> Report {
    (
        strategy_name(s.strategy()),
        s.steps(),
        o.kernel_evals,
        o.cache_hits,
        o.cache_misses,
        o.objective,
        s.switched_at(),
    )
}

/// Everything a kernel fit needs besides the Gram matrix.
struct Job<'a> {
    labels: Labels<'a>,
    params: &'a ValidParams,
    settings: KernelSettings,
    /// One-vs-one rather than one-vs-rest.
    ovo: bool,
}

impl KernelJob for Job<'_> {
    /// Train from fresh states on `gram`.
    fn train<G: Gram, S: Float>(
        &self,
        gram: &G,
        monitor: &Monitor,
    ) -> pegasos_core::Result<(KernelModel, Vec<Report>)> {
        let (model, states, out) = if self.ovo {
            let OneVsOneFit {
                model,
                states,
                outputs,
            } = fit_kernel_one_vs_one::<G, S>(
                gram,
                &self.labels,
                self.params,
                self.settings,
                monitor,
            )?;
            (model, states, outputs)
        } else {
            let mut states =
                initial_kernel_states(self.labels.n_problems(), gram.n(), self.params.seed)?;
            let (model, out) = fit_kernel_one_vs_rest::<G, S>(
                gram,
                &self.labels,
                self.params,
                self.settings,
                &mut states,
                monitor,
            )?;
            (model, states, out)
        };
        let reports = states.iter().zip(&out).map(|(s, o)| report(s, o)).collect();
        Ok((model, reports))
    }
}
