//! The data layer: what the solvers and maps read, and nothing they compute.
//!
//! - [`checks`]: the whole-input checks (finiteness, index range) at memory speed;
//! - [`rows`]: row access to a matrix, one trait ([`rows::Rows`]) and two borrowed
//!   views (dense and CSR), validated on construction;
//! - [`task`]: one binary problem, labels as class codes and per-example weights;
//! - [`labels`]: the class codes and weights shared by the binary problems of
//!   one-vs-rest, and the task of each.
//!
//! Builds on the shared ground only (`float`, `error`, `prefetch`).

pub mod checks;
pub mod labels;
pub mod rows;
pub mod task;
