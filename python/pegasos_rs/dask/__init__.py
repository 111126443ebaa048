"""Pegasos on Dask: training where the data lives (the ``[dask]`` extra:
``python3 -m pip install ".[dask]"`` from the clone).

* :class:`PegasosClassifier`: :class:`pegasos_rs.PegasosClassifier` on dask arrays
  and dataframes, with every loss; its default "exact" mode gives the in-memory
  solver's model bit for bit while reading only the rows it draws.
* :class:`PegasosClassifierCV`: :class:`pegasos_rs.PegasosClassifierCV` on the
  cluster, every fold's fits in exact mode, each drawn row fetched once for all
  the candidates of its fold.
* :class:`PegasosRegressor`: :class:`pegasos_rs.PegasosRegressor` on dask
  collections of rows and real targets, with the same two modes.
* :class:`PegasosOneClassSVM`: :class:`pegasos_rs.PegasosOneClassSVM` on dask
  collections of rows, in exact mode.
* :class:`KernelPegasosClassifier`, :class:`KernelPegasosRegressor`: kernel Pegasos
  with a budget of support vectors, in exact mode (the in-memory budgeted model,
  bit for bit; the client holds the budget's points).
* :func:`read_svmlight`: svmlight files as dask arrays, split at line boundaries
  and parsed on the workers; the workers keep the checked, parsed blocks for
  later fits on the same files (:func:`drop_block_cache`, :func:`block_cache_info`,
  :func:`limit_block_cache`).
* :class:`RandomFourierFeatures`, :class:`Nystroem`, :class:`AdditiveKernelMap`:
  the explicit feature maps, transforming dask collections block by block.

With no ``client=`` and no current ``distributed.Client``, a call starts a
``LocalCluster`` of worker processes for its duration. Dask dataframes also need
``dask[dataframe]`` (pandas, pyarrow), which the ``[dask]`` extra does not install;
dask arrays and :func:`read_svmlight` do not.
"""

import importlib
from typing import TYPE_CHECKING, Any

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:
    # The one text of how to install the extra (``pegasos-rs train --dask`` shows it
    # too). pegasos-rs is on no package index: ``pip install "pegasos-rs[dask]"``
    # would find nothing.
    raise ImportError(
        f"pegasos_rs.dask needs dask and distributed ({e}), which the [dask] extra of "
        'pegasos-rs installs: from the clone, python3 -m pip install ".[dask]"; from a '
        'built wheel, python3 -m pip install "dist/pegasos_rs-<version>-<tags>.whl[dask]"'
    ) from e

# The estimators are imported on first use (as ``pegasos_rs``'s are): a worker
# process that runs a fit's tasks imports ``pegasos_rs.dask._blocks``, hence this
# package, and must not pay for the estimators' imports (scikit-learn's estimator
# machinery, dask.array) before the first fit's first task.
if TYPE_CHECKING:
    from pegasos_rs.dask._classifier import PegasosClassifier
    from pegasos_rs.dask._classifier_cv import PegasosClassifierCV
    from pegasos_rs.dask._kept import block_cache_info, drop_block_cache, limit_block_cache
    from pegasos_rs.dask._kernel import KernelPegasosClassifier, KernelPegasosRegressor
    from pegasos_rs.dask._maps import AdditiveKernelMap, Nystroem, RandomFourierFeatures
    from pegasos_rs.dask._one_class import PegasosOneClassSVM
    from pegasos_rs.dask._regressor import PegasosRegressor
    from pegasos_rs.dask._svmlight import read_svmlight

__all__ = [
    "AdditiveKernelMap",
    "KernelPegasosClassifier",
    "KernelPegasosRegressor",
    "Nystroem",
    "PegasosClassifier",
    "PegasosClassifierCV",
    "PegasosOneClassSVM",
    "PegasosRegressor",
    "RandomFourierFeatures",
    "block_cache_info",
    "drop_block_cache",
    "limit_block_cache",
    "read_svmlight",
]

_HOME = {
    "AdditiveKernelMap": "_maps",
    "KernelPegasosClassifier": "_kernel",
    "KernelPegasosRegressor": "_kernel",
    "Nystroem": "_maps",
    "PegasosClassifier": "_classifier",
    "PegasosClassifierCV": "_classifier_cv",
    "PegasosOneClassSVM": "_one_class",
    "PegasosRegressor": "_regressor",
    "RandomFourierFeatures": "_maps",
    "block_cache_info": "_kept",
    "drop_block_cache": "_kept",
    "limit_block_cache": "_kept",
    "read_svmlight": "_svmlight",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups find it without calling __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
