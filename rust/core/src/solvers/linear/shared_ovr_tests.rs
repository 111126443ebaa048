//! Tests of shared-draw one-vs-rest against the binary solver on the same draws.
#![allow(clippy::needless_range_loop)]

use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::solvers::linear::binary::fit_binary;
use crate::solvers::shared::params::{Averaging, Params};
use crate::test_support::{planted_classes, to_csr};

fn params(averaging: Averaging, intercept: Intercept, batch_size: usize) -> ValidParams {
    Params {
        alpha: 0.01,
        batch_size,
        averaging,
        intercept,
        max_iter: 4,
        seed: 7,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

/// The shared-draw fit of all classes.
fn shared_fit<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    p: &ValidParams,
    threads: usize,
) -> (Vec<f64>, Vec<FitOutput>, Vec<LinearState>) {
    let k = labels.n_problems();
    let d = rows.n_features();
    let mut states = shared_initial_states(k, d, p.seed).unwrap();
    let mut coef = vec![0.0; k * d];
    let out = fit_shared_one_vs_rest(
        rows,
        labels,
        p,
        &mut states,
        &mut coef,
        threads,
        &Monitor::new(),
    )
    .unwrap();
    (coef, out, states)
}

const MODES: [(Averaging, Intercept, usize); 5] = [
    (Averaging::Off, Intercept::Unregularized, 1),
    (Averaging::Suffix, Intercept::BiasMultiplier(1.0), 1),
    (Averaging::Weighted, Intercept::None, 3),
    (Averaging::FromStep(20), Intercept::BiasMultiplier(2.0), 2),
    (Averaging::Suffix, Intercept::Unregularized, 4),
];

/// Unit class weights for up to 8 classes.
const UNIT_WEIGHTS: [f64; 8] = [1.0; 8];

/// Labels of `codes` with unit weights.
fn unit_labels(codes: &[u32], n_classes: usize) -> Labels<'_> {
    Labels {
        codes,
        n_classes,
        sample_weight: None,
        class_weight: &UNIT_WEIGHTS[..n_classes],
    }
}

/// Assert that each class of a shared-draw fit (`coef`, `out`, and `states`
/// unless empty) is the binary solver's fit of its task on stream 0.
fn assert_classes_are_binary_fits<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    p: &ValidParams,
    (coef, out, states): (&[f64], &[FitOutput], &[LinearState]),
    what: &str,
) {
    let d = rows.n_features();
    for c in 0..labels.n_problems() {
        let task = labels.task(c).unwrap();
        let mut state = LinearState::new(d, p.seed, 0).unwrap();
        let mut w = vec![0.0; d];
        let o = fit_binary(
            rows,
            &task,
            None,
            p,
            &mut state,
            &mut w,
            &Monitor::new(),
            "",
        )
        .unwrap();
        assert_eq!(w, coef[c * d..(c + 1) * d], "class {c}, {what}");
        assert_eq!(o.intercept, out[c].intercept, "class {c}, {what}");
        if !states.is_empty() {
            assert_eq!(state, states[c], "class {c}, {what}");
        }
    }
}

