"""Both libraries at their defaults: PegasosRegressor against SGDRegressor and
PegasosClassifier against SGDClassifier, loss for loss (issue 36).

Every estimator runs at its defaults but ``loss`` and ``random_state=0``, after a
``StandardScaler`` in one pipeline, as a user writes it. One thread.

1. Regression (cpusmall, abalone, scikit-learn's diabetes and the generated
   ``heavy-tailed`` set of ``heavy_tailed.py``): the mean R² of 5-fold shuffled
   ``KFold(random_state=0)`` cross-validation of
   ``make_pipeline(StandardScaler(), PegasosRegressor(loss=L, random_state=0))``
   against the same pipeline with ``SGDRegressor(loss=L, random_state=0)``, for L in
   squared_error, squared_epsilon_insensitive, huber and epsilon_insensitive. Target:
   Pegasos' R² at least SGDRegressor's - 0.02. Beside them, per fold on the same
   standardised rows: the R² of the exact minimiser of the objective Pegasos
   minimises at its defaults, ``alpha/2 (||w||^2 + b^2) + 1/m sum_i L(<w, x_i> + b -
   y_i)`` with ``alpha = 1e-4`` and ``epsilon = 0.1`` (both libraries' default) --
   scipy's L-BFGS for the three differentiable losses; for epsilon_insensitive the
   lower of LIBLINEAR ``-s 13 -B 1 -p 0.1 -e 1e-6`` (``C = 1/(alpha m)``) and
   ``LinearSVR(dual=True, intercept_scaling=1, tol=1e-8)``, LIBLINEAR's dual value
   bounding both --, of the minimiser of SGDRegressor's objective (the same without
   ``alpha/2 b^2``), and of SGDRegressor run long (``tol=None, max_iter=1000``), so
   that a reader sees whether SGDRegressor's default R² comes from solving its
   objective. Also: whether the Pegasos fits warned (``ConvergenceWarning``), every
   fit's objective against the optimum, and the fit times of both pipelines on all
   rows.
2. Classification (a9a, w8a, usps, dna, ijcnn1 with their test files or a seeded
   70/30 split; scikit-learn's digits and breast cancer, seeded 70/30 splits; the
   generated 26-class ``letter-like`` set of ``bench_kernel_classes.py``): the test
   accuracy of ``make_pipeline(StandardScaler(), PegasosClassifier(loss=L,
   random_state=0))`` against the same pipeline with ``SGDClassifier(loss=L,
   random_state=0)`` (``with_mean=False`` on sparse sets), for L in hinge, log_loss,
   squared_hinge and modified_huber. Target: Pegasos' accuracy at least
   SGDClassifier's. Beside them: the test accuracy of the exact minimiser of
   Pegasos' objective (each one-vs-rest problem: LIBLINEAR ``-B 1 -e 1e-6``, ``-s 3``,
   ``0`` or ``2``, or L-BFGS for modified_huber), both fits' objectives against it,
   their ConvergenceWarnings and fit times.

A row that misses its target is fitted again with one of Pegasos' settings changed
(100 passes, the last iterate, no projection), next to the step ``t0`` its default
fit started at: whether more passes, the averaging, the projection or the start
stand between the default fit and the target.

    python benches/bench_defaults.py              # everything, 3 runs per time
    python benches/bench_defaults.py --quick      # cpusmall, diabetes, heavy-tailed, a9a,
                                                  # breast cancer, digits; 1 run
    python benches/bench_defaults.py --smoke      # diabetes and breast cancer, one loss each
    python benches/bench_defaults.py --datasets cpusmall,a9a --losses huber,hinge

Writes ``results/defaults.md`` and ``defaults.json`` (``defaults_quick.*`` and
``defaults_smoke.*`` in those modes). See benches/README.md.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import warnings

import common  # sets the one-thread environment before numpy is imported
import numpy as np
import scipy.sparse as sp
from bench_losses import (
    EPSILON,
    TIGHT_EPS,
    dual_lower_bound,
    lbfgs_solution,
    liblinear_fit,
    liblinear_model,
)
from common import RESULTS_DIR, as_int32_csr, check, loss_objective, select_names, timeit
from report import fmt_time, markdown_table, named_sets, notes, publish, section, write_json

SEED = 0
FOLDS = 5
ALPHA = 1e-4  # both libraries' default alpha
R2_TOLERANCE = 0.02  # the regression target: Pegasos' R² >= SGDRegressor's - 0.02
LONG_ITER = 1000  # SGDRegressor "run long": tol=None, this many passes
HEAVY_TAIL = 100  # the heavy-tailed set: largest squared row norm / mean, standardised
#: No solver's objective may be below the optimum's by more than this (relative).
BELOW_OPTIMUM_TOL = 1e-6

SVR_TOL, SVR_MAX_ITER = 1e-8, 10**6  # LinearSVR's settings for epsilon_insensitive's optimum


def _sci(x: float) -> str:
    """A setting such as 1e-4 as written (not 0.0001, 1e-04)."""
    mantissa, _, exponent = f"{x:.0e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


REGRESSION_LOSSES = ("squared_error", "squared_epsilon_insensitive", "huber", "epsilon_insensitive")
CLASSIFICATION_LOSSES = ("hinge", "log_loss", "squared_hinge", "modified_huber")
#: The solver of each regression loss's optimum.
OPTIMUM_SOLVER = {
    "squared_error": "L-BFGS",
    "squared_epsilon_insensitive": "L-BFGS",
    "huber": "L-BFGS",
    "epsilon_insensitive": (
        f"LIBLINEAR -s 13 -e {_sci(TIGHT_EPS)} or LinearSVR tol={_sci(SVR_TOL)}, the lower; "
        "LIBLINEAR's dual value bounds it"
    ),
}

#: Per data set: its task and, for classification, whether it is given dense
#: (StandardScaler centres it) or as CSR (``with_mean=False``).
DATASETS: dict[str, dict] = {
    "cpusmall": {"task": "regression"},
    "abalone": {"task": "regression"},
    "diabetes": {"task": "regression"},
    "heavy-tailed": {"task": "regression"},
    "a9a": {"task": "classification", "dense": False},
    "w8a": {"task": "classification", "dense": False},
    "usps": {"task": "classification", "dense": True},
    "dna": {"task": "classification", "dense": False},
    "ijcnn1": {"task": "classification", "dense": True},
    "digits": {"task": "classification", "dense": True},
    "breast-cancer": {"task": "classification", "dense": True},
    "letter-like": {"task": "classification", "dense": True},
}
QUICK_DATASETS = ["cpusmall", "diabetes", "heavy-tailed", "a9a", "breast-cancer", "digits"]
#: The smoke run: one loss per set.
SMOKE = {"diabetes": ("epsilon_insensitive",), "breast-cancer": ("hinge",)}

#: A missed row is fitted again with one of these settings changed.
VARIANTS = {
    "100 passes": {"max_iter": 100},
    "last iterate": {"average": False},
    "no projection": {"projection": False},
}


# ----------------------------------------------------------------------------- data


def regression_data(name: str):
    """``(X, y)`` of a regression set (dense, every row: the folds split them), or
    None when its files are absent."""
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        return load_diabetes(return_X_y=True)
    if name == "heavy-tailed":
        from heavy_tailed import heavy_tailed_rows

        return heavy_tailed_rows(SEED)
    import shared_data

    if not shared_data.available(name):
        return None
    X, y, Xt, yt = shared_data.load(name)
    return sp.vstack([X, Xt]).toarray(), np.concatenate([y, yt])


def classification_data(name: str):
    """``(X, y, X_test, y_test)`` of a classification set (dense or CSR as
    :data:`DATASETS` says), or None when its files are absent."""
    import shared_data

    cfg = DATASETS[name]
    if name in ("digits", "breast-cancer"):
        from sklearn.datasets import load_breast_cancer, load_digits

        load = load_digits if name == "digits" else load_breast_cancer
        data = shared_data.split(*load(return_X_y=True), seed=SEED)
    elif name == "letter-like":
        from bench_kernel_classes import generated

        data = generated(name)
    else:
        if not shared_data.available(name):
            return None
        data = shared_data.load(name, seed=SEED)
    X, y, Xt, yt = data
    if cfg["dense"]:
        X, Xt = (
            A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64) for A in (X, Xt)
        )
    else:
        X, Xt = as_int32_csr(X), as_int32_csr(Xt)
    return X, np.asarray(y), Xt, np.asarray(yt)


def squared_norm_tail(X, dense: bool = True) -> float:
    """The largest squared row norm of ``X`` standardised (as the pipelines do:
    centred when ``dense``) over the mean's."""
    from sklearn.preprocessing import StandardScaler

    Xs = StandardScaler(with_mean=dense).fit_transform(X)
    norms = np.asarray(Xs.multiply(Xs).sum(axis=1)).ravel() if sp.issparse(Xs) else (Xs**2).sum(1)
    return float(norms.max() / norms.mean())


