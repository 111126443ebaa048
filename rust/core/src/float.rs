//! Sealed numeric traits: the element type of data (`f32`/`f64`) and of CSR indices.
//!
//! All solvers are generic over [`Float`] (the data's element type) and [`Index`]
//! (the CSR index type). Model state is always kept in `f64`: the data is read in
//! its own precision and every product is formed in `f64`, so float32 input saves
//! memory bandwidth without losing accuracy in the accumulated weights.

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u32 {}
    impl Sealed for usize {}
}

/// Element type of the data: `f32` or `f64`. Sealed: no other implementations.
pub trait Float:
    sealed::Sealed
    + Copy
    + Send
    + Sync
    + PartialOrd
    + std::fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::AddAssign
    + 'static
{
    /// Zero.
    const ZERO: Self;
    /// Widen to `f64` (exact for both implementations).
    fn to_f64(self) -> f64;
    /// Narrow from `f64` (rounds to nearest for `f32`).
    fn from_f64(x: f64) -> Self;
    /// `true` unless NaN or infinite.
    fn is_finite(self) -> bool;
    /// `true` when every value of `values` is finite: branch-free (exponent bits
    /// tested and or-ed over the slice), so that it vectorises.
    fn all_finite(values: &[Self]) -> bool;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn all_finite(values: &[Self]) -> bool {
        const EXPONENT: u32 = 0x7f80_0000;
        !values
            .iter()
            .fold(false, |bad, x| bad | (x.to_bits() & EXPONENT == EXPONENT))
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn all_finite(values: &[Self]) -> bool {
        const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
        !values
            .iter()
            .fold(false, |bad, x| bad | (x.to_bits() & EXPONENT == EXPONENT))
    }
}

/// Integer type of CSR `indices`/`indptr`: `i32`, `i64` (scipy) or `u32`/`usize`.
pub trait Index: sealed::Sealed + Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Checked conversion: `None` for negative values or values beyond `usize`.
    fn checked_usize(self) -> Option<usize>;
    /// Conversion for values already validated by [`Index::checked_usize`].
    fn to_usize(self) -> usize;
    /// Checked conversion from `usize`: `None` when `v` does not fit.
    fn from_usize(v: usize) -> Option<Self>;
    /// The largest valid (non-negative) value, as `u64`.
    const MAX_INDEX: u64;
    /// The largest of `values` read as unsigned integers of the same width (a
    /// negative value reads as more than [`Index::MAX_INDEX`]); 0 when empty.
    /// Branch-free, so that it vectorises.
    fn max_unsigned(values: &[Self]) -> u64;
}

macro_rules! impl_index {
    ($($t:ty => $u:ty),*) => {$(
        impl Index for $t {
            const MAX_INDEX: u64 = <$t>::MAX as u64;
            #[allow(clippy::inline_always)]
            #[inline(always)]
            fn max_unsigned(values: &[Self]) -> u64 {
                #[allow(clippy::cast_lossless)]
                let max = values.iter().fold(0, |m: $u, &j| m.max(j as $u)) as u64;
                max
            }
            #[inline]
            fn checked_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn to_usize(self) -> usize {
                self as usize
            }
            #[inline]
            fn from_usize(v: usize) -> Option<Self> {
                Self::try_from(v).ok()
            }
        }
    )*};
}
impl_index!(i32 => u32, i64 => u64, u32 => u32, usize => usize);
