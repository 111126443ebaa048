//! Tests of the streamed fit: fed the drawn rows round by round, it returns the
//! in-memory fits' models bit for bit.

use super::*;
use crate::data::rows::DenseRows;
use crate::solvers::linear::crammer_singer::fit_crammer_singer;
use crate::solvers::linear::one_vs_rest::fit_one_vs_rest;
use crate::solvers::shared::params::{Averaging, Intercept, Params};
use crate::test_support::planted_classes;

struct Data {
    x: Vec<f64>,
    codes: Vec<u32>,
    sw: Option<Vec<f64>>,
    class_weight: Vec<f64>,
    n: usize,
    d: usize,
    k: usize,
}

impl Data {
    fn new(weighted: bool) -> Self {
        let (n, d, k) = (300, 7, 4);
        let (x, codes) = planted_classes(n, d, k as u32, 5, 6);
        let sw = weighted.then(|| (0..n).map(|i| 0.5 + (i % 3) as f64 * 0.5).collect());
        let class_weight = if weighted {
            vec![1.0, 2.0, 0.5, 1.5]
        } else {
            vec![1.0; k]
        };
        Self {
            x,
            codes,
            sw,
            class_weight,
            n,
            d,
            k,
        }
    }

    fn labels(&self) -> Labels<'_> {
        Labels {
            codes: &self.codes,
            n_classes: self.k,
            sample_weight: self.sw.as_deref(),
            class_weight: &self.class_weight,
        }
    }

    fn rows(&self) -> DenseRows<'_, f64> {
        DenseRows::new(&self.x, self.n, self.d).unwrap()
    }

    fn summary(&self, joint: bool) -> LabelSummary {
        let labels = self.labels();
        let mut counts = vec![0u64; self.k];
        for &c in &self.codes {
            counts[c as usize] += 1;
        }
        let unit = self.sw.is_none() && self.class_weight.iter().all(|&c| c == 1.0);
        // The sums as a caller takes them: block after block, continued.
        let zero_loss_sums = (!unit).then(|| {
            let halves = [0..self.n / 2, self.n / 2..self.n];
            if joint {
                let sum = halves.iter().fold(-0.0, |acc, r| {
                    crammer_singer::weight_sum(&part(&labels, r.clone()), acc).unwrap()
                });
                vec![sum]
            } else {
                (0..labels.n_problems())
                    .map(|p| {
                        halves.iter().fold(-0.0, |acc, r| {
                            let part = part(&labels, r.clone());
                            binary::zero_loss_sum(&part.task(p).unwrap(), &LossFunction::Hinge, acc)
                        })
                    })
                    .collect()
            }
        });
        LabelSummary {
            classes: Some(ClassSummary {
                class_weight: self.class_weight.clone(),
                counts,
            }),
            zero_loss_sums,
            first_step_sums: None,
            one_class_sq_norm: None,
        }
    }

    /// Run `fit` to the end, supplying in rounds of `per_round` steps per problem
    /// only the drawn rows (in draw order, repeats repeated), and the objective's
    /// loss sums when it wants them.
    fn stream(&self, fit: &mut StreamedFit, per_round: u64, k: usize) {
        self.stream_keys(fit, per_round, k, |_, key| usize::try_from(key).unwrap());
    }

    /// [`Data::stream`] with problem `p`'s key `key` standing for row `row_of(p, key)`.
    fn stream_keys(
        &self,
        fit: &mut StreamedFit,
        per_round: u64,
        k: usize,
        row_of: impl Fn(usize, i64) -> usize,
    ) {
        let joint = matches!(fit.problems, Problems::Joint { .. });
        loop {
            let steps = fit.next_pass();
            if steps.iter().all(|&s| s == 0) {
                break;
            }
            let mut left = steps;
            while left.iter().any(|&s| s > 0) {
                let now: Vec<u64> = left.iter().map(|&s| s.min(per_round)).collect();
                for (l, n) in left.iter_mut().zip(&now) {
                    *l -= n;
                }
                let counts: Vec<usize> = now.iter().map(|&s| s as usize * k).collect();
                let keys = fit.draw(&counts).unwrap();
                let (mut x, mut codes, mut sw, mut drawn) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for (p, problem) in keys.iter().enumerate() {
                    let mut idx = Vec::new();
                    for &key in problem {
                        let i = row_of(p, key);
                        idx.push(codes.len());
                        x.extend_from_slice(&self.x[i * self.d..(i + 1) * self.d]);
                        codes.push(self.codes[i]);
                        sw.push(self.sw.as_ref().map_or(1.0, |s| s[i]));
                    }
                    drawn.push(idx);
                }
                let rows = DenseRows::new(&x, codes.len(), self.d).unwrap();
                let sw = self.sw.as_ref().map(|_| sw.as_slice());
                fit.run(
                    &rows,
                    Targets::Codes(&codes),
                    sw,
                    &drawn,
                    2,
                    &Monitor::new(),
                )
                .unwrap();
            }
            let sums = fit.wants_objective().then(|| {
                let (coef, b) = fit.model().unwrap();
                let (rows, labels) = (self.rows(), self.labels());
                if joint {
                    vec![crammer_singer::loss_sum_of(&rows, &labels, &coef, &b, -0.0).unwrap()]
                } else {
                    (0..labels.n_problems())
                        .map(|p| {
                            let w = &coef[p * self.d..(p + 1) * self.d];
                            let task = labels.task(p).unwrap();
                            binary::loss_sum(&rows, &task, &LossFunction::Hinge, w, b[p], -0.0)
                        })
                        .collect()
                }
            });
            fit.end_pass(sums.as_deref(), None).unwrap();
        }
    }
}

