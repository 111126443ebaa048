//! A Rust-first front of the Nyström map (`maps::nystroem`): typed
//! parameters with a builder ([`Nystroem::params`]), `fit` on data rows or on a
//! precomputed Gram matrix (choose the landmarks, compute their kernel matrix,
//! factor it), and a fitted map ([`FittedNystroem`]) that transforms rows against
//! the landmark rows, or kernel values against the training rows. It calls the
//! module's functions (`select_landmarks`, `landmark_kernel`,
//! `normalization`, `nystroem_transform_into`): the same maps and features bit
//! for bit.
//! An example is on [`Nystroem`].

use std::borrow::Cow;

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::kernels::function::{Kernel, KernelRows};
use crate::kernels::gram::{DataGram, Gram, PrecomputedGram};
use crate::maps::nystroem::{
    landmark_kernel, landmark_kernel_rows, normalization, nystroem_transform,
    nystroem_transform_into, select_landmarks, uniform_landmarks, LandmarkKernel, Landmarks,
};
use crate::monitor::Monitor;
use crate::parallel::thread_pool;

/// The Nyström map of a kernel: start from [`Nystroem::params`].
///
/// # Example
/// ```
/// use pegasos_core::{DenseRows, Kernel, Landmarks, Monitor, Nystroem};
///
/// let x: Vec<f64> = (0..40).map(|i| f64::from(i % 7) * 0.3 - f64::from(i % 3)).collect();
/// let rows = DenseRows::new(&x, 20, 2)?;
/// let monitor = Monitor::new();
/// let map = Nystroem::params()
///     .kernel(Kernel::Rbf { gamma: 0.5 })
///     .n_components(20)
///     .landmarks(Landmarks::KMeansPlusPlus)
///     .seed(3)
///     .fit(&rows, &monitor)?;
/// assert_eq!(map.landmarks().len(), 20);
/// // The landmark rows are the fitted map's own: here every row.
/// let z = map.transform(&rows, &rows, 1, &monitor)?;
/// // With every row a landmark, z(x)·z(y) is the kernel on the training rows.
/// let dot: f64 = (0..20).map(|c| z[c] * z[20 + c]).sum();
/// let dist2 = (x[0] - x[2]).powi(2) + (x[1] - x[3]).powi(2);
/// assert!((dot - (-0.5 * dist2).exp()).abs() < 1e-6);
/// # Ok::<(), pegasos_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Nystroem;

impl Nystroem {
    /// The default parameters (the rbf kernel with `gamma` 1, 100 landmarks drawn
    /// uniformly, seed 0, one thread), to set with the builder's methods and then
    /// [`NystroemParams::fit`].
    pub fn params() -> NystroemParams {
        NystroemParams {
            kernel: Kernel::Rbf { gamma: 1.0 },
            n_components: 100,
            landmarks: Landmarks::Uniform,
            seed: 0,
            n_threads: 1,
        }
    }
}

/// The parameters of a [`Nystroem`] fit, set one by one; checked when a fit or
/// [`check`](Self::check) runs.
#[derive(Clone, Debug, PartialEq)]
pub struct NystroemParams {
    kernel: Kernel,
    n_components: usize,
    landmarks: Landmarks,
    seed: u64,
    n_threads: usize,
}

/// The kernel between all the rows, when they are all the landmarks, by the
/// fastest route (`landmark_kernel_rows`).
type AllRows<'a> = &'a (dyn Fn() -> Result<Vec<f64>> + Sync);

