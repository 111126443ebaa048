//! One problem of one output: a binary sub-problem (which examples are positive and
//! how much each one weighs) or a regression (a real target per example).
//!
//! One-vs-rest never materialises a `+1/-1` label vector per class: labels stay as
//! class codes and each binary task reads them through [`BinaryTask::y`].

use crate::error::{Error, Result};

/// Labels and weights of one binary problem, or the targets and weights of a
/// regression ([`BinaryTask::regression`]).
#[derive(Clone, Copy, Debug)]
pub struct BinaryTask<'a> {
    codes: &'a [u32],
    positive: u32,
    /// Real targets (regression); `codes` is then empty.
    targets: Option<&'a [f64]>,
    sample_weight: Option<&'a [f64]>,
    pos_weight: f64,
    neg_weight: f64,
    /// Codes at or above this are invalid (checked by [`BinaryTask::check_example`]).
    code_limit: u32,
}

/// [`Error::InvalidInput`] for class code `code` of example `example`, not below
/// `n_classes`. A code above `i32::MAX` is also named as the signed 32-bit
/// integer whose bits it has: a negative code given as `int32` and read as
/// unsigned (-1 reads as 4294967295).
pub fn code_out_of_range(code: u32, example: usize, n_classes: usize) -> Error {
    let signed = code as i32;
    let hint = if signed < 0 {
        format!(
            " (it is {signed} read as unsigned: class codes are indices into the classes, \
             0 to {})",
            n_classes.saturating_sub(1)
        )
    } else {
        String::new()
    };
    Error::InvalidInput(format!(
        "class code {code} of example {example} is out of range for {n_classes} classes{hint}"
    ))
}

/// An error naming the first sample weight that is negative or not finite.
fn check_sample_weight(sw: &[f64]) -> Result<()> {
    match sw.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
        Some(k) => Err(Error::InvalidInput(format!(
            "sample_weight must be finite and non-negative; entry {k} is {}",
            sw[k]
        ))),
        None => Ok(()),
    }
}

/// [`Error::InvalidInput`] for the target `value` of example `example`.
fn non_finite_target(value: f64, example: usize) -> Error {
    Error::InvalidInput(format!(
        "the target of example {example} is {value}; regression targets must be finite"
    ))
}

impl<'a> BinaryTask<'a> {
    /// Examples with `codes[i] == positive` are `+1`, all others `-1`. The weight of
    /// example `i` is `sample_weight[i]` times `pos_weight` or `neg_weight` (class
    /// weights, as LIBLINEAR's `-wi` and scikit-learn's one-vs-rest use them).
    pub fn new(
        codes: &'a [u32],
        positive: u32,
        sample_weight: Option<&'a [f64]>,
        pos_weight: f64,
        neg_weight: f64,
    ) -> Result<Self> {
        if let Some(sw) = sample_weight {
            if sw.len() != codes.len() {
                return Err(Error::ShapeMismatch(format!(
                    "sample_weight has {} entries for {} samples",
                    sw.len(),
                    codes.len()
                )));
            }
            check_sample_weight(sw)?;
        }
        for w in [pos_weight, neg_weight] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(Error::InvalidInput(format!(
                    "class weights must be finite and non-negative, got {w}"
                )));
            }
        }
        Ok(Self {
            codes,
            positive,
            targets: None,
            sample_weight,
            pos_weight,
            neg_weight,
            code_limit: u32::MAX,
        })
    }

    /// A regression: example `i` has target `targets[i]` (finite; checked by
    /// [`BinaryTask::check_targets`] or, row by row, [`BinaryTask::check_example`])
    /// and weight `sample_weight[i]` (1 without).
    pub fn regression(targets: &'a [f64], sample_weight: Option<&'a [f64]>) -> Result<Self> {
        let mut task = Self::new(&[], 0, None, 1.0, 1.0)?;
        if let Some(sw) = sample_weight {
            if sw.len() != targets.len() {
                return Err(Error::ShapeMismatch(format!(
                    "sample_weight has {} entries for {} samples",
                    sw.len(),
                    targets.len()
                )));
            }
            check_sample_weight(sw)?;
        }
        task.targets = Some(targets);
        task.sample_weight = sample_weight;
        Ok(task)
    }

    /// Whether the targets are real values ([`BinaryTask::regression`]).
    pub fn is_regression(&self) -> bool {
        self.targets.is_some()
    }

    /// An error naming the first target that is not finite (regression; nothing to
    /// check for class codes beyond [`BinaryTask::check_example`]).
    pub fn check_targets(&self) -> Result<()> {
        match self.targets {
            Some(t) => match t.iter().position(|v| !v.is_finite()) {
                Some(i) => Err(non_finite_target(t[i], i)),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// The task with codes at or above `n_classes` invalid: see
    /// [`BinaryTask::check_example`].
    #[must_use]
    pub fn with_classes(self, n_classes: usize) -> Self {
        Self {
            code_limit: u32::try_from(n_classes).unwrap_or(u32::MAX),
            ..self
        }
    }

    /// An error unless example `i`'s class code is below the number of classes
    /// (for labels that were not checked as a whole: see `Labels::check_shapes`).
    pub fn check_example(&self, i: usize) -> Result<()> {
        if let Some(t) = self.targets {
            return match t.get(i) {
                Some(v) if v.is_finite() => Ok(()),
                Some(&v) => Err(non_finite_target(v, i)),
                None => Err(Error::ShapeMismatch(format!(
                    "example {i} of {} targets",
                    t.len()
                ))),
            };
        }
        match self.codes.get(i) {
            Some(&c) if c < self.code_limit => Ok(()),
            Some(&c) => Err(code_out_of_range(c, i, self.code_limit as usize)),
            None => Err(Error::ShapeMismatch(format!(
                "example {i} of {} labels",
                self.codes.len()
            ))),
        }
    }

    /// `true` when every example weighs exactly 1 (no sample weights, class
    /// weights 1): the mean weight is then 1 without a pass over the examples.
    pub fn unit_weights(&self) -> bool {
        self.sample_weight.is_none() && self.pos_weight == 1.0 && self.neg_weight == 1.0
    }

    /// Number of examples.
    pub fn len(&self) -> usize {
        match self.targets {
            Some(t) => t.len(),
            None => self.codes.len(),
        }
    }

    /// `true` when there are no examples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Label of example `i`, `+1.0` or `-1.0`; a regression's target.
    #[inline]
    pub fn y(&self, i: usize) -> f64 {
        if let Some(t) = self.targets {
            return t[i];
        }
        if self.codes[i] == self.positive {
            1.0
        } else {
            -1.0
        }
    }

    /// Weight of example `i` (sample weight times class weight).
    #[inline]
    pub fn weight(&self, i: usize) -> f64 {
        if self.targets.is_some() {
            return self.sample_weight.map_or(1.0, |sw| sw[i]);
        }
        let cw = if self.codes[i] == self.positive {
            self.pos_weight
        } else {
            self.neg_weight
        };
        match self.sample_weight {
            Some(sw) => sw[i] * cw,
            None => cw,
        }
    }

    /// Indices of the positive and of the negative examples (a regression has
    /// no classes: all are "negative").
    pub fn split_by_class(&self) -> (Vec<usize>, Vec<usize>) {
        if self.is_regression() {
            return (Vec::new(), (0..self.len()).collect());
        }
        (0..self.len()).partition(|&i| self.codes[i] == self.positive)
    }
}
