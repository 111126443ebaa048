//! Linear Pegasos with the examples supplied by the caller: the client side of a
//! fit whose rows live elsewhere (`pegasos_rs.dask`'s exact mode).
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated
//! sub-GrAdient SOlver for SVM", Math. Programming 2011) draws the examples of
//! step `t` independently of `w_t`. A [`StreamedFit`] holds what the caller needs
//! and nothing of size `m`: the solver states, the pass plans and the constants of
//! the update rule. It draws the examples of the next steps from counts only
//! ([`StreamedFit::draw`]), the caller fetches those rows, and
//! [`StreamedFit::run`] takes the steps on them with the in-memory solvers' step
//! ([`linear::run_drawn`], [`crammer_singer::run_drawn`]), so the model is the
//! in-memory fit's, bit for bit.
//!
//! The problems are those of one-vs-rest classification (one state per binary
//! problem), the one problem of a regression, or the one joint problem of the
//! Crammer–Singer multiclass SVM ([`crate::solvers::linear::crammer_singer`]). Sums over
//! the whole training set (the weighted losses at zero that set the projection
//! radius, the squared row norms a squared loss starts from, the objective) are
//! taken by the caller in row order, block after block, with the functions the
//! in-memory solvers use ([`linear::zero_loss_sum`], [`crammer_singer::weight_sum`],
//! [`linear::first_step_sums`], [`linear::loss_sum`],
//! [`crammer_singer::loss_sum_of`]); the bits agree.

use std::borrow::Cow;

use crate::data::examples::Examples;
use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::linear::binary::{
    self, bias_feature, check_linear_states, current_model, finish_linear_fit,
    first_step_from_sums, objective_from_loss, plan_linear_fit, reset_bias_strided, start_at,
    FirstStepSums, FitOutput, LinearState, StepRule,
};
use crate::solvers::linear::crammer_singer::{self, CrammerSingerState, CsRule};
use crate::solvers::linear::one_vs_rest::initial_states;
use crate::solvers::shared::loss::{check_loss_fits, Loss, LossFunction};
use crate::solvers::shared::one_class::{self, one_class_radius_of};
use crate::solvers::shared::params::Intercept;
use crate::solvers::shared::params::{Sampling, ValidParams};
use crate::solvers::shared::passes::problem_label;
use crate::solvers::shared::passes::PassPlan;
use crate::solvers::shared::sampler::{Drawn, KeyDraws};

/// What the caller knows of the training labels without holding them.
#[derive(Clone, Debug, Default)]
pub struct LabelSummary {
    /// The classes of a classification (`None`: a regression).
    pub classes: Option<ClassSummary>,
    /// Per problem, `sum_i c_i l(0, y_i)` in row order (`linear::zero_loss_sum`;
    /// for the Crammer–Singer problem `crammer_singer::weight_sum`); `None` when
    /// every weight is 1 and the loss a margin loss.
    pub zero_loss_sums: Option<Vec<f64>>,
    /// Per problem, `linear::first_step_sums` over all rows in order: needed when
    /// fresh states of a loss that starts late (a squared loss) are to start at the
    /// in-memory solver's first step.
    pub first_step_sums: Option<Vec<FirstStepSums>>,
    /// The one-class SVM with projection: the largest squared norm of the rows of
    /// positive weight (`linear::largest_sq_norm`, the largest over the blocks),
    /// which sets its projection radius.
    pub one_class_sq_norm: Option<f64>,
}

/// The classes of a classification fit.
#[derive(Clone, Debug)]
pub struct ClassSummary {
    /// Weight of each class.
    pub class_weight: Vec<f64>,
    /// Examples of each class.
    pub counts: Vec<u64>,
}

