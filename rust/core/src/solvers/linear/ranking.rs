//! Learning to rank from preference pairs with Pegasos: `RankSVM`'s objective
//! (Joachims 2002) and its logistic variant, solved by stochastic sub-gradient
//! steps on sampled pairs as in sofia-ml's `rank` and `roc` learners (D. Sculley,
//! "Large Scale Learning to Rank", NIPS Workshop on Advances in Ranking, 2009), on
//! top of linear Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal
//! Estimated sub-GrAdient SOlver for SVM", Math. Programming 127, 2011).
//!
//! # Objective
//! ```text
//! F(w) = lambda/2 ||w||^2 + 1/|P| sum_{(i, j) in P} l(<w, x_i - x_j>)
//! ```
//! over the preference pairs `P`: the ordered pairs of rows of the same query
//! whose relevance `y_i > y_j` (with no query ids, of the whole set: AUC
//! optimisation). `l` is a margin loss of [`crate::solvers::shared::loss`] with the pair's
//! label `+1`: the hinge `max(0, 1 - z)` (`RankSVM`) or `ln(1 + e^-z)`. There is no
//! bias: it cancels in the differences.
//!
//! # Update rule (step t = 1, 2, ...)
//! Draw `k` pairs `A_t` uniformly from `P` (with replacement). With
//! `eta_t = 1/(lambda t)` and `g_ij = -l'(<w_t, x_i - x_j>)` (taken at `w_t`):
//!
//! ```text
//! w_{t+1/2} = (1 - eta_t lambda) w_t + eta_t / k * sum_{(i,j) in A_t} g_ij (x_i - x_j)
//! w_{t+1}   = min(1, r / ||w_{t+1/2}||) w_{t+1/2}                      (optional)
//! ```
//!
//! which is linear Pegasos on the difference vectors, each added as two sparse
//! axpys (`+x_i`, `-x_j`) on the scaled vector of
//! [`crate::solvers::linear::binary::LinearState`] (`w = a v`, `||w||^2` tracked, the
//! lazy average), so a step costs the non-zeros of its violating pairs. The radius
//! is `r^2 = kappa l(0) / lambda` (every pair's loss at `w = 0` is `l(0)`; the
//! hinge's `kappa = 1` is the paper's dual bound, see [`crate::solvers::shared::loss`]).
//!
//! # Drawing a pair uniformly from `P` without listing it
//! Rows are sorted by (query, relevance); row `i` of query `q` at level `v` gets
//! the weight `w_i = n_q - n_{q,v}`, the rows of its query at other levels. An
//! alias table (Walker 1977, Vose 1991; in integers, so its probabilities are
//! exact: [`AliasTable`]) draws a row `i` with probability `w_i / W`,
//! `W = sum_i w_i = 2 |P|`; then `j` is drawn uniformly among the `w_i` rows of its
//! query at other levels (two contiguous ranges of the sorted rows). An unordered
//! pair `{a, b}` is drawn with probability `w_a/W * 1/w_a + w_b/W * 1/w_b = 1/|P|`:
//! uniform. The pair is then oriented so that the more relevant row comes first.
//! Building the index costs a sort of the rows, `O(m log m)`, and `O(m)` memory;
//! each draw costs O(1) and two or three numbers from the seeded generator of the
//! state's `crate::solvers::shared::sampler::Sampler`, so a continued fit draws what an
//! uninterrupted one would.

use crate::data::labels::check_y_len;
use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::rng::Rng;
use crate::solvers::linear::binary::{
    begin_step, finish_linear_fit, plan_linear_fit, run_in_blocks, FitOutput, LinearState,
};
use crate::solvers::linear::scaled::ScaledState;
use crate::solvers::shared::loss::{Loss, LossFunction};
use crate::solvers::shared::params::{Averaging, Intercept, ValidParams};
use crate::solvers::shared::passes::{drive, runs_on_state, PassPlan, PassRunner};

/// Walker's alias table over integer weights, built by Vose's method in exact
/// integer arithmetic: entry `b` keeps its own index with probability
/// `prob[b] / total` and otherwise gives `alias[b]`, so that index `i` is drawn
/// with probability exactly `weight_i / sum(weights)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliasTable {
    /// `total` times the probability that bin `b` keeps its own index.
    prob: Vec<u64>,
    /// The index bin `b` gives otherwise.
    alias: Vec<usize>,
    /// The sum of the weights (each bin's capacity).
    total: u64,
}

