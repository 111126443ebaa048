"""Several Python threads calling the library at once (issue 14): fits of different
estimators and predictions with one shared estimator give the bytes of serial calls,
with no deadlock between the GIL, the thread pools and the Ctrl-C watcher; and an
input modified by another thread during a call gives an exception or some numbers,
never a crash.

A process forked after parallel calls (``os.fork``, ``multiprocessing``'s default
on Linux before Python 3.14) runs parallel calls of its own. A panic of the Rust code
on any thread reaches Python as a ``RuntimeError`` with its message.

Deadlocks are caught by waiting on the futures with a deadline, not by timing.
"""

from __future__ import annotations

import os
import pickle
import select
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import (
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
    _core,
    dump_svmlight_file,
    load_svmlight_file,
)

THREADS = 4
#: Seconds to wait for all threads: far beyond the serial time of the work, so that
#: only a deadlock exceeds it.
DEADLINE = 300


def _data(seed: int, n: int = 3000, d: int = 60):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) > 0.3] = 0.0
    y = np.argmax(X @ rng.randn(d, 3), axis=1)
    return X, sp.csr_matrix(X), y


def _fingerprint(est) -> bytes:
    """The bytes of a fitted model's learned values."""
    parts = []
    for name in ("coef_", "intercept_", "dual_coef_", "components_", "normalization_"):
        value = getattr(est, name, None)
        if value is not None:
            parts.append(np.asarray(value.toarray() if sp.issparse(value) else value).tobytes())
    return b"".join(parts)


def _fits():
    """Different fits: (estimator factory, X, y)."""
    Xd, Xs, y = _data(0)
    Xd1, Xs1, y1 = _data(1)
    return [
        (lambda: PegasosClassifier(random_state=0, max_iter=20, n_jobs=2), Xd, y),
        (lambda: PegasosClassifier(random_state=1, max_iter=20, n_jobs=2, average=True), Xs, y),
        (lambda: PegasosClassifier(random_state=2, max_iter=30, n_jobs=1), Xs1, y1 % 2),
        (
            lambda: KernelPegasosClassifier(random_state=0, max_iter=2, n_jobs=2),
            Xd1[:1500],
            y1[:1500],
        ),
        (
            lambda: KernelPegasosClassifier(random_state=0, max_iter=2, n_jobs=2),
            Xs[:1500],
            y[:1500],
        ),
        (lambda: Nystroem(n_components=300, random_state=0, n_jobs=2), Xd, None),
        (lambda: RandomFourierFeatures(n_components=500, random_state=0, n_jobs=2), Xs, None),
    ]


def test_threads_fitting_different_estimators_match_serial_fits():
    cases = _fits()
    serial = [_fingerprint(make().fit(X, y)) for make, X, y in cases]
    # Every case three times, interleaved over four threads.
    jobs = [i for _ in range(3) for i in range(len(cases))]
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [
            (i, pool.submit(lambda i=i: cases[i][0]().fit(cases[i][1], cases[i][2]))) for i in jobs
        ]
        for i, f in futures:
            assert _fingerprint(f.result(timeout=DEADLINE)) == serial[i], i


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_threads_predicting_with_one_shared_estimator_match_serial_calls(sparse):
    Xd, Xs, y = _data(2, n=6000)
    X = Xs if sparse else Xd
    linear = PegasosClassifier(random_state=0, max_iter=5, n_jobs=2).fit(X, y)
    kernel = KernelPegasosClassifier(random_state=0, max_iter=1, n_jobs=2).fit(X[:1500], y[:1500])
    nystroem = Nystroem(n_components=200, random_state=0, n_jobs=2).fit(X)
    calls = [
        lambda part: linear.decision_function(part),
        lambda part: linear.predict(part),
        lambda part: kernel.decision_function(part),
        lambda part: nystroem.transform(part),
    ]
    parts = [X[i::5] for i in range(5)]
    serial = {(c, p): calls[c](parts[p]) for c in range(len(calls)) for p in range(len(parts))}
    keys = [k for _ in range(3) for k in serial]
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [(k, pool.submit(calls[k[0]], parts[k[1]])) for k in keys]
        for k, f in futures:
            got = f.result(timeout=DEADLINE)
            assert got.tobytes() == serial[k].tobytes() and got.shape == serial[k].shape, k


