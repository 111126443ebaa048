//! The losses Pegasos minimises, behind one trait that every solver steps through.
//!
//! # Objective and update rule
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated
//! sub-GrAdient SOlver for SVM", Math. Programming 127, 2011, section 5 "Other
//! prediction problems and loss functions") minimises
//!
//! ```text
//! F(w, b) = lambda/2 ||w||^2 + 1/m sum_i c_i l(<w, x_i> + b, y_i)
//! ```
//!
//! for any loss `l(p, y)` convex in the prediction `p`. With `eta_t = 1/(lambda t)`,
//! a step on the batch `A_t` of `k` examples is
//!
//! ```text
//! w_{t+1/2} = (1 - eta_t lambda) w_t + eta_t / k * sum_{i in A_t} c_i g_i x_i,
//!             g_i = -dl/dp (<w_t, x_i> + b_t, y_i)                 (a sub-gradient)
//! w_{t+1}   = min(1, r / ||w_{t+1/2}||) w_{t+1/2}                  (optional)
//! ```
//!
//! [`Loss::step_weight`] is `g_i`; the solvers add `x_i` only where it is not zero,
//! so a step costs the non-zeros of the examples whose loss has a slope. With the
//! hinge `g_i = y_i` on margin violations and 0 elsewhere: the paper's rule.
//!
//! # The projection radius
//! Let `(w*, b*)` minimise `F`. The loss is non-negative, so
//! `lambda/2 ||w*||^2 <= F(w*, b*) <= F(0, 0) = 1/m sum_i c_i l(0, y_i)`, hence
//!
//! ```text
//! ||w*||^2 <= 2 L0 / lambda,    L0 = 1/m sum_i c_i l(0, y_i)
//! ```
//!
//! and projecting onto that ball never moves the iterates away from `w*` (the
//! paper's lemma: projection onto a convex set containing the optimum). The
//! solvers receive `L0` (for a margin loss `l(0, y)` is the same for both labels:
//! `L0 = l(0) * mean(c)`, so the mean weight suffices) and [`Loss::radius_factor`]:
//! 2 by the argument above. The hinge keeps the paper's tighter radius
//! `sqrt(mean(c) / lambda)` (factor 1, `l(0) = 1`), from its dual: the dual
//! variables are bounded by `c_i`, and strong duality gives
//! `lambda ||w*||^2 <= 1/m sum_i c_i` (Theorem 1 of the paper with weights).
//!
//! # The losses
//! Margin losses of `z = y p`, `y = +-1` (scikit-learn's `SGDClassifier` names):
//!
//! | loss | `l(z)` | `-dl/dz` |
//! |---|---|---|
//! | `hinge` | `max(0, 1 - z)` | `1` if `z < 1` |
//! | `log_loss` | `ln(1 + e^-z)` | `1 / (1 + e^z)` |
//! | `squared_hinge` | `max(0, 1 - z)^2` | `2 (1 - z)` if `z < 1` |
//! | `modified_huber` | `max(0, 1 - z)^2` if `z >= -1`, else `-4 z` | `2 (1 - z)`, or 4 below -1 |
//!
//! Regression losses of the residual `r = p - y` (`SGDRegressor`'s names; `eps` is
//! `epsilon`):
//!
//! | loss | `l(r)` | `-dl/dp` |
//! |---|---|---|
//! | `epsilon_insensitive` | `max(0, abs(r) - eps)` | `-sign(r)` if `abs(r) > eps` |
//! | `squared_epsilon_insensitive` | `max(0, abs(r) - eps)^2` | `-2 sign(r) (abs(r) - eps)` |
//! | `squared_error` | `r^2 / 2` | `-r` |
//! | `huber` | `r^2 / 2` if `abs(r) <= eps`, else `eps abs(r) - eps^2 / 2` | `-r`, clipped to `[-eps, eps]` |
//!
//! `squared_hinge` is LIBLINEAR's L2-loss SVM (`-s 1`, `-s 2`), `log_loss` its
//! logistic regression (`-s 0`, `-s 7`), `squared_epsilon_insensitive` its L2-loss
//! SVR (`-s 11`) and `epsilon_insensitive` its L1-loss SVR (`-s 12`, `-s 13`).
//! # Where a run starts
//! The paper's analysis needs the sub-gradients bounded on the ball the iterates
//! live in. The squared losses' slopes grow with the residual, and with
//! `eta_t = 1/(lambda t)` a step on example `i` where `eta_t c_i kappa
//! (||x_i||^2 + e) > 2` overshoots by more than it corrects: the prediction on
//! `x_i` lands further from its target than it started. The weights then bounce on
//! the ball's surface (or, without projection, grow geometrically) for about
//! `kappa c ||x||^2 / lambda` steps, far more than a fit takes when `lambda` is
//! small, and the averaged model carries those iterates. For these losses
//! ([`Loss::curvature`] is `Some(kappa)`: the squared hinge, the modified Huber
//! loss, whose part above `z = -1` is the squared hinge, and the squared regression
//! losses) a fresh run starts at step
//!
//! ```text
//! t0 = ceil(kappa max(R^2, e max_i c_i) / lambda),   s_i = c_i (||x_i||^2 + e)
//! ```
//!
//! instead of 1 (`e` the squared constant feature of the intercept: 1 for the
//! unregularised bias, `B^2` for a bias multiplier): Pegasos started at `t0` from
//! `w = 0`. Its first step is `1 / (kappa R^2)`, and `R^2` depends on whether the
//! slope is bounded ([`Loss::slope_is_bounded`]):
//!
//! - unbounded (the squared hinge and the squared regression losses): `R^2 = max_i
//!   s_i`, a step no row overshoots. A step that overshoots a long row moves every
//!   other row's prediction too (through the bias and the features they share), and
//!   an unbounded slope turns those errors into larger steps: the error cascades,
//!   and with `t0` far beyond the steps of a fit the schedule never recovers.
//!   Standardised data has long rows wherever a rare feature is set (a9a, w8a: the
//!   longest `s_i` tens of times the weighted mean below) or where the row norms
//!   have a heavy tail (cpusmall: one squared norm over a hundred times the mean),
//!   and a start from a mean left the default fits of the squared hinge and of
//!   `squared_error` there orders of magnitude above the optimum;
//! - bounded (the modified Huber loss, linear below `z = -1`): `R^2 = sum_i s_i^2 /
//!   sum_i s_i`, the mean of `s_i` weighted by itself, the constant of Bach and
//!   Moulines' condition `E[s x x^T] <= R^2 E[x x^T]` for a stable stochastic
//!   gradient step on a quadratic (Bach, Moulines, "Non-strongly-convex smooth
//!   stochastic approximation with convergence rate O(1/n)", `NeurIPS` 2013), with
//!   the equality of isotropic rows. An overshoot costs at most a bounded step, so
//!   the average row's stability suffices, the long rows counting as often as they
//!   pull. It lies between the mean of `s_i` and their maximum, close to the
//!   maximum when one row dominates, and starts earlier on moderate tails.
//!
//! `e max_i c_i` keeps the unregularised bias's first step stable under large
//! example weights. The step is still `1/(lambda t)`, and the analysis of the paper
//! holds from `t0` on (its regret sum starts there; the price is an extra `O(t0 /
//! T)` in the bound). The kernel solver starts from the largest `c_i (K(x_i, x_i) +
//! e)` (with rbf every `K(x_i, x_i)` is 1; `crate::solvers::kernel::solver`).
//! Bottou's SGD and scikit-learn's `"optimal"` schedule offset `t` for the same
//! reason, from a guess of the weights' size rather than from the data. The losses
//! without a curvature start at `t = 1`, as in the paper.
//!
//! `log_loss` and `squared_error` have a slope everywhere ([`Loss::has_flat_region`]
//! is false): every example drawn changes `w`, and in the kernel form every example
//! would become a support vector.

