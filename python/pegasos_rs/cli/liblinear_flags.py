"""``-s``, ``-t`` and the kernel options of ``pegasos-rs train`` as LIBLINEAR's
``train`` and LIBSVM's ``svm-train`` define them: which solver types and svm types
Pegasos trains (and with which estimator and loss), which it refuses and why, and
the kernel options' defaults, with the checks that apply them.
"""

from __future__ import annotations

import sys

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
