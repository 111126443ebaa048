//! A Rust-first front of kernel Pegasos: typed parameters with a builder
//! ([`KernelSvm::params`], as [`LinearSvm`](crate::LinearSvm)'s), `fit` on data
//! rows or on a precomputed Gram matrix, one-vs-rest or one-vs-one
//! ([`Decomposition`]), a regression of real targets ([`KernelRegressor`]), and
//! prediction through the support vectors on the fitted model. It composes the
//! functions the solvers are made of ([`crate::solvers::kernel::model`],
//! [`crate::solvers::kernel::one_vs_one`], [`crate::solvers::kernel::regression`]): no
//! second solver, the same models bit for bit.
//!
//! The kernel matrix between two sets of rows ([`pairwise_kernel`]) and the
//! decision values of a model given by its support vectors ([`kernel_decision`])
//! are here too.
//!
//! # Example
//! Two classes in the plane, inside and outside a circle (no line separates them):
//!
//! ```
//! use pegasos_core::{DenseRows, Kernel, KernelSvm};
//!
//! let n = 300;
//! let mut x = Vec::with_capacity(2 * n);
//! let mut classes = Vec::with_capacity(n);
//! for i in 0..n {
//!     let (a, b) = ((i % 20) as f64 / 10.0 - 0.95, (i / 20) as f64 / 7.5 - 0.95);
//!     x.extend([a, b]);
//!     classes.push(u32::from(a * a + b * b > 0.5));
//! }
//! let rows = DenseRows::new(&x, n, 2)?;
//! let model = KernelSvm::params()
//!     .kernel(Kernel::Rbf { gamma: 2.0 })
//!     .alpha(1.0 / n as f64)
//!     .max_iter(20)
//!     .seed(7)
//!     .fit(&rows, &classes)?;
//! assert_eq!(model.intercept().len(), 1); // one binary problem
//! assert!(model.support().len() < n);
//! // Predict through the training rows (or the support vectors' own rows).
//! let predicted = model.predict(&rows, &rows)?;
//! let correct = predicted.iter().zip(&classes).filter(|(p, c)| p == c).count();
//! assert!(correct as f64 / n as f64 > 0.9, "{correct} of {n}");
//! # Ok::<(), pegasos_core::Error>(())
//! ```

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::kernels::function::{Kernel, KernelRows};
use crate::kernels::gram::{DataGram, Gram, PrecomputedGram};
use crate::monitor::Monitor;
use crate::solvers::kernel::held_out::{HeldOutSource, KernelHeldOut};
use crate::solvers::kernel::model::{
    fit_kernel_one_vs_rest_fresh, kernel_decision_function, kernel_matrix, KernelModel,
    KernelSettings,
};
use crate::solvers::kernel::one_vs_one::{class_pairs, fit_kernel_one_vs_one, OneVsOneFit};
use crate::solvers::kernel::regression::fit_kernel_regression;
use crate::solvers::kernel::solver::{check_kernel_params, KernelFitOutput, KernelState, Strategy};
use crate::solvers::shared::held_out::HeldOutRows;
use crate::solvers::shared::loss::{EpsilonInsensitive, LossFunction};
use crate::solvers::shared::params::{
    params_setter as setter, Averaging, Intercept, Params, Sampling, ValidParams,
};
use crate::thresholds::SMALL_KERNEL_VALUES;

#[path = "svm_rows.rs"]
mod subset;
use subset::SubsetRows;

/// How a kernel SVM splits more than two classes into binary problems. With two
/// classes both train the one problem "class 1 against class 0", the same model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decomposition {
    /// A problem per class, against all the others (its decision values are scores
    /// per class).
    #[default]
    OneVsRest,
    /// A problem per pair of classes `(i, j)`, `i < j`, in scikit-learn `SVC`'s
    /// order, trained on the rows of the two classes only (LIBSVM's scheme; see
    /// `crate::solvers::kernel::one_vs_one`).
    OneVsOne,
}

/// A kernel SVM trained by kernel Pegasos: start from [`KernelSvm::params`].
#[derive(Clone, Copy, Debug)]
pub struct KernelSvm;

