//! Tests of the budgeted kernel solver: a budget no fit reaches gives the kernel
//! solver's model; the budget is never exceeded; merging against a direct
//! computation of the merged point's degradation; removal of the smallest
//! coefficient; the averaged model kept on the same points.

use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::kernels::function::KernelRows;
use crate::kernels::gram::DataGram;
use crate::solvers::kernel_solver::{fit_kernel_binary, KernelSolver, KernelState, Strategy};
use crate::solvers::params::{Params, Sampling};
use crate::test_support::{planted, to_csr};

fn dataset(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<u32>) {
    planted(n, d, seed, |_, v| v * v, d as f64 / 6.0)
}

fn params(alpha: f64, k: usize, passes: usize, averaging: Averaging) -> ValidParams {
    Params {
        alpha,
        batch_size: k,
        projection: false,
        intercept: Intercept::Unregularized,
        averaging,
        sampling: Sampling::Uniform,
        max_iter: passes,
        seed: 3,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

/// Decision values of a budgeted model on the rows of `x`, from the kernel's
/// formula.
fn decide_budget<R: Rows>(kernel: Kernel, model: &BudgetModel, x: &R) -> Vec<f64> {
    let d = model.n_features;
    let points = DenseRows::new(&model.points, model.dual_coef.len(), d).unwrap();
    let prep = KernelRows::new(kernel, &points).unwrap();
    let mut q = prep.query();
    let mut k = vec![0.0; model.dual_coef.len()];
    (0..x.n_rows())
        .map(|i| {
            prep.load(&mut q, x, i).unwrap();
            prep.eval_into(&q, crate::kernels::function::Targets::Range(0), &mut k);
            k.iter()
                .zip(&model.dual_coef)
                .map(|(a, b)| a * b)
                .sum::<f64>()
                + model.intercept
        })
        .collect()
}

fn fit_budget<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    p: &ValidParams,
    settings: (Kernel, usize, Maintenance),
) -> (BudgetState, BudgetFitOutput) {
    let mut state = BudgetState::new(rows.n_features(), p.seed, 0);
    let out =
        fit_budgeted_binary(rows, task, p, settings, &mut state, &Monitor::new(), "").unwrap();
    (state, out)
}

#[test]
fn a_budget_no_fit_reaches_gives_the_kernel_solver_s_model() {
    let (n, d) = (150, 5);
    let (x, codes) = dataset(n, d, 1);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let (v, c, ptr) = to_csr::<i32>(&x, n, d);
    let csr = CsrRows::new(&v, &c, &ptr, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.4 };
    for (k, averaging) in [(1, Averaging::Off), (3, Averaging::Suffix)] {
        let p = params(0.02, k, 3, averaging);
        let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
        let mut reference = KernelState::new(n, p.seed, 0).unwrap();
        let solver = KernelSolver {
            strategy: Strategy::SupportSet,
            cache_bytes: 1 << 20,
            parallel: false,
        };
        let monitor = Monitor::new();
        fit_kernel_binary::<_, f64>(&gram, &task, None, &p, solver, &mut reference, &monitor, "")
            .unwrap();
        let want_model = reference.model(p.alpha);
        let mut want = vec![want_model.intercept; n];
        let prep = KernelRows::new(kernel, &rows).unwrap();
        let mut query = prep.query();
        let mut kv = vec![0.0; n];
        for (i, w) in want.iter_mut().enumerate() {
            prep.load(&mut query, &rows, i).unwrap();
            prep.eval_into(&query, crate::kernels::function::Targets::Range(0), &mut kv);
            *w += want_model
                .support
                .iter()
                .zip(&want_model.dual_coef)
                .map(|(&j, a)| a * kv[j])
                .sum::<f64>();
        }
        for maintenance in [Maintenance::Remove, Maintenance::Merge] {
            for data in [0, 1] {
                let (state, out) = if data == 0 {
                    fit_budget(&rows, &task, &p, (kernel, n + 1, maintenance))
                } else {
                    fit_budget(&csr, &task, &p, (kernel, n + 1, maintenance))
                };
                assert_eq!(out.maintenance_steps, 0);
                assert_eq!(state.steps(), reference.steps());
                let got = decide_budget(kernel, &state.model(p.alpha), &rows);
                for (g, w) in got.iter().zip(&want) {
                    assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "k={k}: {g} vs {w}");
                }
                let model = state.model(p.alpha);
                let mut sources: Vec<i64> = model.source.clone();
                sources.sort_unstable();
                let support: Vec<i64> = want_model.support.iter().map(|&j| j as i64).collect();
                assert_eq!(sources, support);
            }
        }
    }
}

