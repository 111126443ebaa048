//! Python entry points of the explicit feature maps: random Fourier features,
//! Nyström and the homogeneous additive kernel maps.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pegasos_core::kernels::function::{Kernel, KernelRows};
use pegasos_core::kernels::gram::{DataGram, Gram, PrecomputedGram};
use pegasos_core::maps::additive::{AdditiveKernel, AdditiveMap};
use pegasos_core::maps::fourier::{
    fourier_transform_into, sample_fourier, FourierForm, FourierMap,
};
use pegasos_core::maps::nystroem::{
    landmark_kernel, landmark_kernel_rows, normalization, nystroem_transform_into,
    select_landmarks, uniform_landmarks, LandmarkKernel, Landmarks,
};
use pegasos_core::parallel::thread_pool;
use pegasos_core::{Float, Rows};

use crate::arrays::{slice, DenseArray, Matrix};
use crate::detach::detach_interruptible;
use crate::dispatch_rows;
use crate::params::{AdditiveKernelName, FourierFormName, KernelSpec, LandmarkRule};
use pegasos_core::thresholds::is_small;

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
    let p = detach_interruptible(py, small, |_| {
        sample_fourier(n_features, n_components, gamma, form, seed)
    })?;
    let w = PyArray1::from_vec(py, p.weights).reshape([n_features, nf])?;
    Ok((w, PyArray1::from_vec(py, p.offsets)))
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
    let (weights, offsets) = (slice(weights)?, slice(&b)?);
    let map = FourierMap {
        weights,
        offsets,
        n_components,
        form,
    };
    let Run { n_threads, small } = run;
    new_array(py, x.n_rows(), n_components, |out| {
        dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
            let rows = make()?;
            fourier_transform_into(&rows, map, n_threads, monitor, out)
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
    let idx = uniform_landmarks(n, m, seed).map_err(crate::error::CoreError)?;
    Ok(PyArray1::from_vec(
        py,
        idx.into_iter().map(i64::from).collect(),
    ))
}

/// Landmarks, normalisation and rank of a Nyström map fitted on `x`.
/// `all_rows` computes the kernel between the landmarks when every row is one.
fn fit_gram<G: Gram>(
    gram: &G,
    m: usize,
    how: Landmarks,
    seed: u64,
    n_threads: usize,
    monitor: &pegasos_core::Monitor,
    all_rows: Option<&(dyn Fn() -> pegasos_core::Result<Vec<f64>> + Sync)>,
) -> pegasos_core::Result<(Vec<u32>, Vec<f64>, usize)> {
    let landmarks = select_landmarks(gram, m, how, seed, n_threads, monitor)?;
    thread_pool(n_threads)?.install(|| {
        let kmm = match all_rows {
            Some(kmm) if matches!(how, Landmarks::All) => kmm()?,
            _ => landmark_kernel(gram, &landmarks, monitor)?,
        };
        let norm = normalization(&kmm, m, monitor)?;
        Ok((landmarks, norm.columns, norm.rank))
    })
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
    let how = Landmarks::from(landmarks);
    let small = is_small(x.stored_entries().saturating_mul(n_components));
    let (idx, columns, rank) = match kernel.kernel()? {
        None => {
            let (values, rows, cols) = x.precomputed()?;
            detach_interruptible(py, small, |monitor| {
                let gram = PrecomputedGram::new(values, rows, cols)?;
                fit_gram(&gram, n_components, how, seed, n_threads, monitor, None)
            })?
        }
        Some(kern) => dispatch_rows!(x, make => detach_interruptible(py, small, |monitor| {
            let rows = make()?;
            let gram = DataGram::new(&rows, KernelRows::new(kern, &rows)?);
            let all_rows = || landmark_kernel_rows(kern, &rows, n_threads, monitor);
            fit_gram(&gram, n_components, how, seed, n_threads, monitor, Some(&all_rows))
        }))?,
    };
    let m = idx.len();
    let idx = PyArray1::from_vec(py, idx.into_iter().map(i64::from).collect());
    let columns = PyArray1::from_vec(py, columns).reshape([m, m])?;
    Ok((idx, columns, rank))
}

/// First non-zero output of each landmark's row of the normalisation.
fn starts<O: Float>(columns: &[O], m: usize) -> Vec<usize> {
    (0..m)
        .map(|j| {
            columns[j * m..(j + 1) * m]
                .iter()
                .position(|&v| v != O::ZERO)
                .unwrap_or(m)
        })
        .collect()
}

/// A fitted Nyström map as the transform reads it: the normalisation `columns`
/// (`(m, m)`, row `j` landmark `j`'s coefficients), each row's first non-zero
/// output, and the landmarks' indices among the training rows.
struct NystroemMap<'a, O> {
    columns: &'a [O],
    starts: Vec<usize>,
    landmarks: &'a [i64],
}