impl NystroemParams {
    /// The kernel (ignored by [`fit_precomputed`](Self::fit_precomputed)).
    #[must_use]
    pub fn kernel(mut self, kernel: Kernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// The number of landmarks `m`, the output width (between 1 and the number of
    /// training rows).
    #[must_use]
    pub fn n_components(mut self, n_components: usize) -> Self {
        self.n_components = n_components;
        self
    }

    /// How the landmarks are chosen.
    #[must_use]
    pub fn landmarks(mut self, landmarks: Landmarks) -> Self {
        self.landmarks = landmarks;
        self
    }

    /// Seed of the generator that draws the landmarks.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Threads to fit on (0 = all cores; the map does not depend on it).
    #[must_use]
    pub fn n_threads(mut self, n_threads: usize) -> Self {
        self.n_threads = n_threads;
        self
    }

    /// [`Error::InvalidParameter`] naming the first parameter out of range (the
    /// number of landmarks is checked against the rows by the fit).
    ///
    /// # Errors
    /// When the kernel's parameters are out of range or `n_components` is 0.
    pub fn check(&self) -> Result<()> {
        self.kernel.validate()?;
        if self.n_components == 0 {
            return Err(Error::InvalidParameter(
                "n_components must be at least 1, got 0".into(),
            ));
        }
        Ok(())
    }

    /// The `n_components` landmarks among `n_rows` rows that
    /// [`Landmarks::Uniform`] draws with this seed, sorted: they need no kernel
    /// value, so a caller can draw them before reading the data (and then fit on
    /// the landmark rows alone with [`Landmarks::All`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `1 <= n_components <= n_rows < 2^32`.
    pub fn uniform_landmarks(&self, n_rows: usize) -> Result<Vec<u32>> {
        uniform_landmarks(n_rows, self.n_components, self.seed)
    }

    /// Fit on the training `rows`: choose the landmarks among them, compute their
    /// kernel matrix and factor it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a kernel parameter out of range or a number
    /// of landmarks not between 1 and the number of rows; [`Error::InvalidInput`]
    /// when the landmarks' kernel matrix has a non-finite value or no positive
    /// diagonal entry; [`Error::Interrupted`] when `monitor` is stopped;
    /// [`Error::OutOfMemory`].
    pub fn fit<R: Rows>(
        &self,
        rows: &R,
        monitor: &Monitor,
    ) -> Result<FittedNystroem<'static, f64>> {
        let kernel = self.kernel;
        let gram = DataGram::new(rows, KernelRows::new(kernel, rows)?);
        let all_rows = || landmark_kernel_rows(kernel, rows, self.n_threads, monitor);
        self.fit_gram(&gram, Some(kernel), Some(&all_rows), monitor)
    }

    /// Fit on a precomputed kernel between the training rows, `values` row-major
    /// `(n_rows, n_cols)` (a square, finite matrix); the map then transforms kernel
    /// values ([`FittedNystroem::transform_precomputed`]).
    ///
    /// # Errors
    /// As [`fit`](Self::fit), and [`Error::ShapeMismatch`] for a matrix that is
    /// not square; [`Error::InvalidInput`] for a non-finite value.
    pub fn fit_precomputed(
        &self,
        values: &[f64],
        n_rows: usize,
        n_cols: usize,
        monitor: &Monitor,
    ) -> Result<FittedNystroem<'static, f64>> {
        let gram = PrecomputedGram::new(values, n_rows, n_cols)?;
        self.fit_gram(&gram, None, None, monitor)
    }

    /// Landmarks, their kernel matrix (by `all_rows` when every row is one) and
    /// its normalisation.
    fn fit_gram<G: Gram>(
        &self,
        gram: &G,
        kernel: Option<Kernel>,
        all_rows: Option<AllRows<'_>>,
        monitor: &Monitor,
    ) -> Result<FittedNystroem<'static, f64>> {
        let (m, how, n_threads) = (self.n_components, self.landmarks, self.n_threads);
        let landmarks = select_landmarks(gram, m, how, self.seed, n_threads, monitor)?;
        let norm = thread_pool(n_threads)?.install(|| {
            let kmm = match all_rows {
                Some(kmm) if matches!(how, Landmarks::All) => kmm()?,
                _ => landmark_kernel(gram, &landmarks, monitor)?,
            };
            normalization(&kmm, m, monitor)
        })?;
        Ok(FittedNystroem {
            kernel,
            starts: norm.starts(),
            landmarks,
            normalization: Cow::Owned(norm.columns),
            rank: norm.rank,
        })
    }
}

/// First non-zero output of each landmark's row of the normalisation (`m` for a
/// landmark beyond the rank).
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