impl KernelSvm {
    /// The default parameters: [`Params::default`] without the projection (the
    /// kernel solver does not project), the rbf kernel with `gamma = 1`, strategy
    /// [`Strategy::Auto`], one-vs-rest, a 200 MiB kernel cache, one thread. Set them
    /// with the builder's methods, then [`KernelSvmParams::fit`].
    pub fn params() -> KernelSvmParams {
        KernelSvmParams {
            params: Params {
                projection: false,
                ..Params::default()
            },
            kernel: Kernel::Rbf { gamma: 1.0 },
            strategy: Strategy::Auto,
            decomposition: Decomposition::OneVsRest,
            cache_bytes: 200 << 20,
            n_threads: 1,
        }
    }
}

/// A kernel support vector regression trained by kernel Pegasos (LIBSVM's
/// epsilon-SVR; see `crate::solvers::kernel::regression`): start from
/// [`KernelRegressor::params`] and fit with [`KernelSvmParams::fit_regression`].
///
/// ```
/// use pegasos_core::{DenseRows, Kernel, KernelRegressor};
///
/// let x: Vec<f64> = (0..100).map(|i| i as f64 / 50.0 - 1.0).collect();
/// let y: Vec<f64> = x.iter().map(|v| v * v).collect();
/// let rows = DenseRows::new(&x, 100, 1)?;
/// let model = KernelRegressor::params()
///     .kernel(Kernel::Rbf { gamma: 2.0 })
///     .alpha(0.01)
///     .max_iter(30)
///     .fit_regression(&rows, &y, None)?;
/// let f = model.predict(&rows, &rows)?;
/// let worst = f.iter().zip(&y).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
/// assert!(worst < 0.3, "{worst}");
/// # Ok::<(), pegasos_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KernelRegressor;

impl KernelRegressor {
    /// [`KernelSvm::params`] with the epsilon-insensitive loss, `epsilon = 0.1`.
    pub fn params() -> KernelSvmParams {
        KernelSvm::params().loss(LossFunction::EpsilonInsensitive(EpsilonInsensitive {
            epsilon: 0.1,
        }))
    }
}

/// The parameters of a kernel fit, set one by one; checked when a fit or
/// [`check`](Self::check) runs.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSvmParams {
    params: Params,
    kernel: Kernel,
    strategy: Strategy,
    decomposition: Decomposition,
    cache_bytes: usize,
    n_threads: usize,
}

/// A setter of the builder for one of its own fields.
macro_rules! own_setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> Self {
            self.$name = value;
            self
        }
    };
}

impl KernelSvmParams {
    setter!(
        /// The loss: one with a flat region (hinge, squared hinge, modified Huber;
        /// for a regression the epsilon-insensitive losses).
        loss: LossFunction
    );
    setter!(
        /// Regularisation strength, the paper's lambda (> 0).
        alpha: f64
    );
    setter!(
        /// Examples per step, the paper's k (>= 1).
        batch_size: usize
    );
    setter!(
        /// [`Intercept::Unregularized`] (the default) or [`Intercept::None`].
        intercept: Intercept
    );
    setter!(
        /// [`Averaging::Off`] or [`Averaging::Suffix`] (the last half of the steps).
        averaging: Averaging
    );
    setter!(
        /// How the examples of each step are drawn.
        sampling: Sampling
    );
    setter!(
        /// Number of passes over the data.
        max_iter: usize
    );
    setter!(
        /// Seed of the generator; problem `p` uses stream `p`.
        seed: u64
    );
    setter!(
        /// Print one line per pass (to the [`Monitor`]'s lines).
        verbose: bool
    );
    own_setter!(
        /// The kernel (not read by the fits on a precomputed Gram matrix).
        kernel: Kernel
    );
    own_setter!(
        /// How the margins are evaluated; the model does not depend on it but for
        /// rounding.
        strategy: Strategy
    );
    own_setter!(
        /// One-vs-rest or one-vs-one (classification only).
        decomposition: Decomposition
    );
    own_setter!(
        /// The kernel cache in bytes, shared among the problems that run at the
        /// same time (the model does not depend on it).
        cache_bytes: usize
    );
    own_setter!(
        /// Threads to train and predict on (0 = all cores; the model does not depend
        /// on it).
        n_threads: usize
    );

