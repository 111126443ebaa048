//! Budgeted kernel Pegasos with the drawn rows supplied by the caller: the client
//! side of a kernel fit whose rows live elsewhere (`pegasos_rs.dask`'s exact mode).
//!
//! The update rule is [`crate::solvers::kernel::budget`]'s (Wang, Crammer, Vucetic,
//! JMLR 13, 2012, on the steps of Pegasos' kernel form, Shalev-Shwartz, Singer,
//! Srebro, Cotter, Math. Programming 2011): step `t` reads only its drawn rows and
//! the budget's at most `B` points, and the draws do not depend on the model. So a
//! [`StreamedBudgetFit`] holds the budgeted states (`O(B d)` a problem) and the
//! pass plans, nothing of size `m`: it draws the examples of the next steps from the
//! number of rows ([`StreamedBudgetFit::draw`]), the caller fetches those rows, and
//! [`StreamedBudgetFit::run`] takes the in-memory fit's steps on them. A point made
//! from a drawn row keeps the row's training index (its key), so a row drawn again
//! adds to its own point as in memory: the model is the in-memory fit's, bit for bit.
//!
//! The problems are those of one-vs-rest classification (one budget a problem,
//! problem `p` from stream `p` of the seed, as [`fit_budgeted_one_vs_rest`]) or the
//! one problem of a regression ([`fit_budgeted_regression`]). Sampling is uniform,
//! shuffled or a visiting order; balanced sampling (which needs the rows of each
//! class) and the one-class SVM (whose bias resets read every row) are refused.
//!
//! [`fit_budgeted_one_vs_rest`]: crate::solvers::kernel::budget::fit_budgeted_one_vs_rest
//! [`fit_budgeted_regression`]: crate::solvers::kernel::budget::fit_budgeted_regression

use std::borrow::Cow;

use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::kernels::function::Kernel;
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::distributed::streamed::{
    check_counts, examples_of, next_steps, ClassSummary, Targets,
};
use crate::solvers::kernel::budget::{
    begin_budgeted, check_budgeted, join, run_budgeted_drawn, BudgetFitOutput, BudgetState,
    BudgetSubject, BudgetedModels, Maintenance,
};
use crate::solvers::shared::params::{Sampling, ValidParams};
use crate::solvers::shared::passes::problem_label;
use crate::solvers::shared::passes::PassPlan;
use crate::solvers::shared::sampler::{Drawn, KeyDraws};

/// One budgeted binary problem: its state, pass plan and report.
struct Problem {
    state: BudgetState,
    plan: PassPlan,
    out: BudgetFitOutput,
    /// Whether the current pass runs it.
    active: bool,
}

/// A budgeted kernel fit whose rows the caller supplies (see the module
/// documentation).
pub struct StreamedBudgetFit {
    params: ValidParams,
    settings: (Kernel, usize, Maintenance),
    classes: Option<ClassSummary>,
    n_rows: usize,
    keys: KeyDraws<'static>,
    problems: Vec<Problem>,
}

impl StreamedBudgetFit {
    /// A fresh fit of `params` on `n_rows` rows of `n_features` features with at
    /// most `budget` points a problem, kept by `maintenance`: the classes' weights
    /// for a classification (one-vs-rest; one problem for two classes), `None` for
    /// a regression.
    pub fn new(
        params: ValidParams,
        (kernel, budget, maintenance): (Kernel, usize, Maintenance),
        n_rows: usize,
        n_features: usize,
        classes: Option<ClassSummary>,
    ) -> Result<Self> {
        let kernel = check_budgeted(kernel, budget, maintenance, &params)?;
        if params.sampling == Sampling::Balanced {
            return Err(Error::InvalidParameter(
                "balanced sampling is not available for a streamed budgeted fit (it \
                 draws from each class's rows, which the client does not hold); use \
                 sampling='uniform' or 'shuffle'"
                    .into(),
            ));
        }
        if params.one_class {
            return Err(Error::InvalidParameter(
                "the one-class SVM has no streamed budgeted fit: its bias resets score \
                 rows of the whole training set during the fit"
                    .into(),
            ));
        }
        let n_problems = match &classes {
            None => 1,
            Some(c) if c.class_weight.len() < 2 => {
                return Err(Error::InvalidInput(format!(
                    "a classification needs at least 2 classes, got {}",
                    c.class_weight.len()
                )))
            }
            Some(c) if c.class_weight.len() == 2 => 1,
            Some(c) => c.class_weight.len(),
        };
        let keys = KeyDraws::new(Cow::Owned(params.sampling.clone()), n_rows, 0)?;
        let problems = (0..n_problems)
            .map(|p| {
                let mut state = BudgetState::new(n_features, params.seed, p as u64);
                let per_pass = begin_budgeted(&mut state, &params, n_rows, maintenance);
                Problem {
                    state,
                    plan: PassPlan::new(per_pass, params.max_iter),
                    out: BudgetFitOutput::default(),
                    active: false,
                }
            })
            .collect();
        Ok(Self {
            params,
            settings: (kernel, budget, maintenance),
            classes,
            n_rows,
            keys,
            problems,
        })
    }

