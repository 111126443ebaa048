"""Training time against the number of examples m, at equal test accuracy (issue 5).

Pegasos' claim: to reach a given accuracy it needs a number of steps T that does not
depend on m, so its run time does not grow with the data, while solvers that make
full passes (LIBLINEAR's dual coordinate descent, SGDClassifier) grow at least
linearly. Tested on RCV1-shaped data (``rcv1_like.py``; nested training sets of
m = 10^4 ... rows, one shared test set) with a fixed alpha (the same population
objective at every m):

* target accuracy = (the lowest of LIBLINEAR's test accuracies over the sizes) - 0.5 pp;
* LIBLINEAR ``-s 3 -c 1/(alpha m)`` (default tolerance): its time (problem built
  beforehand, not timed) and accuracy;
* SGDClassifier(hinge, same alpha): the fewest passes (1, 2, 4, ...) reaching the target;
* PegasosClassifier(averaged, same alpha): the fewest steps T (``max_steps``, doubling
  from 2,000) reaching the target — fewer than one pass when m is large.

    python benches/bench_scaling.py [--sizes 10000,100000,1000000,10000000] [--smoke]

The data is generated once as float32 CSR (6 GB at 10^7 rows) and every smaller set
is its prefix. Each solver gets its input in the form it computes in, prepared
outside its timer: LIBLINEAR its own problem structure (built per m, then freed),
SGDClassifier a float64 copy, Pegasos the float32 matrix itself (it trains on
float32 without a copy).

Writes ``benches/results/scaling.md`` and ``scaling.png`` (``scaling_smoke.md`` with
``--smoke``: tiny sizes and dimensions, for the test suite; no plot).
"""

from __future__ import annotations

import argparse
import time

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
import plots
from common import RESULTS_DIR, check, time_once
from rcv1_like import make_rcv1_like
from report import markdown_table

ALPHA = 1e-5
TOLERANCE = 0.005


def _liblinear(X, y, C):
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    prob = ll.problem(np.ascontiguousarray(y, dtype=np.float64), X)
    seconds, model = time_once(lambda: llu.train(prob, ll.parameter(f"-s 3 -c {C!r} -q")))
    labels = np.asarray(model.get_labels(), dtype=np.float64)
    d = model.get_nr_feature()
    w = np.array([model.w[i] for i in range(d)])
    sign = 1.0 if labels[0] == 1 else -1.0
    return seconds, sign * w


def _first(make, sizes, X, y, Xt, yt, target, limit):
    """Fit with each budget in ``sizes`` until the test accuracy reaches ``target``."""
    last = None
    for budget in sizes:
        seconds, model = time_once(lambda b=budget: make(b).fit(X, y))
        acc = float(np.mean(model.predict(Xt) == yt))
        last = (budget, seconds, acc)
        if acc >= target or seconds > limit:
            break
    return last


def parse_args():
    """The options, with the sizes and data shape of ``--quick`` and ``--smoke``;
    returns ``(args, sizes, shape)``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000,10000000", help="comma-separated m")
    ap.add_argument("--n-test", type=int, default=50_000)
    ap.add_argument("--smoke", action="store_true", help="tiny data (seconds; for tests)")
    ap.add_argument("--quick", action="store_true", help="m = 10^4 and 10^5 (scaling_quick*)")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds per solver and m")
    args = ap.parse_args()
    shape = {}
    if args.quick:
        args.sizes, args.n_test = "10000,100000", 20_000
    if args.smoke:
        args.sizes, args.n_test = "2000,8000", 2000
        shape = {"n_features": 2000, "nnz_per_row": 20}
    return args, [int(s) for s in args.sizes.split(",")], shape


def rows_prefix(Xall, m: int):
    """The first ``m`` rows of ``Xall`` (``Xall`` itself, not a copy, when all)."""
    return Xall if m == Xall.shape[0] else Xall[:m]


def liblinear_by_size(sizes, Xall, yall, Xt, yt) -> dict:
    """LIBLINEAR's ``(seconds, test accuracy)`` on the first m rows, for each m."""
    out = {}
    for m in sizes:
        seconds, w = _liblinear(rows_prefix(Xall, m), yall[:m], 1.0 / (ALPHA * m))
        acc = float(np.mean(np.where(Xt @ w > 0, 1, -1) == yt))
        out[m] = (seconds, acc)
        print(f"m={m}: LIBLINEAR {seconds:.3f}s acc {acc:.4f}", flush=True)
    return out


