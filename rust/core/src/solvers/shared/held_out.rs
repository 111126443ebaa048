//! Early stopping: the score of a model on rows held out of its fit.
//!
//! scikit-learn's `SGDClassifier(early_stopping=True)` sets aside a fraction of
//! the training rows, scores the model on them after every pass and stops once
//! the score has not improved for `n_iter_no_change` passes (the rule is
//! [`crate::solvers::shared::passes`]'). Pegasos' steps never read the held-out rows; the
//! solvers score them here, on each binary problem's own labels:
//!
//! ```text
//! classes:       sum_i s_i [sign f(x_i) = y_i] / sum_i s_i      (f > 0: positive)
//! real targets:  R^2 = 1 - sum_i s_i (y_i - f(x_i))^2 / sum_i s_i (y_i - ybar)^2
//! ```
//!
//! with `s_i` the held-out row's sample weight (not its class weight: the score
//! is the estimator's `score` on the held-out rows, as scikit-learn computes it)
//! and `ybar` their weighted mean. The held-out rows are the last rows of the
//! caller's matrix ([`crate::data::rows::DenseRows::split_rows`]), so the training
//! rows are a view of the same storage and their fit is, bit for bit, the fit on
//! them alone.

use crate::data::labels::{Labels, RowTargets};
use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};

/// Which binary problem of a fit scores the held-out rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldOutProblem {
    /// One-vs-rest problem `p` (for two classes, the one problem; a regression).
    Problem(usize),
    /// The one-vs-one pair of classes `(i, j)`, `i` labelled `+1`.
    Pair(u32, u32),
}

/// Rows held out of a binary fit (or a regression) and their labels, scored after
/// every pass.
#[derive(Clone, Copy, Debug)]
pub struct HeldOut<'a, R> {
    /// The held-out rows.
    pub rows: &'a R,
    /// Their labels for this problem (class weights 1: see the module
    /// documentation), or their targets.
    pub task: BinaryTask<'a>,
}

impl<'a, R: Rows> HeldOut<'a, R> {
    /// The held-out rows `rows` labelled by `task`: an error unless they have the
    /// same number of rows and `n_features` columns, or when there are none; every
    /// row checked (a view checked as it is read is checked here, once).
    pub fn new(rows: &'a R, task: BinaryTask<'a>, n_features: usize) -> Result<Self> {
        if rows.n_rows() == 0 {
            return Err(Error::InvalidInput(
                "early stopping needs at least one held-out row".into(),
            ));
        }
        if rows.n_rows() != task.len() || rows.n_features() != n_features {
            return Err(Error::ShapeMismatch(format!(
                "{} held-out rows of {} features with {} labels, for a fit of {n_features} \
                 features",
                rows.n_rows(),
                rows.n_features(),
                task.len()
            )));
        }
        for i in 0..rows.n_rows() {
            rows.check_row(i)?;
            task.check_example(i)?;
        }
        Ok(Self { rows, task })
    }

    /// The score of the linear model `(w, b)` on the held-out rows.
    pub fn linear_score(&self, w: &[f64], b: f64) -> f64 {
        score(&self.task, |i| self.rows.dot(i, w) + b)
    }
}

/// What the held-out rows of a fit are labelled with: class codes (of the fit's
/// classes, as the training rows' [`Labels`]) or real targets.
pub type HeldOutTargets<'a> = RowTargets<'a>;

/// The held-out rows of a fit of one or several binary problems (one-vs-rest),
/// their targets and sample weights: what a front's fit takes for early
/// stopping. Each problem scores them on its own labels ([`HeldOutRows::problem`]).
#[derive(Clone, Debug)]
pub struct HeldOutRows<'a, R> {
    rows: &'a R,
    targets: HeldOutTargets<'a>,
    sample_weight: Option<&'a [f64]>,
    /// Class weights 1 (the score weighs rows by their sample weight only).
    ones: Vec<f64>,
}

impl<'a, R: Rows> HeldOutRows<'a, R> {
    /// The held-out `rows` with their targets and sample weights (1 without).
    pub fn new(rows: &'a R, targets: HeldOutTargets<'a>, sample_weight: Option<&'a [f64]>) -> Self {
        let ones = match targets {
            HeldOutTargets::Classes { n_classes, .. } => vec![1.0; n_classes],
            HeldOutTargets::Real(_) => Vec::new(),
        };
        Self {
            rows,
            targets,
            sample_weight,
            ones,
        }
    }

