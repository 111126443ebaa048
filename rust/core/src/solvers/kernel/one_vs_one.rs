//! One-vs-one kernel Pegasos: a binary problem per pair of classes, each trained
//! on the rows of its two classes only (as libsvm and scikit-learn's `SVC` do).
//!
//! # Pairs
//! The `K (K - 1) / 2` pairs of `K` classes come in `SVC`'s order,
//! `(0, 1), (0, 2), ..., (0, K-1), (1, 2), ..., (K-2, K-1)`. Pair `(i, j)` labels
//! the rows of class `i` `+1` and those of class `j` `-1`, so that a positive
//! decision value votes for the first class of the pair, as `SVC`'s
//! `decision_function_shape="ovo"` values do. A row weighs its sample weight times
//! its own class's weight (as `SVC`'s `class_weight` scales `C` per class). Every
//! pair solves `SVC`'s problem with the same `C = 1/(lambda n)` on its `n_pair`
//! rows: its regularisation is `lambda n / n_pair` (the Pegasos objective averages
//! the losses over the pair's rows), so small pairs are not regularised `n /
//! n_pair` times less than the whole problem. Pair `p`
//! (in the order above) trains on stream `p` of the seed with a state of its own, so
//! the model does not depend on the number of threads or on the order the pairs run
//! in. With two classes the one pair is the one problem of one-vs-rest, trained by
//! it (class 1 positive, the sign of `SVC`'s binary decision values): the two give
//! the same model, bit for bit.
//!
//! # Kernel values
//! A pair reads the training Gram matrix through a [`SubsetGram`] view of its rows,
//! so it computes only kernel values between rows of its two classes, each from the
//! same function on the same rows as the whole matrix would (bit for bit). Within a
//! pair, the kernel columns of its support vectors are cached (its share of the
//! cache budget, split among the pairs that run at the same time) and reused over
//! the passes. Kernel values are not shared between pairs: a pair's columns cover
//! its own rows only.
//!
//! # The merged model
//! The pairs' support vectors are merged into one set (the union, by increasing
//! training index) with a row of dual coefficients per pair, zero where an example
//! is not a support vector of that pair: the decision values of all pairs come from
//! one pass over the union, as one-vs-rest's do.

use crate::data::labels::Labels;
use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::float::Float;
use crate::kernels::gram::{Gram, SubsetGram};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::kernel::held_out::{scorer_of, HeldOutSource};
use crate::solvers::kernel::model::{
    fit_kernel_one_vs_rest_fresh, merge_models, KernelModel, KernelSettings,
};
use crate::solvers::kernel::solver::{
    check_kernel_params, fit_kernel_binary, KernelFitOutput, KernelState,
};
use crate::solvers::shared::held_out::HeldOutProblem;
use crate::solvers::shared::params::{Params, Sampling, ValidParams};

/// What a one-vs-one fit returns: the merged model, and per binary problem (per
/// pair; the one problem for two classes) its final state and its report.
#[derive(Clone, Debug)]
pub struct OneVsOneFit {
    /// The union model, one row of dual coefficients per pair.
    pub model: KernelModel,
    /// The solver state of each pair, its rows numbered within the pair.
    pub states: Vec<KernelState>,
    /// What each pair's fit reports.
    pub outputs: Vec<KernelFitOutput>,
}

