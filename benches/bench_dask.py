"""pegasos_rs.dask against dask-ml on a LocalCluster, from svmlight files to a model
(issue 13).

RCV1-shaped data (``rcv1_like.py``) is generated on the workers, chunk by chunk,
and written as svmlight shards of 10^6 rows (values rounded to 5 decimals, about
1 KB per row); the client never holds the training set. For each m (a prefix of
the shards) every method starts from the files and trains until its model reaches
the scaling benchmark's target test accuracy (87.9 %, ``bench_scaling.py``):

  (a) ``pegasos_rs.dask.PegasosClassifier`` exact mode, averaged, T = 32k, 64k, ...
      steps (``check_input=False``: the workers index the files, labels and row
      offsets only, and parse the rows drawn); the T found is also timed with
      ``check_input=True`` (every row parsed and checked first);
  (b) its parallel mode (parameter mixing), 1, 2, 4, ... rounds;
  (c) dask-ml's ``Incremental(SGDClassifier(loss="hinge"))``, 1, 2, ... passes;
  (d) dask-ml's ``Incremental(pegasos_rs.PegasosClassifier())``, 1, 2, ... passes;
  (e) in-memory pegasos-rs (the files loaded with ``load_svmlight_files``, then the
      T of (a)) and LIBLINEAR ``-s 3``, where the data fits (m <= --in-memory).

The cluster has 2 worker processes (1 with ``--smoke``) of 1 thread, each with
``memory_limit`` set low on purpose (``--memory-limit``, 2 GiB): at 10^7 rows the
parsed data (6.1 GB as float32 CSR) is larger than both limits together. The exact
mode keeps on the workers only an index (16 bytes per row); the rows stay in the
files. Measured: time from files to the model, test accuracy, peak memory of the
client process and of each worker (RSS sampled every 0.2 s and 1 s), and bytes per
round.

Each budget that reaches the target, and ``check_input=True`` at it, is run
``--repeats`` times (3 by default, 1 with ``--smoke``) and its median reported: the
ratios (c) / (a) are of medians.

    python benches/bench_dask.py [--sizes 1000000,10000000,30000000] [--workdir DIR]
    python benches/bench_dask.py --sizes 10000000 --part scaling --repeats 3
    python benches/bench_dask.py --smoke

Writes ``benches/results/dask.md``, ``dask.json`` and ``dask.png`` (``*_smoke``
without the plot with ``--smoke``; ``--prefix`` names other files). Shards are kept
in ``--workdir`` (default ``$TMPDIR/pegasos-dask-bench``) and reused by later runs;
sizes the disk cannot hold are skipped and reported as such.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
import plots
from common import RESULTS_DIR, check, median_runs, time_once
from dask.utils import parse_bytes
from report import load_text, machine_state, markdown_table, publish

HERE = Path(__file__).resolve().parent
_STARTED = time.perf_counter()
ALPHA = 1e-5
TARGET = 0.879  #: the scaling benchmark's target accuracy
#: Runs of each timing that decides a ratio (the budget reaching the target, and
#: check_input=True at it): their median is reported (``--repeats``).
REPEATS = 3
#: Whether this is a ``--smoke`` run (set by :func:`configure`).
SMOKE = False
DEFAULT_SIZES = "1000000,10000000,30000000"
SHARD_ROWS = 1_000_000
#: Worker processes of the cluster (``--smoke``: one, :data:`SMOKE_WORKERS`).
WORKERS = 2
SMOKE_WORKERS = 1
BYTES_PER_ROW = 1100  #: about, with 75 non-zeros written to 5 decimals
#: ``--smoke``'s data, bench_dask_reuse's and bench_dask_modes' too: RCV1-shaped
#: rows of ``d`` features and about ``nnz`` non-zeros, in shards of ``shard_rows``
#: rows, and ``test_rows`` test rows. Their shards are kept in :func:`smoke_workdir`.
SMOKE_SHAPE = {"d": 1000, "nnz": 20, "shard_rows": 5000, "test_rows": 5000}


def smoke_workdir(workdir: Path) -> Path:
    """Where the smoke runs keep their shards, in ``workdir``: named by their shape,
    so that shards of another shape are never read as these."""
    return Path(workdir) / "smoke-{d}-{nnz}-{shard_rows}".format(**SMOKE_SHAPE)


# ------------------------------------------------------------------ data on workers


def _write_shard(path: str, first_chunk: int, n_chunks: int, d: int, nnz: int, rows: int) -> int:
    """Generate chunks ``first_chunk ...`` on this worker and write their first
    ``rows`` rows to ``path``: every row of the chunks, but in the smoke runs' shards,
    smaller than a chunk."""
    sys.path.insert(0, str(HERE))
    import pegasos_rs
    from rcv1_like import CHUNK, chunk

    tmp = path + ".part"
    done = 0
    with open(tmp, "wb") as f:
        for k in range(first_chunk, first_chunk + n_chunks):
            X, y = chunk(k, n_features=d, nnz_per_row=nnz, rows=min(CHUNK, rows - done))
            X.data = np.round(X.data, 5)
            X.eliminate_zeros()
            pegasos_rs.dump_svmlight_file(X, y, f)
            done += X.shape[0]
    os.replace(tmp, path)
    return done


def make_shards(client, workdir: Path, n_shards: int, shard_rows: int, d: int, nnz: int):
    """Shard files ``shard_000.svm ...`` (missing ones generated on the workers)."""
    from rcv1_like import CHUNK

    per = -(-shard_rows // CHUNK)
    paths = [workdir / f"shard_{i:03d}.svm" for i in range(n_shards)]
    todo = [i for i, p in enumerate(paths) if not p.exists()]
    futures = [
        client.submit(_write_shard, str(paths[i]), i * per, per, d, nnz, shard_rows, pure=False)
        for i in todo
    ]
    client.gather(futures)
    return paths


# ------------------------------------------------------------------------- memory


class Peaks:
    """Peak RSS of this process (every 0.2 s) and of each worker (every 1 s)."""

    def __init__(self, client):
        import psutil

        self.client, self.me = client, psutil.Process()
        self.stop = threading.Event()
        self.client_peak, self.worker_peaks = 0, {}
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _workers(self):
        try:
            for w, rss in self.client.run(_rss).items():
                self.worker_peaks[w] = max(self.worker_peaks.get(w, 0), rss)
        except Exception:  # a worker restarting: sample again later
            pass

    def _run(self):
        tick = 0
        while not self.stop.wait(0.2):
            self.client_peak = max(self.client_peak, self.me.memory_info().rss)
            tick += 1
            if tick % 5 == 0:
                self._workers()

    def __enter__(self):
        self.client_peak = self.me.memory_info().rss
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.client_peak = max(self.client_peak, self.me.memory_info().rss)
        self._workers()


def warm_up() -> None:
    """Import on a worker (``client.run(warm_up)``) what a fit's tasks run there, so
    that the first timing does not include it (bench_dask_reuse and bench_dask_modes
    use it too, without dask-ml): ``pegasos_rs.dask._blocks``, and with it the
    extension, scipy and scikit-learn's checks. ``import pegasos_rs.dask`` alone
    imports none of them (the package resolves its names on first use)."""
    import pegasos_rs.dask._blocks  # noqa: F401


def _warm_up_all() -> None:
    """:func:`warm_up`, and what (c) and (d) import: dask-ml and SGDClassifier."""
    warm_up()
    import dask_ml.wrappers  # noqa: F401
    import sklearn.linear_model  # noqa: F401


def _rss() -> int:
    import psutil

    return psutil.Process().memory_info().rss


# ------------------------------------------------------------------------ methods


def _accuracy(model, Xt, yt) -> float:
    return float(np.mean(model.predict(Xt) == yt))


def _median_run(run, first=None):
    """``run()`` (seconds, accuracy, extras) ``REPEATS`` times in all (``first``: a
    run already made), through :func:`common.median_runs`: the median seconds and
    extras, the accuracy, and every run's seconds as ``runs``."""

    def as_dict(r):
        seconds, acc, extra = r
        return {"seconds": seconds, "acc": acc, **extra}

    out = median_runs(lambda: as_dict(run()), REPEATS, None if first is None else as_dict(first))
    out["runs"] = out.pop("seconds_of_runs")
    return out.pop("seconds"), out.pop("acc"), out


