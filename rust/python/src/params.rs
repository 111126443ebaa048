//! What Python passes as named dicts: Pegasos' hyper-parameters, linear and kernel
//! (turned into the core's validated `Params` in one place, `SolverParams::validate`), a kernel's
//! description, and the class and sample weights of the labels.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::kernels::function::Kernel;
use pegasos_core::solvers::loss::LossFunction;
use pegasos_core::{Averaging, BinaryTask, Intercept, Labels, Params, Sampling, ValidParams};

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
    /// `"ovr"` (independent draws per class, the default when absent),
    /// `"ovr_shared"` (one drawn row serves every class's step) or
    /// `"crammer_singer"` (one joint multiclass objective).
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
/// `n_classes`, `class_weight` and `sample_weight` (or None). Rows with real
/// targets (a regression) have only `sample_weight`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LabelWeights<'py> {
    #[pyo3(default)]
    n_classes: Option<usize>,
    #[pyo3(default)]
    class_weight: Option<PyReadonlyArray1<'py, f64>>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
}

impl LabelWeights<'_> {
    /// The labels of rows whose class codes are `codes`.
    pub(crate) fn with_codes<'a>(&'a self, codes: &'a [u32]) -> PyResult<Labels<'a>> {
        let (Some(n_classes), Some(class_weight)) = (self.n_classes, &self.class_weight) else {
            return Err(PyValueError::new_err(
                "class codes need n_classes and class_weight in the labels dict",
            ));
        };
        Ok(Labels {
            codes,
            n_classes,
            sample_weight: self.sample_weight()?,
            class_weight: slice(class_weight)?,
        })
    }

    fn sample_weight(&self) -> PyResult<Option<&[f64]>> {
        Ok(match &self.sample_weight {
            Some(a) => Some(slice(a)?),
            None => None,
        })
    }

    /// The examples of rows whose targets are `y`: one-vs-rest labels for class
    /// codes, a regression for real targets (whose labels dict must not name
    /// classes).
    pub(crate) fn examples<'a>(&'a self, y: &'a Targets<'_>) -> PyResult<Examples<'a>> {
        match y {
            Targets::Codes(codes) => Ok(Examples::Classes(self.with_codes(slice(codes)?)?)),
            Targets::Values(targets) => {
                if self.n_classes.is_some() || self.class_weight.is_some() {
                    return Err(PyValueError::new_err(
                        "real targets (float64) are a regression: its labels dict holds \
                         sample_weight only (class codes are uint32)",
                    ));
                }
                let task = BinaryTask::regression(slice(targets)?, self.sample_weight()?)
                    .map_err(CoreError)?;
                Ok(Examples::Regression(task))
            }
        }
    }
}

/// The targets of a block of rows as Python passes them: class codes (`uint32`:
/// one-vs-rest classification) or real values (`float64`: a regression).
#[derive(FromPyObject)]
pub enum Targets<'py> {
    /// Class codes, indices into the classes.
    Codes(PyReadonlyArray1<'py, u32>),
    /// Real targets.
    Values(PyReadonlyArray1<'py, f64>),
}

/// The examples of a block of rows: the binary problems of one-vs-rest, or the
/// one problem of a regression.
#[derive(Clone, Copy, Debug)]
pub enum Examples<'a> {
    /// Class codes and weights.
    Classes(Labels<'a>),
    /// Real targets and sample weights.
    Regression(BinaryTask<'a>),
}

impl Examples<'_> {
    /// Number of problems: those of one-vs-rest, or 1.
    pub fn n_problems(&self) -> usize {
        match self {
            Self::Classes(labels) => labels.n_problems(),
            Self::Regression(_) => 1,
        }
    }

    /// Number of examples.
    pub fn n_examples(&self) -> usize {
        match self {
            Self::Classes(labels) => labels.codes.len(),
            Self::Regression(task) => task.len(),
        }
    }

    /// [`Examples::check`] without reading each label (rows checked as they are
    /// read check their labels too): `O(1)`.
    pub fn check_shapes(&self, n_rows: usize) -> pegasos_core::Result<()> {
        match self {
            Self::Classes(labels) => labels.check_shapes(n_rows),
            Self::Regression(task) if task.len() != n_rows => {
                Err(pegasos_core::Error::ShapeMismatch(format!(
                    "X has {n_rows} rows but y has {} targets",
                    task.len()
                )))
            }
            Self::Regression(_) => Ok(()),
        }
    }

    /// Check the examples against `n_rows` rows (classes: as `Labels::check`;
    /// targets: one per row, finite).
    pub fn check(&self, n_rows: usize) -> pegasos_core::Result<()> {
        match self {
            Self::Classes(labels) => labels.check(n_rows),
            Self::Regression(task) => {
                self.check_shapes(n_rows)?;
                task.check_targets()
            }
        }
    }

    /// Problem `p`.
    pub fn task(&self, p: usize) -> pegasos_core::Result<BinaryTask<'_>> {
        match self {
            Self::Classes(labels) => labels.task(p),
            Self::Regression(task) => Ok(*task),
        }
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
    /// "ovr" (one-vs-rest) or "ovo" (one-vs-one); absent: "ovr" (a regression
    /// does not send it).
    #[pyo3(default = String::from("ovr"))]
    pub(crate) multi_class: String,
}

/// How a linear classifier treats more than one binary problem (`multi_class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultiClass {
    /// One-vs-rest, each problem drawing its own rows.
    Ovr,
    /// One-vs-rest, every problem stepping on the same drawn rows.
    OvrShared,
    /// The Crammer–Singer joint multiclass objective.
    CrammerSinger,
}

impl SolverParams<'_> {
    /// The multiclass mode of `multi_class` (absent: one-vs-rest).
    pub fn multi_class(&self) -> PyResult<MultiClass> {
        match self.multi_class.as_deref() {
            None | Some("ovr") => Ok(MultiClass::Ovr),
            Some("ovr_shared") => Ok(MultiClass::OvrShared),
            Some("crammer_singer") => Ok(MultiClass::CrammerSinger),
            Some(other) => Err(PyValueError::new_err(format!(
                "multi_class must be 'ovr', 'ovr_shared' or 'crammer_singer', got {other:?}"
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
