//! Linear Pegasos on real targets: support vector regression (the epsilon-
//! insensitive losses), least squares and Huber's loss, through the same step
//! loop as classification ([`crate::solvers::linear::binary`]) with a regression loss of
//! [`crate::solvers::shared::loss`].
//!
//! The step is the paper's (Shalev-Shwartz et al., Math. Programming 2011,
//! section 5): `w <- (1 - 1/t) w + 1/(lambda t k) sum_i c_i g_i x_i` with
//! `g_i = -dl/dp` at the prediction `p_i = <w, x_i> + b`, e.g. `sign(y_i - p_i)`
//! outside the epsilon tube for `epsilon_insensitive`, then the projection onto the
//! ball of radius `sqrt(2 L0 / lambda)`, `L0 = 1/m sum_i c_i l(0, y_i)`.

use crate::data::labels::check_y_len;
use crate::data::rows::Rows;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::monitor::Monitor;
use crate::solvers::linear::binary::{fit_binary, FitOutput, LinearState};
use crate::solvers::shared::held_out::HeldOutRows;
use crate::solvers::shared::params::ValidParams;

/// Fit a regression of `targets` (one per row, finite) with example weights
/// `sample_weight` (1 without), continuing `state`; the weights are written to
/// `coef` (`n_features` entries). `params.loss` must be a regression loss.
///
/// With `held_out`, the model is scored on those rows (their R^2) after every
/// pass, and the stopping rule reads that score (early stopping).
#[allow(clippy::too_many_arguments)] // a fit's inputs and the held-out rows
pub fn fit_regression<R: Rows>(
    rows: &R,
    targets: &[f64],
    sample_weight: Option<&[f64]>,
    held_out: Option<&HeldOutRows<'_, R>>,
    params: &ValidParams,
    state: &mut LinearState,
    coef: &mut [f64],
    monitor: &Monitor,
) -> Result<FitOutput> {
    check_y_len(rows.n_rows(), targets.len(), "targets")?;
    if rows.n_features() == 0 {
        return Err(Error::InvalidInput("the data has no features".into()));
    }
    let task = BinaryTask::regression(targets, sample_weight)?;
    let held = match held_out {
        Some(h) => Some(h.problem(0, rows.n_features())?),
        None => None,
    };
    fit_binary(rows, &task, held, params, state, coef, monitor, "")
}

/// [`fit_regression`] without sample weights or held-out rows: the tests' fit.
#[cfg(test)]
pub(crate) fn fit_plain<R: Rows>(
    rows: &R,
    y: &[f64],
    params: &ValidParams,
    state: &mut LinearState,
    coef: &mut [f64],
) -> FitOutput {
    fit_regression(rows, y, None, None, params, state, coef, &Monitor::new()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;
    use crate::solvers::shared::loss::{
        EpsilonInsensitive, Huber, LossFunction, SquaredEpsilonInsensitive,
    };
    use crate::solvers::shared::params::{Averaging, Params};

    /// `y = 2 x0 - x1 + 0.5` plus small noise, on 400 rows in [-1, 1]^2.
    fn line() -> (Vec<f64>, Vec<f64>) {
        let mut rng = crate::rng::Rng::seed_from_u64(7);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..400 {
            let (a, b) = (2.0 * rng.next_f64() - 1.0, 2.0 * rng.next_f64() - 1.0);
            x.extend([a, b]);
            y.push(2.0 * a - b + 0.5 + 0.01 * (rng.next_f64() - 0.5));
        }
        (x, y)
    }

    fn fit(loss: LossFunction) -> (Vec<f64>, f64) {
        let (x, y) = line();
        let rows = DenseRows::new(&x, 400, 2).unwrap();
        let params = Params {
            loss,
            alpha: 1e-4,
            max_iter: 200,
            averaging: Averaging::Suffix,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let mut state = LinearState::new(2, 3, 0).unwrap();
        let mut coef = vec![0.0; 2];
        let out = fit_plain(&rows, &y, &params, &mut state, &mut coef);
        (coef, out.intercept)
    }

    /// Every regression loss recovers the line.
    #[test]
    fn recovers_a_line() {
        for loss in [
            LossFunction::EpsilonInsensitive(EpsilonInsensitive { epsilon: 0.01 }),
            LossFunction::SquaredEpsilonInsensitive(SquaredEpsilonInsensitive { epsilon: 0.01 }),
            LossFunction::SquaredError,
            LossFunction::Huber(Huber { epsilon: 0.1 }),
        ] {
            let (w, b) = fit(loss);
            assert!((w[0] - 2.0).abs() < 0.05, "{}: {w:?} {b}", loss.name());
            assert!((w[1] + 1.0).abs() < 0.05, "{}: {w:?} {b}", loss.name());
            assert!((b - 0.5).abs() < 0.05, "{}: {w:?} {b}", loss.name());
        }
    }

    #[test]
    fn refuses_mismatches() {
        let (x, y) = line();
        let rows = DenseRows::new(&x, 400, 2).unwrap();
        let hinge = Params::default().validate().unwrap();
        let mut state = LinearState::new(2, 3, 0).unwrap();
        let mut coef = vec![0.0; 2];
        let never = Monitor::new();
        let err = fit_regression(&rows, &y, None, None, &hinge, &mut state, &mut coef, &never);
        assert!(matches!(err, Err(Error::InvalidParameter(m)) if m.contains("classification")));
        let sq = Params {
            loss: LossFunction::SquaredError,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let err = fit_regression(
            &rows,
            &y[1..],
            None,
            None,
            &sq,
            &mut state,
            &mut coef,
            &never,
        );
        assert!(matches!(err, Err(Error::ShapeMismatch(_))));
        let mut bad = y.clone();
        bad[5] = f64::NAN;
        let err = fit_regression(&rows, &bad, None, None, &sq, &mut state, &mut coef, &never);
        assert!(matches!(err, Err(Error::InvalidInput(m)) if m.contains("example 5")));
    }
}
