//! Tests of kernel Pegasos with the losses other than the hinge: the squared
//! hinge's step rule against a naive transcription, epsilon-SVR against its
//! optimum, and the losses the kernel solver refuses.
#![allow(clippy::needless_pass_by_value)]

use super::*;
use crate::data::rows::{DenseRows, Rows};
use crate::kernels::function::{Kernel, KernelRow, KernelRows};
use crate::kernels::gram::DataGram;
use crate::rng::Rng;
use crate::solvers::kernel::model::KernelSettings;
use crate::solvers::kernel::regression::fit_kernel_regression;
use crate::solvers::shared::loss::{EpsilonInsensitive, SquaredEpsilonInsensitive};
use crate::solvers::shared::params::{Params, Sampling};
use crate::test_support::planted;

const STRATEGIES: [Strategy; 2] = [Strategy::SupportSet, Strategy::Margins];

fn params(loss: LossFunction, alpha: f64, k: usize, passes: usize, bias: bool) -> ValidParams {
    Params {
        loss,
        alpha,
        batch_size: k,
        projection: false,
        intercept: if bias {
            Intercept::Unregularized
        } else {
            Intercept::None
        },
        averaging: Averaging::Off,
        sampling: Sampling::Uniform,
        max_iter: passes,
        seed: 5,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

fn solver(strategy: Strategy) -> KernelSolver {
    KernelSolver {
        strategy,
        cache_bytes: 1 << 20,
        parallel: false,
    }
}

/// The full kernel matrix of the rows, row-major.
fn kernel_matrix<R: Rows>(kernel: Kernel, rows: &R) -> Vec<f64> {
    let n = rows.n_rows();
    let mut k = KernelRow::new(kernel, rows).unwrap();
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        k.load(rows, i).unwrap();
        for j in 0..n {
            out[i * n + j] = k.eval(j);
        }
    }
    out
}

/// Kernel Pegasos written out naively on the full kernel matrix `gram` (n x n):
/// a coefficient per example, every prediction a sum over all examples, the
/// examples drawn as the solver draws them. Starts at step `t0`; returns the
/// coefficients `a_j / (lambda T)`, the bias and `T`.
fn naive(
    gram: &[f64],
    task: &BinaryTask<'_>,
    p: &ValidParams,
    t0: u64,
    stream: u64,
) -> (Vec<f64>, f64, u64) {
    let n = task.len();
    let draws = Draws::new(&p.sampling, task).unwrap();
    let mut sampler = Sampler::new(p.seed, stream);
    let (mut a, mut b) = (vec![0.0; n], 0.0);
    let k = p.batch_size;
    let mut t = t0 - 1;
    for _ in 0..p.max_iter as u64 * n.div_ceil(k) as u64 {
        t += 1;
        let batch: Vec<usize> = (0..k).map(|_| draws.draw(&mut sampler)).collect();
        let mut steps = Vec::new();
        for &i in &batch {
            let c = task.weight(i);
            if c == 0.0 {
                continue;
            }
            let f = if t == 1 {
                0.0
            } else {
                (0..n).map(|j| a[j] * gram[i * n + j]).sum::<f64>() / (p.alpha * (t - 1) as f64)
            };
            steps.push((i, c * p.loss.step_weight(f + b, task.y(i))));
        }
        for &(i, cg) in &steps {
            a[i] += cg / k as f64;
            if p.intercept == Intercept::Unregularized {
                b += cg / (p.alpha * t as f64 * k as f64);
            }
        }
    }
    let scale = 1.0 / (p.alpha * t as f64);
    (a.iter().map(|v| v * scale).collect(), b, t)
}

/// The model's coefficients as a dense vector over the examples.
fn dense_coef(model: &BinaryKernelModel, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for (&j, &c) in model.support.iter().zip(&model.dual_coef) {
        out[j] = c;
    }
    out
}

/// `n x d` values in [-1, 1] (about half zeros), labels inside or outside a sphere.
fn classification(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<u32>) {
    planted(n, d, seed, |_, v| v * v, d as f64 / 6.0)
}

#[test]
fn squared_hinge_follows_the_naive_step_rule_from_t0() {
    let (n, d) = (70, 4);
    let (x, codes) = classification(n, d, 3);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let weights: Vec<f64> = (0..n).map(|i| [0.5, 1.0, 2.0, 0.0][i % 4]).collect();
    let kernel = Kernel::Rbf { gamma: 0.7 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let dense = kernel_matrix(kernel, &rows);
    for (k, bias, sw) in [
        (1, false, None),
        (3, true, Some(&weights[..])),
        (2, true, None),
    ] {
        let task = BinaryTask::new(&codes, 1, sw, 1.0, 1.5).unwrap();
        let p = params(LossFunction::SquaredHinge, 0.05, k, 5, bias);
        // t0 = ceil(2 max_i c_i (K(x_i, x_i) + e) / lambda), K(x, x) = 1 for rbf.
        let largest = (0..n).map(|i| task.weight(i)).fold(0.0, f64::max);
        let e = if bias { 1.0 } else { 0.0 };
        let t0 = (2.0 * largest * (1.0 + e) / p.alpha).ceil() as u64;
        assert_eq!(first_step(&gram, &task, &p).unwrap(), t0);
        let (want, want_b, t) = naive(&dense, &task, &p, t0, 1);
        for strategy in STRATEGIES {
            let mut state = KernelState::new(n, p.seed, 1).unwrap();
            let m = Monitor::new();
            fit_kernel_binary::<_, f64>(
                &gram,
                &task,
                None,
                &p,
                solver(strategy),
                &mut state,
                &m,
                "",
            )
            .unwrap();
            assert_eq!(state.steps(), t);
            let model = state.model(p.alpha);
            let got = dense_coef(&model, n);
            assert!(model.support.len() > 5, "{strategy:?} k={k}");
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-9 * (1.0 + w.abs()),
                    "{strategy:?} k={k}: {g} vs {w}"
                );
            }
            assert!((model.intercept - want_b).abs() <= 1e-9 * (1.0 + want_b.abs()));
            if bias {
                assert!(model.intercept != 0.0);
            }
            // Weight-zero examples are never support vectors.
            if sw.is_some() {
                assert!(model.support.iter().all(|&j| j % 4 != 3));
            }
        }
    }
}

