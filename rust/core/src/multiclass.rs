//! One-vs-rest over classes in parallel, and batched prediction.
//!
//! Class `c` trains on stream `c` of the seed (see [`crate::rng`]) and its own state,
//! so the models do not depend on how many threads run them or in which order.

use crate::monitor::Monitor;

use crate::data::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::linear::{fit_binary, FitOutput, LinearState};
use crate::parallel::{for_each_problem, row_blocks_of};
use crate::params::ValidParams;
use crate::task::BinaryTask;

/// Labels shared by all binary sub-problems.
#[derive(Clone, Copy, Debug)]
pub struct Labels<'a> {
    /// Class code of each example, in `[0, n_classes)`.
    pub codes: &'a [u32],
    /// Number of classes (>= 2).
    pub n_classes: usize,
    /// Optional per-example weights.
    pub sample_weight: Option<&'a [f64]>,
    /// Per-class weights (`n_classes` entries).
    pub class_weight: &'a [f64],
}

impl Labels<'_> {
    /// Number of binary problems: 1 for two classes, `n_classes` otherwise.
    pub fn n_problems(&self) -> usize {
        if self.n_classes == 2 {
            1
        } else {
            self.n_classes
        }
    }

    /// Check the labels against `n_rows` examples: at least two classes, one code
    /// per row, each in range, one class weight per class.
    pub fn check(&self, n_rows: usize) -> Result<()> {
        if self.n_classes < 2 {
            return Err(Error::InvalidInput(format!(
                "the data must contain at least 2 classes, got {}",
                self.n_classes
            )));
        }
        if self.codes.len() != n_rows {
            return Err(Error::ShapeMismatch(format!(
                "X has {n_rows} rows but y has {} labels",
                self.codes.len()
            )));
        }
        if self.class_weight.len() != self.n_classes {
            return Err(Error::ShapeMismatch(format!(
                "{} class weights for {} classes",
                self.class_weight.len(),
                self.n_classes
            )));
        }
        if let Some(&c) = self.codes.iter().find(|&&c| c as usize >= self.n_classes) {
            return Err(Error::InvalidInput(format!(
                "class code {c} is out of range for {} classes",
                self.n_classes
            )));
        }
        Ok(())
    }

    /// Binary task `p`: for two classes, class 1 against class 0 (weights
    /// `class_weight[1]`, `class_weight[0]`); otherwise class `p` against the rest
    /// (weights `class_weight[p]` and 1, as LIBLINEAR and scikit-learn do).
    pub fn task(&self, p: usize) -> Result<BinaryTask<'_>> {
        if self.n_classes == 2 {
            BinaryTask::new(
                self.codes,
                1,
                self.sample_weight,
                self.class_weight[1],
                self.class_weight[0],
            )
        } else {
            BinaryTask::new(
                self.codes,
                p as u32,
                self.sample_weight,
                self.class_weight[p],
                1.0,
            )
        }
    }
}

/// Fresh states for every binary problem: problem `p` uses stream `p` of `seed`.
pub fn initial_states(n_problems: usize, n_features: usize, seed: u64) -> Result<Vec<LinearState>> {
    (0..n_problems)
        .map(|p| LinearState::new(n_features, seed, p as u64))
        .collect()
}

/// Train every binary problem of `labels`, continuing `states` (one per problem),
/// on `n_threads` threads (0 = all cores). Problem `p` writes its weights to row `p`
/// of `coef` (row-major, `n_problems x n_features`).
pub fn fit_one_vs_rest<R: Rows>(
    rows: &R,
    labels: &Labels<'_>,
    params: &ValidParams,
    states: &mut [LinearState],
    coef: &mut [f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<FitOutput>> {
    labels.check(rows.n_rows())?;
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
    if states.len() != labels.n_problems() {
        return Err(Error::ShapeMismatch(format!(
            "{} solver states for {} binary problems",
            states.len(),
            labels.n_problems()
        )));
    }
    let multi = labels.n_problems() > 1;
    let problems: Vec<_> = states.iter_mut().zip(coef.chunks_mut(d)).collect();
    for_each_problem(problems, n_threads, |p, (state, w)| {
        let task = labels.task(p)?;
        let label = problem_label(multi && params.verbose, p);
        fit_binary(rows, &task, params, state, w, monitor, &label)
    })
}

/// The prefix of problem `p`'s progress lines (empty unless `show`).
pub fn problem_label(show: bool, p: usize) -> String {
    if show {
        format!("[class {p}] ")
    } else {
        String::new()
    }
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
