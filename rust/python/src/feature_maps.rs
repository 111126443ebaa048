//! Python entry points of the explicit feature maps: random Fourier features,
//! Nyström and the homogeneous additive kernel maps. They convert arrays, release
//! the GIL and call the core's public fronts (`FourierFeatures`, `Nystroem`,
//! `AdditiveMap`); the maps' algorithms, and their composition, live there.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::thresholds::is_small;
use pegasos_core::{
    AdditiveMap, FittedFourierFeatures, FittedNystroem, Float, FourierFeatures, FourierForm, Index,
    Landmarks, Monitor, Nystroem, Rows,
};

use crate::arrays::{slice, DenseArray, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::error::CoreError;
use crate::params::{AdditiveKernelName, FourierFormName, KernelSpec, LandmarkRule};

/// A row-major `(n, width)` numpy array from a vector of either float type.
fn to_array<O: Float + numpy::Element>(
    py: Python<'_>,
    v: Vec<O>,
    n: usize,
    width: usize,
) -> PyResult<Bound<'_, PyAny>> {
    Ok(PyArray1::from_vec(py, v).reshape([n, width])?.into_any())
}

/// A new row-major `(n, width)` array, filled by `fill` from its buffer. numpy
/// allocates it (as huge pages when large), which saves a page fault per 4 KiB of
/// output over a fresh vector's memory.
fn new_array<O: Float + numpy::Element>(
    py: Python<'_>,
    n: usize,
    width: usize,
    fill: impl FnOnce(&mut [O]) -> PyResult<()>,
) -> PyResult<Bound<'_, PyAny>> {
    let array = PyArray2::<O>::zeros(py, [n, width], false);
    {
        let mut view = array.readwrite();
        let out = view
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("a new array is not contiguous"))?;
        fill(out)?;
    }
    Ok(array.into_any())
}

/// Random weights `(n_features, n_frequencies)` and offsets.
type FourierArrays<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<f64>>);

/// Landmark indices, normalisation `(m, m)` and rank.
type NystroemArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f64>>, usize);

/// Random weights `(n_features, n_frequencies)` and offsets of the rbf map in
/// `form`.
#[pyfunction]
#[pyo3(signature = (n_features, n_components, gamma, form, seed))]
pub fn fourier_sample(
    py: Python<'_>,
    n_features: usize,
    n_components: usize,
    gamma: f64,
    form: FourierFormName,
    seed: u64,
) -> PyResult<FourierArrays<'_>> {
    let form = FourierForm::from(form);
    let nf = form.n_frequencies(n_components);
    let small = is_small(n_features.saturating_mul(nf));
    let params = FourierFeatures::params()
        .n_components(n_components)
        .gamma(gamma)
        .form(form)
        .seed(seed);
    let map = detach_interruptible(py, small, |_| params.fit(n_features))?;
    let (weights, offsets) = map.into_parts();
    let w = PyArray1::from_vec(py, weights).reshape([n_features, nf])?;
    Ok((w, PyArray1::from_vec(py, offsets)))
}

/// The `n_components` features of `form` (`sqrt(2/D) cos(XW + b)`, or cos and sin
/// pairs) in the dtype of `weights` (which the caller matches to `x`'s).
#[pyfunction]
#[pyo3(signature = (x, weights, offsets, n_components, form, n_threads))]
pub fn fourier_features<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    weights: DenseArray<'py>,
    offsets: Bound<'py, PyAny>,
    n_components: usize,
    form: FourierFormName,
    n_threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let form = FourierForm::from(form);
    let small = is_small(x.stored_entries().saturating_mul(64));
    let run = Run { n_threads, small };
    match weights {
        DenseArray::F64(w) => fourier_dispatch(py, x, &w, &offsets, n_components, form, run),
        DenseArray::F32(w) => fourier_dispatch(py, x, &w, &offsets, n_components, form, run),
    }
}

/// The Fourier features of `x` by the map of `weights` and `offsets`, in their
/// precision.
fn fourier_dispatch<'py, O: Float + numpy::Element>(
    py: Python<'py>,
    x: Matrix<'py>,
    weights: &PyReadonlyArray2<'py, O>,
    offsets: &Bound<'py, PyAny>,
    n_components: usize,
    form: FourierForm,
    run: Run,
) -> PyResult<Bound<'py, PyAny>> {
    let b: PyReadonlyArray1<'py, O> = offsets.extract()?;
    let map = FittedFourierFeatures::from_parts(slice(weights)?, slice(&b)?, n_components, form)
        .map_err(CoreError)?;
    let Run { n_threads, small } = run;
    new_array(py, x.n_rows(), n_components, |out| {
        dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
            let rows = make()?;
            map.transform_into(&rows, n_threads, monitor, out)
        }))
    })
}

