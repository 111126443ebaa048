"""Kernel SVM benchmark: KernelPegasosClassifier against scikit-learn's SVC.

The same rbf kernel and gamma for both, ``C = 1/(alpha n_train)``. SVC is fitted once
per dataset (cached in ``benches/results/kernel_svc_cache.json``). Kernel Pegasos is
then fitted from scratch for 1, 2, 4, 8, ... passes until its test accuracy is within
1 percentage point of SVC's (and, on the paper's datasets, reaches the paper's
Pegasos test error) or the time budget runs out.

    python benches/bench_kernel.py [--quick | --smoke] [--datasets a9a,usps,...] [--threads N]
                                   [--budget SECONDS] [--rerun-svc]
    python benches/bench_kernel.py --multi-class 2,4 --datasets usps

``--multi-class PASSES`` measures only multi_class="ovr" against "ovo" (at each
number of passes listed) and SVC (fitted in the same run, never from the cache):
fit and predict times (medians of ``--repeats`` runs), test accuracies and each
fit's ratio to SVC's fit time, written to ``benches/results/kernel_multiclass.md``
and ``.json`` (``--prefix`` changes the name).

Writes ``benches/results/kernel.md``, ``kernel.json`` and one ``kernel_<dataset>.png``
per dataset (``kernel_quick*`` with ``--quick``, ``--max-train`` or ``--max-test``;
``kernel_smoke*`` with ``--smoke``: small generated sets, no dataset files needed, for
the test suite; ``--prefix NAME`` for ``NAME.md`` and its files) and prints the
tables. Every fit and prediction time is the median of ``--repeats`` runs. See
benches/README.md for what every number means.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from pathlib import Path

import common  # one-thread environment before numpy
import numpy as np
import plots
import scipy.sparse as sp
from common import RESULTS_DIR, as_int32_csr, check, select_names, timeit
from report import (
    fmt_pct,
    fmt_time,
    markdown_table,
    measure_and_publish,
    named_sets,
    notes,
    plots_list,
    publish,
    section,
    verdict,
    write_json,
)

#: Experiments: the dataset file set (``benches/shared_data.py``), the rbf gamma (a
#: number or "scale"), the regularisation as ``alpha`` (then ``C = 1/(alpha n)``) or
#: ``C`` (then ``alpha = 1/(C n)``), and optionally: ``target`` (a one-vs-rest binary
#: task: label == target), ``dense`` (give both solvers a dense array instead of CSR),
#: ``paper`` (test errors of the Pegasos paper's Table 2: optimum, Pegasos) and
#: ``svc_min_acc`` (SVC's test accuracy on the full data must reach it, otherwise the
#: setup -- data, scaling, gamma, C -- is wrong and the run stops).
EXPERIMENTS: dict[str, dict] = {
    "reuters-lasvm": {
        "data": "reuters-lasvm",
        "gamma": 1.0,
        "alpha": 1.29e-4,
        "paper": (0.0288, 0.0291),
        "svc_min_acc": 1 - 0.0288 - 0.01,
    },
    "a9a": {
        "data": "a9a",
        "gamma": 0.05,
        "alpha": 3.07e-5,
        "paper": (0.149, 0.155),
        "svc_min_acc": 1 - 0.149 - 0.01,
    },
    "mnist-8": {
        "data": "mnist",
        "target": 8,
        "gamma": 0.02,
        "alpha": 1.67e-5,
        "paper": (0.0057, 0.006),
        "svc_min_acc": 1 - 0.0057 - 0.005,
    },
    "mnist-10": {"data": "mnist", "gamma": 0.02, "alpha": 1.67e-5, "svc_min_acc": 0.97},
    # C = 32, gamma = 2: the values of the LIBSVM paper (Chang & Lin 2011) for ijcnn1.
    "ijcnn1": {"data": "ijcnn1", "gamma": 2.0, "C": 32.0, "dense": True, "svc_min_acc": 0.98},
    "usps": {"data": "usps", "gamma": "scale", "C": 10.0, "dense": True, "svc_min_acc": 0.935},
}
QUICK_DATASETS = ["a9a", "ijcnn1", "usps"]
#: ``--smoke``: two moons (binary, non-linear, dense) and scikit-learn's digits as
#: CSR (10 classes); both generated or shipped, so the mode runs anywhere.
SMOKE_EXPERIMENTS: dict[str, dict] = {
    "moons-smoke": {"data": "moons-smoke", "gamma": 2.0, "C": 10.0, "svc_min_acc": 0.95},
    "digits-smoke": {"data": "digits-smoke", "gamma": "scale", "C": 10.0, "svc_min_acc": 0.95},
}
QUICK_ROWS = 2000  # training and test rows of each dataset with --quick

#: Passes tried, each a fit from scratch.
SCHEDULE = [1, 2, 4, 8, 16, 32, 64, 128, 256]
MIN_POINTS = 3  # schedule points run even when the goals are met earlier (budget allowing)
SEED = 0
DEFAULT_CACHE_MB = 200.0  # kernel cache of both solvers (SVC's default)

# Target.
ACC_TOLERANCE = 0.01  # Pegasos' goal: SVC's test accuracy minus 1 percentage point
TIME_TARGET = 0.5  # Pegasos time to that goal / SVC fit time, at most

# Sanity limits (a violation raises).
OBJECTIVE_SLACK = 0.01  # Pegasos' primal objective may be at most 1% below SVC's
KERNEL_TOL = 1e-9  # pegasos_rs' rbf kernel against scikit-learn's
DECISION_TOL = 1e-6  # SVC's decision values recomputed from its dual coefficients


# ----------------------------------------------------------------------------- data

_RAW: dict[str, tuple] = {}


def load_raw(data: str):
    """``_datasets.load(data)``, kept for the run (mnist serves two experiments), or
    None when the files are absent."""
    import shared_data as _datasets

    if data not in _RAW and data in SMOKE_EXPERIMENTS:
        _RAW[data] = _smoke_data(data)
    if data not in _RAW:
        if data != "mnist" and data not in _datasets.FILES:
            return None
        if not _datasets.available(data):
            return None
        _RAW[data] = _datasets.load(data)
    return _RAW[data]


def _smoke_data(data: str):
    if data == "moons-smoke":
        from sklearn.datasets import make_moons

        X, y = make_moons(1600, noise=0.15, random_state=SEED)
        return X[:1000], y[:1000], X[1000:], y[1000:]
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = sp.csr_matrix(X / 16.0)
    return X[:1200], y[:1200], X[1200:], y[1200:]


def subset(n: int, size: int | None, seed: int) -> np.ndarray | None:
    """Sorted random rows (``size`` of ``n``), or None to keep them all."""
    if size is None or size >= n:
        return None
    return np.sort(np.random.RandomState(seed).choice(n, size, replace=False))


def as_input(X, dense: bool):
    """The matrix both solvers get: dense C-ordered float64, or CSR float64 with
    sorted int32 indices."""
    if sp.issparse(X):
        if dense:
            return np.ascontiguousarray(X.toarray(), dtype=np.float64)
        return as_int32_csr(X)
    return np.ascontiguousarray(X, dtype=np.float64)


def resolve_gamma(gamma, X) -> float:
    """A numeric gamma; "scale" is scikit-learn's ``1 / (n_features X.var())``."""
    if gamma != "scale":
        return float(gamma)
    if sp.issparse(X):
        var = X.multiply(X).mean() - X.mean() ** 2
    else:
        var = X.var()
    return 1.0 / (X.shape[1] * float(var))