def _until(budgets, run, limit):
    """Run ``run(budget)`` for growing budgets until the accuracy reaches the target
    (or a run takes more than ``limit`` seconds): the list of attempts. The budget
    that reaches the target is run ``REPEATS`` times in all, its time the median."""
    tries = []
    for b in budgets:
        seconds, acc, extra = run(b)
        if acc >= TARGET and REPEATS > 1:
            seconds, acc, extra = _median_run(lambda b=b: run(b), (seconds, acc, extra))
        tries.append({"budget": b, "seconds": seconds, "accuracy": acc, **extra})
        print(f"    {b}: {seconds:.2f}s, acc {acc:.4f} {extra}", flush=True)
        if acc >= TARGET or seconds > limit:
            break
    return tries


def exact_mode(client, files, d, Xt, yt, steps, limit, dtype):
    import pegasos_rs.dask as pdask

    def run(T, check_input=False):
        info = {}
        with Peaks(client) as peaks:
            X, y = pdask.read_svmlight(files, d, dtype=dtype, zero_based=True)
            est = pdask.PegasosClassifier(
                alpha=ALPHA, max_steps=T, average=True, random_state=0, client=client
            )
            seconds, _ = time_once(
                lambda: est.fit(X, y, check_input=check_input, callback=info.update)
            )
        rounds = max(1, info.get("rounds", 1))
        extra = {
            "client_peak_mb": peaks.client_peak / 2**20,
            "worker_peak_mb": max(peaks.worker_peaks.values(), default=0) / 2**20,
            "rounds": rounds,
            "kb_per_round": (info.get("bytes_sent", 0) + info.get("bytes_received", 0))
            / rounds
            / 1024,
        }
        return seconds, _accuracy(est.to_local(), Xt, yt), extra

    tries = _until(steps, run, limit)
    best = tries[-1]["budget"]
    seconds, acc, extra = _median_run(lambda: run(best, check_input=True))
    print(f"    check_input=True: {seconds:.2f}s (median of {REPEATS})", flush=True)
    checked = {"seconds": seconds, "accuracy": acc, **extra}
    cold = None
    if drop_caches(files):
        seconds, acc, extra = run(best)
        cold = {"budget": best, "seconds": seconds, "accuracy": acc, **extra}
        print(f"    cold page cache: {seconds:.2f}s", flush=True)
    return tries, checked, cold


