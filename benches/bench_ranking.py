"""Learning to rank: PegasosRanker against RankSVM on LETOR 4.0 MQ2008, and
sampling="roc" against PegasosClassifier on w8a (AUC).

1. MQ2008 Fold 1 (train / vali / test). RankSVM is scikit-learn's ``LinearSVC``
   (hinge, no intercept, dual) on the difference vectors of every within-query
   preference pair of the training fold, signs alternating so that both classes
   are present (the hinge is symmetric: the same objective ``1/2 ||w||^2 + C
   sum_P hinge``). Its ``C`` is picked on the validation fold (NDCG@10) from
   ``C_GRID``; the ranker's ``alpha`` likewise from ``alpha = 1/(C |P|)`` (the same
   objective) over the same grid. Reported: test NDCG@10 and MAP, and the training
   time at the chosen setting, median of ``--repeats``, RankSVM's including the
   pair expansion. Targets (issue 26): test NDCG@10 at least RankSVM's - 0.005, in
   at most 1/3 of RankSVM's time.
2. w8a (imbalanced binary; a seeded 70/30 split): test AUC of
   ``PegasosRanker(sampling="roc")`` and ``PegasosClassifier`` (hinge) at the same
   ``alpha`` and number of passes, and their times (median).

One thread. ``--smoke`` runs both parts on generated data in seconds (the test
suite) and writes nothing.

    python benches/bench_ranking.py            # MQ2008 and w8a
    python benches/bench_ranking.py --smoke

Writes ``results/ranking.md`` and ``ranking.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

import common
import numpy as np
import scipy.sparse as sp
import shared_data
from common import RESULTS_DIR, check, single_thread, timeit
from report import fmt_time, markdown_table, notes, publish, section, verdict, write_json

#: RankSVM's C (and, through alpha = 1/(C |P|), the ranker's alpha) candidates.
C_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
#: Passes of the ranker (its default).
PASSES = 20


def pair_indices(y, qid):
    """``(i, j)`` arrays of every within-query pair with ``y_i > y_j``."""
    rows_i, rows_j = [], []
    order = np.argsort(qid, kind="stable")
    bounds = np.flatnonzero(np.diff(qid[order])) + 1
    for rows in np.split(order, bounds):
        yi = y[rows]
        better = yi[:, None] > yi[None, :]
        a, b = np.nonzero(better)
        rows_i.append(rows[a])
        rows_j.append(rows[b])
    return np.concatenate(rows_i), np.concatenate(rows_j)


def expand_pairs(X, y, qid):
    """RankSVM's training set: the difference vectors, signs alternating."""
    i, j = pair_indices(y, qid)
    D = X[i] - X[j]
    sign = np.where(np.arange(len(i)) % 2 == 0, 1.0, -1.0)
    D = sp.diags(sign) @ D if sp.issparse(D) else D * sign[:, None]
    return sp.csr_matrix(D), sign


def ranksvm(X, y, qid, C):
    from sklearn.svm import LinearSVC

    D, t = expand_pairs(X, y, qid)
    svc = LinearSVC(loss="hinge", C=C, fit_intercept=False, dual=True, max_iter=10000)
    svc.fit(D, t)
    return svc.coef_.ravel()


def measures(w, X, y, qid):
    from pegasos_rs._ranking import mean_average_precision, mean_ndcg

    s = X @ w
    return mean_ndcg(y, s, qid, 10), mean_average_precision(y, s, qid)


def generated_queries(n_queries, seed):
    rng = np.random.default_rng(seed)
    d = 20
    w = rng.normal(size=d)
    X = rng.normal(size=(n_queries * 15, d))
    y = np.digitize(X @ w + rng.normal(size=len(X)), [1.0, 3.0]).astype(float)
    return sp.csr_matrix(X), y, np.repeat(np.arange(n_queries), 15)


