"""Type aliases of the public API, and typed views of scikit-learn's decorators.

The aliases exist for type checkers only (modules import them under
``if TYPE_CHECKING:``), so they cost nothing at run time and may name things that
older supported versions of numpy or scipy lack. ``fit_context`` is scikit-learn's
own decorator at run time (imported when first asked for, so that importing ``F``
imports no scikit-learn); a type checker sees it as keeping the decorated method's
signature (scikit-learn has no type information, so it would otherwise see every
decorated method as ``Any``). (``available_if`` is ``pegasos_rs._base``'s.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

#: A decorated function or method (decorators that keep its signature).
F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence
    from typing import IO, Literal, TypeAlias

    import numpy as np
    import scipy.sparse as sp
    from numpy.typing import ArrayLike, DTypeLike, NDArray

    #: A dense array-like (lists, numpy arrays, dataframes) or a scipy sparse
    #: matrix or array.
    MatrixLike: TypeAlias = ArrayLike | sp.spmatrix | sp.sparray
    #: What ``fit``, ``predict`` and ``transform`` return for a sparse input or a
    #: dense one.
    Matrix: TypeAlias = NDArray[np.floating[Any]] | sp.csr_matrix
    Int: TypeAlias = int | np.integer[Any]
    Float: TypeAlias = float | np.floating[Any]
    #: A seed, a generator, or None (fresh entropy).
    RandomStateLike: TypeAlias = Int | np.random.RandomState | None
    #: A file name.
    PathLike: TypeAlias = str | os.PathLike[str]
    #: An svmlight file: a file name, an open file descriptor or a binary file.
    FileLike: TypeAlias = PathLike | int | IO[bytes]
    KernelName: TypeAlias = Literal[
        "linear", "rbf", "poly", "sigmoid", "chi2", "intersection", "precomputed"
    ]
    #: The kernels of :func:`pegasos_rs.pairwise_kernels`.
    PairwiseMetric: TypeAlias = Literal[
        "linear", "rbf", "poly", "polynomial", "sigmoid", "chi2", "intersection"
    ]
    AdditiveKernelName: TypeAlias = Literal["chi2", "intersection", "js"]
    #: A sampling scheme, or the row indices to visit, in order.
    Sampling: TypeAlias = (
        Literal["uniform", "shuffle", "balanced"] | Sequence[Int] | NDArray[np.integer[Any]]
    )
    ClassWeight: TypeAlias = Mapping[Any, float] | Literal["balanced"] | None
    #: The float dtypes the svmlight readers and the feature maps produce.
    FloatDType: TypeAlias = DTypeLike

    def fit_context(*, prefer_skip_nested_validation: bool) -> Callable[[F], F]: ...

else:

    def __getattr__(name: str) -> Any:
        # Imported on first use (PEP 562): modules that need only F, such as
        # _progress, which the command line and the extension import, must not
        # import scikit-learn.
        if name == "fit_context":
            from sklearn.base import _fit_context

            return _fit_context
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["F", "fit_context"]
