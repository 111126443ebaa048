"""Training time against the number of examples m, at equal test accuracy (issue 5).

Pegasos' claim: to reach a given accuracy it needs a number of steps T that does not
depend on m, so its run time does not grow with the data, while solvers that make
full passes (LIBLINEAR's dual coordinate descent, SGDClassifier) grow at least
linearly. Tested on RCV1-shaped data (``rcv1_like.py``; nested training sets of
m = 10^4 ... rows, one shared test set) with a fixed alpha (the same population
objective at every m):

* target accuracy = (the lowest of LIBLINEAR's test accuracies over the sizes, with
  its default tolerance) - 0.5 pp;
* LIBLINEAR ``-s 3 -c 1/(alpha m)``: its time and accuracy with the default
  tolerance (``-e 0.1``), and its time to the target: the loosest tolerance of
  ``-e`` 10, 3, 1, 0.3, 0.1 (each a fit from scratch) whose model reaches it (the
  problem is built beforehand, not timed);
* SGDClassifier(hinge, same alpha): the fewest passes (1, 2, 4, ...) reaching the target;
* PegasosClassifier(averaged, same alpha): the fewest steps T (``max_steps``, doubling
  from 2,000) reaching the target — fewer than one pass when m is large.

Every time is the median of ``--repeats`` runs (default 3), the ratios Pegasos /
LIBLINEAR and Pegasos / SGDClassifier are of those medians, from this one run.

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

import common  # one-thread environment before numpy
import numpy as np
import plots
from common import RESULTS_DIR, check, timeit
from rcv1_like import make_rcv1_like
from report import markdown_table, publish

ALPHA = 1e-5
TOLERANCE = 0.005
#: LIBLINEAR's tolerances tried for its time to the target, loosest (fastest) first;
#: the last is its default.
EPS_SWEEP = (10.0, 3.0, 1.0, 0.3, 0.1)


def _liblinear_weights(model) -> np.ndarray:
    labels = np.asarray(model.get_labels(), dtype=np.float64)
    d = model.get_nr_feature()
    w = np.ctypeslib.as_array(model.w, shape=(d,)).copy()
    return w if labels[0] == 1 else -w


def _accuracy(w, Xt, yt) -> float:
    return float(np.mean(np.where(Xt @ w > 0, 1, -1) == yt))


def liblinear_at(X, y, C: float, Xt, yt, repeats: int) -> dict:
    """LIBLINEAR ``-s 3`` on one training set: ``default`` (``-e 0.1``) and
    ``sweep``, the tolerances of EPS_SWEEP from the loosest until one is within
    TOLERANCE of the default's accuracy (which the target, over all sizes, is at
    most): each ``(eps, median seconds, test accuracy)``."""
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    prob = ll.problem(np.ascontiguousarray(y, dtype=np.float64), X)

    def fit(eps):
        param = ll.parameter(f"-s 3 -c {C!r} -e {eps!r} -q")
        seconds, model, _ = timeit(lambda: llu.train(prob, param), repeats)
        return (eps, seconds, _accuracy(_liblinear_weights(model), Xt, yt))

    default = fit(EPS_SWEEP[-1])
    sweep = []
    for eps in EPS_SWEEP[:-1]:
        sweep.append(fit(eps))
        if sweep[-1][2] >= default[2] - TOLERANCE:
            break
    else:
        sweep.append(default)
    return {"default": default, "sweep": sweep}


def _first(make, budgets, X, y, Xt, yt, target, limit, repeats):
    """Fit with each budget in ``budgets`` (median of ``repeats`` runs) until the test
    accuracy reaches ``target`` (or a fit takes over ``limit`` seconds): the last
    ``(budget, seconds, accuracy)``."""
    last = None
    for budget in budgets:
        seconds, model, _ = timeit(lambda b=budget: make(b).fit(X, y), repeats)
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
    ap.add_argument("--repeats", type=int, default=3, help="runs per timing (median)")
    args = ap.parse_args()
    shape = {}
    if args.quick:
        args.sizes, args.n_test = "10000,100000", 20_000
    if args.smoke:
        args.sizes, args.n_test, args.repeats = "2000,8000", 2000, 1
        shape = {"n_features": 2000, "nnz_per_row": 20}
        common.smoke_run()
    return args, [int(s) for s in args.sizes.split(",")], shape


def rows_prefix(Xall, m: int):
    """The first ``m`` rows of ``Xall`` (``Xall`` itself, not a copy, when all)."""
    return Xall if m == Xall.shape[0] else Xall[:m]


def liblinear_by_size(sizes, Xall, yall, Xt, yt, repeats: int) -> dict:
    """:func:`liblinear_at` on the first m rows, for each m."""
    out = {}
    for m in sizes:
        out[m] = r = liblinear_at(
            rows_prefix(Xall, m), yall[:m], 1.0 / (ALPHA * m), Xt, yt, repeats
        )
        sweep = ", ".join(f"-e {e:g}: {t:.3f}s {a:.4f}" for e, t, a in r["sweep"])
        print(f"m={m}: LIBLINEAR default {r['default'][1]:.3f}s acc {r['default'][2]:.4f}; "
              f"{sweep}", flush=True)  # fmt: skip
    return out


def to_target(X, y, Xt, yt, target: float, limit: float, repeats: int) -> tuple:
    """SGDClassifier's and averaged Pegasos' first fits reaching ``target``."""
    from pegasos_rs import PegasosClassifier
    from sklearn.linear_model import SGDClassifier

    X64 = X.astype(np.float64)
    sgd = _first(
        lambda p: SGDClassifier(loss="hinge", alpha=ALPHA, max_iter=p, tol=None, random_state=0),
        [1, 2, 4, 8, 16, 32, 64], X64, y, Xt, yt, target, limit, repeats,
    )  # fmt: skip
    del X64
    peg = _first(
        lambda t: PegasosClassifier(alpha=ALPHA, max_steps=t, average=True, random_state=0),
        [2000 * 2**k for k in range(20)], X, y, Xt, yt, target, limit, repeats,
    )  # fmt: skip
    return sgd, peg


def liblinear_to_target(ll: dict, target: float):
    """LIBLINEAR's loosest tolerance whose model reaches ``target``, or None."""
    return next((p for p in ll["sweep"] if p[2] >= target), None)


