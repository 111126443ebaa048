"""``pegasos-rs train -C``: the search of C (and of the SVR's ``-p``) by
cross-validation as LIBLINEAR's ``train -C`` does, and with ``-t`` of C and gamma as
LIBSVM's ``grid.py`` does; it prints the best values and their pooled score and
writes no model.
"""

from __future__ import annotations

from pegasos_rs._counts import counted
from pegasos_rs._progress import reporting
from pegasos_rs.cli._common import _bar, _c_g, _read, _warnings_as_lines, _weights_of_present_labels
from pegasos_rs.cli.params import _estimator


def _search_parameters(args, data_file: str, class_weight) -> int:
    """``-C``: LIBLINEAR's search of C (and of ``-p`` for the SVR) by cross-validation,
    every C of a fold trained at once (``PegasosClassifierCV`` /
    ``PegasosRegressorCV``); prints the best values and the pooled score, writes no
    model (as LIBLINEAR)."""
    import numpy as np

    from pegasos_rs import _search

    X, y = _read(args, data_file, as_arrays=False)
    class_weight = _weights_of_present_labels(class_weight, y)
    folds = _search_folds(args, X.shape[0])
    print(f"Doing parameter search with {len(folds)}-fold cross validation.")
    regression = args.task == "regressor"
    base = _estimator(args, X.shape[0], class_weight)
    params = {k: v for k, v in base.get_params().items() if k not in ("alpha", "warm_start")}
    sq = _search.largest_squared_norm(X, params["fit_intercept"], params["intercept_scaling"])
    max_c = 1048576.0 if regression else _search.LIBLINEAR_MAX_C
    if regression:
        max_p = float(np.abs(y).max(initial=0.0))
        steps = 20
        first = steps - 1
        if args.epsilon_given:
            first = min(int(args.epsilon / (max_p / steps)) if max_p > 0 else 0, first)
        ps: list[float | None] = [i * max_p / steps for i in range(first, -1, -1)]
    else:
        ps = [None]
    best: tuple[float, float | None, float] | None = None
    with reporting(_bar(args, "parameter search", "steps")), _warnings_as_lines(args):
        for p in ps:
            if args.C is not None:
                start = args.C
            elif regression:
                start = _search.start_c_svr(sq, y, 0.0 if p is None else p)
            else:
                start = _search.start_c(sq, X.shape[0], args.loss)
            start = min(start, max_c)
            cs = start * 2.0 ** np.arange(int(np.floor(np.log2(max_c / start))) + 1)
            score = _pooled_search(args, X, y, folds, cs, params, p, regression)
            # LIBLINEAR keeps the first best: the smallest C, then the largest p.
            k = int(np.argmin(score) if regression else np.argmax(score))
            if best is None or (score[k] < best[2] if regression else score[k] > best[2]):
                best = (float(cs[k]), p, float(score[k]))
    if best is None:  # no C: cannot happen (the range holds at least -c)
        raise SystemExit("pegasos-rs train: -C: no value of C to try")
    best_c, best_p, best_score = best
    if regression:
        p_text = _c_g(0.0 if best_p is None else best_p)
        print(f"Best C = {_c_g(best_c)} Best p = {p_text}  CV MSE = {_c_g(best_score)}")
    else:
        print(f"Best C = {_c_g(best_c)}  CV accuracy = {_c_g(100.0 * best_score)}%")
    return 0


def _pooled_search(args, X, y, folds, cs, params, p, regression: bool):
    """Every C of ``cs`` on every fold: the folds' pooled accuracy (or mean squared
    error) of each, as LIBLINEAR's search scores its C values."""

    from pegasos_rs.linear_cv import PegasosClassifierCV, PegasosRegressorCV

    if regression:
        params = {**params, "epsilon": p}
        search = PegasosRegressorCV(Cs=cs, cv=folds, refit=False, **params)
        search.set_params(scoring="neg_mean_squared_error")
    else:
        search = PegasosClassifierCV(Cs=cs, cv=folds, refit=False, **params)
    try:
        search.fit(X, y)
    except (ValueError, OverflowError) as e:
        raise SystemExit(f"pegasos-rs train: -C: {e}") from None
    return _pooled_scores(search, folds, regression)


