"""Choosing C and gamma by cross-validation (issue 38): KernelPegasosClassifierCV
against ``GridSearchCV(SVC)`` and ``GridSearchCV(KernelPegasosClassifier)``.

One thread. The grid is gamma in {1/4, 1/2, 1, 2} x the ``gamma="scale"`` value of
the training rows, C in {1, 2, 4, 8, 16, 32} (``alpha = 1/(C m_fold)`` for Pegasos;
the same ``C`` for SVC), 3 stratified unshuffled folds; the refit on all training
rows is included in every time, then the refit model's test accuracy. Rows:

1. ``GridSearchCV(SVC(C, gamma))``, LIBSVM's SMO (its kernel values computed again
   for every candidate and fold, its kernel cache 200 MB);
2. ``GridSearchCV(KernelPegasosClassifier(max_iter=P))`` over the same candidates
   (each fit computes its own kernel values);
3. ``KernelPegasosClassifierCV(Cs, gammas, max_iter=P)`` with its default
   ``precompute="auto"`` (usps: the inner products of all the rows once, the kernel
   matrix of each gamma from them, every (fold, C) on its part; a9a's sparse rows,
   14 values each: every candidate on its own kernel values), P = ``--passes`` (3)
   and the estimator's default, 10; and with ``precompute=True`` (the shared
   matrices on both), P = 3.

Data: usps (7,291 rows, 256 features, 10 classes) and the first 10,000 rows of
a9a (123 sparse features; test: all of a9a.t). Targets: (3) at most 1/5 of (1)'s
time, with a test accuracy at least (1)'s - 0.5 pp. Times are medians of
``--repeats`` runs (3), with the machine's load in the header.

    python benches/bench_kernel_selection.py                  # usps, a9a-10k
    python benches/bench_kernel_selection.py --datasets usps --repeats 1
    python benches/bench_kernel_selection.py --smoke          # generated data, seconds

Writes ``results/kernel_selection.md`` and ``kernel_selection.json``
(``kernel_selection_smoke*`` with ``--smoke``).
"""

from __future__ import annotations

import argparse
import sys
import warnings

import common
import numpy as np
from common import RESULTS_DIR, as_int32_csr, select_names, timeit
from report import measure_and_publish, write_json

CS = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
GAMMA_FACTORS = [0.25, 0.5, 1.0, 2.0]
FOLDS = 3
PASSES = 3
DEFAULT_PASSES = 10
ACC_TOLERANCE = 0.005
SVC_TARGET = 1 / 5
DATASETS = ["usps", "a9a-10k"]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", help=f"comma-separated, of {', '.join(DATASETS)}")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--passes", type=int, default=PASSES)
    ap.add_argument("--smoke", action="store_true", help="generated data, one run")
    return ap


def load(name: str):
    """``(X, y, X_test, y_test)``: dense usps, sparse a9a."""
    if name == "smoke":
        from sklearn.datasets import make_classification

        X, y = make_classification(900, 20, n_informative=8, n_classes=3, random_state=0)
        return X[:600], y[:600], X[600:], y[600:]
    import shared_data

    base = "a9a" if name == "a9a-10k" else name
    if not shared_data.available(base):
        print(f"{name}: data not found, skipped", file=sys.stderr)
        return None
    X, y, Xt, yt = shared_data.load(base)
    if name == "a9a-10k":
        # 32-bit indices: SVC refuses others.
        return as_int32_csr(X[:10000]), y[:10000], as_int32_csr(Xt), yt
    return X.toarray(), y, Xt.toarray(), yt


def grid_of(X) -> tuple[list[float], list[float]]:
    from pegasos_rs._validation import resolve_gamma

    scale = resolve_gamma("rbf", "scale", X)
    return CS, [scale * f for f in GAMMA_FACTORS]


def svc_search(X, y, folds, cs, gammas):
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    return GridSearchCV(SVC(), {"C": cs, "gamma": gammas}, cv=folds).fit(X, y)


def pegasos_grid_search(X, y, folds, cs, gammas, passes: int):
    from pegasos_rs import KernelPegasosClassifier
    from sklearn.model_selection import GridSearchCV

    m_fold = len(folds[0][0])
    grid = {"alpha": [1.0 / (c * m_fold) for c in cs], "gamma": gammas}
    est = KernelPegasosClassifier(max_iter=passes, random_state=0, n_jobs=1)
    return GridSearchCV(est, grid, cv=folds).fit(X, y)


def cv_estimator(X, y, folds, cs, gammas, passes: int, precompute="auto"):
    from pegasos_rs import KernelPegasosClassifierCV

    m_fold = len(folds[0][0])
    # The alphas GridSearchCV gets (a fold one row larger would train at another).
    alphas = [1.0 / (c * m_fold) for c in cs]
    search = KernelPegasosClassifierCV(
        alphas=alphas,
        gammas=gammas,
        cv=folds,
        max_iter=passes,
        random_state=0,
        n_jobs=1,
        precompute=precompute,
    )
    return search.fit(X, y)


