"""Fixed cost of one small call: loops of 10,000 predictions on 10 rows, small fits
and small transforms, on one thread and on a pool of two (issue 14: thread pools are
built once per thread count and reused, not once per call).

    python benches/bench_calls.py [--calls 10000] [--label after]
    python benches/bench_calls.py --smoke    # 300 calls, no result files

Appends one labelled run to ``results/calls.json`` and rewrites ``results/calls.md``
with every labelled run side by side, so that a run before a change and one after it
compare on the same machine.
"""

from __future__ import annotations

import argparse
import json
import time

import common
import numpy as np
import report
import scipy.sparse as sp
from pegasos_rs import (
    KernelPegasosClassifier,
    PegasosClassifier,
    RandomFourierFeatures,
)


def _cases(n_jobs: int):
    """name -> a function making one small call."""
    rng = np.random.RandomState(0)
    X = rng.randn(200, 20)
    y = np.arange(200) % 3
    Xs = sp.csr_matrix(np.where(np.abs(X) > 1, X, 0.0))
    # average=False: the call costs as recorded before averaging became the default.
    lin = PegasosClassifier(random_state=0, n_jobs=n_jobs, max_iter=1, average=False).fit(X, y)
    ker = KernelPegasosClassifier(random_state=0, n_jobs=n_jobs, max_iter=1).fit(X[:50], y[:50])
    rff = RandomFourierFeatures(n_components=64, random_state=0, n_jobs=n_jobs).fit(X)
    small, small_s = X[:10], Xs[:10]
    tiny = PegasosClassifier(random_state=0, n_jobs=n_jobs, max_iter=1, average=False)
    return {
        "linear decision_function, 10 dense rows": lambda: lin.decision_function(small),
        "linear decision_function, 10 CSR rows": lambda: lin.decision_function(small_s),
        "kernel decision_function, 10 rows": lambda: ker.decision_function(small),
        "RFF transform, 10 rows": lambda: rff.transform(small),
        "linear fit, 3 classes x 30 rows": lambda: tiny.fit(X[:30], y[:30]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--label", default="current")
    ap.add_argument("--smoke", action="store_true", help="300 calls, no result files")
    args = ap.parse_args()
    started = time.perf_counter()
    calls = 300 if args.smoke else args.calls
    run = {"label": args.label, "calls": calls, "date": time.strftime("%Y-%m-%d %H:%M")}
    for n_jobs in (1, 2):
        for name, call in _cases(n_jobs).items():
            for _ in range(min(100, calls)):
                call()
            t0 = time.perf_counter()
            for _ in range(calls):
                call()
            per_call = (time.perf_counter() - t0) / calls
            key = f"{name}, n_jobs={n_jobs}"
            run[key] = per_call
            print(f"{key:60s} {per_call * 1e6:9.1f} µs per call", flush=True)
    common.check(
        all(v > 0 for k, v in run.items() if k.startswith(("linear", "kernel", "RFF"))),
        "a call took no time",
    )
    run["machine"] = report.load_text(report.started_state(), report.machine_state())
    print("## per-call times measured")
    runs = [run]
    path = common.RESULTS_DIR / "calls.json"
    if not args.smoke:
        runs = json.loads(path.read_text()) if path.exists() else []
        runs = [r for r in runs if r["label"] != args.label] + [run]
        path.write_text(json.dumps(runs, indent=1) + "\n")
    meta = ("label", "calls", "date", "machine")
    keys = [k for k in run if k not in meta]
    lines = [
        "# Fixed cost of a small call (µs per call, mean of "
        f"{calls} calls after 100 warm-up calls)",
        "",
        "Runs side by side (each its own machine load):",
        "",
        *[f"- {r['label']} ({r['date']}): {r.get('machine', 'load not recorded')}" for r in runs],
        "",
        "| call | " + " | ".join(f"{r['label']} ({r['date']})" for r in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for k in keys:
        cells = [f"{r[k] * 1e6:.1f}" if k in r else "" for r in runs]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    report.publish("calls", "\n".join(lines) + "\n", started, write=not args.smoke)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
