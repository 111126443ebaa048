"""Choosing alpha on a Dask cluster: ``pegasos_rs.dask.PegasosClassifierCV`` against
the same fits run one after another (issue 38, on Dask).

The data: the persisted problem of ``bench_dask_exact.py`` (``--rows`` Zipf rows,
6·10^6 by default, over 50,000 features in 24 blocks on a ``LocalCluster`` of 2
worker processes of 1 thread). The grid: 8 values ``alpha = 1e-6 · 2^k``,
``k = -4 .. 3``, 3 unshuffled stratified folds, ``--steps`` averaged steps per fit
(2^20 by default, as there), ``random_state=0``; the client's steps on one thread.

  (a) the search: ``PegasosClassifierCV(alphas=..., cv=3, max_steps=...)`` in
      exact mode, the refit on all rows included (``--repeats`` runs);
  (b) the 24 exact fits one after another: for each fold, its training rows
      sliced from the persisted arrays and persisted (not timed), then
      ``pegasos_rs.dask.PegasosClassifier`` fitted with each alpha (timed, the
      fits only; ``--repeats`` runs of all 24).

The target: (a) at most 1/4 of (b) (medians). Checked: each fold's score of the
search equals the held-out accuracy of the fit of (b) with the same alpha (the same
models, scored by the search on the workers and here by ``score``).

    python benches/bench_dask_model_selection.py [--rows 6000000] [--steps 1048576]
    python benches/bench_dask_model_selection.py --smoke

Writes ``benches/results/dask_model_selection.md`` and ``.json`` (only prints with
``--smoke``: 12,000 rows in 4 blocks on workers in the client's process).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import common  # noqa: F401 (one-thread environment before numpy)
import numpy as np
from bench_dask_exact import N_FEATURES, distributed_wait, parser, persisted, two_workers
from common import RESULTS_DIR, check, time_once
from report import machine_state, markdown_table, publish

HERE = Path(__file__).resolve().parent
_STARTED = time.perf_counter()
ALPHAS = [1e-6 * 2.0**k for k in range(-4, 4)]
FOLDS = 3
BLOCKS = 24


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    sys.path.insert(0, str(HERE))
    d, args.blocks, processes = N_FEATURES, BLOCKS, True
    if args.smoke:
        args.rows, args.steps, args.repeats, d = 12_000, 1 << 12, 1, 2_000
        args.blocks, processes = 4, False
    state = machine_state()
    with two_workers(processes) as client:
        results = run(client, args, d)
    report(args, d, state, results)


def run(client, args, d) -> dict:
    import pegasos_rs.dask as pdask
    from sklearn.model_selection import StratifiedKFold

    X, y = persisted(client, args.rows, args.blocks, d)
    kw = {"max_steps": args.steps, "average": True, "random_state": 0}
    searches = []
    for _ in range(args.repeats):
        search = pdask.PegasosClassifierCV(alphas=ALPHAS, cv=FOLDS, client=client, **kw)
        searches.append((time_once(lambda search=search: search.fit(X, y))[0], search))
    search = searches[-1][1]
    y_local = client.compute(y, sync=True)
    folds = list(StratifiedKFold(FOLDS).split(np.empty((y_local.size, 0)), y_local))
    one_by_one = [0.0] * args.repeats
    scores = np.zeros((len(ALPHAS), FOLDS))
    for f, (tr, te) in enumerate(folds):
        X_tr, y_tr = client.persist([X[tr], y[tr]])
        X_te, y_te = client.persist([X[te], y[te]])
        distributed_wait(client, [X_tr, y_tr, X_te, y_te])
        for r in range(args.repeats):
            for a, alpha in enumerate(ALPHAS):
                est = pdask.PegasosClassifier(alpha=alpha, client=client, **kw)
                one_by_one[r] += time_once(lambda est=est, X=X_tr, y=y_tr: est.fit(X, y))[0]
                if r == 0:
                    scores[a, f] = est.score(X_te, y_te)
        del X_tr, y_tr, X_te, y_te
    searched = np.column_stack([search.cv_results_[f"split{f}_test_score"] for f in range(FOLDS)])
    check(
        np.allclose(searched, scores, rtol=0, atol=1e-12),
        f"the search's fold scores differ from the fits' one by one: {searched} vs {scores}",
    )
    return {
        "search": [s for s, _ in searches],
        "one_by_one": one_by_one,
        "refit": [s.refit_time_ for _, s in searches],
        "best_alpha": search.alpha_,
        "mean_scores": search.cv_results_["mean_test_score"].tolist(),
        "scores": scores.tolist(),
    }


def report(args, d, state, r) -> None:
    search = statistics.median(r["search"])
    one_by_one = statistics.median(r["one_by_one"])
    ratio = search / one_by_one
    met = "met" if ratio <= 0.25 else "missed"
    rows = [
        [
            f"(a) PegasosClassifierCV, {len(ALPHAS)} alphas x {FOLDS} folds, refit included",
            f"{search:.2f} s",
            ", ".join(f"{s:.2f}" for s in r["search"]),
        ],
        [
            "(a) of which the refit on all rows",
            f"{statistics.median(r['refit']):.2f} s",
            ", ".join(f"{s:.2f}" for s in r["refit"]),
        ],
        [
            f"(b) the {len(ALPHAS) * FOLDS} exact fits one after another",
            f"{one_by_one:.2f} s",
            ", ".join(f"{s:.2f}" for s in r["one_by_one"]),
        ],
    ]
    means = [
        [f"{alpha:.3g}", f"{100 * s:.2f} %"]
        for alpha, s in zip(ALPHAS, r["mean_scores"], strict=True)
    ]
    text = "\n\n".join(
        [
            "# Choosing alpha on a Dask cluster (issue 38)",
            f"{args.rows:,} Zipf rows ({d} features, the problem of bench_dask_exact.py) in "
            f"{args.blocks} persisted blocks; LocalCluster of 2 workers x 1 thread; "
            f"{args.steps} averaged steps per fit, random_state=0; the client's steps on "
            f"one thread; medians of {args.repeats} runs; load average at the start "
            f"{state['load'][0]:.2f}.",
            markdown_table(["run", "median", "runs [s]"], rows, align="lrr"),
            f"The search takes {ratio:.2f} of the time of the fits one after another; "
            f"target at most 1/4: **{met}**. Each fold's score of the search equals the "
            "held-out accuracy of the fit of (b) with the same alpha (checked).",
            "## Mean held-out accuracy of each alpha",
            markdown_table(["alpha", "mean accuracy"], means, align="rr"),
            f"Chosen: alpha = {r['best_alpha']:.3g}.",
        ]
    )
    publish("dask_model_selection", text, _STARTED, write=not args.smoke)
    if not args.smoke:
        out = {**r, "load_start": state["load"], "rows": args.rows, "steps": args.steps}
        (RESULTS_DIR / "dask_model_selection.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
