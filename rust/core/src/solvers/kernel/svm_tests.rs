//! Tests of the kernel front: its fits are the low-level functions' fits bit for
//! bit (one-vs-rest, one-vs-one, regression, precomputed), and its predictions go
//! through the training rows or the support vectors alike.

use super::*;
use crate::data::rows::DenseRows;
use crate::solvers::kernel::model::{fit_kernel_one_vs_rest, initial_kernel_states};

/// `n` points in the plane around `classes` centres, class by centre.
fn blobs(n: usize, classes: u32, seed: u64) -> (Vec<f64>, Vec<u32>) {
    crate::test_support::blobs(n, classes, seed, 2.0, 2000)
}

fn builder(n: usize) -> KernelSvmParams {
    KernelSvm::params()
        .kernel(Kernel::Rbf { gamma: 0.5 })
        .alpha(1.0 / n as f64)
        .averaging(Averaging::Suffix)
        .max_iter(4)
        .seed(5)
        .cache_bytes(1 << 16)
}

fn labels<'a>(codes: &'a [u32], class_weight: &'a [f64]) -> Labels<'a> {
    Labels {
        codes,
        n_classes: class_weight.len(),
        sample_weight: None,
        class_weight,
    }
}

#[test]
fn one_vs_rest_is_the_low_level_fit_bit_for_bit() {
    let n = 120;
    let (x, codes) = blobs(n, 3, 1);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let svm = builder(n);
    let model = svm.fit(&rows, &codes).unwrap();
    // Threads change nothing in the model (the cache counts depend on which thread
    // computes a shared column first).
    let threaded = svm.clone().n_threads(2).fit(&rows, &codes).unwrap();
    assert_eq!(threaded.dual_coef(), model.dual_coef());
    let p = svm.check().unwrap();
    let kernel = Kernel::Rbf { gamma: 0.5 };
    let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
    let mut states = initial_kernel_states(3, n, p.seed).unwrap();
    let (want, outputs) = fit_kernel_one_vs_rest::<_, f64>(
        &gram,
        &labels(&codes, &[1.0; 3]),
        None,
        &p,
        svm.settings(),
        &mut states,
        &Monitor::new(),
    )
    .unwrap();
    assert_eq!(model.support(), want.support.as_slice());
    assert_eq!(model.dual_coef(), want.dual_coef.as_slice());
    assert_eq!(model.intercept(), want.intercept.as_slice());
    let reports: Vec<_> = states
        .iter()
        .zip(&outputs)
        .map(|(s, o)| KernelReport::of(s, o))
        .collect();
    assert_eq!(model.reports(), reports.as_slice());
    assert_eq!(model.reports()[0].steps, states[0].steps());
    let predicted = model.predict(&rows, &rows).unwrap();
    let correct = predicted.iter().zip(&codes).filter(|(p, c)| p == c).count();
    assert!(correct > n * 9 / 10, "{correct} of {n}");
}

#[test]
fn one_vs_one_is_the_low_level_fit_and_predicts_by_votes() {
    let n = 150;
    let (x, codes) = blobs(n, 4, 2);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let svm = builder(n).decomposition(Decomposition::OneVsOne);
    let model = svm.fit(&rows, &codes).unwrap();
    let p = svm.check().unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(svm.kernel, &rows).unwrap());
    let cw = [1.0; 4];
    let want = fit_kernel_one_vs_one::<_, f64>(
        &gram,
        &labels(&codes, &cw),
        None,
        &p,
        svm.settings(),
        &Monitor::new(),
    )
    .unwrap();
    assert_eq!(model.support(), want.model.support.as_slice());
    assert_eq!(model.dual_coef(), want.model.dual_coef.as_slice());
    assert_eq!(model.intercept(), want.model.intercept.as_slice());
    assert_eq!(model.reports().len(), 6);
    assert_eq!(model.decomposition(), Decomposition::OneVsOne);
    let f = model.decision_function(&rows, &rows).unwrap();
    let predicted = model.predict(&rows, &rows).unwrap();
    for (row, &c) in f.chunks(6).zip(&predicted) {
        let mut votes = [0; 4];
        for (&(i, j), &v) in class_pairs(4).iter().zip(row) {
            votes[if v > 0.0 { i } else { j } as usize] += 1;
        }
        let most = *votes.iter().max().unwrap();
        assert_eq!(votes.iter().position(|&v| v == most), Some(c as usize));
    }
    let correct = predicted.iter().zip(&codes).filter(|(p, c)| p == c).count();
    assert!(correct > n * 9 / 10, "{correct} of {n}");
}

#[test]
fn regression_is_the_low_level_fit_bit_for_bit() {
    let n = 100;
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64 * 6.0 - 3.0).collect();
    let y: Vec<f64> = x.iter().map(|v| v.sin()).collect();
    let w: Vec<f64> = (0..n).map(|i| 1.0 + (i % 3) as f64).collect();
    let rows = DenseRows::new(&x, n, 1).unwrap();
    let svr = KernelRegressor::params()
        .kernel(Kernel::Rbf { gamma: 1.0 })
        .alpha(1.0 / n as f64)
        .max_iter(30)
        .seed(3);
    let model = svr.fit_regression(&rows, &y, Some(&w)).unwrap();
    let p = svr.check().unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(svr.kernel, &rows).unwrap());
    let mut state = KernelState::new(n, 3, 0).unwrap();
    let never = Monitor::new();
    let settings = svr.settings();
    let (want, out) = fit_kernel_regression::<_, f64>(
        &gram,
        &y,
        Some(&w),
        None,
        &p,
        settings,
        &mut state,
        &never,
    )
    .unwrap();
    assert_eq!(model.support(), want.support.as_slice());
    assert_eq!(model.dual_coef(), want.dual_coef.as_slice());
    assert_eq!(model.intercept(), want.intercept.as_slice());
    assert_eq!(model.reports(), [KernelReport::of(&state, &out)]);
    let f = model.predict(&rows, &rows).unwrap();
    let worst = f
        .iter()
        .zip(&y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 0.5, "{worst}");
    // A classification loss is refused by the regression, as by the solver.
    let hinge = svr.clone().loss(LossFunction::Hinge);
    assert!(hinge.fit_regression(&rows, &y, None).is_err());
}