    /// The held-out rows.
    pub fn rows(&self) -> &'a R {
        self.rows
    }

    /// The held-out rows a binary problem of a kernel fit scores and their labels
    /// (see `solvers::kernel::held_out`): every row for a one-vs-rest
    /// problem (on its labels) or a regression, the rows of the two classes for a
    /// one-vs-one pair (the first `+1`); the weights are the sample weights.
    pub fn examples(&self, problem: HeldOutProblem) -> Result<ProblemExamples> {
        let n = self.rows.n_rows();
        let weight = |i: usize| self.sample_weight.map_or(1.0, |w| w[i]);
        let (index, labels): (Vec<usize>, Vec<(f64, f64)>) = match (self.targets, problem) {
            (HeldOutTargets::Classes { codes, .. }, HeldOutProblem::Pair(i, j)) => codes
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == i || c == j)
                .map(|(r, &c)| (r, (if c == i { 1.0 } else { -1.0 }, weight(r))))
                .unzip(),
            (_, HeldOutProblem::Problem(p)) => {
                let task = self.problem(p, self.rows.n_features())?.task;
                (0..n).map(|r| (r, (task.y(r), task.weight(r)))).unzip()
            }
            (HeldOutTargets::Real(_), HeldOutProblem::Pair(..)) => {
                return Err(Error::InvalidParameter(
                    "a regression has no pairs of classes".into(),
                ))
            }
        };
        Ok(ProblemExamples {
            index,
            labels,
            regression: matches!(self.targets, HeldOutTargets::Real(_)),
        })
    }

    /// The held-out rows and labels of binary problem `p` (as [`Labels::task`]
    /// numbers them; the regression is problem 0), checked against a fit of
    /// `n_features` features.
    pub fn problem(&self, p: usize, n_features: usize) -> Result<HeldOut<'_, R>> {
        let task = match self.targets {
            HeldOutTargets::Classes { codes, n_classes } => Labels {
                codes,
                n_classes,
                sample_weight: self.sample_weight,
                class_weight: &self.ones,
            }
            .task(p)?,
            HeldOutTargets::Real(targets) => {
                let task = BinaryTask::regression(targets, self.sample_weight)?;
                task.check_targets()?;
                task
            }
        };
        HeldOut::new(self.rows, task, n_features)
    }
}

/// The held-out rows one binary problem of a kernel fit scores
/// ([`HeldOutRows::examples`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemExamples {
    /// The held-out rows scored (indices among the held-out rows).
    pub index: Vec<usize>,
    /// The label (`+1`/`-1`, or the target) and the weight of each.
    pub labels: Vec<(f64, f64)>,
    /// Whether the labels are real targets (scored by R^2).
    pub regression: bool,
}

/// The labels of a fit whose last `n_held_out` rows are held out: those of the
/// training rows, and the held-out rows' class codes and sample weights (the
/// caller splits the rows themselves with `split_rows`).
pub fn split_labels<'a>(
    labels: &Labels<'a>,
    n_held_out: usize,
) -> Result<(Labels<'a>, HeldOutTargets<'a>, Option<&'a [f64]>)> {
    let n = labels.codes.len();
    let n_train = training_part(n, n_held_out)?;
    let (codes, held_codes) = labels.codes.split_at(n_train);
    let (weights, held_weights) = split_weights(labels.sample_weight, n, n_train)?;
    let train = Labels {
        codes,
        sample_weight: weights,
        ..*labels
    };
    let held = HeldOutTargets::Classes {
        codes: held_codes,
        n_classes: labels.n_classes,
    };
    Ok((train, held, held_weights))
}

/// The real targets and sample weights of a fit whose last `n_held_out` rows are
/// held out: those of the training rows, and the held-out rows' targets and
/// weights (see [`split_labels`]).
pub fn split_targets<'a>(
    targets: &'a [f64],
    sample_weight: Option<&'a [f64]>,
    n_held_out: usize,
) -> Result<TargetsAndWeights<'a>> {
    let n = targets.len();
    let n_train = training_part(n, n_held_out)?;
    let (train, held) = targets.split_at(n_train);
    let (weights, held_weights) = split_weights(sample_weight, n, n_train)?;
    Ok(((train, weights), (HeldOutTargets::Real(held), held_weights)))
}

