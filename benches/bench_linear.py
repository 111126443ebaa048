"""Linear SVM benchmark: Pegasos against LIBLINEAR, LinearSVC and SGDClassifier.

One thread everywhere, no bias (the objective of all solvers is
``alpha/2 ||w||^2 + 1/m sum_i max(0, 1 - y_i <w, x_i>)``, LIBLINEAR's
``-s 3 -c C`` problem with ``C = 1/(alpha m)``), one alpha per dataset.

    python benches/bench_linear.py [--quick | --smoke] [--datasets a9a,w8a,...] [--repeats N]

Writes ``benches/results/linear.md`` and ``benches/results/linear_<dataset>.png``
(``linear_quick*`` with ``--quick``; ``linear_smoke*`` with ``--smoke``, which runs
on small generated data and needs no dataset files) and prints the tables. See
benches/README.md for what every number means.

Competitors: LIBLINEAR ``-s 3`` (the same problem; ``-e 1e-4`` is the reference
optimum) and ``-s 1`` (squared hinge, for reference: its time and accuracy, and how
far its solution is from the hinge optimum), liblinear-multicore ``-s 3 -m 2`` (two
threads, in a child process: it installs a module of the same name), LinearSVC,
SGDClassifier plain and averaged.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from pathlib import Path

import common  # sets the one-thread environment before numpy is imported
import numpy as np
import plots
import scipy.sparse as sp
from common import (
    RESULTS_DIR,
    BenchmarkError,
    accuracy,
    as_int32_csr,
    check,
    csr_nbytes,
    one_vs_rest_targets,
    primal_objective,
    select_names,
    single_thread,
    timeit,
)
from report import (
    command,
    fmt_pct,
    fmt_time,
    markdown_table,
    measure_and_publish,
    named_sets,
    notes,
    plots_list,
    section,
    verdict,
    write_json,
)

#: Regularisation per dataset: ``alpha`` directly, or ``C`` (then alpha = 1/(C m)).
DATASETS: dict[str, dict[str, float]] = {
    "a9a": {"alpha": 1e-4},
    "w8a": {"alpha": 1e-4},
    "reuters-lasvm": {"C": 1.0},
    "imdb": {"C": 1.0},
    "20news": {"C": 1.0},
    "sector": {"C": 1.0},
    "mnist-evenodd": {"alpha": 1e-4},
    "mnist": {"alpha": 1e-4},
}
QUICK_DATASETS = ["a9a", "reuters-lasvm"]
#: Generated sets of ``--smoke``: binary sparse (RCV1-shaped) and dense 3-class.
SMOKE_DATASETS = {"rcv1-like-smoke": {"alpha": 1e-4}, "dense-smoke": {"alpha": 1e-2}}
#: Datasets on which target (3) (averaged objective within 1%) is set.
OBJECTIVE_TARGET_SETS = {"a9a", "imdb"}

#: Passes tried, each a fit from scratch, for the time-to-accuracy / objective curves.
SCHEDULE = [1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 200, 300, 500]
THROUGHPUT_PASSES = 10
THROUGHPUT_PASSES0 = 2  # the short fit: (10-pass - 2-pass) / 8 is the marginal cost
SEED = 0

# Targets.
THROUGHPUT_TARGET = 3.0  # SGD time / Pegasos time at the same passes, at least
ACC_TOLERANCE = 0.003  # 0.3 percentage points below LIBLINEAR's converged accuracy
ACC_TIME_TARGET = 1.0 / 3.0  # Pegasos time-to-accuracy / LIBLINEAR time, at most
OBJ_GAP_TARGET = 0.01  # relative primal gap of the averaged Pegasos model
OBJ_TIME_TARGET = 1.0  # ... reached in at most LIBLINEAR's time
MEMORY_TARGET = 0.5  # Pegasos extra peak RSS (less the model) / CSR input size, at most

# Sanity limits (a violation raises).
BELOW_OPTIMUM_TOL = 1e-3  # no solver may beat LIBLINEAR's -e 1e-4 optimum by more
DUALITY_GAP_TOL = 1e-2  # LIBLINEAR's reference: (primal - dual) / dual, at most


# ----------------------------------------------------------------------------- data


def load_dataset(name: str):
    """Train/test split, or None when absent: CSR float64 with int32 indices, except
    MNIST (dense float64, as users hold it; ``mnist-evenodd`` labels the digit's
    parity) and the dense smoke set."""
    import shared_data as _datasets

    if name in SMOKE_DATASETS:
        return _smoke_dataset(name)
    if name.startswith("mnist"):
        if not _datasets.available("mnist"):
            return None
        X, y, Xt, yt = _datasets.load("mnist")
        if name == "mnist-evenodd":
            y, yt = y % 2, yt % 2
        return np.ascontiguousarray(X), y, np.ascontiguousarray(Xt), yt
    if name not in _datasets.FILES or not _datasets.available(name):
        return None
    X, y, Xt, yt = _datasets.load(name)
    return as_int32_csr(X), np.asarray(y), as_int32_csr(Xt), np.asarray(yt)


def _smoke_dataset(name: str):
    if name == "rcv1-like-smoke":
        from rcv1_like import make_rcv1_like

        shape = {"n_features": 2000, "nnz_per_row": 20}
        X, y = make_rcv1_like(4000, **shape)
        Xt, yt = make_rcv1_like(2000, test=True, **shape)
        return as_int32_csr(X), y, as_int32_csr(Xt), yt
    from sklearn.datasets import make_classification

    X, y = make_classification(
        3000, 40, n_informative=10, n_classes=3, class_sep=1.5, random_state=SEED
    )
    return X[:2000], y[:2000], X[2000:], y[2000:]


def regularisation(name: str, m: int) -> tuple[float, float]:
    """(alpha, C) of dataset ``name`` with ``m`` training samples."""
    cfg = {**DATASETS, **SMOKE_DATASETS}[name]
    if "alpha" in cfg:
        alpha = cfg["alpha"]
        return alpha, 1.0 / (alpha * m)
    C = cfg["C"]
    return 1.0 / (C * m), C


# -------------------------------------------------------------------------- solvers


def liblinear_problem(X, y):
    from liblinear import liblinear as ll

    # Dense rows go in as CSR: LIBLINEAR's own dense path loops in Python and sizes
    # the model by the last non-zero column.
    return ll.problem(np.ascontiguousarray(y, dtype=np.float64), sp.csr_matrix(X))


def liblinear_train(
    prob,
    C: float,
    eps: float | None,
    capture: list[str] | None = None,
    solver: int = 3,
    options: str = "",
):
    """Train LIBLINEAR ``-s 3`` (dual CD, L1-loss SVC, no bias; or ``solver``, with
    the further ``options``, e.g. ``-B 1``) on a built problem."""
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    opts = f"-s {solver} -c {C!r}" + ("" if eps is None else f" -e {eps!r}")
    opts += f" {options}" if options else ""
    if capture is None:
        param = ll.parameter(opts + " -q")
    else:
        param = ll.parameter(opts)
        cb = ll.PRINT_STRING_FUN(lambda s: capture.append(s.decode()))
        param.print_func = cb
        param._keep_cb = cb  # keep the ctypes callback alive during training
    return llu.train(prob, param)


def liblinear_weights(model, classes: np.ndarray) -> np.ndarray:
    """LIBLINEAR's weights as (K, d) in the order and sign of ``classes``."""
    labels = np.asarray(model.get_labels(), dtype=np.float64)
    d = model.get_nr_feature()
    nr_w = 1 if model.nr_class == 2 else model.nr_class
    w = np.ctypeslib.as_array(model.w, shape=(d * nr_w,)).reshape(d, nr_w).T.copy()
    if classes.size == 2:
        # The decision value is positive for labels[0].
        return w if labels[0] == classes[1] else -w
    return w[[int(np.flatnonzero(labels == c)[0]) for c in classes]]


