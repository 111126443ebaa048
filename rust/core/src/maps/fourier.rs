//! Random Fourier features for the rbf kernel (Rahimi and Recht, "Random Features
//! for Large-Scale Kernel Machines", NIPS 2007).
//!
//! Frequencies `w_c`, the columns of `W` of shape `(d, F)`, have entries drawn from
//! `N(0, 2γ)`, so that `E[cos(w·(x - y))] = exp(-γ ||x - y||²)`. Two forms turn them
//! into `D` features, each scaled by `sqrt(2 / D)`:
//!
//! * [`FourierForm::SinCos`] (the default): `cos(w_c·x)` and `sin(w_c·x)` per
//!   frequency, `F = ceil(D / 2)`; for odd `D` the last frequency gives one feature
//!   `cos(w·x + b)`. Then `z(x)·z(y) = (2/D) Σ_c cos(w_c·(x - y))` (+ the offset
//!   term) depends on `x - y` only. Its variance is lower than the offset form's at
//!   the same `D` for the rbf kernel (Sutherland and Schneider, "On the Error of
//!   Random Fourier Features", UAI 2015), and it projects on half as many
//!   frequencies.
//! * [`FourierForm::Offset`]: `cos(w_c·x + b_c)` with `b_c` uniform on `[0, 2π)`,
//!   `F = D` (scikit-learn's `RBFSampler`).
//!
//! Either way `E[z(x)·z(y)] = exp(-γ ||x - y||²)`, the error of one kernel value
//! falls as `O(1/sqrt(D))`, and a linear model on `z(x)` approximates the rbf kernel
//! machine at linear cost, which is how Pegasos reaches non-linear models on large
//! data.
//!
//! The draws come from the crate's portable generator: normals by Marsaglia's polar
//! method with the portable `crate::math::ln`, so a seed gives the same `W` and
//! `b` on every platform. The transform is computed in the output's precision
//! (`f32` for `f32` input), row blocks in parallel, the block's projections by
//! `panel_product`'s sparse product (each projection the offset plus the row's
//! stored entries times `W` in order, so a sparse row costs its non-zeros times `F`
//! and dense and CSR rows give the same bits), then `cos` and `sin` by
//! `crate::math::sin_cos` (or `crate::math::cos`).

use crate::monitor::Monitor;

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::float::Float;
use crate::maps::panel_product::{sparse_product, SparseBlock, TiledPanel};
use crate::math;
use crate::parallel::{row_blocks_with, ROW_BLOCK};
use crate::rng::Rng;
use crate::simd::{with_avx2, Job};

/// How the frequencies become features (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FourierForm {
    /// `cos(w·x)` and `sin(w·x)` per frequency (`ceil(D / 2)` frequencies; for odd
    /// `D` the last one gives the single feature `cos(w·x + b)`).
    SinCos,
    /// `cos(w·x + b)` per frequency (`D` frequencies), scikit-learn's `RBFSampler`.
    Offset,
}

impl FourierForm {
    /// The number of frequencies `F` behind `n_components` features.
    #[must_use]
    pub fn n_frequencies(self, n_components: usize) -> usize {
        match self {
            Self::SinCos => n_components.div_ceil(2),
            Self::Offset => n_components,
        }
    }
}

/// The random parameters of the map: `weights` row-major `(n_features,
/// n_frequencies)` and `offsets` of length `n_frequencies`, both in `f64`.
#[derive(Clone, Debug, PartialEq)]
pub struct FourierParams {
    /// `W`, row-major `(n_features, n_frequencies)`.
    pub weights: Vec<f64>,
    /// `b`, length `n_frequencies` (zero for the sin/cos pairs).
    pub offsets: Vec<f64>,
}

/// A standard normal pair by Marsaglia's polar method.
fn normal_pair(rng: &mut Rng) -> (f64, f64) {
    loop {
        let u = 2.0 * rng.next_f64() - 1.0;
        let v = 2.0 * rng.next_f64() - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            let f = (-2.0 * math::ln(s) / s).sqrt();
            return (u * f, v * f);
        }
    }
}

/// [`Error::InvalidParameter`] unless `gamma` is finite and positive.
pub(crate) fn check_gamma(gamma: f64) -> Result<()> {
    if gamma.is_finite() && gamma > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "gamma must be a positive finite number, got {gamma}"
        )))
    }
}

