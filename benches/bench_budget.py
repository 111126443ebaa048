"""Budgeted kernel Pegasos (issue 40): ``KernelPegasosClassifier`` and
``KernelPegasosRegressor`` with ``budget=B`` against SVC / SVR and against
Nyström(B) + the linear ``PegasosClassifier``.

A budgeted model keeps at most B support vectors per binary problem: a step costs
O(B d), a prediction O(B d) per row and problem. Each budgeted fit is a fit from
scratch with ``max_iter`` = 1, 2, 4, ... passes (a *curve*), for each B of
``--budgets`` and each maintenance rule of ``--maintenance``; a curve stops at its
goal, when a point improves on the curve's best by less than 0.1 pp (1 % of the MSE),
or before a fit expected to take longer than ``--cap-factor`` times the target's time
limit (a curve whose first fit is expected to take that long is not run: the report
says so). Parts (``--parts``, each can run alone; the page keeps the other parts'
last results, see below):

* ``classification``: ijcnn1, usps and mnist-10 with bench_kernel.py's experiments
  (its data loading, scaling, gamma and C, alpha = 1/(C n)). SVC (libsvm, one
  thread) through bench_kernel.py's SVC cache (``results/kernel_svc_cache.json``;
  ``--rerun-svc`` refits), fitted ``--svc-repeats`` times (default: ``--repeats``,
  but once on mnist-10, whose fit takes minutes). Targets: (A) the first budgeted fit
  reaching SVC's test accuracy - 1 pp within 1/10 of SVC's fit time, with some B and
  rule, at ``--threads`` (n_jobs=2) and with one thread; (B) for each B, the
  budgeted model's accuracy at least that of Nyström(B) + PegasosClassifier at equal
  time: at the time of the budgeted fit compared (its first fit reaching SVC - 1 pp,
  else its most accurate), the best accuracy of the Nyström pipelines (map fit and
  transform + linear fit with 1, 2, 4, ... passes) that take no longer.
  ``pegasos_rs.Nystroem(n_components=B)``, same gamma, on float32 rows (converted
  before the timer), then ``PegasosClassifier(alpha=alpha)``, its defaults otherwise.
* ``generated``: ``rbf_network.py``'s problem, 10^6 dense rows x 20 features
  (``--rows``), 2 % label noise (Bayes accuracy 98 % by construction, printed), a
  100,000-row test set; alpha 5e-5 and gamma 0.025 for every method. Nyström(2000) +
  PegasosClassifier on the first ``--nystroem-rows`` rows (10^6 rows x 2,000 float32
  features would be 8 GB), SVC on the first 20,000 rows (``--svc-rows``; C = 1/(alpha
  n)), budgeted fits on all rows. Target (C): a budgeted fit within 1 pp of the best
  test accuracy any method reaches here, in at most 60 s, its memory independent of
  the number of rows beyond the data: the peak RSS growth during the fit (a fresh
  process, ``common.measure_fit_memory``) at ``--rows`` and at a tenth of them grows
  by at most 1/8 of the data's growth (no copy of the rows; label-sized arrays only).
* ``dask``: the generated problem's rows written as svmlight files (``--workdir``,
  kept for later runs) and read by ``pegasos_rs.dask.read_svmlight`` on a
  ``LocalCluster`` of 2 worker processes x 1 thread with ``--dask-memory`` (1 GiB)
  each; ``pegasos_rs.dask.KernelPegasosClassifier`` in exact mode with the generated
  part's deciding fit (B, rule, passes; else ``--dask-fit``), timed ``--repeats``
  times, the largest worker's resident memory after each fit, and the in-memory fit
  of the files' rows, which must be the same model bit for bit (checked).
* ``regression``: cpusmall with bench_kernel_regression.py's loading and settings
  (C = 10, gamma = 1, epsilon = 0.1, 200 MB kernel cache for both). Target (D): the
  first budgeted fit whose test MSE is within 5 % of SVR's in at most 1/2 of SVR's
  fit time.

Every time that decides a target is the median of ``--repeats`` (3) runs in this run
(the points of a curve are timed once while it is swept, then the compared points
are fitted again until they have ``--repeats`` runs, which must give the same
model), the machine's load recorded with each part. Prediction times are of the test
set, per 10,000 rows, one run. ``--threads 2`` (default) is the n_jobs of the
budgeted and Nyström fits; the fit deciding a target is timed with one thread too.

    python benches/bench_budget.py                            # every part (see benches/README.md)
    python benches/bench_budget.py --parts classification --datasets usps --budgets 100 --repeats 1
    python benches/bench_budget.py --parts generated --rows 100000
    python benches/bench_budget.py --maintenance merge,remove,project
    python benches/bench_budget.py --smoke                    # tiny data, seconds (the test suite)

Writes ``results/budget.md`` and ``budget.json``. The JSON keeps each unit (a data
set of a part) with the command, date and machine load of the run that measured it:
a run of some parts or data sets replaces those and the page is written again with
the others' last results. A run on smaller data (``--rows``, ``--max-train``,
``--max-test``, ``--nystroem-rows``, ``--svc-rows``) writes ``budget_quick.*``
instead (``--prefix`` names others); ``--smoke`` only prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import common  # the one-thread environment before numpy
import numpy as np
import scipy.sparse as sp
from common import RESULTS_DIR, check, retime_point, time_once, timeit
from report import (
    command,
    fmt_pct,
    fmt_time,
    machine_state,
    markdown_table,
    notes,
    publish,
    section,
    verdict,
    write_json,
)

PARTS = ("classification", "generated", "regression", "dask")
DEFAULT_PARTS = ("classification", "generated", "regression", "dask")
BUDGETS = (100, 500, 2000)
MAINTENANCE = ("merge", "remove")
#: max_iter of a curve's fits, each from scratch.
PASSES = (1, 2, 4, 8, 16, 32)
SEED = 0

CLASSIFICATION_SETS = ("ijcnn1", "usps", "mnist-10")
#: SVC is fitted once by default on this set (bench_kernel.py: about 6 minutes).
LARGEST_SET = "mnist-10"
REGRESSION_SETS = ("cpusmall",)

# Targets.
ACC_TOLERANCE = 0.01  # SVC's test accuracy - 1 pp; the generated problem's best - 1 pp
SVC_TIME_TARGET = 0.1  # (A) time to that accuracy / SVC's fit time, at most
MSE_FACTOR = 1.05  # (D) SVR's test MSE + 5 %
SVR_TIME_TARGET = 0.5  # (D) time to it / SVR's fit time, at most
GENERATED_SECONDS = 60.0  # (C) the budgeted fit's time, at most
MEMORY_SHARE = 1 / 8  # (C) fit memory growth / data growth, at most

# When a curve stops without its goal: a point improving on the curve's best by
# less than this (accuracy), or by less than this share of the MSE.
PLATEAU_ACC = 0.001
PLATEAU_MSE = 0.01

#: The generated problem (rbf_network.py): sizes, and alpha and gamma of every method
#: (gamma is half the labelling function's width; alpha gives SVC on 20,000 rows
#: C = 1, the best of C in {1, 10} and gamma in {0.025, 0.05} on a first draft of the
#: network).
GENERATED = {
    "rows": 1_000_000,
    "test_rows": 100_000,
    "svc_rows": 20_000,
    "nystroem_rows": 200_000,
    "nystroem_components": 2000,
    "alpha": 5e-5,
    "gamma": 0.025,
}
SMOKE_GENERATED = {**GENERATED, "rows": 6000, "test_rows": 2000, "svc_rows": 1000,
                   "nystroem_rows": 6000, "nystroem_components": 60}  # fmt: skip
SMOKE_CLASSIFICATION = ("moons-smoke", "digits-smoke")
SMOKE_REGRESSION = ("friedman-smoke",)
SMOKE_BUDGETS = (20, 60)


# ------------------------------------------------------------------------ metrics


@dataclass(frozen=True)
class Metric:
    """The test score of a part: accuracy (higher is better) or MSE (lower)."""

    key: str
    higher: bool

    def better(self, a: float, b: float) -> bool:
        return a > b if self.higher else a < b

    def reaches(self, value: float, goal: float) -> bool:
        return value >= goal - 1e-12 if self.higher else value <= goal + 1e-12

    def improves(self, value: float, best: float) -> bool:
        """Whether ``value`` improves on ``best`` by more than the plateau margin."""
        if self.higher:
            return value > best + PLATEAU_ACC
        return value < best * (1 - PLATEAU_MSE)

    def score(self, pred, truth) -> float:
        if self.higher:
            return float(np.mean(pred == truth))
        return float(np.mean((np.asarray(pred, dtype=np.float64) - truth) ** 2))

    def show(self, value: float | None) -> str:
        if value is None:
            return "—"
        return fmt_pct(value) if self.higher else f"{value:.4g}"


ACCURACY = Metric("acc", True)
MSE = Metric("mse", False)


def fingerprint(model) -> str:
    """A hash of a fitted kernel model's coefficients and points, or of a linear
    model's weights: refits with the same seed must give the same."""
    h = hashlib.blake2b(digest_size=8)
    for name in ("dual_coef_", "intercept_", "support_vectors_", "coef_"):
        a = getattr(model, name, None)
        if a is None:
            continue
        a = a.toarray() if sp.issparse(a) else np.asarray(a)
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------- the curves


