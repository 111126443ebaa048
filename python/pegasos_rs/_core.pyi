"""Type stubs of the compiled extension ``pegasos_rs._core``."""

from typing import Any, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "STATE_VERSION",
    "LinearSolverState",
    "StreamedBudgetFit",
    "StreamedLinearFit",
    "__version__",
    "additive_features",
    "additive_map_info",
    "check_matrix",
    "class_counts",
    "cv_linear",
    "decision_function",
    "decision_function_rows",
    "finish_gram",
    "first_step_sums",
    "first_steps",
    "fit_kernel",
    "fit_kernel_budget",
    "fit_kernel_budget_regression",
    "fit_kernel_regression",
    "fit_linear",
    "fit_linear_regression",
    "fit_ranking",
    "format_svmlight",
    "fourier_features",
    "fourier_sample",
    "index_svmlight",
    "kernel_decision",
    "local_pass",
    "loss_sums",
    "mean_zero_losses",
    "moments",
    "nystroem_features",
    "nystroem_fit",
    "nystroem_uniform_landmarks",
    "one_class_offset",
    "one_class_sq_norm",
    "pairwise_kernel",
    "panic_in_worker",
    "parse_svmlight",
    "platt_fit",
    "platt_proba",
    "raw_gram",
    "starts_late",
    "variance_of",
    "zero_loss_sums",
]
__version__: str
STATE_VERSION: int

_Dense = NDArray[np.float64] | NDArray[np.float32]
#: A loss: ``{"name": <scikit-learn's loss name>, "epsilon": float}``.
_Loss = dict[str, Any]
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
    def iterates(
        self,
    ) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], list[int]]: ...
    def set_iterates(
        self, v: NDArray[np.float64], bias: NDArray[np.float64], t: list[int], seed: int
    ) -> None: ...

# Keys: coef, intercept, n_iter, t, objective, converged.
_FitReturn = dict[str, Any]
# Keys: kernel_name, gamma, degree, coef0.
_KernelSpec = dict[str, Any]
# Keys: n_classes, class_weight, sample_weight (real targets: sample_weight only).
_LabelWeights = dict[str, Any]
#: Class codes (classification) or real targets (regression).
_Targets = NDArray[np.uint32] | NDArray[np.float64]

# params["multi_class"]: "ovr" (default), "ovr_shared" or "crammer_singer" (one coef
# row and one output per class, also for two classes; the solver then holds
# n_classes + 1 states, a header first).
def fit_linear(
    x: _Dense | _Csr,
    codes: NDArray[np.uint32],
    labels: _LabelWeights,
    solver: LinearSolverState,
    params: dict[str, Any],
    n_threads: int,
    n_held_out: int = 0,
) -> _FitReturn: ...
def cv_linear(
    x: _Dense | _Csr,
    codes: NDArray[np.uint32] | None,
    targets: NDArray[np.float64] | None,
    n_classes: int,
    sample_weight: NDArray[np.float64] | None,
    folds: list[tuple[NDArray[np.intp], NDArray[np.intp]]],
    class_weight: NDArray[np.float64],
    alphas: NDArray[np.float64],
    params: dict[str, Any],
    halving: float | None,
    n_threads: int,
) -> list[tuple[NDArray[np.float64], list[int], list[float] | None]]: ...
def fit_linear_regression(
    x: _Dense | _Csr,
    targets: NDArray[np.float64],
    sample_weight: NDArray[np.float64] | None,
    solver: LinearSolverState,
    params: dict[str, Any],
    n_held_out: int = 0,
) -> _FitReturn: ...
def fit_ranking(
    x: _Dense | _Csr,
    y: NDArray[np.float64],
    qid: NDArray[np.int64] | None,
    solver: LinearSolverState,
    params: dict[str, Any],
) -> _FitReturn: ...