def liblinear_dual_objectives(output: str, model, classes: np.ndarray) -> np.ndarray:
    """The optimal dual values LIBLINEAR printed ("Objective value = -D"), per class."""
    values = [-float(v) for v in re.findall(r"Objective value = (\S+)", output)]
    labels = np.asarray(model.get_labels(), dtype=np.float64)
    if classes.size == 2:
        check(len(values) == 1, f"expected one LIBLINEAR objective, got {values}")
        return np.asarray(values)
    check(len(values) == labels.size, f"expected {labels.size} objectives, got {len(values)}")
    return np.asarray([values[int(np.flatnonzero(labels == c)[0])] for c in classes])


def pegasos(
    alpha: float, passes: int, average: bool, multi_class: str = "ovr", sampling: str = "uniform"
):
    from pegasos_rs import PegasosClassifier

    return PegasosClassifier(
        alpha=alpha,
        max_iter=passes,
        fit_intercept=False,
        average=average,
        random_state=SEED,
        n_jobs=None,
        multi_class=multi_class,
        sampling=sampling,
    )


#: The Pegasos curves whose time to LIBLINEAR's accuracy - 0.3 pp is target (2): the
#: label, the short name of its cell, and (average, multi_class, sampling). The
#: shared-draw and shuffled curves run on multiclass sets only: uniform draws with
#: replacement are the paper's; "shuffle" (a fresh permutation each pass, as
#: SGDClassifier's shuffle=True) is the option a user picks for fewer passes.
PEGASOS_CURVES = [
    ("Pegasos (last iterate)", "last", (False, "ovr", "uniform")),
    ("Pegasos (averaged)", "avg", (True, "ovr", "uniform")),
    ("Pegasos shared draws (last iterate)", "shared last", (False, "ovr_shared", "uniform")),
    ("Pegasos shared draws (averaged)", "shared avg", (True, "ovr_shared", "uniform")),
    ("Pegasos shuffled (last iterate)", "shuffled last", (False, "ovr", "shuffle")),
    (
        "Pegasos shared draws shuffled (last iterate)",
        "shared shuffled last",
        (False, "ovr_shared", "shuffle"),
    ),
]


def sgd(alpha: float, passes: int, average: bool = False):
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(
        average=average,
        loss="hinge",
        penalty="l2",
        alpha=alpha,
        learning_rate="optimal",
        fit_intercept=False,
        max_iter=passes,
        tol=None,
        shuffle=True,
        random_state=SEED,
        n_jobs=None,
    )


def linear_svc(C: float):
    from sklearn.svm import LinearSVC

    return LinearSVC(loss="hinge", C=C, fit_intercept=False, dual=True, random_state=SEED)


