//! The one mapping from core errors to Python exceptions.

use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyValueError};
use pyo3::prelude::*;
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
            E::Format {
                line,
                column,
                message,
            } => Python::attach(|py| data_format_error(py, message, line, column)),
            E::OutOfMemory(m) => PyMemoryError::new_err(m),
            E::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        }
    }
}

/// `pegasos_rs.exceptions.DataFormatError(message, None, line, column)`: the class
/// lives in Python (it derives from both `PegasosError` and `ValueError`); should it
/// not be importable, a `ValueError` with the same text.
fn data_format_error(py: Python<'_>, message: String, line: usize, column: Option<usize>) -> PyErr {
    let made = py
        .import("pegasos_rs.exceptions")
        .and_then(|m| m.getattr("DataFormatError"))
        .and_then(|cls| cls.call1((message.as_str(), py.None(), line, column)));
    made.map_or_else(
        |_| {
            let column = column.map_or_else(String::new, |c| format!(" (column {c})"));
            PyValueError::new_err(format!("line {line}: {message}{column}"))
        },
        PyErr::from_value,
    )
}