use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::math::{exp, ln_1p};

/// A loss of the prediction `p = <w, x> + b` and the target `y`, as the solvers
/// step through it (see the module documentation).
pub trait Loss {
    /// `l(p, y)`.
    fn value(&self, p: f64, y: f64) -> f64;
    /// `-dl/dp (p, y)`, a sub-gradient: the weight of `x` in the step (0 where the
    /// loss is flat).
    fn step_weight(&self, p: f64, y: f64) -> f64;
    /// `kappa` of the projection radius `r^2 = kappa L0 / lambda` (module
    /// documentation).
    fn radius_factor(&self) -> f64 {
        2.0
    }
    /// For a loss with a quadratic part (the squared losses and the modified
    /// Huber loss): the largest second derivative `kappa = max d2l/dp2`. A fresh
    /// run then takes its first step at `t0 = ceil(kappa R^2 / lambda)`, `R^2` from
    /// the rows' weighted squared norms (see the module documentation and
    /// [`crate::solvers::linear::binary::first_step`]) rather than at 1. `None` for the
    /// other losses, whose runs start at `t = 1` as in the paper.
    fn curvature(&self) -> Option<f64> {
        None
    }
    /// Whether the slope is zero on a region of `p` (examples there are not used by
    /// a step; a kernel expansion stays sparse).
    fn has_flat_region(&self) -> bool;
    /// Whether the targets are the labels `+1`/`-1` (a margin loss) rather than
    /// real values (regression).
    fn is_margin_loss(&self) -> bool;
    /// Whether `|dl/dp|` is bounded: every loss without a curvature, and the
    /// modified Huber loss, linear below `z = -1`. A loss with a curvature whose
    /// slope is bounded starts from the self-weighted mean of the rows' squared
    /// norms rather than their maximum (module documentation).
    fn slope_is_bounded(&self) -> bool {
        self.curvature().is_none()
    }
}