#[test]
fn squared_hinge_from_step_one_diverges_and_from_t0_converges() {
    let (n, d) = (120, 4);
    let (x, codes) = classification(n, d, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 1.0 };
    let dense = kernel_matrix(kernel, &rows);
    let p = params(LossFunction::SquaredHinge, 1.0 / n as f64, 1, 3, true);
    // The paper's start, t = 1: the first steps overshoot and the coefficients
    // explode.
    let (a, b, _) = naive(&dense, &task, &p, 1, 0);
    let size = a.iter().fold(b.abs(), |m, v| m.max(v.abs()));
    assert!(
        size.is_nan() || size > 1e6,
        "from t = 1: largest coefficient {size}"
    );
    // From t0 the objective falls pass after pass, to that of a sound classifier.
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let objective = |passes: usize| {
        let p = params(LossFunction::SquaredHinge, 1.0 / n as f64, 1, passes, true);
        let mut state = KernelState::new(n, p.seed, 0).unwrap();
        let s = solver(Strategy::Margins);
        let m = Monitor::new();
        let out =
            fit_kernel_binary::<_, f64>(&gram, &task, None, &p, s, &mut state, &m, "").unwrap();
        out.objective.unwrap()
    };
    let (o2, o50) = (objective(2), objective(50));
    assert!(o50.is_finite() && o50 < o2, "{o2} then {o50}");
    // Below the squared hinge of the zero model (1 per example).
    assert!(o50 < 0.8, "{o50}");
}

/// `y = sin(3 x0) + x1 / 2` plus noise, `x` in [-1, 1]^2.
fn regression(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let (a, b) = (2.0 * rng.next_f64() - 1.0, 2.0 * rng.next_f64() - 1.0);
        x.extend([a, b]);
        y.push((3.0 * a).sin() + 0.5 * b + 0.2 * (rng.next_f64() - 0.5));
    }
    (x, y)
}

