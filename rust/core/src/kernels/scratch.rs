//! Zeroed scratch space on the stack, sized to what a call needs.
//!
//! Kernel steps on small problems (one-vs-one pairs of small classes) compute a
//! few kernel values at a time; zeroing a whole kilobyte-sized buffer for each of
//! them took an eighth of such fits.

/// Scratch values on the stack for a short run.
const SHORT: usize = 64;

/// `f` on `len` zeroed values, `len <= N`: from a [`SHORT`]-value array when
/// `len` fits in it, otherwise from an `N`-value array.
#[inline]
pub(crate) fn with_scratch<T: Copy + Default, const N: usize, R>(
    len: usize,
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    if len <= SHORT {
        f(&mut [T::default(); SHORT][..len])
    } else {
        f(&mut [T::default(); N][..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_zeroed_and_as_long_as_asked() {
        for len in [0, 1, SHORT, SHORT + 1, 300] {
            let got = with_scratch::<u32, 300, _>(len, |s| (s.len(), s.iter().all(|&v| v == 0)));
            assert_eq!(got, (len, true));
        }
    }
}
