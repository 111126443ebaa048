//! The offset of the one-class SVM (Schölkopf, Platt, Shawe-Taylor, Smola,
//! Williamson, "Estimating the support of a high-dimensional distribution", Neural
//! Computation 2001), solved exactly for a given `w`.
//!
//! The linear solver ([`crate::solvers::linear::binary`]) trains the one-class SVM as
//! Pegasos on rows all labelled `+1` with `lambda = nu` and an unregularised bias
//! `b = 1 - rho`. Its steps move `b` by at most `max(1, nu) / (nu t)` at step `t`,
//! so after `T` steps `b` has moved `O(log T / nu)`: far too little on data away
//! from the origin, whose `rho` is large. But for a fixed `w` the objective in `rho`,
//!
//! ```text
//! f(rho) = -nu rho + 1/m sum_i c_i max(0, rho - s_i),   s_i = <w, x_i>,
//! ```
//!
//! is convex and piecewise linear with slope `-nu + 1/m sum_{s_i < rho} c_i`: it is
//! least at the weighted `nu`-quantile of the scores, the smallest `s_k` with
//! `sum_{s_i <= s_k} c_i >= nu sum_i c_i` (with `1/m sum_i c_i = 1`, unit
//! weights). So after every pass the bias is set to `1 - rho` of the iterate on a
//! sample of the rows ([`reset_bias`]), and the returned model's offset is the exact
//! quantile over all the rows ([`best_rho`]): the nu-property then holds on the
//! training rows by construction (rows strictly below `rho` weigh at most `nu`,
//! rows at or below it at least `nu`, of the total weight).

use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};

/// Rows the per-pass reset of the bias scores at most (every `stride`-th row).
pub const RESET_ROWS: usize = 8192;

/// The weighted lower `nu`-quantile of `scored` (score, weight) pairs of positive
/// weight: the smallest score whose cumulative weight reaches `nu` of the total.
/// `None` when nothing is scored.
pub fn nu_quantile(scored: &mut [(f64, f64)], nu: f64) -> Option<f64> {
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = scored.iter().map(|&(_, c)| c).sum();
    let goal = nu * total;
    let mut seen = 0.0;
    for &(s, c) in scored.iter() {
        seen += c;
        if seen >= goal {
            return Some(s);
        }
    }
    scored.last().map(|&(s, _)| s)
}

/// The exact offset `rho` of a one-class model whose scores on its training rows
/// are `scores` (weights `sample_weight`, 1 without): the weighted `nu`-quantile
/// over the rows of positive weight (`nu_quantile`). A caller that computes
/// `scores` as its predictions do gets the nu-property on the training rows bit for
/// bit (the kernel models: see `solvers::kernel::solver`). An error when
/// the lengths differ, a score is not finite or no row weighs anything.
pub fn one_class_offset(scores: &[f64], sample_weight: Option<&[f64]>, nu: f64) -> Result<f64> {
    if let Some(w) = sample_weight {
        if w.len() != scores.len() {
            return Err(Error::ShapeMismatch(format!(
                "{} scores but {} sample weights",
                scores.len(),
                w.len()
            )));
        }
    }
    if !(nu > 0.0 && nu <= 1.0) {
        return Err(Error::InvalidParameter(format!(
            "nu must be in (0, 1], got {nu}"
        )));
    }
    let mut scored = Vec::with_capacity(scores.len());
    for (i, &s) in scores.iter().enumerate() {
        let c = sample_weight.map_or(1.0, |w| w[i]);
        if !s.is_finite() {
            return Err(Error::InvalidInput(format!("score {i} is {s}")));
        }
        if c > 0.0 {
            scored.push((s, c));
        }
    }
    nu_quantile(&mut scored, nu)
        .ok_or_else(|| Error::InvalidInput("no row of positive weight to place the offset".into()))
}

/// The best offset `rho` for the weights `w` (dense, `n_features` long; scores
/// `<w, x_i>`): the `nu`-quantile of the scores of every `stride`-th row of
/// positive weight whose values are finite (rows not checked yet are checked here
/// and skipped when bad: the steps refuse them when they draw them). `None` when
/// no row is scored. The returned model's decision value is `<w, x> - rho`, its
/// intercept `-rho` exactly, so a row scoring `rho` has the decision value 0.
pub fn best_rho<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    w: &[f64],
    nu: f64,
    stride: usize,
) -> Option<f64> {
    scaled_best_rho(rows, task, (w, 1.0), nu, stride)
}

/// [`best_rho`] for the weights `scale * w` (the solver's `w = a v`, read in place).
pub(crate) fn scaled_best_rho<R: Rows>(
    rows: &R,
    task: &BinaryTask<'_>,
    (w, scale): (&[f64], f64),
    nu: f64,
    stride: usize,
) -> Option<f64> {
    let scored = strided_rho(rows.n_rows(), stride, nu, |i| {
        let c = task.weight(i);
        if c > 0.0 && rows.check_row(i).is_ok() {
            let s = scale * rows.dot(i, w);
            if s.is_finite() {
                return Ok(Some((s, c)));
            }
        }
        Ok(None)
    });
    scored.ok().flatten()
}

