"""The parameters a model was fitted with.

scikit-learn's ``set_params`` may change a parameter of a fitted model at any time;
the model stays what ``fit`` made of the parameters it had then, until the next fit.
Every fit records them (:func:`pegasos_rs._base.unchanged_on_error` calls
:func:`record`), and every method that reads a fitted model (prediction, the
probabilities, ``transform``, saving, the ONNX converters) reads a parameter through
:func:`fitted_param`, never from the estimator's current value.
"""

from __future__ import annotations

from typing import Any

#: The attribute holding the parameters of the last fit (a dict; absent before it).
ATTRIBUTE = "_fit_params"


def record(estimator: Any) -> None:
    """Keep ``estimator``'s current parameters as those of the fit under way."""
    setattr(estimator, ATTRIBUTE, dict(estimator.get_params(deep=False)))


def fit_params(estimator: Any) -> dict[str, Any]:
    """The parameters ``estimator`` was last fitted with (its current parameters
    before any fit, and for models pickled by versions that did not record them)."""
    params = estimator.__dict__.get(ATTRIBUTE)
    return dict(estimator.get_params(deep=False)) if params is None else dict(params)


def fitted_param(estimator: Any, name: str) -> Any:
    """The value of parameter ``name`` ``estimator`` was last fitted with (its
    current value before any fit)."""
    params = estimator.__dict__.get(ATTRIBUTE)
    if params is None or name not in params:
        return getattr(estimator, name)
    return params[name]
