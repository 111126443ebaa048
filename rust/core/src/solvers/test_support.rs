//! Fixtures shared by the solver tests (linear and kernel): a seeded problem's dense
//! rows and binary task, and a linear fit from scratch.

use crate::data::rows::{DenseRows, Rows};
use crate::data::task::BinaryTask;
use crate::monitor::Monitor;
use crate::solvers::linear::{fit_binary, FitOutput, LinearState};
use crate::solvers::params::ValidParams;

/// The dense `n x d` rows of `x` and the unweighted task "class 1 against the
/// rest" of `codes`.
pub(crate) fn dense_problem<'a>(
    x: &'a [f64],
    codes: &'a [u32],
    n: usize,
    d: usize,
) -> (DenseRows<'a, f64>, BinaryTask<'a>) {
    let rows = DenseRows::new(x, n, d).unwrap();
    (rows, BinaryTask::new(codes, 1, None, 1.0, 1.0).unwrap())
}

/// `fit_binary` from a fresh state whose generator is `(seed, stream)`: the final
/// state, the coefficients and the fit's output.
pub(crate) fn fit_linear<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    p: &ValidParams,
    seed: u64,
    stream: u64,
) -> (LinearState, Vec<f64>, FitOutput) {
    let d = rows.n_features();
    let mut state = LinearState::new(d, seed, stream).unwrap();
    let mut w = vec![0.0; d];
    let out = fit_binary(rows, task, None, p, &mut state, &mut w, &Monitor::new(), "").unwrap();
    (state, w, out)
}
