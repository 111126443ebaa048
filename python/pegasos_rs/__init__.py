"""pegasos-rs: Pegasos SVM solvers written in Rust, with a scikit-learn API.

Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter: "Pegasos: Primal Estimated
sub-GrAdient SOlver for SVM") minimises ``alpha/2 ||w||^2 + 1/m sum_i hinge_i``
by stochastic sub-gradient steps of size ``1/(alpha t)``.
"""

# Registers LIBLINEAR's model files with load (model_io imports no other format).
import pegasos_rs.foreign_models  # noqa: F401
from pegasos_rs import exceptions
from pegasos_rs._core import __version__
from pegasos_rs.exceptions import DataFormatError, PegasosError
from pegasos_rs.kernel import KernelPegasosClassifier
from pegasos_rs.kernel_approximation import AdditiveKernelMap, Nystroem, RandomFourierFeatures
from pegasos_rs.linear import PegasosClassifier
from pegasos_rs.model_io import load, save
from pegasos_rs.pairwise import pairwise_kernel, pairwise_kernels
from pegasos_rs.svmlight import dump_svmlight_file, load_svmlight_file, load_svmlight_files

__all__ = [
    "AdditiveKernelMap",
    "DataFormatError",
    "KernelPegasosClassifier",
    "Nystroem",
    "PegasosClassifier",
    "PegasosError",
    "RandomFourierFeatures",
    "__version__",
    "dump_svmlight_file",
    "exceptions",
    "load",
    "load_svmlight_file",
    "load_svmlight_files",
    "pairwise_kernel",
    "pairwise_kernels",
    "save",
]
