//! Portable elementary functions for the kernels: `exp`, `tanh` and integer powers
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
//! `tanh` within `4.5e-16` absolute (2 ulp of 1).

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
/// compiler turns into vector instructions).
#[inline]
pub fn exp_in_place(xs: &mut [f64]) {
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
