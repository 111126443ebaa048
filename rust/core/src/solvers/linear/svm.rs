//! A Rust-first front of the linear solver: typed parameters with a builder
//! ([`LinearSvm::params`], as linfa's `ParamGuard`), `fit` on a parameter set and
//! `decision_function`/`predict` on the fitted model. The Python binding trains
//! through this same builder ([`LinearSvmParams::fit_from`], which continues given
//! solver states under a [`Monitor`]): no second path, the same models bit for bit.
//!
//! # Example
//! Two classes in the plane, split by the sign of `x0 + x1`:
//!
//! ```
//! use pegasos_core::{DenseRows, LinearSvm};
//!
//! let n = 200;
//! let mut x = Vec::with_capacity(2 * n);
//! let mut classes = Vec::with_capacity(n);
//! for i in 0..n {
//!     let (a, b) = ((i % 20) as f64 / 10.0 - 0.95, (i / 20) as f64 / 5.0 - 0.9);
//!     x.extend([a, b]);
//!     classes.push(u32::from(a + b > 0.0));
//! }
//! let rows = DenseRows::new(&x, n, 2)?;
//! let model = LinearSvm::params()
//!     .alpha(1e-3)
//!     .max_iter(30)
//!     .seed(7)
//!     .fit(&rows, &classes)?;
//! assert_eq!(model.coef().len(), 2); // one binary problem, two features
//! let predicted = model.predict(&rows)?;
//! let correct = predicted.iter().zip(&classes).filter(|(p, c)| p == c).count();
//! assert!(correct as f64 / n as f64 > 0.95, "{correct} of {n}");
//! # Ok::<(), pegasos_core::Error>(())
//! ```

use crate::data::labels::Labels;
use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::monitor::Monitor;
use crate::solvers::linear::binary::{FitOutput, LinearState};
use crate::solvers::linear::builder::LinearParams;
use crate::solvers::linear::crammer_singer::fit_crammer_singer;
use crate::solvers::linear::one_vs_rest::{
    decision_function, fit_one_vs_rest, initial_states, predicted_class,
};
use crate::solvers::linear::shared_ovr::fit_shared_one_vs_rest;
use crate::solvers::shared::held_out::HeldOutRows;
use crate::solvers::shared::params::Params;

/// A linear SVM trained by Pegasos, one-vs-rest over the classes (or the
/// Crammer–Singer joint problem): start from [`LinearSvm::params`].
#[derive(Clone, Copy, Debug)]
pub struct LinearSvm;

impl LinearSvm {
    /// The default parameters ([`Params::default`]: the hinge) on one thread,
    /// one-vs-rest, to set with the builder's methods and then
    /// [`LinearSvmParams::fit`].
    pub fn params() -> LinearSvmParams {
        Self::with_params(Params::default())
    }

    /// The builder started from `params` (one thread, one-vs-rest).
    pub fn with_params(params: Params) -> LinearSvmParams {
        LinearParams::new(params, Classification::default())
    }
}

/// How a linear classifier treats more than two classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MultiClass {
    /// One-vs-rest, each binary problem drawing its own rows.
    #[default]
    OneVsRest,
    /// One-vs-rest, every binary problem stepping on the same drawn rows (weights
    /// stored feature-major: faster with many classes).
    SharedDraws,
    /// The Crammer–Singer multiclass SVM: one joint objective over all classes
    /// (the hinge only; one weight row per class, also for two classes).
    CrammerSinger,
}

/// A linear classifier's own settings in [`LinearSvmParams`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classification {
    multi_class: MultiClass,
}

/// The parameters of a [`LinearSvm`] fit, set one by one; checked by
/// [`Params::validate`] when [`fit`](Self::fit) or [`check`](Self::check) runs.
pub type LinearSvmParams = LinearParams<Classification>;

impl LinearParams<Classification> {
    /// How more than two classes are treated.
    #[must_use]
    pub fn multi_class(mut self, multi_class: MultiClass) -> Self {
        self.kind.multi_class = multi_class;
        self
    }

