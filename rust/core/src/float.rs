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
}

/// Integer type of CSR `indices`/`indptr`: `i32`, `i64` (scipy) or `u32`/`usize`.
pub trait Index: sealed::Sealed + Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Checked conversion: `None` for negative values or values beyond `usize`.
    fn checked_usize(self) -> Option<usize>;
    /// Conversion for values already validated by [`Index::checked_usize`].
    fn to_usize(self) -> usize;
    /// Checked conversion from `usize`: `None` when `v` does not fit.
    fn from_usize(v: usize) -> Option<Self>;
}

macro_rules! impl_index {
    ($($t:ty),*) => {$(
        impl Index for $t {
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
impl_index!(i32, i64, u32, usize);
