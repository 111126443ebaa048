//! The kernel matrix of a training set for several values of `gamma`, the part that
//! does not depend on `gamma` computed once.
//!
//! A search over `gamma` (and `C`) trains on one training set's kernel matrix per
//! `gamma`. Its costly part, the inner products (rbf, polynomial, sigmoid, linear)
//! or the shared terms (chi2) between every pair of rows, does not depend on
//! `gamma`: [`raw_gram`] computes it once, and [`finish_gram`] turns it into the
//! matrix of one `gamma` in `O(n^2)` cheap operations. Every value has the bits
//! [`KernelRows::eval_into`] gives the same pair (and so
//! [`crate::pairwise_kernel`]'s): the raw values are its own first half, and the
//! finishing its second.
//!
//! On dense rows every raw value is symmetric, bit for bit (the inner product adds
//! `x_k y_k` in lanes by the column `k`, whichever row is the query, and chi2's and
//! the intersection's terms are symmetric in `x_k, y_k`): with `dense`, only the
//! values `j >= i` are computed and the others copied, half the work. CSR rows add
//! their products in lanes by position among the query row's stored entries, which
//! differs between the two rows of a pair: every value is computed.

use crate::data::rows::Rows;
use crate::error::{try_filled_vec, Error, Result};
use crate::kernels::function::{Kernel, KernelRows};
use crate::monitor::Monitor;
use crate::parallel::row_blocks;

/// The `gamma`-free values of `kernel` between every pair of rows of `rows`,
/// row-major `n x n` (see the module documentation); `dense` when `rows` is a dense
/// matrix (only `j >= i` computed). Rows in parallel blocks on `n_threads` threads
/// (0 = all cores; the values do not depend on it). Stops with
/// [`Error::Interrupted`] once `monitor` is stopped.
pub fn raw_gram<R: Rows>(
    kernel: Kernel,
    rows: &R,
    dense: bool,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let prep = KernelRows::new(kernel, rows)?;
    let n = rows.n_rows();
    let len = n
        .checked_mul(n)
        .ok_or_else(|| Error::OutOfMemory(format!("a {n} x {n} kernel matrix")))?;
    let mut out = try_filled_vec(len, 0.0, "the kernel matrix")?;
    if n == 0 {
        return Ok(out);
    }
    row_blocks(&mut out, n, n_threads, monitor, |first, chunk| {
        let mut q = prep.query();
        for (r, row) in chunk.chunks_mut(n).enumerate() {
            let i = first + r;
            prep.load(&mut q, rows, i)?;
            let from = if dense { i } else { 0 };
            prep.raw_into(&q, from, &mut row[from..]);
        }
        Ok(())
    })?;
    if dense {
        for i in 1..n {
            let (above, below) = out.split_at_mut(i * n);
            for (j, v) in below[..i].iter_mut().enumerate() {
                *v = above[j * n + i];
            }
        }
    }
    Ok(out)
}

