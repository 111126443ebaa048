//! A Rust-first front of the random Fourier features (`maps::fourier`):
//! typed parameters with a builder ([`FourierFeatures::params`]), `fit` drawing the
//! random weights for a number of input features, and a fitted map
//! ([`FittedFourierFeatures`]) that owns (or borrows) its weights and offsets and
//! transforms rows. It calls the module's functions (`sample_fourier`,
//! `fourier_transform_into`): the same weights and features bit for bit.
//! An example is on [`FourierFeatures`].

use std::borrow::Cow;

use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::float::Float;
use crate::maps::fourier::{
    check_gamma, fourier_transform, fourier_transform_into, sample_fourier, FourierForm, FourierMap,
};
use crate::monitor::Monitor;

/// Random Fourier features for the rbf kernel `exp(-gamma ||x - y||²)`: start from
/// [`FourierFeatures::params`].
///
/// # Example
/// ```
/// use pegasos_core::{DenseRows, FourierFeatures, FourierForm, Monitor};
///
/// let x = [0.0, 1.0, 0.5, 0.5, 1.0, 0.0];
/// let rows = DenseRows::new(&x, 3, 2)?;
/// let map = FourierFeatures::params()
///     .n_components(400)
///     .gamma(0.5)
///     .form(FourierForm::SinCos)
///     .seed(7)
///     .fit(2)?;
/// assert_eq!((map.n_features(), map.n_frequencies()), (2, 200));
/// let z = map.transform(&rows, 1, &Monitor::new())?;
/// // z(x)·z(x) = 1 exactly in the sin/cos form; z(x)·z(y) approximates the rbf kernel.
/// let dot = |a: usize, b: usize| -> f64 { (0..400).map(|c| z[a * 400 + c] * z[b * 400 + c]).sum() };
/// assert!((dot(0, 0) - 1.0).abs() < 1e-12);
/// assert!((dot(0, 2) - (-0.5_f64 * 2.0).exp()).abs() < 0.15);
/// // In single precision: the same weights, rounded once.
/// let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
/// let z32 = map.to_precision::<f32>().transform(&DenseRows::new(&x32, 3, 2)?, 1, &Monitor::new())?;
/// assert_eq!(z32.len(), 3 * 400);
/// # Ok::<(), pegasos_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FourierFeatures;

impl FourierFeatures {
    /// The default parameters (100 components, `gamma` 1, the sin/cos form, seed 0),
    /// to set with the builder's methods and then [`FourierFeaturesParams::fit`].
    pub fn params() -> FourierFeaturesParams {
        FourierFeaturesParams {
            n_components: 100,
            gamma: 1.0,
            form: FourierForm::SinCos,
            seed: 0,
        }
    }
}

/// The parameters of a [`FourierFeatures`] map, set one by one; checked when
/// [`fit`](Self::fit) or [`check`](Self::check) runs.
#[derive(Clone, Debug, PartialEq)]
pub struct FourierFeaturesParams {
    n_components: usize,
    gamma: f64,
    form: FourierForm,
    seed: u64,
}

impl FourierFeaturesParams {
    /// The number of output features `D` (>= 1).
    #[must_use]
    pub fn n_components(mut self, n_components: usize) -> Self {
        self.n_components = n_components;
        self
    }

    /// The rbf kernel's width `gamma` (finite, > 0).
    #[must_use]
    pub fn gamma(mut self, gamma: f64) -> Self {
        self.gamma = gamma;
        self
    }

    /// How the frequencies become features.
    #[must_use]
    pub fn form(mut self, form: FourierForm) -> Self {
        self.form = form;
        self
    }

    /// Seed of the generator that draws the weights and offsets.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// [`Error::InvalidParameter`] naming the first parameter out of range.
    ///
    /// # Errors
    /// When `gamma` is not finite and positive or `n_components` is 0.
    pub fn check(&self) -> Result<()> {
        check_gamma(self.gamma)?;
        if self.n_components == 0 {
            return Err(Error::InvalidParameter(
                "n_components must be positive, got 0".into(),
            ));
        }
        Ok(())
    }

    /// Draw the map's weights and offsets for rows of `n_features` features (as
    /// `sample_fourier`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a parameter out of range or no features;
    /// [`Error::OutOfMemory`].
    pub fn fit(&self, n_features: usize) -> Result<FittedFourierFeatures<'static, f64>> {
        let drawn = sample_fourier(
            n_features,
            self.n_components,
            self.gamma,
            self.form,
            self.seed,
        )?;
        Ok(FittedFourierFeatures {
            weights: Cow::Owned(drawn.weights),
            offsets: Cow::Owned(drawn.offsets),
            n_features,
            n_components: self.n_components,
            form: self.form,
        })
    }
}

