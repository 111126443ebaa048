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


def _on_call(name: str, entered: threading.Event):
    """A profile function setting ``entered`` when the extension function ``name``
    is called (and removing itself)."""

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", None) == name:
            sys.setprofile(None)
            entered.set()

    return profile


def interrupted(call, name: str) -> float:
    """Run ``call()`` on the main thread, send this process SIGINT once the
    extension function ``name`` is entered and a thread other than the main one
    computes (so that the signal lands in the work, not before it), and return the
    seconds from the signal to the ``KeyboardInterrupt`` the call raised. Fails if
    it was not raised."""
    entered, sent = threading.Event(), []
    main = threading.main_thread().native_id

    def kill():
        entered.wait()
        end = time.monotonic() + 10
        while not busy_threads(besides=main) and time.monotonic() < end:
            time.sleep(0.001)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=kill, daemon=True).start()
    sys.setprofile(_on_call(name, entered))
    try:
        call()
    except KeyboardInterrupt:
        return time.perf_counter() - sent[0]
    finally:
        sys.setprofile(None)
    raise SystemExit(f"{name} was not interrupted")


def runs_without_the_gil(call, name: str) -> bool:
    """Run ``call()`` on another thread; once it has entered the extension function
    ``name``, report whether this thread got to run Python before the call returned.
    With the GIL held for the whole call, it could not (the answer is False)."""
    entered, done = threading.Event(), threading.Event()
    errors = []

    def work():
        sys.setprofile(_on_call(name, entered))
        try:
            call()
        except BaseException as e:  # reported below
            errors.append(e)
        finally:
            sys.setprofile(None)
            done.set()  # before `entered`: a call that never entered reads as held
            entered.set()

    t = threading.Thread(target=work)
    t.start()
    entered.wait()
    free = not done.is_set()  # this line runs Python, so it needs the GIL
    t.join()
    if errors:
        raise errors[0]
    return free


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
