//! Hyper-parameters of linear Pegasos, validated once into [`ValidParams`] before any
//! solver runs (the linfa pattern): the solver never re-checks them.

use crate::error::{Error, Result};
use crate::solvers::shared::loss::{Loss, LossFunction};

/// How the examples of each step are drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// i.i.d. uniform with replacement (the paper).
    Uniform,
    /// A fresh random permutation for every pass (without replacement within a pass).
    Shuffle,
    /// Each draw first picks the positive or the negative class with probability 1/2,
    /// then an example of that class uniformly (sofia-ml's balanced sampling).
    Balanced,
    /// A fixed visiting order, cycled (VLFeat's permutation). Indices are validated
    /// against the number of rows when training starts.
    Order(Vec<usize>),
}

/// How the intercept is learned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Intercept {
    /// No intercept: the decision function is `<w, x>`.
    None,
    /// The paper's variant: an unregularised bias `b` with the same step size
    /// `eta_t`, excluded from `||w||` and from the projection.
    Unregularized,
    /// VLFeat's / LIBLINEAR's bias multiplier: a constant extra feature `B` whose
    /// weight is part of `w`, hence regularised and projected like the others. The
    /// intercept is `B * w_B`.
    BiasMultiplier(f64),
}

/// Which iterate the fit returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Averaging {
    /// The last iterate `w_{T+1}`.
    Off,
    /// Suffix averaging (Rakhlin, Shamir, Sridharan 2012): the mean of the iterates
    /// of the last half of the steps of each fit call. With `eta_t = 1/(lambda t)` an
    /// average from `t = 1` is dominated by the early iterates; this one is not.
    Suffix,
    /// The mean of all iterates from this step number on (1-based), across calls.
    FromStep(u64),
    /// The mean of the iterates weighted by their step number `t`, from the first
    /// step averaged, across calls (Lacoste-Julien, Schmidt, Bach 2012, "A simpler
    /// approach to obtaining an O(1/t) convergence rate for the projected stochastic
    /// subgradient method"): an anytime average with the optimal rate, for runs
    /// whose length is not known in advance (`partial_fit`). A running average of
    /// another mode is continued with these weights.
    Weighted,
}

/// Hyper-parameters of a linear Pegasos fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The loss minimised ([`LossFunction`]); the hinge by default.
    pub loss: LossFunction,
    /// Regularisation strength, the paper's lambda (> 0).
    pub alpha: f64,
    /// Examples per step, the paper's k (>= 1).
    pub batch_size: usize,
    /// Project onto the ball that holds the optimum after each step (radius
    /// `sqrt(L0/alpha)`, `L0` the mean weighted loss at zero: `1/sqrt(alpha)` for
    /// the hinge with unit weights).
    pub projection: bool,
    /// Intercept handling.
    pub intercept: Intercept,
    /// Averaging of iterates.
    pub averaging: Averaging,
    /// Sampling scheme.
    pub sampling: Sampling,
    /// Number of passes; one pass is `ceil(n_samples / batch_size)` steps.
    pub max_iter: usize,
    /// Linear solver: run exactly this many steps (the paper's `T`) instead of
    /// `max_iter` passes; may be less than one pass.
    pub max_steps: Option<u64>,
    /// Stop when the primal objective has not improved by more than
    /// `tol * |best objective|` for `n_iter_no_change` consecutive passes.
    pub tol: Option<f64>,
    /// Passes without improvement tolerated before stopping (with `tol`).
    pub n_iter_no_change: usize,
    /// Seed of the generator; class `c` uses stream `c` of this seed.
    pub seed: u64,
    /// Print one line per pass to stderr.
    pub verbose: bool,
    /// The one-class SVM (Schölkopf et al. 2001) instead of a classification: every
    /// example is positive, `alpha` is `nu` (in `(0, 1]`) and the unregularised
    /// bias `b = 1 - rho` drifts by `-eta_t nu` each step (see
    /// `solvers::linear::binary`); the hinge only.
    pub one_class: bool,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            loss: LossFunction::Hinge,
            alpha: 1e-4,
            batch_size: 1,
            projection: true,
            intercept: Intercept::Unregularized,
            averaging: Averaging::Off,
            sampling: Sampling::Uniform,
            max_iter: 20,
            max_steps: None,
            tol: None,
            n_iter_no_change: 5,
            seed: 0,
            verbose: false,
            one_class: false,
        }
    }
}

