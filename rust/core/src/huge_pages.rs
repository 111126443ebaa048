//! Transparent huge pages for large buffers: one of the crate's three `unsafe`
//! sites (with `prefetch` and the AVX2 builds of `simd`).
//!
//! A fresh zeroed buffer is faulted in page by page when first written. With 4 KiB
//! pages, the weights of a many-class model (`K x d` doubles, tens of megabytes)
//! cost tens of thousands of page faults per fit, a large share of a short fit's
//! time. On Linux, where transparent huge pages are commonly enabled on request
//! (`madvise` mode), asking for them on a large buffer before it is touched makes
//! that a few dozen faults of 2 MiB, as numpy does for its large arrays. The
//! advice changes only timing, never contents; it is ignored where unsupported.

/// Buffers of at least this many bytes are advised to use huge pages (numpy's
/// threshold).
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// Advise the kernel to back `buf` with transparent huge pages when it is large
/// (no-op elsewhere, and on other systems).
#[allow(unsafe_code)]
pub(crate) fn advise_huge_pages<T>(buf: &mut [T]) {
    let bytes = std::mem::size_of_val(buf);
    if bytes < HUGE_PAGE_THRESHOLD {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        // `madvise` needs a page-aligned start: advise the whole pages inside `buf`.
        const PAGE: usize = 4096;
        let start = buf.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + bytes).saturating_sub(aligned) / PAGE * PAGE;
        if len > 0 {
            // SAFETY: `[aligned, aligned + len)` lies inside `buf`, which this
            // function borrows mutably; MADV_HUGEPAGE changes how the range is
            // backed, never its contents, and its failure is harmless.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice never changes contents, on large buffers at any alignment and on
    /// small ones (which it leaves alone).
    #[test]
    fn advice_keeps_contents() {
        let mut big =
            crate::error::try_filled_vec(HUGE_PAGE_THRESHOLD, 0.0f64, "a test buffer").unwrap();
        assert!(big.iter().all(|&x| x == 0.0));
        for (i, x) in big.iter_mut().enumerate() {
            *x = i as f64;
        }
        advise_huge_pages(&mut big[3..]);
        advise_huge_pages(&mut big[..7]);
        assert!(big.iter().enumerate().all(|(i, &x)| x == i as f64));
        let mut bytes = vec![7u8; HUGE_PAGE_THRESHOLD + 5];
        advise_huge_pages(&mut bytes[1..]);
        assert!(bytes.iter().all(|&b| b == 7));
    }
}
