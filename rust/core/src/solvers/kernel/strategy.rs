//! How the kernel solver evaluates margins, and how [`Strategy::Auto`] chooses.
//!
//! The two strategies give the same model up to rounding (kernel values summed in a
//! different order), not bit for bit, so `"auto"` must not choose from timings: the
//! same seed gives the same model on every machine, load, thread count and cache size.
//! It chooses from counts of the run itself, which are the same everywhere:
//!
//! - a small fit (`n^2 passes` below [`SMALL_KERNEL_VALUES`]) keeps a margin vector
//!   from the start: its time is negligible either way, and the margin vector gives
//!   the primal objective;
//! - any other fit starts on the support set for a pilot of 1/16 of the first pass
//!   (cheap: the support set is still small), then [`margins_pay_off`] projects the
//!   cost of the whole fit under each strategy from the pilot's count of support
//!   vectors, and switches to the margin vector (built from the support set, `n |S|`
//!   kernel values, 1/16 of its first pass) when that is projected cheaper. The
//!   projection is a model of the counts of kernel values each strategy computes;
//!   its constants were fitted to the timings of `benches/bench_kernel.py` on six
//!   data sets, but no timing is taken during a fit;
//! - a regression that is not small stays on the support set without a pilot: its
//!   violations (examples outside the tube) do not thin out pass after pass as a
//!   classifier's do, and the margin vector's column per violation never paid off
//!   (`benches/bench_kernel_regression.py`).

use crate::thresholds::SMALL_KERNEL_VALUES;

/// How margins are evaluated (see the kernel module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Chosen during the fit from its counts (see `margins_pay_off`).
    Auto,
    /// Margins against the support set, kernel rows cached.
    SupportSet,
    /// A margin per training example, kernel columns cached.
    Margins,
}

impl Strategy {
    /// The strategy a fresh fit of `n` examples and `passes` passes starts with, and
    /// whether it may switch later (only `Auto` on a fit that is not small).
    #[must_use]
    pub fn start(self, n: usize, passes: usize) -> (Strategy, bool) {
        match self {
            Strategy::Auto => {
                let values = (n as f64) * (n as f64) * (passes as f64);
                if values < SMALL_KERNEL_VALUES {
                    (Strategy::Margins, false)
                } else {
                    (Strategy::SupportSet, true)
                }
            }
            s => (s, false),
        }
    }
}

/// A gathered kernel value (one row against a listed example, as the support set
/// and the pending violations compute them) costs about this many multiply-adds
/// besides one per non-zero of the row.
const VALUE_OVERHEAD: f64 = 16.0;

/// Cost of a kernel value computed in a block of columns (an inverted index over
/// the pending violations, one pass over the data, in parallel chunks) after the
/// first pass, relative to a gathered one. Measured in the second pass
/// (`benches/bench_kernel.py`, two threads): reuters 0.2, ijcnn1 0.2, a9a 0.28.
const BLOCK: f64 = 0.25;

/// The margin vector's first pass, relative to the support set's (measured on six
/// sets, two threads: 1.0 to 1.7): it computes a whole column per new support
/// vector where the support set compares each row with the support vectors found
/// before its draw, half as many on average.
const FIRST_PASS_RATIO: f64 = 1.4;

/// The kernel cache the choice assumes, in bytes: the default `cache_size` of 200
/// MB. The real budget is not used, so that it changes the speed only, never which
/// strategy runs (hence never the model).
pub const REFERENCE_CACHE_BYTES: f64 = 200.0 * 1024.0 * 1024.0;

/// Violations pending before the margin vector is brought up to date; each drawn
/// example is compared with about half of them.
const PENDING_MEAN: f64 = 32.0;

/// The support vectors a pass adds, relative to the previous pass's (measured from
/// the second pass on: 0.3 to 0.64).
const GROWTH_DECAY: f64 = 0.5;

/// Violations in a pass after the first, per support vector it adds.
const VIOLATIONS_PER_NEW: f64 = 2.0;

/// The pilot: this fraction of the first pass runs on the support set before the
/// choice.
const PILOT_FRACTION: u64 = 16;

/// Passes projected at most (later ones change nothing measurable).
const MAX_PROJECTED_PASSES: u64 = 10_000;

