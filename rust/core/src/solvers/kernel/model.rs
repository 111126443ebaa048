//! One-vs-rest kernel Pegasos and prediction through the support vectors.
//!
//! Problem `p` trains on stream `p` of the seed with its own state, so the model does
//! not depend on the number of threads. The problems' support vectors are merged
//! into one set (the union, by increasing training index) with one row of dual
//! coefficients per problem, zero where an example is not a support vector of that
//! problem.

use crate::monitor::Monitor;

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::kernels::cache::SharedColumns;
use crate::kernels::function::{KernelRows, Targets, QUERY_BLOCK};
use crate::kernels::gram::Gram;
use crate::parallel::{for_each_problem, row_blocks};
use crate::solvers::kernel::held_out::{scorer_of, HeldOutSource};
use crate::solvers::kernel::solver::{
    check_kernel_params, fit_kernel_binary_shared, BinaryKernelModel, KernelFitOutput,
    KernelProblem, KernelSolver, KernelState, Strategy,
};
use crate::solvers::shared::held_out::HeldOutProblem;
use crate::solvers::shared::params::ValidParams;
use crate::solvers::shared::passes::problem_label;

/// A trained kernel model:
/// `f_p(x) = sum_s dual_coef[p][s] K(x_{support[s]}, x) + intercept[p]`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelModel {
    /// Training indices of the support vectors (union over problems), increasing.
    pub support: Vec<usize>,
    /// Row-major `n_problems x support.len()`.
    pub dual_coef: Vec<f64>,
    /// One intercept per problem.
    pub intercept: Vec<f64>,
}

/// Fresh states for every binary problem: problem `p` uses stream `p` of `seed`.
pub fn initial_kernel_states(n_problems: usize, n: usize, seed: u64) -> Result<Vec<KernelState>> {
    (0..n_problems)
        .map(|p| KernelState::new(n, seed, p as u64))
        .collect()
}

/// How a one-vs-rest kernel fit runs, besides the parameters shared with the
/// linear solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSettings {
    /// Margin evaluation strategy.
    pub strategy: Strategy,
    /// The total kernel cache in bytes, shared out among the problems that run at
    /// the same time.
    pub cache_bytes: usize,
    /// Threads (0 = all cores).
    pub n_threads: usize,
}

impl KernelSettings {
    /// The solver settings of each of `n_problems` problems run at the same time on
    /// these threads: the cache budget shared out among the problems that run at
    /// once, nested parallel work when there is more than one thread.
    pub(crate) fn solver(&self, n_problems: usize) -> KernelSolver {
        let threads = match self.n_threads {
            1 => 1,
            0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            t => t,
        };
        let concurrent = threads.min(n_problems).max(1);
        KernelSolver {
            strategy: self.strategy,
            cache_bytes: self.cache_bytes / concurrent,
            parallel: threads > 1,
        }
    }
}

/// Train every binary problem of `labels` on the Gram matrix `gram`, continuing
/// `states`, as `settings` say. Kernel values are stored as `S`.
///
/// With `held_out`, each problem scores its model on its held-out rows after
/// every pass and stops by that score (early stopping).
pub fn fit_kernel_one_vs_rest<G: Gram, S: Float>(
    gram: &G,
    labels: &Labels<'_>,
    held_out: Option<&dyn HeldOutSource>,
    params: &ValidParams,
    settings: KernelSettings,
    states: &mut [KernelState],
    monitor: &Monitor,
) -> Result<(KernelModel, Vec<KernelFitOutput>)> {
    let KernelSettings {
        cache_bytes,
        n_threads,
        ..
    } = settings;
    check_kernel_params(params)?;
    labels.check(gram.n())?;
    let n_problems = labels.n_problems();
    if states.len() != n_problems {
        return Err(Error::ShapeMismatch(format!(
            "{} solver states for {n_problems} binary problems",
            states.len()
        )));
    }
    let solver = settings.solver(n_problems);
    let multi = n_problems > 1;
    // Kernel columns are shared by all problems (the whole budget); the support-set
    // rows depend on each problem's support set (a share each). A problem uses one
    // or the other.
    let columns = SharedColumns::new(gram.n(), cache_bytes);
    let items: Vec<&mut KernelState> = states.iter_mut().collect();
    let outputs = for_each_problem(items, n_threads, |p, state| {
        let task = labels.task(p)?;
        let label = problem_label(multi && params.verbose, p);
        let scorer = scorer_of(held_out, HeldOutProblem::Problem(p), None)?;
        let problem = KernelProblem::new(gram, &task, params, scorer.as_deref());
        fit_kernel_binary_shared::<G, S>(problem, solver, &columns, state, monitor, &label)
    })?;
    Ok((merge(states, params.alpha)?, outputs))
}

