//! One-vs-rest over classes in parallel, and batched prediction.
//!
//! Class `c` trains on stream `c` of the seed (see [`crate::rng`]) and its own state,
//! so the models do not depend on how many threads run them or in which order.

use crate::monitor::Monitor;

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::parallel::{for_each_problem, row_blocks_of};
use crate::solvers::crammer_singer::CrammerSingerState;
use crate::solvers::held_out::HeldOutRows;
use crate::solvers::linear::{fit_binary, FitOutput, LinearState};
use crate::solvers::params::ValidParams;

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
    check_one_vs_rest(
        rows,
        labels,
        CrammerSingerState::is_joint(states),
        states.len(),
        coef,
    )?;
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
/// coefficient row per binary problem; `joint`: the states are the Crammer–Singer
/// solver's (refused).
pub(crate) fn check_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    joint: bool,
    n_states: usize,
    coef: &[f64],
) -> Result<()> {
    if joint {
        return Err(Error::InvalidState(
            "the solver state was trained with multi_class='crammer_singer': one-vs-rest \
             cannot continue it"
                .into(),
        ));
    }
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

/// The prefix of problem `p`'s progress lines (empty unless `show`).
pub fn problem_label(show: bool, p: usize) -> String {
    if show {
        format!("[class {p}] ")
    } else {
        String::new()
    }
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
