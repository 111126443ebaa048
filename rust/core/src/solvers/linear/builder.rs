//! The builder of the linear estimators' parameters ([`LinearParams`]): one set of
//! setters for the hyper-parameters every linear Pegasos fit shares ([`Params`]),
//! and the thread count, over the estimator's own settings `K` (see
//! [`LinearSvm`](crate::LinearSvm), [`LinearRegressor`](crate::LinearRegressor)
//! and [`LinearRanker`](crate::LinearRanker)). The parameters are checked by
//! [`Params::validate`] when a fit starts, as linfa's `ParamGuard` does.

use crate::error::Result;
use crate::solvers::shared::loss::LossFunction;
use crate::solvers::shared::params::{
    params_setter as setter, Averaging, Intercept, Params, Sampling, ValidParams,
};

/// The parameters of a linear fit, set one by one; `K` holds the estimator's own
/// settings (the multiclass scheme of a classifier; nothing for a regressor or a
/// ranker).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearParams<K> {
    pub(crate) params: Params,
    pub(crate) n_threads: usize,
    pub(crate) kind: K,
}

impl<K> LinearParams<K> {
    /// `params` on one thread, with the estimator's settings `kind`.
    pub(crate) fn new(params: Params, kind: K) -> Self {
        Self {
            params,
            n_threads: 1,
            kind,
        }
    }

    setter!(
        /// The loss minimised.
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
        /// Project onto the ball that holds the optimum after each step.
        projection: bool
    );
    setter!(
        /// How the intercept is learned.
        intercept: Intercept
    );
    setter!(
        /// Which iterate the fit returns.
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
        /// Run exactly this many steps instead of `max_iter` passes.
        max_steps: Option<u64>
    );
    setter!(
        /// Stop when the objective stops improving by this fraction.
        tol: Option<f64>
    );
    setter!(
        /// Passes without improvement tolerated before stopping (with `tol`).
        n_iter_no_change: usize
    );
    setter!(
        /// Seed of the generator; problem `p` uses stream `p`.
        seed: u64
    );
    setter!(
        /// Print one line per pass to stderr.
        verbose: bool
    );

    /// Threads to train and predict on (0 = all cores; the model does not depend
    /// on it).
    #[must_use]
    pub fn n_threads(mut self, n_threads: usize) -> Self {
        self.n_threads = n_threads;
        self
    }

    /// The parameters as set so far.
    pub fn as_params(&self) -> &Params {
        &self.params
    }

    /// The validated parameters, or [`Error::InvalidParameter`](crate::Error)
    /// naming the first one out of range.
    pub fn check(&self) -> Result<ValidParams> {
        self.params.clone().validate()
    }
}
