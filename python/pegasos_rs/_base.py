"""What the linear and kernel classifiers share beyond scikit-learn's mixins."""

from __future__ import annotations

import functools

import numpy as np


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
