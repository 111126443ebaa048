//! Tests of the budgeted kernel solver: a budget no fit reaches gives the kernel
//! solver's model; the budget is never exceeded; merging against a direct
//! computation of the merged point's degradation; removal of the smallest
//! coefficient; the averaged model kept on the same points.

use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::kernels::function::KernelRows;
use crate::kernels::gram::DataGram;
use crate::solvers::kernel::solver::{fit_kernel_binary, KernelSolver, KernelState, Strategy};
use crate::solvers::shared::params::{Params, Sampling};
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

/// The distinct data of the rows `which` of the `d`-feature rows `x` (bit patterns,
/// sorted).
fn row_set(x: &[f64], d: usize, which: &[i64]) -> Vec<Vec<u64>> {
    let mut set: Vec<Vec<u64>> = which
        .iter()
        .map(|&i| {
            x[i as usize * d..(i as usize + 1) * d]
                .iter()
                .map(|v| v.to_bits())
                .collect()
        })
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// The kernel matrix of the budget's points, by the kernel module's own formulas
/// (not the budget's).
fn points_gram(kernel: Kernel, pts: &BudgetPoints) -> Vec<f64> {
    let n = pts.len();
    let points = DenseRows::new(&pts.data, n, pts.d).unwrap();
    let prep = KernelRows::new(kernel, &points).unwrap();
    let mut q = prep.query();
    let mut k = vec![0.0; n * n];
    for (i, row) in k.chunks_mut(n.max(1)).enumerate() {
        prep.load(&mut q, &points, i).unwrap();
        prep.eval_into(&q, crate::kernels::function::Targets::Range(0), row);
    }
    k
}

/// The solution of `a x = b` (`a` row-major `n x n`) by Gaussian elimination with
/// partial pivoting.
fn solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut r = a[i * n..(i + 1) * n].to_vec();
            r.push(b[i]);
            r
        })
        .collect();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))
            .unwrap();
        m.swap(c, p);
        let (top, below) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for r in below {
            let f = r[c] / pivot[c];
            for (v, p) in r[c..].iter_mut().zip(&pivot[c..]) {
                *v -= f * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| m[i][j] * x[j]).sum();
        x[i] = (m[i][n] - s) / m[i][i];
    }
    x
}

/// `K_{-r,-r}`, `k_{-r,r}` and the indices of the points but `r`.
fn without(k: &[f64], n: usize, r: usize) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let others: Vec<usize> = (0..n).filter(|&j| j != r).collect();
    let sub = others
        .iter()
        .flat_map(|&i| others.iter().map(move |&j| k[i * n + j]))
        .collect();
    let col = others.iter().map(|&j| k[j * n + r]).collect();
    (sub, col, others)
}

