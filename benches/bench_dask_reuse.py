"""A second checked Dask fit on the same svmlight files (issue 28, part 2).

The files are ``bench_dask.py``'s RCV1-shaped shards (10^6 rows each, about 1 KB of
text per row), generated on the workers into ``--workdir`` when absent and reused.
The cluster is a ``LocalCluster`` of 2 worker processes (1 with ``--smoke``) of 1
thread, each with a ``--memory-limit`` (1 GiB, the issue's setting): the parsed
rows do not fit in memory, so the workers keep what exceeds a quarter of their limit
on local disk.

Each fit is ``pegasos_rs.dask.PegasosClassifier(alpha=1e-5, max_steps=T,
average=True)`` in exact mode on ``read_svmlight``'s arrays (read again for every
fit, as a user's script would):

  (a) ``check_input=False``, ``--repeats`` times (the workers index the files and
      parse the rows drawn);
  (b) the first default (checked) fit after ``drop_block_cache``: every row is parsed
      and checked, and the workers keep the parsed blocks;
  (c) default (checked) fits after (b), ``--repeats`` times: nothing is parsed.

The target is (c) at most 2x (a), medians of ``--repeats`` runs in this one run.
The parse counts (``block_cache_info``) are reported: (c) must parse no block.

    python benches/bench_dask_reuse.py [--shards 10] [--steps 256000] [--repeats 3]
    python benches/bench_dask_reuse.py --smoke

Writes ``benches/results/dask_reuse.md`` and ``.json`` (only prints with
``--smoke``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
from common import RESULTS_DIR, check, time_once
from report import machine_state, markdown_table, publish

HERE = Path(__file__).resolve().parent
_STARTED = time.perf_counter()
ALPHA = 1e-5


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", type=int, default=10, help="files of 10^6 rows")
    ap.add_argument("--steps", type=int, default=256_000, help="max_steps of every fit")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--memory-limit", default="1GiB")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "pegasos-dask-bench"))
    ap.add_argument("--smoke", action="store_true")
    return ap


def _parses(client) -> int:
    import pegasos_rs.dask as pdask

    info = pdask.block_cache_info(client=client)
    return sum(w["block_parses"] for w in info.values())


def main() -> None:
    args = parser().parse_args()
    import distributed

    sys.path.insert(0, str(HERE))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    import bench_dask
    import pegasos_rs.dask as pdask
    from rcv1_like import N_FEATURES, NNZ_PER_ROW

    d, nnz, shard_rows = N_FEATURES, NNZ_PER_ROW, bench_dask.SHARD_ROWS
    workdir, workers = Path(args.workdir), bench_dask.WORKERS
    if args.smoke:  # bench_dask's smoke shards and cluster
        d, nnz, shard_rows = (bench_dask.SMOKE_SHAPE[k] for k in ("d", "nnz", "shard_rows"))
        args.shards, args.steps, args.repeats = 2, 4000, 1
        workdir, workers = bench_dask.smoke_workdir(workdir), bench_dask.SMOKE_WORKERS
    workdir.mkdir(parents=True, exist_ok=True)
    state = machine_state()
    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        client.run(bench_dask.warm_up)
        shards = bench_dask.make_shards(client, workdir, args.shards, shard_rows, d, nnz)
        files = [str(p) for p in shards]

        def fit(check_input: bool):
            X, y = pdask.read_svmlight(files, d, dtype="float32", zero_based=True)
            est = pdask.PegasosClassifier(
                alpha=ALPHA, max_steps=args.steps, average=True, random_state=0, client=client
            )
            before = _parses(client)
            seconds, _ = time_once(lambda: est.fit(X, y, check_input=check_input))
            return seconds, _parses(client) - before, est.coef_

        pdask.drop_block_cache(client=client)
        unchecked = [fit(False) for _ in range(args.repeats)]
        pdask.drop_block_cache(client=client)
        first = fit(True)
        again = [fit(True) for _ in range(args.repeats)]
    for _, _, coef in unchecked + again:
        check(np.array_equal(coef, first[2]), "the fits gave different models")
    check(all(p == 0 for _, p, _ in again), "a second checked fit parsed blocks")
    a = statistics.median(s for s, _, _ in unchecked)
    c = statistics.median(s for s, _, _ in again)
    ratio = c / a
    rows = [
        ["(a) check_input=False", f"{a:.2f} s", ", ".join(f"{s:.2f}" for s, _, _ in unchecked),
         unchecked[0][1]],
        ["(b) first checked fit (cache dropped)", f"{first[0]:.2f} s", f"{first[0]:.2f}", first[1]],
        ["(c) later checked fits", f"{c:.2f} s", ", ".join(f"{s:.2f}" for s, _, _ in again),
         max(p for _, p, _ in again)],
    ]  # fmt: skip
    met = "met" if ratio <= 2.0 else "missed"
    text = "\n\n".join(
        [
            "# A second checked Dask fit on the same files (issue 28, part 2)",
            f"{args.shards} svmlight files of {shard_rows:,} rows ({d} features, about {nnz} "
            f"non-zeros a row); LocalCluster of {bench_dask.workers_text(workers)} x 1 "
            f"thread, memory limit {args.memory_limit} each; exact mode, alpha = {ALPHA}, "
            f"max_steps = {args.steps}, averaged, float32; medians of {args.repeats} runs; "
            f"load average at the start {state['load'][0]:.2f}.",
            markdown_table(["fit", "median", "runs [s]", "blocks parsed"], rows, align="lrrr"),
            f"(c) / (a) = {ratio:.2f}: target at most 2, **{met}**. Every fit gave the same "
            "model (checked).",
        ]
    )
    out = {
        "unchecked": [s for s, _, _ in unchecked],
        "first_checked": first[0],
        "checked_again": [s for s, _, _ in again],
        "ratio": ratio,
        "shards": args.shards,
        "steps": args.steps,
        "memory_limit": args.memory_limit,
        "load_start": state["load"],
    }
    publish("dask_reuse", text, _STARTED, write=not args.smoke)
    if not args.smoke:
        (RESULTS_DIR / "dask_reuse.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