@dataclass
class Problem:
    """One data set of a part: its rows, the metric, and how to build its models."""

    name: str
    X: object
    y: np.ndarray
    Xt: object
    yt: np.ndarray
    metric: Metric
    alpha: float
    gamma: float
    regression: bool = False
    epsilon: float = 0.1
    cache_size: float = 200.0
    multi_class: str = "auto"
    average: bool | None = None

    @property
    def n_test(self) -> int:
        return int(self.Xt.shape[0])


def budgeted(p: Problem, B: int, rule: str, passes: int, n_jobs):
    """The budgeted estimator of ``p``."""
    from pegasos_rs import KernelPegasosClassifier, KernelPegasosRegressor

    common_params = dict(
        alpha=p.alpha, gamma=p.gamma, max_iter=passes, budget=B, budget_maintenance=rule,
        random_state=SEED, n_jobs=n_jobs, cache_size=p.cache_size,
        **({} if p.average is None else {"average": p.average}),
    )  # fmt: skip
    if p.regression:
        return KernelPegasosRegressor(epsilon=p.epsilon, **common_params)
    return KernelPegasosClassifier(multi_class=p.multi_class, **common_params)


def check_budgeted(p: Problem, model, B: int, passes: int, what: str) -> None:
    """A budgeted model keeps its budget, every problem ran passes x its rows' steps
    (one-vs-rest and regression: every row), and reports the budgeted solver."""
    reports = model.fit_report_
    check(all(r["strategy"] == "budget" for r in reports), f"{what}: not the budgeted solver")
    points = model.support_vectors_.shape[0]
    check(0 < points <= B * len(reports), f"{what}: {points} points for {len(reports)} x {B}")
    if getattr(model, "multi_class_", "ovr") == "ovr":
        steps = passes * p.X.shape[0]
        check(all(r["steps"] == steps for r in reports), f"{what}: steps, expected {steps}")


def predict_seconds_10k(model, X) -> tuple[float, np.ndarray]:
    """The time to predict the rows of ``X``, per 10,000 rows, and the predictions."""
    t, pred = time_once(lambda: model.predict(X))
    return t * 10_000 / X.shape[0], pred


def budget_point(p: Problem, B: int, rule: str, passes: int, n_jobs) -> dict:
    """One budgeted fit from scratch, timed once, and its test score."""
    what = f"{p.name}/B={B}/{rule}@{passes}"
    common.collect()
    t, model = time_once(lambda: budgeted(p, B, rule, passes, n_jobs).fit(p.X, p.y))
    check(t > 0, f"{what}: non-positive fit time")
    check_budgeted(p, model, B, passes, what)
    t_pred, pred = predict_seconds_10k(model, p.Xt)
    point = {
        "passes": passes, "time": t, "runs": 1, p.metric.key: p.metric.score(pred, p.yt),
        "predict_10k": t_pred, "points": int(model.support_vectors_.shape[0]),
        "fingerprint": fingerprint(model),
    }  # fmt: skip
    print(
        f"   B={B} {rule} {passes:>2} passes: fit {fmt_time(t)}, "
        f"{p.metric.key} {p.metric.show(point[p.metric.key])}, predict "
        f"{fmt_time(t_pred)} / 10k rows, {point['points']} points",
        flush=True,
    )
    return point


def sweep(
    measure, cap: float, metric: Metric, goal: float | None, fixed: float = 0.0
) -> tuple[list[dict], str]:
    """A curve: ``measure(passes)`` for passes 1, 2, 4, ... (``common.budget_sweep``)
    until a point reaches ``goal``, improves on the curve's best by less than the
    plateau margin, or the next fit would take longer than ``cap`` seconds with the
    ``fixed`` seconds every point of the curve adds (a feature map's). Returns the
    points and why the curve stopped."""
    why = []

    def done(point: dict) -> bool:
        value = point[metric.key]
        if goal is not None and metric.reaches(value, goal):
            why.append("goal reached")
            return True
        earlier = [q[metric.key] for q in points_so_far if q is not point]
        points_so_far.append(point)
        if earlier:
            best = max(earlier) if metric.higher else min(earlier)
            if not metric.improves(value, best):
                why.append("plateau")
                return True
        return False

    points_so_far: list[dict] = []
    points = common.budget_sweep(measure, list(PASSES), max(cap - fixed, 0.0), done)
    if why:
        return points, why[0]
    if points[-1]["passes"] == PASSES[-1]:
        return points, f"{PASSES[-1]} passes"
    nxt = PASSES[len(points)]
    return points, f"cap: {nxt} passes expected over {cap:.0f} s"


def compared_point(points: list[dict], metric: Metric, goal: float | None) -> dict:
    """The point a curve is compared by: its first reaching ``goal``, else its best
    (the earliest of equals)."""
    if goal is not None:
        for q in points:
            if metric.reaches(q[metric.key], goal):
                return q
    best = points[0]
    for q in points[1:]:
        if metric.better(q[metric.key], best[metric.key]):
            best = q
    return best


def budget_curve(p: Problem, B: int, rule: str, args, cap: float, goal, guess) -> dict:
    """The curve of budget ``B`` and rule ``rule``, unless its first fit is expected
    (``guess`` seconds, from the smaller budgets' first fits) to take longer than
    ``cap``. Its compared point is fitted again to ``--repeats`` runs."""
    curve = {"B": B, "rule": rule, "cap": cap}
    if guess is not None and guess > cap:
        stop = f"not run: 1 pass expected to take ~{guess:.0f} s > {cap:.0f} s"
        curve.update(points=[], compared=None, reach=None, stop=stop)
        print(f"   B={B} {rule}: {curve['stop']}", flush=True)
        return curve
    points, stop = sweep(lambda n: budget_point(p, B, rule, n, args.n_jobs), cap, p.metric, goal)
    curve.update(points=points, stop=stop)
    point = compared_point(points, p.metric, goal)
    refit = _refit(p, B, rule, point["passes"], args.n_jobs)
    retime_point(point, refit, args.repeats, ("fingerprint",), f"{p.name} B={B} {rule}")
    point["compared"] = True
    curve["compared"] = point
    curve["reach"] = (
        point if goal is not None and p.metric.reaches(point[p.metric.key], goal) else None
    )
    return curve


def _refit(p: Problem, B: int, rule: str, passes: int, n_jobs):
    def again() -> dict:
        common.collect()
        t, model = time_once(lambda: budgeted(p, B, rule, passes, n_jobs).fit(p.X, p.y))
        return {"time": t, "fingerprint": fingerprint(model)}

    return again


def first_pass_guess(curves: list[dict], B: int, rule: str) -> float | None:
    """The expected time of the first fit of budget ``B``: the largest smaller budget's
    first fit of the same rule, scaled by the budgets' ratio (a step costs O(B d))."""
    done = [c for c in curves if c["rule"] == rule and c["points"] and c["B"] < B]
    if not done:
        return None
    c = max(done, key=lambda c: c["B"])
    first = c["points"][0]
    return first["time"] / first["passes"] * B / c["B"]


