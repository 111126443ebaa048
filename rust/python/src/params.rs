//! What Python passes as named dicts: Pegasos' hyper-parameters, linear and kernel
//! (turned into the core's validated `Params` in one place, `SolverParams::validate`), a kernel's
//! description, and the class and sample weights of the labels.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::kernels::function::Kernel;
use pegasos_core::solvers::loss::LossFunction;
use pegasos_core::{Averaging, Intercept, Labels, Params, Sampling, ValidParams};

use crate::arrays::slice;
use crate::error::CoreError;

/// The solver's settings as Python sends them (`pegasos_rs._validation.solver_params`),
/// for the linear and the kernel solver alike.
// The dict's yes/no options, one field each, as Python names them.
#[allow(clippy::struct_excessive_bools)]
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SolverParams<'py> {
    /// The loss's name and its `epsilon` (absent: the hinge).
    #[pyo3(default)]
    loss: LossSpec,
    alpha: f64,
    batch_size: usize,
    projection: bool,
    fit_intercept: bool,
    intercept_scaling: Option<f64>,
    average: String,
    average_start: u64,
    sampling_name: String,
    order: Option<PyReadonlyArray1<'py, i64>>,
    max_iter: usize,
    max_steps: Option<u64>,
    tol: Option<f64>,
    n_iter_no_change: usize,
    seed: u64,
    verbose: bool,
    /// `False`: the input is checked row by row as the solver reads it (`fit`'s
    /// `check_input=False`); absent means `True`.
    #[pyo3(default = true)]
    pub(crate) check_input: bool,
    /// `"ovr"` (independent draws per class, the default when absent) or
    /// `"ovr_shared"` (one drawn row serves every class's step).
    #[pyo3(default)]
    multi_class: Option<String>,
}

/// A loss as Python names it: a dict of `name` (scikit-learn's `loss` names, see
/// `pegasos_core::solvers::loss::LossFunction::from_name`) and `epsilon` (read by
/// the losses that have one).
#[derive(FromPyObject, Clone, Debug)]
#[pyo3(from_item_all)]
pub struct LossSpec {
    name: String,
    #[pyo3(default)]
    epsilon: f64,
}

impl Default for LossSpec {
    fn default() -> Self {
        Self {
            name: "hinge".into(),
            epsilon: 0.0,
        }
    }
}

impl LossSpec {
    /// The validated loss.
    pub fn loss(&self) -> PyResult<LossFunction> {
        Ok(LossFunction::from_name(&self.name, self.epsilon).map_err(CoreError)?)
    }
}

/// A kernel as Python describes it: a dict of `kernel_name` ("linear", "rbf",
/// "poly", "sigmoid", "chi2", "intersection" or "precomputed"), `gamma`, `degree`
/// and `coef0` (the last three read by the kernels that use them).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct KernelSpec {
    kernel_name: String,
    gamma: f64,
    degree: u32,
    coef0: f64,
}

impl KernelSpec {
    /// The validated kernel (`None` for "precomputed").
    pub fn kernel(&self) -> PyResult<Option<Kernel>> {
        let (gamma, degree, coef0) = (self.gamma, self.degree, self.coef0);
        let k = match self.kernel_name.as_str() {
            "linear" => Kernel::Linear,
            "rbf" => Kernel::Rbf { gamma },
            "poly" => Kernel::Poly {
                gamma,
                coef0,
                degree,
            },
            "sigmoid" => Kernel::Sigmoid { gamma, coef0 },
            "chi2" => Kernel::Chi2 { gamma },
            "intersection" => Kernel::Intersection,
            "precomputed" => return Ok(None),
            other => {
                return Err(PyValueError::new_err(format!(
                    "kernel must be one of 'linear', 'rbf', 'poly', 'sigmoid', 'chi2', \
                     'intersection', 'precomputed'; got {other:?}"
                )))
            }
        };
        Ok(Some(k.validate().map_err(CoreError)?))
    }
}

/// Classes, class weights and sample weights of a block of rows: a dict of
/// `n_classes`, `class_weight` and `sample_weight` (or None).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LabelWeights<'py> {
    n_classes: usize,
    class_weight: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
}

impl LabelWeights<'_> {
    /// The labels of rows whose class codes are `codes`.
    pub(crate) fn with_codes<'a>(&'a self, codes: &'a [u32]) -> PyResult<Labels<'a>> {
        Ok(Labels {
            codes,
            n_classes: self.n_classes,
            sample_weight: match &self.sample_weight {
                Some(a) => Some(slice(a)?),
                None => None,
            },
            class_weight: slice(&self.class_weight)?,
        })
    }
}

/// The entries of the parameter dict built by `pegasos_rs.kernel`: the kernel's
/// description (`kernel`, a [`KernelSpec`] dict), the solver's settings (`solver`,
/// a [`SolverParams`] dict, as the linear estimators send it) and the kernel
/// solver's own settings.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct KernelParams<'py> {
    pub(crate) kernel: KernelSpec,
    pub(crate) solver: SolverParams<'py>,
    pub(crate) cache_size: f64,
    pub(crate) strategy_name: String,
    /// "ovr" (one-vs-rest) or "ovo" (one-vs-one).
    pub(crate) multi_class: String,
}

impl SolverParams<'_> {
    /// Whether the one-vs-rest problems share their draws (`multi_class="ovr_shared"`).
    pub fn shared_draws(&self) -> PyResult<bool> {
        match self.multi_class.as_deref() {
            None | Some("ovr") => Ok(false),
            Some("ovr_shared") => Ok(true),
            Some(other) => Err(PyValueError::new_err(format!(
                "multi_class must be 'ovr' or 'ovr_shared', got {other:?}"
            ))),
        }
    }

    /// The validated core parameters (the one place the binding builds them).
    pub fn validate(self) -> PyResult<ValidParams> {
        let intercept = match (self.fit_intercept, self.intercept_scaling) {
            (false, _) => Intercept::None,
            (true, None) => Intercept::Unregularized,
            (true, Some(b)) => Intercept::BiasMultiplier(b),
        };
        let averaging = match self.average.as_str() {
            "off" => Averaging::Off,
            "suffix" => Averaging::Suffix,
            "from" => Averaging::FromStep(self.average_start),
            "weighted" => Averaging::Weighted,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown averaging {other:?}"
                )))
            }
        };
        Ok(Params {
            loss: self.loss.loss()?,
            alpha: self.alpha,
            batch_size: self.batch_size,
            projection: self.projection,
            intercept,
            averaging,
            sampling: sampling(&self.sampling_name, self.order)?,
            max_iter: self.max_iter,
            max_steps: self.max_steps,
            tol: self.tol,
            n_iter_no_change: self.n_iter_no_change,
            seed: self.seed,
            verbose: self.verbose,
        }
        .validate()
        .map_err(CoreError)?)
    }
}

/// The sampling scheme named `name` (`order`: the visiting order of "order").
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
