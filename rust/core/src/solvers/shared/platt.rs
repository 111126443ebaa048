//! Platt scaling: probabilities of the classes from decision values
//! (`probability=True`), the same bits on every platform.
//!
//! # What is computed
//! Platt (1999), "Probabilistic outputs for support vector machines and comparisons
//! to regularized likelihood methods", maps a decision value `f` to
//! `P(positive | f) = 1 / (1 + exp(A f + B))`. [`fit_sigmoid`] fits `A, B` by
//! maximum likelihood: it minimises the (weighted) cross-entropy
//! `Σ_i w_i (t_i z_i + log(1 + exp(-z_i)))`, `z_i = A f_i + B`, against Platt's
//! smoothed targets `t_i = (N+ + 1) / (N+ + 2)` for positives and `1 / (N- + 2)`
//! for negatives (`N+`, `N-` the weighted class sizes), by the Newton method with
//! backtracking line search of Lin, Lin and Weng (2007), "A note on Platt's
//! probabilistic outputs for support vector machines" (Algorithm 1), with their
//! constants: at most [`MAX_ITER`] iterations, the ridge [`SIGMA`] on the
//! Hessian's diagonal, the sufficient decrease [`ARMIJO`], steps halved down to
//! [`MIN_STEP`]; it starts from `A = 0`, `B = log((N- + 1) / (N+ + 1))`. It stops
//! - when the gradient is exactly zero;
//! - after a Newton step whose full length changes `A` and `B` by at most `tol`
//!   times `max(1, |A|)` and `max(1, |B|)` (that step is taken: it is the distance to
//!   the optimum, to second order; Lin, Lin and Weng's test of the gradient against
//!   `1e-5` leaves relative errors up to about `1e-6` when the decision values are
//!   small);
//! - when no step of the line search decreases the objective (see below);
//!
//! and otherwise after `max_iter` iterations ([`MAX_ITER`] is theirs) without
//! converging. [`SigmoidFit::stop`] tells which rule ended the fit ([`Stop`]; the
//! Python package warns on [`Stop::MaxIter`]).
//!
//! The third rule means the fit can end up to one Newton step short of the optimum:
//! a step too small for its decrease to show in the objective's rounding (below about
//! `sqrt(ε · objective / curvature)`, some `1e-8` relative) yet above `tol` is not
//! taken. Which rule ends a fit near that edge depends on the last bits of the sums,
//! so a different summation order (numpy's) can end one step apart.
//!
//! [`log_proba`] gives the log-probabilities of the classes: for two classes
//! (one problem) `[log(1 - p), log(p)]`, `p = 1 / (1 + exp(A f + B))`; for `k > 2`
//! classes (one decision value per one-vs-rest problem) each problem's sigmoid,
//! normalised so that each row sums to 1, in log space: `l_k = log σ(-(A_k f_k +
//! B_k))`, then `l_k - logsumexp(l)` (sigmoids that all underflow still give their
//! ratios). [`proba`] is their exponential.
//!
//! # Reproducibility
//! Every sum over the examples runs in index order, compensated (Neumaier's variant
//! of Kahan summation), on the calling thread; the sum over the classes of
//! [`log_proba`] is a plain one in class order; `exp` and `ln` are the
//! crate's portable ones (`crate::math`); `log(1 + exp(-|z|))` and the sigmoids
//! are written so that they never overflow. Only `+ - * /` are used otherwise,
//! never contracted into fused multiply-adds, so a fit and the probabilities have
//! the same bits on every platform.

use crate::error::{try_filled_vec, Error, Result};
use crate::math::{exp, exp_in_place, ln, ln_1p};
use crate::monitor::Monitor;
use crate::parallel::check_cancel;