def first_step(model, m: int) -> int:
    """The step ``t0`` a fitted pipeline's Pegasos estimator started at (1, or the
    squared losses' later start): ``t_`` counts from ``t0 - 1``, one step a row."""
    est = model[-1]
    return int(est.t_) - int(est.n_iter_) * m + 1


# ----------------------------------------------------------------------- estimators


def pipeline(task: str, loss: str, library: str, dense: bool = True, **settings):
    """``make_pipeline(StandardScaler(), estimator)``: the estimator at its defaults
    but ``loss``, ``random_state=0`` and ``settings``; ``with_mean=False`` when the
    data is sparse."""
    from pegasos_rs import PegasosClassifier, PegasosRegressor
    from sklearn.linear_model import SGDClassifier, SGDRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    cls = {
        ("regression", "pegasos"): PegasosRegressor,
        ("regression", "sgd"): SGDRegressor,
        ("classification", "pegasos"): PegasosClassifier,
        ("classification", "sgd"): SGDClassifier,
    }[task, library]
    est = cls(loss=loss, random_state=SEED, **settings)
    return make_pipeline(StandardScaler(with_mean=dense), est)


def check_defaults() -> None:
    """The settings the optimum is computed with are both libraries' defaults."""
    from pegasos_rs import PegasosClassifier, PegasosRegressor
    from sklearn.linear_model import SGDClassifier, SGDRegressor

    for est in (PegasosRegressor(), SGDRegressor(), PegasosClassifier(), SGDClassifier()):
        params = est.get_params()
        check(params["alpha"] == ALPHA, f"{type(est).__name__}'s default alpha is not {ALPHA}")
        if "epsilon" in params and type(est) is not SGDClassifier:
            check(params["epsilon"] == EPSILON, f"{type(est).__name__}'s epsilon is not 0.1")
    for est in (PegasosRegressor(), PegasosClassifier()):
        check(est.intercept_scaling == 1.0, "Pegasos' default intercept_scaling is not 1")


def fit_recording(model, X, y) -> list[str]:
    """Fit ``model`` and return the ConvergenceWarnings it issued (their messages);
    any other warning is shown as usual."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    for w in caught:
        if not issubclass(w.category, ConvergenceWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def fit_time(make, X, y, repeats: int) -> tuple[float, int]:
    """Median wall time of ``repeats`` fits of a fresh ``make()`` on ``(X, y)``
    (warnings recorded, not shown) and the number of runs."""
    t, _, runs = timeit(lambda: fit_recording(make(), X, y), repeats)
    return t, runs


def linear_parts(model) -> tuple[np.ndarray, float]:
    """``(w, b)`` of a pipeline's fitted linear regressor."""
    est = model[-1]
    return np.ravel(est.coef_), float(np.ravel(est.intercept_)[0])


