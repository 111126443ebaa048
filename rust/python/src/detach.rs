//! Run pure Rust work with the GIL released, turn Ctrl-C into `KeyboardInterrupt`,
//! and pass the work's progress and verbose lines to Python.
//!
//! The work runs on a scoped thread while the calling thread, GIL released, waits
//! for it in short slices; between slices it briefly re-attaches to let Python run
//! its signal handlers and, when a reporter is active (`pegasos_rs._progress`), to
//! hand it the [`Monitor`]'s counters and lines. If a handler raises (Ctrl-C), the
//! work is asked to stop through the monitor, joined, and the exception is returned.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use pegasos_core::Monitor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::error::CoreError;

const POLL: Duration = Duration::from_millis(50);

/// Run `job` without the GIL; it receives the [`Monitor`] it must poll to stop
/// early and on which it counts its progress.
///
/// Jobs expected to be short (`small`) run on the calling thread: starting the
/// watcher thread would cost more than the job, and Ctrl-C waits only until it ends.
/// The reporter active in the caller's context, if any, sees the progress every
/// poll and once more at the end.
pub fn detach_interruptible<T, F>(py: Python<'_>, small: bool, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Monitor) -> pegasos_core::Result<T> + Send,
{
    // A Ctrl-C that arrived before the job: raise it now rather than after.
    py.check_signals()?;
    let reporter = Reporter::current(py)?;
    let monitor = match reporter {
        Some(_) => Monitor::new().with_lines(),
        None => Monitor::new(),
    };
    let outcome = if small {
        detach(py, || job(&monitor))
    } else {
        watched(py, &monitor, reporter.as_ref(), job)
    };
    if let Some(r) = &reporter {
        // The last lines are reported even when the job failed; the job's error
        // (or Ctrl-C) takes precedence over the reporter's.
        let reported = r.update(py, &monitor, true);
        let value = outcome?;
        reported?;
        return Ok(value);
    }
    outcome
}

/// Run `job` on a scoped thread, polling signals (and reporting) while it runs.
fn watched<T, F>(
    py: Python<'_>,
    monitor: &Monitor,
    reporter: Option<&Reporter>,
    job: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Monitor) -> pegasos_core::Result<T> + Send,
{
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = channel::<()>();
            let worker = scope.spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| job(monitor)));
                let _ = done_tx.send(());
                r
            });
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => {
                        let polled = Python::attach(|py| {
                            py.check_signals()?;
                            reporter.map_or(Ok(()), |r| r.update(py, monitor, false))
                        });
                        if let Err(err) = polled {
                            monitor.stop();
                            let _ = worker.join();
                            return Err(err);
                        }
                    }
                }
            }
            match worker.join() {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(payload)) | Err(payload) => Err(panicked(payload.as_ref())),
            }
        })
    });
    outcome?.map_err(|e| CoreError(e).into())
}

/// The object `pegasos_rs._progress.current()` returns while a progress bar or a
/// verbose report is active: it receives `update(done, total, objective, lines,
/// finished)`.
struct Reporter(Py<PyAny>);

impl Reporter {
    /// The reporter of the caller's context, if any.
    fn current(py: Python<'_>) -> PyResult<Option<Self>> {
        let current = py
            .import("pegasos_rs._progress")?
            .getattr("current")?
            .call0()?;
        Ok((!current.is_none()).then(|| Self(current.unbind())))
    }

    /// Hand the monitor's state to the reporter.
    fn update(&self, py: Python<'_>, monitor: &Monitor, finished: bool) -> PyResult<()> {
        let (done, total) = monitor.progress();
        let args = (
            done,
            total,
            monitor.objective(),
            monitor.take_lines(),
            finished,
        );
        self.0.bind(py).call_method1("update", args)?;
        Ok(())
    }
}

/// Run short `job` without the GIL (no signal polling; used for prediction).
pub fn detach<T, F>(py: Python<'_>, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> pegasos_core::Result<T> + Send,
{
    match py.detach(|| catch_unwind(AssertUnwindSafe(job))) {
        Ok(r) => r.map_err(|e| CoreError(e).into()),
        Err(payload) => Err(panicked(payload.as_ref())),
    }
}

/// The exception for a panic of the Rust code: a bug, or an input array changed by
/// another thread during the call (every index is checked, so that is where a
/// change of a CSR structure under the computation ends). It carries the panic's
/// message, on whichever thread (the caller's, or a pool worker's, which rayon
/// passes on to the caller) it happened.
fn panicked(payload: &(dyn Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    PyRuntimeError::new_err(format!(
        "internal error in pegasos-rs: {message} (an input array was modified by \
         another thread during the call, or this is a bug: please report it with this \
         message)"
    ))
}

/// Panic with `message` on a worker thread of the kept pool of `n_threads` threads,
/// through the path a fit takes (GIL released, watched by the calling thread). A
/// test hook: it checks that a panic's message reaches the Python exception.
#[pyfunction]
#[pyo3(signature = (message, *, n_threads))]
pub fn panic_in_worker(py: Python<'_>, message: String, n_threads: usize) -> PyResult<()> {
    detach_interruptible(py, false, |_| {
        pegasos_core::parallel::for_each_problem(vec![(); 2], n_threads, |p, ()| {
            assert!(p == 0, "{message}");
            Ok(())
        })
        .map(drop)
    })
}
