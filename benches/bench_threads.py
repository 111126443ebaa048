"""Thread scaling: one against two threads (issue 5).

    python benches/bench_threads.py [--smoke]

On RCV1-shaped data (``rcv1_like.py``) with 8 classes (the argmax of fixed random
projections):

* linear one-vs-rest training (classes in parallel) and prediction (row blocks);
* kernel (rbf) training, binary (kernel columns in parallel) and one-vs-rest, and
  prediction (row blocks through the support vectors).

Each configuration is timed with ``n_jobs=1`` and ``n_jobs=2`` (median of 3), and the
run checks that both give the same model bit for bit. Writes
``benches/results/threads.md`` (``threads_smoke.md`` with ``--smoke``).
"""

from __future__ import annotations

import argparse
import os
import time

import common  # one-thread environment before numpy
import numpy as np
from common import check, timeit
from rcv1_like import make_rcv1_like
from report import markdown_table, publish


def make_cases(smoke: bool) -> tuple[list[tuple], int]:
    """The timed fits: (title, size, estimator of n_jobs, X, y); and the kernel rows."""
    from pegasos_rs import KernelPegasosClassifier, PegasosClassifier

    shape = {"n_features": 2000, "nnz_per_row": 20} if smoke else {}
    m_lin, m_ker = (3000, 1000) if smoke else (300_000, 20_000)
    X, _ = make_rcv1_like(m_lin, **shape)
    W = np.random.RandomState(7).standard_normal((X.shape[1], 8))
    y = np.argmax(X @ W, axis=1)
    Xk, yk = X[:m_ker], y[:m_ker]
    yb = (yk % 2).astype(int)

    def kernel(j):
        return KernelPegasosClassifier(alpha=1e-4, gamma=1.0, max_iter=2, random_state=0, n_jobs=j)

    # The last iterate, as recorded before averaging became the default.
    def linear(j):
        return PegasosClassifier(alpha=1e-5, max_iter=5, average=False, random_state=0, n_jobs=j)

    cases = [
        ("linear one-vs-rest fit (8 classes)", f"{m_lin:,} rows", linear, X, y),
        ("kernel rbf fit, binary", f"{m_ker:,} rows", kernel, Xk, yb),
        ("kernel rbf fit, one-vs-rest (8 classes)", f"{m_ker:,} rows", kernel, Xk, yk),
    ]
    return cases, m_ker


def fit_rows(title: str, size: str, make, Xc, yc, repeats: int) -> tuple[list, object]:
    """The fit's row at one and two threads (identical models checked; median of
    ``repeats`` runs) and the one-thread model."""
    times, models = {}, {}
    for j in (1, 2):
        times[j], models[j], _ = timeit(lambda j=j: make(j).fit(Xc, yc), repeats)
    a, b = models[1], models[2]
    same = np.array_equal(
        getattr(a, "coef_", None) if hasattr(a, "coef_") else a.dual_coef_,
        getattr(b, "coef_", None) if hasattr(b, "coef_") else b.dual_coef_,
    )
    check(same, f"{title}: n_jobs=1 and n_jobs=2 disagree")
    row = [title, size, f"{times[1]:.3f} s", f"{times[2]:.3f} s", f"{times[1] / times[2]:.2f}x"]
    return row, a


def predict_row(title: str, model, Xp, repeats: int) -> list:
    """The prediction's row at one and two threads (identical outputs checked)."""
    pt = {}
    for j in (1, 2):
        model.set_params(n_jobs=j)
        pt[j], out, _ = timeit(lambda: model.decision_function(Xp), repeats)
        pt[j] = (pt[j], out)
    check(np.array_equal(pt[1][1], pt[2][1]), f"{title}: predictions disagree")
    return [title.replace(" fit", " predict"), f"{Xp.shape[0]:,} rows",
            f"{pt[1][0]:.3f} s", f"{pt[2][0]:.3f} s", f"{pt[1][0] / pt[2][0]:.2f}x"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny data (seconds; for tests)")
    args = ap.parse_args()
    repeats = 1 if args.smoke else 3
    if args.smoke:
        common.smoke_run()
    started = time.perf_counter()
    os.environ.pop("RAYON_NUM_THREADS", None)  # our pools are sized by n_jobs
    cases, m_ker = make_cases(args.smoke)
    X = cases[0][3]
    rows = []
    for title, size, make, Xc, yc in cases:
        row, model = fit_rows(title, size, make, Xc, yc, repeats)
        rows.append(row)
        print(rows[-1], flush=True)
        Xp = X if "linear" in title else X[: (5 * m_ker if not args.smoke else 2000)]
        rows.append(predict_row(title, model, Xp, repeats))
        print(rows[-1], flush=True)
    text = (
        "# Thread scaling (RCV1-shaped data)\n\n"
        f"{os.cpu_count()} cores; median of {repeats}; identical results at both thread counts "
        "checked.\n\n"
        + markdown_table(["task", "size", "n_jobs=1", "n_jobs=2", "speed-up"], rows)
        + "\n"
    )
    name = "threads_smoke" if args.smoke else "threads"
    publish(name, text, started)


if __name__ == "__main__":
    main()
