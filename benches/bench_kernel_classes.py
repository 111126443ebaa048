"""Kernel Pegasos on many classes: one-vs-rest, one-vs-one and ``multi_class="auto"``
against scikit-learn's SVC (issue 28, part 3).

For each dataset, SVC (rbf, the experiment's gamma and C, one-vs-one, single-threaded)
is fitted in this run. Then ``KernelPegasosClassifier`` with ``C = 1/(alpha n)`` is
fitted from scratch with ``multi_class`` "ovr", "ovo" and "auto" for 1, 2, 4, 8, ...
passes until its test accuracy is within 1 percentage point of SVC's (or a fit takes
longer than ``--give-up`` times SVC's). Every fit time is the median of ``--repeats``
runs; the ratio is that median over SVC's median. The target: at most 0.5 of SVC's
time on many-class dense problems, with "auto" choosing the better of the two.

Datasets: usps (10 classes), dna (3), ``letter-like`` (generated, the shape of a
26-class problem of 15,000 training rows and 16 features: ``make_classification``
with 2 clusters a class, class_sep 2.5, scaled to [0, 1]), ``digits`` (scikit-learn's,
10 classes of 130 rows: the small side of the "auto" rule) and ``mnist-10-20k``
(20,000 MNIST training rows, all 10,000 test rows).

    python benches/bench_kernel_classes.py [--datasets usps,dna,...] [--repeats 3]
    python benches/bench_kernel_classes.py --smoke

Writes ``benches/results/kernel_classes.md`` and ``.json`` (``--smoke``: generated
sets only, ``kernel_classes_smoke.*``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import common  # one-thread environment before numpy
import numpy as np
from common import RESULTS_DIR, check, select_names, timeit
from report import fmt_pct, fmt_time, markdown_table, notes, publish, section, verdict, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_kernel as bk  # the experiments, data preparation and checks

#: The experiments this benchmark adds to bench_kernel's (generated or shipped sets,
#: and a subset of MNIST): data, gamma, C and the least accuracy SVC must reach.
EXPERIMENTS: dict[str, dict] = {
    "dna": {"data": "dna", "gamma": "scale", "C": 1.0, "dense": True, "svc_min_acc": 0.93},
    "letter-like": {"data": "letter-like", "gamma": "scale", "C": 10.0, "svc_min_acc": 0.95},
    "digits": {"data": "digits", "gamma": "scale", "C": 10.0, "svc_min_acc": 0.97},
    "mnist-10-20k": {
        "data": "mnist",
        "gamma": 0.02,
        "C": 1.0,
        "max_train": 20_000,
        "svc_min_acc": 0.96,
    },
}
DATASETS = ["usps", "dna", "letter-like", "digits", "mnist-10-20k"]
SMOKE = {
    "classes-smoke": {"data": "classes-smoke", "gamma": "scale", "C": 10.0, "svc_min_acc": 0.9}
}
SCHEDULE = [1, 2, 4, 8, 16, 32]
MULTI_CLASS = ("ovr", "ovo", "auto")
TIME_TARGET = 0.5


def generated(name: str):
    """``(X, y, Xt, yt)`` of a generated set (dense, in [0, 1])."""
    from sklearn.datasets import load_digits, make_classification

    if name == "digits":
        X, y = load_digits(return_X_y=True)
        order = np.random.RandomState(0).permutation(y.size)
        X, y = X[order] / 16.0, y[order]
        return X[:1300], y[:1300], X[1300:], y[1300:]
    k, n, n_train = (26, 20_000, 15_000) if name == "letter-like" else (6, 3000, 2000)
    X, y = make_classification(
        n_samples=n,
        n_features=16,
        n_informative=16,
        n_redundant=0,
        n_classes=k,
        n_clusters_per_class=2,
        class_sep=2.5,
        random_state=0,
    )
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def prepare(name: str, args) -> dict | None:
    """bench_kernel's prepared experiment (data, gamma, C, alpha)."""
    cfg = {**bk.EXPERIMENTS, **EXPERIMENTS, **SMOKE}[name]
    bk.EXPERIMENTS[name] = cfg
    if cfg["data"] in ("letter-like", "digits", "classes-smoke"):
        bk._RAW.setdefault(cfg["data"], generated(cfg["data"]))
    args.max_train = cfg.get("max_train")
    return bk.prepare(name, args)


def fit_time(ds: dict, args, make) -> tuple[float, object]:
    """Median fit time over ``args.repeats`` fits, the last model."""
    t, model, _ = timeit(lambda: make().fit(ds["X"], ds["y"]), args.repeats)
    return t, model


def pegasos(ds: dict, passes: int, multi_class: str):
    from pegasos_rs import KernelPegasosClassifier

    return KernelPegasosClassifier(
        alpha=ds["alpha"],
        kernel="rbf",
        gamma=ds["gamma"],
        max_iter=passes,
        multi_class=multi_class,
        random_state=0,
        n_jobs=ARGS_N_JOBS[0],
    )


ARGS_N_JOBS: list = [2]