impl AliasTable {
    /// The table of `weights` (not all zero; their sum below `2^64`). O(n).
    pub fn new(weights: &[u64]) -> Result<Self> {
        let n = weights.len();
        let total = weights
            .iter()
            .try_fold(0u64, |a, &w| a.checked_add(w))
            .ok_or_else(|| Error::InvalidInput("too many pairs to index".into()))?;
        if total == 0 {
            return Err(Error::InvalidInput(
                "an alias table needs a positive weight".into(),
            ));
        }
        // Bin capacity `total`; the scaled weights `n w_i` sum to `n total`.
        let mut scaled: Vec<u128> = weights.iter().map(|&w| u128::from(w) * n as u128).collect();
        let cap = u128::from(total);
        let mut prob = try_filled_vec(n, total, "an alias table")?;
        let mut alias: Vec<usize> = (0..n).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < cap);
        // Pop from the ends: the order is fixed, so the table is the same everywhere.
        while let (Some(&l), Some(&g)) = (small.last(), large.last()) {
            small.pop();
            // `scaled[l] < cap <= u64::MAX + 1`, so it fits in a u64.
            prob[l] = scaled[l] as u64;
            alias[l] = g;
            scaled[g] -= cap - scaled[l];
            if scaled[g] < cap {
                large.pop();
                small.push(g);
            }
        }
        // What is left is full (exact integers: nothing is left over).
        Ok(Self { prob, alias, total })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.prob.len()
    }

    /// `n * total * P(i)` for every index `i` (`n` the number of entries): the exact
    /// probabilities of [`AliasTable::draw`] as integers, which equal `n * weight_i`.
    #[cfg(test)]
    pub fn scaled_probabilities(&self) -> Vec<u128> {
        let n = self.len();
        let mut out = vec![0u128; n];
        for b in 0..n {
            out[b] += u128::from(self.prob[b]);
            out[self.alias[b]] += u128::from(self.total - self.prob[b]);
        }
        out
    }

    /// An index drawn with probability `weight_i / total`: a uniform bin, then a
    /// uniform integer below `total` against the bin's threshold.
    #[inline]
    pub fn draw(&self, rng: &mut Rng) -> usize {
        let b = rng.below(self.len() as u64) as usize;
        if rng.below(self.total) < self.prob[b] {
            b
        } else {
            self.alias[b]
        }
    }
}

/// The rows of one relevance level of one query, as positions in the sorted order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    /// The query's positions `q_lo..q_hi`.
    q_lo: usize,
    q_hi: usize,
    /// The level's positions `lo..hi` (within the query's).
    lo: usize,
    hi: usize,
}

/// The index that draws preference pairs uniformly (see the module
/// documentation): the rows sorted by (query, relevance), the level of each, and
/// the alias table over the rows' pair counts.
#[derive(Clone, Debug)]
pub struct PairIndex {
    /// Row at each position.
    order: Vec<usize>,
    /// Level (index into `levels`) of each position.
    level_of: Vec<usize>,
    levels: Vec<Level>,
    alias: AliasTable,
    n_pairs: u64,
}

