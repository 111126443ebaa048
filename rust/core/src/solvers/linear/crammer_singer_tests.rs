//! Tests of the Crammer–Singer solver against a naive reference of its update rule.
#![allow(clippy::needless_range_loop)]

use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::solvers::linear::test_support::bits_digest;
use crate::solvers::shared::params::Params;
use crate::test_support::{planted_classes, to_csr};

fn params(
    averaging: Averaging,
    intercept: Intercept,
    batch_size: usize,
    alpha: f64,
) -> ValidParams {
    Params {
        alpha,
        batch_size,
        averaging,
        intercept,
        max_iter: 4,
        seed: 11,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

fn fit<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    p: &ValidParams,
    states: &mut Vec<LinearState>,
) -> (Vec<f64>, Vec<FitOutput>) {
    let mut coef = vec![0.0; labels.n_classes * rows.n_features()];
    let out = fit_crammer_singer(rows, labels, p, states, &mut coef, &Monitor::new()).unwrap();
    (coef, out)
}

/// The update rule of the module doc written out naively: `W` a plain `K x (d+1)`
/// matrix, recomputed norms, the average the mean of the iterates.
#[allow(clippy::too_many_lines)] // one reading of the rule, top to bottom
fn reference(
    x: &[f64],
    codes: &[u32],
    weights: &[f64],
    n: usize,
    d: usize,
    k: usize,
    p: &ValidParams,
) -> (Vec<f64>, Vec<f64>) {
    let task = BinaryTask::new(codes, 0, None, 1.0, 1.0).unwrap();
    let draws = Draws::new(&p.sampling, &task).unwrap();
    let mut sampler = Sampler::new(p.seed, 0);
    let bf = match p.intercept {
        Intercept::BiasMultiplier(b) => b,
        _ => 0.0,
    };
    let mean_c: f64 = weights.iter().sum::<f64>() / n as f64;
    let sq_radius = mean_c / p.alpha;
    let mut w = vec![vec![0.0; d + 1]; k];
    let mut b = vec![0.0; k];
    let steps = (n.div_ceil(p.batch_size) * p.max_iter) as u64;
    let avg_start = match p.averaging {
        Averaging::Off => u64::MAX,
        Averaging::Suffix => steps / 2 + 1,
        _ => unimplemented!(),
    };
    let (mut sum_w, mut sum_b, mut count) = (vec![vec![0.0; d + 1]; k], vec![0.0; k], 0.0);
    for t in 1..=steps {
        let eta = 1.0 / (p.alpha * t as f64);
        let batch: Vec<usize> = (0..p.batch_size)
            .map(|_| draws.draw(&mut sampler))
            .collect();
        let mut updates = vec![];
        for &i in &batch {
            let xi: Vec<f64> = (0..d).map(|j| x[i * d + j]).chain([bf]).collect();
            let s: Vec<f64> = (0..k)
                .map(|r| (0..=d).map(|j| w[r][j] * xi[j]).sum::<f64>() + b[r])
                .collect();
            let y = codes[i] as usize;
            let (mut best, mut rstar) = (f64::NEG_INFINITY, 0);
            for r in 0..k {
                if r != y && s[r] > best {
                    best = s[r];
                    rstar = r;
                }
            }
            if weights[i] > 0.0 && 1.0 + best - s[y] > 0.0 {
                updates.push((xi, y, rstar, eta * weights[i] / p.batch_size as f64));
            }
        }
        for row in &mut w {
            for v in row.iter_mut() {
                *v *= 1.0 - 1.0 / t as f64;
            }
        }
        for (xi, y, r, g) in updates {
            for j in 0..=d {
                w[y][j] += g * xi[j];
                w[r][j] -= g * xi[j];
            }
            if p.intercept == Intercept::Unregularized {
                b[y] += g;
                b[r] -= g;
            }
        }
        let sq: f64 = w.iter().flatten().map(|v| v * v).sum();
        if sq > sq_radius {
            let f = (sq_radius / sq).sqrt();
            for v in w.iter_mut().flatten() {
                *v *= f;
            }
        }
        if t >= avg_start {
            for r in 0..k {
                for j in 0..=d {
                    sum_w[r][j] += w[r][j];
                }
                sum_b[r] += b[r];
            }
            count += 1.0;
        }
    }
    let (w, b) = if count > 0.0 {
        let w = sum_w
            .iter()
            .map(|row| row.iter().map(|v| v / count).collect())
            .collect();
        (w, sum_b.iter().map(|v| v / count).collect())
    } else {
        (w, b)
    };
    let coef: Vec<f64> = w
        .iter()
        .flat_map(|row: &Vec<f64>| row[..d].to_vec())
        .collect();
    let icpt = (0..k).map(|r| b[r] + bf * w[r][d]).collect();
    (coef, icpt)
}

fn assert_close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-12 * scale,
            "{what}: entry {i}: {x} vs {y}"
        );
    }
}