def _search_folds(args, n_rows: int):
    """The ``-v`` folds of a ``-C`` search (5 without ``-v``): the rows in a random
    order of ``--seed``, split into consecutive parts, as LIBLINEAR splits them."""
    import numpy as np

    n_folds = args.folds or 5
    if n_folds > n_rows:
        raise SystemExit(f"pegasos-rs train: {n_folds} folds for {counted(n_rows, 'example')}")
    order = np.random.RandomState(args.seed).permutation(n_rows)
    folds = []
    for test in np.array_split(order, n_folds):
        train = np.setdiff1d(order, test, assume_unique=True)
        folds.append((np.sort(train), np.sort(test)))
    return folds


def _pooled_scores(search, folds, regression: bool):
    """The folds' pooled accuracy (or negated mean squared error) of every candidate
    of a fitted search, as LIBLINEAR's search scores its C values."""
    import numpy as np

    sizes = np.array([te.size for _, te in folds], dtype=np.float64)
    per_fold = np.array([search.cv_results_[f"split{k}_test_score"] for k in range(len(folds))])
    if regression:
        # Each fold's mean squared error times its rows: the pooled sum of squares.
        return -(per_fold * sizes[:, None]).sum(axis=0) / sizes.sum()
    correct = np.rint(per_fold * sizes[:, None])
    return correct.sum(axis=0) / sizes.sum()


def _search_kernel_parameters(args, data_file: str, class_weight) -> int:
    """``-C`` with ``-t``: C and gamma by cross-validation, as LIBSVM's ``grid.py``
    searches them (``KernelPegasosClassifierCV`` / ``KernelPegasosRegressorCV``:
    every C of a gamma on one kernel matrix); prints the best values and the pooled
    score, writes no model."""
    import numpy as np

    from pegasos_rs._validation import resolve_gamma
    from pegasos_rs.kernel_cv import KernelPegasosClassifierCV, KernelPegasosRegressorCV

    X, y = _read(args, data_file, as_arrays=False)
    class_weight = _weights_of_present_labels(class_weight, y)
    folds = _search_folds(args, X.shape[0])
    print(f"Doing parameter search with {len(folds)}-fold cross validation.")
    regression = args.task == "regressor"
    base = _estimator(args, X.shape[0], class_weight)
    # The searches share kernel matrices: no budget there (its merged points have no
    # row in them).
    params = {
        k: v
        for k, v in base.get_params().items()
        if k not in ("alpha", "gamma", "budget", "budget_maintenance")
    }
    start = 0.25 if args.C is None else float(args.C)
    cs = start * 4.0 ** np.arange(max(int(np.floor(np.log(256.0 / start) / np.log(4.0))), 0) + 1)
    gammas = None
    if base.kernel in ("rbf", "poly", "sigmoid", "chi2"):
        center = resolve_gamma(base.kernel, base.gamma, X)
        gammas = center * np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    cls = KernelPegasosRegressorCV if regression else KernelPegasosClassifierCV
    search = cls(Cs=cs, gammas=gammas, cv=folds, refit=False, **params)
    if regression:
        search.set_params(scoring="neg_mean_squared_error")
    with reporting(_bar(args, "parameter search", "steps")), _warnings_as_lines(args):
        try:
            search.fit(X, y)
        except (ValueError, OverflowError) as e:
            raise SystemExit(f"pegasos-rs train: -C: {e}") from None
    score = _pooled_scores(search, folds, regression)
    # The first best in the grid's order (C, then gamma), as grid.py keeps it.
    k = int(np.argmin(score) if regression else np.argmax(score))
    best = search.cv_results_["params"][k]
    gamma_text = f" Best gamma = {_c_g(best['gamma'])}" if "gamma" in best else ""
    if regression:
        print(f"Best C = {_c_g(best['C'])}{gamma_text}  CV MSE = {_c_g(score[k])}")
    else:
        print(f"Best C = {_c_g(best['C'])}{gamma_text}  CV accuracy = {_c_g(100.0 * score[k])}%")
    return 0
