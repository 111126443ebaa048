//! Early stopping of kernel Pegasos: the held-out rows scored through the support
//! vectors after every pass.
//!
//! A binary kernel model is `f(x) = sum_s dual_coef[s] K(x_{support[s]}, x) + b`
//! ([`BinaryKernelModel`], the model the fit would return now: the average of the
//! iterates once it has begun). After each pass the solver asks its problem's
//! [`HeldOutScore`] for the score of that model on the held-out rows of the
//! problem ([`crate::solvers::shared::held_out`]: accuracy on the problem's labels, R^2 for
//! a regression): one kernel value per held-out row and support vector, the same
//! values `decision_function` reads. A one-vs-rest problem scores every held-out
//! row; a one-vs-one pair the held-out rows of its two classes (the first class
//! `+1`, as it trains), its support vectors numbered among the pair's training
//! rows and mapped back to the training set's.

use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::kernels::function::{Kernel, KernelRows, Targets};
use crate::solvers::kernel::solver::BinaryKernelModel;
use crate::solvers::shared::held_out::{
    score_examples, HeldOutProblem, HeldOutRows, ProblemExamples,
};

/// The score of a binary kernel model on a problem's held-out rows (higher is
/// better).
pub trait HeldOutScore {
    /// The score of `model`, whose support vectors are numbered among the
    /// problem's training rows.
    fn score(&self, model: &BinaryKernelModel) -> Result<f64>;
}

/// What gives each binary problem of a kernel fit its [`HeldOutScore`].
pub trait HeldOutSource: Sync {
    /// The scorer of `problem`, whose training row `s` is row `map[s]` of the
    /// training set (`None`: the training set itself).
    fn scorer<'s>(
        &'s self,
        problem: HeldOutProblem,
        map: Option<&'s [u32]>,
    ) -> Result<Box<dyn HeldOutScore + 's>>;
}

/// The scorer of `problem` (its training row `s` row `map[s]` of the training set;
/// `None`: the training set itself) from `held_out`; `None` without held-out rows.
pub(crate) fn scorer_of<'s>(
    held_out: Option<&'s dyn HeldOutSource>,
    problem: HeldOutProblem,
    map: Option<&'s [u32]>,
) -> Result<Option<Box<dyn HeldOutScore + 's>>> {
    held_out.map(|h| h.scorer(problem, map)).transpose()
}

/// The held-out rows of a kernel fit on data rows, with the kernel prepared on
/// the training rows (the support vectors are among them).
pub struct KernelHeldOut<'a, R> {
    prep: KernelRows<'a, R>,
    held: &'a HeldOutRows<'a, R>,
}

impl<'a, R: Rows> KernelHeldOut<'a, R> {
    /// The held-out rows `held` of a fit of `kernel` on the training rows `train`;
    /// an error unless they have the same features.
    pub fn new(kernel: Kernel, train: &'a R, held: &'a HeldOutRows<'a, R>) -> Result<Self> {
        if held.rows().n_features() != train.n_features() {
            return Err(Error::ShapeMismatch(format!(
                "{} features in the held-out rows, {} in the training rows",
                held.rows().n_features(),
                train.n_features()
            )));
        }
        Ok(Self {
            prep: KernelRows::new(kernel, train)?,
            held,
        })
    }
}

impl<R: Rows> HeldOutSource for KernelHeldOut<'_, R> {
    fn scorer<'s>(
        &'s self,
        problem: HeldOutProblem,
        map: Option<&'s [u32]>,
    ) -> Result<Box<dyn HeldOutScore + 's>> {
        Ok(Box::new(Scorer {
            source: self,
            examples: self.held.examples(problem)?,
            map,
        }))
    }
}

/// One problem's held-out rows and labels, scored through the kernel.
struct Scorer<'s, R> {
    source: &'s KernelHeldOut<'s, R>,
    examples: ProblemExamples,
    map: Option<&'s [u32]>,
}

impl<R: Rows> HeldOutScore for Scorer<'_, R> {
    fn score(&self, model: &BinaryKernelModel) -> Result<f64> {
        let (prep, rows) = (&self.source.prep, self.source.held.rows());
        let support = model
            .support
            .iter()
            .map(|&s| match self.map {
                Some(m) => m.get(s).copied().ok_or_else(|| {
                    Error::InvalidState(format!("support vector {s} outside its problem"))
                }),
                None => {
                    u32::try_from(s).map_err(|_| Error::InvalidState(format!("support vector {s}")))
                }
            })
            .collect::<Result<Vec<u32>>>()?;
        let mut q = prep.query();
        let mut values = vec![0.0; support.len()];
        let mut decision = Vec::with_capacity(self.examples.index.len());
        for &r in &self.examples.index {
            prep.load(&mut q, rows, r)?;
            prep.eval_into(&q, Targets::List(&support), &mut values);
            let sum: f64 = model
                .dual_coef
                .iter()
                .zip(&values)
                .map(|(c, v)| c * v)
                .sum();
            decision.push(sum + model.intercept);
        }
        let examples = self.examples.labels.iter().zip(&decision);
        Ok(score_examples(
            self.examples.regression,
            examples.map(|(&(y, w), &f)| (y, w, f)),
        ))
    }
}