/// Rows `r` of `labels`.
fn part<'a>(labels: &Labels<'a>, r: std::ops::Range<usize>) -> Labels<'a> {
    Labels {
        codes: &labels.codes[r.clone()],
        sample_weight: labels.sample_weight.map(|s| &s[r]),
        ..*labels
    }
}

fn params(sampling: Sampling, averaging: Averaging, tol: Option<f64>) -> ValidParams {
    Params {
        alpha: 0.01,
        batch_size: 3,
        sampling,
        averaging,
        intercept: Intercept::BiasMultiplier(1.5),
        max_iter: 5,
        tol,
        seed: 17,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

#[test]
fn a_streamed_crammer_singer_fit_is_the_in_memory_fit_bit_for_bit() {
    for weighted in [false, true] {
        let data = Data::new(weighted);
        for (sampling, averaging, tol) in [
            (Sampling::Uniform, Averaging::Weighted, None),
            (Sampling::Shuffle, Averaging::Off, Some(1e-4)),
            (Sampling::Uniform, Averaging::Suffix, Some(1e-3)),
        ] {
            let p = params(sampling.clone(), averaging, tol);
            let mut states = Vec::new();
            let mut want = vec![0.0; data.k * data.d];
            let out = fit_crammer_singer(
                &data.rows(),
                &data.labels(),
                &p,
                &mut states,
                &mut want,
                &Monitor::new(),
            )
            .unwrap();
            // A fresh fit, then a continued one, as partial_fit chains them.
            let mut fit =
                StreamedFit::new(p.clone(), &[], data.n, data.d, &data.summary(true), true)
                    .unwrap();
            assert_eq!((fit.n_problems(), fit.n_models()), (1, data.k));
            data.stream(&mut fit, 37, p.batch_size);
            let (outputs, coef, got_states) = fit.finish().unwrap();
            assert_eq!(coef, want, "{sampling:?} {averaging:?} weighted {weighted}");
            assert_eq!(got_states, states);
            for (a, b) in outputs.iter().zip(&out) {
                assert_eq!(a.intercept.to_bits(), b.intercept.to_bits());
                assert_eq!(
                    (a.n_iter, a.objective, a.converged),
                    (b.n_iter, b.objective, b.converged)
                );
            }
            let mut again = StreamedFit::new(
                p.clone(),
                &got_states,
                data.n,
                data.d,
                &data.summary(true),
                true,
            )
            .unwrap();
            data.stream(&mut again, 1000, p.batch_size);
            fit_crammer_singer(
                &data.rows(),
                &data.labels(),
                &p,
                &mut states,
                &mut want,
                &Monitor::new(),
            )
            .unwrap();
            assert_eq!(again.finish().unwrap().1, want);
        }
    }
}

#[test]
fn a_streamed_one_vs_rest_fit_is_the_in_memory_fit_bit_for_bit() {
    for weighted in [false, true] {
        let data = Data::new(weighted);
        let p = params(Sampling::Balanced, Averaging::Weighted, Some(1e-4));
        let mut states = initial_states(data.k, data.d, p.seed).unwrap();
        let mut want = vec![0.0; data.k * data.d];
        let rows = data.rows();
        let out = fit_one_vs_rest(
            &rows,
            &data.labels(),
            None,
            &p,
            &mut states,
            &mut want,
            2,
            &Monitor::new(),
        )
        .unwrap();
        // Balanced keys are ranks within the problem's class or the rest.
        let members = |p: usize, positive: bool| -> Vec<usize> {
            (0..data.n)
                .filter(|&i| (data.codes[i] as usize == p) == positive)
                .collect()
        };
        let split: Vec<_> = (0..data.k)
            .map(|p| (members(p, true), members(p, false)))
            .collect();
        let mut fit =
            StreamedFit::new(p.clone(), &[], data.n, data.d, &data.summary(false), false).unwrap();
        data.stream_keys(&mut fit, 29, p.batch_size, |p, key| {
            match usize::try_from(key) {
                Ok(r) => split[p].0[r],
                Err(_) => split[p].1[usize::try_from(-key - 1).unwrap()],
            }
        });
        let (outputs, coef, got_states) = fit.finish().unwrap();
        assert_eq!(coef, want, "weighted {weighted}");
        assert_eq!(got_states, states);
        for (a, b) in outputs.iter().zip(&out) {
            assert_eq!(a.intercept.to_bits(), b.intercept.to_bits());
            assert_eq!(a.objective, b.objective);
        }
    }
}

#[test]
fn mismatched_summaries_states_and_losses_are_refused() {
    let data = Data::new(false);
    let p = params(Sampling::Uniform, Averaging::Off, None);
    let balanced = params(Sampling::Balanced, Averaging::Off, None);
    let err = |r: Result<StreamedFit>| r.err().unwrap().to_string();
    assert!(err(StreamedFit::new(
        balanced,
        &[],
        data.n,
        data.d,
        &data.summary(true),
        true
    ))
    .contains("crammer_singer"));
    let regression = LabelSummary::default();
    assert!(err(StreamedFit::new(
        p.clone(),
        &[],
        data.n,
        data.d,
        &regression,
        true
    ))
    .contains("needs class labels"));
    assert!(err(StreamedFit::new(
        p.clone(),
        &[],
        data.n + 1,
        data.d,
        &data.summary(true),
        true
    ))
    .contains("add up to"));
    // One-vs-rest states cannot continue jointly, nor the other way round.
    let ovr = initial_states(data.k, data.d, 1).unwrap();
    assert!(err(StreamedFit::new(
        p.clone(),
        &ovr,
        data.n,
        data.d,
        &data.summary(true),
        true
    ))
    .contains("crammer_singer"));
    let joint = CrammerSingerState::new(data.k, data.d, 1)
        .unwrap()
        .to_states();
    assert!(err(StreamedFit::new(
        p.clone(),
        &joint,
        data.n,
        data.d,
        &data.summary(false),
        false
    ))
    .contains("one-vs-rest"));
}

#[test]
fn draws_and_runs_of_the_wrong_shape_are_refused() {
    let data = Data::new(false);
    let p = params(Sampling::Uniform, Averaging::Off, None);
    let mut fit = StreamedFit::new(p, &[], data.n, data.d, &data.summary(true), true).unwrap();
    assert!(fit.draw(&[3, 3]).is_err());
    fit.next_pass();
    let keys = fit.draw(&[3]).unwrap();
    let rows = data.rows();
    let drawn = vec![keys[0].iter().map(|&i| i as usize).collect::<Vec<_>>()];
    let values = vec![0.0; data.n];
    assert!(fit
        .run(
            &rows,
            Targets::Values(&values),
            None,
            &drawn,
            1,
            &Monitor::new()
        )
        .is_err());
    let partial = vec![drawn[0][..2].to_vec()];
    assert!(fit
        .run(
            &rows,
            Targets::Codes(&data.codes),
            None,
            &partial,
            1,
            &Monitor::new()
        )
        .is_err());
}