/// The targets of supplied rows.
#[derive(Clone, Copy, Debug)]
pub enum Targets<'a> {
    /// Class codes, in `[0, n_classes)`.
    Codes(&'a [u32]),
    /// A regression's real targets.
    Values(&'a [f64]),
}

/// The solver states, plans and update rules.
enum Problems {
    /// One-vs-rest (or one binary problem, or a regression): one state each.
    Separate {
        states: Vec<LinearState>,
        rules: Vec<StepRule>,
        plans: Vec<PassPlan>,
    },
    /// The Crammer–Singer multiclass SVM: one joint state.
    Joint {
        state: Box<CrammerSingerState>,
        rule: CsRule,
        plan: PassPlan,
    },
}

/// A linear fit whose rows the caller supplies (see the module doc).
pub struct StreamedFit {
    params: ValidParams,
    problems: Problems,
    draws: Vec<KeyDraws<'static>>,
    /// Whether problem `p` takes part in the current pass.
    active: Vec<bool>,
    n_rows: usize,
    classes: Option<ClassSummary>,
}

impl StreamedFit {
    /// Start a fit of `n_rows` x `n_features` rows continuing `states` (fresh ones
    /// when empty, starting at the in-memory solver's first step), in the form the
    /// in-memory fits keep them ([`LinearSvmParams::fit_from`](crate::LinearSvmParams::fit_from)):
    /// one per binary problem, or with `joint` the Crammer–Singer state's form. `joint` needs classes and the hinge,
    /// and samples uniformly, shuffled or in order.
    ///
    /// Fails with [`Error::InvalidParameter`] for a loss that does not suit the
    /// targets, [`Error::InvalidInput`] for inconsistent summaries and
    /// [`Error::InvalidState`]/[`Error::ShapeMismatch`] for states of another fit.
    pub fn new(
        params: ValidParams,
        states: &[LinearState],
        n_rows: usize,
        n_features: usize,
        labels: &LabelSummary,
        joint: bool,
    ) -> Result<Self> {
        let classes = labels.classes.clone();
        check_summary(&params.loss, classes.as_ref(), n_rows, n_features)?;
        let n_classes = classes.as_ref().map_or(0, |c| c.counts.len());
        let problems = if joint {
            joint_problem(&params, states, n_rows, n_features, labels)?
        } else {
            separate_problems(&params, states, n_rows, n_features, labels)?
        };
        let n_problems = match &problems {
            Problems::Separate { states, .. } => states.len(),
            Problems::Joint { .. } => 1,
        };
        let draws = (0..n_problems)
            .map(|p| {
                let positives = match &classes {
                    Some(c) if !joint => c.counts[if n_classes == 2 { 1 } else { p }] as usize,
                    _ => 0,
                };
                KeyDraws::new(Cow::Owned(params.sampling.clone()), n_rows, positives)
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            params,
            problems,
            draws,
            active: vec![false; n_problems],
            n_rows,
            classes,
        })
    }

    /// Per problem, `L0` from the summed losses at zero of `n_rows` rows (`None`:
    /// every weight 1, margin losses only: `l(0)`), as the in-memory solver computes
    /// it.
    pub fn mean_zero_losses(
        loss: &LossFunction,
        sums: Option<&[f64]>,
        n_rows: usize,
        n_problems: usize,
    ) -> Result<Vec<f64>> {
        let means = match sums {
            Some(s) => s.iter().map(|s| s / n_rows as f64).collect(),
            None if loss.is_margin_loss() => vec![loss.value(0.0, 1.0); n_problems],
            None => {
                return Err(Error::InvalidInput(format!(
                    "zero_loss_sums are needed for the regression loss {:?}",
                    loss.name()
                )))
            }
        };
        if means.len() != n_problems {
            return Err(Error::InvalidInput(format!(
                "{} loss sums for {n_problems} problems",
                means.len()
            )));
        }
        Ok(means)
    }

    /// Number of problems whose examples are drawn separately (1 for the joint
    /// problem).
    pub fn n_problems(&self) -> usize {
        self.draws.len()
    }

    /// Number of rows of the model ([`StreamedFit::model`]): the problems, or the
    /// classes of the joint problem.
    pub fn n_models(&self) -> usize {
        match &self.problems {
            Problems::Separate { states, .. } => states.len(),
            Problems::Joint { state, .. } => state.n_classes(),
        }
    }

    /// Whether [`StreamedFit::end_pass`] needs the loss sums (`tol` or `verbose`).
    pub fn wants_objective(&self) -> bool {
        PassPlan::wants_objective(&self.params)
    }

    /// Begin the next pass of every problem still running: the number of steps of
    /// each (0 for problems that are done).
    pub fn next_pass(&mut self) -> Vec<u64> {
        let plans: Vec<&mut PassPlan> = match &mut self.problems {
            Problems::Separate { plans, .. } => plans.iter_mut().collect(),
            Problems::Joint { plan, .. } => vec![plan],
        };
        plans
            .into_iter()
            .zip(&mut self.active)
            .map(|(plan, active)| next_steps(plan, active))
            .collect()
    }

    /// Draw the next `counts[p]` examples of each problem `p`: a row index for
    /// uniform, shuffled and ordered sampling; for balanced sampling the rank `r`
    /// of the example within its class, as `r` for a positive and `-(r + 1)` for a
    /// negative example (rows of a class in increasing order).
    pub fn draw(&mut self, counts: &[usize]) -> Result<Vec<Vec<i64>>> {
        check_counts(counts, self.n_problems())?;
        let mut buf = Vec::new();
        let mut out = Vec::with_capacity(counts.len());
        for (p, (draws, &count)) in self.draws.iter().zip(counts).enumerate() {
            buf.clear();
            buf.try_reserve_exact(count)
                .map_err(|_| Error::OutOfMemory(format!("{count} draws")))?;
            match &mut self.problems {
                Problems::Separate { states, .. } => states[p].draw(draws, count, &mut buf),
                Problems::Joint { state, .. } => state.draw(draws, count, &mut buf),
            }
            out.push(
                buf.iter()
                    .map(|d| match *d {
                        Drawn::Row(i) | Drawn::Positive(i) => i as i64,
                        Drawn::Negative(r) => -(r as i64) - 1,
                    })
                    .collect(),
            );
        }
        Ok(out)
    }

    /// Take the steps of the drawn examples: problem `p`'s are rows `drawn[p]` of
    /// `rows` (whole batches, in draw order), whose targets and sample weights are
    /// `targets` and `sample_weight`. Separate problems run on `n_threads` threads
    /// (0: all cores); `monitor` stops the run.
    pub fn run<R: Rows>(
        &mut self,
        rows: &R,
        targets: Targets<'_>,
        sample_weight: Option<&[f64]>,
        drawn: &[Vec<usize>],
        n_threads: usize,
        monitor: &Monitor,
    ) -> Result<()> {
        if drawn.len() != self.n_problems() {
            return Err(Error::InvalidInput(format!(
                "{} drawn index arrays for {} problems",
                drawn.len(),
                self.n_problems()
            )));
        }
        let examples = examples_of(self.classes.as_ref(), targets, sample_weight)?;
        match (&mut self.problems, &examples) {
            (Problems::Joint { state, rule, .. }, Examples::Classes(labels)) => {
                crammer_singer::run_drawn(rows, labels, rule, state, &drawn[0], monitor)
            }
            (Problems::Joint { .. }, Examples::Regression(_)) => Err(Error::InvalidInput(
                "the Crammer-Singer fit needs class codes".into(),
            )),
            (Problems::Separate { states, rules, .. }, _) => {
                examples.check(rows.n_rows())?;
                let items: Vec<_> = states.iter_mut().zip(drawn).collect();
                for_each_problem(items, n_threads, |p, (state, idx)| {
                    let task = examples.task(p)?;
                    binary::run_drawn(rows, &task, &rules[p], state, idx, monitor)
                })?;
                Ok(())
            }
        }
    }

    /// The model of the current iterates ([`StreamedFit::n_models`] rows of
    /// `n_features` weights, row-major, and their intercepts), to evaluate the
    /// objective on the data.
    pub fn model(&self) -> Result<(Vec<f64>, Vec<f64>)> {
        match &self.problems {
            Problems::Separate { states, .. } => {
                let (mut coef, d) = separate_coef(states)?;
                let intercepts = states
                    .iter()
                    .zip(coef.chunks_mut(d))
                    .map(|(s, w)| current_model(&self.params, s, w).0)
                    .collect();
                Ok((coef, intercepts))
            }
            Problems::Joint { state, .. } => joint_model(&self.params, state),
        }
    }

    /// End the pass of the problems that ran it, with their summed weighted losses
    /// over the training set (`loss_sums`, one per problem; `None` unless
    /// [`StreamedFit::wants_objective`]): applies the stopping rule of `tol` and
    /// returns the verbose lines (empty unless `verbose`).
    ///
    /// The one-class SVM with an offset to learn is measured, as in memory, with
    /// its best offset for the iterate's weights: `one_class_rho`, the quantile of
    /// all rows' scores ([`one_class::one_class_offset`]), the losses summed with
    /// the intercept `1 - rho`.
    pub fn end_pass(
        &mut self,
        loss_sums: Option<&[f64]>,
        one_class_rho: Option<f64>,
    ) -> Result<Vec<String>> {
        if loss_sums.is_some_and(|l| l.len() != self.n_problems()) {
            return Err(Error::InvalidInput(format!(
                "{} loss sums for {} problems",
                loss_sums.map_or(0, <[f64]>::len),
                self.n_problems()
            )));
        }
        let monitor = Monitor::new().with_lines();
        let (params, m) = (&self.params, self.n_rows);
        match &mut self.problems {
            Problems::Separate { states, plans, .. } => {
                let mut coef = try_filled_vec(states[0].n_features(), 0.0, "the coefficients")?;
                let multi = states.len() > 1;
                for (p, (state, plan)) in states.iter_mut().zip(plans).enumerate() {
                    if !self.active[p] {
                        continue;
                    }
                    let objective = loss_sums.map(|l| {
                        let (_, mut reg_sq) = current_model(params, state, &mut coef);
                        if let Some(rho) = one_class_rho.filter(|_| params.one_class) {
                            // `linear::best_offset`'s: b = 1 - rho.
                            reg_sq = -2.0 * rho;
                        }
                        objective_from_loss(l[p], m, &coef, reg_sq, params.alpha)
                    });
                    let label = problem_label(multi && params.verbose, p);
                    plan.end_pass(params, state, objective, &monitor, &label);
                }
            }
            Problems::Joint { state, plan, .. } => {
                if self.active[0] {
                    let objective = match loss_sums {
                        Some(l) => {
                            let (coef, b) = joint_model(params, state)?;
                            Some(crammer_singer::objective_from_loss(
                                l[0], m, params, &coef, &b,
                            ))
                        }
                        None => None,
                    };
                    plan.end_pass(params, &mut **state, objective, &monitor, "");
                }
            }
        }
        Ok(monitor.take_lines())
    }

    /// The one-class SVM: the rows whose scores reset the bias after each pass
    /// (every `one_class::reset_stride`-th row, in order), to be supplied to
    /// [`StreamedFit::one_class_reset`]. Empty for other fits, and without an offset
    /// to learn.
    pub fn one_class_sample(&self) -> Vec<usize> {
        if !self.resets_bias() {
            return Vec::new();
        }
        (0..self.n_rows)
            .step_by(one_class::reset_stride(self.n_rows))
            .collect()
    }

    fn resets_bias(&self) -> bool {
        self.params.one_class && self.params.intercept == Intercept::Unregularized
    }

    /// The one-class SVM after a pass: its bias set from the scores of the rows of
    /// [`StreamedFit::one_class_sample`], supplied as `rows` (in that order) with
    /// their sample weights, as the in-memory solver sets it
    /// (`one_class::reset_bias`); nothing for other fits.
    pub fn one_class_reset<R: Rows>(
        &mut self,
        rows: &R,
        sample_weight: Option<&[f64]>,
    ) -> Result<()> {
        if !self.resets_bias() {
            return Ok(());
        }
        let Problems::Separate { states, .. } = &mut self.problems else {
            return Ok(());
        };
        let codes = try_filled_vec(rows.n_rows(), 1u32, "the rows' codes")?;
        let task = BinaryTask::new(&codes, 1, sample_weight, 1.0, 1.0)?;
        reset_bias_strided(rows, &task, &mut states[0], self.params.alpha, 1);
        Ok(())
    }

    /// The fit's result as the in-memory fits return it: one [`FitOutput`] per
    /// model row, the coefficients ([`StreamedFit::n_models`] x `n_features`,
    /// row-major) and the final states in the in-memory fits' form.
    pub fn finish(&self) -> Result<(Vec<FitOutput>, Vec<f64>, Vec<LinearState>)> {
        match &self.problems {
            Problems::Separate { states, plans, .. } => {
                let (mut coef, d) = separate_coef(states)?;
                let mut outputs: Vec<FitOutput> = plans
                    .iter()
                    .zip(states)
                    .zip(coef.chunks_mut(d))
                    .map(|((plan, state), w)| finish_linear_fit(plan, &self.params, state, w))
                    .collect();
                if self.params.one_class {
                    // The decision value is <w, x> + b - 1: the intercept -rho of the
                    // returned bias; with an offset to learn, the caller replaces rho
                    // by the exact quantile over all rows (as `fit_binary` does).
                    for out in &mut outputs {
                        out.intercept = -(1.0 - out.intercept);
                    }
                }
                Ok((outputs, coef, states.clone()))
            }
            Problems::Joint { state, plan, .. } => {
                let (coef, b) = joint_model(&self.params, state)?;
                let outputs = b
                    .iter()
                    .map(|&intercept| FitOutput {
                        intercept,
                        n_iter: plan.passes(),
                        objective: plan.objective(),
                        converged: plan.converged(&self.params),
                        settling: None,
                        worse_than_zero: None,
                        validation_scores: Vec::new(),
                    })
                    .collect();
                Ok((outputs, coef, state.to_states()))
            }
        }
    }
}

/// The examples of supplied rows whose targets are `targets`.
pub(crate) fn examples_of<'a>(
    classes: Option<&'a ClassSummary>,
    targets: Targets<'a>,
    sample_weight: Option<&'a [f64]>,
) -> Result<Examples<'a>> {
    match (classes, targets) {
        (Some(c), Targets::Codes(codes)) => Ok(Examples::Classes(Labels {
            codes,
            n_classes: c.class_weight.len(),
            sample_weight,
            class_weight: &c.class_weight,
        })),
        (None, Targets::Values(values)) => Ok(Examples::Regression(BinaryTask::regression(
            values,
            sample_weight,
        )?)),
        (Some(_), Targets::Values(_)) => Err(Error::InvalidInput(
            "this fit is a classification: y must be class codes (uint32)".into(),
        )),
        (None, Targets::Codes(_)) => Err(Error::InvalidInput(
            "this fit is a regression: y must be real targets (float64)".into(),
        )),
    }
}