def budget_curves(p: Problem, args, cap: float, goal) -> list[dict]:
    curves: list[dict] = []
    for B in args.budgets:
        for rule in args.maintenance:
            guess = first_pass_guess(curves, B, rule)
            curves.append(budget_curve(p, B, rule, args, cap, goal, guess))
    return curves


def one_thread(p: Problem, curve: dict, args) -> dict | None:
    """The deciding curve's compared fit again with the default n_jobs (one thread),
    when the run's is not: its median fit time and its prediction time (one run);
    the same model, checked."""
    if args.n_jobs is None or curve is None:
        return None
    point = curve["compared"]
    B, rule, passes = curve["B"], curve["rule"], point["passes"]
    t, model, runs = timeit(lambda: budgeted(p, B, rule, passes, None).fit(p.X, p.y), args.repeats)
    check(
        fingerprint(model) == point["fingerprint"],
        f"{p.name} B={B} {rule}: one thread gave another model than {args.n_jobs}",
    )
    t_pred, _ = predict_seconds_10k(model, p.Xt)
    print(f"   the same fit with one thread: {fmt_time(t)}, predict {fmt_time(t_pred)} / 10k")
    return {"time": t, "runs": runs, "predict_10k": t_pred}


# --------------------------------------------------------------- Nyström + linear


def predict_mapped(fmap, clf, Xt, block: int = 10_000) -> np.ndarray:
    """``clf.predict(fmap.transform(Xt))`` by blocks of rows (the mapped test set of
    the generated problem would take 800 MB)."""
    return np.concatenate(
        [clf.predict(fmap.transform(Xt[s : s + block])) for s in range(0, Xt.shape[0], block)]
    )


def nystroem_curve(p: Problem, B: int, args, cap: float, goal, rows: int | None = None) -> dict:
    """Nyström(B) on float32 rows (the first ``rows``), then PegasosClassifier with 1,
    2, 4, ... passes on the same mapped rows. A point's time is the map's (fit and
    transform of the training rows, once) plus its linear fit."""
    from pegasos_rs import Nystroem, PegasosClassifier

    X = p.X if rows is None else p.X[:rows]
    y = p.y if rows is None else p.y[:rows]
    X32, Xt32 = X.astype(np.float32), p.Xt.astype(np.float32)
    components = min(B, X.shape[0])
    fmap = Nystroem(n_components=components, gamma=p.gamma, random_state=SEED, n_jobs=args.n_jobs)

    def map_rows():
        common.collect()
        return time_once(lambda: fmap.fit(X32).transform(X32))

    t_map, Z = map_rows()

    def linear(passes: int):
        return PegasosClassifier(alpha=p.alpha, max_iter=passes, random_state=SEED,
                                 n_jobs=args.n_jobs)  # fmt: skip

    def measure(passes: int) -> dict:
        common.collect()
        t, clf = time_once(lambda: linear(passes).fit(Z, y))
        t_pred, pred = time_once(lambda: predict_mapped(fmap, clf, Xt32))
        point = {
            "passes": passes, "time": t, "runs": 1, "acc": ACCURACY.score(pred, p.yt),
            "predict_10k": t_pred * 10_000 / p.n_test, "fingerprint": fingerprint(clf),
        }  # fmt: skip
        print(
            f"   Nyström({components}) + linear {passes:>2} passes: map {fmt_time(t_map)} + fit "
            f"{fmt_time(t)}, acc {fmt_pct(point['acc'])}",
            flush=True,
        )
        return point

    points, stop = sweep(measure, cap, ACCURACY, goal, fixed=t_map)
    curve = {"B": B, "components": components, "rows": int(X.shape[0]), "map_time": t_map,
             "map_runs": 1, "points": points, "stop": stop,
             "linear": linear, "map_rows": map_rows, "Z": Z, "y": y}  # fmt: skip
    _set_totals(curve)
    return curve


def _set_totals(curve: dict) -> None:
    for q in curve["points"]:
        q["total"] = curve["map_time"] + q["time"]


def retime_nystroem(curve: dict, times: list[float], args) -> None:
    """The Nyström points that could decide an equal-time comparison at ``times``
    (a total within 1.5 x the latest of them), and the map when one does, fitted
    again to ``--repeats`` runs; then the clutter used for it is dropped."""
    latest = max(times, default=0.0)
    near = [q for q in curve["points"] if q["total"] <= 1.5 * latest]
    if near and curve["map_runs"] < args.repeats:
        runs = [curve["map_time"]]
        for _ in range(args.repeats - 1):
            runs.append(curve["map_rows"]()[0])
        curve["map_time"], curve["map_runs"] = float(np.median(runs)), len(runs)
    for q in near:

        def again(q=q) -> dict:
            common.collect()
            t, clf = time_once(lambda: curve["linear"](q["passes"]).fit(curve["Z"], curve["y"]))
            return {"time": t, "fingerprint": fingerprint(clf)}

        retime_point(q, again, args.repeats, ("fingerprint",), f"Nyström({curve['B']})")
    _set_totals(curve)


def drop_work(curve: dict) -> None:
    for key in ("linear", "map_rows", "Z", "y"):
        curve.pop(key, None)


def best_within(points: list[dict], seconds: float) -> dict | None:
    """The most accurate Nyström point whose total time is at most ``seconds``."""
    fast = [q for q in points if q["total"] <= seconds]
    return max(fast, key=lambda q: q["acc"]) if fast else None


# ------------------------------------------------------------------ classification


def svc_args(name: str, ds: dict, args) -> argparse.Namespace:
    """bench_kernel.py's arguments of its SVC cache for this data set."""
    import bench_kernel

    repeats = args.svc_repeats
    if repeats is None:
        repeats = 1 if (name == LARGEST_SET and not ds["subset"]) else args.repeats
    prefix = "budget_smoke" if args.smoke else "kernel_quick" if ds["subset"] else "kernel"
    return argparse.Namespace(
        cache_size=bench_kernel.DEFAULT_CACHE_MB,
        repeats=repeats,
        rerun_svc=args.rerun_svc or args.smoke,
        svc_prefix=prefix,
    )


def svc_result(ds: dict, sargs) -> dict:
    """SVC's fit from bench_kernel.py's cache (an entry of this data and these
    parameters with at least as many runs), else fitted now (and cached)."""
    import bench_kernel

    cache = bench_kernel.load_svc_cache(sargs.svc_prefix)
    key = bench_kernel.svc_key(ds, sargs)
    stem = re.sub(r"\|repeats=\d+$", "", key)
    if not sargs.rerun_svc:
        for k, entry in cache.items():
            if re.sub(r"\|repeats=\d+$", "", k) == stem and entry["fit_runs"] >= sargs.repeats:
                print(f"   SVC: cached ({entry['fit_runs']} runs, {entry['date']})", flush=True)
                return {**entry, "cached": True}
    return bench_kernel.run_svc(ds, sargs, cache)


def warm_up(p: Problem) -> None:
    """One small fit of each solver before anything is timed (lazy imports and
    first-call costs)."""
    from pegasos_rs import Nystroem, PegasosClassifier

    rows = np.random.RandomState(SEED).permutation(p.X.shape[0])[:300]
    X, y = p.X[rows], p.y[rows]
    model = budgeted(p, 20, "merge", 1, None).fit(X, y)
    model.predict(X[:10])
    if not p.regression and np.unique(y).size > 1:
        Z = Nystroem(n_components=20, gamma=p.gamma, random_state=SEED).fit_transform(X)
        PegasosClassifier(alpha=p.alpha, max_iter=1).fit(Z, y).predict(Z[:10])


def equal_time(p: Problem, curves: list[dict], nys: dict, args) -> None:
    """Each budgeted curve's compared point against the Nyström pipelines that take no
    longer (target B), after retiming those."""
    times = [c["compared"]["time"] for c in curves if c["compared"]]
    retime_nystroem(nys, times, args)
    for c in curves:
        point = c["compared"]
        if point is None:
            c["nystroem"] = None
            continue
        rival = best_within(nys["points"], point["time"])
        c["nystroem"] = None if rival is None else {k: rival[k] for k in ("passes", "total", "acc")}
        c["equal_time_ok"] = rival is None or point["acc"] >= rival["acc"] - 1e-12