/// A fitted [`Nystroem`] map: the landmarks (indices among the training rows), the
/// normalisation in precision `O` (owned after a fit, borrowed or owned when made
/// by [`FittedNystroem::from_parts`]) and the kernel (`None`: precomputed); its
/// features are computed in `O`.
#[derive(Clone, Debug, PartialEq)]
pub struct FittedNystroem<'a, O: Float = f64> {
    kernel: Option<Kernel>,
    landmarks: Vec<u32>,
    normalization: Cow<'a, [O]>,
    starts: Vec<usize>,
    rank: usize,
}

impl<'a, O: Float> FittedNystroem<'a, O> {
    /// The map of the given `kernel` (`None` for a precomputed kernel), `landmarks`
    /// and `normalization` (row-major `(m, m)` as
    /// [`FittedNystroem::normalization`] returns it).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless there are landmarks and the normalisation is
    /// `m x m` for `m` of them.
    pub fn from_parts(
        kernel: Option<Kernel>,
        landmarks: Vec<u32>,
        normalization: impl Into<Cow<'a, [O]>>,
    ) -> Result<Self> {
        let normalization = normalization.into();
        let m = landmarks.len();
        if m.checked_mul(m) != Some(normalization.len()) || m == 0 {
            return Err(Error::ShapeMismatch(format!(
                "the normalisation must be {m} x {m} for {m} landmarks"
            )));
        }
        let starts = starts(&normalization, m);
        Ok(Self {
            kernel,
            rank: starts.iter().filter(|&&s| s < m).count(),
            landmarks,
            normalization,
            starts,
        })
    }

    /// The kernel, `None` for a map fitted on a precomputed kernel.
    pub fn kernel(&self) -> Option<Kernel> {
        self.kernel
    }

    /// The landmarks' indices among the training rows, sorted after a fit.
    pub fn landmarks(&self) -> &[u32] {
        &self.landmarks
    }

    /// The normalisation, row-major `(m, m)`: row `j` holds landmark `j`'s
    /// coefficients on the outputs (the transpose of scikit-learn's
    /// `normalization_` up to a rotation).
    pub fn normalization(&self) -> &[O] {
        &self.normalization
    }

    /// The normalisation, moved out (copied when borrowed).
    pub fn into_normalization(self) -> Vec<O> {
        self.normalization.into_owned()
    }

    /// The numerical rank `r` of the landmarks' kernel matrix: outputs `r..m` are
    /// zero.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of landmarks `m`, the output width.
    pub fn n_components(&self) -> usize {
        self.landmarks.len()
    }