def run_dataset(name: str, args) -> dict | None:
    from sklearn.svm import SVC

    ds = prepare(name, args)
    if ds is None:
        print(f"[skip] {name}: data files not found (see benches/shared_data.py)", flush=True)
        return None
    k = int(ds["classes"].size)
    print(f"== {name}: n={ds['n']} d={ds['d']} classes={k}", flush=True)
    bk.warm_up(ds, args)
    svc_time, svc = fit_time(ds, args, lambda: SVC(kernel="rbf", gamma=ds["gamma"], C=ds["C"]))
    svc_acc = float(np.mean(svc.predict(ds["Xt"]) == ds["yt"]))
    check(
        ds["svc_min_acc"] is None or svc_acc >= ds["svc_min_acc"],
        f"{name}: SVC accuracy {svc_acc:.4f} below {ds['svc_min_acc']}: the setup is wrong",
    )
    goal = svc_acc - bk.ACC_TOLERANCE
    print(f"   SVC: fit {fmt_time(svc_time)}, test accuracy {fmt_pct(svc_acc)}", flush=True)
    out = {
        "name": name,
        "n": ds["n"],
        "d": ds["d"],
        "classes": k,
        "pair_rows": 2 * ds["n"] / k,
        "svc": {"time": svc_time, "acc": svc_acc, "n_sv": int(svc.n_support_.sum())},
        "goal": goal,
    }
    for mc in MULTI_CLASS:
        points = []
        for passes in SCHEDULE:
            t, model = fit_time(ds, args, lambda p=passes, mc=mc: pegasos(ds, p, mc))
            acc = float(np.mean(model.predict(ds["Xt"]) == ds["yt"]))
            points.append({"passes": passes, "time": t, "ratio": t / svc_time, "acc": acc})
            print(
                f"   {mc:<4} {passes:>2} passes: fit {fmt_time(t)} ({t / svc_time:.2f} of SVC), "
                f"accuracy {fmt_pct(acc)} ({model.multi_class_})",
                flush=True,
            )
            out.setdefault("used", {})[mc] = model.multi_class_
            if acc >= goal or t > args.give_up * svc_time:
                break
        reach = next((p for p in points if p["acc"] >= goal), None)
        out[mc] = {"points": points, "reach": reach}
    return out


def fmt_reach(r: dict | None) -> str:
    if r is None:
        return "not reached"
    return f"{r['passes']} p, {fmt_time(r['time'])}: **{r['ratio']:.2f}**"


def report(results: list[dict], args) -> str:
    rows = []
    for r in results:
        auto = r["auto"]["reach"]
        rows.append(
            [
                r["name"],
                f"{r['n']:,}",
                r["classes"],
                f"{r['pair_rows']:,.0f}",
                fmt_time(r["svc"]["time"]),
                fmt_pct(r["svc"]["acc"]),
                fmt_reach(r["ovr"]["reach"]),
                fmt_reach(r["ovo"]["reach"]),
                f"{r['used']['auto']}: {fmt_reach(auto)}",
                verdict(auto is not None and auto["ratio"] <= TIME_TARGET),
            ]
        )
    table = markdown_table(
        [
            "dataset",
            "n train",
            "classes",
            "rows a pair",
            "SVC fit",
            "SVC acc",
            "ovr to SVC acc - 1 pp",
            "ovo to SVC acc - 1 pp",
            "auto (its choice)",
            f"auto ≤ {TIME_TARGET} of SVC",
        ],
        rows,
    )
    detail = []
    for r in results:
        for mc in MULTI_CLASS:
            for p in r[mc]["points"]:
                ratio = f"{p['ratio']:.2f}"
                detail.append(
                    [r["name"], mc, p["passes"], fmt_time(p["time"]), ratio, fmt_pct(p["acc"])]
                )
    lines = [
        "# Kernel Pegasos on many classes: one-vs-rest, one-vs-one and auto against SVC",
        "",
        f"rbf kernel, C = 1/(alpha n) as SVC's C, n_jobs={ARGS_N_JOBS[0]} for Pegasos (SVC is "
        f"single-threaded), seed 0, default cache (200 MB) and strategy; every fit time is "
        f"the median of {args.repeats} runs in this run, SVC's too; each Pegasos point is a "
        "fit from scratch with max_iter = passes (p).",
        *section("Time to SVC's test accuracy - 1 pp", table),
        *section(
            "Every point",
            markdown_table(
                ["dataset", "multi_class", "passes", "fit", "/ SVC", "test acc"], detail
            ),
        ),
        *notes(
            [
                "auto: one-vs-one when there are more than two classes and a pair has at "
                "least 500 rows on average (2 n / classes), otherwise one-vs-rest.",
                "letter-like and digits are generated or shipped with scikit-learn (see the "
                "script's docstring); mnist-10-20k is 20,000 of MNIST's training rows.",
            ]
        ),
    ]
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", help=f"comma-separated, of {', '.join(DATASETS)}")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--give-up", type=float, default=3.0, help="stop past this x SVC time")
    ap.add_argument("--smoke", action="store_true")
    return ap


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    ARGS_N_JOBS[0] = args.threads
    # What bench_kernel's prepare and warm-up read.
    args.max_test, args.cache_size, args.n_jobs, args.average = None, 200.0, args.threads, None
    if args.smoke:
        names, args.repeats, prefix = list(SMOKE), 1, "kernel_classes_smoke"
        common.smoke_run()
    else:
        names, prefix = select_names(ap, args.datasets, DATASETS, DATASETS), "kernel_classes"
    started = time.perf_counter()
    results = [r for r in (run_dataset(n, args) for n in names) if r is not None]
    json_file = write_json(RESULTS_DIR / f"{prefix}.json", results)
    publish(prefix, report(results, args), started, also=json_file.name, write=not args.smoke)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
