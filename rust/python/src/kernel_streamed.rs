//! Budgeted kernel Pegasos with the drawn rows supplied by the caller: the client
//! side of `pegasos_rs.dask`'s exact mode for the kernel estimators.
//!
//! The rows stay on a cluster. This object holds the budgeted states (`O(B d)` a
//! problem) and the pass plans, nothing of size m: it draws the examples of the
//! next steps, Python fetches those rows, and `run` takes the in-memory fit's steps
//! on them (`pegasos_core::StreamedBudgetFit`; this module converts arrays).

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::{ClassSummary, StreamedBudgetFit as CoreFit, Targets as CoreTargets};

use crate::arrays::{slice, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::kernel::{budget_kernel, budget_return, maintenance, FitReturn};
use crate::params::{KernelMultiClass, KernelParams, Targets};

/// A budgeted kernel fit whose rows live elsewhere.
#[pyclass(module = "pegasos_rs._core")]
pub struct StreamedBudgetFit {
    fit: CoreFit,
    n_threads: usize,
}

/// Non-negative indices as `usize`.
fn indices(arrays: &[PyReadonlyArray1<'_, i64>], what: &str) -> PyResult<Vec<Vec<usize>>> {
    arrays
        .iter()
        .map(|a| {
            slice(a)?
                .iter()
                .map(|&i| {
                    usize::try_from(i)
                        .map_err(|_| PyValueError::new_err(format!("negative {what} {i}")))
                })
                .collect()
        })
        .collect()
}

#[pymethods]
impl StreamedBudgetFit {
    /// Start a fit of `params` (as `fit_kernel_budget` takes them; one-vs-rest) on
    /// `n_rows` x `n_features` rows with at most `budget` points a problem, kept
    /// by `maintenance`; `class_weight` the weight of each class of a
    /// classification, `None` for a regression.
    #[new]
    #[pyo3(signature = (params, n_rows, n_features, class_weight, budget, maintenance, n_threads))]
    fn new(
        params: KernelParams<'_>,
        n_rows: usize,
        n_features: usize,
        class_weight: Option<Vec<f64>>,
        budget: usize,
        maintenance: &str,
        n_threads: usize,
    ) -> PyResult<Self> {
        if matches!(params.multi_class, KernelMultiClass::Ovo) {
            return Err(PyValueError::new_err(
                "a streamed budgeted fit is one-vs-rest (multi_class='ovr'): one-vs-one \
                 draws from each pair's rows, which the client does not hold",
            ));
        }
        let settings = (
            budget_kernel(&params)?,
            budget,
            self::maintenance(maintenance)?,
        );
        let classes = class_weight.map(|class_weight| ClassSummary {
            counts: vec![0; class_weight.len()],
            class_weight,
        });
        let fit = CoreFit::new(
            params.solver.validate()?,
            settings,
            n_rows,
            n_features,
            classes,
        )
        .map_err(CoreError)?;
        Ok(Self { fit, n_threads })
    }

    /// Number of problems drawn separately.
    #[getter]
    fn n_problems(&self) -> usize {
        self.fit.n_problems()
    }

    /// Begin the next pass of every problem still running: the number of steps of
    /// each (0 for problems that are done).
    fn next_pass(&mut self) -> Vec<u64> {
        self.fit.next_pass()
    }

    /// Draw the next `counts[p]` examples of each problem `p`: training row
    /// indices.
    fn draw<'py>(
        &mut self,
        py: Python<'py>,
        counts: Vec<usize>,
    ) -> PyResult<Vec<Bound<'py, PyArray1<i64>>>> {
        let keys = self.fit.draw(&counts).map_err(CoreError)?;
        Ok(keys
            .into_iter()
            .map(|k| PyArray1::from_vec(py, k.into_iter().map(|i| i as i64).collect()))
            .collect())
    }

    /// Take the steps of the drawn examples: problem `p`'s are rows `drawn[p]` of
    /// `x` (whole batches, in draw order), which are the training rows `keys[p]`
    /// (as `draw` returned them), with targets `y` (class codes, or a regression's
    /// real targets) and sample weights `sample_weight`. Problems run in parallel
    /// (GIL released; Ctrl-C stops them).
    #[pyo3(signature = (x, y, sample_weight, drawn, keys))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        x: Matrix<'py>,
        y: Targets<'py>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
        drawn: Vec<PyReadonlyArray1<'py, i64>>,
        keys: Vec<PyReadonlyArray1<'py, i64>>,
    ) -> PyResult<()> {
        let drawn = indices(&drawn, "example index")?;
        let keys = indices(&keys, "training row")?;
        let sample_weight = match &sample_weight {
            Some(a) => Some(slice(a)?),
            None => None,
        };
        let targets = match &y {
            Targets::Codes(c) => CoreTargets::Codes(slice(c)?),
            Targets::Values(v) => CoreTargets::Values(slice(v)?),
        };
        let (fit, n_threads) = (&mut self.fit, self.n_threads);
        dispatch_rows!(x, make => detach_interruptible(py, false, |cancel| {
            let rows = make()?;
            fit.run(&rows, targets, sample_weight, &drawn, &keys, n_threads, cancel)
        }))
    }

    /// End the pass of the problems that ran it: the verbose lines (empty unless
    /// `verbose`) for the caller to print.
    fn end_pass(&mut self) -> Vec<String> {
        self.fit.end_pass()
    }

    /// The fit as `fit_kernel_budget` returns it.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<FitReturn<'py>> {
        budget_return(py, &self.fit.finish())
    }
}