@pytest.mark.skipif(sys.platform != "linux", reason="a crash of a child is read from its exit code")
def test_an_input_modified_during_a_call_raises_or_returns_never_crashes():
    """Arrays are borrowed without copies while the GIL is released, so another
    thread can change them mid-call. Every index is checked: the worst outcome is an
    exception or wrong numbers. The extension is called directly (scipy's own
    routines trust a CSR structure and may crash on one changed under them), in a
    child so that a crash fails the test."""
    code = textwrap.dedent(
        """
        import threading
        import numpy as np, scipy.sparse as sp
        from pegasos_rs import PegasosClassifier, _core
        X = sp.random(20000, 500, density=0.02, format="csr", random_state=0)
        s = np.asarray(X.sum(axis=1)).ravel()
        y = (s > np.median(s)).astype(int)
        lin = PegasosClassifier(random_state=0, max_iter=2, n_jobs=2).fit(X, y)
        data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
        matrix = (data, indices, indptr, X.shape[0], X.shape[1])
        sv = (data[: indptr[300]], indices[: indptr[300]], indptr[:301].copy(), 300, 500)
        params = lin._solver_params(False, 1, None)
        codes = y.astype(np.uint32)
        ones = np.ones(2)
        kernel = dict(kernel=dict(kernel_name="rbf", gamma=1.0, degree=3, coef0=0.0),
                      n_threads=2)
        labels = dict(n_classes=2, class_weight=ones, sample_weight=None)
        calls = [
            lambda: _core.decision_function(matrix, lin.coef_, lin.intercept_, 2),
            lambda: _core.fit_linear(matrix, codes, labels,
                                     _core.LinearSolverState(), params, 2),
            lambda: _core.kernel_decision(sv, matrix, np.ones((1, 300)), np.zeros(1),
                                          **kernel),
            lambda: _core.pairwise_kernel(matrix, sv, **kernel),
        ]
        stop = threading.Event()

        def vandal():
            r = np.random.RandomState(1)
            while not stop.is_set():
                k = r.randint(0, indices.size, 1000)
                indices[k] = r.randint(-5, 2000, 1000)  # also out of range
                p = r.randint(1, indptr.size, 10)
                indptr[p] = r.randint(-5, indices.size + 100, 10)
                data[r.randint(0, data.size, 100)] = np.nan

        t = threading.Thread(target=vandal)
        t.start()
        outcomes = {}
        for _ in range(30):
            for call in calls:
                try:
                    call()
                    outcome = "returned"
                except (ValueError, RuntimeError) as e:
                    outcome = type(e).__name__
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
        stop.set()
        t.join()
        print("outcomes", outcomes)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=os.environ
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "outcomes" in out.stdout
    print(out.stdout)


def _parallel_calls(svmlight_path) -> list[bytes]:
    """Every kind of parallel call (fits, a prediction, the svmlight reader), each
    on 2 threads, as bytes."""
    out = []
    for make, X, y in _fits():
        est = make().fit(X) if y is None else make().fit(X, y)
        out.append(_fingerprint(est))
        if y is not None:
            out.append(est.decision_function(X).tobytes())
    X, y = load_svmlight_file(svmlight_path, n_jobs=2)
    out += [X.data.tobytes(), y.tobytes()]
    return out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_runs_parallel_calls_after_the_parent_did(tmp_path):
    """The parent's kept thread pools exist in a forked child without their threads;
    the child must build its own instead of waiting on them forever."""
    Xd, _, y = _data(2, n=500)
    svm = tmp_path / "d.svm"
    dump_svmlight_file(Xd, y, svm)
    want = _parallel_calls(svm)  # the parent's pools are now built and kept
    read, write = os.pipe()
    with warnings.catch_warnings():
        # Python >= 3.12 warns that forking a process with threads may deadlock in
        # the child: what this test checks does not happen.
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: report, and never return into pytest
        status = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as f:
                pickle.dump(_parallel_calls(svm), f)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        ready, _, _ = select.select([f], [], [], DEADLINE)
        if not ready:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(f"the forked child did not answer in {DEADLINE} s: deadlocked")
        got = pickle.load(f)
    assert os.waitpid(pid, 0)[1] == 0
    assert got == want


@pytest.mark.parametrize("threads", [1, 2])
def test_a_panic_on_a_worker_thread_keeps_its_message(threads):
    with pytest.raises(RuntimeError, match=r"internal error in pegasos-rs: boom 42 \(.*report"):
        _core.panic_in_worker("boom 42", n_threads=threads)
