"""When does the Dask parallel mode beat the exact mode? (issue 28, part 1).

The same RCV1-shaped svmlight shard as ``bench_dask.py`` (10^6 rows, about 1 KB of
text a row, in ``--workdir``; generated when absent), read with
``pegasos_rs.dask.read_svmlight`` in ``--blocks`` blocks on a ``LocalCluster`` of 2
worker processes of 1 thread. A first checked fit keeps the parsed blocks on the
workers (``_kept.py``), so neither mode parses text in the timed fits: each is a
later fit of a model-selection loop. Timed, medians of ``--repeats`` fits in this run:

  * exact mode (the in-memory solver's iterates, rows drawn from the workers),
    1/8, 1/4, 1/2, 1, 2 and 4 passes (``max_steps`` = passes x rows);
  * parallel mode (iterative parameter mixing), ``max_iter`` = 2, 5, 10, 20, 40
    rounds, each a local pass of every block.

Each model's primal objective is computed on the whole shard in memory and compared
with LIBLINEAR ``-s 3``'s optimum (``-e 1e-4``, a bias feature, from ``srand(1)``:
its dual solver permutes the rows with ``rand()``), by ``bench_dask.py``'s
``liblinear_optimum``. The report gives, per target gap (5 %, 1 %, 0.5 %), the
fastest fit of each mode that reaches it: the parallel mode wins a target when its
time is lower.

    python benches/bench_dask_modes.py [--repeats 3] [--blocks 16]
    python benches/bench_dask_modes.py --smoke

Writes ``benches/results/dask_modes.md`` and ``.json`` (only prints with ``--smoke``).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
from common import RESULTS_DIR, primal_objective, time_once
from report import fmt_time, markdown_table, notes, publish, section, write_json

HERE = Path(__file__).resolve().parent
ALPHA = 1e-5
PASSES = [0.125, 0.25, 0.5, 1, 2, 4]
ROUNDS = [2, 5, 10, 20, 40]
TARGETS = [0.05, 0.01, 0.005]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "pegasos-dask-bench"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=16)
    ap.add_argument("--smoke", action="store_true")
    return ap


def main() -> None:
    args = parser().parse_args()
    import distributed

    sys.path.insert(0, str(HERE))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    import bench_dask
    import pegasos_rs
    import pegasos_rs.dask as pdask
    from rcv1_like import N_FEATURES, NNZ_PER_ROW

    d, nnz, rows, workdir = N_FEATURES, NNZ_PER_ROW, bench_dask.SHARD_ROWS, Path(args.workdir)
    passes, rounds, processes = PASSES, ROUNDS, True
    if args.smoke:  # the first of bench_dask's smoke shards
        d, nnz, rows = (bench_dask.SMOKE_SHAPE[k] for k in ("d", "nnz", "shard_rows"))
        workdir = bench_dask.smoke_workdir(workdir)
        passes, rounds, args.repeats, args.blocks = [0.5, 1], [2, 5], 1, 4
        # Workers in this process: no worker process to start and import into; the
        # run measures fit times and gaps only (the workers then share one cache of
        # kept blocks, which the smoke run's fits read as worker processes' own).
        processes = False
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        client.run(bench_dask.warm_up)
        (path,) = bench_dask.make_shards(client, workdir, 1, rows, d, nnz)
        X, y = pegasos_rs.load_svmlight_file(str(path), n_features=d, zero_based=True)
        Y = np.where(y == np.unique(y)[1], 1.0, -1.0)[None, :]
        f_star = bench_dask.liblinear_optimum(X, Y, ALPHA, 1e-4)
        print(f"F* = {f_star:.6f}", flush=True)
        blocksize = -(-os.path.getsize(path) // args.blocks)

        def fit(**kw):
            dX, dy = pdask.read_svmlight(str(path), d, blocksize=blocksize, zero_based=True)
            est = pdask.PegasosClassifier(
                alpha=ALPHA, average=True, random_state=0, client=client, **kw
            )
            seconds, _ = time_once(lambda: est.fit(dX, dy))
            return seconds, est

        fit(max_iter=1)  # the first checked fit: every block parsed, checked and kept
        points = []
        for mode, budgets in (("exact", passes), ("parallel", rounds)):
            for b in budgets:
                # A fraction of a pass is max_steps (steps = passes x rows).
                kw = {"max_iter": b} if mode == "parallel" else {"max_steps": int(b * X.shape[0])}
                runs = [fit(mode=mode, **kw) for _ in range(max(1, args.repeats))]
                est = runs[-1][1]
                f = float(primal_objective(est.coef_, est.intercept_, X, Y, ALPHA)[0])
                seconds = statistics.median(s for s, _ in runs)
                gap = (f - f_star) / f_star
                points.append(
                    {"mode": mode, "budget": b, "seconds": seconds, "gap": gap, "runs": len(runs)}
                )
                print(f"  {mode} {b}: {seconds:.2f} s, gap {100 * gap:.3f} %", flush=True)
    best = {
        (mode, target): min(
            (p for p in points if p["mode"] == mode and p["gap"] <= target),
            key=lambda p: p["seconds"],
            default=None,
        )
        for mode in ("exact", "parallel")
        for target in TARGETS
    }

    def cell(p, unit):
        return "not reached" if p is None else f"{fmt_time(p['seconds'])} ({p['budget']:g} {unit})"

    rows_t = []
    for target in TARGETS:
        e, p = best[("exact", target)], best[("parallel", target)]
        if e is None or p is None:
            winner = "neither" if e is p else "exact" if p is None else "parallel"
        else:
            winner = "parallel" if p["seconds"] < e["seconds"] else "exact"
        rows_t.append(
            [f"{100 * target:g} %", cell(e, "passes"), cell(p, "rounds"), f"**{winner}**"]
        )
    every = [
        [p["mode"], f"{p['budget']:g}", fmt_time(p["seconds"]), f"{100 * p['gap']:.3f} %"]
        for p in points
    ]
    text = "\n".join(
        [
            "# Dask: the parallel mode against the exact mode, to the same objective",
            "",
            f"{X.shape[0]:,} RCV1-shaped rows ({d:,} features) in {args.blocks} blocks of one "
            f"svmlight file, 2 workers x 1 thread, alpha = {ALPHA:g}, averaged; blocks kept by "
            f"a first checked fit; every time the median of {args.repeats} fits in this run. "
            f"Gap = (F - F*) / F*, F* = {f_star:.6f} (LIBLINEAR -s 3 -e 1e-4 from srand(1), "
            "bias feature 1).",
            *section(
                "Fastest fit to each gap",
                markdown_table(["gap at most", "exact mode", "parallel mode", "faster"], rows_t),
            ),
            *section("Every fit", markdown_table(["mode", "passes / rounds", "fit", "gap"], every)),
            *notes(
                [
                    "A pass of the exact mode is n steps of the in-memory solver, each row "
                    "drawn from a worker; a round of the parallel mode is one local pass of "
                    "every block from the mixed iterate.",
                ]
            ),
        ]
    )
    prefix = "dask_modes_smoke" if args.smoke else "dask_modes"
    json_file = write_json(RESULTS_DIR / f"{prefix}.json", {"f_star": f_star, "points": points})
    publish(prefix, text + "\n", started, also=json_file.name, write=not args.smoke)


if __name__ == "__main__":
    main()