# ------------------------------------------------------------- part 1: regression


def optimum(loss: str, X, y) -> dict:
    """The minimiser of Pegasos' objective of ``loss`` at its defaults on ``(X, y)``:
    ``w``, ``b``, ``F``, the solver, and for epsilon_insensitive LIBLINEAR's dual
    value (a lower bound of the minimum)."""
    if OPTIMUM_SOLVER[loss] == "L-BFGS":
        w, b, info = lbfgs_solution(loss, X, y, ALPHA)
        out = {"w": w, "b": b, "solver": "L-BFGS", "info": info["message"]}
        out["F"] = loss_objective(loss, w, b, X, y, ALPHA, EPSILON)
        return out
    return epsilon_insensitive_optimum(X, y)


def epsilon_insensitive_optimum(X, y) -> dict:
    """epsilon_insensitive's minimiser: the lower objective of LIBLINEAR ``-s 13 -B 1
    -e 1e-6`` (liblinear-official: its dual coordinate descent stops after 1000
    iterations, often before that tolerance) and of scikit-learn's copy of the same
    solver, ``LinearSVR(dual=True, intercept_scaling=1)`` at ``tol=1e-8`` with no
    practical iteration limit (checked: it stopped on its tolerance). LIBLINEAR's
    dual value bounds the minimum from below, checked against both."""
    from liblinear import liblinear as ll
    from sklearn.svm import LinearSVR

    loss = "epsilon_insensitive"
    m, d = X.shape
    C = 1.0 / (ALPHA * m)
    output: list[str] = []
    prob = ll.problem(np.ascontiguousarray(y, dtype=np.float64), as_int32_csr(X))
    w, b = liblinear_model(liblinear_fit(prob, 13, C, TIGHT_EPS, capture=output), d, False)
    text = "".join(output)
    dual = dual_lower_bound(text, C, m)
    check(dual is not None, "LIBLINEAR -s 13 printed no dual value")
    svr = LinearSVR(C=C, epsilon=EPSILON, loss=loss, dual=True, tol=SVR_TOL,
                    max_iter=SVR_MAX_ITER, intercept_scaling=1.0, random_state=SEED)  # fmt: skip
    svr.fit(X, y)
    check(svr.n_iter_ < SVR_MAX_ITER, f"LinearSVR stopped at max_iter={SVR_MAX_ITER}")
    candidates = {
        f"LIBLINEAR -s 13 -e {_sci(TIGHT_EPS)}": (w, b),
        f"LinearSVR tol={_sci(SVR_TOL)}": (np.ravel(svr.coef_), float(np.ravel(svr.intercept_)[0])),
    }
    values = {k: loss_objective(loss, *wb, X, y, ALPHA, EPSILON) for k, wb in candidates.items()}
    for k, F in values.items():
        check(
            F >= dual * (1 - 1e-9) - 1e-12,
            f"{k}'s primal {F} below LIBLINEAR's dual {dual}: the objective does not match "
            "LIBLINEAR's (C m scaling, bias, epsilon)",
        )
    best = min(values, key=values.__getitem__)
    w, b = candidates[best]
    hit = "reaching max number of iterations" in text
    return {"w": w, "b": b, "F": values[best], "dual": dual, "solver": best, "max_iter_hit": hit}


def sgd_objective(loss: str, w, b: float, X, y) -> float:
    """SGDRegressor's objective at its defaults: Pegasos' without ``alpha/2 b^2``
    (SGD does not regularise its bias)."""
    return loss_objective(loss, w, b, X, y, ALPHA, EPSILON) - 0.5 * ALPHA * b * b


def sgd_objective_optimum(loss: str, X, y) -> dict:
    """The minimiser ``w``, ``b`` and value ``F`` of :func:`sgd_objective`: L-BFGS for
    the differentiable losses; for epsilon_insensitive, Brent's search over the bias
    of the minimum over ``w`` at a fixed bias (``LinearSVR(fit_intercept=False)`` on
    ``y - b``, as for the optimum), a convex function of the bias."""
    from scipy.optimize import minimize_scalar
    from sklearn.svm import LinearSVR

    if loss != "epsilon_insensitive":
        w, b, _ = lbfgs_solution(loss, X, y, ALPHA, regularise_bias=False)
        return {"w": w, "b": b, "F": sgd_objective(loss, w, b, X, y)}
    C = 1.0 / (ALPHA * X.shape[0])

    def at(b: float) -> tuple[float, np.ndarray]:
        svr = LinearSVR(C=C, epsilon=EPSILON, loss=loss, dual=True, fit_intercept=False,
                        tol=SVR_TOL, max_iter=SVR_MAX_ITER, random_state=SEED)  # fmt: skip
        svr.fit(X, y - b)
        check(svr.n_iter_ < SVR_MAX_ITER, f"LinearSVR stopped at max_iter={SVR_MAX_ITER}")
        w = np.ravel(svr.coef_)
        return sgd_objective(loss, w, b, X, y), w

    centre = float(np.median(y))
    best = minimize_scalar(lambda b: at(b)[0], bracket=(centre - 1.0, centre + 1.0), tol=1e-6)
    F, w = at(float(best.x))
    return {"w": w, "b": float(best.x), "F": F}


