//! Tests of one-vs-one kernel Pegasos: pair order and signs, threads and cache,
//! agreement with a fit on the pair's rows alone, two classes as one-vs-rest.

use super::*;
use crate::data::rows::DenseRows;
use crate::kernels::function::{Kernel, KernelRows};
use crate::kernels::gram::DataGram;
use crate::solvers::kernel::model::{
    fit_kernel_one_vs_rest, initial_kernel_states, kernel_decision_function,
};
use crate::solvers::kernel::solver::Strategy;
use crate::solvers::shared::loss::LossFunction;
use crate::solvers::shared::params::{Averaging, Intercept};

/// `n` points in the plane around `classes` centres, class by centre.
fn blobs(n: usize, classes: u32, seed: u64) -> (Vec<f64>, Vec<u32>) {
    crate::test_support::blobs(n, classes, seed, 3.0, 1000)
}

fn params(n: usize, sampling: Sampling) -> ValidParams {
    params_with(LossFunction::Hinge, n, sampling)
}

/// The losses one-vs-one is tested with: the hinge and the squared hinge (whose
/// pairs start at a step `t0` of their own rows and weights).
const LOSSES: [LossFunction; 2] = [LossFunction::Hinge, LossFunction::SquaredHinge];

fn params_with(loss: LossFunction, n: usize, sampling: Sampling) -> ValidParams {
    Params {
        loss,
        alpha: 1.0 / n as f64,
        projection: false,
        intercept: Intercept::Unregularized,
        averaging: Averaging::Suffix,
        sampling,
        max_iter: 4,
        seed: 7,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

fn settings(threads: usize, cache_bytes: usize) -> KernelSettings {
    KernelSettings {
        strategy: Strategy::Auto,
        cache_bytes,
        n_threads: threads,
    }
}

fn labels<'a>(codes: &'a [u32], classes: usize, cw: &'a [f64]) -> Labels<'a> {
    Labels {
        codes,
        n_classes: classes,
        sample_weight: None,
        class_weight: cw,
    }
}

const KERNEL: Kernel = Kernel::Rbf { gamma: 0.5 };

#[test]
fn pairs_come_in_svc_order() {
    assert_eq!(class_pairs(2), vec![(0, 1)]);
    assert_eq!(
        class_pairs(4),
        vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    );
    assert!(class_pairs(1).is_empty());
}

#[test]
fn threads_and_cache_change_nothing_and_the_first_class_is_positive() {
    let (n, k) = (300, 4);
    let (x, codes) = blobs(n, k as u32, 3);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(KERNEL, &rows).unwrap());
    let cw = vec![1.0; k];
    for loss in LOSSES {
        let p = params_with(loss, n, Sampling::Uniform);
        let go = Monitor::new();
        let run = |threads, cache| {
            fit_kernel_one_vs_one::<_, f64>(
                &gram,
                &labels(&codes, k, &cw),
                None,
                &p,
                settings(threads, cache),
                &go,
            )
            .unwrap()
        };
        let one = run(1, 1 << 20);
        for (threads, cache) in [(2, 1 << 20), (2, 0), (3, 1 << 10)] {
            let other = run(threads, cache);
            assert_eq!(one.model, other.model);
            assert_eq!(one.states, other.states);
        }
        let pairs = class_pairs(k);
        assert_eq!(one.model.intercept.len(), pairs.len());
        assert_eq!(one.states.len(), pairs.len());
        // Predict the training rows: pair (i, j) is positive on class i, negative on j.
        let n_sv = one.model.support.len();
        let sv: Vec<f64> = one
            .model
            .support
            .iter()
            .flat_map(|&j| x[2 * j..2 * j + 2].to_vec())
            .collect();
        let sv_rows = DenseRows::new(&sv, n_sv, 2).unwrap();
        let prep = KernelRows::new(KERNEL, &sv_rows).unwrap();
        let f = kernel_decision_function(
            &prep,
            &rows,
            &one.model.dual_coef,
            &one.model.intercept,
            1,
            &go,
        )
        .unwrap();
        let mut right = 0;
        let mut total = 0;
        for (r, &c) in codes.iter().enumerate() {
            for (q, &(i, j)) in pairs.iter().enumerate() {
                let v = f[r * pairs.len() + q];
                if c == i || c == j {
                    total += 1;
                    right += usize::from((v > 0.0) == (c == i));
                }
            }
        }
        assert!(
            right * 100 >= total * 98,
            "{}: {right} of {total}",
            loss.name()
        );
    }
}

#[test]
fn a_pair_is_the_binary_fit_on_its_rows_alone_with_the_same_c() {
    let (n, k) = (240, 3);
    let (x, codes) = blobs(n, k as u32, 5);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(KERNEL, &rows).unwrap());
    let cw = [1.0, 2.0, 0.5];
    let sw: Vec<f64> = (0..n).map(|r| 0.5 + (r % 3) as f64 / 2.0).collect();
    // A visiting order: every row twice, backwards then forwards.
    let order: Vec<usize> = (0..n).rev().chain(0..n).collect();
    for loss in LOSSES {
        let p = params_with(loss, n, Sampling::Order(order.clone()));
        let mut lab = labels(&codes, k, &cw);
        lab.sample_weight = Some(&sw);
        let fit = fit_kernel_one_vs_one::<_, f64>(
            &gram,
            &lab,
            None,
            &p,
            settings(2, 1 << 16),
            &Monitor::new(),
        )
        .unwrap();
        for (q, (i, j)) in class_pairs(k).into_iter().enumerate() {
            let keep: Vec<usize> = (0..n).filter(|&r| codes[r] == i || codes[r] == j).collect();
            let sub_x: Vec<f64> = keep
                .iter()
                .flat_map(|&r| x[2 * r..2 * r + 2].to_vec())
                .collect();
            let sub_codes: Vec<u32> = keep.iter().map(|&r| codes[r]).collect();
            let sub_sw: Vec<f64> = keep.iter().map(|&r| sw[r]).collect();
            let sub_rows = DenseRows::new(&sub_x, keep.len(), 2).unwrap();
            let sub_gram = DataGram::new(&sub_rows, KernelRows::new(KERNEL, &sub_rows).unwrap());
            let task =
                BinaryTask::new(&sub_codes, i, Some(&sub_sw), cw[i as usize], cw[j as usize])
                    .unwrap();
            let sub_order: Vec<usize> = order
                .iter()
                .filter_map(|r| keep.binary_search(r).ok())
                .collect();
            // SVC's C on every pair: `alpha n / n_pair` for the pair's rows.
            let sub_p = Params {
                alpha: p.alpha * n as f64 / keep.len() as f64,
                ..params_with(loss, n, Sampling::Order(sub_order)).into_params()
            }
            .validate()
            .unwrap();
            let mut state = KernelState::new(keep.len(), 7, q as u64).unwrap();
            let solver = settings(1, 1 << 16).solver(1);
            fit_kernel_binary::<_, f64>(
                &sub_gram,
                &task,
                None,
                &sub_p,
                solver,
                &mut state,
                &Monitor::new(),
                "",
            )
            .unwrap();
            assert_eq!(state, fit.states[q], "{}: pair {i}-{j}", loss.name());
        }
    }
}

