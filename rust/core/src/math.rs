//! Portable elementary functions for the kernels, the feature maps and Platt's
//! probabilities: `exp`, `ln`, `ln_1p`, `sin`/`cos`, `tanh` and integer powers,
//! written in plain IEEE arithmetic.
//!
//! The platform's `libm` is not the same function everywhere (glibc picks an FMA
//! variant of `exp` on CPUs that have FMA; macOS and Windows ship their own), so a
//! kernel model trained with it could differ in the last bits between machines.
//! These versions use only `+ - * /` and bit manipulation, which Rust evaluates
//! exactly as written (no contraction into FMA), so the same inputs give the same
//! bits on every platform. They are also branch-light, so a loop over a slice of
//! kernel arguments vectorizes, which makes them faster than `libm` here.
//!
//! Accuracy: `exp` within 2 ulp on `[-708, 709]` (0 below, checked against `std`);
//! `tanh` within `4.5e-16` absolute (2 ulp of 1); `ln` within 1 ulp; `ln_1p` within
//! 4 ulp; `sin_cos`
//! within `2.3e-16` absolute (one ulp of 1) for `|x| < 2^20 π/2` (the argument reduction is exact
//! there; beyond it the error grows to about `|x| 2^-70`, still tiny for the random
//! Fourier features, whose arguments are a few hundred at most).

use crate::simd::{with_avx2, Job};

/// `1.5 * 2^52`: adding it rounds to an integer and leaves that integer in the low
/// bits of the result.
const SHIFT: f64 = 6_755_399_441_055_744.0;
/// `ln 2` split into a part with trailing zero bits (exact products with small
/// integers) and the rest (fdlibm's constants).
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// `exp(x)`; `0` for `x < -708`, finite for `x <= 709` (saturating above).
#[inline]
pub fn exp(x: f64) -> f64 {
    let xc = x.clamp(-708.0, 709.0);
    // x = k ln 2 + r with k the nearest integer to x / ln 2 and |r| <= ln 2 / 2.
    let t = xc * std::f64::consts::LOG2_E + SHIFT;
    let k = t - SHIFT;
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    // Taylor polynomial of degree 13 (remainder below 5e-18 on |r| <= 0.35), in
    // Estrin's scheme: shorter dependency chains than Horner's.
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let p01 = 1.0 + r;
    let p23 = 0.5 + r * (1.0 / 6.0);
    let p45 = 1.0 / 24.0 + r * (1.0 / 120.0);
    let p67 = 1.0 / 720.0 + r * (1.0 / 5_040.0);
    let p89 = 1.0 / 40_320.0 + r * (1.0 / 362_880.0);
    let p1011 = 1.0 / 3_628_800.0 + r * (1.0 / 39_916_800.0);
    let p1213 = 1.0 / 479_001_600.0 + r * (1.0 / 6_227_020_800.0);
    let p03 = p01 + r2 * p23;
    let p47 = p45 + r2 * p67;
    let p811 = p89 + r2 * p1011;
    let p07 = p03 + r4 * p47;
    let p813 = p811 + r4 * p1213;
    let p = p07 + r8 * p813;
    // 2^k from the low bits of t (k + 1023 is in [2, 2046] after the clamp).
    let bits = t.to_bits().wrapping_sub(SHIFT.to_bits()).wrapping_add(1023) << 52;
    let y = p * f64::from_bits(bits);
    let y = if x < -708.0 { 0.0 } else { y };
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// `exp` applied to every element of `xs`, in place (groups of four, which the
/// compiler turns into vector instructions; AVX2 ones when the CPU has them, with
/// the same results).
pub fn exp_in_place(xs: &mut [f64]) {
    with_avx2(ExpJob(xs));
}

/// [`exp_in_place`]'s loop.
struct ExpJob<'a>(&'a mut [f64]);

impl Job for ExpJob<'_> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        exp_slice(self.0);
    }
}

