//! The data layer: what the solvers and maps read, and nothing they compute.
//!
//! - `checks`: the whole-input checks (finiteness, index range) at memory speed;
//! - [`moments`]: the mean and variance of all the entries of a matrix (the
//!   variance of `gamma="scale"`), in a fixed order;
//! - `rows`: row access to a matrix, one trait ([`rows::Rows`]) and two borrowed
//!   views (dense and CSR), validated on construction;
//! - `subset`: some rows of a matrix by their indices (a cross-validation fold),
//!   read in place;
//! - `task`: one binary problem, labels as class codes and per-example weights;
//! - `examples`: the examples of a set of rows, classes or real targets;
//! - `labels`: the class codes and weights shared by the binary problems of
//!   one-vs-rest, and the task of each.
//!
//! Builds on the shared ground only (`float`, `error`, `prefetch`; `monitor` and
//! `parallel` for the blocks of [`moments`]).

pub(crate) mod checks;
pub(crate) mod examples;
pub(crate) mod labels;
pub mod moments;
pub(crate) mod rows;
pub(crate) mod subset;
pub(crate) mod task;