def fit_quietly(model, X, y):
    """``model.fit(X, y)``, ignoring ConvergenceWarning (max_iter is the point)."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


# ---------------------------------------------------------------- one dataset's run


class Evaluator:
    """Objective gap and accuracy of (K, d) weight matrices on one dataset."""

    def __init__(self, name, X, y, Xt, yt, alpha, C):
        self.name, self.X, self.y, self.Xt, self.yt = name, X, y, Xt, yt
        self.alpha, self.C = alpha, C
        self.classes = np.unique(y)
        self.Y = one_vs_rest_targets(y, self.classes)
        self.m = X.shape[0]
        self.f_star = None  # per-class optimum (LIBLINEAR -e 1e-4 primal)
        self.dual = None  # per-class dual lower bound / (C m)
        counts = np.unique(yt, return_counts=True)[1]
        self.majority = float(counts.max() / counts.sum())

    def objective(self, W) -> np.ndarray:
        return primal_objective(W, None, self.X, self.Y, self.alpha)

    def evaluate(self, label: str, W) -> dict:
        """Accuracy, per-class objective and the relative gap of the summed objective,
        after the sanity checks (weak duality; no solver below the optimum)."""
        F = self.objective(W)
        acc = accuracy(W, None, self.Xt, self.yt, self.classes)
        out = {"acc": acc, "F": F}
        if self.f_star is not None:
            lower = self.dual * (1 - 1e-9) - 1e-12
            bad = np.flatnonzero(F < lower)
            check(
                bad.size == 0,
                f"{self.name}/{label}: primal objective {F[bad]} below LIBLINEAR's dual "
                f"optimum {self.dual[bad]} (weak duality violated): the objective "
                "definition or the weights extraction is wrong",
            )
            # The optimum lies between LIBLINEAR's dual and primal values: a solver
            # may be below the reference by its certified gap (LIBLINEAR stops at
            # its iteration limit on MNIST, with a gap above 0.1 %), not more.
            slack = np.maximum(BELOW_OPTIMUM_TOL, (self.f_star - self.dual) / self.f_star)
            below = np.flatnonzero(F < self.f_star * (1 - slack) - 1e-12)
            check(
                below.size == 0,
                f"{self.name}/{label}: objective {F[below]} more than "
                f"{slack[below]} below LIBLINEAR's -e 1e-4 optimum {self.f_star[below]}",
            )
            out["gap"] = float((F.sum() - self.f_star.sum()) / self.f_star.sum())
        return out

    def check_accuracy(self, label: str, acc: float) -> None:
        check(
            acc > self.majority,
            f"{self.name}/{label}: test accuracy {acc:.4f} not above the majority-class "
            f"rate {self.majority:.4f}",
        )


def sweep(ev: Evaluator, make, weights, cap: float, label: str) -> list[dict]:
    """Fits from scratch for each number of passes of SCHEDULE, each timed once, until
    the next one would take longer than ``cap`` seconds (or the objective gap is under
    1e-4). The points that decide a target are timed again (:func:`retime_deciding`)."""

    def measure(passes: int) -> dict:
        t, model, _ = timeit(lambda: fit_quietly(make(passes), ev.X, ev.y), 1)
        r = ev.evaluate(f"{label}@{passes}", weights(model))
        return {"passes": passes, "time": t, "runs": 1, "acc": r["acc"], "gap": r["gap"]}

    return common.budget_sweep(measure, SCHEDULE, cap, lambda p: p["gap"] < 1e-4)


def first_point(points: list[dict], predicate) -> dict | None:
    for p in points:
        if predicate(p):
            return p
    return None


def describe(name: str, ev: Evaluator) -> dict:
    """The dataset's row of the report (sizes, regularisation, input size), printed."""
    X = ev.X
    m, d = X.shape
    nnz = common.stored_values(X)
    res = {
        "name": name,
        "m": m,
        "d": d,
        "nnz": nnz,
        "dense": not sp.issparse(X),
        "m_test": ev.Xt.shape[0],
        "classes": ev.classes.size,
        "K": ev.Y.shape[0],
        "alpha": ev.alpha,
        "C": ev.C,
        "csr_mb": csr_nbytes(X) / 2**20,
        "majority": ev.majority,
    }
    print(
        f"== {name}: m={m} d={d} nnz={nnz} classes={ev.classes.size} alpha={ev.alpha:.3g} "
        f"C={ev.C:.3g}",
        flush=True,
    )
    return res


def liblinear_reference(ev: Evaluator, prob, R: int, res: dict) -> tuple:
    """LIBLINEAR ``-e 1e-4``, timed: its weights and printed dual optimum become the
    evaluator's reference (after the weak-duality and convergence checks). Returns
    its training time and weights."""
    name, C, m = ev.name, ev.C, ev.m
    outputs: list[list[str]] = []

    def reference():
        outputs.append([])
        return liblinear_train(prob, C, 1e-4, capture=outputs[-1])

    t_ll_conv, ref_model, _ = timeit(reference, R)
    output = "".join(outputs[-1])
    W_ref = liblinear_weights(ref_model, ev.classes)
    dual = liblinear_dual_objectives(output, ref_model, ev.classes) / (C * m)
    f_ref = ev.objective(W_ref)
    duality_gap = (f_ref - dual) / dual
    check(
        bool(np.all(f_ref >= dual * (1 - 1e-9))),
        f"{name}: LIBLINEAR's primal {f_ref} below its own dual optimum {dual}: the "
        "objective definition does not match LIBLINEAR's (C m scaling, sign, labels)",
    )
    check(
        bool(np.all(duality_gap <= DUALITY_GAP_TOL)),
        f"{name}: LIBLINEAR -e 1e-4 is not converged (relative duality gap "
        f"{duality_gap.max():.3g}) or its weights were misread (sign, class order): "
        "the reference optimum is unusable",
    )
    ev.f_star, ev.dual = f_ref, dual
    res["ll_duality_gap"] = float(duality_gap.max())
    res["ll_max_iter_hit"] = "reaching max number of iterations" in output
    return t_ll_conv, W_ref


def reference_solvers(ev: Evaluator, R: int, args, res: dict) -> tuple[dict, dict]:
    """LIBLINEAR (converged, default, ``-s 1``, multicore) and LinearSVC: the solvers'
    rows by label, and the reference times and accuracy (``t_ll``, ``t_ll_conv``,
    ``acc_star``); records LIBLINEAR's conversion time and duality gap in ``res``."""
    X, y, C = ev.X, ev.y, ev.C
    t0 = time.perf_counter()
    prob = liblinear_problem(X, y)
    res["ll_convert_time"] = time.perf_counter() - t0
    # The converged reference is timed too; its printed output gives the dual optimum.
    t_ll_conv, W_ref = liblinear_reference(ev, prob, R, res)
    solvers = {}
    r = ev.evaluate("liblinear-e1e-4", W_ref)
    solvers["LIBLINEAR -e 1e-4"] = {"time": t_ll_conv, **r}
    refs = {"t_ll_conv": t_ll_conv, "acc_star": r["acc"]}

    t, model, _ = timeit(lambda: liblinear_train(prob, C, None), R)
    r = ev.evaluate("liblinear", liblinear_weights(model, ev.classes))
    solvers["LIBLINEAR -e 0.1"] = {"time": t, **r}
    refs = {"t_ll": t, **refs}

    t, model, _ = timeit(lambda: liblinear_train(prob, C, None, solver=1), R)
    r = ev.evaluate("liblinear-s1", liblinear_weights(model, ev.classes))
    solvers["LIBLINEAR -s 1 (squared hinge)"] = {"time": t, **r}
    prob = None  # free LIBLINEAR's copy of the data

    if args.multicore:
        r = multicore_run(X, y, C, R, ev.classes)
        if r is not None:
            t, W = r
            label = f"liblinear-multicore -s 3 -m {MULTICORE_THREADS}"
            solvers[label] = {"time": t, **ev.evaluate(label, W)}

    t, model, _ = timeit(lambda: fit_quietly(linear_svc(C), X, y), R)
    solvers["LinearSVC"] = {"time": t, **ev.evaluate("LinearSVC", model.coef_)}
    return solvers, refs


