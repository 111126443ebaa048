"""The options of ``pegasos-rs train``: its usage and help, the parser, the
LIBLINEAR-style tokens taken out of ``argv`` before it (``-wLABEL weight``, ``--dask
[SCHEDULER]``, LIBSVM's ``-h 0|1``), and the checks of the values and of the options
that do not go together, each exiting with a one-line message.
"""

from __future__ import annotations

import argparse
import math
import re

from pegasos_rs.cli.liblinear_flags import CRAMMER_SINGER, REFUSED

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
