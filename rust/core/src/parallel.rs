//! Where parallel work runs: rayon pools kept per thread count, one task per binary
//! problem, and row blocks of an output matrix, each stopping early when asked.
//!
//! Pools are built once per thread count and reused by later calls (a loop of small
//! predictions would otherwise start and join a pool on every call). The few most
//! recently used thread counts keep their pools; an older one is dropped, and its
//! threads end, when a new count needs room. Several callers may use one pool at
//! the same time: rayon queues their jobs.
//!
//! Results never depend on the pool: each problem and each row block computes its
//! own values in a fixed order, whatever thread runs it.
//!
//! A process made by `fork()` (Python's `os.fork`, `multiprocessing`'s default start
//! method on Linux before Python 3.14) holds a copy of the kept pools but none of
//! their threads: only the thread that called `fork` exists in the child. A job
//! handed to such a pool would wait forever, so the pools remember the process that
//! built them and a child builds its own on first use, leaving the parent's copies
//! alone (dropping them would signal threads that do not exist).

use crate::monitor::Monitor;
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Rows of the output per parallel block (and between two checks of the stop flag).
pub(crate) const ROW_BLOCK: usize = 64;

/// How many thread counts keep a pool.
const KEPT_POOLS: usize = 4;

/// The kept pools and the process whose threads run them.
struct Kept {
    /// The process id that built `pools` (0 before the first pool).
    pid: u32,
    /// Pools by thread count, most recently used first.
    pools: Vec<(usize, Arc<rayon::ThreadPool>)>,
}

impl Kept {
    /// The pools usable by process `pid`: none when they were built by another
    /// process (this one is a forked child of it, without their threads).
    fn of_process(&mut self, pid: u32) -> &mut Vec<(usize, Arc<rayon::ThreadPool>)> {
        if self.pid != pid {
            // Forget rather than drop: a drop would wake and wait on threads that
            // exist only in the parent. The leak is a few small allocations, once.
            for entry in self.pools.drain(..) {
                std::mem::forget(entry);
            }
            self.pid = pid;
        }
        &mut self.pools
    }
}

/// The pools kept for reuse.
static POOLS: Mutex<Kept> = Mutex::new(Kept {
    pid: 0,
    pools: Vec::new(),
});

/// The pool of `n_threads` threads (0 = one per core), built on first use and then
/// reused (in a forked child: built again, once, by the child).
pub fn thread_pool(n_threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    // A panic elsewhere while the lock was held leaves the list valid: go on.
    let mut kept = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    let pools = kept.of_process(std::process::id());
    if let Some(at) = pools.iter().position(|(n, _)| *n == n_threads) {
        let entry = pools.remove(at);
        let pool = Arc::clone(&entry.1);
        pools.insert(0, entry);
        return Ok(pool);
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .thread_name(|i| format!("pegasos-{i}"))
            .build()
            .map_err(|e| {
                Error::InvalidParameter(format!("cannot start {n_threads} threads: {e}"))
            })?,
    );
    pools.insert(0, (n_threads, Arc::clone(&pool)));
    pools.truncate(KEPT_POOLS);
    Ok(pool)
}

/// [`Error::Interrupted`] once `monitor` is stopped.
pub(crate) fn check_cancel(monitor: &Monitor) -> Result<()> {
    if monitor.is_stopped() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

/// Run `f(p, item)` for every problem `p`: in order on this thread when
/// `n_threads == 1` (no pool, a noticeable part of a small fit), else on the pool
/// of `n_threads` threads (0 = one per core), on which `f` may run nested parallel
/// work.
pub fn for_each_problem<T, O, F>(items: Vec<T>, n_threads: usize, f: F) -> Result<Vec<O>>
where
    T: Send,
    O: Send,
    F: Fn(usize, T) -> Result<O> + Sync,
{
    if n_threads == 1 {
        items
            .into_iter()
            .enumerate()
            .map(|(p, t)| f(p, t))
            .collect()
    } else {
        thread_pool(n_threads)?.install(|| {
            items
                .into_par_iter()
                .enumerate()
                .map(|(p, t)| f(p, t))
                .collect()
        })
    }
}

/// Run `f(first_row, rows)` on blocks of [`ROW_BLOCK`] rows of the row-major `out`
/// (`width > 0` values per row): in order when `n_threads == 1` or there is only
/// one block, else in parallel on `n_threads` threads (0 = all cores). Stops with
/// [`Error::Interrupted`] before the next block once `monitor` is stopped.
pub(crate) fn row_blocks<T, F>(
    out: &mut [T],
    width: usize,
    n_threads: usize,
    monitor: &Monitor,
    f: F,
) -> Result<()>
where
    T: Send,
    F: Fn(usize, &mut [T]) -> Result<()> + Sync,
{
    row_blocks_of(out, width, ROW_BLOCK, n_threads, monitor, f)
}

/// [`row_blocks`] in blocks of `block_rows` rows, for rows so cheap that blocks of
/// [`ROW_BLOCK`] would cost more to schedule than to compute.
pub(crate) fn row_blocks_of<T, F>(
    out: &mut [T],
    width: usize,
    block_rows: usize,
    n_threads: usize,
    monitor: &Monitor,
    f: F,
) -> Result<()>
where
    T: Send,
    F: Fn(usize, &mut [T]) -> Result<()> + Sync,
{
    blocks_of(
        out,
        width,
        block_rows,
        n_threads,
        monitor,
        || (),
        |(), first, rows| f(first, rows),
    )
}

/// [`row_blocks`] with scratch space: `f(scratch, first_row, rows)`, the scratch
/// made by `init` once per thread (rather than once per block) and reused.
pub(crate) fn row_blocks_with<T, S, I, F>(
    out: &mut [T],
    width: usize,
    n_threads: usize,
    monitor: &Monitor,
    init: I,
    f: F,
) -> Result<()>
where
    T: Send,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, usize, &mut [T]) -> Result<()> + Sync,
{
    blocks_of(out, width, ROW_BLOCK, n_threads, monitor, init, f)
}

