"""Helpers for tests that run in a child process and interrupt themselves
(tests/test_interrupts.py). Importing this module restores Python's SIGINT handler:
a shell starts background jobs with SIGINT ignored, and Python keeps it ignored.

Nothing here sleeps a fixed time or measures a rate: the interruption is armed by an
event (the main thread calling the extension function), and the checks afterwards
wait for a condition with a deadline.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time

signal.signal(signal.SIGINT, signal.default_int_handler)


def _watch(name: str, entered: threading.Event, ended: list[str]):
    """A profile function setting ``entered`` when the extension function ``name``
    is called, and appending to ``ended`` how that call ended (``"c_return"`` or
    ``"c_exception"``; then it removes itself)."""

    def profile(frame, event, arg):
        if getattr(arg, "__name__", None) != name:
            return
        if event == "c_call":
            entered.set()
        elif event in ("c_return", "c_exception"):
            sys.setprofile(None)
            ended.append(event)

    return profile


def interrupted(call, name: str) -> float:
    """Run ``call()`` on the main thread, send this process SIGINT once the
    extension function ``name`` is entered and a thread other than the main one
    computes (so that the signal lands in the work, not before it), and return the
    seconds from the signal to the ``KeyboardInterrupt`` the call raised.

    Fails unless the ``KeyboardInterrupt`` came out of ``name`` itself: a call that
    ended before the signal (too little work, or Ctrl-C not handled while it runs)
    fails even when the signal then lands in the Python code after it. The signal is
    sent by Python code on another thread while ``name`` runs, so a call that holds
    the GIL throughout fails too."""
    entered, ended, sent = threading.Event(), [], []
    main = threading.main_thread().native_id

    def kill():
        entered.wait()
        end = time.monotonic() + 10
        while not busy_threads(besides=main) and not ended and time.monotonic() < end:
            time.sleep(0.001)
        if not ended:
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)

    killer = threading.Thread(target=kill, daemon=True)
    killer.start()
    sys.setprofile(_watch(name, entered, ended))
    try:
        call()
    except KeyboardInterrupt:
        if ended != ["c_exception"]:
            raise SystemExit(f"{name} ended ({ended}) before the KeyboardInterrupt") from None
        return time.perf_counter() - sent[0]
    finally:
        sys.setprofile(None)
        entered.set()  # a call that never entered `name`: the killer sends nothing
        killer.join()
    raise SystemExit(f"{name} was not interrupted ({ended})")


class _Stop(Exception):
    """Raised by :class:`_StopOnce` into the call it watches."""


class _StopOnce:
    """A progress reporter (``pegasos_rs._progress``) raising :class:`_Stop` into
    the running call at its first update after ``ran`` is set."""

    def __init__(self, ran: threading.Event) -> None:
        self.ran = ran

    def update(self, done, total, objective, lines, finished) -> None:
        if self.ran.is_set() and not finished:
            raise _Stop

    def close(self) -> None:
        pass


def runs_without_the_gil(call, name: str) -> bool:
    """Whether this thread runs Python while ``call()`` runs the extension
    function ``name`` on another thread.

    Once ``name`` is entered and another thread computes while this one runs Python
    (so without the GIL), this thread sets an event; a progress reporter active for
    the call stops it, raising into it, at its first update after the event is set.
    The extension updates the reporter only while the call runs, from the thread
    waiting for the work with the GIL released between updates: the call is stopped
    (True) only if this thread ran Python while the call ran. A call that holds the
    GIL throughout returns normally (False), whatever its length; ``call`` must run
    until stopped (a fit of many passes, a large input)."""
    from pegasos_rs import _progress

    entered, ended, ran = threading.Event(), [], threading.Event()
    outcome: list = []

    def work():
        sys.setprofile(_watch(name, entered, ended))
        try:
            with _progress.reporting(_StopOnce(ran)):
                call()
            outcome.append("returned")
        except _Stop:
            outcome.append("stopped")
        except BaseException as e:  # reported below
            outcome.append(e)
        finally:
            sys.setprofile(None)
            entered.set()  # a call that never entered `name`: do not wait

    worker = threading.Thread(target=work)
    worker.start()
    entered.wait()
    end = time.monotonic() + 10
    while not busy_threads() and not ended and time.monotonic() < end:
        time.sleep(0.001)
    ran.set()
    worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome == ["stopped"] and ended == ["c_exception"]


def busy_threads(besides: int | None = None) -> list[str]:
    """Threads of this process, other than the calling one (and ``besides``), that
    are running now."""
    skip = {threading.get_native_id(), besides}
    busy = []
    for tid in os.listdir("/proc/self/task"):
        if int(tid) in skip:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:  # ended meanwhile
            continue
        name, state = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2]
        if state == "R":
            busy.append(name)
    return busy


def wait_until_quiet(deadline: float = 10.0) -> None:
    """Wait until no other thread of this process runs (pool threads may spin a
    moment before they sleep); fail naming the busy ones after ``deadline`` s."""
    end = time.monotonic() + deadline
    quiet = 0
    while True:
        busy = busy_threads()
        quiet = quiet + 1 if not busy else 0
        if quiet >= 5:
            return
        if time.monotonic() > end:
            raise SystemExit(f"threads still running after the interrupt: {busy}")
        time.sleep(0.01)


def snapshot(est) -> bytes:
    """Everything the estimator holds, as bytes."""
    return pickle.dumps(dict(vars(est)))