/// A drawn [`FourierFeatures`] map, its weights and offsets in precision `O`
/// (owned after [`FourierFeaturesParams::fit`], borrowed or owned when made by
/// [`FittedFourierFeatures::from_parts`]); its features are computed in `O`.
#[derive(Clone, Debug, PartialEq)]
pub struct FittedFourierFeatures<'a, O: Float = f64> {
    weights: Cow<'a, [O]>,
    offsets: Cow<'a, [O]>,
    n_features: usize,
    n_components: usize,
    form: FourierForm,
}

impl<'a, O: Float> FittedFourierFeatures<'a, O> {
    /// The map of given `weights` (row-major `(n_features, n_frequencies)`) and
    /// `offsets` (`n_frequencies`), as [`FittedFourierFeatures::weights`] and
    /// [`FittedFourierFeatures::offsets`] return them, giving `n_components`
    /// features in `form`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the offsets are not `form`'s number of
    /// frequencies for `n_components` or the weights are not whole rows of them.
    pub fn from_parts(
        weights: impl Into<Cow<'a, [O]>>,
        offsets: impl Into<Cow<'a, [O]>>,
        n_components: usize,
        form: FourierForm,
    ) -> Result<Self> {
        let (weights, offsets) = (weights.into(), offsets.into());
        let nf = offsets.len();
        if nf == 0 || nf != form.n_frequencies(n_components) || weights.len() % nf != 0 {
            return Err(Error::ShapeMismatch(format!(
                "random weights of {} values and {nf} offsets do not make {n_components} \
                 features",
                weights.len()
            )));
        }
        Ok(Self {
            n_features: weights.len() / nf,
            weights,
            offsets,
            n_components,
            form,
        })
    }

    /// The random weights `W`, row-major `(n_features, n_frequencies)`.
    pub fn weights(&self) -> &[O] {
        &self.weights
    }

    /// The offsets `b`, one per frequency (zero but for an odd `D`'s last in the
    /// sin/cos form).
    pub fn offsets(&self) -> &[O] {
        &self.offsets
    }

    /// The weights and offsets, moved out (copied when borrowed).
    pub fn into_parts(self) -> (Vec<O>, Vec<O>) {
        (self.weights.into_owned(), self.offsets.into_owned())
    }

    /// The number of input features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// The number of frequencies `F` (the weights' columns).
    pub fn n_frequencies(&self) -> usize {
        self.offsets.len()
    }

    /// The number of output features `D`.
    pub fn n_components(&self) -> usize {
        self.n_components
    }

    /// How the frequencies become features.
    pub fn form(&self) -> FourierForm {
        self.form
    }

