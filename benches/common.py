"""Helpers shared by the benchmarks: one thread, timing, the primal objective,
peak-memory measurement in a fresh process, the datasets of a run.

Import this module before numpy / scipy / scikit-learn: it pins the BLAS and OpenMP
pools to one thread through the environment (``threadpoolctl`` limits are applied
on top by :func:`single_thread`).
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "RAYON_NUM_THREADS",
):
    os.environ[_var] = "1"

import gc  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
#: Where the scripts write their reports, JSON files and figures: ``benches/results``,
#: or the folder ``$PEGASOS_BENCH_RESULTS`` names (the test suite's smoke runs write
#: under a temporary folder so, never into the checkout).
RESULTS_DIR = Path(os.environ.get("PEGASOS_BENCH_RESULTS") or BENCH_DIR / "results")
RESULTS_DIR.mkdir(parents=True, exist_ok=True)


class BenchmarkError(RuntimeError):
    """A measured result is absurd: the benchmark itself (or the code) is broken."""


def check(condition: bool, message: str) -> None:
    """Raise :class:`BenchmarkError` with ``message`` unless ``condition``."""
    if not condition:
        raise BenchmarkError(message)


def single_thread():
    """Context manager limiting every native thread pool (BLAS, OpenMP) to one."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


# --------------------------------------------------------------------------- timing

#: Whether :func:`collect` freezes what survives it (:func:`smoke_run`).
_FREEZE_SURVIVORS = False


def smoke_run() -> None:
    """Make this process's collections cheap, for a smoke run (``--smoke``): from now
    on the objects alive after each :func:`collect` are frozen (``gc.freeze``), so
    the next collection scans only what was allocated since. A full collection scans
    every object of the imported modules (numpy, scipy, scikit-learn, matplotlib:
    about 0.1 s), and a smoke run collects before each of its hundreds of tiny
    timings; what a smoke run checks does not depend on its timings."""
    global _FREEZE_SURVIVORS
    _FREEZE_SURVIVORS = True
    gc.freeze()


def collect() -> None:
    """The collection before a timing (``gc.collect``), so that no collection of
    earlier garbage falls into the timed run; in a smoke run (:func:`smoke_run`) the
    survivors are then frozen."""
    gc.collect()
    if _FREEZE_SURVIVORS:
        gc.freeze()


def time_once(fn: Callable[[], object]) -> tuple[float, object]:
    """``(wall time in seconds, result)`` of one call of ``fn()``."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def timeit(fn: Callable[[], object], repeats: int):
    """Median wall time (``time.perf_counter``) of ``fn()`` over ``repeats`` runs.

    Runs exactly ``max(1, repeats)`` times, however long a run takes: a median that
    decides a target must come from the runs a report says it has (an earlier rule
    stopped after 20 s, so "repeats 3" could mean one run).
    Returns ``(median_seconds, result_of_last_run, n_runs)``.
    """
    times = []
    result = None
    for _ in range(max(1, repeats)):
        collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result, len(times)


def median_runs(run: Callable[[], dict], repeats: int, first: dict | None = None) -> dict:
    """``run()`` -- one whole measurement: a dict of times (and other measured
    numbers) and ``acc`` -- ``max(1, repeats)`` times in all, ``first`` being a run
    already made: the median of each number over the runs, the accuracy (the same in
    every run, checked: every step is seeded), ``runs`` (their number) and
    ``seconds_of_runs`` when runs report ``seconds``."""
    results = ([] if first is None else [first]) + [
        run() for _ in range(max(1, repeats) - (first is not None))
    ]
    accs = {r["acc"] for r in results}
    check(len(accs) == 1, f"the repeats gave different test accuracies {sorted(accs)}")
    out = {k: float(statistics.median(r[k] for r in results)) for k in results[0] if k != "acc"}
    if "seconds" in results[0]:
        out["seconds_of_runs"] = [r["seconds"] for r in results]
    return {**out, "acc": results[0]["acc"], "runs": len(results)}


# ------------------------------------------------------------------------ objective


def as_int32_csr(X) -> sp.csr_matrix:
    """CSR float64 with int32 indices (scipy's default, what every solver reads
    without a conversion), sorted and without duplicates."""
    X = sp.csr_matrix(X, dtype=np.float64)
    if X.nnz < np.iinfo(np.int32).max:
        X.indices = X.indices.astype(np.int32, copy=False)
        X.indptr = X.indptr.astype(np.int32, copy=False)
    X.sum_duplicates()
    X.sort_indices()
    return X


def csr_nbytes(X) -> int:
    """Bytes of a CSR matrix's three arrays (data, indices, indptr), or of a dense
    array."""
    if not sp.issparse(X):
        return int(np.asarray(X).nbytes)
    return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)


def stored_values(X) -> int:
    """Values a pass over ``X`` reads: the non-zeros of a CSR matrix, every entry of a
    dense one."""
    return int(X.nnz) if sp.issparse(X) else int(np.asarray(X).size)


def stream_time(X, repeats: int = 5) -> float:
    """The streaming lower bound of one pass: the median time to read every stored
    value of ``X`` once (a sum over the values and, for CSR, the column indices),
    which is what one pass costs at the memory bandwidth of this machine."""
    if sp.issparse(X):
        parts = [X.data, X.indices]
    else:
        parts = [np.ascontiguousarray(X).ravel()]
    sink = []
    t, _, _ = timeit(lambda: sink.append(sum(float(np.add.reduce(a)) for a in parts)), repeats)
    return t


def one_vs_rest_targets(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The +-1 targets of each binary problem, shape (K, m).

    Two classes give K = 1 with ``classes[1]`` positive (scikit-learn's sign
    convention); more give one row per class, that class positive (one-vs-rest).
    """
    if classes.size == 2:
        return np.where(y == classes[1], 1.0, -1.0)[None, :]
    return np.where(y[None, :] == classes[:, None], 1.0, -1.0)


