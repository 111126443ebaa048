"""Type stubs of the compiled extension ``pegasos_rs._core``."""

from typing import final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "STATE_VERSION",
    "LinearSolverState",
    "__version__",
    "decision_function",
    "fit_linear",
]
__version__: str
STATE_VERSION: int

_Dense = NDArray[np.float64] | NDArray[np.float32]
_Csr = tuple[
    NDArray[np.float64] | NDArray[np.float32],
    NDArray[np.int32] | NDArray[np.int64],
    NDArray[np.int32] | NDArray[np.int64],
    int,
    int,
]

@final
class LinearSolverState:
    """Complete solver state of a linear model, one entry per binary problem."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

def fit_linear(
    x: _Dense | _Csr,
    codes: NDArray[np.uint32],
    n_classes: int,
    class_weight: NDArray[np.float64],
    sample_weight: NDArray[np.float64] | None,
    solver: LinearSolverState,
    *,
    alpha: float,
    batch_size: int,
    projection: bool,
    fit_intercept: bool,
    intercept_scaling: float | None,
    average: str,
    average_start: int,
    sampling_name: str,
    order: NDArray[np.int64] | None,
    max_iter: int,
    tol: float | None,
    n_iter_no_change: int,
    seed: int,
    verbose: bool,
    n_threads: int,
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    list[int],
    list[int],
    list[float | None],
]: ...
def decision_function(
    x: _Dense | _Csr,
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
    n_threads: int,
) -> NDArray[np.float64]: ...
