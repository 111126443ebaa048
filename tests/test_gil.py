"""Training runs without the GIL, and Ctrl-C interrupts it promptly."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from pegasos_rs import PegasosClassifier


def _count_for(seconds: float) -> int:
    n = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        n += 1
    return n


def _long_problem():
    rng = np.random.RandomState(0)
    X = rng.randn(20000, 200)
    y = (X[:, 0] + 0.5 * rng.randn(20000) > 0).astype(int)
    return X, y


def test_gil_is_released_during_fit():
    X, y = _long_problem()
    # Calibrate: passes that take about a second on this machine.
    t0 = time.perf_counter()
    PegasosClassifier(max_iter=2, random_state=0).fit(X, y)
    per_pass = (time.perf_counter() - t0) / 2
    max_iter = max(2, int(1.0 / per_pass))

    baseline_rate = _count_for(0.3) / 0.3

    done = threading.Event()
    errors = []

    def work():
        try:
            PegasosClassifier(max_iter=max_iter, random_state=0).fit(X, y)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            done.set()

    thread = threading.Thread(target=work)
    count = 0
    start = time.perf_counter()
    thread.start()
    while not done.is_set():
        count += 1
    elapsed = time.perf_counter() - start
    thread.join()
    assert not errors, errors
    assert elapsed > 0.3, f"the fit was too short to measure ({elapsed:.2f}s)"
    rate = count / elapsed
    # With the GIL held the main thread would stall for the whole fit (rate ~ 0).
    # Released, it keeps running; allow for sharing cores with the solver.
    assert rate > 0.25 * baseline_rate, (rate, baseline_rate, elapsed)


def test_other_python_threads_run_during_multithreaded_fit():
    X, y = _long_problem()
    y = np.arange(len(y)) % 3
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.01)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        start = time.perf_counter()
        PegasosClassifier(max_iter=40, n_jobs=2, random_state=0).fit(X, y)
        end = time.perf_counter()
    finally:
        stop.set()
        t.join()
    during = [s for s in ticks if start <= s <= end]
    if end - start < 0.2:
        pytest.skip("fit too short to measure")
    # A tick every 10 ms: at least a third of the expected ticks must have happened.
    assert len(during) >= (end - start) / 0.01 / 3, (len(during), end - start)


_INTERRUPTED_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from pegasos_rs import KernelPegasosClassifier, PegasosClassifier
    rng = np.random.RandomState(0)
    X = rng.randn(20000, 200)
    y = {labels}
    print("ready", flush=True)
    {estimator}(max_iter=10**6, random_state=0, n_jobs={n_jobs}).fit(X, y)
    print("finished", flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX-only")
@pytest.mark.parametrize(
    "estimator, labels, n_jobs",
    [
        ("PegasosClassifier", "(X[:, 0] > 0).astype(int)", 1),
        ("PegasosClassifier", "np.arange(20000) % 3", 2),
        ("KernelPegasosClassifier", "(X[:, 0] > 0).astype(int)", 1),
        ("KernelPegasosClassifier", "np.arange(20000) % 3", 2),
    ],
    ids=["linear-binary", "linear-multiclass-2-threads", "kernel-binary", "kernel-multiclass"],
)
def test_ctrl_c_interrupts_a_long_fit(estimator, labels, n_jobs):
    code = _INTERRUPTED_SCRIPT.format(estimator=estimator, labels=labels, n_jobs=n_jobs)
    _assert_ctrl_c_interrupts(code)


def _assert_ctrl_c_interrupts(code: str) -> None:
    """Run ``code`` (which prints "ready" before a long job and "finished" after it)
    in a child, send SIGINT one second into the job, and check it stops promptly with
    KeyboardInterrupt."""
    # A shell starts background jobs with SIGINT ignored, and Python then keeps it
    # ignored: restore Python's handler so the test does not depend on its launcher.
    prologue = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", prologue + code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # well inside the job (it would take much longer)
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert waited < 5.0, waited
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert "finished" not in out
    assert proc.returncode != 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX-only")
def test_ctrl_c_interrupts_a_long_feature_map_fit():
    code = textwrap.dedent(
        """
        import numpy as np
        from pegasos_rs import Nystroem
        X = np.random.RandomState(0).rand(100000, 100)
        print("ready", flush=True)
        Nystroem(n_components=5000, landmarks="k-means++", n_jobs=2).fit(X)
        print("finished", flush=True)
        """
    )
    _assert_ctrl_c_interrupts(code)
