//! The solver layer: Pegasos itself (Shalev-Shwartz, Singer, Srebro, Cotter,
//! "Pegasos: Primal Estimated sub-GrAdient SOlver for SVM"), linear and kernel, in
//! families of their own:
//!
//! - [`shared`]: what every solver steps through: the hyper-parameters
//!   ([`shared::params`]), the losses ([`shared::loss`]), the draws, the pass driver,
//!   early stopping's held-out score, the one-class offset and Platt's sigmoids;
//! - [`linear`]: linear Pegasos (binary, one-vs-rest, one-vs-rest on shared draws,
//!   Crammer–Singer, regression, ranking, cross-validation over `alpha`), the scaled
//!   iterate `w = a V` and its lazy average they all step on, and its Rust fronts;
//! - [`kernel`]: kernel Pegasos (the solver and its margin strategies, one-vs-rest
//!   and one-vs-one models, epsilon-SVR, the budget of support vectors) and its
//!   Rust front;
//! - [`distributed`]: the drivers of fits whose rows live elsewhere (the Dask exact
//!   mode, linear and budgeted kernel, with its whole-set sums; parameter mixing's
//!   local pass), stepping through the families' own steps.
//!
//! A family uses [`shared`] and nothing of another family; [`distributed`] uses the
//! families; nothing here uses the drivers (checked by `tests/layering.rs`). The
//! cfg(test) module `agreement_tests` here compares families with each other.
//!
//! Builds on the kernel and data layers and the shared ground; the feature maps and
//! the file formats are not used here.

pub mod distributed;
pub mod kernel;
pub mod linear;
pub mod shared;

#[cfg(test)]
mod agreement_tests;