/// With a budget no fit reaches, each of `maintenances` gives the kernel solver's
/// model (decision values to 1e-9, the same support vectors) on the `n x d` rows of
/// `x`, dense and CSR, with and without averaging.
fn check_no_budget_reached(
    (x, codes): (&[f64], &[u32]),
    d: usize,
    kernel: Kernel,
    maintenances: &[Maintenance],
) {
    let n = codes.len();
    let rows = DenseRows::new(x, n, d).unwrap();
    let (v, c, ptr) = to_csr::<i32>(x, n, d);
    let csr = CsrRows::new(&v, &c, &ptr, n, d).unwrap();
    let task = BinaryTask::new(codes, 1, None, 1.0, 1.0).unwrap();
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
        for &maintenance in maintenances {
            for data in [0, 1] {
                let (state, out) = if data == 0 {
                    fit_budget(&rows, &task, &p, (kernel, n + 1, maintenance))
                } else {
                    fit_budget(&csr, &task, &p, (kernel, n + 1, maintenance))
                };
                let got = decide_budget(kernel, &state.model(p.alpha), &rows);
                assert_eq!((out.maintenance_steps, out.in_span), (0, 0));
                assert_eq!(state.steps(), reference.steps());
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
fn a_budget_no_fit_reaches_gives_the_kernel_solver_s_model() {
    let (n, d) = (150, 5);
    let (x, codes) = dataset(n, d, 1);
    let kernel = Kernel::Rbf { gamma: 0.4 };
    check_no_budget_reached(
        (&x, &codes),
        d,
        kernel,
        &[Maintenance::Remove, Maintenance::Merge],
    );
}

#[test]
fn projection_with_a_budget_no_fit_reaches_gives_the_kernel_solver_s_model() {
    // Rows without repeats (a repeated row is projected onto its copy: tested
    // below), far enough apart for the kernel matrix to stay well conditioned.
    let (n, d) = (150, 8);
    let (x, codes) = dataset(n, d, 2);
    let all: Vec<i64> = (0..n as i64).collect();
    assert_eq!(row_set(&x, d, &all).len(), n);
    let kernel = Kernel::Rbf { gamma: 0.5 };
    check_no_budget_reached((&x, &codes), d, kernel, &[Maintenance::Project]);
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
    for maintenance in [
        Maintenance::Remove,
        Maintenance::Merge,
        Maintenance::Project,
    ] {
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
                if maintenance == Maintenance::Remove {
                    assert!(acc > 0.5, "{acc}");
                } else {
                    assert!(acc >= unbudgeted - 0.03, "{acc} vs {unbudgeted}");
                    assert!(full.n_points() > 200);
                }
            }
        }
    }
    // Merging keeps more of the model than removal at the same budget: fewer
    // removals than maintenance steps.
    let (_, out) = fit_budget(&rows, &task, &p, (kernel, 10, Maintenance::Merge));
    assert!(out.maintenance_steps > 0 && out.removals < out.maintenance_steps);
    let (_, out) = fit_budget(&rows, &task, &p, (kernel, 10, Maintenance::Project));
    assert!(out.maintenance_steps > 0 && out.removals == 0);
}

/// Checks that `after` is the points `before` (coefficients `a`; with averaging,
/// the average's settled shares `acc`) once point `r` (degradation `err`) is
/// projected onto the others: `r` the least degradation of every point's
/// projection solved directly (`K_{-r,-r} beta = k_{-r,r}`, degradation
/// `a_r^2 (K_rr - beta^T k_{-r,r})`), every other point (found by its row) at
/// `a_j + a_r beta_j`, its share at `acc_j + acc_r beta_j`.
fn check_projection(
    kernel: Kernel,
    (before, acc): (&BudgetPoints, &[f64]),
    after: &BudgetState,
    (r, err): (usize, f64),
) {
    let m = before.len();
    let k = points_gram(kernel, before);
    let a = &before.coef;
    let projections: Vec<(Vec<f64>, f64)> = (0..m)
        .map(|r| {
            let (sub, col, _) = without(&k, m, r);
            let beta = solve(&sub, &col);
            let fit: f64 = beta.iter().zip(&col).map(|(b, c)| b * c).sum();
            (beta, a[r] * a[r] * (k[r * m + r] - fit))
        })
        .collect();
    let best = (0..m)
        .min_by(|&i, &j| projections[i].1.total_cmp(&projections[j].1))
        .unwrap();
    assert_eq!(r, best);
    let close = |got: f64, want: f64| {
        assert!(
            (got - want).abs() <= 1e-8 * (1.0 + want.abs()),
            "{got} vs {want}"
        );
    };
    close(err, projections[r].1);
    assert_eq!(after.n_points(), m - 1);
    let (_, _, others) = without(&k, m, r);
    for (&j, b) in others.iter().zip(&projections[r].0) {
        let at = after
            .points
            .source
            .iter()
            .position(|&s| s == before.source[j])
            .unwrap();
        close(after.points.coef[at], a[j] + a[r] * b);
        if after.avg.active() {
            close(after.avg.acc[at], acc[j] + acc[r] * b);
            assert_eq!(after.avg.last[at], after.avg.h);
        }
        assert_eq!(after.of_row[&(before.source[j] as usize)], at);
        assert_eq!(after.points.row(at), before.row(j));
    }
    assert!(!after.of_row.contains_key(&(before.source[r] as usize)));
}

#[test]
fn a_projection_step_is_the_best_projection_computed_directly() {
    let (n, d) = (200, 4);
    let (x, codes) = dataset(n, d, 7);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    for averaging in [Averaging::Off, Averaging::Suffix] {
        let p = params(0.02, 1, 2, averaging);
        let (mut before, fit) = fit_budget(&rows, &task, &p, (kernel, 12, Maintenance::Project));
        assert!(fit.maintenance_steps > 0);
        assert_eq!(before.n_points(), 12);
        assert_eq!(before.avg.active(), averaging == Averaging::Suffix);
        before.settle_all();
        let mut acc = before.avg.acc.clone();
        // More points than the budget (a state kept with a larger one): projected
        // down to it.
        let mut after = before.clone();
        let mut out = BudgetFitOutput::default();
        let step = after.project_to(kernel, 11, &mut out).unwrap();
        assert_eq!(out.maintenance_steps, 1);
        check_projection(kernel, (&before.points, &acc), &after, step);
        // A new row at a full budget: added, and the best of the 13 points projected
        // in the same pass over Q (the new one for a small coefficient).
        acc.push(0.0);
        let mut new_one = 0;
        let fresh =
            (0..n).filter(|i| !before.of_row.contains_key(i) && x[i * d..(i + 1) * d] != [0.0; 4]);
        for (j, f) in fresh.take(6).zip([0.01, 3.0, -0.01, -3.0, 0.5, -0.5]) {
            let mut query = RowQuery::new(d);
            query.load(&rows, j);
            let mut after = before.clone();
            let mut out = BudgetFitOutput::default();
            let step = after
                .add_projecting(kernel, &mut query, (j, f), 12, &mut out)
                .unwrap();
            assert_eq!((out.maintenance_steps, out.in_span), (1, 0));
            let mut points = before.points.clone();
            points.push_entries(&query.entries, f, j as i64);
            check_projection(kernel, (&points, &acc), &after, step);
            new_one += usize::from(step.0 == 12);
        }
        assert!(new_one > 0 && new_one < 6, "{new_one}");
    }
}

#[test]
fn the_kept_inverse_is_the_inverse_of_the_points_kernel_matrix() {
    // Well conditioned (8 features, entries of K^-1 near 4), then points closer
    // together (3 features, entries near 1e3, each update's rounding larger).
    for (d, gamma, tol) in [(8, 0.5, 1e-12), (3, 0.3, 1e-8)] {
        let n = 400;
        let (x, codes) = dataset(n, d, 2);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
        let kernel = Kernel::Rbf { gamma };
        let p = params(0.01, 2, 5, Averaging::Suffix);
        let mut state = BudgetState::new(d, p.seed, 0);
        let mut steps = 0;
        for _ in 0..3 {
            let out = fit_budgeted_binary(
                &rows,
                &task,
                &p,
                (kernel, 25, Maintenance::Project),
                &mut state,
                &Monitor::new(),
                "",
            )
            .unwrap();
            steps += out.maintenance_steps;
            let q = state.inverse.as_ref().unwrap();
            let m = state.n_points();
            assert_eq!((q.n, q.q.len()), (m, m * m));
            let k = points_gram(kernel, &state.points);
            // Column j of K^-1 solved directly.
            let (mut worst, mut largest) = (0.0_f64, 0.0_f64);
            for j in 0..m {
                let e: Vec<f64> = (0..m).map(|i| f64::from(u8::from(i == j))).collect();
                let col = solve(&k, &e);
                for (i, c) in col.iter().enumerate() {
                    worst = worst.max((q.at(i, j) - c).abs());
                    largest = largest.max(c.abs());
                    assert_eq!(q.at(i, j), q.at(j, i));
                }
            }
            assert!(worst <= tol * largest, "d {d}: {worst} of {largest}");
        }
        assert!(steps > 500, "{steps}");
    }
}

#[test]
fn many_rows_in_few_features_keep_the_projection_cheap_and_accurate() {
    // 1500 rows in 3 features: the kernel matrix of a few hundred of them is
    // numerically singular, so rows are projected onto the points' span (as far as
    // the rounding of k^T Q k can tell) rather than recomputing Q at every step.
    let (n, d) = (1500, 3);
    let (x, codes) = dataset(n, d, 3);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    let p = params(1.0 / n as f64, 1, 2, Averaging::Off);
    let accuracy = |state: &BudgetState| {
        let f = decide_budget(kernel, &state.model(p.alpha), &rows);
        let right = f
            .iter()
            .zip(&codes)
            .filter(|(v, &c)| (**v > 0.0) == (c == 1));
        right.count() as f64 / n as f64
    };
    let (full, _) = fit_budget(&rows, &task, &p, (kernel, n + 1, Maintenance::Remove));
    let (_, merge) = fit_budget(&rows, &task, &p, (kernel, 400, Maintenance::Merge));
    let (state, out) = fit_budget(&rows, &task, &p, (kernel, 400, Maintenance::Project));
    // Without a budget 621 points; projection keeps fewer than 400 without a
    // maintenance step, the others in their span.
    assert!(full.n_points() > 400 && state.n_points() < 400);
    assert!(out.in_span > 100 && out.maintenance_steps == 0, "{out:?}");
    // Kernel values: the margins' and each new row's column, as merging's margins
    // and partner searches, and now and then a recomputed Q.
    assert!(
        out.kernel_evals < 2 * merge.kernel_evals,
        "{out:?} {merge:?}"
    );
    let (acc, unbudgeted) = (accuracy(&state), accuracy(&full));
    assert!(acc >= unbudgeted - 0.01, "{acc} vs {unbudgeted}");
}

#[test]
fn a_repeated_row_is_projected_onto_its_copy_not_added() {
    let (n, d) = (80, 8);
    let (mut x, codes) = dataset(n, d, 2);
    // Rows 40..60 repeat rows 0..20.
    let (head, tail) = x.split_at_mut(40 * d);
    tail[..20 * d].copy_from_slice(&head[..20 * d]);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    for averaging in [Averaging::Off, Averaging::Suffix] {
        let p = params(0.05, 1, 3, averaging);
        let (plain, _) = fit_budget(&rows, &task, &p, (kernel, n + 1, Maintenance::Remove));
        let (state, out) = fit_budget(&rows, &task, &p, (kernel, n + 1, Maintenance::Project));
        assert!(out.in_span > 0 && out.maintenance_steps == 0);
        // One point for each distinct row the model without projection has.
        let model = state.model(p.alpha);
        let support = plain.model(p.alpha).source;
        assert!(support.iter().any(|&i| (40..60).contains(&i)));
        assert!(support.len() > model.source.len());
        assert_eq!(row_set(&x, d, &model.source).len(), model.source.len());
        assert_eq!(row_set(&x, d, &model.source), row_set(&x, d, &support));
        let got = decide_budget(kernel, &model, &rows);
        let want = decide_budget(kernel, &plain.model(p.alpha), &rows);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "{g} vs {w}");
        }
    }
}