#[test]
fn the_budget_is_never_exceeded_and_small_budgets_still_learn() {
    let (n, d) = (400, 4);
    let (x, codes) = dataset(n, d, 2);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    let accuracy = |model: &BudgetModel| {
        let f = decide_budget(kernel, model, &rows);
        f.iter()
            .zip(&codes)
            .filter(|(v, &c)| (**v > 0.0) == (c == 1))
            .count() as f64
            / n as f64
    };
    let p = params(1.0 / n as f64, 1, 1, Averaging::Off);
    let p4 = params(1.0 / n as f64, 1, 4, Averaging::Off);
    let (full, _) = fit_budget(&rows, &task, &p4, (kernel, n + 1, Maintenance::Remove));
    let unbudgeted = accuracy(&full.model(p.alpha));
    for maintenance in [Maintenance::Remove, Maintenance::Merge] {
        for budget in [2, 10, 40] {
            let mut state = BudgetState::new(d, p.seed, 0);
            for _ in 0..4 {
                // One pass at a time: the budget holds between passes as within.
                fit_budgeted_binary(
                    &rows,
                    &task,
                    &p,
                    (kernel, budget, maintenance),
                    &mut state,
                    &Monitor::new(),
                    "",
                )
                .unwrap();
                assert!(state.n_points() <= budget);
            }
            if budget == 40 {
                let acc = accuracy(&state.model(p.alpha));
                // Measured: merging into 40 points 0.80, the unbudgeted model of
                // 294 support vectors 0.79, removal 0.55 (Wang et al.'s finding:
                // removal loses the most).
                if maintenance == Maintenance::Merge {
                    assert!(acc >= unbudgeted - 0.03, "{acc} vs {unbudgeted}");
                    assert!(full.n_points() > 200);
                } else {
                    assert!(acc > 0.5, "{acc}");
                }
            }
        }
    }
    // Merging keeps more of the model than removal at the same budget: fewer
    // removals than maintenance steps.
    let (_, out) = fit_budget(&rows, &task, &p, (kernel, 10, Maintenance::Merge));
    assert!(out.maintenance_steps > 0 && out.removals < out.maintenance_steps);
}

#[test]
fn a_merge_is_the_best_point_on_the_segment_and_its_degradation_is_exact() {
    let gamma = 0.7;
    let zm = [0.5, -1.0, 2.0];
    let zn = [1.5, 0.0, 1.0];
    let k = |a: &[f64], b: &[f64]| {
        let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
        (-gamma * d).exp()
    };
    let dist: f64 = zm.iter().zip(&zn).map(|(x, y)| (x - y) * (x - y)).sum();
    for (a_m, a_n) in [(0.3, 1.2), (-0.5, -0.6), (1e-3, 2.0), (0.8, 0.9)] {
        for scale in [1.0, 6.0] {
            // Far apart points (scale 6) have a peak near each end of the segment.
            let gd = gamma * dist * scale * scale;
            let (h, a_z, degradation) = best_merge(a_m, a_n, gd);
            let at = |h: f64| a_m * (-(1.0 - h) * (1.0 - h) * gd).exp() + a_n * (-h * h * gd).exp();
            assert!((a_z - at(h)).abs() < 1e-12);
            for g in 0..=200 {
                let other = f64::from(g) / 200.0;
                assert!(
                    at(other).abs() <= a_z.abs() + 1e-9,
                    "h {h} beaten by {other}"
                );
            }
            if scale == 1.0 {
                // ||a_m phi(z_m) + a_n phi(z_n) - a_z phi(z)||^2 from kernel values.
                let z: Vec<f64> = zm
                    .iter()
                    .zip(&zn)
                    .map(|(a, b)| h * a + (1.0 - h) * b)
                    .collect();
                let direct = a_m * a_m + a_n * a_n + a_z * a_z + 2.0 * a_m * a_n * k(&zm, &zn)
                    - 2.0 * a_z * (a_m * k(&zm, &z) + a_n * k(&zn, &z));
                assert!(
                    (degradation - direct).abs() < 1e-9,
                    "{degradation} vs {direct}"
                );
                assert!(degradation >= -1e-12);
            }
        }
    }
}

