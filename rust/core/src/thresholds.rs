//! The work sizes below which a call counts as small, in one place.
//!
//! A small call runs on the calling thread, without the watcher thread that
//! otherwise polls it for Ctrl-C and progress: starting and joining the watcher would
//! cost more than the work, and Ctrl-C waits at most a few milliseconds for the call
//! to end. The Python binding decides with these constants; each measures the work in
//! the unit it can count before the call starts. They only choose where the work
//! runs, never what it computes: results are the same on either side of a threshold.
//!
//! Block and tile sizes (rows per parallel task, kernel values per chunk, panel
//! shapes) stay next to the loops they size, where their reasons are stated.

/// Elementary operations (stored entries times output columns, bytes of text, ...)
/// below which a call is small, a millisecond or two of work.
pub const SMALL_WORK: f64 = 2e6;

/// Visits of stored entries by the linear solver (stored entries times passes times
/// binary problems, or drawn rows times the mean stored entries per row) below which a
/// linear fit is small: about 10^7 visits take a few milliseconds.
pub const SMALL_VISITS: f64 = 1e7;

/// Kernel values (`n * n * passes` for `n` training examples) below which a kernel
/// fit is small.
pub const SMALL_KERNEL_VALUES: f64 = 1e6;

/// Whether work of about `cost` elementary operations is small ([`SMALL_WORK`]).
pub fn is_small(cost: usize) -> bool {
    (cost as f64) < SMALL_WORK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_small_compares_with_small_work() {
        assert!(is_small(1_999_999));
        assert!(!is_small(2_000_000));
        assert!(!is_small(usize::MAX));
    }
}