/// What [`split_targets`] gives: the training rows' targets and weights, the
/// held-out rows' targets and weights.
pub type TargetsAndWeights<'a> = (
    (&'a [f64], Option<&'a [f64]>),
    (HeldOutTargets<'a>, Option<&'a [f64]>),
);

/// The training rows of `n` labelled rows whose last `n_held_out` are held out.
fn training_part(n: usize, n_held_out: usize) -> Result<usize> {
    n.checked_sub(n_held_out).ok_or_else(|| {
        Error::InvalidInput(format!("{n_held_out} held-out rows of {n} labelled rows"))
    })
}

/// Sample weights of `n` rows (if any), split after the first `n_train`.
#[allow(clippy::type_complexity)] // the two halves of one optional slice
fn split_weights(
    sample_weight: Option<&[f64]>,
    n: usize,
    n_train: usize,
) -> Result<(Option<&[f64]>, Option<&[f64]>)> {
    match sample_weight {
        Some(sw) if sw.len() == n => {
            let (a, b) = sw.split_at(n_train);
            Ok((Some(a), Some(b)))
        }
        Some(sw) => Err(Error::ShapeMismatch(format!(
            "sample_weight has {} entries for {n} samples",
            sw.len()
        ))),
        None => Ok((None, None)),
    }
}

/// The score of the decision values `decision(i)` of `task`'s rows (see the
/// module documentation): weighted accuracy for classes, R^2 for real targets
/// (1 when the targets are constant and predicted exactly, 0 when constant and
/// not, as scikit-learn's `r2_score`).
pub fn score(task: &BinaryTask<'_>, decision: impl Fn(usize) -> f64) -> f64 {
    let examples = (0..task.len()).map(|i| (task.y(i), task.weight(i), decision(i)));
    score_examples(task.is_regression(), examples)
}