    /// Replace every solver parameter at once (those the setters above do not
    /// reach included; [`check`](Self::check) refuses what the kernel solver does
    /// not implement).
    #[must_use]
    pub fn solver_params(mut self, params: Params) -> Self {
        self.params = params;
        self
    }

    /// The solver parameters as set so far.
    pub fn as_params(&self) -> &Params {
        &self.params
    }

    /// The kernel as set so far.
    pub fn as_kernel(&self) -> Kernel {
        self.kernel
    }

    /// The validated parameters, or [`Error::InvalidParameter`] naming the first
    /// one out of range: the kernel's, then the solver's, then what the kernel
    /// solver does not implement (a projection, `max_steps`, a loss without a
    /// flat region, ...). `tol` passes here and is refused by a fit without
    /// held-out rows (it is early stopping's tolerance).
    pub fn check(&self) -> Result<ValidParams> {
        self.kernel.validate()?;
        let params = self.params.clone().validate()?;
        check_kernel_params(&params)?;
        Ok(params)
    }

    /// Whether a fit of `n_examples` counts as small
    /// ([`SMALL_KERNEL_VALUES`] kernel values over `max_iter` passes): a caller may
    /// run it on its own thread, without watching it.
    pub fn is_small_fit(&self, n_examples: usize) -> bool {
        let n = n_examples as f64;
        n * n * (self.params.max_iter as f64) < SMALL_KERNEL_VALUES
    }

    /// How the fits run, besides the solver parameters.
    fn settings(&self) -> KernelSettings {
        KernelSettings {
            strategy: self.strategy,
            cache_bytes: self.cache_bytes,
            n_threads: self.n_threads,
        }
    }

    /// Train on `rows` whose classes are `classes` (codes `0..k`, `k >= 2`, every
    /// example weighing 1).
    pub fn fit<R: Rows>(&self, rows: &R, classes: &[u32]) -> Result<FittedKernelSvm> {
        let ones = Labels::ones_for(classes);
        self.fit_labels(rows, &Labels::unweighted(classes, &ones))
    }

    /// Train on `rows` labelled by `labels` (with class and sample weights).
    pub fn fit_labels<R: Rows>(&self, rows: &R, labels: &Labels<'_>) -> Result<FittedKernelSvm> {
        self.fit_labels_monitored(rows, labels, &Monitor::new())
    }

    /// [`fit_labels`](Self::fit_labels), stopping with [`Error::Interrupted`] once
    /// `monitor` is stopped, and counting its progress and verbose lines on it.
    /// Kernel values are stored in the rows' float type.
    pub fn fit_labels_monitored<R: Rows>(
        &self,
        rows: &R,
        labels: &Labels<'_>,
        monitor: &Monitor,
    ) -> Result<FittedKernelSvm> {
        self.fit_labels_held_out(rows, labels, None, monitor)
    }

    /// [`fit_labels_monitored`](Self::fit_labels_monitored), every binary problem
    /// scored on its part of the `held_out` rows after every pass when given (the
    /// rows of its two classes for a one-vs-one pair) and stopped by that score
    /// (early stopping, see `solvers::kernel::held_out`).
    pub fn fit_labels_held_out<R: Rows>(
        &self,
        rows: &R,
        labels: &Labels<'_>,
        held_out: Option<&HeldOutRows<'_, R>>,
        monitor: &Monitor,
    ) -> Result<FittedKernelSvm> {
        let kernel = self.kernel.validate()?;
        let params = self.params.clone().validate()?;
        let gram = DataGram::new(rows, KernelRows::new(kernel, rows)?);
        let scored = match held_out {
            Some(h) => Some(KernelHeldOut::new(kernel, rows, h)?),
            None => None,
        };
        let source = scored.as_ref().map(|s| s as &dyn HeldOutSource);
        let (model, reports) =
            self.fit_gram::<_, R::Value>(&gram, labels, source, &params, monitor)?;
        Ok(FittedKernelSvm {
            fit: self.fitted(model, reports, Some(kernel), rows),
            n_classes: labels.n_classes,
            decomposition: self.decomposition,
        })
    }