def _labelled(name: str, cfg: dict, raw) -> tuple:
    """``(X, y, Xt, yt)`` of the experiment: MNIST's pixels checked in [0, 1], the
    labels of a one-vs-rest ``target`` task."""
    X, y, Xt, yt = raw
    y, yt = np.asarray(y), np.asarray(yt)
    if cfg["data"] == "mnist":
        # _datasets returns the pixels as float64 in [0, 1]; scale if that changes.
        if X.max() > 1.0:
            X, Xt = X / 255.0, Xt / 255.0
        check(
            X.min() >= 0.0 and X.max() <= 1.0 and Xt.min() >= 0.0 and Xt.max() <= 1.0,
            f"{name}: pixels not in [0, 1] after scaling",
        )
    if "target" in cfg:
        y = (y == cfg["target"]).astype(np.int64)
        yt = (yt == cfg["target"]).astype(np.int64)
    return X, y, Xt, yt


def prepare(name: str, args) -> dict | None:
    """The experiment's train/test data and parameters, or None when absent."""
    cfg = {**EXPERIMENTS, **SMOKE_EXPERIMENTS}[name]
    raw = load_raw(cfg["data"])
    if raw is None:
        return None
    X, y, Xt, yt = _labelled(name, cfg, raw)
    n_full = X.shape[0]
    rows = subset(n_full, args.max_train, SEED)
    test_rows = subset(Xt.shape[0], args.max_test, SEED + 1)
    if rows is not None:
        X, y = X[rows], y[rows]
    if test_rows is not None:
        Xt, yt = Xt[test_rows], yt[test_rows]
    dense = bool(cfg.get("dense", False))
    storage = "dense" if (dense or not sp.issparse(X)) else "CSR"
    X, Xt = as_input(X, dense), as_input(Xt, dense)
    n, d = X.shape
    classes = np.unique(y)
    check(classes.size >= 2, f"{name}: fewer than two classes in the training rows")
    check(
        np.all(np.isin(np.unique(yt), classes)),
        f"{name}: the test set has labels the training rows lack",
    )
    # Regularisation: C is the same as in the full run, whatever the subset.
    C = float(cfg["C"]) if "C" in cfg else 1.0 / (cfg["alpha"] * n_full)
    alpha = cfg["alpha"] if ("alpha" in cfg and rows is None) else 1.0 / (C * n)
    gamma = resolve_gamma(cfg["gamma"], X)
    counts = np.unique(yt, return_counts=True)[1]
    return {
        "name": name,
        "data": cfg["data"],
        "X": X,
        "y": y,
        "Xt": Xt,
        "yt": yt,
        "n": n,
        "n_full": n_full,
        "n_test": Xt.shape[0],
        "d": d,
        "nnz_per_row": (X.nnz / n) if sp.issparse(X) else float(np.count_nonzero(X) / n),
        "storage": storage,
        "classes": classes,
        "subset": rows is not None or test_rows is not None,
        "C": C,
        "alpha": alpha,
        "gamma": gamma,
        "gamma_spec": cfg["gamma"],
        "majority": float(counts.max() / counts.sum()),
        "paper": cfg.get("paper"),
        "svc_min_acc": cfg.get("svc_min_acc"),
    }


