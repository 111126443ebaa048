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
_STARTED = time.perf_counter()


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="usps,20news,mnist")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--components", type=int, default=1000)
    ap.add_argument(
        "--passes", type=int, default=None, help="PegasosOneClassSVM's max_iter (its default)"
    )
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


def _data(name: str, smoke: bool):
    if smoke:
        rng = np.random.RandomState(0)
        centers = rng.randn(4, 20) * 2
        y = rng.randint(0, 4, 1200)
        X = centers[y] + rng.randn(1200, 20)
        return X[:800], y[:800], X[800:], y[800:]
    import shared_data

    return shared_data.load(name)


def run_dataset(name: str, args, methods) -> dict:
    from pegasos_rs import Nystroem
    from sklearn.metrics import roc_auc_score

    X, y, Xt, yt = _data(name, args.smoke)
    mapped = name != "20news"
    classes = np.unique(y)
    per = {m: {"auc": [], "seconds": [], "out": [], "sv": []} for m in methods}
    map_seconds = 0.0
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
        for m, fit_and_score in methods.items():
            runs = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    train, test = fit_and_score(Z, Zt)
                runs.append(time.perf_counter() - started)
            per[m]["seconds"].append(statistics.median(runs))
            per[m]["auc"].append(roc_auc_score(yt != c, -test))
            per[m]["out"].append(float(np.mean(train < 0)))
            per[m]["sv"].append(float(np.mean(train <= 0)))
        print(f"{name} class {c}: " + ", ".join(f"{m} {per[m]['auc'][-1]:.4f}" for m in methods))
    return {
        "name": name,
        "mapped": mapped,
        "rows": int(X.shape[0]),
        "classes": int(classes.size),
        "map_seconds": map_seconds,
        "methods": {
            m: {
                "auc": float(np.mean(v["auc"])),
                "seconds": float(np.sum(v["seconds"])),
                "out": float(np.mean(v["out"])),
                "sv": float(np.mean(v["sv"])),
            }
            for m, v in per.items()
        },
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
    return "\n\n".join(
        [
            "# Novelty detection: the linear one-class SVM",
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
    results = [run_dataset(n, args, methods) for n in names]
    check(bool(results), "no dataset measured")
    text = report(results, args, state)
    publish("one_class", text, _STARTED, write=not args.smoke)
    if not args.smoke:
        write_json(RESULTS_DIR / "one_class.json", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
