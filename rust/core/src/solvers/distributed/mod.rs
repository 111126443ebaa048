//! Drivers of fits whose rows live elsewhere (the Dask modes): they draw, fetch
//! and step through the families' own steps, so a driven fit is bit for bit the
//! in-memory one.
//!
//! - [`streamed`]: a linear fit whose rows the caller supplies round by round (the
//!   client of the Dask exact mode), and (`streamed_sums`) the whole-set sums it
//!   chains over the blocks;
//! - [`budget_streamed`]: the same for a budgeted kernel fit;
//! - [`mixing`]: one local pass of parameter mixing over a partition.
//!
//! Uses [`crate::solvers::linear`], [`crate::solvers::kernel`] and
//! [`crate::solvers::shared`]; no family uses it.

pub mod budget_streamed;
pub(crate) mod mixing;
pub mod streamed;
mod streamed_sums;