#[allow(clippy::inline_always)]
#[inline(always)]
fn exp_slice(xs: &mut [f64]) {
    let mut groups = xs.chunks_exact_mut(4);
    for g in &mut groups {
        let v = [exp(g[0]), exp(g[1]), exp(g[2]), exp(g[3])];
        g.copy_from_slice(&v);
    }
    for x in groups.into_remainder() {
        *x = exp(*x);
    }
}

/// `tanh(x)` as `(1 - e) / (1 + e)` with `e = exp(-2|x|)`, sign restored.
#[inline]
pub fn tanh(x: f64) -> f64 {
    let e = exp(-2.0 * x.abs());
    ((1.0 - e) / (1.0 + e)).copysign(x)
}

/// `ln(x)` for finite positive `x` (subnormals included); `-inf` at 0, NaN below 0
/// or for NaN, `+inf` at `+inf`.
///
/// `x = 2^e m` with `m` in `[√2/2, √2)`; `ln m = 2 atanh(s)` with `s = f / (2 + f)`,
/// `f = m - 1`, evaluated as `f - f²/2 + s (f²/2 + R(s²))` with the minimax
/// polynomial `R` of fdlibm's `__ieee754_log` (coefficients `LG1..LG7`).
#[inline]
pub fn ln(x: f64) -> f64 {
    const LG1: f64 = 6.666_666_666_666_735e-1;
    const LG2: f64 = 3.999_999_999_940_942e-1;
    const LG3: f64 = 2.857_142_874_366_239e-1;
    const LG4: f64 = 2.222_219_843_214_978_4e-1;
    const LG5: f64 = 1.818_357_216_161_805e-1;
    const LG6: f64 = 1.531_383_769_920_937_3e-1;
    const LG7: f64 = 1.479_819_860_511_658_6e-1;
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return x;
    }
    // Subnormals: scale into the normal range first.
    let (x, e_bias) = if x < f64::MIN_POSITIVE {
        (x * 18_014_398_509_481_984.0, -54_i64) // 2^54
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023 + e_bias;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    #[allow(clippy::cast_precision_loss)] // |e| <= 1100
    let k = e as f64;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

/// `ln(1 + x)`, accurate also where `|x|` is small (`ln(1 + x)` would lose the digits
/// of `x` that the rounding of `1 + x` drops); NaN below `-1` or for NaN, `-inf` at
/// `-1`, `+inf` at `+inf`.
///
/// With `u = 1 + x` rounded: `x` itself when `u == 1`, else `ln(u) * (x / (u - 1))`,
/// the rounding error of `u` cancelling in the quotient (Goldberg, "What every
/// computer scientist should know about floating-point arithmetic", 1991,
/// Theorem 4).
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    let u = 1.0 + x;
    if u == 1.0 {
        x
    } else if u == f64::INFINITY {
        u
    } else {
        ln(u) * (x / (u - 1.0))
    }
}

/// `(sin x, cos x)`, both from one argument reduction: `x = k π/2 + r` with `|r| <=
/// π/4` (π/2 in three parts of 33 bits, so `k` times each is exact for `|k| < 2^20`),
/// then fdlibm's minimax polynomials for `sin` and `cos` on `[-π/4, π/4]`.
/// Non-finite `x` gives NaN.
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    let (q, sin_r, cos_r) = quadrant(x);
    // Selected without branches on the quadrant, as in [`cos`]: odd quadrants swap
    // the two; sin is negative in quadrants 2 and 3, cos in 1 and 2.
    let (s, c) = if q & 1 == 0 {
        (sin_r, cos_r)
    } else {
        (cos_r, sin_r)
    };
    let s = if q & 2 == 0 { s } else { -s };
    let c = if (q + 1) & 2 == 0 { c } else { -c };
    if x.is_finite() {
        (s, c)
    } else {
        (f64::NAN, f64::NAN)
    }
}

