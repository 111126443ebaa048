//! The one mapping from core errors to Python exceptions.

use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyValueError};
use pyo3::PyErr;

/// Newtype so that `From<pegasos_core::Error> for PyErr` can live in this crate.
#[derive(Debug)]
pub struct CoreError(pub pegasos_core::Error);

impl From<pegasos_core::Error> for CoreError {
    fn from(e: pegasos_core::Error) -> Self {
        Self(e)
    }
}

impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> Self {
        use pegasos_core::Error as E;
        match e.0 {
            E::InvalidParameter(m)
            | E::InvalidInput(m)
            | E::ShapeMismatch(m)
            | E::InvalidState(m) => PyValueError::new_err(m),
            E::OutOfMemory(m) => PyMemoryError::new_err(m),
            E::Interrupted => PyKeyboardInterrupt::new_err("training interrupted"),
        }
    }
}