def table_row(m: int, ll: dict, sgd: tuple, peg: tuple, target: float) -> list[str]:
    miss = {True: "", False: ", target not reached"}
    default = ll["default"]
    llt = liblinear_to_target(ll, target)
    sgd_ok, peg_ok = sgd[2] >= target, peg[2] >= target

    def ratio(num, den, ok):
        return f"{num / den:.3f}" if ok else "—"

    return [
        f"{m:,}",
        f"{default[1]:.3f} s ({100 * default[2]:.2f} %)",
        "not reached" if llt is None else f"{llt[1]:.3f} s (-e {llt[0]:g}, {100 * llt[2]:.2f} %)",
        f"{sgd[1]:.3f} s ({sgd[0]} passes, {100 * sgd[2]:.2f} %{miss[sgd_ok]})",
        f"{peg[1]:.3f} s (T = {peg[0]:,} = {peg[0] / m:.2g} passes, "
        f"{100 * peg[2]:.2f} %{miss[peg_ok]})",
        ratio(peg[1], llt[1] if llt else 1.0, peg_ok and llt is not None),
        ratio(peg[1], sgd[1], peg_ok and sgd_ok),
    ]


def main() -> None:
    args, sizes, shape = parse_args()
    t0 = time.perf_counter()
    Xall, yall = make_rcv1_like(max(sizes), dtype=np.float32, **shape)
    Xt, yt = make_rcv1_like(args.n_test, test=True, dtype=np.float32, **shape)
    print(f"generated {Xall.shape[0]:,} rows in {time.perf_counter() - t0:.0f} s", flush=True)
    liblinear = liblinear_by_size(sizes, Xall, yall, Xt, yt, args.repeats)
    target = min(r["default"][2] for r in liblinear.values()) - TOLERANCE
    check(target > 0.6, f"implausible target accuracy {target:.3f}")
    rows, points = [], []
    for m in sizes:
        sgd, peg = to_target(rows_prefix(Xall, m), yall[:m], Xt, yt, target, args.limit,
                             args.repeats)  # fmt: skip
        rows.append(table_row(m, liblinear[m], sgd, peg, target))
        llt = liblinear_to_target(liblinear[m], target)
        points.append((m, None if llt is None else llt[1], sgd[1] if sgd[2] >= target else None,
                       peg[1], liblinear[m]["default"][1]))  # fmt: skip
        print(rows[-1], flush=True)
        check(peg[2] >= target, f"m={m}: Pegasos did not reach the target within the limit")
        check(llt is not None, f"m={m}: no LIBLINEAR tolerance reached the target")
    header = ["m (training rows)", "LIBLINEAR -s 3, default -e 0.1 (acc)",
              "LIBLINEAR -s 3 to target (loosest -e)", "SGDClassifier to target",
              "Pegasos (averaged) to target", "Pegasos / LIBLINEAR to target",
              "Pegasos / SGDClassifier"]  # fmt: skip
    runs = f"{args.repeats} run{'s' if args.repeats > 1 else ''}"
    text = (
        "# Training time against m (RCV1-shaped data, fixed alpha)\n\n"
        f"alpha = {ALPHA:g}; target test accuracy {100 * target:.2f} % (LIBLINEAR's lowest "
        f"with its default tolerance, minus {100 * TOLERANCE:g} pp); test set of "
        f"{args.n_test:,} rows; one thread. Every time is the median of {runs} (the "
        'ratios are of these medians). "To target": the first fit from scratch whose '
        "test accuracy reaches the target, with a growing budget: LIBLINEAR's tolerance "
        f"-e {', '.join(f'{e:g}' for e in EPS_SWEEP)} (loosest first), SGDClassifier's "
        "passes 1, 2, 4, ..., Pegasos' steps T = 2,000, 4,000, .... LIBLINEAR's times "
        "exclude building its problem from the CSR matrix.\n\n"
        + markdown_table(header, rows)
        + "\n"
    )
    name = "scaling_smoke" if args.smoke else "scaling_quick" if args.quick else "scaling"
    publish(name, text, t0)
    if not args.smoke:
        plot(points, target, name)


def plot(points, target, name: str) -> None:
    m = [p[0] for p in points]
    fig, ax = plots.pyplot().subplots(figsize=(6, 4.2))
    for k, label in [(1, "LIBLINEAR -s 3 (loosest -e)"), (2, "SGDClassifier"),
                     (3, "Pegasos (averaged)")]:  # fmt: skip
        pts = [(p[0], p[k]) for p in points if p[k] is not None]
        ax.plot([x for x, _ in pts], [t for _, t in pts], "o-", label=label)
    ax.plot(m, [p[4] for p in points], "k:", marker=".", label="LIBLINEAR -s 3, default -e 0.1")
    ylabel = f"training time to {100 * target:.1f} % test accuracy [s]"
    plots.log_axes(ax, "training rows m", ylabel, ylog=True)
    ax.set_title("RCV1-shaped data, fixed alpha")
    ax.legend(fontsize=8)
    plots.save(fig, RESULTS_DIR / f"{name}.png")


if __name__ == "__main__":
    main()
