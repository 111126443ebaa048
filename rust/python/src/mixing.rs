//! The workers' side of `pegasos_rs.dask`'s parallel mode (iterative parameter
//! mixing): one local pass of the solver over a partition, from the shared
//! iterate; the problems of one-vs-rest classification or of a regression.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::thresholds::SMALL_VISITS;
use pegasos_core::{LocalIterates, LocalPass};

use crate::arrays::{shape2, slice, Matrix, MatrixAndVector};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::params::{LabelWeights, SolverParams, Targets};

/// Where a round starts: one iterate per binary problem.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Iterates<'py> {
    /// `w` of each problem, `n_features + 1` entries (the last the bias-multiplier
    /// weight).
    v: PyReadonlyArray2<'py, f64>,
    /// Unregularised bias of each problem.
    bias: PyReadonlyArray1<'py, f64>,
    /// Steps taken so far (a fresh fit of a loss that starts late: its first step
    /// minus 1, `pegasos_rs._core.first_steps`).
    t: u64,
    /// Mean weighted loss at zero `L0` of each problem over the whole training
    /// set, which sets the projection radius (`pegasos_rs._core.mean_zero_losses`).
    zero_loss: PyReadonlyArray1<'py, f64>,
    /// Also return the mean of each local run's iterates.
    average: bool,
}

/// What `local_pass` returns: the last iterates `(v, bias)`, and the mean
/// iterates of the local runs when asked for.
type Passed<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Option<MatrixAndVector<'py>>,
);

/// One local pass (`ceil(rows / batch_size)` steps) of every problem over these
/// rows (`y`: class codes, or a regression's real targets), from `start`,
/// sampling with stream `p` of `seed`; returns the new iterates `(v, bias)` and,
/// with `start["average"]`, the means of the local iterates. A problem whose
/// partition lacks one of its classes samples uniformly when `params` asks for
/// balanced sampling.
#[pyfunction]
#[pyo3(signature = (x, y, labels, params, start, seed, n_threads))]
pub fn local_pass<'py>(
    x: Matrix<'py>,
    y: Targets<'py>,
    labels: LabelWeights<'py>,
    params: SolverParams<'py>,
    start: Iterates<'py>,
    seed: u64,
    n_threads: usize,
) -> PyResult<Passed<'py>> {
    let py = start.v.py();
    let params = params.validate()?;
    let labels = labels.examples(&y)?;
    let (k, width) = shape2(&start.v);
    let (v, bias, zero_loss) = (
        slice(&start.v)?,
        slice(&start.bias)?,
        slice(&start.zero_loss)?,
    );
    if k != labels.n_problems() || bias.len() != k || zero_loss.len() != k {
        return Err(PyValueError::new_err(format!(
            "{k} iterates, {} biases and {} zero losses for {} problems",
            bias.len(),
            zero_loss.len(),
            labels.n_problems()
        )));
    }
    let pass = LocalPass {
        v,
        bias,
        t: start.t,
        zero_loss,
        average: start.average,
    };
    let small = (x.stored_entries() as f64) * (k as f64) < SMALL_VISITS;
    let iterates = dispatch_rows!(x, make => detach_interruptible(py, small, |cancel| {
        pass.run(&make()?, &labels, &params, seed, n_threads, cancel)
    }))?;
    hand_over(py, iterates, k, width, start.average)
}

/// The local runs' last iterates `(v, bias)` and, when `average`, their means, as
/// Python receives them.
fn hand_over(
    py: Python<'_>,
    iterates: Vec<LocalIterates>,
    k: usize,
    width: usize,
    average: bool,
) -> PyResult<Passed<'_>> {
    let mut last = (Vec::with_capacity(k * width), Vec::with_capacity(k));
    let mut means = (Vec::with_capacity(k * width), Vec::with_capacity(k));
    for LocalIterates {
        last: (w, b),
        mean: (mw, mb),
    } in iterates
    {
        last.0.extend_from_slice(&w);
        last.1.push(b);
        means.0.extend_from_slice(&mw);
        means.1.push(mb);
    }
    let arrays = |(v, b): (Vec<f64>, Vec<f64>)| -> PyResult<MatrixAndVector<'_>> {
        Ok((
            PyArray1::from_vec(py, v).reshape([k, width])?,
            PyArray1::from_vec(py, b),
        ))
    };
    let (v_last, b_last) = arrays(last)?;
    let mean = if average { Some(arrays(means)?) } else { None };
    Ok((v_last, b_last, mean))
}
