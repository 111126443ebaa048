//! One-vs-rest over classes in parallel, and batched prediction.
//!
//! Class `c` trains on stream `c` of the seed (see [`crate::rng`]) and its own state,
//! so the models do not depend on how many threads run them or in which order.

use crate::monitor::Monitor;

use crate::data::labels::Labels;
use crate::data::rows::{Rows, LANES};
use crate::data::subset::RowSubset;
use crate::error::{try_filled_vec, Error, Result};
use crate::parallel::{for_each_problem, row_blocks_of};
use crate::solvers::linear::binary::{check_linear_states, fit_binary, FitOutput, LinearState};
use crate::solvers::shared::held_out::HeldOutRows;
use crate::solvers::shared::params::ValidParams;
use crate::solvers::shared::passes::problem_label;

/// Fresh states for every binary problem: problem `p` uses stream `p` of `seed`.
pub fn initial_states(n_problems: usize, n_features: usize, seed: u64) -> Result<Vec<LinearState>> {
    (0..n_problems)
        .map(|p| LinearState::new(n_features, seed, p as u64))
        .collect()
}

/// Train every binary problem of `labels`, continuing `states` (one per problem),
/// on `n_threads` threads (0 = all cores). Problem `p` writes its weights to row `p`
/// of `coef` (row-major, `n_problems x n_features`).
///
/// With `held_out`, each problem is scored on its labels of those rows after
/// every pass (early stopping: each problem stops by its own score, as
/// scikit-learn's one-vs-rest `SGDClassifier` does).
#[allow(clippy::too_many_arguments)] // a fit's inputs and the held-out rows
pub fn fit_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    held_out: Option<&HeldOutRows<'_, R>>,
    params: &ValidParams,
    states: &mut [LinearState],
    coef: &mut [f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<FitOutput>> {
    check_one_vs_rest(rows, labels, states, states.len(), coef)?;
    let d = rows.n_features();
    let multi = labels.n_problems() > 1;
    let problems: Vec<_> = states.iter_mut().zip(coef.chunks_mut(d)).collect();
    for_each_problem(problems, n_threads, |p, (state, w)| {
        let task = labels.task(p)?;
        let label = problem_label(multi && params.verbose, p);
        let held = match held_out {
            Some(h) => Some(h.problem(p, d)?),
            None => None,
        };
        fit_binary(rows, &task, held, params, state, w, monitor, &label)
    })
}

/// The checks of a one-vs-rest fit: labels against the rows (their codes too when
/// the rows were checked as a whole), at least one feature, one state and one
/// coefficient row per binary problem; `states`, those to continue, refused when
/// another solver trained them (`check_linear_states`).
pub(crate) fn check_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    states: &[LinearState],
    n_states: usize,
    coef: &[f64],
) -> Result<()> {
    check_linear_states(states, "one-vs-rest")?;
    if rows.is_checked() {
        labels.check(rows.n_rows())?;
    } else {
        // Rows checked as they are read: so are their labels (`check_example`).
        labels.check_shapes(rows.n_rows())?;
    }
    let d = rows.n_features();
    if d == 0 {
        return Err(Error::InvalidInput("the data has no features".into()));
    }
    if Some(coef.len()) != labels.n_problems().checked_mul(d) {
        return Err(Error::ShapeMismatch(format!(
            "coefficient buffer of {} entries for {} problems x {d} features",
            coef.len(),
            labels.n_problems()
        )));
    }
    if n_states != labels.n_problems() {
        return Err(Error::ShapeMismatch(format!(
            "{n_states} solver states for {} binary problems",
            labels.n_problems()
        )));
    }
    Ok(())
}

/// The class code a row of decision values predicts: for one value (two classes)
/// 1 where it is positive, else 0; otherwise the class of the largest value (the
/// first of equals).
pub(crate) fn predicted_class(row: &[f64]) -> u32 {
    if row.len() == 1 {
        return u32::from(row[0] > 0.0);
    }
    let mut best = 0;
    for (c, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = c;
        }
    }
    best as u32
}