/// Draw `W` (`N(0, 2 gamma)` entries, row by row) then the offsets (uniform on
/// `[0, 2π)`: all `D` of them for [`FourierForm::Offset`]; for
/// [`FourierForm::SinCos`] only that of the lone last frequency of an odd `D`, the
/// others zero) from the generator seeded with `seed`.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `gamma` is finite and positive and both sizes
/// are positive; [`Error::OutOfMemory`] when `W` cannot be allocated.
pub fn sample_fourier(
    n_features: usize,
    n_components: usize,
    gamma: f64,
    form: FourierForm,
    seed: u64,
) -> Result<FourierParams> {
    check_gamma(gamma)?;
    if n_features == 0 || n_components == 0 {
        return Err(Error::InvalidParameter(format!(
            "n_features and n_components must be positive, got {n_features} and {n_components}"
        )));
    }
    let nf = form.n_frequencies(n_components);
    let len = n_features
        .checked_mul(nf)
        .ok_or_else(|| Error::OutOfMemory(format!("{n_features} x {nf} weights")))?;
    let mut weights = try_filled_vec(len, 0.0, "the random weights")?;
    let mut rng = Rng::seed_from_u64(seed);
    let sd = (2.0 * gamma).sqrt();
    let mut pairs = weights.chunks_exact_mut(2);
    for pair in &mut pairs {
        let (a, b) = normal_pair(&mut rng);
        pair[0] = sd * a;
        pair[1] = sd * b;
    }
    for last in pairs.into_remainder() {
        *last = sd * normal_pair(&mut rng).0;
    }
    let mut offsets = vec![0.0; nf];
    let drawn = match form {
        FourierForm::Offset => &mut offsets[..],
        FourierForm::SinCos => &mut offsets[n_components / 2..],
    };
    for b in drawn {
        *b = std::f64::consts::TAU * rng.next_f64();
    }
    Ok(FourierParams { weights, offsets })
}

/// A drawn map in the output's precision `O`: what [`fourier_transform`] applies.
#[derive(Clone, Copy, Debug)]
pub struct FourierMap<'a, O> {
    /// `W` as in [`FourierParams`], already in `O`.
    pub weights: &'a [O],
    /// `b` as in [`FourierParams`], already in `O`.
    pub offsets: &'a [O],
    /// `D`, the number of features.
    pub n_components: usize,
    /// How the frequencies become features.
    pub form: FourierForm,
}

/// `z(x_i)` for every row of `x`, row-major `(n_rows, n_components)`, computed in
/// `O` by the drawn `map`.
///
/// # Errors
/// [`Error::ShapeMismatch`] when the parameters do not fit `x` and
/// `n_components`; [`Error::Interrupted`] when `monitor` is stopped;
/// [`Error::OutOfMemory`].
pub fn fourier_transform<R: Rows, O: Float>(
    x: &R,
    map: FourierMap<'_, O>,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<O>> {
    let n_components = map.n_components;
    let n = x.n_rows();
    let len = n
        .checked_mul(n_components)
        .ok_or_else(|| Error::OutOfMemory(format!("a {n} x {n_components} feature matrix")))?;
    let mut out = try_filled_vec(len, O::ZERO, "the transformed features")?;
    fourier_transform_into(x, map, n_threads, monitor, &mut out)?;
    Ok(out)
}

/// [`fourier_transform`] into `out` (`n_rows x n_components`, whatever it holds
/// before): for a caller that owns the output's memory.
///
/// # Errors
/// As [`fourier_transform`], and [`Error::ShapeMismatch`] when `out` has another
/// size.
pub fn fourier_transform_into<R: Rows, O: Float>(
    x: &R,
    map: FourierMap<'_, O>,
    n_threads: usize,
    monitor: &Monitor,
    out: &mut [O],
) -> Result<()> {
    let FourierMap {
        weights,
        offsets,
        n_components,
        form,
    } = map;
    let d = x.n_features();
    let n = x.n_rows();
    let nf = offsets.len();
    let dc = n_components;
    if nf == 0
        || nf != form.n_frequencies(dc)
        || weights.len() != d.saturating_mul(nf)
        || Some(out.len()) != n.checked_mul(dc)
    {
        return Err(Error::ShapeMismatch(format!(
            "random weights of {} values and {nf} offsets do not fit {d} features and an \
             output of {} values for {n} rows",
            weights.len(),
            out.len()
        )));
    }
    if n == 0 {
        return Ok(());
    }
    #[allow(clippy::cast_precision_loss)]
    let scale = (2.0 / dc as f64).sqrt();
    #[allow(clippy::cast_precision_loss)]
    let row_nonzeros = x.n_stored() as f64 / n as f64;
    let w = TiledPanel::from_row_major(weights, d, nf, row_nonzeros, "the random weights")?;
    // The sin/cos form's projections, reused by a thread's blocks.
    let scratch = || match form {
        FourierForm::SinCos => vec![O::ZERO; ROW_BLOCK * nf],
        FourierForm::Offset => Vec::new(),
    };
    row_blocks_with(
        out,
        dc,
        n_threads,
        monitor,
        scratch,
        |proj, first, block| {
            let rows = block.len() / dc;
            let a = SparseBlock::<O>::gather(x, first, rows);
            match form {
                FourierForm::Offset => {
                    for row in block.chunks_mut(dc) {
                        row.copy_from_slice(offsets);
                    }
                    sparse_product(&a, &w, block, dc);
                    with_avx2(CosJob {
                        values: block,
                        scale,
                    });
                }
                FourierForm::SinCos => {
                    let proj = &mut proj[..rows * nf];
                    for p in proj.chunks_mut(nf) {
                        p.copy_from_slice(offsets);
                    }
                    sparse_product(&a, &w, proj, nf);
                    with_avx2(SinCosJob {
                        proj,
                        out: block,
                        dc,
                        scale,
                    });
                }
            }
            Ok(())
        },
    )
}