def letor(args):
    """Part 1: the splits, RankSVM's and the ranker's model selection, timings."""
    import warnings

    from pegasos_rs import PegasosRanker
    from sklearn.exceptions import ConvergenceWarning

    if args.smoke:
        train, vali, test = (generated_queries(n, s) for n, s in ((40, 1), (15, 2), (15, 3)))
        name = "generated queries"
    else:
        train, vali, test = (shared_data.load_letor(s) for s in ("train", "vali", "test"))
        name = "MQ2008 Fold 1"
    X, y, qid = train
    n_pairs = len(pair_indices(y, qid)[0])
    warnings.simplefilter("ignore", ConvergenceWarning)
    svm_vali = {C: measures(ranksvm(X, y, qid, C), *vali)[0] for C in C_GRID}
    best_C = max(C_GRID, key=lambda c: (svm_vali[c], -c))

    def pegasos(alpha):
        return PegasosRanker(alpha=alpha, max_iter=PASSES, random_state=0).fit(X, y, qid).coef_

    alphas = {C: 1.0 / (C * n_pairs) for C in C_GRID}
    peg_vali = {C: measures(pegasos(alphas[C]), *vali)[0] for C in C_GRID}
    best_alpha_C = max(C_GRID, key=lambda c: (peg_vali[c], -c))
    svm_time, w_svm, svm_runs = timeit(lambda: ranksvm(X, y, qid, best_C), args.repeats)
    peg_time, w_peg, peg_runs = timeit(lambda: pegasos(alphas[best_alpha_C]), args.repeats)
    svm_ndcg, svm_map = measures(w_svm, *test)
    peg_ndcg, peg_map = measures(w_peg, *test)
    check(svm_ndcg > 0.1 and peg_ndcg > 0.1, f"absurd NDCG@10 {svm_ndcg}, {peg_ndcg}")
    return {
        "dataset": name,
        "n_train": X.shape[0],
        "n_pairs": n_pairs,
        "svm_vali": svm_vali,
        "pegasos_vali": peg_vali,
        "C": best_C,
        "alpha": alphas[best_alpha_C],
        "svm": {"seconds": svm_time, "runs": svm_runs, "ndcg10": svm_ndcg, "map": svm_map},
        "pegasos": {"seconds": peg_time, "runs": peg_runs, "ndcg10": peg_ndcg, "map": peg_map},
    }


def auc_part(args):
    """Part 2: roc sampling against the hinge classifier, test AUC."""
    from pegasos_rs import PegasosClassifier, PegasosRanker
    from sklearn.metrics import roc_auc_score

    if args.smoke:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(3000, 30))
        y = np.where(X[:, 0] + rng.normal(size=3000) > 2.2, 1.0, -1.0)
        X, Xt, y, yt = X[:2000], X[2000:], y[:2000], y[2000:]
        name = "generated imbalanced"
    else:
        X, y, Xt, yt = shared_data.load("w8a")
        name = "w8a"
    alpha = 1.0 / X.shape[0]
    rank_time, ranker, rank_runs = timeit(
        lambda: PegasosRanker(sampling="roc", alpha=alpha, max_iter=PASSES, random_state=0).fit(
            X, y
        ),
        args.repeats,
    )
    clf_time, clf, clf_runs = timeit(
        lambda: PegasosClassifier(alpha=alpha, max_iter=PASSES, random_state=0).fit(X, y),
        args.repeats,
    )
    auc_rank = roc_auc_score(yt, ranker.predict(Xt))
    auc_clf = roc_auc_score(yt, clf.decision_function(Xt))
    check(auc_rank > 0.6 and auc_clf > 0.6, f"absurd AUC {auc_rank}, {auc_clf}")
    return {
        "dataset": name,
        "positives": float(np.mean(y > 0)),
        "alpha": alpha,
        "roc": {"seconds": rank_time, "runs": rank_runs, "auc": auc_rank},
        "classifier": {"seconds": clf_time, "runs": clf_runs, "auc": auc_clf},
    }