def regression_fold(loss: str, X, y, train, test) -> dict:
    """One fold of a regression row: the R² and objective of each solver (the
    objective on the fold's standardised training rows), Pegasos' and SGDRegressor's
    ConvergenceWarnings."""
    from sklearn.metrics import r2_score

    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    fold: dict = {"r2": {}, "F": {}, "warnings": {}}
    models = {
        "pegasos": pipeline("regression", loss, "pegasos"),
        "sgd": pipeline("regression", loss, "sgd"),
        "sgd_long": pipeline("regression", loss, "sgd", tol=None, max_iter=LONG_ITER),
    }
    for key, model in models.items():
        fold["warnings"][key] = fit_recording(model, Xtr, ytr)
        fold["r2"][key] = float(model.score(Xte, yte))
    m, est = Xtr.shape[0], models["pegasos"][-1]
    fold["t0"], fold["steps"] = first_step(models["pegasos"], m), int(est.n_iter_) * m
    scaler = models["pegasos"][0]
    Xs, Xts = scaler.transform(Xtr), scaler.transform(Xte)
    opt = optimum(loss, Xs, ytr)
    fold["r2"]["optimum"] = float(r2_score(yte, Xts @ opt["w"] + opt["b"]))
    fold["F"]["optimum"] = opt["F"]
    fold["optimum_solver"], fold["optimum_info"] = opt["solver"], opt.get("info")
    fold["dual"], fold["max_iter_hit"] = opt.get("dual"), opt.get("max_iter_hit", False)
    fold["certified"] = None if "dual" not in opt else (opt["F"] - opt["dual"]) / opt["F"]
    lower = opt["dual"] if "dual" in opt else opt["F"]
    for key, model in models.items():
        w, b = linear_parts(model)
        F = fold["F"][key] = loss_objective(loss, w, b, Xs, ytr, ALPHA, EPSILON)
        check(
            F >= lower - BELOW_OPTIMUM_TOL * abs(lower),
            f"{loss}: the {key} fit's objective {F} is below the optimum's lower bound "
            f"{lower} ({OPTIMUM_SOLVER[loss]} did not find the minimum)",
        )
    # SGDRegressor's own objective (the bias not regularised): its minimiser's R², and
    # no fit below it (checked, every fit and the optimum above taken as candidates).
    sgd_opt = sgd_objective_optimum(loss, Xs, ytr)
    fold["r2"]["sgd_optimum"] = float(r2_score(yte, Xts @ sgd_opt["w"] + sgd_opt["b"]))
    candidates = {key: linear_parts(model) for key, model in models.items()}
    candidates["optimum"] = (opt["w"], opt["b"])
    for key, (w, b) in candidates.items():
        F = sgd_objective(loss, w, b, Xs, ytr)
        check(
            F >= sgd_opt["F"] - BELOW_OPTIMUM_TOL * abs(sgd_opt["F"]),
            f"{loss}: the {key} fit's SGD objective {F} is below its minimum as found, "
            f"{sgd_opt['F']}",
        )
    return fold


def regression_row(name: str, X, y, loss: str, args) -> dict:
    """One (set, loss) row of part 1: the folds' means, warnings and the fit times."""
    from sklearn.model_selection import KFold

    splits = list(KFold(FOLDS, shuffle=True, random_state=SEED).split(X))
    folds = [regression_fold(loss, X, y, tr, te) for tr, te in splits]
    row: dict = {"dataset": name, "loss": loss, "folds": folds}
    for key in ("pegasos", "sgd", "sgd_long", "optimum", "sgd_optimum"):
        row[key] = float(np.mean([f["r2"][key] for f in folds]))
    row["gap"] = {
        key: float(np.mean([(f["F"][key] - f["F"]["optimum"]) / f["F"]["optimum"] for f in folds]))
        for key in ("pegasos", "sgd", "sgd_long")
    }
    row["warned"] = {
        key: sum(bool(f["warnings"][key]) for f in folds) for key in ("pegasos", "sgd")
    }
    row["warning"] = next(
        (f["warnings"]["pegasos"][0] for f in folds if f["warnings"]["pegasos"]), None
    )
    row["max_iter_hit"] = sum(f["max_iter_hit"] for f in folds)
    row["t0"], row["steps"] = folds[0]["t0"], folds[0]["steps"]  # the first fold's fit
    for key in ("pegasos", "sgd"):
        row[f"{key}_time"], row["runs"] = fit_time(
            lambda key=key: pipeline("regression", loss, key), X, y, args.repeats
        )
    row["met"] = row["pegasos"] >= row["sgd"] - R2_TOLERANCE
    row["reachable"] = max(row["optimum"], row["sgd_optimum"]) >= row["sgd"] - R2_TOLERANCE
    check(
        row["optimum"] > 0, f"{name}/{loss}: the optimum's R² {row['optimum']:.3f} is not positive"
    )
    if not row["met"]:
        row["variants"] = {
            label: regression_variant(X, y, loss, splits, settings)
            for label, settings in VARIANTS.items()
        }
    print(
        f"  {loss}: Pegasos {row['pegasos']:.4f} SGD {row['sgd']:.4f} optimum "
        f"{row['optimum']:.4f} SGD long {row['sgd_long']:.4f} "
        f"({'met' if row['met'] else 'missed'})",
        flush=True,
    )
    return row


def regression_variant(X, y, loss: str, splits, settings: dict) -> dict:
    """Pegasos' 5-fold R² with ``settings`` changed, and its warned folds."""
    scores, warned = [], 0
    for tr, te in splits:
        model = pipeline("regression", loss, "pegasos", **settings)
        warned += bool(fit_recording(model, X[tr], y[tr]))
        scores.append(float(model.score(X[te], y[te])))
    return {"score": float(np.mean(scores)), "warned": warned}


def run_regression(name: str, args) -> dict | None:
    """Part 1 on ``name``, or None when its files are absent."""
    data = regression_data(name)
    if data is None:
        print(f"[skip] {name}: data files not found", flush=True)
        return None
    X, y = np.asarray(data[0], dtype=np.float64), np.asarray(data[1], dtype=np.float64)
    tail = squared_norm_tail(X)
    if name == "heavy-tailed":
        check(
            tail > HEAVY_TAIL,
            f"heavy-tailed: the largest squared row norm is {tail:.0f} x the mean",
        )
    print(f"== {name}: m={X.shape[0]} d={X.shape[1]} tail={tail:.0f}", flush=True)
    rows = [regression_row(name, X, y, loss, args) for loss in args.losses_of(name)]
    return {"name": name, "task": "regression", "m": X.shape[0], "d": X.shape[1], "tail": tail,
            "y_mean": float(y.mean()), "y_std": float(y.std()), "rows": rows}  # fmt: skip