/// Steps of the pilot for `per_pass` steps per pass (even, at least 2: the support
/// set is counted halfway too).
#[must_use]
pub fn pilot_steps(per_pass: u64) -> u64 {
    per_pass.div_ceil(2 * PILOT_FRACTION).max(1) * 2
}

/// What [`margins_pay_off`] weighs at the end of the pilot: counts only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PilotCounts {
    /// Training examples.
    pub n: usize,
    /// Examples drawn per pass.
    pub draws_per_pass: u64,
    /// Passes of the fit.
    pub passes: u64,
    /// Mean non-zeros per row (the cost of a kernel value).
    pub row_nonzeros: f64,
    /// Bytes of one stored kernel value.
    pub value_bytes: usize,
    /// Examples drawn during the pilot.
    pub drawn: u64,
    /// Support vectors at the end of the pilot.
    pub support: usize,
    /// Support vectors halfway through the pilot (half the draws).
    pub support_half: usize,
}

impl PilotCounts {
    /// Support vectors projected at the end of the first pass: the pilot's count
    /// plus its second half's rate over the rest of the pass (not the whole
    /// pilot's rate: the first steps, from a zero model, violate more often).
    #[must_use]
    pub fn first_pass_support(&self) -> f64 {
        let (end, half) = (self.support as f64, self.support_half as f64);
        let drawn = self.drawn.max(1) as f64;
        let rest = (self.draws_per_pass as f64 - drawn).max(0.0);
        let rate = (end - half).max(0.0) / (drawn / 2.0);
        (end + rate * rest).min(self.n as f64)
    }
}

/// Projected cost of the whole fit on each strategy, in gathered kernel values:
/// `(support set, margin vector)`, the margin vector's including its construction
/// from the pilot's support set.
///
/// The first pass is projected to end with `S1` support vectors
/// ([`PilotCounts::first_pass_support`]); pass `p` adds `G_p = S1 * 0.5^(p-1)` and has
/// `V_p = 2 G_p` violations. With `S` support vectors at the start of pass `p`,
/// `D` draws, `r = 1 / (row_nonzeros + 16)` the cost of reading a stored kernel
/// value, `beta = 0.25` that of a kernel value computed in a block, and `q` the share
/// of the `n (S + G/2)` values of either strategy that fits the reference cache:
/// - support set, first pass: `D S1 / 2` (each row compared with the support set at
///   its draw); the margin vector's first pass 1.4 times that, plus `n beta |S|` to
///   build it from the pilot's support set; later passes: a cached row lacks the `G` values added since its
///   last draw and is read whole, an uncached one is computed whole:
///   `D (q (G + (S + G/2) r) + (1 - q)(S + G/2))`;
/// - margin vector: a column of `n` block values per new support vector and per
///   violation of an evicted column, `n` reads per violation, each draw compared
///   with the pending violations:
///   `n beta (G + (V - G)(1 - q)) + n V r + D min(32, V/2)`.
#[must_use]
pub fn projected_costs(c: &PilotCounts) -> (f64, f64) {
    let n = c.n as f64;
    let draws = c.draws_per_pass as f64;
    let read = 1.0 / (c.row_nonzeros.max(0.0) + VALUE_OVERHEAD);
    let first = c.first_pass_support();
    let mut on_support = draws * first / 2.0;
    let mut on_margins = n * BLOCK * c.support as f64 + FIRST_PASS_RATIO * on_support;
    let (mut support, mut grown) = (first, first);
    for _ in 1..c.passes.min(MAX_PROJECTED_PASSES) {
        grown *= GROWTH_DECAY;
        let violations = VIOLATIONS_PER_NEW * grown;
        let mean = support + grown / 2.0;
        let needed = n * mean * c.value_bytes as f64;
        let cached = if needed > 0.0 {
            (REFERENCE_CACHE_BYTES / needed).min(1.0)
        } else {
            1.0
        };
        on_support += draws * (cached * (grown + mean * read) + (1.0 - cached) * mean);
        let fresh = grown + (violations - grown) * (1.0 - cached);
        on_margins +=
            n * BLOCK * fresh + n * violations * read + draws * PENDING_MEAN.min(violations / 2.0);
        support += grown;
    }
    (on_support, on_margins)
}