def fastest_reach(curves: list[dict]) -> dict | None:
    """The curve whose compared point reached the goal fastest."""
    reached = [c for c in curves if c.get("reach")]
    return min(reached, key=lambda c: c["reach"]["time"]) if reached else None


def run_classification(name: str, args) -> dict | None:
    import bench_kernel

    kargs = argparse.Namespace(max_train=args.max_train, max_test=args.max_test)
    ds = bench_kernel.prepare(name, kargs)
    if ds is None:
        print(f"[skip] {name}: data files not found (see benches/shared_data.py)", flush=True)
        return None
    if sp.issparse(ds["X"]) and name not in SMOKE_CLASSIFICATION:
        ds["X"], ds["Xt"] = ds["X"].toarray(), ds["Xt"].toarray()
    print(
        f"== classification {name}: n={ds['n']} n_test={ds['n_test']} d={ds['d']} "
        f"classes={ds['classes'].size} gamma={ds['gamma']:.4g} C={ds['C']:.4g} "
        f"alpha={ds['alpha']:.4g}",
        flush=True,
    )
    started = machine_state()
    p = Problem(name, ds["X"], ds["y"], ds["Xt"], ds["yt"], ACCURACY, ds["alpha"], ds["gamma"],
                multi_class=args.multi_class, average=args.average)  # fmt: skip
    warm_up(p)
    sargs = svc_args(name, ds, args)
    svc = svc_result(ds, sargs)
    bench_kernel.check_svc(ds, svc)
    goal = svc["acc"] - ACC_TOLERANCE
    cap = max(args.min_cap, args.cap_factor * SVC_TIME_TARGET * svc["fit_time"])
    curves = budget_curves(p, args, cap, goal)
    nystroem = []
    for B in args.budgets:
        # Nyström's curve runs (no goal: its best within the time matters) to 1.5 x
        # the slowest budgeted fit it is compared with.
        mine = [c for c in curves if c["B"] == B]
        times = [c["compared"]["time"] for c in mine if c["compared"]]
        nys = nystroem_curve(p, B, args, min(cap, 1.5 * max(times)) if times else cap, None)
        equal_time(p, mine, nys, args)
        drop_work(nys)
        nystroem.append(nys)
    best = fastest_reach(curves)
    res = {
        "part": "classification", "name": name, "n": ds["n"], "n_full": ds["n_full"],
        "n_test": ds["n_test"], "d": ds["d"], "classes": int(ds["classes"].size),
        "gamma": ds["gamma"], "C": ds["C"], "alpha": ds["alpha"], "subset": ds["subset"],
        "majority": ds["majority"], "svc": {k: v for k, v in svc.items() if k != "key"},
        "svc_runs": svc["fit_runs"], "goal": goal, "cap": cap, "curves": curves,
        "nystroem": nystroem, "deciding": None if best is None else [best["B"], best["rule"]],
        "one_thread": one_thread(p, best, args),
    }  # fmt: skip
    best_acc = (
        max(q["acc"] for c in curves for q in c["points"])
        if any(c["points"] for c in curves)
        else None
    )
    check(
        best_acc is None or best_acc > ds["majority"],
        f"{name}: the budgeted fits' best accuracy {best_acc} is not above the majority rate",
    )
    res["machine"] = {"start": started, "end": machine_state()}
    return res


# ------------------------------------------------------------------------ generated


def generated_config(args) -> dict:
    cfg = dict(SMOKE_GENERATED if args.smoke else GENERATED)
    for key in ("rows", "svc_rows", "nystroem_rows", "test_rows"):
        if getattr(args, key, None) is not None:
            cfg[key] = getattr(args, key)
    cfg["svc_rows"] = min(cfg["svc_rows"], cfg["rows"])
    cfg["nystroem_rows"] = min(cfg["nystroem_rows"], cfg["rows"])
    return cfg


def memory_child(rows: int, B: int, rule: str, cfg: dict) -> dict:
    """In a fresh process (``--memory-child``): the peak RSS growth of one budgeted
    1-pass fit on the first ``rows`` generated rows, after a warm-up fit."""
    import rbf_network

    X, y = rbf_network.make_rbf_network(rows)
    p = Problem("memory", X, y, X[:10], y[:10], ACCURACY, cfg["alpha"], cfg["gamma"])
    budgeted(p, B, rule, 1, None).fit(X[:2000], y[:2000])
    out = common.measure_fit_memory(lambda: budgeted(p, B, rule, 1, None).fit(X, y))
    return {**out, "rows": rows, "data_mb": (X.nbytes + y.nbytes) / 2**20}