/// The `m` of `n` rows that uniform landmark selection draws with `seed`, sorted.
#[pyfunction]
#[pyo3(signature = (n, m, seed))]
pub fn nystroem_uniform_landmarks(
    py: Python<'_>,
    n: usize,
    m: usize,
    seed: u64,
) -> PyResult<Bound<'_, PyArray1<i64>>> {
    let params = Nystroem::params().n_components(m).seed(seed);
    let idx = params.uniform_landmarks(n).map_err(CoreError)?;
    Ok(PyArray1::from_vec(
        py,
        idx.into_iter().map(i64::from).collect(),
    ))
}

/// Fit a Nyström map: `(landmark row indices, normalisation (m, m), rank)`;
/// `kernel` describes the kernel (see `KernelSpec`).
#[pyfunction]
#[pyo3(signature = (x, *, kernel, n_components, landmarks, seed, n_threads))]
pub fn nystroem_fit<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    kernel: KernelSpec,
    n_components: usize,
    landmarks: LandmarkRule,
    seed: u64,
    n_threads: usize,
) -> PyResult<NystroemArrays<'py>> {
    let params = Nystroem::params()
        .n_components(n_components)
        .landmarks(Landmarks::from(landmarks))
        .seed(seed)
        .n_threads(n_threads);
    let small = is_small(x.stored_entries().saturating_mul(n_components));
    let fitted = match kernel.kernel()? {
        None => {
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                params.fit_precomputed(values, rows, cols, monitor)
            })?
        }
        Some(kern) => {
            let params = params.kernel(kern);
            dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
                params.fit(&make()?, monitor)
            }))?
        }
    };
    let (m, rank) = (fitted.n_components(), fitted.rank());
    let idx = fitted.landmarks().iter().map(|&i| i64::from(i)).collect();
    let idx = PyArray1::from_vec(py, idx);
    let columns = PyArray1::from_vec(py, fitted.into_normalization()).reshape([m, m])?;
    Ok((idx, columns, rank))
}

/// How a transform (Fourier or Nyström) runs: threads, and whether the job is too
/// small to watch for Ctrl-C.
#[derive(Clone, Copy)]
struct Run {
    n_threads: usize,
    small: bool,
}

/// Nyström features of `x` against the landmark rows `components` (or, for a
/// precomputed kernel, `x` holds the kernel against the training rows and
/// `landmarks` says which columns are the landmarks); `kernel` describes the
/// kernel (see `KernelSpec`). Output in `columns`' dtype.
#[pyfunction]
#[pyo3(signature = (x, components, columns, landmarks, *, kernel, n_threads))]
pub fn nystroem_features<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    components: Option<Matrix<'py>>,
    columns: DenseArray<'py>,
    landmarks: PyReadonlyArray1<'py, i64>,
    kernel: KernelSpec,
    n_threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let kern = kernel.kernel()?;
    let lm = slice(&landmarks)?;
    let small = is_small(x.stored_entries().saturating_mul(lm.len().max(1)));
    let run = Run { n_threads, small };
    let lm = lm
        .iter()
        .map(|&j| {
            u32::try_from(j).map_err(|_| {
                PyValueError::new_err(format!(
                    "landmark indices must be between 0 and 2^32 - 1, got {j}"
                ))
            })
        })
        .collect::<PyResult<Vec<u32>>>()?;
    match columns {
        DenseArray::F64(c) => {
            let map = FittedNystroem::from_parts(kern, lm, slice(&c)?).map_err(CoreError)?;
            nystroem_dispatch(py, x, components, &map, run)
        }
        DenseArray::F32(c) => {
            let map = FittedNystroem::from_parts(kern, lm, slice(&c)?).map_err(CoreError)?;
            nystroem_dispatch(py, x, components, &map, run)
        }
    }
}

/// The Nyström features of `x` by the map's kernel against the landmark rows
/// `components`, or of a precomputed kernel `x` (rows against the training rows)
/// when the map has no kernel.
fn nystroem_dispatch<'py, O: Float + numpy::Element>(
    py: Python<'py>,
    x: Matrix<'py>,
    components: Option<Matrix<'py>>,
    map: &FittedNystroem<'_, O>,
    run: Run,
) -> PyResult<Bound<'py, PyAny>> {
    let m = map.n_components();
    let Run { n_threads, small } = run;
    if map.kernel().is_none() {
        let (values, n, n_train) = x.precomputed()?;
        return new_array(py, n, m, |out| {
            detach_interruptible(py, small, |monitor| {
                map.transform_precomputed_into(values, n, n_train, n_threads, monitor, out)
            })
        });
    }
    let Some(components) = components else {
        return Err(PyValueError::new_err("the landmark rows are missing"));
    };
    new_array(py, x.n_rows(), m, |out| {
        dispatch_rows!(components, make_c => dispatch_rows!(x, make_x => {
            detach_interruptible(py, small, |monitor| {
                let comp = make_c()?;
                let rows = make_x()?;
                map.transform_into(&rows, &comp, n_threads, monitor, out)
            })
        }))
    })
}