def fingerprint(ds: dict) -> str:
    """A hash of the exact train and test data (values, structure, labels)."""
    h = hashlib.blake2b(digest_size=12)
    for key in ("X", "Xt"):
        M = ds[key]
        h.update(repr((key, M.shape, sp.issparse(M))).encode())
        parts = (M.data, M.indices, M.indptr) if sp.issparse(M) else (M,)
        for a in parts:
            h.update(np.ascontiguousarray(a).tobytes())
    for key in ("y", "yt"):
        h.update(np.ascontiguousarray(ds[key], dtype=np.float64).tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------- sanity checks


#: Up to this many features, sparse blocks are densified for the BLAS kernel products
#: of the SVC objective (a9a: dense output anyway); above, they stay sparse (reuters).
DENSIFY_MAX_FEATURES = 2000


def rows_block(M, start: int, stop: int):
    """Rows ``start:stop`` of ``M``, dense unless ``M`` is sparse with many features."""
    block = M[start:stop]
    if sp.issparse(block) and block.shape[1] <= DENSIFY_MAX_FEATURES:
        return block.toarray()
    return block


def check_kernel_definition(ds: dict) -> float:
    """pegasos_rs' rbf kernel must equal scikit-learn's for the same gamma (so both
    solvers solve the same problem). Returns the largest difference."""
    from pegasos_rs import pairwise_kernels
    from sklearn.metrics.pairwise import rbf_kernel

    X = ds["X"]
    a, b = X[:64], X[64:128] if X.shape[0] >= 128 else X[:64]
    gamma = ds["gamma"]
    diff = float(
        np.abs(pairwise_kernels(a, b, "rbf", gamma=gamma) - rbf_kernel(a, b, gamma=gamma)).max()
    )
    check(
        diff <= KERNEL_TOL,
        f"{ds['name']}: pegasos_rs' rbf kernel differs from scikit-learn's by {diff:.3g} "
        f"(gamma {ds['gamma']!r}): the two solvers would not solve the same problem",
    )
    return diff


def svc_primal_objective(model, ds: dict, chunk: int = 1024) -> dict:
    """Primal objective ``alpha/2 ||w||^2 + 1/n sum hinge(y f(x))`` of a binary SVC,
    recomputed from its dual coefficients with scikit-learn's ``rbf_kernel``.

    SVC minimises ``1/2 ||w||^2 + C sum hinge``, which is ``C n`` times this (with its
    unregularised bias). Checks first that the recomputed decision values equal
    ``model.decision_function`` (sign convention, gamma, coefficient layout).
    """
    from sklearn.metrics.pairwise import rbf_kernel

    gamma, X = ds["gamma"], ds["X"]
    sv = model.support_vectors_
    sv = rows_block(sv, 0, sv.shape[0])
    coef = model.dual_coef_  # sparse when the training data was
    coef = np.asarray(coef.toarray() if sp.issparse(coef) else coef, dtype=np.float64)[0]
    b = float(model.intercept_[0])
    sq = 0.0
    for s in range(0, sv.shape[0], chunk):
        sq += float(coef[s : s + chunk] @ (rbf_kernel(sv[s : s + chunk], sv, gamma=gamma) @ coef))
    f = np.empty(X.shape[0])
    for s in range(0, X.shape[0], chunk):
        f[s : s + chunk] = rbf_kernel(rows_block(X, s, s + chunk), sv, gamma=gamma) @ coef + b
    m = min(200, X.shape[0])
    ref = model.decision_function(X[:m])
    err = float(np.abs(f[:m] - ref).max() / max(1.0, float(np.abs(ref).max())))
    check(
        err <= DECISION_TOL,
        f"{ds['name']}: SVC decision values recomputed from dual_coef_ differ from "
        f"decision_function by {err:.3g}: the SVC objective would be wrong",
    )
    y_pm = np.where(ds["y"] == model.classes_[1], 1.0, -1.0)
    hinge = float(np.maximum(0.0, 1.0 - y_pm * f).mean())
    return {
        "objective": 0.5 * ds["alpha"] * sq + hinge,
        "norm_sq": sq,
        "hinge": hinge,
        "train_acc": float(np.mean((f > 0) == (y_pm > 0))),
    }


# ---------------------------------------------------------------------------- SVC


def svc_cache_path(prefix: str) -> Path:
    return RESULTS_DIR / f"{prefix}_svc_cache.json"


def load_svc_cache(prefix: str) -> dict:
    path = svc_cache_path(prefix)
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        print(f"[warn] unreadable SVC cache {path.name}: starting a new one", flush=True)
        return {}


def svc_key(ds: dict, args) -> str:
    import sklearn

    return (
        f"{ds['name']}|data={fingerprint(ds)}|{ds['storage']}|rbf gamma={ds['gamma']!r}"
        f"|C={ds['C']!r}|cache={args.cache_size!r}MB|tol=1e-3|sklearn={sklearn.__version__}"
        f"|repeats={args.repeats}"
    )


def run_svc(ds: dict, args, cache: dict) -> dict:
    """SVC's fit and predict times, test accuracy and support vectors (from the cache
    unless ``--rerun-svc`` or the data or parameters changed)."""
    from sklearn.svm import SVC

    key = svc_key(ds, args)
    if not args.rerun_svc and key in cache:
        entry = dict(cache[key])
        print(
            f"   SVC: cached from {entry['date']} (fit {fmt_time(entry['fit_time'])}, "
            f"acc {fmt_pct(entry['acc'])}); --rerun-svc to refit",
            flush=True,
        )
        return {**entry, "cached": True}

    def make():
        return SVC(kernel="rbf", gamma=ds["gamma"], C=ds["C"], cache_size=args.cache_size)

    print(f"   SVC(C={ds['C']:.4g}, gamma={ds['gamma']:.4g}) fitting ...", flush=True)
    t_fit, model, runs = timeit(lambda: make().fit(ds["X"], ds["y"]), args.repeats)
    t_pred, pred, _ = timeit(lambda: model.predict(ds["Xt"]), args.repeats)
    entry = {
        "fit_time": t_fit,
        "fit_runs": runs,
        "predict_time": t_pred,
        "acc": float(np.mean(pred == ds["yt"])),
        "n_sv": int(model.n_support_.sum()),
        "n_sv_per_class": model.n_support_.tolist(),
        "objective": None,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "host": platform.node(),
        "key": key,
    }
    if ds["classes"].size == 2:
        entry.update(svc_primal_objective(model, ds))
    cache[key] = entry
    path = svc_cache_path(args.svc_prefix)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cache, indent=1) + "\n")
    tmp.replace(path)
    return {**entry, "cached": False}


def check_svc(ds: dict, svc: dict) -> None:
    name = ds["name"]
    check(svc["fit_time"] > 0 and svc["predict_time"] > 0, f"{name}: non-positive SVC timing")
    check(
        svc["acc"] > ds["majority"],
        f"{name}: SVC test accuracy {svc['acc']:.4f} not above the majority-class rate "
        f"{ds['majority']:.4f}",
    )
    check(0 < svc["n_sv"] <= ds["n"], f"{name}: SVC has {svc['n_sv']} support vectors")
    if ds["subset"] or ds["svc_min_acc"] is None:
        return
    check(
        svc["acc"] >= ds["svc_min_acc"],
        f"{name}: SVC test accuracy {svc['acc']:.4f} below the expected "
        f"{ds['svc_min_acc']:.4f} for this dataset, gamma {ds['gamma']:.4g} and C "
        f"{ds['C']:.4g}: the data (scaling, labels) or the parameters are wrong",
    )


# ------------------------------------------------------------------------ Pegasos


def pegasos(ds: dict, passes: int, strategy: str, args, multi_class: str = "ovr", n_jobs="args"):
    """The Pegasos estimator of the run; ``n_jobs`` overrides ``args.n_jobs``."""
    from pegasos_rs import KernelPegasosClassifier

    return KernelPegasosClassifier(
        multi_class=multi_class,
        alpha=ds["alpha"],
        kernel="rbf",
        gamma=ds["gamma"],
        max_iter=passes,
        cache_size=args.cache_size,
        strategy=strategy,
        random_state=SEED,
        n_jobs=args.n_jobs if n_jobs == "args" else n_jobs,
        **({} if args.average is None else {"average": args.average}),
    )


