"""Progress of long calls: verbose reports and progress bars.

The extension asks :func:`current` at the start of every long call (a fit, a
prediction, a transform, parsing a file). While a reporter is active in the
caller's context (:func:`reporting`), it calls, from the calling thread,
``reporter.update(done, total, objective, lines, finished)`` about every 50 ms
while the call runs and once when it ends:

* ``done`` / ``total``: units of work of this call (steps of a fit, rows of a
  prediction or transform, bytes of a parse); ``total`` is 0 when not known;
* ``objective``: the last primal objective the solver evaluated, or ``None``;
* ``lines``: the verbose lines the solver wrote since the last update (one per
  pass when ``verbose`` is set);
* ``finished``: whether the call has ended.

Nothing is written by Rust to the process' file descriptors: the reporters below
write to :data:`sys.stderr` as it is at the moment of writing, so
:func:`contextlib.redirect_stderr` captures the output. A reporter is per context
(:mod:`contextvars`): threads and asyncio tasks each have their own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import sys
import time
from collections.abc import Callable, Iterator
from typing import Protocol, cast

from pegasos_rs._typing import F

#: Seconds between two in-pass progress lines of a verbose report.
REPORT_EVERY = 2.0

_CURRENT: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar(
    "pegasos_rs_reporter", default=None
)


class Reporter(Protocol):
    """What the extension calls while a long call runs (see the module doc)."""

    def update(
        self,
        done: int,
        total: int,
        objective: float | None,
        lines: list[str],
        finished: bool,
    ) -> None: ...

    def close(self) -> None: ...


def current() -> Reporter | None:
    """The reporter active in this context, if any (called by the extension)."""
    return _CURRENT.get()


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[Reporter | None]:
    """Make ``reporter`` receive the progress of the long calls made in the block;
    it is closed at the end. ``None``: leave the current reporter in place."""
    if reporter is None:
        yield None
        return
    token = _CURRENT.set(reporter)
    try:
        yield reporter
    finally:
        _CURRENT.reset(token)
        reporter.close()


class VerboseReport:
    """The ``verbose`` output of an estimator: the solver's lines (one per pass),
    and during a long call a progress line at least every :data:`REPORT_EVERY`
    seconds in which nothing else was written, written to :data:`sys.stderr`.

    Parameters
    ----------
    what : str
        Prefix of the lines, e.g. ``"PegasosClassifier.fit"``.
    unit : str
        Name of the units of work counted (``"steps"``, ``"rows"``, ``"bytes"``).
    """

    def __init__(self, what: str, unit: str) -> None:
        self.what = what
        self.unit = unit
        self.started = time.perf_counter()
        self.last_write = self.started

    def write(self, line: str) -> None:
        """Write one line of the report."""
        print(f"[{self.what}] {line}", file=sys.stderr, flush=True)
        self.last_write = time.perf_counter()

    def update(
        self,
        done: int,
        total: int,
        objective: float | None,
        lines: list[str],
        finished: bool,
    ) -> None:
        """Write the solver's lines, or a progress line when none came for a while."""
        for line in lines:
            self.write(line)
        now = time.perf_counter()
        if finished or total <= 0 or now - self.last_write < REPORT_EVERY:
            return
        share = f" ({100.0 * done / total:.0f}%)"
        obj = "" if objective is None else f", last objective {objective:.6e}"
        self.write(f"{done:,}/{total:,} {self.unit}{share}{obj}, {now - self.started:.1f}s elapsed")

    def close(self) -> None:
        """Nothing to release."""


def verbose_report(verbose, what: str, unit: str) -> VerboseReport | None:
    """A :class:`VerboseReport` when ``verbose`` is set, else ``None``."""
    return VerboseReport(what, unit) if verbose else None


class ProgressBar:
    """A terminal progress bar (:mod:`tqdm`) over the long calls of a block.

    The units of consecutive calls add up (reading several files, then parsing
    them, is one bar). The solver's verbose lines are printed above the bar.

    Parameters
    ----------
    desc : str
        Label of the bar.
    unit : str
        Units counted; ``"B"`` shows bytes with SI prefixes and bytes/s.
    """

    def __init__(self, desc: str, unit: str) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            desc=desc,
            unit=unit,
            unit_scale=unit == "B",
            unit_divisor=1024 if unit == "B" else 1000,
            file=sys.stderr,
            dynamic_ncols=True,
            mininterval=0.2,
            leave=False,
        )
        self.base_done = 0
        self.base_total = 0
        self.last_refresh = 0.0

    def update(
        self,
        done: int,
        total: int,
        objective: float | None,
        lines: list[str],
        finished: bool,
    ) -> None:
        """Move the bar to ``done`` of ``total`` (after the earlier calls' units)."""
        for line in lines:
            self.bar.write(line, file=sys.stderr)
        if total > 0:
            self.bar.total = self.base_total + total
        self.bar.n = self.base_done + done
        if objective is not None:
            self.bar.set_postfix_str(f"objective {objective:.4e}", refresh=False)
        now = time.perf_counter()
        if finished or now - self.last_refresh >= 0.2:
            self.bar.refresh()  # at least every 0.2 s while a call runs
            self.last_refresh = now
        if finished:
            self.base_done += done if total <= 0 else total
            self.base_total += total

    def close(self) -> None:
        """Remove the bar from the terminal."""
        self.bar.close()


def reported(unit: str, name: str | None = None) -> Callable[[F], F]:
    """Decorate an estimator method so that, when the estimator's ``verbose`` is
    set, its long calls report on :data:`sys.stderr` (:class:`VerboseReport`,
    prefixed ``Class.method``, or ``Class.name`` when given, counting ``unit``).
    The one way estimators install their verbose report."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            what = f"{type(self).__name__}.{name or method.__name__}"
            with reporting(verbose_report(getattr(self, "verbose", 0), what, unit)):
                return method(self, *args, **kwargs)

        return cast("F", wrapper)

    return decorate
