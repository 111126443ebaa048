//! # pegasos-core
//!
//! Pure Rust core of pegasos-rs: the Pegasos solver for linear SVMs
//! (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated sub-GrAdient
//! `SOlver` for SVM", Mathematical Programming 127, 2011), generic over the data's
//! float type ([`Float`]) and over dense or CSR row access ([`Rows`]).
//!
//! The update rule and its O(nnz) implementation are documented in
//! [`solvers::linear`]; the reproducibility guarantee of the generator in [`rng`].
//! This crate knows nothing of Python: the binding crate converts arrays and maps
//! [`Error`] to exceptions.
//!
//! # Layers
//! Each module uses only its own layer and the layers listed before it; nothing
//! imports from a layer above (tests included). `solvers` and `maps` share a level
//! and do not use each other. `tests/layering.rs` checks this on the sources.
//!
//! 1. Shared ground, flat at the root: `float` (the sealed element and index types),
//!    [`error`], `math` (portable elementary functions), [`rng`], `monitor`
//!    (cancellation and progress), [`parallel`] (thread pools, one task per problem,
//!    row blocks), [`thresholds`] (when a call is small); and, private, `simd`
//!    (the AVX2 build of hot loops), `prefetch` (cache hints) and `huge_pages`
//!    (transparent huge pages for large buffers).
//! 2. [`data`]: row views (dense, CSR), the moments of all entries, a binary task,
//!    one-vs-rest labels.
//! 3. [`kernels`]: kernel functions, the kernel row cache, the Gram matrix.
//! 4. [`solvers`]: hyper-parameters, sampling, linear and kernel Pegasos, one-vs-rest,
//!    Platt's sigmoids;
//!    and, beside them, [`maps`]: the explicit feature maps (Fourier, Nyström,
//!    additive) and their matrix products.
//! 5. [`io`]: the svmlight text format and the solver-state codec.
//!
//! The items most callers need are re-exported here. A Rust program trains and
//! predicts through [`LinearSvm`] (see [`solvers::linear_svm`] for an example, and
//! `examples/train_svmlight.rs` for a whole program: an svmlight file read with
//! [`io::svmlight::parse`], trained and scored):
//!
//! ```
//! # use pegasos_core::{DenseRows, LinearSvm};
//! let x = [0.0, 1.0, 1.0, 0.0, 0.1, 0.9, 0.9, 0.1];
//! let rows = DenseRows::new(&x, 4, 2)?;
//! let model = LinearSvm::params().alpha(0.1).max_iter(50).fit(&rows, &[1, 0, 1, 0])?;
//! assert_eq!(model.predict(&rows)?, [1, 0, 1, 0]);
//! # Ok::<(), pegasos_core::Error>(())
//! ```

pub(crate) mod data;
pub mod error;
pub(crate) mod float;
mod huge_pages;
pub mod io;
pub mod kernels;
pub mod maps;
pub(crate) mod math;
pub(crate) mod monitor;
pub mod parallel;
mod prefetch;
pub mod rng;
mod simd;
pub(crate) mod solvers;
#[cfg(test)]
mod test_support;
pub mod thresholds;

pub use data::examples::Examples;
pub use data::labels::{class_counts, Labels};
pub use data::moments::{moments, Moments};
pub use data::rows::{CsrRows, DenseRows, Rows};
pub use data::task::BinaryTask;
pub use error::{Error, Result};
pub use float::{Float, Index};
pub use monitor::Monitor;
pub use rng::Rng;
pub use solvers::linear::{FirstStepSums, FitOutput, LinearState};
pub use solvers::linear_params::LinearParams;
pub use solvers::linear_ranker::{LinearRanker, LinearRankerParams, Ranking};
pub use solvers::linear_regressor::{
    FittedLinearModel, LinearRegressor, LinearRegressorParams, Regression,
};
pub use solvers::linear_svm::{
    Classification, FittedLinearSvm, LinearSvm, LinearSvmParams, MultiClass,
};
pub use solvers::mixing::{LocalIterates, LocalPass};
pub use solvers::multiclass::decision_function;
pub use solvers::params::{Averaging, Intercept, Params, Sampling, ValidParams};
pub use solvers::platt::{
    class_probabilities, fit_sigmoid, n_classes as sigmoid_classes, SigmoidFit,
    MAX_ITER as SIGMOID_MAX_ITER,
};
pub use solvers::streamed::{ClassSummary, LabelSummary, StreamedFit, Targets};

// Kernel SVM area: the kernel solver's public front (kernel_svm.rs) and the types
// its builder takes.
pub use kernels::function::Kernel;
pub use kernels::gram::PrecomputedGram;
pub use solvers::kernel_solver::Strategy;
pub use solvers::kernel_svm::{
    kernel_decision, pairwise_kernel, Decomposition, FittedKernelRegressor, FittedKernelSvm,
    KernelRegressor, KernelReport, KernelSvm, KernelSvmParams,
};
pub use solvers::loss::LossFunction;
