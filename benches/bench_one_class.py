"""Novelty detection (issue 39): the linear PegasosOneClassSVM against
``SGDOneClassSVM`` and LIBLINEAR ``-s 21``, on real data.

Protocol (the usual one for these data sets): train on the training rows of one
class, score the test rows of every class, ROC AUC of "is another class" (the
negated decision values), averaged over the classes taken in turn as normal;
``nu = 0.1``. One thread. Rows:

* usps (10 digits) and MNIST (10 digits) after a Nyström map (``pegasos_rs.
  Nystroem``, rbf, ``gamma="scale"``, ``--components`` landmarks drawn from the
  normal class's rows; the map is fitted and applied once per class and timed
  apart), then each linear one-class SVM on the mapped rows;
* 20news (TF-IDF, 20 groups, one group as normal), raw sparse rows.

For each method the time is its fit plus scoring the test rows (the median of
``--repeats`` runs of every class, summed over the classes), and the nu-property on
the training rows: the share of rows with a negative decision value (at most nu)
and of rows at or below 0 (the support vectors, at least nu), averaged over the
classes. Targets: AUC at least ``SGDOneClassSVM``'s and LIBLINEAR's - 0.01, in at
most 1/2 of the faster one's time. The kernel estimator's rows (against
``OneClassSVM``) come with it.

    python benches/bench_one_class.py [--datasets usps,20news,mnist] [--repeats 3]
    python benches/bench_one_class.py --smoke          # generated data, seconds

The kernel rows (usps and MNIST, raw rows as dense arrays): ``KernelPegasosOneClassSVM``
against ``OneClassSVM`` (LIBSVM), both rbf with ``gamma="scale"`` and their defaults;
target: AUC at least ``OneClassSVM``'s - 0.01 in at most 1/3 of its time. The number
of support vectors (the cost of scoring a row) is printed with them.

Writes ``results/one_class.md`` and ``one_class.json`` (only prints with ``--smoke``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
from common import RESULTS_DIR, check
from report import machine_state, markdown_table, publish, write_json

NU = 0.1
DATASETS = ["usps", "20news", "mnist"]
#: The data sets the kernel estimators run on (raw rows).
KERNEL_SETS = {"usps", "mnist", "smoke"}
_STARTED = time.perf_counter()


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="usps,20news,mnist")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--components", type=int, default=1000)
    ap.add_argument(
        "--passes", type=int, default=None, help="PegasosOneClassSVM's max_iter (its default)"
    )
    ap.add_argument("--no-kernel", dest="kernel", action="store_false", help="skip the kernel rows")
    ap.add_argument("--smoke", action="store_true")
    return ap


def _methods(passes: int | None = None):
    """``name -> fit_and_score(Z_train, Z_test) -> (train decision, test decision)``."""
    import liblinear.liblinearutil as llu
    import scipy.sparse as sp
    from pegasos_rs import PegasosOneClassSVM
    from sklearn.linear_model import SGDOneClassSVM

    settings = {} if passes is None else {"max_iter": passes}

    def pegasos(Z, Zt):
        est = PegasosOneClassSVM(nu=NU, random_state=0, **settings).fit(Z)
        return est.decision_function(Z), est.decision_function(Zt)

    def sgd(Z, Zt):
        est = SGDOneClassSVM(nu=NU, random_state=0).fit(Z)
        return est.decision_function(Z), est.decision_function(Zt)

    def liblinear(Z, Zt):
        Z, Zt = sp.csr_matrix(Z), sp.csr_matrix(Zt)
        m = llu.train(np.ones(Z.shape[0]), Z, f"-s 21 -n {NU} -q")
        _, _, train = llu.predict(np.ones(Z.shape[0]), Z, m, "-q")
        _, _, test = llu.predict(np.ones(Zt.shape[0]), Zt, m, "-q")
        return np.asarray(train).ravel(), np.asarray(test).ravel()

    return {"PegasosOneClassSVM": pegasos, "SGDOneClassSVM": sgd, "LIBLINEAR -s 21": liblinear}


def _kernel_methods():
    """``name -> fit_and_score(X_train, X_test) -> (train decision, test decision,
    support vectors)`` of the kernel one-class SVMs (rbf, ``gamma="scale"``)."""
    from pegasos_rs import KernelPegasosOneClassSVM
    from sklearn.svm import OneClassSVM

    def pegasos(Z, Zt):
        est = KernelPegasosOneClassSVM(nu=NU, random_state=0).fit(Z)
        return est.decision_function(Z), est.decision_function(Zt), est.n_support_[0]

    def libsvm(Z, Zt):
        est = OneClassSVM(nu=NU, gamma="scale").fit(Z)
        return est.decision_function(Z), est.decision_function(Zt), est.n_support_[0]

    return {"KernelPegasosOneClassSVM": pegasos, "OneClassSVM": libsvm}


def _data(name: str, smoke: bool):
    if smoke:
        rng = np.random.RandomState(0)
        centers = rng.randn(4, 20) * 2
        y = rng.randint(0, 4, 1200)
        X = centers[y] + rng.randn(1200, 20)
        return X[:800], y[:800], X[800:], y[800:]
    import shared_data

    return shared_data.load(name)


def _measure(methods, Z, Zt, is_other, repeats: int, per: dict) -> None:
    """Run each method ``repeats`` times on one normal class; record into ``per``."""
    from sklearn.metrics import roc_auc_score

    for m, fit_and_score in methods.items():
        runs = []
        for _ in range(repeats):
            started = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                train, test, *support = fit_and_score(Z, Zt)
            runs.append(time.perf_counter() - started)
        per[m]["seconds"].append(statistics.median(runs))
        per[m]["auc"].append(roc_auc_score(is_other, -test))
        per[m]["out"].append(float(np.mean(train < 0)))
        per[m]["sv"].append(float(np.mean(train <= 0)))
        per[m]["n_sv"].append(float(support[0]) if support else float("nan"))


def _summary(per: dict) -> dict:
    return {
        m: {
            "auc": float(np.mean(v["auc"])),
            "seconds": float(np.sum(v["seconds"])),
            "out": float(np.mean(v["out"])),
            "sv": float(np.mean(v["sv"])),
            "n_sv": float(np.mean(v["n_sv"])),
        }
        for m, v in per.items()
    }


def run_dataset(name: str, args, methods, kernel_methods) -> dict:
    import scipy.sparse as sp
    from pegasos_rs import Nystroem

    X, y, Xt, yt = _data(name, args.smoke)
    mapped = name != "20news"
    kernel = name in KERNEL_SETS and kernel_methods
    classes = np.unique(y)
    fresh = {"auc": [], "seconds": [], "out": [], "sv": [], "n_sv": []}
    per = {m: {k: [] for k in fresh} for m in methods}
    per_kernel = {m: {k: [] for k in fresh} for m in kernel_methods}
    map_seconds = 0.0
    if kernel:
        # OneClassSVM refuses CSR with 64-bit indices; both read dense rows.
        Xd = X.toarray() if sp.issparse(X) else X
        Xtd = Xt.toarray() if sp.issparse(Xt) else Xt
    for c in classes:
        normal = X[y == c]
        if mapped:
            started = time.perf_counter()
            n = min(args.components, normal.shape[0])
            feature_map = Nystroem(n_components=n, random_state=0).fit(normal)
            Z, Zt = feature_map.transform(normal), feature_map.transform(Xt)
            map_seconds += time.perf_counter() - started
        else:
            Z, Zt = normal, Xt
        _measure(methods, Z, Zt, yt != c, args.repeats, per)
        if kernel:
            _measure(kernel_methods, Xd[y == c], Xtd, yt != c, args.repeats, per_kernel)
        done = [(m, v) for m, v in {**per, **per_kernel}.items() if v["auc"]]
        print(f"{name} class {c}: " + ", ".join(f"{m} {v['auc'][-1]:.4f}" for m, v in done))
    return {
        "name": name,
        "mapped": mapped,
        "rows": int(X.shape[0]),
        "classes": int(classes.size),
        "map_seconds": map_seconds,
        "methods": _summary(per),
        "kernel": _summary(per_kernel) if kernel else {},
    }


def report(results: list[dict], args, state) -> str:
    rows, verdicts = [], []
    for r in results:
        ms = r["methods"]
        ours = ms["PegasosOneClassSVM"]
        others = [ms["SGDOneClassSVM"], ms["LIBLINEAR -s 21"]]
        fastest = min(o["seconds"] for o in others)
        auc_ok = all(ours["auc"] >= o["auc"] - 0.01 for o in others)
        time_ratio = ours["seconds"] / fastest
        met = auc_ok and time_ratio <= 0.5
        where = f"{r['name']} ({'Nyström ' + str(args.components) if r['mapped'] else 'raw'})"
        for m, v in ms.items():
            rows.append(
                [
                    where,
                    m,
                    f"{v['auc']:.4f}",
                    f"{v['seconds']:.3f}",
                    f"{v['out']:.3f}",
                    f"{v['sv']:.3f}",
                ]
            )
        verdicts.append(
            f"- {r['name']}: AUC {ours['auc']:.4f} against "
            f"{max(o['auc'] for o in others):.4f} (the better of the two), time "
            f"{time_ratio:.2f} of the faster one's; target (AUC within 0.01, time at most "
            f"1/2): **{'met' if met else 'missed'}**"
            + (f"; the Nyström map took {r['map_seconds']:.2f} s" if r["mapped"] else "")
        )
    kernel_rows, kernel_verdicts = [], []
    for r in results:
        ks = r["kernel"]
        if not ks:
            continue
        ours, lib = ks["KernelPegasosOneClassSVM"], ks["OneClassSVM"]
        ratio = ours["seconds"] / lib["seconds"]
        met = ours["auc"] >= lib["auc"] - 0.01 and ratio <= 1 / 3
        for m, v in ks.items():
            kernel_rows.append(
                [
                    f"{r['name']} (raw, rbf)",
                    m,
                    f"{v['auc']:.4f}",
                    f"{v['seconds']:.3f}",
                    f"{v['n_sv']:.0f}",
                    f"{v['out']:.3f}",
                    f"{v['sv']:.3f}",
                ]
            )
        kernel_verdicts.append(
            f"- {r['name']}, kernel: AUC {ours['auc']:.4f} against {lib['auc']:.4f}, time "
            f"{ratio:.2f} of OneClassSVM's; target (AUC within 0.01, time at most 1/3): "
            f"**{'met' if met else 'missed'}**"
        )
    kernel_part = []
    if kernel_rows:
        kernel_part = [
            "## The kernel one-class SVM",
            "Raw rows as dense arrays, rbf with gamma='scale', nu = 0.1, the same protocol "
            "and timing; defaults of each estimator (KernelPegasosOneClassSVM: 10 passes, "
            "averaged; OneClassSVM: LIBSVM's SMO, tol 1e-3, a 200 MB kernel cache). 'SV': "
            "support vectors, the mean over the classes (scoring a row costs a kernel value "
            "each).",
            markdown_table(
                ["data", "method", "AUC", "s", "SV", "train share < 0", "train share <= 0"],
                kernel_rows,
                align="llrrrrr",
            ),
            "\n".join(kernel_verdicts),
        ]
    return "\n\n".join(
        [
            "# Novelty detection: the one-class SVM",
            "## The linear one-class SVM",
            f"One thread; nu = {NU}; each class of the training rows as normal in turn, the "
            "test rows of every class scored; ROC AUC of 'is another class' averaged over "
            "the classes; time: fit plus scoring the test rows, the median of "
            f"{args.repeats} runs, summed over the classes; load average at the start "
            f"{state['load'][0]:.2f}. Defaults of each estimator (PegasosOneClassSVM: 20 "
            "passes, averaged; SGDOneClassSVM: up to 1000 epochs, tol 1e-3).",
            markdown_table(
                ["data", "method", "AUC", "s", "train share < 0", "train share <= 0"],
                rows,
                align="llrrrr",
            ),
            "\n".join(verdicts),
            "The two share columns are the nu-property: at most nu of the training rows "
            "outliers, at least nu support vectors (PegasosOneClassSVM's offset is the "
            "exact nu-quantile of its training scores).",
            *kernel_part,
        ]
    )


def main() -> int:
    args = parser().parse_args()
    names = ["smoke"] if args.smoke else [n for n in args.datasets.split(",") if n]
    if args.smoke:
        args.repeats = 1
        args.components = 50
    state = machine_state()
    methods = _methods(args.passes)
    kernel_methods = _kernel_methods() if args.kernel else {}
    results = [run_dataset(n, args, methods, kernel_methods) for n in names]
    check(bool(results), "no dataset measured")
    text = report(results, args, state)
    publish("one_class", text, _STARTED, write=not args.smoke)
    if not args.smoke:
        write_json(RESULTS_DIR / "one_class.json", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