/// [`fit_kernel_one_vs_rest`] from fresh states (problem `p` on stream `p` of the
/// seed): the model, the final states and the reports.
pub fn fit_kernel_one_vs_rest_fresh<G: Gram, S: Float>(
    gram: &G,
    labels: &Labels<'_>,
    held_out: Option<&dyn HeldOutSource>,
    params: &ValidParams,
    settings: KernelSettings,
    monitor: &Monitor,
) -> Result<(KernelModel, Vec<KernelState>, Vec<KernelFitOutput>)> {
    let mut states = initial_kernel_states(labels.n_problems(), gram.n(), params.seed)?;
    let (model, outputs) = fit_kernel_one_vs_rest::<G, S>(
        gram,
        labels,
        held_out,
        params,
        settings,
        &mut states,
        monitor,
    )?;
    Ok((model, states, outputs))
}

/// The union model of the problems' current iterates.
fn merge(states: &[KernelState], alpha: f64) -> Result<KernelModel> {
    let models: Vec<_> = states.iter().map(|s| s.model(alpha)).collect();
    merge_models(&models)
}

/// One model of the binary `models` (support indices in the same numbering): their
/// union of support vectors, by increasing index, and a row of dual coefficients
/// per model, zero where an example is not one of its support vectors.
pub(crate) fn merge_models(models: &[BinaryKernelModel]) -> Result<KernelModel> {
    let mut support: Vec<usize> = models.iter().flat_map(|m| m.support.clone()).collect();
    support.sort_unstable();
    support.dedup();
    let n_sv = support.len();
    let mut dual_coef = try_filled_vec(models.len() * n_sv, 0.0, "the dual coefficients")?;
    for (p, m) in models.iter().enumerate() {
        let row = &mut dual_coef[p * n_sv..(p + 1) * n_sv];
        let mut s = 0;
        for (&j, &c) in m.support.iter().zip(&m.dual_coef) {
            while support[s] != j {
                s += 1;
            }
            row[s] = c;
        }
    }
    Ok(KernelModel {
        support,
        dual_coef,
        intercept: models.iter().map(|m| m.intercept).collect(),
    })
}

