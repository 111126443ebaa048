"""Long calls release the GIL, stop promptly on Ctrl-C with ``KeyboardInterrupt`` and
leave no thread running, and a call that raises leaves the estimator exactly as it
was (issue 14).

Each case runs in a child process which interrupts itself (see ``child_harness``):
the SIGINT is sent when the main thread enters the extension function, and the
checks wait on events and conditions, never on fixed sleeps or measured rates. The
child prints the latency from the signal to the ``KeyboardInterrupt`` it caught;
``pytest -s`` shows them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGINT and /proc: Linux")

HERE = Path(__file__).resolve().parent

#: Latency bound asserted by the tests: generous for a loaded 2-core machine (the
#: figures measured are ~0.05 s: one polling period of the watcher).
LATENCY_BOUND = 2.0


def _run(body: str) -> list[tuple[str, float]]:
    """Run ``body`` in a child (with ``child_harness`` importable); it must exit 0.
    Returns the ``latency NAME SECONDS`` lines it printed."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    )
    prologue = "from child_harness import *\nimport numpy as np, scipy.sparse as sp\n"
    out = subprocess.run(
        [sys.executable, "-c", prologue + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line.split() for line in out.stdout.splitlines() if line.startswith("latency ")]
    latencies = [(name, float(value)) for _, name, value in lines]
    for name, value in latencies:
        print(f"Ctrl-C latency of {name}: {value * 1000:.0f} ms")
    return latencies


def _check(latencies, expected: int) -> None:
    assert len(latencies) == expected, latencies
    slow = [(n, v) for n, v in latencies if v > LATENCY_BOUND]
    assert not slow, slow


def test_long_calls_release_the_gil():
    out = _run(
        """
        from pegasos_rs import KernelPegasosClassifier, PegasosClassifier, pairwise_kernels
        # The check itself: a builtin holding the GIL throughout is not stopped.
        assert not runs_without_the_gil(lambda: sum(range(10**6)), "sum")
        rng = np.random.RandomState(0)
        X = rng.randn(20000, 200)
        y = (X[:, 0] > 0).astype(int)
        ker = KernelPegasosClassifier(max_iter=1, random_state=0).fit(X[:2000, :50], y[:2000])
        tall = np.tile(X[:, :50], (10, 1))
        cases = [
            (lambda: PegasosClassifier(max_iter=10**6, random_state=0).fit(X, y),
             "fit_linear"),
            (lambda: PegasosClassifier(max_iter=10**6, random_state=0, n_jobs=2)
                .fit(X, np.arange(20000) % 3), "fit_linear"),
            (lambda: pairwise_kernels(X, X[:3000], "rbf", gamma=1.0), "pairwise_kernel"),
            # 200,000 rows through ~1000 support vectors: seconds.
            (lambda: ker.decision_function(tall), "kernel_decision"),
        ]
        for call, name in cases:
            assert runs_without_the_gil(call, name), name
            wait_until_quiet()
        print("ok")
        """
    )
    assert out == []


def test_ctrl_c_stops_fits_promptly_and_leaves_no_thread_running():
    latencies = _run(
        """
        from pegasos_rs import KernelPegasosClassifier, Nystroem, PegasosClassifier
        rng = np.random.RandomState(0)
        X = rng.randn(20000, 200)
        y2, y3 = (X[:, 0] > 0).astype(int), np.arange(20000) % 3
        for est, y, name in [
            (PegasosClassifier(n_jobs=1), y2, "fit_linear"),
            (PegasosClassifier(n_jobs=2), y3, "fit_linear"),
            (KernelPegasosClassifier(n_jobs=1), y2, "fit_kernel"),
            (KernelPegasosClassifier(n_jobs=2), y3, "fit_kernel"),
        ]:
            est.set_params(max_iter=10**6, random_state=0)
            print("latency", name, interrupted(lambda: est.fit(X, y), name))
            wait_until_quiet()
        nys = Nystroem(n_components=5000, landmarks="k-means++", n_jobs=2)
        Xn = rng.rand(100000, 100)
        print("latency nystroem_fit", interrupted(lambda: nys.fit(Xn), "nystroem_fit"))
        wait_until_quiet()
        """
    )
    _check(latencies, 5)


def test_ctrl_c_stops_predictions_kernels_and_maps():
    latencies = _run(
        """
        from pegasos_rs import (AdditiveKernelMap, KernelPegasosClassifier, Nystroem,
                                PegasosClassifier, RandomFourierFeatures, pairwise_kernels)
        rng = np.random.RandomState(0)
        small = rng.randn(3000, 50)
        ker = KernelPegasosClassifier(max_iter=1, random_state=0, n_jobs=2)
        ker.fit(small, (small[:, 0] > 0).astype(int))
        big = rng.randn(200000, 50)
        # An rbf prediction through ~1000 support vectors: tens of seconds.
        print("latency kernel_decision",
              interrupted(lambda: ker.predict(big), "kernel_decision"))
        wait_until_quiet()
        wide = rng.randn(40000, 300)
        lin = PegasosClassifier(max_iter=1, random_state=0, n_jobs=2)
        lin.fit(wide[:3000], np.arange(3000) % 60)
        calls = [
            (lambda: lin.decision_function(np.tile(wide, (3, 1))), "decision_function"),
            (lambda: pairwise_kernels(wide, wide[:2000], "rbf", gamma=1.0, n_jobs=2),
             "pairwise_kernel"),
            (lambda: RandomFourierFeatures(n_components=3000, random_state=0)
                .fit(wide).transform(wide), "fourier_features"),
            (lambda: Nystroem(n_components=4000, random_state=0).fit(wide[:20000]),
             "nystroem_fit"),
        ]
        nys = Nystroem(n_components=2000, random_state=0, n_jobs=2).fit(wide[:5000])
        calls.append((lambda: nys.transform(wide), "nystroem_features"))
        positive = np.abs(rng.randn(40000, 1000))
        add = AdditiveKernelMap(order=2).fit(positive)
        calls.append((lambda: add.transform(positive), "additive_features"))
        for call, name in calls:
            print("latency", name, interrupted(call, name))
            wait_until_quiet()
        """
    )
    _check(latencies, 7)


def test_ctrl_c_stops_reading_and_writing_svmlight_files(tmp_path):
    path = tmp_path / "big.svm"
    latencies = _run(
        f"""
        from pegasos_rs import dump_svmlight_file, load_svmlight_file
        X = sp.random(300000, 1000, density=0.02, format="csr", random_state=0)
        y = np.arange(X.shape[0]) % 2
        for n_jobs in (1, 2):
            dump = lambda: dump_svmlight_file(X, y, {str(path)!r}, n_jobs=n_jobs)
            print("latency format_svmlight", interrupted(dump, "format_svmlight"))
            wait_until_quiet()
        dump_svmlight_file(X[:100000], y[:100000], {str(path)!r})
        for n_jobs in (1, 2):
            load = lambda: load_svmlight_file({str(path)!r}, n_jobs=n_jobs)
            print("latency parse_svmlight", interrupted(load, "parse_svmlight"))
            wait_until_quiet()
        """
    )
    _check(latencies, 4)


def test_ctrl_c_stops_the_cross_validation_of_the_command_line(tmp_path):
    path = tmp_path / "train.svm"
    latencies = _run(
        f"""
        from pegasos_rs import dump_svmlight_file
        from pegasos_rs.cli import main
        rng = np.random.RandomState(0)
        X = rng.randn(20000, 100)
        dump_svmlight_file(X, (X[:, 0] > 0).astype(int), {str(path)!r})
        run = lambda: main(["train", "-v", "5", "--passes", "100000", {str(path)!r}])
        print("latency cross-validation", interrupted(run, "fit_linear"))
        wait_until_quiet()
        """
    )
    _check(latencies, 1)


def test_an_interrupted_warm_start_leaves_the_estimator_as_it_was():
    latencies = _run(
        """
        from pegasos_rs import PegasosClassifier
        rng = np.random.RandomState(0)
        X = rng.randn(20000, 200)
        y = np.arange(20000) % 3
        kw = dict(random_state=0, warm_start=True, n_jobs=2)
        est = PegasosClassifier(max_iter=2, **kw).fit(X, y)
        est.set_params(max_iter=10**6)
        before = snapshot(est)
        print("latency fit_linear", interrupted(lambda: est.fit(X, y), "fit_linear"))
        assert snapshot(est) == before
        # The next fit continues from the state before the interrupted one: the same
        # bytes as a run that was never interrupted.
        est.set_params(max_iter=3).fit(X, y)
        ref = PegasosClassifier(max_iter=2, **kw).fit(X, y)
        ref.set_params(max_iter=3).fit(X, y)
        assert est.coef_.tobytes() == ref.coef_.tobytes() and est.t_ == ref.t_
        assert est._solver.__getstate__() == ref._solver.__getstate__()
        # The same for partial_fit.
        big, y_big = np.repeat(X, 50, axis=0), np.tile(y, 50)
        before = snapshot(est)
        print("latency partial_fit",
              interrupted(lambda: est.partial_fit(big, y_big), "fit_linear"))
        assert snapshot(est) == before
        est.partial_fit(X, y)
        ref.partial_fit(X, y)
        assert est.coef_.tobytes() == ref.coef_.tobytes()
        """
    )
    _check(latencies, 2)


def test_an_interrupted_refit_keeps_the_previous_fit_of_every_estimator():
    latencies = _run(
        """
        from pegasos_rs import KernelPegasosClassifier, Nystroem
        rng = np.random.RandomState(0)
        small, big = rng.randn(300, 20), rng.randn(20000, 30)
        for est, name, y_small, y_big in [
            (KernelPegasosClassifier(random_state=0, max_iter=1), "fit_kernel",
             np.arange(300) % 2, np.arange(20000) % 2),
            (Nystroem(n_components=3000, landmarks="k-means++", random_state=0),
             "nystroem_fit", None, None),
        ]:
            est.fit(small, y_small)
            if y_small is not None:
                est.set_params(max_iter=10**4)
            before = snapshot(est)
            print("latency", name, interrupted(lambda: est.fit(big, y_big), name))
            assert snapshot(est) == before, name
            assert est.n_features_in_ == 20
        """
    )
    _check(latencies, 2)
