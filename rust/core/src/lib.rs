//! # pegasos-core
//!
//! Pure Rust core of pegasos-rs: support vector machines trained by Pegasos
//! (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos: Primal Estimated sub-GrAdient
//! `SOlver` for SVM", Mathematical Programming 127, 2011), generic over the data's
//! float type ([`Float`]: `f32` or `f64`) and over dense or CSR rows ([`Rows`]).
//!
//! Step `t` draws `k` examples `A_t`, and with `eta_t = 1/(alpha t)` sets
//! `w <- (1 - eta_t alpha) w + eta_t/k sum_{i in A_t} c_i (-l'(<w, x_i>, y_i)) x_i`,
//! then projects `w` onto the ball that holds the optimum. `w` is stored as a
//! scale times a vector with `||w||^2` tracked, so a step costs the non-zeros of
//! its examples. The same seed gives the same model on every platform and thread
//! count ([`rng`]).
//!
//! ```
//! # use pegasos_core::{DenseRows, LinearSvm};
//! let x = [0.0, 1.0, 1.0, 0.0, 0.1, 0.9, 0.9, 0.1];
//! let rows = DenseRows::new(&x, 4, 2)?;
//! let model = LinearSvm::params().alpha(0.1).max_iter(50).fit(&rows, &[1, 0, 1, 0])?;
//! assert_eq!(model.predict(&rows)?, [1, 0, 1, 0]);
//! # Ok::<(), pegasos_core::Error>(())
//! ```
//!
//! `examples/train_svmlight.rs` is a whole program: an svmlight file read with
//! [`io::svmlight::parse`], trained and scored.
//!
//! # The API
//! Every estimator is a builder with typed parameters (`X::params()`, setters,
//! `fit`), checked into validated parameters before any solver runs, and a fitted
//! type that predicts. Errors are one enum, [`Error`]; nothing panics on user data.
//!
//! | | |
//! |---|---|
//! | Data | [`DenseRows`], [`CsrRows`] (borrowed, checked views; [`Rows`]), [`Labels`] (class codes and weights), [`Examples`], [`BinaryTask`], [`moments`] |
//! | Linear Pegasos | [`LinearSvm`] ([`MultiClass`]: one-vs-rest, shared draws, Crammer–Singer), [`LinearRegressor`], [`LinearRanker`]: builders over [`LinearParams`] ([`Params`], [`LossFunction`], [`Averaging`], [`Intercept`], [`Sampling`]) giving [`FittedLinearSvm`] and [`FittedLinearModel`]; `fit_from` continues saved [`LinearState`]s |
//! | Kernel Pegasos | [`KernelSvm`], [`KernelRegressor`] ([`Kernel`], [`Strategy`], [`Decomposition`], [`PrecomputedGram`]) giving [`FittedKernelSvm`] and [`FittedKernelRegressor`]; [`pairwise_kernel`], [`kernel_decision`]; for a grid of `gamma`, [`raw_gram`] once then [`finish_gram`] per `gamma`; with a budget of support vectors, [`fit_budgeted_binary`] ([`BudgetState`], [`Maintenance`]) |
//! | Feature maps | [`FourierFeatures`] (random Fourier features of the rbf kernel, [`FourierForm`]), [`Nystroem`] (any [`Kernel`] or a precomputed one, [`Landmarks`]): builders giving [`FittedFourierFeatures`] and [`FittedNystroem`], which transform into a caller's `f32` or `f64` buffer and are rebuilt `from_parts`; [`AdditiveMap`] ([`AdditiveKernel`]: χ², intersection, Jensen–Shannon), which has nothing to fit |
//! | Cross-validation | [`fit_alpha_grid`]: every (fold, alpha) pair of a search over [`Fold`]s ([`GridTargets`], [`Search`], [`halving_rungs`]), each fold's held-out [`FoldResult`] ([`fold_accuracy`]) |
//! | Probabilities | Platt's sigmoids: [`fit_sigmoid`], [`class_probabilities`] |
//! | Rows held elsewhere | [`StreamedFit`] (the client of an exact fit whose rows live on a cluster), [`LocalPass`] (a worker's pass of parameter mixing) |
//! | Files | [`io::svmlight`] (the text format, with query ids), [`io::codec`] (solver states) |
//! | Running | [`Monitor`] (stop a fit, read its progress), [`parallel`] (the thread pools fits run on), [`thresholds`] (when a call is small) |
//!
//! # Layers (for contributors)
//! Each module uses only its own layer and the layers listed before it; nothing
//! imports from a layer above (tests included). `solvers` and `maps` share a level
//! and do not use each other, nor do the two solver families. `tests/layering.rs` checks this on the sources. The
//! private modules document their update rules and cite the paper
//! (`cargo doc --document-private-items`).
//!
//! 1. Shared ground, flat at the root: `float` (the sealed element and index types),
//!    `error`, `math` (portable elementary functions), `rng`, `monitor`
//!    (cancellation and progress), `parallel` (thread pools, one task per problem,
//!    row blocks), `thresholds` (when a call is small); `simd` (the AVX2 build of
//!    hot loops), `prefetch` (cache hints) and `huge_pages` (transparent huge pages
//!    for large buffers).
//! 2. `data`: row views (dense, CSR), the moments of all entries, a binary task,
//!    one-vs-rest labels, the examples of a block.
//! 3. `kernels`: kernel functions, the kernel row cache, the Gram matrix.
//! 4. `solvers`, in sub-layers of their own: `solvers::shared` (hyper-parameters,
//!    losses, sampling, the pass driver, held-out scores, the one-class offset,
//!    Platt's sigmoids); the families beside each other, `solvers::linear` (the
//!    scaled iterate, binary, one-vs-rest, shared draws, Crammer–Singer,
//!    regression, ranking, the alpha grid, the builders) and `solvers::kernel`
//!    (the solver, its models, one-vs-one, regression, the budget, the builder),
//!    each using `shared` and not the other; then `solvers::distributed` (the
//!    streamed fits and parameter mixing), which drives both. Beside `solvers`,
//!    `maps`: the explicit feature maps (Fourier, Nyström, additive) and their
//!    matrix products.
//! 5. `io`: the svmlight text format and the solver-state codec.

