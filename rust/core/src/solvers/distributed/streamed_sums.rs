//! The sums over the whole training set that a [`StreamedFit`] needs, taken by the
//! caller block after block in row order: the weighted losses at zero (which set
//! the projection radius), the squared row norms a squared loss starts from, and
//! the loss of a model (the objective). Each continues the accumulators the
//! previous block returned, with the very sums the in-memory solvers take, so the
//! bits agree with an in-memory fit (Shalev-Shwartz, Singer, Srebro, Cotter,
//! "Pegasos", Math. Programming 2011, sections 2 and 4 for the radius and the
//! objective).

use crate::data::examples::Examples;
use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::solvers::distributed::streamed::StreamedFit;
use crate::solvers::linear::binary::{
    first_step_from_sums, first_step_sums, loss_sum, zero_loss_sum, FirstStepSums,
};
use crate::solvers::linear::crammer_singer::{loss_sum_of, weight_sum};
use crate::solvers::shared::loss::{Loss, LossFunction};
use crate::solvers::shared::params::ValidParams;

/// The Crammer–Singer problem's classes, or an error naming `what` needs them.
fn joint_labels<'e, 'a>(
    examples: &'e Examples<'a>,
    what: &str,
) -> Result<&'e crate::data::labels::Labels<'a>> {
    match examples {
        Examples::Classes(labels) => Ok(labels),
        Examples::Regression(_) => Err(Error::InvalidInput(format!(
            "the Crammer-Singer {what} needs class codes"
        ))),
    }
}

/// One accumulator per problem, or [`Error::InvalidInput`].
fn check_accumulators(n: usize, n_problems: usize) -> Result<()> {
    if n == n_problems {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "{n} accumulators for {n_problems} problems: one accumulator per problem"
        )))
    }
}

impl StreamedFit {
    /// Per problem, `acc[p] + sum_i c_i l(0, y_i)` over `examples` in order (the
    /// examples are checked first). With `joint`, the one sum of the Crammer–Singer
    /// problem, `acc[0] + sum_i c_i`.
    pub fn zero_loss_sums(
        examples: &Examples<'_>,
        loss: &LossFunction,
        acc: &[f64],
        joint: bool,
    ) -> Result<Vec<f64>> {
        examples.check(examples.n_examples())?;
        if joint {
            let labels = joint_labels(examples, "sum")?;
            check_accumulators(acc.len(), 1)?;
            return Ok(vec![weight_sum(labels, acc[0])?]);
        }
        check_accumulators(acc.len(), examples.n_problems())?;
        acc.iter()
            .enumerate()
            .map(|(p, &a)| Ok(zero_loss_sum(&examples.task(p)?, loss, a)))
            .collect()
    }

    /// Per problem `p`, `acc[p] + sum_i c_i l(<coef[p], x_i> + intercept[p], y_i)`
    /// over `rows` in order (`coef` row-major, one row per problem). With `joint`,
    /// the one Crammer–Singer loss sum of the model `coef` (a row per class) and
    /// `intercept`.
    pub fn loss_sums<R: Rows>(
        rows: &R,
        examples: &Examples<'_>,
        loss: &LossFunction,
        coef: &[f64],
        intercept: &[f64],
        acc: &[f64],
        joint: bool,
    ) -> Result<Vec<f64>> {
        let k = if joint { 1 } else { examples.n_problems() };
        if acc.len() != k || (!joint && intercept.len() != k) {
            return Err(Error::InvalidInput(
                "one accumulator and one intercept per problem".into(),
            ));
        }
        examples.check(rows.n_rows())?;
        if joint {
            let labels = joint_labels(examples, "loss")?;
            return Ok(vec![loss_sum_of(rows, labels, coef, intercept, acc[0])?]);
        }
        let d = rows.n_features();
        if coef.len() != k * d {
            return Err(Error::ShapeMismatch(format!(
                "coef has {} values for {k} problems x {d} features",
                coef.len()
            )));
        }
        (0..k)
            .map(|p| {
                let task = examples.task(p)?;
                let w = &coef[p * d..(p + 1) * d];
                Ok(loss_sum(rows, &task, loss, w, intercept[p], acc[p]))
            })
            .collect()
    }

    /// Per problem, the sums a fresh fit of a loss that starts late
    /// ([`LossFunction::starts_late`]) starts from, continued from `acc[p]` over
    /// `rows` in order; chained over the blocks from [`FirstStepSums::default`],
    /// [`StreamedFit::first_steps`] turns them into first steps. Rows that are not
    /// checked as a whole ([`Rows::is_checked`]) have only their labels' shapes
    /// checked here (the solver checks each row it reads).
    pub fn first_step_sums<R: Rows>(
        rows: &R,
        examples: &Examples<'_>,
        params: &ValidParams,
        acc: &[FirstStepSums],
    ) -> Result<Vec<FirstStepSums>> {
        check_accumulators(acc.len(), examples.n_problems())?;
        if rows.is_checked() {
            examples.check(rows.n_rows())?;
        } else {
            examples.check_shapes(rows.n_rows())?;
        }
        acc.iter()
            .enumerate()
            .map(|(p, &a)| Ok(first_step_sums(rows, &examples.task(p)?, params, a)))
            .collect()
    }

    /// Per problem, the step a fresh run of `params` starts at, from its
    /// [`StreamedFit::first_step_sums`] over all of its rows (1 for a loss that does
    /// not start late).
    pub fn first_steps(params: &ValidParams, sums: &[FirstStepSums]) -> Vec<u64> {
        sums.iter()
            .map(|&s| first_step_from_sums(params, s))
            .collect()
    }
}

impl LossFunction {
    /// Whether a fresh run of this loss starts after step 1 (the squared losses,
    /// whose slope is unbounded), so that a streamed fit from fresh states needs
    /// [`StreamedFit::first_step_sums`].
    pub fn starts_late(&self) -> bool {
        self.curvature().is_some()
    }
}
