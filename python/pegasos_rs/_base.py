"""What the linear and kernel classifiers share beyond scikit-learn's mixins."""

from __future__ import annotations

import functools
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def unchanged_on_error(method):
    """Decorate a method that fits: when it raises (Ctrl-C and errors of the
    extension included), the estimator is left exactly as it was before the call:
    parameters, fitted attributes, ``n_features_in_`` and the solver state, which
    the extension changes only when a fit succeeds."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper


class PegasosModelMixin:
    """Prediction from ``decision_function`` and saving to a model file.

    Put it left of ``ClassifierMixin`` and ``BaseEstimator``.
    """

    def predict(self, X):
        """Class labels: the sign for two classes, else the largest score."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def save(self, path) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (not
        pickle; see :mod:`pegasos_rs.model_io`); read it back with
        :func:`pegasos_rs.load`."""
        from pegasos_rs.model_io import save

        save(self, path)


def store_linear_fit(estimator, result: dict, *, check_convergence: bool) -> None:
    """Set the fitted attributes of a linear estimator from what
    ``pegasos_rs._core.fit_linear`` returns (a dict with ``coef``, ``intercept``,
    ``n_iter``, ``t``, ``objective`` and ``converged`` per binary problem).

    With ``check_convergence`` (a ``fit`` with ``tol`` and ``max_iter`` passes), a
    :class:`~sklearn.exceptions.ConvergenceWarning` says which problems ran out of
    passes before ``tol``'s stopping rule was met, as scikit-learn's estimators do.
    """
    estimator.coef_ = result["coef"]
    estimator.intercept_ = result["intercept"]
    estimator.n_iter_ = max(result["n_iter"])
    estimator.t_ = max(result["t"])
    objective = result["objective"]
    estimator.objective_ = None if objective[0] is None else np.asarray(objective, dtype=float)
    converged = result["converged"]
    if not check_convergence or converged[0] is None or all(converged):
        return
    missed = [i for i, c in enumerate(converged) if not c]
    which = (
        ""
        if len(converged) == 1
        else f" for {len(missed)} of {len(converged)} one-vs-rest problems "
        f"(classes {', '.join(str(estimator.classes_[i]) for i in missed[:5])}"
        f"{', ...' if len(missed) > 5 else ''})"
    )
    warnings.warn(
        f"{type(estimator).__name__}: tol={estimator.tol} was not reached within "
        f"max_iter={estimator.max_iter} passes{which}; increase max_iter or tol to "
        "improve the fit.",
        ConvergenceWarning,
        stacklevel=4,
    )