pub(crate) mod data;
pub mod error;
pub(crate) mod float;
mod huge_pages;
pub mod io;
pub(crate) mod kernels;
pub(crate) mod maps;
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

// Data: row views, labels, the examples of a block.
pub use data::examples::Examples;
pub use data::labels::{class_counts, Labels, RowTargets};
pub use data::moments::{moments, Moments};
pub use data::rows::{CsrRows, DenseRows, Rows};
pub use data::task::BinaryTask;
pub use float::{Float, Index};

// Shared ground.
pub use error::{Error, Result};
pub use monitor::Monitor;
pub use rng::Rng;

// Parameters and losses.
pub use solvers::shared::loss::{
    EpsilonInsensitive, Huber, LossFunction, SquaredEpsilonInsensitive,
};
pub use solvers::shared::params::{Averaging, Intercept, Params, Sampling, ValidParams};

// Linear Pegasos: the builders, their fitted types and solver states.
pub use solvers::linear::binary::{FitOutput, LinearState};
pub use solvers::linear::builder::LinearParams;
pub use solvers::linear::one_vs_rest::{decision_function, decision_function_many};
pub use solvers::linear::ranker::{LinearRanker, LinearRankerParams, Ranking};
pub use solvers::linear::regressor::{
    FittedLinearModel, LinearRegressor, LinearRegressorParams, Regression,
};
pub use solvers::linear::svm::{
    Classification, FittedLinearSvm, LinearSvm, LinearSvmParams, MultiClass,
};
pub use solvers::shared::one_class::{one_class_offset, one_class_sq_norm};

// Early stopping: rows held out of a fit and scored after every pass.
pub use solvers::shared::held_out::{
    split_labels, split_targets, HeldOut, HeldOutRows, HeldOutTargets, TargetsAndWeights,
};

// Kernel Pegasos: the builder, its fitted types and the types it takes.
pub use kernels::function::Kernel;
pub use kernels::gram::PrecomputedGram;
pub use kernels::grid_gram::{finish_gram, raw_gram};
pub use solvers::kernel::budget::{
    best_merge, check_budget, fit_budgeted_binary, fit_budgeted_one_vs_one,
    fit_budgeted_one_vs_rest, fit_budgeted_regression, quick_degradation, BudgetFitOutput,
    BudgetModel, BudgetState, BudgetedModels, Maintenance,
};
pub use solvers::kernel::solver::Strategy;
pub use solvers::kernel::svm::{
    kernel_decision, pairwise_kernel, Decomposition, FittedKernelRegressor, FittedKernelSvm,
    KernelRegressor, KernelReport, KernelSvm, KernelSvmParams,
};

// Explicit feature maps.
pub use maps::additive::{AdditiveKernel, AdditiveMap};
pub use maps::fourier::FourierForm;
pub use maps::fourier_features::{FittedFourierFeatures, FourierFeatures, FourierFeaturesParams};
pub use maps::nystroem::Landmarks;
pub use maps::nystroem_features::{FittedNystroem, Nystroem, NystroemParams};

// Platt's sigmoids (probabilities).
pub use solvers::shared::platt::{
    class_probabilities, fit_sigmoid, n_classes as sigmoid_classes, SigmoidFit,
    MAX_ITER as SIGMOID_MAX_ITER,
};

// Rows held elsewhere: the streamed fit (Dask exact mode) and parameter mixing.
pub use solvers::distributed::budget_streamed::StreamedBudgetFit;
pub use solvers::distributed::mixing::{LocalIterates, LocalPass};
pub use solvers::distributed::streamed::{ClassSummary, LabelSummary, StreamedFit, Targets};
pub use solvers::linear::alpha_grid::{
    fit_alpha_grid, fold_accuracy, halving_rungs, Fold, FoldResult, GridTargets, Search,
};
pub use solvers::linear::binary::FirstStepSums;