#[test]
fn the_merge_table_ranks_partners_as_the_exact_search_would() {
    // Over coefficients and distances, the table's h degrades the model at most a
    // little more than the searched one (relative to the coefficients' squares).
    let mut worst = 0.0_f64;
    for i in 1..40 {
        for j in 0..60 {
            let a_m = f64::from(i) / 40.0;
            let a_n = 1.0;
            let gd = f64::from(j) / 6.0;
            let exact = best_merge(a_m, a_n, gd).2;
            let quick = quick_merge(a_m, a_n, gd).2;
            assert!(quick >= exact - 1e-9, "{a_m} {gd}: {quick} < {exact}");
            worst = worst.max((quick - exact) / (a_m * a_m + a_n * a_n));
            let neg = quick_merge(-a_m, -a_n, gd).2;
            assert!((neg - quick).abs() <= 1e-12 * (1.0 + quick.abs()));
        }
    }
    assert!(worst < 1e-3, "{worst}");
}

#[test]
fn removal_drops_the_smallest_coefficient_and_merging_needs_rbf() {
    let (n, d) = (60, 3);
    let (x, codes) = dataset(n, d, 4);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let p = params(0.05, 1, 2, Averaging::Off);
    let kernel = Kernel::Poly {
        gamma: 0.5,
        coef0: 1.0,
        degree: 2,
    };
    let (state, out) = fit_budget(&rows, &task, &p, (kernel, 5, Maintenance::Remove));
    assert!(state.n_points() <= 5 && out.removals == out.maintenance_steps);
    let mut s = BudgetState::new(d, p.seed, 0);
    let merge = fit_budgeted_binary(
        &rows,
        &task,
        &p,
        (kernel, 5, Maintenance::Merge),
        &mut s,
        &Monitor::new(),
        "",
    );
    assert!(matches!(merge, Err(Error::InvalidParameter(m)) if m.contains("rbf kernel only")));
    let small = check_budget(Kernel::Rbf { gamma: 1.0 }, 1, Maintenance::Remove);
    assert!(matches!(small, Err(Error::InvalidParameter(m)) if m.contains("at least 2")));
    // The removed point is the one of smallest |a|: replay one maintenance step.
    let mut pts = BudgetPoints::new(1);
    for (c, src) in [(0.5, 0), (-0.1, 1), (0.3, 2)] {
        pts.push(&[c], c, src);
    }
    let m = (0..pts.len())
        .min_by(|&a, &b| pts.coef[a].abs().total_cmp(&pts.coef[b].abs()))
        .unwrap();
    assert_eq!(pts.source[m], 1);
}

#[test]
fn the_one_class_svm_with_a_budget_no_fit_reaches_is_the_kernel_solver_s() {
    let (n, d) = (180, 4);
    let (x, _) = dataset(n, d, 6);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let ones = vec![1; n];
    let task = BinaryTask::new(&ones, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.3 };
    let p = Params {
        one_class: true,
        ..(*params(0.2, 1, 3, Averaging::Off)).clone()
    }
    .validate()
    .unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let mut reference = KernelState::new(n, p.seed, 0).unwrap();
    let solver = KernelSolver {
        strategy: Strategy::SupportSet,
        cache_bytes: 1 << 20,
        parallel: false,
    };
    fit_kernel_binary::<_, f64>(
        &gram,
        &task,
        None,
        &p,
        solver,
        &mut reference,
        &Monitor::new(),
        "",
    )
    .unwrap();
    let (state, _) = fit_budget(&rows, &task, &p, (kernel, n + 1, Maintenance::Merge));
    assert!((state.model(p.alpha).intercept - reference.model(p.alpha).intercept).abs() < 1e-9);
    let (small, _) = fit_budget(&rows, &task, &p, (kernel, 10, Maintenance::Merge));
    assert!(small.n_points() <= 10);
}