    /// Train on `rows` whose classes are `classes` (codes `0..k`, `k >= 2`, every
    /// example weighing 1).
    pub fn fit<R: Rows>(&self, rows: &R, classes: &[u32]) -> Result<FittedLinearSvm> {
        let ones = Labels::ones_for(classes);
        self.fit_labels(rows, &Labels::unweighted(classes, &ones))
    }

    /// Train on `rows` labelled by `labels` (with class and sample weights).
    pub fn fit_labels<R: Rows>(&self, rows: &R, labels: &Labels<'_>) -> Result<FittedLinearSvm> {
        labels.check(rows.n_rows())?;
        self.fit_from(rows, labels, &mut Vec::new(), &Monitor::new())
    }

    /// Continue the fit whose solver states are `states` (a fresh fit when empty)
    /// on `rows` labelled by `labels`, leaving the final states in `states` (after
    /// an error they may have advanced part way); `monitor` stops the fit
    /// ([`Error::Interrupted`]) and carries its progress lines. The states are
    /// one per binary problem, or with [`MultiClass::CrammerSinger`] the joint
    /// state written as `K + 1` of them (a header, then one per class); they are what
    /// [`crate::io::codec`] encodes. Rows that are not checked
    /// as a whole are checked as the solver reads them.
    pub fn fit_from<R: Rows>(
        &self,
        rows: &R,
        labels: &Labels<'_>,
        states: &mut Vec<LinearState>,
        monitor: &Monitor,
    ) -> Result<FittedLinearSvm> {
        self.fit_held_out(rows, labels, None, states, monitor)
    }

    /// [`fit_from`](Self::fit_from), every binary problem scored on the
    /// `held_out` rows after every pass when given, its stopping rule reading that
    /// score (early stopping, see `solvers::shared::held_out`). One-vs-rest only
    /// (for two classes every mode is one binary problem): the shared-draw and
    /// Crammer–Singer solvers of more classes refuse held-out rows.
    pub fn fit_held_out<R: Rows>(
        &self,
        rows: &R,
        labels: &Labels<'_>,
        held_out: Option<&HeldOutRows<'_, R>>,
        states: &mut Vec<LinearState>,
        monitor: &Monitor,
    ) -> Result<FittedLinearSvm> {
        let params = self.check()?;
        let d = rows.n_features();
        let mut mode = self.kind.multi_class;
        if held_out.is_some() && mode != MultiClass::OneVsRest {
            if mode == MultiClass::CrammerSinger || labels.n_problems() > 1 {
                return Err(Error::InvalidParameter(format!(
                    "early stopping scores each one-vs-rest problem on its own: it needs \
                     one-vs-rest, not {mode:?}"
                )));
            }
            // Two classes: the shared-draw solver's one problem is the binary fit.
            mode = MultiClass::OneVsRest;
        }
        let n_problems = match mode {
            MultiClass::CrammerSinger => labels.n_classes,
            _ => labels.n_problems(),
        };
        // The shared-draw and joint solvers build their own fresh states.
        if states.is_empty() && mode == MultiClass::OneVsRest {
            *states = initial_states(n_problems, d, params.seed)?;
        }
        let mut coef = try_filled_vec(n_problems.saturating_mul(d), 0.0, "the coefficients")?;
        let n_threads = self.n_threads;
        let outputs = match mode {
            MultiClass::CrammerSinger => {
                fit_crammer_singer(rows, labels, &params, states, &mut coef, monitor)?
            }
            MultiClass::SharedDraws => fit_shared_one_vs_rest(
                rows, labels, &params, states, &mut coef, n_threads, monitor,
            )?,
            MultiClass::OneVsRest => fit_one_vs_rest(
                rows, labels, held_out, &params, states, &mut coef, n_threads, monitor,
            )?,
        };
        Ok(FittedLinearSvm {
            intercept: outputs.iter().map(|o| o.intercept).collect(),
            coef,
            n_features: d,
            outputs,
            n_threads,
        })
    }
}

/// A trained [`LinearSvm`]: `f_p(x) = <coef_p, x> + intercept_p` per binary
/// problem (one for two classes, one per class otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct FittedLinearSvm {
    coef: Vec<f64>,
    intercept: Vec<f64>,
    n_features: usize,
    outputs: Vec<FitOutput>,
    n_threads: usize,
}

