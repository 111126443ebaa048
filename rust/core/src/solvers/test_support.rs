//! Fixtures shared by the solver tests (linear and kernel): a seeded problem's dense
//! rows and binary task, and a linear fit from scratch.

use crate::data::rows::{DenseRows, Rows};
use crate::data::task::BinaryTask;
use crate::monitor::Monitor;
use crate::rng::Rng;
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
    let out = fit_binary(rows, task, p, &mut state, &mut w, &Monitor::new(), "").unwrap();
    (state, w, out)
}

/// `n x d` values, about half zeros, and labels of `n_classes` planted separators,
/// one in `noise_one_in` replaced by a uniformly drawn class.
pub(crate) fn planted_classes(
    n: usize,
    d: usize,
    n_classes: u32,
    seed: u64,
    noise_one_in: u64,
) -> (Vec<f64>, Vec<u32>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = vec![0.0; n * d];
    let mut codes = vec![0u32; n];
    for i in 0..n {
        for j in 0..d {
            if rng.below(2) == 0 {
                x[i * d + j] = rng.below(2001) as f64 / 1000.0 - 1.0;
            }
        }
        let mut best = (f64::NEG_INFINITY, 0u32);
        for c in 0..n_classes {
            let s: f64 = (0..d)
                .map(|j| x[i * d + j] * if (j as u32 + c) % 3 == 0 { 1.0 } else { -0.3 })
                .sum();
            if s > best.0 {
                best = (s, c);
            }
        }
        codes[i] = if rng.below(noise_one_in) == 0 {
            rng.below(u64::from(n_classes)) as u32
        } else {
            best.1
        };
    }
    (x, codes)
}

/// The CSR arrays (data, indices, indptr) of the dense `n x d` rows `x`.
pub(crate) fn to_csr(x: &[f64], n: usize, d: usize) -> (Vec<f64>, Vec<i64>, Vec<i64>) {
    let (mut data, mut idx, mut ptr) = (vec![], vec![], vec![0i64]);
    for i in 0..n {
        for j in 0..d {
            if x[i * d + j] != 0.0 {
                data.push(x[i * d + j]);
                idx.push(j as i64);
            }
        }
        ptr.push(data.len() as i64);
    }
    (data, idx, ptr)
}