    /// Train on the precomputed Gram matrix `gram` of the training rows, labelled
    /// by `labels`; `monitor` as for
    /// [`fit_labels_monitored`](Self::fit_labels_monitored). The model predicts
    /// from kernel values ([`FittedKernelSvm::decision_function_precomputed`]).
    pub fn fit_precomputed(
        &self,
        gram: &PrecomputedGram<'_>,
        labels: &Labels<'_>,
        monitor: &Monitor,
    ) -> Result<FittedKernelSvm> {
        let params = self.params.clone().validate()?;
        let (model, reports) = self.fit_gram::<_, f64>(gram, labels, None, &params, monitor)?;
        Ok(FittedKernelSvm {
            fit: self.fitted_precomputed(model, reports, gram.n()),
            n_classes: labels.n_classes,
            decomposition: self.decomposition,
        })
    }

    /// Train a regression of the real `targets` (one per row, finite) on `rows`,
    /// with example weights `sample_weight` (1 without). The loss must be a
    /// regression loss ([`KernelRegressor::params`] sets one).
    pub fn fit_regression<R: Rows>(
        &self,
        rows: &R,
        targets: &[f64],
        sample_weight: Option<&[f64]>,
    ) -> Result<FittedKernelRegressor> {
        self.fit_regression_monitored(rows, targets, sample_weight, &Monitor::new())
    }

    /// [`fit_regression`](Self::fit_regression) watched by `monitor`.
    pub fn fit_regression_monitored<R: Rows>(
        &self,
        rows: &R,
        targets: &[f64],
        sample_weight: Option<&[f64]>,
        monitor: &Monitor,
    ) -> Result<FittedKernelRegressor> {
        self.fit_regression_held_out(rows, (targets, sample_weight), None, monitor)
    }

    /// [`fit_regression_monitored`](Self::fit_regression_monitored), scored (R^2)
    /// on the `held_out` rows after every pass when given and stopped by that
    /// score (early stopping).
    pub fn fit_regression_held_out<R: Rows>(
        &self,
        rows: &R,
        (targets, sample_weight): (&[f64], Option<&[f64]>),
        held_out: Option<&HeldOutRows<'_, R>>,
        monitor: &Monitor,
    ) -> Result<FittedKernelRegressor> {
        let kernel = self.kernel.validate()?;
        let params = self.params.clone().validate()?;
        let gram = DataGram::new(rows, KernelRows::new(kernel, rows)?);
        let scored = match held_out {
            Some(h) => Some(KernelHeldOut::new(kernel, rows, h)?),
            None => None,
        };
        let source = scored.as_ref().map(|s| s as &dyn HeldOutSource);
        let examples = (targets, sample_weight);
        let (model, report) =
            self.regress::<_, R::Value>(&gram, examples, source, &params, monitor)?;
        Ok(FittedKernelRegressor {
            fit: self.fitted(model, vec![report], Some(kernel), rows),
        })
    }

    /// A regression of `targets` on the precomputed Gram matrix `gram`.
    pub fn fit_regression_precomputed(
        &self,
        gram: &PrecomputedGram<'_>,
        targets: &[f64],
        sample_weight: Option<&[f64]>,
        monitor: &Monitor,
    ) -> Result<FittedKernelRegressor> {
        let params = self.params.clone().validate()?;
        let (model, report) =
            self.regress::<_, f64>(gram, (targets, sample_weight), None, &params, monitor)?;
        Ok(FittedKernelRegressor {
            fit: self.fitted_precomputed(model, vec![report], gram.n()),
        })
    }

    /// Every binary problem of `labels` trained on `gram` from fresh states, as
    /// the decomposition says; kernel values stored as `S`.
    fn fit_gram<G: Gram, S: Float>(
        &self,
        gram: &G,
        labels: &Labels<'_>,
        held_out: Option<&dyn HeldOutSource>,
        params: &ValidParams,
        monitor: &Monitor,
    ) -> Result<(KernelModel, Vec<KernelReport>)> {
        let settings = self.settings();
        let (model, states, outputs) = match self.decomposition {
            Decomposition::OneVsOne => {
                let OneVsOneFit {
                    model,
                    states,
                    outputs,
                } = fit_kernel_one_vs_one::<G, S>(
                    gram, labels, held_out, params, settings, monitor,
                )?;
                (model, states, outputs)
            }
            Decomposition::OneVsRest => fit_kernel_one_vs_rest_fresh::<G, S>(
                gram, labels, held_out, params, settings, monitor,
            )?,
        };
        let reports = states
            .iter()
            .zip(&outputs)
            .map(|(s, o)| KernelReport::of(s, o))
            .collect();
        Ok((model, reports))
    }