/// The optimum of `1/2 beta' K beta - y' beta + eps |beta|_1` over
/// `|beta_i| <= upper_i` (the dual of epsilon-SVR without bias, whose negative is
/// a lower bound of the primal `1/2 ||w||^2 + sum_i upper_i max(0, |f_i - y_i| -
/// eps)`), by exact coordinate descent; returns the dual objective
/// `-(1/2 beta' K beta - y' beta + eps |beta|_1)`.
fn svr_dual_optimum(gram: &[f64], y: &[f64], eps: f64, upper: &[f64]) -> f64 {
    let n = y.len();
    let mut beta = vec![0.0; n];
    let mut kb = vec![0.0; n];
    for _ in 0..3000 {
        for i in 0..n {
            let q = gram[i * n + i];
            let g = kb[i] - y[i];
            let u = beta[i] - g / q;
            let z = (u.signum() * (u.abs() - eps / q).max(0.0)).clamp(-upper[i], upper[i]);
            let d = z - beta[i];
            if d != 0.0 {
                for j in 0..n {
                    kb[j] += d * gram[j * n + i];
                }
                beta[i] = z;
            }
        }
    }
    let quad: f64 = beta.iter().zip(&kb).map(|(b, k)| b * k).sum();
    let lin: f64 = beta.iter().zip(y).map(|(b, t)| b * t).sum();
    let l1: f64 = beta.iter().map(|b| b.abs()).sum();
    -(0.5 * quad - lin + eps * l1)
}

/// `1/2 ||w||^2 + sum_i upper_i l(f_i, y_i)` of a model on the full kernel matrix.
fn svr_primal(
    gram: &[f64],
    y: &[f64],
    coef: &[f64],
    b: f64,
    loss: LossFunction,
    upper: &[f64],
) -> f64 {
    let n = y.len();
    let f: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| coef[j] * gram[i * n + j]).sum::<f64>())
        .collect();
    let sq: f64 = coef.iter().zip(&f).map(|(c, v)| c * v).sum();
    let loss_sum: f64 = (0..n).map(|i| upper[i] * loss.value(f[i] + b, y[i])).sum();
    0.5 * sq + loss_sum
}

#[test]
fn epsilon_svr_reaches_its_optimum() {
    let n = 150;
    let (x, y) = regression(n, 2);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let kernel = Kernel::Rbf { gamma: 2.0 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let dense = kernel_matrix(kernel, &rows);
    let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64 / 2.0).collect();
    let eps = 0.1;
    let loss = LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: eps });
    let c = 2.0; // LIBSVM's C = 1 / (lambda m)
    let alpha = 1.0 / (c * n as f64);
    for sw in [None, Some(&weights[..])] {
        let upper: Vec<f64> = (0..n).map(|i| c * sw.map_or(1.0, |w| w[i])).collect();
        let best = svr_dual_optimum(&dense, &y, eps, &upper);
        for strategy in STRATEGIES {
            let p = Params {
                averaging: Averaging::Suffix,
                ..(*params(loss, alpha, 1, 400, false)).clone()
            }
            .validate()
            .unwrap();
            let settings = KernelSettings {
                strategy,
                cache_bytes: 1 << 20,
                n_threads: 1,
            };
            let mut state = KernelState::new(n, p.seed, 0).unwrap();
            let (model, _) = fit_kernel_regression::<_, f64>(
                &gram,
                &y,
                sw,
                None,
                &p,
                settings,
                &mut state,
                &Monitor::new(),
            )
            .unwrap();
            assert_eq!(model.intercept, vec![0.0]);
            let coef = {
                let mut out = vec![0.0; n];
                for (&j, &v) in model.support.iter().zip(&model.dual_coef) {
                    out[j] = v;
                }
                out
            };
            let got = svr_primal(&dense, &y, &coef, 0.0, loss, &upper);
            // The primal of any model bounds the dual optimum from above.
            assert!(got >= best * (1.0 - 1e-9), "{got} below the dual {best}");
            assert!(
                got <= best * 1.01,
                "{strategy:?} weighted {}: primal {got}, optimum {best}",
                sw.is_some()
            );
            // Both signs of coefficients, and examples inside the tube left out.
            assert!(model.dual_coef.iter().any(|&v| v > 0.0));
            assert!(model.dual_coef.iter().any(|&v| v < 0.0));
            assert!(model.support.len() < n && !model.dual_coef.contains(&0.0));
        }
    }
}

