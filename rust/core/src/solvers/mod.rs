//! The solver layer: Pegasos itself, linear and kernel, and one-vs-rest over them.
//!
//! - [`params`]: the hyper-parameters, validated once into [`params::ValidParams`];
//! - [`loss`]: the losses (hinge, logistic, squared hinge, modified Huber and the
//!   regression losses) behind the one trait the solvers step through;
//! - `sampler`: drawing the examples of each step, shared by both solvers and saved
//!   with their state;
//! - `passes`: the pass driver of both solvers (passes, objective, verbose lines,
//!   cancellation, the stopping rule of `tol` or of a held-out score);
//! - [`held_out`]: early stopping's score of a model on rows held out of its fit;
//! - [`linear`]: linear Pegasos (update rule, averaging, objective);
//! - [`regression`]: linear Pegasos on real targets (the regression losses);
//! - [`ranking`]: learning to rank from preference pairs (`RankSVM`'s objective,
//!   pairs drawn uniformly within queries, or across the set for AUC);
//! - `mixing`: one local pass of parameter mixing over a partition (the workers'
//!   side of the Dask parallel mode);
//! - `multiclass`: one-vs-rest of the linear solver and its batched prediction;
//! - [`kernel_solver`]: kernel Pegasos on a [`Gram`](crate::kernels::gram::Gram) matrix;
//! - [`kernel_regression`]: kernel Pegasos on real targets (epsilon-SVR);
//! - [`kernel_held_out`]: early stopping of the kernel solver (held-out rows
//!   scored through the support vectors);
//! - [`kernel_model`]: one-vs-rest of the kernel solver and prediction through the
//!   support vectors;
//! - `shared_ovr` (with `shared_block`): one-vs-rest whose problems all step on
//!   the same drawn rows, weights stored feature-major;
//! - [`alpha_grid`]: cross-validation over a grid of `alpha`, every (fold, alpha)
//!   pair in one call, the alphas of a fold stepping on the same drawn rows (the
//!   blocks of `shared_block`, one column per alpha);
//! - [`crammer_singer`]: the Crammer–Singer multiclass SVM (one joint objective
//!   over all classes), weights stored feature-major;
//! - [`kernel_svm`]: the Rust-first front of the kernel solver (`KernelSvm::params()`,
//!   one-vs-rest or one-vs-one, regression, precomputed kernels, prediction through
//!   the support vectors);
//! - [`one_vs_one`]: one-vs-one of the kernel solver, a problem per pair of classes
//!   on a view of their rows;
//! - [`platt`]: Platt's sigmoids (`probability=True`): their fit to held-out
//!   decision values and the probabilities of the classes;
//! - [`streamed`]: a linear fit whose rows the caller supplies round by round
//!   (the client side of the Dask exact mode); [`kernel_budget_streamed`]: the
//!   same for a budgeted kernel fit;
//! - [`linear_svm`], [`linear_regressor`], [`linear_ranker`]: the Rust fronts of the
//!   linear solvers (`LinearSvm::params()`, a builder over [`linear_params`], `fit`,
//!   and `predict` on the fitted model); the binding trains through them too.
//!
//! Builds on the kernel and data layers and the shared ground; the feature maps and
//! the file formats are not used here.

pub mod alpha_grid;
pub mod crammer_singer;
pub mod held_out;
pub mod kernel_budget;
pub mod kernel_budget_streamed;
pub mod kernel_held_out;
pub mod kernel_model;
pub mod kernel_regression;
pub mod kernel_solver;
pub mod kernel_svm;
pub mod linear;
pub mod linear_params;
pub mod linear_ranker;
pub mod linear_regressor;
pub mod linear_svm;
pub mod loss;
pub(crate) mod mixing;
pub(crate) mod multiclass;
pub mod one_class;
pub mod one_vs_one;
pub mod params;
pub(crate) mod passes;
pub mod platt;
pub mod ranking;
pub mod regression;
pub(crate) mod sampler;
pub(crate) mod shared_block;
pub(crate) mod shared_ovr;
pub mod streamed;
mod streamed_sums;
#[cfg(test)]
mod test_support;
