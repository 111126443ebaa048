"""What the linear and kernel classifiers share beyond scikit-learn's mixins."""

from __future__ import annotations

import functools
import types
import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _fitted, _linear_solver, _platt
from pegasos_rs._typing import F
from pegasos_rs.io.model_io import save

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import NDArray

    from pegasos_rs._typing import MatrixLike, PathLike


def unchanged_on_error(method: F) -> F:
    """Decorate a method that fits: it records the parameters the model is fitted
    with (:func:`pegasos_rs._fitted.record`: what prediction reads, whatever
    ``set_params`` does later), and when it raises (Ctrl-C and errors of the
    extension included), the estimator is left exactly as it was before the call:
    parameters, fitted attributes, ``n_features_in_`` and the solver state, which
    the extension changes only when a fit succeeds."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            _fitted.record(self)
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return cast("F", wrapper)


def available_if(check: Callable[[Any], Any]) -> Callable[[F], F]:
    """scikit-learn's ``available_if``: the decorated method exists only on instances
    for which ``check`` returns a true value (``hasattr`` is False otherwise, which
    scikit-learn's meta-estimators read). Its ``AttributeError`` also says why and
    what to do: the message of the ``AttributeError`` ``check`` raises follows
    scikit-learn's "This 'X' has no attribute 'm'" (which alone says neither)."""

    def decorate(method: F) -> F:
        return cast("F", _AvailableIf(method, check))

    return decorate


class _AvailableIf:
    """The descriptor of :func:`available_if`."""

    def __init__(self, method: Callable[..., Any], check: Callable[[Any], Any]) -> None:
        self.method = method
        self.check = check
        # The method's name and docstring, for help() and Sphinx.
        functools.update_wrapper(cast("Any", self), method)

    def _check(self, obj: Any, owner: type) -> None:
        missing = f"This {owner.__name__!r} has no attribute {self.method.__name__!r}"
        try:
            available = self.check(obj)
        except Exception as e:
            reason = f": {e}" if isinstance(e, AttributeError) and str(e) else ""
            raise AttributeError(missing + reason) from e
        if not available:
            raise AttributeError(missing)

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        owner = type(obj) if owner is None else owner
        if obj is not None:
            self._check(obj, owner)
            return types.MethodType(self.method, obj)

        # On the class (documentation, monkeypatching): checked when called.
        @functools.wraps(self.method)
        def unbound(*args, **kwargs):
            self._check(args[0], owner)
            return self.method(*args, **kwargs)

        return unbound


#: Losses whose models give probabilities without Platt's sigmoids (as
#: scikit-learn's ``SGDClassifier``): the logistic loss and the modified Huber loss.
PROBABILISTIC_LOSSES = ("log_loss", "modified_huber")


def _has_probability(estimator: Any) -> bool:
    """Whether the fitted model (the parameters of its last fit, not their current
    values) gives probabilities: Platt's, or its loss's; ``AttributeError`` saying why
    not otherwise."""
    if _fitted.fitted_param(estimator, "probability"):
        return True
    if _fitted.fitted_param(estimator, "loss") in PROBABILISTIC_LOSSES:
        refused = estimator._why_no_loss_probabilities()
        if refused is not None:
            raise AttributeError(refused)
        return True
    raise AttributeError(
        "probabilities are fitted only with probability=True (Platt's sigmoids, "
        "fitted by fit on cross-validation folds), and this estimator was fitted with "
        "probability=False. Set probability=True and fit again, train with "
        "loss='log_loss' (linear models) or 'modified_huber', or use "
        "decision_function for scores that rank the classes"
    )


class CachedParamNames:
    """Keep the parameter names of an estimator class once read.

    scikit-learn reads them from ``__init__``'s signature with :mod:`inspect` on
    every ``get_params`` (and so on every parameter validation): a noticeable part
    of a small fit. Put it left of ``BaseEstimator``.
    """

    @classmethod
    def _get_param_names(cls):
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = tuple(super()._get_param_names())
            cls._param_names_cache = names  # on this class, not its subclasses
        return list(names)


class R2Score:
    """The regressors' ``score``: scikit-learn's ``RegressorMixin.score``, documented
    here (its own docstring links a label of scikit-learn's documentation). Put it
    left of ``RegressorMixin``."""

    def score(self, X: MatrixLike, y: Any, sample_weight: Any = None) -> float:
        """R², the coefficient of determination of ``predict(X)`` against ``y``
        (:func:`sklearn.metrics.r2_score`): 1 for a perfect fit, 0 for predicting the
        mean of ``y``, negative for worse.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        return super().score(X, y, sample_weight=sample_weight)  # type: ignore[misc]


class PegasosModelMixin(CachedParamNames):
    """Prediction from ``decision_function``, probabilities (``probability=True``)
    and saving to a model file.

    Put it left of ``ClassifierMixin`` and ``BaseEstimator``.
    """

    if TYPE_CHECKING:  # what the classes using it define
        classes_: NDArray[Any]
        probability: bool
        loss: str
        probA_: NDArray[np.float64]
        probB_: NDArray[np.float64]

        def decision_function(self, X: MatrixLike) -> NDArray[np.float64]: ...

    def _class_scores(self, X: MatrixLike) -> NDArray[np.float64]:
        """A score per class (one for two classes) that ``predict`` and the
        probabilities read: the decision values, unless a class says otherwise."""
        return self.decision_function(X)

    def _why_no_loss_probabilities(self) -> str | None:
        """Why this fitted model's loss gives no probabilities (``None``: it gives
        them), for a class whose scores are not each a problem's decision value."""
        return None

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """Class labels: the sign for two classes, else the largest score."""
        scores = self._class_scores(X)  # first: it checks that the model is fitted
        return _linear_solver.labels_of(self.classes_, scores)

    @available_if(_has_probability)
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """Probabilities of the classes: by Platt scaling (``probability=True``),
        else from the loss (``loss="log_loss"`` or ``"modified_huber"``).

        Platt scaling, two classes: ``p = 1 / (1 + exp(probA_ f + probB_))`` for
        ``classes_[1]``, ``f`` the decision value. More classes: each one-vs-rest
        decision value through its own sigmoid, then normalised to sum to 1, as
        ``CalibratedClassifierCV(method="sigmoid")`` does. As with ``SVC``, the
        class of largest probability can differ from ``predict``'s (the sigmoids
        were fitted on held-out folds, and differ between classes).

        From the loss, as scikit-learn's ``SGDClassifier``: ``log_loss`` gives
        ``1 / (1 + exp(-f))`` (the model is a logistic regression), ``modified_huber``
        ``(clip(f, -1, 1) + 1) / 2``; with more than two classes each one-vs-rest
        value is normalised by their sum (rows where all are 0: uniform).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return self._probabilities(X, log=False)

    @available_if(_has_probability)
    def predict_log_proba(self, X: MatrixLike) -> NDArray[np.float64]:
        """Logarithms of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._probabilities(X, log=True)

    def _probabilities(self, X, *, log: bool) -> NDArray[np.float64]:
        """The probabilities of the classes (their logarithms when ``log``): Platt's,
        or the loss's (see :meth:`predict_proba`)."""
        if not _fitted.fitted_param(self, "probability"):
            check_is_fitted(self)
            loss = _fitted.fitted_param(self, "loss")
            return loss_probabilities(self._class_scores(X), loss, log=log)
        check_is_fitted(
            self,
            ["probA_", "probB_"],
            msg=(
                "This %(name)s has no probabilities yet: call fit with probability=True "
                "before predict_proba."
            ),
        )
        scores = self._class_scores(X)
        if log:
            return _platt.log_proba(scores, self.probA_, self.probB_)
        return _platt.proba(scores, self.probA_, self.probB_)

    def _fit_probability(self, X, y, sample_weight, n_folds, *, pairwise=False):
        """Set (``probability=True``) or remove the fitted sigmoids after a fit on
        validated ``(X, y)``."""
        if not self.probability:
            for attr in ("probA_", "probB_"):
                self.__dict__.pop(attr, None)
            return
        self.probA_, self.probB_ = _platt.fit_calibration(
            self, X, y, sample_weight, self.classes_, n_folds, pairwise=pairwise
        )

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (not
        pickle; see :mod:`pegasos_rs.io.model_io`); read it back with
        :func:`pegasos_rs.load`."""
        save(self, path)


def loss_probabilities(
    scores: NDArray[np.float64], loss: str, *, log: bool = False
) -> NDArray[np.float64]:
    """The class probabilities (their logarithms when ``log``, computed without
    underflow for ``log_loss``) a ``log_loss`` or ``modified_huber`` model gives for
    its decision values ``scores`` (one column for two classes), as scikit-learn's
    ``SGDClassifier.predict_proba``."""
    binary = scores.ndim == 1
    if binary:
        scores = np.column_stack([-scores, scores])
    if loss == "log_loss":
        # ln(1 / (1 + exp(-f))) = -ln(1 + exp(-f)); for two classes 1 - p(f) = p(-f).
        logp = -np.logaddexp(0.0, -scores)
        if not binary:
            logp = logp - np.logaddexp.reduce(logp, axis=1, keepdims=True)
        return logp if log else np.exp(logp)
    p = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
    if not binary:
        total = p.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(total == 0.0, 1.0 / p.shape[1], p / total)
    if log:
        with np.errstate(divide="ignore"):
            return np.log(p)
    return p


def store_linear_fit(estimator, result: dict, *, check_convergence: bool) -> None:
    """Set the fitted attributes of a linear estimator from what
    ``pegasos_rs._core.fit_linear`` returns (see ``_linear_solver.store_fit``).

    With ``check_convergence`` (a ``fit`` with ``tol`` and ``max_iter`` passes), a
    :class:`~sklearn.exceptions.ConvergenceWarning` says which problems ran out of
    passes before ``tol``'s stopping rule was met, as scikit-learn's estimators do.
    """
    warn_unconverged(_linear_solver.store_fit(estimator, result), check_convergence)


def warn_unconverged(message: str | None, check_convergence: bool) -> None:
    """Issue ``message`` (``_linear_solver.store_fit``'s) as a ``ConvergenceWarning``
    when there is one and ``check_convergence``."""
    if check_convergence and message is not None:
        warnings.warn(message, ConvergenceWarning, stacklevel=4)