/// `max(0, 1 - z)` with `z = y p`: the SVM's loss, the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hinge;

impl Loss for Hinge {
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        (1.0 - y * p).max(0.0)
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        if y * p < 1.0 {
            y
        } else {
            0.0
        }
    }
    fn radius_factor(&self) -> f64 {
        1.0
    }
    fn has_flat_region(&self) -> bool {
        true
    }
    fn is_margin_loss(&self) -> bool {
        true
    }
}

/// `ln(1 + e^-z)`: logistic regression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogLoss;

impl Loss for LogLoss {
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let z = y * p;
        // ln(1 + e^-z) without overflow: -z + ln(1 + e^z) for negative z.
        if z > 0.0 {
            ln_1p(exp(-z))
        } else {
            -z + ln_1p(exp(z))
        }
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        let z = y * p;
        // 1 / (1 + e^z) = e^-z / (1 + e^-z), whichever exponent is not positive.
        let s = if z > 0.0 {
            let e = exp(-z);
            e / (1.0 + e)
        } else {
            1.0 / (1.0 + exp(z))
        };
        y * s
    }
    fn has_flat_region(&self) -> bool {
        false
    }
    fn is_margin_loss(&self) -> bool {
        true
    }
}

/// `max(0, 1 - z)^2`: the L2-loss SVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquaredHinge;

impl Loss for SquaredHinge {
    fn curvature(&self) -> Option<f64> {
        Some(2.0)
    }
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let h = (1.0 - y * p).max(0.0);
        h * h
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        let h = 1.0 - y * p;
        if h > 0.0 {
            2.0 * h * y
        } else {
            0.0
        }
    }
    fn has_flat_region(&self) -> bool {
        true
    }
    fn is_margin_loss(&self) -> bool {
        true
    }
}

/// Zhang's modified Huber loss: the squared hinge up to `z = -1`, linear below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModifiedHuber;

impl Loss for ModifiedHuber {
    fn slope_is_bounded(&self) -> bool {
        true
    }
    /// Its quadratic part (`z >= -1`) is the squared hinge's: curvature 2, and the
    /// same overshoot from step 1 (its slope is bounded by 4, but `4 / lambda` is
    /// no bound at all when `lambda` is small).
    fn curvature(&self) -> Option<f64> {
        Some(2.0)
    }
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let z = y * p;
        if z >= -1.0 {
            let h = (1.0 - z).max(0.0);
            h * h
        } else {
            -4.0 * z
        }
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        let z = y * p;
        if z >= 1.0 {
            0.0
        } else if z >= -1.0 {
            2.0 * (1.0 - z) * y
        } else {
            4.0 * y
        }
    }
    fn has_flat_region(&self) -> bool {
        true
    }
    fn is_margin_loss(&self) -> bool {
        true
    }
}

