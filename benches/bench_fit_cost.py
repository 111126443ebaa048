"""The cost of a default fit against the number of rows m, at a fixed number of steps
(issue 17 §1).

Pegasos needs the same T steps whatever m (the paper's claim), so a fit should cost
the steps plus whatever touches the whole input once. Target: at every m, the default
``fit`` costs at most twice (one numpy pass over the input's values and indices + the
fit at 10^5 rows). With ``check_input=False`` (labels passed as int32 class codes with
``classes=``), only the rows the steps read are checked: target, the fit at any m
within 2x the fit at 10^5 rows. Data: RCV1-shaped float32 CSR (``rcv1_like.py``), generated once
at the largest m; every smaller set is a view of its first rows (no copy), so each
solver reads exactly the data it is timed on.

    python benches/bench_fit_cost.py [--sizes 100000,1000000,3000000,10000000] [--smoke]

Writes ``benches/results/fit_cost.md`` and ``fit_cost.png`` (``fit_cost_smoke.md``
with ``--smoke``, no plot).
"""

from __future__ import annotations

import argparse
import time

import common  # one-thread environment before numpy
import numpy as np
import plots
import scipy.sparse as sp
from common import RESULTS_DIR, check, timeit
from pegasos_rs import PegasosClassifier
from rcv1_like import make_rcv1_like
from report import command, markdown_table, publish


def prefix_view(X: sp.csr_matrix, m: int) -> sp.csr_matrix:
    """The first ``m`` rows of ``X`` sharing its arrays (no copy)."""
    end = int(X.indptr[m])
    view = sp.csr_matrix((X.shape[0], X.shape[1]), dtype=X.dtype)
    view.data, view.indices, view.indptr = X.data[:end], X.indices[:end], X.indptr[: m + 1]
    view._shape = (m, X.shape[1])
    return view


def one_pass(X: sp.csr_matrix, repeats: int) -> float:
    """Median seconds of one numpy pass over the values (finiteness) and the indices
    (range), over ``repeats`` runs."""
    return timeit(lambda: (np.isfinite(X.data).all(), X.indices.max()), repeats)[0]


def fit_time(X, y, steps: int, repeats: int, **fit_args) -> tuple[float, PegasosClassifier]:
    """Median of ``repeats`` fits of ``steps`` steps (default, or with ``fit_args``),
    and the last fitted estimator."""

    def fit():
        return PegasosClassifier(alpha=1e-5, max_steps=steps, random_state=0).fit(X, y, **fit_args)

    t, est, _ = timeit(fit, repeats)
    return t, est


def measure(sizes: list[int], shape: dict, steps: int, repeats: int) -> list[dict]:
    X, y = make_rcv1_like(max(sizes), dtype=np.float32, **shape)
    rows = []
    for m in sizes:
        Xm, ym = prefix_view(X, m), y[:m]
        fit, est = fit_time(Xm, ym, steps, repeats)
        check(est.t_ == steps, f"the fit at m={m} took {est.t_} steps, not {steps}")
        codes = (ym == est.classes_[1]).astype(np.int32)
        unchecked, fast = fit_time(
            Xm, codes, steps, repeats, check_input=False, classes=est.classes_
        )
        check(
            np.array_equal(fast.coef_, est.coef_),
            f"check_input=False changed the model at m={m}",
        )
        rows.append(
            {
                "m": m,
                "fit": fit,
                "unchecked": unchecked,
                "pass": one_pass(Xm, repeats),
                "nnz": int(Xm.nnz),
            }
        )
        print(
            f"m={m:,}: fit {fit:.3f} s, check_input=False {unchecked:.3f} s, "
            f"one pass {rows[-1]['pass']:.3f} s",
            flush=True,
        )
    return rows


def report(rows: list[dict], steps: int, repeats: int, prefix: str, plot: bool) -> str:
    base, fast_base = rows[0]["fit"], rows[0]["unchecked"]
    table = []
    for r in rows:
        bound = 2 * (r["pass"] + base)
        fast_ratio = r["unchecked"] / fast_base
        table.append(
            [
                f"{r['m']:,}",
                f"{r['nnz']:,}",
                f"{r['fit']:.3f} s",
                f"{r['pass']:.3f} s",
                f"{bound:.3f} s",
                f"{r['fit'] / bound:.2f} ({'PASS' if r['fit'] <= bound else 'MISS'})",
                f"{r['unchecked']:.3f} s",
                f"{fast_ratio:.2f} ({'PASS' if fast_ratio <= 2 else 'MISS'})",
            ]
        )
    first = f"{rows[0]['m']:,}"
    header = ["m", "stored values", "default fit", "one numpy pass"]
    header += [f"2 x (pass + fit at {first})", "fit / bound (≤ 1)"]
    header += ["check_input=False", f"its fit / its fit at {first} (≤ 2)"]
    lines = [
        "# Fit cost against m (T fixed)",
        "",
        f"`{command('bench_fit_cost.py')}` — T = {steps:,} steps, alpha = 1e-5, averaged,",
        f"one thread; every time is the median of {repeats} run{'s' if repeats > 1 else ''}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}.",
        "",
        markdown_table(header, table),
        "",
    ]
    if plot:
        plt = plots.pyplot()
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        ms = [r["m"] for r in rows]
        ax.plot(ms, [r["fit"] for r in rows], "o-", label="default fit (T fixed)")
        ax.plot(ms, [r["unchecked"] for r in rows], "^-", label="check_input=False")
        ax.plot(ms, [r["pass"] for r in rows], "s--", label="one numpy pass over the input")
        plots.log_axes(ax, "training rows m", "seconds", ylog=True)
        ax.legend()
        lines.append(f"![fit cost]({plots.save(fig, RESULTS_DIR / (prefix + '.png'))})")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000,3000000,10000000")
    ap.add_argument("--steps", type=int, default=128_000)
    ap.add_argument("--repeats", type=int, default=3, help="runs per timing (median)")
    ap.add_argument("--smoke", action="store_true", help="tiny data (seconds; for tests)")
    args = ap.parse_args()
    started = time.perf_counter()
    if args.smoke:
        sizes, shape, steps, repeats, prefix = (
            [2000, 8000],
            {"n_features": 3000, "nnz_per_row": 20},
            4000,
            1,
            ("fit_cost_smoke"),
        )
        common.smoke_run()
    else:
        sizes = [int(s) for s in args.sizes.split(",")]
        shape, steps, repeats, prefix = {}, args.steps, args.repeats, "fit_cost"
    rows = measure(sizes, shape, steps, repeats)
    text = report(rows, steps, repeats, prefix, plot=not args.smoke and plots.have_matplotlib())
    publish(prefix, text, started)


if __name__ == "__main__":
    main()