def pegasos_fit(ds: dict, passes: int, strategy: str, args, svc: dict | None) -> tuple:
    """One Pegasos fit from scratch (timed), its checks and its fit report; returns
    ``(point, model)``."""
    name = f"{ds['name']}/pegasos@{passes}/{strategy}"
    t_fit, model, _ = timeit(
        lambda: pegasos(ds, passes, strategy, args).fit(ds["X"], ds["y"]), args.repeats
    )
    reports = model.fit_report_
    n_problems = 1 if ds["classes"].size == 2 else ds["classes"].size
    check(t_fit > 0, f"{name}: non-positive fit time")
    check(
        len(reports) == n_problems,
        f"{name}: {len(reports)} fit reports for {n_problems} binary problems",
    )
    steps = passes * ds["n"]
    check(
        all(r["steps"] == steps for r in reports) and model.t_ == steps,
        f"{name}: steps {[r['steps'] for r in reports]}, expected {steps} (passes x n)",
    )
    if strategy != "auto":
        check(
            all(r["strategy"] == strategy for r in reports),
            f"{name}: asked for strategy {strategy!r}, the report says "
            f"{sorted({r['strategy'] for r in reports})}",
        )
    evals = int(sum(r["kernel_evaluations"] for r in reports))
    check(evals > 0, f"{name}: no kernel values computed")
    n_sv = len(model.support_)
    check(0 < n_sv <= ds["n"], f"{name}: {n_sv} support vectors out of {ds['n']} rows")
    objectives = [r["objective"] for r in reports]
    objective = None
    if all(o is not None for o in objectives):
        objective = float(np.mean(objectives))
        check(np.isfinite(objective) and objective > 0, f"{name}: objective {objective}")
        if svc is not None and svc.get("objective") is not None:
            check(
                objective >= svc["objective"] * (1 - OBJECTIVE_SLACK),
                f"{name}: primal objective {objective:.6g} more than "
                f"{OBJECTIVE_SLACK:.0%} below SVC's {svc['objective']:.6g}, which "
                "solves the same problem with an extra free bias: the alpha <-> C "
                "mapping, the kernel or the reported objective is wrong",
            )
    point = {
        "passes": passes,
        "time": t_fit,
        "n_sv": n_sv,
        "strategy": "/".join(sorted({r["strategy"] for r in reports})),
        "kernel_evals": evals,
        "cache_hits": int(sum(r["cache_hits"] for r in reports)),
        "cache_misses": int(sum(r["cache_misses"] for r in reports)),
        "objective": objective,
    }
    return point, model


def evaluate(ds: dict, model, point: dict, args) -> None:
    t_pred, pred, _ = timeit(lambda: model.predict(ds["Xt"]), args.repeats)
    point["predict_time"] = t_pred
    point["acc"] = float(np.mean(pred == ds["yt"]))


def first_point(points: list[dict], goal: float | None) -> dict | None:
    if goal is None:
        return None
    for p in points:
        if p["acc"] >= goal - 1e-12:
            return p
    return None


def paper_goal(ds: dict) -> float | None:
    """Test accuracy of the paper's Pegasos, when the experiment is the paper's."""
    if ds["paper"] is None or ds["subset"]:
        return None
    return 1.0 - ds["paper"][1]


def predict_fit_time(points: list[dict], passes: int) -> float:
    """Expected fit time at ``passes``: linear in the passes through the last two
    points (a kernel Pegasos pass gets cheaper as the margins settle), at least the
    last time; proportional to the passes after the first point."""
    last = points[-1]
    if len(points) == 1:
        return last["time"] * passes / last["passes"]
    prev = points[-2]
    slope = (last["time"] - prev["time"]) / (last["passes"] - prev["passes"])
    return max(last["time"], last["time"] + slope * (passes - last["passes"]))


def run_schedule(ds: dict, svc: dict, args, budget: float) -> tuple[list[dict], str, dict]:
    """Fits from scratch for each number of passes of SCHEDULE until the goals are
    met (and MIN_POINTS points are run) or the next fit would exceed ``budget``
    seconds (fits and predictions). Returns the points, why it stopped, and the
    models by passes kept for the strategy comparison."""
    goal = svc["acc"] - ACC_TOLERANCE
    pgoal = paper_goal(ds)
    points: list[dict] = []
    kept = {}
    spent = 0.0
    reason = "schedule exhausted"
    for i, passes in enumerate(SCHEDULE):
        t0 = time.perf_counter()
        point, model = pegasos_fit(ds, passes, "auto", args, svc)
        evaluate(ds, model, point, args)
        spent += time.perf_counter() - t0
        if passes == args.strategy_passes:
            kept[passes] = model
        del model
        points.append(point)
        obj = "" if point["objective"] is None else f" obj {point['objective']:.5g}"
        print(
            f"   Pegasos {passes:>3} passes: fit {fmt_time(point['time'])}, predict "
            f"{fmt_time(point['predict_time'])}, acc {fmt_pct(point['acc'])}, "
            f"n_SV {point['n_sv']}, {point['strategy']}, "
            f"{point['kernel_evals']:.3g} kernel values{obj}",
            flush=True,
        )
        done = first_point(points, goal) is not None and (
            pgoal is None or first_point(points, pgoal) is not None
        )
        if done and len(points) >= MIN_POINTS:
            reason = "goals reached"
            break
        if i + 1 == len(SCHEDULE):
            break
        nxt = SCHEDULE[i + 1]
        predicted = args.repeats * (predict_fit_time(points, nxt) + point["predict_time"])
        if spent + predicted > budget:
            reason = (
                f"budget: the {nxt}-pass fit would end after ~{predicted + spent:.0f} s "
                f"> {budget:.0f} s"
            )
            break
    return points, reason, kept


def at_default_threads(ds: dict, reach: dict | None, svc: dict, args) -> dict | None:
    """The fit that reached SVC's accuracy - 1 pp again with the estimator's default
    ``n_jobs`` (one thread), when the run used more (``--threads``): its median time
    over the repeats and its ratio to SVC's fit time, so that a non-default thread
    count is shown beside the default's figure. The same model is checked (support
    set size): threads do not change the result."""
    if args.n_jobs is None or reach is None:
        return None
    passes = reach["passes"]
    t, model, runs = timeit(
        lambda: pegasos(ds, passes, "auto", args, n_jobs=None).fit(ds["X"], ds["y"]),
        args.repeats,
    )
    check(
        len(model.support_) == reach["n_sv"],
        f"{ds['name']}: {passes} passes with one thread gave {len(model.support_)} "
        f"support vectors, {reach['n_sv']} with {args.n_jobs}: threads changed the model",
    )
    print(
        f"   the same {passes}-pass fit with one thread (default n_jobs): {fmt_time(t)}, "
        f"ratio {t / svc['fit_time']:.2f}",
        flush=True,
    )
    return {"passes": passes, "time": t, "runs": runs, "ratio": t / svc["fit_time"]}


