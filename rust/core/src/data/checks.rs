//! The whole-input checks of the row views, written to run at memory speed.
//!
//! A fit at 10^7 rows takes the same number of Pegasos steps as one at 10^5, so
//! the one pass that validates the input is what grows with `m`. Each check scans
//! the input in blocks of `BLOCK` values with a branch-free test per block (bit
//! tests and a running maximum, which the compiler vectorises, in an AVX2 build
//! when the CPU has it), and only a block that fails is scanned again to find the
//! first offending position for the error message. A block fails exactly when one
//! of its values fails the element-wise test, so the result is the element-wise
//! scan's.

use crate::float::{Float, Index};
use crate::simd::{with_avx2, Job};

/// Values tested per block before the result is looked at.
const BLOCK: usize = 8192;

/// Position of the first NaN or infinite value of `data`.
pub fn first_non_finite<T: Float>(data: &[T]) -> Option<usize> {
    let mut found = None;
    with_avx2(FirstNonFinite {
        data,
        found: &mut found,
    });
    found
}

/// Position of the first index of `indices` outside `[0, n)` (negative included).
pub fn first_out_of_range<I: Index>(indices: &[I], n: usize) -> Option<usize> {
    let mut found = None;
    with_avx2(FirstOutOfRange {
        indices,
        n,
        found: &mut found,
    });
    found
}

struct FirstNonFinite<'a, T> {
    data: &'a [T],
    found: &'a mut Option<usize>,
}

impl<T: Float> Job for FirstNonFinite<'_, T> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        for (b, block) in self.data.chunks(BLOCK).enumerate() {
            if !T::all_finite(block) {
                *self.found = block
                    .iter()
                    .position(|x| !x.is_finite())
                    .map(|k| b * BLOCK + k);
                return;
            }
        }
    }
}

struct FirstOutOfRange<'a, I> {
    indices: &'a [I],
    n: usize,
    found: &'a mut Option<usize>,
}

impl<I: Index> Job for FirstOutOfRange<'_, I> {
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn run(self) {
        let in_range = |j: I| j.checked_usize().is_some_and(|j| j < self.n);
        for (b, block) in self.indices.chunks(BLOCK).enumerate() {
            // Negative values read as unsigned exceed `I`'s largest valid index.
            let max = I::max_unsigned(block);
            if max > I::MAX_INDEX || max >= self.n as u64 {
                *self.found = block
                    .iter()
                    .position(|&j| !in_range(j))
                    .map(|k| b * BLOCK + k);
                if self.found.is_some() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_non_finite_value_is_found_in_any_block() {
        for n in [0, 1, 7, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5] {
            let clean = vec![1.5f32; n];
            assert_eq!(first_non_finite(&clean), None);
            for at in [0, n / 2, n.saturating_sub(1)] {
                if at >= n {
                    continue;
                }
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -f32::NAN] {
                    let mut data = clean.clone();
                    data[at] = bad;
                    if at + 1 < n {
                        data[n - 1] = f32::NAN;
                    }
                    assert_eq!(first_non_finite(&data), Some(at), "n {n} at {at}");
                    let wide: Vec<f64> = data.iter().map(|&x| f64::from(x)).collect();
                    assert_eq!(first_non_finite(&wide), Some(at), "n {n} at {at}");
                }
            }
        }
        // The largest finite values and subnormals are finite.
        let edge = [f64::MAX, f64::MIN, f64::MIN_POSITIVE / 4.0, -0.0];
        assert_eq!(first_non_finite(&edge), None);
        let edge = [f32::MAX, f32::MIN, f32::MIN_POSITIVE / 4.0, -0.0];
        assert_eq!(first_non_finite(&edge), None);
    }

    #[test]
    fn the_first_index_out_of_range_is_found_in_any_block() {
        let n = 1000usize;
        for len in [0, 1, BLOCK - 1, BLOCK, 2 * BLOCK + 3] {
            let clean: Vec<i32> = (0..len).map(|k| (k % n) as i32).collect();
            assert_eq!(first_out_of_range(&clean, n), None);
            for at in [0, len / 2, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                for bad in [-1i32, n as i32, i32::MIN, i32::MAX] {
                    let mut idx = clean.clone();
                    idx[at] = bad;
                    assert_eq!(first_out_of_range(&idx, n), Some(at), "len {len} at {at}");
                    let wide: Vec<i64> = idx.iter().map(|&j| i64::from(j)).collect();
                    assert_eq!(first_out_of_range(&wide, n), Some(at));
                }
            }
        }
        // Any index below `n` passes, however large `n` is.
        assert_eq!(first_out_of_range(&[i32::MAX], usize::MAX), None);
        assert_eq!(first_out_of_range(&[-1i64], usize::MAX), Some(0));
        assert_eq!(first_out_of_range(&[u32::MAX], u32::MAX as usize), Some(0));
        assert_eq!(first_out_of_range(&[u32::MAX], usize::MAX), None);
    }
}
