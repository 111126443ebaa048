//! What Python passes as named dicts: Pegasos' hyper-parameters, linear and kernel
//! (turned into the core's validated `Params` in one place, `SolverParams::validate`), a kernel's
//! description, and the class and sample weights of the labels.
//!
//! Every string-valued parameter (`average`, `sampling_name`, `multi_class`, a loss's
//! or kernel's name, `strategy_name`, the feature maps' `form`, `landmarks` and
//! `kernel_name`) is an enum here, converted where the value is read from Python
//! (`choice!`'s `FromPyObject`): a wrong value fails there with one message naming the
//! parameter and its values, and nothing further in matches on strings.

use numpy::PyReadonlyArray1;
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;

use pegasos_core::{
    AdditiveKernel, Averaging, BinaryTask, Examples, FourierForm, Intercept, Kernel, Labels,
    Landmarks, LossFunction, Params, Sampling, Strategy, ValidParams,
};

use crate::arrays::slice;
use crate::error::CoreError;

/// The one message for a string parameter given a value outside its set: "`parameter`
/// must be 'a', 'b' or 'c', got 'x'" (a `ValueError`; a `TypeError` when the value is
/// not a string).
fn invalid_choice(parameter: &str, values: &[&str], got: &Bound<'_, PyAny>) -> PyErr {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    let listed = match quoted.split_last() {
        Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
        _ => quoted.join(""),
    };
    let got_repr = got
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    let message = format!("{parameter} must be {listed}, got {got_repr}");
    if got.is_instance_of::<PyString>() {
        PyValueError::new_err(message)
    } else {
        PyTypeError::new_err(message)
    }
}

/// A string-valued parameter as a Rust enum, converted once where Python's value
/// enters the binding (its `FromPyObject` impl): any other value fails there, with
/// [`invalid_choice`]'s message naming the parameter and its values.
macro_rules! choice {
    (
        $(#[$doc:meta])*
        $name:ident, $parameter:literal {
            $($(#[$vdoc:meta])* $variant:ident = $value:literal),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// The values Python may pass, as it spells them.
            pub const VALUES: &'static [&'static str] = &[$($value),+];

            /// The value as Python spells it.
            #[allow(dead_code)] // not every parameter is read back as text
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $value),+
                }
            }
        }

        impl<'py> FromPyObject<'_, 'py> for $name {
            type Error = PyErr;

            fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
                if let Ok(s) = obj.extract::<PyBackedStr>() {
                    match &*s {
                        $($value => return Ok(Self::$variant),)+
                        _ => {}
                    }
                }
                Err(invalid_choice($parameter, Self::VALUES, &obj))
            }
        }
    };
}

choice! {
    /// `average`: how the returned weights average the iterates.
    AverageName, "average" {
        /// The last iterate.
        Off = "off",
        /// The mean of the last passes.
        Suffix = "suffix",
        /// The mean from step `average_start`.
        From = "from",
        /// The weighted average.
        Weighted = "weighted",
    }
}

choice! {
    /// `sampling_name`: how rows are drawn.
    SamplingName, "sampling_name" {
        /// Uniform draws with replacement.
        Uniform = "uniform",
        /// A new permutation each pass.
        Shuffle = "shuffle",
        /// Classes drawn equally often.
        Balanced = "balanced",
        /// The caller's visiting order (`order`).
        Order = "order",
    }
}

choice! {
    /// How a linear classifier treats more than one binary problem (`multi_class`).
    MultiClass, "multi_class" {
        /// One-vs-rest, each problem drawing its own rows.
        Ovr = "ovr",
        /// One-vs-rest, every problem stepping on the same drawn rows.
        OvrShared = "ovr_shared",
        /// The Crammer–Singer joint multiclass objective.
        CrammerSinger = "crammer_singer",
    }
}

choice! {
    /// How the kernel classifier treats more than one class (`multi_class`).
    KernelMultiClass, "multi_class" {
        /// One-vs-rest.
        Ovr = "ovr",
        /// One-vs-one.
        Ovo = "ovo",
    }
}

choice! {
    /// `strategy_name`: how the kernel solver keeps its margins.
    StrategyName, "strategy_name" {
        /// Chosen by a pilot and a cost model.
        Auto = "auto",
        /// From the support set at each step.
        Support = "support",
        /// A margin vector updated at each step.
        Margins = "margins",
    }
}

choice! {
    /// `kernel_name` of a kernel description.
    KernelName, "kernel_name" {
        /// `<x, y>`.
        Linear = "linear",
        /// Gaussian.
        Rbf = "rbf",
        /// Polynomial.
        Poly = "poly",
        /// Hyperbolic tangent.
        Sigmoid = "sigmoid",
        /// Exponential χ².
        Chi2 = "chi2",
        /// Histogram intersection.
        Intersection = "intersection",
        /// The caller's Gram matrix.
        Precomputed = "precomputed",
    }
}

