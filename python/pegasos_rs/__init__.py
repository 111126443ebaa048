"""pegasos-rs: Pegasos SVM solvers written in Rust, with a scikit-learn API.

Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter: "Pegasos: Primal Estimated
sub-GrAdient SOlver for SVM") minimises ``alpha/2 ||w||^2 + 1/m sum_i hinge_i``
by stochastic sub-gradient steps of size ``1/(alpha t)``.

The public names are imported when first used (PEP 562), so that ``import
pegasos_rs`` and the ``pegasos-rs`` command start in milliseconds instead of
importing scikit-learn; ``from pegasos_rs import PegasosClassifier`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pegasos_rs import exceptions
    from pegasos_rs._core import __version__
    from pegasos_rs.exceptions import DataFormatError, PegasosError
    from pegasos_rs.io.liblinear_format import write_liblinear_model
    from pegasos_rs.io.model_io import load, save
    from pegasos_rs.io.svmlight import dump_svmlight_file, load_svmlight_file, load_svmlight_files
    from pegasos_rs.kernel import KernelPegasosClassifier
    from pegasos_rs.kernel_approximation import (
        AdditiveKernelMap,
        Nystroem,
        RandomFourierFeatures,
    )
    from pegasos_rs.kernel_cv import KernelPegasosClassifierCV, KernelPegasosRegressorCV
    from pegasos_rs.kernel_one_class import KernelPegasosOneClassSVM
    from pegasos_rs.kernel_regressor import KernelPegasosRegressor
    from pegasos_rs.linear import PegasosClassifier
    from pegasos_rs.linear_cv import PegasosClassifierCV, PegasosRegressorCV
    from pegasos_rs.linear_regressor import PegasosRegressor
    from pegasos_rs.one_class import PegasosOneClassSVM
    from pegasos_rs.onnx import to_onnx
    from pegasos_rs.pairwise import pairwise_kernels
    from pegasos_rs.ranker import PegasosRanker

__all__ = [
    "AdditiveKernelMap",
    "DataFormatError",
    "KernelPegasosClassifier",
    "KernelPegasosClassifierCV",
    "KernelPegasosOneClassSVM",
    "KernelPegasosRegressor",
    "KernelPegasosRegressorCV",
    "Nystroem",
    "PegasosClassifier",
    "PegasosClassifierCV",
    "PegasosError",
    "PegasosOneClassSVM",
    "PegasosRanker",
    "PegasosRegressor",
    "PegasosRegressorCV",
    "RandomFourierFeatures",
    "__version__",
    "dump_svmlight_file",
    "exceptions",
    "load",
    "load_svmlight_file",
    "load_svmlight_files",
    "pairwise_kernels",
    "save",
    "to_onnx",
    "write_liblinear_model",
]

#: The module each public name comes from (``exceptions`` is a module itself).
_HOME = {
    "AdditiveKernelMap": "kernel_approximation",
    "DataFormatError": "exceptions",
    "KernelPegasosClassifier": "kernel",
    "KernelPegasosClassifierCV": "kernel_cv",
    "KernelPegasosOneClassSVM": "kernel_one_class",
    "KernelPegasosRegressor": "kernel_regressor",
    "KernelPegasosRegressorCV": "kernel_cv",
    "Nystroem": "kernel_approximation",
    "PegasosClassifier": "linear",
    "PegasosClassifierCV": "linear_cv",
    "PegasosError": "exceptions",
    "PegasosRanker": "ranker",
    "PegasosOneClassSVM": "one_class",
    "PegasosRegressor": "linear_regressor",
    "PegasosRegressorCV": "linear_cv",
    "RandomFourierFeatures": "kernel_approximation",
    "__version__": "_core",
    "dump_svmlight_file": "io.svmlight",
    "exceptions": "exceptions",
    "load": "io.model_io",
    "load_svmlight_file": "io.svmlight",
    "load_svmlight_files": "io.svmlight",
    "pairwise_kernels": "pairwise",
    "save": "io.model_io",
    "to_onnx": "onnx",
    "write_liblinear_model": "io.liblinear_format",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{home}")
    value = module if name == home else getattr(module, name)
    globals()[name] = value  # later lookups find it without calling __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
