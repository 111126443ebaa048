//! Python entry points of the svmlight reader and writer.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;

use std::num::NonZeroUsize;

use pegasos_core::io::svmlight::{
    format_rows_until, index_rows, parse_until, Leading, ParseOptions, Svmlight,
};
use pegasos_core::Float;

use crate::arrays::{slice, Matrix};
use crate::detach::{detach, detach_interruptible};
use crate::dispatch_rows;
use pegasos_core::thresholds::is_small;

/// What `parse_svmlight` returns: data, indices, indptr, labels (or the leading
/// numbers, one row per example), query ids, smallest and largest index.
type Parsed<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<i64>>,
    Option<i64>,
    Option<i64>,
);

/// The arrays of `p` for numpy; the labels 1-D for [`Leading::Label`], else
/// `(n_rows, k)`.
fn hand_over<T: Float + numpy::Element>(
    py: Python<'_>,
    p: Svmlight<T>,
    leading: Leading,
) -> PyResult<Parsed<'_>> {
    let rows = p.n_rows();
    let labels = PyArray1::from_vec(py, p.labels);
    let labels = match leading {
        Leading::Label => labels.into_any(),
        Leading::Numbers(k) => labels.reshape([rows, k.get()])?.into_any(),
    };
    Ok((
        PyArray1::from_vec(py, p.data).into_bound_py_any(py)?,
        PyArray1::from_vec(py, p.indices),
        PyArray1::from_vec(py, p.indptr),
        labels,
        PyArray1::from_vec(py, p.query_id),
        p.min_index,
        p.max_index,
    ))
}

/// Parse the svmlight text `text` (GIL released; the arrays are handed to numpy
/// without copying). `leading=None` reads one label per line (1-D labels);
/// `leading=k` reads `k` numbers before each line's pairs (LIBSVM's support-vector
/// lines), returned as a `(n_rows, k)` array.
#[pyfunction]
#[pyo3(signature = (text, *, dtype, one_based, query_id, n_threads, leading=None))]
pub fn parse_svmlight<'py>(
    py: Python<'py>,
    text: &[u8],
    dtype: &str,
    one_based: bool,
    query_id: bool,
    n_threads: usize,
    leading: Option<usize>,
) -> PyResult<Parsed<'py>> {
    let leading = match leading {
        None => Leading::Label,
        Some(k) => Leading::Numbers(NonZeroUsize::new(k).ok_or_else(|| {
            PyValueError::new_err("leading must be at least 1 (or None for one label)")
        })?),
    };
    let options = ParseOptions {
        one_based,
        query_id,
        n_threads,
        leading,
    };
    let small = is_small(text.len());
    match dtype {
        "float64" => hand_over(
            py,
            detach_interruptible(py, small, |stop| parse_until::<f64>(text, options, stop))?,
            leading,
        ),
        "float32" => hand_over(
            py,
            detach_interruptible(py, small, |stop| parse_until::<f32>(text, options, stop))?,
            leading,
        ),
        other => Err(PyValueError::new_err(format!(
            "dtype must be float32 or float64, got {other}"
        ))),
    }
}

/// The svmlight text of a matrix with labels (and query ids).
#[pyfunction]
#[pyo3(signature = (x, labels, query_id, *, one_based, n_threads))]
pub fn format_svmlight<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    labels: PyReadonlyArray1<'py, f64>,
    query_id: Option<PyReadonlyArray1<'py, i64>>,
    one_based: bool,
    n_threads: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let labels = slice(&labels)?;
    let query_id = match &query_id {
        Some(q) => Some(slice(q)?),
        None => None,
    };
    let small = is_small(x.stored_entries().saturating_mul(20));
    let text = dispatch_rows!(x, make => detach_interruptible(py, small, |stop| {
        format_rows_until(&make()?, labels, query_id, one_based, n_threads, stop)
    }))?;
    Ok(PyBytes::new(py, text.as_bytes()))
}

/// What `index_svmlight` returns: example offsets and labels.
type RowIndexArrays<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<f64>>);

/// Byte offsets (plus `base`) and labels of the examples of an svmlight text (a
/// `uint8` array, such as a view of a memory-mapped file: read in place), without
/// parsing their features (GIL released).
#[pyfunction]
#[pyo3(signature = (text, base))]
pub fn index_svmlight<'py>(
    py: Python<'py>,
    text: PyReadonlyArray1<'py, u8>,
    base: u64,
) -> PyResult<RowIndexArrays<'py>> {
    let text = slice(&text)?;
    let index = detach(py, || index_rows(text, base))?;
    Ok((
        PyArray1::from_vec(py, index.starts),
        PyArray1::from_vec(py, index.labels),
    ))
}
