"""Pegasos on Dask: training where the data lives (``pip install "pegasos-rs[dask]"``).

* :class:`PegasosClassifier`: :class:`pegasos_rs.PegasosClassifier` on dask arrays
  and dataframes; its default "exact" mode gives the in-memory solver's model bit
  for bit while reading only the rows it draws.
* :func:`read_svmlight`: svmlight files as dask arrays, split at line boundaries
  and parsed on the workers.
* :class:`RandomFourierFeatures`, :class:`Nystroem`, :class:`AdditiveKernelMap`:
  the explicit feature maps, transforming dask collections block by block.

With no ``client=`` and no current ``distributed.Client``, a call starts a
``LocalCluster`` of worker processes for its duration. Dask dataframes also need
``dask[dataframe]`` (pandas, pyarrow), which the ``[dask]`` extra does not install;
dask arrays and :func:`read_svmlight` do not.
"""

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "pegasos_rs.dask needs dask and distributed: pip install 'pegasos-rs[dask]'"
    ) from e

from pegasos_rs.dask._classifier import PegasosClassifier
from pegasos_rs.dask._maps import AdditiveKernelMap, Nystroem, RandomFourierFeatures
from pegasos_rs.dask._svmlight import read_svmlight

__all__ = [
    "AdditiveKernelMap",
    "Nystroem",
    "PegasosClassifier",
    "RandomFourierFeatures",
    "read_svmlight",
]
