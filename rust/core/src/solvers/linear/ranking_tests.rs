use super::*;
use crate::data::rows::{CsrRows, DenseRows};
use crate::solvers::shared::params::Params;

/// Three queries: relevance levels {0, 1, 2} (5 rows), {0, 0, 1, 3} (4 rows) and a
/// query of one level only (2 rows, no pairs); ids not contiguous.
fn tiny() -> (Vec<f64>, Vec<i64>) {
    let y = vec![2.0, 0.0, 1.0, 0.0, 3.0, 1.0, 0.0, 5.0, 1.0, 0.0, 5.0];
    let q = vec![7, 7, 7, 3, 3, 7, 3, 9, 3, 7, 9];
    (y, q)
}

/// A generated ranking problem: `n` rows, `d` features, relevance from a noisy
/// linear score cut into 3 levels, queries of 10 rows.
fn problem(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<i64>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| 2.0 * rng.next_f64() - 1.0).collect();
        let s = row
            .iter()
            .enumerate()
            .map(|(k, v)| v / (k + 1) as f64)
            .sum::<f64>()
            + 0.3 * (rng.next_f64() - 0.5);
        y.push(if s > 0.3 {
            2.0
        } else if s > -0.2 {
            1.0
        } else {
            0.0
        });
        x.extend(row);
    }
    let q = (0..n).map(|i| (i / 10) as i64).collect();
    (x, y, q)
}

fn params(loss: &str, max_iter: usize, averaging: Averaging, batch: usize) -> ValidParams {
    Params {
        loss: LossFunction::from_name(loss, 0.0).unwrap(),
        alpha: 0.01,
        max_iter,
        batch_size: batch,
        averaging,
        intercept: Intercept::None,
        ..Params::default()
    }
    .validate()
    .unwrap()
}

#[test]
fn alias_table_probabilities_are_exact() {
    let weights = [0u64, 3, 1, 0, 7, 2, 2, 11, 1];
    let t = AliasTable::new(&weights).unwrap();
    let n = weights.len() as u128;
    let want: Vec<u128> = weights.iter().map(|&w| n * u128::from(w)).collect();
    assert_eq!(t.scaled_probabilities(), want);
    assert!(AliasTable::new(&[0, 0]).is_err());
}

#[test]
fn the_pair_index_weights_are_the_pair_counts() {
    let (y, q) = tiny();
    let index = PairIndex::new(&y, Some(&q)).unwrap();
    // Query 7: levels {0,0}, {1,1}, {2}: 2*2 + 2*1 + 2*1 = 8 pairs; query 3:
    // {0,0}, {1}, {3}: 2 + 2 + 1 = 5 pairs; query 9: none.
    assert_eq!(index.n_pairs(), 13);
    let mut listed = Vec::new();
    index.for_each_pair(|i, j| listed.push((i, j)));
    assert_eq!(listed.len(), 13);
    for &(i, j) in &listed {
        assert_eq!(q[i], q[j]);
        assert!(y[i] > y[j]);
    }
    // Every row's alias probability is exactly its number of pairs / 2|P|: the
    // scaled probability is n * pairs(row), the pairs summing to 2|P|.
    let n = y.len() as u128;
    let probs = index.alias().scaled_probabilities();
    for (p, &c) in probs.iter().enumerate() {
        let row = index.order[p];
        let pairs = listed
            .iter()
            .filter(|&&(i, j)| i == row || j == row)
            .count();
        assert_eq!(c, n * pairs as u128, "row {row}");
    }
}

#[test]
fn pairs_are_drawn_uniformly() {
    let (y, q) = tiny();
    let index = PairIndex::new(&y, Some(&q)).unwrap();
    let mut listed = Vec::new();
    index.for_each_pair(|i, j| listed.push((i, j)));
    let draws = 260_000usize;
    let mut counts = vec![0usize; listed.len()];
    let mut rng = Rng::seed_from_u64(11);
    for _ in 0..draws {
        let pair = index.draw(&mut rng);
        let k = listed
            .iter()
            .position(|&p| p == pair)
            .expect("a preference pair");
        counts[k] += 1;
    }
    // Each count is Binomial(draws, 1/13): within 5 standard deviations.
    let p = 1.0 / listed.len() as f64;
    let mean = draws as f64 * p;
    let sd = (draws as f64 * p * (1.0 - p)).sqrt();
    for (k, &c) in counts.iter().enumerate() {
        assert!(
            (c as f64 - mean).abs() < 5.0 * sd,
            "pair {:?}: {c} vs {mean}",
            listed[k]
        );
    }
}

#[test]
fn roc_pairs_span_the_whole_set() {
    let y = [1.0, 0.0, 0.0, 1.0, 0.0];
    let index = PairIndex::new(&y, None).unwrap();
    assert_eq!(index.n_pairs(), 6);
    let mut rng = Rng::seed_from_u64(1);
    for _ in 0..100 {
        let (i, j) = index.draw(&mut rng);
        assert!(y[i] == 1.0 && y[j] == 0.0);
    }
}