def parallel_mode(client, files, d, Xt, yt, rounds, limit, dtype):
    import pegasos_rs.dask as pdask

    def run(r):
        info = {}
        with Peaks(client) as peaks:
            X, y = pdask.read_svmlight(files, d, dtype=dtype, zero_based=True)
            est = pdask.PegasosClassifier(
                alpha=ALPHA,
                max_iter=r,
                average=True,
                random_state=0,
                mode="parallel",
                client=client,
            )
            seconds, _ = time_once(lambda: est.fit(X, y, check_input=False, callback=info.update))
        extra = {
            "client_peak_mb": peaks.client_peak / 2**20,
            "worker_peak_mb": max(peaks.worker_peaks.values(), default=0) / 2**20,
            "kb_per_round": (info.get("bytes_sent", 0) + info.get("bytes_received", 0)) / r / 1024,
        }
        return seconds, _accuracy(est.to_local(), Xt, yt), extra

    return _until(rounds, run, limit)


def incremental(client, files, d, Xt, yt, passes, limit, dtype, make, cold=False):
    """dask-ml's Incremental: a chain of partial_fit tasks, one per block, the model
    moving from worker to worker; ``passes`` more passes with partial_fit."""
    import pegasos_rs.dask as pdask
    from dask_ml.wrappers import Incremental

    def run(p):
        with Peaks(client) as peaks, client.as_current():
            X, y = pdask.read_svmlight(files, d, dtype=dtype, zero_based=True)
            inc = Incremental(make(), shuffle_blocks=False)

            def fit():
                inc.fit(X, y, classes=[-1.0, 1.0])
                for _ in range(p - 1):
                    inc.partial_fit(X, y, classes=[-1.0, 1.0])
                return inc

            seconds, _ = time_once(fit)
        extra = {
            "client_peak_mb": peaks.client_peak / 2**20,
            "worker_peak_mb": max(peaks.worker_peaks.values(), default=0) / 2**20,
        }
        return seconds, _accuracy(inc.estimator_, Xt, yt), extra

    tries = _until(passes, run, limit)
    if not cold or not drop_caches(files):
        return tries, None
    seconds, acc, extra = run(tries[-1]["budget"])
    print(f"    cold page cache: {seconds:.2f}s", flush=True)
    return tries, {"budget": tries[-1]["budget"], "seconds": seconds, "accuracy": acc, **extra}