/// `max(0, |p - y| - epsilon)`: support vector regression (L1-loss SVR).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpsilonInsensitive {
    /// Width of the tube in which errors cost nothing.
    pub epsilon: f64,
}

impl Loss for EpsilonInsensitive {
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        ((p - y).abs() - self.epsilon).max(0.0)
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        let r = p - y;
        if r > self.epsilon {
            -1.0
        } else if r < -self.epsilon {
            1.0
        } else {
            0.0
        }
    }
    fn has_flat_region(&self) -> bool {
        true
    }
    fn is_margin_loss(&self) -> bool {
        false
    }
}

/// `max(0, |p - y| - epsilon)^2`: the L2-loss SVR.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SquaredEpsilonInsensitive {
    /// Width of the tube in which errors cost nothing.
    pub epsilon: f64,
}

impl Loss for SquaredEpsilonInsensitive {
    fn curvature(&self) -> Option<f64> {
        Some(2.0)
    }
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let e = ((p - y).abs() - self.epsilon).max(0.0);
        e * e
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        let r = p - y;
        if r > self.epsilon {
            -2.0 * (r - self.epsilon)
        } else if r < -self.epsilon {
            -2.0 * (r + self.epsilon)
        } else {
            0.0
        }
    }
    fn has_flat_region(&self) -> bool {
        true
    }
    fn is_margin_loss(&self) -> bool {
        false
    }
}

/// `(p - y)^2 / 2`: least squares (ridge regression with the L2 term).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquaredError;

impl Loss for SquaredError {
    fn curvature(&self) -> Option<f64> {
        Some(1.0)
    }
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let r = p - y;
        0.5 * r * r
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        y - p
    }
    fn has_flat_region(&self) -> bool {
        false
    }
    fn is_margin_loss(&self) -> bool {
        false
    }
}

/// Huber's loss: least squares within `epsilon` of the target, linear beyond.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Huber {
    /// Residual at which the loss turns linear.
    pub epsilon: f64,
}

impl Loss for Huber {
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        let r = (p - y).abs();
        if r <= self.epsilon {
            0.5 * r * r
        } else {
            self.epsilon * r - 0.5 * self.epsilon * self.epsilon
        }
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        (y - p).clamp(-self.epsilon, self.epsilon)
    }
    fn has_flat_region(&self) -> bool {
        // Flat only at the target itself: no region.
        false
    }
    fn is_margin_loss(&self) -> bool {
        false
    }
}

/// One of the losses above, chosen at run time (the parameter the solvers take).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum LossFunction {
    /// The hinge `max(0, 1 - y p)` (the paper's SVM; LIBLINEAR `-s 3`).
    #[default]
    Hinge,
    /// The logistic loss `ln(1 + exp(-y p))` (logistic regression).
    LogLoss,
    /// The squared hinge `max(0, 1 - y p)^2` (LIBLINEAR `-s 2`).
    SquaredHinge,
    /// scikit-learn's modified Huber: the squared hinge for `y p >= -1`, linear
    /// below.
    ModifiedHuber,
    /// The epsilon-insensitive loss `max(0, |p - y| - epsilon)` (epsilon-SVR).
    EpsilonInsensitive(EpsilonInsensitive),
    /// Its square (LIBLINEAR `-s 11`).
    SquaredEpsilonInsensitive(SquaredEpsilonInsensitive),
    /// The squared error `(p - y)^2 / 2` (least squares).
    SquaredError,
    /// Huber's loss: squared within `epsilon` of the target, linear beyond.
    Huber(Huber),
}