impl PairIndex {
    /// The index of the pairs of rows with relevance `y` within the queries `qid`
    /// (`None`: the whole set is one query, as for AUC). Errors: lengths that
    /// differ, a relevance that is not finite, or no pair at all (every query has
    /// a single relevance level).
    pub fn new(y: &[f64], qid: Option<&[i64]>) -> Result<Self> {
        let m = y.len();
        if let Some(q) = qid {
            if q.len() != m {
                return Err(Error::ShapeMismatch(format!(
                    "{m} relevance values but {} query ids",
                    q.len()
                )));
            }
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidInput(format!(
                "the relevance of example {i} is not finite ({})",
                y[i]
            )));
        }
        let query = |i: usize| qid.map_or(0, |q| q[i]);
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| {
            query(a)
                .cmp(&query(b))
                .then(y[a].total_cmp(&y[b]))
                .then(a.cmp(&b))
        });
        let mut level_of = try_filled_vec(m, 0usize, "a pair index")?;
        let mut levels = Vec::new();
        let mut weights = try_filled_vec(m, 0u64, "a pair index")?;
        let mut n_pairs: u64 = 0;
        let mut q_lo = 0;
        while q_lo < m {
            let q = query(order[q_lo]);
            let mut q_hi = q_lo;
            while q_hi < m && query(order[q_hi]) == q {
                q_hi += 1;
            }
            let n_q = (q_hi - q_lo) as u64;
            let mut lo = q_lo;
            while lo < q_hi {
                let v = y[order[lo]];
                let mut hi = lo;
                while hi < q_hi && y[order[hi]] == v {
                    hi += 1;
                }
                let others = n_q - (hi - lo) as u64;
                for p in lo..hi {
                    level_of[p] = levels.len();
                    weights[p] = others;
                }
                // Pairs with the levels below: counted once each.
                n_pairs = n_pairs.saturating_add((hi - lo) as u64 * (lo - q_lo) as u64);
                levels.push(Level { q_lo, q_hi, lo, hi });
                lo = hi;
            }
            q_lo = q_hi;
        }
        if n_pairs == 0 {
            return Err(Error::InvalidInput(if qid.is_some() {
                "no preference pairs: every query has a single relevance level".into()
            } else {
                "no preference pairs: every example has the same relevance".into()
            }));
        }
        Ok(Self {
            order,
            level_of,
            levels,
            alias: AliasTable::new(&weights)?,
            n_pairs,
        })
    }

    /// The number of preference pairs `|P|`.
    pub fn n_pairs(&self) -> u64 {
        self.n_pairs
    }

    /// The alias table over the rows (in sorted position order).
    #[cfg(test)]
    pub fn alias(&self) -> &AliasTable {
        &self.alias
    }

    /// A pair `(i, j)` of rows with `y_i > y_j`, uniform over the pairs.
    #[inline]
    pub fn draw(&self, rng: &mut Rng) -> (usize, usize) {
        let p = self.alias.draw(rng);
        let lv = self.levels[self.level_of[p]];
        let below = lv.lo - lv.q_lo;
        let others = (lv.q_hi - lv.q_lo) - (lv.hi - lv.lo);
        let r = rng.below(others as u64) as usize;
        if r < below {
            (self.order[p], self.order[lv.q_lo + r])
        } else {
            (self.order[lv.hi + (r - below)], self.order[p])
        }
    }

    /// Every pair `(i, j)`, `y_i > y_j`, in a fixed order (queries, then the less
    /// relevant row's position, then the more relevant one's).
    pub fn for_each_pair<F: FnMut(usize, usize)>(&self, mut f: F) {
        for (p, &j) in self.order.iter().enumerate() {
            let lv = self.levels[self.level_of[p]];
            for &i in &self.order[lv.hi..lv.q_hi] {
                f(i, j);
            }
        }
    }
}

/// The constants of a ranking step (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct RankRule {
    loss: LossFunction,
    /// `kappa l(0) / lambda` (infinite without projection).
    sq_radius: f64,
    /// `1 / (lambda k)`.
    inv_alpha_k: f64,
    batch_size: usize,
    weighted: bool,
}

impl RankRule {
    /// The rule of `params` (a margin loss of bounded slope, no intercept).
    pub fn new(params: &ValidParams) -> Result<Self> {
        let loss = params.loss;
        if !loss.is_margin_loss() || loss.curvature().is_some() {
            return Err(Error::InvalidParameter(format!(
                "ranking supports the losses 'hinge' and 'log_loss', not {:?}",
                loss.name()
            )));
        }
        if params.intercept != Intercept::None {
            return Err(Error::InvalidParameter(
                "a ranking has no intercept (it cancels in the pair differences)".into(),
            ));
        }
        let zero = loss.value(0.0, 1.0);
        let sq_radius = if params.projection && zero > 0.0 {
            loss.radius_factor() * zero / params.alpha
        } else {
            f64::INFINITY
        };
        Ok(Self {
            loss,
            sq_radius,
            inv_alpha_k: 1.0 / (params.alpha * params.batch_size as f64),
            batch_size: params.batch_size,
            weighted: params.averaging == Averaging::Weighted,
        })
    }

    /// One step on the pairs `batch`; `violators` is scratch space (the pairs whose
    /// loss has a slope, with `g_ij`).
    pub(crate) fn step<R: Rows>(
        &self,
        rows: &R,
        state: &mut LinearState,
        batch: &[(usize, usize)],
        violators: &mut Vec<(usize, usize, f64)>,
    ) {
        let (inv_t, eta_over_k) = begin_step(&mut state.t, self.inv_alpha_k);
        violators.clear();
        for &(i, j) in batch {
            let z = state.scale * (rows.dot(i, &state.v) - rows.dot(j, &state.v));
            let g = self.loss.step_weight(z, 1.0);
            if g != 0.0 {
                violators.push((i, j, g));
            }
        }
        state.shrink_iterate(inv_t);
        for &(i, j, g) in violators.iter() {
            let c = eta_over_k * g;
            state.add_row(rows, i, c);
            state.add_row(rows, j, -c);
        }
        state.end_step(self.sq_radius, self.weighted);
    }
}