/// [`score`] of examples given as `(label or target, weight, decision value)`:
/// labels `+1`/`-1` unless `regression`.
pub fn score_examples(regression: bool, examples: impl Iterator<Item = (f64, f64, f64)>) -> f64 {
    if !regression {
        let (mut right, mut total) = (0.0, 0.0);
        for (y, s, f) in examples {
            total += s;
            if (f > 0.0) == (y > 0.0) {
                right += s;
            }
        }
        return if total > 0.0 { right / total } else { 0.0 };
    }
    let examples: Vec<(f64, f64, f64)> = examples.collect();
    let (mut sum_w, mut sum_wy) = (0.0, 0.0);
    for &(y, s, _) in &examples {
        sum_w += s;
        sum_wy += s * y;
    }
    let mean = if sum_w > 0.0 { sum_wy / sum_w } else { 0.0 };
    let (mut residual, mut spread) = (0.0, 0.0);
    for &(y, s, f) in &examples {
        residual += s * (y - f) * (y - f);
        spread += s * (y - mean) * (y - mean);
    }
    if spread > 0.0 {
        1.0 - residual / spread
    } else if residual == 0.0 {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    /// A one-vs-one pair scores the held-out rows of its two classes (the first
    /// `+1`), a one-vs-rest problem all of them on its labels; weights are the
    /// sample weights, never the class weights.
    #[test]
    fn each_problem_scores_its_own_held_out_rows() {
        let x = [0.0; 10];
        let rows = DenseRows::new(&x, 5, 2).unwrap();
        let codes = [2, 0, 1, 2, 0];
        let sw = [1.0, 2.0, 3.0, 4.0, 5.0];
        let classes = HeldOutTargets::Classes {
            codes: &codes,
            n_classes: 3,
        };
        let held = HeldOutRows::new(&rows, classes, Some(&sw));
        let pair = held.examples(HeldOutProblem::Pair(0, 2)).unwrap();
        assert_eq!(pair.index, [0, 1, 3, 4]);
        let labels = [(-1.0, 1.0), (1.0, 2.0), (-1.0, 4.0), (1.0, 5.0)];
        assert_eq!(pair.labels, labels);
        let one = held.examples(HeldOutProblem::Problem(1)).unwrap();
        assert_eq!(one.index, [0, 1, 2, 3, 4]);
        let labels = [
            (-1.0, 1.0),
            (-1.0, 2.0),
            (1.0, 3.0),
            (-1.0, 4.0),
            (-1.0, 5.0),
        ];
        assert_eq!(one.labels, labels);
        assert!(!one.regression);
        let y = [0.5, 1.0, 2.0, 3.0, 4.0];
        let real = HeldOutRows::new(&rows, HeldOutTargets::Real(&y), None);
        assert!(real.examples(HeldOutProblem::Pair(0, 1)).is_err());
        let r = real.examples(HeldOutProblem::Problem(0)).unwrap();
        assert!(r.regression && r.labels[2] == (2.0, 1.0));
    }

    /// A CSR matrix split after row `k`: both views read their own rows (the
    /// rest's offsets point into the whole data) and count their own entries.
    #[test]
    fn csr_rows_split_into_two_views() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0];
        let indices = [0_i32, 2, 1, 0, 2];
        let indptr = [0_i32, 2, 3, 3, 5];
        let csr = CsrRows::checked_when_read(&data, &indices, &indptr, 4, 3).unwrap();
        let (head, tail) = csr.split_rows(2).unwrap();
        assert_eq!((head.n_rows(), tail.n_rows()), (2, 2));
        assert_eq!((head.n_stored(), tail.n_stored()), (3, 2));
        let w = [1.0, 10.0, 100.0];
        for i in 0..2 {
            tail.check_row(i).unwrap();
            assert_eq!(tail.dot(i, &w), csr.dot(i + 2, &w));
            assert_eq!(head.dot(i, &w), csr.dot(i, &w));
        }
        assert!(csr.split_rows(5).is_err());
        let dense = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let rows = DenseRows::new(&dense, 3, 2).unwrap();
        let (a, b) = rows.split_rows(1).unwrap();
        assert_eq!(
            (a.n_rows(), b.n_rows(), b.dot(1, &[1.0, 1.0])),
            (1, 2, 11.0)
        );
    }

    /// Accuracy weighs rows by the task's weights (a held-out task has class
    /// weights 1: its sample weights); R^2 is scikit-learn's, constant targets
    /// included.
    #[test]
    fn scores_are_the_estimators_scores() {
        let codes = [1, 0, 1, 1];
        let sw = [1.0, 2.0, 3.0, 4.0];
        let unit = BinaryTask::new(&codes, 1, Some(&sw), 1.0, 1.0).unwrap();
        let f = [0.5, -1.0, -0.2, 0.0];
        // Right: rows 0 and 1 (weights 1 + 2) of 10; a decision of 0 is negative.
        assert_eq!(score(&unit, |i| f[i]), 0.3);

        let y = [1.0, 2.0, 4.0];
        let task = BinaryTask::regression(&y, None).unwrap();
        let pred = [1.5, 2.0, 3.0];
        let mean: f64 = 7.0 / 3.0;
        let tot: f64 = y.iter().map(|v| (v - mean) * (v - mean)).sum();
        let expected = 1.0 - (0.25 + 0.0 + 1.0) / tot;
        assert!((score(&task, |i| pred[i]) - expected).abs() < 1e-15);
        let flat = [2.0, 2.0];
        let task = BinaryTask::regression(&flat, None).unwrap();
        assert_eq!(score(&task, |_| 2.0), 1.0);
        assert_eq!(score(&task, |_| 1.0), 0.0);
    }

    /// The held-out rows must match their labels and the fit's features, and
    /// there must be some.
    #[test]
    fn held_out_rows_are_checked() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let rows = DenseRows::new(&x, 2, 2).unwrap();
        let codes = [0, 1];
        let task = BinaryTask::new(&codes, 1, None, 1.0, 1.0).unwrap();
        assert!(HeldOut::new(&rows, task, 2).is_ok());
        assert!(HeldOut::new(&rows, task, 3).is_err());
        let (none, _) = rows.split_rows(0).unwrap();
        assert!(HeldOut::new(&none, task, 2).is_err());
        let held = HeldOut::new(&rows, task, 2).unwrap();
        // f = x . (1, -1) + 0.5: -0.5 (row 0, class 0: right), -0.5 (class 1: wrong).
        assert_eq!(held.linear_score(&[1.0, -1.0], 0.5), 0.5);
    }
}