@final
class StreamedLinearFit:
    """A linear fit whose rows live elsewhere: draws, steps on supplied rows, passes."""

    def __new__(
        cls,
        solver: LinearSolverState,
        params: dict[str, Any],
        n_rows: int,
        n_features: int,
        labels: dict[str, Any],
        n_threads: int,
    ) -> StreamedLinearFit: ...
    @property
    def n_problems(self) -> int: ...
    @property
    def wants_objective(self) -> bool: ...
    def next_pass(self) -> list[int]: ...
    def draw(self, counts: list[int]) -> list[NDArray[np.int64]]: ...
    def run(
        self,
        x: _Dense | _Csr,
        y: _Targets,
        sample_weight: NDArray[np.float64] | None,
        drawn: list[NDArray[np.int64]],
    ) -> None: ...
    def models(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
    def one_class_sample(self) -> NDArray[np.int64]: ...
    def one_class_reset(
        self, x: _Dense | _Csr, sample_weight: NDArray[np.float64] | None
    ) -> None: ...
    def end_pass(
        self, loss_sums: list[float] | None, one_class_rho: float | None = None
    ) -> list[str]: ...
    def finish(self, solver: LinearSolverState) -> _FitReturn: ...

@final
class StreamedBudgetFit:
    """A budgeted kernel fit whose rows live elsewhere: draws, steps on supplied
    rows (with their training rows), passes."""

    def __new__(
        cls,
        params: dict[str, Any],
        n_rows: int,
        n_features: int,
        class_weight: list[float] | NDArray[np.float64] | None,
        budget: int,
        maintenance: str,
        n_threads: int,
    ) -> StreamedBudgetFit: ...
    @property
    def n_problems(self) -> int: ...
    def next_pass(self) -> list[int]: ...
    def draw(self, counts: list[int]) -> list[NDArray[np.int64]]: ...
    def run(
        self,
        x: _Dense | _Csr,
        y: _Targets,
        sample_weight: NDArray[np.float64] | None,
        drawn: list[NDArray[np.int64]],
        keys: list[NDArray[np.int64]],
    ) -> None: ...
    def end_pass(self) -> list[str]: ...
    def finish(self) -> dict[str, Any]: ...

def zero_loss_sums(
    y: _Targets,
    labels: _LabelWeights,
    acc: list[float],
    loss: _Loss = ...,
    joint: bool = ...,
) -> list[float]: ...
def loss_sums(
    x: _Dense | _Csr,
    y: _Targets,
    labels: _LabelWeights,
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
    acc: list[float],
    loss: _Loss = ...,
    joint: bool = ...,
) -> list[float]: ...
def first_step_sums(
    x: _Dense | _Csr,
    y: _Targets,
    labels: _LabelWeights,
    params: dict[str, Any],
    acc: list[tuple[float, float, float, float]],
) -> list[tuple[float, float, float, float]]: ...
def starts_late(loss: _Loss) -> bool: ...
def first_steps(
    params: dict[str, Any], sums: list[tuple[float, float, float, float]]
) -> list[int]: ...
def mean_zero_losses(
    loss: _Loss, n_rows: int, n_problems: int, zero_loss_sums: list[float] | None
) -> list[float]: ...
def check_matrix(x: _Dense | _Csr) -> None: ...
def one_class_sq_norm(x: _Dense | _Csr, sample_weight: NDArray[np.float64] | None) -> float: ...
def local_pass(
    x: _Dense | _Csr,
    y: _Targets,
    labels: _LabelWeights,
    params: dict[str, Any],
    start: dict[str, Any],
    seed: int,
    n_threads: int,
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    tuple[NDArray[np.float64], NDArray[np.float64]] | None,
]: ...
def class_counts(codes: NDArray[np.uint32], n_classes: int) -> NDArray[np.uint64]: ...
def decision_function(
    x: _Dense | _Csr,
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
    n_threads: int,
) -> NDArray[np.float64]: ...
def decision_function_rows(
    x: _Dense | _Csr,
    ids: NDArray[np.int64],
    coef_t: NDArray[np.float64],
    intercept: NDArray[np.float64],
    n_threads: int,
) -> NDArray[np.float64]: ...
def fit_kernel(
    x: _Dense | _Csr,
    codes: NDArray[np.uint32],
    labels: _LabelWeights,
    params: dict[str, Any],
    n_threads: int,
    n_held_out: int = 0,
) -> dict[str, Any]: ...
def fit_kernel_regression(
    x: _Dense | _Csr,
    targets: NDArray[np.float64],
    sample_weight: NDArray[np.float64] | None,
    params: dict[str, Any],
    n_threads: int,
    n_held_out: int = 0,
) -> dict[str, Any]: ...
def fit_kernel_budget(
    x: _Dense | _Csr,
    codes: NDArray[np.uint32],
    labels: _LabelWeights,
    params: dict[str, Any],
    n_threads: int,
    budget: int,
    maintenance: str,
) -> dict[str, Any]: ...
def fit_kernel_budget_regression(
    x: _Dense | _Csr,
    targets: NDArray[np.float64],
    sample_weight: NDArray[np.float64] | None,
    params: dict[str, Any],
    budget: int,
    maintenance: str,
) -> dict[str, Any]: ...
def kernel_decision(
    sv: _Dense | _Csr,
    x: _Dense | _Csr,
    dual_coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
    *,
    kernel: _KernelSpec,
    n_threads: int,
) -> NDArray[np.float64]: ...
def pairwise_kernel(
    x: _Dense | _Csr,
    y: _Dense | _Csr,
    *,
    kernel: _KernelSpec,
    n_threads: int,
) -> NDArray[np.float64]: ...
def raw_gram(
    x: _Dense | _Csr,
    *,
    kernel: _KernelSpec,
    n_threads: int,
) -> NDArray[np.float64]: ...
def finish_gram(
    x: _Dense | _Csr,
    raw: NDArray[np.float64],
    *,
    kernel: _KernelSpec,
    n_threads: int,
) -> NDArray[np.float64]: ...
def parse_svmlight(
    text: bytes,
    *,
    dtype: str,
    one_based: bool,
    query_id: bool,
    n_threads: int,
    leading: int | None = None,
) -> tuple[
    NDArray[np.float64] | NDArray[np.float32],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],  # (n_rows,) labels; (n_rows, leading) numbers with leading=k
    NDArray[np.int64],
    int | None,
    int | None,
]: ...
def format_svmlight(
    x: _Dense | _Csr,
    labels: NDArray[np.float64],
    query_id: NDArray[np.int64] | None,
    *,
    one_based: bool,
    n_threads: int,
) -> bytes: ...
def fourier_sample(
    n_features: int, n_components: int, gamma: float, form: str, seed: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def fourier_features(
    x: _Dense | _Csr,
    weights: _Dense,
    offsets: _Dense,
    n_components: int,
    form: str,
    n_threads: int,
) -> _Dense: ...
def nystroem_fit(
    x: _Dense | _Csr,
    *,
    kernel: _KernelSpec,
    n_components: int,
    landmarks: str,
    seed: int,
    n_threads: int,
) -> tuple[NDArray[np.int64], NDArray[np.float64], int]: ...
def nystroem_features(
    x: _Dense | _Csr,
    components: _Dense | _Csr | None,
    columns: _Dense,
    landmarks: NDArray[np.int64],
    *,
    kernel: _KernelSpec,
    n_threads: int,
) -> _Dense: ...
def additive_map_info(
    kernel_name: str, order: int, period: float | None
) -> tuple[float, float]: ...
def additive_features(
    x: _Dense | _Csr, kernel_name: str, order: int, period: float | None, n_threads: int
) -> (
    _Dense
    | tuple[_Dense, NDArray[np.int32], NDArray[np.int32]]
    | tuple[_Dense, NDArray[np.int64], NDArray[np.int64]]
): ...
def nystroem_uniform_landmarks(n: int, m: int, seed: int) -> NDArray[np.int64]: ...
def platt_fit(
    decision: NDArray[np.float64],
    positive: NDArray[np.bool_],
    sample_weight: NDArray[np.float64] | None,
    tol: float,
    max_iter: int | None = None,
) -> tuple[float, float, int, str, tuple[float, float]]: ...
def platt_proba(
    decision: NDArray[np.float64],
    prob_a: NDArray[np.float64],
    prob_b: NDArray[np.float64],
    *,
    log: bool,
) -> NDArray[np.float64]: ...
def moments(x: _Dense | _Csr, n_threads: int) -> tuple[int, float, float]: ...
def variance_of(parts: list[tuple[int, float, float]]) -> float: ...
def one_class_offset(
    scores: NDArray[np.float64], sample_weight: NDArray[np.float64] | None, nu: float
) -> float: ...
def index_svmlight(
    text: NDArray[np.uint8], base: int
) -> tuple[NDArray[np.uint64], NDArray[np.float64]]: ...
def panic_in_worker(message: str, *, n_threads: int) -> None:
    """Test hook: panic with ``message`` on a pool worker thread (raises RuntimeError)."""
