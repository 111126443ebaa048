//! Borrowing numpy arrays and scipy CSR components without copying.
//!
//! A matrix arrives either as a C-contiguous 2-D float32/float64 array or as the
//! tuple `(data, indices, indptr, n_rows, n_features)` of a scipy CSR matrix, with
//! float32/float64 values and int32/int64 indices. [`dispatch_rows!`] turns it into a
//! constructor of the matching core view, so one generic function serves all six
//! combinations.

use numpy::{
    PyArrayDescrMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A dense C-ordered matrix of either float type.
pub enum DenseArray<'py> {
    /// float64 values.
    F64(PyReadonlyArray2<'py, f64>),
    /// float32 values.
    F32(PyReadonlyArray2<'py, f32>),
}

/// CSR values of either float type.
pub enum Values<'py> {
    /// float64 values.
    F64(PyReadonlyArray1<'py, f64>),
    /// float32 values.
    F32(PyReadonlyArray1<'py, f32>),
}

/// CSR index arrays of either integer type.
pub enum Indices<'py> {
    /// int32 indices (scipy's default).
    I32(PyReadonlyArray1<'py, i32>),
    /// int64 indices (large matrices).
    I64(PyReadonlyArray1<'py, i64>),
}

/// A training or prediction matrix.
pub enum Matrix<'py> {
    /// Dense 2-D array.
    Dense(DenseArray<'py>),
    /// `(data, indices, indptr, n_rows, n_features)`.
    Csr(Values<'py>, Indices<'py>, Indices<'py>, usize, usize),
}

// The extractions below pick the variant from the array's dtype instead of trying
// each variant in turn: a failed try builds a Python exception, and PyO3 releases
// the GIL while it normalises one, a moment in which a Ctrl-C could be handled and
// lost (and each try costs microseconds on every call).

/// The numpy array `obj` with `ndim` dimensions, or a `TypeError` naming `what`.
fn untyped<'a, 'py>(
    obj: Borrowed<'a, 'py, PyAny>,
    ndim: usize,
    what: &str,
) -> PyResult<Borrowed<'a, 'py, PyUntypedArray>> {
    match obj.cast::<PyUntypedArray>() {
        Ok(a) if a.ndim() == ndim => Ok(a),
        Ok(a) => Err(PyTypeError::new_err(format!(
            "{what} must have {ndim} dimension(s), got {}",
            a.ndim()
        ))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a numpy array, got {}",
            obj.get_type()
        ))),
    }
}

/// Whether the array `a` holds values of type `T`.
fn holds<T: numpy::Element>(a: Borrowed<'_, '_, PyUntypedArray>) -> bool {
    a.dtype().is_equiv_to(&numpy::dtype::<T>(a.py()))
}

/// `TypeError`: `what` must have one of the dtypes `expected`.
fn bad_dtype(a: Borrowed<'_, '_, PyUntypedArray>, what: &str, expected: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{what} must be {expected}, got dtype {}",
        a.dtype()
    ))
}

/// `FromPyObject` for an enum of two array types told apart by their dtype:
/// `ndim` dimensions, described as `what` in errors.
macro_rules! extract_by_dtype {
    ($enum:ident, $ndim:expr, $what:expr, $a:ident: $ta:ty, $b:ident: $tb:ty, $expected:expr) => {
        impl<'py> FromPyObject<'_, 'py> for $enum<'py> {
            type Error = PyErr;

            fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
                let a = untyped(obj, $ndim, $what)?;
                if holds::<$ta>(a) {
                    Ok(Self::$a(obj.extract()?))
                } else if holds::<$tb>(a) {
                    Ok(Self::$b(obj.extract()?))
                } else {
                    Err(bad_dtype(a, $what, $expected))
                }
            }
        }
    };
}

extract_by_dtype!(DenseArray, 2, "a dense matrix", F64: f64, F32: f32, "float32 or float64");
extract_by_dtype!(Values, 1, "CSR data", F64: f64, F32: f32, "float32 or float64");
extract_by_dtype!(Indices, 1, "CSR indices and indptr", I32: i32, I64: i64, "int32 or int64");

