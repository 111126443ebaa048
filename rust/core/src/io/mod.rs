//! The file-format layer: bytes in, bytes out.
//!
//! - [`svmlight`]: reading and writing the svmlight / libsvm text format;
//! - [`codec`]: the versioned byte encoding of a linear solver's state, so that a fit
//!   can be resumed exactly.
//!
//! The top layer: it may use every layer below (the codec encodes
//! [`LinearState`](crate::solvers::linear::binary::LinearState)); nothing below uses it.

pub mod codec;
pub mod svmlight;
