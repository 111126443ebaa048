//! The workers' side of iterative parameter mixing (`pegasos_rs.dask`'s parallel
//! mode): one local pass of linear Pegasos over a partition, from the shared
//! iterate, for each binary problem of one-vs-rest or the one problem of a
//! regression. The client averages the local iterates and starts the next round
//! from the mean.
//!
//! A local pass is `ceil(rows / batch_size)` steps of the paper's update
//! (Shalev-Shwartz, Singer, Srebro, Cotter, "Pegasos", Math. Programming 2011,
//! section 2): `w <- (1 - 1/t) w + 1/(alpha t k) sum c_i y_i x_i` over the margin
//! violators of the drawn batch, projected onto the ball of radius
//! `sqrt(L0/alpha)`, where `L0`, the mean weighted loss at zero, comes from the whole
//! training set (given, since a partition does not know it).

use std::borrow::Cow;

use crate::data::examples::Examples;
use crate::data::rows::Rows;
use crate::error::{Error, Result};
use crate::monitor::Monitor;
use crate::parallel::for_each_problem;
use crate::solvers::linear::binary::{run_steps_in_part, steps_per_pass, LinearState};
use crate::solvers::shared::params::{Params, Sampling, ValidParams};

/// Where a local pass starts: one iterate per problem, the steps taken so far and
/// the training set's mean losses at zero.
#[derive(Clone, Copy, Debug)]
pub struct LocalPass<'a> {
    /// The weights of each problem, row-major, `n_features + 1` entries a row (the
    /// last the bias-multiplier feature's weight).
    pub v: &'a [f64],
    /// The unregularised bias of each problem.
    pub bias: &'a [f64],
    /// Steps taken so far (a fresh fit of a loss that starts late: its first step
    /// minus 1, [`StreamedFit::first_steps`](crate::StreamedFit::first_steps)).
    pub t: u64,
    /// Mean weighted loss at zero `L0` of each problem over the whole training set,
    /// which sets the projection radius.
    pub zero_loss: &'a [f64],
    /// Also average each local run's iterates.
    pub average: bool,
}

/// One problem's result of a local pass: the last iterate `(w, bias)` and the mean
/// of the iterates (the last one when the pass was not asked to average).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalIterates {
    /// The last iterate.
    pub last: (Vec<f64>, f64),
    /// The mean of the pass's iterates.
    pub mean: (Vec<f64>, f64),
}

