//! The examples of a set of rows: the binary problems of one-vs-rest
//! classification ([`Labels`]), or the one problem of a regression ([`BinaryTask`]
//! on real targets). The solvers that take either (the streamed fit, the local
//! passes of parameter mixing) read the problems through this one type.

use crate::data::labels::{check_y_len, Labels};
use crate::data::task::BinaryTask;
use crate::error::Result;

/// The examples of a block of rows: class codes and weights, or real targets.
#[derive(Clone, Copy, Debug)]
pub enum Examples<'a> {
    /// Class codes and weights (one-vs-rest's binary problems).
    Classes(Labels<'a>),
    /// A regression's real targets and sample weights.
    Regression(BinaryTask<'a>),
}

impl Examples<'_> {
    /// Number of problems: those of one-vs-rest, or 1.
    pub fn n_problems(&self) -> usize {
        match self {
            Self::Classes(labels) => labels.n_problems(),
            Self::Regression(_) => 1,
        }
    }

    /// Number of examples.
    pub fn n_examples(&self) -> usize {
        match self {
            Self::Classes(labels) => labels.codes.len(),
            Self::Regression(task) => task.len(),
        }
    }

    /// [`Examples::check`] without reading each label (rows checked as they are
    /// read check their labels too): `O(1)`.
    pub fn check_shapes(&self, n_rows: usize) -> Result<()> {
        match self {
            Self::Classes(labels) => labels.check_shapes(n_rows),
            Self::Regression(task) => check_y_len(n_rows, task.len(), "targets"),
        }
    }

    /// Check the examples against `n_rows` rows (classes: as [`Labels::check`];
    /// targets: one per row, finite).
    pub fn check(&self, n_rows: usize) -> Result<()> {
        match self {
            Self::Classes(labels) => labels.check(n_rows),
            Self::Regression(task) => {
                self.check_shapes(n_rows)?;
                task.check_targets()
            }
        }
    }

    /// Problem `p`.
    pub fn task(&self, p: usize) -> Result<BinaryTask<'_>> {
        match self {
            Self::Classes(labels) => labels.task(p),
            Self::Regression(task) => Ok(*task),
        }
    }
}