def report(r1, r2, args) -> str:
    s, p = r1["svm"], r1["pegasos"]
    ok_quality = p["ndcg10"] >= s["ndcg10"] - 0.005
    ratio = p["seconds"] / s["seconds"]
    lines = [f"# Learning to rank: PegasosRanker against RankSVM ({r1['dataset']})", ""]
    lines += section(
        f"1. {r1['dataset']}: test NDCG@10 and MAP, training time",
        markdown_table(
            ["model", "setting (picked on vali)", "time (median)", "test NDCG@10", "test MAP"],
            [
                [
                    "RankSVM (LinearSVC on pairs, incl. expansion)",
                    f"C = {r1['C']:g}",
                    fmt_time(s["seconds"]),
                    f"{s['ndcg10']:.4f}",
                    f"{s['map']:.4f}",
                ],
                [
                    f"PegasosRanker ({PASSES} passes)",
                    f"alpha = {r1['alpha']:.3g}",
                    fmt_time(p["seconds"]),
                    f"{p['ndcg10']:.4f}",
                    f"{p['map']:.4f}",
                ],
            ],
        ),
    )
    lines += section(
        "Targets",
        markdown_table(
            ["target", "measured", "met"],
            [
                [
                    "NDCG@10 >= RankSVM's - 0.005",
                    f"{p['ndcg10'] - s['ndcg10']:+.4f}",
                    verdict(ok_quality),
                ],
                ["time <= 1/3 of RankSVM's", f"{ratio:.3f}", verdict(ratio <= 1 / 3)],
            ],
        ),
    )
    a = r2
    lines += section(
        f"2. {a['dataset']} ({100 * a['positives']:.1f} % positive): test AUC",
        markdown_table(
            ["model", "time (median)", "test AUC"],
            [
                [
                    'PegasosRanker(sampling="roc")',
                    fmt_time(a["roc"]["seconds"]),
                    f"{a['roc']['auc']:.4f}",
                ],
                [
                    "PegasosClassifier (hinge)",
                    fmt_time(a["classifier"]["seconds"]),
                    f"{a['classifier']['auc']:.4f}",
                ],
            ],
        ),
    )
    lines += notes(
        [
            f"{r1['n_train']} training rows, {r1['n_pairs']} preference pairs; C grid "
            f"{list(C_GRID)}, alpha = 1/(C |P|) on the same grid; validation NDCG@10 "
            f"RankSVM {[round(v, 4) for v in r1['svm_vali'].values()]}, Pegasos "
            f"{[round(v, 4) for v in r1['pegasos_vali'].values()]}.",
            f"Times are the median of {args.repeats} runs, one thread; RankSVM's "
            "includes the pair expansion. Model selection is not timed on either side.",
            f"AUC part: alpha = 1/n_train = {a['alpha']:.3g}, {PASSES} passes each, seed 0.",
            "RankSVM's validation NDCG@10 is nearly flat from C = 0.01 on, and LinearSVC's "
            "time grows with C (ConvergenceWarnings of its max_iter=10000 are silenced): "
            "the time ratio depends on where the grid's maximum falls. Ranking's steps "
            "read two rows (a dot product and an axpy each) where the classifier's read "
            "one, and a pair violates the margin more often: the roc fit costs about 3 "
            "to 4 times the classifier's.",
        ]
    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="generated data, 1 run")
    ap.add_argument("--repeats", type=int, help="runs per timing (median); default 3")
    args = ap.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.smoke else 3
    if args.smoke:
        common.smoke_run()
    if not args.smoke and not (shared_data.letor_available() and shared_data.available("w8a")):
        print("MQ2008 or w8a not found: set PEGASOS_DATA", file=sys.stderr)
        return 1
    started = time.perf_counter()
    with single_thread():
        r1 = letor(args)
        r2 = auc_part(args)
    if not args.smoke:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        write_json(RESULTS_DIR / "ranking.json", {"letor": r1, "auc": r2})
    publish("ranking", report(r1, r2, args), started, write=not args.smoke)
    return 0


if __name__ == "__main__":
    _ = common
    sys.exit(main())