#[test]
fn steps_follow_the_naive_update_rule() {
    let (n, d, k) = (60, 7, 4);
    let (x, codes) = planted_classes(n, d, k as u32, 3, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let class_weight = [1.0, 2.0, 0.5, 1.5];
    let sw: Vec<f64> = (0..n).map(|i| [1.0, 0.0, 3.0][i % 3]).collect();
    for (avg, icpt, batch, alpha) in [
        (Averaging::Off, Intercept::Unregularized, 1, 0.05),
        (Averaging::Suffix, Intercept::None, 3, 0.01),
        (Averaging::Suffix, Intercept::BiasMultiplier(2.0), 2, 0.1),
        (Averaging::Off, Intercept::BiasMultiplier(1.0), 1, 1.0),
    ] {
        for weighted in [false, true] {
            let p = params(avg, icpt, batch, alpha);
            let labels = Labels {
                codes: &codes,
                n_classes: k,
                sample_weight: weighted.then_some(&sw[..]),
                class_weight: if weighted { &class_weight } else { &[1.0; 4] },
            };
            let c: Vec<f64> = (0..n)
                .map(|i| {
                    if weighted {
                        sw[i] * class_weight[codes[i] as usize]
                    } else {
                        1.0
                    }
                })
                .collect();
            let (coef, out) = fit(&rows, &labels, &p, &mut vec![]);
            let (rc, rb) = reference(&x, &codes, &c, n, d, k, &p);
            let what = format!("{avg:?} {icpt:?} batch {batch} weighted {weighted}");
            assert_close(&coef, &rc, &what);
            let b: Vec<f64> = out.iter().map(|o| o.intercept).collect();
            assert_close(&b, &rb, &what);
            assert!(coef.iter().any(|&v| v != 0.0), "{what}");
        }
    }
}

#[test]
fn projection_keeps_the_norm_within_the_radius() {
    let (n, d, k) = (40, 5, 3);
    let (x, codes) = planted_classes(n, d, k as u32, 5, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let p = params(Averaging::Off, Intercept::None, 1, 0.5);
    let mut states = vec![];
    fit(&rows, &labels, &p, &mut states);
    let s = CrammerSingerState::from_states(&states).unwrap();
    assert!(s.sq_norm() <= 1.0 / 0.5 * (1.0 + 1e-12));
    let exact: f64 = s.v.iter().map(|v| (v * s.scale) * (v * s.scale)).sum();
    assert!((exact - s.sq_norm()).abs() <= 1e-9 * exact.max(1.0));
}

#[test]
fn continued_fits_are_the_uninterrupted_fit_bit_for_bit() {
    let (n, d, k) = (50, 6, 3);
    let (x, codes) = planted_classes(n, d, k as u32, 9, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    for avg in [Averaging::Off, Averaging::Weighted] {
        for sampling in [Sampling::Uniform, Sampling::Shuffle] {
            let mut p4 = params(avg, Intercept::Unregularized, 2, 0.02);
            let mut p2 = p4.clone();
            let (mut a, mut b) = ((*p4).clone(), (*p2).clone());
            a.sampling = sampling.clone();
            b.sampling = sampling.clone();
            b.max_iter = 2;
            p4 = a.validate().unwrap();
            p2 = b.validate().unwrap();
            let mut whole = vec![];
            let (c4, _) = fit(&rows, &labels, &p4, &mut whole);
            let mut split = vec![];
            fit(&rows, &labels, &p2, &mut split);
            // Through the bytes of a model file, too: io::codec's tests (io is the
            // layer above the solvers).
            let (c2, _) = fit(&rows, &labels, &p2, &mut split);
            assert_eq!(c4, c2, "{avg:?} {sampling:?}");
            assert_eq!(whole, split, "{avg:?} {sampling:?}");
        }
    }
}

#[test]
fn dense_and_csr_rows_give_the_same_model() {
    let (n, d, k) = (45, 8, 5);
    let (x, codes) = planted_classes(n, d, k as u32, 13, 8);
    let dense = DenseRows::new(&x, n, d).unwrap();
    let (data, idx, ptr) = to_csr::<i64>(&x, n, d);
    let csr = CsrRows::new(&data, &idx, &ptr, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 5],
    };
    let p = params(Averaging::Suffix, Intercept::BiasMultiplier(1.0), 1, 0.01);
    let (a, oa) = fit(&dense, &labels, &p, &mut vec![]);
    let (b, ob) = fit(&csr, &labels, &p, &mut vec![]);
    assert_eq!(a, b);
    assert_eq!(oa, ob);
}

#[test]
fn objective_decreases_to_near_the_reference_optimum_and_is_reported() {
    let (n, d, k) = (80, 5, 3);
    let (x, codes) = planted_classes(n, d, k as u32, 21, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let mut p = (*params(Averaging::Suffix, Intercept::None, 1, 0.05)).clone();
    p.tol = Some(1e-12);
    p.n_iter_no_change = 1000;
    p.max_iter = 3;
    let short = p.clone().validate().unwrap();
    p.max_iter = 300;
    let long = p.validate().unwrap();
    let (cs, os) = fit(&rows, &labels, &short, &mut vec![]);
    let (cl, ol) = fit(&rows, &labels, &long, &mut vec![]);
    let f = |c: &[f64], o: &[FitOutput]| {
        let b: Vec<f64> = o.iter().map(|o| o.intercept).collect();
        crammer_singer_objective(&rows, &labels, &long, c, &b).unwrap()
    };
    assert_eq!(Some(f(&cl, &ol)), ol[0].objective);
    assert!(f(&cl, &ol) < f(&cs, &os));
    // Far below the objective of W = 0 (the mean weight, 1).
    assert!(f(&cl, &ol) < 0.9);
}

#[test]
fn other_solvers_states_losses_and_balanced_sampling_are_refused() {
    let (n, d, k) = (20, 3, 3);
    let (x, codes) = planted_classes(n, d, k as u32, 1, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let p = params(Averaging::Off, Intercept::None, 1, 0.1);
    let mut coef = vec![0.0; k * d];
    let mut ovr = crate::solvers::linear::one_vs_rest::initial_states(k, d, 0).unwrap();
    let e = fit_crammer_singer(&rows, &labels, &p, &mut ovr, &mut coef, &Monitor::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("trained with one state per binary problem")
            && e.contains("not a multi_class='crammer_singer' state"),
        "{e}"
    );
    let mut q = (*p).clone();
    q.loss = LossFunction::LogLoss;
    let e = fit_crammer_singer(
        &rows,
        &labels,
        &q.validate().unwrap(),
        &mut vec![],
        &mut coef,
        &Monitor::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("loss must be 'hinge'"), "{e}");
    let mut q = (*p).clone();
    q.sampling = Sampling::Balanced;
    let e = fit_crammer_singer(
        &rows,
        &labels,
        &q.validate().unwrap(),
        &mut vec![],
        &mut coef,
        &Monitor::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sampling='balanced'"), "{e}");
    // A Crammer-Singer state is not one-vs-rest's either.
    let mut cs = vec![];
    fit(&rows, &labels, &p, &mut cs);
    let e = crate::solvers::linear::one_vs_rest::fit_one_vs_rest(
        &rows,
        &labels,
        None,
        &p,
        &mut cs,
        &mut coef,
        1,
        &Monitor::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("trained with multi_class='crammer_singer'"),
        "{e}"
    );
    let e = crate::solvers::linear::shared_ovr::fit_shared_one_vs_rest(
        &rows,
        &labels,
        &p,
        &mut cs,
        &mut coef,
        1,
        &Monitor::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("trained with multi_class='crammer_singer'"),
        "{e}"
    );
}

/// The digest of every field of `s` that a step changes.
fn state_digest(s: &CrammerSingerState) -> u64 {
    bits_digest(
        &[
            s.v.as_slice(),
            s.avg_u.as_slice(),
            s.bias.as_slice(),
            s.avg_bias_sum.as_slice(),
            &[s.scale, s.sq_norm, s.avg_beta],
        ],
        &[s.t, s.avg_start, s.avg_count, s.k as u64, s.v.len() as u64],
    )
}

/// The shrink, projection, rescale and averaging of a `CrammerSingerState`
/// (written once for the linear states in `solvers::linear::scaled`) leave every
/// bit of the states as they were before: digests recorded from the state's own
/// methods, on fits that restart at `t = 1`, project, rescale (rows of norm about
/// 1e6 and `alpha = 1`) and average (off, suffix, weighted, from a step).
#[test]
fn scaled_iterate_steps_keep_the_states_bit_for_bit() {
    let (n, d, k) = (80, 6, 3);
    let (x, codes) = planted_classes(n, d, k, 4, 7);
    let big: Vec<f64> = x.iter().map(|v| v * 1e6).collect();
    let labels = Labels {
        codes: &codes,
        n_classes: k as usize,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let mut digests = Vec::new();
    for (data, alpha) in [(&x, 0.05), (&big, 1.0)] {
        let rows = DenseRows::new(data, n, d).unwrap();
        for (averaging, intercept, batch) in [
            (Averaging::Off, Intercept::None, 1),
            (Averaging::Suffix, Intercept::Unregularized, 3),
            (Averaging::Weighted, Intercept::BiasMultiplier(1.0), 1),
            (Averaging::FromStep(30), Intercept::Unregularized, 2),
        ] {
            let mut states = Vec::new();
            fit(
                &rows,
                &labels,
                &params(averaging, intercept, batch, alpha),
                &mut states,
            );
            let state = CrammerSingerState::from_states(&states).unwrap();
            digests.push(state_digest(&state));
        }
    }
    assert_eq!(digests, SCALED_DIGESTS, "{digests:#x?}");
}

/// `scaled_iterate_steps_keep_the_states_bit_for_bit`'s digests, recorded with the
/// state's methods of before `solvers::linear::scaled`.
const SCALED_DIGESTS: [u64; 8] = [
    0x6e63_ff12_27c1_b384,
    0xdb15_cd45_8f73_1231,
    0xd304_91a3_13f8_69e9,
    0x3b3c_1af2_87ed_81c8,
    0x2324_251b_2809_152c,
    0x506c_bba0_88f6_b150,
    0xf805_3432_72dc_8a59,
    0x541a_9f05_a1cc_a0ff,
];

/// A Crammer–Singer state says what it is (its states' kinds, saved as their tag by
/// `io::codec`): one-vs-rest and a regression refuse it by the solver's name.
#[test]
fn other_solvers_refuse_the_state_by_name() {
    let (n, d, k) = (30, 3, 3);
    let (x, codes) = planted_classes(n, d, k as u32, 2, 8);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: k,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let mut states = Vec::new();
    fit(
        &rows,
        &labels,
        &params(Averaging::Off, Intercept::None, 1, 0.1),
        &mut states,
    );
    let kinds: Vec<StateKind> = states.iter().map(LinearState::kind).collect();
    assert_eq!(kinds[0], StateKind::CrammerSingerHeader);
    assert!(kinds[1..]
        .iter()
        .all(|&k| k == StateKind::CrammerSingerClass));

    let p = params(Averaging::Off, Intercept::None, 1, 0.1);
    let mut coef = vec![0.0; k * d];
    let refusals = [
        crate::solvers::linear::one_vs_rest::fit_one_vs_rest(
            &rows,
            &labels,
            None,
            &p,
            &mut states.clone()[..k],
            &mut coef,
            1,
            &Monitor::new(),
        )
        .map(|_| ()),
        crate::solvers::linear::regressor::LinearRegressor::params()
            .fit_from(&rows, &x[..n], None, &mut states.clone(), &Monitor::new())
            .map(|_| ()),
    ];
    for r in refusals {
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("the solver state was trained with multi_class='crammer_singer'"),
            "{e}"
        );
    }
}