/// Call `$f` on the loss inside `$self`.
macro_rules! on_loss {
    ($self:expr, $l:ident => $body:expr) => {
        match $self {
            LossFunction::Hinge => {
                let $l = Hinge;
                $body
            }
            LossFunction::LogLoss => {
                let $l = LogLoss;
                $body
            }
            LossFunction::SquaredHinge => {
                let $l = SquaredHinge;
                $body
            }
            LossFunction::ModifiedHuber => {
                let $l = ModifiedHuber;
                $body
            }
            LossFunction::EpsilonInsensitive($l) => $body,
            LossFunction::SquaredEpsilonInsensitive($l) => $body,
            LossFunction::SquaredError => {
                let $l = SquaredError;
                $body
            }
            LossFunction::Huber($l) => $body,
        }
    };
}

impl Loss for LossFunction {
    #[inline]
    fn value(&self, p: f64, y: f64) -> f64 {
        on_loss!(self, l => l.value(p, y))
    }
    #[inline]
    fn step_weight(&self, p: f64, y: f64) -> f64 {
        on_loss!(self, l => l.step_weight(p, y))
    }
    fn radius_factor(&self) -> f64 {
        on_loss!(self, l => l.radius_factor())
    }
    fn curvature(&self) -> Option<f64> {
        on_loss!(self, l => l.curvature())
    }
    fn has_flat_region(&self) -> bool {
        on_loss!(self, l => l.has_flat_region())
    }
    fn is_margin_loss(&self) -> bool {
        on_loss!(self, l => l.is_margin_loss())
    }
    fn slope_is_bounded(&self) -> bool {
        on_loss!(self, l => l.slope_is_bounded())
    }
}

impl LossFunction {
    /// The loss scikit-learn names `name` (`SGDClassifier`'s and `SGDRegressor`'s
    /// `loss`), with `epsilon` for the losses that have one.
    pub fn from_name(name: &str, epsilon: f64) -> Result<Self> {
        let loss = match name {
            "hinge" => Self::Hinge,
            "log_loss" => Self::LogLoss,
            "squared_hinge" => Self::SquaredHinge,
            "modified_huber" => Self::ModifiedHuber,
            "epsilon_insensitive" => Self::EpsilonInsensitive(EpsilonInsensitive { epsilon }),
            "squared_epsilon_insensitive" => {
                Self::SquaredEpsilonInsensitive(SquaredEpsilonInsensitive { epsilon })
            }
            "squared_error" => Self::SquaredError,
            "huber" => Self::Huber(Huber { epsilon }),
            other => {
                return Err(Error::InvalidParameter(format!(
                    "loss must be one of {}; got {other:?}",
                    Self::NAMES.join(", ")
                )))
            }
        };
        loss.validate()?;
        Ok(loss)
    }

    /// The names [`LossFunction::from_name`] accepts.
    pub const NAMES: [&'static str; 8] = [
        "hinge",
        "log_loss",
        "squared_hinge",
        "modified_huber",
        "epsilon_insensitive",
        "squared_epsilon_insensitive",
        "squared_error",
        "huber",
    ];

    /// scikit-learn's name of the loss.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Hinge => "hinge",
            Self::LogLoss => "log_loss",
            Self::SquaredHinge => "squared_hinge",
            Self::ModifiedHuber => "modified_huber",
            Self::EpsilonInsensitive(_) => "epsilon_insensitive",
            Self::SquaredEpsilonInsensitive(_) => "squared_epsilon_insensitive",
            Self::SquaredError => "squared_error",
            Self::Huber(_) => "huber",
        }
    }

    /// An error unless `epsilon` (where the loss has one) is finite and
    /// non-negative (positive for Huber, whose slope it bounds).
    pub fn validate(&self) -> Result<()> {
        let (eps, positive) = match self {
            Self::EpsilonInsensitive(l) => (l.epsilon, false),
            Self::SquaredEpsilonInsensitive(l) => (l.epsilon, false),
            Self::Huber(l) => (l.epsilon, true),
            _ => return Ok(()),
        };
        if !eps.is_finite() || eps < 0.0 || (positive && eps == 0.0) {
            let need = if positive { "positive" } else { "non-negative" };
            return Err(Error::InvalidParameter(format!(
                "epsilon must be a {need} finite number for loss {:?}, got {eps}",
                self.name()
            )));
        }
        Ok(())
    }
}

