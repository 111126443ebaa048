"""``pegasos-rs train`` and ``pegasos-rs predict``, modelled on LIBLINEAR's programs.

    pegasos-rs train [options] data_file [model_file]
    pegasos-rs train --dask [SCHEDULER] [options] data_file... model_file
    pegasos-rs predict [options] data_file model_file output_file

``train`` reads an svmlight/libsvm file, trains ``PegasosClassifier`` (``-t linear``,
the default) or ``KernelPegasosClassifier`` (any other ``-t``) and writes the model in
pegasos-rs' model format (``model_file`` defaults to ``data_file``'s name plus
``.model`` in the current directory, as LIBLINEAR's). With ``-v n`` it runs n-fold
cross-validation instead and prints ``Cross Validation Accuracy = ...%``.

With ``--dask`` the files (globs allowed) are read and trained on by
``pegasos_rs.dask`` on the Dask cluster at ``SCHEDULER`` (``tcp://host:8786``), or
on a local cluster of worker processes when no scheduler is given: for files too
large for one process. The last file name is the model file.

``predict`` reads a model (pegasos-rs' format, a LIBLINEAR model file or a LIBSVM
``c_svc``/``nu_svc`` model file; see :mod:`pegasos_rs.foreign_models`), writes one
predicted label per line to ``output_file`` and prints
``Accuracy = 97.1234% (3204/3299)`` as LIBLINEAR's ``predict`` does (LIBSVM's
``svm-predict`` adds `` (classification)``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time
import warnings

from pegasos_rs._progress import ProgressBar, reporting

TRAIN_HELP = """\
LIBLINEAR / LIBSVM options (same meaning as in LIBLINEAR's train and svm-train):
  -s type        3: L2-regularised hinge loss, the objective Pegasos solves (the
                 only one; other types are refused)                  (default 3)
  -c cost        C; the paper's lambda is 1 / (C * n_samples)   (default: --alpha)
  -e epsilon     stop when the objective, evaluated once per pass, improves by
                 less than epsilon (relative) for 5 passes  (default: run --passes)
  -B bias        bias feature of value bias > 0 (a regularised weight); -1 or 0:
                 no bias                                            (default -1)
  -R             with -B 1: do not regularise the bias (the paper's bias)
  -wi weight     weight of class i (e.g. -w1 5 -w-1 0.5)
  -t kernel      0 linear, 1 poly, 2 rbf, 3 sigmoid, or a name: linear, poly, rbf,
                 sigmoid, chi2, intersection                     (default linear)
  -g gamma       kernel gamma: a number, scale or auto             (default scale)
  -d degree      poly kernel degree                                   (default 3)
  -r coef0       poly/sigmoid constant term                           (default 0)
  -m cachesize   kernel cache size in MB                            (default 200)
  -h 0|1         LIBSVM's shrinking: accepted, no effect (Pegasos has no shrinking)
  -b 0|1         1: also fit probability estimates (Platt scaling on 5 folds, as
                 LIBSVM's -b 1; fit takes about 6 times as long)      (default 0)
  -v n           n-fold cross-validation; prints the accuracy, saves no model
  -q             quiet: no progress output
Pegasos' own options:
  --alpha a      regularisation, the paper's lambda (when -c is not given) (1e-4)
  --passes n     passes over the data            (default 20 linear, 10 kernel)
  --max-steps T  run exactly T steps (the paper's T) instead of --passes
  --batch-size k examples per step (the paper's k)                   (default 1)
  --average 0|1  1: the suffix-averaged iterate, 0: the last iterate (default 1)
  --projection 0|1  project onto the ball of radius 1/sqrt(alpha) (linear; 1)
  --sampling s   uniform, shuffle or balanced                   (default uniform)
  --seed s       random seed                                          (default 0)
  --threads n    threads, -1 for all cores                            (default 1)
  --dask [SCHEDULER]  train on a Dask cluster (linear only): the files stay on
                 the workers; a local cluster when no scheduler address is given
  --mode exact|parallel   with --dask: the in-memory iterates (default), or
                 parameter mixing (many passes over data that does not fit)
  --help         this text
Refused, with what to use instead: -p (LIBLINEAR's SVR epsilon; passes are
--passes), -n (nu; threads are --threads), -C (parameter search; use -v with
several -c), -t 4 (precomputed kernels: the Python API takes them).
"""

#: LIBLINEAR / LIBSVM letters whose meaning pegasos-rs does not offer: the message.
REFUSED = {
    "-p": "-p is LIBLINEAR's SVR epsilon (pegasos-rs trains classifiers); passes "
    "over the data are --passes",
    "-n": "-n is nu in LIBLINEAR and LIBSVM (nu-SVC and one-class SVM are not "
    "available); threads are --threads",
    "-C": "-C (LIBLINEAR's search for C) is not available; cross-validate several "
    "-c values with -v",
}

#: LIBSVM's kernel numbers.
KERNEL_NUMBERS = {"0": "linear", "1": "poly", "2": "rbf", "3": "sigmoid"}


def _split_class_weights(argv: list[str]) -> tuple[list[str], dict[float, float]]:
    """Take LIBLINEAR's ``-wLABEL weight`` pairs out of ``argv``."""
    rest, weights = [], {}
    k = 0
    while k < len(argv):
        tok = argv[k]
        if tok.startswith("-w") and len(tok) > 2:
            if k + 1 >= len(argv):
                raise SystemExit(f"pegasos-rs train: {tok} needs a weight")
            try:
                weights[float(tok[2:])] = float(argv[k + 1])
            except ValueError:
                raise SystemExit(
                    f"pegasos-rs train: bad class weight {tok} {argv[k + 1]}"
                ) from None
            k += 2
        else:
            rest.append(tok)
            k += 1
    return rest, weights


def _train_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pegasos-rs train",
        usage="pegasos-rs train [options] data_file [model_file]",
        description="Train a Pegasos SVM on an svmlight/libsvm file.",
        epilog=TRAIN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    hide = argparse.SUPPRESS  # the options are documented once, in TRAIN_HELP
    p.add_argument("--help", action="help", help=hide)
    p.add_argument("-s", type=int, dest="solver", default=3, help=hide)
    p.add_argument("-c", type=float, dest="C", help=hide)
    p.add_argument("-e", type=float, dest="tol", help=hide)
    p.add_argument("-B", type=float, dest="bias", default=-1.0, help=hide)
    p.add_argument("-R", action="store_true", dest="unregularized_bias", help=hide)
    p.add_argument("-t", dest="kernel", default="linear", help=hide)
    p.add_argument("-g", dest="gamma", default="scale", help=hide)
    p.add_argument("-d", type=int, dest="degree", default=3, help=hide)
    p.add_argument("-r", type=float, dest="coef0", default=0.0, help=hide)
    p.add_argument("-m", type=float, dest="cache", default=200.0, help=hide)
    p.add_argument("-b", type=int, dest="probability", choices=[0, 1], default=0, help=hide)
    p.add_argument("-v", type=int, dest="folds", help=hide)
    p.add_argument("-q", action="store_true", dest="quiet", help=hide)
    p.add_argument("--alpha", type=float, default=1e-4, help=hide)
    p.add_argument("--passes", type=int, help=hide)
    p.add_argument("--max-steps", type=int, dest="max_steps", help=hide)
    p.add_argument("--batch-size", type=int, dest="batch", default=1, help=hide)
    p.add_argument("--average", type=int, choices=[0, 1], help=hide)
    p.add_argument("--projection", type=int, choices=[0, 1], default=1, help=hide)
    p.add_argument("--sampling", default="uniform", help=hide)
    p.add_argument("--seed", type=int, default=0, help=hide)
    p.add_argument("--threads", type=int, default=1, help=hide)
    p.add_argument("--mode", choices=["exact", "parallel"], default="exact", help=hide)
    p.add_argument("data_file", help=hide)
    p.add_argument("model_file", nargs="?", help=hide)
    p.add_argument("more_files", nargs="*", help=hide)
    return p


def _refuse_foreign_options(argv: list[str], program: str) -> None:
    """Exit with what to use instead for a LIBLINEAR/LIBSVM letter whose meaning
    pegasos-rs does not offer."""
    for tok in argv:
        if tok in REFUSED:
            raise SystemExit(f"pegasos-rs {program}: {REFUSED[tok]}")


def _shrinking_or_help(argv: list[str]) -> list[str]:
    """LIBSVM's ``-h 0|1`` (shrinking) is accepted and has no effect; ``-h`` alone
    asks for help."""
    rest, k = [], 0
    while k < len(argv):
        if argv[k] == "-h":
            if k + 1 < len(argv) and argv[k + 1] in ("0", "1"):
                k += 2
                continue
            rest.append("--help")
        else:
            rest.append(argv[k])
        k += 1
    return rest


def _check_liblinear_choices(args) -> None:
    """``-s``, ``-t``, ``-b`` and ``-R`` as LIBLINEAR and LIBSVM define them."""
    if args.solver != 3:
        raise SystemExit(
            f"pegasos-rs train: -s {args.solver} is another objective in LIBLINEAR "
            "(0: logistic regression, 1/2: squared hinge, 5/6: L1-regularised, ...) and "
            "LIBSVM (0: C-SVC, run here with -t); Pegasos solves the L2-regularised "
            "hinge loss: -s 3 (the default)"
        )
    kernel = KERNEL_NUMBERS.get(args.kernel, args.kernel)
    if args.kernel == "4":
        raise SystemExit(
            "pegasos-rs train: -t 4 (precomputed kernel) is not available from the "
            "command line; KernelPegasosClassifier(kernel='precomputed') takes one"
        )
    names = ("linear", "poly", "rbf", "sigmoid", "chi2", "intersection")
    if kernel not in names:
        raise SystemExit(
            f"pegasos-rs train: invalid -t {args.kernel}: expected 0-3 or one of "
            + ", ".join(names)
        )
    args.kernel = kernel
    if args.unregularized_bias and args.kernel == "linear" and args.bias <= 0:
        raise SystemExit("pegasos-rs train: -R needs -B 1, as in LIBLINEAR")


def _split_dask(argv: list[str]) -> tuple[list[str], str | None, bool]:
    """Take ``--dask [SCHEDULER]`` (or ``--dask=SCHEDULER``) out of ``argv``: a
    token after ``--dask`` is the scheduler when it looks like an address
    (``tcp://...``, ``host:port``), else it is a file."""
    rest, scheduler, used = [], None, False
    k = 0
    while k < len(argv):
        tok = argv[k]
        if tok == "--dask" or tok.startswith("--dask="):
            used = True
            if "=" in tok:
                scheduler = tok.split("=", 1)[1]
            elif k + 1 < len(argv) and re.fullmatch(r"\w+://\S+|[\w.-]+:\d+", argv[k + 1]):
                scheduler = argv[k + 1]
                k += 1
        else:
            rest.append(tok)
        k += 1
    return rest, scheduler, used


def _estimator(args, n_samples: int, class_weight, verbose: bool):
    from pegasos_rs import KernelPegasosClassifier, PegasosClassifier

    alpha = args.alpha if args.C is None else 1.0 / (args.C * n_samples)
    common = {
        "alpha": alpha,
        "batch_size": args.batch,
        "sampling": args.sampling,
        "class_weight": class_weight or None,
        "random_state": args.seed,
        "n_jobs": args.threads,
        "verbose": int(verbose),
        "probability": bool(args.probability),
    }
    if args.tol is not None:
        common["tol"] = args.tol
    if args.kernel == "linear" and args.gamma == "scale":
        bias = args.bias
        return PegasosClassifier(
            max_iter=args.passes or 20,
            projection=bool(args.projection),
            fit_intercept=bias > 0,
            intercept_scaling=None if args.unregularized_bias else (bias if bias > 0 else 1.0),
            average=True if args.average is None else bool(args.average),
            max_steps=args.max_steps,
            **common,
        )
    gamma = args.gamma
    if gamma not in ("scale", "auto"):
        gamma = float(gamma)
    if args.bias > 0 and not args.unregularized_bias:
        raise SystemExit(
            "pegasos-rs train: kernels learn only the paper's unregularised bias: "
            "-R (or no bias, the default)"
        )
    if args.max_steps is not None:
        raise SystemExit("pegasos-rs train: --max-steps is for linear models")
    return KernelPegasosClassifier(
        kernel=args.kernel,
        gamma=gamma,
        degree=args.degree,
        coef0=args.coef0,
        max_iter=args.passes or 10,
        fit_intercept=bool(args.unregularized_bias),
        average=True if args.average is None else bool(args.average),
        cache_size=args.cache,
        **common,
    )


def train(argv: list[str]) -> int:
    import numpy as np

    from pegasos_rs import load_svmlight_file

    argv, class_weight = _split_class_weights(argv)
    argv, scheduler, on_dask = _split_dask(argv)
    _refuse_foreign_options(argv, "train")
    argv = _shrinking_or_help(argv)
    args = _train_parser().parse_intermixed_args(argv)
    _check_liblinear_choices(args)
    for name, value, ok, valid in [
        ("--passes", args.passes, args.passes is None or args.passes >= 1, "an integer >= 1"),
        ("--batch-size", args.batch, args.batch >= 1, "an integer >= 1"),
        ("-v n", args.folds, args.folds is None or args.folds >= 2, "an integer >= 2"),
        ("-c cost", args.C, args.C is None or args.C > 0, "a number > 0"),
        ("--alpha", args.alpha, args.alpha > 0, "a number > 0"),
        ("-e epsilon", args.tol, args.tol is None or args.tol > 0, "a number > 0"),
        (
            "--max-steps T",
            args.max_steps,
            args.max_steps is None or args.max_steps >= 1,
            "an integer >= 1",
        ),
    ]:
        if not ok:
            raise SystemExit(f"pegasos-rs train: invalid {name} {value}: expected {valid}")
    if on_dask:
        if args.probability:
            raise SystemExit("pegasos-rs train: -b 1 is not available with --dask")
        return _train_on_dask(args, scheduler, class_weight)
    if args.more_files:
        raise SystemExit("pegasos-rs train: one data file (several need --dask)")
    try:
        with reporting(_bar(args, f"reading {os.path.basename(args.data_file)}", "B")):
            X, y = load_svmlight_file(args.data_file, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    est = _estimator(args, X.shape[0], class_weight, verbose=False)
    if args.folds:
        from sklearn.model_selection import KFold, cross_val_predict

        cv = KFold(args.folds, shuffle=True, random_state=args.seed)
        try:
            with reporting(_bar(args, f"{args.folds}-fold cross-validation", "steps")):
                pred = cross_val_predict(est, X, y, cv=cv)
        except ValueError as e:
            raise SystemExit(f"pegasos-rs train: cross-validation: {e}") from None
        print(f"Cross Validation Accuracy = {100 * np.mean(pred == y):g}%")
        return 0
    started = time.perf_counter()
    try:
        with reporting(_bar(args, "training", "steps")), _warnings_as_lines(args):
            est.fit(X, y)
    except ValueError as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    model_file = args.model_file or os.path.basename(args.data_file) + ".model"
    _save(est, model_file)
    if not args.quiet:
        print(
            f"trained {type(est).__name__} on {X.shape[0]} examples x {X.shape[1]} features, "
            f"{len(est.classes_)} classes, {est.n_iter_} passes in "
            f"{time.perf_counter() - started:.2f}s; model written to {model_file}",
            file=sys.stderr,
        )
    return 0


@contextlib.contextmanager
def _warnings_as_lines(args):
    """Show the warnings of the block (e.g. ConvergenceWarning) as one line each on
    stderr, as LIBLINEAR prints its "WARNING: reaching max number of iterations";
    none with ``-q``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not args.quiet:
        for w in caught:
            print(f"pegasos-rs train: WARNING: {w.message}", file=sys.stderr)


def _bar(args, desc: str, unit: str) -> ProgressBar | None:
    """A progress bar on a terminal, unless ``-q``; ``None`` otherwise (also when
    the output is redirected: nothing is written then)."""
    if args.quiet or not sys.stderr.isatty():
        return None
    return ProgressBar(desc, unit)


def _save(est, model_file) -> None:
    """Write the model, or exit with a one-line message naming the file."""
    try:
        est.save(model_file)
    except OSError as e:
        raise SystemExit(f"pegasos-rs train: cannot write the model to {model_file}: {e}") from None


def _train_on_dask(args, scheduler: str | None, class_weight) -> int:
    """``train --dask``: read the files on the cluster and train there."""
    files = [args.data_file, *([args.model_file] if args.model_file else []), *args.more_files]
    if len(files) < 2:
        raise SystemExit("pegasos-rs train: --dask needs data files and a model file")
    *data_files, model_file = files
    if args.kernel != "linear" or args.folds:
        raise SystemExit(
            "pegasos-rs train: --dask trains linear models (use a feature map for kernels) "
            "and does not cross-validate"
        )
    try:
        import distributed

        import pegasos_rs.dask as pdask
    except ImportError as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    show = not args.quiet and sys.stderr.isatty()
    started = time.perf_counter()
    client = None
    bar = None
    try:
        if scheduler is not None:
            client = distributed.Client(scheduler)
        with pdask._cluster.cluster(client) as on:
            if show:
                print(
                    f"reading {len(data_files)} file(s) on {on.scheduler.address} ...",
                    file=sys.stderr,
                )
            with on.as_current():
                X, y = pdask.read_svmlight(data_files)
            local = _estimator(args, int(X.shape[0]), class_weight, verbose=False)
            est = pdask.PegasosClassifier(**local.get_params(), mode=args.mode, client=on)
            bar = _bar(args, "training", "steps")
            est.fit(X, y, callback=None if bar is None else _dask_progress(bar))
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    _save(est, model_file)
    if not args.quiet:
        print(
            f"trained {type(est).__name__} ({args.mode}) on {int(X.shape[0])} examples x "
            f"{X.shape[1]} features from {len(data_files)} file(s), {len(est.classes_)} "
            f"classes, {est.t_} steps in {time.perf_counter() - started:.2f}s; model written "
            f"to {model_file}",
            file=sys.stderr,
        )
    return 0


def _dask_progress(bar: ProgressBar):
    """The ``callback`` of a Dask fit that moves ``bar`` after every round."""

    def show(info) -> None:
        what = "round" if info["stage"] == "round" else "pass"
        bar.bar.set_description(f"training, {what} {info['pass']}", refresh=False)
        bar.update(info["steps"], info["steps_in_pass"], None, [], False)

    return show


def _predict_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pegasos-rs predict",
        usage="pegasos-rs predict [options] data_file model_file output_file",
        description="Predict the labels of an svmlight/libsvm file with a trained model "
        "(pegasos-rs, LIBLINEAR or LIBSVM c_svc/nu_svc format) and print the accuracy.",
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
    import numpy as np

    import pegasos_rs
    from pegasos_rs.foreign_models import LibsvmModel, read_model

    args = _predict_parser().parse_args(argv)
    try:
        model = read_model(args.model_file)
        with reporting(_bar(args, f"reading {os.path.basename(args.data_file)}", "B")):
            X, y = pegasos_rs.load_svmlight_file(args.data_file, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    if args.probability and not hasattr(model, "predict_proba"):
        raise SystemExit(
            f"pegasos-rs predict: -b 1: {args.model_file} has no probability estimates; "
            "train the model with -b 1 (pegasos-rs train -b 1, or probability=True)"
        )
    # LIBSVM's programs write labels with %.17g and name the task; LIBLINEAR's %g.
    label_format, task = ".17g", " (classification)"
    if not isinstance(model, LibsvmModel):  # for LIBSVM every feature counts (rbf)
        label_format, task = "g", ""
        X = _linear_width(X, model.n_features_in_, args.data_file)
    try:
        with reporting(_bar(args, "predicting", "rows")):
            proba = np.zeros((X.shape[0], len(getattr(model, "classes_", ()))))
            if X.shape[0] == 0:
                pred = np.zeros(0)
            elif hasattr(model, "set_params"):
                model.set_params(n_jobs=args.threads)
                pred = model.predict(X)
                # None only without -b 1, when proba is not read.
                proba = model.predict_proba(X) if args.probability else None  # type: ignore[assignment]
            else:
                pred = model.predict(X, n_jobs=args.threads)
    except ValueError as e:
        raise SystemExit(f"pegasos-rs predict: {e}") from None
    try:
        with open(args.output_file, "w") as f:
            if args.probability:  # LIBLINEAR's layout: a header, then label p_1 .. p_K
                labels = " ".join(f"{c:{label_format}}" for c in model.classes_.astype(float))
                f.write(f"labels {labels}\n")
                f.writelines(
                    f"{v:{label_format}} " + " ".join(f"{q:g}" for q in p) + "\n"
                    for v, p in zip(np.asarray(pred, dtype=float), proba, strict=True)
                )
            else:
                f.writelines(f"{v:{label_format}}\n" for v in np.asarray(pred, dtype=float))
    except OSError as e:
        raise SystemExit(f"pegasos-rs predict: cannot write {args.output_file}: {e}") from None
    if not args.quiet:
        correct = int(np.sum(pred == y))
        print(f"Accuracy = {100 * correct / max(len(y), 1):g}% ({correct}/{len(y)}){task}")
    return 0


def _linear_width(X, d: int, data_file: str):
    """``X`` with the ``d`` features of a linear model: absent trailing features are
    zeros; features the model never saw are dropped with a warning (LIBLINEAR drops
    them silently)."""
    if X.shape[1] < d:  # trailing features absent from the test file
        X.resize((X.shape[0], d))
    elif X.shape[1] > d:  # features unseen in training have no weight (as LIBLINEAR)
        unseen = X[:, d:].nnz
        print(
            f"pegasos-rs predict: WARNING: {data_file} has {X.shape[1]} features but "
            f"the model was trained on {d}: {unseen} values of features {d + 1}.."
            f"{X.shape[1]} are ignored (as LIBLINEAR does). Is this the model of this data?",
            file=sys.stderr,
        )
        X = X[:, :d]
    return X