#[test]
fn projection_needs_a_positive_semi_definite_kernel() {
    let sigmoid = Kernel::Sigmoid {
        gamma: 0.1,
        coef0: 0.0,
    };
    let refused = check_budget(sigmoid, 5, Maintenance::Project);
    assert!(
        matches!(&refused, Err(Error::InvalidParameter(m)) if m.contains("positive semi-definite") && m.contains("sigmoid")),
        "{refused:?}"
    );
    let poly = |coef0| Kernel::Poly {
        gamma: 0.5,
        coef0,
        degree: 2,
    };
    assert!(check_budget(poly(-1.0), 5, Maintenance::Project).is_err());
    assert!(check_budget(sigmoid, 5, Maintenance::Remove).is_ok());
    for kernel in [
        poly(1.0),
        Kernel::Linear,
        Kernel::Rbf { gamma: 1.0 },
        Kernel::Chi2 { gamma: 1.0 },
        Kernel::Intersection,
    ] {
        assert!(check_budget(kernel, 5, Maintenance::Project).is_ok());
    }
    // Every PSD kernel keeps its budget; the linear kernel's span has d dimensions,
    // so later rows are projected onto it (the Projectron) and the budget of 5 points
    // is never reached in 3 features.
    let (n, d) = (120, 3);
    let (x, codes) = dataset(n, d, 10);
    let nonneg: Vec<f64> = x.iter().map(|v| v.abs()).collect();
    let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
    let p = params(0.05, 1, 2, Averaging::Off);
    for kernel in [
        poly(1.0),
        Kernel::Linear,
        Kernel::Chi2 { gamma: 1.0 },
        Kernel::Intersection,
    ] {
        let data = if kernel.is_additive() { &nonneg } else { &x };
        let rows = DenseRows::new(data, n, d).unwrap();
        let (state, out) = fit_budget(&rows, &task, &p, (kernel, 5, Maintenance::Project));
        assert!(state.n_points() <= 5, "{kernel:?}");
        if kernel == Kernel::Linear {
            assert!(state.n_points() <= d && out.maintenance_steps == 0 && out.in_span > 0);
        }
    }
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
            let kappa = (-gd).exp();
            let quick = quick_degradation(a_m, a_n, kappa);
            worst = worst.max((quick - exact).abs() / ((a_m + a_n) * (a_m + a_n)));
            // Symmetric in the sign and in the two points.
            assert_eq!(quick_degradation(-a_m, -a_n, kappa), quick);
            let swapped = quick_degradation(a_n, a_m, kappa);
            assert!(
                (swapped - quick).abs() <= 1e-12 * (1.0 + quick),
                "{a_m} {gd}"
            );
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
    for maintenance in [Maintenance::Merge, Maintenance::Project] {
        let (big, _) = fit_budget(&rows, &task, &p, (kernel, n + 1, maintenance));
        let (want, got) = (reference.model(p.alpha), big.model(p.alpha));
        assert!((got.intercept - want.intercept).abs() < 1e-9);
        let (small, _) = fit_budget(&rows, &task, &p, (kernel, 10, maintenance));
        assert!(small.n_points() <= 10);
    }
}