#[test]
fn each_class_is_the_binary_fit_on_the_same_draws() {
    let (n, d) = (120, 9);
    let (x, codes) = planted_classes(n, d, 4, 3, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let sw: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
    let cw = [1.0, 2.0, 0.5, 1.5];
    for (sample_weight, class_weight) in [(None, [1.0; 4]), (Some(&sw[..]), cw)] {
        let labels = Labels {
            codes: &codes,
            n_classes: 4,
            sample_weight,
            class_weight: &class_weight,
        };
        for (avg, icpt, k) in MODES {
            let p = params(avg, icpt, k);
            let (coef, out, states) = shared_fit(&rows, &labels, &p, 1);
            let what = format!("{avg:?} {icpt:?} k={k}");
            assert_classes_are_binary_fits(&rows, &labels, &p, (&coef, &out, &states), &what);
        }
    }
}

/// Projection onto a ball of radius `1e6` after steps of size `1/(lambda t)` with
/// `lambda = 1e-12` on rows of norm about `1e4` shrinks the scale below
/// `RESCALE_BELOW` at once: the blocked rescale of several classes at one step
/// must still give each class the binary solver's model and state.
#[test]
fn rescaled_classes_are_the_binary_fit() {
    let (n, d) = (60, 7);
    let (mut x, codes) = planted_classes(n, d, 3, 11, 10);
    for v in &mut x {
        *v *= 1e4;
    }
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = unit_labels(&codes, 3);
    for averaging in [Averaging::Off, Averaging::FromStep(5)] {
        let p = Params {
            alpha: 1e-12,
            projection: true,
            averaging,
            max_iter: 2,
            seed: 5,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let (coef, out, states) = shared_fit(&rows, &labels, &p, 2);
        let what = format!("{averaging:?}");
        assert_classes_are_binary_fits(&rows, &labels, &p, (&coef, &out, &states), &what);
    }
}

/// An empty state vector starts the fit fresh, exactly as fresh states do.
#[test]
fn an_empty_state_is_a_fresh_fit() {
    let (n, d) = (80, 6);
    let (x, codes) = planted_classes(n, d, 5, 2, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = unit_labels(&codes, 5);
    for (avg, icpt, k) in MODES {
        let p = params(avg, icpt, k);
        for threads in [1, 2] {
            let (coef, out, states) = shared_fit(&rows, &labels, &p, threads);
            let mut fresh = Vec::new();
            let mut coef2 = vec![0.0; 5 * d];
            let out2 = fit_shared_one_vs_rest(
                &rows,
                &labels,
                &p,
                &mut fresh,
                &mut coef2,
                threads,
                &Monitor::new(),
            )
            .unwrap();
            assert_eq!(coef, coef2, "{avg:?} {icpt:?} k={k}");
            assert_eq!(states, fresh);
            let b: Vec<f64> = out.iter().map(|o| o.intercept).collect();
            let b2: Vec<f64> = out2.iter().map(|o| o.intercept).collect();
            assert_eq!(b, b2);
        }
    }
}

/// With `sampling="shuffle"` too, every class is the binary solver on the same
/// permutations (stream 0), whatever the number of threads.
#[test]
fn shuffled_classes_are_the_binary_fit() {
    let (n, d) = (90, 8);
    let (x, codes) = planted_classes(n, d, 4, 9, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = unit_labels(&codes, 4);
    for (avg, icpt, k) in MODES {
        let p = Params {
            sampling: Sampling::Shuffle,
            ..Params::clone(&params(avg, icpt, k))
        }
        .validate()
        .unwrap();
        for threads in [1, 3] {
            let (coef, out, _) = shared_fit(&rows, &labels, &p, threads);
            let what = format!("{avg:?} {icpt:?} k={k}, {threads} threads");
            assert_classes_are_binary_fits(&rows, &labels, &p, (&coef, &out, &[]), &what);
        }
    }
}

#[test]
fn two_classes_are_one_binary_problem() {
    let (n, d) = (80, 6);
    let (x, codes) = planted_classes(n, d, 2, 5, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = Labels {
        codes: &codes,
        n_classes: 2,
        sample_weight: None,
        class_weight: &[1.0, 3.0],
    };
    let p = params(Averaging::Suffix, Intercept::BiasMultiplier(1.0), 1);
    let (coef, out, _) = shared_fit(&rows, &labels, &p, 1);
    let mut state = LinearState::new(d, p.seed, 0).unwrap();
    let mut w = vec![0.0; d];
    let task = labels.task(0).unwrap();
    let o = fit_binary(
        &rows,
        &task,
        None,
        &p,
        &mut state,
        &mut w,
        &Monitor::new(),
        "",
    )
    .unwrap();
    assert_eq!((w, o.intercept), (coef, out[0].intercept));
}

#[test]
fn threads_dense_csr_and_continuation_agree() {
    let (n, d) = (150, 12);
    let (x, codes) = planted_classes(n, d, 5, 11, 10);
    let dense = DenseRows::new(&x, n, d).unwrap();
    let (data, idx, ptr) = to_csr::<i64>(&x, n, d);
    let csr = CsrRows::new(&data, &idx, &ptr, n, d).unwrap();
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let (data32, _, _) =
        to_csr::<i64>(&x32.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), n, d);
    let data32: Vec<f32> = data32.iter().map(|&v| v as f32).collect();
    let dense32 = DenseRows::new(&x32, n, d).unwrap();
    let csr32 = CsrRows::new(&data32, &idx, &ptr, n, d).unwrap();
    let labels = unit_labels(&codes, 5);
    let p = params(Averaging::Off, Intercept::BiasMultiplier(1.0), 1);
    let one = shared_fit(&dense, &labels, &p, 1);
    for threads in [2, 3, 5, 0] {
        let many = shared_fit(&dense, &labels, &p, threads);
        assert_eq!(one.0, many.0, "{threads} threads");
        assert_eq!(one.2, many.2);
    }
    // Dense rows sum their zeros in the lanes too: equal to rounding.
    let close = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + x.abs()))
    };
    assert!(close(&one.0, &shared_fit(&csr, &labels, &p, 2).0));
    // float32 rows: the same model to rounding as float64 rows of the same values.
    assert!(close(
        &shared_fit(&dense32, &labels, &p, 1).0,
        &shared_fit(&csr32, &labels, &p, 3).0
    ));
    // float32 values read as float64: bit for bit.
    let widened: Vec<f64> = data32.iter().map(|&v| f64::from(v)).collect();
    let csr_widened = CsrRows::new(&widened, &idx, &ptr, n, d).unwrap();
    assert_eq!(
        shared_fit(&csr32, &labels, &p, 1).0,
        shared_fit(&csr_widened, &labels, &p, 2).0
    );
    // Two calls of 2 passes are one call of 4 (last iterate).
    let half = Params {
        max_iter: 2,
        ..(*p).clone()
    }
    .validate()
    .unwrap();
    let mut states = shared_initial_states(5, d, p.seed).unwrap();
    let mut coef = vec![0.0; 5 * d];
    for _ in 0..2 {
        fit_shared_one_vs_rest(
            &dense,
            &labels,
            &half,
            &mut states,
            &mut coef,
            2,
            &Monitor::new(),
        )
        .unwrap();
    }
    assert_eq!((coef, states), (one.0, one.2));
}

#[test]
fn objective_is_per_class_and_tol_stops_all() {
    let (n, d) = (100, 7);
    let (x, codes) = planted_classes(n, d, 3, 2, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = unit_labels(&codes, 3);
    let p = Params {
        tol: Some(0.5),
        n_iter_no_change: 1,
        max_iter: 50,
        ..(*params(Averaging::Off, Intercept::None, 1)).clone()
    }
    .validate()
    .unwrap();
    let (coef, out, _) = shared_fit(&rows, &labels, &p, 1);
    assert!(out
        .iter()
        .all(|o| o.converged == Some(true) && o.n_iter == out[0].n_iter));
    assert!(out[0].n_iter < 50);
    for c in 0..3 {
        let task = labels.task(c).unwrap();
        let w = &coef[c * d..(c + 1) * d];
        let want = crate::solvers::linear::binary::primal_objective(
            &rows,
            &task,
            &p.loss,
            w,
            out[c].intercept,
            0.0,
            p.alpha,
        );
        assert_eq!(out[c].objective, Some(want));
    }
}

#[test]
fn refuses_balanced_sampling_and_independent_states() {
    let (n, d) = (40, 4);
    let (x, codes) = planted_classes(n, d, 3, 1, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let labels = unit_labels(&codes, 3);
    let bal = Params {
        sampling: Sampling::Balanced,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut states = shared_initial_states(3, d, 0).unwrap();
    let mut coef = vec![0.0; 3 * d];
    let r = fit_shared_one_vs_rest(
        &rows,
        &labels,
        &bal,
        &mut states,
        &mut coef,
        1,
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::InvalidParameter(_))));
    let mut independent = crate::solvers::linear::one_vs_rest::initial_states(3, d, 0).unwrap();
    let p = Params::default().validate().unwrap();
    let r = fit_shared_one_vs_rest(
        &rows,
        &labels,
        &p,
        &mut independent,
        &mut coef,
        1,
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::InvalidState(_))));
    let r = fit_shared_one_vs_rest(
        &rows,
        &labels,
        &p,
        &mut states,
        &mut coef,
        1,
        &Monitor::stopped(),
    );
    assert!(matches!(r, Err(Error::Interrupted)));
}

