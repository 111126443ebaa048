"""``pegasos-rs train`` and ``pegasos-rs predict``, modelled on LIBLINEAR's programs.

    pegasos-rs train [options] data_file [model_file]
    pegasos-rs train --dask [SCHEDULER] [options] data_file... model_file
    pegasos-rs predict [options] data_file model_file output_file

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
import contextlib
import math
import os
import re
import sys
import time
import warnings
from typing import Any, Literal

# Nothing here imports numpy, scipy or scikit-learn when the module is imported:
# --help must answer at once, and the linear path never needs the last two.
from pegasos_rs._counts import counted
from pegasos_rs._progress import ProgressBar, reporting

TRAIN_USAGE = "pegasos-rs train [options] data_file [model_file]"

TRAIN_HELP = """\
LIBLINEAR / LIBSVM options (same meaning as in LIBLINEAR's train and svm-train):
  -s type        without -t, LIBLINEAR's solver type, its objective solved by
                 Pegasos (default 3):
                   0, 7   logistic regression (loss log_loss)
                   1, 2   L2-loss SVM (squared_hinge)
                   3      L1-loss SVM (hinge)
                   4      Crammer-Singer multiclass SVM (multi_class=crammer_singer)
                   11, 12 L2-loss SVR (squared_epsilon_insensitive)
                   13     L1-loss SVR (epsilon_insensitive)
                   21     one-class SVM (PegasosOneClassSVM, -n nu)
                 with -t, LIBSVM's svm type: 0 C-SVC, 2 one-class SVM
                 (KernelPegasosOneClassSVM, -n nu), 3 epsilon-SVR (default 0).
                 Other types are refused, saying why and what to use instead
  -p epsilon     epsilon of the SVR's insensitive tube (-s 11-13, -t k -s 3)
                                                                  (default 0.1)
  -n nu          nu of the one-class SVM (-s 21; -s 2 with -t), in (0, 1]: at
                 most a share nu of the training rows are outliers  (default 0.5)
  -c cost        C; the paper's lambda is 1 / (C * n_samples)
                 (default 1, LIBLINEAR's; -c and --alpha exclude each other)
  -e epsilon     stopping tolerance, with another rule than LIBLINEAR's (which
                 stops when its solver's optimality violation, for -s 3 the dual's
                 maximal violation, is below epsilon; default 0.1): here the
                 primal objective is evaluated after every pass (an extra pass
                 over the data each) and training stops once it has decreased by
                 less than epsilon * objective (relative) for 5 passes in a row
                                             (default: no test, run all --passes)
  -B bias        bias feature of value bias > 0 (a regularised weight); -1 or 0:
                 no bias                                            (default -1)
  -R             with -B 1: do not regularise the bias (the paper's bias)
  -wi weight     weight of class i (e.g. -w1 5 -w-1 0.5); the weight of a label
                 the data lacks is ignored with a warning, as in LIBLINEAR
  -t kernel      0 linear, 1 poly, 2 rbf, 3 sigmoid, or a name: linear, poly, rbf,
                 sigmoid, chi2, intersection                     (default linear)
                 linear (-t 0 too) trains the linear solver, PegasosClassifier;
                 the others the kernel solver, KernelPegasosClassifier
  -g gamma       kernel gamma: a number, scale or auto (rbf, poly, sigmoid, chi2)
                                                                 (default scale)
  -d degree      poly kernel degree                                   (default 3)
  -r coef0       poly/sigmoid constant term                           (default 0)
  -m cachesize   kernel cache size in MB (kernel solver)            (default 200)
                 -g, -d, -r and -m with a kernel that does not use them have no
                 effect: a warning says so (LIBSVM ignores them silently)
  -h 0|1         LIBSVM's shrinking: accepted, no effect (Pegasos has no shrinking)
  -b 0|1         1: also fit probability estimates (Platt scaling on 5 folds, as
                 LIBSVM's -b 1; fit takes about 6 times as long)      (default 0)
  -v n           n-fold cross-validation; prints the accuracy, saves no model
  -C             LIBLINEAR's parameter search: C = c, 2c, 4c, ... up to 1024
                 (2^20 with -s 11) by -v n-fold cross-validation (5 folds
                 without -v), from -c or, without it, from LIBLINEAR's smallest C
                 (from the data); with -s 11 also the SVR's epsilon (-p), 20
                 values from max |y| down to 0 (below -p when given). Prints
                 "Best C = ...  CV accuracy = ...%" (-s 11: "Best C = ... Best p =
                 ...  CV MSE = ..."), the folds pooled, and saves no model, as
                 LIBLINEAR. Every -s of the linear solvers searches (LIBLINEAR:
                 0, 2 and 11); all C values of a fold train at once, on the same
                 drawn rows, and all of them are tried (LIBLINEAR stops early once
                 its models stop changing). With -t (a kernel), C and gamma
                 (LIBSVM's grid.py's search): C = c, 4c, 16c, ... up to 2^8 from
                 -c (without it, from 2^-2), gamma = g/4, g/2, g, 2g, 4g (g from
                 -g; without it, "scale"), every C of a gamma trained on one kernel
                 matrix; prints "Best C = ... Best gamma = ...  CV accuracy =
                 ...%" ("CV MSE" with -s 3). Not with -b 1, --rank or --dask
  -q             quiet: no progress output and no warnings of the fit (warnings
                 about the command line are still shown, as LIBLINEAR's)
Pegasos' own options:
  --rank         learning to rank: the data file's lines carry qid:, and a
                 PegasosRanker is trained on the preference pairs within each
                 query (RankSVM's objective); -s 3 (hinge, default) or -s 0/7
                 (log_loss); -c gives lambda = 1 / (C * n_samples) as for the
                 other models. -v, -b 1, -t, -B, -R, -wi and --dask are refused
  --alpha a      regularisation, the paper's lambda, instead of -c
                                        (default: from -c 1, 1 / n_samples)
  --passes n     passes over the data            (default 20 linear, 10 kernel)
  --max-steps T  run exactly T steps (the paper's T) instead of --passes (linear)
  --batch-size k examples per step (the paper's k)                   (default 1)
  --budget B     with -t (a kernel): at most B support vectors per binary problem
                 (KernelPegasosClassifier/Regressor's budget)
  --budget-maintenance m  how the budget is kept: merge, remove or project
                 (default merge)
  --average 0|1  1: the suffix-averaged iterate, 0: the last iterate (default 1;
                 with --budget 0)
  --projection 0|1  project onto the ball of radius 1/sqrt(alpha) (linear; 1)
  --sampling s   uniform, shuffle or balanced  (default uniform; classifiers of
                 50 classes or more: shuffle, on draws shared by the classes)
  --seed s       random seed                                          (default 0)
  --threads n    threads, -1 for all cores                            (default 1)
  --dask [SCHEDULER]  train on a Dask cluster (linear solvers, -s 0-4, 7, 11-13, 21;
                 kernels, -t with --budget, -s 0 and 3): the files stay on the
                 workers; a local cluster when no scheduler address is given
  --mode exact|parallel   with --dask: the in-memory iterates (default), or
                 parameter mixing (many passes over data that does not fit)
  --help         this text
Refused, with what to use instead: -n but with the one-class SVM (threads are
--threads), -t 4 (precomputed kernels: the Python API takes them), -s 5 and 6
(L1 regularisation), and LIBSVM's -s 1 and 4 (nu-SVC, nu-SVR). The one-class
SVM (-s 21, or -t k -s 2) takes no -v, -C, -b 1, -wi or --rank (nor --dask with
a kernel), and ignores -c.
"""

#: LIBLINEAR / LIBSVM letters whose meaning pegasos-rs does not offer: the message.
REFUSED: dict[str, str] = {}

#: LIBSVM's kernel numbers.
KERNEL_NUMBERS = {"0": "linear", "1": "poly", "2": "rbf", "3": "sigmoid"}

#: The kernels of -t (linear trains the linear solver, the others the kernel solver).
KERNELS = ("linear", "poly", "rbf", "sigmoid", "chi2", "intersection")

#: LIBLINEAR's solver types (train -s) Pegasos solves: (estimator, loss). 0 and 7
#: (primal, dual) solve the same objective, as do 1 and 2, and 11 and 12.
LIBLINEAR_SOLVERS = {
    0: ("classifier", "log_loss"),
    7: ("classifier", "log_loss"),
    1: ("classifier", "squared_hinge"),
    2: ("classifier", "squared_hinge"),
    3: ("classifier", "hinge"),
    11: ("regressor", "squared_epsilon_insensitive"),
    12: ("regressor", "squared_epsilon_insensitive"),
    13: ("regressor", "epsilon_insensitive"),
    4: ("classifier", "hinge"),
    21: ("one_class", "hinge"),
}

#: LIBLINEAR's solver type of the Crammer-Singer multiclass SVM
#: (``multi_class="crammer_singer"``).
CRAMMER_SINGER = 4

#: LIBLINEAR's other solver types: what they are and why they are refused.
LIBLINEAR_REFUSED = {
    5: "L1-regularised: Pegasos' step is the sub-gradient step of the L2-regularised "
    "objective (its shrink by 1 - 1/t is the L2 term's); use -s 2 (L2-regularised "
    "L2-loss SVM)",
    6: "L1-regularised: Pegasos' step is the sub-gradient step of the L2-regularised "
    "objective (its shrink by 1 - 1/t is the L2 term's); use -s 0 (L2-regularised "
    "logistic regression)",
}

#: LIBSVM's svm types (svm-train -s) with -t: (estimator, loss) of those the kernel
#: solver trains.
LIBSVM_SOLVERS = {
    0: ("classifier", "hinge"),
    2: ("one_class", "hinge"),
    3: ("regressor", "epsilon_insensitive"),
}

#: LIBSVM's other svm types.
LIBSVM_TYPES = {
    1: "nu-SVC (nu is not available; C-SVC with -c is: -s 0)",
    4: "nu-SVR (nu is not available; epsilon-SVR with -c and -p is: -s 3)",
}

#: Options the kernel solver reads, each with its attribute and the kernels that
#: use it (linear trains the linear solver, which reads none of them).
KERNEL_OPTIONS = {
    "-g": ("gamma", ("poly", "rbf", "sigmoid", "chi2")),
    "-d": ("degree", ("poly",)),
    "-r": ("coef0", ("poly", "sigmoid")),
    "-m": ("cache", ("poly", "rbf", "sigmoid", "chi2", "intersection")),
}

#: Defaults of the options whose default depends on others (None: not given).
DEFAULTS = {"gamma": "scale", "degree": 3, "coef0": 0.0, "cache": 200.0, "projection": 1}

#: ``--passes``, ``--max-steps`` and ``--seed`` within the ranges the estimators
#: accept (``_parameter_constraints`` of ``max_iter``, ``max_steps``,
#: ``random_state``; tests check they agree), checked here because the linear
#: path builds no estimator; ``--batch-size`` within the solver's (a 64-bit count).
MAX_PASSES = 2**32 - 1
MAX_STEPS = 2**63 - 1
MAX_SEED = 2**32 - 1


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
        usage=TRAIN_USAGE,
        description="Train a Pegasos SVM on an svmlight/libsvm file.",
        epilog=TRAIN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    hide = argparse.SUPPRESS  # the options are documented once, in TRAIN_HELP
    # None: not given (defaults that depend on other options are set later).
    p.add_argument("--help", action="help", help=hide)
    p.add_argument("-s", type=int, dest="solver", help=hide)
    p.add_argument("-c", type=float, dest="C", help=hide)
    p.add_argument("-e", type=float, dest="tol", help=hide)
    p.add_argument("-p", type=float, dest="epsilon", help=hide)
    p.add_argument("-n", type=float, dest="nu", help=hide)
    p.add_argument("-B", type=float, dest="bias", default=-1.0, help=hide)
    p.add_argument("-R", action="store_true", dest="unregularized_bias", help=hide)
    p.add_argument("-t", dest="kernel", help=hide)
    p.add_argument("-g", dest="gamma", help=hide)
    p.add_argument("-d", type=int, dest="degree", help=hide)
    p.add_argument("-r", type=float, dest="coef0", help=hide)
    p.add_argument("-m", type=float, dest="cache", help=hide)
    p.add_argument("-b", type=int, dest="probability", choices=[0, 1], default=0, help=hide)
    p.add_argument("-v", type=int, dest="folds", help=hide)
    p.add_argument("-C", action="store_true", dest="search", help=hide)
    p.add_argument("-q", action="store_true", dest="quiet", help=hide)
    p.add_argument("--rank", action="store_true", help=hide)
    p.add_argument("--alpha", type=float, help=hide)
    p.add_argument("--passes", type=int, help=hide)
    p.add_argument("--max-steps", type=int, dest="max_steps", help=hide)
    p.add_argument("--batch-size", type=int, dest="batch", default=1, help=hide)
    p.add_argument("--average", type=int, choices=[0, 1], help=hide)
    p.add_argument("--projection", type=int, choices=[0, 1], help=hide)
    p.add_argument(
        "--sampling", choices=["uniform", "shuffle", "balanced"], default=None, help=hide
    )
    p.add_argument("--seed", type=int, default=0, help=hide)
    p.add_argument("--threads", type=int, default=1, help=hide)
    p.add_argument("--mode", choices=["exact", "parallel"], default="exact", help=hide)
    p.add_argument("--budget", type=int, help=hide)
    p.add_argument(
        "--budget-maintenance",
        choices=["merge", "remove", "project"],
        dest="budget_maintenance",
        default="merge",
        help=hide,
    )
    p.add_argument("files", nargs="*", help=hide)
    return p


def _usage() -> str:
    """What ``train`` without a data file prints (and exits with status 1), as
    LIBLINEAR's ``train`` prints its usage and options."""
    return f"Usage: {TRAIN_USAGE}\n{TRAIN_HELP}"


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


def _check_values(args) -> None:
    """Each numeric option within its valid range, or exit naming it."""
    finite = math.isfinite
    for name, value, ok, valid in [
        (
            "--passes",
            args.passes,
            args.passes is None or 1 <= args.passes <= MAX_PASSES,
            f"an integer in [1, {MAX_PASSES}]",
        ),
        (
            "--batch-size",
            args.batch,
            1 <= args.batch <= MAX_STEPS,
            f"an integer in [1, {MAX_STEPS}]",
        ),
        ("-v n", args.folds, args.folds is None or args.folds >= 2, "an integer >= 2"),
        ("-c cost", args.C, args.C is None or (args.C > 0 and finite(args.C)), "a number > 0"),
        (
            "--alpha",
            args.alpha,
            args.alpha is None or (args.alpha > 0 and finite(args.alpha)),
            "a number > 0",
        ),
        (
            "-e epsilon",
            args.tol,
            args.tol is None or (args.tol > 0 and finite(args.tol)),
            "a number > 0",
        ),
        ("-B bias", args.bias, finite(args.bias), "a number (-1: no bias)"),
        (
            "--max-steps T",
            args.max_steps,
            args.max_steps is None or 1 <= args.max_steps <= MAX_STEPS,
            f"an integer in [1, {MAX_STEPS}]",
        ),
        ("--seed", args.seed, 0 <= args.seed <= MAX_SEED, f"an integer in [0, {MAX_SEED}]"),
        ("--budget", args.budget, args.budget is None or args.budget >= 2, "an integer >= 2"),
        (
            "-p epsilon",
            args.epsilon,
            args.epsilon is None or (args.epsilon >= 0 and finite(args.epsilon)),
            "a number >= 0",
        ),
    ]:
        if not ok:
            raise SystemExit(f"pegasos-rs train: invalid {name} {value}: expected {valid}")
    if args.C is not None and args.alpha is not None:
        raise SystemExit(
            "pegasos-rs train: -c and --alpha set the same thing (lambda = 1 / (C * "
            "n_samples)): give one of them"
        )


def _check_liblinear_choices(args) -> None:
    """``-s``, ``-t``, ``-b`` and ``-R`` as LIBLINEAR and LIBSVM define them; warn
    about kernel options the chosen kernel does not use, then set their defaults."""
    kernel_given = args.kernel is not None
    if args.kernel == "4":
        raise SystemExit(
            "pegasos-rs train: -t 4 (precomputed kernel) is not available from the "
            "command line; KernelPegasosClassifier(kernel='precomputed') takes one"
        )
    kernel = KERNEL_NUMBERS.get(args.kernel, args.kernel) if kernel_given else "linear"
    if kernel not in KERNELS:
        raise SystemExit(
            f"pegasos-rs train: invalid -t {args.kernel}: expected 0-3 or one of "
            + ", ".join(KERNELS)
        )
    args.task, args.loss = _solver_type(args.solver, kernel_given)
    args.kernel = kernel
    # How the messages name the one-class SVM's type: LIBLINEAR's or LIBSVM's.
    args.one_class_type = "-s 2" if kernel_given else "-s 21"
    _check_nu(args)
    if args.task == "regressor":
        _check_regression_options(args)
    elif args.epsilon is not None:
        print(
            f"pegasos-rs train: WARNING: -p {args.epsilon:g} has no effect with -s "
            f"{args.solver if args.solver is not None else (0 if kernel_given else 3)}, "
            + ("a classifier" if args.task == "classifier" else "the one-class SVM")
            + " (it is the SVR's epsilon); ignored",
            file=sys.stderr,
        )
    args.epsilon_given = args.epsilon is not None
    if args.epsilon is None:
        args.epsilon = 0.1
    if args.unregularized_bias and args.kernel == "linear" and args.bias <= 0:
        raise SystemExit("pegasos-rs train: -R needs -B 1, as in LIBLINEAR")
    unused = [
        (flag, getattr(args, attr))
        for flag, (attr, kernels) in KERNEL_OPTIONS.items()
        if getattr(args, attr) is not None and kernel not in kernels
    ]
    if args.projection is not None and kernel != "linear":
        unused.append(("--projection", args.projection))
    for flag, value in unused:
        what = (
            "the linear kernel, which trains the linear solver (PegasosClassifier)"
            if kernel == "linear"
            else f"the {kernel} kernel"
            if flag != "--projection"
            else "a kernel (the kernel solver does not project)"
        )
        print(
            f"pegasos-rs train: WARNING: {flag} {value} has no effect with {what}; "
            "ignored (LIBSVM ignores such options silently)",
            file=sys.stderr,
        )
    for attr, default in DEFAULTS.items():
        if getattr(args, attr) is None:
            setattr(args, attr, default)


def _check_nu(args) -> None:
    """``-n`` only with the one-class SVM (``-s 21``, or LIBSVM's ``-s 2`` with
    ``-t``), in (0, 1]; its default 0.5.
    ``-c`` / ``--alpha`` have no effect there (``nu`` regularises): a warning."""
    one_class = args.task == "one_class"
    if args.nu is not None and not one_class:
        raise SystemExit(
            "pegasos-rs train: -n is nu of the one-class SVM (-s 21, or -s 2 with -t); "
            "nu-SVC and "
            "nu-SVR are not available, and threads are --threads"
        )
    if not one_class:
        return
    if args.nu is None:
        args.nu = 0.5
    if args.bias > 0:
        print(
            f"pegasos-rs train: WARNING: -B {args.bias:g} has no effect with "
            f"{args.one_class_type}: the "
            "one-class SVM learns its offset rho (unregularised); ignored",
            file=sys.stderr,
        )
    if not (0.0 < args.nu <= 1.0):
        raise SystemExit(f"pegasos-rs train: invalid -n {args.nu:g}: expected nu in (0, 1]")
    for flag, value in (("-c", args.C), ("--alpha", args.alpha)):
        if value is not None:
            print(
                f"pegasos-rs train: WARNING: {flag} {value:g} has no effect with "
                f"{args.one_class_type}, "
                "the one-class SVM (nu, -n, sets its regularisation); ignored",
                file=sys.stderr,
            )


def _solver_type(solver: int | None, kernel_given: bool) -> tuple[str, str]:
    """``-s`` of LIBLINEAR (without ``-t``) or of LIBSVM (with ``-t``) as the
    estimator (``"classifier"`` or ``"regressor"``) and loss that solve its
    objective; exits saying why for the objectives Pegasos does not solve."""
    if kernel_given:
        solver = 0 if solver is None else solver
        if solver in LIBSVM_SOLVERS:
            return LIBSVM_SOLVERS[solver]
        what = LIBSVM_TYPES.get(solver, "not a LIBSVM svm type")
        raise SystemExit(
            f"pegasos-rs train: with -t, -s is LIBSVM's svm type, and -s {solver} is "
            f"{what}; the kernel solver trains C-SVC (-s 0, the default with -t), the "
            "one-class SVM (-s 2) and epsilon-SVR (-s 3)"
        )
    solver = 3 if solver is None else solver
    if solver in LIBLINEAR_SOLVERS:
        return LIBLINEAR_SOLVERS[solver]
    if solver not in LIBLINEAR_REFUSED:
        raise SystemExit(
            f"pegasos-rs train: -s {solver} is not a LIBLINEAR solver type; Pegasos "
            "solves 0-4, 7 (classification), 11-13 (regression) and 21 (one-class SVM)"
        )
    raise SystemExit(f"pegasos-rs train: -s {solver} is LIBLINEAR's {LIBLINEAR_REFUSED[solver]}")


def _check_regression_options(args) -> None:
    """Exit for the options of classifiers given to a regression (``-wi`` is
    checked by ``train``, which holds the weights)."""
    for flag, given in [
        ("-b 1", args.probability),
        ("--sampling balanced", args.sampling == "balanced"),
    ]:
        if given:
            raise SystemExit(
                f"pegasos-rs train: {flag} is for classifiers; -s {args.solver} trains a regression"
            )


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


def _alpha(args, n_samples: int) -> float:
    """``--alpha``, or lambda = 1 / (C n_samples) with ``-c`` (default 1, LIBLINEAR's)."""
    if args.alpha is not None:
        return args.alpha
    return 1.0 / ((1.0 if args.C is None else args.C) * n_samples)


def _linear_params(args, n_samples: int, class_weight) -> dict:
    """Every parameter of the ``PegasosClassifier`` the options describe (what its
    model file holds)."""
    return {
        "loss": args.loss,
        **_common_linear_params(args, n_samples),
        "class_weight": class_weight or None,
        "probability": bool(args.probability),
        # The estimator's defaults: "auto" (one-vs-rest; many classes on shared,
        # shuffled draws), as its model file says.
        "multi_class": "crammer_singer" if args.solver == CRAMMER_SINGER else "auto",
        "sampling": args.sampling or "auto",
    }


def _regressor_params(args, n_samples: int) -> dict:
    """Every parameter of the ``PegasosRegressor`` the options describe."""
    return {"loss": args.loss, "epsilon": args.epsilon, **_common_linear_params(args, n_samples)}


def _common_linear_params(args, n_samples: int) -> dict:
    """The parameters the linear classifier and regressor share."""
    bias = args.bias
    return {
        "alpha": _alpha(args, n_samples),
        "max_iter": args.passes or 20,
        "max_steps": args.max_steps,
        "batch_size": args.batch,
        "projection": bool(args.projection),
        "fit_intercept": bias > 0,
        "intercept_scaling": None if args.unregularized_bias else (bias if bias > 0 else 1.0),
        "average": True if args.average is None else bool(args.average),
        "sampling": args.sampling or "uniform",
        "tol": args.tol,
        "n_iter_no_change": 5,
        "early_stopping": False,
        "validation_fraction": 0.1,
        "warm_start": False,
        "random_state": args.seed,
        "n_jobs": args.threads,
        "verbose": 0,
    }


def _estimator(args, n_samples: int, class_weight):
    """The scikit-learn estimator the options describe (cross-validation, ``-b 1``,
    kernels)."""
    if args.kernel == "linear" and args.task == "regressor":
        from pegasos_rs.linear_regressor import PegasosRegressor

        return PegasosRegressor(**_regressor_params(args, n_samples))
    if args.task == "one_class" and args.kernel != "linear":
        return _kernel_one_class(args)
    if args.task == "one_class":
        from pegasos_rs.one_class import PegasosOneClassSVM

        return PegasosOneClassSVM(**_one_class_params(args))
    if args.kernel == "linear":
        from pegasos_rs.linear import PegasosClassifier

        return PegasosClassifier(**_linear_params(args, n_samples, class_weight))
    from pegasos_rs.kernel import KernelPegasosClassifier

    params = _kernel_params(args, n_samples)
    if args.task == "regressor":
        from pegasos_rs import KernelPegasosRegressor

        return KernelPegasosRegressor(loss=args.loss, epsilon=args.epsilon, **params)
    return KernelPegasosClassifier(
        **params, class_weight=class_weight or None, probability=bool(args.probability)
    )


def _kernel_params(args, n_samples: int) -> dict:
    """The parameters kernel Pegasos' classifier and regressor share (``-t``)."""
    gamma = _gamma(args)
    if args.bias > 0 and not args.unregularized_bias:
        raise SystemExit(
            "pegasos-rs train: kernels learn only the paper's unregularised bias: "
            "-R (or no bias, the default)"
        )
    if args.max_steps is not None:
        raise SystemExit("pegasos-rs train: --max-steps is for linear models")
    return {
        "alpha": _alpha(args, n_samples),
        "kernel": args.kernel,
        "gamma": gamma,
        "degree": args.degree,
        "coef0": args.coef0,
        "max_iter": args.passes or 10,
        "batch_size": args.batch,
        "fit_intercept": bool(args.unregularized_bias),
        "average": "auto" if args.average is None else bool(args.average),
        "sampling": args.sampling or "uniform",
        "cache_size": args.cache,
        "random_state": args.seed,
        "n_jobs": args.threads,
        "verbose": 0,
        "budget": args.budget,
        "budget_maintenance": args.budget_maintenance,
    }


def _one_class_params(args) -> dict:
    """The parameters of the linear one-class SVM (``-s 21``; ``-s 2 -t 0``)."""
    return {
        "nu": args.nu,
        "max_iter": args.passes or 20,
        "max_steps": args.max_steps,
        "batch_size": args.batch,
        "projection": bool(args.projection),
        "average": True if args.average is None else bool(args.average),
        "sampling": args.sampling or "uniform",
        "tol": args.tol,
        "random_state": args.seed,
        "n_jobs": args.threads,
    }


def _gamma(args):
    """``-g``: a number, ``scale`` or ``auto``."""
    if args.gamma in ("scale", "auto"):
        return args.gamma
    try:
        return float(args.gamma)
    except ValueError:
        raise SystemExit(
            f"pegasos-rs train: invalid -g {args.gamma}: expected a number, scale or auto"
        ) from None


def _kernel_one_class(args):
    """``-t k -s 2``: LIBSVM's one-class SVM, a KernelPegasosOneClassSVM."""
    from pegasos_rs.kernel_one_class import KernelPegasosOneClassSVM

    if args.max_steps is not None:
        raise SystemExit("pegasos-rs train: --max-steps is for linear models")
    return KernelPegasosOneClassSVM(
        nu=args.nu,
        kernel=args.kernel,
        gamma=_gamma(args),
        degree=args.degree,
        coef0=args.coef0,
        max_iter=args.passes or 10,
        batch_size=args.batch,
        average="auto" if args.average is None else bool(args.average),
        sampling=args.sampling or "uniform",
        cache_size=args.cache,
        budget=args.budget,
        budget_maintenance=args.budget_maintenance,
        random_state=args.seed,
        n_jobs=args.threads,
    )


def _weights_of_present_labels(class_weight: dict, y) -> dict:
    """The ``-wi`` weights of labels ``y`` has; each other one is dropped with a
    warning, as LIBLINEAR's ``train`` warns and goes on (also with ``-q``)."""
    if not class_weight:
        return class_weight
    import numpy as np

    labels = [float(v) for v in np.unique(np.asarray(y))]
    for label in [c for c in class_weight if c not in labels]:
        shown = ", ".join(f"{v:g}" for v in labels[:10]) + (", ..." if len(labels) > 10 else "")
        print(
            f"pegasos-rs train: WARNING: class label {label:g} of -w{label:g} is not in "
            f"the data (its labels: {shown}); its weight is ignored",
            file=sys.stderr,
        )
        del class_weight[label]
    return class_weight


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


def _check_budget(args) -> None:
    """Exit saying why, for what ``--budget`` cannot go with."""
    for why, given in (
        ("needs a kernel (-t; the linear solver has no support vectors)", args.kernel == "linear"),
        ("does not go with -C (the searches share kernel matrices)", bool(args.search)),
    ):
        if given:
            raise SystemExit(f"pegasos-rs train: --budget {why}")


def _check_one_class(args, class_weight, on_dask: bool) -> None:
    """Exit saying why, for an option the one-class SVM (``-s 21``; ``-s 2`` with
    ``-t``) cannot take: it
    learns from the rows alone, so nothing scores it against classes."""
    for flag, given in (
        ("-v (cross-validation scores classes, which it does not learn)", bool(args.folds)),
        ("-C (its search has no classes to score)", bool(args.search)),
        ("-b 1 (it has no class probabilities)", bool(args.probability)),
        ("-wi (it has no classes)", bool(class_weight)),
        (
            "--dask with a kernel (the Dask one-class SVM is linear)",
            on_dask and args.kernel != "linear",
        ),
        ("--rank", bool(args.rank)),
        ("--sampling balanced (it has one class)", args.sampling == "balanced"),
    ):
        if given:
            raise SystemExit(
                f"pegasos-rs train: {args.one_class_type} (the one-class SVM) takes no {flag}"
            )


def _read(args, data_file: str, *, as_arrays: bool):
    """The data file as a CSR matrix and labels, or (``as_arrays``) as
    ``svmlight.read_svmlight_arrays`` gives it (no scipy); exits with a one-line
    message when it cannot be read."""
    from pegasos_rs.io import svmlight

    try:
        with reporting(_bar(args, f"reading {os.path.basename(data_file)}", "B")):
            if as_arrays:
                return svmlight.read_svmlight_arrays(data_file, n_jobs=args.threads)
            return svmlight.load_svmlight_file(data_file, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None


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


def _check_search(args, on_dask: bool) -> None:
    """Exit saying why, for an option ``-C`` cannot be combined with."""
    for refused, why in [
        (bool(args.probability), "-b 1 (the search writes no model)"),
        (bool(args.rank), "--rank"),
        (on_dask, "--dask"),
        (args.alpha is not None, "--alpha (the search is over C; -c is its start)"),
        (args.solver == CRAMMER_SINGER, "-s 4 (the Crammer-Singer solver)"),
    ]:
        if refused:
            raise SystemExit(f"pegasos-rs train: -C cannot be combined with {why}")


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


def _rows(n_rows: int, n_features: int) -> str:
    """``"300 examples x 10 features"``, as the summary lines of ``train`` say it."""
    return f"{counted(n_rows, 'example')} x {counted(n_features, 'feature')}"


def task_of(model) -> str:
    """What a trained model predicts, as the summary lines say it: ``"3 classes"``,
    ``"one class (novelty detection)"`` or ``"regression"``."""
    if hasattr(model, "classes_"):
        return counted(len(model.classes_), "class")
    if hasattr(model, "offset_"):
        return "one class (novelty detection)"
    return "regression"


def _report(args, name: str, n_rows: int, n_features: int, model, started, model_file) -> None:
    """The line ``train`` ends with on stderr (none with ``-q``)."""
    if not args.quiet:
        print(
            f"trained {name} on {_rows(n_rows, n_features)}, "
            f"{task_of(model)}, {counted(model.n_iter_, 'pass')} in "
            f"{time.perf_counter() - started:.2f}s; model written to {model_file}",
            file=sys.stderr,
        )


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


def _save(write, model_file) -> None:
    """``write(model_file)``, or exit with a one-line message naming the file."""
    try:
        write(model_file)
    except OSError as e:
        raise SystemExit(f"pegasos-rs train: cannot write the model to {model_file}: {e}") from None


def _train_on_dask(args, scheduler: str | None, class_weight) -> int:
    """``train --dask``: read the files on the cluster and train there."""
    files = args.files
    if len(files) < 2:
        raise SystemExit("pegasos-rs train: --dask needs data files and a model file")
    *data_files, model_file = files
    if args.folds:
        raise SystemExit("pegasos-rs train: --dask does not cross-validate (-v)")
    if args.kernel != "linear" and args.budget is None:
        raise SystemExit(
            "pegasos-rs train: --dask with a kernel (-t) needs --budget B: without one the "
            "support vectors grow with the data, and so do the steps and the model (or use "
            "a feature map and a linear model)"
        )
    if args.kernel != "linear" and args.mode != "exact":
        raise SystemExit("pegasos-rs train: --dask with a kernel trains in exact mode only")
    try:
        import pegasos_rs.dask as pdask
        from pegasos_rs.dask import _cluster, _svmlight
    except ImportError as e:  # its message names the extra to install, and how
        raise SystemExit(f"pegasos-rs train: --dask: {e}") from None
    import distributed  # present: pegasos_rs.dask needs it

    show = not args.quiet and sys.stderr.isatty()
    started = time.perf_counter()
    client = None
    bar = None
    try:
        if scheduler is not None:
            client = distributed.Client(scheduler)
        data_files = _svmlight._paths(data_files)  # globs expanded, as read
        with _cluster.cluster(client) as on:
            if show:
                print(
                    f"reading {counted(len(data_files), 'file')} on {on.scheduler.address} ...",
                    file=sys.stderr,
                )
            with on.as_current():
                X, y = pdask.read_svmlight(data_files)
                if class_weight:  # the labels' distinct values, computed on the cluster
                    import dask.array as da

                    class_weight = _weights_of_present_labels(class_weight, da.unique(y).compute())
            est: Any
            cls: Any
            if args.kernel != "linear":
                kernel = _kernel_params(args, int(X.shape[0]))
                if args.task == "regressor":
                    params = {**kernel, "loss": args.loss, "epsilon": args.epsilon}
                    cls = pdask.KernelPegasosRegressor
                else:
                    params = {**kernel, "class_weight": class_weight or None}
                    cls = pdask.KernelPegasosClassifier
            elif args.task == "regressor":
                params = _regressor_params(args, int(X.shape[0]))
                cls = pdask.PegasosRegressor
            elif args.task == "one_class":
                params = _one_class_params(args)
                cls = pdask.PegasosOneClassSVM
            else:
                params = _linear_params(args, int(X.shape[0]), class_weight)
                cls = pdask.PegasosClassifier
            # The in-memory estimators' own parameters (early stopping) stay out.
            params = {k: v for k, v in params.items() if k in cls._get_param_names()}
            if args.kernel == "linear":
                params["mode"] = args.mode
            est = cls(**params, client=on)
            bar = _bar(args, "training", "steps")
            progress = None if bar is None else _dask_progress(bar)
            if isinstance(est, pdask.PegasosOneClassSVM):
                est.fit(X, callback=progress)  # the one-class SVM reads no labels
            else:
                est.fit(X, y, callback=progress)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    _save(est.save, model_file)
    if not args.quiet:
        print(
            f"trained {type(est).__name__} ({getattr(est, 'mode', 'exact')}) on "
            f"{_rows(int(X.shape[0]), int(X.shape[1]))} from {counted(len(data_files), 'file')}, "
            f"{task_of(est)}, {counted(est.t_, 'step')} "
            f"in {time.perf_counter() - started:.2f}s; model written to {model_file}",
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


def _regression_measures(pred, target) -> tuple[float, float]:
    """LIBLINEAR's (and LIBSVM's) mean squared error and squared correlation
    coefficient of ``pred`` against ``target``, computed as their ``predict``
    programs do: running sums in the order of the rows (``cumsum``, not numpy's
    pairwise ``sum``), then their formulas; no rows or constant values give NaN or
    infinity, as in C."""
    import numpy as np

    def running(v):
        return np.cumsum(v)[-1] if v.size else np.float64(0.0)

    t = np.asarray(target, dtype=np.float64)
    total = np.float64(t.size)
    error = running((pred - t) * (pred - t))
    sump, sumt = running(pred), running(t)
    sumpp, sumtt, sumpt = running(pred * pred), running(t * t), running(pred * t)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mse = error / total
        num = total * sumpt - sump * sumt
        r2 = (num * num) / ((total * sumpp - sump * sump) * (total * sumtt - sumt * sumt))
    return float(mse), float(r2)


def _c_g(x: float) -> str:
    """``x`` as C's ``printf("%g")`` writes it (glibc): also ``-nan``, which
    Python writes ``nan``."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:g}"


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
