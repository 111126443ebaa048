//! Borrowing numpy arrays and scipy CSR components without copying.
//!
//! A matrix arrives either as a C-contiguous 2-D float32/float64 array or as the
//! tuple `(data, indices, indptr, n_rows, n_features)` of a scipy CSR matrix, with
//! float32/float64 values and int32/int64 indices. [`dispatch_rows!`] turns it into a
//! constructor of the matching core view, so one generic function serves all six
//! combinations.

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A dense C-ordered matrix of either float type.
#[derive(FromPyObject)]
pub enum DenseArray<'py> {
    /// float64 values.
    F64(PyReadonlyArray2<'py, f64>),
    /// float32 values.
    F32(PyReadonlyArray2<'py, f32>),
}

/// CSR values of either float type.
#[derive(FromPyObject)]
pub enum Values<'py> {
    /// float64 values.
    F64(PyReadonlyArray1<'py, f64>),
    /// float32 values.
    F32(PyReadonlyArray1<'py, f32>),
}

/// CSR index arrays of either integer type.
#[derive(FromPyObject)]
pub enum Indices<'py> {
    /// int32 indices (scipy's default).
    I32(PyReadonlyArray1<'py, i32>),
    /// int64 indices (large matrices).
    I64(PyReadonlyArray1<'py, i64>),
}

/// A training or prediction matrix.
#[derive(FromPyObject)]
pub enum Matrix<'py> {
    /// Dense 2-D array.
    Dense(DenseArray<'py>),
    /// `(data, indices, indptr, n_rows, n_features)`.
    Csr(Values<'py>, Indices<'py>, Indices<'py>, usize, usize),
}

impl Matrix<'_> {
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        match self {
            Matrix::Dense(DenseArray::F64(a)) => a.shape()[0],
            Matrix::Dense(DenseArray::F32(a)) => a.shape()[0],
            Matrix::Csr(.., n, _) => *n,
        }
    }

    /// Number of stored values (all entries when dense, non-zeros when CSR).
    pub fn stored_entries(&self) -> usize {
        match self {
            Matrix::Dense(DenseArray::F64(a)) => a.len(),
            Matrix::Dense(DenseArray::F32(a)) => a.len(),
            Matrix::Csr(Values::F64(v), ..) => v.len(),
            Matrix::Csr(Values::F32(v), ..) => v.len(),
        }
    }
}

/// A float64 matrix and vector handed to Python: weights and intercepts, or
/// iterates and biases, one row and one entry per binary problem.
pub type MatrixAndVector<'py> = (
    pyo3::Bound<'py, numpy::PyArray2<f64>>,
    pyo3::Bound<'py, numpy::PyArray1<f64>>,
);

/// The contiguous buffer behind a numpy array.
pub fn slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    a: &'a numpy::PyReadonlyArray<'_, T, D>,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err("arrays must be C-contiguous"))
}

/// `(rows, columns)` of a 2-D array.
pub fn shape2<T: numpy::Element>(a: &PyReadonlyArray2<'_, T>) -> (usize, usize) {
    let s = a.shape();
    (s[0], s[1])
}

/// Expand `$call` once per data layout, with `$make` bound to a `Send` closure that
/// builds (and validates) the core row view.
#[macro_export]
macro_rules! dispatch_rows {
    ($matrix:expr, $make:ident => $call:expr) => {{
        use pegasos_core::{CsrRows, DenseRows};
        use $crate::arrays::{shape2, slice, DenseArray, Indices, Matrix, Values};
        match $matrix {
            Matrix::Dense(DenseArray::F64(a)) => {
                let (n, d) = shape2(&a);
                let s = slice(&a)?;
                let $make = move || DenseRows::new(s, n, d);
                $call
            }
            Matrix::Dense(DenseArray::F32(a)) => {
                let (n, d) = shape2(&a);
                let s = slice(&a)?;
                let $make = move || DenseRows::new(s, n, d);
                $call
            }
            Matrix::Csr(v, i, p, n, d) => match (v, i, p) {
                (Values::F64(v), Indices::I32(i), Indices::I32(p)) => {
                    let (v, i, p) = (slice(&v)?, slice(&i)?, slice(&p)?);
                    let $make = move || CsrRows::new(v, i, p, n, d);
                    $call
                }
                (Values::F64(v), Indices::I64(i), Indices::I64(p)) => {
                    let (v, i, p) = (slice(&v)?, slice(&i)?, slice(&p)?);
                    let $make = move || CsrRows::new(v, i, p, n, d);
                    $call
                }
                (Values::F32(v), Indices::I32(i), Indices::I32(p)) => {
                    let (v, i, p) = (slice(&v)?, slice(&i)?, slice(&p)?);
                    let $make = move || CsrRows::new(v, i, p, n, d);
                    $call
                }
                (Values::F32(v), Indices::I64(i), Indices::I64(p)) => {
                    let (v, i, p) = (slice(&v)?, slice(&i)?, slice(&p)?);
                    let $make = move || CsrRows::new(v, i, p, n, d);
                    $call
                }
                _ => Err(pyo3::exceptions::PyTypeError::new_err(
                    "CSR indices and indptr must have the same integer dtype",
                )),
            },
        }
    }};
}