/// A zeroed buffer for one weight row per state, and the row length.
fn separate_coef(states: &[LinearState]) -> Result<(Vec<f64>, usize)> {
    let d = states[0].n_features();
    Ok((
        try_filled_vec(states.len() * d, 0.0, "the coefficients")?,
        d,
    ))
}

/// The model of the joint state (`K x n_features` weights, class-major, and `K`
/// intercepts).
fn joint_model(params: &ValidParams, state: &CrammerSingerState) -> Result<(Vec<f64>, Vec<f64>)> {
    let k = state.n_classes();
    let mut coef = try_filled_vec(k * state.n_features(), 0.0, "the coefficients")?;
    let mut b = vec![0.0; k];
    state.write_model(bias_feature(params.intercept), &mut coef, &mut b);
    Ok((coef, b))
}

/// The classes (counts summing to the rows) and loss agree with each other.
fn check_summary(
    loss: &LossFunction,
    classes: Option<&ClassSummary>,
    n_rows: usize,
    n_features: usize,
) -> Result<()> {
    check_loss_fits(loss, classes.is_none())?;
    if n_features == 0 {
        return Err(Error::InvalidInput("the data has no features".into()));
    }
    if let Some(c) = classes {
        let k = c.counts.len();
        if k < 2 || c.class_weight.len() != k {
            return Err(Error::InvalidInput(format!(
                "{k} classes with {} class weights",
                c.class_weight.len()
            )));
        }
        let total: u64 = c.counts.iter().sum();
        if total != n_rows as u64 {
            return Err(Error::InvalidInput(format!(
                "the class counts add up to {total}, not to the {n_rows} rows"
            )));
        }
    }
    Ok(())
}

