"""How the passes to a target spread over seeds and C (issue 36: results measured on
data the work did not see depended on the seed and C).

Each cell is a sweep of fits from scratch with a growing number of passes (1, 2, ...,
12, then 14, 16, 18, 20, 23, ...; finer than the benchmarks' own schedules, so that
the passes needed are read closely) until the fit meets the target, repeated for
every seed (``random_state``); the fit that first meets it is timed again until it
has ``--repeats`` runs (median), and so is the reference. One thread everywhere.

* ``multiclass`` (bench_multiclass.py's target): ``PegasosClassifier(multi_class=
  "crammer_singer")``, averaged, uniform draws, no bias, against LIBLINEAR ``-s 4``
  (its default tolerance, from ``srand(1)``), ``alpha = 1/(C m)``, on dna, usps,
  sector and 20news: passes to LIBLINEAR's test accuracy - 0.3 pp, and that fit's
  time over LIBLINEAR's.
* ``svr`` (bench_losses.py's part 2): ``PegasosRegressor`` (its defaults, averaged,
  and the variants of :data:`SVR_CURVES`), ``loss="epsilon_insensitive"`` against
  LIBLINEAR ``-s 13`` and ``"squared_epsilon_insensitive"`` against ``-s 11``
  (``-B 1 -p 0.1``), on the 20news-quoted text regression (``text_regression.py``):
  passes to LIBLINEAR's test MSE + 2 %, and the time ratio.

The report gives, per dataset, C (and loss), the minimum / median / maximum over the
seeds of the passes and of the time ratio, every seed's passes, and the machine's
load (``os.getloadavg``) when the cell started and ended: the passes do not depend on
the load, the ratios do.

    python benches/bench_spread.py --parts multiclass --datasets dna,usps,sector \\
        --seeds 0,1,2,3,4 --C 0.1,1,10
    python benches/bench_spread.py --parts svr --seeds 0,1,2,3,4
    python benches/bench_spread.py --smoke      # tiny generated data, seconds

Writes ``results/spread.md`` and ``spread.json`` (``--prefix``; ``spread_smoke*``
with ``--smoke``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import common  # sets the one-thread environment before numpy is imported
import numpy as np
from common import RESULTS_DIR, budget_sweep, check, retime_point, select_names, timeit
from report import fmt_time, markdown_table, notes, publish, section, write_json

#: Passes tried, in order: every count up to 12, then about 15 % apart.
SCHEDULE = [*range(1, 13), 14, 16, 18, 20, 23, 26, 30, 35, 40, 50, 60, 70, 80, 100, 120, 150, 200]
SMOKE_SCHEDULE = SCHEDULE[:14]
MULTICLASS_SETS = ["dna", "usps", "sector", "20news"]
SVR_SETS = ["20news-quoted"]
#: The SVR curves: label and the parameters set on bench_losses' estimator (averaged
#: by default) as a function of the training rows ``m``: the defaults, the last
#: iterate, averaging from one pass or from half the fit, mini-batches, no projection.
SVR_CURVES = {
    "averaged (defaults)": lambda m: {},
    "last iterate": lambda m: {"average": False},
    "average=m (from pass 2)": lambda m: {"average": m},
    "batch_size=8": lambda m: {"batch_size": 8},
    "projection=False": lambda m: {"projection": False},
}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="multiclass,svr", help="multiclass, svr or both")
    ap.add_argument("--datasets", help="comma-separated subset of " +
                    ", ".join(MULTICLASS_SETS + SVR_SETS))  # fmt: skip
    ap.add_argument("--seeds", default="0,1,2,3,4", help="random_state values")
    ap.add_argument("--C", default="0.1,1,10", help="multiclass: LIBLINEAR's C values")
    ap.add_argument("--svr-C", default="1", help="svr: LIBLINEAR's C values")
    ap.add_argument("--repeats", type=int, default=3, help="runs per reported time")
    ap.add_argument(
        "--cap",
        type=float,
        default=5.0,
        help="stop a sweep before a fit expected to take longer than this many times "
        "the reference's time (at least --min-cap seconds)",
    )
    ap.add_argument("--min-cap", type=float, default=2.0)
    ap.add_argument("--prefix", help="output file prefix (default spread)")
    ap.add_argument("--smoke", action="store_true", help="tiny generated data, 1 run")
    return ap


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def load_now() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def sweep(measure, done, cap: float, schedule: list[int], repeats: int, what: str) -> dict:
    """Fits from scratch along ``schedule`` until one is ``done`` (or the next would
    take longer than ``cap`` seconds); that one retimed to ``repeats`` runs."""
    points = budget_sweep(measure, schedule, cap, done)
    reached = next((p for p in points if done(p)), None)
    if reached is not None:
        same = tuple(k for k in reached if k not in ("passes", "time", "runs"))
        retime_point(reached, lambda: measure(reached["passes"]), repeats, same, what)
    return {"points": points, "reached": reached}


def spread(values: list[float]) -> dict | None:
    return None if not values else {
        "min": min(values), "median": statistics.median(values), "max": max(values)
    }  # fmt: skip


def cell_summary(runs: list[dict], ref_time: float) -> dict:
    """Passes and time ratios of the seeds' sweeps that reached the target."""
    hit = [r for r in runs if r["reached"] is not None]
    return {
        "passes": spread([r["reached"]["passes"] for r in hit]),
        "ratio": spread([r["reached"]["time"] / ref_time for r in hit]),
        "missed": [r["seed"] for r in runs if r["reached"] is None],
    }