#: The throughput's solvers: key, label, estimator of (alpha, passes).
THROUGHPUT_SOLVERS = [
    ("sgd", "SGDClassifier", lambda a, p: sgd(a, p)),
    ("sgd_avg", "SGDClassifier avg", lambda a, p: sgd(a, p, True)),
    ("pegasos", "Pegasos", lambda a, p: pegasos(a, p, False)),
    ("pegasos_avg", "Pegasos avg", lambda a, p: pegasos(a, p, True)),
]


def throughput(ev: Evaluator, R: int, solvers: dict) -> dict:
    """(1) Fit times at the same number of passes (and at 2 passes, to separate the
    fixed cost of a fit from the cost of a pass), per non-zero, against the streaming
    bound; the 10-pass fits join ``solvers``."""
    P, P0 = THROUGHPUT_PASSES, THROUGHPUT_PASSES0
    X, y = ev.X, ev.y
    short = {}
    for key, label, make in THROUGHPUT_SOLVERS:
        label = f"{label} ({P} passes)"
        t, model, _ = timeit(lambda make=make: fit_quietly(make(ev.alpha, P), X, y), R)
        solvers[label] = {"time": t, **ev.evaluate(label, model.coef_)}
        short[key] = t
        short[key + "_p0"] = timeit(lambda make=make: fit_quietly(make(ev.alpha, P0), X, y), R)[0]
    for label, s in solvers.items():
        ev.check_accuracy(label, s["acc"])
    check(min(short.values()) > 0, f"{ev.name}: non-positive timing {short}")
    nnz = common.stored_values(X)
    work = nnz * ev.Y.shape[0] * 1e-9  # giga-nonzeros per pass (all binary problems)
    # Streaming lower bound: reading every stored value once, per binary problem.
    t_stream = common.stream_time(X)
    check(t_stream > 0, f"{ev.name}: non-positive streaming time")
    kinds = ("pegasos", "pegasos_avg", "sgd", "sgd_avg")
    return {
        "passes": P,
        "passes0": P0,
        "ratio": short["sgd"] / short["pegasos"],
        **{f"t_{k}": v for k, v in short.items()},
        "ns_stream": t_stream / (nnz * 1e-9),
        **{f"ns_{k}": short[k] / (P * work) for k in kinds},
        **{f"marginal_{k}": (short[k] - short[k + "_p0"]) / ((P - P0) * work) for k in kinds},
        **{
            f"fixed_{k}": short[k + "_p0"] - P0 * (short[k] - short[k + "_p0"]) / (P - P0)
            for k in kinds
        },
    }


def curve_maker(label: str, alpha: float):
    """The estimator of Pegasos curve ``label`` (of PEGASOS_CURVES) for p passes."""
    avg, mc, sampling = next(cfg for lab, _, cfg in PEGASOS_CURVES if lab == label)
    return lambda p: pegasos(alpha, p, avg, mc, sampling)


def curves(ev: Evaluator, cap: float) -> dict:
    """(2), (3): the sweeps over increasing passes of Pegasos and SGD, both ways."""
    alpha = ev.alpha
    out = {}
    for label, short, (_, mc, sampling) in PEGASOS_CURVES:
        if (mc != "ovr" or sampling != "uniform") and ev.classes.size <= 2:
            continue  # the multiclass options (two classes: one problem)
        out[label] = sweep(
            ev,
            curve_maker(label, alpha),
            lambda mdl: mdl.coef_,
            cap,
            f"pegasos-{short.replace(' ', '-')}",
        )
    out |= {
        "SGDClassifier": sweep(ev, lambda p: sgd(alpha, p), lambda mdl: mdl.coef_, cap, "sgd"),
        "SGDClassifier (averaged)": sweep(
            ev, lambda p: sgd(alpha, p, True), lambda mdl: mdl.coef_, cap, "sgd-avg"
        ),
    }
    for label, pts in out.items():
        ev.check_accuracy(f"{label}@{pts[-1]['passes']}", pts[-1]["acc"])
    return out


def deciding_points(res: dict):
    """The curve points whose times decide a target: the first point of each Pegasos
    curve within ACC_TOLERANCE of LIBLINEAR's accuracy (2) and the first averaged
    point within OBJ_GAP_TARGET (3), as ``(label, point)``."""
    cs = res["curves"]
    acc_goal = res["acc_star"] - ACC_TOLERANCE
    out = []
    for label, _, _ in PEGASOS_CURVES:
        if label in cs:
            p = first_point(cs[label], lambda p: p["acc"] >= acc_goal)
            if p is not None:
                out.append((label, p))
    p = first_point(cs["Pegasos (averaged)"], lambda p: p["gap"] <= OBJ_GAP_TARGET)
    if p is not None:
        out.append(("Pegasos (averaged)", p))
    return out


