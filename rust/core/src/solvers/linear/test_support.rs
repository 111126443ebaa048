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

/// FNV-1a over the bits of `values` and `counts`: a digest of a state's fields
/// that changes with any bit of them.
pub(crate) fn bits_digest(values: &[&[f64]], counts: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let words = values
        .iter()
        .flat_map(|xs| xs.iter().map(|x| x.to_bits()))
        .chain(counts.iter().copied());
    for word in words {
        for byte in word.to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
