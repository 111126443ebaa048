"""Kernel Pegasos one-vs-one on harder many-class sets and at large C (issue 36).

bench_kernel_classes.py's ``letter-like`` set (26 classes, 15,000 training rows, 16
features) is easy: its classes barely overlap. A held-out 26-class set of that
shape needed 16 passes at C = 10 to come within 1 pp of SVC. This script measures
what makes the pairs' problems need many passes:

1. ``sweep``: on generated 26-class sets of that shape whose classes overlap
   (``make_classification``: lower ``class_sep``, label noise ``flip_y``, fewer
   informative features), at C = 10 and 100 (``alpha = 1/(C n)``, rbf,
   ``gamma="scale"``): SVC's fit time (median of ``--repeats``) and test accuracy,
   and ``KernelPegasosClassifier`` (``multi_class="auto"``, one-vs-one here) from
   scratch at 1, 2, 4, ... passes until its test accuracy is within 1 pp of SVC's;
   that fit timed again (median) with ``n_jobs`` 2 and 1 (the model is the same).
2. ``variants``: the passes and time to the same goal with public parameters changed
   one at a time (``average=False``, ``sampling="shuffle"``, ``fit_intercept=True``,
   ``batch_size=4``), on the sets and C of ``--variant-sets``.
3. ``pairs``: one pair's problem (classes 0 and 1, its own ``alpha n / n_pair``, so
   the same C) solved alone: the relative objective gap ``(F - F*)/F*`` of the
   averaged and last iterates after 1 ... 128 passes, ``F*`` from LIBLINEAR ``-s 3
   -e 1e-5`` (no bias) on the pair's exact kernel feature map (``V sqrt(L)`` of its
   Gram matrix's eigendecomposition: the same objective), the support vectors, and
   SVC's dual coefficients ``alpha_i / C`` (its quantiles; Pegasos' coefficient of
   example ``i`` after ``P`` passes is ``C count_i / P``, ``count_i`` its violations).
   Then the same gaps for other step schedules and averages, emulated in numpy
   (steps ``1/(alpha (t + t0))``, averaging the last half / quarter / none): what a
   change of the pairs' schedule would buy.

    python benches/bench_kernel_overlap.py [--sets overlap,noisy] [--C 10,100]
    python benches/bench_kernel_overlap.py --parts pairs --sets letter-like,overlap
    python benches/bench_kernel_overlap.py --smoke

Writes ``results/kernel_overlap.md`` and ``.json`` (``--prefix``; ``--smoke``:
``kernel_overlap_smoke.*``, a 6-class set).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
from common import RESULTS_DIR, check, retime_point, time_once, timeit
from report import fmt_pct, fmt_time, markdown_table, notes, publish, section, write_json

#: The generated sets: ``make_classification`` settings (26 classes, 2 clusters a
#: class, 20,000 rows of 16 features, the first 15,000 for training, scaled to
#: [0, 1]). ``letter-like`` is bench_kernel_classes.py's.
SETS: dict[str, dict] = {
    "letter-like": {"class_sep": 2.5},
    "overlap": {"class_sep": 1.5},
    "noisy": {"class_sep": 2.5, "flip_y": 0.05},
    "few-informative": {"class_sep": 2.0, "n_informative": 8, "n_redundant": 4},
}
SMOKE_SETS = {"classes-smoke": {"class_sep": 1.5}}
SCHEDULE = [1, 2, 4, 8, 16, 32, 64, 128]
SMOKE_SCHEDULE = [1, 2, 4, 8, 16]
PAIR_PASSES = [1, 2, 4, 8, 16, 32, 64, 128]
SMOKE_PAIR_PASSES = [1, 4, 16]
ACC_TOLERANCE = 0.01
#: Public-parameter variants of part 2 (changed from the defaults one at a time).
VARIANTS = {
    "defaults": {},
    "average=False": {"average": False},
    'sampling="shuffle"': {"sampling": "shuffle"},
    "fit_intercept=True": {"fit_intercept": True},
    "batch_size=4": {"batch_size": 4},
}
#: Part 3's emulated schedules: label, t0 in units of C n_pair steps, averaging.
SCHEDULES = [
    ("t0 = 0, last half (the library's)", 0.0, "half"),
    ("t0 = 0, last quarter", 0.0, "quarter"),
    ("t0 = 0, last iterate", 0.0, "none"),
    ("t0 = C n/10, last half", 0.1, "half"),
    ("t0 = C n, last half", 1.0, "half"),
    ("t0 = C n, last iterate", 1.0, "none"),
    ("t0 = 3 C n, last half", 3.0, "half"),
]
EMULATED_PASSES = [4, 8, 16, 32, 64]
SMOKE_EMULATED_PASSES = [4]


def make_set(name: str):
    """``(X, y, Xt, yt)`` of a generated set (dense, in [0, 1])."""
    from sklearn.datasets import make_classification

    cfg = {**SETS, **SMOKE_SETS}[name]
    k, n, n_train = (6, 3000, 2000) if name in SMOKE_SETS else (26, 20_000, 15_000)
    kw = {"n_informative": 16, "n_redundant": 0, "flip_y": 0.01, **cfg}
    X, y = make_classification(
        n_samples=n, n_features=16, n_classes=k, n_clusters_per_class=2, random_state=0, **kw
    )
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def load_now() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def kernel_pegasos(alpha: float, gamma: float, passes: int, n_jobs: int, **kw):
    from pegasos_rs import KernelPegasosClassifier

    return KernelPegasosClassifier(
        alpha=alpha, gamma=gamma, max_iter=passes, random_state=0, n_jobs=n_jobs, **kw
    )


def accuracy(model, Xt, yt) -> float:
    return float(np.mean(model.predict(Xt) == yt))


# ---------------------------------------------------------------- 1 and 2: sweeps


def to_goal(data, alpha, gamma, goal, limit, args, **kw) -> dict:
    """Fits from scratch (``n_jobs=2``) along the schedule until the test accuracy
    reaches ``goal`` or a fit takes longer than ``limit`` seconds; the first fit
    reaching it timed again to ``--repeats`` runs with 2 and with 1 thread."""
    X, y, Xt, yt = data
    points = []
    for passes in args.schedule:
        t, model = time_once(lambda p=passes: kernel_pegasos(alpha, gamma, p, 2, **kw).fit(X, y))
        points.append({"passes": passes, "time": t, "runs": 1, "acc": accuracy(model, Xt, yt),
                       "n_sv": int(model.support_.size), "used": model.multi_class_})  # fmt: skip
        if points[-1]["acc"] >= goal or t > limit:
            break
    reached = next((p for p in points if p["acc"] >= goal), None)
    if reached is not None:
        P = reached["passes"]
        for jobs, key in ((2, "time"), (1, "time_1")):

            def measure(jobs=jobs):
                t, model = time_once(lambda: kernel_pegasos(alpha, gamma, P, jobs, **kw).fit(X, y))
                return {"time": t, "acc": accuracy(model, Xt, yt)}

            point = {"time": reached["time"], "runs": 1} if jobs == 2 else {**measure(), "runs": 1}
            point["acc"] = reached["acc"]
            retime_point(point, measure, args.repeats, ("acc",), f"{P} passes, {jobs} threads")
            reached[key] = point["time"]
    return {"points": points, "reached": reached}


def sweep_cell(name: str, data, C: float, args, variants: bool) -> dict:
    from sklearn.svm import SVC

    X, y, Xt, yt = data
    n = X.shape[0]
    alpha, gamma = 1.0 / (C * n), 1.0 / (X.shape[1] * X.var())
    load_start = load_now()
    svc_time, svc, _ = timeit(lambda: SVC(C=C, gamma=gamma).fit(X, y), args.repeats)
    svc_acc = accuracy(svc, Xt, yt)
    goal = svc_acc - ACC_TOLERANCE
    limit = args.give_up * svc_time
    print(f"== {name} C={C:g}: SVC {fmt_time(svc_time)}, acc {fmt_pct(svc_acc)}, "
          f"{int(svc.n_support_.sum())} SVs", flush=True)  # fmt: skip
    cell = {
        "set": name, "C": C, "n": n, "classes": int(np.unique(y).size), "gamma": gamma,
        "svc": {"time": svc_time, "acc": svc_acc, "n_sv": int(svc.n_support_.sum())},
        "goal": goal, "variants": {},
    }  # fmt: skip
    for label, kw in VARIANTS.items() if variants else [("defaults", {})]:
        r = to_goal(data, alpha, gamma, goal, limit, args, **kw)
        cell["variants"][label] = r
        curve = " ".join(f"{p['passes']}:{fmt_pct(p['acc'])}" for p in r["points"])
        print(f"   {label}: {curve}", flush=True)
    cell["load"] = {"start": load_start, "end": load_now()}
    return cell


# ------------------------------------------------------------------ 3: one pair


def pair_problem(data, C: float, pair=(0, 1)):
    """One pair's rows as one-vs-one trains them: ``(X_pair, y_pm, K, alpha_pair,
    gamma)``, ``K`` its rbf Gram matrix (gamma of the whole training set)."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, y, _, _ = data
    gamma = 1.0 / (X.shape[1] * X.var())
    rows = np.flatnonzero((y == pair[0]) | (y == pair[1]))
    y_pm = np.where(y[rows] == pair[0], 1.0, -1.0)
    return X[rows], y_pm, rbf_kernel(X[rows], gamma=gamma), 1.0 / (C * rows.size), gamma