    /// Number of problems drawn separately.
    pub fn n_problems(&self) -> usize {
        self.problems.len()
    }

    /// Begin the next pass of every problem still running: the number of steps of
    /// each (0 for problems that are done).
    pub fn next_pass(&mut self) -> Vec<u64> {
        self.problems
            .iter_mut()
            .map(|p| next_steps(&mut p.plan, &mut p.active))
            .collect()
    }

    /// Draw the next `counts[p]` examples of each problem `p`: training row
    /// indices, as the in-memory fit draws them.
    pub fn draw(&mut self, counts: &[usize]) -> Result<Vec<Vec<usize>>> {
        check_counts(counts, self.n_problems())?;
        let keys = &self.keys;
        self.problems
            .iter_mut()
            .zip(counts)
            .map(|(p, &count)| {
                let mut out = Vec::new();
                out.try_reserve_exact(count)
                    .map_err(|_| Error::OutOfMemory(format!("{count} draws")))?;
                // Without balanced sampling (refused by `new`) every draw is a row.
                out.extend((0..count).map(|_| match keys.draw(&mut p.state.sampler) {
                    Drawn::Row(i) | Drawn::Positive(i) | Drawn::Negative(i) => i,
                }));
                Ok(out)
            })
            .collect()
    }

    /// Take the steps of the drawn examples: problem `p`'s are rows `drawn[p]` of
    /// `rows` (whole batches, in draw order), which are the training rows
    /// `keys[p]` (what [`StreamedBudgetFit::draw`] returned), with targets
    /// `targets` and sample weights `sample_weight`. Problems run on `n_threads`
    /// threads (0: all cores); `monitor` stops the run.
    #[allow(clippy::too_many_arguments)] // the rows, their labels and the draws
    pub fn run<R: Rows>(
        &mut self,
        rows: &R,
        targets: Targets<'_>,
        sample_weight: Option<&[f64]>,
        drawn: &[Vec<usize>],
        keys: &[Vec<usize>],
        n_threads: usize,
        monitor: &Monitor,
    ) -> Result<()> {
        if drawn.len() != self.n_problems() || keys.len() != self.n_problems() {
            return Err(Error::InvalidInput(format!(
                "{} drawn and {} key arrays for {} problems",
                drawn.len(),
                keys.len(),
                self.n_problems()
            )));
        }
        if let Some(&bad) = keys.iter().flatten().find(|&&k| k >= self.n_rows) {
            return Err(Error::InvalidInput(format!(
                "training row {bad} is not one of the {} rows",
                self.n_rows
            )));
        }
        let examples = examples_of(self.classes.as_ref(), targets, sample_weight)?;
        examples.check(rows.n_rows())?;
        let (params, settings) = (&self.params, self.settings);
        // Each problem with its index among all of them (done ones do not run).
        let items: Vec<_> = self
            .problems
            .iter_mut()
            .zip(drawn.iter().zip(keys))
            .enumerate()
            .filter(|(_, (p, _))| p.active)
            .collect();
        for_each_problem(items, n_threads, |_, (p, (problem, (local, ids)))| {
            let task = examples.task(p)?;
            run_budgeted_drawn(
                rows,
                &task,
                params,
                settings,
                &mut problem.state,
                &mut problem.out,
                (local, ids),
                monitor,
            )
        })?;
        Ok(())
    }

    /// End the pass of the problems that ran it: the verbose lines (empty unless
    /// `params.verbose`), as the in-memory fit writes them.
    pub fn end_pass(&mut self) -> Vec<String> {
        let monitor = Monitor::new().with_lines();
        let multi = self.problems.len() > 1;
        let budget = self.settings.1;
        for (p, problem) in self.problems.iter_mut().enumerate() {
            if !problem.active {
                continue;
            }
            let label = problem_label(multi && self.params.verbose, p);
            let mut subject = BudgetSubject {
                state: &mut problem.state,
                budget,
                out: &problem.out,
            };
            problem.plan.end_scored_pass(
                &self.params,
                &mut subject,
                (None, None),
                &monitor,
                &label,
            );
        }
        monitor.take_lines()
    }

    /// The fitted models, as the in-memory fit returns them.
    pub fn finish(&self) -> BudgetedModels {
        let done: Vec<(BudgetState, BudgetFitOutput)> = self
            .problems
            .iter()
            .map(|p| {
                let mut out = p.out.clone();
                out.n_iter = p.plan.passes();
                (p.state.clone(), out)
            })
            .collect();
        join(
            self.problems[0].state.n_features(),
            self.params.alpha,
            &done,
        )
    }
}

#[cfg(test)]
#[path = "budget_streamed_tests.rs"]
mod tests;
