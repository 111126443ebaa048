"""``pegasos-rs train``, modelled on LIBLINEAR's ``train``.

    pegasos-rs train [options] data_file [model_file]
    pegasos-rs train --dask [SCHEDULER] [options] data_file... model_file

``train`` reads an svmlight/libsvm file, trains ``PegasosClassifier`` or
``PegasosRegressor`` (the linear kernel, ``-t 0`` / ``-t linear``, which is the
default) or ``KernelPegasosClassifier`` / ``KernelPegasosRegressor`` (any other
``-t``) and writes the model in pegasos-rs' model format (``model_file``
defaults to ``data_file``'s name plus ``.model`` in the current directory, as
LIBLINEAR's; ``pegasos-rs export --format liblinear`` rewrites a linear model in
LIBLINEAR's layout for LIBLINEAR's ``predict``). With ``-v n`` it runs n-fold
cross-validation instead and prints ``Cross Validation Accuracy = ...%``. Without
``-c`` and ``--alpha``, ``C = 1`` (LIBLINEAR's default: the paper's lambda is
``1 / n_samples``). Run without a data file, it prints its usage and options (exit
status 1), as LIBLINEAR's ``train``.

The single letters keep LIBLINEAR's meaning (and LIBSVM's ``svm-train``'s for the
kernel options), or are refused with what to use instead. ``-s`` takes LIBLINEAR's
solver types with their objectives: 0 and 7 logistic regression (``log_loss``), 1
and 2 the L2-loss SVM (``squared_hinge``), 3 the L1-loss SVM (``hinge``, the
default), 11 and 12 the L2-loss SVR (``squared_epsilon_insensitive``), 13 the
L1-loss SVR (``epsilon_insensitive``), with ``-p`` the SVR's epsilon; with ``-t``,
LIBSVM's svm types 0 (C-SVC) and 3 (epsilon-SVR). The L1-regularised types (5, 6)
are refused: Pegasos' step is that of the L2-regularised objective. A kernel
option the chosen kernel does not use (``-g``, ``-d``, ``-r``, ``-m``,
``--projection``) is ignored with a warning on stderr (LIBSVM ignores them
silently), and so is the weight of a ``-wi`` label the data lacks (as LIBLINEAR
warns and trains on). ``-e`` is a stopping tolerance on the
relative decrease of the primal objective per pass, not LIBLINEAR's optimality
violation.

The linear solver's usual run (no ``-v``, no ``-b 1``, no ``--dask``) imports no
scikit-learn and no scipy: it reads the file, trains and writes the model through
the functions ``PegasosClassifier`` itself uses (:mod:`pegasos_rs._linear_solver`),
and the model file is byte for byte the one ``PegasosClassifier(...).fit(X,
y).save(...)`` writes with the same parameters. ``predict`` with a linear
classifier's file (no ``-b 1``) reads it without them too
(``pegasos_rs.io.model_io._load_linear_classifier``) and predicts through the
functions ``PegasosClassifier.predict`` uses. So ``pegasos-rs train`` and
``predict`` start in a fraction of a second, as LIBLINEAR's do, instead of after the
seconds scikit-learn takes to import.

With ``--dask`` the files (globs allowed) are read and trained on by
``pegasos_rs.dask`` on the Dask cluster at ``SCHEDULER`` (``tcp://host:8786``), or
on a local cluster of worker processes when no scheduler is given: for files too
large for one process. The last file name is the model file. Every linear solver
type trains there (``-s 0``, ``1``, ``2``, ``3``, ``4`` (exact mode only), ``7``
with ``pegasos_rs.dask.PegasosClassifier``, ``-s 11``, ``12``, ``13`` with
``pegasos_rs.dask.PegasosRegressor``).

Its parts: :mod:`~pegasos_rs.cli.options` parses and checks the options,
:mod:`~pegasos_rs.cli.liblinear_flags` gives ``-s``, ``-t`` and the kernel options
LIBLINEAR's and LIBSVM's meaning, :mod:`~pegasos_rs.cli.params` turns them into an
estimator's parameters, :mod:`~pegasos_rs.cli.search` runs ``-C`` and
:mod:`~pegasos_rs.cli.dask_train` ``--dask``; this module trains in memory (and
``--rank``). ``pegasos-rs predict`` is :mod:`pegasos_rs.cli.predict`.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Literal

# Nothing here imports numpy, scipy or scikit-learn when the module is imported:
# --help must answer at once, and the linear path never needs the last two.
from pegasos_rs._counts import counted
from pegasos_rs._progress import reporting
from pegasos_rs.cli._common import (
    _bar,
    _c_g,
    _read,
    _regression_measures,
    _report,
    _rows,
    _save,
    _warnings_as_lines,
    _weights_of_present_labels,
)
from pegasos_rs.cli.dask_train import _train_on_dask
from pegasos_rs.cli.liblinear_flags import _check_liblinear_choices
from pegasos_rs.cli.options import (
    _check_budget,
    _check_one_class,
    _check_search,
    _check_values,
    _refuse_foreign_options,
    _shrinking_or_help,
    _split_class_weights,
    _split_dask,
    _train_parser,
    _usage,
)
from pegasos_rs.cli.params import _alpha, _estimator, _linear_params
from pegasos_rs.cli.search import _search_kernel_parameters, _search_parameters


def train(argv: list[str]) -> int:
    argv, class_weight = _split_class_weights(argv)
    argv, scheduler, on_dask = _split_dask(argv)
    _refuse_foreign_options(argv, "train")
    argv = _shrinking_or_help(argv)
    args = _train_parser().parse_intermixed_args(argv)
    if not args.files:
        raise SystemExit(_usage())
    _check_values(args)
    _check_liblinear_choices(args)
    if class_weight and args.task == "regressor":
        raise SystemExit(
            f"pegasos-rs train: -wi weights classes; -s {args.solver} trains a regression"
        )
    if args.task == "one_class":
        _check_one_class(args, class_weight, on_dask)
    if args.budget is not None:
        _check_budget(args)
    if args.search:
        _check_search(args, on_dask)
    if args.rank:
        return _train_ranker(args, class_weight, on_dask)
    if on_dask:
        if args.probability:
            raise SystemExit("pegasos-rs train: -b 1 is not available with --dask")
        return _train_on_dask(args, scheduler, class_weight)
    if len(args.files) > 2:
        raise SystemExit("pegasos-rs train: one data file (several need --dask)")
    data_file = args.files[0]
    model_file = args.files[1] if len(args.files) > 1 else os.path.basename(data_file) + ".model"
    if args.search and args.kernel != "linear":
        return _search_kernel_parameters(args, data_file, class_weight)
    if args.search:
        return _search_parameters(args, data_file, class_weight)
    linear_classifier = args.kernel == "linear" and args.task == "classifier"
    if linear_classifier and not args.folds and not args.probability:
        return _train_linear(args, data_file, model_file, class_weight)
    return _train_estimator(args, data_file, model_file, class_weight)


def _train_ranker(args, class_weight, on_dask: bool) -> int:
    """``train --rank``: a :class:`~pegasos_rs.PegasosRanker` on the preference pairs
    within the queries of an svmlight file with ``qid:``."""
    refused = [
        ("--dask", on_dask),
        ("-v", bool(args.folds)),
        ("-b 1", bool(args.probability)),
        ("-t", args.kernel != "linear"),
        ("-B", args.bias > 0),
        ("-R", args.unregularized_bias),
        ("-wi", bool(class_weight)),
        ("--sampling", args.sampling not in (None, "uniform")),
    ]
    for flag, given in refused:
        if given:
            raise SystemExit(f"pegasos-rs train: {flag} is not available with --rank")
    losses: dict[int | None, Literal["hinge", "log_loss"]] = {
        None: "hinge",
        3: "hinge",
        0: "log_loss",
        7: "log_loss",
    }
    if args.solver not in losses:
        raise SystemExit(
            f"pegasos-rs train: --rank trains -s 3 (hinge) or -s 0/7 (log_loss), "
            f"not -s {args.solver}"
        )
    if len(args.files) > 2:
        raise SystemExit("pegasos-rs train: one data file")
    data_file = args.files[0]
    model_file = args.files[1] if len(args.files) > 1 else os.path.basename(data_file) + ".model"
    import numpy as np

    from pegasos_rs.io import svmlight
    from pegasos_rs.ranker import PegasosRanker

    try:
        with reporting(_bar(args, f"reading {os.path.basename(data_file)}", "B")):
            X, y, qid = svmlight.load_svmlight_file(data_file, query_id=True, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train --rank: {e}") from None
    est = PegasosRanker(
        loss=losses[args.solver],
        alpha=_alpha(args, X.shape[0]),
        max_iter=args.passes or 20,
        max_steps=args.max_steps,
        batch_size=args.batch,
        projection=True if args.projection is None else bool(args.projection),
        average=True if args.average is None else bool(args.average),
        tol=args.tol,
        random_state=args.seed,
        n_jobs=args.threads,
    )
    started = time.perf_counter()
    try:
        with reporting(_bar(args, "training", "steps")), _warnings_as_lines(args):
            est.fit(X, y, qid)
    except (ValueError, OverflowError) as e:
        raise SystemExit(f"pegasos-rs train --rank: {e}") from None
    _save(est.save, model_file)
    if not args.quiet:
        print(
            f"trained PegasosRanker on {_rows(X.shape[0], X.shape[1])}, "
            f"{counted(len(np.unique(qid)), 'query')}, {counted(est.n_iter_, 'pass')} in "
            f"{time.perf_counter() - started:.2f}s; model written to {model_file}",
            file=sys.stderr,
        )
    return 0


def _train_linear(args, data_file: str, model_file: str, class_weight) -> int:
    """The linear solver without scikit-learn (no -v, -b 1 or --dask): the file
    ``PegasosClassifier(...).fit(X, y).save(model_file)`` would write."""
    from pegasos_rs import _linear_solver
    from pegasos_rs._arrays import csr_parts

    data, indices, indptr, y, n_features = _read(args, data_file, as_arrays=True)
    n_rows = indptr.shape[0] - 1
    if n_rows == 0:
        raise SystemExit(f"pegasos-rs train: {data_file} holds no examples")
    class_weight = _weights_of_present_labels(class_weight, y)
    model = _linear_solver.LinearModel(_linear_params(args, n_rows, class_weight))
    matrix = csr_parts(data, indices, indptr, (n_rows, n_features))
    started = time.perf_counter()
    try:
        with reporting(_bar(args, "training", "steps")):
            unconverged = _linear_solver.fit(model, matrix, y, n_features)
    except (ValueError, OverflowError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    if unconverged is not None and not args.quiet:
        print(f"pegasos-rs train: WARNING: {unconverged}", file=sys.stderr)
    _save(lambda path: _linear_solver.save(model, path), model_file)
    _report(args, "PegasosClassifier", n_rows, n_features, model, started, model_file)
    return 0


def _train_estimator(args, data_file: str, model_file: str, class_weight) -> int:
    """Cross-validation, probabilities or a kernel: through the scikit-learn
    estimators."""
    import numpy as np

    X, y = _read(args, data_file, as_arrays=False)
    class_weight = _weights_of_present_labels(class_weight, y)
    est = _estimator(args, X.shape[0], class_weight)
    if args.folds:
        from sklearn.model_selection import KFold, cross_val_predict

        cv = KFold(args.folds, shuffle=True, random_state=args.seed)
        try:
            with reporting(_bar(args, f"{args.folds}-fold cross-validation", "steps")):
                pred = cross_val_predict(est, X, y, cv=cv)
        except (ValueError, OverflowError) as e:
            raise SystemExit(f"pegasos-rs train: cross-validation: {e}") from None
        if args.task == "regressor":
            mse, scc = _regression_measures(np.asarray(pred, dtype=float), y)
            print(f"Cross Validation Mean squared error = {_c_g(mse)}")
            print(f"Cross Validation Squared correlation coefficient = {_c_g(scc)}")
        else:
            print(f"Cross Validation Accuracy = {100 * np.mean(pred == y):g}%")
        return 0
    started = time.perf_counter()
    try:
        with reporting(_bar(args, "training", "steps")), _warnings_as_lines(args):
            est.fit(X, y)
    except (ValueError, OverflowError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    _save(est.save, model_file)
    _report(args, type(est).__name__, X.shape[0], X.shape[1], est, started, model_file)
    return 0