#[test]
fn precomputed_fits_and_predicts_from_kernel_values() {
    let n = 90;
    let (x, codes) = blobs(n, 3, 4);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let svm = builder(n);
    let never = Monitor::new();
    let k = pairwise_kernel(svm.kernel, &rows, &rows, 1, &never).unwrap();
    let prep = KernelRows::new(svm.kernel, &rows).unwrap();
    assert_eq!(k, kernel_matrix(&prep, &rows, 2, &never).unwrap());
    let gram = PrecomputedGram::new(&k, n, n).unwrap();
    let cw = [1.0; 3];
    let model = svm
        .fit_precomputed(&gram, &labels(&codes, &cw), &never)
        .unwrap();
    let p = svm.check().unwrap();
    let mut states = initial_kernel_states(3, n, p.seed).unwrap();
    let settings = svm.settings();
    let lab = labels(&codes, &cw);
    let (want, _) =
        fit_kernel_one_vs_rest::<_, f64>(&gram, &lab, None, &p, settings, &mut states, &never)
            .unwrap();
    assert_eq!(model.dual_coef(), want.dual_coef.as_slice());
    assert_eq!(model.kernel(), None);
    assert!(model.decision_function(&rows, &rows).is_err());
    // The same data's rbf fit has the same model (kernel values are f64 both ways).
    let on_rows = svm.fit(&rows, &codes).unwrap();
    assert_eq!(on_rows.dual_coef(), model.dual_coef());
    let f = model.decision_function_precomputed(&k, n).unwrap();
    let g = on_rows.decision_function(&rows, &rows).unwrap();
    assert!(f.iter().zip(&g).all(|(a, b)| (a - b).abs() < 1e-9));
    assert_eq!(
        model.predict_precomputed(&k, n).unwrap(),
        on_rows.predict(&rows, &rows).unwrap()
    );
    assert!(model.decision_function_precomputed(&k[1..], n).is_err());
}

#[test]
fn support_rows_and_training_rows_give_the_same_values() {
    let n = 100;
    let (x, codes) = blobs(n, 2, 6);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let model = builder(n).fit(&rows, &codes).unwrap();
    let sv: Vec<f64> = model
        .support()
        .iter()
        .flat_map(|&j| x[2 * j..2 * j + 2].to_vec())
        .collect();
    let n_sv = model.support().len();
    assert!(n_sv > 0 && n_sv < n);
    let sv_rows = DenseRows::new(&sv, n_sv, 2).unwrap();
    let through_train = model.decision_function(&rows, &rows).unwrap();
    let through_sv = model.decision_function(&sv_rows, &rows).unwrap();
    assert_eq!(through_train, through_sv);
    let direct = kernel_decision(
        Kernel::Rbf { gamma: 0.5 },
        &sv_rows,
        &rows,
        model.dual_coef(),
        model.intercept(),
        2,
        &Monitor::new(),
    )
    .unwrap();
    assert_eq!(direct, through_sv);
    // Neither the training rows nor the support vectors; other features.
    let few = DenseRows::new(&x[..2 * (n_sv + 1)], n_sv + 1, 2).unwrap();
    assert!(model.decision_function(&few, &rows).is_err());
    let narrow = DenseRows::new(&x, 2 * n, 1).unwrap();
    assert!(model.decision_function(&rows, &narrow).is_err());
    let stopped = Monitor::stopped();
    let k = pairwise_kernel(Kernel::Linear, &rows, &rows, 2, &stopped);
    assert_eq!(k, Err(Error::Interrupted));
}

#[test]
fn bad_parameters_are_errors() {
    let n = 20;
    let (x, codes) = blobs(n, 2, 7);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let refused = [
        builder(n).alpha(0.0),
        builder(n).kernel(Kernel::Rbf { gamma: -1.0 }),
        builder(n).loss(LossFunction::LogLoss),
        builder(n).averaging(Averaging::Weighted),
        builder(n).solver_params(Params::default()), // projects
        builder(n).solver_params(Params {
            max_steps: Some(10),
            projection: false,
            ..Params::default()
        }),
    ];
    // tol sets early stopping's tolerance: a fit without held-out rows refuses it.
    let with_tol = builder(n).solver_params(Params {
        tol: Some(1e-3),
        projection: false,
        ..Params::default()
    });
    assert!(with_tol.check().is_ok());
    assert!(matches!(
        with_tol.fit(&rows, &codes),
        Err(Error::InvalidParameter(_))
    ));
    for svm in refused {
        assert!(svm.check().is_err(), "{svm:?}");
        assert!(svm.fit(&rows, &codes).is_err(), "{svm:?}");
    }
    assert!(builder(n).check().is_ok());
    assert!(builder(n).fit(&rows, &codes[1..]).is_err());
    assert!(builder(n).fit(&rows, &[0; 20]).is_err());
    let stopped = Monitor::stopped();
    let cw = [1.0; 2];
    let r = builder(n).fit_labels_monitored(&rows, &labels(&codes, &cw), &stopped);
    assert_eq!(r.unwrap_err(), Error::Interrupted);
    assert!(builder(1000).is_small_fit(100));
    assert!(!builder(1000).is_small_fit(1000));
}
