"""``pegasos-rs predict``, modelled on LIBLINEAR's ``predict``.

    pegasos-rs predict [options] data_file model_file output_file

``predict`` reads a model (pegasos-rs' format, a LIBLINEAR model file or a LIBSVM
``c_svc``, ``nu_svc``, ``epsilon_svr`` or ``nu_svr`` model file; see
:mod:`pegasos_rs.io.foreign_models`), writes one predicted label per line to
``output_file`` and prints ``Accuracy = 97.1234% (3204/3299)`` as LIBLINEAR's
``predict`` does (LIBSVM's ``svm-predict`` adds `` (classification)``). A regression
model (LIBLINEAR's ``-s 11``, ``12``, ``13``, LIBSVM's epsilon-SVR and nu-SVR, and
any scikit-learn regressor a pegasos-rs model file holds) writes one predicted value
per line (``%.17g``) and prints, as both programs do (here for LIBLINEAR's ``train -s
11`` on cpusmall)::

    Mean squared error = 99.7223 (regression)
    Squared correlation coefficient = 0.70585 (regression)

With ``-b 1`` it writes probability estimates in LIBLINEAR's layout: those of
pegasos-rs models trained with ``-b 1`` (Platt scaling), and those LIBLINEAR's
``predict -b 1`` gives for its logistic regression models (``-s 0``, ``6``, ``7``);
other models, regression models among them, are refused, as LIBLINEAR refuses them.
"""

from __future__ import annotations

import argparse
import os
import sys

# Nothing here imports numpy, scipy or scikit-learn when the module is imported:
# --help must answer at once, and the linear path never needs the last two.
from pegasos_rs._counts import counted
from pegasos_rs._progress import reporting
from pegasos_rs.cli._common import _bar, _c_g, _regression_measures


def _predict_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pegasos-rs predict",
        usage="pegasos-rs predict [options] data_file model_file output_file",
        description="Predict the labels (or values, for a regression model) of an "
        "svmlight/libsvm file with a trained model (pegasos-rs, LIBLINEAR or LIBSVM "
        "format) and print the accuracy (regression: the mean squared error and the "
        "squared correlation coefficient).",
    )
    p.add_argument(
        "--threads", "-n", type=int, dest="threads", default=1, help="threads, -1 for all"
    )
    p.add_argument(
        "-b",
        type=int,
        choices=[0, 1],
        default=0,
        dest="probability",
        help="1: also write probability estimates (models trained with -b 1), as "
        "LIBLINEAR's and LIBSVM's predict; 0: labels only (default)",
    )
    p.add_argument("-q", action="store_true", dest="quiet", help="quiet: print nothing")
    p.add_argument("data_file")
    p.add_argument("model_file")
    p.add_argument("output_file")
    return p


