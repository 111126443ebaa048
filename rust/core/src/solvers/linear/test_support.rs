//! Fixtures of the linear family's tests (and of the tests comparing families): a
//! linear fit from scratch.

use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::monitor::Monitor;
use crate::solvers::linear::binary::{fit_binary, FitOutput, LinearState};
use crate::solvers::shared::params::ValidParams;

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
