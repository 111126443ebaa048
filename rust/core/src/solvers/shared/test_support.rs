//! Fixtures shared by the solver families' tests: a seeded problem's dense rows and
//! binary task.

use crate::data::rows::DenseRows;
use crate::data::task::BinaryTask;

/// The dense `n x d` rows of `x` and the unweighted task "class 1 against the
/// rest" of `codes`.
pub(crate) fn dense_problem<'a>(
    x: &'a [f64],
    codes: &'a [u32],
    n: usize,
    d: usize,
) -> (DenseRows<'a, f64>, BinaryTask<'a>) {
    let rows = DenseRows::new(x, n, d).unwrap();
    (rows, BinaryTask::new(codes, 1, None, 1.0, 1.0).unwrap())
}