impl LocalPass<'_> {
    /// Run one local pass of every problem of `examples` over `rows`, problem `p`
    /// drawing with stream `p` of `seed`, on `n_threads` threads (0: all cores);
    /// `monitor` stops it. A problem whose partition lacks one of its classes
    /// samples uniformly when `params` asks for balanced sampling.
    ///
    /// Fails with [`Error::ShapeMismatch`] when the iterates do not match the
    /// problems or the rows' width.
    pub fn run<R: Rows>(
        &self,
        rows: &R,
        examples: &Examples<'_>,
        params: &ValidParams,
        seed: u64,
        n_threads: usize,
        monitor: &Monitor,
    ) -> Result<Vec<LocalIterates>> {
        let k = examples.n_problems();
        let width = rows.n_features() + 1;
        self.check(k, width)?;
        examples.check(rows.n_rows())?;
        let uniform = Params {
            sampling: Sampling::Uniform,
            ..(**params).clone()
        }
        .validate()?;
        let steps = steps_per_pass(rows.n_rows(), params.batch_size);
        for_each_problem((0..k).collect(), n_threads, |p, _| {
            let task = examples.task(p)?;
            let v = self.v[p * width..(p + 1) * width].to_vec();
            let mut state = LinearState::at_iterate(v, self.bias[p], self.t, seed, p as u64)?;
            let (pos, neg) = task.split_by_class();
            let one_class = pos.is_empty() || neg.is_empty();
            let use_params = if params.sampling == Sampling::Balanced && one_class {
                Cow::Borrowed(&uniform)
            } else {
                Cow::Borrowed(params)
            };
            if self.average {
                state.average_from_next_step()?;
            }
            if rows.n_rows() > 0 {
                let l0 = self.zero_loss[p];
                run_steps_in_part(rows, &task, &use_params, l0, &mut state, steps, monitor)?;
            }
            let last = state.iterate();
            let mean = state.averaged().unwrap_or_else(|| last.clone());
            Ok(LocalIterates { last, mean })
        })
    }

    /// The start holds one iterate of `width` entries, a bias and a loss at zero
    /// per problem.
    fn check(&self, k: usize, width: usize) -> Result<()> {
        let (n_bias, n_zero) = (self.bias.len(), self.zero_loss.len());
        if n_bias != k || n_zero != k {
            return Err(Error::ShapeMismatch(format!(
                "{} iterate values, {n_bias} biases and {n_zero} zero losses for {k} problems",
                self.v.len()
            )));
        }
        if self.v.len() != k * width {
            return Err(Error::ShapeMismatch(format!(
                "{} iterate values: {k} iterates of {} entries for {} features (+1)",
                self.v.len(),
                width,
                width - 1
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::labels::Labels;
    use crate::data::rows::DenseRows;
    use crate::solvers::linear::binary::{run_steps_in_part, LinearState};
    use crate::test_support::planted;

    /// A local pass from a given iterate is the solver's run of one pass from that
    /// iterate, bit for bit; the mean is returned when asked.
    #[test]
    fn a_local_pass_is_one_pass_of_the_solver() {
        let (n, d) = (120, 5);
        let (x, codes) = planted(n, d, 3, |j, v| if j < 2 { v } else { -v }, 0.0);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let labels = Labels::unweighted(&codes, &[1.0, 1.0]);
        let examples = Examples::Classes(labels);
        let params = Params {
            alpha: 1e-2,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let v: Vec<f64> = (0..=d).map(|j| j as f64 * 0.01).collect();
        let pass = LocalPass {
            v: &v,
            bias: &[0.5],
            t: 40,
            zero_loss: &[1.0],
            average: true,
        };
        let got = pass
            .run(&rows, &examples, &params, 8, 1, &Monitor::new())
            .unwrap();

        let mut state = LinearState::at_iterate(v.clone(), 0.5, 40, 8, 0).unwrap();
        state.average_from_next_step().unwrap();
        let task = labels.task(0).unwrap();
        run_steps_in_part(
            &rows,
            &task,
            &params,
            1.0,
            &mut state,
            n as u64,
            &Monitor::new(),
        )
        .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].last, state.iterate());
        assert_eq!(Some(got[0].mean.clone()), state.averaged());
        assert_ne!(got[0].last, got[0].mean);
    }

    /// Iterates that do not fit the problems or the rows are refused by name.
    #[test]
    fn iterates_of_the_wrong_shape_are_refused() {
        let x = [1.0, 0.0, 0.0, 1.0];
        let rows = DenseRows::new(&x, 2, 2).unwrap();
        let task = crate::data::task::BinaryTask::regression(&[1.0, -1.0], None).unwrap();
        let examples = Examples::Regression(task);
        let params = Params {
            loss: crate::solvers::shared::loss::LossFunction::SquaredError,
            ..Params::default()
        }
        .validate()
        .unwrap();
        let run = |v: &[f64], bias: &[f64]| {
            LocalPass {
                v,
                bias,
                t: 0,
                zero_loss: &[1.0],
                average: false,
            }
            .run(&rows, &examples, &params, 0, 1, &Monitor::new())
        };
        let e = run(&[0.0; 4], &[0.0]).unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch(_)), "{e}");
        assert!(e.to_string().contains("(+1)"), "{e}");
        let e = run(&[0.0; 3], &[0.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("2 biases"), "{e}");
        let ok = run(&[0.0; 3], &[0.0]);
        assert!(ok.is_ok(), "{ok:?}");
    }
}