#[test]
fn two_classes_are_one_vs_rest_bit_for_bit() {
    let n = 200;
    let (x, codes) = blobs(n, 2, 9);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(KERNEL, &rows).unwrap());
    let cw = [1.0, 1.5];
    let lab = labels(&codes, 2, &cw);
    for loss in LOSSES {
        let p = params_with(loss, n, Sampling::Shuffle);
        let go = Monitor::new();
        let ovo = fit_kernel_one_vs_one::<_, f64>(&gram, &lab, None, &p, settings(2, 1 << 16), &go)
            .unwrap();
        let mut states = initial_kernel_states(1, n, p.seed).unwrap();
        let (ovr, _) = fit_kernel_one_vs_rest::<_, f64>(
            &gram,
            &lab,
            None,
            &p,
            settings(2, 1 << 16),
            &mut states,
            &go,
        )
        .unwrap();
        assert_eq!(ovo.model, ovr);
        assert_eq!(ovo.states, states);
    }
}

#[test]
fn an_order_missing_a_pair_is_refused() {
    let n = 90;
    let (x, codes) = blobs(n, 3, 2);
    let rows = DenseRows::new(&x, n, 2).unwrap();
    let gram = DataGram::new(&rows, KernelRows::new(KERNEL, &rows).unwrap());
    let cw = [1.0; 3];
    let only_class_0: Vec<usize> = (0..n).filter(|&r| codes[r] == 0).collect();
    let p = params(n, Sampling::Order(only_class_0));
    let r = fit_kernel_one_vs_one::<_, f64>(
        &gram,
        &labels(&codes, 3, &cw),
        None,
        &p,
        settings(1, 0),
        &Monitor::new(),
    );
    assert!(matches!(r, Err(Error::InvalidParameter(m)) if m.contains("classes 1 and 2")));
}
