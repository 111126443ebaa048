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
    /// Malformed text (an svmlight file): what was expected at a 1-based line and,
    /// when known, a 1-based byte column of that line.
    #[error("line {line}: {message}{}", column_note(*.column))]
    Format {
        /// The line (1-based).
        line: usize,
        /// The byte column in the line (1-based), when known.
        column: Option<usize>,
        /// What is wrong there, saying what was expected.
        message: String,
    },
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

/// `" (column C)"`, or nothing when the column is unknown.
fn column_note(column: Option<usize>) -> String {
    column.map_or_else(String::new, |c| format!(" (column {c})"))
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// `vec![value; len]`, or [`Error::OutOfMemory`] naming `what` when it cannot be had.
///
/// A large buffer of zeros comes from the allocator's zeroed pages, touched only
/// when written: the time to fault them in then falls in the (interruptible)
/// computation that fills them, not here.
pub(crate) fn try_filled_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut probe: Vec<T> = Vec::new();
    probe
        .try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(format!("cannot allocate {what} of {len} entries")))?;
    drop(probe);
    // `vec!` of a zero float or integer asks for zeroed memory: large buffers are
    // fresh pages, advised to be huge before anything touches them.
    let mut buf = vec![value; len];
    crate::huge_pages::advise_huge_pages(&mut buf);
    Ok(buf)
}
