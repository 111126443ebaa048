//! The kernel layer: kernel values, however they are obtained.
//!
//! - [`function`]: the kernel functions (linear, polynomial, rbf, sigmoid) and their
//!   evaluation between rows, one query row against many;
//! - `cache`: a least-recently-used cache of kernel rows or columns, bounded in bytes;
//! - [`gram`]: the Gram matrix of a training set, from a kernel function on rows or
//!   precomputed, as the kernel solver and the Nyström map read it;
//! - [`grid_gram`]: a training set's kernel matrix for several values of `gamma`,
//!   its `gamma`-free part computed once (a search over `C` and `gamma`).
//!
//! Builds on the data layer and the shared ground; knows nothing of solvers or maps.

pub(crate) mod cache;
pub mod function;
pub mod gram;
pub mod grid_gram;
pub(crate) mod scratch;