impl FittedLinearSvm {
    /// The weights, row-major `n_problems x n_features`.
    pub fn coef(&self) -> &[f64] {
        &self.coef
    }

    /// One intercept per binary problem.
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }

    /// What each binary problem's fit reported (passes, objective, convergence).
    pub fn fit_outputs(&self) -> &[FitOutput] {
        &self.outputs
    }

    /// Number of features the model was trained on.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// The weights (row-major `n_problems x n_features`) and the fit reports,
    /// without a copy.
    pub fn into_parts(self) -> (Vec<f64>, Vec<FitOutput>) {
        (self.coef, self.outputs)
    }

    /// Decision values, row-major `n_rows x n_problems`.
    pub fn decision_function<R: Rows>(&self, rows: &R) -> Result<Vec<f64>> {
        if rows.n_features() != self.n_features {
            return Err(Error::ShapeMismatch(format!(
                "{} features, the model was trained on {}",
                rows.n_features(),
                self.n_features
            )));
        }
        let monitor = Monitor::new();
        decision_function(rows, &self.coef, &self.intercept, self.n_threads, &monitor)
    }

    /// The predicted class code of every row: for two classes 1 where the decision
    /// value is positive, else 0; otherwise the class of the largest value (the
    /// first of equals).
    pub fn predict<R: Rows>(&self, rows: &R) -> Result<Vec<u32>> {
        let values = self.decision_function(rows)?;
        let k = self.intercept.len().max(1);
        Ok(values.chunks_exact(k).map(predicted_class).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::DenseRows;

    /// Three classes by the largest of three coordinates.
    fn three_classes(n: usize) -> (Vec<f64>, Vec<u32>) {
        let mut rng = crate::rng::Rng::seed_from_u64(3);
        let x: Vec<f64> = (0..n * 3).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
        let classes = x
            .chunks(3)
            .map(|r| (0..3).max_by(|&a, &b| r[a].total_cmp(&r[b])).unwrap() as u32)
            .collect();
        (x, classes)
    }

    #[test]
    fn the_facade_gives_the_free_functions_model() {
        let n = 150;
        let (x, classes) = three_classes(n);
        let rows = DenseRows::new(&x, n, 3).unwrap();
        let svm = LinearSvm::params().alpha(1e-2).max_iter(5).seed(11);
        let model = svm.fit(&rows, &classes).unwrap();
        let p = svm.check().unwrap();
        let cw = [1.0; 3];
        let labels = Labels {
            codes: &classes,
            n_classes: 3,
            sample_weight: None,
            class_weight: &cw,
        };
        let mut states = initial_states(3, 3, 11).unwrap();
        let mut coef = vec![0.0; 9];
        let never = Monitor::new();
        let out =
            fit_one_vs_rest(&rows, &labels, None, &p, &mut states, &mut coef, 1, &never).unwrap();
        assert_eq!(model.coef(), coef.as_slice());
        let b: Vec<f64> = out.iter().map(|o| o.intercept).collect();
        assert_eq!(model.intercept(), b.as_slice());
        let f = model.decision_function(&rows).unwrap();
        let predicted = model.predict(&rows).unwrap();
        for (row, &c) in f.chunks(3).zip(&predicted) {
            assert!(row.iter().all(|&v| v <= row[c as usize]));
        }
        let correct = predicted
            .iter()
            .zip(&classes)
            .filter(|(p, c)| p == c)
            .count();
        assert!(correct > n * 8 / 10, "{correct} of {n}");
    }

    #[test]
    fn bad_parameters_and_shapes_are_errors() {
        let (x, classes) = three_classes(10);
        let rows = DenseRows::new(&x, 10, 3).unwrap();
        assert!(LinearSvm::params().alpha(0.0).fit(&rows, &classes).is_err());
        assert!(LinearSvm::params().fit(&rows, &classes[..9]).is_err());
        assert!(LinearSvm::params().fit(&rows, &[0; 10]).is_err());
        let model = LinearSvm::params()
            .max_iter(1)
            .fit(&rows, &classes)
            .unwrap();
        let narrow = DenseRows::new(&x[..20], 10, 2).unwrap();
        assert!(model.decision_function(&narrow).is_err());
    }
}
