//! Tests that two solver families agree: kernel Pegasos with the linear kernel steps
//! as linear Pegasos does (the paper's kernelized update is the linear one with `w`
//! kept as counts of violations), so their decision values match to rounding.
//! Here, above the families, a test may use both.

use crate::data::rows::{DenseRows, Rows};
use crate::data::task::BinaryTask;
use crate::kernels::function::{Kernel, KernelRows};
use crate::kernels::gram::DataGram;
use crate::solvers::kernel::solver::tests::{dataset, decide, fit, params, solver, STRATEGIES};
use crate::solvers::kernel::solver::Strategy;
use crate::solvers::linear::test_support::fit_linear;
use crate::solvers::shared::params::{Averaging, Intercept, Params, Sampling};
use crate::solvers::shared::test_support::dense_problem;

#[test]
fn linear_kernel_reproduces_the_linear_solver() {
    let (n, d) = (120, 7);
    let (x, codes) = dataset(n, d, 1);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
    for (k, sampling, sw) in [
        (1, Sampling::Uniform, None),
        (4, Sampling::Uniform, Some(&weights[..])),
        (3, Sampling::Shuffle, None),
        (1, Sampling::Balanced, Some(&weights[..])),
    ] {
        let task = BinaryTask::new(&codes, 1, sw, 1.0, 1.0).unwrap();
        let p = params(0.05, k, 4, sampling);
        let (lin, w, _) = fit_linear(&rows, &task, &p, p.seed, 2);
        let want: Vec<f64> = (0..n).map(|i| rows.dot(i, &w)).collect();
        let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
        for strategy in STRATEGIES {
            let state = fit(&gram, &task, &p, solver(strategy, 1 << 20, false), 2);
            assert_eq!(state.steps(), lin.steps());
            let got = decide(Kernel::Linear, &rows, &state.model(p.alpha), &rows);
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-9 * (1.0 + w.abs()),
                    "{strategy:?} k={k}: {g} vs {w}"
                );
            }
        }
    }
}

#[test]
fn suffix_average_with_the_linear_kernel_matches_the_linear_solver() {
    let (n, d) = (90, 6);
    let (x, codes) = dataset(n, d, 7);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    for intercept in [Intercept::None, Intercept::Unregularized] {
        let p = Params {
            intercept,
            averaging: Averaging::Suffix,
            ..(*params(0.03, 2, 5, Sampling::Uniform)).clone()
        }
        .validate()
        .unwrap();
        let (_, w, out) = fit_linear(&rows, &task, &p, p.seed, 1);
        let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
        for strategy in STRATEGIES {
            let state = fit(&gram, &task, &p, solver(strategy, 0, false), 1);
            let model = state.model(p.alpha);
            assert!((model.intercept - out.intercept).abs() < 1e-9);
            let got = decide(Kernel::Linear, &rows, &model, &rows);
            for (i, g) in got.iter().enumerate() {
                let want = rows.dot(i, &w) + out.intercept;
                assert!(
                    (g - want).abs() <= 1e-9 * (1.0 + want.abs()),
                    "{g} vs {want}"
                );
            }
        }
    }
}

#[test]
fn linear_kernel_with_bias_matches_the_linear_solver() {
    let (n, d) = (80, 5);
    let (x, codes) = dataset(n, d, 2);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params {
        intercept: Intercept::Unregularized,
        ..(*params(0.1, 2, 3, Sampling::Uniform)).clone()
    }
    .validate()
    .unwrap();
    let (_, w, out) = fit_linear(&rows, &task, &p, p.seed, 0);
    let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
    let state = fit(&gram, &task, &p, solver(Strategy::Margins, 0, false), 0);
    let model = state.model(p.alpha);
    assert!((model.intercept - out.intercept).abs() < 1e-9 * (1.0 + out.intercept.abs()));
    assert!(model.intercept != 0.0);
    let got = decide(Kernel::Linear, &rows, &model, &rows);
    for (i, g) in got.iter().enumerate() {
        let want = rows.dot(i, &w) + out.intercept;
        assert!((g - want).abs() <= 1e-9 * (1.0 + want.abs()));
    }
}
