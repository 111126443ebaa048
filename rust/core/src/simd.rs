//! Run-time choice of an AVX2 build of the hot loops.
//!
//! The crate is compiled for baseline x86-64 (SSE2), so that one wheel runs on every
//! CPU. A loop wrapped in a [`Job`] is compiled twice, once more inside a function
//! with AVX2 enabled, and [`with_avx2`] calls that build when the CPU has AVX2. FMA
//! is not enabled, and Rust never contracts a multiply and an add into one, so both
//! builds round every operation alike: the results are bit-identical, only the
//! vector width differs (tested by the callers against the portable build). Calling
//! the AVX2 build after checking the CPU is one of the crate's three `unsafe` sites
//! (the others are the prefetch hint of `prefetch` and the advice of `huge_pages`).

/// A loop to run, compiled twice: [`Job::run`] must be `#[inline(always)]`, so that
/// it is inlined into the AVX2 build as well as into the portable call.
pub(crate) trait Job {
    /// Do the work.
    fn run(self);
}

/// Run `job`, compiled for AVX2 when the CPU has it.
pub(crate) fn with_avx2<J: Job>(job: J) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            // SAFETY: the CPU supports AVX2 (checked just above), the only
            // requirement of calling a function compiled with that feature enabled.
            unsafe {
                avx2(job);
            }
            return;
        }
    }
    job.run();
}

/// `job.run()` compiled with AVX2 enabled (but not FMA, to keep the rounding).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2<J: Job>(job: J) {
    job.run();
}
