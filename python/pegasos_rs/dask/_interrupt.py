"""Ctrl-C during a distributed fit.

Python delivers SIGINT as ``KeyboardInterrupt`` wherever the main thread happens
to be, finalizers included: raised inside a dask ``Future.__del__`` it is printed
as "Exception ignored" and lost, and the fit runs on. So while a fit runs, the
first Ctrl-C only sets a flag; the fit looks at it at safe points (between rounds,
and every 0.1 s while it waits for the cluster) and raises ``KeyboardInterrupt``
there, after which the fit releases its futures and leaves the cluster as it was.
A second Ctrl-C raises at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading

#: How often a wait for the cluster looks at the flag.
_POLL = 0.1


class CtrlC:
    """The flag of one fit, and waits that honour it."""

    def __init__(self) -> None:
        self.pressed = threading.Event()

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed."""
        if self.pressed.is_set():
            raise KeyboardInterrupt

    def gather(self, client, futures):
        """``client.gather(futures)``, stopping within ``_POLL`` of Ctrl-C."""
        left = [len(futures)]
        lock, finished = threading.Lock(), threading.Event()

        def one_done(_future) -> None:
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    finished.set()

        if not futures:
            finished.set()
        for f in futures:
            f.add_done_callback(one_done)  # runs on the client's thread pool
        while not finished.wait(_POLL):
            self.check()
        self.check()
        return client.gather(futures)


@contextlib.contextmanager
def deferred_ctrl_c():
    """Yield a :class:`CtrlC` whose flag Ctrl-C sets for the duration (when Python's
    default handler is in place and this is the main thread; else the flag stays
    down and Ctrl-C behaves as usual)."""
    watcher = CtrlC()
    install = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if not install:
        yield watcher
        return

    def handler(signum, frame):
        if watcher.pressed.is_set():
            raise KeyboardInterrupt  # pressed twice: stop wherever we are
        watcher.pressed.set()

    signal.signal(signal.SIGINT, handler)
    try:
        yield watcher
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