def retime_deciding(ev: Evaluator, res: dict, repeats: int) -> None:
    """Time again each point of :func:`deciding_points` (timed once in its sweep) until
    it has ``repeats`` runs; its time becomes their median. The refits must give the
    sweep's model (same seed), checked on the test accuracy and the objective gap."""
    for label, point in deciding_points(res):
        make, passes = curve_maker(label, ev.alpha), point["passes"]

        def measure(make=make, passes=passes, label=label) -> dict:
            t, model, _ = timeit(lambda: fit_quietly(make(passes), ev.X, ev.y), 1)
            return {"time": t, **ev.evaluate(f"{label}@{passes} again", model.coef_)}

        what = f"{ev.name}/{label}@{passes}"
        common.retime_point(point, measure, repeats, ("acc", "gap"), what)


def reached(res: dict) -> dict:
    """(2) the first Pegasos points within the accuracy tolerance, (3) the first
    averaged point within the objective gap (and the best one), with their time
    ratio to LIBLINEAR's."""
    t_ll, cs = res["t_ll"], res["curves"]
    acc_goal = res["acc_star"] - ACC_TOLERANCE
    reach = {}
    for label, _, _ in PEGASOS_CURVES:
        if label not in cs:
            continue
        p = first_point(cs[label], lambda p: p["acc"] >= acc_goal)
        p = reach[label] = None if p is None else {**p, "ratio": p["time"] / t_ll}
        print(
            f"  {res['name']} {label}: "
            + ("not reached" if p is None else f"{p['ratio']:.2f} x LIBLINEAR -e 0.1 "
               f"({p['passes']} passes, {fmt_time(p['time'])}, acc {fmt_pct(p['acc'])})")
            + f", target {fmt_pct(acc_goal)}, LIBLINEAR {fmt_time(t_ll)}",
            flush=True,
        )  # fmt: skip
    p = first_point(cs["Pegasos (averaged)"], lambda p: p["gap"] <= OBJ_GAP_TARGET)
    return {
        "acc_reach": reach,
        "obj_reach": None if p is None else {**p, "ratio": p["time"] / t_ll},
        "obj_best": min(cs["Pegasos (averaged)"], key=lambda p: p["gap"]),
    }


def memory(name: str, res: dict, smoke: bool) -> dict:
    """(4) Peak memory during fit, each solver in a fresh process."""
    out = {}
    solvers = MEMORY_SOLVERS
    if smoke:
        # A child costs two seconds, most of them Python's start and the imports: the
        # child's LIBLINEAR and Pegasos branches run on the sparse set; the dense set's
        # target (4) is "not measured", as in a run with --no-memory.
        solvers = [] if name == "dense-smoke" else ["LIBLINEAR", "Pegasos"]
    for solver in solvers:
        r = common.run_child([str(Path(__file__).resolve()), "--memory-child", name, solver])
        check(r["extra_mb"] >= -1.0, f"{name}/{solver}: negative memory increase {r}")
        check(
            abs(r["csr_mb"] - res["csr_mb"]) < 1e-6,
            f"{name}/{solver}: child loaded another input ({r['csr_mb']} MB)",
        )
        out[solver] = r
    return out


def run_dataset(name: str, args) -> dict | None:
    """Every measurement on dataset ``name``, or None when its files are absent."""
    data = load_dataset(name)
    if data is None:
        print(f"[skip] {name}: data files not found (see benches/shared_data.py)", flush=True)
        return None
    X, y, Xt, yt = data
    alpha, C = regularisation(name, X.shape[0])
    ev = Evaluator(name, X, y, Xt, yt, alpha, C)
    res = describe(name, ev)
    R = args.repeats
    solvers, refs = reference_solvers(ev, R, args, res)
    res["throughput"] = throughput(ev, R, solvers)
    res["solvers"] = solvers
    res.update(refs)
    lo, hi = (0.02, 0.05) if args.smoke else (0.5, 5.0) if args.quick else (1.5, 30.0)
    cap = min(hi, max(lo, 10 * res["t_ll"]))
    res["cap"], res["cap_range"] = cap, (lo, hi)
    res["curves"] = curves(ev, cap)
    retime_deciding(ev, res, R)
    res.update(reached(res))
    if not args.no_memory:
        res["memory"] = memory(name, res, args.smoke)
    res["plot"] = plot_dataset(res, args.prefix) if plots.have_matplotlib() else None
    return res


# ------------------------------------------------------------ liblinear-multicore

MULTICORE_THREADS = 2


def multicore_run(X, y, C: float, repeats: int, classes: np.ndarray):
    """liblinear-multicore ``-s 3 -m 2`` in a child process (its module is also named
    ``liblinear``): ``(median train time, weights)``, or None when it does not install."""
    import tempfile

    site = common.liblinear_multicore_site()
    if site is None:
        return None
    Xc = sp.csr_matrix(X)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        np.savez(
            path / "problem.npz", data=Xc.data, indices=Xc.indices, indptr=Xc.indptr,
            shape=np.asarray(Xc.shape), y=np.asarray(y, dtype=np.float64),
            classes=np.asarray(classes, dtype=np.float64),
        )  # fmt: skip
        args = [str(Path(__file__).resolve()), "--multicore-child", str(site), tmp]
        r = common.run_child([*args, repr(C), str(repeats)])
        W = np.load(path / "weights.npy")
    return r["time"], W


def multicore_child(site: str, tmp: str, C: str, repeats: str) -> None:
    sys.path.insert(0, site)
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    check(ll.__file__.startswith(site), f"imported {ll.__file__}, not the multicore fork")
    f = np.load(Path(tmp) / "problem.npz")
    X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))
    prob = ll.problem(f["y"], X)
    param = ll.parameter(f"-s 3 -c {float(C)!r} -m {MULTICORE_THREADS} -q")
    t, model, _ = timeit(lambda: llu.train(prob, param), int(repeats))
    np.save(Path(tmp) / "weights.npy", liblinear_weights(model, f["classes"]))
    print(json.dumps({"time": t}))


# -------------------------------------------------------------------------- memory

MEMORY_SOLVERS = ["LIBLINEAR", "LinearSVC", "SGDClassifier", "Pegasos", "Pegasos avg"]


