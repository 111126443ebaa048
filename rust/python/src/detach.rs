//! Run pure Rust work with the GIL released, and turn Ctrl-C into `KeyboardInterrupt`.
//!
//! The work runs on a scoped thread while the calling thread, GIL released, waits
//! for it in short slices; between slices it briefly re-attaches to let Python run
//! its signal handlers. If one raises (Ctrl-C), the work is asked to stop through
//! an atomic flag, joined, and the exception is returned.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::error::CoreError;

const POLL: Duration = Duration::from_millis(50);

/// Whether work of about `cost` elementary operations is short (a millisecond or
/// two): then it runs on the calling thread without a watcher, and Ctrl-C waits
/// for it to end.
#[allow(clippy::cast_precision_loss)]
pub fn is_small(cost: usize) -> bool {
    (cost as f64) < 2e6
}

/// Run `job` without the GIL; it receives a flag it must poll to stop early.
///
/// Jobs expected to be short (`small`) run on the calling thread: starting the
/// watcher thread would cost more than the job, and Ctrl-C waits only until it ends.
pub fn detach_interruptible<T, F>(py: Python<'_>, small: bool, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&AtomicBool) -> pegasos_core::Result<T> + Send,
{
    // A Ctrl-C that arrived before the job: raise it now rather than after.
    py.check_signals()?;
    let cancel = AtomicBool::new(false);
    if small {
        return detach(py, || job(&cancel));
    }
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = channel::<()>();
            let flag = &cancel;
            let worker = scope.spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| job(flag)));
                let _ = done_tx.send(());
                r
            });
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => {
                        if let Err(err) = Python::attach(|py| py.check_signals()) {
                            cancel.store(true, Ordering::Relaxed);
                            let _ = worker.join();
                            return Err(err);
                        }
                    }
                }
            }
            match worker.join() {
                Ok(Ok(result)) => Ok(result),
                _ => Err(panicked()),
            }
        })
    });
    outcome?.map_err(|e| CoreError(e).into())
}

/// Run short `job` without the GIL (no signal polling; used for prediction).
pub fn detach<T, F>(py: Python<'_>, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> pegasos_core::Result<T> + Send,
{
    match py.detach(|| catch_unwind(AssertUnwindSafe(job))) {
        Ok(r) => r.map_err(|e| CoreError(e).into()),
        Err(_) => Err(panicked()),
    }
}

/// The exception for a panic of the Rust code: a bug, or an input array changed by
/// another thread during the call (every index is checked, so that is where a
/// change of a CSR structure under the computation ends).
fn panicked() -> PyErr {
    PyRuntimeError::new_err(
        "internal error in pegasos-rs: an input array was modified by another thread \
         during the call, or this is a bug (please report it)",
    )
}
