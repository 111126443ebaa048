//! Tests of kernel Pegasos: restarts, strategies,
//! threads and cache size.
#![allow(clippy::needless_pass_by_value)]

use super::*;
use crate::data::rows::{CsrRows, DenseRows, Rows};
use crate::kernels::function::{Kernel, KernelRow, KernelRows};
use crate::kernels::gram::{DataGram, PrecomputedGram};
use crate::solvers::shared::one_class::nu_quantile;
use crate::solvers::shared::params::{Params, Sampling};
use crate::solvers::shared::test_support::dense_problem;
use crate::test_support::{planted, to_csr};

/// `n x d` values with about half zeros; labels from a planted non-linear rule
/// (inside or outside a sphere) with some noise.
pub(crate) fn dataset(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<u32>) {
    planted(n, d, seed, |_, v| v * v, d as f64 / 6.0)
}

pub(crate) fn params(
    alpha: f64,
    batch_size: usize,
    passes: usize,
    sampling: Sampling,
) -> ValidParams {
    Params {
        alpha,
        batch_size,
        projection: false,
        intercept: Intercept::None,
        averaging: Averaging::Off,
        sampling,
        max_iter: passes,
        seed: 11,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

pub(crate) fn solver(strategy: Strategy, cache_bytes: usize, parallel: bool) -> KernelSolver {
    KernelSolver {
        strategy,
        cache_bytes,
        parallel,
    }
}

pub(crate) fn fit<G: Gram>(
    gram: &G,
    task: &BinaryTask,
    p: &ValidParams,
    s: KernelSolver,
    stream: u64,
) -> KernelState {
    let mut state = KernelState::new(gram.n(), p.seed, stream).unwrap();
    fit_kernel_binary::<G, f64>(gram, task, None, p, s, &mut state, &Monitor::new(), "").unwrap();
    state
}

/// Decision values of `model` on the rows of `x`.
pub(crate) fn decide<R: Rows>(
    kernel: Kernel,
    train: &R,
    model: &BinaryKernelModel,
    x: &R,
) -> Vec<f64> {
    let mut k = KernelRow::new(kernel, train).unwrap();
    (0..x.n_rows())
        .map(|i| {
            k.load(x, i).unwrap();
            model
                .support
                .iter()
                .zip(&model.dual_coef)
                .map(|(&j, c)| c * k.eval(j))
                .sum::<f64>()
                + model.intercept
        })
        .collect()
}

pub(crate) const STRATEGIES: [Strategy; 2] = [Strategy::SupportSet, Strategy::Margins];

#[test]
fn restart_is_bit_exact_and_cache_and_threads_change_nothing() {
    let (n, d) = (300, 6);
    let (x, codes) = dataset(n, d, 3);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 2.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for strategy in STRATEGIES {
        let p4 = params(0.01, 2, 4, Sampling::Shuffle);
        let whole = fit(&gram, &task, &p4, solver(strategy, 1 << 24, false), 0);
        // Two calls of two passes, no cache.
        let p2 = params(0.01, 2, 2, Sampling::Shuffle);
        let mut state = KernelState::new(n, p2.seed, 0).unwrap();
        let monitor = Monitor::new();
        for _ in 0..2 {
            fit_kernel_binary::<_, f64>(
                &gram,
                &task,
                None,
                &p2,
                solver(strategy, 0, false),
                &mut state,
                &monitor,
                "",
            )
            .unwrap();
        }
        assert_eq!(state, whole, "{strategy:?}");
        // Parallel chunks on two threads, small cache.
        let par = pool.install(|| fit(&gram, &task, &p4, solver(strategy, 4000, true), 0));
        assert_eq!(par, whole, "{strategy:?}");
        assert_eq!(
            whole.support.len(),
            whole.coef.iter().filter(|&&a| a != 0.0).count()
        );
        assert!(whole.support.len() > 10);
    }
}

#[test]
fn strategies_agree_and_rbf_separates_a_sphere() {
    let (n, d) = (400, 4);
    let (x, codes) = dataset(n, d, 4);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params {
        intercept: Intercept::Unregularized,
        ..(*params(1.0 / n as f64, 1, 10, Sampling::Uniform)).clone()
    }
    .validate()
    .unwrap();
    let accuracy = |kernel: Kernel, strategy: Strategy| {
        let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
        let state = fit(&gram, &task, &p, solver(strategy, 1 << 20, false), 0);
        let f = decide(kernel, &rows, &state.model(p.alpha), &rows);
        let correct = (0..n).filter(|&i| f[i] * task.y(i) > 0.0).count();
        (correct as f64 / n as f64, f)
    };
    let rbf = Kernel::Rbf { gamma: 1.0 };
    let (a_support, f_support) = accuracy(rbf, Strategy::SupportSet);
    let (a_margins, f_margins) = accuracy(rbf, Strategy::Margins);
    let (a_linear, _) = accuracy(Kernel::Linear, Strategy::Margins);
    for (a, b) in f_support.iter().zip(&f_margins) {
        assert!((a - b).abs() < 1e-9 * (1.0 + a.abs()));
    }
    assert_eq!(a_support, a_margins);
    assert!(
        a_margins > 0.8,
        "rbf accuracy {a_margins} (linear {a_linear})"
    );
    assert!(
        a_margins > a_linear + 0.1,
        "rbf {a_margins} vs linear {a_linear}"
    );
}

#[test]
fn precomputed_gram_matches_the_kernel_and_csr_matches_dense() {
    let (n, d) = (150, 5);
    let (x, codes) = dataset(n, d, 5);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let (v, c, ptr) = to_csr::<i32>(&x, n, d);
    let csr = CsrRows::new(&v, &c, &ptr, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Chi2 { gamma: 0.3 };
    let nonneg: Vec<f64> = x.iter().map(|a| a.abs()).collect();
    let rows_nn = DenseRows::new(&nonneg, n, d).unwrap();
    let p = params(0.02, 1, 3, Sampling::Uniform);
    let data_gram = DataGram::new(&rows_nn, KernelRows::new(kernel, &rows_nn).unwrap());
    let mut k = KernelRow::new(kernel, &rows_nn).unwrap();
    let mut values = vec![0.0; n * n];
    for i in 0..n {
        k.load(&rows_nn, i).unwrap();
        for j in 0..n {
            values[i * n + j] = k.eval(j);
        }
    }
    let pre = PrecomputedGram::new(&values, n, n).unwrap();
    for strategy in STRATEGIES {
        let a = fit(&data_gram, &task, &p, solver(strategy, 1 << 20, false), 0);
        let b = fit(&pre, &task, &p, solver(strategy, 1 << 20, false), 0);
        assert_eq!(a, b);
    }
    // Sparse and dense storage of the same rows: same model to rounding.
    let rbf = Kernel::Rbf { gamma: 0.4 };
    let gd = DataGram::new(&rows, KernelRows::new(rbf, &rows).unwrap());
    let gs = DataGram::new(&csr, KernelRows::new(rbf, &csr).unwrap());
    let a = fit(&gd, &task, &p, solver(Strategy::Margins, 1 << 20, false), 0);
    let b = fit(&gs, &task, &p, solver(Strategy::Margins, 1 << 20, false), 0);
    assert_eq!(a.support, b.support);
    for (x, y) in a.coef.iter().zip(&b.coef) {
        assert!((x - y).abs() < 1e-12);
    }
}

#[test]
fn objective_falls_and_bad_setups_are_errors() {
    let (n, d) = (200, 4);
    let (x, codes) = dataset(n, d, 6);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let gram = DataGram::new(
        &rows,
        KernelRows::new(Kernel::Rbf { gamma: 1.0 }, &rows).unwrap(),
    );
    let run = |p: &ValidParams, strategy: Strategy, state: &mut KernelState, monitor: bool| {
        let monitor = if monitor {
            Monitor::stopped()
        } else {
            Monitor::new()
        };
        let s = solver(strategy, 1 << 20, false);
        fit_kernel_binary::<_, f64>(&gram, &task, None, p, s, state, &monitor, "")
    };
    let objective = |passes: usize| {
        let p = params(0.01, 1, passes, Sampling::Uniform);
        let mut state = KernelState::new(n, p.seed, 0).unwrap();
        run(&p, Strategy::Margins, &mut state, false)
            .unwrap()
            .objective
            .unwrap()
    };
    assert!(objective(20) < objective(1));

    // Projection, averaging, tol and the bias multiplier are linear-only.
    for p in [
        Params {
            projection: true,
            ..Params::default()
        },
        Params {
            averaging: Averaging::FromStep(3),
            projection: false,
            ..Params::default()
        },
        Params {
            intercept: Intercept::BiasMultiplier(1.0),
            projection: false,
            ..Params::default()
        },
    ] {
        let p = p.validate().unwrap();
        let mut state = KernelState::new(n, 0, 0).unwrap();
        let r = run(&p, Strategy::Auto, &mut state, false);
        assert!(matches!(r, Err(Error::InvalidParameter(_))));
    }
    // Interrupted.
    let p = params(0.01, 1, 2, Sampling::Uniform);
    let mut state = KernelState::new(n, 0, 0).unwrap();
    let r = run(&p, Strategy::Auto, &mut state, true);
    assert_eq!(r, Err(Error::Interrupted));
    // Wrong state size, non-square precomputed kernels.
    let mut small = KernelState::new(n - 1, 0, 0).unwrap();
    assert!(run(&p, Strategy::Auto, &mut small, false).is_err());
    assert!(PrecomputedGram::new(&[1.0; 6], 2, 3).is_err());
    assert!(PrecomputedGram::new(&[1.0, f64::NAN, 0.0, 1.0], 2, 2).is_err());
}

/// A fit of `passes` passes of an rbf kernel of width `gamma` on `n` examples with
/// `strategy`, on one thread with a large cache or on three with none.
fn auto_case(
    n: usize,
    gamma: f64,
    alpha: f64,
    passes: usize,
    strategy: Strategy,
) -> [KernelState; 2] {
    let d = 4;
    let (x, codes) = dataset(n, d, 9);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let gram = DataGram::new(
        &rows,
        KernelRows::new(Kernel::Rbf { gamma }, &rows).unwrap(),
    );
    let p = params(alpha, 1, passes, Sampling::Uniform);
    let one = fit(&gram, &task, &p, solver(strategy, 1 << 26, false), 0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let three = pool.install(|| fit(&gram, &task, &p, solver(strategy, 0, true), 0));
    [one, three]
}

#[test]
fn auto_switches_to_margins_when_they_pay_off_the_same_way_everywhere() {
    // A narrow kernel and little regularisation: nearly every example violates and
    // joins the support set; over eight passes the margin vector is projected
    // cheaper, and the pilot's end is where auto switches.
    let (n, passes) = (1000, 8);
    let [auto, auto3] = auto_case(n, 50.0, 1e-5, passes, Strategy::Auto);
    assert_eq!(auto, auto3, "threads and cache size change auto's run");
    assert_eq!(auto.strategy(), Strategy::Margins);
    let at = auto.switched_at().expect("auto should have switched");
    assert_eq!(at, pilot_steps(n as u64));
    // Up to the switch, auto is the support set's run; the model agrees with both
    // forced strategies to rounding.
    let [support, _] = auto_case(n, 50.0, 1e-5, passes, Strategy::SupportSet);
    let [margins, _] = auto_case(n, 50.0, 1e-5, passes, Strategy::Margins);
    assert_eq!(support.switched_at(), None);
    assert_eq!(margins.switched_at(), None);
    for other in [&support, &margins] {
        assert_eq!(auto.support, other.support);
        for (a, b) in auto.coef.iter().zip(&other.coef) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}

#[test]
fn auto_stays_on_the_support_set_for_one_pass_and_equals_it_bit_for_bit() {
    // One pass (not a small fit: n^2 = 10^6 kernel values): nothing to reuse, so
    // the support set's first pass is projected cheaper whatever the pilot saw.
    let (n, passes) = (1000, 1);
    let [auto, auto3] = auto_case(n, 50.0, 1e-5, passes, Strategy::Auto);
    assert_eq!(auto, auto3);
    assert_eq!(auto.strategy(), Strategy::SupportSet);
    assert_eq!(auto.switched_at(), None);
    let [support, _] = auto_case(n, 50.0, 1e-5, passes, Strategy::SupportSet);
    assert_eq!(auto.support, support.support);
    assert_eq!(auto.coef, support.coef);
    assert_eq!(auto.bias, support.bias);
}

#[test]
fn auto_keeps_margins_from_the_start_on_small_fits() {
    let [auto, _] = auto_case(300, 1.0, 1e-3, 3, Strategy::Auto);
    let [margins, _] = auto_case(300, 1.0, 1e-3, 3, Strategy::Margins);
    assert_eq!(auto.strategy(), Strategy::Margins);
    assert_eq!(auto.switched_at(), None);
    assert_eq!(auto.coef, margins.coef);
    assert_eq!(auto.margins, margins.margins);
}

/// The one-class SVM written out with an explicit `w` (the linear kernel): every
/// row labelled +1, lambda = nu, `w` and `b` the two-class steps, the bias drifting
/// by -1/t and reset to 1 - rho (rho the nu-quantile of the scores of every
/// `stride`-th row of positive weight) at t = 2, 4, 8, ... and after every pass.
/// Returns `(w, b)` of the last iterate.
fn naive_one_class(
    x: &[f64],
    d: usize,
    weights: &[f64],
    (nu, k, passes, seed): (f64, usize, usize, u64),
) -> (Vec<f64>, f64) {
    let n = weights.len();
    let mut rng = crate::rng::Rng::stream(seed, 0);
    let (mut w, mut b) = (vec![0.0; d], 0.0);
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let dot = |w: &[f64], i: usize| row(i).iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
    let reset = |w: &[f64], b: &mut f64| {
        let stride = n
            .div_ceil(crate::solvers::shared::one_class::RESET_ROWS)
            .max(1);
        let mut scored: Vec<(f64, f64)> = (0..n)
            .step_by(stride)
            .filter(|&i| weights[i] > 0.0)
            .map(|i| (dot(w, i), weights[i]))
            .collect();
        *b = 1.0 - nu_quantile(&mut scored, nu).unwrap();
    };
    let mut t = 0u64;
    for _ in 0..passes {
        for _ in 0..n.div_ceil(k) {
            t += 1;
            let batch: Vec<usize> = (0..k).map(|_| rng.below(n as u64) as usize).collect();
            let mut grad = vec![0.0; d];
            let mut gb = 0.0;
            for &i in &batch {
                if weights[i] > 0.0 && dot(&w, i) + b < 1.0 {
                    for (g, v) in grad.iter_mut().zip(row(i)) {
                        *g += weights[i] * v;
                    }
                    gb += weights[i];
                }
            }
            let eta = 1.0 / (nu * t as f64);
            for (wj, g) in w.iter_mut().zip(&grad) {
                *wj = (1.0 - eta * nu) * *wj + eta / k as f64 * g;
            }
            b += eta / k as f64 * gb - 1.0 / t as f64;
            if t.is_power_of_two() {
                reset(&w, &mut b);
            }
        }
        reset(&w, &mut b);
    }
    (w, b)
}

#[test]
fn one_class_steps_match_the_derivation() {
    let (n, d) = (150, 5);
    let (x, _) = dataset(n, d, 9);
    let shifted: Vec<f64> = x.iter().map(|v| v + 1.5).collect();
    let rows = DenseRows::new(&shifted, n, d).unwrap();
    let ones = vec![1; n];
    let weights: Vec<f64> = (0..n).map(|i| [1.0, 0.5, 2.0, 0.0][i % 4]).collect();
    let unit = vec![1.0; n];
    for (k, sw) in [(1, &unit), (4, &weights), (3, &unit)] {
        let task = BinaryTask::new(&ones, 1, Some(&sw[..]), 1.0, 1.0).unwrap();
        let nu = 0.2;
        let p = Params {
            alpha: nu,
            one_class: true,
            intercept: Intercept::Unregularized,
            ..(*params(nu, k, 5, Sampling::Uniform)).clone()
        }
        .validate()
        .unwrap();
        let (w, b) = naive_one_class(&shifted, d, sw, (nu, k, 5, p.seed));
        let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
        for strategy in STRATEGIES {
            let state = fit(&gram, &task, &p, solver(strategy, 1 << 20, false), 0);
            assert!(
                (state.bias - b).abs() <= 1e-9 * (1.0 + b.abs()),
                "{} vs {b}",
                state.bias
            );
            let mut model = state.model(p.alpha);
            model.intercept = 0.0;
            let got = decide(Kernel::Linear, &rows, &model, &rows);
            for (i, g) in got.iter().enumerate() {
                let want = rows.dot(i, &w);
                assert!(
                    (g - want).abs() <= 1e-9 * (1.0 + want.abs()),
                    "{strategy:?} k={k}: {g} vs {want}"
                );
            }
        }
    }
}

#[test]
fn one_class_bias_steps_drift_and_reset_after_each_pass() {
    // rbf: after every pass the bias is 1 - rho with rho the nu-quantile of the
    // iterate's scores on the rows, so a fraction nu of the rows violates.
    let (n, d) = (200, 4);
    let (x, _) = dataset(n, d, 4);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let ones = vec![1; n];
    let task = BinaryTask::new(&ones, 1, None, 1.0, 1.0).unwrap();
    let nu = 0.25;
    let p = Params {
        alpha: nu,
        one_class: true,
        intercept: Intercept::Unregularized,
        ..(*params(nu, 1, 3, Sampling::Shuffle)).clone()
    }
    .validate()
    .unwrap();
    let kernel = Kernel::Rbf { gamma: 0.3 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    for strategy in STRATEGIES {
        let state = fit(&gram, &task, &p, solver(strategy, 1 << 20, false), 0);
        let mut model = state.model(p.alpha);
        model.intercept = state.bias - 1.0;
        let values = decide(kernel, &rows, &model, &rows);
        let below = values.iter().filter(|&&v| v < -1e-9).count();
        let at_most = values.iter().filter(|&&v| v <= 1e-9).count();
        assert!(below as f64 <= nu * n as f64, "{strategy:?}: {below}");
        assert!(at_most as f64 >= nu * n as f64, "{strategy:?}: {at_most}");
        assert!(state.support.len() >= at_most);
    }
}