/// `F(w)` of the module documentation for the weights `w` (`n_features` entries):
/// the scores, then every pair's loss summed in [`PairIndex::for_each_pair`]'s
/// order. O(nnz + |P|).
pub fn ranking_objective<R: Rows>(
    rows: &R,
    index: &PairIndex,
    loss: &LossFunction,
    w: &[f64],
    alpha: f64,
) -> f64 {
    let scores: Vec<f64> = (0..rows.n_rows()).map(|i| rows.dot(i, w)).collect();
    let mut sum = -0.0;
    index.for_each_pair(|i, j| sum += loss.value(scores[i] - scores[j], 1.0));
    let norm: f64 = w.iter().map(|x| x * x).sum();
    0.5 * alpha * norm + sum / index.n_pairs() as f64
}

/// An in-memory ranking fit as the pass driver runs it.
struct RankRun<'a, 's, R> {
    rows: &'a R,
    index: &'a PairIndex,
    rule: RankRule,
    params: &'a ValidParams,
    state: &'s mut LinearState,
    coef: &'s mut [f64],
    monitor: &'a Monitor,
}

impl<R: Rows> RankRun<'_, '_, R> {
    fn run(&mut self, n_steps: u64) -> Result<()> {
        let k = self.rule.batch_size;
        let mut violators = Vec::new();
        let (rows, rule, index) = (self.rows, &self.rule, &self.index);
        run_in_blocks(
            &mut *self.state,
            (k, n_steps),
            (self.monitor, true),
            |state| index.draw(&mut state.sampler.rng),
            |state, drawn| {
                if !rows.is_checked() {
                    for &(i, j) in drawn {
                        rows.check_row(i)?;
                        rows.check_row(j)?;
                    }
                }
                for batch in drawn.chunks_exact(k) {
                    rule.step(rows, state, batch, &mut violators);
                }
                Ok(())
            },
        )
    }
}

runs_on_state!(RankRun, LinearState);

impl<R: Rows> PassRunner for RankRun<'_, '_, R> {
    fn run_pass(&mut self, steps: u64) -> Result<()> {
        self.run(steps)
    }

    fn objective(&mut self) -> Result<Option<f64>> {
        if !PassPlan::wants_objective(self.params) {
            return Ok(None);
        }
        if !self.rows.is_checked() {
            for i in 0..self.rows.n_rows() {
                self.rows.check_row(i)?;
            }
        }
        self.state.write_model(Intercept::None, self.coef);
        Ok(Some(ranking_objective(
            self.rows,
            self.index,
            &self.params.loss,
            self.coef,
            self.params.alpha,
        )))
    }
}

/// Fit a ranking of the rows with relevance `y` grouped by `qid` (`None`: the
/// whole set is one query, AUC optimisation), continuing `state`, for
/// `params.max_iter` passes of `ceil(n_rows / batch_size)` steps each (or
/// `params.max_steps` steps), through the pass driver (objective, verbose lines,
/// cancellation and `tol`). The weights are written to `coef` (`n_features`
/// entries); the intercept returned is 0.
pub fn fit_ranking<R: Rows>(
    rows: &R,
    y: &[f64],
    qid: Option<&[i64]>,
    params: &ValidParams,
    state: &mut LinearState,
    coef: &mut [f64],
    monitor: &Monitor,
) -> Result<FitOutput> {
    check_y_len(rows.n_rows(), y.len(), "values")?;
    if coef.len() != rows.n_features() || state.n_features() != rows.n_features() {
        return Err(Error::ShapeMismatch(format!(
            "the data has {} features, the solver state {} and the coefficients {}",
            rows.n_features(),
            state.n_features(),
            coef.len()
        )));
    }
    let rule = RankRule::new(params)?;
    let index = PairIndex::new(y, qid)?;
    let mut plan = plan_linear_fit(params, state, rows.n_rows())?;
    let mut run = RankRun {
        rows,
        index: &index,
        rule,
        params,
        state,
        coef,
        monitor,
    };
    drive(&mut plan, &mut run, params, monitor, "")?;
    Ok(finish_linear_fit(&plan, params, run.state, run.coef))
}

#[cfg(test)]
#[path = "ranking_tests.rs"]
mod tests;
