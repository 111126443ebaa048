//! Linear Pegasos: `w = a v` with a tracked `||w||^2`, so that a step costs
//! O(nonzeros) (the paper's update `w <- (1 - 1/t) w + 1/(lambda t k) sum y_i x_i`
//! over the step's violators, then the projection onto the ball of radius
//! `1/sqrt(lambda)`).
//!
//! - [`binary`]: one binary problem (`LinearState`, `StepRule`, averaging, the start
//!   `t0` of the squared losses), and the block loop every linear solver runs;
//! - `scaled`: the scaled iterate `w = a V` (a vector is a one-column `V`) with its
//!   tracked `||w||^2` and lazy running average (shrink, projection, rescale,
//!   averaging), written once for `LinearState` and the Crammer–Singer state;
//! - `one_vs_rest`: one-vs-rest over binary problems, and batched prediction;
//! - `shared_ovr` (with `shared_block`): one-vs-rest whose problems step on the same
//!   drawn rows, weights stored feature-major;
//! - [`crammer_singer`]: the Crammer–Singer multiclass SVM (one joint objective);
//! - [`regression`]: real targets through the binary solver;
//! - [`ranking`]: preference pairs within queries (`RankSVM`'s objective);
//! - [`alpha_grid`]: cross-validation over a grid of `alpha` in one call;
//! - [`svm`], [`regressor`], [`ranker`]: the Rust fronts over [`builder`].
//!
//! Uses [`crate::solvers::shared`]; nothing of the kernel family or the drivers.

pub mod alpha_grid;
pub mod binary;
pub mod builder;
pub mod crammer_singer;
pub(crate) mod one_vs_rest;
pub mod ranker;
pub mod ranking;
pub mod regression;
pub mod regressor;
pub(crate) mod scaled;
pub(crate) mod shared_block;
pub(crate) mod shared_ovr;
pub mod svm;
#[cfg(test)]
pub(crate) mod test_support;