/// `ceil(x)` as a step number: at least 1, at most `2^53`.
pub fn first_step_of(x: f64) -> u64 {
    if x.is_finite() && x > 1.0 {
        x.ceil().min(9_007_199_254_740_992.0) as u64
    } else {
        1
    }
}

/// An error when a margin loss is given real targets or a regression loss classes.
pub(crate) fn check_loss_fits_task(loss: &LossFunction, task: &BinaryTask<'_>) -> Result<()> {
    check_loss_fits(loss, task.is_regression())
}

/// An error unless `loss` suits the targets: a margin loss for classes, a
/// regression loss for real targets (`regression`).
pub(crate) fn check_loss_fits(loss: &LossFunction, regression: bool) -> Result<()> {
    if loss.is_margin_loss() == regression {
        let (what, needs) = if regression {
            ("a classification loss", "class labels")
        } else {
            ("a regression loss", "real targets")
        };
        return Err(Error::InvalidParameter(format!(
            "loss {:?} is {what}: it needs {needs}",
            loss.name()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<LossFunction> {
        LossFunction::NAMES
            .iter()
            .map(|n| LossFunction::from_name(n, 0.3).unwrap())
            .collect()
    }

    /// The step weight is minus the derivative of the value (central differences
    /// away from the kinks).
    #[test]
    fn step_weight_is_minus_the_slope() {
        let h = 1e-6;
        for loss in all() {
            for y in [-1.0, 1.0, 0.7, -2.5] {
                if loss.is_margin_loss() && y * y != 1.0 {
                    continue;
                }
                for p in [-3.1, -1.7, -0.45, 0.05, 0.55, 1.45, 2.9] {
                    let slope = (loss.value(p + h, y) - loss.value(p - h, y)) / (2.0 * h);
                    let g = loss.step_weight(p, y);
                    assert!(
                        (g + slope).abs() < 1e-5,
                        "{}: p {p} y {y}: step weight {g}, slope {slope}",
                        loss.name()
                    );
                }
            }
        }
    }

    /// Each loss is convex and non-negative on a grid (midpoint test).
    #[test]
    fn convex_and_non_negative() {
        for loss in all() {
            let y = 1.0;
            let ps: Vec<f64> = (-40..=40).map(|i| f64::from(i) * 0.1).collect();
            for w in ps.windows(3) {
                let mid = loss.value(w[1], y);
                assert!(mid >= 0.0);
                assert!(mid <= 0.5 * (loss.value(w[0], y) + loss.value(w[2], y)) + 1e-12);
            }
        }
    }

    #[test]
    fn hinge_is_the_papers_rule() {
        assert_eq!(Hinge.step_weight(0.999, 1.0), 1.0);
        assert_eq!(Hinge.step_weight(1.0, 1.0), 0.0);
        assert_eq!(Hinge.step_weight(-0.5, -1.0), -1.0);
        assert_eq!(Hinge.step_weight(-1.0, -1.0), 0.0);
        assert_eq!(Hinge.radius_factor(), 1.0);
    }

    #[test]
    fn log_loss_is_stable_far_out() {
        assert!((LogLoss.value(800.0, -1.0) - 800.0).abs() < 1e-9);
        assert!(LogLoss.value(800.0, 1.0) < 1e-300);
        assert_eq!(LogLoss.step_weight(800.0, -1.0), -1.0);
        assert!((LogLoss.value(0.0, 1.0) - std::f64::consts::LN_2).abs() < 1e-15);
    }

    #[test]
    fn names_round_trip_and_bad_values_are_refused() {
        for loss in all() {
            assert_eq!(LossFunction::from_name(loss.name(), 0.3).unwrap(), loss);
        }
        assert!(LossFunction::from_name("perceptron", 0.1).is_err());
        assert!(LossFunction::from_name("huber", 0.0).is_err());
        assert!(LossFunction::from_name("epsilon_insensitive", -1.0).is_err());
        assert!(LossFunction::from_name("epsilon_insensitive", f64::NAN).is_err());
        assert!(LossFunction::from_name("epsilon_insensitive", 0.0).is_ok());
    }
}
