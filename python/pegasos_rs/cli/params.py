"""The options of ``pegasos-rs train`` as the parameters of the estimator they
describe (what its model file holds), and that estimator when one is built
(cross-validation, ``-b 1``, kernels, ``-C``).
"""

from __future__ import annotations

from pegasos_rs.cli.liblinear_flags import CRAMMER_SINGER


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