choice! {
    /// The `name` of a loss (scikit-learn's `loss` names, as
    /// `pegasos_core::LossFunction::from_name` reads them).
    LossName, "loss" {
        /// Hinge.
        Hinge = "hinge",
        /// Logistic.
        LogLoss = "log_loss",
        /// Squared hinge.
        SquaredHinge = "squared_hinge",
        /// Modified Huber.
        ModifiedHuber = "modified_huber",
        /// Epsilon-insensitive (regression).
        EpsilonInsensitive = "epsilon_insensitive",
        /// Squared epsilon-insensitive (regression).
        SquaredEpsilonInsensitive = "squared_epsilon_insensitive",
        /// Squared error (regression).
        SquaredError = "squared_error",
        /// Huber (regression).
        Huber = "huber",
    }
}

choice! {
    /// `form` of the random Fourier map.
    FourierFormName, "form" {
        /// `cos` and `sin` of each frequency.
        SinCos = "sincos",
        /// `cos` with a random offset.
        Offset = "offset",
    }
}

choice! {
    /// `landmarks` of the Nyström map.
    LandmarkRule, "landmarks" {
        /// Drawn uniformly.
        Uniform = "uniform",
        /// k-means++ seeding.
        KMeansPlusPlus = "k-means++",
        /// Every row.
        All = "all",
    }
}

choice! {
    /// `kernel_name` of the additive kernel map.
    AdditiveKernelName, "kernel_name" {
        /// χ².
        Chi2 = "chi2",
        /// Histogram intersection.
        Intersection = "intersection",
        /// Jensen–Shannon.
        Js = "js",
    }
}

impl From<MultiClass> for pegasos_core::MultiClass {
    fn from(m: MultiClass) -> Self {
        match m {
            MultiClass::Ovr => Self::OneVsRest,
            MultiClass::OvrShared => Self::SharedDraws,
            MultiClass::CrammerSinger => Self::CrammerSinger,
        }
    }
}

impl From<StrategyName> for Strategy {
    fn from(s: StrategyName) -> Self {
        match s {
            StrategyName::Auto => Strategy::Auto,
            StrategyName::Support => Strategy::SupportSet,
            StrategyName::Margins => Strategy::Margins,
        }
    }
}

impl From<FourierFormName> for FourierForm {
    fn from(f: FourierFormName) -> Self {
        match f {
            FourierFormName::SinCos => FourierForm::SinCos,
            FourierFormName::Offset => FourierForm::Offset,
        }
    }
}

impl From<LandmarkRule> for Landmarks {
    fn from(l: LandmarkRule) -> Self {
        match l {
            LandmarkRule::Uniform => Landmarks::Uniform,
            LandmarkRule::KMeansPlusPlus => Landmarks::KMeansPlusPlus,
            LandmarkRule::All => Landmarks::All,
        }
    }
}

impl From<AdditiveKernelName> for AdditiveKernel {
    fn from(k: AdditiveKernelName) -> Self {
        match k {
            AdditiveKernelName::Chi2 => AdditiveKernel::Chi2,
            AdditiveKernelName::Intersection => AdditiveKernel::Intersection,
            AdditiveKernelName::Js => AdditiveKernel::JensenShannon,
        }
    }
}

/// `obj[key]` as a `T` (`None` when the key is absent). A string-valued parameter's
/// own error (`choice`) passes through unchanged; any other conversion error is
/// reported as PyO3's derived extraction reported it ("failed to extract field
/// Owner.key", a `TypeError` with the error as its cause).
fn item<'py, T: FromPyObjectOwned<'py>>(
    obj: &Bound<'py, PyAny>,
    owner: &str,
    key: &str,
    choice: bool,
) -> PyResult<Option<T>> {
    let value = match obj.get_item(key) {
        Ok(v) => v,
        Err(e) if e.is_instance_of::<PyKeyError>(obj.py()) => return Ok(None),
        Err(e) => return Err(e),
    };
    value.extract::<T>().map(Some).map_err(|e| {
        let e: PyErr = e.into();
        if choice {
            return e;
        }
        let outer = PyTypeError::new_err(format!("failed to extract field {owner}.{key}"));
        outer.set_cause(obj.py(), Some(e));
        outer
    })
}

/// [`item`] of a key that must be present (absent: `KeyError`, as before).
fn required<'py, T: FromPyObjectOwned<'py>>(
    obj: &Bound<'py, PyAny>,
    owner: &str,
    key: &str,
    choice: bool,
) -> PyResult<T> {
    item(obj, owner, key, choice)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))
}

