//! Drawing the examples of each step, shared by the linear and the kernel solver.
//!
//! [`Sampler`] is the part that changes (generator, position in a permutation or an
//! order) and is saved with a solver's state, so that a run continued from a saved
//! state draws exactly what an uninterrupted run would. `Draws` is what a fit
//! computes once from the parameters and the labels (class members for balanced
//! sampling, the checked visiting order).

use crate::error::{Error, Result};
use crate::params::Sampling;
use crate::rng::Rng;
use crate::task::BinaryTask;

/// The mutable part of sampling: generator, cursor, current permutation.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    pub(crate) rng: Rng,
    /// Position in the shuffled permutation or in the visiting order.
    pub(crate) cursor: u64,
    /// Current permutation (`Sampling::Shuffle` only).
    pub(crate) perm: Vec<u32>,
}

impl Sampler {
    /// A sampler on stream `stream` of `seed` (see [`Rng::stream`]).
    pub fn new(seed: u64, stream: u64) -> Self {
        Self {
            rng: Rng::stream(seed, stream),
            cursor: 0,
            perm: Vec::new(),
        }
    }
}

/// The fixed part of sampling for one fit.
pub(crate) struct Draws<'a> {
    sampling: &'a Sampling,
    n: usize,
    positives: Vec<usize>,
    negatives: Vec<usize>,
}

impl<'a> Draws<'a> {
    /// Check `sampling` against the task (order indices in range, both classes
    /// present for balanced sampling).
    pub(crate) fn new(sampling: &'a Sampling, task: &BinaryTask<'_>) -> Result<Self> {
        let n = task.len();
        if let Sampling::Order(order) = sampling {
            if let Some(&bad) = order.iter().find(|&&i| i >= n) {
                return Err(Error::InvalidParameter(format!(
                    "visiting order contains index {bad}, but there are only {n} samples"
                )));
            }
        }
        let (positives, negatives) = if *sampling == Sampling::Balanced {
            let (p, q) = task.split_by_class();
            if p.is_empty() || q.is_empty() {
                return Err(Error::InvalidInput(
                    "balanced sampling needs examples of both classes".into(),
                ));
            }
            (p, q)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Self {
            sampling,
            n,
            positives,
            negatives,
        })
    }

    /// The next example.
    #[inline]
    pub(crate) fn draw(&self, s: &mut Sampler) -> usize {
        let n = self.n;
        match self.sampling {
            Sampling::Uniform => s.rng.below(n as u64) as usize,
            Sampling::Shuffle => {
                if s.perm.len() != n || s.cursor >= n as u64 {
                    if s.perm.len() != n {
                        s.perm = (0..n as u32).collect();
                    }
                    s.rng.shuffle(&mut s.perm);
                    s.cursor = 0;
                }
                let i = s.perm[s.cursor as usize] as usize;
                s.cursor += 1;
                i
            }
            Sampling::Balanced => {
                let side = if s.rng.below(2) == 1 {
                    &self.positives
                } else {
                    &self.negatives
                };
                side[s.rng.below(side.len() as u64) as usize]
            }
            Sampling::Order(order) => {
                let i = order[(s.cursor % order.len() as u64) as usize];
                s.cursor = (s.cursor + 1) % order.len() as u64;
                i
            }
        }
    }
}