def memory_child(name: str, solver: str) -> None:
    """Run in a fresh process: load, warm up on a subset, measure one fit's peak RSS."""
    data = load_dataset(name)
    check(data is not None, f"{name}: data vanished")
    X, y, _, _ = data
    del _
    alpha, C = regularisation(name, X.shape[0])
    P = THROUGHPUT_PASSES

    def fit(Xs, ys):
        if solver == "LIBLINEAR":
            from liblinear import liblinearutil as llu

            # What a user pays: the conversion to LIBLINEAR's format and the training.
            return llu.train(np.asarray(ys, dtype=np.float64), Xs, f"-s 3 -c {C!r} -q")
        if solver == "LinearSVC":
            return fit_quietly(linear_svc(C), Xs, ys)
        if solver == "SGDClassifier":
            return fit_quietly(sgd(alpha, P), Xs, ys)
        if solver in ("Pegasos", "Pegasos avg"):
            return fit_quietly(pegasos(alpha, P, solver == "Pegasos avg"), Xs, ys)
        raise BenchmarkError(f"unknown solver {solver}")

    rows = np.sort(np.random.RandomState(SEED).choice(X.shape[0], 2000, replace=False))
    Xs, ys = X[rows], y[rows]
    warm = fit(Xs, ys)
    del warm, Xs, ys
    holder = {}
    r = common.measure_fit_memory(lambda: holder.setdefault("model", fit(X, y)))
    n_models = 1 if np.unique(y).size == 2 else np.unique(y).size
    r.update(
        csr_mb=common.csr_nbytes(X) / 2**20,
        model_mb=n_models * X.shape[1] * 8 / 2**20,
        solver=solver,
    )
    print(json.dumps(r))


# -------------------------------------------------------------------------- output

#: Curve styles, and the single-point solvers drawn with the curves (marker, colour).
CURVE_STYLES = {
    "Pegasos (averaged)": dict(color="C0", marker="o"),
    "Pegasos (last iterate)": dict(color="C1", marker="s"),
    "SGDClassifier": dict(color="C2", marker="^"),
    "SGDClassifier (averaged)": dict(color="C4", marker="v"),
    "Pegasos shared draws (averaged)": dict(color="C7", marker="o", ls="--"),
    "Pegasos shared draws (last iterate)": dict(color="C8", marker="s", ls="--"),
    "Pegasos shuffled (last iterate)": dict(color="C9", marker="d", ls=":"),
    "Pegasos shared draws shuffled (last iterate)": dict(color="C3", marker="d", ls="-."),
}
POINT_STYLES = [
    ("LIBLINEAR -e 0.1", "*", "k"),
    ("LIBLINEAR -e 1e-4", "P", "0.4"),
    ("LIBLINEAR -s 1 (squared hinge)", "X", "C5"),
    (f"liblinear-multicore -s 3 -m {MULTICORE_THREADS}", "h", "C6"),
    ("LinearSVC", "D", "C3"),
]
GAP_FLOOR = 1e-5  # gaps below (LIBLINEAR converged: ~0, even < 0) are drawn here


def _plot_solvers(ax1, ax2, res: dict) -> None:
    """The curves and the single-point solvers: gap on ``ax1``, accuracy on ``ax2``."""
    for label, pts in res["curves"].items():
        style = CURVE_STYLES[label]
        t = [p["time"] for p in pts]
        ax1.plot(t, [max(p["gap"], GAP_FLOOR) for p in pts], label=label, ms=4, **style)
        ax2.plot(t, [100 * p["acc"] for p in pts], label=label, ms=4, **style)
        plots.label_points(
            ax1, (pts[0], pts[-1]), lambda p: p["time"], lambda p: max(p["gap"], GAP_FLOOR),
            lambda p: f"{p['passes']}", style["color"],
        )  # fmt: skip
    s = res["solvers"]
    for key, mk, col in POINT_STYLES:
        if key not in s:
            continue
        ax1.plot(s[key]["time"], max(s[key]["gap"], GAP_FLOOR), mk, color=col, ms=9, label=key)
        ax2.plot(s[key]["time"], 100 * s[key]["acc"], mk, color=col, ms=9, label=key)


def plot_dataset(res: dict, prefix: str) -> str:
    """Objective gap and test accuracy against training time: the PNG
    ``<prefix>_<dataset>.png``; returns its file name."""
    fig, (ax1, ax2) = plots.pyplot().subplots(1, 2, figsize=(12, 4.8))
    _plot_solvers(ax1, ax2, res)
    for ax in (ax1, ax2):
        ax.axvline(res["t_ll"], color="k", ls=":", lw=1)
        plots.log_axes(ax, "training time [s] (one thread; multicore: two)")
    ax1.axhline(OBJ_GAP_TARGET, color="C0", ls="--", lw=1, label="1% gap")
    ax1.set_yscale("log")
    ax1.set_ylabel("relative primal gap  (F - F*) / F*   (floored at 1e-5)")
    ax1.set_title(f"{res['name']}: objective vs LIBLINEAR -e 1e-4 optimum")
    ax2.axhline(100 * res["acc_star"], color="0.4", lw=1)
    ax2.axhspan(
        100 * (res["acc_star"] - ACC_TOLERANCE), 100 * res["acc_star"], color="0.85", alpha=0.6,
        label="within 0.3 pp of LIBLINEAR",
    )  # fmt: skip
    accs = [p["acc"] for pts in res["curves"].values() for p in pts]
    top = max(max(accs), res["acc_star"])
    ax2.set_ylim(100 * max(min(accs), top - 0.05) - 0.2, 100 * top + 0.3)
    ax2.set_ylabel("test accuracy [%]")
    ax2.set_title(f"{res['name']}: test accuracy (dotted: LIBLINEAR -e 0.1 time)")
    ax1.legend(fontsize=7, loc="upper right")
    ax2.legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"{res['name']}  m={res['m']} d={res['d']} nnz={res['nnz']}  "
        f"alpha={res['alpha']:.3g} (C={res['C']:.3g}), no bias; numbers = passes",
        fontsize=9,
    )
    return plots.save(fig, RESULTS_DIR / f"{prefix}_{res['name']}.png")