/// The solver's settings as Python sends them (`pegasos_rs._validation.solver_params`),
/// for the linear and the kernel solver alike: a dict, its string-valued entries
/// converted to enums as it is read.
// The dict's yes/no options, one field each, as Python names them.
#[allow(clippy::struct_excessive_bools)]
pub struct SolverParams<'py> {
    /// The loss's name and its `epsilon` (absent: the hinge).
    loss: LossSpec,
    alpha: f64,
    batch_size: usize,
    projection: bool,
    fit_intercept: bool,
    intercept_scaling: Option<f64>,
    average: AverageName,
    average_start: u64,
    sampling_name: SamplingName,
    order: Option<PyReadonlyArray1<'py, i64>>,
    max_iter: usize,
    max_steps: Option<u64>,
    tol: Option<f64>,
    n_iter_no_change: usize,
    seed: u64,
    verbose: bool,
    /// `False`: the input is checked row by row as the solver reads it (`fit`'s
    /// `check_input=False`); absent means `True`.
    pub(crate) check_input: bool,
    /// The one-class SVM (`alpha` is then `nu`); absent means `False`.
    one_class: bool,
    /// `"ovr"` (independent draws per class, the default when absent or None),
    /// `"ovr_shared"` (one drawn row serves every class's step) or
    /// `"crammer_singer"` (one joint multiclass objective).
    multi_class: MultiClass,
}

impl<'py> FromPyObject<'_, 'py> for SolverParams<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let d: &Bound<'py, PyAny> = &obj;
        let o = "SolverParams";
        Ok(Self {
            loss: item(d, o, "loss", true)?.unwrap_or_default(),
            alpha: required(d, o, "alpha", false)?,
            batch_size: required(d, o, "batch_size", false)?,
            projection: required(d, o, "projection", false)?,
            fit_intercept: required(d, o, "fit_intercept", false)?,
            intercept_scaling: required(d, o, "intercept_scaling", false)?,
            average: required(d, o, "average", true)?,
            average_start: required(d, o, "average_start", false)?,
            sampling_name: required(d, o, "sampling_name", true)?,
            order: required(d, o, "order", false)?,
            max_iter: required(d, o, "max_iter", false)?,
            max_steps: required(d, o, "max_steps", false)?,
            tol: required(d, o, "tol", false)?,
            n_iter_no_change: required(d, o, "n_iter_no_change", false)?,
            seed: required(d, o, "seed", false)?,
            verbose: required(d, o, "verbose", false)?,
            check_input: item(d, o, "check_input", false)?.unwrap_or(true),
            one_class: item(d, o, "one_class", false)?.unwrap_or(false),
            multi_class: item::<Option<MultiClass>>(d, o, "multi_class", true)?
                .flatten()
                .unwrap_or(MultiClass::Ovr),
        })
    }
}

/// A loss as Python names it: a dict of `name` (scikit-learn's `loss` names, see
/// `pegasos_core::LossFunction::from_name`) and `epsilon` (read by
/// the losses that have one).
#[derive(Clone, Debug)]
pub struct LossSpec {
    name: LossName,
    epsilon: f64,
}

impl<'py> FromPyObject<'_, 'py> for LossSpec {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let d: &Bound<'py, PyAny> = &obj;
        Ok(Self {
            name: required(d, "LossSpec", "name", true)?,
            epsilon: item(d, "LossSpec", "epsilon", false)?.unwrap_or(0.0),
        })
    }
}

impl Default for LossSpec {
    fn default() -> Self {
        Self {
            name: LossName::Hinge,
            epsilon: 0.0,
        }
    }
}

impl LossSpec {
    /// The validated loss.
    pub fn loss(&self) -> PyResult<LossFunction> {
        Ok(LossFunction::from_name(self.name.as_str(), self.epsilon).map_err(CoreError)?)
    }
}

/// A kernel as Python describes it: a dict of `kernel_name` ("linear", "rbf",
/// "poly", "sigmoid", "chi2", "intersection" or "precomputed"), `gamma`, `degree`
/// and `coef0` (the last three read by the kernels that use them).
pub struct KernelSpec {
    kernel_name: KernelName,
    gamma: f64,
    degree: u32,
    coef0: f64,
}

impl<'py> FromPyObject<'_, 'py> for KernelSpec {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let d: &Bound<'py, PyAny> = &obj;
        let o = "KernelSpec";
        Ok(Self {
            kernel_name: required(d, o, "kernel_name", true)?,
            gamma: required(d, o, "gamma", false)?,
            degree: required(d, o, "degree", false)?,
            coef0: required(d, o, "coef0", false)?,
        })
    }
}