/// `cos x`, the same value as [`sin_cos`]'s, selected without branches on the
/// quadrant (so that a loop of it vectorizes and random quadrants cost no
/// mispredictions).
#[inline]
pub fn cos(x: f64) -> f64 {
    let (q, sin_r, cos_r) = quadrant(x);
    let v = if q & 1 == 0 { cos_r } else { sin_r };
    // Negative in quadrants 1 and 2.
    let v = if (q + 1) & 2 == 0 { v } else { -v };
    if x.is_finite() {
        v
    } else {
        f64::NAN
    }
}

/// The quadrant `k mod 4` of `x = k π/2 + r` and `(sin r, cos r)`.
#[inline]
fn quadrant(x: f64) -> (u64, f64, f64) {
    const PIO2_1: f64 = 1.570_796_326_734_125_6;
    const PIO2_2: f64 = 6.077_100_506_303_966e-11;
    const PIO2_3: f64 = 2.022_266_248_711_166_5e-21;
    const S1: f64 = -1.666_666_666_666_663_2e-1;
    const S2: f64 = 8.333_333_333_322_49e-3;
    const S3: f64 = -1.984_126_982_985_795e-4;
    const S4: f64 = 2.755_731_370_707_006_8e-6;
    const S5: f64 = -2.505_076_025_340_686_3e-8;
    const S6: f64 = 1.589_690_995_211_55e-10;
    const C1: f64 = 4.166_666_666_666_66e-2;
    const C2: f64 = -1.388_888_888_887_411e-3;
    const C3: f64 = 2.480_158_728_947_673e-5;
    const C4: f64 = -2.755_731_435_139_066_3e-7;
    const C5: f64 = 2.087_572_321_298_175e-9;
    const C6: f64 = -1.135_964_755_778_819_5e-11;
    let t = x * std::f64::consts::FRAC_2_PI + SHIFT;
    let k = t - SHIFT;
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let z = r * r;
    let sin_r = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    let cos_r = 1.0 - 0.5 * z + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    (t.to_bits() & 3, sin_r, cos_r)
}

