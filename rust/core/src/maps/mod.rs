//! The feature-map layer: explicit maps `x -> z(x)` whose inner products approximate
//! a kernel, so that the linear solver can stand in for the kernel one.
//!
//! - [`fourier`]: random Fourier features for the rbf kernel;
//! - [`nystroem`]: the Nyström map, for any kernel of [`crate::kernels`], reading the
//!   landmarks' kernel values through a [`Gram`](crate::kernels::gram::Gram) matrix;
//! - [`additive`]: homogeneous kernel maps for additive kernels (chi², intersection,
//!   Jensen–Shannon);
//! - `panel_product` (private to this layer): the blocked matrix products the Fourier
//!   and Nyström maps share.
//!
//! Builds on the kernel and data layers and the shared ground; no solver is used.

pub mod additive;
pub mod fourier;
pub mod nystroem;
mod panel_product;