/// The blocks of `block_rows` rows behind the public functions.
fn blocks_of<T, S, I, F>(
    out: &mut [T],
    width: usize,
    block_rows: usize,
    n_threads: usize,
    monitor: &Monitor,
    init: I,
    f: F,
) -> Result<()>
where
    T: Send,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, usize, &mut [T]) -> Result<()> + Sync,
{
    let block_rows = block_rows.max(1);
    let size = block_rows * width.max(1);
    monitor.add_total((out.len() / width.max(1)) as u64);
    let block = |s: &mut S, (b, chunk): (usize, &mut [T])| {
        check_cancel(monitor)?;
        f(s, b * block_rows, chunk)?;
        monitor.advance((chunk.len() / width.max(1)) as u64);
        Ok(())
    };
    if n_threads == 1 || out.len() <= size {
        let mut s = init();
        out.chunks_mut(size)
            .enumerate()
            .try_for_each(|item| block(&mut s, item))
    } else {
        thread_pool(n_threads)?.install(|| {
            out.par_chunks_mut(size)
                .enumerate()
                .try_for_each_init(init, block)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_reused_per_thread_count_and_old_ones_dropped() {
        let a = thread_pool(3).unwrap();
        let b = thread_pool(3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 3);
        for n in 5..5 + KEPT_POOLS {
            thread_pool(n).unwrap();
        }
        // Pool 3 fell out of the cache: a new one is built, the old one lives on
        // only while a caller holds it.
        let c = thread_pool(3).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(POOLS.lock().unwrap().pools.len() <= KEPT_POOLS);
    }

    #[test]
    fn a_forked_child_builds_its_own_pools() {
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap(),
        );
        let mut kept = Kept {
            pid: 7,
            pools: vec![(1, Arc::clone(&pool))],
        };
        assert_eq!(kept.of_process(7).len(), 1);
        // Another process id: the parent's pools are not handed out (their threads
        // do not exist there), and not dropped either.
        assert!(kept.of_process(8).is_empty());
        assert_eq!(kept.pid, 8);
        assert_eq!(Arc::strong_count(&pool), 2);
    }

    #[test]
    fn row_blocks_cover_every_row_once_and_stop_when_cancelled() {
        let monitor = Monitor::new();
        for threads in [1, 2] {
            let mut out = vec![0_usize; 1000 * 3];
            row_blocks(&mut out, 3, threads, &monitor, |first, rows| {
                for (r, row) in rows.chunks_mut(3).enumerate() {
                    row.fill(first + r + 1);
                }
                Ok(())
            })
            .unwrap();
            assert!(out.chunks(3).enumerate().all(|(i, r)| r == [i + 1; 3]));
        }
        monitor.stop();
        let mut out = vec![0_u8; 1000];
        let r = row_blocks(&mut out, 1, 2, &monitor, |_, _| Ok(()));
        assert_eq!(r, Err(Error::Interrupted));
    }

    #[test]
    fn concurrent_callers_share_a_pool() {
        let monitor = Monitor::new();
        std::thread::scope(|s| {
            for t in 0..4_usize {
                let monitor = &monitor;
                s.spawn(move || {
                    for _ in 0..50 {
                        let mut out = vec![0_usize; 700];
                        row_blocks(&mut out, 1, 2, monitor, |first, rows| {
                            for (r, v) in rows.iter_mut().enumerate() {
                                *v = (first + r) * t;
                            }
                            Ok(())
                        })
                        .unwrap();
                        assert!(out.iter().enumerate().all(|(i, &v)| v == i * t));
                    }
                });
            }
        });
    }
}