/// Whether the summary may leave out the sums of the losses at zero: every class
/// weight 1 (the caller knows whether sample weights exist).
fn check_unit_classes(labels: &LabelSummary) -> Result<()> {
    let weighted = labels
        .classes
        .as_ref()
        .is_some_and(|c| c.class_weight.iter().any(|&w| w != 1.0));
    if labels.zero_loss_sums.is_none() && weighted {
        return Err(Error::InvalidInput(
            "zero_loss_sums are needed when a class weight is not 1".into(),
        ));
    }
    Ok(())
}

/// The states of one-vs-rest (or of one binary problem, or a regression).
fn separate_problems(
    params: &ValidParams,
    states: &[LinearState],
    n_rows: usize,
    n_features: usize,
    labels: &LabelSummary,
) -> Result<Problems> {
    let n_problems = match &labels.classes {
        Some(c) if c.counts.len() > 2 => c.counts.len(),
        _ => 1,
    };
    check_unit_classes(labels)?;
    let zero = StreamedFit::mean_zero_losses(
        &params.loss,
        labels.zero_loss_sums.as_deref(),
        n_rows,
        n_problems,
    )?;
    check_linear_states(states, "one-vs-rest")?;
    let mut states = if states.is_empty() {
        initial_states(n_problems, n_features, params.seed)?
    } else {
        states.to_vec()
    };
    if states.len() != n_problems {
        return Err(Error::InvalidState(format!(
            "{} solver states for {n_problems} problems",
            states.len()
        )));
    }
    let (mut rules, mut plans) = (Vec::new(), Vec::new());
    for (p, state) in states.iter_mut().enumerate() {
        if state.n_features() != n_features {
            return Err(Error::ShapeMismatch(format!(
                "the solver state has {} features, the data {n_features}",
                state.n_features()
            )));
        }
        if state.steps() == 0 && params.loss.curvature().is_some() {
            // As `fit_binary` starts a fresh state: at `first_step`.
            let sums = labels
                .first_step_sums
                .as_ref()
                .and_then(|s| s.get(p))
                .ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "first_step_sums (one per problem) are needed to start a fresh fit \
                         of loss {:?}",
                        params.loss.name()
                    ))
                })?;
            start_at(state, first_step_from_sums(params, *sums));
        }
        let mut rule = StepRule::new(params, zero[p]);
        if params.one_class && params.projection {
            // As `fit_binary` sets it from the rows (`linear::one_class_sq_radius`).
            let largest = labels.one_class_sq_norm.ok_or_else(|| {
                Error::InvalidInput(
                    "one_class_sq_norm is needed for the one-class SVM's projection".into(),
                )
            })?;
            rule.sq_radius = one_class_radius_of(largest);
        }
        rules.push(rule);
        plans.push(plan_linear_fit(params, state, n_rows)?);
    }
    Ok(Problems::Separate {
        states,
        rules,
        plans,
    })
}