    /// The same map with its weights and offsets rounded to `P`, for features in
    /// `P`.
    pub fn to_precision<P: Float>(&self) -> FittedFourierFeatures<'static, P> {
        let cast = |v: &[O]| {
            v.iter()
                .map(|w| P::from_f64(w.to_f64()))
                .collect::<Vec<P>>()
        };
        FittedFourierFeatures {
            weights: Cow::Owned(cast(&self.weights)),
            offsets: Cow::Owned(cast(&self.offsets)),
            n_features: self.n_features,
            n_components: self.n_components,
            form: self.form,
        }
    }

    /// The features of every row of `x` into `out`, row-major `(n_rows,
    /// n_components)` (whatever it holds before), row blocks on `n_threads`
    /// threads (0: all cores; the features do not depend on it).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `x` has another number of features or `out`
    /// another size; [`Error::Interrupted`] when `monitor` is stopped.
    pub fn transform_into<R: Rows>(
        &self,
        x: &R,
        n_threads: usize,
        monitor: &Monitor,
        out: &mut [O],
    ) -> Result<()> {
        fourier_transform_into(x, self.as_map(), n_threads, monitor, out)
    }

    /// [`transform_into`](Self::transform_into) a new row-major `(n_rows,
    /// n_components)` vector.
    ///
    /// # Errors
    /// As [`transform_into`](Self::transform_into); [`Error::OutOfMemory`].
    pub fn transform<R: Rows>(&self, x: &R, n_threads: usize, monitor: &Monitor) -> Result<Vec<O>> {
        fourier_transform(x, self.as_map(), n_threads, monitor)
    }

    /// The low-level view of the map.
    fn as_map(&self) -> FourierMap<'_, O> {
        FourierMap {
            weights: &self.weights,
            offsets: &self.offsets,
            n_components: self.n_components,
            form: self.form,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    #[test]
    fn the_front_gives_the_free_functions_weights_and_features() {
        let (n, d) = (23, 5);
        let x = crate::test_support::sparse_uniform(n * d, 2, 3, 1.0);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let (data, indices, indptr) = crate::test_support::to_csr::<i64>(&x, n, d);
        let csr = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
        let monitor = Monitor::new();
        for (form, dc) in [
            (FourierForm::SinCos, 31),
            (FourierForm::SinCos, 40),
            (FourierForm::Offset, 17),
        ] {
            let params = FourierFeatures::params()
                .n_components(dc)
                .gamma(0.3)
                .form(form)
                .seed(9);
            let map = params.fit(d).unwrap();
            let low = sample_fourier(d, dc, 0.3, form, 9).unwrap();
            assert_eq!(
                (map.weights(), map.offsets()),
                (&low.weights[..], &low.offsets[..])
            );
            let direct = FourierMap {
                weights: &low.weights[..],
                offsets: &low.offsets[..],
                n_components: dc,
                form,
            };
            let want = fourier_transform(&rows, direct, 1, &monitor).unwrap();
            assert_eq!(map.transform(&rows, 2, &monitor).unwrap(), want);
            assert_eq!(map.transform(&csr, 1, &monitor).unwrap(), want);
            // Borrowed parts give the same map; f32 parts the f32 features.
            let again = FittedFourierFeatures::from_parts(map.weights(), map.offsets(), dc, form);
            assert_eq!(again.unwrap(), map);
            let w32: Vec<f32> = low.weights.iter().map(|&w| w as f32).collect();
            let b32: Vec<f32> = low.offsets.iter().map(|&w| w as f32).collect();
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let rows32 = DenseRows::new(&x32, n, d).unwrap();
            let direct32 = FourierMap {
                weights: &w32[..],
                offsets: &b32[..],
                n_components: dc,
                form,
            };
            let want32 = fourier_transform(&rows32, direct32, 1, &monitor).unwrap();
            let z32 = map.to_precision::<f32>().transform(&rows32, 1, &monitor);
            assert_eq!(z32.unwrap(), want32);
            assert_eq!(map.into_parts(), (low.weights, low.offsets));
        }
    }

    #[test]
    fn bad_parameters_and_shapes_are_errors() {
        let p = FourierFeatures::params();
        assert!(p.check().is_ok());
        for bad in [
            p.clone().gamma(0.0),
            p.clone().gamma(f64::NAN),
            p.clone().n_components(0),
        ] {
            assert!(matches!(bad.check(), Err(Error::InvalidParameter(_))));
            assert!(matches!(bad.fit(3), Err(Error::InvalidParameter(_))));
        }
        assert!(p.fit(0).is_err());
        let (w, b) = (vec![0.5; 6], vec![0.0; 3]);
        let sincos = FourierForm::SinCos;
        assert!(FittedFourierFeatures::from_parts(&w[..], &b[..], 5, sincos).is_ok());
        assert!(FittedFourierFeatures::from_parts(&w[..], &b[..], 7, sincos).is_err());
        assert!(FittedFourierFeatures::from_parts(&w[..5], &b[..], 6, sincos).is_err());
        assert!(FittedFourierFeatures::from_parts(&w[..0], &b[..0], 0, sincos).is_err());
        let map = FittedFourierFeatures::from_parts(&w[..], &b[..], 6, sincos).unwrap();
        assert_eq!(map.n_features(), 2);
        let x = [1.0; 6];
        let three = DenseRows::new(&x, 2, 3).unwrap();
        let monitor = Monitor::new();
        assert!(matches!(
            map.transform(&three, 1, &monitor),
            Err(Error::ShapeMismatch(_))
        ));
        let two = DenseRows::new(&x, 3, 2).unwrap();
        let mut short = vec![0.0; 17];
        assert!(map.transform_into(&two, 1, &monitor, &mut short).is_err());
        let stopped = map.transform(&two, 1, &Monitor::stopped());
        assert_eq!(stopped, Err(Error::Interrupted));
    }
}