    /// The same map with its normalisation rounded to `P`, for features in `P`.
    pub fn to_precision<P: Float>(&self) -> FittedNystroem<'static, P> {
        let columns: Vec<P> = self
            .normalization
            .iter()
            .map(|v| P::from_f64(v.to_f64()))
            .collect();
        FittedNystroem {
            kernel: self.kernel,
            landmarks: self.landmarks.clone(),
            starts: starts(&columns, self.landmarks.len()),
            normalization: Cow::Owned(columns),
            rank: self.rank,
        }
    }

    /// The features of the rows of `x` into `out` (row-major `(n_rows, m)`,
    /// whatever it holds before): the kernel between `x` and the landmark rows
    /// `landmark_rows` (the training rows [`landmarks`](Self::landmarks) picks, in
    /// that order, in any layout), times the normalisation; row blocks on
    /// `n_threads` threads (0: all cores; the features do not depend on it).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a map of a precomputed kernel;
    /// [`Error::ShapeMismatch`] when `landmark_rows` are not `m` rows of `x`'s
    /// features or `out` is not whole rows; errors of the kernel;
    /// [`Error::Interrupted`] when `monitor` is stopped.
    pub fn transform_into<R: Rows, L: Rows>(
        &self,
        x: &R,
        landmark_rows: &L,
        n_threads: usize,
        monitor: &Monitor,
        out: &mut [O],
    ) -> Result<()> {
        let lk = self.landmark_kernel(landmark_rows)?;
        let kernels = |first: usize, out: &mut [f64]| lk.eval_rows(x, first, out);
        nystroem_transform_into(
            out,
            &self.normalization,
            &self.starts,
            kernels,
            n_threads,
            monitor,
        )
    }

    /// The kernel against `landmark_rows`, which must be the map's `m` landmarks.
    fn landmark_kernel<'l, L: Rows>(&self, landmark_rows: &'l L) -> Result<LandmarkKernel<'l, L>> {
        let Some(kernel) = self.kernel else {
            return Err(Error::InvalidParameter(
                "the map was fitted on a precomputed kernel: it transforms kernel values".into(),
            ));
        };
        let m = self.landmarks.len();
        if landmark_rows.n_rows() != m {
            return Err(Error::ShapeMismatch(format!(
                "{} landmark rows for {m} landmarks",
                landmark_rows.n_rows()
            )));
        }
        LandmarkKernel::new(kernel, landmark_rows)
    }

    /// [`transform_into`](Self::transform_into) a new row-major `(n_rows, m)`
    /// vector.
    ///
    /// # Errors
    /// As [`transform_into`](Self::transform_into); [`Error::OutOfMemory`].
    pub fn transform<R: Rows, L: Rows>(
        &self,
        x: &R,
        landmark_rows: &L,
        n_threads: usize,
        monitor: &Monitor,
    ) -> Result<Vec<O>> {
        let lk = self.landmark_kernel(landmark_rows)?;
        let kernels = |first: usize, out: &mut [f64]| lk.eval_rows(x, first, out);
        let (columns, starts) = (&self.normalization, &self.starts);
        nystroem_transform(x.n_rows(), columns, starts, kernels, n_threads, monitor)
    }

    /// The features of `n_rows` rows given by their kernel against the `n_train`
    /// training rows, `values` row-major `(n_rows, n_train)` (the landmarks' columns
    /// are read), into `out` (row-major `(n_rows, m)`, whatever it holds before).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `values` is not `n_rows x n_train`, a landmark
    /// is not among the `n_train` columns or `out` has another size;
    /// [`Error::InvalidInput`] for a non-finite value; [`Error::Interrupted`].
    pub fn transform_precomputed_into(
        &self,
        values: &[f64],
        n_rows: usize,
        n_train: usize,
        n_threads: usize,
        monitor: &Monitor,
        out: &mut [O],
    ) -> Result<()> {
        let m = self.landmarks.len();
        if n_rows.checked_mul(n_train) != Some(values.len())
            || n_rows.checked_mul(m) != Some(out.len())
        {
            return Err(Error::ShapeMismatch(format!(
                "{} kernel values for {n_rows} x {n_train} and an output of {} values for \
                 {m} landmarks",
                values.len(),
                out.len()
            )));
        }
        if self.landmarks.iter().any(|&j| j as usize >= n_train) {
            return Err(Error::ShapeMismatch(format!(
                "the precomputed kernel has {n_train} columns (training rows), fewer than \
                 the landmarks need"
            )));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidInput(
                "the precomputed kernel contains NaN or infinity".into(),
            ));
        }
        let kernels = |first: usize, out: &mut [f64]| {
            for (r, row) in out.chunks_mut(m).enumerate() {
                let src = &values[(first + r) * n_train..(first + r + 1) * n_train];
                for (o, &j) in row.iter_mut().zip(&self.landmarks) {
                    *o = src[j as usize];
                }
            }
            Ok(())
        };
        nystroem_transform_into(
            out,
            &self.normalization,
            &self.starts,
            kernels,
            n_threads,
            monitor,
        )
    }

    /// [`transform_precomputed_into`](Self::transform_precomputed_into) a new
    /// row-major `(n_rows, m)` vector.
    ///
    /// # Errors
    /// As [`transform_precomputed_into`](Self::transform_precomputed_into);
    /// [`Error::OutOfMemory`].
    pub fn transform_precomputed(
        &self,
        values: &[f64],
        n_rows: usize,
        n_train: usize,
        n_threads: usize,
        monitor: &Monitor,
    ) -> Result<Vec<O>> {
        let mut out = self.output(n_rows)?;
        self.transform_precomputed_into(values, n_rows, n_train, n_threads, monitor, &mut out)?;
        Ok(out)
    }

    /// A zeroed `(n, m)` output.
    fn output(&self, n: usize) -> Result<Vec<O>> {
        let m = self.landmarks.len();
        let len = n
            .checked_mul(m)
            .ok_or_else(|| Error::OutOfMemory(format!("a {n} x {m} feature matrix")))?;
        try_filled_vec(len, O::ZERO, "the transformed features")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};
    use crate::rng::Rng;

    fn data(n: usize, d: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::seed_from_u64(seed);
        (0..n * d).map(|_| rng.next_f64() * 2.0 - 1.0).collect()
    }

    /// The rows `lm` of the row-major `x` of `d` features.
    fn landmark_rows(x: &[f64], d: usize, lm: &[u32]) -> Vec<f64> {
        lm.iter()
            .flat_map(|&i| x[i as usize * d..(i as usize + 1) * d].to_vec())
            .collect()
    }

    /// The binding's former composition, step by step: landmarks, their kernel
    /// matrix, its normalisation, then the transform of `x` against the landmarks.
    fn by_hand(
        xs: &[f64],
        x: &DenseRows<'_, f64>,
        d: usize,
        kernel: Kernel,
        m: usize,
        how: Landmarks,
    ) -> (Vec<u32>, Vec<f64>, usize, Vec<f64>) {
        let monitor = Monitor::new();
        let gram = DataGram::new(x, KernelRows::new(kernel, x).unwrap());
        let lm = select_landmarks(&gram, m, how, 5, 2, &monitor).unwrap();
        let kmm = if how == Landmarks::All {
            landmark_kernel_rows(kernel, x, 2, &monitor).unwrap()
        } else {
            landmark_kernel(&gram, &lm, &monitor).unwrap()
        };
        let norm = normalization(&kmm, m, &monitor).unwrap();
        let comp = landmark_rows(xs, d, &lm);
        let comp = DenseRows::new(&comp, m, d).unwrap();
        let lk = LandmarkKernel::new(kernel, &comp).unwrap();
        let kernels = |first: usize, out: &mut [f64]| lk.eval_rows(x, first, out);
        let mut z = vec![0.0; x.n_rows() * m];
        let starts = norm.starts();
        nystroem_transform_into(&mut z, &norm.columns, &starts, kernels, 1, &monitor).unwrap();
        (lm, norm.columns, norm.rank, z)
    }

    #[test]
    fn the_front_gives_the_free_functions_map_and_features() {
        let (n, d) = (60, 4);
        let x = data(n, d, 3);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let monitor = Monitor::new();
        for (kernel, m, how) in [
            (Kernel::Rbf { gamma: 0.4 }, 12, Landmarks::KMeansPlusPlus),
            (Kernel::Linear, 9, Landmarks::Uniform),
            (Kernel::Rbf { gamma: 0.4 }, n, Landmarks::All),
        ] {
            let params = Nystroem::params()
                .kernel(kernel)
                .n_components(m)
                .landmarks(how)
                .seed(5)
                .n_threads(2);
            let map = params.fit(&rows, &monitor).unwrap();
            let (lm, columns, rank, z) = by_hand(&x, &rows, d, kernel, m, how);
            assert_eq!(map.landmarks(), &lm[..]);
            assert_eq!(map.normalization(), &columns[..]);
            assert_eq!(map.rank(), rank);
            let comp = landmark_rows(&x, d, &lm);
            let comp = DenseRows::new(&comp, m, d).unwrap();
            assert_eq!(map.transform(&rows, &comp, 1, &monitor).unwrap(), z);
            // From its parts (borrowed), the same map.
            let again = FittedNystroem::from_parts(Some(kernel), lm, map.normalization());
            assert_eq!(again.unwrap(), map);
        }
        let uniform = Nystroem::params().n_components(7).seed(4);
        assert_eq!(
            uniform.uniform_landmarks(n).unwrap(),
            uniform_landmarks(n, 7, 4).unwrap()
        );
    }

    #[test]
    fn a_precomputed_fit_and_transform_read_the_kernel_values() {
        let (n, d, m) = (40, 3, 8);
        let x = data(n, d, 6);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let k: Vec<f64> = (0..n * n)
            .map(|t| {
                (0..d)
                    .map(|j| x[(t / n) * d + j] * x[(t % n) * d + j])
                    .sum()
            })
            .collect();
        let monitor = Monitor::new();
        let params = Nystroem::params()
            .kernel(Kernel::Linear)
            .n_components(m)
            .landmarks(Landmarks::KMeansPlusPlus)
            .seed(2);
        let pre = params.fit_precomputed(&k, n, n, &monitor).unwrap();
        let gram = PrecomputedGram::new(&k, n, n).unwrap();
        let lm = select_landmarks(&gram, m, Landmarks::KMeansPlusPlus, 2, 1, &monitor).unwrap();
        let norm = normalization(&landmark_kernel(&gram, &lm, &monitor).unwrap(), m, &monitor);
        let norm = norm.unwrap();
        assert_eq!(
            (pre.landmarks(), pre.normalization()),
            (&lm[..], &norm.columns[..])
        );
        assert_eq!((pre.kernel(), pre.rank()), (None, norm.rank));
        let z = pre.transform_precomputed(&k, n, n, 1, &monitor).unwrap();
        let data_map =
            FittedNystroem::from_parts(Some(Kernel::Linear), lm.clone(), pre.normalization());
        let comp = landmark_rows(&x, d, &lm);
        let comp = DenseRows::new(&comp, m, d).unwrap();
        let from_rows = data_map
            .unwrap()
            .transform(&rows, &comp, 1, &monitor)
            .unwrap();
        for (a, b) in z.iter().zip(&from_rows) {
            assert!((a - b).abs() < 1e-12, "{a} {b}");
        }
        // Wrong shapes, a landmark beyond the columns, non-finite values, no rows.
        assert!(pre
            .transform_precomputed(&k[..n * 3], n, 3, 1, &monitor)
            .is_err());
        assert!(pre
            .transform_precomputed(&k[..n * 3], 3, n, 1, &monitor)
            .is_ok());
        let mut bad = k.clone();
        bad[5] = f64::NAN;
        assert!(pre.transform_precomputed(&bad, n, n, 1, &monitor).is_err());
        assert!(pre.transform(&rows, &comp, 1, &monitor).is_err());
        assert!(params
            .fit_precomputed(&k[..n * (n - 1)], n, n - 1, &monitor)
            .is_err());
    }

    #[test]
    fn bad_parameters_and_parts_are_errors() {
        let (n, d) = (10, 2);
        let x = data(n, d, 1);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let monitor = Monitor::new();
        let p = Nystroem::params();
        assert!(p.check().is_ok());
        assert!(p.clone().n_components(0).check().is_err());
        assert!(p
            .clone()
            .kernel(Kernel::Rbf { gamma: -1.0 })
            .check()
            .is_err());
        assert!(p
            .clone()
            .kernel(Kernel::Rbf { gamma: -1.0 })
            .fit(&rows, &monitor)
            .is_err());
        assert!(p.clone().n_components(n + 1).fit(&rows, &monitor).is_err());
        assert!(p
            .clone()
            .n_components(3)
            .landmarks(Landmarks::All)
            .fit(&rows, &monitor)
            .is_err());
        assert!(p.uniform_landmarks(n).is_err(), "100 of 10 rows");
        let stopped = p
            .clone()
            .n_components(4)
            .landmarks(Landmarks::KMeansPlusPlus);
        assert_eq!(
            stopped.fit(&rows, &Monitor::stopped()),
            Err(Error::Interrupted)
        );
        assert!(FittedNystroem::<f64>::from_parts(None, vec![0, 1], vec![1.0; 3]).is_err());
        assert!(FittedNystroem::<f64>::from_parts(None, vec![], vec![]).is_err());
        let map = p.n_components(4).fit(&rows, &monitor).unwrap();
        let (data, indices, indptr) = crate::test_support::to_csr::<i64>(&x, n, d);
        let csr = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
        assert!(
            map.transform(&csr, &csr, 1, &monitor).is_err(),
            "10 landmark rows for 4"
        );
        let f32_map = map.to_precision::<f32>();
        assert_eq!(f32_map.rank(), map.rank());
        assert_eq!(f32_map.landmarks(), map.landmarks());
    }
}
