//! Kernel Pegasos: `w = sum_j alpha_j y_j phi(x_j)`, kept as the count of margin
//! violations of each training row (the paper's kernelized update: at step `t` row
//! `i` counts once more when `y_i / (lambda t) sum_j alpha_j y_j K(x_j, x_i) < 1`).
//!
//! - [`solver`]: one binary problem on a Gram matrix, and the choice of its margin
//!   strategy (`strategy`);
//! - [`model`]: one-vs-rest over the kernel solver, prediction through the support
//!   vectors; [`one_vs_one`]: a problem per pair of classes;
//! - [`regression`]: epsilon-SVR; [`held_out`]: early stopping through the support
//!   vectors;
//! - [`budget`]: a budget of support vectors (removal, merging, projection);
//! - [`svm`]: the Rust front (`KernelSvm::params()`).
//!
//! Uses [`crate::solvers::shared`]; nothing of the linear family or the drivers.

pub mod budget;
pub mod held_out;
pub mod model;
pub mod one_vs_one;
pub mod regression;
pub mod solver;
pub mod svm;