def predict(argv: list[str]) -> int:
    from pegasos_rs.io import model_io

    args = _predict_parser().parse_args(argv)
    # A linear classifier's file (what train writes) is read and predicted without
    # importing scikit-learn or scipy, as train trains it: they take most of a second
    # to import. Other models, and -b 1, go through the estimators.
    linear = None if args.probability else model_io._load_linear_classifier(args.model_file)
    if linear is not None:
        return _predict_linear(args, linear)
    import numpy as np

    from pegasos_rs.io.foreign_models import (
        LiblinearModel,
        LibsvmModel,
        LibsvmOneClassModel,
        LibsvmRegressionModel,
        read_model,
    )
    from pegasos_rs.io.svmlight import load_svmlight_file

    try:
        model = read_model(args.model_file)
        if type(model).__name__ == "PegasosRanker":
            return _predict_ranking(args, model)
        with reporting(_bar(args, f"reading {os.path.basename(args.data_file)}", "B")):
            X, y = load_svmlight_file(args.data_file, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    regression = _is_regression(model)
    if args.probability:
        _check_probabilities(model, args.model_file, regression)
    # LIBSVM's programs write labels with %.17g and name the task; labels of the
    # other models are written with %g (LIBLINEAR's predict before 2.21; its %.17g
    # since then writes the same for integer labels below 10^6). Predicted values
    # (regression) are written with %.17g, as both programs do.
    label_format, task = ".17g", " (classification)"
    if not isinstance(model, (LibsvmModel, LibsvmRegressionModel, LibsvmOneClassModel)):
        label_format, task = (".17g" if regression else "g"), ""
        # for LIBSVM's kernels every feature counts (rbf); linear models drop the rest
        X = _linear_width(X, model.n_features_in_, args.data_file)
    # The probabilities' columns: LIBLINEAR's models in the file's label order (as
    # its predict writes them), pegasos-rs' in the order of classes_.
    order = model.labels if isinstance(model, LiblinearModel) else getattr(model, "classes_", ())
    try:
        with reporting(_bar(args, "predicting", "rows")):
            proba = np.zeros((X.shape[0], len(order)))
            if X.shape[0] == 0:
                pred = np.zeros(0)
            elif hasattr(model, "set_params"):
                model.set_params(n_jobs=args.threads)
                pred = model.predict(X)
                if args.probability:
                    proba = model.predict_proba(X)
            else:
                pred = model.predict(X, n_jobs=args.threads)
                if args.probability:
                    proba = model.predict_proba(X, n_jobs=args.threads)
    except ValueError as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    _write_predictions(args, pred, label_format, (order, proba) if args.probability else None)
    _print_measures(args, pred, y, regression, task)
    return 0


def _predict_linear(args, model) -> int:
    """``predict`` with a linear classifier read by
    ``pegasos_rs.io.model_io._load_linear_classifier``, without scikit-learn or scipy:
    the rows as ``read_svmlight_arrays`` gives them, the decision values and labels
    by the functions ``PegasosClassifier.predict`` uses."""
    import numpy as np

    from pegasos_rs import _linear_solver
    from pegasos_rs._arrays import csr_parts
    from pegasos_rs.io import svmlight

    try:
        with reporting(_bar(args, f"reading {os.path.basename(args.data_file)}", "B")):
            data, indices, indptr, y, n_features = svmlight.read_svmlight_arrays(
                args.data_file, n_jobs=args.threads
            )
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    d = model.n_features_in_
    data, indices, indptr = _narrowed(data, indices, indptr, n_features, d, args.data_file)
    n_rows = indptr.shape[0] - 1
    try:
        with reporting(_bar(args, "predicting", "rows")):
            pred = np.zeros(0)
            if n_rows:
                matrix = csr_parts(data, indices, indptr, (n_rows, d))
                scores = _linear_solver.decision_values(model, matrix, args.threads)
                pred = _linear_solver.labels_of(model.classes_, scores)
    except ValueError as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    _write_predictions(args, pred, "g", None)
    _print_measures(args, pred, y, False, "")
    return 0


def _write_predictions(args, pred, label_format: str, probabilities) -> None:
    """Write ``predict``'s output file: a label (or value) per line, each written
    with ``label_format``; with ``probabilities`` (the classes and the rows'
    probabilities), LIBLINEAR's layout: a header, then ``label p_1 .. p_K``."""
    import numpy as np

    try:
        with open(args.output_file, "w") as f:
            if probabilities is not None:
                order, proba = probabilities
                labels = " ".join(f"{c:{label_format}}" for c in np.asarray(order, dtype=float))
                f.write(f"labels {labels}\n")
                f.writelines(
                    f"{v:{label_format}} " + " ".join(f"{q:g}" for q in p) + "\n"
                    for v, p in zip(np.asarray(pred, dtype=float), proba, strict=True)
                )
            else:
                f.writelines(f"{v:{label_format}}\n" for v in np.asarray(pred, dtype=float))
    except OSError as e:
        raise SystemExit(f"pegasos-rs predict: cannot write {args.output_file}: {e}") from None


def _print_measures(args, pred, y, regression: bool, task: str) -> None:
    """Print the accuracy (``task`` after it), or for a regression the mean squared
    error and squared correlation, as LIBLINEAR's and LIBSVM's programs do; nothing
    with ``-q``."""
    import numpy as np

    if args.quiet:
        return
    if regression:
        mse, r2 = _regression_measures(np.asarray(pred, dtype=float), y)
        print(f"Mean squared error = {_c_g(mse)} (regression)")
        print(f"Squared correlation coefficient = {_c_g(r2)} (regression)")
    else:
        correct = int(np.sum(pred == y))
        print(f"Accuracy = {100 * correct / max(len(y), 1):g}% ({correct}/{len(y)}){task}")


def _predict_ranking(args, model) -> int:
    """``predict`` with a :class:`~pegasos_rs.PegasosRanker`: writes each row's score
    (``%.17g``) and, when the file's lines carry ``qid:``, prints the mean NDCG@10
    over its queries (a query without a relevant document counts as 0)."""
    import numpy as np

    from pegasos_rs._ranking import mean_ndcg
    from pegasos_rs.io.svmlight import load_svmlight_file

    with reporting(_bar(args, f"reading {os.path.basename(args.data_file)}", "B")):
        try:
            X, y, qid = load_svmlight_file(args.data_file, query_id=True, n_jobs=args.threads)
        except ValueError as e:
            if "qid" not in str(e):
                raise
            X, y = load_svmlight_file(args.data_file, n_jobs=args.threads)
            qid = None
    X = _linear_width(X, model.n_features_in_, args.data_file)
    model.set_params(n_jobs=args.threads)
    scores = model.predict(X) if X.shape[0] else np.zeros(0)
    try:
        with open(args.output_file, "w") as f:
            f.writelines(f"{v:.17g}\n" for v in scores)
    except OSError as e:
        raise SystemExit(f"pegasos-rs predict: cannot write {args.output_file}: {e}") from None
    if not args.quiet and qid is not None and len(scores):
        n_queries = len(np.unique(qid))
        print(f"Mean NDCG@10 = {mean_ndcg(y, scores, qid):g} ({counted(n_queries, 'query')})")
    return 0


def _is_regression(model) -> bool:
    """Whether ``model`` predicts real values rather than classes: LIBLINEAR's and
    LIBSVM's regression models, and any scikit-learn regressor (pegasos-rs'
    regressors, a Pipeline ending in one). ``predict`` then writes values with
    ``%.17g`` and prints the mean squared error and squared correlation instead of
    the accuracy, as LIBLINEAR's and LIBSVM's programs do."""
    from pegasos_rs.io.foreign_models import LiblinearRegressionModel, LibsvmRegressionModel

    if isinstance(model, (LiblinearRegressionModel, LibsvmRegressionModel)):
        return True
    if getattr(model, "_estimator_type", None) == "regressor":  # older scikit-learn's mark
        return True
    if hasattr(model, "__sklearn_tags__"):
        from sklearn.base import is_regressor

        return bool(is_regressor(model))
    return False


def _check_probabilities(model, model_file: str, regression: bool) -> None:
    """Exit, saying why and what to do, unless ``model`` gives probabilities:
    pegasos-rs models trained with ``-b 1``, LIBLINEAR's logistic regression models
    (those LIBLINEAR's ``predict -b 1`` accepts). Regression models are refused as
    LIBLINEAR's ``predict -b 1`` refuses them."""
    from pegasos_rs.io.foreign_models import LiblinearModel, LibsvmModel
    from pegasos_rs.io.liblinear_model import LIBLINEAR_PROBABILITY

    if regression:
        what = getattr(model, "solver_type", None) or type(model).__name__
        raise SystemExit(
            f"pegasos-rs predict: -b 1: {model_file} is a regression model ({what}); as "
            "in LIBLINEAR, probability output is only supported for logistic regression "
            "(LIBLINEAR's train -s 0, 6 or 7)"
        )
    if isinstance(model, LiblinearModel):
        if model.solver_type in LIBLINEAR_PROBABILITY:
            return
        raise SystemExit(
            f"pegasos-rs predict: -b 1: {model_file} is a LIBLINEAR {model.solver_type} "
            "model; as in LIBLINEAR, probability output is only supported for logistic "
            "regression (LIBLINEAR's train -s 0, 6 or 7)"
        )
    if isinstance(model, LibsvmModel):
        raise SystemExit(
            f"pegasos-rs predict: -b 1: {model_file} is a LIBSVM model; pegasos-rs does "
            "not compute LIBSVM's probability estimates: use LIBSVM's svm-predict -b 1, "
            "or train with pegasos-rs train -b 1"
        )
    if not hasattr(model, "predict_proba"):
        raise SystemExit(
            f"pegasos-rs predict: -b 1: {model_file} has no probability estimates; "
            "train the model with -b 1 (pegasos-rs train -b 1, or probability=True), or "
            "train a logistic regression (-s 0, loss='log_loss')"
        )


def _linear_width(X, d: int, data_file: str):
    """The CSR matrix ``X`` with the ``d`` features of a linear model (see
    :func:`_narrowed`)."""
    import scipy.sparse as sp

    data, indices, indptr = _narrowed(X.data, X.indices, X.indptr, X.shape[1], d, data_file)
    return sp.csr_matrix((data, indices, indptr), shape=(X.shape[0], d))


def _narrowed(data, indices, indptr, n_features: int, d: int, data_file: str):
    """The arrays of a CSR matrix of ``n_features`` columns as those of ``d``
    columns, the features of a linear model: absent trailing features are zeros;
    features the model never saw are dropped with a warning (LIBLINEAR drops them
    silently)."""
    import numpy as np

    if n_features <= d:
        return data, indices, indptr
    keep = indices < d
    unseen = int(keep.size - np.count_nonzero(keep))
    print(
        f"pegasos-rs predict: WARNING: {data_file} has {counted(n_features, 'feature')} "
        f"but the model was trained on {d}: {counted(unseen, 'value')} of features {d + 1}.."
        f"{n_features} are ignored (as LIBLINEAR does). Is this the model of this data?",
        file=sys.stderr,
    )
    kept_before = np.concatenate([[0], np.cumsum(keep)])  # entries kept before each one
    return data[keep], indices[keep], kept_before[indptr].astype(indptr.dtype)