# -------------------------------------------------------------------- multiclass


def multiclass_cell(name: str, data, C: float, args) -> dict:
    import bench_multiclass as bm

    X, y, Xt, yt = data
    m = X.shape[0]
    alpha = 1.0 / (C * m)
    load_start = load_now()
    ll_time, model, ll_runs = timeit(lambda: bm.liblinear_fit(X, y, C), args.repeats)
    ll_acc = bm.liblinear_accuracy(model, Xt, yt)
    target = ll_acc - bm.ACC_TOLERANCE
    cap = max(args.min_cap, args.cap * ll_time)
    print(f"{name} C={C:g}: LIBLINEAR -s 4 {fmt_time(ll_time)}, acc {100 * ll_acc:.2f} %",
          flush=True)  # fmt: skip
    runs = []
    for seed in args.seed_list:

        def measure(passes, seed=seed):
            est = bm.pegasos(alpha, passes, "crammer_singer", True, "uniform", seed)
            t, est = common.time_once(lambda: est.fit(X, y))
            return {"passes": passes, "time": t, "acc": float(est.score(Xt, yt)), "runs": 1}

        r = sweep(measure, lambda p: p["acc"] >= target, cap, args.schedule, args.repeats,
                  f"{name} C={C:g} seed {seed}")  # fmt: skip
        r["seed"] = seed
        runs.append(r)
        p = r["reached"]
        text = "not reached" if p is None else (
            f"{p['passes']} passes, {fmt_time(p['time'])} ({p['time'] / ll_time:.2f})"
        )  # fmt: skip
        print(f"  seed {seed}: {text}", flush=True)
    return {
        "dataset": name, "C": C, "m": m, "classes": int(np.unique(y).size),
        "liblinear": {"time": ll_time, "acc": ll_acc, "runs": ll_runs}, "target": target,
        "cap": cap, "runs": runs, "summary": cell_summary(runs, ll_time),
        "load": {"start": load_start, "end": load_now()},
    }  # fmt: skip


def multiclass_part(names: list[str], args, out: list[dict]) -> None:
    import bench_multiclass as bm

    # Untimed: the imports and first-call costs of both sides are no measured fit's.
    X, y, _, _ = bm.smoke_data()
    bm.liblinear_fit(X, y, 1.0)
    bm.pegasos(1e-3, 1, "crammer_singer", True, "uniform").fit(X, y)
    for name in names:
        data = bm.load("smoke" if args.smoke else name)
        if data is None:
            continue
        for C in args.C_list:
            out.append(multiclass_cell(name, data, C, args))
            args.save()