def to_target(X, y, Xt, yt, target: float, limit: float) -> tuple:
    """SGDClassifier's and averaged Pegasos' first fits reaching ``target``."""
    from pegasos_rs import PegasosClassifier
    from sklearn.linear_model import SGDClassifier

    X64 = X.astype(np.float64)
    sgd = _first(
        lambda p: SGDClassifier(loss="hinge", alpha=ALPHA, max_iter=p, tol=None, random_state=0),
        [1, 2, 4, 8, 16, 32, 64], X64, y, Xt, yt, target, limit,
    )  # fmt: skip
    del X64
    peg = _first(
        lambda t: PegasosClassifier(alpha=ALPHA, max_steps=t, average=True, random_state=0),
        [2000 * 2**k for k in range(20)], X, y, Xt, yt, target, limit,
    )  # fmt: skip
    return sgd, peg


def table_row(m: int, ll: tuple, sgd: tuple, peg: tuple, target: float) -> list[str]:
    miss = {True: "", False: ", target not reached"}
    return [
        f"{m:,}",
        f"{ll[0]:.3f} s ({100 * ll[1]:.2f} %)",
        f"{sgd[1]:.3f} s ({sgd[0]} passes, {100 * sgd[2]:.2f} %{miss[sgd[2] >= target]})",
        f"{peg[1]:.3f} s (T = {peg[0]:,} = {peg[0] / m:.2g} passes, "
        f"{100 * peg[2]:.2f} %{miss[peg[2] >= target]})",
    ]


def main() -> None:
    args, sizes, shape = parse_args()
    t0 = time.perf_counter()
    Xall, yall = make_rcv1_like(max(sizes), dtype=np.float32, **shape)
    Xt, yt = make_rcv1_like(args.n_test, test=True, dtype=np.float32, **shape)
    print(f"generated {Xall.shape[0]:,} rows in {time.perf_counter() - t0:.0f} s", flush=True)
    liblinear = liblinear_by_size(sizes, Xall, yall, Xt, yt)
    target = min(acc for _, acc in liblinear.values()) - TOLERANCE
    check(target > 0.6, f"implausible target accuracy {target:.3f}")
    rows, points = [], []
    for m in sizes:
        sgd, peg = to_target(rows_prefix(Xall, m), yall[:m], Xt, yt, target, args.limit)
        rows.append(table_row(m, liblinear[m], sgd, peg, target))
        points.append((m, liblinear[m][0], sgd[1], peg[1]))
        print(rows[-1], flush=True)
        check(peg[2] >= target, f"m={m}: Pegasos did not reach the target within the limit")
    header = ["m (training rows)", "LIBLINEAR -s 3 (acc)", "SGDClassifier to target",
              "Pegasos (averaged) to target"]  # fmt: skip
    text = (
        "# Training time against m (RCV1-shaped data, fixed alpha)\n\n"
        f"alpha = {ALPHA:g}; target test accuracy {100 * target:.2f} % (LIBLINEAR's lowest "
        f"minus {100 * TOLERANCE:g} pp); test set of {args.n_test:,} rows; one thread.\n\n"
        + markdown_table(header, rows)
        + "\n"
    )
    name = "scaling_smoke" if args.smoke else "scaling_quick" if args.quick else "scaling"
    (RESULTS_DIR / f"{name}.md").write_text(text)
    print(text)
    if not args.smoke:
        plot(points, target, name)


def plot(points, target, name: str) -> None:
    m = [p[0] for p in points]
    fig, ax = plots.pyplot().subplots(figsize=(6, 4.2))
    for k, label in [(1, "LIBLINEAR -s 3"), (2, "SGDClassifier"), (3, "Pegasos (averaged)")]:
        ax.plot(m, [p[k] for p in points], "o-", label=label)
    ylabel = f"training time to {100 * target:.1f} % test accuracy [s]"
    plots.log_axes(ax, "training rows m", ylabel, ylog=True)
    ax.set_title("RCV1-shaped data, fixed alpha")
    ax.legend()
    plots.save(fig, RESULTS_DIR / f"{name}.png")


if __name__ == "__main__":
    main()
