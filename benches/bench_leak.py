"""Memory leaks: the process's RSS over 2,000 cycles of fit, predict, save, load and
pickle for each estimator (issue 14).

    python benches/bench_leak.py                 # 2,000 cycles per case (a few minutes)
    python benches/bench_leak.py --cycles 500    # shorter
    python benches/bench_leak.py --only linear-dense,svmlight
    python benches/bench_leak.py --smoke         # 20 cycles per case, in one process (tests)

Each case runs in its own fresh process (with ``--smoke`` all cases share one: a
process's start is most of a smoke case's time), on small generated data, and
repeats one cycle of what a service does with a model:

* ``PegasosClassifier`` (dense, CSR, multiclass with two threads) and
  ``KernelPegasosClassifier`` (rbf dense binary, CSR one-vs-rest): ``fit`` on a new
  estimator, ``partial_fit``, ``predict`` and ``decision_function``, ``save`` to a
  model file and ``pegasos_rs.load`` of it, a pickle round trip, and predictions of
  the loaded and unpickled copies;
* ``RandomFourierFeatures``, ``Nystroem``, ``AdditiveKernelMap``: ``fit``,
  ``transform`` of dense and CSR input, a pickle round trip and ``transform`` of the
  copy (model files hold only the two classifiers);
* ``load_svmlight_file`` / ``dump_svmlight_file``: dump to a file and to a buffer,
  load both back.

The resident set size (``VmRSS``) is read after every cycle. Criterion: after the
first 100 cycles (allocator pools, lazy imports and caches warm up), RSS stays within
4 MiB of its level at cycle 100 (the largest excess over the remaining cycles is
reported as "growth"). The slope of a least-squares line through cycles 100..N is
reported too, in bytes per cycle: a steady leak of a few hundred bytes per cycle shows
there long before it reaches the criterion. The script exits with an error when a
case breaks the criterion.

Writes ``benches/results/leak.md``, ``leak.json`` and ``leak.png`` (``leak_smoke.*``
with ``--smoke``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pickle
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
import plots
import scipy.sparse as sp
from common import RESULTS_DIR, check, rss_mb, run_child
from report import markdown_table, publish

#: RSS growth allowed after the warm-up, in MiB.
TOLERANCE_MB = 4.0
#: Cycles of warm-up before the reference level is taken.
WARMUP = 100


# ------------------------------------------------------------------------------ data


def _problem(n_samples, n_features, n_classes, seed, density=0.3):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_samples, n_features)
    X[rng.rand(n_samples, n_features) > density] = 0.0
    X /= max(1.0, float(np.linalg.norm(X, axis=1).max()))
    scores = X @ rng.randn(n_features, n_classes)
    y = np.argmax(scores, axis=1) if n_classes > 2 else (scores[:, 0] > 0).astype(int)
    return X, y


# ----------------------------------------------------------------------------- cases


def _classifier_cycle(make, X, y, workdir: Path):
    """One cycle of a classifier: fit, continue, predict, save/load, pickle."""
    from pegasos_rs import load

    est = make().fit(X, y)
    if hasattr(est, "partial_fit"):  # the linear solver's exact continuation
        est.partial_fit(X, y)
    pred = est.predict(X)
    est.decision_function(X)
    path = workdir / "model.pgs"
    est.save(path)
    loaded = load(path)
    copy = pickle.loads(pickle.dumps(est))
    check(np.array_equal(loaded.predict(X), pred), "loaded model predicts differently")
    check(np.array_equal(copy.predict(X), pred), "unpickled model predicts differently")


def _map_cycle(make, X, workdir: Path):
    """One cycle of a feature map: fit, transform dense and CSR, pickle."""
    est = make().fit(X)
    Z = est.transform(X)
    est.transform(sp.csr_matrix(X))
    copy = pickle.loads(pickle.dumps(est))
    Zc = copy.transform(X)
    Z = Z.toarray() if sp.issparse(Z) else Z
    Zc = Zc.toarray() if sp.issparse(Zc) else Zc
    check(np.array_equal(Z, Zc), "unpickled map transforms differently")


def _svmlight_cycle(X, y, workdir: Path):
    from pegasos_rs import dump_svmlight_file, load_svmlight_file

    path = workdir / "data.svm"
    dump_svmlight_file(X, y, path)
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf)
    Xa, ya = load_svmlight_file(path, n_features=X.shape[1])
    Xb, yb = load_svmlight_file(io.BytesIO(buf.getvalue()), n_features=X.shape[1])
    check(Xa.nnz == X.nnz and np.array_equal(ya, yb), "svmlight round trip differs")
    check((Xa != Xb).nnz == 0, "file and buffer round trips differ")


def make_case(name: str):
    """``(description, cycle)`` of case ``name``; ``cycle(workdir)`` runs one cycle."""
    from pegasos_rs import (
        AdditiveKernelMap,
        KernelPegasosClassifier,
        Nystroem,
        PegasosClassifier,
        RandomFourierFeatures,
    )

    lin = {"alpha": 1e-3, "max_iter": 3, "average": True, "random_state": 0}
    ker = {"alpha": 1e-2, "gamma": 0.5, "max_iter": 2, "random_state": 0}
    if name == "linear-dense":
        X, y = _problem(500, 50, 2, seed=0)
        what = "PegasosClassifier, dense 500 x 50, binary"
        return what, partial(_classifier_cycle, partial(PegasosClassifier, **lin), X, y)
    if name == "linear-sparse":
        X, y = _problem(500, 200, 2, seed=1, density=0.05)
        X = sp.csr_matrix(X)
        what = f"PegasosClassifier, CSR 500 x 200 ({X.nnz} nnz), binary"
        return what, partial(_classifier_cycle, partial(PegasosClassifier, **lin), X, y)
    if name == "linear-multiclass":
        X, y = _problem(500, 50, 5, seed=2)
        what = "PegasosClassifier, dense 500 x 50, 5 classes, n_jobs=2"
        make = partial(PegasosClassifier, n_jobs=2, **lin)
        return what, partial(_classifier_cycle, make, X, y)
    if name == "kernel-dense":
        X, y = _problem(200, 20, 2, seed=3, density=1.0)
        what = "KernelPegasosClassifier rbf, dense 200 x 20, binary"
        return what, partial(_classifier_cycle, partial(KernelPegasosClassifier, **ker), X, y)
    if name == "kernel-sparse-multiclass":
        X, y = _problem(200, 60, 3, seed=4, density=0.2)
        X = sp.csr_matrix(X)
        what = "KernelPegasosClassifier rbf, CSR 200 x 60, 3 classes, n_jobs=2"
        make = partial(KernelPegasosClassifier, n_jobs=2, **ker)
        return what, partial(_classifier_cycle, make, X, y)
    if name == "rff":
        X, _ = _problem(300, 30, 2, seed=5)
        what = "RandomFourierFeatures, 300 x 30 -> 200"
        make = partial(RandomFourierFeatures, gamma=0.5, n_components=200, random_state=0)
        return what, partial(_map_cycle, make, X)
    if name == "nystroem":
        X, _ = _problem(300, 30, 2, seed=6)
        what = "Nystroem rbf, 300 x 30 -> 100"
        make = partial(Nystroem, gamma=0.5, n_components=100, random_state=0)
        return what, partial(_map_cycle, make, X)
    if name == "additive":
        X, _ = _problem(300, 30, 2, seed=7)
        what = "AdditiveKernelMap chi2 order 2, 300 x 30"
        return what, partial(_map_cycle, partial(AdditiveKernelMap, "chi2", order=2), np.abs(X))
    if name == "svmlight":
        X, y = _problem(500, 100, 3, seed=8, density=0.1)
        X = sp.csr_matrix(X)
        what = f"dump_svmlight_file + load_svmlight_file, 500 x 100 ({X.nnz} nnz)"
        return what, partial(_svmlight_cycle, X, y.astype(np.float64))
    raise ValueError(f"unknown case {name!r}")


CASES = [
    "linear-dense",
    "linear-sparse",
    "linear-multiclass",
    "kernel-dense",
    "kernel-sparse-multiclass",
    "rff",
    "nystroem",
    "additive",
    "svmlight",
]


def child(name: str, cycles: int) -> dict:
    """Run ``cycles`` cycles of case ``name`` in this process; RSS after each."""
    description, cycle = make_case(name)
    rss = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        started = time.perf_counter()
        for _ in range(cycles):
            cycle(workdir)
            rss.append(rss_mb())
        seconds = time.perf_counter() - started
    return {"name": name, "description": description, "rss_mb": rss, "seconds": seconds}


# --------------------------------------------------------------------------- summary


def summarize(res: dict, warmup: int) -> dict:
    """Levels, growth after the warm-up and the slope of a fitted line."""
    rss = np.asarray(res["rss_mb"])
    base = float(rss[warmup - 1])
    after = rss[warmup:]
    growth = float(after.max() - base) if after.size else 0.0
    slope = 0.0
    if after.size >= 2:
        slope = float(np.polyfit(np.arange(after.size), after, 1)[0]) * 2**20
    return {
        "rss_first_mb": float(rss[0]),
        "rss_base_mb": base,
        "rss_final_mb": float(rss[-1]),
        "growth_mb": growth,
        "slope_bytes_per_cycle": slope,
        "ms_per_cycle": 1e3 * res["seconds"] / rss.size,
        "ok": growth <= TOLERANCE_MB,
    }


def plot(results: list[dict], warmup: int, path: Path) -> str | None:
    if not plots.have_matplotlib():
        return None
    fig, ax = plots.pyplot().subplots(figsize=(8.5, 4.8))
    for res in results:
        rss = np.asarray(res["rss_mb"])
        ax.plot(np.arange(1, rss.size + 1), rss - res["summary"]["rss_base_mb"],
                label=res["name"], lw=1)  # fmt: skip
    ax.axvline(warmup, color="grey", ls=":", lw=1)
    ax.axhline(TOLERANCE_MB, color="red", ls="--", lw=1, label=f"+{TOLERANCE_MB:g} MiB")
    ax.set_xlabel("cycle")
    ax.set_ylabel(f"RSS minus RSS at cycle {warmup} [MiB]")
    ax.set_title("RSS over cycles of fit, predict, save, load, pickle (one process per case)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return plots.save(fig, path)


HEADER = ["case", "what", "ms/cycle", "RSS cycle 1 [MiB]", "growth [MiB]", "slope [B/cycle]",
          "within"]  # fmt: skip


def report(results: list[dict], cycles: int, warmup: int, every: int, shared: bool) -> str:
    rows = []
    for res in results:
        s = res["summary"]
        rows.append([
            f"`{res['name']}`", res["description"], f"{s['ms_per_cycle']:.1f}",
            f"{s['rss_first_mb']:.1f}", f"{s['rss_base_mb']:.1f}", f"{s['rss_final_mb']:.1f}",
            f"{s['growth_mb']:+.2f}", f"{s['slope_bytes_per_cycle']:+.0f}",
            "yes" if s["ok"] else "**NO**",
        ])  # fmt: skip
    marks = list(range(every, cycles + 1, every))
    if cycles not in marks:
        marks.append(cycles)
    curve = [
        [f"`{res['name']}`"] + [f"{res['rss_mb'][m - 1]:.1f}" for m in marks] for res in results
    ]
    return (
        "# Memory: RSS over repeated fit / predict / save / load / pickle cycles\n\n"
        f"{cycles:,} cycles per case, "
        + (
            "the cases one after another in one process"
            if shared
            else "each case in a fresh process"
        )
        + "; RSS (VmRSS) read after "
        f"every cycle. Criterion: RSS within {TOLERANCE_MB:g} MiB of its level at cycle "
        f"{warmup} for the rest of the run. Growth = largest RSS after cycle {warmup} "
        f"minus RSS at cycle {warmup}; slope = least-squares slope over cycles "
        f"{warmup + 1}..{cycles}. Written by `benches/bench_leak.py`.\n\n"
        + markdown_table(
            [*HEADER[:4], f"RSS cycle {warmup}", f"RSS cycle {cycles}", *HEADER[4:]],
            rows,
            align="llrrrrrrc",
        )
        + f"\n\n## RSS curve [MiB] every {every} cycles\n\n"
        + markdown_table(["case"] + [str(m) for m in marks], curve)
        + "\n"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=2000, help="cycles per case")
    ap.add_argument(
        "--smoke", action="store_true", help="20 cycles per case, in one process (for tests)"
    )
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(CASES))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps([child(name, args.cycles) for name in args.child.split(",")]))
        return 0
    started = time.perf_counter()
    cycles, warmup, every = (20, 10, 10) if args.smoke else (args.cycles, WARMUP, 100)
    check(cycles > warmup, f"--cycles must exceed the warm-up of {warmup}")
    names = CASES if args.only is None else args.only.split(",")
    unknown = set(names) - set(CASES)
    if unknown:
        ap.error(f"unknown cases: {sorted(unknown)}")
    os.environ.pop("RAYON_NUM_THREADS", None)  # the multiclass cases use n_jobs=2
    results = []
    # A fresh process per case; a smoke run's cases share one.
    groups = [names] if args.smoke else [[name] for name in names]
    children = (
        run_child([__file__, "--child", ",".join(group), "--cycles", str(cycles)], timeout=3600)
        for group in groups
    )
    for res in (res for cases in children for res in cases):
        name = res["name"]
        res["summary"] = summarize(res, warmup)
        results.append(res)
        s = res["summary"]
        curve = " ".join(f"{res['rss_mb'][m - 1]:.1f}" for m in range(every, cycles + 1, every))
        print(f"{name}: {s['ms_per_cycle']:.1f} ms/cycle; RSS [MiB] every {every} cycles: "
              f"{curve}; growth after cycle {warmup}: {s['growth_mb']:+.2f} MiB, "
              f"slope {s['slope_bytes_per_cycle']:+.0f} B/cycle", flush=True)  # fmt: skip
    prefix = "leak_smoke" if args.smoke else "leak"
    text = report(results, cycles, warmup, every, shared=args.smoke)
    png = plot(results, warmup, RESULTS_DIR / f"{prefix}.png")
    if png:
        text += f"\n![RSS against cycles]({png})\n"
    (RESULTS_DIR / f"{prefix}.json").write_text(
        json.dumps(
            {"cycles": cycles, "warmup": warmup, "tolerance_mb": TOLERANCE_MB,
             "results": results},
            indent=1,
        ) + "\n"
    )  # fmt: skip
    publish(prefix, text, started)
    bad = [res["name"] for res in results if not res["summary"]["ok"]]
    check(not bad, f"RSS grew by more than {TOLERANCE_MB:g} MiB after the warm-up: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
