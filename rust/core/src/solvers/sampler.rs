//! Drawing the examples of each step, shared by the linear and the kernel solver.
//!
//! [`Sampler`] is the part that changes (generator, position in a permutation or an
//! order) and is saved with a solver's state, so that a run continued from a saved
//! state draws exactly what an uninterrupted run would. `Draws` is what a fit
//! computes once from the parameters and the labels (class members for balanced
//! sampling, the checked visiting order).

use std::borrow::Cow;

use crate::data::task::BinaryTask;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::solvers::params::Sampling;

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

/// One draw of a [`KeyDraws`]: a row, or the rank of an example within its class
/// (balanced sampling), which the data's owner turns into a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// Row index in `[0, n)`.
    Row(usize),
    /// The `r`-th positive example (rows in increasing order).
    Positive(usize),
    /// The `r`-th negative example (rows in increasing order).
    Negative(usize),
}

/// The fixed part of sampling that needs only counts: the number of rows and, for
/// balanced sampling, the class sizes. It consumes the generator exactly as the
/// in-memory solver does, so a caller holding the rows elsewhere (a cluster) draws
/// the same examples.
#[derive(Clone, Debug)]
pub struct KeyDraws<'a> {
    sampling: Cow<'a, Sampling>,
    n: usize,
    n_pos: usize,
    n_neg: usize,
}

impl<'a> KeyDraws<'a> {
    /// Check `sampling` against `n` rows of which `n_pos` are positive (order
    /// indices in range, both classes present for balanced sampling).
    pub fn new(sampling: Cow<'a, Sampling>, n: usize, n_pos: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::InvalidInput("no samples to train on".into()));
        }
        if n_pos > n {
            return Err(Error::InvalidInput(format!(
                "{n_pos} positive examples among {n} rows"
            )));
        }
        if let Sampling::Order(order) = &*sampling {
            if let Some(&bad) = order.iter().find(|&&i| i >= n) {
                return Err(Error::InvalidParameter(format!(
                    "visiting order contains index {bad}, but there are only {n} samples"
                )));
            }
        }
        let n_neg = n - n_pos;
        if *sampling == Sampling::Balanced && (n_pos == 0 || n_neg == 0) {
            return Err(Error::InvalidInput(
                "balanced sampling needs examples of both classes".into(),
            ));
        }
        Ok(Self {
            sampling,
            n,
            n_pos,
            n_neg,
        })
    }

    /// The next draw.
    #[inline]
    pub fn draw(&self, s: &mut Sampler) -> Drawn {
        let n = self.n;
        match &*self.sampling {
            Sampling::Uniform => Drawn::Row(s.rng.below(n as u64) as usize),
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
                Drawn::Row(i)
            }
            Sampling::Balanced => {
                if s.rng.below(2) == 1 {
                    Drawn::Positive(s.rng.below(self.n_pos as u64) as usize)
                } else {
                    Drawn::Negative(s.rng.below(self.n_neg as u64) as usize)
                }
            }
            Sampling::Order(order) => {
                let i = order[(s.cursor % order.len() as u64) as usize];
                s.cursor = (s.cursor + 1) % order.len() as u64;
                Drawn::Row(i)
            }
        }
    }
}

/// The fixed part of sampling for one in-memory fit: [`KeyDraws`] plus the rows of
/// each class, so that a draw is a row.
pub(crate) struct Draws<'a> {
    keys: KeyDraws<'a>,
    positives: Vec<usize>,
    negatives: Vec<usize>,
}

impl<'a> Draws<'a> {
    /// Check `sampling` against the task (order indices in range, both classes
    /// present for balanced sampling).
    pub(crate) fn new(sampling: &'a Sampling, task: &BinaryTask<'_>) -> Result<Self> {
        let (positives, negatives) = if *sampling == Sampling::Balanced {
            task.split_by_class()
        } else {
            (Vec::new(), Vec::new())
        };
        let n_pos = if *sampling == Sampling::Balanced {
            positives.len()
        } else {
            0
        };
        Ok(Self {
            keys: KeyDraws::new(Cow::Borrowed(sampling), task.len(), n_pos)?,
            positives,
            negatives,
        })
    }

    /// The next example.
    #[inline]
    pub(crate) fn draw(&self, s: &mut Sampler) -> usize {
        match self.keys.draw(s) {
            Drawn::Row(i) => i,
            Drawn::Positive(r) => self.positives[r],
            Drawn::Negative(r) => self.negatives[r],
        }
    }
}
