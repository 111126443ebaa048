//! Kernel Pegasos on real targets: support vector regression with the
//! epsilon-insensitive loss (LIBSVM's epsilon-SVR, `svm-train -s 3`) or its square,
//! through the kernel solver's one step loop ([`crate::solvers::kernel::solver`]).
//!
//! The objective is `lambda/2 ||w||^2 + 1/m sum_i c_i max(0, |f(x_i) - y_i| - eps)`
//! with `f(x) = <w, phi(x)> + b`: LIBSVM's `1/2 ||w||^2 + C sum_i (xi_i + xi_i^*)`
//! divided by `C m`, so `C = 1 / (lambda m)`. A step adds `c_i g_i / k` to example
//! `i`'s coefficient, `g_i = sign(y_i - f(x_i))` outside the tube and 0 inside: the
//! examples that stay inside the tube are never support vectors. The model is one
//! problem, `f(x) = sum_s dual_coef[s] K(x_{support[s]}, x) + intercept`, whose
//! coefficients are LIBSVM's `alpha_i - alpha_i^*` (the sign of the residuals the
//! example's steps corrected).

use crate::data::labels::check_y_len;
use crate::data::task::BinaryTask;
use crate::error::Result;
use crate::float::Float;
use crate::kernels::cache::SharedColumns;
use crate::kernels::gram::Gram;
use crate::monitor::Monitor;
use crate::solvers::kernel::held_out::{scorer_of, HeldOutSource};
use crate::solvers::kernel::model::{merge_models, KernelModel, KernelSettings};
use crate::solvers::kernel::solver::{
    fit_kernel_binary_shared, KernelFitOutput, KernelProblem, KernelState,
};
use crate::solvers::shared::held_out::HeldOutProblem;
use crate::solvers::shared::params::ValidParams;

/// Fit a kernel regression of `targets` (one per row of `gram`, finite) with
/// example weights `sample_weight` (1 without), continuing `state` (fresh:
/// [`KernelState::new`] with stream 0 of the seed), as `settings` say; kernel
/// values are stored as `S`. `params.loss` must be a regression loss the kernel
/// solver takes (see [`crate::solvers::kernel::solver::check_kernel_params`]). Returns the
/// model (one row of dual coefficients) and the fit's report.
///
/// With `held_out`, the model is scored (R^2) on the held-out rows after every
/// pass and the fit stops by that score (early stopping).
#[allow(clippy::too_many_arguments)] // a fit's inputs and the held-out rows
pub fn fit_kernel_regression<G: Gram, S: Float>(
    gram: &G,
    targets: &[f64],
    sample_weight: Option<&[f64]>,
    held_out: Option<&dyn HeldOutSource>,
    params: &ValidParams,
    settings: KernelSettings,
    state: &mut KernelState,
    monitor: &Monitor,
) -> Result<(KernelModel, KernelFitOutput)> {
    check_y_len(gram.n(), targets.len(), "targets")?;
    let task = BinaryTask::regression(targets, sample_weight)?;
    let columns = SharedColumns::new(gram.n(), settings.cache_bytes);
    let scorer = scorer_of(held_out, HeldOutProblem::Problem(0), None)?;
    let problem = KernelProblem::new(gram, &task, params, scorer.as_deref());
    let solver = settings.solver(1);
    let out = fit_kernel_binary_shared::<G, S>(problem, solver, &columns, state, monitor, "")?;
    let model = merge_models(&[state.model(params.alpha)])?;
    Ok((model, out))
}