/// `x^n` by repeated squaring (the same sequence of products everywhere).
#[inline]
pub fn powi(x: f64, n: u32) -> f64 {
    let (mut base, mut n, mut acc) = (x, n, 1.0);
    while n > 0 {
        if n & 1 == 1 {
            acc *= base;
        }
        base *= base;
        n >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_in_place_is_exp_of_each_element() {
        // The AVX2 build (chosen at run time here when the CPU has it) rounds like
        // the portable scalar `exp`.
        let mut xs: Vec<f64> = (0..1003).map(|i| f64::from(i) * 0.731 - 400.0).collect();
        xs.extend([-708.5, 709.5, f64::NAN, -0.0, 1e-300]);
        let want: Vec<u64> = xs.iter().map(|&x| exp(x).to_bits()).collect();
        exp_in_place(&mut xs);
        let got: Vec<u64> = xs.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn cos_is_the_cosine_of_sin_cos() {
        let mut x = -1.0e4;
        while x < 1.0e4 {
            assert_eq!(cos(x).to_bits(), sin_cos(x).1.to_bits(), "{x}");
            x += 0.377;
        }
        for x in [0.0, -0.0, 1e300, f64::INFINITY, f64::NAN] {
            assert_eq!(cos(x).to_bits(), sin_cos(x).1.to_bits(), "{x}");
        }
    }

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / b.abs().max(f64::MIN_POSITIVE)).abs() / f64::EPSILON
    }

    #[test]
    fn exp_is_within_two_ulp_of_std() {
        let mut worst: f64 = 0.0;
        let mut x = -708.0;
        while x <= 709.0 {
            worst = worst.max(ulps(exp(x), x.exp()));
            x += 0.000_937;
        }
        for x in [0.0, -0.0, 1e-300, -1e-20, 1.0, -1.0, 0.5, -0.346_5, 0.346_6] {
            worst = worst.max(ulps(exp(x), x.exp()));
        }
        assert!(worst <= 2.0, "worst {worst} ulp");
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert!(exp(f64::NAN).is_nan());
        let mut v = vec![-1.0, 0.0, 2.0];
        exp_in_place(&mut v);
        assert_eq!(v, vec![exp(-1.0), 1.0, exp(2.0)]);
    }

    #[test]
    fn ln_is_within_one_ulp_of_std() {
        let mut worst: f64 = 0.0;
        let mut x = 1e-310;
        while x < 1e300 {
            worst = worst.max(ulps(ln(x), x.ln()));
            x *= 1.000_73;
        }
        let mut x = 0.5;
        while x < 2.0 {
            if (x - 1.0_f64).abs() > 1e-3 {
                worst = worst.max(ulps(ln(x), x.ln()));
            } else {
                assert!((ln(x) - x.ln()).abs() <= 2.0 * f64::EPSILON * (x - 1.0).abs());
            }
            x += 0.000_061;
        }
        assert!(worst <= 1.0, "worst {worst} ulp");
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
        assert!(ln(-1.0).is_nan() && ln(f64::NAN).is_nan());
        assert_eq!(ln(f64::from_bits(1)), f64::from_bits(1).ln());
    }

    #[test]
    fn ln_1p_is_within_four_ulp_of_std() {
        let mut worst: f64 = 0.0;
        let mut x: f64 = 1e-300;
        while x < 1e300 {
            for v in [x, -x.min(0.999_999)] {
                worst = worst.max(ulps(ln_1p(v), v.ln_1p()));
            }
            x *= 1.000_91;
        }
        let mut x = -0.999;
        while x < 3.0 {
            worst = worst.max(ulps(ln_1p(x), x.ln_1p()));
            x += 0.000_37;
        }
        assert!(worst <= 4.0, "worst {worst} ulp");
        assert_eq!(ln_1p(0.0), 0.0);
        assert_eq!(ln_1p(1e-30), 1e-30);
        assert_eq!(ln_1p(-1.0), f64::NEG_INFINITY);
        assert_eq!(ln_1p(f64::INFINITY), f64::INFINITY);
        assert!(ln_1p(-1.5).is_nan() && ln_1p(f64::NAN).is_nan());
    }

    #[test]
    fn sin_cos_match_std() {
        let mut worst: f64 = 0.0;
        let mut x = -2000.0;
        while x <= 2000.0 {
            let (s, c) = sin_cos(x);
            worst = worst.max((s - x.sin()).abs()).max((c - x.cos()).abs());
            x += 0.000_977;
        }
        for x in [
            1e5,
            -3e5,
            1.6e6,
            0.0,
            -0.0,
            1e-300,
            std::f64::consts::FRAC_PI_4,
        ] {
            let (s, c) = sin_cos(x);
            worst = worst.max((s - x.sin()).abs()).max((c - x.cos()).abs());
        }
        assert!(worst <= f64::EPSILON, "worst {worst}");
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        assert!(sin_cos(f64::INFINITY).0.is_nan() && cos(f64::NAN).is_nan());
        // Beyond the exact reduction the result stays close (and bounded).
        let x = 1e9_f64;
        assert!((cos(x) - x.cos()).abs() < 1e-6);
    }

    #[test]
    fn tanh_and_powi_match_std() {
        let mut x = -25.0;
        while x <= 25.0 {
            assert!(
                (tanh(x) - x.tanh()).abs() <= 4.5e-16,
                "{x}: {}",
                tanh(x) - x.tanh()
            );
            x += 0.001_3;
        }
        assert_eq!(tanh(0.0), 0.0);
        for n in 0..12 {
            for x in [-2.5f64, -1.0, 0.0, 0.3, 1.7, 10.0] {
                let want = x.powi(n as i32);
                assert!((powi(x, n) - want).abs() <= 4.0 * f64::EPSILON * want.abs());
            }
        }
    }
}