def _datasets_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        rows.append([
            r["name"], r["m"], r["m_test"], r["d"], r["nnz"], r["classes"],
            f"{r['alpha']:.3g}", f"{r['C']:.3g}", f"{r['csr_mb']:.1f}",
            fmt_pct(r["majority"]), f"{r['ll_duality_gap']:.1e}",
        ])  # fmt: skip
    header = ["dataset", "m", "m test", "d", "nnz", "classes", "alpha", "C", "CSR MB",
              "majority", "LL duality gap"]  # fmt: skip
    return markdown_table(header, rows)


def _solvers_table(results: list[dict]) -> str:
    P = THROUGHPUT_PASSES
    mem_key = {
        "LIBLINEAR -e 0.1": "LIBLINEAR",
        "LinearSVC": "LinearSVC",
        f"SGDClassifier ({P} passes)": "SGDClassifier",
        f"Pegasos ({P} passes)": "Pegasos",
        f"Pegasos avg ({P} passes)": "Pegasos avg",
    }
    rows = []
    for r in results:
        mem = r.get("memory", {})
        for label, s in r["solvers"].items():
            mk = mem_key.get(label)
            extra = f"{mem[mk]['extra_mb']:.1f}" if mk and mk in mem else "—"
            rows.append([
                r["name"], label, fmt_time(s["time"]), fmt_pct(s["acc"]),
                f"{s['gap']:.2e}", extra,
            ])  # fmt: skip
    header = ["dataset", "solver", "time", "test acc", "obj gap", "fit peak +MB"]
    return markdown_table(header, rows, "llrrrr")


def _throughput_table(results: list[dict]) -> str:
    rows = []
    kinds = ("pegasos", "pegasos_avg", "sgd", "sgd_avg")
    for r in results:
        tp = r["throughput"]
        rows.append([
            r["name"], tp["passes"],
            " / ".join(fmt_time(tp[f"t_{k}"]) for k in kinds),
            f"{tp['ratio']:.2f}",
            " / ".join(f"{tp[f'ns_{k}']:.2f}" for k in kinds),
            " / ".join(f"{tp[f'marginal_{k}']:.2f}" for k in kinds),
            f"{tp['ns_stream']:.2f}",
            f"{tp['marginal_pegasos'] / tp['ns_stream']:.1f}",
            " / ".join(fmt_time(tp[f"fixed_{k}"]) for k in kinds),
        ])  # fmt: skip
    header = ["dataset", "passes", "fit time Pegasos / avg / SGD / SGD avg", "SGD / Pegasos",
              "ns per nnz per pass (whole fit)",
              f"ns per nnz per pass (marginal, {THROUGHPUT_PASSES0}→{THROUGHPUT_PASSES} passes)",
              "stream bound, ns per nnz", "Pegasos marginal / stream bound",
              "fixed cost per fit (extrapolated)"]  # fmt: skip
    return markdown_table(header, rows, "lrrrrrrrr")


def _accuracy_target(r: dict) -> tuple[str, bool]:
    """(2): the cell of both Pegasos variants and whether either meets the target."""
    parts, best = [], None
    shorts = {label: short for label, short, _ in PEGASOS_CURVES}
    for lab, p in r["acc_reach"].items():
        short = shorts[lab]
        if p is None:
            parts.append(f"{short}: not reached")
            continue
        parts.append(f"{short}: {p['ratio']:.2f} ({p['passes']} p, {fmt_time(p['time'])})")
        best = p["ratio"] if best is None else min(best, p["ratio"])
    return "; ".join(parts), best is not None and best <= ACC_TIME_TARGET


def _objective_target(r: dict) -> tuple[str, str]:
    """(3): the cell and its verdict (in parentheses where it is not a target)."""
    o = r["obj_reach"]
    if o is not None:
        obj_txt = f"{o['ratio']:.2f} ({o['passes']} p, {fmt_time(o['time'])})"
        obj_ok = o["ratio"] <= OBJ_TIME_TARGET
    else:
        b = r["obj_best"]
        obj_txt = f"not reached (best {fmt_pct(b['gap'])} at {fmt_time(b['time'])})"
        obj_ok = False
    obj_v = verdict(obj_ok)
    if r["name"] not in OBJECTIVE_TARGET_SETS:
        obj_v = f"({obj_v.lower()})"
    return obj_txt, obj_v


def _memory_target(r: dict) -> tuple[str, bool | None]:
    """(4): the cell and whether Pegasos' extra memory meets the target."""
    mem = r.get("memory")
    if not mem:
        return "not measured", None
    pm = mem["Pegasos"]
    ratio = max(0.0, pm["extra_mb"] - 2 * pm["model_mb"]) / pm["csr_mb"]
    mem_txt = (
        f"{ratio:.2f} (+{pm['extra_mb']:.1f} MB, model {pm['model_mb']:.1f} MB,"
        f" input {pm['csr_mb']:.1f} MB)"
    )
    return mem_txt, ratio <= MEMORY_TARGET


def _targets_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        tp = r["throughput"]
        acc_txt, acc_ok = _accuracy_target(r)
        obj_txt, obj_v = _objective_target(r)
        mem_txt, mem_ok = _memory_target(r)
        rows.append([
            r["name"], f"{tp['ratio']:.2f}", verdict(tp["ratio"] >= THROUGHPUT_TARGET),
            fmt_time(r["t_ll"]), fmt_pct(r["acc_star"]),
            acc_txt, verdict(acc_ok), obj_txt, obj_v, mem_txt, verdict(mem_ok),
        ])  # fmt: skip
    header = [
        "dataset", f"(1) SGD / Pegasos time, {THROUGHPUT_PASSES} passes (≥ {THROUGHPUT_TARGET:g})",
        "", "LIBLINEAR -e 0.1 time", "LIBLINEAR -e 1e-4 acc",
        "(2) Pegasos time to acc - 0.3 pp / LIBLINEAR time (≤ 1/3)", "",
        "(3) Pegasos avg time to 1% gap / LIBLINEAR time (≤ 1)", "",
        f"(4) (Pegasos peak extra - 2 x model) / input (≤ {MEMORY_TARGET:g})", "",
    ]  # fmt: skip
    return markdown_table(header, rows, "lrcrrlclclc")


