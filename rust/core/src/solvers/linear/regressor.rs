//! The Rust front of linear Pegasos on real targets: [`LinearRegressor::params`], a
//! builder over the linear parameters ([`LinearParams`]), `fit` and `predict`.
//! The losses are the regression losses of [`crate::solvers::shared::loss`] (epsilon-
//! insensitive by default, LIBSVM's epsilon-SVR in the primal; squared, squared
//! epsilon-insensitive, Huber); the update rule is the paper's with the loss's
//! subgradient (see [`crate::solvers::linear::regression`]).
//!
//! # Example
//! ```
//! use pegasos_core::{DenseRows, LinearRegressor};
//!
//! // y = 2 x0 - x1 on a grid.
//! let (mut x, mut y) = (Vec::new(), Vec::new());
//! for i in 0..100 {
//!     let (a, b) = ((i % 10) as f64 / 10.0, (i / 10) as f64 / 10.0);
//!     x.extend([a, b]);
//!     y.push(2.0 * a - b);
//! }
//! let rows = DenseRows::new(&x, 100, 2)?;
//! let model = LinearRegressor::params().alpha(1e-3).max_iter(50).fit(&rows, &y)?;
//! let error: f64 = model.predict(&rows)?.iter().zip(&y).map(|(p, t)| (p - t).abs()).sum();
//! assert!(error / 100.0 < 0.15, "mean absolute error {}", error / 100.0);
//! # Ok::<(), pegasos_core::Error>(())
//! ```

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::solvers::linear::binary::{check_linear_states, FitOutput, LinearState};
use crate::solvers::linear::builder::LinearParams;
use crate::solvers::linear::one_vs_rest::{decision_function, initial_states};
use crate::solvers::linear::regression::fit_regression;
use crate::solvers::shared::held_out::HeldOutRows;
use crate::solvers::shared::loss::{EpsilonInsensitive, LossFunction};
use crate::solvers::shared::params::{Averaging, Params, ValidParams};

/// Linear regression by Pegasos: start from [`LinearRegressor::params`].
#[derive(Clone, Copy, Debug)]
pub struct LinearRegressor;

/// A regressor's own settings in [`LinearRegressorParams`] (none so far).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regression;

/// The parameters of a [`LinearRegressor`] fit.
pub type LinearRegressorParams = LinearParams<Regression>;

impl LinearRegressor {
    /// The default parameters with the epsilon-insensitive loss (`epsilon = 0.1`)
    /// and suffix averaging (as `PegasosRegressor`'s defaults) on one thread.
    pub fn params() -> LinearRegressorParams {
        Self::with_params(Params {
            loss: LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: 0.1 }),
            averaging: Averaging::Suffix,
            ..Params::default()
        })
    }

    /// The builder started from `params` (their loss must be a regression loss).
    pub fn with_params(params: Params) -> LinearRegressorParams {
        LinearParams::new(params, Regression)
    }
}

impl<K> LinearParams<K> {
    /// Fit one problem (a regression or a ranking, `what`) of `n_features` weights
    /// with `solve`, continuing the one state in `states` (fresh, stream 0 of the
    /// seed, when empty).
    pub(crate) fn fit_one_problem(
        &self,
        n_features: usize,
        what: &str,
        states: &mut Vec<LinearState>,
        solve: impl FnOnce(&ValidParams, &mut LinearState, &mut [f64]) -> Result<FitOutput>,
    ) -> Result<FittedLinearModel> {
        let params = self.check()?;
        check_linear_states(states, what)?;
        if states.is_empty() {
            *states = initial_states(1, n_features, params.seed)?;
        }
        let n = states.len();
        let [state] = states.as_mut_slice() else {
            return Err(Error::InvalidState(format!(
                "{what} continues one solver state, not {n}"
            )));
        };
        let mut coef = try_filled_vec(n_features, 0.0, "the coefficients")?;
        let output = solve(&params, state, &mut coef)?;
        Ok(FittedLinearModel::new(coef, output, self.n_threads))
    }
}

impl LinearParams<Regression> {
    /// Train on `rows` with real `targets`, every example weighing 1.
    pub fn fit<R: Rows>(&self, rows: &R, targets: &[f64]) -> Result<FittedLinearModel> {
        self.fit_from(rows, targets, None, &mut Vec::new(), &Monitor::new())
    }

    /// Continue the fit whose solver state is `states` (one state; a fresh fit when
    /// empty) on `rows` with `targets` and optional `sample_weight`, leaving the
    /// final state in `states`; `monitor` stops the fit. Rows that are not checked
    /// as a whole are checked as the solver reads them; the targets are checked.
    pub fn fit_from<R: Rows>(
        &self,
        rows: &R,
        targets: &[f64],
        sample_weight: Option<&[f64]>,
        states: &mut Vec<LinearState>,
        monitor: &Monitor,
    ) -> Result<FittedLinearModel> {
        self.fit_held_out(rows, (targets, sample_weight), None, states, monitor)
    }