    /// The regression of `targets` on `gram` from a fresh state (stream 0 of the
    /// seed); kernel values stored as `S`.
    fn regress<G: Gram, S: Float>(
        &self,
        gram: &G,
        (targets, sample_weight): (&[f64], Option<&[f64]>),
        held_out: Option<&dyn HeldOutSource>,
        params: &ValidParams,
        monitor: &Monitor,
    ) -> Result<(KernelModel, KernelReport)> {
        let mut state = KernelState::new(gram.n(), params.seed, 0)?;
        let (model, out) = fit_kernel_regression::<G, S>(
            gram,
            targets,
            sample_weight,
            held_out,
            params,
            self.settings(),
            &mut state,
            monitor,
        )?;
        Ok((model, KernelReport::of(&state, &out)))
    }

    /// The fitted expansion of a fit on the data rows `rows`.
    fn fitted<R: Rows>(
        &self,
        model: KernelModel,
        reports: Vec<KernelReport>,
        kernel: Option<Kernel>,
        rows: &R,
    ) -> Expansion {
        Expansion {
            model,
            reports,
            kernel,
            n_features: rows.n_features(),
            n_train: rows.n_rows(),
            n_threads: self.n_threads,
        }
    }

    /// The fitted expansion of a fit on a precomputed Gram matrix of `n` rows.
    fn fitted_precomputed(
        &self,
        model: KernelModel,
        reports: Vec<KernelReport>,
        n: usize,
    ) -> Expansion {
        Expansion {
            model,
            reports,
            kernel: None,
            n_features: n,
            n_train: n,
            n_threads: self.n_threads,
        }
    }
}

/// What the fit of one binary problem (or of the regression) reports.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelReport {
    /// The strategy the fit ended with ([`Strategy::SupportSet`] or
    /// [`Strategy::Margins`]).
    pub strategy: Strategy,
    /// Steps taken (the start offset of the squared losses included).
    pub steps: u64,
    /// Passes run.
    pub passes: usize,
    /// Kernel values computed.
    pub kernel_evaluations: u64,
    /// Kernel cache hits.
    pub cache_hits: u64,
    /// Kernel cache misses.
    pub cache_misses: u64,
    /// Primal objective after the last pass ([`Strategy::Margins`] only).
    pub objective: Option<f64>,
    /// The step after which [`Strategy::Auto`] switched from the support set to the
    /// margin vector, if it did.
    pub switched_at: Option<u64>,
    /// With held-out rows: whether the stopping rule was met (`None` without).
    pub converged: Option<bool>,
    /// With held-out rows: the score after each pass (empty without).
    pub validation_scores: Vec<f64>,
}

impl KernelReport {
    /// The report of a problem whose final state is `s` and output `o`.
    fn of(s: &KernelState, o: &KernelFitOutput) -> Self {
        Self {
            strategy: s.strategy(),
            steps: s.steps(),
            passes: o.n_iter,
            kernel_evaluations: o.kernel_evals,
            cache_hits: o.cache_hits,
            cache_misses: o.cache_misses,
            objective: o.objective,
            switched_at: s.switched_at(),
            converged: o.converged,
            validation_scores: o.validation_scores.clone(),
        }
    }
}

/// A trained kernel expansion:
/// `f_p(x) = sum_s dual_coef[p][s] K(x_{support[s]}, x) + intercept[p]`.
#[derive(Clone, Debug, PartialEq)]
struct Expansion {
    model: KernelModel,
    reports: Vec<KernelReport>,
    /// `None`: trained on a precomputed Gram matrix.
    kernel: Option<Kernel>,
    /// Features of the training rows (for a precomputed kernel: training rows).
    n_features: usize,
    n_train: usize,
    n_threads: usize,
}