#[test]
fn rows_checked_when_read_are_checked_as_drawn() {
    let (n, d) = (30, 4);
    let (mut x, mut codes) = planted_classes(n, d, 3, 4, 10);
    let p = Params {
        sampling: Sampling::Order(vec![0, 1]),
        max_iter: 1,
        ..Params::default()
    }
    .validate()
    .unwrap();
    let mut coef = vec![0.0; 3 * d];
    // Valid rows read unchecked: the model of the checked rows.
    let codes_ok = codes.clone();
    let labels = Labels {
        codes: &codes_ok,
        n_classes: 3,
        sample_weight: None,
        class_weight: &[1.0; 3],
    };
    let lazy = DenseRows::checked_when_read(&x, n, d).unwrap();
    let (want, _, _) = shared_fit(&DenseRows::new(&x, n, d).unwrap(), &labels, &p, 1);
    assert_eq!(shared_fit(&lazy, &labels, &p, 1).0, want);
    // A NaN in a drawn row, and a class code out of range, are errors.
    x[d + 2] = f64::NAN;
    let lazy = DenseRows::checked_when_read(&x, n, d).unwrap();
    let mut states = shared_initial_states(3, d, 0).unwrap();
    let r = fit_shared_one_vs_rest(
        &lazy,
        &labels,
        &p,
        &mut states,
        &mut coef,
        1,
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    x[d + 2] = 0.5;
    codes[0] = 7;
    let labels = unit_labels(&codes, 3);
    let lazy = DenseRows::checked_when_read(&x, n, d).unwrap();
    let mut states = shared_initial_states(3, d, 0).unwrap();
    let r = fit_shared_one_vs_rest(
        &lazy,
        &labels,
        &p,
        &mut states,
        &mut coef,
        1,
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
}

/// Every loss steps the same way in the shared solver: each class is the binary
/// fit on stream 0. The losses of bounded slope with weights too; the squared
/// hinge with unit weights (its start t0 depends on the weights, and the classes
/// of a shared fit share one step counter: the latest start of any class).
#[test]
fn each_loss_gives_each_class_the_binary_fit() {
    use crate::solvers::shared::loss::LossFunction;
    let (n, d) = (100, 7);
    let (x, codes) = planted_classes(n, d, 3, 21, 10);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let sw: Vec<f64> = (0..n).map(|i| 0.5 + (i % 4) as f64).collect();
    let cw = [1.0, 2.5, 0.5];
    let weighted = Labels {
        codes: &codes,
        n_classes: 3,
        sample_weight: Some(&sw),
        class_weight: &cw,
    };
    let unit = unit_labels(&codes, 3);
    // The losses that start late (squared hinge, modified Huber) share one t0, the
    // latest any class needs: with unit weights every class needs the same.
    for (loss, labels) in [
        (LossFunction::LogLoss, &weighted),
        (LossFunction::Hinge, &weighted),
        (LossFunction::ModifiedHuber, &unit),
        (LossFunction::SquaredHinge, &unit),
    ] {
        for (avg, icpt, k) in MODES {
            let p = Params {
                loss,
                ..Params::clone(&params(avg, icpt, k))
            }
            .validate()
            .unwrap();
            let (coef, out, states) = shared_fit(&rows, labels, &p, 2);
            let what = format!("{} {avg:?} {icpt:?} k={k}", loss.name());
            assert_classes_are_binary_fits(&rows, labels, &p, (&coef, &out, &states), &what);
        }
    }
}
