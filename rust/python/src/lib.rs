//! `pegasos_rs._core`: the thin PyO3 layer over `pegasos-core`.
//!
//! It converts arrays (borrowing numpy buffers and scipy CSR components in place),
//! releases the GIL around all numerical work and maps core errors to Python
//! exceptions. No algorithm lives here.

// PyO3 extracts arguments by value; borrowing them is not an option.
#![allow(clippy::needless_pass_by_value)]
// `Python::check_signals` as a path is not general over the GIL lifetime.
#![allow(clippy::redundant_closure_for_method_calls)]

mod arrays;
mod detach;
mod error;
mod feature_maps;
mod grid;
mod kernel;
mod kernel_streamed;
mod linear;
mod mixing;
mod params;
mod statistics;
mod streamed;
mod svmlight;

use pyo3::prelude::*;

/// The compiled extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Load NumPy's C API and rust-numpy's borrow checking now: their first use runs
    // Python code, and a Ctrl-C handled there during a later call would be lost.
    drop(numpy::PyArrayMethods::readonly(
        &numpy::PyArray1::<f64>::zeros(m.py(), 0, false),
    ));
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STATE_VERSION", pegasos_core::io::codec::STATE_VERSION)?;
    m.add_class::<linear::LinearSolverState>()?;
    m.add_function(wrap_pyfunction!(linear::fit_linear, m)?)?;
    m.add_function(wrap_pyfunction!(linear::fit_linear_regression, m)?)?;
    m.add_function(wrap_pyfunction!(linear::fit_ranking, m)?)?;
    m.add_function(wrap_pyfunction!(linear::decision_function, m)?)?;
    m.add_function(wrap_pyfunction!(linear::decision_function_rows, m)?)?;
    m.add_function(wrap_pyfunction!(linear::class_counts, m)?)?;
    m.add_function(wrap_pyfunction!(grid::cv_linear, m)?)?;
    m.add_class::<streamed::StreamedLinearFit>()?;
    m.add_class::<kernel_streamed::StreamedBudgetFit>()?;
    m.add_function(wrap_pyfunction!(streamed::zero_loss_sums, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::loss_sums, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::first_step_sums, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::starts_late, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::first_steps, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::mean_zero_losses, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::check_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(streamed::one_class_sq_norm, m)?)?;
    m.add_function(wrap_pyfunction!(mixing::local_pass, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::fit_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::fit_kernel_regression, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::fit_kernel_budget, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::fit_kernel_budget_regression, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::kernel_decision, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::pairwise_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::raw_gram, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::finish_gram, m)?)?;
    m.add_function(wrap_pyfunction!(feature_maps::fourier_sample, m)?)?;
    m.add_function(wrap_pyfunction!(feature_maps::fourier_features, m)?)?;
    m.add_function(wrap_pyfunction!(feature_maps::nystroem_fit, m)?)?;
    m.add_function(wrap_pyfunction!(feature_maps::nystroem_features, m)?)?;
    m.add_function(wrap_pyfunction!(
        feature_maps::nystroem_uniform_landmarks,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(feature_maps::additive_map_info, m)?)?;
    m.add_function(wrap_pyfunction!(feature_maps::additive_features, m)?)?;
    m.add_function(wrap_pyfunction!(statistics::platt_fit, m)?)?;
    m.add_function(wrap_pyfunction!(statistics::platt_proba, m)?)?;
    m.add_function(wrap_pyfunction!(statistics::moments, m)?)?;
    m.add_function(wrap_pyfunction!(statistics::variance_of, m)?)?;
    m.add_function(wrap_pyfunction!(statistics::one_class_offset, m)?)?;
    m.add_function(wrap_pyfunction!(svmlight::parse_svmlight, m)?)?;
    m.add_function(wrap_pyfunction!(svmlight::format_svmlight, m)?)?;
    m.add_function(wrap_pyfunction!(svmlight::index_svmlight, m)?)?;
    m.add_function(wrap_pyfunction!(detach::panic_in_worker, m)?)?;
    Ok(())
}