/// Lin, Lin and Weng's limit on Newton iterations.
pub const MAX_ITER: usize = 100;
/// The smallest step of the backtracking line search.
pub const MIN_STEP: f64 = 1e-10;
/// The ridge added to the diagonal of the Hessian.
pub const SIGMA: f64 = 1e-12;
/// The sufficient-decrease constant of the line search (Armijo's rule).
pub const ARMIJO: f64 = 1e-4;
/// The default `tol` of [`fit_sigmoid`].
#[cfg(test)]
pub const DEFAULT_TOL: f64 = 1e-10;

/// A fitted sigmoid `P(positive | f) = 1 / (1 + exp(a f + b))` and how its fit
/// ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SigmoidFit {
    /// `A` (negative when larger decision values mean the positive class).
    pub a: f64,
    /// `B`.
    pub b: f64,
    /// Newton iterations begun.
    pub n_iter: usize,
    /// The rule that ended the fit.
    pub stop: Stop,
    /// The gradient `(∂/∂A, ∂/∂B)` of the objective at the last iteration's start.
    pub gradient: [f64; 2],
}

/// The rule that ended a fit (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The gradient was exactly zero.
    ZeroGradient,
    /// The full Newton step was within `tol`; it was taken.
    SmallStep,
    /// No step of the line search decreased the objective.
    NoDecrease,
    /// `max_iter` iterations ended without any of the rules above: not converged.
    MaxIter,
}

impl Stop {
    /// A short name: `"zero_gradient"`, `"small_step"`, `"no_decrease"` or
    /// `"max_iter"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::ZeroGradient => "zero_gradient",
            Self::SmallStep => "small_step",
            Self::NoDecrease => "no_decrease",
            Self::MaxIter => "max_iter",
        }
    }
}

impl SigmoidFit {
    /// Whether a stopping rule was met before `max_iter` iterations ran out.
    pub fn converged(&self) -> bool {
        self.stop != Stop::MaxIter
    }
}

/// A compensated sum (Neumaier's variant of Kahan's): the rounding error of each
/// addition is kept and added at the end, so the result is within a few units in
/// the last place of the exact sum, whatever the number of terms.
#[derive(Clone, Copy, Default)]
struct Sum {
    sum: f64,
    carry: f64,
}

impl Sum {
    #[inline]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.carry += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    #[inline]
    fn value(self) -> f64 {
        self.sum + self.carry
    }
}

/// `(σ(-z), σ(z))` with `σ(x) = 1 / (1 + exp(-x))`: `(P(positive), 1 - P(positive))`
/// at `z = A f + B`, both from one `exp(-|z|)`, without overflow or cancellation.
#[inline]
fn sigmoids(z: f64) -> (f64, f64) {
    let e = exp(-z.abs());
    let big = 1.0 / (1.0 + e);
    let small = e / (1.0 + e);
    if z >= 0.0 {
        (small, big)
    } else {
        (big, small)
    }
}

/// `log(1 + exp(-z))` (numpy's `logaddexp(0, -z)`), without overflow.
#[inline]
fn softplus_neg(z: f64) -> f64 {
    let tail = ln_1p(exp(-z.abs()));
    if z >= 0.0 {
        tail
    } else {
        -z + tail
    }
}

/// `log σ(x) = -log(1 + exp(-x))` (scipy's `log_expit`), without overflow.
#[inline]
fn log_sigmoid(x: f64) -> f64 {
    if x < 0.0 {
        x - ln_1p(exp(x))
    } else {
        -ln_1p(exp(-x))
    }
}

/// Platt's smoothed targets and the weighted class sizes `(N+, N-)`.
fn targets(positive: &[bool], weight: &dyn Fn(usize) -> f64) -> (f64, f64, f64, f64) {
    let (mut n_pos, mut n_neg) = (Sum::default(), Sum::default());
    for (i, &p) in positive.iter().enumerate() {
        if p {
            n_pos.add(weight(i));
        } else {
            n_neg.add(weight(i));
        }
    }
    let (n_pos, n_neg) = (n_pos.value(), n_neg.value());
    (
        (n_pos + 1.0) / (n_pos + 2.0),
        1.0 / (n_neg + 2.0),
        n_pos,
        n_neg,
    )
}

