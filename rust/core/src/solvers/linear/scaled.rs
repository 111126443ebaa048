//! The scaled iterate of linear Pegasos, written once for every linear state.
//!
//! Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter) shrinks the whole iterate at
//! every step, `w <- (1 - 1/t) w`, then adds the step's violators and projects onto
//! the ball of radius `1/sqrt(lambda)`. Kept as `w = a V` with `||w||^2` tracked, the
//! shrink and the projection are O(1) (they change `a` and `||w||^2` only) and a step
//! costs O(nonzeros of its rows). `V` is a matrix: one column for a binary problem's
//! vector, `K` columns (feature-major) for the Crammer–Singer weights; every
//! operation here reads it as a flat slice, so both states share the same bits.
//!
//! The running average of the iterates is kept lazily as `U + beta V`: a step adds
//! `c a` to `beta` (`c` its weight: 1, or the step number when weighted), and an
//! update `V += dV` subtracts `beta dV` from `U`, so that averaging costs nothing per
//! coordinate the step does not touch. When `V` must change as a whole (a restart at
//! `t = 1`, a rescale), `beta V` is first folded into `U`.
//!
//! - shrink: `a <- (1 - 1/t) a`, `||w||^2 <- (1 - 1/t)^2 ||w||^2` (at `t = 1`, `w`
//!   restarts from zero);
//! - projection: when `||w||^2 > r^2`, `a <- a r / ||w||`;
//! - rescale: when `a < 1e-9`, `V <- a V`, `a <- 1` and `||w||^2` recomputed;
//! - average: from step `avg_start` on, `beta += c a`, each bias sum `+= c b`,
//!   `count += c`; the mean is `(U + beta V) / count`.

use crate::error::{try_filled_vec, Result};

/// The scale `a` of `w = a V` below which `V` is multiplied out.
pub const RESCALE_BELOW: f64 = 1e-9;

/// The fields of a linear state that make its scaled iterate and its lazy average,
/// borrowed together (`V` and `U` flat, in the state's own layout).
pub(crate) struct ScaledParts<'s> {
    /// `V` of `w = a V`.
    pub v: &'s mut Vec<f64>,
    /// `a`.
    pub scale: &'s mut f64,
    /// `||w||^2` (Frobenius for a matrix).
    pub sq_norm: &'s mut f64,
    /// Steps taken so far.
    pub t: u64,
    /// First step (1-based) in the average; `u64::MAX` when off.
    pub avg_start: &'s mut u64,
    /// `U`: empty, or laid out as `V`.
    pub avg_u: &'s mut Vec<f64>,
    /// `beta`.
    pub avg_beta: &'s mut f64,
    /// The sum of the averaged steps' weights.
    pub avg_count: &'s mut u64,
    /// The unregularised biases (one, or one per class).
    pub bias: &'s [f64],
    /// Their running sums, as many.
    pub avg_bias_sum: &'s mut [f64],
}

/// The [`ScaledParts`] of a state `$s` whose fields carry these names (`v`, `scale`,
/// `sq_norm`, `t`, `avg_start`, `avg_u`, `avg_beta`, `avg_count`), with its biases
/// `$bias` and their running sums `$sums` as slices: the one body of every
/// [`ScaledState::parts`].
macro_rules! scaled_parts {
    ($s:ident, $bias:expr, $sums:expr) => {
        $crate::solvers::linear::scaled::ScaledParts {
            v: &mut $s.v,
            scale: &mut $s.scale,
            sq_norm: &mut $s.sq_norm,
            t: $s.t,
            avg_start: &mut $s.avg_start,
            avg_u: &mut $s.avg_u,
            avg_beta: &mut $s.avg_beta,
            avg_count: &mut $s.avg_count,
            bias: $bias,
            avg_bias_sum: $sums,
        }
    };
}
pub(crate) use scaled_parts;

/// A linear state made of a scaled iterate (`LinearState`, `CrammerSingerState`):
/// the shrink, projection, rescale and averaging of its steps, written once here.
pub(crate) trait ScaledState {
    /// What the averaged weights are called in an allocation error.
    const AVERAGE_NAME: &'static str;

    /// The state's scaled iterate, average and biases, borrowed together.
    fn parts(&mut self) -> ScaledParts<'_>;