#[test]
fn refuses_inputs_without_pairs_and_bad_relevance() {
    let err = PairIndex::new(&[1.0, 1.0, 0.0], Some(&[1, 1, 2])).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(m) if m.contains("single relevance level")));
    let err = PairIndex::new(&[1.0, 1.0], None).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(m) if m.contains("same relevance")));
    let err = PairIndex::new(&[1.0, f64::NAN], None).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(m) if m.contains("example 1")));
    let err = PairIndex::new(&[1.0, 0.0], Some(&[1])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch(_)));
    // Through the fit: mismatched lengths and an unsupported loss.
    let (x, y, q) = problem(20, 3, 1);
    let rows = DenseRows::new(&x, 20, 3).unwrap();
    let mut state = LinearState::new(3, 0, 0).unwrap();
    let mut w = vec![0.0; 3];
    let p = params("hinge", 1, Averaging::Off, 1);
    let m = Monitor::new();
    let err = fit_ranking(&rows, &y[1..], Some(&q), &p, &mut state, &mut w, &m).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch(_)));
    let sq = params("squared_hinge", 1, Averaging::Off, 1);
    let err = fit_ranking(&rows, &y, Some(&q), &sq, &mut state, &mut w, &m).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter(m) if m.contains("squared_hinge")));
}

/// The steps against a naive implementation on an explicit weight vector (same
/// pairs, drawn from a copy of the generator).
#[test]
fn steps_match_a_naive_reference() {
    let (n, d) = (60, 4);
    let (x, y, q) = problem(n, d, 5);
    let rows = DenseRows::new(&x, n, d).unwrap();
    for loss in ["hinge", "log_loss"] {
        for batch in [1, 3] {
            let p = params(loss, 7, Averaging::Off, batch);
            let mut state = LinearState::new(d, 42, 0).unwrap();
            let mut rng = state.sampler.rng;
            let mut w = vec![0.0; d];
            let out =
                fit_ranking(&rows, &y, Some(&q), &p, &mut state, &mut w, &Monitor::new()).unwrap();
            assert_eq!(out.n_iter, 7);

            let index = PairIndex::new(&y, Some(&q)).unwrap();
            let lf = LossFunction::from_name(loss, 0.0).unwrap();
            let sq_radius = lf.radius_factor() * lf.value(0.0, 1.0) / p.alpha;
            let steps = 7 * n.div_ceil(batch);
            let mut r = vec![0.0; d];
            let dot = |w: &[f64], i: usize| (0..d).map(|k| w[k] * x[i * d + k]).sum::<f64>();
            for t in 1..=steps {
                let pairs: Vec<_> = (0..batch).map(|_| index.draw(&mut rng)).collect();
                let eta = 1.0 / (p.alpha * t as f64);
                let g: Vec<f64> = pairs
                    .iter()
                    .map(|&(i, j)| lf.step_weight(dot(&r, i) - dot(&r, j), 1.0))
                    .collect();
                for v in &mut r {
                    *v *= 1.0 - 1.0 / t as f64;
                }
                for (&(i, j), gij) in pairs.iter().zip(g) {
                    for k in 0..d {
                        r[k] += eta * gij / batch as f64 * (x[i * d + k] - x[j * d + k]);
                    }
                }
                let norm: f64 = r.iter().map(|v| v * v).sum();
                if norm > sq_radius {
                    let f = (sq_radius / norm).sqrt();
                    for v in &mut r {
                        *v *= f;
                    }
                }
            }
            for k in 0..d {
                assert!(
                    (w[k] - r[k]).abs() <= 1e-12 * r[k].abs().max(1.0),
                    "{loss} k={batch}: {w:?} vs {r:?}"
                );
            }
        }
    }
}

#[test]
fn a_continued_fit_is_the_whole_fit_bit_for_bit() {
    let (n, d) = (50, 3);
    let (x, y, q) = problem(n, d, 9);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let m = Monitor::new();
    for averaging in [Averaging::Off, Averaging::Weighted] {
        let mut whole = LinearState::new(d, 3, 0).unwrap();
        let mut w1 = vec![0.0; d];
        fit_ranking(
            &rows,
            &y,
            Some(&q),
            &params("hinge", 4, averaging, 2),
            &mut whole,
            &mut w1,
            &m,
        )
        .unwrap();
        let mut parts = LinearState::new(d, 3, 0).unwrap();
        let mut w2 = vec![0.0; d];
        let two = params("hinge", 2, averaging, 2);
        fit_ranking(&rows, &y, Some(&q), &two, &mut parts, &mut w2, &m).unwrap();
        fit_ranking(&rows, &y, Some(&q), &two, &mut parts, &mut w2, &m).unwrap();
        assert_eq!(whole, parts);
        assert_eq!(w1, w2);
    }
}