/// `v = scale cos(v)` for every projection of a block (the offset form).
struct CosJob<'a, O> {
    values: &'a mut [O],
    scale: f64,
}

impl<O: Float> Job for CosJob<'_, O> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        for o in self.values.iter_mut() {
            *o = O::from_f64(self.scale * math::cos(o.to_f64()));
        }
    }
}

/// The cos/sin pairs of a block's projections (`proj`, `ceil(dc / 2)` per row) into
/// `out` (`dc` per row; an odd `dc`'s last feature the cosine alone).
struct SinCosJob<'a, O> {
    proj: &'a [O],
    out: &'a mut [O],
    dc: usize,
    scale: f64,
}

impl<O: Float> Job for SinCosJob<'_, O> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        let (dc, scale) = (self.dc, self.scale);
        let nf = dc.div_ceil(2);
        for (row, p) in self.out.chunks_mut(dc).zip(self.proj.chunks(nf)) {
            let mut pairs = row.chunks_exact_mut(2);
            for (pair, &t) in (&mut pairs).zip(p) {
                let (s, c) = math::sin_cos(t.to_f64());
                pair[0] = O::from_f64(scale * c);
                pair[1] = O::from_f64(scale * s);
            }
            if let [last] = pairs.into_remainder() {
                *last = O::from_f64(scale * math::cos(p[nf - 1].to_f64()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};

    #[test]
    fn trig_loops_are_bit_identical_with_and_without_avx2() {
        let proj: Vec<f64> = (0..701).map(|i| f64::from(i) * 1.37 - 480.0).collect();
        for dc in [1402_usize, 1401] {
            let proj = &proj[..dc.div_ceil(2)];
            let (mut fast, mut portable) = (vec![0.0; dc], vec![0.0; dc]);
            with_avx2(SinCosJob {
                proj,
                out: &mut fast,
                dc,
                scale: 0.3,
            });
            // Called directly: the baseline build.
            SinCosJob {
                proj,
                out: &mut portable,
                dc,
                scale: 0.3,
            }
            .run();
            assert_eq!(fast, portable);
        }
        let (mut fast, mut portable) = (proj.clone(), proj.clone());
        with_avx2(CosJob {
            values: &mut fast,
            scale: 0.3,
        });
        CosJob {
            values: &mut portable,
            scale: 0.3,
        }
        .run();
        assert_eq!(fast, portable);
    }

    #[test]
    fn draws_are_seeded_and_normal() {
        let off = FourierForm::Offset;
        let p = sample_fourier(50, 400, 0.5, off, 7).unwrap();
        assert_eq!(p, sample_fourier(50, 400, 0.5, off, 7).unwrap());
        assert_ne!(
            p.weights,
            sample_fourier(50, 400, 0.5, off, 8).unwrap().weights
        );
        #[allow(clippy::cast_precision_loss)]
        let n = p.weights.len() as f64;
        let mean = p.weights.iter().sum::<f64>() / n;
        let var = p
            .weights
            .iter()
            .map(|w| (w - mean) * (w - mean))
            .sum::<f64>()
            / n;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!(
            (var - 1.0).abs() < 0.03,
            "variance {var}, expected 2 gamma = 1"
        );
        assert!(p
            .offsets
            .iter()
            .all(|&b| (0.0..std::f64::consts::TAU).contains(&b)));
        assert!(sample_fourier(3, 3, 0.0, off, 0).is_err());
        assert!(sample_fourier(3, 0, 1.0, off, 0).is_err());
        // The sin/cos form draws the same weights for its ceil(D/2) frequencies, and
        // an offset only for the lone last frequency of an odd D.
        let even = sample_fourier(50, 400, 0.5, FourierForm::SinCos, 7).unwrap();
        assert_eq!(even.weights, p.weights[..50 * 200]);
        assert!(even.offsets.iter().all(|&b| b == 0.0));
        let odd = sample_fourier(5, 7, 0.5, FourierForm::SinCos, 7).unwrap();
        assert_eq!((odd.weights.len(), odd.offsets.len()), (20, 4));
        assert!(odd.offsets[..3].iter().all(|&b| b == 0.0) && odd.offsets[3] > 0.0);
    }

    /// The map of weights `w` and offsets `b`.
    fn map<'a, O>(w: &'a [O], b: &'a [O], dc: usize, form: FourierForm) -> FourierMap<'a, O> {
        FourierMap {
            weights: w,
            offsets: b,
            n_components: dc,
            form,
        }
    }

    /// Checks rows 0 and 17 of `z` against the documented formula, feature by feature.
    fn check_formula(
        x: &[f64],
        d: usize,
        p: &FourierParams,
        dc: usize,
        form: FourierForm,
        z: &[f64],
    ) {
        let (w, b) = (&p.weights[..], &p.offsets[..]);
        let nf = form.n_frequencies(dc);
        #[allow(clippy::cast_precision_loss)]
        let scale = (2.0 / dc as f64).sqrt();
        for i in [0, 17] {
            for c in 0..nf {
                let t: f64 = b[c] + (0..d).map(|j| x[i * d + j] * w[j * nf + c]).sum::<f64>();
                let expect = match form {
                    FourierForm::Offset => vec![t.cos()],
                    FourierForm::SinCos if 2 * c + 1 == dc => vec![t.cos()],
                    FourierForm::SinCos => vec![t.cos(), t.sin()],
                };
                let first = if form == FourierForm::Offset {
                    c
                } else {
                    2 * c
                };
                for (k, e) in expect.iter().enumerate() {
                    let got = z[i * dc + first + k];
                    assert!((got - scale * e).abs() < 1e-14, "{form:?} {i} {c}");
                }
            }
        }
    }

    /// The largest error of `z`'s inner products against the rbf kernel on `x`.
    fn worst_kernel_error(x: &[f64], n: usize, d: usize, gamma: f64, dc: usize, z: &[f64]) -> f64 {
        let mut worst: f64 = 0.0;
        for a in 0..n {
            for b in 0..n {
                let dist: f64 = (0..d).map(|j| (x[a * d + j] - x[b * d + j]).powi(2)).sum();
                let k = (-gamma * dist).exp();
                let approx: f64 = (0..dc).map(|c| z[a * dc + c] * z[b * dc + c]).sum();
                worst = worst.max((k - approx).abs());
            }
        }
        worst
    }

    #[test]
    fn features_approximate_the_rbf_kernel_and_agree_dense_and_sparse() {
        let (n, d, gamma) = (30, 6, 0.3);
        let x = crate::test_support::sparse_uniform(n * d, 1, 3, 1.0);
        let monitor = Monitor::new();
        let dense = DenseRows::new(&x, n, d).unwrap();
        let (data, indices, indptr) = crate::test_support::to_csr::<i64>(&x, n, d);
        let csr = CsrRows::new(&data, &indices, &indptr, n, d).unwrap();
        for (form, dc) in [
            (FourierForm::Offset, 4000),
            (FourierForm::SinCos, 4000),
            (FourierForm::SinCos, 3999),
        ] {
            let p = sample_fourier(d, dc, gamma, form, 3).unwrap();
            let (w, b) = (&p.weights[..], &p.offsets[..]);
            let z = fourier_transform(&dense, map(w, b, dc, form), 2, &monitor).unwrap();
            let zs = fourier_transform(&csr, map(w, b, dc, form), 1, &monitor).unwrap();
            assert_eq!(z, zs, "zeros skipped alike, so dense and CSR agree exactly");
            check_formula(&x, d, &p, dc, form, &z);
            let worst = worst_kernel_error(&x, n, d, gamma, dc, &z);
            assert!(worst < 0.08, "{form:?}: worst kernel error {worst}");
            let w32: Vec<f32> = p.weights.iter().map(|&w| w as f32).collect();
            let b32: Vec<f32> = p.offsets.iter().map(|&w| w as f32).collect();
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let dense32 = DenseRows::new(&x32, n, d).unwrap();
            let z32 = fourier_transform(&dense32, map(&w32, &b32, dc, form), 1, &monitor).unwrap();
            let diff = z32
                .iter()
                .zip(&z)
                .map(|(a, b)| (f64::from(*a) - b).abs())
                .fold(0.0, f64::max);
            assert!(diff < 1e-5, "float32 features differ by {diff}");
            assert!(fourier_transform(&dense, map(&w[1..], b, dc, form), 1, &monitor).is_err());
            assert!(fourier_transform(&dense, map(w, b, dc + 2, form), 1, &monitor).is_err());
            let r = fourier_transform(&dense, map(w, b, dc, form), 1, &Monitor::stopped());
            assert_eq!(r, Err(Error::Interrupted));
        }
    }
}