def compare_strategies(ds: dict, args, kept: dict, svc: dict) -> dict | None:
    """Fit time of strategy "margins" against "support" at ``--strategy-passes``
    passes. The schedule's fit at that many passes is reused for "margins" when
    "auto" resolved to it (the same computation)."""
    P = args.strategy_passes
    if P <= 0:
        return None
    scheduled = ds["_points_by_passes"].get(P)
    out: dict = {"passes": P, "auto_resolved": None if scheduled is None else scheduled["strategy"]}
    models = {}
    for strategy in ("margins", "support"):
        if strategy == "margins" and scheduled is not None and scheduled["strategy"] == strategy:
            point, model, reused = scheduled, kept[P], True
        else:
            point, model = pegasos_fit(ds, P, strategy, args, svc)
            reused = False
        keys = ("time", "n_sv", "kernel_evals", "cache_hits", "cache_misses")
        out[strategy] = {k: point[k] for k in keys} | {"reused": reused}
        models[strategy] = model
    a, b = models["margins"], models["support"]
    same = bool(np.array_equal(a.support_, b.support_))
    out["same_support"] = same
    out["max_coef_diff"] = float(np.abs(a.dual_coef_ - b.dual_coef_).max()) if same else None
    out["ratio"] = out["support"]["time"] / out["margins"]["time"]
    print(
        f"   strategies at {P} passes: margins {fmt_time(out['margins']['time'])}, "
        f"support {fmt_time(out['support']['time'])} (support / margins "
        f"{out['ratio']:.2f}), same support set: {same}",
        flush=True,
    )
    return out


# ----------------------------------------------------------------- one experiment


def compare_multi_class(name: str, args) -> dict | None:
    """SVC, then Pegasos one-vs-rest and one-vs-one at each of ``args.multi_class``
    passes, timed in this run: fit and predict times, accuracies, ratios to SVC."""
    from sklearn.svm import SVC

    ds = prepare(name, args)
    if ds is None:
        print(f"[skip] {name}: data files not found (see benches/shared_data.py)", flush=True)
        return None
    print(f"== {name}: n={ds['n']} d={ds['d']} classes={ds['classes'].size}", flush=True)
    warm_up(ds, args)
    out = {"name": name, "n": ds["n"], "classes": int(ds["classes"].size), "runs": []}

    def measure(label: str, make) -> dict:
        t_fit, model, _ = timeit(lambda: make().fit(ds["X"], ds["y"]), args.repeats)
        t_pred, pred, _ = timeit(lambda: model.predict(ds["Xt"]), args.repeats)
        run = {
            "model": label,
            "fit_time": t_fit,
            "predict_time": t_pred,
            "acc": float(np.mean(pred == ds["yt"])),
            "n_sv": len(model.support_),
        }
        check(t_fit > 0 and run["acc"] > ds["majority"], f"{name}/{label}: {run}")
        out["runs"].append(run)
        return run

    svc = measure(
        "SVC",
        lambda: SVC(kernel="rbf", gamma=ds["gamma"], C=ds["C"], cache_size=args.cache_size),
    )
    # At the run's thread count and, when it is not the default, with one thread.
    thread_counts = ["args"] if args.n_jobs is None else ["args", None]
    for passes in args.multi_class:
        for mc in ("ovr", "ovo"):
            for n_jobs in thread_counts:
                label = f"{mc}@{passes}" + (", 1 thread" if n_jobs is None else "")
                run = measure(
                    label,
                    lambda mc=mc, p=passes, j=n_jobs: pegasos(ds, p, "auto", args, mc, n_jobs=j),
                )
                run["ratio"] = run["fit_time"] / svc["fit_time"]
    print(f"   {'model':<18} {'fit':>9} {'predict':>9} {'acc':>8} {'n_SV':>6} {'fit/SVC':>8}")
    for r in out["runs"]:
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else ""
        print(
            f"   {r['model']:<18} {fmt_time(r['fit_time']):>9} {fmt_time(r['predict_time']):>9}"
            f" {fmt_pct(r['acc']):>8} {r['n_sv']:>6} {ratio:>8}",
            flush=True,
        )
    return out


def warm_up(ds: dict, args) -> None:
    """One small fit and prediction of each solver before anything is timed (lazy
    imports and first-call costs are not counted)."""
    from sklearn.svm import SVC

    rows = subset(ds["n"], 200, SEED)
    X, y = (ds["X"], ds["y"]) if rows is None else (ds["X"][rows], ds["y"][rows])
    if np.unique(y).size < 2:
        return
    SVC(kernel="rbf", gamma=ds["gamma"], C=ds["C"]).fit(X, y).predict(X[:10])
    pegasos(ds, 1, "auto", args).fit(X, y).predict(X[:10])


def schedule_budget(args, svc: dict) -> float:
    """Seconds for the Pegasos schedule: ``--budget``, or by the mode and SVC's time."""
    if args.budget is not None:
        return args.budget
    if args.smoke:
        return 3.0
    if args.quick:
        return 10.0
    return max(60.0, 2.0 * svc["fit_time"])


def reached(ds: dict, svc: dict, points: list[dict]) -> dict:
    """The best point and the first points reaching the goals (SVC's accuracy less
    the tolerance; the paper's Pegasos and optimum errors), with their time ratio
    to SVC's fit."""
    best = max(points, key=lambda p: p["acc"])
    check(
        best["acc"] > ds["majority"],
        f"{ds['name']}: Pegasos' best test accuracy {best['acc']:.4f} (over {len(points)} "
        f"fits) not above the majority-class rate {ds['majority']:.4f}",
    )

    def reach(goal):
        p = first_point(points, goal)
        return None if p is None else {**p, "ratio": p["time"] / svc["fit_time"]}

    goal = svc["acc"] - ACC_TOLERANCE
    pgoal = paper_goal(ds)
    popt = None if pgoal is None else 1.0 - ds["paper"][0]
    return {
        "best": best,
        "goal": goal,
        "reach": reach(goal),
        "paper_goal": pgoal,
        "paper_reach": reach(pgoal),
        "paper_opt_reach": reach(popt),
    }


def run_experiment(name: str, args) -> dict | None:
    ds = prepare(name, args)
    if ds is None:
        print(f"[skip] {name}: data files not found (see benches/shared_data.py)", flush=True)
        return None
    print(
        f"== {name}: n={ds['n']} (of {ds['n_full']}) n_test={ds['n_test']} d={ds['d']} "
        f"{ds['storage']} classes={ds['classes'].size} gamma={ds['gamma']:.4g} "
        f"C={ds['C']:.4g} alpha={ds['alpha']:.4g}",
        flush=True,
    )
    res = {
        k: ds[k]
        for k in (
            "name", "data", "n", "n_full", "n_test", "d", "nnz_per_row", "storage",
            "subset", "C", "alpha", "gamma", "gamma_spec", "majority", "paper",
        )
    }  # fmt: skip
    res["classes"] = int(ds["classes"].size)
    res["averaged"] = args.averaged
    res["kernel_diff"] = check_kernel_definition(ds)
    warm_up(ds, args)

    cache = load_svc_cache(args.svc_prefix)
    svc = run_svc(ds, args, cache)
    check_svc(ds, svc)
    res["svc"] = svc

    res["budget"] = budget = schedule_budget(args, svc)
    t0 = time.perf_counter()
    points, reason, kept = run_schedule(ds, svc, args, budget)
    res["schedule_wall"] = time.perf_counter() - t0
    res["points"], res["stop"] = points, reason
    res.update(reached(ds, svc, points))
    res["reach_one_thread"] = at_default_threads(ds, res["reach"], svc, args)

    ds["_points_by_passes"] = {p["passes"]: p for p in points}
    res["strategies"] = compare_strategies(ds, args, kept, svc)
    kept.clear()
    res["plot"] = plot_experiment(res, args.prefix) if plots.have_matplotlib() else None
    return res