impl Expansion {
    /// Decision values of `x` through the training rows or the support vectors'
    /// rows, `rows`.
    fn decision_function<R: Rows, Q: Rows>(&self, rows: &R, x: &Q) -> Result<Vec<f64>> {
        let Some(kernel) = self.kernel else {
            return Err(Error::InvalidInput(
                "a model trained on a precomputed kernel predicts from kernel values \
                 (decision_function_precomputed)"
                    .into(),
            ));
        };
        for (what, d) in [("rows", rows.n_features()), ("x", x.n_features())] {
            if d != self.n_features {
                return Err(Error::ShapeMismatch(format!(
                    "{what} has {d} features, the model was trained on {}",
                    self.n_features
                )));
            }
        }
        let (support, model) = (&self.model.support, &self.model);
        let monitor = Monitor::new();
        let (dual, b, threads) = (&model.dual_coef, &model.intercept, self.n_threads);
        if rows.n_rows() == support.len() {
            kernel_decision(kernel, rows, x, dual, b, threads, &monitor)
        } else if rows.n_rows() == self.n_train {
            let sv = SubsetRows::new(rows, support)?;
            kernel_decision(kernel, &sv, x, dual, b, threads, &monitor)
        } else {
            Err(Error::ShapeMismatch(format!(
                "{} rows: neither the {} training rows nor the {} support vectors",
                rows.n_rows(),
                self.n_train,
                support.len()
            )))
        }
    }

    /// Decision values from the kernel values `k` (row-major `n_rows x n_train`)
    /// between `n_rows` queries and the training rows.
    fn decision_function_precomputed(&self, k: &[f64], n_rows: usize) -> Result<Vec<f64>> {
        if n_rows.checked_mul(self.n_train) != Some(k.len()) {
            return Err(Error::ShapeMismatch(format!(
                "{} kernel values for {n_rows} rows against {} training rows",
                k.len(),
                self.n_train
            )));
        }
        let (support, n_sv) = (&self.model.support, self.model.support.len());
        let p = self.model.intercept.len();
        let mut out = try_filled_vec(n_rows * p, 0.0, "the decision values")?;
        for (row, o) in k
            .chunks_exact(self.n_train.max(1))
            .zip(out.chunks_exact_mut(p))
        {
            for (q, v) in o.iter_mut().enumerate() {
                let coef = &self.model.dual_coef[q * n_sv..(q + 1) * n_sv];
                let sum: f64 = coef.iter().zip(support).map(|(c, &j)| c * row[j]).sum();
                *v = sum + self.model.intercept[q];
            }
        }
        Ok(out)
    }
}

/// Accessors shared by the fitted kernel models, over their [`Expansion`].
macro_rules! expansion_accessors {
    () => {
        /// Training indices of the support vectors (the union over the
        /// problems), increasing.
        pub fn support(&self) -> &[usize] {
            &self.fit.model.support
        }

        /// The dual coefficients, row-major `n_problems x support().len()`, zero
        /// where an example is not a support vector of a problem.
        pub fn dual_coef(&self) -> &[f64] {
            &self.fit.model.dual_coef
        }

        /// One intercept per problem.
        pub fn intercept(&self) -> &[f64] {
            &self.fit.model.intercept
        }

        /// What each problem's fit reported.
        pub fn reports(&self) -> &[KernelReport] {
            &self.fit.reports
        }

        /// The kernel (`None` for a model trained on a precomputed Gram matrix).
        pub fn kernel(&self) -> Option<Kernel> {
            self.fit.kernel
        }

        /// Decision values of the rows of `x`, row-major `x.n_rows() x
        /// n_problems`, through `rows`: the training rows, or the support
        /// vectors' rows (in the order of [`support`](Self::support)).
        pub fn decision_function<R: Rows, Q: Rows>(&self, rows: &R, x: &Q) -> Result<Vec<f64>> {
            self.fit.decision_function(rows, x)
        }

        /// Decision values of a model trained on a precomputed Gram matrix, from
        /// the kernel values `k` (row-major `n_rows x n_train`) of `n_rows`
        /// queries against the training rows.
        pub fn decision_function_precomputed(&self, k: &[f64], n_rows: usize) -> Result<Vec<f64>> {
            self.fit.decision_function_precomputed(k, n_rows)
        }
    };
}

/// A trained [`KernelSvm`]: a binary problem per class (one-vs-rest; one for two
/// classes) or per pair of classes (one-vs-one), their support vectors merged.
#[derive(Clone, Debug, PartialEq)]
pub struct FittedKernelSvm {
    fit: Expansion,
    n_classes: usize,
    decomposition: Decomposition,
}

