//! The Rust front of learning to rank with Pegasos: [`LinearRanker::params`], a
//! builder over the linear parameters ([`LinearParams`]), and `fit` on rows with
//! relevance grades grouped by query. Each step draws preference pairs (within a
//! query, or across the whole set for AUC) and steps on `x_i - x_j` as the paper's
//! update does on one example (see [`crate::solvers::linear::ranking`]).
//!
//! # Example
//! ```
//! use pegasos_core::{DenseRows, LinearRanker};
//!
//! // Two queries; within each, the grade grows with the first feature.
//! let x = [0.1, 0.5, 0.5, 0.4, 0.9, 0.3, 0.0, 0.6, 0.2, 0.1, 0.7, 0.9];
//! let y = [0.0, 1.0, 2.0, 0.0, 1.0, 2.0];
//! let rows = DenseRows::new(&x, 6, 2)?;
//! let qid = [1, 1, 1, 2, 2, 2];
//! let model = LinearRanker::params().alpha(1e-2).max_iter(50).fit(&rows, &y, Some(&qid))?;
//! assert!(model.coef()[0] > 0.0);
//! # Ok::<(), pegasos_core::Error>(())
//! ```

use crate::data::rows::Rows;
use crate::error::Result;
use crate::monitor::Monitor;
use crate::solvers::linear::binary::LinearState;
use crate::solvers::linear::builder::LinearParams;
use crate::solvers::linear::ranking::fit_ranking;
use crate::solvers::linear::regressor::FittedLinearModel;
use crate::solvers::shared::params::{Averaging, Intercept, Params};

/// A linear ranking function learned by Pegasos from preference pairs (`RankSVM`'s
/// objective): start from [`LinearRanker::params`].
#[derive(Clone, Copy, Debug)]
pub struct LinearRanker;

/// A ranker's own settings in [`LinearRankerParams`] (none so far).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ranking;

/// The parameters of a [`LinearRanker`] fit.
pub type LinearRankerParams = LinearParams<Ranking>;

impl LinearRanker {
    /// The default parameters (the hinge, no intercept: scores are compared only
    /// within a query; suffix averaging, as `PegasosRanker`'s defaults) on one
    /// thread.
    pub fn params() -> LinearRankerParams {
        Self::with_params(Params {
            intercept: Intercept::None,
            averaging: Averaging::Suffix,
            ..Params::default()
        })
    }

    /// The builder started from `params` (the hinge or the logistic loss, no
    /// intercept).
    pub fn with_params(params: Params) -> LinearRankerParams {
        LinearParams::new(params, Ranking)
    }
}

impl LinearParams<Ranking> {
    /// Train on `rows` with relevance grades `y`, grouped by the query ids `qid`
    /// (`None`: the whole set is one query, the AUC).
    pub fn fit<R: Rows>(
        &self,
        rows: &R,
        y: &[f64],
        qid: Option<&[i64]>,
    ) -> Result<FittedLinearModel> {
        self.fit_from(rows, y, qid, &mut Vec::new(), &Monitor::new())
    }

    /// Continue the fit whose solver state is `states` (one state; a fresh fit when
    /// empty), leaving the final state in `states`; `monitor` stops the fit.
    pub fn fit_from<R: Rows>(
        &self,
        rows: &R,
        y: &[f64],
        qid: Option<&[i64]>,
        states: &mut Vec<LinearState>,
        monitor: &Monitor,
    ) -> Result<FittedLinearModel> {
        self.fit_one_problem(
            rows.n_features(),
            "a ranking",
            states,
            |params, state, coef| fit_ranking(rows, y, qid, params, state, coef, monitor),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;
    use crate::solvers::linear::one_vs_rest::initial_states;

    /// The builder's model is `fit_ranking`'s, bit for bit.
    #[test]
    fn builder_fit_equals_the_solver_fit() {
        let mut rng = crate::rng::Rng::seed_from_u64(9);
        let n = 200;
        let x: Vec<f64> = (0..n * 3).map(|_| rng.next_f64()).collect();
        let y: Vec<f64> = x.chunks(3).map(|r| (r[0] * 3.0).floor()).collect();
        let qid: Vec<i64> = (0..n as i64).map(|i| i / 20).collect();
        let rows = DenseRows::new(&x, n, 3).unwrap();
        let builder = LinearRanker::params().alpha(1e-3).max_iter(5).seed(4);
        let model = builder.fit(&rows, &y, Some(&qid)).unwrap();

        let params = builder.check().unwrap();
        let mut state = initial_states(1, 3, 4).unwrap().remove(0);
        let mut coef = vec![0.0; 3];
        fit_ranking(
            &rows,
            &y,
            Some(&qid),
            &params,
            &mut state,
            &mut coef,
            &Monitor::new(),
        )
        .unwrap();
        assert_eq!(model.coef(), coef.as_slice());
        assert_eq!(model.intercept(), 0.0);
        assert!(model.coef()[0] > 0.0);
    }
}