# -------------------------------------------------------------------------- output


def _plot_accuracy(ax, res: dict, peg: dict) -> None:
    pts, svc = res["points"], res["svc"]
    ax.plot([p["time"] for p in pts], [100 * p["acc"] for p in pts], **peg)
    plots.label_points(
        ax, pts, lambda p: p["time"], lambda p: 100 * p["acc"], lambda p: str(p["passes"]), "C0"
    )
    ax.plot(svc["fit_time"], 100 * svc["acc"], "*", color="k", ms=12, label="SVC")
    ax.axhspan(
        100 * res["goal"], 100 * svc["acc"], color="0.85", alpha=0.6,
        label=f"within {100 * ACC_TOLERANCE:g} pp of SVC",
    )  # fmt: skip
    accs = [p["acc"] for p in pts] + [svc["acc"]]
    if res["paper_goal"] is not None:
        opt, peg_err = res["paper"]
        ax.axhline(100 * (1 - opt), color="C3", ls="--", lw=1, label="paper: optimum")
        ax.axhline(100 * (1 - peg_err), color="C2", ls="--", lw=1, label="paper: Pegasos")
        accs += [1 - opt, 1 - peg_err]
    top = max(accs)
    ax.set_ylim(100 * max(min(accs), top - 0.08) - 0.3, 100 * top + 0.3)
    ax.set_ylabel("test accuracy [%]")
    ax.set_title(f"{res['name']}: test accuracy (numbers = passes)")


def _plot_objective(ax, res: dict, peg: dict) -> None:
    pts, svc = res["points"], res["svc"]
    binary = res["classes"] == 2
    objs = [(p["time"], p["objective"]) for p in pts if p["objective"] is not None]
    if objs:
        label = "KernelPegasos, last iterate (no bias)"
        ax.plot(*zip(*objs, strict=True), **{**peg, "label": label})
        ax.set_yscale("log")
    if binary and svc.get("objective") is not None:
        ax.axhline(svc["objective"], color="k", ls="-", lw=1, label="SVC (with bias)")
        ax.plot(svc["fit_time"], svc["objective"], "*", color="k", ms=12)
    ax.set_ylabel("primal objective" + ("" if binary else " (mean over one-vs-rest)"))
    ax.set_title("alpha/2 ||w||^2 + mean hinge")


def plot_experiment(res: dict, prefix: str) -> str:
    """Test accuracy, support vectors and primal objective against fit time: the PNG
    ``<prefix>_<dataset>.png``; returns its file name."""
    from matplotlib.ticker import NullFormatter

    pts, svc = res["points"], res["svc"]
    fig, axes = plots.pyplot().subplots(1, 3, figsize=(16, 4.6))
    which = "averaged" if res.get("averaged") else "last iterate"
    peg = dict(color="C0", marker="o", ms=4, label=f"KernelPegasos, {which}")
    _plot_accuracy(axes[0], res, peg)
    axes[1].plot([p["time"] for p in pts], [p["n_sv"] for p in pts], **peg)
    axes[1].plot(svc["fit_time"], svc["n_sv"], "*", color="k", ms=12, label="SVC")
    axes[1].set_ylabel("support vectors (union over classes)")
    axes[1].set_title("support vectors (prediction cost)")
    _plot_objective(axes[2], res, peg)
    for ax in axes:
        ax.axvline(TIME_TARGET * svc["fit_time"], color="k", ls=":", lw=1)
        plots.log_axes(ax, "training time [s]")
        ax.xaxis.set_minor_formatter(NullFormatter())  # labelled minor ticks overlap
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(
        f"{res['name']}  n={res['n']} d={res['d']} ({res['storage']}), rbf gamma="
        f"{res['gamma']:.4g}, C={res['C']:.4g} (alpha={res['alpha']:.3g}); dotted: "
        f"{TIME_TARGET:g} x SVC fit time",
        fontsize=9,
    )
    return plots.save(fig, RESULTS_DIR / f"{prefix}_{res['name']}.png")


def fmt_reach(r: dict | None) -> str:
    if r is None:
        return "not reached"
    return f"{fmt_time(r['time'])} ({r['passes']} p)"


def _datasets_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        gamma = f"{r['gamma']:.4g}" + (" (scale)" if r["gamma_spec"] == "scale" else "")
        n = f"{r['n']:,}" + (f" of {r['n_full']:,}" if r["n"] != r["n_full"] else "")
        rows.append([
            r["name"], n, f"{r['n_test']:,}", r["d"], f"{r['nnz_per_row']:.0f}",
            r["storage"], r["classes"], gamma, f"{r['C']:.4g}", f"{r['alpha']:.3g}",
            fmt_pct(r["majority"]),
        ])  # fmt: skip
    header = ["dataset", "n train", "n test", "d", "nnz/row", "input", "classes", "gamma",
              "C", "alpha", "majority"]  # fmt: skip
    return markdown_table(header, rows, "lrrrrlrrrrr")


def _time_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        svc, reach = r["svc"], r["reach"]
        ok = reach is not None and reach["ratio"] <= TIME_TARGET
        rows.append([
            r["name"], f"{r['n']:,}", fmt_time(svc["fit_time"]) + (" (c)" if svc["cached"] else ""),
            fmt_pct(svc["acc"]), fmt_reach(reach),
            "—" if reach is None else f"{reach['ratio']:.2f}",
            fmt_pct(r["best"]["acc"]), f"{r['best']['passes']} (max {r['points'][-1]['passes']})",
            verdict(ok), _one_thread_cell(r),
        ])  # fmt: skip
    header = ["dataset", "n_train", "SVC time", "SVC acc",
              f"Pegasos time to SVC acc -{100 * ACC_TOLERANCE:g}pp", "ratio",
              "Pegasos best acc", "passes (best)", f"target ≤ {TIME_TARGET:g}",
              "the same fit with one thread (default n_jobs): time, ratio"]  # fmt: skip
    return markdown_table(header, rows, "lrrrrrrrcr")