impl<'py> FromPyObject<'_, 'py> for Matrix<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(t) = obj.cast::<PyTuple>() {
            let (v, i, p, n, d) = t.extract()?;
            Ok(Self::Csr(v, i, p, n, d))
        } else {
            Ok(Self::Dense(obj.extract()?))
        }
    }
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

    /// A precomputed kernel matrix's values and shape `(rows, columns)`: it must be
    /// a dense float64 array.
    pub fn precomputed(&self) -> PyResult<(&[f64], usize, usize)> {
        let Matrix::Dense(DenseArray::F64(a)) = self else {
            return Err(PyTypeError::new_err(
                "a precomputed kernel must be a dense float64 array",
            ));
        };
        let (rows, cols) = shape2(a);
        Ok((slice(a)?, rows, cols))
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
/// builds (and validates) the core row view. With `checked = false`, the view is
/// made with `checked_when_read`: only its shape is checked, and each row when the
/// solver first reads it.
#[macro_export]
macro_rules! dispatch_rows {
    ($matrix:expr, $make:ident => $call:expr) => {
        $crate::dispatch_rows!($matrix, checked = true, $make => $call)
    };
    ($matrix:expr, checked = $checked:expr, $make:ident => $call:expr) => {{
        use pegasos_core::{CsrRows, DenseRows};
        use $crate::arrays::{shape2, slice, DenseArray, Indices, Matrix, Values};
        let checked: bool = $checked;
        match $matrix {
            Matrix::Dense(DenseArray::F64(a)) => {
                let $make = $crate::dense_view!(checked, a);
                $call
            }
            Matrix::Dense(DenseArray::F32(a)) => {
                let $make = $crate::dense_view!(checked, a);
                $call
            }
            Matrix::Csr(v, i, p, n, d) => match (v, i, p) {
                (Values::F64(v), Indices::I32(i), Indices::I32(p)) => {
                    let $make = $crate::csr_view!(checked, v, i, p, n, d);
                    $call
                }
                (Values::F64(v), Indices::I64(i), Indices::I64(p)) => {
                    let $make = $crate::csr_view!(checked, v, i, p, n, d);
                    $call
                }
                (Values::F32(v), Indices::I32(i), Indices::I32(p)) => {
                    let $make = $crate::csr_view!(checked, v, i, p, n, d);
                    $call
                }
                (Values::F32(v), Indices::I64(i), Indices::I64(p)) => {
                    let $make = $crate::csr_view!(checked, v, i, p, n, d);
                    $call
                }
                _ => Err(pyo3::exceptions::PyTypeError::new_err(
                    "CSR indices and indptr must have the same integer dtype",
                )),
            },
        }
    }};
}

/// The dense arm of `dispatch_rows!`: a `Send` closure that makes the view of the
/// numpy array `$a`, checked whole, or as it is read.
#[macro_export]
macro_rules! dense_view {
    ($checked:expr, $a:expr) => {{
        let (n, d) = shape2(&$a);
        let s = slice(&$a)?;
        let checked: bool = $checked;
        move || {
            if checked {
                DenseRows::new(s, n, d)
            } else {
                DenseRows::checked_when_read(s, n, d)
            }
        }
    }};
}

/// A CSR arm of `dispatch_rows!`: a `Send` closure that makes the view of the numpy
/// arrays `$v`, `$i`, `$p` (`$n x $d`), checked whole, or as it is read.
#[macro_export]
macro_rules! csr_view {
    ($checked:expr, $v:expr, $i:expr, $p:expr, $n:expr, $d:expr) => {{
        let (v, i, p) = (slice(&$v)?, slice(&$i)?, slice(&$p)?);
        let (n, d, checked): (usize, usize, bool) = ($n, $d, $checked);
        move || {
            if checked {
                CsrRows::new(v, i, p, n, d)
            } else {
                CsrRows::checked_when_read(v, i, p, n, d)
            }
        }
    }};
}