def drop_caches(files) -> bool:
    """Empty the kernel's page cache (root only), so the next read of the files
    comes from the disk; ``False`` when not allowed. A ``--smoke`` run evicts only
    ``files`` (``posix_fadvise``, any user): it runs beside other work, the test
    suite's other lane among it, whose files must stay cached."""
    try:
        if SMOKE:
            for path in files:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
            return True
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def in_memory(files, d, n_test, nnz, T, liblinear: bool):
    """(e) in a child process, so that loading the data does not count in the
    client's memory (and its freed heap does not stay in the client's RSS)."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--in-memory-child",
        json.dumps(
            {"files": files, "d": d, "n_test": n_test, "nnz": nnz, "T": T, "liblinear": liblinear}
        ),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    check(out.returncode == 0, f"the in-memory run failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _in_memory_child(spec: dict) -> None:
    import pegasos_rs
    import scipy.sparse as sp
    from rcv1_like import make_rcv1_like

    files, d, T = spec["files"], spec["d"], spec["T"]
    Xt, yt = make_rcv1_like(
        spec["n_test"], n_features=d, nnz_per_row=spec["nnz"], test=True, dtype=np.float32
    )
    load_s, parts = time_once(
        lambda: pegasos_rs.load_svmlight_files(files, n_features=d, dtype=np.float32, n_jobs=2)
    )
    X = sp.vstack(parts[0::2], format="csr")
    y = np.concatenate(parts[1::2])
    del parts
    est = pegasos_rs.PegasosClassifier(alpha=ALPHA, max_steps=T, average=True, random_state=0)
    fit_s, _ = time_once(lambda: est.fit(X, y))
    out = {
        "load_seconds": load_s,
        "pegasos_fit_seconds": fit_s,
        "pegasos_accuracy": _accuracy(est, Xt, yt),
    }
    if spec["liblinear"]:
        from liblinear import liblinear as ll
        from liblinear import liblinearutil as llu

        prob = ll.problem(np.ascontiguousarray(y, dtype=np.float64), X)
        C = 1.0 / (ALPHA * X.shape[0])
        ll_s, model = time_once(lambda: llu.train(prob, ll.parameter(f"-s 3 -c {C!r} -q")))
        labels, _, _ = llu.predict(yt.astype(np.float64), Xt, model, "-q")
        out |= {
            "liblinear_seconds": ll_s,
            "liblinear_accuracy": float(np.mean(np.asarray(labels) == yt)),
        }
    print(json.dumps(out))


# --------------------------------------------------------- objective of the modes


def liblinear_optimum(X, Y, alpha: float, eps: float) -> float:
    """LIBLINEAR ``-s 3 -e eps``'s primal objective at ``alpha`` (``C = 1 / (alpha
    m)``, a bias feature of 1, regularised), the F* of the objective gaps here and in
    bench_dask_modes; ``Y`` is the row of ±1 targets. Its dual coordinate descent
    permutes the rows with the C library's ``rand()``, which nothing seeds, so F*
    depended on what had drawn from it before in the process; ``srand(1)`` first,
    the state of a fresh process, makes it the same in every run."""
    import ctypes

    import scipy.sparse as sp
    from common import primal_objective
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    d = X.shape[1]
    C = 1.0 / (alpha * X.shape[0])
    prob = ll.problem(np.ascontiguousarray(Y[0]), sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr())
    ctypes.CDLL(None).srand(1)
    model = llu.train(prob, ll.parameter(f"-s 3 -c {C!r} -e {eps} -q"))
    w = np.array([model.w[i] for i in range(d + 1)])
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    return float(primal_objective(sign * w[:d], sign * w[d:], X, Y, alpha)[0])


def objective_part(client, sets, passes) -> dict:
    """The parallel mode's primal objective against the exact mode's (the in-memory
    solver's, bit for bit) and LIBLINEAR's optimum, by passes over the data (a
    round of parameter mixing reads the data once)."""
    import pegasos_rs
    import pegasos_rs.dask as pdask
    from common import primal_objective

    out = {}
    for name, path, n_features, alpha, n_blocks, eps in sets:
        X, y = pegasos_rs.load_svmlight_file(path, n_features=n_features)
        labels = np.unique(y)
        Y = np.where(y == labels[1], 1.0, -1.0)[None, :]
        f_star = liblinear_optimum(X, Y, alpha, eps)
        size = os.path.getsize(path)
        with client.as_current():
            dX, dy = pdask.read_svmlight(path, n_features, blocksize=-(-size // n_blocks))
        rows = {
            "f_star": f_star,
            "eps": eps,
            "alpha": alpha,
            "blocks": int(dX.numblocks[0]),
            "rows": int(X.shape[0]),
            "passes": {},
        }
        for p in passes:
            kw = {"alpha": alpha, "max_iter": p, "average": True, "random_state": 0}
            exact = pegasos_rs.PegasosClassifier(**kw).fit(X, y)
            mixed = pdask.PegasosClassifier(mode="parallel", client=client, **kw)
            mixed.fit(dX, dy, check_input=False)
            f = {
                key: float(primal_objective(est.coef_, est.intercept_, X, Y, alpha)[0])
                for key, est in (("exact", exact), ("parallel", mixed))
            }
            rows["passes"][p] = {k: (v - f_star) / f_star for k, v in f.items()}
            print(
                f"  {name} {p} passes: exact gap {rows['passes'][p]['exact']:.4f}, "
                f"parallel gap {rows['passes'][p]['parallel']:.4f}",
                flush=True,
            )
        out[name] = rows
    return out


# -------------------------------------------------------------------------- main


def _first_reached(tries):
    ok = [t for t in tries if t["accuracy"] >= TARGET]
    return ok[0] if ok else None


def _fmt_try(t) -> str:
    if t is None:
        return "not reached"
    return f"{t['seconds']:.1f} s ({t['budget']}, {100 * t['accuracy']:.2f} %)"


def _runs_text(repeats: int) -> str:
    """What a time of the scaling table is: one run, or a median."""
    if repeats == 1:
        return "Every time is one run."
    return (
        f"The budget that reaches the target (and check_input=True at it) is the median "
        f"of {repeats} runs; the smaller budgets tried before it, the cold page cache "
        "runs and (e) are one run each."
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "pegasos-dask-bench"))
    ap.add_argument("--memory-limit", default="2GiB")
    ap.add_argument("--in-memory", type=int, default=10_000_000, help="largest m trained in memory")
    ap.add_argument("--liblinear", type=int, default=1_000_000, help="largest m for LIBLINEAR")
    ap.add_argument("--limit", type=float, default=900.0, help="stop growing a budget past this")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument(
        "--repeats",
        type=int,
        help="runs of each timing that decides a ratio, median (default 3; 1 with --smoke)",
    )
    ap.add_argument(
        "--part",
        choices=["all", "scaling", "objective"],
        default="all",
        help="scaling: files to a model by m; objective: parallel against exact mode",
    )
    ap.add_argument(
        "--prefix", help="output files <prefix>.md, .json, .png (default dask, dask_smoke)"
    )
    ap.add_argument("--in-memory-child", help=argparse.SUPPRESS)
    return ap


def configure(args) -> dict:
    """The run's sizes and schedules (smaller with ``--smoke``, which also lowers the
    target accuracy and uses its own work directory)."""
    global TARGET, REPEATS, SMOKE
    SMOKE = args.smoke
    if args.prefix is None:
        args.prefix = "dask_smoke" if args.smoke else "dask"
    REPEATS = args.repeats if args.repeats is not None else 1 if args.smoke else 3
    if REPEATS < 1:
        raise SystemExit("--repeats must be >= 1")
    from rcv1_like import N_FEATURES, NNZ_PER_ROW

    cfg = {
        "shape": (N_FEATURES, NNZ_PER_ROW, SHARD_ROWS, 50_000),
        "sizes": [int(s) for s in args.sizes.split(",")],
        "steps": [32_000, 64_000, 128_000, 256_000, 512_000],
        "rounds": [1, 2, 4, 8],
        "passes": [1, 2, 4],
        "workers": WORKERS,
    }
    if args.smoke:
        shape = tuple(SMOKE_SHAPE[k] for k in ("d", "nnz", "shard_rows", "test_rows"))
        cfg.update(shape=shape, sizes=[2 * SMOKE_SHAPE["shard_rows"]], steps=[100, 2000],
                   rounds=[1, 2], passes=[1], workers=SMOKE_WORKERS)  # fmt: skip
        TARGET = 0.80
        args.workdir = smoke_workdir(args.workdir)
    return cfg


def objective_sets(client, args, workdir: Path, cfg: dict) -> list[tuple]:
    """Part 2's data sets: (name, file, d, alpha, partitions, LIBLINEAR's eps)."""
    d, nnz, shard_rows, _ = cfg["shape"]
    first = make_shards(client, workdir, 1, shard_rows, d, nnz)[0]
    name = "RCV1-shaped, 10^6 rows" if not args.smoke else "RCV1-shaped (smoke)"
    sets = [(name, str(first), d, ALPHA, 2 if args.smoke else 16, 1e-4)]
    a9a = None if args.smoke else _plain_a9a(workdir)
    if a9a is not None:
        sets.insert(0, ("a9a", str(a9a), 123, 1 / 32561, 4, 1e-6))
    return sets


def run_parts(client, args, results: dict, workdir: Path, cfg: dict, Xt, yt) -> None:
    """The parts ``--part`` asks for, into ``results``."""
    started = time.strftime("%Y-%m-%d %H:%M")
    if args.part in ("all", "scaling"):
        start = machine_state()
        results["scaling"] = {
            "date": started,
            "target": TARGET,
            "alpha": ALPHA,
            "memory_limit": args.memory_limit,
            "repeats": REPEATS,
            "sizes": {},
        }
        if cfg["workers"] != WORKERS:
            results["scaling"]["workers"] = cfg["workers"]
        scaling(client, args, results, workdir, cfg, Xt, yt, np.float32)
        results["scaling"]["machine"] = load_text(start, machine_state())
    if args.part in ("all", "objective"):
        print("objective: parallel mode against exact mode and LIBLINEAR", flush=True)
        start = machine_state()
        sets = objective_sets(client, args, workdir, cfg)
        results["objective"] = {
            "date": started,
            "sets": objective_part(client, sets, [1, 2] if args.smoke else [1, 2, 5, 10, 20]),
            "machine": load_text(start, machine_state()),
        }


def main() -> None:
    args = parser().parse_args()
    if args.in_memory_child:
        sys.path.insert(0, str(HERE))
        _in_memory_child(json.loads(args.in_memory_child))
        return

    import distributed

    sys.path.insert(0, str(HERE))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    from rcv1_like import make_rcv1_like

    cfg = configure(args)
    d, nnz, _, n_test = cfg["shape"]
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    Xt, yt = make_rcv1_like(n_test, n_features=d, nnz_per_row=nnz, test=True, dtype=np.float32)

    saved = RESULTS_DIR / f"{args.prefix}.json"
    results = json.loads(saved.read_text()) if saved.exists() and args.part != "all" else {}
    results["title"] = title(cfg["sizes"], DEFAULT_SIZES)
    with (
        distributed.LocalCluster(
            n_workers=cfg["workers"],
            threads_per_worker=1,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        client.run(_warm_up_all)  # imports on the workers, not in the first timing
        run_parts(client, args, results, workdir, cfg, Xt, yt)
    _write(results, args)


def _plain_a9a(workdir: Path):
    """a9a from the project's data folder, decompressed into ``workdir`` (splittable)."""
    import lzma

    import shared_data as _datasets

    folder = _datasets.data_dir()
    if folder is None or not (folder / "a9a.xz").exists():
        return None
    plain = workdir / "a9a.svm"
    if not plain.exists():
        plain.write_bytes(lzma.open(folder / "a9a.xz").read())
    return plain