def _one_thread_cell(r: dict) -> str:
    one = r.get("reach_one_thread")
    if one is None:
        return "—"
    return f"{fmt_time(one['time'])}, {one['ratio']:.2f} ({verdict(one['ratio'] <= TIME_TARGET)})"


def _models_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        svc = r["svc"]
        at = r["reach"] or r["best"]
        which = "at goal" if r["reach"] else "best"
        obj = "—" if svc.get("objective") is None else f"{svc['objective']:.5g}"
        pobj = "—" if at["objective"] is None else f"{at['objective']:.5g}"
        rows.append([
            r["name"], fmt_time(svc["fit_time"]), fmt_time(svc["predict_time"]),
            f"{svc['n_sv']:,}", obj,
            f"{which}: {at['passes']} p", fmt_time(at["time"]), fmt_time(at["predict_time"]),
            f"{at['n_sv']:,}", pobj, f"{at['kernel_evals']:.3g}", at["strategy"],
        ])  # fmt: skip
    header = ["dataset", "SVC fit", "SVC predict", "SVC n_SV", "SVC objective",
              "Pegasos point", "fit", "predict", "n_SV", "objective", "kernel values",
              "strategy"]  # fmt: skip
    return markdown_table(header, rows, "lrrrrlrrrrrl")


def _paper_table(paper: list[dict]) -> str:
    rows = []
    for r in paper:
        opt, peg = r["paper"]
        if r["subset"]:
            rows.append([r["name"], fmt_pct(opt), fmt_pct(peg), "subset: not comparable",
                         "", "", "", ""])  # fmt: skip
            continue
        pr, po = r["paper_reach"], r["paper_opt_reach"]
        rows.append([
            r["name"], fmt_pct(opt), fmt_pct(peg), fmt_pct(1 - r["svc"]["acc"]),
            fmt_pct(1 - r["best"]["acc"]), fmt_reach(pr),
            "—" if pr is None else f"{pr['ratio']:.2f}",
            fmt_reach(po) + ("" if po is None else f", ratio {po['ratio']:.2f}"),
        ])  # fmt: skip
    header = ["dataset", "paper optimum", "paper Pegasos", "SVC (here)",
              "Pegasos best (here)", "time to paper's Pegasos error", "ratio to SVC",
              "time to the optimum's error"]  # fmt: skip
    return markdown_table(header, rows, "lrrrrrrr")


def _strategies_table(strat: list[dict]) -> str:
    rows = []
    for r in strat:
        s = r["strategies"]
        m, su = s["margins"], s["support"]
        rows.append([
            r["name"], s["passes"], fmt_time(m["time"]), fmt_time(su["time"]),
            f"{s['ratio']:.2f}", f"{m['kernel_evals']:.3g} / {su['kernel_evals']:.3g}",
            "yes" if s["same_support"] else f"no ({m['n_sv']} / {su['n_sv']} SV)",
            s["auto_resolved"] or "—",
        ])  # fmt: skip
    header = ["dataset", "passes", '"margins"', '"support"', "support / margins",
              "kernel values margins / support", "same support set", '"auto" picked']  # fmt: skip
    return markdown_table(header, rows, "lrrrrrcl")


def _curves_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        rows.append([
            r["name"],
            " ".join(f"{p['passes']}:{fmt_time(p['time'])}/{100 * p['acc']:.2f}%/{p['n_sv']}"
                     for p in r["points"]),
            r["stop"],
        ])  # fmt: skip
    return markdown_table(["dataset", "passes: fit time / test acc / n_SV", "stopped"], rows, "lll")


def _notes(results: list[dict]) -> list[str]:
    out = [
        f"{r['name']}: Pegasos schedule budget {r['budget']:.0f} s (fits and predictions), "
        f"used {r['schedule_wall']:.1f} s; SVC objective "
        + (
            "n/a (one-vs-one)"
            if r["svc"].get("objective") is None
            else f"{r['svc']['objective']:.5g} (train acc {fmt_pct(r['svc']['train_acc'])})"
        )
        for r in results
    ]
    out.append(
        f"Plots: {plots_list(results)} (accuracy, support vectors and primal objective "
        f"against fit time; dotted line: {TIME_TARGET:g} x SVC's fit time)."
    )
    return out


def report(results: list[dict], args) -> str:
    """The markdown report of the experiments ``results``."""
    threads = "1 thread" if args.n_jobs is None else f"n_jobs={args.n_jobs} for Pegasos"
    model = (
        "suffix-averaged iterate (average=True; the objectives are the last iterate's)"
        if args.averaged
        else "last iterate (average=False)"
    )
    lines = [
        "# Kernel SVM on "
        + named_sets([r["name"] for r in results])
        + ": KernelPegasosClassifier against SVC",
        "",
        f"{threads[0].upper()}{threads[1:]} (SVC is single-threaded), seed {SEED}, "
        f"repeats {args.repeats} (every "
        f"fit and prediction time, SVC's and Pegasos', is the median of {args.repeats} "
        f"run{'s' if args.repeats > 1 else ''}), "
        f"kernel cache {args.cache_size:g} MB for both, {time.strftime('%Y-%m-%d %H:%M')}. "
        "Same rbf kernel and gamma, C = 1/(alpha n); SVC learns a free bias, Pegasos "
        f"none (the paper's kernel setting); Pegasos model: {model}. Times are fit "
        "times; each Pegasos point is a fit from scratch with max_iter = passes.",
    ]
    lines += section("Datasets", _datasets_table(results))
    title = f"Time to SVC's accuracy - {100 * ACC_TOLERANCE:g} pp"
    lines += section(title, _time_table(results))
    lines += [
        "",
        (
            "(c): SVC measured in an earlier run (`*_svc_cache.json`; `--rerun-svc` refits). "
            if any(r["svc"]["cached"] for r in results)
            else ""
        )
        + "ratio = Pegasos fit time of the first point within the tolerance / SVC fit "
        "time; p = passes.",
    ]
    lines += section("Models", _models_table(results))
    paper = [r for r in results if r["paper"] is not None]
    if paper:
        lines += section("The paper's Table 2 (test error)", _paper_table(paper))
    strat = [r for r in results if r.get("strategies")]
    if strat:
        title = "Margin strategies (fit time at a fixed number of passes)"
        lines += section(title, _strategies_table(strat))
    lines += section("Curves (each point a fit from scratch)", _curves_table(results))
    lines += notes(_notes(results))
    return "\n".join(lines) + "\n"


