//! The one error type of the core crate.
//!
//! Every failure that user data or user parameters can cause is a variant here;
//! the Python binding maps each variant to one Python exception type.

/// Errors returned by the core crate.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// A hyper-parameter is out of its documented range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The data is malformed (non-finite values, bad CSR structure, empty input, ...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// Array lengths or shapes that must agree do not.
    #[error("shape mismatch: {0}")]
    ShapeMismatch(String),
    /// A serialized solver state could not be read.
    #[error("invalid solver state: {0}")]
    InvalidState(String),
    /// A buffer the request needs could not be allocated.
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    /// The caller asked the computation to stop (e.g. Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// `vec![value; len]`, or [`Error::OutOfMemory`] naming `what` when it cannot be had.
pub fn try_filled_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(format!("cannot allocate {what} of {len} entries")))?;
    v.resize(len, value);
    Ok(v)
}
