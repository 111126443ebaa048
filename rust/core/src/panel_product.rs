//! `out += A B` for a general `B` or an upper-triangular one (`B[p][c] = 0` for
//! `c < p`): the products of the Nyström transform. The general one gives a block of
//! rows' inner products with the landmarks (`B` = the landmarks, transposed); the
//! triangular one maps their kernel values (in pivot order) through `B = L⁻ᵀ`.
//!
//! A register-blocked kernel in the manner of BLAS: tiles of `MR` rows by `NR`
//! output columns accumulate in registers over chunks of `KC` landmarks, so each
//! output is loaded and stored once per chunk and each coefficient of `U` once per
//! `MR` rows. Every output is the sum over `p` in increasing order, written with
//! separate multiplies and adds (never fused): vector width changes which outputs
//! are computed together, not their value, so the result is bit-identical on every
//! CPU. On x86-64 the same code is also compiled for AVX2 and chosen at run time
//! (the crate's second and last `unsafe`: calling it after checking the CPU).
//! Measured: 7.6 G multiply-adds per second in `f64` on one core here.

use crate::float::Float;

/// Rows per register tile.
const MR: usize = 4;
/// Output columns per register tile.
pub(crate) const NR: usize = 8;
/// Landmarks per chunk (the chunk of `A`'s rows stays in L2).
const KC: usize = 256;

/// `B` stored row-major with `width = n_out` rounded up to [`NR`] (zero padding).
#[derive(Clone, Debug)]
pub(crate) struct Panel<O> {
    /// Rows of `B` (the inner dimension of the product).
    pub rank: usize,
    /// Output columns.
    pub n_out: usize,
    /// Row stride of `u`.
    pub width: usize,
    /// `rank x width` coefficients.
    pub u: Vec<O>,
}

impl<O: Float> Panel<O> {
    /// An all-zero `rank x n_out` matrix, padded.
    pub fn zeros(rank: usize, n_out: usize) -> Self {
        let width = n_out.div_ceil(NR) * NR;
        Self {
            rank,
            n_out,
            width,
            u: vec![O::ZERO; rank * width],
        }
    }
}

/// `out[r][c] += sum_{p <= c} a[r][p] u[p][c]` for `rows` rows (the terms with
/// `p > c` are skipped: `u` is upper triangular); `a` has row stride
/// `lda >= u.rank`, `out` row stride `ldo >= u.n_out`.
pub(crate) fn upper_product<O: Float>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    dispatch::<O, true>(a, rows, lda, u, out, ldo);
}

/// `out[r][c] += sum_p a[r][p] b[p][c]`, strides as in [`upper_product`].
pub(crate) fn full_product<O: Float>(
    a: &[O],
    rows: usize,
    lda: usize,
    b: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    dispatch::<O, false>(a, rows, lda, b, out, ldo);
}

fn dispatch<O: Float, const UPPER: bool>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            // SAFETY: the CPU supports AVX2 (checked just above), the only
            // requirement of calling a function compiled with that feature enabled.
            unsafe {
                return product_avx2::<O, UPPER>(a, rows, lda, u, out, ldo);
            }
        }
    }
    product::<O, UPPER>(a, rows, lda, u, out, ldo);
}

/// [`product`] compiled with AVX2 enabled (but not FMA, to keep the rounding).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn product_avx2<O: Float, const UPPER: bool>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    product::<O, UPPER>(a, rows, lda, u, out, ldo);
}

// Inlined into the AVX2 build, which is the point of `inline(always)` here.
#[allow(clippy::inline_always)]
#[inline(always)]
fn product<O: Float, const UPPER: bool>(
    a: &[O],
    rows: usize,
    lda: usize,
    u: &Panel<O>,
    out: &mut [O],
    ldo: usize,
) {
    let mut p0 = 0;
    while p0 < u.rank {
        let p1 = (p0 + KC).min(u.rank);
        let mut c0 = if UPPER { (p0 / NR) * NR } else { 0 };
        while c0 < u.n_out {
            let cw = NR.min(u.n_out - c0);
            // Upper triangular: only p <= c contributes, so p < c0 + NR here.
            let pend = if UPPER { p1.min(c0 + NR) } else { p1 };
            let mut r0 = 0;
            while r0 + MR <= rows {
                tile::<O, MR>(a, r0, lda, u, (p0, pend), (c0, cw), out, ldo);
                r0 += MR;
            }
            while r0 < rows {
                tile::<O, 1>(a, r0, lda, u, (p0, pend), (c0, cw), out, ldo);
                r0 += 1;
            }
            c0 += NR;
        }
        p0 = p1;
    }
}

#[allow(clippy::inline_always)]
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn tile<O: Float, const R: usize>(
    a: &[O],
    r0: usize,
    lda: usize,
    u: &Panel<O>,
    (p0, pend): (usize, usize),
    (c0, cw): (usize, usize),
    out: &mut [O],
    ldo: usize,
) {
    let mut acc = [[O::ZERO; NR]; R];
    for (rr, acc_r) in acc.iter_mut().enumerate() {
        let start = (r0 + rr) * ldo + c0;
        acc_r[..cw].copy_from_slice(&out[start..start + cw]);
    }
    for p in p0..pend {
        let mut b = [O::ZERO; NR];
        b.copy_from_slice(&u.u[p * u.width + c0..p * u.width + c0 + NR]);
        for rr in 0..R {
            let x = a[(r0 + rr) * lda + p];
            for q in 0..NR {
                acc[rr][q] += x * b[q];
            }
        }
    }
    for (rr, acc_r) in acc.iter().enumerate() {
        let start = (r0 + rr) * ldo + c0;
        out[start..start + cw].copy_from_slice(&acc_r[..cw]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn matches_the_naive_triangular_product_in_order() {
        let mut rng = Rng::seed_from_u64(5);
        for (rows, rank, n_out) in [(1, 1, 1), (7, 5, 9), (13, 300, 300), (5, 260, 270)] {
            let lda = rank + 3;
            let a: Vec<f64> = (0..rows * lda).map(|_| rng.next_f64() - 0.5).collect();
            let mut u = Panel::<f64>::zeros(rank, n_out);
            for p in 0..rank {
                for c in p..n_out {
                    u.u[p * u.width + c] = rng.next_f64() - 0.5;
                }
            }
            let mut out = vec![0.25; rows * n_out];
            upper_product(&a, rows, lda, &u, &mut out, n_out);
            let mut naive = vec![0.25; rows * n_out];
            product::<f64, true>(&a, rows, lda, &u, &mut naive, n_out); // no AVX2
            assert_eq!(out, naive, "bit-identical with and without AVX2");
            let mut full = vec![0.25; rows * n_out];
            full_product(&a, rows, lda, &u, &mut full, n_out);
            assert_eq!(full, out, "the skipped terms are the zeros");
            for r in 0..rows {
                for c in 0..n_out {
                    let mut s = 0.25;
                    for p in 0..rank.min(c + 1) {
                        s += a[r * lda + p] * u.u[p * u.width + c];
                    }
                    assert_eq!(out[r * n_out + c], s, "same sum, same order ({r}, {c})");
                }
            }
        }
    }
}
