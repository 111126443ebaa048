//! Linear Pegasos' hyper-parameters as Python passes them: one dict with named
//! entries, turned into the core's validated `Params` in one place.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::{Averaging, Intercept, Params, Sampling, ValidParams};

use crate::arrays::slice;
use crate::error::CoreError;

/// The entries of the parameter dict built by `pegasos_rs.linear`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct LinearParams<'py> {
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
}

/// The entries of the parameter dict built by `pegasos_rs.kernel`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct KernelParams<'py> {
    pub(crate) kernel_name: String,
    pub(crate) gamma: f64,
    pub(crate) degree: u32,
    pub(crate) coef0: f64,
    alpha: f64,
    batch_size: usize,
    fit_intercept: bool,
    average: bool,
    sampling_name: String,
    order: Option<PyReadonlyArray1<'py, i64>>,
    max_iter: usize,
    seed: u64,
    verbose: bool,
    pub(crate) cache_size: f64,
    pub(crate) strategy_name: String,
}

impl KernelParams<'_> {
    /// The validated core parameters of the kernel solver (no projection, no
    /// `tol`: a fixed number of passes).
    pub fn validate(self) -> PyResult<ValidParams> {
        Params {
            alpha: self.alpha,
            batch_size: self.batch_size,
            projection: false,
            intercept: if self.fit_intercept {
                Intercept::Unregularized
            } else {
                Intercept::None
            },
            averaging: if self.average {
                Averaging::Suffix
            } else {
                Averaging::Off
            },
            sampling: sampling(&self.sampling_name, self.order)?,
            max_iter: self.max_iter,
            max_steps: None,
            tol: None,
            n_iter_no_change: 1,
            seed: self.seed,
            verbose: self.verbose,
        }
        .validate()
        .map_err(|e| CoreError(e).into())
    }
}

impl LinearParams<'_> {
    /// The validated core parameters.
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
