"""Regenerate the project's benchmark results on this machine.

    python benches/run.py            # everything (about five hours on 2 cores)
    python benches/run.py --quick    # a few minutes: small subsets of each benchmark
    python benches/run.py --only kernel,scaling

Runs each benchmark script in its own process (each pins its thread pools), in this
order, and stops at the first one that fails (a benchmark fails loudly when a
result it measures is implausible):

* ``bench_linear.py``   linear Pegasos against LIBLINEAR, SGDClassifier, LinearSVC
* ``bench_losses.py``   every loss (logistic, squared hinge, SVR, ...) against LIBLINEAR's
  solver of the same objective (about 30 minutes: 10^7 RCV1-shaped rows)
* ``bench_defaults.py``  both libraries at their defaults: PegasosRegressor / PegasosClassifier
  against SGDRegressor / SGDClassifier loss for loss, with the objective's exact optimum
  (a few minutes)
* ``bench_multiclass.py`` the Crammer-Singer loss against LIBLINEAR -s 4, with one-vs-rest
* ``bench_ranking.py``  PegasosRanker against RankSVM on LETOR MQ2008, and AUC on w8a
* ``bench_kernel.py``   kernel Pegasos against SVC, and the paper's Table 2
* ``bench_kernel_regression.py`` KernelPegasosRegressor against SVR (about 2 minutes)
* ``bench_budget.py``   kernel estimators with a budget of support vectors against SVC,
  SVR and Nyström(B) + PegasosClassifier, a 10^6-row problem in memory and on Dask
* ``bench_kernel_classes.py`` one-vs-rest, one-vs-one and ``multi_class="auto"`` against
  SVC on 3 to 26 classes (about 6 minutes)
* ``bench_svmlight.py`` the svmlight reader against scikit-learn's
* ``bench_scaling.py``  training time against the number of examples m
* ``bench_fit_cost.py`` the default fit's cost against m at a fixed number of steps
* ``bench_paper.py``    the paper's experiments: mini-batches, projection, averaging, rate
* ``bench_threads.py``  one against two threads for training and prediction (about 10 min)
* ``bench_feature_maps.py`` feature maps against scikit-learn's, map + Pegasos against SVC
* ``bench_dask.py``     pegasos_rs.dask from svmlight shards to a model against dask-ml
  (10^6 to 3·10^7 rows; needs ``dask-ml`` and about 35 GB of disk)
* ``bench_dask_exact.py`` Dask exact mode against the in-memory fit and Incremental on
  6·10^6 persisted rows (about 2 minutes)
* ``bench_dask_reuse.py`` a second checked Dask fit on the same 10 files (about 3 minutes
  once the shards exist)
* ``bench_dask_modes.py`` the parallel against the exact mode to the same objective
  (about 5 minutes)
* ``bench_leak.py``     RSS over 2,000 cycles of fit, predict, save, load and pickle of
  every estimator (no leak: within 4 MiB of the level after 100 cycles; about 3 min)
* ``bench_calls.py``    fixed cost of small calls (10,000 predictions of 10 rows, ...)
* ``bench_cli.py``      start-up, a9a training and prediction time of ``pegasos-rs``
  against LIBLINEAR
* ``bench_onnx.py``     onnxruntime on exported graphs against ``predict``: one row and
  10,000 rows (needs the ``[onnx]`` extra; about a minute)

Results are written under ``benches/results/`` (``*_quick*`` files with ``--quick``),
each page with the figures README and the docs quote from it (``<page>.figures.json``,
see ``benches/figures.py``); ``python .ci/readme_figures.py --write`` then regenerates
README's and the docs' figures.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: name -> (script, full-run arguments, quick-run arguments)
SUITE = {
    "linear": ("bench_linear.py", [], ["--quick"]),
    "losses": ("bench_losses.py", [], ["--quick"]),
    "defaults": ("bench_defaults.py", [], ["--quick"]),
    "kernel": ("bench_kernel.py", ["--threads", "2", "--budget", "300"], ["--quick"]),
    "multiclass": ("bench_multiclass.py", ["--cap", "200"], ["--smoke"]),
    "ranking": ("bench_ranking.py", [], ["--smoke"]),
    "kernel_regression": ("bench_kernel_regression.py", [], ["--smoke"]),
    "kernel_classes": ("bench_kernel_classes.py", [], ["--smoke"]),
    "budget": ("bench_budget.py", ["--maintenance", "merge,remove,project"], ["--smoke"]),
    "svmlight": ("bench_svmlight.py", [], ["--quick"]),
    "scaling": (
        "bench_scaling.py",
        ["--sizes", "10000,100000,1000000,10000000"],
        ["--quick"],
    ),
    "fit_cost": ("bench_fit_cost.py", [], ["--sizes", "100000,1000000"]),
    "paper": ("bench_paper.py", [], ["--quick"]),
    "threads": ("bench_threads.py", [], ["--smoke"]),
    "feature_maps": ("bench_feature_maps.py", [], ["--quick"]),
    "dask": ("bench_dask.py", [], ["--smoke"]),
    "dask_exact": ("bench_dask_exact.py", [], ["--smoke"]),
    "dask_reuse": ("bench_dask_reuse.py", [], ["--smoke"]),
    "dask_modes": ("bench_dask_modes.py", [], ["--smoke"]),
    "leak": ("bench_leak.py", [], ["--cycles", "300"]),
    "calls": ("bench_calls.py", [], ["--smoke"]),
    "cli": ("bench_cli.py", [], ["--smoke"]),
    "onnx": ("bench_onnx.py", [], ["--smoke"]),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="minutes-long subsets")
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(SUITE))
    args = ap.parse_args()
    names = list(SUITE) if args.only is None else args.only.split(",")
    unknown = set(names) - set(SUITE)
    if unknown:
        ap.error(f"unknown benchmarks: {sorted(unknown)}")
    for name in names:
        script, full, quick = SUITE[name]
        cmd = [sys.executable, str(HERE / script), *(quick if args.quick else full)]
        print(f"== {name}: {' '.join(cmd[1:])}", flush=True)
        started = time.perf_counter()
        code = subprocess.call(cmd)
        print(f"== {name}: exit {code} after {time.perf_counter() - started:.0f} s", flush=True)
        if code != 0:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