def objective(K, y, d, alpha: float) -> float:
    """``alpha/2 ||w||^2 + mean hinge`` of ``f = K d`` (no bias)."""
    f = K @ d
    return float(0.5 * alpha * d @ f + np.mean(np.maximum(0.0, 1.0 - y * f)))


def optimum(K, y, C: float, alpha: float) -> dict:
    """The no-bias optimum through LIBLINEAR ``-s 3`` on the exact feature map."""
    from liblinear import liblinearutil as llu

    lam, V = np.linalg.eigh(K)
    Phi = V * np.sqrt(np.clip(lam, 0.0, None))
    ctypes.CDLL(None).srand(1)
    model = llu.train(llu.problem(y, Phi), f"-s 3 -c {C!r} -e 1e-5 -q")
    w = np.ctypeslib.as_array(model.w, shape=(model.get_nr_feature(),)).copy()
    if model.get_labels()[0] != 1:
        w = -w
    z = y * (Phi @ w)
    F = float(0.5 * alpha * w @ w + np.mean(np.maximum(0.0, 1.0 - z)))
    return {"F": F, "margin_below_1": float(np.mean(z < 1 - 1e-6)),
            "margin_at_most_1": float(np.mean(z < 1 + 1e-3))}  # fmt: skip


def emulate(K, y, alpha: float, steps: int, t0: int, average: str, seed: int) -> np.ndarray:
    """Kernel Pegasos (hinge, no bias, uniform draws) in numpy with steps
    ``1/(alpha (t + t0))``, returning the coefficients ``d`` of ``f = K d``: the last
    iterate (``average="none"``) or the mean of the iterates of the last half /
    quarter of the steps. With ``t0 = 0`` and the last half it is the library's
    schedule (another random stream)."""
    n = y.size
    draws = np.random.default_rng(seed).integers(0, n, size=steps)
    start = {"half": steps // 2, "quarter": (3 * steps) // 4, "none": steps}[average] + 1
    coef, g = np.zeros(n), np.zeros(n)  # sum of y_i over violations; K @ coef
    acc, last, h = np.zeros(n), np.zeros(n), 0.0
    for t in range(1, steps + 1):
        i = draws[t - 1]
        scale = 0.0 if t - 1 + t0 == 0 else 1.0 / (alpha * (t - 1 + t0))
        if y[i] * g[i] * scale < 1.0:
            if t >= start:
                acc[i] += coef[i] * (h - last[i])
                last[i] = h
            coef[i] += y[i]
            g += y[i] * K[:, i]
        if t >= start:
            h += 1.0 / (alpha * (t + t0))
    if start > steps:
        return coef / (alpha * (steps + t0))
    return (acc + coef * (h - last)) / (steps - start + 1)


def pair_cell(name: str, data, C: float, args) -> dict:
    from sklearn.svm import SVC

    Xp, yp, K, alpha, gamma = pair_problem(data, C)
    n = yp.size
    opt = optimum(K, yp, C, alpha)
    Fs = opt["F"]
    svc = SVC(C=C, gamma=gamma).fit(Xp, yp)
    ratio = np.abs(svc.dual_coef_.ravel()) / C
    out = {
        "set": name, "C": C, "n_pair": n, "alpha_pair": alpha, "optimum": opt,
        "svc": {"n_sv": int(ratio.size), "bounded": float(np.mean(ratio > 1 - 1e-6)),
                "alpha_over_C": np.quantile(ratio, [0.1, 0.25, 0.5, 0.75, 0.9]).tolist()},
        "library": [], "emulated": [],
    }  # fmt: skip
    for P in args.pair_passes:
        row = {"passes": P}
        for average in (True, False):
            model = kernel_pegasos(alpha, gamma, P, 1, average=average).fit(Xp, yp)
            d = np.zeros(n)
            d[model.support_] = model.dual_coef_[0]  # classes_[1] = +1: the pair's first
            key = "avg" if average else "last"
            row[key] = (objective(K, yp, d, alpha) - Fs) / Fs
            row["n_sv"] = int(model.support_.size)
        out["library"].append(row)
    for label, t0c, average in SCHEDULES:
        gaps = {}
        for P in args.emulated_passes:
            runs = [emulate(K, yp, alpha, P * n, round(t0c * C * n), average, s) for s in (0, 1)]
            gaps[P] = float(np.mean([(objective(K, yp, d, alpha) - Fs) / Fs for d in runs]))
        out["emulated"].append({"label": label, "gaps": gaps})
    print(f"== pair {name} C={C:g}: F* {Fs:.4g}; "
          + " ".join(f"{r['passes']}:{r['avg']:.3g}/{r['last']:.3g}" for r in out["library"]),
          flush=True)  # fmt: skip
    return out


# ------------------------------------------------------------------------ report


def _reach(r: dict) -> str:
    p = r["reached"]
    if p is None:
        last = r["points"][-1]
        return f"> {last['passes']} p ({fmt_pct(last['acc'])}, {fmt_time(last['time'])})"
    return f"{p['passes']} p"


def _ratio(r: dict, svc_time: float, key: str) -> str:
    p = r["reached"]
    return "—" if p is None else f"{fmt_time(p[key])}: **{p[key] / svc_time:.2f}**"


def report(res: dict, args) -> str:
    lines = [
        "# Kernel Pegasos one-vs-one on overlapping many-class sets and at large C",
        "",
        "rbf, gamma = 1/(16 var X), C = 1/(alpha n) as SVC's; seed 0; Pegasos "
        "`multi_class='auto'` (one-vs-one on these sets), default cache and strategy. "
        f"SVC's fit time and the time of Pegasos' first fit within 1 pp of SVC's test "
        f"accuracy are medians of {args.repeats} runs (n_jobs 2 and 1: the same model); "
        "the other points are timed once. Load: the 1-minute load average when the "
        "cell started → ended.",
    ]
    sweep = res.get("sweep") or []
    if sweep:
        rows, detail = [], []
        for c in sweep:
            r = c["variants"]["defaults"]
            rows.append([
                c["set"], f"{c['C']:g}", fmt_time(c["svc"]["time"]), fmt_pct(c["svc"]["acc"]),
                f"{c['svc']['n_sv']:,}", _reach(r), _ratio(r, c["svc"]["time"], "time"),
                _ratio(r, c["svc"]["time"], "time_1"),
                f"{c['load']['start'][0]:.2f} → {c['load']['end'][0]:.2f}",
            ])  # fmt: skip
            detail.append([c["set"], f"{c['C']:g}", " ".join(
                f"{p['passes']}: {fmt_pct(p['acc'])} ({fmt_time(p['time'])})"
                for p in r["points"])])  # fmt: skip
        lines += section(
            "1. Passes and time to SVC's test accuracy - 1 pp (defaults)",
            markdown_table(
                [
                    "set",
                    "C",
                    "SVC fit",
                    "SVC acc",
                    "SVC SVs",
                    "Pegasos passes",
                    "time, 2 threads: / SVC",
                    "time, 1 thread: / SVC",
                    "load",
                ],
                rows,
                "lrrrrrrrl",
            ),
        )
        lines += section(
            "Every point (passes: test accuracy (fit time, 2 threads, once))",
            markdown_table(["set", "C", "points"], detail, "lrl"),
        )
        var_rows = []
        for c in sweep:
            if len(c["variants"]) < 2:
                continue
            for label, r in c["variants"].items():
                var_rows.append([c["set"], f"{c['C']:g}", f"`{label}`", _reach(r),
                                 _ratio(r, c["svc"]["time"], "time")])  # fmt: skip
        if var_rows:
            lines += section(
                "2. Public-parameter variants: passes and time (2 threads) to the same goal",
                markdown_table(["set", "C", "variant", "passes", "time: / SVC"], var_rows, "lrlrr"),
            )
    pairs = res.get("pairs") or []
    if pairs:
        rows = []
        for c in pairs:
            q = c["svc"]["alpha_over_C"]
            for r in c["library"]:
                rows.append([
                    c["set"], f"{c['C']:g}", f"{c['n_pair']:,}", f"{c['optimum']['F']:.4g}",
                    r["passes"], f"{r['avg']:.3g}", f"{r['last']:.3g}", r["n_sv"],
                    f"{c['svc']['n_sv']} ({100 * c['svc']['bounded']:.0f} % at C); "
                    f"alpha/C q10/50/90 {q[0]:.3g} / {q[2]:.3g} / {q[4]:.3g}",
                ])  # fmt: skip
        lines += section(
            "3. One pair (classes 0 and 1) alone: relative objective gap (F - F*) / F*",
            markdown_table(
                [
                    "set",
                    "C",
                    "rows",
                    "F*",
                    "passes",
                    "gap, averaged (default)",
                    "gap, last iterate",
                    "Pegasos SVs",
                    "SVC on the pair: SVs; alpha_i / C",
                ],
                rows,
                "lrrrrrrrl",
            ),
        )
        passes = args.emulated_passes
        rows = [
            [c["set"], f"{c['C']:g}", e["label"], *(f"{e['gaps'][P]:.3g}" for P in passes)]
            for c in pairs for e in c["emulated"]
        ]  # fmt: skip
        lines += section(
            "3b. The same pair, other schedules (numpy emulation, mean of 2 seeds): gap "
            "after P passes",
            markdown_table(["set", "C", "steps 1/(alpha (t + t0)), average"]
                           + [f"P = {P}" for P in passes], rows, "lrl" + "r" * len(passes)),
        )  # fmt: skip
    lines += notes(
        [
            "Sets: `make_classification(n_samples=20000, n_features=16, n_classes=26, "
            "n_clusters_per_class=2, random_state=0)` with "
            + "; ".join(f"{k}: {v}" for k, v in SETS.items())
            + " (n_informative 16, n_redundant 0, flip_y 0.01 unless given); first 15,000 "
            "rows train, the rest test; features scaled to [0, 1].",
            "A pair's problem has n_pair rows and alpha n / n_pair: the same C. After P "
            "passes (T = P n_pair steps) lambda T = P / C, so Pegasos' bound on the "
            "objective gap, O(log T / (lambda T)), grows with C / P.",
        ]
    )
    return "\n".join(lines) + "\n"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="sweep,pairs", help="sweep, pairs or both")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated")
    ap.add_argument("--C", default="10,100")
    ap.add_argument("--variant-sets", default="letter-like:10,overlap:10,overlap:100",
                    help="set:C cells where part 2's variants run")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--give-up", type=float, default=4.0, help="stop past this x SVC time")
    ap.add_argument("--prefix")
    ap.add_argument("--smoke", action="store_true")
    return ap


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if not parts <= {"sweep", "pairs"}:
        ap.error(f"unknown parts {sorted(parts - {'sweep', 'pairs'})}")
    Cs = [float(c) for c in args.C.split(",")]
    variant_cells = {(s, float(c)) for s, c in
                     (v.split(":") for v in args.variant_sets.split(",") if v)}  # fmt: skip
    if args.smoke:
        names, Cs, args.repeats = list(SMOKE_SETS), [10.0], 1
        args.schedule, args.pair_passes = SMOKE_SCHEDULE, SMOKE_PAIR_PASSES
        args.emulated_passes = SMOKE_EMULATED_PASSES
        variant_cells = {(names[0], 10.0)}
        prefix = args.prefix or "kernel_overlap_smoke"
    else:
        names = [s.strip() for s in args.sets.split(",") if s.strip()]
        unknown = [s for s in names if s not in SETS]
        if unknown:
            ap.error(f"unknown sets {unknown}; known: {', '.join(SETS)}")
        args.schedule, args.pair_passes = SCHEDULE, PAIR_PASSES
        args.emulated_passes = EMULATED_PASSES
        prefix = args.prefix or "kernel_overlap"
    res: dict = {}

    def save():
        return write_json(RESULTS_DIR / f"{prefix}.json", res)

    started = time.perf_counter()
    # Untimed: imports and first-call costs.
    X, y, _, _ = make_set(next(iter(SMOKE_SETS)))
    kernel_pegasos(1e-3, 1.0, 1, 2).fit(X[:300], y[:300])
    for name in names:
        data = make_set(name)
        for C in Cs:
            if "sweep" in parts:
                res.setdefault("sweep", []).append(
                    sweep_cell(name, data, C, args, (name, C) in variant_cells)
                )
                save()
            if "pairs" in parts:
                res.setdefault("pairs", []).append(pair_cell(name, data, C, args))
                save()
    check(bool(res), "nothing measured")
    publish(prefix, report(res, args), started, also=save().name, write=not args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