/// A setter of a builder that keeps its [`Params`] in `self.params`, for one of
/// their fields (the linear and the kernel builders share these).
macro_rules! params_setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> Self {
            self.params.$name = value;
            self
        }
    };
}
pub(crate) use params_setter;

/// Parameters that passed [`Params::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValidParams(Params);

impl ValidParams {
    /// The parameters themselves (to start a builder from them, for example).
    pub fn into_params(self) -> Params {
        self.0
    }
}

impl std::ops::Deref for ValidParams {
    type Target = Params;
    fn deref(&self) -> &Params {
        &self.0
    }
}

impl Params {
    /// Check every range; the returned value is what solvers accept.
    pub fn validate(self) -> Result<ValidParams> {
        let bad = |m: String| Err(Error::InvalidParameter(m));
        self.loss.validate()?;
        if self.sampling == Sampling::Balanced && !self.loss.is_margin_loss() {
            return bad(format!(
                "balanced sampling draws from two classes; loss {:?} is a regression",
                self.loss.name()
            ));
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return bad(format!(
                "alpha must be a positive finite number, got {}",
                self.alpha
            ));
        }
        if self.batch_size < 1 {
            return bad(format!("batch_size must be >= 1, got {}", self.batch_size));
        }
        if let Intercept::BiasMultiplier(b) = self.intercept {
            if !(b.is_finite() && b > 0.0) {
                return bad(format!(
                    "intercept_scaling must be positive and finite, got {b}"
                ));
            }
        }
        if let Averaging::FromStep(0) = self.averaging {
            return bad("averaging start step is 1-based; got 0".into());
        }
        if let Some(tol) = self.tol {
            if !(tol.is_finite() && tol >= 0.0) {
                return bad(format!("tol must be a non-negative number, got {tol}"));
            }
        }
        if self.max_steps == Some(0) {
            return bad("max_steps must be >= 1".into());
        }
        if self.n_iter_no_change < 1 {
            return bad("n_iter_no_change must be >= 1".into());
        }
        if let Sampling::Order(o) = &self.sampling {
            if o.is_empty() {
                return bad("the visiting order must not be empty".into());
            }
        }
        if self.one_class {
            if self.loss != LossFunction::Hinge {
                return bad(format!(
                    "the one-class SVM minimises the hinge, not loss {:?}",
                    self.loss.name()
                ));
            }
            if self.alpha > 1.0 {
                return bad(format!(
                    "nu (alpha of the one-class SVM) must be in (0, 1], got {}",
                    self.alpha
                ));
            }
            if self.sampling == Sampling::Balanced {
                return bad(
                    "balanced sampling needs two classes; the one-class SVM has one".into(),
                );
            }
        }
        Ok(ValidParams(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range() {
        for p in [
            Params {
                alpha: 0.0,
                ..Params::default()
            },
            Params {
                alpha: f64::NAN,
                ..Params::default()
            },
            Params {
                batch_size: 0,
                ..Params::default()
            },
            Params {
                intercept: Intercept::BiasMultiplier(-1.0),
                ..Params::default()
            },
            Params {
                tol: Some(-1.0),
                ..Params::default()
            },
            Params {
                sampling: Sampling::Order(vec![]),
                ..Params::default()
            },
        ] {
            assert!(matches!(p.validate(), Err(Error::InvalidParameter(_))));
        }
        assert!(Params::default().validate().is_ok());
    }
}