# --------------------------------------------------------------------------- svr


def svr_cells(name: str, C: float, args) -> list[dict]:
    import bench_losses as bl
    from bench_linear import fit_quietly

    cfg = {**bl.DATASETS, **bl.SMOKE_DATASETS}[name]
    data = bl.load_dataset(name, args)
    if data is None:
        return []
    task = bl.Task(name, {**cfg, "C": C}, *data)
    load_start = load_now()
    res: dict = {}
    refs = bl.liblinear_references(task, args.repeats, res)
    out = []
    for loss, solvers in bl.SOLVERS["regression"].items():
        s = solvers[0]  # -s 11 and -s 13: the references
        ref = refs[s]
        bound = ref["mse"] * bl.METRIC_TARGET
        cap = max(args.min_cap, args.cap * ref["time"])
        for label, params in SVR_CURVES.items():
            runs = []
            for seed in args.seed_list:

                def measure(passes, seed=seed, params=params, loss=loss):
                    est = bl.pegasos(task, loss, passes, True, seed)
                    est.set_params(**params(task.X.shape[0]))
                    t, model = common.time_once(lambda: fit_quietly(est, task.X, task.y))
                    return {"passes": passes, "time": t, "runs": 1,
                            "mse": task.model_metrics(model)["mse"]}  # fmt: skip

                r = sweep(measure, lambda p, bound=bound: p["mse"] <= bound, cap, args.schedule,
                          args.repeats, f"{name} {loss} {label} seed {seed}")  # fmt: skip
                r["seed"] = seed
                runs.append(r)
            cell = {
                "dataset": name, "C": C, "loss": loss, "curve": label, "solver": s,
                "liblinear": {"time": ref["time"], "mse": ref["mse"], "runs": ref["runs"]},
                "bound": bound, "cap": cap, "runs": runs,
                "summary": cell_summary(runs, ref["time"]),
            }  # fmt: skip
            passes = [r["reached"]["passes"] if r["reached"] else None for r in runs]
            print(f"{name} C={C:g} {loss} {label}: passes by seed {passes}", flush=True)
            out.append(cell)
    for cell in out:
        cell["load"] = {"start": load_start, "end": load_now()}
    return out


def svr_part(names: list[str], args, out: list[dict]) -> None:
    import bench_losses as bl

    bl.warm_up()
    for name in names:
        for C in args.svr_C_list:
            out += svr_cells(name, C, args)
            args.save()


# ------------------------------------------------------------------------ report


def _spread_text(s: dict | None, fmt: str) -> str:
    if s is None:
        return "—"
    return f"{s['min']:{fmt}} / {s['median']:{fmt}} / {s['max']:{fmt}}"


def _per_seed(runs: list[dict]) -> str:
    def passes(r: dict) -> str:
        p = r["reached"]
        return str(p["passes"]) if p else f"> {r['points'][-1]['passes']}"

    return ", ".join(f"{r['seed']}: {passes(r)}" for r in runs)


def _load(cell: dict) -> str:
    return f"{cell['load']['start'][0]:.2f} → {cell['load']['end'][0]:.2f}"