/// The joint state of the Crammer–Singer multiclass SVM.
fn joint_problem(
    params: &ValidParams,
    states: &[LinearState],
    n_rows: usize,
    n_features: usize,
    labels: &LabelSummary,
) -> Result<Problems> {
    let Some(classes) = &labels.classes else {
        return Err(Error::InvalidInput(
            "the Crammer-Singer multiclass SVM needs classes".into(),
        ));
    };
    if params.loss != LossFunction::Hinge || params.sampling == Sampling::Balanced {
        return Err(Error::InvalidParameter(
            "multi_class='crammer_singer' takes the hinge loss and uniform, shuffled or \
             ordered sampling"
                .into(),
        ));
    }
    check_unit_classes(labels)?;
    let k = classes.counts.len();
    let mean_weight = match labels.zero_loss_sums.as_deref() {
        None => 1.0,
        Some([sum]) => crammer_singer::mean_weight_of(*sum, n_rows),
        Some(s) => {
            return Err(Error::InvalidInput(format!(
                "{} weight sums for the one Crammer-Singer problem",
                s.len()
            )))
        }
    };
    let mut state = CrammerSingerState::continue_or_new(states, k, n_features, params.seed)?;
    if state.n_classes() != k || state.n_features() != n_features {
        return Err(Error::ShapeMismatch(format!(
            "the solver state has {} classes and {} features, the data {k} and {n_features}",
            state.n_classes(),
            state.n_features()
        )));
    }
    let plan = crate::solvers::linear::binary::plan_averaged(params, &mut state, n_rows)?;
    Ok(Problems::Joint {
        state: Box::new(state),
        rule: CsRule::new(params, mean_weight),
        plan,
    })
}

/// Begin the next pass of a problem of a driven fit: its steps (0 when its plan is
/// done), `active` set to whether it runs.
pub(crate) fn next_steps(plan: &mut PassPlan, active: &mut bool) -> u64 {
    let steps = plan.next_pass();
    *active = steps.is_some();
    steps.unwrap_or(0)
}

/// An error unless `counts` holds one count of examples per problem.
pub(crate) fn check_counts(counts: &[usize], n_problems: usize) -> Result<()> {
    if counts.len() != n_problems {
        return Err(Error::InvalidInput(format!(
            "{} counts for {n_problems} problems",
            counts.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
#[path = "streamed_tests.rs"]
mod tests;
