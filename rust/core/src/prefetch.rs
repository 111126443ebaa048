//! Cache prefetch hints: one of the crate's three `unsafe` sites (the others are
//! the AVX2 builds of `simd` and the advice of `huge_pages`).
//!
//! Pegasos visits rows in random order, so a step mostly waits for memory: the
//! row's `indptr` entry, then its values and indices. The solver draws the indices
//! of the next steps ahead (they do not depend on `w`) and hints their rows into
//! cache a few examples early. A prefetch never faults and has no visible effect
//! besides timing; taking a reference guarantees the address is valid anyway.

/// Hint that `*r` will be read soon (no-op on targets without a prefetch hint).
#[inline]
#[allow(unsafe_code)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` only requires SSE, which every x86_64 CPU has; it
        // does not dereference the pointer architecturally and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(r).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = r;
    }
}