    /// The shrink of step `t` (`inv_t = 1/t`): `w <- (1 - 1/t) w`, O(1) on the
    /// scale (at `t = 1`, `w` restarts from zero).
    #[inline]
    fn shrink_iterate(&mut self, inv_t: f64) {
        let p = self.parts();
        let shrink = 1.0 - inv_t;
        if shrink <= 0.0 {
            fold(&p.v[..], p.avg_u, p.avg_beta);
            p.v.fill(0.0);
            *p.scale = 1.0;
            *p.sq_norm = 0.0;
        } else {
            *p.scale *= shrink;
            *p.sq_norm *= shrink * shrink;
        }
    }

    /// Multiply `V` out so that `a == 1` (one pass over `V`, and over `U` when the
    /// average is folded in at the same time); recomputes `||w||^2` exactly,
    /// discarding accumulated rounding. Changes neither `w` nor the average.
    fn rescale_iterate(&mut self) {
        let p = self.parts();
        let (a, beta) = (*p.scale, *p.avg_beta);
        *p.sq_norm = if beta == 0.0 || p.avg_u.len() != p.v.len() {
            p.v.iter_mut()
                .map(|x| {
                    *x *= a;
                    *x * *x
                })
                .sum()
        } else {
            p.v.iter_mut()
                .zip(p.avg_u.iter_mut())
                .map(|(x, u)| {
                    *u += beta * *x;
                    *x *= a;
                    *x * *x
                })
                .sum()
        };
        *p.avg_beta = 0.0;
        *p.scale = 1.0;
    }

    /// The end of a step: projection onto the ball of squared radius `sq_radius`,
    /// rescaling of a small scale, and the running average (each iterate weighted
    /// by its step number when `weighted`).
    #[inline]
    fn end_step(&mut self, sq_radius: f64, weighted: bool) {
        {
            let mut p = self.parts();
            if *p.sq_norm < 0.0 {
                *p.sq_norm = 0.0;
            }
            if *p.sq_norm > sq_radius {
                let f = (sq_radius / *p.sq_norm).sqrt();
                *p.scale *= f;
                *p.sq_norm *= f * f;
            }
            if *p.scale >= RESCALE_BELOW {
                average_step(&mut p, weighted);
                return;
            }
        }
        self.rescale_iterate();
        average_step(&mut self.parts(), weighted);
    }

    /// Start the average at the next step unless it has begun; whether it was
    /// started (the pass driver's `PassSubject::average_if_unstarted`).
    fn start_average_if_unstarted(&mut self) -> bool {
        let p = self.parts();
        if *p.avg_count > 0 {
            return false;
        }
        *p.avg_start = p.t + 1;
        true
    }

    /// Forget the running average (the next averaged step starts a new one).
    fn discard_average(&mut self) {
        let p = self.parts();
        *p.avg_u = Vec::new();
        *p.avg_beta = 0.0;
        p.avg_bias_sum.fill(0.0);
        *p.avg_count = 0;
    }

    /// Allocate `U` (zeros, laid out as `V`) unless it is.
    fn ensure_average(&mut self) -> Result<()> {
        let p = self.parts();
        if p.avg_u.len() != p.v.len() {
            *p.avg_u = try_filled_vec(p.v.len(), 0.0, Self::AVERAGE_NAME)?;
        }
        Ok(())
    }
}

/// `U += beta V`, `beta = 0` (nothing when `beta` is 0): `U` then holds the whole
/// running sum, so `V` may change freely.
fn fold(v: &[f64], avg_u: &mut [f64], avg_beta: &mut f64) {
    if *avg_beta != 0.0 {
        let beta = *avg_beta;
        for (u, x) in avg_u.iter_mut().zip(v) {
            *u += beta * x;
        }
        *avg_beta = 0.0;
    }
}

/// The average's part of a step's end: from `avg_start` on, the iterate enters with
/// weight `c` (1, or `t` when `weighted`), the average restarting at `avg_start`.
#[inline]
fn average_step(p: &mut ScaledParts<'_>, weighted: bool) {
    if p.t < *p.avg_start {
        return;
    }
    if p.t == *p.avg_start {
        let len = p.v.len();
        p.avg_u.clear();
        p.avg_u.resize(len, 0.0); // allocated by the plan of the fit
        *p.avg_beta = 0.0;
        p.avg_bias_sum.fill(0.0);
        *p.avg_count = 0;
    }
    // `avg_count` is the sum of the weights: the number of averaged steps, or the
    // sum of their step numbers when weighted.
    let c = if weighted { p.t } else { 1 };
    *p.avg_beta += c as f64 * *p.scale;
    for (sum, b) in p.avg_bias_sum.iter_mut().zip(p.bias) {
        *sum += c as f64 * b;
    }
    *p.avg_count = p.avg_count.saturating_add(c);
}