/// The kernel matrix of `kernel` (with its `gamma`) between the rows of `rows`, from
/// [`raw_gram`]'s values `raw` for the same rows and a kernel of the same family
/// (any `gamma`): the bits [`crate::pairwise_kernel`] gives. In parallel blocks of
/// rows on `n_threads` threads; stops with [`Error::Interrupted`] once `monitor` is
/// stopped.
pub fn finish_gram<R: Rows>(
    kernel: Kernel,
    rows: &R,
    raw: &[f64],
    n_threads: usize,
    monitor: &Monitor,
) -> Result<Vec<f64>> {
    let prep = KernelRows::new(kernel, rows)?;
    let n = rows.n_rows();
    if n.checked_mul(n) != Some(raw.len()) {
        return Err(Error::ShapeMismatch(format!(
            "the raw kernel values hold {} values, not {n} x {n} for the rows",
            raw.len()
        )));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(raw.len())
        .map_err(|_| Error::OutOfMemory(format!("a {n} x {n} kernel matrix")))?;
    out.extend_from_slice(raw);
    if n == 0 {
        return Ok(out);
    }
    row_blocks(&mut out, n, n_threads, monitor, |first, chunk| {
        for (r, row) in chunk.chunks_mut(n).enumerate() {
            prep.finish_raw(first + r, 0, row);
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::rows::{CsrRows, DenseRows};
    use crate::kernels::function::Targets;

    /// Non-negative data with zeros (chi2 and intersection need non-negative rows).
    fn data(n: usize, d: usize) -> Vec<f64> {
        (0..n * d)
            .map(|v| {
                let u = ((v * 7919 + 13) % 101) as f64 / 37.0;
                if v % 3 == 0 {
                    0.0
                } else {
                    u
                }
            })
            .collect()
    }

    /// Every kernel value of `rows` through `eval_into`, row by row.
    fn direct<R: Rows>(kernel: Kernel, rows: &R) -> Vec<f64> {
        let prep = KernelRows::new(kernel, rows).unwrap();
        let n = rows.n_rows();
        let mut q = prep.query();
        let mut out = vec![0.0; n * n];
        for (i, row) in out.chunks_mut(n).enumerate() {
            prep.load(&mut q, rows, i).unwrap();
            prep.eval_into(&q, Targets::Range(0), row);
        }
        out
    }

    fn kernels(gamma: f64) -> [Kernel; 6] {
        [
            Kernel::Linear,
            Kernel::Rbf { gamma },
            Kernel::Poly {
                gamma,
                coef0: 0.5,
                degree: 3,
            },
            Kernel::Sigmoid { gamma, coef0: -0.2 },
            Kernel::Chi2 { gamma },
            Kernel::Intersection,
        ]
    }

    /// Raw values computed with one gamma and finished with another give the bits
    /// of the kernel with that other gamma, evaluated directly, on dense rows (half
    /// the values computed) and on CSR rows (all), for 1 and 3 threads.
    #[test]
    fn finished_raw_values_are_the_kernels_values_bit_for_bit() {
        let (n, d) = (37, 11);
        let x = data(n, d);
        let dense = DenseRows::new(&x, n, d).unwrap();
        let (mut vals, mut idx, mut ptr) = (Vec::new(), Vec::new(), vec![0i32]);
        for row in x.chunks(d) {
            for (k, &v) in row.iter().enumerate().rev() {
                if v != 0.0 {
                    vals.push(v);
                    idx.push(k as i32);
                }
            }
            ptr.push(vals.len() as i32);
        }
        let csr = CsrRows::new(&vals, &idx, &ptr, n, d).unwrap();
        let monitor = Monitor::new();
        for (raw_kernel, kernel) in kernels(0.3).into_iter().zip(kernels(0.07)) {
            for threads in [1, 3] {
                let raw = raw_gram(raw_kernel, &dense, true, threads, &monitor).unwrap();
                let k = finish_gram(kernel, &dense, &raw, threads, &monitor).unwrap();
                assert_eq!(k, direct(kernel, &dense), "{kernel:?} dense");
                let raw = raw_gram(raw_kernel, &csr, false, threads, &monitor).unwrap();
                let k = finish_gram(kernel, &csr, &raw, threads, &monitor).unwrap();
                assert_eq!(k, direct(kernel, &csr), "{kernel:?} csr");
            }
        }
    }

    #[test]
    fn raw_values_of_other_rows_are_refused() {
        let x = data(4, 2);
        let rows = DenseRows::new(&x, 4, 2).unwrap();
        let monitor = Monitor::new();
        let err = finish_gram(Kernel::Linear, &rows, &[0.0; 9], 1, &monitor).unwrap_err();
        assert!(matches!(err, Error::ShapeMismatch(_)));
        let none = DenseRows::<f64>::new(&[], 0, 2).unwrap();
        assert!(raw_gram(Kernel::Linear, &none, true, 1, &monitor)
            .unwrap()
            .is_empty());
    }
}
