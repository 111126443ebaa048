"""The extension's string-valued parameters are enums in Rust, converted where the
value enters the binding (``rust/python/src/params.rs``, ``choice!``): a wrong value
fails there, with one message naming the parameter and its values. The estimators
check their parameters first (``_parameter_constraints``), so only direct callers of
``pegasos_rs._core`` see these messages."""

import numpy as np
import pytest
from pegasos_rs import _core

X = np.array([[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.1]])
CODES = np.array([1, 0, 1, 0], dtype=np.uint32)
TARGETS = np.array([1.0, -1.0, 0.5, -0.5])
LABELS = {"n_classes": 2, "class_weight": np.ones(2), "sample_weight": None}

AVERAGE = ("off", "suffix", "from", "weighted")
SAMPLING = ("uniform", "shuffle", "balanced", "order")
LINEAR_MULTI_CLASS = ("ovr", "ovr_shared", "crammer_singer")
KERNEL_MULTI_CLASS = ("ovr", "ovo")
STRATEGY = ("auto", "support", "margins")
KERNELS = ("linear", "rbf", "poly", "sigmoid", "chi2", "intersection", "precomputed")
LOSSES = (
    "hinge",
    "log_loss",
    "squared_hinge",
    "modified_huber",
    "epsilon_insensitive",
    "squared_epsilon_insensitive",
    "squared_error",
    "huber",
)


def _solver(**changes):
    params = {
        "alpha": 0.1,
        "batch_size": 1,
        "projection": False,
        "fit_intercept": True,
        "intercept_scaling": None,
        "average": "off",
        "average_start": 1,
        "sampling_name": "uniform",
        "order": None,
        "max_iter": 2,
        "max_steps": None,
        "tol": None,
        "n_iter_no_change": 1,
        "seed": 0,
        "verbose": False,
    }
    params.update(changes)
    return params


def _kernel_spec(**changes):
    return {"kernel_name": "rbf", "gamma": 1.0, "degree": 3, "coef0": 0.0, **changes}


def _kernel(solver=None, kernel=None, **changes):
    params = {
        "kernel": kernel or _kernel_spec(),
        "solver": solver or _solver(),
        "cache_size": 10.0,
        "strategy_name": "auto",
    }
    params.update(changes)
    return params


def _fit_linear(params):
    return _core.fit_linear(X, CODES, LABELS, _core.LinearSolverState(), params, 1)


def _fit_kernel(params):
    return _core.fit_kernel(X, CODES, LABELS, params, 1)


def _expected(parameter, values, got):
    listed = ", ".join(f"'{v}'" for v in values[:-1]) + f" or '{values[-1]}'"
    return f"{parameter} must be {listed}, got {got!r}"


# (what is called with the bad value, the parameter named, its values)
CASES = {
    "linear average": (lambda v: _fit_linear(_solver(average=v)), "average", AVERAGE),
    "linear sampling_name": (
        lambda v: _fit_linear(_solver(sampling_name=v)),
        "sampling_name",
        SAMPLING,
    ),
    "linear multi_class": (
        lambda v: _fit_linear(_solver(multi_class=v)),
        "multi_class",
        LINEAR_MULTI_CLASS,
    ),
    "linear loss": (
        lambda v: _fit_linear(_solver(loss={"name": v, "epsilon": 0.1})),
        "loss",
        LOSSES,
    ),
    "regression loss": (
        lambda v: _core.fit_linear_regression(
            X, TARGETS, None, _core.LinearSolverState(), _solver(loss={"name": v})
        ),
        "loss",
        LOSSES,
    ),
    "starts_late loss": (lambda v: _core.starts_late({"name": v}), "loss", LOSSES),
    "kernel kernel_name": (
        lambda v: _fit_kernel(_kernel(kernel=_kernel_spec(kernel_name=v))),
        "kernel_name",
        KERNELS,
    ),
    "kernel strategy_name": (
        lambda v: _fit_kernel(_kernel(strategy_name=v)),
        "strategy_name",
        STRATEGY,
    ),
    "kernel multi_class": (
        lambda v: _fit_kernel(_kernel(multi_class=v)),
        "multi_class",
        KERNEL_MULTI_CLASS,
    ),
    "kernel solver average": (
        lambda v: _fit_kernel(_kernel(solver=_solver(average=v))),
        "average",
        AVERAGE,
    ),
    "kernel regression strategy_name": (
        lambda v: _core.fit_kernel_regression(X, TARGETS, None, _kernel(strategy_name=v), 1),
        "strategy_name",
        STRATEGY,
    ),
    "fourier form": (
        lambda v: _core.fourier_sample(2, 4, 1.0, v, 0),
        "form",
        ("sincos", "offset"),
    ),
    "nystroem landmarks": (
        lambda v: _core.nystroem_fit(
            X, kernel=_kernel_spec(), n_components=2, landmarks=v, seed=0, n_threads=1
        ),
        "landmarks",
        ("uniform", "k-means++", "all"),
    ),
    "nystroem kernel_name": (
        lambda v: _core.nystroem_fit(
            X,
            kernel=_kernel_spec(kernel_name=v),
            n_components=2,
            landmarks="uniform",
            seed=0,
            n_threads=1,
        ),
        "kernel_name",
        KERNELS,
    ),
    "additive kernel_name": (
        lambda v: _core.additive_map_info(v, 2, None),
        "kernel_name",
        ("chi2", "intersection", "js"),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_string_names_the_parameter_and_its_values(case):
    call, parameter, values = CASES[case]
    with pytest.raises(ValueError) as caught:
        call("x")
    assert str(caught.value) == _expected(parameter, values, "x")


@pytest.mark.parametrize("case", CASES)
def test_a_value_that_is_not_a_string_is_a_type_error_with_the_same_message(case):
    call, parameter, values = CASES[case]
    with pytest.raises(TypeError) as caught:
        call(3)
    assert str(caught.value) == _expected(parameter, values, 3)


def test_the_valid_dicts_of_these_tests_fit():
    # So the failures above come from the one bad value, not from the rest.
    _fit_linear(_solver())
    _fit_linear(_solver(multi_class="crammer_singer", average="weighted"))
    _fit_linear(_solver(multi_class=None, loss={"name": "log_loss"}))
    _fit_kernel(_kernel())
    _fit_kernel(_kernel(multi_class="ovo", strategy_name="margins"))
    assert _core.starts_late({"name": "squared_hinge"})
    assert _core.fourier_sample(2, 4, 1.0, "offset", 0)[0].shape == (2, 4)
    _core.additive_map_info("js", 2, None)


def test_sampling_order_and_the_visiting_order_go_together():
    with pytest.raises(ValueError, match="sampling_name 'order' needs the visiting order"):
        _fit_linear(_solver(sampling_name="order"))
    order = np.array([0, 1, 2, 3], dtype=np.int64)
    with pytest.raises(ValueError, match="order is the visiting order of sampling_name 'order'"):
        _fit_linear(_solver(sampling_name="uniform", order=order))
    _fit_linear(_solver(sampling_name="order", order=order))


def test_other_wrong_or_missing_fields_are_reported_as_before():
    with pytest.raises(TypeError, match=r"failed to extract field SolverParams\.alpha"):
        _fit_linear(_solver(alpha="big"))
    params = _solver()
    del params["seed"]
    with pytest.raises(KeyError, match="seed"):
        _fit_linear(params)