def report(results: dict, args) -> str:
    lines = [
        "# Passes to target over seeds and C: Crammer-Singer and the SVR losses",
        "",
        f"One thread; seeds {', '.join(map(str, args.seed_list))}; each cell: for every "
        "seed, fits from scratch at 1, 2, ..., 12, 14, 16, 18, 20, 23, 26, 30, ... "
        f"passes until the target is met (or the next fit would take longer than "
        f"{args.cap:g} x the reference's time, at least {args.min_cap:g} s); the time of "
        f"the fit meeting it is the median of {args.repeats} runs, and so is the "
        "reference's. Spreads are min / median / max over the seeds that met it. Load: "
        "the 1-minute load average when the cell started → ended.",
    ]
    mc = results.get("multiclass") or []
    if mc:
        rows = [[
            c["dataset"], c["classes"], f"{c['C']:g}", fmt_time(c["liblinear"]["time"]),
            f"{100 * c['liblinear']['acc']:.2f}", _spread_text(c["summary"]["passes"], ".0f"),
            _spread_text(c["summary"]["ratio"], ".2f"), _per_seed(c["runs"]), _load(c),
        ] for c in mc]  # fmt: skip
        header = ["dataset", "classes", "C", "LIBLINEAR -s 4", "its acc %",
                  "passes min / med / max", "time / LIBLINEAR min / med / max",
                  "passes by seed", "load"]  # fmt: skip
        lines += section(
            "Crammer-Singer (averaged) to LIBLINEAR -s 4's test accuracy - 0.3 pp",
            markdown_table(header, rows, "lrrrrrrll"),
        )
    svr = results.get("svr") or []
    if svr:
        rows = [[
            c["dataset"], f"{c['C']:g}", f"`{c['loss']}`", c["curve"],
            f"-s {c['solver']}: {fmt_time(c['liblinear']['time'])}",
            f"{c['liblinear']['mse']:.4g}", _spread_text(c["summary"]["passes"], ".0f"),
            _spread_text(c["summary"]["ratio"], ".2f"), _per_seed(c["runs"]), _load(c),
        ] for c in svr]  # fmt: skip
        header = ["dataset", "C", "loss", "curve", "LIBLINEAR", "its test MSE",
                  "passes min / med / max", "time / LIBLINEAR min / med / max",
                  "passes by seed", "load"]  # fmt: skip
        lines += section(
            "SVR losses to LIBLINEAR's test MSE + 2 %", markdown_table(header, rows, "lrllrrrrll")
        )
    lines += notes(
        [
            "Crammer-Singer: `PegasosClassifier(multi_class='crammer_singer', "
            "fit_intercept=False, average=True, sampling='uniform', n_jobs=1)`, alpha = "
            "1/(C m); LIBLINEAR `-s 4 -c C` (no bias) from `srand(1)`.",
            "SVR: `PegasosRegressor(loss, alpha=1/(C m), epsilon=0.1)`, every other "
            "setting its default (intercept_scaling=1, projection); LIBLINEAR `-s 11` / "
            "`-s 13 -B 1 -p 0.1 -c C` from `srand(1)`.",
        ]
    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if not parts <= {"multiclass", "svr"}:
        ap.error(f"unknown parts {sorted(parts - {'multiclass', 'svr'})}")
    args.seed_list, args.C_list, args.svr_C_list = (
        ints(args.seeds), floats(args.C), floats(args.svr_C)
    )  # fmt: skip
    check(bool(args.seed_list) and bool(args.C_list), "no seeds or no C values")
    if args.smoke:
        args.repeats, args.schedule = 1, SMOKE_SCHEDULE
        args.seed_list, args.C_list = args.seed_list[:2], args.C_list[:2]
        mc_names, svr_names = ["smoke"], ["sparse-regression-smoke"]
        prefix = args.prefix or "spread_smoke"
        common.smoke_run()
    else:
        args.schedule = SCHEDULE
        known = MULTICLASS_SETS + SVR_SETS
        names = select_names(ap, args.datasets, known, known)
        mc_names = [n for n in names if n in MULTICLASS_SETS]
        svr_names = [n for n in names if n in SVR_SETS]
        prefix = args.prefix or "spread"
    args.rows = None  # what bench_losses.load_dataset reads (rcv1-like only)
    results: dict = {}
    args.save = lambda: write_json(RESULTS_DIR / f"{prefix}.json", results)
    started = time.perf_counter()
    with common.single_thread():
        if "multiclass" in parts and mc_names:
            multiclass_part(mc_names, args, results.setdefault("multiclass", []))
        if "svr" in parts and svr_names:
            svr_part(svr_names, args, results.setdefault("svr", []))
    if not any(results.values()):
        print("no dataset available: nothing measured", file=sys.stderr)
        return 1
    publish(prefix, report(results, args), started, also=args.save().name, write=not args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