#[test]
fn dense_and_csr_and_f32_agree() {
    let (n, d) = (40, 5);
    let (mut x, y, q) = problem(n, d, 2);
    // Some zeros, so that the CSR rows are sparse.
    for (k, v) in x.iter_mut().enumerate() {
        if k % 3 == 0 {
            *v = 0.0;
        }
    }
    let (mut data, mut indices, mut indptr) = (Vec::new(), Vec::new(), vec![0i32]);
    for i in 0..n {
        for k in 0..d {
            if x[i * d + k] != 0.0 {
                data.push(x[i * d + k]);
                indices.push(k as i32);
            }
        }
        indptr.push(data.len() as i32);
    }
    let dense = DenseRows::new(&x, n, d).unwrap();
    let csr = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
    let p = params("log_loss", 3, Averaging::Suffix, 1);
    let fit = |rows: &dyn Fn(&mut LinearState, &mut [f64])| {
        let mut s = LinearState::new(d, 1, 0).unwrap();
        let mut w = vec![0.0; d];
        rows(&mut s, &mut w);
        w
    };
    let m = Monitor::new();
    let a = fit(&|s, w| {
        fit_ranking(&dense, &y, Some(&q), &p, s, w, &m).unwrap();
    });
    let b = fit(&|s, w| {
        fit_ranking(&csr, &y, Some(&q), &p, s, w, &m).unwrap();
    });
    // The dense dot product sums in another order (vector lanes, zeros included).
    for k in 0..d {
        assert!(
            (a[k] - b[k]).abs() < 1e-12 * a[k].abs().max(1.0),
            "{a:?} {b:?}"
        );
    }
    // float32 rows: the same steps on rounded values, close to float64's.
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let dense32 = DenseRows::new(&x32, n, d).unwrap();
    let c = fit(&|s, w| {
        fit_ranking(&dense32, &y, Some(&q), &p, s, w, &m).unwrap();
    });
    for k in 0..d {
        assert!(
            (a[k] - c[k]).abs() < 1e-4 * a[k].abs().max(1.0),
            "{a:?} {c:?}"
        );
    }
}

#[test]
fn the_objective_decreases_towards_a_ranking() {
    let (n, d) = (200, 4);
    let (x, y, q) = problem(n, d, 4);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let index = PairIndex::new(&y, Some(&q)).unwrap();
    let lf = LossFunction::Hinge;
    let at_zero = ranking_objective(&rows, &index, &lf, &[0.0; 4], 0.01);
    assert_eq!(at_zero, 1.0);
    let mut s = LinearState::new(d, 1, 0).unwrap();
    let mut w = vec![0.0; d];
    let p = params("hinge", 30, Averaging::Suffix, 1);
    fit_ranking(&rows, &y, Some(&q), &p, &mut s, &mut w, &Monitor::new()).unwrap();
    let after = ranking_objective(&rows, &index, &lf, &w, 0.01);
    assert!(after < 0.6, "{after}");
    // The first feature carries most of the relevance.
    assert!(w[0] > w[1].abs() && w[0] > 0.0, "{w:?}");
}

#[test]
fn a_stopped_monitor_interrupts_and_tol_stops_early() {
    let (n, d) = (50, 3);
    let (x, y, q) = problem(n, d, 12);
    let rows = DenseRows::new(&x, n, d).unwrap();
    let mut state = LinearState::new(d, 0, 0).unwrap();
    let mut w = vec![0.0; d];
    let p = params("hinge", 5, Averaging::Off, 1);
    let err = fit_ranking(
        &rows,
        &y,
        Some(&q),
        &p,
        &mut state,
        &mut w,
        &Monitor::stopped(),
    );
    assert!(matches!(err, Err(Error::Interrupted)));
    assert_eq!(state.steps(), 0);
    // tol: the objective after every pass, and a stop once it stalls.
    let p = Params {
        tol: Some(0.5),
        n_iter_no_change: 1,
        ..(*params("hinge", 50, Averaging::Off, 1)).clone()
    }
    .validate()
    .unwrap();
    let out = fit_ranking(&rows, &y, Some(&q), &p, &mut state, &mut w, &Monitor::new()).unwrap();
    assert_eq!(out.converged, Some(true));
    assert!(out.n_iter < 50, "{}", out.n_iter);
    let index = PairIndex::new(&y, Some(&q)).unwrap();
    let obj = ranking_objective(&rows, &index, &LossFunction::Hinge, &w, p.alpha);
    assert_eq!(out.objective, Some(obj));
}

/// The draws are pinned: the same pairs on every platform and in every release
/// that does not announce a change (integer alias table, the portable generator).
#[test]
fn the_drawn_pairs_are_pinned() {
    let (y, q) = tiny();
    let index = PairIndex::new(&y, Some(&q)).unwrap();
    let mut rng = Rng::seed_from_u64(42);
    let got: Vec<(usize, usize)> = (0..8).map(|_| index.draw(&mut rng)).collect();
    assert_eq!(got, GOLDEN_PAIRS);
}

const GOLDEN_PAIRS: [(usize, usize); 8] = [
    (0, 5),
    (5, 9),
    (8, 6),
    (0, 5),
    (5, 9),
    (2, 1),
    (2, 9),
    (2, 9),
];