def fit_memory(B: int, rule: str, cfg: dict, args) -> dict:
    """Target C's memory: the fit's peak RSS growth at ``rows`` and a tenth of them,
    each in a fresh process."""
    sizes = [max(1, cfg["rows"] // 10), cfg["rows"]]
    runs = []
    for rows in sizes:
        child = [str(Path(__file__).resolve()), "--memory-child", str(rows), str(B), rule,
                 "--alpha", repr(cfg["alpha"]), "--gamma", repr(cfg["gamma"])]  # fmt: skip
        runs.append(common.run_child(child))
        print(
            f"   memory at {rows:,} rows: fit +{runs[-1]['extra_mb']:.1f} MiB over "
            f"{runs[-1]['rss_before_mb']:.0f} MiB (data {runs[-1]['data_mb']:.1f} MiB)",
            flush=True,
        )
    small, large = runs
    growth = large["extra_mb"] - small["extra_mb"]
    data_growth = large["data_mb"] - small["data_mb"]
    check(all(r["extra_mb"] >= 0 for r in runs), f"negative memory growth {runs}")
    return {"B": B, "rule": rule, "runs": runs, "growth_mb": growth,
            "data_growth_mb": data_growth, "share": growth / data_growth,
            "exact": all(r["exact"] for r in runs),
            "ok": growth <= MEMORY_SHARE * data_growth}  # fmt: skip


def run_generated(args) -> dict:
    import rbf_network
    from sklearn.svm import SVC

    cfg = generated_config(args)
    print(f"== generated: rbf network, {cfg['rows']:,} rows x {rbf_network.N_FEATURES}", flush=True)
    started = machine_state()
    t_gen, (X, y) = time_once(lambda: rbf_network.make_rbf_network(cfg["rows"]))
    Xt, yt, yt_clean = rbf_network.make_rbf_network(cfg["test_rows"], test=True, clean=True)
    bayes = rbf_network.bayes_accuracy(yt, yt_clean)
    print(
        f"   generated in {t_gen:.1f} s; Bayes accuracy {fmt_pct(1 - rbf_network.NOISE)} by "
        f"construction, {fmt_pct(bayes)} on the test set",
        flush=True,
    )
    p = Problem("generated", X, y, Xt, yt, ACCURACY, cfg["alpha"], cfg["gamma"],
                multi_class=args.multi_class, average=args.average)  # fmt: skip
    warm_up(p)
    # References: SVC on a subsample, Nyström + linear on another.
    m = cfg["svc_rows"]
    svc_C = 1.0 / (cfg["alpha"] * m)
    with common.single_thread():
        common.collect()
        t_svc, svc = time_once(lambda: SVC(C=svc_C, gamma=cfg["gamma"]).fit(X[:m], y[:m]))
        t_svc_pred, pred = predict_seconds_10k(svc, Xt)
    svc_res = {"rows": m, "C": svc_C, "time": t_svc, "acc": ACCURACY.score(pred, yt),
               "predict_10k": t_svc_pred, "n_sv": int(svc.n_support_.sum())}  # fmt: skip
    print(f"   SVC on {m:,} rows: fit {fmt_time(t_svc)}, acc {fmt_pct(svc_res['acc'])}", flush=True)
    cap = max(args.min_cap, args.cap_factor * GENERATED_SECONDS)
    nys = nystroem_curve(p, cfg["nystroem_components"], args, cap, None, rows=cfg["nystroem_rows"])
    drop_work(nys)
    reference = max(svc_res["acc"], max(q["acc"] for q in nys["points"]))
    curves = budget_curves(p, args, cap, reference - ACC_TOLERANCE)
    points = [q for c in curves for q in c["points"]]
    best = max([reference] + [q["acc"] for q in points])
    goal = best - ACC_TOLERANCE
    # The fastest budgeted fit within 1 pp of the best (a compared point, or another
    # point of a curve, then fitted again to --repeats runs).
    within = [(q, c) for c in curves for q in c["points"] if q["acc"] >= goal - 1e-12]
    deciding = None
    if within:
        q, c = min(within, key=lambda qc: qc[0]["time"])
        refit = _refit(p, c["B"], c["rule"], q["passes"], args.n_jobs)
        retime_point(q, refit, args.repeats, ("fingerprint",), f"generated B={c['B']}")
        deciding = {"B": c["B"], "rule": c["rule"], "passes": q["passes"], "time": q["time"],
                    "runs": q["runs"], "acc": q["acc"]}  # fmt: skip
        curve = {"B": c["B"], "rule": c["rule"], "compared": q}
    print(f"   best accuracy {fmt_pct(best)}; budgeted within 1 pp: {deciding}", flush=True)
    mem_B, mem_rule = (
        (deciding["B"], deciding["rule"]) if deciding else (curves[0]["B"], curves[0]["rule"])
    )
    memory = fit_memory(mem_B, mem_rule, cfg, args) if args.memory else None
    return {
        "part": "generated", "name": "generated", "cfg": cfg, "bayes": bayes,
        "bayes_expected": 1 - rbf_network.NOISE, "generation_time": t_gen, "svc": svc_res,
        "nystroem": nys, "curves": curves, "best": best, "goal": goal, "cap": cap,
        "deciding": deciding, "one_thread": one_thread(p, curve, args) if deciding else None,
        "memory": memory, "machine": {"start": started, "end": machine_state()},
    }  # fmt: skip


# ----------------------------------------------------------------------------- dask


def _worker_rss(dask_worker) -> int:
    """A worker process's resident memory (bytes), its own monitor's reading."""
    return int(dask_worker.monitor.get_process_memory())


def run_dask(args, units: dict) -> dict:
    """The generated problem from svmlight files on a ``LocalCluster`` of 2 worker
    processes x 1 thread with ``--dask-memory`` (1 GiB) each: the budgeted fit in
    exact mode (the client draws, the workers send the drawn rows), against the
    in-memory fit of the same rows (the same model, bit for bit, checked). B, the
    rule and the passes are the generated part's deciding fit (else ``--dask-fit``)."""
    import logging

    import distributed
    import pegasos_rs
    import pegasos_rs.dask as pdask
    import rbf_network

    cfg = generated_config(args)
    deciding = (units.get("generated:generated") or {}).get("deciding")
    if deciding is not None and args.dask_fit is None:
        B, rule, passes = deciding["B"], deciding["rule"], deciding["passes"]
    else:
        B, rule, passes = args.dask_fit or (500, "merge", 1)
        B, passes = int(B), int(passes)
    print(f"== dask: {cfg['rows']:,} rows from svmlight files, B={B} {rule} {passes} p", flush=True)
    started = machine_state()
    folder = Path(args.workdir) / f"rbf_network_{cfg['rows']}"
    t_write, files = time_once(lambda: rbf_network.write_svmlight(folder, cfg["rows"]))
    file_bytes = sum(f.stat().st_size for f in files)
    print(f"   {len(files)} files, {file_bytes / 1e9:.2f} GB, ready in {t_write:.0f} s", flush=True)
    Xt, yt = rbf_network.make_rbf_network(cfg["test_rows"], test=True)
    kw = {"budget": B, "budget_maintenance": rule, "gamma": cfg["gamma"], "alpha": cfg["alpha"],
          "max_iter": passes, "random_state": SEED, "n_jobs": args.n_jobs}  # fmt: skip
    if args.average is not None:
        kw["average"] = args.average
    times, rss = [], []
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=args.dask_memory,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        X, y = pdask.read_svmlight([str(f) for f in files], n_features=rbf_network.N_FEATURES,
                                   zero_based=True)  # fmt: skip
        for r in range(args.repeats):
            est = pdask.KernelPegasosClassifier(client=client, **kw)
            t, _ = time_once(lambda est=est: est.fit(X, y))
            times.append(t)
            rss.append(max(client.run(_worker_rss).values()))
            print(f"   fit {r + 1}: {fmt_time(t)}, largest worker {rss[-1] / 2**20:.0f} MiB",
                  flush=True)  # fmt: skip
        model = est.to_local()
    # The in-memory fit of the same rows (CSR, as the files hold them).
    parts = [pegasos_rs.load_svmlight_file(str(f), n_features=rbf_network.N_FEATURES,
                                           zero_based=True) for f in files]  # fmt: skip
    Xm = sp.vstack([a for a, _ in parts], format="csr")
    ym = np.concatenate([b for _, b in parts])
    del parts
    t_mem, local = time_once(lambda: pegasos_rs.KernelPegasosClassifier(**kw).fit(Xm, ym))
    same = fingerprint(local) == fingerprint(model)
    check(same, "the Dask fit is not the in-memory model")
    acc = ACCURACY.score(model.predict(Xt), yt)
    print(f"   in memory {fmt_time(t_mem)}, same model {same}, test acc {fmt_pct(acc)}",
          flush=True)  # fmt: skip
    return {
        "part": "dask", "name": "dask", "cfg": cfg, "B": B, "rule": rule, "passes": passes,
        "files": len(files), "file_gb": file_bytes / 1e9, "memory_limit": args.dask_memory,
        "time": float(np.median(times)), "runs": len(times), "worker_rss_mb":
        max(rss) / 2**20, "in_memory_time": t_mem, "same": same, "acc": acc,
        "n_points": int(model.support_.size), "machine": {"start": started, "end": machine_state()},
    }  # fmt: skip


def dask_section(r: dict) -> list[str]:
    cfg = r["cfg"]
    rows = [[
        f"{cfg['rows']:,}", f"{r['files']} files, {r['file_gb']:.2f} GB",
        f"2 x 1 thread, {r['memory_limit']} each", f"{r['B']} {r['rule']}, {r['passes']} p",
        f"{fmt_time(r['time'])} ({r['runs']} runs)", f"{r['worker_rss_mb']:.0f} MiB",
        fmt_time(r["in_memory_time"]), "yes" if r["same"] else "NO", fmt_pct(r["acc"]),
    ]]  # fmt: skip
    table = markdown_table(
        ["rows", "input", "workers", "budget", "Dask fit (median)", "largest worker RSS",
         "in-memory fit", "same model", "test acc"],
        rows,
    )  # fmt: skip
    return [
        *section("Dask: the generated problem from svmlight files", table),
        "",
        f"- `pegasos_rs.dask.KernelPegasosClassifier` in exact mode on a `LocalCluster` of 2 "
        f"worker processes with memory_limit {r['memory_limit']}; the same parameters in memory "
        "on the files' rows (CSR) give the same model bit for bit (checked). Load: "
        f"{_load(r['machine'])}. Measured by {r['run']}.",
    ]


# ----------------------------------------------------------------------- regression


def run_regression(name: str, args) -> dict | None:
    import bench_kernel_regression as bkr

    data = bkr.load(name)
    if data is None:
        print(f"[skip] {name}: not in the shared data folder", flush=True)
        return None
    cfg = bkr.SETTINGS[name]
    X, y, Xt, yt = data
    print(f"== regression {name}: m={X.shape[0]} d={X.shape[1]} {cfg}", flush=True)
    started = machine_state()
    p = Problem(name, X, y, Xt, yt, MSE, 1.0 / (cfg["C"] * X.shape[0]), cfg["gamma"],
                regression=True, epsilon=cfg["epsilon"], cache_size=bkr.DEFAULT_CACHE,
                average=args.average)  # fmt: skip
    warm_up(p)
    with common.single_thread():
        svr = bkr.svr_reference(data, cfg, bkr.DEFAULT_CACHE, args.repeats)
    print(f"   SVR: fit {fmt_time(svr['time'])} ({svr['runs']} runs), MSE {svr['mse']:.4g}")
    goal = MSE_FACTOR * svr["mse"]
    cap = max(args.min_cap, args.cap_factor * SVR_TIME_TARGET * svr["time"])
    curves = budget_curves(p, args, cap, goal)
    best = fastest_reach(curves)
    return {
        "part": "regression", "name": name, "m": int(X.shape[0]), "m_test": int(Xt.shape[0]),
        "d": int(X.shape[1]), **cfg, "alpha": p.alpha, "svr": svr, "goal": goal, "cap": cap,
        "curves": curves, "deciding": None if best is None else [best["B"], best["rule"]],
        "one_thread": one_thread(p, best, args),
        "machine": {"start": started, "end": machine_state()},
    }  # fmt: skip


# -------------------------------------------------------------------------- report


def _load(m: dict) -> str:
    return f"{m['start']['load'][0]:.2f} / {m['end']['load'][0]:.2f}"


def _reach_cell(curve: dict | None, limit: float, reference: float) -> list[str]:
    if curve is None:
        return ["not reached", "—", "—", "MISS"]
    point = curve["reach"]
    ratio = point["time"] / reference
    return [f"B={curve['B']} {curve['rule']}, {point['passes']} p", fmt_time(point["time"]),
            f"{ratio:.3f}", verdict(ratio <= limit)]  # fmt: skip


def _one_thread_cells(res: dict, limit: float, reference: float) -> list[str]:
    one = res.get("one_thread")
    if one is None:
        return ["—", "—", "—"]
    ratio = one["time"] / reference
    return [fmt_time(one["time"]), f"{ratio:.3f}", verdict(ratio <= limit)]


def _deciding_curve(res: dict) -> dict | None:
    if not res.get("deciding"):
        return None
    B, rule = res["deciding"]
    return next(c for c in res["curves"] if c["B"] == B and c["rule"] == rule)


def classification_targets(results: list[dict], args) -> str:
    header = ["data", "SVC fit", "SVC acc", "goal", "fastest to goal", "time",
              "/ SVC", "A: ≤ 1/10", "one thread", "/ SVC (1 thread)", "A (1 thread)",
              "B: ≥ Nyström(B) at equal time", "load start / end"]  # fmt: skip
    rows = []
    for r in results:
        svc = r["svc"]
        svc_time = fmt_time(svc["fit_time"]) + (" (c)" if svc.get("cached") else "")
        svc_time += f", {r['svc_runs']} run" + ("s" if r["svc_runs"] > 1 else "")
        by_B = []
        for B in sorted({c["B"] for c in r["curves"]}):
            oks = [c.get("equal_time_ok") for c in r["curves"] if c["B"] == B and c["compared"]]
            by_B.append(f"{B}: {verdict(bool(oks) and any(oks)) if oks else 'not run'}")
        rows.append([
            r["name"], svc_time, fmt_pct(svc["acc"]), fmt_pct(r["goal"]),
            *_reach_cell(_deciding_curve(r), SVC_TIME_TARGET, svc["fit_time"]),
            *_one_thread_cells(r, SVC_TIME_TARGET, svc["fit_time"]), "; ".join(by_B),
            _load(r["machine"]),
        ])  # fmt: skip
    return markdown_table(header, rows, "lrrrlrrcrrclr")


def _point_cells(point: dict | None, metric: Metric) -> list[str]:
    if point is None:
        return ["—", "—", "—", "—", "—"]
    return [str(point["passes"]), f"{fmt_time(point['time'])} ({point['runs']})",
            metric.show(point[metric.key]), fmt_time(point["predict_10k"]),
            f"{point.get('points', '—'):,}" if "points" in point else "—"]  # fmt: skip


def classification_fits(results: list[dict]) -> str:
    header = ["data", "B", "method", "passes", "fit (runs)", "test acc", "predict / 10k rows",
              "points", "/ SVC", "Nyström(B) at that time", "≥ Nyström"]  # fmt: skip
    rows = []
    for r in results:
        svc_time = r["svc"]["fit_time"]
        for B in sorted({c["B"] for c in r["curves"]}):
            for c in (c for c in r["curves"] if c["B"] == B):
                point = c["compared"]
                if point is None:
                    rows.append([r["name"], B, c["rule"], c["stop"], "", "", "", "", "", "", ""])
                    continue
                rival = c.get("nystroem")
                rival_cell = "none that fast"
                if rival is not None:
                    rival_cell = f"{fmt_pct(rival['acc'])} ({rival['passes']} p, "
                    rival_cell += f"{fmt_time(rival['total'])})"
                rows.append([r["name"], B, c["rule"], *_point_cells(point, ACCURACY),
                             f"{point['time'] / svc_time:.3f}", rival_cell,
                             verdict(c.get("equal_time_ok"))])  # fmt: skip
            nys = next(n for n in r["nystroem"] if n["B"] == B)
            best = max(nys["points"], key=lambda q: q["acc"])
            rows.append([r["name"], B, "Nyström + linear", best["passes"],
                         f"{fmt_time(best['total'])} ({best['runs']})", fmt_pct(best["acc"]),
                         fmt_time(best["predict_10k"]), f"{nys['components']:,}",
                         f"{best['total'] / svc_time:.3f}", "", ""])  # fmt: skip
    return markdown_table(header, rows, "lrlrrrrrrrc")


def curves_table(results: list[dict], metric: Metric) -> str:
    rows = []
    for r in results:
        for c in r["curves"]:
            pts = " ".join(
                f"{q['passes']}:{fmt_time(q['time'])}/{metric.show(q[metric.key])}"
                for q in c["points"]
            )
            rows.append([r["name"], c["B"], c["rule"], pts or "—", c["stop"]])
        nystroem = r.get("nystroem") or []
        for n in [nystroem] if isinstance(nystroem, dict) else nystroem:
            pts = " ".join(f"{q['passes']}:{fmt_time(q['total'])}/{fmt_pct(q['acc'])}"
                           for q in n["points"])  # fmt: skip
            rows.append([r["name"], n["components"], "Nyström + linear", pts, n["stop"]])
    header = ["data", "B", "method", f"passes: fit time / test {metric.key}", "stopped"]
    return markdown_table(header, rows, "lrlll")


def generated_section(r: dict) -> list[str]:
    cfg, svc, nys = r["cfg"], r["svc"], r["nystroem"]
    lines = [
        "",
        "## Generated problem: every method",
        "",
        f"{cfg['rows']:,} training rows x 20 features of `rbf_network.py` (a random rbf "
        f"network labels them, 2 % of the labels flipped), {cfg['test_rows']:,} test rows; "
        f"alpha {cfg['alpha']:g}, gamma {cfg['gamma']:g} for every method. Bayes accuracy "
        f"{fmt_pct(r['bayes_expected'])} by construction, {fmt_pct(r['bayes'])} on this test "
        f"set. Rows generated in {r['generation_time']:.1f} s. Run with load "
        f"{_load(r['machine'])} (1 min, start / end).",
    ]
    header = ["method", "training rows", "passes", "fit (runs)", "test acc", "predict / 10k rows",
              "points", "to best"]  # fmt: skip
    best = r["best"]
    rows = [["SVC (libsvm, C = 1/(alpha n))", f"{svc['rows']:,}", "—",
             f"{fmt_time(svc['time'])} (1)", fmt_pct(svc["acc"]), fmt_time(svc["predict_10k"]),
             f"{svc['n_sv']:,}", f"{100 * (svc['acc'] - best):+.2f} pp"]]  # fmt: skip
    nb = max(nys["points"], key=lambda q: q["acc"])
    rows.append([f"Nyström({nys['components']}) + PegasosClassifier", f"{nys['rows']:,}",
                 nb["passes"],
                 f"{fmt_time(nb['total'])} ({nb['runs']})", fmt_pct(nb["acc"]),
                 fmt_time(nb["predict_10k"]), f"{nys['components']:,}",
                 f"{100 * (nb['acc'] - best):+.2f} pp"])  # fmt: skip
    for c in r["curves"]:
        q = c["compared"]
        if q is None:
            rows.append([f"budget {c['B']}, {c['rule']}", f"{cfg['rows']:,}", c["stop"],
                         "", "", "", "", ""])  # fmt: skip
            continue
        rows.append([f"budget {c['B']}, {c['rule']}", f"{cfg['rows']:,}",
                     *_point_cells(q, ACCURACY), f"{100 * (q['acc'] - best):+.2f} pp"])  # fmt: skip
    lines += ["", markdown_table(header, rows, "lrrrrrrr")]
    d, mem = r["deciding"], r["memory"]
    ok_time = d is not None and d["time"] <= GENERATED_SECONDS
    target = [["best accuracy of any method", fmt_pct(best), ""]]
    if d is None:
        target.append(["fastest budgeted fit within 1 pp", "none", "MISS"])
    else:
        target.append([
            "fastest budgeted fit within 1 pp",
            f"B={d['B']} {d['rule']}, {d['passes']} p: {fmt_time(d['time'])} "
            f"({d['runs']} runs), {fmt_pct(d['acc'])}",
            verdict(ok_time),
        ])  # fmt: skip
        one = r.get("one_thread")
        if one is not None:
            target.append(["the same fit with one thread", fmt_time(one["time"]),
                           verdict(one["time"] <= GENERATED_SECONDS)])  # fmt: skip
    if mem is not None:
        small, large = mem["runs"]
        target.append([
            "fit memory growth against the data's",
            f"{small['rows']:,} -> {large['rows']:,} rows (B={mem['B']} {mem['rule']}, 1 pass): "
            f"{small['extra_mb']:.1f} -> {large['extra_mb']:.1f} MiB, +{mem['growth_mb']:.1f} MiB "
            f"for +{mem['data_growth_mb']:.1f} MiB of data (share {mem['share']:.3f})"
            + ("" if mem["exact"] else "; the peak could not be reset: an upper bound"),
            verdict(mem["ok"]),
        ])  # fmt: skip
    header = ["target", "measured", f"≤ {GENERATED_SECONDS:.0f} s, memory ≤ 1/8 of the data's"]
    title = "Generated problem: target C (within 1 pp of the best, at most 60 s, memory)"
    lines += section(title, markdown_table(header, target, "llc"))
    return lines


def regression_targets(results: list[dict]) -> str:
    header = ["data", "SVR fit (runs)", "SVR MSE", "goal", "fastest to goal", "time", "/ SVR",
              "D: ≤ 1/2", "one thread", "/ SVR (1 thread)", "D (1 thread)",
              "load start / end"]  # fmt: skip
    rows = []
    for r in results:
        svr = r["svr"]
        rows.append([
            r["name"], f"{fmt_time(svr['time'])} ({svr['runs']})", f"{svr['mse']:.4g}",
            f"{r['goal']:.4g}", *_reach_cell(_deciding_curve(r), SVR_TIME_TARGET, svr["time"]),
            *_one_thread_cells(r, SVR_TIME_TARGET, svr["time"]), _load(r["machine"]),
        ])  # fmt: skip
    return markdown_table(header, rows, "lrrrlrrcrrcr")


def regression_fits(results: list[dict]) -> str:
    header = ["data", "B", "method", "passes", "fit (runs)", "test MSE", "predict / 10k rows",
              "points", "/ SVR"]  # fmt: skip
    rows = []
    for r in results:
        for c in r["curves"]:
            q = c["compared"]
            if q is None:
                rows.append([r["name"], c["B"], c["rule"], c["stop"], "", "", "", "", ""])
                continue
            rows.append([r["name"], c["B"], c["rule"], *_point_cells(q, MSE),
                         f"{q['time'] / r['svr']['time']:.3f}"])  # fmt: skip
    return markdown_table(header, rows, "lrlrrrrrr")


def report(units: dict, args) -> str:
    classification = [u for u in units.values() if u["part"] == "classification"]
    generated = [u for u in units.values() if u["part"] == "generated"]
    regression = [u for u in units.values() if u["part"] == "regression"]
    model = {
        None: "the estimators' default (average='auto': with a budget, the last iterate)",
        True: "averaged",
        False: "last iterate",
    }
    title = "# Budgeted kernel Pegasos: KernelPegasosClassifier / Regressor with budget=B"
    if args.average is not None:
        title += f", the {model[args.average]} model"
    lines = [
        title,
        "",
        "Budgeted fits from scratch with max_iter = 1, 2, 4, ... passes, for each budget B "
        "and maintenance rule; n_jobs=2 for pegasos_rs (budgeted fits, Nyström map and "
        "linear fits), SVC and SVR one thread. A compared point of a curve (its first fit "
        "reaching the goal, else its best) is fitted again to the runs shown in brackets "
        "(median); the other points are timed once. Prediction: the test set, per 10,000 "
        f"rows, one run. Model returned: {model[args.average]}. Each part below was measured "
        "in the run named under it; load: the 1-minute load average at its start and end "
        "(2 CPUs: above 1, another job shared them).",
    ]
    if classification:
        lines += section(
            "Classification: targets A and B (SVC's test accuracy - 1 pp)",
            classification_targets(classification, args),
        )
        lines += [
            "",
            "A: the fastest budgeted fit to SVC's accuracy - 1 pp, at most 1/10 of SVC's "
            "fit time (with n_jobs=2, and the same fit with one thread). B: for each B, the "
            "budgeted model (of some rule) at least as accurate as the best Nyström(B) + "
            "PegasosClassifier pipeline taking no longer. (c): SVC's fit from "
            "bench_kernel.py's cache (`results/kernel_svc_cache.json`), measured in an "
            "earlier run; `--rerun-svc` refits.",
        ]
        lines += section(
            "Classification: budgeted fits and Nyström(B)", classification_fits(classification)
        )
        lines += section("Classification: curves", curves_table(classification, ACCURACY))
        lines += [""] + [
            f"- {u['name']}: n={u['n']:,} (of {u['n_full']:,}), {u['n_test']:,} test rows, "
            f"d={u['d']}, {u['classes']} classes, gamma {u['gamma']:.4g}, C {u['C']:.4g}, "
            f"alpha {u['alpha']:.3g}; a curve's longest fit {u['cap']:.1f} s. Measured by "
            f"{u['run']}."
            for u in classification
        ]
    if generated:
        lines += generated_section(generated[0])
        lines += section("Generated problem: curves", curves_table(generated, ACCURACY))
        lines += ["", f"- Measured by {generated[0]['run']}."]
    if regression:
        lines += section(
            "Regression: target D (SVR's test MSE + 5 %)", regression_targets(regression)
        )
        lines += section("Regression: budgeted fits", regression_fits(regression))
        lines += section("Regression: curves", curves_table(regression, MSE))
        lines += [""] + [
            f"- {u['name']}: m={u['m']:,}, {u['m_test']:,} test rows, d={u['d']}, C {u['C']:g}, "
            f"gamma {u['gamma']:g}, epsilon {u['epsilon']:g}, alpha {u['alpha']:.3g}; kernel "
            f"cache 200 MB for both. Measured by {u['run']}."
            for u in regression
        ]
    dask_units = [u for u in units.values() if u["part"] == "dask"]
    if dask_units:
        lines += dask_section(dask_units[0])
    items = [
        "points: the support vectors a model keeps (kernel values per predicted row), the "
        "union over its binary problems (one-vs-one: every pair keeps B of its own); "
        "Nyström: its components.",
    ]
    if classification or generated:
        items.append(
            "Nyström + linear: `pegasos_rs.Nystroem(n_components=B, gamma)` on float32 rows "
            "(converted before the timer), `PegasosClassifier(alpha)` at its defaults "
            "otherwise; time = map fit and transform of the training rows + the linear fit. "
            "Its row: its most accurate pipeline; its curve (1, 2, 4, ... passes of the "
            "linear fit on the same map) runs to 1.5 x the slowest budgeted fit of the same "
            "B it is compared with (else to the cap), and its points within that are fitted "
            "again to the runs shown (the map too)."
        )
    lines += notes(items)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- main


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny data, seconds (the test suite)")
    ap.add_argument("--parts", default=",".join(DEFAULT_PARTS),
                    help=f"comma-separated subset of {','.join(PARTS)}")  # fmt: skip
    ap.add_argument("--datasets", help="classification and regression sets, e.g. usps,cpusmall")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="values of B")
    ap.add_argument("--maintenance", default=",".join(MAINTENANCE),
                    help="budget_maintenance rules, e.g. merge,remove")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=3, help="runs of every deciding time")
    ap.add_argument("--svc-repeats", type=int,
                    help="SVC's fit runs (default --repeats, 1 on mnist-10)")  # fmt: skip
    ap.add_argument("--rerun-svc", action="store_true", help="refit SVC even when cached")
    ap.add_argument("--threads", type=int, default=2, help="n_jobs of pegasos_rs' fits")
    ap.add_argument("--multi-class", default="auto", choices=("auto", "ovr", "ovo"))
    ap.add_argument("--average", action=argparse.BooleanOptionalAction, default=None,
                    help="the averaged model or (--no-average) the last iterate; "
                    "default: the estimators'")  # fmt: skip
    ap.add_argument("--cap-factor", type=float, default=1.5,
                    help="a curve's longest fit, in the target's time limit")  # fmt: skip
    ap.add_argument("--min-cap", type=float, default=2.0, help="... but at least this (s)")
    ap.add_argument("--max-train", type=int, help="classification: random training subset")
    ap.add_argument("--max-test", type=int, help="classification: random test subset")
    ap.add_argument("--rows", type=int, help="generated: training rows (10^6)")
    ap.add_argument("--test-rows", type=int, help="generated: test rows (10^5)")
    ap.add_argument("--svc-rows", type=int, help="generated: SVC's rows (20,000)")
    ap.add_argument("--nystroem-rows", type=int, help="generated: Nyström's rows (200,000)")
    ap.add_argument("--memory", action=argparse.BooleanOptionalAction, default=True,
                    help="generated: measure the fit's memory (fresh processes)")  # fmt: skip
    ap.add_argument("--prefix", help="results/<prefix>.md (default budget, budget_quick)")
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "pegasos-budget-bench"),
                    help="dask: where the svmlight files are written and kept")  # fmt: skip
    ap.add_argument("--dask-memory", default="1GiB", help="dask: memory_limit of each worker")
    ap.add_argument("--dask-fit", nargs=3, metavar=("B", "RULE", "PASSES"),
                    help="dask: the fit (default: the generated part's deciding one)")  # fmt: skip
    ap.add_argument("--memory-child", nargs=3, metavar=("ROWS", "B", "RULE"),
                    help=argparse.SUPPRESS)  # fmt: skip
    ap.add_argument("--alpha", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--gamma", type=float, help=argparse.SUPPRESS)
    return ap


def _names(spec: str, ap) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def configure(ap, args) -> None:
    args.parts = _names(args.parts, ap)
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown parts {unknown}; known: {', '.join(PARTS)}")
    args.budgets = [int(b) for b in _names(args.budgets, ap)]
    args.maintenance = _names(args.maintenance, ap)
    if args.smoke:
        common.smoke_run()
        args.repeats = 1
        if args.budgets == list(BUDGETS):
            args.budgets = list(SMOKE_BUDGETS)
    if args.repeats < 1 or args.threads < 1 or any(b < 2 for b in args.budgets):
        ap.error("--repeats and --threads must be >= 1, budgets >= 2")
    args.n_jobs = None if args.threads == 1 else args.threads
    known_c = SMOKE_CLASSIFICATION if args.smoke else CLASSIFICATION_SETS
    known_r = SMOKE_REGRESSION if args.smoke else REGRESSION_SETS
    import bench_kernel

    all_c = {*CLASSIFICATION_SETS, *bench_kernel.EXPERIMENTS, *SMOKE_CLASSIFICATION}
    if args.datasets:
        names = _names(args.datasets, ap)
        bad = [n for n in names if n not in all_c and n not in (*REGRESSION_SETS, "abalone")]
        if bad:
            ap.error(f"unknown datasets {bad}")
        args.classification_sets = [n for n in names if n in all_c]
        args.regression_sets = [n for n in names if n not in all_c]
    else:
        args.classification_sets, args.regression_sets = list(known_c), list(known_r)
    # Smaller data, or too few runs for a target's medians: not the page's figures.
    subset = args.repeats < 3 or any(
        getattr(args, k) is not None
        for k in ("max_train", "max_test", "rows", "test_rows", "svc_rows", "nystroem_rows")
    )
    suffix = {None: "", True: "_avg", False: "_last"}[args.average]
    if args.prefix is None:
        base = "budget_smoke" if args.smoke else "budget_quick" if subset else "budget"
        args.prefix = base + suffix


def units_path(args) -> Path:
    return RESULTS_DIR / f"{args.prefix}.json"


def load_units(args) -> dict:
    """The units (a data set of a part) of earlier runs, kept in the JSON file."""
    path = units_path(args)
    if args.smoke or not path.exists():
        return {}
    try:
        return json.loads(path.read_text())["units"]
    except (OSError, ValueError, KeyError):
        print(f"[warn] unreadable {path.name}: starting a new one", flush=True)
        return {}


def main(argv=None) -> int:
    from sklearn.exceptions import ConvergenceWarning

    # The curves stop the fits after few passes on purpose.
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ap = parser()
    args = ap.parse_args(argv)
    if args.memory_child:
        rows, B, rule = args.memory_child
        cfg = {"alpha": args.alpha, "gamma": args.gamma}
        print(json.dumps(memory_child(int(rows), int(B), rule, cfg)))
        return 0
    configure(ap, args)
    started = time.perf_counter()
    units = load_units(args)
    run = f"`{command('bench_budget.py')}` on {time.strftime('%Y-%m-%d %H:%M')}"
    measured = 0

    def keep(res: dict | None) -> None:
        nonlocal measured
        if res is None:
            return
        res["run"] = run
        units[f"{res['part']}:{res['name']}"] = res
        measured += 1
        if not args.smoke:
            write_json(units_path(args), {"units": units})

    with common.single_thread():  # BLAS and OpenMP; pegasos_rs' fits take n_jobs
        if "classification" in args.parts:
            for name in args.classification_sets:
                keep(run_classification(name, args))
        if "generated" in args.parts:
            keep(run_generated(args))
        if "regression" in args.parts:
            for name in args.regression_sets:
                keep(run_regression(name, args))
        if "dask" in args.parts and not args.smoke:
            keep(run_dask(args, units))
    if not measured:
        print("no data set available: nothing measured", file=sys.stderr)
        return 1
    text = report(units, args)
    if args.smoke:
        check_quotes(text, args)
    publish(args.prefix, text, started, also=None if args.smoke else units_path(args).name,
            write=not args.smoke)  # fmt: skip
    return 0


def check_quotes(text: str, args) -> None:
    """The figures README may quote from this page (``quoted_figures.quoted_budget``)
    stand where the quotes look for them (the smoke run's page, its own data sets)."""
    import figures
    import quoted_figures

    quotes = quoted_figures.quoted_budget(
        classification=args.classification_sets if "classification" in args.parts else (),
        generated="generated" in args.parts,
        regression=args.regression_sets if "regression" in args.parts else (),
        budgets=args.budgets,
        dask="dask" in args.parts and not args.smoke,
        nystroem_components=generated_config(args)["nystroem_components"],
    )
    for name, quote in quotes.items():
        try:
            figures.locate(text, {name: quote})
        except figures.FigureError:
            # A figure a run may not have (a goal not reached): its cell must be there.
            if not isinstance(quote, figures.Cell) or quote.part is None:
                raise
            bare = dataclasses.replace(quote, part=None)
            ((a, b, _),) = figures.locate(text, {name: bare}).values()
            check(text[a:b].strip() in NO_RESULT, f"{name}: {text[a:b]!r} is not where expected")
    print(f"the {len(quotes)} quotable figures of the page located")


#: What a cell says when its figure was not measured (the goal not reached).
NO_RESULT = {"", "—", "none", "not reached"}


if __name__ == "__main__":
    sys.exit(main())
