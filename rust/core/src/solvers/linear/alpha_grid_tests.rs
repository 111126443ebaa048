use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::solvers::linear::binary::fit_binary;
use crate::solvers::linear::one_vs_rest::{fit_one_vs_rest, initial_states};
use crate::solvers::linear::shared_ovr::fit_shared_one_vs_rest;
use crate::solvers::shared::loss::LossFunction;
use crate::solvers::shared::params::{Averaging, Params};

/// `n` rows of 5 features, about half the entries zero, and 3 classes.
fn data(n: usize) -> (Vec<f64>, Vec<u32>, Vec<f64>) {
    let mut rng = crate::rng::Rng::seed_from_u64(5);
    let x: Vec<f64> = (0..n * 5)
        .map(|_| {
            let u = rng.next_f64();
            if u < 0.5 {
                0.0
            } else {
                2.0 * rng.next_f64() - 1.0
            }
        })
        .collect();
    let codes = x
        .chunks(5)
        .map(|r| {
            let s = r[0] + 0.5 * r[1] - r[2];
            u32::from(s > -0.3) + u32::from(s > 0.3)
        })
        .collect();
    let y = x.chunks(5).map(|r| r[0] - 2.0 * r[3] + 0.5).collect();
    (x, codes, y)
}

fn copy_rows(x: &[f64], index: &[usize]) -> Vec<f64> {
    index
        .iter()
        .flat_map(|&i| x[i * 5..(i + 1) * 5].iter().copied())
        .collect()
}

/// The CSR form of dense rows of 5 features (zeros left out).
fn csr(x: &[f64]) -> (Vec<f64>, Vec<u32>, Vec<u32>) {
    let (mut data, mut indices, mut indptr) = (Vec::new(), Vec::new(), vec![0u32]);
    for r in x.chunks(5) {
        for (j, &v) in r.iter().enumerate() {
            if v != 0.0 {
                data.push(v);
                indices.push(j as u32);
            }
        }
        indptr.push(data.len() as u32);
    }
    (data, indices, indptr)
}

/// Two folds of 60 rows: even and odd rows held out in turn.
fn folds(n: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    (0..2)
        .map(|h| {
            let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|i| i % 2 == h);
            (train, test)
        })
        .collect()
}