impl KernelSpec {
    /// The validated kernel function; `ValueError` for "precomputed", which is none.
    pub fn function(&self) -> PyResult<Kernel> {
        self.kernel()?
            .ok_or_else(|| PyValueError::new_err("'precomputed' is not a kernel function"))
    }

    /// The validated kernel (`None` for "precomputed").
    pub fn kernel(&self) -> PyResult<Option<Kernel>> {
        let (gamma, degree, coef0) = (self.gamma, self.degree, self.coef0);
        let k = match self.kernel_name {
            KernelName::Linear => Kernel::Linear,
            KernelName::Rbf => Kernel::Rbf { gamma },
            KernelName::Poly => Kernel::Poly {
                gamma,
                coef0,
                degree,
            },
            KernelName::Sigmoid => Kernel::Sigmoid { gamma, coef0 },
            KernelName::Chi2 => Kernel::Chi2 { gamma },
            KernelName::Intersection => Kernel::Intersection,
            KernelName::Precomputed => return Ok(None),
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

/// The entries of the parameter dict built by `pegasos_rs.kernel`: the kernel's
/// description (`kernel`, a [`KernelSpec`] dict), the solver's settings (`solver`,
/// a [`SolverParams`] dict, as the linear estimators send it) and the kernel
/// solver's own settings.
pub struct KernelParams<'py> {
    pub(crate) kernel: KernelSpec,
    pub(crate) solver: SolverParams<'py>,
    pub(crate) cache_size: f64,
    pub(crate) strategy: StrategyName,
    /// One-vs-rest or one-vs-one; absent: one-vs-rest (a regression does not send
    /// it).
    pub(crate) multi_class: KernelMultiClass,
}

impl<'py> FromPyObject<'_, 'py> for KernelParams<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let d: &Bound<'py, PyAny> = &obj;
        let o = "KernelParams";
        Ok(Self {
            // The nested dicts' own field errors pass through as they are.
            kernel: required(d, o, "kernel", true)?,
            solver: required(d, o, "solver", true)?,
            cache_size: required(d, o, "cache_size", false)?,
            strategy: required(d, o, "strategy_name", true)?,
            multi_class: item(d, o, "multi_class", true)?.unwrap_or(KernelMultiClass::Ovr),
        })
    }
}

impl SolverParams<'_> {
    /// The multiclass mode of `multi_class` (absent: one-vs-rest).
    pub fn multi_class(&self) -> MultiClass {
        self.multi_class
    }

    /// The validated core parameters (the one place the binding builds them).
    pub fn validate(self) -> PyResult<ValidParams> {
        let intercept = match (self.fit_intercept, self.intercept_scaling) {
            (false, _) => Intercept::None,
            (true, None) => Intercept::Unregularized,
            (true, Some(b)) => Intercept::BiasMultiplier(b),
        };
        let averaging = match self.average {
            AverageName::Off => Averaging::Off,
            AverageName::Suffix => Averaging::Suffix,
            AverageName::From => Averaging::FromStep(self.average_start),
            AverageName::Weighted => Averaging::Weighted,
        };
        Ok(Params {
            loss: self.loss.loss()?,
            alpha: self.alpha,
            batch_size: self.batch_size,
            projection: self.projection,
            intercept,
            averaging,
            sampling: sampling(self.sampling_name, self.order)?,
            max_iter: self.max_iter,
            max_steps: self.max_steps,
            tol: self.tol,
            n_iter_no_change: self.n_iter_no_change,
            seed: self.seed,
            verbose: self.verbose,
            one_class: self.one_class,
        }
        .validate()
        .map_err(CoreError)?)
    }
}

/// The sampling scheme `name` (`order`: the visiting order of "order", given with
/// it and only with it).
pub(crate) fn sampling(
    name: SamplingName,
    order: Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<Sampling> {
    Ok(match (name, order) {
        (SamplingName::Uniform, None) => Sampling::Uniform,
        (SamplingName::Shuffle, None) => Sampling::Shuffle,
        (SamplingName::Balanced, None) => Sampling::Balanced,
        (SamplingName::Order, Some(o)) => Sampling::Order(
            slice(&o)?
                .iter()
                .map(|&i| {
                    usize::try_from(i).map_err(|_| {
                        PyValueError::new_err(format!("visiting order contains negative index {i}"))
                    })
                })
                .collect::<PyResult<_>>()?,
        ),
        (SamplingName::Order, None) => {
            return Err(PyValueError::new_err(
                "sampling_name 'order' needs the visiting order (order), got None",
            ))
        }
        (other, Some(_)) => {
            return Err(PyValueError::new_err(format!(
                "order is the visiting order of sampling_name 'order', not of {:?}",
                other.as_str()
            )))
        }
    })
}