def _curves_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        for label, pts in r["curves"].items():
            rows.append([
                r["name"], label,
                " ".join(f"{p['passes']}:{fmt_time(p['time'])}{'*' if p.get('runs', 1) > 1 else ''}"
                         f"/{100 * p['acc']:.2f}%/{p['gap']:.1e}" for p in pts),
            ])  # fmt: skip
    return markdown_table(["dataset", "solver", "passes: time / test acc / obj gap"], rows, "lll")


def _notes(results: list[dict]) -> list[str]:
    out = []
    for r in results:
        if r["ll_max_iter_hit"]:
            out.append(
                f"{r['name']}: LIBLINEAR -e 1e-4 stopped at its iteration limit (duality "
                f"gap {r['ll_duality_gap']:.1e}, below the {DUALITY_GAP_TOL:.0%} limit)."
            )
        out.append(
            f"{r['name']}: LIBLINEAR times exclude the conversion to its format "
            f"({fmt_time(r['ll_convert_time'])}); the curves stop before a fit expected "
            f"to take over {fmt_time(r['cap'])} (10 x LIBLINEAR -e 0.1, clipped to "
            f"[{r['cap_range'][0]:g} s, {r['cap_range'][1]:g} s])."
        )
    return out


def title(names: list[str]) -> str:
    """The report's title: what it compares, and on which data sets."""
    return (
        f"Linear SVM on {named_sets(names)}: Pegasos against LIBLINEAR, LinearSVC and SGDClassifier"
    )


def report(results: list[dict], args) -> str:
    """The markdown report of the datasets ``results``."""
    lines = [
        "# " + title([r["name"] for r in results]),
        "",
        f"`{command('bench_linear.py')}`",
        f"— repeats {args.repeats}: every time is the median of {args.repeats} "
        f"run{'s' if args.repeats > 1 else ''} (LIBLINEAR, LinearSVC, the throughput fits), "
        "except the curves' points, timed once each, of which those that decide target "
        "(2) or (3) (the first point of each Pegasos curve within 0.3 pp of LIBLINEAR's "
        "accuracy, the first averaged point within 1 % gap; marked * in the curves) "
        f"are the median of {args.repeats}; one thread, seed {SEED}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}. Objective of every solver: "
        "alpha/2 ||w||^2 + 1/m sum max(0, 1 - y <w,x>) (no bias), C = 1/(alpha m); "
        "gap = (F - F*)/F* against LIBLINEAR `-s 3 -e 1e-4` (objectives summed over the "
        "one-vs-rest problems for multiclass).",
    ]
    lines += section("Datasets", _datasets_table(results))
    lines += section("Solvers", _solvers_table(results))
    lines += section("Throughput (k = 1, same number of passes)", _throughput_table(results))
    lines += section("Targets (ratios measured in the same run)", _targets_table(results))
    lines += [
        "",
        "ns per nnz per pass = fit time / (passes x nnz x binary problems); dense sets "
        "count every entry as a non-zero. Stream bound = the time to read every stored "
        "value (and CSR index) once, per value: a pass at memory bandwidth. (2) passes "
        "when a Pegasos curve gets there (last iterate or averaged; on multiclass sets "
        "also shared draws, and sampling='shuffle'); p = passes. "
        f"(3) is a target on {', '.join(sorted(OBJECTIVE_TARGET_SETS))} only; in "
        f"parentheses elsewhere. Plots: {plots_list(results)}.",
    ]
    lines += section("Curves (each point a fit from scratch)", _curves_table(results))
    lines += notes(_notes(results))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- main


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a9a and reuters-lasvm, 1 repeat")
    ap.add_argument(
        "--smoke", action="store_true", help="small generated sets, 1 repeat (for tests)"
    )
    ap.add_argument(
        "--multicore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run liblinear-multicore (default: yes, except with --smoke)",
    )
    ap.add_argument("--datasets", help="comma-separated subset of " + ",".join(DATASETS))
    ap.add_argument("--repeats", type=int, help="timing repeats (median); default 3, quick 1")
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory runs")
    ap.add_argument(
        "--memory-child", nargs=2, metavar=("DATASET", "SOLVER"), help=argparse.SUPPRESS
    )
    ap.add_argument("--multicore-child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--prefix", help="output file prefix (default linear, linear_quick, ...)")
    return ap


def configure(ap: argparse.ArgumentParser, args) -> list[str]:
    """Completes ``args``' defaults by mode and returns the datasets to run."""
    default = (
        list(SMOKE_DATASETS) if args.smoke else QUICK_DATASETS if args.quick else list(DATASETS)
    )
    names = select_names(ap, args.datasets, {**DATASETS, **SMOKE_DATASETS}, default)
    if args.repeats is None:
        args.repeats = 1 if args.quick or args.smoke else 3
    if args.multicore is None:
        args.multicore = not args.smoke
    if args.prefix is None:
        args.prefix = "linear_smoke" if args.smoke else "linear_quick" if args.quick else "linear"
    if args.smoke:
        common.smoke_run()
    return names


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.multicore_child:
        multicore_child(*args.multicore_child)
        return 0
    if args.memory_child:
        with single_thread():
            memory_child(*args.memory_child)
        return 0
    names = configure(ap, args)
    raw = RESULTS_DIR / f"{args.prefix}.json"
    return measure_and_publish(
        args.prefix,
        names,
        lambda name: run_dataset(name, args),
        lambda results: write_json(raw, results),
        lambda results: report(results, args),
    )


if __name__ == "__main__":
    sys.exit(main())