/// Decision values of `x` (row-major `n_rows x n_problems`) for the model with
/// support vectors `sv` (prepared as `prep`), dual coefficients (row-major
/// `n_problems x n_sv`) and intercepts, computed in parallel blocks of rows on
/// `n_threads` threads (0 = all cores). Stops with [`Error::Interrupted`] once
/// `monitor` is stopped.
pub fn kernel_decision_function<R: Rows, Q: Rows>(
    prep: &KernelRows<'_, R>,
    x: &Q,
    dual_coef: &[f64],
    intercept: &[f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let n_sv = prep.len();
    let k = intercept.len();
    if Some(dual_coef.len()) != k.checked_mul(n_sv) {
        return Err(Error::ShapeMismatch(format!(
            "dual_coef has {} values, expected {k} x {n_sv}",
            dual_coef.len()
        )));
    }
    let n = x.n_rows();
    let len = n
        .checked_mul(k)
        .ok_or_else(|| Error::OutOfMemory(format!("{n} x {k} decision values")))?;
    let mut out = try_filled_vec(len, 0.0, "the decision values")?;
    if k == 0 || n == 0 {
        return Ok(out);
    }
    // Sparse, high-dimensional support vectors: one inverted index over all of them.
    let block = if prep.prefers_inverted() {
        let mut b = prep.block();
        let all: Vec<u32> = (0..n_sv as u32).collect();
        prep.set_block(&mut b, &all);
        Some(b)
    } else {
        None
    };
    if block.is_none() && n_sv > 0 && prep.kernel().is_dot_product() {
        // Several query rows against each support vector read once: the same values
        // (dot_many keeps dot's lanes), far fewer reads of the support vectors.
        row_blocks(&mut out, k, n_threads, monitor, |first, chunk| {
            let mut qb = prep.query_block();
            let mut kv = vec![0.0; QUERY_BLOCK * n_sv];
            for (b, rows_out) in chunk.chunks_mut(QUERY_BLOCK * k).enumerate() {
                let count = rows_out.len() / k;
                prep.load_block(&mut qb, x, first + b * QUERY_BLOCK, count)?;
                prep.eval_query_block(&mut qb, &mut kv);
                for (row_out, values) in rows_out.chunks_mut(k).zip(kv.chunks(n_sv.max(1))) {
                    for (p, o) in row_out.iter_mut().enumerate() {
                        let coef = &dual_coef[p * n_sv..(p + 1) * n_sv];
                        *o =
                            coef.iter().zip(values).map(|(c, v)| c * v).sum::<f64>() + intercept[p];
                    }
                }
            }
            Ok(())
        })?;
        return Ok(out);
    }
    row_blocks(&mut out, k, n_threads, monitor, |first, chunk| {
        let mut q = prep.query();
        let mut kv = vec![0.0; n_sv];
        for (r, row_out) in chunk.chunks_mut(k).enumerate() {
            prep.load(&mut q, x, first + r)?;
            match &block {
                Some(b) => prep.eval_block_loaded(b, &q, &mut kv),
                None => prep.eval_into(&q, Targets::Range(0), &mut kv),
            }
            for (p, o) in row_out.iter_mut().enumerate() {
                let coef = &dual_coef[p * n_sv..(p + 1) * n_sv];
                *o = coef.iter().zip(&kv).map(|(c, v)| c * v).sum::<f64>() + intercept[p];
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// The kernel matrix `K(x_i, y_j)` (row-major `x.n_rows() x prep.len()`) between the
/// rows of `x` and the rows `prep` was prepared on, in parallel blocks of rows.
/// Stops with [`Error::Interrupted`] once `monitor` is stopped.
pub fn kernel_matrix<R: Rows, Q: Rows>(
    prep: &KernelRows<'_, R>,
    x: &Q,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let m = prep.len();
    let n = x.n_rows();
    let len = n
        .checked_mul(m)
        .ok_or_else(|| Error::OutOfMemory(format!("a {n} x {m} kernel matrix")))?;
    let mut out = try_filled_vec(len, 0.0, "the kernel matrix")?;
    if m == 0 || n == 0 {
        return Ok(out);
    }
    row_blocks(&mut out, m, n_threads, monitor, |first, chunk| {
        let mut q = prep.query();
        for (r, row) in chunk.chunks_mut(m).enumerate() {
            prep.load(&mut q, x, first + r)?;
            prep.eval_into(&q, Targets::Range(0), row);
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;
    use crate::kernels::function::{Kernel, KernelRow};
    use crate::kernels::gram::DataGram;
    use crate::rng::Rng;
    use crate::solvers::shared::params::{Averaging, Intercept, Params, Sampling};

    /// Checks the decision values `f` of `model` on `rows` against direct sums over
    /// the support vectors; returns how many rows the largest value classifies
    /// as `codes` says.
    fn check_against_direct_sums(
        model: &KernelModel,
        kernel: Kernel,
        rows: &DenseRows<'_, f64>,
        f: &[f64],
        codes: &[u32],
    ) -> usize {
        let classes = model.intercept.len();
        let n_sv = model.support.len();
        let mut k = KernelRow::new(kernel, rows).unwrap();
        let mut correct = 0;
        for (i, &code) in codes.iter().enumerate() {
            k.load(rows, i).unwrap();
            for c in 0..classes {
                let want: f64 = model
                    .support
                    .iter()
                    .enumerate()
                    .map(|(s, &j)| model.dual_coef[c * n_sv + s] * k.eval(j))
                    .sum::<f64>()
                    + model.intercept[c];
                assert!((f[i * classes + c] - want).abs() < 1e-9);
            }
            let row = &f[i * classes..(i + 1) * classes];
            let best = (0..classes)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .unwrap();
            correct += usize::from(best as u32 == code);
        }
        correct
    }

    #[test]
    fn one_vs_rest_is_thread_independent_and_predicts_through_the_union() {
        let (n, d, classes) = (240, 3, 3usize);
        let mut rng = Rng::seed_from_u64(9);
        let x: Vec<f64> = (0..n * d)
            .map(|_| rng.below(2001) as f64 / 1000.0 - 1.0)
            .collect();
        // Class by angle sector in the first two coordinates.
        let codes: Vec<u32> = (0..n)
            .map(|i| {
                let a = x[i * d + 1].atan2(x[i * d]) + std::f64::consts::PI;
                ((a / (2.0 * std::f64::consts::PI) * classes as f64) as u32).min(2)
            })
            .collect();
        let rows = DenseRows::new(&x, n, d).unwrap();
        let kernel = Kernel::Rbf { gamma: 2.0 };
        let gram = DataGram::new(&rows, KernelRows::new(kernel, &rows).unwrap());
        let cw = vec![1.0; classes];
        let labels = Labels {
            codes: &codes,
            n_classes: classes,
            sample_weight: None,
            class_weight: &cw,
        };
        let p = Params {
            alpha: 1.0 / n as f64,
            projection: false,
            intercept: Intercept::Unregularized,
            averaging: Averaging::Off,
            sampling: Sampling::Uniform,
            max_iter: 8,
            seed: 4,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let run = |threads: usize, cache: usize| {
            let mut states = initial_kernel_states(classes, n, p.seed).unwrap();
            let settings = KernelSettings {
                strategy: Strategy::Margins,
                cache_bytes: cache,
                n_threads: threads,
            };
            fit_kernel_one_vs_rest::<_, f64>(
                &gram,
                &labels,
                None,
                &p,
                settings,
                &mut states,
                &Monitor::new(),
            )
            .unwrap()
            .0
        };
        let model = run(1, 1 << 20);
        // Threads, and whether columns come from the shared cache, change nothing.
        assert_eq!(model, run(2, 1 << 20));
        assert_eq!(model, run(2, 0));
        let n_sv = model.support.len();
        assert!(n_sv > 0 && n_sv < n);
        // Predict through the support vectors only, against a direct sum.
        let sv: Vec<f64> = model
            .support
            .iter()
            .flat_map(|&j| x[j * d..(j + 1) * d].to_vec())
            .collect();
        let sv_rows = DenseRows::new(&sv, n_sv, d).unwrap();
        let prep = KernelRows::new(kernel, &sv_rows).unwrap();
        let go = Monitor::new();
        let (dual, b) = (&model.dual_coef, &model.intercept);
        let f1 = kernel_decision_function(&prep, &rows, dual, b, 1, &go).unwrap();
        let f2 = kernel_decision_function(&prep, &rows, dual, b, 2, &go).unwrap();
        assert_eq!(f1, f2);
        let monitor = Monitor::stopped();
        let r = kernel_decision_function(&prep, &rows, dual, b, 2, &monitor);
        assert_eq!(r, Err(Error::Interrupted));
        let correct = check_against_direct_sums(&model, kernel, &rows, &f1, &codes);
        assert!(correct as f64 / n as f64 > 0.9, "{correct}/{n}");
    }
}
