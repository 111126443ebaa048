"""Model files written by LIBLINEAR and LIBSVM, predicting exactly as those
libraries' ``predict`` programs do.

:func:`read_model` reads any model file ``pegasos-rs predict`` accepts and tells
them apart by their first line: pegasos-rs' binary format (:mod:`pegasos_rs.io.model_io`),
LIBLINEAR's text format (first line ``solver_type ...``) or LIBSVM's (first line
``svm_type ...``).

* :class:`LiblinearModel`: LIBLINEAR's linear classifiers (``L2R_LR``,
  ``L2R_L2LOSS_SVC_DUAL``, ``L2R_L2LOSS_SVC``, ``L2R_L1LOSS_SVC_DUAL``, ``MCSVM_CS``,
  ``L1R_L2LOSS_SVC``, ``L1R_LR``, ``L2R_LR_DUAL``: ``train -s 0`` to ``7``) score
  ``w.x + bias w_bias``; two classes predict ``label[0]`` when the first score is
  positive, else ``label[1]``; more classes predict the label of the first largest
  score (labels in the file's order). The logistic regression models (``-s 0``,
  ``6``, ``7``) give LIBLINEAR's probabilities (``predict -b 1``). LIBLINEAR's
  one-class SVM (``ONECLASS_SVM``, ``-s 21``) scores ``w.x - rho`` and predicts
  ``+1`` where it is positive, else ``-1``.
* :class:`LiblinearRegressionModel`: LIBLINEAR's support vector regression models
  (``L2R_L2LOSS_SVR``, ``L2R_L2LOSS_SVR_DUAL``, ``L2R_L1LOSS_SVR_DUAL``: ``train -s
  11``, ``12``, ``13``) predict the value ``w.x + bias w_bias``.
* :class:`LibsvmModel`: LIBSVM's ``c_svc`` and ``nu_svc`` models with the ``linear``,
  ``polynomial``, ``rbf`` or ``sigmoid`` kernel predict through their support
  vectors: every pair of classes ``i < j`` (in the file's label order) has the
  decision value ``sum_{s in i} coef[j-1]_s K(sv_s, x) + sum_{s in j} coef[i]_s
  K(sv_s, x) - rho_p``, a positive value is a vote for ``i``, otherwise for ``j``,
  and the first class with the most votes wins (LIBSVM's ``svm_predict_values``).
* :class:`LibsvmRegressionModel`: LIBSVM's ``epsilon_svr`` and ``nu_svr`` models
  (``svm-train -s 3``, ``-s 4``) with the same kernels predict the value
  ``sum_s coef_s K(sv_s, x) - rho``.
* :class:`LibsvmOneClassModel`: LIBSVM's ``one_class`` models (``svm-train -s 2``)
  score ``sum_s coef_s K(sv_s, x) - rho`` and predict ``+1`` where it is positive,
  else ``-1``.

The kernel values of the LIBSVM models come from the Rust kernels of
:func:`pegasos_rs.pairwise_kernels`, many rows at a time; LIBLINEAR's scores from
the Rust products the estimators use. The values agree with LIBLINEAR's and LIBSVM's
to the last bits (the sums are added in another order), and so do the predicted
labels, except where a score lies within that rounding of a tie.
LIBSVM's precomputed kernels are refused. The regression models have ``predict``
only (no ``decision_function``, ``predict_proba`` or classes).

The LIBLINEAR reader and models are in :mod:`pegasos_rs.io.liblinear_model`, the
LIBSVM ones in :mod:`pegasos_rs.io.libsvm_model`, what both readers share (the header
lines, the labels, the input check) in :mod:`pegasos_rs.io._model_text`; this module
tells the formats apart and names them all.

Feature indices in both formats are 1-based, as in svmlight files: column ``j`` of
``X`` is feature ``j + 1``. LIBSVM's support-vector lines (``c1 ... ck index:value
...``, ``k = nr_class - 1``) are svmlight lines with ``k`` numbers for a label and
are read by the Rust svmlight parser (values correctly rounded, as C's ``strtod``).
Malformed files raise :class:`~pegasos_rs.exceptions.DataFormatError` naming the
file and the line (and, in the support vectors, the column).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io import model_io
from pegasos_rs.io.liblinear_model import (
    LiblinearModel,
    LiblinearRegressionModel,
    read_liblinear,
)
from pegasos_rs.io.libsvm_model import (
    LibsvmModel,
    LibsvmOneClassModel,
    LibsvmRegressionModel,
    read_libsvm,
)

if TYPE_CHECKING:
    from pegasos_rs._typing import PathLike

__all__ = [
    "LiblinearModel",
    "LiblinearRegressionModel",
    "LibsvmModel",
    "LibsvmOneClassModel",
    "LibsvmRegressionModel",
    "read_liblinear",
    "read_libsvm",
    "read_model",
]


def read_model(path: PathLike) -> Any:
    """Read a model file ``pegasos-rs predict`` accepts, whatever wrote it.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by pegasos-rs (``save``), LIBLINEAR's ``train`` or LIBSVM's
        ``svm-train`` (or their Python bindings' ``save_model``).

    Returns
    -------
    model : estimator or a LIBLINEAR or LIBSVM model
        The pegasos-rs estimator for pegasos-rs' files (as :func:`pegasos_rs.load`);
        for LIBLINEAR's files a :class:`LiblinearModel` (classifiers, one-class SVM)
        or a :class:`LiblinearRegressionModel`, for LIBSVM's a :class:`LibsvmModel`
        (classifiers) or a :class:`LibsvmRegressionModel`. Each has ``predict(X)``.

    Raises
    ------
    DataFormatError
        The file is none of these, is damaged or truncated, or holds a model type
        that cannot be evaluated here (the message says which types can); the
        message names the file and the line.
    """
    with open(path, "rb") as f:
        raw = f.read()
    where = os.fspath(path)
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    if raw.startswith(model_io.MAGIC):
        return model_io.load(path)
    first = raw.lstrip()[:32]
    if first.startswith(b"solver_type"):
        return read_liblinear(raw.decode("utf-8", errors="replace"), where)
    if first.startswith(b"svm_type"):
        return read_libsvm(raw.decode("utf-8", errors="replace"), where)
    raise DataFormatError(
        "not a model file pegasos-rs reads: expected a file written by pegasos-rs, a "
        "LIBLINEAR model (first line 'solver_type ...') or a LIBSVM model (first line "
        "'svm_type ...')",
        where,
    )