def run_dataset(name: str, args) -> dict | None:
    from sklearn.model_selection import StratifiedKFold

    data = load(name)
    if data is None:
        return None
    X, y, Xt, yt = data
    folds = list(StratifiedKFold(FOLDS).split(X, y))
    cs, gammas = grid_of(X)
    m_fold = len(folds[0][0])
    R = args.repeats
    out: dict = {"dataset": name, "rows": X.shape[0], "features": X.shape[1]}
    t, svc, n = timeit(lambda: svc_search(X, y, folds, cs, gammas), R)
    out["svc"] = {
        "time": t,
        "C": svc.best_params_["C"],
        "gamma": svc.best_params_["gamma"] / gammas[2],
        "test": float(svc.score(Xt, yt)),
        "runs": n,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, gs, n = timeit(lambda: pegasos_grid_search(X, y, folds, cs, gammas, args.passes), R)
    out["grid_search"] = {
        "time": t,
        "C": 1.0 / (gs.best_params_["alpha"] * m_fold),
        "gamma": gs.best_params_["gamma"] / gammas[2],
        "test": float(gs.score(Xt, yt)),
        "passes": args.passes,
        "runs": n,
    }
    for key, passes, pre in (
        ("cv", args.passes, "auto"),
        ("cv_default", DEFAULT_PASSES, "auto"),
        ("cv_shared", args.passes, True),
    ):
        t, cv, n = timeit(
            lambda p=passes, pre=pre: cv_estimator(X, y, folds, cs, gammas, p, pre), R
        )
        out[key] = {
            "time": t,
            "C": 1.0 / (cv.alpha_ * m_fold),
            "gamma": cv.gamma_ / gammas[2],
            "test": float(cv.score(Xt, yt)),
            "passes": passes,
            "runs": n,
        }
        if key == "cv_shared":
            ours = np.array([cv.cv_results_[f"split{k}_test_score"] for k in range(FOLDS)])
            theirs = np.array([gs.cv_results_[f"split{k}_test_score"] for k in range(FOLDS)])
            out["max_fold_score_gap"] = float(np.abs(ours - theirs).max())
    for key in ("grid_search", "cv", "cv_default", "cv_shared"):
        r = out[key]
        r["vs_svc"] = r["time"] / out["svc"]["time"]
        r["accuracy_held"] = bool(r["test"] >= out["svc"]["test"] - ACC_TOLERANCE)
        r["met"] = bool(r["accuracy_held"] and r["vs_svc"] <= SVC_TARGET)
    return out


def report(results: list[dict], args) -> str:
    lines = [
        "# Choosing C and gamma by cross-validation (kernel)",
        "",
        f"One thread; rbf, gamma = {{1/4, 1/2, 1, 2}} x gamma='scale', C = 1 .. 32 "
        f"(6 values), {FOLDS} stratified folds, the refit included in every time; "
        f"times are medians of {args.repeats} runs. Test: accuracy (%) of the refit "
        "model. Target for KernelPegasosClassifierCV: at most 1/5 of "
        "GridSearchCV(SVC)'s time, test accuracy at least its - 0.5 pp.",
        "",
        "| dataset | rows | search | passes | s | best C | best gamma / scale | "
        "test % | / SVC grid | target |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    labels = (
        ("svc", "GridSearchCV(SVC)"),
        ("grid_search", "GridSearchCV(KernelPegasosClassifier)"),
        ("cv", "KernelPegasosClassifierCV"),
        ("cv_default", "KernelPegasosClassifierCV (default max_iter)"),
        ("cv_shared", "KernelPegasosClassifierCV (precompute=True)"),
    )
    for r in results:
        for key, label in labels:
            c = r[key]
            vs = "" if key == "svc" else f"{c['vs_svc']:.3f}"
            verdict = "" if key in ("svc", "grid_search") else ("met" if c["met"] else "not met")
            lines.append(
                f"| {r['dataset']} | {r['rows']} | {label} | {c.get('passes', '')} | "
                f"{c['time']:.2f} | {c['C']:g} | {c['gamma']:g} | {100 * c['test']:.2f} | "
                f"{vs} | {verdict} |"
            )
    lines += [
        "",
        "## Check",
        "",
        "Largest difference between a fold score of the CV estimator with "
        "precompute=True (the kernel matrix shared, kernel='precomputed' per "
        "candidate) and of "
        "GridSearchCV(KernelPegasosClassifier) (the rbf kernel in each fit) at the "
        "same passes; they agree up to the rounding of kernel values:",
        "",
        "| dataset | largest fold score difference |",
        "|---|---|",
    ]
    for r in results:
        lines.append(f"| {r['dataset']} | {r['max_fold_score_gap']:.5f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.smoke:
        common.smoke_run()
        names = ["smoke"]
        args.repeats, prefix = 1, "kernel_selection_smoke"
    else:
        names = select_names(ap, args.datasets, DATASETS, DATASETS)
        prefix = "kernel_selection"

    def save(results):
        return write_json(RESULTS_DIR / f"{prefix}.json", results)

    return measure_and_publish(
        prefix, names, lambda n: run_dataset(n, args), save, lambda r: report(r, args)
    )


if __name__ == "__main__":
    sys.exit(main())
