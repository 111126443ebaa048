//! Class codes and weights shared by the binary sub-problems of one-vs-rest, and the
//! [`BinaryTask`] each sub-problem reads them through.

use crate::data::task::BinaryTask;
use crate::error::{Error, Result};

/// Labels shared by all binary sub-problems.
#[derive(Clone, Copy, Debug)]
pub struct Labels<'a> {
    /// Class code of each example, in `[0, n_classes)`.
    pub codes: &'a [u32],
    /// Number of classes (>= 2).
    pub n_classes: usize,
    /// Optional per-example weights.
    pub sample_weight: Option<&'a [f64]>,
    /// Per-class weights (`n_classes` entries).
    pub class_weight: &'a [f64],
}

impl Labels<'_> {
    /// Number of binary problems: 1 for two classes, `n_classes` otherwise.
    pub fn n_problems(&self) -> usize {
        if self.n_classes == 2 {
            1
        } else {
            self.n_classes
        }
    }

    /// Check the labels against `n_rows` examples: at least two classes, one code
    /// per row, each in range, one class weight per class.
    pub fn check(&self, n_rows: usize) -> Result<()> {
        self.check_shapes(n_rows)?;
        if let Some(&c) = self.codes.iter().find(|&&c| c as usize >= self.n_classes) {
            return Err(Error::InvalidInput(format!(
                "class code {c} is out of range for {} classes",
                self.n_classes
            )));
        }
        Ok(())
    }

    /// [`Labels::check`] but for the range of the codes, left to the readers of
    /// each example ([`BinaryTask::check_example`]): `O(1)`.
    pub fn check_shapes(&self, n_rows: usize) -> Result<()> {
        if self.n_classes < 2 {
            return Err(Error::InvalidInput(format!(
                "the data must contain at least 2 classes, got {}",
                self.n_classes
            )));
        }
        if self.codes.len() != n_rows {
            return Err(Error::ShapeMismatch(format!(
                "X has {n_rows} rows but y has {} labels",
                self.codes.len()
            )));
        }
        if self.class_weight.len() != self.n_classes {
            return Err(Error::ShapeMismatch(format!(
                "{} class weights for {} classes",
                self.class_weight.len(),
                self.n_classes
            )));
        }
        Ok(())
    }

    /// Binary task `p`: for two classes, class 1 against class 0 (weights
    /// `class_weight[1]`, `class_weight[0]`); otherwise class `p` against the rest
    /// (weights `class_weight[p]` and 1, as LIBLINEAR and scikit-learn do).
    pub fn task(&self, p: usize) -> Result<BinaryTask<'_>> {
        let task = if self.n_classes == 2 {
            BinaryTask::new(
                self.codes,
                1,
                self.sample_weight,
                self.class_weight[1],
                self.class_weight[0],
            )
        } else {
            BinaryTask::new(
                self.codes,
                p as u32,
                self.sample_weight,
                self.class_weight[p],
                1.0,
            )
        };
        Ok(task?.with_classes(self.n_classes))
    }
}
