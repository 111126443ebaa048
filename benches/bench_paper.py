"""The Pegasos paper's experiments on the linear solver (issue 5).

    python benches/bench_paper.py [--rows 100000] [--smoke]

On RCV1-shaped data (``rcv1_like.py``), no intercept, ``alpha = 1e-5``, so that the
primal objective is exactly the paper's ``alpha/2 ||w||^2 + 1/m sum hinge``:

1. **mini-batch sweep at fixed k T**: k = 1, 4, 16, 64, 256 with T = K / k steps
   (the same number K of examples); the paper finds the objective flat in k;
2. **projection** onto the ball of radius 1/sqrt(alpha) against none, at small T;
3. **averaged against last iterate** (suffix averaging) over T;
4. **the rate**: the gap to the optimum (LIBLINEAR ``-s 3 -e 1e-4``) against T on a
   log-log plot, with the O(1/(alpha T)) reference.

Every number is the objective of the returned model computed here in numpy. Checks:
no objective below the optimum (beyond rounding), and the gap falls with T.
Writes ``benches/results/paper.md`` and ``paper.png`` (``paper_smoke.md`` with
``--smoke``).
"""

from __future__ import annotations

import argparse
import time

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
import plots
from common import RESULTS_DIR, check
from rcv1_like import make_rcv1_like
from report import markdown_table, publish

ALPHA = 1e-5


def objective(X, y, w) -> float:
    return 0.5 * ALPHA * float(w @ w) + float(np.maximum(0.0, 1.0 - y * (X @ w)).mean())


def optimum(X, y) -> float:
    from liblinear import liblinear as ll
    from liblinear import liblinearutil as llu

    C = 1.0 / (ALPHA * X.shape[0])
    prob = ll.problem(np.ascontiguousarray(y, dtype=np.float64), X)
    model = llu.train(prob, ll.parameter(f"-s 3 -c {C!r} -e 1e-4 -q"))
    labels = np.asarray(model.get_labels(), dtype=np.float64)
    w = np.array([model.w[i] for i in range(model.get_nr_feature())])
    w = w if labels[0] == 1 else -w
    w = np.concatenate([w, np.zeros(X.shape[1] - w.size)])
    return objective(X, y, w)


def pegasos(X, y, steps, average=False, **kw) -> float:
    """The objective after ``steps`` steps; the last iterate (the paper's output)
    unless ``average``."""
    from pegasos_rs import PegasosClassifier

    est = PegasosClassifier(
        alpha=ALPHA, max_steps=steps, fit_intercept=False, average=average, random_state=0, **kw
    ).fit(X, y)
    return objective(X, y, est.coef_.ravel())


def minibatch_section(X, y, opt: float, K: int) -> str:
    """1. Mini-batches of k examples at a fixed number k T of examples."""
    batch = []
    for k in (1, 4, 16, 64, 256):
        obj = pegasos(X, y, max(1, K // k), batch_size=k, projection=False)
        batch.append([k, f"{K // k:,}", f"{obj:.6f}", f"{obj / opt - 1:.2%}"])
    return (
        f"## 1. Mini-batches at fixed k T = {K:,} examples (last iterate, no projection)\n\n"
        + markdown_table(["k", "T", "objective", "gap"], batch)
    )


def steps_sections(X, y, opt: float, steps: list[int]) -> tuple[list[str], list]:
    """2. projection, 3. averaging and 4. the rate, over the numbers of steps; also
    the rate's points ``(T, last iterate gap, averaged gap)``."""
    proj, avg, rate = [], [], []
    for T in steps:
        with_p = pegasos(X, y, T, projection=True)
        without = pegasos(X, y, T, projection=False)
        averaged = pegasos(X, y, T, projection=True, average=True)
        for v in (with_p, without, averaged):
            check(v >= opt * (1 - 1e-6), f"objective {v} below the optimum {opt}")
        proj.append([f"{T:,}", f"{with_p:.6f}", f"{without:.6f}"])
        avg.append([f"{T:,}", f"{with_p:.6f}", f"{averaged:.6f}"])
        rate.append((T, with_p - opt, averaged - opt))
        print(f"T={T}: projected {with_p:.6f}, free {without:.6f}, averaged {averaged:.6f}")
    check(rate[-1][1] < rate[0][1], "the gap did not fall with T")
    rate_rows = [[f"{T:,}", f"{a:.3g}", f"{b:.3g}", f"{1 / (ALPHA * T):.3g}"] for T, a, b in rate]
    sections = [
        "## 2. Projection onto the ball of radius 1/sqrt(alpha)\n\n"
        + markdown_table(["T", "projected", "not projected"], proj),
        "## 3. Last iterate against suffix average (projected)\n\n"
        + markdown_table(["T", "last iterate", "averaged"], avg),
        "## 4. Rate: gap to the optimum against T\n\n"
        + markdown_table(["T", "last iterate gap", "averaged gap", "1/(alpha T)"], rate_rows),
    ]
    return sections, rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--smoke", action="store_true", help="tiny data (seconds; for tests)")
    ap.add_argument("--quick", action="store_true", help="20,000 rows (paper_quick*)")
    args = ap.parse_args()
    started = time.perf_counter()
    if args.quick:
        args.rows = 20_000
    shape = {"n_features": 2000, "nnz_per_row": 20} if args.smoke else {}
    m = 3000 if args.smoke else args.rows
    X, y = make_rcv1_like(m, **shape)
    opt = optimum(X, y)
    print(f"m = {m}, optimum {opt:.6f}", flush=True)
    sections = [minibatch_section(X, y, opt, 2**14 if args.smoke else 2**20)]
    steps = [2**j for j in range(6, 21 if not args.smoke else 15, 2)]
    more, rate = steps_sections(X, y, opt, steps)
    sections += more
    text = (
        "# The Pegasos paper's experiments (linear, RCV1-shaped data)\n\n"
        f"m = {m:,} rows, alpha = {ALPHA:g}, no intercept; optimum {opt:.6f} "
        "(LIBLINEAR -s 3 -e 1e-4); objectives of the returned models, seed 0.\n\n"
        + "\n\n".join(sections)
        + "\n"
    )
    name = "paper_smoke" if args.smoke else "paper_quick" if args.quick else "paper"
    publish(name, text, started)
    if not args.smoke:
        plot(rate, name)


def plot(rate, name: str) -> None:
    T = np.array([r[0] for r in rate], dtype=float)
    fig, ax = plots.pyplot().subplots(figsize=(6, 4.2))
    ax.loglog(T, [r[1] for r in rate], "o-", label="last iterate (projected)")
    ax.loglog(T, [r[2] for r in rate], "s-", label="suffix average")
    ax.loglog(T, 1.0 / (ALPHA * T), "k--", label="1/(alpha T)")
    plots.log_axes(ax, "steps T", "primal objective - optimum", ylog=True)
    ax.set_title("Pegasos' rate on RCV1-shaped data")
    ax.legend()
    plots.save(fig, RESULTS_DIR / f"{name}.png")


if __name__ == "__main__":
    main()
