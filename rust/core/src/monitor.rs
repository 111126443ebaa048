//! What a long call tells its caller while it runs, and how the caller stops it.
//!
//! Every long computation of this crate takes a [`Monitor`]. It reads the stop
//! flag between blocks of work (rows, steps, bytes) and returns
//! [`Error::Interrupted`] once it is set; it counts the units of work done against
//! a total, so a caller on another thread can draw a progress bar; and, when the
//! caller asked for them ([`Monitor::with_lines`]), it keeps the lines of the
//! verbose report (one per pass of a solver) for the caller to print where its
//! user looks (the Python binding writes them to `sys.stderr`).
//!
//! The counters are relaxed atomics, advanced once per block (thousands of steps or
//! tens of rows), so reporting costs nothing measurable and never changes a result.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::error::{Error, Result};

/// Stop flag, progress counters and verbose lines of one call.
#[derive(Debug)]
pub struct Monitor {
    stop: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
    /// Bits of the latest objective; `u64::MAX` (a NaN) when there is none.
    objective: AtomicU64,
    keep_lines: bool,
    echo: bool,
    lines: Mutex<Vec<String>>,
}

impl Default for Monitor {
    fn default() -> Self {
        Self::new()
    }
}

impl Monitor {
    /// A monitor that is not stopped, counts progress and drops verbose lines.
    pub fn new() -> Self {
        Self {
            stop: AtomicBool::new(false),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            objective: AtomicU64::new(u64::MAX),
            keep_lines: false,
            echo: false,
            lines: Mutex::new(Vec::new()),
        }
    }

    /// A monitor already stopped: the call returns [`Error::Interrupted`] at its
    /// first check.
    pub fn stopped() -> Self {
        let m = Self::new();
        m.stop();
        m
    }

    /// Keep the verbose lines for [`Monitor::take_lines`].
    #[must_use]
    pub fn with_lines(mut self) -> Self {
        self.keep_lines = true;
        self
    }

    /// Print the verbose lines to stderr as they come (for Rust programs).
    #[must_use]
    pub fn with_stderr(mut self) -> Self {
        self.echo = true;
        self
    }

    /// Ask the call to stop at its next check.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether [`Monitor::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// [`Error::Interrupted`] once stopped.
    pub fn check(&self) -> Result<()> {
        if self.is_stopped() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }

    /// Announce `units` more units of work (steps, rows or bytes).
    pub fn add_total(&self, units: u64) {
        self.total.fetch_add(units, Ordering::Relaxed);
    }

    /// Count `units` units of work as done.
    pub fn advance(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }

    /// Units done and announced so far.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Record the latest value of the objective (shown beside a progress bar).
    pub fn set_objective(&self, value: f64) {
        self.objective.store(value.to_bits(), Ordering::Relaxed);
    }

    /// The latest objective recorded, if any.
    pub fn objective(&self) -> Option<f64> {
        let v = f64::from_bits(self.objective.load(Ordering::Relaxed));
        (!v.is_nan()).then_some(v)
    }

    /// Whether verbose lines are wanted (kept or printed); callers skip formatting
    /// them otherwise.
    pub fn wants_lines(&self) -> bool {
        self.keep_lines || self.echo
    }

    /// Add one line to the verbose report (formatted only if it is wanted).
    pub fn say(&self, line: impl FnOnce() -> String) {
        if !self.wants_lines() {
            return;
        }
        let line = line();
        if self.echo {
            eprintln!("{line}");
        }
        if self.keep_lines {
            // A panic elsewhere while the lock was held leaves the list valid.
            self.lines
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(line);
        }
    }

    /// The verbose lines added since the last call, oldest first.
    pub fn take_lines(&self) -> Vec<String> {
        if !self.keep_lines {
            return Vec::new();
        }
        std::mem::take(&mut *self.lines.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_and_stop() {
        let m = Monitor::new().with_lines();
        assert!(m.check().is_ok());
        assert_eq!(m.objective(), None);
        m.add_total(10);
        m.advance(4);
        m.set_objective(0.5);
        m.say(|| "pass 1".into());
        assert_eq!(m.progress(), (4, 10));
        assert_eq!(m.objective(), Some(0.5));
        assert_eq!(m.take_lines(), vec!["pass 1".to_string()]);
        assert!(m.take_lines().is_empty());
        m.stop();
        assert!(matches!(m.check(), Err(Error::Interrupted)));
        assert!(Monitor::stopped().is_stopped());
    }

    #[test]
    fn lines_are_not_formatted_unless_wanted() {
        let m = Monitor::new();
        m.say(|| unreachable!("formatted although nobody reads it"));
        assert!(m.take_lines().is_empty());
    }
}