    /// [`fit_from`](Self::fit_from), scored on the `held_out` rows (their R^2)
    /// after every pass when given, the stopping rule reading that score (early
    /// stopping, see `solvers::shared::held_out`).
    pub fn fit_held_out<R: Rows>(
        &self,
        rows: &R,
        (targets, sample_weight): (&[f64], Option<&[f64]>),
        held_out: Option<&HeldOutRows<'_, R>>,
        states: &mut Vec<LinearState>,
        monitor: &Monitor,
    ) -> Result<FittedLinearModel> {
        self.fit_one_problem(
            rows.n_features(),
            "a regression",
            states,
            |params, state, coef| {
                fit_regression(
                    rows,
                    targets,
                    sample_weight,
                    held_out,
                    params,
                    state,
                    coef,
                    monitor,
                )
            },
        )
    }
}

/// A trained linear model of one problem, `f(x) = <coef, x> + intercept`: a
/// [`LinearRegressor`]'s or a [`LinearRanker`](crate::LinearRanker)'s (whose
/// intercept is 0: only differences of scores matter).
#[derive(Clone, Debug, PartialEq)]
pub struct FittedLinearModel {
    coef: Vec<f64>,
    output: FitOutput,
    n_threads: usize,
}

impl FittedLinearModel {
    pub(crate) fn new(coef: Vec<f64>, output: FitOutput, n_threads: usize) -> Self {
        Self {
            coef,
            output,
            n_threads,
        }
    }

    /// The weights, one per feature.
    pub fn coef(&self) -> &[f64] {
        &self.coef
    }

    /// The intercept.
    pub fn intercept(&self) -> f64 {
        self.output.intercept
    }

    /// What the fit reported (passes, objective, convergence).
    pub fn fit_output(&self) -> &FitOutput {
        &self.output
    }

    /// The weights and the fit's report, without a copy.
    pub fn into_parts(self) -> (Vec<f64>, FitOutput) {
        (self.coef, self.output)
    }

    /// `<coef, x_i> + intercept` for every row: a regressor's predictions, a
    /// ranker's scores.
    pub fn predict<R: Rows>(&self, rows: &R) -> Result<Vec<f64>> {
        if rows.n_features() != self.coef.len() {
            return Err(Error::ShapeMismatch(format!(
                "{} features, the model was trained on {}",
                rows.n_features(),
                self.coef.len()
            )));
        }
        let intercept = [self.output.intercept];
        decision_function(
            rows,
            &self.coef,
            &intercept,
            self.n_threads,
            &Monitor::new(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;

    /// The builder's model is `fit_regression`'s, bit for bit.
    #[test]
    fn builder_fit_equals_the_solver_fit() {
        let mut rng = crate::rng::Rng::seed_from_u64(5);
        let n = 300;
        let x: Vec<f64> = (0..n * 4).map(|_| rng.next_f64() - 0.5).collect();
        let y: Vec<f64> = x.chunks(4).map(|r| r[0] - 2.0 * r[2] + 0.3).collect();
        let rows = DenseRows::new(&x, n, 4).unwrap();
        let builder = LinearRegressor::params()
            .alpha(1e-3)
            .max_iter(7)
            .averaging(Averaging::Suffix)
            .seed(11);
        let model = builder.fit(&rows, &y).unwrap();

        let params = builder.check().unwrap();
        let mut state = initial_states(1, 4, 11).unwrap().remove(0);
        let mut coef = vec![0.0; 4];
        let out = crate::solvers::linear::regression::fit_plain(
            &rows, &y, &params, &mut state, &mut coef,
        );
        assert_eq!(model.coef(), coef.as_slice());
        assert_eq!(model.intercept().to_bits(), out.intercept.to_bits());
        let p = model.predict(&rows).unwrap();
        assert_eq!(p.len(), n);
    }

    /// A second fit from the first one's state continues it; two states are refused.
    #[test]
    fn fit_from_continues_one_state() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let rows = DenseRows::new(&x, 4, 1).unwrap();
        let y = [0.0, 1.0, 2.0, 3.0];
        let b = LinearRegressor::params().max_iter(2);
        let mut states = Vec::new();
        b.fit_from(&rows, &y, None, &mut states, &Monitor::new())
            .unwrap();
        assert_eq!(states.len(), 1);
        let t = states[0].steps();
        b.fit_from(&rows, &y, None, &mut states, &Monitor::new())
            .unwrap();
        assert!(states[0].steps() > t);
        let mut two = initial_states(2, 1, 0).unwrap();
        let e = b
            .fit_from(&rows, &y, None, &mut two, &Monitor::new())
            .unwrap_err();
        assert!(matches!(e, Error::InvalidState(_)), "{e}");
    }
}