# --------------------------------------------------------- part 2: classification


#: The solver of each classification loss's optimum, per one-vs-rest problem: a
#: LIBLINEAR solver (``-B 1``, at ``-e 1e-6``) or None for scipy's L-BFGS.
CLASSIFICATION_SOLVER = {"hinge": 3, "log_loss": 0, "squared_hinge": 2, "modified_huber": None}


def classification_optimum(loss: str, X, Y: np.ndarray) -> dict:
    """The minimisers of Pegasos' objective of ``loss`` at its defaults, one per
    binary problem (``Y``: their +-1 targets, shape (K, m)): ``W`` (K, d), ``b``
    (K,), the objectives ``F`` and, for LIBLINEAR's dual solver, its dual values
    (lower bounds of the minima)."""
    from liblinear import liblinear as ll

    solver = CLASSIFICATION_SOLVER[loss]
    m, d = X.shape
    C = 1.0 / (ALPHA * m)
    Xc = as_int32_csr(X) if solver is not None else X
    W, b, F, lower = [], [], [], []
    for yk in Y:
        if solver is None:
            w, bk, _ = lbfgs_solution(loss, X, yk, ALPHA)
            dual = None
        else:
            output: list[str] = []
            prob = ll.problem(np.ascontiguousarray(yk), Xc)
            model = liblinear_fit(prob, solver, C, TIGHT_EPS, capture=output)
            w, bk = liblinear_model(model, d, classification=True)
            dual = dual_lower_bound("".join(output), C, m) if solver == 3 else None
        Fk = loss_objective(loss, w, bk, X, yk, ALPHA)
        if dual is not None:
            check(Fk >= dual * (1 - 1e-9) - 1e-12, f"{loss}: LIBLINEAR's primal {Fk} below "
                  f"its dual {dual}: the objective does not match LIBLINEAR's")  # fmt: skip
        W.append(w)
        b.append(bk)
        F.append(Fk)
        lower.append(Fk if dual is None else dual)
    return {"W": np.array(W), "b": np.array(b), "F": np.array(F), "lower": np.array(lower)}


def ovr_objectives(loss: str, W, b, X, Y) -> np.ndarray:
    """Pegasos' objective of each binary problem of a one-vs-rest model."""
    W, b = np.atleast_2d(W), np.ravel(b)
    return np.array([loss_objective(loss, W[k], b[k], X, Y[k], ALPHA) for k in range(len(Y))])