def multi_class_report(found: list[dict], args) -> str:
    """The markdown report of ``--multi-class``: SVC against Pegasos one-vs-rest and
    one-vs-one at each number of passes, all timed in this run."""
    threads = "1 thread" if args.n_jobs is None else f"n_jobs={args.n_jobs} for Pegasos"
    runs = f"{args.repeats} run{'s' if args.repeats > 1 else ''}"
    lines = [
        "# Kernel SVM: one-vs-rest against one-vs-one (KernelPegasosClassifier) and SVC",
        "",
        f"{threads[0].upper()}{threads[1:]} (SVC is single-threaded, one-vs-one), "
        f'seed {SEED}, kernel cache {args.cache_size:g} MB for both, strategy "auto"; '
        f"every fit and prediction time is the median of {runs}, SVC fitted in this run "
        "(never from a cache). ratio = Pegasos fit time / SVC fit time; ovr@p, ovo@p = "
        'multi_class="ovr" or "ovo" with max_iter = p passes, at the run\'s n_jobs; '
        '", 1 thread": the same with the default n_jobs (one thread).',
    ]
    for r in found:
        svc = next(x for x in r["runs"] if x["model"] == "SVC")
        goal = svc["acc"] - ACC_TOLERANCE
        rows = [
            [
                x["model"], fmt_time(x["fit_time"]), fmt_time(x["predict_time"]),
                fmt_pct(x["acc"]), f"{x['n_sv']:,}",
                f"{x['ratio']:.2f}" if "ratio" in x else "—",
                "reference" if "ratio" not in x else verdict(x["acc"] >= goal - 1e-12),
            ]
            for x in r["runs"]
        ]  # fmt: skip
        header = ["model", "fit", "predict", "test acc", "n_SV", "fit / SVC fit",
                  f"within {100 * ACC_TOLERANCE:g} pp of SVC"]  # fmt: skip
        title = f"{r['name']}: {r['n']:,} training rows, {r['classes']} classes"
        lines += section(title, markdown_table(header, rows, "lrrrrrc"))
    return "\n".join(lines) + "\n"


def save_json(results: list[dict], args) -> Path:
    """Every measurement and the run's arguments: ``results/<prefix>.json``."""
    meta = {k: v for k, v in vars(args).items() if k not in ("prefix", "svc_prefix")}
    return write_json(RESULTS_DIR / f"{args.prefix}.json", {"args": meta, "results": results})


# ---------------------------------------------------------------------------- main


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"{', '.join(QUICK_DATASETS)} on {QUICK_ROWS} train / test rows, 10 s budget",
    )
    ap.add_argument(
        "--smoke", action="store_true", help="small generated sets, 3 s budget (for tests)"
    )
    ap.add_argument("--datasets", help="comma-separated subset of " + ",".join(EXPERIMENTS))
    ap.add_argument(
        "--threads", type=int, default=1, help="n_jobs of Pegasos (default 1; SVC has one)"
    )
    ap.add_argument(
        "--budget",
        type=float,
        help="seconds per dataset for the Pegasos schedule (default: 2 x SVC's fit time, "
        "at least 60 s; 10 s with --quick)",
    )
    ap.add_argument("--rerun-svc", action="store_true", help="refit SVC even when cached")
    ap.add_argument(
        "--repeats", type=int, help="timing repeats (median); default 3, 1 with --quick/--smoke"
    )
    ap.add_argument(
        "--cache-size", type=float, default=DEFAULT_CACHE_MB, help="kernel cache MB (both)"
    )
    ap.add_argument(
        "--strategy-passes",
        type=int,
        default=1,
        help="passes of the margins-vs-support comparison (0: skip it)",
    )
    ap.add_argument(
        "--average",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Pegasos with average=True (suffix averaging; kernel_avg* files) or, with "
        "--no-average, the last iterate (kernel_last* files); default: the estimator's",
    )
    ap.add_argument(
        "--multi-class",
        type=lambda v: [int(p) for p in v.split(",")],
        help="only compare multi_class='ovr' and 'ovo' with SVC at these passes (e.g. 2,4)",
    )
    ap.add_argument("--max-train", type=int, help="random subset of training rows")
    ap.add_argument(
        "--prefix",
        help="output file prefix (default: kernel, kernel_quick, ... by the mode; "
        "kernel_multiclass with --multi-class)",
    )
    ap.add_argument("--max-test", type=int, help="random subset of test rows")
    return ap


def configure(ap: argparse.ArgumentParser, args) -> list[str]:
    """Completes ``args`` (subsets, file prefixes, the Pegasos model) and returns the
    experiments to run."""
    default = (
        list(SMOKE_EXPERIMENTS)
        if args.smoke
        else QUICK_DATASETS
        if args.quick
        else list(EXPERIMENTS)
    )
    names = select_names(ap, args.datasets, {**EXPERIMENTS, **SMOKE_EXPERIMENTS}, default)
    if args.smoke:
        args.rerun_svc = True  # never trust a cached SVC result in the suite's check
        common.smoke_run()
    if args.quick:
        args.max_train = args.max_train or QUICK_ROWS
        args.max_test = args.max_test or QUICK_ROWS
    if args.repeats is None:
        args.repeats = 1 if args.quick or args.smoke else 3
    if args.threads < 1 or args.repeats < 1 or args.cache_size < 0:
        ap.error("--threads and --repeats must be >= 1, --cache-size >= 0")
    args.n_jobs = None if args.threads == 1 else args.threads
    # A run on subsets never overwrites the full run's files.
    subsets = args.quick or args.max_train is not None or args.max_test is not None
    args.svc_prefix = "kernel_smoke" if args.smoke else "kernel_quick" if subsets else "kernel"
    suffix = {None: "", True: "_avg", False: "_last"}[args.average]
    if args.multi_class:
        suffix = "_multiclass" + suffix
    if args.prefix is not None:
        args.svc_prefix = args.prefix
    else:
        args.prefix = args.svc_prefix + suffix
    from pegasos_rs import KernelPegasosClassifier

    defaults = KernelPegasosClassifier().get_params()
    if args.average is not None and "average" not in defaults:
        ap.error("--average: this KernelPegasosClassifier has no average parameter")
    # The model Pegasos returns (recorded in the report): averaged or last iterate.
    args.averaged = bool(defaults.get("average", False) if args.average is None else args.average)
    return names


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    names = configure(ap, args)
    if args.multi_class:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        found = [r for r in map(lambda n: compare_multi_class(n, args), names) if r]
        if not found:
            print("no dataset available: nothing measured", file=sys.stderr)
            return 1
        path = write_json(RESULTS_DIR / f"{args.prefix}.json", found)
        publish(args.prefix, multi_class_report(found, args), started, also=path.name)
        return 0
    return measure_and_publish(
        args.prefix,
        names,
        lambda name: run_experiment(name, args),
        lambda results: save_json(results, args),
        lambda results: report(results, args),
    )


if __name__ == "__main__":
    sys.exit(main())
