//! Tests of the streamed budgeted fit: with the drawn rows fetched round by round
//! (each round's distinct rows only, in another order), the model is the in-memory
//! budgeted fit's, bit for bit; the settings it cannot stream are refused.

use super::*;
use crate::data::labels::Labels;
use crate::data::rows::DenseRows;
use crate::solvers::kernel::budget::{fit_budgeted_one_vs_rest, fit_budgeted_regression};
use crate::solvers::shared::params::{Averaging, Intercept, Params};
use crate::test_support::planted;

fn params(k: usize, sampling: Sampling, averaging: Averaging) -> ValidParams {
    Params {
        alpha: 0.01,
        batch_size: k,
        projection: false,
        intercept: Intercept::Unregularized,
        averaging,
        sampling,
        max_iter: 3,
        seed: 5,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

/// Run `fit` to the end on `x` (`n x d`, dense), fetching each round's distinct
/// drawn rows (reversed, so that a row's position differs from its index) for
/// rounds of at most `per_round` steps.
fn stream(
    fit: &mut StreamedBudgetFit,
    x: &[f64],
    d: usize,
    targets: (Option<&[u32]>, Option<&[f64]>),
    sample_weight: Option<&[f64]>,
    per_round: u64,
    k: usize,
) {
    loop {
        let steps = fit.next_pass();
        if steps.iter().all(|&s| s == 0) {
            break;
        }
        let mut left = steps.clone();
        while left.iter().any(|&s| s > 0) {
            let now: Vec<u64> = left.iter().map(|&s| s.min(per_round)).collect();
            for (l, n) in left.iter_mut().zip(&now) {
                *l -= n;
            }
            let counts: Vec<usize> = now.iter().map(|&s| s as usize * k).collect();
            let keys = fit.draw(&counts).unwrap();
            let mut distinct: Vec<usize> = keys.iter().flatten().copied().collect();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.reverse();
            let at = |i: usize| distinct.iter().position(|&r| r == i).unwrap();
            let drawn: Vec<Vec<usize>> = keys
                .iter()
                .map(|ks| ks.iter().map(|&i| at(i)).collect())
                .collect();
            let rows: Vec<f64> = distinct
                .iter()
                .flat_map(|&i| x[i * d..(i + 1) * d].iter().copied())
                .collect();
            let block = DenseRows::new(&rows, distinct.len(), d).unwrap();
            let codes: Vec<u32> = targets
                .0
                .map_or(Vec::new(), |c| distinct.iter().map(|&i| c[i]).collect());
            let values: Vec<f64> = targets
                .1
                .map_or(Vec::new(), |v| distinct.iter().map(|&i| v[i]).collect());
            let sw: Option<Vec<f64>> =
                sample_weight.map(|w| distinct.iter().map(|&i| w[i]).collect());
            let t = if targets.0.is_some() {
                Targets::Codes(&codes)
            } else {
                Targets::Values(&values)
            };
            fit.run(&block, t, sw.as_deref(), &drawn, &keys, 2, &Monitor::new())
                .unwrap();
        }
        let _ = fit.end_pass();
    }
}

#[test]
fn a_streamed_classification_is_the_in_memory_fit() {
    let (n, d) = (240, 4);
    let (x, binary) = planted(n, d, 7, |_, v| v * v, d as f64 / 6.0);
    // Three classes: the planted labels split by the first feature's sign.
    let codes: Vec<u32> = binary
        .iter()
        .zip(x.chunks(d))
        .map(|(&c, row)| if c == 1 { 2 } else { u32::from(row[0] > 0.0) })
        .collect();
    let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64 * 0.5).collect();
    let rows = DenseRows::new(&x, n, d).unwrap();
    let class_weight = [1.0, 2.0, 0.5];
    for (maintenance, k, sampling, averaging, sw) in [
        (
            Maintenance::Merge,
            1,
            Sampling::Uniform,
            Averaging::Suffix,
            None,
        ),
        (
            Maintenance::Remove,
            3,
            Sampling::Shuffle,
            Averaging::Off,
            Some(&weights),
        ),
        (
            Maintenance::Merge,
            2,
            Sampling::Shuffle,
            Averaging::Suffix,
            Some(&weights),
        ),
        (
            Maintenance::Project,
            1,
            Sampling::Uniform,
            Averaging::Suffix,
            Some(&weights),
        ),
    ] {
        let p = params(k, sampling, averaging);
        let settings = (Kernel::Rbf { gamma: 0.5 }, 12, maintenance);
        let labels = Labels {
            codes: &codes,
            n_classes: 3,
            sample_weight: sw.map(Vec::as_slice),
            class_weight: &class_weight,
        };
        let expected =
            fit_budgeted_one_vs_rest(&rows, &labels, &p, settings, 1, &Monitor::new()).unwrap();
        let classes = ClassSummary {
            class_weight: class_weight.to_vec(),
            counts: vec![0; 3],
        };
        let mut fit = StreamedBudgetFit::new(p, settings, n, d, Some(classes)).unwrap();
        stream(
            &mut fit,
            &x,
            d,
            (Some(&codes), None),
            sw.map(Vec::as_slice),
            17,
            k,
        );
        let got = fit.finish();
        assert_eq!(got, expected, "{maintenance:?}, k = {k}");
        assert!(got.source.len() <= 3 * 12);
    }
}

#[test]
fn a_streamed_regression_is_the_in_memory_fit() {
    let (n, d) = (200, 3);
    let (x, _) = planted(n, d, 11, |_, v| v * v, 1.0);
    let y: Vec<f64> = x.chunks(d).map(|r| (r[0] * 2.0).sin() + r[1]).collect();
    let rows = DenseRows::new(&x, n, d).unwrap();
    let p = Params {
        loss: crate::solvers::shared::loss::LossFunction::from_name("epsilon_insensitive", 0.1)
            .unwrap(),
        ..params(1, Sampling::Uniform, Averaging::Suffix).into_params()
    }
    .validate()
    .unwrap();
    let settings = (Kernel::Rbf { gamma: 1.0 }, 15, Maintenance::Merge);
    let expected =
        fit_budgeted_regression(&rows, (&y, None), &p, settings, &Monitor::new()).unwrap();
    let mut fit = StreamedBudgetFit::new(p, settings, n, d, None).unwrap();
    stream(&mut fit, &x, d, (None, Some(&y)), None, 29, 1);
    assert_eq!(fit.finish(), expected);
}

#[test]
fn what_cannot_be_streamed_is_refused() {
    let settings = (Kernel::Rbf { gamma: 1.0 }, 10, Maintenance::Merge);
    let classes = || {
        Some(ClassSummary {
            class_weight: vec![1.0, 1.0],
            counts: vec![0, 0],
        })
    };
    let balanced = params(1, Sampling::Balanced, Averaging::Off);
    let err = StreamedBudgetFit::new(balanced, settings, 10, 2, classes())
        .err()
        .unwrap();
    assert!(err.to_string().contains("balanced sampling"), "{err}");
    let one_class = Params {
        one_class: true,
        ..params(1, Sampling::Uniform, Averaging::Off).into_params()
    }
    .validate()
    .unwrap();
    let err = StreamedBudgetFit::new(one_class, settings, 10, 2, classes())
        .err()
        .unwrap();
    assert!(err.to_string().contains("one-class"), "{err}");
    let small = (Kernel::Rbf { gamma: 1.0 }, 1, Maintenance::Merge);
    let plain = params(1, Sampling::Uniform, Averaging::Off);
    assert!(StreamedBudgetFit::new(plain, small, 10, 2, classes()).is_err());
}