fn base(loss: LossFunction, averaging: Averaging, tol: Option<f64>) -> ValidParams {
    Params {
        loss,
        averaging,
        tol,
        n_iter_no_change: 2,
        max_iter: 6,
        seed: 17,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

const ALPHAS: [f64; 3] = [1e-1, 1e-2, 1e-3];

/// Each (fold, alpha) column's held-out values are those of a fit on a copy of the
/// fold's rows with that alpha, bit for bit: one-vs-rest, shared draws and
/// regression, with and without `tol`, for a hinge, a squared and a regression loss.
#[test]
#[allow(clippy::too_many_lines)] // every mode, loss and stopping rule, one reading
fn every_column_is_the_fit_on_a_copy_of_its_fold() {
    let n = 120;
    let (x, codes, _) = data(n);
    let rows = DenseRows::new(&x, n, 5).unwrap();
    let folds_ix = folds(n);
    let cw = [1.0, 2.0, 0.5];
    let sw: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64 * 0.5).collect();
    let fold_list: Vec<Fold<'_>> = folds_ix
        .iter()
        .map(|(train, test)| Fold {
            train,
            test,
            class_weight: &cw,
            alphas: &ALPHAS,
        })
        .collect();
    let losses = [
        LossFunction::Hinge,
        LossFunction::SquaredHinge,
        LossFunction::ModifiedHuber,
    ];
    for loss in losses {
        for (averaging, tol) in [
            (Averaging::Suffix, None),
            (Averaging::Off, Some(1e-2)),
            (Averaging::Suffix, Some(1e-1)),
        ] {
            let params = base(loss, averaging, tol);
            for mode in [MultiClass::OneVsRest, MultiClass::SharedDraws] {
                let got = fit_alpha_grid(
                    &rows,
                    GridTargets::Classes {
                        codes: &codes,
                        n_classes: 3,
                    },
                    Some(&sw),
                    &fold_list,
                    &params,
                    mode,
                    Search::Exact,
                    2,
                    &Monitor::new(),
                )
                .unwrap();
                for (f, (train, test)) in folds_ix.iter().enumerate() {
                    let xt = copy_rows(&x, train);
                    let tr = DenseRows::new(&xt, train.len(), 5).unwrap();
                    let xs = copy_rows(&x, test);
                    let te = DenseRows::new(&xs, test.len(), 5).unwrap();
                    let c: Vec<u32> = train.iter().map(|&i| codes[i]).collect();
                    let w: Vec<f64> = train.iter().map(|&i| sw[i]).collect();
                    let labels = Labels {
                        codes: &c,
                        n_classes: 3,
                        sample_weight: Some(&w),
                        class_weight: &cw,
                    };
                    for (a, &alpha) in ALPHAS.iter().enumerate() {
                        let p = Params {
                            alpha,
                            ..(*params).clone()
                        }
                        .validate()
                        .unwrap();
                        let mut coef = vec![0.0; 15];
                        let (outputs, states_t) = if mode == MultiClass::OneVsRest {
                            let mut states = initial_states(3, 5, 17).unwrap();
                            let o = fit_one_vs_rest(
                                &tr,
                                &labels,
                                None,
                                &p,
                                &mut states,
                                &mut coef,
                                1,
                                &Monitor::new(),
                            )
                            .unwrap();
                            (o, states)
                        } else {
                            let mut states = Vec::new();
                            let o = fit_shared_one_vs_rest(
                                &tr,
                                &labels,
                                &p,
                                &mut states,
                                &mut coef,
                                1,
                                &Monitor::new(),
                            )
                            .unwrap();
                            (o, states)
                        };
                        let n_iter = outputs.iter().map(|o| o.n_iter).max().unwrap();
                        assert_eq!(
                            got[f].n_iter[a], n_iter,
                            "{loss:?} {mode:?} fold {f} alpha {a}"
                        );
                        assert_eq!(states_t.len(), 3);
                        for r in 0..test.len() {
                            for cls in 0..3 {
                                let want = te.dot(r, &coef[cls * 5..(cls + 1) * 5])
                                    + outputs[cls].intercept;
                                let have = got[f].decision[(a * test.len() + r) * 3 + cls];
                                assert_eq!(
                                    have.to_bits(),
                                    want.to_bits(),
                                    "{loss:?} {averaging:?} {tol:?} {mode:?} fold {f} alpha {a} row {r} class {cls}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A regression grid and a two-class grid (one output) on CSR rows.
#[test]
#[allow(clippy::too_many_lines)] // two searches and their references
fn regression_and_two_classes_match_their_fits() {
    let n = 100;
    let (x, codes, y) = data(n);
    let two: Vec<u32> = codes.iter().map(|&c| u32::from(c == 2)).collect();
    let (data_, indices, indptr) = csr(&x);
    let rows = CsrRows::new(&data_, &indices, &indptr, n, 5).unwrap();
    let folds_ix = folds(n);
    let cw = [1.0, 1.0];
    let params = base(LossFunction::SquaredHinge, Averaging::Suffix, None);
    let list: Vec<Fold<'_>> = folds_ix
        .iter()
        .map(|(train, test)| Fold {
            train,
            test,
            class_weight: &cw,
            alphas: &ALPHAS,
        })
        .collect();
    let targets = GridTargets::Classes {
        codes: &two,
        n_classes: 2,
    };
    let got = fit_alpha_grid(
        &rows,
        targets,
        None,
        &list,
        &params,
        MultiClass::OneVsRest,
        Search::Exact,
        1,
        &Monitor::new(),
    )
    .unwrap();
    let reg_params = base(
        LossFunction::EpsilonInsensitive(crate::solvers::shared::loss::EpsilonInsensitive {
            epsilon: 0.1,
        }),
        Averaging::Suffix,
        None,
    );
    let no_cw: [f64; 0] = [];
    let reg_list: Vec<Fold<'_>> = folds_ix
        .iter()
        .map(|(train, test)| Fold {
            train,
            test,
            class_weight: &no_cw,
            alphas: &ALPHAS,
        })
        .collect();
    let reg = fit_alpha_grid(
        &rows,
        GridTargets::Real(&y),
        None,
        &reg_list,
        &reg_params,
        MultiClass::OneVsRest,
        Search::Exact,
        2,
        &Monitor::new(),
    )
    .unwrap();
    for (f, (train, test)) in folds_ix.iter().enumerate() {
        let (d1, i1, p1) = csr(&copy_rows(&x, train));
        let tr = CsrRows::new(&d1, &i1, &p1, train.len(), 5).unwrap();
        let (d2, i2, p2) = csr(&copy_rows(&x, test));
        let te = CsrRows::new(&d2, &i2, &p2, test.len(), 5).unwrap();
        let c: Vec<u32> = train.iter().map(|&i| two[i]).collect();
        let yt: Vec<f64> = train.iter().map(|&i| y[i]).collect();
        assert_eq!(got[f].n_outputs, 1);
        let acc = fold_accuracy(&got[f], &two, test);
        for (a, &alpha) in ALPHAS.iter().enumerate() {
            for (p, target, out) in [(&params, None, &got[f]), (&reg_params, Some(&yt), &reg[f])] {
                let p = Params {
                    alpha,
                    ..(**p).clone()
                }
                .validate()
                .unwrap();
                let mut state = LinearState::new(5, 17, 0).unwrap();
                let mut coef = vec![0.0; 5];
                let task = match target {
                    None => BinaryTask::new(&c, 1, None, 1.0, 1.0).unwrap(),
                    Some(yt) => BinaryTask::regression(yt, None).unwrap(),
                };
                let o = fit_binary(
                    &tr,
                    &task,
                    None,
                    &p,
                    &mut state,
                    &mut coef,
                    &Monitor::new(),
                    "",
                )
                .unwrap();
                for r in 0..test.len() {
                    let want = te.dot(r, &coef) + o.intercept;
                    assert_eq!(out.decision[a * test.len() + r].to_bits(), want.to_bits());
                }
            }
            let correct = (0..test.len())
                .filter(|&r| u32::from(got[f].decision[a * test.len() + r] > 0.0) == two[test[r]])
                .count();
            assert_eq!(acc[a], correct as f64 / test.len() as f64);
        }
    }
}

/// Bad grids are errors that name the problem.
#[test]
fn bad_grids_are_named() {
    let n = 20;
    let (x, codes, _) = data(n);
    let rows = DenseRows::new(&x, n, 5).unwrap();
    let train: Vec<usize> = (0..15).collect();
    let test: Vec<usize> = (15..20).collect();
    let cw = [1.0; 3];
    let params = base(LossFunction::Hinge, Averaging::Suffix, None);
    let run = |alphas: &[f64], train: &[usize], test: &[usize]| {
        let fold = [Fold {
            train,
            test,
            class_weight: &cw,
            alphas,
        }];
        let targets = GridTargets::Classes {
            codes: &codes,
            n_classes: 3,
        };
        fit_alpha_grid(
            &rows,
            targets,
            None,
            &fold,
            &params,
            MultiClass::OneVsRest,
            Search::Exact,
            1,
            &Monitor::new(),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(run(&[], &train, &test).contains("empty"));
    assert!(run(&[0.1, -1.0], &train, &test).contains("alpha must be a positive"));
    assert!(run(&[0.1], &[], &test).contains("no training rows"));
    assert!(run(&[0.1], &train, &[3, 20]).contains("names row 20"));
}

#[test]
fn halving_rungs_end_at_every_pass_with_one_point() {
    assert_eq!(halving_rungs(8, 5, 3.0), [1, 2, 5]);
    assert_eq!(halving_rungs(1, 5, 3.0), [5]);
    assert_eq!(halving_rungs(4, 20, 2.0), [5, 10, 20]);
    assert_eq!(halving_rungs(30, 2, 3.0), [1, 1, 1, 1, 2]);
}

/// A halving search runs its best point all the passes, from the same draws as
/// the exact search: its held-out values are the exact search's; the points it
/// dropped stopped at a rung's pass.
#[test]
fn halving_keeps_the_exact_models_of_its_survivor() {
    let n = 120;
    let (x, codes, y) = data(n);
    let rows = DenseRows::new(&x, n, 5).unwrap();
    let folds_ix = folds(n);
    let alphas = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3];
    let cw = [1.0; 3];
    let no_cw: [f64; 0] = [];
    for (targets, cw, loss) in [
        (
            GridTargets::Classes {
                codes: &codes,
                n_classes: 3,
            },
            &cw[..],
            LossFunction::Hinge,
        ),
        (
            GridTargets::Real(&y),
            &no_cw[..],
            LossFunction::SquaredError,
        ),
    ] {
        let list: Vec<Fold<'_>> = folds_ix
            .iter()
            .map(|(train, test)| Fold {
                train,
                test,
                class_weight: cw,
                alphas: &alphas,
            })
            .collect();
        let params = base(loss, Averaging::Suffix, None);
        let run = |search| {
            fit_alpha_grid(
                &rows,
                targets,
                None,
                &list,
                &params,
                MultiClass::OneVsRest,
                search,
                2,
                &Monitor::new(),
            )
            .unwrap()
        };
        let exact = run(Search::Exact);
        let halved = run(Search::Halving { factor: 3.0 });
        let rungs = halving_rungs(alphas.len(), params.max_iter, 3.0);
        let survivors: Vec<usize> = (0..alphas.len())
            .filter(|&a| halved[0].n_iter[a] == params.max_iter)
            .collect();
        assert_eq!(survivors.len(), 1, "{:?}", halved[0].n_iter);
        let a = survivors[0];
        for (f, (_, test)) in folds_ix.iter().enumerate() {
            let per = test.len() * exact[f].n_outputs;
            assert_eq!(
                halved[f].decision[a * per..(a + 1) * per],
                exact[f].decision[a * per..(a + 1) * per]
            );
            for (b, &passes) in halved[f].n_iter.iter().enumerate() {
                assert!(rungs.contains(&passes), "point {b} ran {passes} passes");
            }
        }
    }
}

/// A halving search too large to keep its models trains each rung's points again
/// from the start: the same results as keeping them.
#[test]
fn halving_without_keeping_the_models_gives_the_same_results() {
    let n = 120;
    let (x, codes, _) = data(n);
    let rows = DenseRows::new(&x, n, 5).unwrap();
    let folds_ix = folds(n);
    let alphas = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3];
    let cw = [1.0; 3];
    let list: Vec<Fold<'_>> = folds_ix
        .iter()
        .map(|(train, test)| Fold {
            train,
            test,
            class_weight: &cw,
            alphas: &alphas,
        })
        .collect();
    let params = base(LossFunction::Hinge, Averaging::Suffix, None);
    let targets = GridTargets::Classes {
        codes: &codes,
        n_classes: 3,
    };
    let run = |kept| {
        let problems =
            plan_problems(&rows, targets, None, &list, &params, MultiClass::OneVsRest).unwrap();
        let mut out: Vec<FoldResult> = folds_ix
            .iter()
            .map(|(_, test)| FoldResult {
                decision: vec![0.0; alphas.len() * test.len() * 3],
                n_outputs: 3,
                n_iter: vec![0; alphas.len()],
            })
            .collect();
        let monitor = Monitor::new();
        halve(
            &rows,
            targets,
            None,
            &list,
            &params,
            MultiClass::OneVsRest,
            problems,
            kept,
            3.0,
            (2, &monitor),
            &mut out,
        )
        .unwrap();
        out
    };
    assert_eq!(run(true), run(false));
}

/// Weights too large for the cache: each grid point runs its passes alone, from
/// the same draws; the models are still the fits on copies of the folds.
#[test]
fn points_too_wide_to_share_the_cache_run_alone_with_the_same_models() {
    let n = 80;
    let (x, codes, _) = data(n);
    let two: Vec<u32> = codes.iter().map(|&c| u32::from(c == 2)).collect();
    let wide = 200_000; // 3 points x 200,001 x 16 bytes > WEIGHTS_IN_CACHE
    let (data_, mut indices, indptr) = csr(&x);
    for j in &mut indices {
        *j *= 40_000; // spread over the wide rows
    }
    let rows = CsrRows::new(&data_, &indices, &indptr, n, wide).unwrap();
    let folds_ix = folds(n);
    let cw = [1.0, 1.0];
    let list: Vec<Fold<'_>> = folds_ix
        .iter()
        .map(|(train, test)| Fold {
            train,
            test,
            class_weight: &cw,
            alphas: &ALPHAS,
        })
        .collect();
    for tol in [None, Some(1e-1)] {
        let params = base(LossFunction::Hinge, Averaging::Suffix, tol);
        let got = fit_alpha_grid(
            &rows,
            GridTargets::Classes {
                codes: &two,
                n_classes: 2,
            },
            None,
            &list,
            &params,
            MultiClass::OneVsRest,
            Search::Exact,
            1,
            &Monitor::new(),
        )
        .unwrap();
        for (f, (train, test)) in folds_ix.iter().enumerate() {
            let sub = RowSubset::new(&rows, train).unwrap();
            let held = RowSubset::new(&rows, test).unwrap();
            let c: Vec<u32> = train.iter().map(|&i| two[i]).collect();
            let task = BinaryTask::new(&c, 1, None, 1.0, 1.0).unwrap();
            for (a, &alpha) in ALPHAS.iter().enumerate() {
                let p = Params {
                    alpha,
                    ..(*params).clone()
                }
                .validate()
                .unwrap();
                let mut state = LinearState::new(wide, 17, 0).unwrap();
                let mut coef = vec![0.0; wide];
                let o = fit_binary(
                    &sub,
                    &task,
                    None,
                    &p,
                    &mut state,
                    &mut coef,
                    &Monitor::new(),
                    "",
                )
                .unwrap();
                assert_eq!(got[f].n_iter[a], o.n_iter);
                for r in 0..test.len() {
                    let want = held.dot(r, &coef) + o.intercept;
                    assert_eq!(
                        got[f].decision[a * test.len() + r].to_bits(),
                        want.to_bits()
                    );
                }
            }
        }
    }
}