/// The checks of [`fit_sigmoid`]'s inputs.
fn check_fit_input(
    decision: &[f64],
    positive: &[bool],
    sample_weight: Option<&[f64]>,
    tol: f64,
    max_iter: usize,
) -> Result<()> {
    if positive.len() != decision.len() {
        return Err(Error::ShapeMismatch(format!(
            "{} decision values but {} class memberships",
            decision.len(),
            positive.len()
        )));
    }
    if let Some(k) = decision.iter().position(|f| !f.is_finite()) {
        return Err(Error::InvalidInput(format!(
            "decision values must be finite, got {} at position {k}",
            decision[k]
        )));
    }
    if let Some(w) = sample_weight {
        if w.len() != decision.len() {
            return Err(Error::ShapeMismatch(format!(
                "{} decision values but {} sample weights",
                decision.len(),
                w.len()
            )));
        }
        if let Some(k) = w.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::InvalidInput(format!(
                "sample weights must be finite and non-negative, got {} at position {k}",
                w[k]
            )));
        }
    }
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(Error::InvalidParameter(format!(
            "tol must be a finite non-negative number, got {tol}"
        )));
    }
    if max_iter == 0 {
        return Err(Error::InvalidParameter(
            "max_iter must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Fit Platt's sigmoid `P(positive | f) = 1 / (1 + exp(A f + B))` to the decision
/// values `decision` of examples whose class `positive` tells, each example's term
/// multiplied by its weight (`sample_weight`, 1 when `None`); `tol` and `max_iter`
/// as in the module documentation (`DEFAULT_TOL` and [`MAX_ITER`] are the
/// package's). `monitor`'s stop flag is read before each pass over the examples.
///
/// # Errors
/// [`Error::ShapeMismatch`] when the lengths differ; [`Error::InvalidInput`] for a
/// non-finite decision value or a negative or non-finite weight;
/// [`Error::InvalidParameter`] for a negative or non-finite `tol` or a `max_iter`
/// of 0; [`Error::Interrupted`] once `monitor` is stopped.
pub fn fit_sigmoid(
    decision: &[f64],
    positive: &[bool],
    sample_weight: Option<&[f64]>,
    tol: f64,
    max_iter: usize,
    monitor: &Monitor,
) -> Result<SigmoidFit> {
    check_fit_input(decision, positive, sample_weight, tol, max_iter)?;
    let weight = |i: usize| sample_weight.map_or(1.0, |w| w[i]);
    let (t_pos, t_neg, n_pos, n_neg) = targets(positive, &weight);
    if !(n_pos + n_neg).is_finite() {
        return Err(Error::InvalidInput(
            "the sample weights add up to more than float64 can hold".into(),
        ));
    }
    let target = |i: usize| if positive[i] { t_pos } else { t_neg };
    let objective = |a: f64, b: f64| {
        check_cancel(monitor)?;
        let mut s = Sum::default();
        for (i, &f) in decision.iter().enumerate() {
            let z = a * f + b;
            s.add(weight(i) * (target(i) * z + softplus_neg(z)));
        }
        Ok(s.value())
    };
    let (mut a, mut b) = (0.0, ln((n_neg + 1.0) / (n_pos + 1.0)));
    let mut value = objective(a, b)?;
    let mut gradient = [0.0; 2];
    let done = |a, b, n_iter, stop, gradient| SigmoidFit {
        a,
        b,
        n_iter,
        stop,
        gradient,
    };
    for iter in 1..=max_iter {
        check_cancel(monitor)?;
        let mut sums = [Sum::default(); 5]; // g1, g2, h11, h22, h21
        for (i, &f) in decision.iter().enumerate() {
            let (p, q) = sigmoids(a * f + b); // P(positive), 1 - P(positive)
            let w = weight(i);
            let d2 = w * p * q;
            let d1 = w * (target(i) - p);
            sums[0].add(f * d1);
            sums[1].add(d1);
            sums[2].add((f * f) * d2);
            sums[3].add(d2);
            sums[4].add(f * d2);
        }
        let [g1, g2, h11, h22, h21] = sums.map(Sum::value);
        gradient = [g1, g2];
        if g1 == 0.0 && g2 == 0.0 {
            return Ok(done(a, b, iter, Stop::ZeroGradient, gradient));
        }
        let (h11, h22) = (h11 + SIGMA, h22 + SIGMA);
        let det = h11 * h22 - h21 * h21;
        let da = -(h22 * g1 - h21 * g2) / det;
        let db = -(-h21 * g1 + h11 * g2) / det;
        if da.abs() <= tol * a.abs().max(1.0) && db.abs() <= tol * b.abs().max(1.0) {
            return Ok(done(a + da, b + db, iter, Stop::SmallStep, gradient));
        }
        let slope = g1 * da + g2 * db;
        let mut step = 1.0;
        loop {
            if step < MIN_STEP {
                // No step decreases the objective: the gradient is rounding noise
                // away from zero, the optimum as far as floating point can tell.
                return Ok(done(a, b, iter, Stop::NoDecrease, gradient));
            }
            let (new_a, new_b) = (a + step * da, b + step * db);
            let new_value = objective(new_a, new_b)?;
            if new_value < value + ARMIJO * step * slope {
                (a, b, value) = (new_a, new_b, new_value);
                break;
            }
            step /= 2.0;
        }
    }
    Ok(SigmoidFit {
        a,
        b,
        n_iter: max_iter,
        stop: Stop::MaxIter,
        gradient,
    })
}

/// The probabilities of the classes (their logarithms when `log`) of `n_rows` rows
/// from their decision values (`decision`, row-major, one value per problem) and
/// the problems' sigmoids `a`, `b`: row-major, [`n_classes`] values per row.
///
/// # Errors
/// As `proba`, and [`Error::ShapeMismatch`] when `decision` does not hold
/// `n_rows` rows of one value per sigmoid.
pub fn class_probabilities(
    decision: &[f64],
    n_rows: usize,
    a: &[f64],
    b: &[f64],
    log: bool,
) -> Result<Vec<f64>> {
    if decision.len() != n_rows.saturating_mul(a.len()) {
        return Err(Error::ShapeMismatch(format!(
            "{} decision values for {n_rows} rows of {} problems",
            decision.len(),
            a.len()
        )));
    }
    let mut out = try_filled_vec(
        n_rows.saturating_mul(n_classes(a.len())),
        0.0,
        "the probabilities",
    )?;
    if log {
        log_proba(decision, a, b, &mut out)?;
    } else {
        proba(decision, a, b, &mut out)?;
    }
    Ok(out)
}

/// The number of classes of `n_problems` binary problems: 2 for one, else one per
/// (one-vs-rest) problem.
pub fn n_classes(n_problems: usize) -> usize {
    if n_problems == 1 {
        2
    } else {
        n_problems
    }
}

/// Write the log-probabilities of the classes (module documentation) of the rows
/// of `decision` (row-major, `n_problems` values per row) into `out` (row-major,
/// [`n_classes`] values per row), `a` and `b` the sigmoids of the problems.
///
/// # Errors
/// [`Error::ShapeMismatch`] when the lengths do not fit together;
/// [`Error::InvalidInput`] for a non-finite decision value, `a` or `b`.
pub fn log_proba(decision: &[f64], a: &[f64], b: &[f64], out: &mut [f64]) -> Result<()> {
    let k = a.len();
    if k == 0 || b.len() != k {
        return Err(Error::ShapeMismatch(format!(
            "{} values of A and {} of B: one of each per binary problem, at least one",
            a.len(),
            b.len()
        )));
    }
    if decision.len() % k != 0 || out.len() != decision.len() / k * n_classes(k) {
        return Err(Error::ShapeMismatch(format!(
            "{} decision values for {k} problems, {} outputs",
            decision.len(),
            out.len()
        )));
    }
    if let Some(p) = a.iter().chain(b).position(|v| !v.is_finite()) {
        return Err(Error::InvalidInput(format!(
            "the sigmoids' A and B must be finite, got {}",
            a.iter().chain(b).nth(p).copied().unwrap_or(f64::NAN)
        )));
    }
    if let Some(p) = decision.iter().position(|v| !v.is_finite()) {
        return Err(Error::InvalidInput(format!(
            "decision values must be finite, got {} in row {}",
            decision[p],
            p / k
        )));
    }
    if k == 1 {
        for (&f, o) in decision.iter().zip(out.chunks_exact_mut(2)) {
            let z = a[0] * f + b[0];
            o[0] = log_sigmoid(z);
            o[1] = log_sigmoid(-z);
        }
        return Ok(());
    }
    for (row, o) in decision.chunks_exact(k).zip(out.chunks_exact_mut(k)) {
        let mut top = f64::NEG_INFINITY;
        for (((&f, &ap), &bp), l) in row.iter().zip(a).zip(b).zip(o.iter_mut()) {
            *l = log_sigmoid(-(f * ap + bp));
            top = top.max(*l);
        }
        if top == f64::NEG_INFINITY {
            // Every sigmoid is exactly 0 (only when `A f + B` overflows): no ratio
            // is known, the classes are equally likely.
            #[allow(clippy::cast_precision_loss)]
            o.fill(-ln(k as f64));
            continue;
        }
        let mut s = 0.0;
        for &l in o.iter() {
            s += exp(l - top);
        }
        // `(l - top) - ln s` rather than `l - (top + ln s)`: the first difference
        // is exact for the largest terms, so ratios survive a large `top`.
        let log_s = ln(s);
        for l in o.iter_mut() {
            *l = (*l - top) - log_s;
        }
    }
    Ok(())
}

/// The probabilities of the classes: [`log_proba`], then `exp` of each value.
///
/// # Errors
/// Those of [`log_proba`].
pub fn proba(decision: &[f64], a: &[f64], b: &[f64], out: &mut [f64]) -> Result<()> {
    log_proba(decision, a, b, out)?;
    exp_in_place(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// [`fit_sigmoid`] with a monitor that is never stopped.
    fn fit_unstopped(
        decision: &[f64],
        positive: &[bool],
        sample_weight: Option<&[f64]>,
        tol: f64,
        max_iter: usize,
    ) -> Result<SigmoidFit> {
        fit_sigmoid(
            decision,
            positive,
            sample_weight,
            tol,
            max_iter,
            &Monitor::new(),
        )
    }

    /// A straightforward reference of the objective and its derivatives, with
    /// `std`'s functions and plain sums, for checking the Newton iterates.
    fn reference_gradient(f: &[f64], pos: &[bool], w: &[f64], a: f64, b: f64) -> [f64; 2] {
        let n_pos: f64 = pos.iter().zip(w).filter(|(p, _)| **p).map(|(_, w)| w).sum();
        let n_neg: f64 = pos
            .iter()
            .zip(w)
            .filter(|(p, _)| !**p)
            .map(|(_, w)| w)
            .sum();
        let mut g = [0.0, 0.0];
        for i in 0..f.len() {
            let t = if pos[i] {
                (n_pos + 1.0) / (n_pos + 2.0)
            } else {
                1.0 / (n_neg + 2.0)
            };
            let p = 1.0 / (1.0 + (a * f[i] + b).exp());
            g[0] += w[i] * (t - p) * f[i];
            g[1] += w[i] * (t - p);
        }
        g
    }

    /// Seeded decision values: `n` values of scale `scale`, positive when the
    /// value plus noise of `noise` times the scale is positive; weights in [0, 3)
    /// when `weighted`.
    fn problem(
        n: usize,
        scale: f64,
        noise: f64,
        weighted: bool,
        seed: u64,
    ) -> (Vec<f64>, Vec<bool>, Vec<f64>) {
        let mut rng = Rng::seed_from_u64(seed);
        let mut normal = || {
            // Box–Muller with std (tests only).
            let (u, v) = (rng.next_f64().max(1e-300), rng.next_f64());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let f: Vec<f64> = (0..n).map(|_| normal() * scale).collect();
        let pos: Vec<bool> = f
            .iter()
            .map(|&x| x + normal() * scale * noise > 0.0)
            .collect();
        let mut rng = Rng::seed_from_u64(seed ^ 0xABCD);
        let w: Vec<f64> = (0..n)
            .map(|_| if weighted { 3.0 * rng.next_f64() } else { 1.0 })
            .collect();
        (f, pos, w)
    }

    #[test]
    fn the_fit_is_a_stationary_point_of_the_cross_entropy() {
        for seed in 0..12 {
            let scale = [0.05, 1.0, 30.0][seed % 3];
            let noise = [0.3, 1.0][seed % 2];
            let weighted = seed % 4 >= 2;
            let (f, pos, w) = problem(50 + 97 * seed, scale, noise, weighted, seed as u64);
            let weights = weighted.then_some(&w[..]);
            let fit = fit_unstopped(&f, &pos, weights, DEFAULT_TOL, MAX_ITER).unwrap();
            assert!(fit.converged() && fit.a < 0.0, "{seed}: {fit:?}");
            let g = reference_gradient(&f, &pos, &w, fit.a, fit.b);
            let size: f64 = w.iter().sum();
            let fscale = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            assert!(g[0].abs() < 1e-9 * size * fscale, "{seed}: {g:?}");
            assert!(g[1].abs() < 1e-9 * size, "{seed}: {g:?}");
            // Unit weights given explicitly are no weights.
            if !weighted {
                assert_eq!(
                    fit_unstopped(&f, &pos, Some(&w), DEFAULT_TOL, MAX_ITER).unwrap(),
                    fit
                );
            }
        }
    }

    #[test]
    fn degenerate_inputs_give_finite_sigmoids() {
        // Constant zero values: A stays 0, B gives the smoothed base rate.
        let pos = [true, false, false, false];
        let fit = fit_unstopped(&[0.0; 4], &pos, None, DEFAULT_TOL, MAX_ITER).unwrap();
        assert_eq!(fit.a, 0.0);
        let base = (2.0 / 3.0 + 3.0 / 5.0) / 4.0;
        assert!((1.0 / (1.0 + fit.b.exp()) - base).abs() < 1e-12);
        // Equal non-zero values: only A f + B is determined, as that base rate.
        // The Hessian is singular but for the ridge, so A drifts with rounding noise
        // until the line search finds no decrease; A f + B is within that noise of
        // its optimum.
        let fit = fit_unstopped(&[2.5; 4], &pos, None, DEFAULT_TOL, MAX_ITER).unwrap();
        let at = 1.0 / (1.0 + (fit.a * 2.5 + fit.b).exp());
        assert!(
            fit.converged() && (at - base).abs() < 1e-10,
            "{fit:?} {at} {base}"
        );
        // Separable values: the smoothed targets keep the optimum finite.
        let f = [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0];
        let pos: Vec<bool> = f.iter().map(|&x| x > 0.0).collect();
        let fit = fit_unstopped(&f, &pos, None, DEFAULT_TOL, MAX_ITER).unwrap();
        assert!(fit.converged() && fit.a.is_finite() && fit.a < 0.0);
        let g = reference_gradient(&f, &pos, &[1.0; 6], fit.a, fit.b);
        assert!(g[0].abs() < 1e-12 && g[1].abs() < 1e-12, "{g:?}");
        // No examples, or weights all zero: nothing to fit.
        let none = fit_unstopped(&[], &[], None, DEFAULT_TOL, MAX_ITER).unwrap();
        assert_eq!((none.a, none.b, none.converged()), (0.0, 0.0, true));
        let zero = fit_unstopped(&f, &pos, Some(&[0.0; 6]), DEFAULT_TOL, MAX_ITER).unwrap();
        assert_eq!((zero.a, zero.b), (0.0, 0.0));
        // One class only: the sigmoid heads for it, and stays finite.
        let fit = fit_unstopped(&f, &[true; 6], None, DEFAULT_TOL, MAX_ITER).unwrap();
        assert!(fit.a.is_finite() && fit.b.is_finite() && fit.b < 0.0);
    }

    #[test]
    fn running_out_of_iterations_is_reported() {
        let (f, pos, _) = problem(500, 1.0, 1.0, false, 3);
        let fit = fit_unstopped(&f, &pos, None, DEFAULT_TOL, MAX_ITER).unwrap();
        assert!(
            fit.converged() && fit.n_iter > 2 && fit.n_iter < 20,
            "{fit:?}"
        );
        // Stopped after two iterations: not converged, at the second iterate, with
        // the gradient at its start.
        let short = fit_unstopped(&f, &pos, None, DEFAULT_TOL, 2).unwrap();
        assert!(!short.converged() && short.n_iter == 2, "{short:?}");
        assert!(short.a != fit.a && short.gradient != [0.0, 0.0]);
        let one = fit_unstopped(&f, &pos, None, DEFAULT_TOL, 1).unwrap();
        let g = reference_gradient(&f, &pos, &[1.0; 500], one.a, one.b);
        assert!((short.gradient[0] - g[0]).abs() < 1e-9 * g[0].abs());
        // tol 0 ends on a failed line search (without the last, too small, step
        // that tol takes) or an exact zero gradient: near the same optimum.
        let strict = fit_unstopped(&f, &pos, None, 0.0, MAX_ITER).unwrap();
        assert!(strict.converged() && strict.n_iter >= fit.n_iter);
        assert!(
            (strict.a - fit.a).abs() < 1e-9 * fit.a.abs(),
            "{strict:?} {fit:?}"
        );
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let f = [1.0, -1.0];
        let p = [true, false];
        assert!(matches!(
            fit_unstopped(&f, &[true], None, 1e-10, MAX_ITER),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            fit_unstopped(&[1.0, f64::NAN], &p, None, 1e-10, MAX_ITER),
            Err(Error::InvalidInput(m)) if m.contains("position 1")
        ));
        assert!(matches!(
            fit_unstopped(&f, &p, Some(&[1.0, -1.0]), 1e-10, MAX_ITER),
            Err(Error::InvalidInput(m)) if m.contains("non-negative")
        ));
        assert!(matches!(
            fit_unstopped(&f, &p, Some(&[1.0]), 1e-10, MAX_ITER),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            fit_unstopped(&f, &p, None, f64::NAN, MAX_ITER),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            fit_unstopped(&f, &p, None, 1e-10, 0),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            fit_unstopped(&f, &p, Some(&[f64::MAX, f64::MAX]), 1e-10, MAX_ITER),
            Err(Error::InvalidInput(m)) if m.contains("add up")
        ));
        assert_eq!(
            fit_sigmoid(&f, &p, None, 1e-10, MAX_ITER, &Monitor::stopped()),
            Err(Error::Interrupted)
        );
        let mut out = [0.0; 4];
        assert!(matches!(
            log_proba(&f, &[-1.0], &[0.0, 1.0], &mut out),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            log_proba(&f, &[-1.0], &[0.0], &mut out[..3]),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            log_proba(&[1.0, f64::INFINITY], &[-1.0], &[0.0], &mut out),
            Err(Error::InvalidInput(m)) if m.contains("row 1")
        ));
        assert!(matches!(
            log_proba(&f, &[f64::NAN], &[0.0], &mut out),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            log_proba(&[], &[], &[], &mut []),
            Err(Error::ShapeMismatch(_))
        ));
    }

    #[test]
    fn probabilities_match_the_formulas_written_with_std() {
        let f = [-40.0, -2.5, -0.1, 0.0, 0.3, 4.0, 800.0];
        let (a, b) = (-1.3, 0.2);
        let mut logs = [0.0; 14];
        log_proba(&f, &[a], &[b], &mut logs).unwrap();
        let mut probs = [0.0; 14];
        proba(&f, &[a], &[b], &mut probs).unwrap();
        for (i, &x) in f.iter().enumerate() {
            // log(1 - p) = z - log(1 + e^z) and log p = -log(1 + e^z), z = A f + B,
            // with std's functions.
            let z = a * x + b;
            let want = [z - z.exp().ln_1p(), -z.exp().ln_1p()];
            for c in 0..2 {
                let got = logs[2 * i + c];
                if want[c].is_finite() && want[c].abs() > 1e-10 {
                    assert!(
                        (got - want[c]).abs() <= 1e-14 * want[c].abs(),
                        "{x} {got} {}",
                        want[c]
                    );
                }
                assert_eq!(probs[2 * i + c], exp(got));
            }
            // Far out, the small probability is exact in log space.
            assert!(logs[2 * i].is_finite() && logs[2 * i + 1].is_finite());
        }
        assert_eq!(logs[12], a * 800.0 + b); // log(1 - p) = A f + B when e^(A f + B) underflows
                                             // Three classes: each sigmoid, normalised.
        let (a3, b3) = ([-1.0, -0.5, -2.0], [0.1, -0.2, 0.3]);
        let rows = [0.3, -1.0, 2.0, -5.0, 0.0, 1.5];
        let mut out = [0.0; 6];
        proba(&rows, &a3, &b3, &mut out).unwrap();
        for (row, o) in rows.chunks(3).zip(out.chunks(3)) {
            let s: Vec<f64> = (0..3)
                .map(|k| 1.0 / (1.0 + (a3[k] * row[k] + b3[k]).exp()))
                .collect();
            let total: f64 = s.iter().sum();
            for k in 0..3 {
                assert!((o[k] - s[k] / total).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn log_proba_keeps_ratios_when_every_sigmoid_underflows() {
        let (a, b) = ([-1.0, -1.0, -1.0], [0.0, 0.0, 0.0]);
        // Sigmoids of exp(-1e6), exp(-1e6 - 1), exp(-1e6 - 2): ratios 1 : 1/e : 1/e².
        let row = [-1e6, -1e6 - 1.0, -1e6 - 2.0];
        let mut out = [0.0; 3];
        log_proba(&row, &a, &b, &mut out).unwrap();
        let z: f64 = [0.0f64, -1.0, -2.0].iter().map(|l| l.exp()).sum();
        for (k, &o) in out.iter().enumerate() {
            assert!((o - (-(k as f64) - z.ln())).abs() < 1e-12, "{out:?}");
        }
        // A f + B overflowing to +inf in every problem: equally likely classes.
        let mut out = [0.0; 3];
        log_proba(&[1e308; 3], &[4.0; 3], &[0.0; 3], &mut out).unwrap();
        assert_eq!(out, [-ln(3.0); 3]);
    }

    #[test]
    fn sigmoid_helpers_are_safe_at_the_extremes() {
        for z in [
            -1e308, -800.0, -30.0, -1e-20, 0.0, 1e-20, 30.0, 800.0, 1e308,
        ] {
            let (p, q) = sigmoids(z);
            assert!((0.0..=1.0).contains(&p) && (0.0..=1.0).contains(&q));
            assert!((p + q - 1.0).abs() <= f64::EPSILON, "{z}");
            let sp = softplus_neg(z);
            assert!(sp.is_finite() && sp >= 0.0, "{z}");
            assert!(log_sigmoid(z).is_finite() && log_sigmoid(z) <= 0.0);
        }
        assert!((softplus_neg(-800.0) - 800.0).abs() < 1e-12);
        assert_eq!(softplus_neg(800.0), 0.0);
        assert!((log_sigmoid(-800.0) + 800.0).abs() < 1e-12);
        let x: f64 = 0.7;
        assert!((softplus_neg(x) - (-x).exp().ln_1p()).abs() < 1e-16);
    }
}
