//! Test fixtures shared by the unit tests of several modules: seeded data sets and
//! their CSR form. Shared ground (layer 1): uses only [`crate::rng`] and
//! [`crate::float`], so that every layer's tests may use it.
#![allow(clippy::cast_precision_loss)]

use crate::float::Index;
use crate::rng::Rng;

/// A seeded `n x d` row-major data set with about half zeros (values in [-1, 1] by
/// steps of 1/1000) and 0/1 labels from a planted rule: a row's label is 1 when the
/// sum of `score(j, v)` over its stored values `v` (feature `j`) exceeds `threshold`,
/// flipped for about one row in ten.
pub(crate) fn planted(
    n: usize,
    d: usize,
    seed: u64,
    score: impl Fn(usize, f64) -> f64,
    threshold: f64,
) -> (Vec<f64>, Vec<u32>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = vec![0.0; n * d];
    let mut codes = vec![0u32; n];
    for (i, code) in codes.iter_mut().enumerate() {
        let mut s = 0.0;
        for j in 0..d {
            if rng.below(2) == 0 {
                let v = rng.below(2001) as f64 / 1000.0 - 1.0;
                x[i * d + j] = v;
                s += score(j, v);
            }
        }
        let flip = rng.below(10) == 0;
        *code = u32::from((s > threshold) != flip);
    }
    (x, codes)
}

/// The CSR arrays `(data, indices, indptr)` of the dense row-major `n x d` matrix
/// `x`: its non-zero values, row by row.
pub(crate) fn to_csr<I: Index>(x: &[f64], n: usize, d: usize) -> (Vec<f64>, Vec<I>, Vec<I>) {
    let index = |v: usize| I::from_usize(v).expect("index fits");
    let (mut data, mut indices, mut indptr) = (vec![], vec![], vec![index(0)]);
    for i in 0..n {
        for j in 0..d {
            if x[i * d + j] != 0.0 {
                data.push(x[i * d + j]);
                indices.push(index(j));
            }
        }
        indptr.push(index(data.len()));
    }
    (data, indices, indptr)
}

/// `len` seeded values: 0 for about one in `zero_in` (a draw of `below(zero_in)`
/// that is 0), else uniform in `[0, scale)`.
pub(crate) fn sparse_uniform(len: usize, seed: u64, zero_in: u64, scale: f64) -> Vec<f64> {
    let mut rng = Rng::seed_from_u64(seed);
    (0..len)
        .map(|_| {
            if rng.below(zero_in) == 0 {
                0.0
            } else {
                rng.next_f64() * scale
            }
        })
        .collect()
}

/// `n x d` values, about half zeros, and labels of `n_classes` planted separators,
/// one in `noise_one_in` replaced by a uniformly drawn class.
pub(crate) fn planted_classes(
    n: usize,
    d: usize,
    n_classes: u32,
    seed: u64,
    noise_one_in: u64,
) -> (Vec<f64>, Vec<u32>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = vec![0.0; n * d];
    let mut codes = vec![0u32; n];
    for i in 0..n {
        for j in 0..d {
            if rng.below(2) == 0 {
                x[i * d + j] = rng.below(2001) as f64 / 1000.0 - 1.0;
            }
        }
        let mut best = (f64::NEG_INFINITY, 0u32);
        for c in 0..n_classes {
            let s: f64 = (0..d)
                .map(|j| x[i * d + j] * if (j as u32 + c) % 3 == 0 { 1.0 } else { -0.3 })
                .sum();
            if s > best.0 {
                best = (s, c);
            }
        }
        codes[i] = if rng.below(noise_one_in) == 0 {
            rng.below(u64::from(n_classes)) as u32
        } else {
            best.1
        };
    }
    (x, codes)
}

/// `n` points in the plane around `classes` centres on a circle of radius `radius`,
/// each coordinate moved by a uniform step of `1/1000` in `[-w/2000, w/2000]`
/// (`w = width`), class by centre.
pub(crate) fn blobs(
    n: usize,
    classes: u32,
    seed: u64,
    radius: f64,
    width: u64,
) -> (Vec<f64>, Vec<u32>) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(2 * n);
    let mut codes = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng.below(u64::from(classes)) as u32;
        let angle = f64::from(c) * std::f64::consts::TAU / f64::from(classes);
        for centre in [angle.cos(), angle.sin()] {
            x.push(radius * centre + rng.below(width + 1) as f64 / 1000.0 - width as f64 / 2000.0);
        }
        codes.push(c);
    }
    (x, codes)
}