/// The `nu`-quantile ([`nu_quantile`]) of the `(score, weight)` pairs `score` gives
/// every `stride`-th of `n` rows (`None`: the row is left out); `None` when no row
/// is scored. What every solver's reset of the one-class offset reads.
pub(crate) fn strided_rho(
    n: usize,
    stride: usize,
    nu: f64,
    mut score: impl FnMut(usize) -> Result<Option<(f64, f64)>>,
) -> Result<Option<f64>> {
    let stride = stride.max(1);
    let mut scored = Vec::with_capacity(n.div_ceil(stride));
    for i in (0..n).step_by(stride) {
        if let Some(pair) = score(i)? {
            scored.push(pair);
        }
    }
    Ok(nu_quantile(&mut scored, nu))
}

/// The largest squared norm of the rows of `rows` of positive sample weight (0
/// when none; `solvers::linear::binary::largest_sq_norm`): the one-class SVM's
/// squared projection radius, over a part of the training set (the parts' largest
/// is the whole set's).
pub fn one_class_sq_norm<R: Rows>(rows: &R, sample_weight: Option<&[f64]>) -> Result<f64> {
    let codes = try_filled_vec(rows.n_rows(), 1u32, "the rows' codes")?;
    let task = BinaryTask::new(&codes, 1, sample_weight, 1.0, 1.0)?;
    largest_sq_norm(rows, &task)
}

/// The stride of the rows a reset of the bias scores among `n_rows`: every
/// `stride`-th row, at most [`RESET_ROWS`] of them.
pub fn reset_stride(n_rows: usize) -> usize {
    n_rows.div_ceil(RESET_ROWS).max(1)
}

/// The squared radius of the ball that holds the one-class SVM's optimum: its dual
/// makes `w` a convex combination of the rows of positive weight, so `||w|| <=
/// max_i ||x_i||` over them ([`largest_sq_norm`]). Infinite (no projection) when
/// every such row is zero. One pass, O(nnz).
pub(crate) fn one_class_sq_radius<R: Rows>(rows: &R, task: &BinaryTask<'_>) -> Result<f64> {
    Ok(one_class_radius_of(largest_sq_norm(rows, task)?))
}

/// The one-class SVM's squared projection radius from the largest squared row norm
/// over the rows of positive weight ([`largest_sq_norm`], of all the rows at once or
/// the largest of parts'): infinite when it is 0.
pub fn one_class_radius_of(largest: f64) -> f64 {
    if largest > 0.0 {
        largest
    } else {
        f64::INFINITY
    }
}

/// The largest squared norm of the rows of positive weight (0 when there are
/// none): exact for rows that repeat a column, whose entries add up; rows with a
/// value that is not finite are left out (refused when drawn). A maximum: the parts
/// of a training set give the whole set's, whatever their order.
pub fn largest_sq_norm<R: Rows>(rows: &R, task: &BinaryTask<'_>) -> Result<f64> {
    // Rows whose columns increase (every dense row, canonical CSR) are summed entry
    // by entry; a row that repeats or reorders columns through a scratch vector of
    // n_features, allocated at the first such row.
    let mut scratch: Vec<f64> = Vec::new();
    let mut largest = 0.0f64;
    for i in 0..rows.n_rows() {
        if task.weight(i) == 0.0 || rows.check_row(i).is_err() {
            continue;
        }
        let (mut sq, mut last, mut increasing) = (0.0, None, true);
        rows.for_each_entry(i, |j, x| {
            increasing &= last.is_none_or(|l| j > l);
            last = Some(j);
            sq += x * x;
        });
        if !increasing {
            if scratch.is_empty() {
                scratch = try_filled_vec(rows.n_features(), 0.0, "a row's values")?;
            }
            sq = rows.axpy_sq_delta(i, 1.0, &mut scratch);
            rows.for_each_entry(i, |j, _| scratch[j] = 0.0);
        }
        if sq.is_finite() {
            largest = largest.max(sq);
        }
    }
    Ok(largest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantile_splits_the_weight_at_nu() {
        let mut s = vec![(3.0, 1.0), (1.0, 1.0), (2.0, 1.0), (4.0, 1.0)];
        assert_eq!(nu_quantile(&mut s, 0.5), Some(2.0));
        assert_eq!(nu_quantile(&mut s, 0.25), Some(1.0));
        assert_eq!(nu_quantile(&mut s, 0.26), Some(2.0));
        assert_eq!(nu_quantile(&mut s, 1.0), Some(4.0));
        let mut weighted = vec![(1.0, 3.0), (2.0, 1.0)];
        assert_eq!(nu_quantile(&mut weighted, 0.7), Some(1.0));
        assert_eq!(nu_quantile(&mut weighted, 0.8), Some(2.0));
        assert_eq!(nu_quantile(&mut [], 0.5), None);
    }

    #[test]
    fn the_offset_skips_rows_of_no_weight_and_refuses_bad_input() {
        let s = [3.0, 1.0, 2.0, 4.0];
        assert_eq!(one_class_offset(&s, None, 0.5).unwrap(), 2.0);
        let w = [1.0, 0.0, 1.0, 1.0];
        assert_eq!(one_class_offset(&s, Some(&w), 0.5).unwrap(), 3.0);
        assert!(one_class_offset(&s, Some(&w[..2]), 0.5).is_err());
        assert!(one_class_offset(&[f64::NAN], None, 0.5).is_err());
        assert!(one_class_offset(&s, Some(&[0.0; 4]), 0.5).is_err());
        assert!(one_class_offset(&s, None, 0.0).is_err());
    }
}