impl<'a, O: Float> NystroemMap<'a, O> {
    fn new(columns: &'a [O], landmarks: &'a [i64]) -> PyResult<Self> {
        let m = landmarks.len();
        if columns.len() != m * m || m == 0 {
            return Err(PyValueError::new_err(format!(
                "the normalisation must be {m} x {m} for {m} landmarks"
            )));
        }
        Ok(Self {
            columns,
            starts: starts(columns, m),
            landmarks,
        })
    }
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
    match columns {
        DenseArray::F64(c) => {
            let map = NystroemMap::new(slice(&c)?, lm)?;
            nystroem_dispatch(py, x, components, &map, kern, run)
        }
        DenseArray::F32(c) => {
            let map = NystroemMap::new(slice(&c)?, lm)?;
            nystroem_dispatch(py, x, components, &map, kern, run)
        }
    }
}

/// The Nyström features of `x` by the kernel `kern` against the landmark rows
/// `components`, or against a precomputed kernel when `kern` is `None`.
fn nystroem_dispatch<'py, O: Float + numpy::Element>(
    py: Python<'py>,
    x: Matrix<'py>,
    components: Option<Matrix<'py>>,
    map: &NystroemMap<'_, O>,
    kern: Option<Kernel>,
    run: Run,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(kern) = kern else {
        return nystroem_precomputed(py, &x, map, run);
    };
    let Some(components) = components else {
        return Err(PyValueError::new_err("the landmark rows are missing"));
    };
    let m = map.landmarks.len();
    let Run { n_threads, small } = run;
    new_array(py, x.n_rows(), m, |out| {
        dispatch_rows!(components, make_c => dispatch_rows!(x, make_x => {
            detach_interruptible(py, small, |monitor| {
                let comp = make_c()?;
                let rows = make_x()?;
                if comp.n_rows() != m {
                    return Err(pegasos_core::Error::ShapeMismatch(format!(
                        "{} landmark rows for {m} landmarks", comp.n_rows()
                    )));
                }
                let lk = LandmarkKernel::new(kern, &comp)?;
                let kernels = |first: usize, out: &mut [f64]| lk.eval_rows(&rows, first, out);
                nystroem_transform_into(out, map.columns, &map.starts, kernels, n_threads, monitor)
            })
        }))
    })
}

/// The Nyström features of a precomputed kernel `x` (rows against the training
/// rows), whose landmark columns are `map.landmarks`.
fn nystroem_precomputed<'py, O: Float + numpy::Element>(
    py: Python<'py>,
    x: &Matrix<'py>,
    map: &NystroemMap<'_, O>,
    run: Run,
) -> PyResult<Bound<'py, PyAny>> {
    let m = map.landmarks.len();
    let (values, n, n_train) = x.precomputed()?;
    let cols: Vec<usize> = map
        .landmarks
        .iter()
        .map(|&j| usize::try_from(j).ok().filter(|&j| j < n_train))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "the precomputed kernel has {n_train} columns (training rows), fewer \
                 than the landmarks need"
            ))
        })?;
    if values.iter().any(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(
            "the precomputed kernel contains NaN or infinity",
        ));
    }
    new_array(py, n, m, |out| {
        detach_interruptible(py, run.small, |monitor| {
            let kernels = |first: usize, out: &mut [f64]| {
                for (r, row) in out.chunks_mut(m).enumerate() {
                    let src = &values[(first + r) * n_train..(first + r + 1) * n_train];
                    for (o, &j) in row.iter_mut().zip(&cols) {
                        *o = src[j];
                    }
                }
                Ok(())
            };
            nystroem_transform_into(
                out,
                map.columns,
                &map.starts,
                kernels,
                run.n_threads,
                monitor,
            )
        })
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
    let k = AdditiveKernel::from(kernel_name);
    let map = AdditiveMap::new(k, order, period).map_err(crate::error::CoreError)?;
    Ok((
        map.step(),
        period.unwrap_or_else(|| k.default_period(order)),
    ))
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
    let map =
        AdditiveMap::new(kernel_name.into(), order, period).map_err(crate::error::CoreError)?;
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
    I: pegasos_core::Index + numpy::Element,
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
    monitor: &pegasos_core::Monitor,
) -> pegasos_core::Result<Vec<R::Value>> {
    map.transform_dense(rows, n_threads, monitor)
}