def primal_objective(W, b, X, Y, alpha: float) -> np.ndarray:
    """Primal SVM objective of each binary problem, shape (K,).

    ``F(w, b) = alpha/2 (||w||^2 + b^2) + 1/m sum_i max(0, 1 - y_i (<w, x_i> + b))``

    with ``W`` of shape (K, d), ``b`` of shape (K,) (zeros when there is no bias;
    a bias is regularised, as LIBLINEAR's ``-B 1`` and Pegasos'
    ``intercept_scaling=1``), ``Y`` the +-1 targets of shape (K, m). Minimising it
    is LIBLINEAR's ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i <w, x_i>)`` divided by
    ``C m``, with ``C = 1 / (alpha m)``, and SGDClassifier's hinge / l2 objective.
    """
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    b = np.zeros(W.shape[0]) if b is None else np.asarray(b, dtype=np.float64).ravel()
    scores = np.asarray(X @ W.T) + b[None, :]  # (m, K)
    hinge = np.maximum(0.0, 1.0 - Y.T * scores).mean(axis=0)
    reg = 0.5 * alpha * (np.einsum("kd,kd->k", W, W) + b * b)
    return reg + hinge


#: The losses of the margin ``z = y (<w, x> + b)`` (``y`` = +-1) and of the residual
#: ``r = <w, x> + b - y``, with scikit-learn's SGDClassifier / SGDRegressor names.
MARGIN_LOSSES = ("hinge", "log_loss", "squared_hinge", "modified_huber")
RESIDUAL_LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber")


def loss_values(loss: str, u: np.ndarray, epsilon: float = 0.1) -> np.ndarray:
    """``L(u)`` of each margin (the losses of MARGIN_LOSSES) or residual (those of
    RESIDUAL_LOSSES; ``epsilon`` is the tube's half-width, or where Huber's loss
    turns linear), as pegasos_rs and LIBLINEAR define them."""
    u = np.asarray(u, dtype=np.float64)
    if loss in MARGIN_LOSSES:
        h = np.maximum(0.0, 1.0 - u)
        if loss == "hinge":
            return h
        if loss == "log_loss":
            return np.logaddexp(0.0, -u)
        if loss == "squared_hinge":
            return h * h
        return np.where(u >= -1.0, h * h, -4.0 * u)  # modified_huber
    check(loss in RESIDUAL_LOSSES, f"unknown loss {loss!r}")
    a = np.maximum(0.0, np.abs(u) - epsilon)
    if loss == "epsilon_insensitive":
        return a
    if loss == "squared_epsilon_insensitive":
        return a * a
    if loss == "squared_error":
        return 0.5 * u * u
    return np.where(np.abs(u) <= epsilon, 0.5 * u * u, epsilon * np.abs(u) - 0.5 * epsilon**2)


def loss_objective(loss: str, w, b: float, X, y, alpha: float, epsilon: float = 0.1) -> float:
    """The primal objective pegasos_rs minimises with ``loss``, in its scaling:

    ``F(w, b) = alpha/2 (||w||^2 + b^2) + 1/m sum_i L(u_i)``

    with ``u_i = y_i (<w, x_i> + b)`` for a margin loss (``y`` = +-1, positive for
    the second class) and ``u_i = <w, x_i> + b - y_i`` for a regression loss. The
    bias ``b`` is regularised: LIBLINEAR's ``-B 1`` and pegasos_rs'
    ``intercept_scaling=1``. LIBLINEAR's objective ``1/2 ||(w, b)||^2 + C sum_i
    L(u_i)`` is ``C m F`` with ``C = 1 / (alpha m)`` (the hinge case is
    :func:`primal_objective`).
    """
    w = np.asarray(w, dtype=np.float64).ravel()
    p = np.asarray(X @ w).ravel() + b
    y = np.asarray(y, dtype=np.float64)
    u = y * p if loss in MARGIN_LOSSES else p - y
    return float(0.5 * alpha * (w @ w + b * b) + loss_values(loss, u, epsilon).mean())