def ovr_predict(W, b, X, classes: np.ndarray) -> np.ndarray:
    """The labels of the one-vs-rest model ``(W, b)``: the sign of the one problem of
    two classes (``classes[1]`` positive), the largest score of more."""
    scores = np.asarray(X @ np.atleast_2d(W).T) + np.ravel(b)[None, :]
    if classes.size == 2:
        return classes[(scores[:, 0] > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


def optimum_comparison(loss: str, models: dict, X, y, Xt, yt) -> dict:
    """The optimum's test accuracy and each fitted pipeline's objective against it
    (summed over the one-vs-rest problems; on the training rows as the pipeline's
    scaler transforms them); checks no fit is below the optimum's lower bound."""
    from common import one_vs_rest_targets

    scaler = models["pegasos"][0]
    Xs, Xts = scaler.transform(X), scaler.transform(Xt)
    classes = np.unique(y)
    Y = one_vs_rest_targets(y, classes)
    opt = classification_optimum(loss, Xs, Y)
    out = {"optimum": float(np.mean(ovr_predict(opt["W"], opt["b"], Xts, classes) == yt)),
           "F_optimum": float(opt["F"].sum()), "gap": {}}  # fmt: skip
    lower = opt["lower"].sum()
    for key, model in models.items():
        est = model[-1]
        F = ovr_objectives(loss, est.coef_, est.intercept_, Xs, Y).sum()
        check(
            F >= lower - BELOW_OPTIMUM_TOL * abs(lower),
            f"{loss}: the {key} fit's objective {F} is below the optimum's lower bound {lower}",
        )
        out["gap"][key] = float((F - opt["F"].sum()) / opt["F"].sum())
    return out


def classification_row(name: str, data, loss: str, args) -> dict:
    """One (set, loss) row of part 2: test accuracies, warnings and fit times."""
    X, y, Xt, yt = data
    dense = DATASETS[name]["dense"]
    row: dict = {"dataset": name, "loss": loss}
    models = {}
    for key in ("pegasos", "sgd"):
        model = models[key] = pipeline("classification", loss, key, dense)
        row[f"{key}_warnings"] = fit_recording(model, X, y)
        row[key] = float(np.mean(model.predict(Xt) == yt))
        row[f"{key}_time"], row["runs"] = fit_time(
            lambda key=key: pipeline("classification", loss, key, dense), X, y, args.repeats
        )
    m = X.shape[0]
    row["t0"], row["steps"] = (
        first_step(models["pegasos"], m),
        int(models["pegasos"][-1].n_iter_) * m,
    )
    row.update(optimum_comparison(loss, models, X, y, Xt, yt))
    counts = np.unique(yt, return_counts=True)[1]
    majority = float(counts.max() / counts.sum())
    check(row["sgd"] > majority, f"{name}/{loss}: SGDClassifier's accuracy {row['sgd']:.4f} is "
          f"not above the majority rate {majority:.4f}: the data is not read right")  # fmt: skip
    row["met"] = row["pegasos"] >= row["sgd"]
    if not row["met"]:
        row["variants"] = {}
        for label, settings in VARIANTS.items():
            model = pipeline("classification", loss, "pegasos", dense, **settings)
            warned = bool(fit_recording(model, X, y))
            score = float(np.mean(model.predict(Xt) == yt))
            row["variants"][label] = {"score": score, "warned": warned}
    print(f"  {loss}: Pegasos {row['pegasos']:.4f} SGD {row['sgd']:.4f} optimum "
          f"{row['optimum']:.4f} ({'met' if row['met'] else 'missed'})", flush=True)  # fmt: skip
    return row


def run_classification(name: str, args) -> dict | None:
    """Part 2 on ``name``, or None when its files are absent."""
    data = classification_data(name)
    if data is None:
        print(f"[skip] {name}: data files not found", flush=True)
        return None
    X, y, Xt, _ = data
    classes = np.unique(y).size
    tail = squared_norm_tail(X, DATASETS[name]["dense"])
    print(f"== {name}: m={X.shape[0]} test={Xt.shape[0]} d={X.shape[1]} classes={classes}",
          flush=True)  # fmt: skip
    rows = [classification_row(name, data, loss, args) for loss in args.losses_of(name)]
    return {"name": name, "task": "classification", "m": X.shape[0], "m_test": Xt.shape[0],
            "d": X.shape[1], "classes": classes, "dense": DATASETS[name]["dense"],
            "tail": tail, "rows": rows}  # fmt: skip


def run_dataset(name: str, args) -> dict | None:
    if DATASETS[name]["task"] == "regression":
        return run_regression(name, args)
    return run_classification(name, args)


# --------------------------------------------------------------------------- output


def _warned(count: int, of: int) -> str:
    return "no" if count == 0 else f"{count} of {of} folds" if of > 1 else "yes"


def regression_verdict(row: dict) -> str:
    if row["met"]:
        return "met"
    if not row["reachable"]:
        return (
            f"missed; the objective's optimum scores {row['optimum']:.3f} (SGD's own "
            f"{row['sgd_optimum']:.3f}), below SGD's default - {R2_TOLERANCE:g}"
        )
    return f"missed by {row['sgd'] - R2_TOLERANCE - row['pegasos']:.3f}"


def regression_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        for row in r["rows"]:
            rows.append([
                r["name"], f"`{row['loss']}`", f"{row['pegasos']:.3f}", f"{row['sgd']:.3f}",
                regression_verdict(row), f"{row['optimum']:.3f}", f"{row['sgd_optimum']:.3f}",
                f"{row['sgd_long']:.3f}",
                _warned(row["warned"]["pegasos"], FOLDS), fmt_time(row["pegasos_time"]),
                fmt_time(row["sgd_time"]),
            ])  # fmt: skip
    header = ["dataset", "loss", "Pegasos R²", "SGDRegressor R²",
              f"target: Pegasos ≥ SGD - {R2_TOLERANCE:g}", "optimum of the objective R²",
              "optimum of SGD's objective R²", f"SGDRegressor tol=None, {LONG_ITER} passes R²",
              "Pegasos ConvergenceWarning", "Pegasos fit time",
              "SGDRegressor fit time"]  # fmt: skip
    return markdown_table(header, rows, "llrrlrrrlrr")


def objective_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        for row in r["rows"]:
            folds = row["folds"]
            F = np.mean([f["F"]["optimum"] for f in folds])
            solvers = sorted({f["optimum_solver"] for f in folds})
            solver = " / ".join(
                f"{s} ({sum(f['optimum_solver'] == s for f in folds)} folds)" if len(solvers) > 1
                else s for s in solvers
            )  # fmt: skip
            bounds = [f["certified"] for f in folds if f["certified"] is not None]
            rows.append([
                r["name"], f"`{row['loss']}`", solver,
                f"≤ {max(bounds):.1e}" if bounds else "—", f"{F:.6g}",
                *(f"{row['gap'][k]:+.2e}" for k in ("pegasos", "sgd", "sgd_long")),
                _warned(row["warned"]["sgd"], FOLDS),
            ])  # fmt: skip
    header = ["dataset", "loss", "optimum from", "its (F* - dual) / F*",
              "F* (mean of the folds)", "Pegasos (F - F*) / F*",
              "SGDRegressor default (F - F*) / F*",
              f"SGDRegressor {LONG_ITER} passes (F - F*) / F*",
              "SGDRegressor ConvergenceWarning"]  # fmt: skip
    return markdown_table(header, rows, "lllrrrrrl")


def classification_verdict(row: dict) -> str:
    if row["met"]:
        return "met"
    text = f"missed by {100 * (row['sgd'] - row['pegasos']):.2f} pp"
    if row["optimum"] < row["sgd"]:
        text += f"; the objective's optimum scores {100 * row['optimum']:.2f}%, below SGD's"
    return text


def classification_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        for row in r["rows"]:
            gap = 100 * (row["pegasos"] - row["sgd"])
            rows.append([
                r["name"], f"`{row['loss']}`", f"{100 * row['pegasos']:.2f}%",
                f"{100 * row['sgd']:.2f}%", f"{gap:+.2f} pp", classification_verdict(row),
                f"{100 * row['optimum']:.2f}%", f"{row['gap']['pegasos']:+.2e}",
                f"{row['gap']['sgd']:+.2e}", "yes" if row["pegasos_warnings"] else "no",
                "yes" if row["sgd_warnings"] else "no",
                fmt_time(row["pegasos_time"]), fmt_time(row["sgd_time"]),
            ])  # fmt: skip
    header = ["dataset", "loss", "Pegasos test acc", "SGDClassifier test acc",
              "Pegasos - SGD", "target: Pegasos ≥ SGD", "optimum of the objective test acc",
              "Pegasos (F - F*) / F*", "SGDClassifier (F - F*) / F*",
              "Pegasos ConvergenceWarning", "SGDClassifier ConvergenceWarning",
              "Pegasos fit time", "SGDClassifier fit time"]  # fmt: skip
    return markdown_table(header, rows, "llrrrlrrrllrr")


def variants_table(results: list[dict]) -> str | None:
    rows = []
    for r in results:
        regression = r["task"] == "regression"
        for row in r["rows"]:
            if "variants" not in row:
                continue
            cells = [r["name"], f"`{row['loss']}`", f"{row['t0']:,}", f"{row['steps']:,}",
                     _score(row["pegasos"], regression),
                     _score(row["sgd"], regression)]  # fmt: skip
            for v in row["variants"].values():
                warned = _warned(v["warned"], FOLDS if regression else 1)
                cells.append(f"{_score(v['score'], regression)} (warned: {warned})")
            rows.append(cells)
    if not rows:
        return None
    header = ["dataset", "loss", "Pegasos' first step t0", "steps of its 20 passes",
              "Pegasos default", "SGD default",
              *(f"Pegasos {label}" for label in VARIANTS)]  # fmt: skip
    return markdown_table(header, rows, "llrrrr" + "r" * len(VARIANTS))


def _score(x: float, regression: bool) -> str:
    return f"{x:.3f}" if regression else f"{100 * x:.2f}%"


def datasets_table(results: list[dict]) -> str:
    rows = []
    for r in results:
        if r["task"] == "regression":
            rows.append([r["name"], "regression", f"{r['m']:,} ({FOLDS} folds)", f"{r['d']:,}",
                         "—", f"{r['tail']:.0f}", f"{r['y_mean']:.3g} ± {r['y_std']:.3g}",
                         "dense, StandardScaler()"])  # fmt: skip
        else:
            scaler = (
                "dense, StandardScaler()" if r["dense"] else "CSR, StandardScaler(with_mean=False)"
            )
            rows.append([r["name"], "classification", f"{r['m']:,} / {r['m_test']:,}",
                         f"{r['d']:,}", str(r["classes"]), f"{r['tail']:.0f}", "—",
                         scaler])  # fmt: skip
    header = ["dataset", "task", "rows (train / test)", "d", "classes",
              "largest / mean squared row norm, standardised", "target mean ± std",
              "input"]  # fmt: skip
    return markdown_table(header, rows, "llrrrrrl")


def summary(results: list[dict]) -> list[str]:
    out = []
    reg = [row for r in results if r["task"] == "regression" for row in r["rows"]]
    cls = [row for r in results if r["task"] == "classification" for row in r["rows"]]
    if reg:
        missed = [f"{row['dataset']}/`{row['loss']}`" for row in reg if not row["met"]]
        beyond = [f"{row['dataset']}/`{row['loss']}`" for row in reg
                  if not row["met"] and not row["reachable"]]  # fmt: skip
        out.append(
            f"Regression: {len(reg) - len(missed)} of {len(reg)} rows met the target"
            + (f"; missed: {', '.join(missed)}" if missed else "")
            + (
                f"; of these, the objective's own optimum scores below SGD's default - "
                f"{R2_TOLERANCE:g} on {', '.join(beyond)}: no solver of the objective "
                "Pegasos minimises at its defaults meets the target there"
                if beyond
                else ""
            )
            + "."
        )
    if cls:
        missed = [
            f"{row['dataset']}/`{row['loss']}` ({100 * (row['pegasos'] - row['sgd']):+.2f} pp)"
            for row in cls
            if not row["met"]
        ]
        out.append(
            f"Classification: {len(cls) - len(missed)} of {len(cls)} rows met the target"
            + (f"; missed: {', '.join(missed)}" if missed else "")
            + "."
        )
    return out


def report(results: list[dict], args) -> str:
    runs = f"{args.repeats} run{'s' if args.repeats > 1 else ''}"
    reg = [r for r in results if r["task"] == "regression"]
    cls = [r for r in results if r["task"] == "classification"]
    lines = [
        f"# Defaults on {named_sets([r['name'] for r in results])}: pegasos_rs against "
        "SGDRegressor and SGDClassifier",
        "",
        "Every estimator at its defaults but `loss` and `random_state=0`, after a "
        "`StandardScaler` in one pipeline (`with_mean=False` on CSR input); one thread. "
        f"Both libraries' defaults: alpha = {_sci(ALPHA)}, epsilon = {EPSILON:g}; Pegasos "
        "20 averaged passes, `tol=None`; SGDRegressor `learning_rate='invscaling'` and "
        "SGDClassifier `'optimal'`, up to 1000 passes with `tol=1e-3`. Accuracies and R² "
        f"are deterministic (every fit seeded); every fit time is the median of {runs} of "
        "the whole pipeline on the training rows (all rows, for regression).",
    ]
    lines += ["", *summary(results)]
    lines += section("Datasets", datasets_table(results))
    if reg:
        lines += section(
            f"1. Regression: {FOLDS}-fold R² at both libraries' defaults (target: Pegasos ≥ "
            f"SGDRegressor - {R2_TOLERANCE:g})",
            regression_table(reg),
        )
        lines += [
            "",
            f"R²: the mean over the folds of shuffled `KFold({FOLDS}, random_state={SEED})`. "
            "The optimum: per fold, the exact minimiser of the objective Pegasos minimises at "
            "its defaults, alpha/2 (\\|w\\|² + b²) + 1/m Σ L(⟨w, x⟩ + b - y), "
            f"alpha = {_sci(ALPHA)}, epsilon = {EPSILON:g}, on the fold's standardised training "
            "rows (the bias regularised, as `intercept_scaling=1`), scored on its test rows. "
            "The optimum of SGD's objective: the same without alpha/2 b² (SGDRegressor does "
            'not regularise its bias). "missed; the objective\'s optimum scores ...": '
            "neither optimum meets the target on that row, so no solver of either objective "
            "does; SGDRegressor's default gets its R² from where it stops (`tol`), not from "
            "the minimum of its objective, and Pegasos' defaults would have to change the "
            "objective (alpha, epsilon) or stop early to match it.",
        ]
        lines += section(
            "1b. Regression: each solver's objective against the optimum (training rows, "
            "mean over the folds)",
            objective_table(reg),
        )
        lines += [
            "",
            "F: Pegasos' objective (as above) of each fitted model on its fold's training rows; "
            "no fit's F is below the optimum's (checked; for LIBLINEAR, below its dual value).",
        ]
    if cls:
        lines += section(
            "2. Classification: test accuracy at both libraries' defaults (target: Pegasos ≥ "
            "SGDClassifier)",
            classification_table(cls),
        )
        lines += [
            "",
            "The optimum: the exact minimiser of the objective Pegasos minimises at its "
            f"defaults, alpha/2 (\\|w\\|² + b²) + 1/m Σ L(y (⟨w, x⟩ + b)), alpha = {_sci(ALPHA)}, "
            "for each one-vs-rest problem (one of two classes), on the standardised training "
            f"rows: LIBLINEAR -B 1 -e {_sci(TIGHT_EPS)} (hinge -s 3, log_loss -s 0, squared_hinge "
            "-s 2; C = 1/(alpha m)) or scipy's L-BFGS (modified_huber), then the largest score "
            "(the sign for two classes) on the test rows. F: that objective summed over the "
            "problems, of each fitted model (SGDClassifier's bias is not regularised in its "
            "own objective, but counted here); no fit's F is below the optimum's (checked; for "
            "-s 3, below its dual value).",
        ]
    variants = variants_table(results)
    if variants:
        lines += section("3. Rows that missed: Pegasos with one setting changed", variants)
        lines += [
            "",
            "Each variant changes one default of Pegasos: `max_iter=100` (default 20), "
            "`average=False` (the last iterate) or `projection=False`; regression: "
            f"{FOLDS}-fold R², classification: test accuracy. t0 and the steps: of the default "
            "fit (regression: of its first fold); the squared losses and modified_huber start "
            'at a step t0 > 1 (docs/user_guide/losses.rst, "Where the squared losses start"), '
            "so that over the fit the step 1/(alpha t) falls by the factor t0 / (t0 + steps).",
        ]
    lines += notes(_notes(results))
    return "\n".join(lines) + "\n"


def _notes(results: list[dict]) -> list[str]:
    out = [
        "ConvergenceWarning: Pegasos without `tol` warns when the last of its passes still "
        'lowered the objective by more than 5 % (docs/user_guide/losses.rst, "Whether the '
        'passes were enough"); SGDRegressor / SGDClassifier when `max_iter` ran out before '
        "`tol`. Regression counts the folds whose fit warned.",
        "The sets: cpusmall and abalone are their train and test files (shared_data.py's "
        "split) put together for the folds; w8a is split 70/30 by a seeded permutation "
        "(shared_data.split), digits and breast cancer too; `heavy-tailed` is "
        "`heavy_tailed.py`'s set (Gaussian rows times a log-normal factor, seed 0); "
        "`letter-like` is bench_kernel_classes.py's 26-class set.",
    ]
    warned = next((row["warning"] for r in results if r["task"] == "regression"
                   for row in r["rows"] if row.get("warning")), None)  # fmt: skip
    if warned:
        out.append(f'A Pegasos warning, as issued: "{warned}"')
    for r in results:
        for row in r["rows"]:
            if r["task"] == "classification" and row["pegasos_warnings"]:
                out.append(f'A Pegasos warning, as issued: "{row["pegasos_warnings"][0]}"')
                return out
    return out


# ---------------------------------------------------------------------------- main


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sets only, 1 run")
    ap.add_argument("--smoke", action="store_true", help="diabetes and breast cancer, one "
                    "loss each, 1 run (the test suite)")  # fmt: skip
    ap.add_argument("--datasets", help="comma-separated subset of " + ",".join(DATASETS))
    ap.add_argument("--losses", help="comma-separated subset of the losses (default: all)")
    ap.add_argument("--repeats", type=int, help="runs per fit time (median); default 3")
    ap.add_argument("--prefix", help="output file prefix (default defaults, defaults_quick, ...)")
    return ap


def configure(ap, args) -> list[str]:
    default = list(SMOKE) if args.smoke else QUICK_DATASETS if args.quick else list(DATASETS)
    names = select_names(ap, args.datasets, DATASETS, default)
    chosen = None
    if args.losses:
        chosen = [loss.strip() for loss in args.losses.split(",") if loss.strip()]
        unknown = set(chosen) - set(REGRESSION_LOSSES) - set(CLASSIFICATION_LOSSES)
        if unknown:
            ap.error(f"unknown losses {sorted(unknown)}")

    def losses_of(name: str) -> list[str]:
        regression = DATASETS[name]["task"] == "regression"
        losses = REGRESSION_LOSSES if regression else CLASSIFICATION_LOSSES
        if chosen is not None:
            return [loss for loss in losses if loss in chosen]
        return list(SMOKE[name]) if args.smoke else list(losses)

    args.losses_of = losses_of
    names = [n for n in names if losses_of(n)]
    if args.repeats is None:
        args.repeats = 1 if args.quick or args.smoke else 3
    if args.prefix is None:
        args.prefix = (
            "defaults_smoke" if args.smoke else "defaults_quick" if args.quick else "defaults"
        )
    return names


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    names = configure(ap, args)
    check_defaults()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    raw = RESULTS_DIR / f"{args.prefix}.json"

    def save(results):
        return write_json(raw, {"datasets": results})

    started = time.perf_counter()
    gc.freeze()  # the imports' objects: out of reach of the gc.collect() before each timing
    results = common.measure_all(names, lambda name: run_dataset(name, args), save)
    if not results:
        print("no dataset available: nothing measured", file=sys.stderr)
        return 1
    publish(args.prefix, report(results, args), started, also=save(results).name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
