//! Class codes and weights shared by the binary sub-problems of one-vs-rest, and the
//! [`BinaryTask`] each sub-problem reads them through.

use crate::data::task::{code_out_of_range, BinaryTask};
use crate::error::{Error, Result};

/// The number of examples of each of `n_classes` classes (`counts[c]`: the codes
/// equal to `c`), in one pass over `codes` that also checks them: the first code
/// not below `n_classes` is an error naming it and its example, as
/// [`BinaryTask::check_example`] names it. What class weights from counts
/// ("balanced") need of labels that were not checked as a whole.
pub fn class_counts(codes: &[u32], n_classes: usize) -> Result<Vec<u64>> {
    let mut counts = vec![0u64; n_classes];
    for (i, &c) in codes.iter().enumerate() {
        match counts.get_mut(c as usize) {
            Some(n) => *n += 1,
            None => return Err(code_out_of_range(c, i, n_classes)),
        }
    }
    Ok(counts)
}

/// What rows are labelled with: class codes (`0..n_classes`, one-vs-rest
/// problems) or real targets (a regression). A cross-validated search's rows
/// ([`crate::solvers::linear::alpha_grid::GridTargets`]) and a fit's held-out rows
/// ([`crate::solvers::shared::held_out::HeldOutTargets`]) are given so.
#[derive(Clone, Copy, Debug)]
pub enum RowTargets<'a> {
    /// Class codes and the number of classes (at least 2).
    Classes {
        /// The class code of every row.
        codes: &'a [u32],
        /// The number of classes.
        n_classes: usize,
    },
    /// The real target of every row.
    Real(&'a [f64]),
}

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

impl<'a> Labels<'a> {
    /// The labels `codes` with every example and class weighing 1: `ones` holds one
    /// 1.0 per class (see [`Labels::ones_for`]), and sets the number of classes.
    pub fn unweighted(codes: &'a [u32], ones: &'a [f64]) -> Self {
        Self {
            codes,
            n_classes: ones.len(),
            sample_weight: None,
            class_weight: ones,
        }
    }

    /// One class weight of 1.0 for each class of `codes` (codes `0..=max`), for
    /// [`Labels::unweighted`].
    pub fn ones_for(codes: &[u32]) -> Vec<f64> {
        vec![1.0; codes.iter().max().map_or(0, |&c| c as usize + 1)]
    }
}

impl<'a> Labels<'a> {
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
        match self
            .codes
            .iter()
            .position(|&c| c as usize >= self.n_classes)
        {
            Some(i) => Err(code_out_of_range(self.codes[i], i, self.n_classes)),
            None => Ok(()),
        }
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
        check_y_len(n_rows, self.codes.len(), "labels")?;
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
    pub fn task(&self, p: usize) -> Result<BinaryTask<'a>> {
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

/// An error unless `y` has one entry per row of `X`: `n_y` (`what`: labels,
/// targets, ...) against `n_rows`. The one message every fit gives for it.
pub(crate) fn check_y_len(n_rows: usize, n_y: usize, what: &str) -> Result<()> {
    if n_y != n_rows {
        return Err(Error::ShapeMismatch(format!(
            "X has {n_rows} rows but y has {n_y} {what}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_counts_count_each_code_and_name_the_first_out_of_range() {
        assert_eq!(class_counts(&[2, 0, 2, 2], 4).unwrap(), [1, 0, 3, 0]);
        assert_eq!(class_counts(&[], 2).unwrap(), [0, 0]);
        let e = class_counts(&[0, 1, 3, 7], 3).unwrap_err().to_string();
        assert!(
            e.contains("class code 3 of example 2 is out of range for 3 classes"),
            "{e}"
        );
        // A negative int32 code read as u32 is named as the caller wrote it.
        let e = class_counts(&[0, (-1i32) as u32], 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("class code 4294967295 of example 1"), "{e}");
        assert!(
            e.contains(
                "it is -1 read as unsigned: class codes are indices into the classes, 0 to 2"
            ),
            "{e}"
        );
        let e = class_counts(&[i32::MAX as u32], 3).unwrap_err().to_string();
        assert!(!e.contains("negative"), "{e}");
    }

    #[test]
    fn whole_label_checks_and_drawn_examples_name_a_bad_code_alike() {
        let codes = [0u32, 1, (-2i32) as u32];
        let labels = Labels {
            codes: &codes,
            n_classes: 2,
            sample_weight: None,
            class_weight: &[1.0, 1.0],
        };
        let whole = labels.check(3).unwrap_err().to_string();
        let drawn = labels
            .task(0)
            .unwrap()
            .check_example(2)
            .unwrap_err()
            .to_string();
        assert_eq!(whole, drawn);
        assert!(
            whole.contains("class code 4294967294 of example 2"),
            "{whole}"
        );
        assert!(whole.contains("it is -2 read as unsigned"), "{whole}");
    }
}
