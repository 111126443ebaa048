//! The feature-map layer: explicit maps `x -> z(x)` whose inner products approximate
//! a kernel, so that the linear solver can stand in for the kernel one.
//!
//! - [`fourier`]: random Fourier features for the rbf kernel;
//! - [`nystroem`]: the Nyström map, for any kernel of [`crate::kernels`], reading the
//!   landmarks' kernel values through a [`Gram`](crate::kernels::gram::Gram) matrix;
//! - [`additive`]: homogeneous kernel maps for additive kernels (chi², intersection,
//!   Jensen–Shannon);
//! - the fronts a caller uses, typed parameters with a builder and a fitted map:
//!   [`fourier_features`] ([`FourierFeatures`](crate::FourierFeatures)),
//!   [`nystroem_features`] ([`Nystroem`](crate::Nystroem)); the additive map's
//!   front is [`AdditiveMap`](crate::AdditiveMap) itself (it has nothing to fit);
//! - `panel_product` (private to this layer): the blocked matrix products the Fourier
//!   and Nyström maps share.
//!
//! Builds on the kernel and data layers and the shared ground; no solver is used.

pub mod additive;
pub mod fourier;
pub mod fourier_features;
pub mod nystroem;
pub mod nystroem_features;
mod panel_product;