/// `(sampling step, default period)` of an additive map.
#[pyfunction]
#[pyo3(signature = (kernel_name, order, period))]
pub fn additive_map_info(
    kernel_name: AdditiveKernelName,
    order: usize,
    period: Option<f64>,
) -> PyResult<(f64, f64)> {
    let map = AdditiveMap::new(kernel_name.into(), order, period).map_err(CoreError)?;
    Ok((map.step(), map.period()))
}

/// Additive kernel map of `x`: a dense array for dense input, `(data, indices,
/// indptr)` (int64 indices) for CSR input; the input's dtype.
#[pyfunction]
#[pyo3(signature = (x, kernel_name, order, period, n_threads))]
pub fn additive_features<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    kernel_name: AdditiveKernelName,
    order: usize,
    period: Option<f64>,
    n_threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let map = AdditiveMap::new(kernel_name.into(), order, period).map_err(CoreError)?;
    let small = is_small(x.stored_entries().saturating_mul(map.width() * 8));
    let sparse = matches!(x, Matrix::Csr(..));
    let w = map.width();
    dispatch_rows!(x, make => {
        if sparse {
            additive_csr(py, &map, make, n_threads, small)
        } else {
            let (v, n, d) = detach_interruptible(py, small, |monitor| {
                let rows = make()?;
                let v = same_dtype_dense(&map, &rows, n_threads, monitor)?;
                Ok((v, rows.n_rows(), rows.n_features()))
            })?;
            to_array(py, v, n, d * w)
        }
    })
}

/// The additive map's CSR output `(data, indices, indptr)` in the input's dtype,
/// in arrays numpy allocates (no copy, no page fault per 4 KiB), the indices `int32`
/// when the output's columns and entries fit (as scipy would make them), else
/// `int64`. `make` builds the rows for each of the two passes.
fn additive_csr<'py, R, M>(
    py: Python<'py>,
    map: &AdditiveMap,
    make: M,
    n_threads: usize,
    small: bool,
) -> PyResult<Bound<'py, PyAny>>
where
    R: Rows,
    R::Value: numpy::Element,
    M: Fn() -> pegasos_core::Result<R> + Sync,
{
    let (lengths, d) = detach_interruptible(py, small, |monitor| {
        let rows = make()?;
        Ok((
            map.csr_row_lengths(&rows, n_threads, monitor)?,
            rows.n_features(),
        ))
    })?;
    let total: usize = lengths.iter().sum();
    let fits = |v: usize| i32::try_from(v).is_ok();
    if fits(total) && fits(d.saturating_mul(map.width())) {
        fill_additive_csr::<R, M, i32>(py, map, &make, &lengths, n_threads, small)
    } else {
        fill_additive_csr::<R, M, i64>(py, map, &make, &lengths, n_threads, small)
    }
}

/// The second pass of [`additive_csr`], with indices of type `I`.
fn fill_additive_csr<'py, R, M, I>(
    py: Python<'py>,
    map: &AdditiveMap,
    make: &M,
    lengths: &[usize],
    n_threads: usize,
    small: bool,
) -> PyResult<Bound<'py, PyAny>>
where
    R: Rows,
    R::Value: numpy::Element,
    M: Fn() -> pegasos_core::Result<R> + Sync,
    I: Index + numpy::Element,
{
    let total: usize = lengths.iter().sum();
    let mut indptr = Vec::with_capacity(lengths.len() + 1);
    let mut acc = 0_usize;
    indptr.push(I::from_usize(0).ok_or_else(|| PyValueError::new_err("index type"))?);
    for &c in lengths {
        acc += c;
        indptr.push(
            I::from_usize(acc).ok_or_else(|| PyValueError::new_err("the output is too large"))?,
        );
    }
    let data = PyArray1::<R::Value>::zeros(py, total, false);
    let indices = PyArray1::<I>::zeros(py, total, false);
    {
        let (mut dv, mut iv) = (data.readwrite(), indices.readwrite());
        let contiguous = |_| PyValueError::new_err("a new array is not contiguous");
        let (values, cols) = (
            dv.as_slice_mut().map_err(contiguous)?,
            iv.as_slice_mut().map_err(contiguous)?,
        );
        detach_interruptible(py, small, |monitor| {
            let rows = make()?;
            map.fill_csr(&rows, lengths, values, cols, n_threads, monitor)
        })?;
    }
    let out = (data, indices, PyArray1::from_vec(py, indptr));
    Ok(out.into_pyobject(py)?.into_any())
}

/// The additive map's dense output in the input's dtype.
fn same_dtype_dense<R: Rows>(
    map: &AdditiveMap,
    rows: &R,
    n_threads: usize,
    monitor: &Monitor,
) -> pegasos_core::Result<Vec<R::Value>> {
    map.transform_dense(rows, n_threads, monitor)
}