#[test]
fn regression_follows_the_naive_step_rule_with_a_bias() {
    let n = 60;
    let (x, y) = regression(n, 4);
    let y: Vec<f64> = y.iter().map(|v| 3.0 + v).collect();
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let kernel = Kernel::Rbf { gamma: 1.5 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let dense = kernel_matrix(kernel, &rows);
    let task = BinaryTask::regression(&y, None).unwrap();
    for loss in [
        LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: 0.05 }),
        LossFunction::SquaredEpsilonInsensitive(SquaredEpsilonInsensitive { epsilon: 0.05 }),
    ] {
        let p = params(loss, 0.02, 2, 4, true);
        let t0 = first_step(&gram, &task, &p).unwrap();
        let (want, want_b, t) = naive(&dense, &task, &p, t0, 0);
        for strategy in STRATEGIES {
            let mut state = KernelState::new(n, p.seed, 0).unwrap();
            let settings = KernelSettings {
                strategy,
                cache_bytes: 0,
                n_threads: 1,
            };
            let (model, _) = fit_kernel_regression::<_, f64>(
                &gram,
                &y,
                None,
                None,
                &p,
                settings,
                &mut state,
                &Monitor::new(),
            )
            .unwrap();
            assert_eq!(state.steps(), t);
            let mut got = vec![0.0; n];
            for (&j, &v) in model.support.iter().zip(&model.dual_coef) {
                got[j] = v;
            }
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-9 * (1.0 + w.abs()),
                    "{}: {g} vs {w}",
                    loss.name()
                );
            }
            let b = model.intercept[0];
            assert!(
                (b - want_b).abs() <= 1e-9 * (1.0 + want_b.abs()),
                "{b} vs {want_b}"
            );
        }
    }
}

#[test]
fn restarts_and_threads_change_nothing_in_a_regression() {
    let n = 300;
    let (x, y) = regression(n, 6);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(
        &rows,
        KernelRows::new(Kernel::Rbf { gamma: 1.0 }, &rows).unwrap(),
    );
    let loss = LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: 0.1 });
    for strategy in STRATEGIES {
        let run = |passes: usize, calls: usize, threads: usize, cache: usize| {
            let p = params(loss, 1e-3, 2, passes, true);
            let settings = KernelSettings {
                strategy,
                cache_bytes: cache,
                n_threads: threads,
            };
            let mut state = KernelState::new(n, p.seed, 0).unwrap();
            let mut model = None;
            for _ in 0..calls {
                let m = Monitor::new();
                let fit = fit_kernel_regression::<_, f64>(
                    &gram, &y, None, None, &p, settings, &mut state, &m,
                );
                model = Some(fit.unwrap().0);
            }
            (state, model.unwrap())
        };
        let (whole, model) = run(4, 1, 1, 1 << 20);
        let (twice, _) = run(2, 2, 1, 0);
        assert_eq!(twice, whole, "{strategy:?}");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (_, par) = pool.install(|| run(4, 1, 2, 4000));
        assert_eq!(par, model, "{strategy:?}");
    }
}