def incrementals(client, files, d, Xt, yt, passes, limit, dtype, row: dict) -> None:
    """(c), (d): dask-ml's Incremental wrapper around SGDClassifier and around
    PegasosClassifier (the former also with a cold page cache), into ``row``."""
    import pegasos_rs
    from sklearn.linear_model import SGDClassifier

    for key, name, make in [
        (
            "incremental_sgd",
            "(c) dask-ml Incremental(SGDClassifier)",
            lambda: SGDClassifier(loss="hinge", alpha=ALPHA, random_state=0),
        ),
        (
            "incremental_pegasos",
            "(d) dask-ml Incremental(pegasos_rs.PegasosClassifier)",
            # The last iterate, as SGDClassifier in (c) and as recorded.
            lambda: pegasos_rs.PegasosClassifier(alpha=ALPHA, average=False, random_state=0),
        ),
    ]:
        print(f"  {name}", flush=True)
        row[key], row[f"{key}_cold"] = incremental(
            client, files, d, Xt, yt, passes, limit, dtype, make, cold=key == "incremental_sgd"
        )


def scaling(client, args, results, workdir, cfg: dict, Xt, yt, dtype):
    """Part 1: from files to the target accuracy, by m (see the module doc)."""
    d, nnz, shard_rows, n_test = cfg["shape"]
    limit = parse_bytes(args.memory_limit)
    for m in cfg["sizes"]:
        n_shards = -(-m // shard_rows)
        have = sum((workdir / f"shard_{i:03d}.svm").exists() for i in range(n_shards))
        need = (n_shards - have) * shard_rows * BYTES_PER_ROW
        if need > shutil.disk_usage(workdir).free - (5 << 30):
            print(f"m = {m}: not enough disk for {need / 1e9:.0f} GB of shards, skipped")
            results["scaling"]["sizes"][str(m)] = {"skipped": "disk"}
            continue
        t0 = time.perf_counter()
        files = [str(p) for p in make_shards(client, workdir, n_shards, shard_rows, d, nnz)]
        print(f"m = {m}: {n_shards} shards ready in {time.perf_counter() - t0:.0f}s", flush=True)
        row = {
            "files_gb": sum(os.path.getsize(f) for f in files) / 1e9,
            "parsed_gb": m * (nnz + 1) * 8 / 1e9,
            "workers_limit_gb": cfg["workers"] * limit / 1e9,
        }
        print("  (a) exact", flush=True)
        row["exact"], row["exact_checked"], row["exact_cold"] = exact_mode(
            client, files, d, Xt, yt, cfg["steps"], args.limit, dtype
        )
        print("  (b) parallel", flush=True)
        row["parallel"] = parallel_mode(client, files, d, Xt, yt, cfg["rounds"], args.limit, dtype)
        incrementals(client, files, d, Xt, yt, cfg["passes"], args.limit, dtype, row)
        if m <= args.in_memory:
            T = (_first_reached(row["exact"]) or row["exact"][-1])["budget"]
            print("  (e) in memory", flush=True)
            row["in_memory"] = in_memory(files, d, n_test, nnz, T, m <= args.liblinear)
        results["scaling"]["sizes"][str(m)] = row
        _write(results, args)


def title(sizes: list[int], default: str) -> str:
    """The report's title; a run of other sizes than the default names them, so that
    its page and the default run's have titles of their own."""
    what = "pegasos_rs.dask: from svmlight files to a model, against dask-ml and in memory"
    if sizes == [int(m) for m in default.split(",")]:
        return what
    return f"{what}, at m = " + ", ".join(f"{m:,}" for m in sizes)


def _write(results, args) -> None:
    RESULTS_DIR.mkdir(exist_ok=True)
    (RESULTS_DIR / f"{args.prefix}.json").write_text(json.dumps(results, indent=1))
    text = [f"# {results['title']}", ""]
    if "scaling" in results:
        text += _scaling_text(results["scaling"])
    if "objective" in results:
        text += _objective_text(results["objective"])
    publish(args.prefix, "\n".join(text), _STARTED)
    if not args.smoke and "scaling" in results:
        _plot(results["scaling"], args.prefix)


def _objective_text(part) -> list[str]:
    rows = []
    for name, r in part["sets"].items():
        for p, gaps in r["passes"].items():
            rows.append(
                [name, p, f"{100 * gaps['exact']:.2f} %", f"{100 * gaps['parallel']:.2f} %"]
            )
    notes = [
        f"* {name}: {r['rows']:,} rows, alpha = {r['alpha']:.3g}, {r['blocks']} partitions; "
        f"optimum F* = {r['f_star']:.6f} (LIBLINEAR -s 3 -e {r['eps']} from srand(1), bias "
        "feature 1)."
        for name, r in part["sets"].items()
    ]
    return [
        f"## Parallel mode against the exact mode and LIBLINEAR's optimum (run of {part['date']})",
        "",
        f"Machine: {part.get('machine', 'load not recorded')}.",
        "",
        "Relative primal gap (F - F*) / F* of the averaged model after p passes over the "
        "data: the exact mode (the in-memory solver, bit for bit) runs p passes; the "
        "parallel mode p rounds, each reading the data once.",
        "",
        *notes,
        "",
        markdown_table(["data", "passes", "exact mode", "parallel mode"], rows),
        "",
    ]


def _scaling_row(m: str, r: dict) -> list:
    """The main table's row of size ``m``: time to the target of each method."""
    e = r.get("in_memory", {})
    in_mem = (
        f"{e['load_seconds'] + e['pegasos_fit_seconds']:.1f} s (load {e['load_seconds']:.1f} s)"
        if e
        else "does not fit"
    )
    ll = (
        f"{e['load_seconds'] + e['liblinear_seconds']:.1f} s, {100 * e['liblinear_accuracy']:.2f} %"
        if "liblinear_seconds" in e
        else "—"
    )
    return [
        f"{int(m):,}", _fmt_try(_first_reached(r["exact"])),
        f"{r['exact_checked']['seconds']:.1f} s", _fmt_try(_first_reached(r["parallel"])),
        _fmt_try(_first_reached(r["incremental_sgd"])),
        _fmt_try(_first_reached(r["incremental_pegasos"])), in_mem, ll,
    ]  # fmt: skip


def _ratio_row(m: str, r: dict, a: dict, c: dict) -> list:
    """(c) / (a): warm and cold page cache."""
    ac, cc = r.get("exact_cold"), r.get("incremental_sgd_cold")
    cold = (
        f"{cc['seconds']:.1f} s / {ac['seconds']:.1f} s = **{cc['seconds'] / ac['seconds']:.1f}x**"
        if ac and cc
        else "n/a (page cache not droppable)"
    )
    warm = f"{c['seconds']:.1f} s / {a['seconds']:.1f} s = **{c['seconds'] / a['seconds']:.1f}x**"
    return [f"{int(m):,}", warm, cold]


def _memory_row(m: str, r: dict, best: dict) -> list:
    """Memory and communication of (a) at its first point reaching the target."""
    return [
        f"{int(m):,}",
        f"{r['files_gb']:.1f} GB / {r['parsed_gb']:.1f} GB / {r['workers_limit_gb']:.1f} GB",
        f"{best['client_peak_mb']:.0f} MB", f"{best['worker_peak_mb']:.0f} MB",
        f"{best['rounds']:.0f} x {best['kb_per_round']:.0f} KB",
        f"{r['incremental_sgd'][-1]['worker_peak_mb']:.0f} MB",
    ]  # fmt: skip


def workers_text(n: int) -> str:
    """``"2 workers"``, ``"1 worker"``: a report's words for ``n`` workers."""
    return f"{n} worker{'s' if n > 1 else ''}"


def _scaling_text(part) -> list[str]:
    rows, mem, ratio = [], [], []
    for m, r in part["sizes"].items():
        if "skipped" in r:
            rows.append([m, f"skipped ({r['skipped']})", "", "", "", "", ""])
            continue
        rows.append(_scaling_row(m, r))
        a, c = _first_reached(r["exact"]), _first_reached(r["incremental_sgd"])
        if a and c:
            ratio.append(_ratio_row(m, r, a, c))
        mem.append(_memory_row(m, r, a or r["exact"][-1]))
    header = ["m", "(a) exact, T", "(a) check_input=True", "(b) parallel, rounds",
              "(c) Incremental(SGD), passes", "(d) Incremental(Pegasos), passes",
              "(e) in memory, Pegasos", "(e) LIBLINEAR -s 3"]  # fmt: skip
    mem_header = ["m", "files / parsed CSR / sum of memory limits", "client peak RSS",
                  "worker peak RSS", "rounds x KB per round", "(c) worker peak RSS"]  # fmt: skip
    return [
        f"## From files to a model (run of {part['date']})",
        "",
        f"Target test accuracy {100 * part['target']:.1f} %, alpha = {part['alpha']}; "
        f"{workers_text(part.get('workers', WORKERS))} x 1 thread, "
        f"memory_limit {part['memory_limit']} each. "
        + _runs_text(part.get("repeats", 1))
        + " Machine: "
        + part.get("machine", "load not recorded")
        + ".",
        "",
        markdown_table(header, rows),
        "",
        "### (c) / (a): time from files to the target",
        "",
        "Warm: the files were read just before (in the page cache as far as memory "
        "allows: not 3·10^7 rows). Cold: the page cache emptied before the fit.",
        "",
        markdown_table(["m", "warm (c) / (a)", "cold (c) / (a)"], ratio)
        if ratio
        else "(not reached by both)",
        "",
        "### Memory and communication of (a)",
        "",
        markdown_table(mem_header, mem),
        "",
    ]


def _plot(results, prefix: str) -> None:
    fig, ax = plots.pyplot().subplots(figsize=(6.5, 4.5))
    names = {
        "exact": "(a) pegasos_rs.dask exact",
        "parallel": "(b) parallel mode",
        "incremental_sgd": "(c) dask-ml Incremental(SGD)",
        "incremental_pegasos": "(d) dask-ml Incremental(Pegasos)",
    }
    for key, label in names.items():
        pts = [
            (int(m), _first_reached(r[key])["seconds"])
            for m, r in results["sizes"].items()
            if "skipped" not in r and _first_reached(r[key])
        ]
        if pts:
            line = ax.plot(*zip(*pts, strict=True), marker="o", label=label)[0]
        cold = [
            (int(m), r[f"{key}_cold"]["seconds"])
            for m, r in results["sizes"].items()
            if r.get(f"{key}_cold")
        ]
        if cold:
            ax.plot(
                *zip(*cold, strict=True),
                marker="x",
                linestyle="--",
                color=line.get_color(),
                label=label.split(" ", 1)[0] + " cold page cache",
            )
    ylabel = f"seconds from files to {100 * results['target']:.1f} % test accuracy"
    plots.log_axes(ax, "training rows m (svmlight shards)", ylabel, ylog=True)
    ax.legend()
    plots.save(fig, RESULTS_DIR / f"{prefix}.png")


if __name__ == "__main__":
    check(sys.version_info >= (3, 10), "Python 3.10 or newer")
    main()