impl FittedKernelSvm {
    expansion_accessors!();

    /// How the classes were split into binary problems.
    pub fn decomposition(&self) -> Decomposition {
        self.decomposition
    }

    /// The predicted class code of every row of `x` (`rows` as for
    /// [`decision_function`](Self::decision_function)): for one problem 1 where the
    /// decision value is positive, else 0; one-vs-rest, the class of the largest
    /// value; one-vs-one, the class with the most votes (a positive value votes for
    /// the first class of its pair), the first of equals.
    pub fn predict<R: Rows, Q: Rows>(&self, rows: &R, x: &Q) -> Result<Vec<u32>> {
        let values = self.decision_function(rows, x)?;
        Ok(self.classes_of(&values))
    }

    /// [`predict`](Self::predict) of a model trained on a precomputed Gram matrix,
    /// from kernel values as
    /// [`decision_function_precomputed`](Self::decision_function_precomputed)
    /// reads them.
    pub fn predict_precomputed(&self, k: &[f64], n_rows: usize) -> Result<Vec<u32>> {
        let values = self.decision_function_precomputed(k, n_rows)?;
        Ok(self.classes_of(&values))
    }

    /// The class of each row of decision values.
    fn classes_of(&self, values: &[f64]) -> Vec<u32> {
        let p = self.fit.model.intercept.len();
        if p == 1 {
            return values.iter().map(|&v| u32::from(v > 0.0)).collect();
        }
        let pairs = class_pairs(self.n_classes);
        let mut votes = vec![0usize; self.n_classes];
        values
            .chunks_exact(p)
            .map(|row| {
                let scores: Vec<f64> = match self.decomposition {
                    Decomposition::OneVsRest => row.to_vec(),
                    Decomposition::OneVsOne => {
                        votes.fill(0);
                        for (&(i, j), &v) in pairs.iter().zip(row) {
                            votes[if v > 0.0 { i } else { j } as usize] += 1;
                        }
                        votes.iter().map(|&n| n as f64).collect()
                    }
                };
                first_largest(&scores)
            })
            .collect()
    }
}

/// The index of the first largest of `values`.
fn first_largest(values: &[f64]) -> u32 {
    let mut best = 0;
    for (c, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = c;
        }
    }
    best as u32
}

/// A trained [`KernelRegressor`]: one problem,
/// `f(x) = sum_s dual_coef[s] K(x_{support[s]}, x) + intercept`.
#[derive(Clone, Debug, PartialEq)]
pub struct FittedKernelRegressor {
    fit: Expansion,
}

impl FittedKernelRegressor {
    expansion_accessors!();

    /// The predicted value of every row of `x` (`rows` as for
    /// [`decision_function`](Self::decision_function)).
    pub fn predict<R: Rows, Q: Rows>(&self, rows: &R, x: &Q) -> Result<Vec<f64>> {
        self.decision_function(rows, x)
    }
}

/// Decision values of `x` (row-major `x.n_rows() x n_problems`) for the model whose
/// support vectors are the rows of `support_rows`, with `kernel`, dual coefficients
/// (row-major `n_problems x support_rows.n_rows()`) and intercepts, in parallel
/// blocks of rows on `n_threads` threads (0 = all cores; the values do not depend
/// on it). Stops with [`Error::Interrupted`] once `monitor` is stopped.
pub fn kernel_decision<R: Rows, Q: Rows>(
    kernel: Kernel,
    support_rows: &R,
    x: &Q,
    dual_coef: &[f64],
    intercept: &[f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let prep = KernelRows::new(kernel, support_rows)?;
    kernel_decision_function(&prep, x, dual_coef, intercept, n_threads, monitor)
}

/// The kernel matrix `K(x_i, y_j)`, row-major `x.n_rows() x y.n_rows()`, in
/// parallel blocks of rows on `n_threads` threads (0 = all cores). Stops with
/// [`Error::Interrupted`] once `monitor` is stopped.
pub fn pairwise_kernel<R: Rows, Q: Rows>(
    kernel: Kernel,
    x: &R,
    y: &Q,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let prep = KernelRows::new(kernel, y)?;
    kernel_matrix(&prep, x, n_threads, monitor)
}

#[cfg(test)]
#[path = "svm_tests.rs"]
mod tests;