#[test]
fn losses_with_a_slope_everywhere_are_refused_with_a_pointer() {
    let n = 40;
    let (x, y) = regression(n, 1);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(Kernel::Linear, &rows).unwrap());
    let codes: Vec<u32> = y.iter().map(|&v| u32::from(v > 0.0)).collect();
    let classes = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let targets = BinaryTask::regression(&y, None).unwrap();
    let fit = |task: &BinaryTask<'_>, loss: LossFunction| {
        let p = params(loss, 0.1, 1, 1, false);
        let mut state = KernelState::new(n, 0, 0).unwrap();
        let s = solver(Strategy::Auto);
        fit_kernel_binary::<_, f64>(&gram, task, None, &p, s, &mut state, &Monitor::new(), "")
    };
    for (name, task, instead) in [
        (
            "log_loss",
            &classes,
            "Nystroem + PegasosClassifier(loss='log_loss')",
        ),
        (
            "squared_error",
            &targets,
            "Nystroem + PegasosRegressor(loss='squared_error')",
        ),
        (
            "huber",
            &targets,
            "Nystroem + PegasosRegressor(loss='huber')",
        ),
    ] {
        let loss = LossFunction::from_name(name, 0.1).unwrap();
        match fit(task, loss) {
            Err(Error::InvalidParameter(m)) => {
                assert!(m.contains("never zero") && m.contains(instead), "{m}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    // The loss must fit the targets.
    let eps = LossFunction::from_name("epsilon_insensitive", 0.1).unwrap();
    let r = fit(&classes, eps);
    assert!(matches!(r, Err(Error::InvalidParameter(m)) if m.contains("real targets")));
    let r = fit(&targets, LossFunction::SquaredHinge);
    assert!(matches!(r, Err(Error::InvalidParameter(m)) if m.contains("class labels")));
    // Targets are checked; a regression has no classes to balance.
    let mut bad = y.clone();
    bad[7] = f64::INFINITY;
    let task = BinaryTask::regression(&bad, None).unwrap();
    let r = fit(&task, eps);
    assert!(matches!(r, Err(Error::InvalidInput(m)) if m.contains("example 7")));
    let balanced = Params {
        loss: eps,
        sampling: Sampling::Balanced,
        projection: false,
        ..Params::default()
    };
    assert!(balanced.validate().is_err());
    let settings = KernelSettings {
        strategy: Strategy::Auto,
        cache_bytes: 0,
        n_threads: 1,
    };
    let mut state = KernelState::new(n, 0, 0).unwrap();
    let p = params(eps, 0.1, 1, 1, false);
    let r = fit_kernel_regression::<_, f64>(
        &gram,
        &y[1..],
        None,
        None,
        &p,
        settings,
        &mut state,
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::ShapeMismatch(_))));
}

#[test]
fn auto_pilots_from_t0_with_a_squared_loss() {
    // auto_switches_to_margins_when_they_pay_off_the_same_way_everywhere's case
    // (kernel_solver_tests.rs) with the squared hinge: the run starts at t0, and the pilot
    // counts its steps from there.
    let (n, d, passes) = (1000, 4, 8);
    let (x, codes) = classification(n, d, 9);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let gram = DataGram::new(
        &rows,
        KernelRows::new(Kernel::Rbf { gamma: 50.0 }, &rows).unwrap(),
    );
    let p = params(LossFunction::SquaredHinge, 1e-5, 1, passes, false);
    let t0 = first_step(&gram, &task, &p).unwrap();
    assert_eq!(t0, 200_000);
    let fit = |strategy| {
        let mut state = KernelState::new(n, p.seed, 0).unwrap();
        let m = Monitor::new();
        fit_kernel_binary::<_, f64>(&gram, &task, None, &p, solver(strategy), &mut state, &m, "")
            .unwrap();
        state
    };
    let auto = fit(Strategy::Auto);
    assert_eq!(auto.strategy(), Strategy::Margins);
    assert_eq!(auto.switched_at(), Some(t0 - 1 + pilot_steps(n as u64)));
    let margins = fit(Strategy::Margins);
    assert_eq!(auto.support, margins.support);
    for (a, b) in auto.coef.iter().zip(&margins.coef) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
    }
}

#[test]
fn auto_keeps_a_regression_on_the_support_set() {
    // A fit above the small-fit threshold, which a classification pilots and may
    // switch: a regression's tube violations do not thin out, so auto never pilots
    // and its run is the support set's, bit for bit.
    let (n, passes) = (600, 4);
    assert!((n * n * passes) as f64 >= crate::thresholds::SMALL_KERNEL_VALUES);
    let (x, y) = regression(n, 8);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(
        &rows,
        KernelRows::new(Kernel::Rbf { gamma: 1.0 }, &rows).unwrap(),
    );
    let loss = LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: 0.01 });
    let p = params(loss, 1e-4, 1, passes, true);
    let fit = |strategy| {
        let settings = KernelSettings {
            strategy,
            cache_bytes: 1 << 20,
            n_threads: 1,
        };
        let mut state = KernelState::new(n, p.seed, 0).unwrap();
        let m = Monitor::new();
        let (model, _) =
            fit_kernel_regression::<_, f64>(&gram, &y, None, None, &p, settings, &mut state, &m)
                .unwrap();
        (state, model)
    };
    let (auto_state, auto_model) = fit(Strategy::Auto);
    assert_eq!(auto_state.strategy(), Strategy::SupportSet);
    assert_eq!(auto_state.switched_at(), None);
    let (support_state, support_model) = fit(Strategy::SupportSet);
    assert_eq!(auto_model, support_model);
    assert_eq!(auto_state.support, support_state.support);
}
