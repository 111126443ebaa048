//! What every solver family steps through.
//!
//! - [`params`]: the hyper-parameters, validated once into [`params::ValidParams`];
//! - [`loss`]: the losses (hinge, logistic, squared hinge, modified Huber and the
//!   regression losses) behind the one trait the solvers step through, and the check
//!   that a loss suits its targets;
//! - `sampler`: drawing the examples of each step, saved with a solver's state;
//! - `passes`: the pass driver of every solver (passes, objective, verbose lines,
//!   cancellation, the stopping rule of `tol` or of a held-out score);
//! - [`held_out`]: early stopping's score of a model on rows held out of its fit;
//! - [`one_class`]: the one-class SVM's offset, solved exactly for given scores;
//! - [`platt`]: Platt's sigmoids (`probability=True`).
//!
//! Uses the data and kernel layers and the shared ground; no solver family.

pub mod held_out;
pub mod loss;
pub mod one_class;
pub mod params;
pub(crate) mod passes;
pub mod platt;
pub(crate) mod sampler;
#[cfg(test)]
pub(crate) mod test_support;
