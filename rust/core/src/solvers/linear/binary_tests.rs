//! Tests of the linear solver against a naive dense transcription of the paper.
#![allow(clippy::needless_range_loop, clippy::needless_pass_by_value)]

use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::rng::Rng;
use crate::solvers::linear::test_support::{bits_digest, fit_linear};
use crate::solvers::shared::held_out::HeldOut;
use crate::solvers::shared::loss::{LossFunction, SquaredEpsilonInsensitive};
use crate::solvers::shared::params::{Params, Sampling};
use crate::solvers::shared::test_support::dense_problem;
use crate::test_support::{planted, to_csr};
use std::borrow::Cow;

/// A small seeded data set: `n x d` dense values with about half zeros, labels from
/// a planted separator with some noise.
fn dataset(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<u32>) {
    planted(
        n,
        d,
        seed,
        |j, v| v * if j % 2 == 0 { 1.0 } else { -0.5 },
        0.1,
    )
}

/// The paper's update on a dense `w`, with uniform sampling from the same stream.
struct Naive {
    w: Vec<f64>,
    b: f64,
    t: u64,
    rng: Rng,
    sum: Vec<f64>,
    bsum: f64,
    count: u64,
}

impl Naive {
    fn step(&mut self, x: &[f64], d: usize, task: &BinaryTask, p: &Params, avg_from: u64) {
        self.t += 1;
        let eta = 1.0 / (p.alpha * self.t as f64);
        let k = p.batch_size;
        let batch: Vec<usize> = (0..k)
            .map(|_| self.rng.below(task.len() as u64) as usize)
            .collect();
        let mut grad = vec![0.0; d];
        let mut gb = 0.0;
        for &i in &batch {
            let xi = &x[i * d..(i + 1) * d];
            let m = xi.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>() + self.b;
            if task.weight(i) > 0.0 && task.y(i) * m < 1.0 {
                for j in 0..d {
                    grad[j] += task.weight(i) * task.y(i) * xi[j];
                }
                gb += task.weight(i) * task.y(i);
            }
        }
        for j in 0..d {
            self.w[j] = (1.0 - eta * p.alpha) * self.w[j] + eta / k as f64 * grad[j];
        }
        if p.intercept == Intercept::Unregularized {
            self.b += eta / k as f64 * gb;
            if p.one_class {
                self.b -= eta * p.alpha; // the drift -eta nu of the one-class bias
            }
        }
        if p.projection {
            let norm = self.w.iter().map(|v| v * v).sum::<f64>().sqrt();
            let mean_c = (0..task.len()).map(|i| task.weight(i)).sum::<f64>() / task.len() as f64;
            let r = if p.one_class {
                // max ||x_i|| over the rows of positive weight
                (0..task.len())
                    .filter(|&i| task.weight(i) > 0.0)
                    .map(|i| x[i * d..(i + 1) * d].iter().map(|v| v * v).sum::<f64>())
                    .fold(0.0, f64::max)
                    .sqrt()
            } else {
                (mean_c / p.alpha).sqrt()
            };
            if norm > r {
                for v in &mut self.w {
                    *v *= r / norm;
                }
            }
        }
        if self.t >= avg_from {
            let c = if p.averaging == Averaging::Weighted {
                self.t
            } else {
                1
            };
            for (s, v) in self.sum.iter_mut().zip(&self.w) {
                *s += c as f64 * v;
            }
            self.bsum += c as f64 * self.b;
            self.count += c;
        }
    }
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    let scale = b.iter().fold(1e-12f64, |m, v| m.max(v.abs()));
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * scale, "{x} vs {y} (scale {scale})");
    }
}

fn check_against_naive(params: Params, steps: u64) {
    let (n, d) = (60, 7);
    let (x, mut codes) = dataset(n, d, 11);
    if params.one_class {
        codes.fill(1); // every example positive
    }
    let weights: Vec<f64> = (0..n).map(|i| [1.0, 0.5, 2.0, 0.0][i % 4]).collect();
    let task = BinaryTask::new(&codes, 1, Some(&weights), 1.5, 1.0).unwrap();
    let rows = DenseRows::new(&x, n, d).unwrap();
    let avg_from = match params.averaging {
        Averaging::FromStep(s) => s,
        Averaging::Weighted => 1,
        _ => u64::MAX,
    };
    let vp = params.clone().validate().unwrap();
    let mut state = LinearState::new(d, 5, 0).unwrap();
    state.avg_start = avg_from;
    let never = Monitor::new();
    let mut naive = Naive {
        w: vec![0.0; d],
        b: 0.0,
        t: 0,
        rng: Rng::stream(5, 0),
        sum: vec![0.0; d],
        bsum: 0.0,
        count: 0,
    };
    for chunk in 0..4 {
        run_steps(&rows, &task, &vp, &mut state, steps / 4, &never).unwrap();
        for _ in 0..steps / 4 {
            naive.step(&x, d, &task, &params, avg_from);
        }
        let (w, b) = state.last_iterate(params.intercept);
        close(&w, &naive.w, 1e-9);
        assert!(
            (b - naive.b).abs() <= 1e-9 * (1.0 + naive.b.abs()),
            "chunk {chunk}"
        );
        let tracked = state.sq_norm();
        let exact: f64 = naive.w.iter().map(|v| v * v).sum();
        assert!(
            (tracked - exact).abs() <= 1e-8 * (1.0 + exact),
            "{tracked} vs {exact}"
        );
        if params.projection && !params.one_class {
            let mean_c = (0..n).map(|i| task.weight(i)).sum::<f64>() / n as f64;
            assert!(exact <= (1.0 + 1e-9) * mean_c / params.alpha);
        }
    }
    if naive.count > 0 {
        let (w, b) = state.averaged_iterate(params.intercept).unwrap();
        let mean: Vec<f64> = naive.sum.iter().map(|s| s / naive.count as f64).collect();
        close(&w, &mean, 1e-9);
        assert!((b - naive.bsum / naive.count as f64).abs() <= 1e-8);
    }
}