def accuracy(W, b, X, y, classes) -> float:
    """Test accuracy of the linear model ``W`` (K, d), ``b`` (K,) (one-vs-rest)."""
    W = np.atleast_2d(W)
    b = np.zeros(W.shape[0]) if b is None else np.asarray(b).ravel()
    scores = np.asarray(X @ W.T) + b[None, :]
    if classes.size == 2:
        pred = classes[(scores[:, 0] > 0).astype(np.intp)]
    else:
        pred = classes[np.argmax(scores, axis=1)]
    return float(np.mean(pred == y))


# ------------------------------------------------------------------- budget sweeps


def budget_sweep(
    measure: Callable[[int], dict], budgets: list[int], cap: float, done: Callable[[dict], bool]
) -> list[dict]:
    """A curve of fits from scratch with growing budgets (passes, or steps): the
    point ``measure(budget)`` (a dict with at least ``time``, the fit timed once)
    of each budget in turn, until a point is ``done`` or the next fit, at the last
    one's time per unit of budget, would take longer than ``cap`` seconds. The
    points that decide a target are then timed again (:func:`retime_point`)."""
    points = []
    for i, budget in enumerate(budgets):
        point = measure(budget)
        points.append(point)
        if done(point) or i + 1 == len(budgets):
            break
        if point["time"] * budgets[i + 1] / budget > cap:
            break
    return points


def retime_point(
    point: dict, measure: Callable[[], dict], repeats: int, same: tuple[str, ...], what: str
) -> None:
    """Fit ``point`` of a sweep (``runs`` fits so far) again until it has ``repeats``
    runs; its ``time`` becomes their median. Each refit ``measure()`` must give the
    same values of the keys ``same`` (the fits are seeded: the same model)."""
    if point["runs"] >= repeats:
        return
    times = [point["time"]]
    for _ in range(repeats - point["runs"]):
        again = measure()
        differ = {k: (again[k], point[k]) for k in same if again[k] != point[k]}
        check(not differ, f"{what}: a refit with the same seed gave another model {differ}")
        times.append(again["time"])
    point["time"], point["runs"] = float(statistics.median(times)), len(times)


# ------------------------------------------------------------ liblinear-multicore

#: LIBLINEAR's multi-core fork installs a module named ``liblinear`` too, so it lives
#: in its own directory (``pip install --target``) and runs in a child process.
MULTICORE_VERSION = "2.50.0"


def liblinear_multicore_site() -> Path | None:
    """Directory holding ``liblinear-multicore`` (installed there on first use; it
    compiles C++), or None when it does not install on this machine."""
    site = BENCH_DIR / ".cache" / f"liblinear-multicore-{MULTICORE_VERSION}"
    if (site / "liblinear" / "liblinear.py").exists():
        return site
    print(f"installing liblinear-multicore {MULTICORE_VERSION} into {site} ...", flush=True)
    proc = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
            "--target", str(site), f"liblinear-multicore=={MULTICORE_VERSION}",
        ],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        print(f"liblinear-multicore did not install:\n{proc.stderr[-2000:]}", flush=True)
        return None
    return site


# --------------------------------------------------------------------------- memory


def _proc_status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise BenchmarkError(f"{key} not in /proc/self/status")


def rss_mb() -> float:
    """Current resident set size (VmRSS) in MiB."""
    return _proc_status_kb("VmRSS") / 1024.0


def peak_rss_mb() -> float:
    """Peak resident set size (VmHWM) since the process start or the last reset."""
    return _proc_status_kb("VmHWM") / 1024.0


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs).

    Returns False when the kernel refuses; the peak then includes everything since
    the process started (so the caller should warn).
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return abs(peak_rss_mb() - rss_mb()) < 1.0


def measure_fit_memory(fit: Callable[[], object]) -> dict:
    """Peak RSS increase while ``fit()`` runs, in this (fresh) process.

    Call it in a child process that has loaded its input and done a small warm-up
    fit (so that lazy imports and one-off allocations are not counted).
    """
    gc.collect()
    before = rss_mb()
    exact = reset_peak_rss()
    fit()
    peak = peak_rss_mb()
    return {"rss_before_mb": before, "peak_mb": peak, "extra_mb": peak - before, "exact": exact}


def run_child(args: list[str], timeout: float = 1800.0) -> dict:
    """Run ``python <args>`` in a fresh process; parse the JSON on its last stdout line."""
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise BenchmarkError(
            f"child {args} failed with code {proc.returncode}:\n{proc.stderr[-3000:]}"
        )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    check(bool(lines), f"child {args} printed nothing")
    return json.loads(lines[-1])


# ---------------------------------------------------------------------- the runs


def select_names(ap, spec: str | None, known, default: list[str]) -> list[str]:
    """The datasets of a run: ``spec`` (comma-separated, each in ``known``; otherwise
    ``ap.error``) or ``default``."""
    if not spec:
        return default
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"unknown datasets {unknown}; known: {', '.join(known)}")
    return names


def measure_all(names: list[str], run_one, saved) -> list:
    """``run_one(name)`` for each name, one thread, keeping the results that are not
    None; ``saved(results)`` after each, so partial results survive a later failure."""
    results = []
    with single_thread():
        for name in names:
            r = run_one(name)
            if r is not None:
                results.append(r)
                saved(results)
    return results