/// Decision values `X W^T + b` as a row-major `n_rows x n_outputs` matrix, computed
/// in parallel blocks of rows. `coef` is row-major `n_outputs x n_features`. Stops
/// with [`Error::Interrupted`] once `monitor` is stopped.
pub fn decision_function<R: Rows>(
    rows: &R,
    coef: &[f64],
    intercept: &[f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let d = rows.n_features();
    let k = intercept.len();
    if Some(coef.len()) != k.checked_mul(d) {
        return Err(Error::ShapeMismatch(format!(
            "coef has {} values, expected {k} x {d}",
            coef.len()
        )));
    }
    let len = rows
        .n_rows()
        .checked_mul(k)
        .ok_or_else(|| Error::OutOfMemory(format!("{} x {k} decision values", rows.n_rows())))?;
    let mut out = try_filled_vec(len, 0.0, "the decision values")?;
    if k == 0 {
        return Ok(out);
    }
    // A row costs one sparse dot product per output: blocks of 1,024 rows.
    row_blocks_of(&mut out, k, 1024, n_threads, monitor, |first, block| {
        for (r, row_out) in block.chunks_mut(k).enumerate() {
            for (c, o) in row_out.iter_mut().enumerate() {
                *o = rows.dot(first + r, &coef[c * d..(c + 1) * d]) + intercept[c];
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// [`decision_function`] of many models at once on the rows `ids` of `rows` (in
/// that order), bit for bit: `coef_t` holds their weights feature-major
/// (`coef_t[j * k + c]`, the transpose of `decision_function`'s `coef`), so each
/// row is read once for all `k` outputs ([`Rows::dot_many`]), and no row is
/// copied: what scoring a grid of models on its held-out rows wants. An index out
/// of range is an [`Error::InvalidInput`].
pub fn decision_function_many<R: Rows>(
    rows: &R,
    ids: &[usize],
    coef_t: &[f64],
    intercept: &[f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let rows = RowSubset::new(rows, ids)?;
    let d = rows.n_features();
    let k = intercept.len();
    if Some(coef_t.len()) != k.checked_mul(d) {
        return Err(Error::ShapeMismatch(format!(
            "coef has {} values, expected {d} x {k}",
            coef_t.len()
        )));
    }
    let len = rows
        .n_rows()
        .checked_mul(k)
        .ok_or_else(|| Error::OutOfMemory(format!("{} x {k} decision values", rows.n_rows())))?;
    let mut out = try_filled_vec(len, 0.0, "the decision values")?;
    if k == 0 {
        return Ok(out);
    }
    row_blocks_of(&mut out, k, 1024, n_threads, monitor, |first, block| {
        let mut lanes = vec![0.0; k * LANES];
        for (r, row_out) in block.chunks_mut(k).enumerate() {
            rows.dot_many(first + r, coef_t, &mut lanes, row_out);
            for (o, b) in row_out.iter_mut().zip(intercept) {
                *o += b;
            }
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    /// `k` models' weights, row-major, and their transpose.
    fn models(k: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let coef: Vec<f64> = (0..k * d)
            .map(|i| ((i * 7919 % 1009) as f64 - 504.0) / 97.0)
            .collect();
        let mut coef_t = vec![0.0; k * d];
        for c in 0..k {
            for j in 0..d {
                coef_t[j * k + c] = coef[c * d + j];
            }
        }
        (coef, coef_t)
    }

    /// The values `decision_function` gives the rows `ids` one by one.
    fn one_by_one<R: Rows>(rows: &R, ids: &[usize], coef: &[f64], b: &[f64]) -> Vec<f64> {
        let all = decision_function(rows, coef, b, 1, &Monitor::new()).unwrap();
        let k = b.len();
        ids.iter()
            .flat_map(|&i| all[i * k..(i + 1) * k].to_vec())
            .collect()
    }

    #[test]
    fn many_models_at_once_are_each_model_bit_for_bit() {
        let (n, d, k) = (9, 11, 5); // rows and rows' entries not multiples of the lanes
        let dense: Vec<f64> = (0..n * d)
            .map(|i| ((i * 31 % 17) as f64 - 8.0) / 3.0)
            .collect();
        let (coef, coef_t) = models(k, d);
        let b = [0.5, -1.0, 0.0, 2.0, 1e-3];
        let ids = [4, 0, 8, 4, 7];
        let rows = DenseRows::new(&dense, n, d).unwrap();
        let many = decision_function_many(&rows, &ids, &coef_t, &b, 2, &Monitor::new()).unwrap();
        assert_eq!(many, one_by_one(&rows, &ids, &coef, &b));
        // CSR rows of 0 to 8 entries, one with a repeated column.
        let mut indptr = vec![0i32];
        let (mut indices, mut data) = (Vec::new(), Vec::new());
        for r in 0..n {
            for e in 0..r {
                indices.push(((r * 3 + e * 5) % d) as i32);
                data.push((r as f64 + 1.0) / (e as f64 + 2.0));
            }
            indptr.push(indices.len() as i32);
        }
        indices[7] = indices[6];
        let csr = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
        let many = decision_function_many(&csr, &ids, &coef_t, &b, 1, &Monitor::new()).unwrap();
        assert_eq!(many, one_by_one(&csr, &ids, &coef, &b));
        let bad = decision_function_many(&csr, &[9], &coef_t, &b, 1, &Monitor::new());
        assert!(matches!(bad, Err(Error::InvalidInput(_))));
        // dot_block: DOT_BLOCK models at once, each dot's bits, on every row (0 to 8
        // entries, dense rows of 11).
        let (coef, coef_t) = models(crate::data::rows::DOT_BLOCK, d);
        for i in 0..n {
            let dense_got = rows.dot_block(i, &coef_t);
            let csr_got = csr.dot_block(i, &coef_t);
            for c in 0..crate::data::rows::DOT_BLOCK {
                let w = &coef[c * d..(c + 1) * d];
                assert_eq!(dense_got[c].to_bits(), rows.dot(i, w).to_bits());
                assert_eq!(csr_got[c].to_bits(), csr.dot(i, w).to_bits());
            }
        }
    }
}