/// The pairs `(i, j)`, `i < j`, of `n_classes` classes in scikit-learn `SVC`'s
/// order (by `i`, then by `j`); two classes give the one pair `(0, 1)`.
#[must_use]
pub fn class_pairs(n_classes: usize) -> Vec<(u32, u32)> {
    let k = u32::try_from(n_classes).unwrap_or(u32::MAX);
    (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .collect()
}

/// Train a binary problem per pair of classes of `labels` on the Gram matrix
/// `gram` from fresh states (pair `p` on stream `p` of `params.seed`), as
/// `settings` say; kernel values are stored as `S`. With two classes this is
/// [`fit_kernel_one_vs_rest`].
///
/// A visiting order (`Sampling::Order`) is followed within each pair: the pair
/// visits its rows in the order they come in it, every row of another class
/// skipped.
///
/// With `held_out`, each pair scores its model on the held-out rows of its two
/// classes after every pass and stops by that score (early stopping).
pub fn fit_kernel_one_vs_one<G: Gram, S: Float>(
    gram: &G,
    labels: &Labels<'_>,
    held_out: Option<&dyn HeldOutSource>,
    params: &ValidParams,
    settings: KernelSettings,
    monitor: &Monitor,
) -> Result<OneVsOneFit> {
    check_kernel_params(params)?;
    labels.check(gram.n())?;
    if labels.n_classes == 2 {
        let (model, states, outputs) = fit_kernel_one_vs_rest_fresh::<G, S>(
            gram, labels, held_out, params, settings, monitor,
        )?;
        return Ok(OneVsOneFit {
            model,
            states,
            outputs,
        });
    }
    let members = class_members(labels.codes, labels.n_classes);
    let pairs = class_pairs(labels.n_classes);
    let solver = settings.solver(pairs.len());
    let fits = for_each_problem(pairs, settings.n_threads, |p, (i, j)| {
        let pair = Pair::new(labels, &members, (i, j), params)?;
        let view = SubsetGram::new(gram, &pair.rows)?;
        let task = pair.task()?;
        let mut state = KernelState::new(pair.rows.len(), params.seed, p as u64)?;
        let label = if params.verbose {
            format!("[pair {i}-{j}] ")
        } else {
            String::new()
        };
        let scorer = scorer_of(held_out, HeldOutProblem::Pair(i, j), Some(&pair.rows))?;
        let out = fit_kernel_binary::<_, S>(
            &view,
            &task,
            scorer.as_deref(),
            &pair.params,
            solver,
            &mut state,
            monitor,
            &label,
        )?;
        let mut model = state.model(pair.params.alpha);
        for s in &mut model.support {
            *s = pair.rows[*s] as usize;
        }
        Ok((model, state, out))
    })?;
    let mut models = Vec::with_capacity(fits.len());
    let mut states = Vec::with_capacity(fits.len());
    let mut outputs = Vec::with_capacity(fits.len());
    for (m, s, o) in fits {
        models.push(m);
        states.push(s);
        outputs.push(o);
    }
    Ok(OneVsOneFit {
        model: merge_models(&models)?,
        states,
        outputs,
    })
}

/// The training rows of each class, increasing.
pub(crate) fn class_members(codes: &[u32], n_classes: usize) -> Vec<Vec<u32>> {
    let mut members = vec![Vec::new(); n_classes];
    for (r, &c) in codes.iter().enumerate() {
        members[c as usize].push(r as u32);
    }
    members
}

/// The rows, labels and weights of one pair of classes.
pub(crate) struct Pair<'a> {
    /// Training rows of the two classes, increasing.
    pub(crate) rows: Vec<u32>,
    /// Their class codes.
    codes: Vec<u32>,
    /// Their sample weights, when given.
    sample_weight: Option<Vec<f64>>,
    /// The first class (labelled `+1`) and the second.
    classes: (u32, u32),
    /// The class weights.
    class_weight: &'a [f64],
    /// The parameters, a visiting order restricted to the pair's rows.
    pub(crate) params: ValidParams,
}

impl<'a> Pair<'a> {
    /// Pair `(i, j)` of `labels`, whose classes have the rows `members`.
    pub(crate) fn new(
        labels: &'a Labels<'_>,
        members: &[Vec<u32>],
        (i, j): (u32, u32),
        params: &ValidParams,
    ) -> Result<Self> {
        let (a, b) = (&members[i as usize], &members[j as usize]);
        let mut rows = Vec::with_capacity(a.len() + b.len());
        let (mut x, mut y) = (0, 0);
        while x < a.len() || y < b.len() {
            if y == b.len() || (x < a.len() && a[x] < b[y]) {
                rows.push(a[x]);
                x += 1;
            } else {
                rows.push(b[y]);
                y += 1;
            }
        }
        if rows.is_empty() {
            return Err(Error::InvalidInput(format!(
                "classes {i} and {j} have no examples"
            )));
        }
        let codes = rows.iter().map(|&r| labels.codes[r as usize]).collect();
        let sample_weight = labels
            .sample_weight
            .map(|w| rows.iter().map(|&r| w[r as usize]).collect());
        let params = pair_params(params, labels.codes.len(), &rows, (i, j))?;
        Ok(Self {
            rows,
            codes,
            sample_weight,
            classes: (i, j),
            class_weight: labels.class_weight,
            params,
        })
    }

    /// The binary task: the first class `+1`, each row weighed by its own class.
    pub(crate) fn task(&self) -> Result<BinaryTask<'_>> {
        let (i, j) = self.classes;
        BinaryTask::new(
            &self.codes,
            i,
            self.sample_weight.as_deref(),
            self.class_weight[i as usize],
            self.class_weight[j as usize],
        )
    }
}

/// The parameters of the pair `(i, j)` with the training rows `rows` of `n` rows in
/// all: the pair's own `alpha` (see the module docs) and the visiting order kept to
/// its rows.
fn pair_params(
    params: &ValidParams,
    n: usize,
    rows: &[u32],
    pair: (u32, u32),
) -> Result<ValidParams> {
    let restricted = restrict_order(params, rows, pair)?;
    Params {
        alpha: params.alpha * n as f64 / rows.len() as f64,
        ..restricted.into_params()
    }
    .validate()
}

/// `params` with a visiting order kept to the entries among `rows` (increasing),
/// renumbered within them; other samplings unchanged.
fn restrict_order(params: &ValidParams, rows: &[u32], (i, j): (u32, u32)) -> Result<ValidParams> {
    let Sampling::Order(order) = &params.sampling else {
        return Ok(params.clone());
    };
    let within: Vec<usize> = order
        .iter()
        .filter_map(|&g| u32::try_from(g).ok())
        .filter_map(|g| rows.binary_search(&g).ok())
        .collect();
    if within.is_empty() {
        return Err(Error::InvalidParameter(format!(
            "the visiting order visits no example of classes {i} and {j}; one-vs-one \
             trains each pair of classes on the order's entries of their examples"
        )));
    }
    Params {
        sampling: Sampling::Order(within),
        ..Params::clone(params)
    }
    .validate()
}

#[cfg(test)]
#[path = "one_vs_one_tests.rs"]
mod tests;