#[test]
fn one_class_steps_match_the_derivation() {
    // The one-class SVM: every row positive, lambda = nu, the bias drifting by
    // -eta_t nu, the projection onto the ball of radius max_i ||x_i||.
    for (batch_size, projection) in [(1, true), (4, true), (3, false)] {
        check_against_naive(
            Params {
                alpha: 0.2,
                batch_size,
                projection,
                one_class: true,
                averaging: Averaging::FromStep(50),
                ..Params::default()
            },
            400,
        );
    }
}

#[test]
fn one_class_objective_and_parameters() {
    let (n, d) = (80, 5);
    let (x, _) = dataset(n, d, 3);
    let codes = vec![1u32; n];
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let rows = DenseRows::new(&x, n, d).unwrap();
    let nu = 0.3;
    let vp = Params {
        alpha: nu,
        one_class: true,
        max_iter: 5,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut state = LinearState::new(d, 1, 0).unwrap();
    let mut coef = vec![0.0; d];
    let out = fit_binary(
        &rows,
        &task,
        None,
        &vp,
        &mut state,
        &mut coef,
        &Monitor::new(),
        "",
    )
    .unwrap();
    let (b, reg_sq) = current_model(&vp, &state, &mut coef);
    // Schölkopf et al.'s objective times nu, at rho = 1 - b.
    let rho = 1.0 - b;
    let hinge: f64 = (0..n)
        .map(|i| {
            let p: f64 = x[i * d..(i + 1) * d]
                .iter()
                .zip(&coef)
                .map(|(a, w)| a * w)
                .sum();
            (rho - p).max(0.0)
        })
        .sum::<f64>()
        / n as f64;
    let want = 0.5 * nu * coef.iter().map(|w| w * w).sum::<f64>() - nu * rho + hinge;
    let got = objective_from_loss(
        loss_sum(&rows, &task, &vp.loss, &coef, b, -0.0),
        n,
        &coef,
        reg_sq,
        nu,
    );
    assert!(
        (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
        "{got} vs {want}"
    );
    assert_eq!(out.n_iter, 5);
    for bad in [
        Params {
            alpha: 1.5,
            one_class: true,
            ..Params::default()
        },
        Params {
            loss: LossFunction::SquaredHinge,
            one_class: true,
            ..Params::default()
        },
        Params {
            sampling: Sampling::Balanced,
            one_class: true,
            ..Params::default()
        },
    ] {
        assert!(matches!(bad.validate(), Err(Error::InvalidParameter(_))));
    }
}

#[test]
fn single_example_steps_match_the_paper() {
    check_against_naive(
        Params {
            alpha: 0.05,
            ..Params::default()
        },
        400,
    );
}

#[test]
fn mini_batch_steps_match_the_paper() {
    check_against_naive(
        Params {
            alpha: 0.01,
            batch_size: 8,
            ..Params::default()
        },
        400,
    );
}

#[test]
fn projection_is_active_and_keeps_the_ball() {
    // A tiny alpha makes the early iterates leave the ball.
    check_against_naive(
        Params {
            alpha: 1e-4,
            batch_size: 3,
            intercept: Intercept::None,
            ..Params::default()
        },
        200,
    );
}

#[test]
fn averaging_matches_explicit_mean() {
    check_against_naive(
        Params {
            alpha: 0.02,
            batch_size: 2,
            averaging: Averaging::FromStep(101),
            ..Params::default()
        },
        400,
    );
}

#[test]
fn weighted_averaging_matches_explicit_weighted_mean() {
    check_against_naive(
        Params {
            alpha: 1e-3,
            batch_size: 2,
            averaging: Averaging::Weighted,
            ..Params::default()
        },
        400,
    );
}

#[test]
fn weighted_averaging_continues_across_calls() {
    // Calls of one pass each (partial_fit) give the weighted mean of all iterates:
    // the same state as one call of all the steps.
    let (n, d) = (50, 4);
    let (x, codes) = dataset(n, d, 9);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let params = |max_iter| {
        Params {
            alpha: 1e-2,
            averaging: Averaging::Weighted,
            max_iter,
            ..Params::default()
        }
        .validate()
        .unwrap()
    };
    let (one_pass, all) = (params(1), params(5));
    let never = Monitor::new();
    let mut coef = vec![0.0; d];
    let mut calls = LinearState::new(d, 3, 0).unwrap();
    for _ in 0..5 {
        fit_binary(
            &rows, &task, None, &one_pass, &mut calls, &mut coef, &never, "",
        )
        .unwrap();
    }
    let mut once = LinearState::new(d, 3, 0).unwrap();
    let mut coef_once = vec![0.0; d];
    fit_binary(
        &rows,
        &task,
        None,
        &all,
        &mut once,
        &mut coef_once,
        &never,
        "",
    )
    .unwrap();
    assert_eq!(calls, once);
    assert_eq!(coef, coef_once);
    assert_eq!(calls.avg_count, (1..=5 * 50).sum::<u64>());
}

#[test]
fn rescaling_keeps_w_and_average() {
    let (n, d) = (40, 5);
    let (x, codes) = dataset(n, d, 3);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params {
        alpha: 1e-3,
        averaging: Averaging::FromStep(10),
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut s = LinearState::new(d, 1, 0).unwrap();
    s.avg_start = 10;
    let never = Monitor::new();
    run_steps(&rows, &task, &p, &mut s, 100, &never).unwrap();
    let before = (s.last_iterate(p.intercept), s.averaged_iterate(p.intercept));
    assert!(s.scale < 1.0);
    s.rescale();
    assert_eq!(s.scale, 1.0);
    let after = (s.last_iterate(p.intercept), s.averaged_iterate(p.intercept));
    close(&after.0 .0, &before.0 .0, 1e-12);
    close(&after.1.unwrap().0, &before.1.unwrap().0, 1e-12);
}

#[test]
fn exact_restart_is_bit_identical() {
    let (n, d) = (50, 6);
    let (x, codes) = dataset(n, d, 4);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let never = Monitor::new();
    for sampling in [
        Sampling::Uniform,
        Sampling::Shuffle,
        Sampling::Balanced,
        Sampling::Order((0..n).rev().collect()),
    ] {
        let p = Params {
            alpha: 1e-2,
            batch_size: 3,
            sampling,
            averaging: Averaging::FromStep(20),
            ..Params::default()
        }
        .validate()
        .unwrap();
        let mut once = LinearState::new(d, 8, 0).unwrap();
        once.avg_start = 20;
        let mut twice = once.clone();
        run_steps(&rows, &task, &p, &mut once, 70, &never).unwrap();
        run_steps(&rows, &task, &p, &mut twice, 23, &never).unwrap();
        let resumed = LinearState::from_bytes(&twice.to_bytes()).unwrap();
        let mut twice = resumed;
        run_steps(&rows, &task, &p, &mut twice, 47, &never).unwrap();
        assert_eq!(once, twice);
    }
}

#[test]
fn sparse_and_dense_give_the_same_model() {
    let (n, d) = (80, 9);
    let (x, codes) = dataset(n, d, 21);
    let (data, idx, ptr) = to_csr::<i64>(&x, n, d);
    let dense = DenseRows::new(&x, n, d).unwrap();
    let sparse = CsrRows::new(&data, &idx, &ptr, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let p = Params {
        alpha: 1e-3,
        batch_size: 4,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let never = Monitor::new();
    let mut a = LinearState::new(d, 2, 0).unwrap();
    let mut b = a.clone();
    let (mut ca, mut cb) = (vec![0.0; d], vec![0.0; d]);
    let fa = fit_binary(&dense, &task, None, &p, &mut a, &mut ca, &never, "").unwrap();
    let fb = fit_binary(&sparse, &task, None, &p, &mut b, &mut cb, &never, "").unwrap();
    // Same products, summed in other lanes: equal to rounding.
    close(&ca, &cb, 1e-10);
    assert!((fa.intercept - fb.intercept).abs() < 1e-10);
    assert_eq!(fa.n_iter, fb.n_iter);
}

#[test]
fn suffix_average_beats_last_iterate() {
    let (n, d) = (400, 10);
    let (x, codes) = dataset(n, d, 17);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let obj = |avg| {
        let p = Params {
            alpha: 1e-3,
            averaging: avg,
            max_iter: 10,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let (_, w, f) = fit_linear(&rows, &task, &p, 3, 0);
        primal_objective(
            &rows,
            &task,
            &LossFunction::Hinge,
            &w,
            f.intercept,
            0.0,
            1e-3,
        )
    };
    let last = obj(Averaging::Off);
    let avg = obj(Averaging::Suffix);
    assert!(
        avg < last,
        "suffix average {avg} should beat last iterate {last}"
    );
}

#[test]
fn cancellation_stops_the_run() {
    let (n, d) = (10, 2);
    let (x, codes) = dataset(n, d, 1);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params::default().validate().unwrap();
    let mut s = LinearState::new(d, 0, 0).unwrap();
    let monitor = Monitor::stopped();
    let r = run_steps(&rows, &task, &p, &mut s, 1 << 40, &monitor);
    assert_eq!(r, Err(Error::Interrupted));
}

#[test]
fn bad_order_and_mismatched_state_are_errors() {
    let (x, codes) = dataset(5, 2, 1);
    let rows = DenseRows::new(&x, 5, 2).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let never = Monitor::new();
    let p = Params {
        sampling: Sampling::Order(vec![0, 9]),
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut s = LinearState::new(2, 0, 0).unwrap();
    assert!(run_steps(&rows, &task, &p, &mut s, 3, &never).is_err());
    let p = Params::default().validate().unwrap();
    let mut s = LinearState::new(3, 0, 0).unwrap();
    assert!(run_steps(&rows, &task, &p, &mut s, 3, &never).is_err());
}

/// Bits of a seeded fit: same seed, same data, same release => same model on every
/// platform (IEEE-754 arithmetic only, no fused or reassociated operations). A change
/// here changes users' models and must be announced.
#[test]
fn golden_model_is_pinned() {
    let (n, d) = (120, 6);
    let (x, codes) = dataset(n, d, 99);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params {
        alpha: 1e-3,
        batch_size: 2,
        averaging: Averaging::Suffix,
        intercept: Intercept::BiasMultiplier(1.0),
        max_iter: 5,
        seed: 2024,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let (_, w, f) = fit_linear(&rows, &task, &p, p.seed, 0);
    let bits: Vec<u64> = w
        .iter()
        .chain([&f.intercept])
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, GOLDEN_MODEL, "{bits:#x?}");
}

const GOLDEN_MODEL: [u64; 7] = [
    0x4015_a70d_06c5_7349,
    0xc00e_2ad3_ff11_fd02,
    0x4019_5074_1f90_3e62,
    0xc006_1f89_1824_c59a,
    0x4024_d970_5744_2eb8,
    0xc012_2ee7_086a_2eb2,
    0xbffa_063b_0392_3c52,
];

/// Allocating views of the iterates, for comparisons in these tests.
impl LinearState {
    fn last_iterate(&self, intercept: Intercept) -> (Vec<f64>, f64) {
        let mut w = vec![0.0; self.n_features()];
        let b = self.write_last_iterate(intercept, &mut w);
        (w, b)
    }

    fn averaged_iterate(&self, intercept: Intercept) -> Option<(Vec<f64>, f64)> {
        let mut w = vec![0.0; self.n_features()];
        self.write_averaged_iterate(intercept, &mut w)
            .map(|b| (w, b))
    }
}

#[test]
fn max_steps_runs_exactly_t_steps_even_below_one_pass() {
    let (n, d) = (200, 6);
    let (x, codes) = dataset(n, d, 21);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let monitor = Monitor::new();
    for t in [1u64, 37, 450] {
        let p = Params {
            max_steps: Some(t),
            max_iter: 99,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let (a, _, out) = fit_linear(&rows, &task, &p, 3, 0);
        assert_eq!((a.steps(), out.n_iter), (t, 1));
        let mut b = LinearState::new(d, 3, 0).unwrap();
        run_steps(&rows, &task, &p, &mut b, t, &monitor).unwrap();
        assert_eq!(a, b);
    }
    let bad = Params {
        max_steps: Some(0),
        ..Params::default()
    };
    assert!(bad.validate().is_err());
}

/// The training data of [`fit_from_outside`]: `n x d` rows `x`, class codes and
/// sample weights.
struct Outside<'a> {
    x: &'a [f64],
    n: usize,
    d: usize,
    codes: &'a [u32],
    sw: Option<&'a [f64]>,
}

/// A fit driven from outside, as a cluster's client drives it: the passes of
/// [`PassPlan`], draws through [`KeyDraws`] from counts only, the drawn rows
/// gathered into a small block (duplicates included), [`run_drawn`] on the block,
/// the objective from [`loss_sum`] continued over two halves of the data.
fn fit_from_outside(
    data: &Outside<'_>,
    task: &BinaryTask<'_>,
    p: &ValidParams,
    state: &mut LinearState,
    coef: &mut [f64],
) -> FitOutput {
    let &Outside { x, n, d, codes, sw } = data;
    let never = Monitor::new();
    let (positives, negatives) = task.split_by_class();
    let keys = KeyDraws::new(Cow::Borrowed(&p.sampling), n, positives.len()).unwrap();
    let half = n / 2;
    let weights = zero_loss_sum(
        &BinaryTask::new(&codes[half..], 1, sw.map(|w| &w[half..]), 2.0, 0.5).unwrap(),
        &p.loss,
        zero_loss_sum(
            &BinaryTask::new(&codes[..half], 1, sw.map(|w| &w[..half]), 2.0, 0.5).unwrap(),
            &p.loss,
            -0.0,
        ),
    );
    let rule = StepRule::new(p, weights / n as f64);
    if state.t == 0 {
        // A fresh run of a squared loss starts at t0, from sums over the two halves.
        let first = DenseRows::new(&x[..half * d], half, d).unwrap();
        let second = DenseRows::new(&x[half * d..], n - half, d).unwrap();
        let t1 = BinaryTask::new(&codes[..half], 1, sw.map(|w| &w[..half]), 2.0, 0.5).unwrap();
        let t2 = BinaryTask::new(&codes[half..], 1, sw.map(|w| &w[half..]), 2.0, 0.5).unwrap();
        let sums = first_step_sums(&first, &t1, p, FirstStepSums::default());
        let sums = first_step_sums(&second, &t2, p, sums);
        start_at(state, first_step_from_sums(p, sums));
    }
    let mut plan = plan_linear_fit(p, state, n).unwrap();
    let mut drawn = Vec::new();
    while let Some(steps) = plan.next_pass() {
        // Rounds of 7 steps, as a client fetches rows in rounds.
        let mut left = steps;
        while left > 0 {
            let now = left.min(7);
            left -= now;
            drawn.clear();
            state.draw(&keys, now as usize * p.batch_size, &mut drawn);
            let rows_of: Vec<usize> = drawn
                .iter()
                .map(|k| match *k {
                    Drawn::Row(i) => i,
                    Drawn::Positive(r) => positives[r],
                    Drawn::Negative(r) => negatives[r],
                })
                .collect();
            let block: Vec<f64> = rows_of
                .iter()
                .flat_map(|&i| x[i * d..(i + 1) * d].iter().copied())
                .collect();
            let block_codes: Vec<u32> = rows_of.iter().map(|&i| codes[i]).collect();
            let block_sw: Option<Vec<f64>> = sw.map(|w| rows_of.iter().map(|&i| w[i]).collect());
            let block_rows = DenseRows::new(&block, rows_of.len(), d).unwrap();
            let block_task =
                BinaryTask::new(&block_codes, 1, block_sw.as_deref(), 2.0, 0.5).unwrap();
            let local: Vec<usize> = (0..rows_of.len()).collect();
            run_drawn(&block_rows, &block_task, &rule, state, &local, &never).unwrap();
        }
        let objective = PassPlan::wants_objective(p).then(|| {
            let (b, reg_sq) = current_model(p, state, coef);
            let first = DenseRows::new(&x[..half * d], half, d).unwrap();
            let second = DenseRows::new(&x[half * d..], n - half, d).unwrap();
            let t1 = BinaryTask::new(&codes[..half], 1, sw.map(|w| &w[..half]), 2.0, 0.5).unwrap();
            let t2 = BinaryTask::new(&codes[half..], 1, sw.map(|w| &w[half..]), 2.0, 0.5).unwrap();
            let loss = loss_sum(&first, &t1, &p.loss, coef, b, -0.0);
            let loss = loss_sum(&second, &t2, &p.loss, coef, b, loss);
            objective_from_loss(loss, n, coef, reg_sq, p.alpha)
        });
        plan.end_pass(p, state, objective, &Monitor::new(), "");
    }
    finish_linear_fit(&plan, p, state, coef)
}

#[test]
fn examples_supplied_from_outside_give_the_in_memory_model() {
    let (n, d) = (61, 7);
    let (x, codes) = dataset(n, d, 33);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let sw: Vec<f64> = (0..n).map(|i| 0.25 + (i % 5) as f64 * 0.3).collect();
    let never = Monitor::new();
    for sampling in [
        Sampling::Uniform,
        Sampling::Shuffle,
        Sampling::Balanced,
        Sampling::Order((0..n).rev().step_by(2).collect()),
    ] {
        for (batch_size, averaging, tol, weighted, loss) in [
            (1, Averaging::Off, None, false, LossFunction::Hinge),
            (3, Averaging::Suffix, Some(1e-3), true, LossFunction::Hinge),
            (2, Averaging::FromStep(40), None, true, LossFunction::Hinge),
            (
                1,
                Averaging::Suffix,
                Some(1e-3),
                true,
                LossFunction::LogLoss,
            ),
            (2, Averaging::Off, None, false, LossFunction::SquaredHinge),
            (
                1,
                Averaging::Suffix,
                Some(1e-3),
                true,
                LossFunction::SquaredHinge,
            ),
            (
                3,
                Averaging::FromStep(40),
                Some(1e-3),
                true,
                LossFunction::ModifiedHuber,
            ),
        ] {
            let p = Params {
                loss,
                alpha: 1e-2,
                batch_size,
                sampling: sampling.clone(),
                averaging,
                tol,
                n_iter_no_change: 2,
                max_iter: 6,
                ..Params::default()
            }
            .validate()
            .unwrap();
            let sw = weighted.then_some(sw.as_slice());
            let task = BinaryTask::new(&codes, 1, sw, 2.0, 0.5).unwrap();
            let mut a = LinearState::new(d, 5, 1).unwrap();
            let mut b = a.clone();
            let (mut ca, mut cb) = (vec![0.0; d], vec![0.0; d]);
            let fa = fit_binary(&rows, &task, None, &p, &mut a, &mut ca, &never, "").unwrap();
            let data = Outside {
                x: &x,
                n,
                d,
                codes: &codes,
                sw,
            };
            let fb = fit_from_outside(&data, &task, &p, &mut b, &mut cb);
            assert_eq!(a, b, "{sampling:?} k={batch_size} {}", loss.name());
            assert_eq!(ca, cb);
            // The probe of the last passes belongs to the in-memory driver only.
            let probed = FitOutput {
                settling: None,
                worse_than_zero: None,
                ..fa
            };
            assert_eq!(probed, fb);
        }
    }
}

#[test]
fn supplied_draws_are_checked() {
    let (n, d) = (10, 3);
    let (x, codes) = dataset(n, d, 2);
    let (rows, task) = dense_problem(&x, &codes, n, d);
    let p = Params {
        batch_size: 2,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let rule = StepRule::new(&p, 1.0);
    let never = Monitor::new();
    let mut s = LinearState::new(d, 0, 0).unwrap();
    assert!(run_drawn(&rows, &task, &rule, &mut s, &[0, 1, 2], &never).is_err());
    assert!(run_drawn(&rows, &task, &rule, &mut s, &[0, 10], &never).is_err());
    let mut wrong = LinearState::new(d + 1, 0, 0).unwrap();
    assert!(run_drawn(&rows, &task, &rule, &mut wrong, &[0, 1], &never).is_err());
    assert!(KeyDraws::new(Cow::Owned(Sampling::Balanced), 5, 0).is_err());
    assert!(KeyDraws::new(Cow::Owned(Sampling::Order(vec![5])), 5, 1).is_err());
    assert!(KeyDraws::new(Cow::Owned(Sampling::Uniform), 0, 0).is_err());
}

/// A loss whose slope grows without bound starts where the longest row's step is
/// stable, `t0 = kappa max_i s_i / lambda`; the modified Huber loss, whose slope is
/// bounded, where the average row's is, each row weighted by its own `s_i = c_i
/// (||x_i||^2 + e)`: `t0 = kappa sum s_i^2 / sum s_i / lambda`; the largest weight
/// times `e` bounds both from below.
#[test]
fn first_step_is_stable_for_the_longest_row_of_a_regression() {
    // Three rows of squared norm 1 and one of 100; e = 1 (unregularised bias).
    let x = [1.0, 1.0, 1.0, 10.0];
    let rows = DenseRows::new(&x, 4, 1).unwrap();
    let s = [2.0_f64, 2.0, 2.0, 101.0];
    let self_weighted = s.iter().map(|v| v * v).sum::<f64>() / s.iter().sum::<f64>();
    let alpha = 1e-3;
    let targets = [1.0, -2.0, 0.5, 3.0];
    let codes = [0_u32, 1, 0, 1];
    for (loss, kappa, want) in [
        (LossFunction::SquaredError, 1.0, 101.0),
        (
            LossFunction::SquaredEpsilonInsensitive(SquaredEpsilonInsensitive { epsilon: 0.1 }),
            2.0,
            101.0,
        ),
        (LossFunction::SquaredHinge, 2.0, 101.0),
        (LossFunction::ModifiedHuber, 2.0, self_weighted),
    ] {
        let p = Params {
            loss,
            intercept: Intercept::Unregularized,
            alpha,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let task = if loss.is_margin_loss() {
            BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap()
        } else {
            BinaryTask::regression(&targets, None).unwrap()
        };
        let t0 = first_step(&rows, &task, &p);
        assert_eq!(t0, (kappa * want / alpha).ceil() as u64, "{}", loss.name());
    }
    // A heavy example weight on short rows: the bias's step bounds t0.
    let weights = [1000.0, 1.0, 1.0, 1.0];
    let short = [0.0; 4];
    let rows = DenseRows::new(&short, 4, 1).unwrap();
    let p = Params {
        loss: LossFunction::SquaredHinge,
        intercept: Intercept::Unregularized,
        alpha,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let task = BinaryTask::new(&codes, 1, Some(&weights), 1.0, 1.0).unwrap();
    assert_eq!(
        first_step(&rows, &task, &p),
        (2.0 * 1000.0 / alpha).ceil() as u64
    );
}

/// The first step's sums continued block after block are those of one pass, and
/// give `first_step`'s `t0`, for classes and real targets, weighted or not, with
/// every intercept mode; losses of bounded slope start at 1 whatever the sums.
#[test]
fn first_step_sums_chained_over_blocks_give_first_step() {
    let (n, d) = (97, 6);
    let (x, codes) = dataset(n, d, 21);
    let targets: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
    let sw: Vec<f64> = (0..n).map(|i| 0.1 + (i % 7) as f64 * 0.45).collect();
    let rows = DenseRows::new(&x, n, d).unwrap();
    let cuts = [0, 10, 10, 55, 96, n];
    for loss in [
        LossFunction::Hinge,
        LossFunction::SquaredHinge,
        LossFunction::SquaredError,
    ] {
        for intercept in [
            Intercept::Unregularized,
            Intercept::BiasMultiplier(2.5),
            Intercept::None,
        ] {
            let p = Params {
                loss,
                intercept,
                alpha: 1e-3,
                ..Params::default()
            }
            .validate()
            .unwrap();
            for weights in [None, Some(sw.as_slice())] {
                let regression = !loss.is_margin_loss();
                let task = |a: usize, b: usize| {
                    let w = weights.map(|w| &w[a..b]);
                    if regression {
                        BinaryTask::regression(&targets[a..b], w).unwrap()
                    } else {
                        BinaryTask::new(&codes[a..b], 1, w, 2.0, 0.5).unwrap()
                    }
                };
                let whole = first_step_sums(&rows, &task(0, n), &p, FirstStepSums::default());
                let mut acc = FirstStepSums::default();
                for w in cuts.windows(2) {
                    let part = DenseRows::new(&x[w[0] * d..w[1] * d], w[1] - w[0], d).unwrap();
                    acc = first_step_sums(&part, &task(w[0], w[1]), &p, acc);
                }
                assert_eq!(acc, whole);
                let t0 = first_step_from_sums(&p, acc);
                assert_eq!(t0, first_step(&rows, &task(0, n), &p));
                assert_eq!(t0 > 1, loss.curvature().is_some(), "{}", loss.name());
            }
        }
    }
}

/// A fit on views checked as they are read is the fit on checked views, bit for
/// bit; a bad value, index or label in a row the steps draw is an error, in a row
/// no step reads it is not (with `max_steps`, no objective reads every row).
#[test]
fn rows_checked_when_read_give_the_same_model_and_catch_touched_rows() {
    let (n, d) = (300, 7);
    let (x, codes) = dataset(n, d, 8);
    let (data, idx, ptr) = to_csr::<i64>(&x, n, d);
    let p = |steps| {
        Params {
            alpha: 1e-2,
            max_steps: steps,
            ..Params::default()
        }
        .validate()
        .unwrap()
    };
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0)
        .unwrap()
        .with_classes(2);
    let run = |rows: &CsrRows<'_, f64, i64>, task: &BinaryTask<'_>, params: &ValidParams| {
        let mut state = LinearState::new(d, 4, 0).unwrap();
        let mut coef = vec![0.0; d];
        fit_binary(
            rows,
            task,
            None,
            params,
            &mut state,
            &mut coef,
            &Monitor::new(),
            "",
        )
        .map(|out| (out, coef))
    };
    let checked = CsrRows::new(&data, &idx, &ptr, n, d).unwrap();
    let lazy = CsrRows::checked_when_read(&data, &idx, &ptr, n, d).unwrap();
    assert!(!lazy.is_checked());
    for params in [p(None), p(Some(40))] {
        assert_eq!(
            run(&checked, &task, &params).unwrap(),
            run(&lazy, &task, &params).unwrap()
        );
    }
    // Corrupt a row 5 steps of seed 4 draw, then one they do not.
    let touched = rows_drawn(n, 4, 5);
    let untouched = (0..n)
        .find(|i| !touched.contains(i) && ptr[*i + 1] > ptr[*i])
        .unwrap();
    let five = p(Some(5));
    for (row, expect_error) in [(touched[2], true), (untouched, false)] {
        let lo = ptr[row] as usize;
        let mut bad_value = data.clone();
        bad_value[lo] = f64::NAN;
        let rows = CsrRows::checked_when_read(&bad_value, &idx, &ptr, n, d).unwrap();
        let got = run(&rows, &task, &five);
        assert_eq!(got.is_err(), expect_error, "NaN in row {row}");
        if let Err(e) = got {
            assert!(e.to_string().contains(&format!("NaN at row {row}")), "{e}");
        }
        let mut bad_index = idx.clone();
        bad_index[lo] = d as i64;
        let rows = CsrRows::checked_when_read(&data, &bad_index, &ptr, n, d).unwrap();
        assert_eq!(run(&rows, &task, &five).is_err(), expect_error);
        let mut bad_codes = codes.clone();
        bad_codes[row] = 2;
        let bad_task = BinaryTask::new(&bad_codes, 1, None, 1.0, 1.0)
            .unwrap()
            .with_classes(2);
        let got = run(&lazy, &bad_task, &five);
        assert_eq!(got.is_err(), expect_error, "label in row {row}");
    }
}

/// The rows the first `steps` single-example uniform steps of `seed` draw.
fn rows_drawn(n: usize, seed: u64, steps: usize) -> Vec<usize> {
    let mut state = LinearState::new(1, seed, 0).unwrap();
    let keys = KeyDraws::new(Cow::Owned(Sampling::Uniform), n, 0).unwrap();
    let mut drawn = Vec::new();
    state.draw(&keys, steps, &mut drawn);
    drawn
        .iter()
        .map(|k| match *k {
            Drawn::Row(i) => i,
            _ => unreachable!(),
        })
        .collect()
}

/// With an objective (`tol`), every row is read, so every row is checked.
#[test]
fn an_objective_checks_every_row_of_a_view_checked_when_read() {
    let (n, d) = (50, 4);
    let (x, codes) = dataset(n, d, 3);
    let (mut data, idx, ptr) = to_csr::<i64>(&x, n, d);
    let last = data.len() - 1;
    data[last] = f64::INFINITY;
    let rows = CsrRows::checked_when_read(&data, &idx, &ptr, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let with_tol = Params {
        alpha: 1e-2,
        tol: Some(1e-3),
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut state = LinearState::new(d, 0, 0).unwrap();
    let mut coef = vec![0.0; d];
    let got = fit_binary(
        &rows,
        &task,
        None,
        &with_tol,
        &mut state,
        &mut coef,
        &Monitor::new(),
        "",
    );
    assert!(got.unwrap_err().to_string().contains("inf at row"));
}

/// 300 rows of 4 features, two overlapping classes, the last `held` of them to
/// be held out.
fn noisy() -> (Vec<f64>, Vec<u32>) {
    let mut rng = Rng::seed_from_u64(11);
    let (mut x, mut codes) = (Vec::new(), Vec::new());
    for _ in 0..300 {
        let row: Vec<f64> = (0..4).map(|_| 2.0 * rng.next_f64() - 1.0).collect();
        let noise = 0.6 * (rng.next_f64() - 0.5);
        codes.push(u32::from(row[0] + 0.5 * row[1] + noise > 0.0));
        x.extend(row);
    }
    (x, codes)
}

/// Held-out rows change nothing in the steps: a fit that never stops is, bit
/// for bit, the fit on the training rows alone, and its scores are its models'
/// scores after each pass; with a rule that stalls at once, the fit stops at
/// the second pass with the two-pass model.
#[test]
fn held_out_rows_score_the_passes_and_stop_them() {
    let (x, codes) = noisy();
    let all = DenseRows::new(&x, 300, 4).unwrap();
    let (train, held) = all.split_rows(240).unwrap();
    let task = BinaryTask::new(&codes[..240], 1, None, 1.0, 1.0).unwrap();
    let held_task = BinaryTask::new(&codes[240..], 1, None, 1.0, 1.0).unwrap();
    let fit = |p: &Params, held_out: bool| {
        let p = p.clone().validate().unwrap();
        let mut state = LinearState::new(4, p.seed, 0).unwrap();
        let mut w = vec![0.0; 4];
        let h = held_out.then(|| HeldOut::new(&held, held_task, 4).unwrap());
        let m = Monitor::new();
        let out = fit_binary(&train, &task, h, &p, &mut state, &mut w, &m, "").unwrap();
        (w, out)
    };
    let never = Params {
        alpha: 1e-2,
        max_iter: 6,
        n_iter_no_change: 100,
        ..Params::default()
    };
    let (w, out) = fit(&never, true);
    let (w0, out0) = fit(&never, false);
    assert_eq!(w, w0);
    assert_eq!(
        (out.n_iter, out.converged, out0.converged),
        (6, Some(false), None)
    );
    assert_eq!(out.validation_scores.len(), 6);
    let h = HeldOut::new(&held, held_task, 4).unwrap();
    assert_eq!(out.validation_scores[5], h.linear_score(&w, out.intercept));
    for k in 1..=6 {
        let (wk, ok) = fit(
            &Params {
                max_iter: k,
                ..never.clone()
            },
            false,
        );
        assert_eq!(
            out.validation_scores[k - 1],
            h.linear_score(&wk, ok.intercept)
        );
    }
    assert!(
        out.validation_scores[5] > 0.8,
        "{:?}",
        out.validation_scores
    );

    // No pass can improve by more than 1: the second pass stalls.
    let stall = Params {
        tol: Some(1.0),
        n_iter_no_change: 1,
        ..never.clone()
    };
    let (w, out) = fit(&stall, true);
    let (w2, _) = fit(
        &Params {
            max_iter: 2,
            ..never
        },
        false,
    );
    assert_eq!((out.n_iter, out.converged), (2, Some(true)));
    assert_eq!(w, w2);
}

/// The digest of every field of `s` that a step changes.
fn state_digest(s: &LinearState) -> u64 {
    bits_digest(
        &[
            s.v.as_slice(),
            s.avg_u.as_slice(),
            &[s.scale, s.sq_norm, s.bias, s.avg_beta, s.avg_bias_sum],
        ],
        &[
            s.t,
            s.avg_start,
            s.avg_count,
            s.v.len() as u64,
            s.avg_u.len() as u64,
        ],
    )
}

/// The shrink, projection, rescale and averaging of a `LinearState` (written once
/// for the linear states in `solvers::linear::scaled`) leave every bit of the
/// states as they were before: digests recorded from the state's own methods, on
/// fits that restart at `t = 1`, project, rescale (rows of norm about 1e6 and
/// `alpha = 1` shrink the scale below 1e-9 within a few steps) and average (off,
/// suffix, weighted, from a step), with and without a bias.
#[test]
fn scaled_iterate_steps_keep_the_states_bit_for_bit() {
    let (n, d) = (60, 5);
    let (x, codes) = dataset(n, d, 3);
    let big: Vec<f64> = x.iter().map(|v| v * 1e6).collect();
    let mut digests = Vec::new();
    let mut rescaled = 0;
    for (data, alpha) in [(&x, 0.05), (&big, 1.0)] {
        let (rows, task) = dense_problem(data, &codes, n, d);
        for (averaging, batch_size, intercept) in [
            (Averaging::Off, 1, Intercept::None),
            (Averaging::Suffix, 3, Intercept::Unregularized),
            (Averaging::Weighted, 1, Intercept::Unregularized),
            (Averaging::FromStep(20), 2, Intercept::None),
        ] {
            let p = Params {
                alpha,
                batch_size,
                averaging,
                intercept,
                max_iter: 3,
                seed: 5,
                ..Params::default()
            }
            .validate()
            .unwrap();
            let (state, _, _) = fit_linear(&rows, &task, &p, p.seed, 0);
            rescaled += usize::from(state.scale == 1.0 && state.t > 1);
            digests.push(state_digest(&state));
        }
    }
    assert!(rescaled > 0, "no fit ended just after a rescale");
    assert_eq!(digests, SCALED_DIGESTS, "{digests:#x?}");
}

/// `scaled_iterate_steps_keep_the_states_bit_for_bit`'s digests, recorded with the
/// state's methods of before `solvers::linear::scaled`.
const SCALED_DIGESTS: [u64; 8] = [
    0xb476_6bb3_a554_37d9,
    0xe2e4_a440_dfb5_4db4,
    0x438c_0d2c_f296_27e9,
    0x34c0_5341_8b1c_4195,
    0x805b_256d_d745_4114,
    0xa341_9200_1b2f_d498,
    0x6a13_aaf1_41dd_ee8a,
    0xd228_5c09_b757_003f,
];
