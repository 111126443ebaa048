"""Converter of the cross-validated searches (:class:`~pegasos_rs.PegasosClassifierCV`,
:class:`~pegasos_rs.PegasosRegressorCV`, :class:`~pegasos_rs.KernelPegasosClassifierCV`,
:class:`~pegasos_rs.KernelPegasosRegressorCV`): the graph of a search is its refit
model's (``best_estimator_``), made by the parser, shape calculator and converter
skl2onnx has registered for that model's class, whatever it is.

As skl2onnx does for its ``GridSearchCV``, the parser parses the refit model (its
outputs; a classifier's ZipMap) and then hands the operator to the search, whose
converter calls the refit model's converter: skl2onnx gives the options a converter
reads in its container, which only a converter can reach. The refit model is
converted with the options given for the search (by its ``id`` or class, or a
pipeline's ``zipmap``), updated by those given for the refit model itself (by its
``id`` or class).
"""

from __future__ import annotations

from typing import Any

from pegasos_rs.onnx._common import check_fitted, refuse


def refit_model(search: Any) -> Any:
    """The refit model of a fitted search: ``NotFittedError`` (a ``ValueError``)
    naming the class for an unfitted search, ``ValueError`` for a search fitted with
    ``refit=False`` (it keeps the scores but no model)."""
    check_fitted(search, ["cv_results_"])
    refit = getattr(search, "best_estimator_", None)
    if refit is None:
        refuse(
            search,
            "it was fitted with refit=False, so it keeps the scores (cv_results_, "
            "best_params_) but no model, and its graph is its refit model's: fit it "
            "with refit=True",
        )
    return refit


def check_search(search: Any) -> None:
    """Refuse a search without a refit model (:func:`refit_model`)."""
    refit_model(search)


def _alias(model: Any) -> str:
    from skl2onnx import get_model_alias

    return get_model_alias(type(model))


def _refit_options(get_options: Any, search: Any, refit: Any) -> dict[str, Any]:
    """The options of the refit model: the search's, updated by the refit model's
    own (``get_options`` is the scope's or the container's; each checks the options
    against those its model's converter declares)."""
    return get_options(refit, dict(get_options(search)))


def parse_search(scope: Any, search: Any, inputs: list, custom_parsers: Any = None) -> list:
    """skl2onnx parser of a search: the refit model's parser, with the search's
    options; its operator then belongs to the search."""
    from skl2onnx._parse import _parse_sklearn

    refit = refit_model(search)  # the parser runs before the shape calculator's check
    scope.add_options(id(refit), _refit_options(scope.get_options, search, refit))
    outputs = _parse_sklearn(scope, refit, inputs, custom_parsers=custom_parsers)
    scope.replace_raw_operator(refit, search, _alias(search))
    return outputs


def search_shape(operator: Any) -> None:
    """skl2onnx's shape calculator of a search: the refit model's, on the search's
    inputs and outputs."""
    from skl2onnx.common._registration import get_shape_calculator

    refit = refit_model(operator.raw_operator)
    alias = _alias(refit)
    get_shape_calculator(alias)(operator.new_raw_operator(refit, alias))


def convert_search(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of a search: the refit model's converter, writing the
    search's outputs, with the search's options."""
    from skl2onnx.common._registration import get_converter

    search = operator.raw_operator
    refit = refit_model(search)
    container.add_options(id(refit), _refit_options(container.get_options, search, refit))
    alias = _alias(refit)
    get_converter(alias)(scope, operator.new_raw_operator(refit, alias), container)


__all__ = ["check_search", "convert_search", "parse_search", "refit_model", "search_shape"]