/// Whether the fit should switch from the support set to the margin vector at the
/// end of the pilot ([`projected_costs`]).
#[must_use]
pub fn margins_pay_off(c: &PilotCounts) -> bool {
    let (on_support, on_margins) = projected_costs(c);
    on_margins < on_support
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts of a pilot of 1/16 of the first pass that found `support` support
    /// vectors, for a fit of `passes` passes.
    fn pilot(n: usize, row_nonzeros: f64, support: usize, passes: u64) -> PilotCounts {
        PilotCounts {
            n,
            draws_per_pass: n as u64,
            passes,
            row_nonzeros,
            value_bytes: 8,
            drawn: n as u64 / 16,
            support,
            support_half: support / 2,
        }
    }

    #[test]
    fn small_fits_keep_a_margin_vector_and_others_start_on_the_support_set() {
        assert_eq!(Strategy::Auto.start(200, 3), (Strategy::Margins, false));
        assert_eq!(Strategy::Auto.start(2000, 1), (Strategy::SupportSet, true));
        assert_eq!(Strategy::Auto.start(600, 3), (Strategy::SupportSet, true));
        for s in [Strategy::SupportSet, Strategy::Margins] {
            assert_eq!(s.start(200, 3), (s, false));
            assert_eq!(s.start(100_000, 10), (s, false));
        }
        assert_eq!(pilot_steps(1), 2);
        assert_eq!(pilot_steps(32), 2);
        assert_eq!(pilot_steps(33), 4);
        assert_eq!(pilot_steps(320), 20);
    }

    #[test]
    fn one_pass_stays_on_the_support_set() {
        // Nothing to reuse: the support set compares each row with the support
        // vectors found before its draw, half of them on average.
        for (n, s) in [(10_000, 30), (60_000, 130), (50_000, 1_000)] {
            let c = pilot(n, 50.0, s, 1);
            let (on_support, on_margins) = projected_costs(&c);
            assert!(on_support < on_margins, "{n} {s}");
            assert!(!margins_pay_off(&c));
        }
    }

    #[test]
    fn rows_beyond_the_cache_over_several_passes_favour_the_margin_vector() {
        // ijcnn1-like: 50,000 short rows, 2,000 support vectors after one pass:
        // the support set's rows (n |S| values) do not fit the cache.
        let c = pilot(50_000, 13.0, 140, 2);
        assert!(margins_pay_off(&c));
        let (on_support, on_margins) = projected_costs(&PilotCounts { passes: 4, ..c });
        assert!(on_margins < 0.5 * on_support);
    }

    #[test]
    fn a_small_support_set_in_the_cache_stays_for_a_few_passes_only() {
        // usps-like (one class): the rows fit the cache and few support vectors
        // are added after the first pass; many passes repay the margin vector.
        let c = pilot(7_300, 104.0, 8, 2);
        assert!(!margins_pay_off(&c));
        assert!(margins_pay_off(&PilotCounts { passes: 64, ..c }));
    }

    #[test]
    fn the_first_pass_is_projected_from_the_pilots_growth() {
        let c = pilot(16_000, 10.0, 100, 1);
        // Linear growth (half the support vectors at half the draws): the rate.
        assert!((c.first_pass_support() - 1_600.0).abs() < 1e-9);
        // A burst first (70 of the 100 in the first half): the second half's rate.
        let slow = PilotCounts {
            support_half: 70,
            ..c
        };
        assert!((slow.first_pass_support() - (100.0 + 30.0 * 2.0 * 15.0)).abs() < 1e-9);
        // No growth, and never more than n.
        let flat = PilotCounts {
            support_half: 100,
            ..c
        };
        assert!((flat.first_pass_support() - 100.0).abs() < 1e-9);
        let full = PilotCounts {
            support: 5_000,
            support_half: 2_500,
            ..c
        };
        assert!((full.first_pass_support() - 16_000.0).abs() < 1e-9);
    }

    #[test]
    fn empty_or_degenerate_counts_are_finite_and_stay() {
        for c in [pilot(1_000, 0.0, 0, 5), pilot(1_000, 10.0, 0, 0)] {
            let (s, m) = projected_costs(&PilotCounts { drawn: 0, ..c });
            assert!(s.is_finite() && m.is_finite());
            assert!(!margins_pay_off(&c));
        }
    }
}
