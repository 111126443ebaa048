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
use crate::solvers::shared::params::Sampling;

/// The mutable part of sampling: generator, cursor, current permutation.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    pub(crate) rng: Rng,
    /// Position in the shuffled permutation or in the visiting order.
    pub(crate) cursor: u64,
    /// Current permutation (`Sampling::Shuffle` only).
    pub(crate) perm: Permutation,
}

/// A permutation of the row indices `0..n`, stored in the narrowest unsigned type
/// that holds every index: `u32` up to 2^32 rows (half the memory of `u64` for the
/// sizes met in practice), `u64` beyond, so that no index is ever truncated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Permutation {
    /// Indices of at most 2^32 rows.
    Narrow(Vec<u32>),
    /// Indices of more than 2^32 rows.
    Wide(Vec<u64>),
}

impl Default for Permutation {
    fn default() -> Self {
        Self::Narrow(Vec::new())
    }
}

impl Permutation {
    /// Whether the indices of `n` rows need 64 bits (`n > 2^32`).
    pub fn is_wide(n: u64) -> bool {
        n > 1 << 32
    }

    /// `0, 1, ..., n - 1` in the index type [`Permutation::is_wide`] chooses.
    pub fn identity(n: usize) -> Self {
        if Self::is_wide(n as u64) {
            Self::Wide((0..n as u64).collect())
        } else {
            // Every index is below 2^32: no truncation.
            Self::Narrow((0..n).map(|i| i as u32).collect())
        }
    }

    /// The number of indices.
    pub fn len(&self) -> usize {
        match self {
            Self::Narrow(p) => p.len(),
            Self::Wide(p) => p.len(),
        }
    }

    /// The index at position `i`.
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        match self {
            Self::Narrow(p) => p[i] as usize,
            Self::Wide(p) => p[i] as usize,
        }
    }

    /// A fresh order: Fisher–Yates with `rng` (the same draws for either width).
    pub fn shuffle(&mut self, rng: &mut Rng) {
        match self {
            Self::Narrow(p) => rng.shuffle(p),
            Self::Wide(p) => rng.shuffle(p),
        }
    }

    /// The indices in order, as `u64`.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let (narrow, wide) = match self {
            Self::Narrow(p) => (p.as_slice(), &[][..]),
            Self::Wide(p) => (&[][..], p.as_slice()),
        };
        narrow
            .iter()
            .map(|&i| u64::from(i))
            .chain(wide.iter().copied())
    }
}

impl Sampler {
    /// A sampler on stream `stream` of `seed` (see [`Rng::stream`]).
    pub fn new(seed: u64, stream: u64) -> Self {
        Self {
            rng: Rng::stream(seed, stream),
            cursor: 0,
            perm: Permutation::default(),
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
                        s.perm = Permutation::identity(n);
                    }
                    s.perm.shuffle(&mut s.rng);
                    s.cursor = 0;
                }
                let i = s.perm.get(s.cursor as usize);
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
        if *sampling == Sampling::Balanced && task.is_regression() {
            return Err(Error::InvalidParameter(
                "balanced sampling draws from two classes; a regression has none".into(),
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_of_more_than_2_pow_32_rows_hold_64_bit_indices() {
        // The last index of 2^32 rows is u32::MAX; one row more needs 64 bits.
        assert!(!Permutation::is_wide(1 << 32));
        assert!(Permutation::is_wide((1 << 32) + 1));
        assert!(Permutation::is_wide(u64::MAX));
        assert!(matches!(Permutation::identity(5), Permutation::Narrow(_)));
    }

    #[test]
    fn either_width_draws_the_same_rows() {
        // A shuffle's swaps depend only on the length, so a wide permutation (as
        // for more than 2^32 rows) visits the rows a narrow one does.
        let keys = KeyDraws::new(Cow::Owned(Sampling::Shuffle), 1000, 0).unwrap();
        let mut narrow = Sampler::new(3, 0);
        let mut wide = Sampler::new(3, 0);
        // The identity in 64 bits, used up: the first draw shuffles it, as it
        // shuffles the narrow identity it makes.
        wide.perm = Permutation::Wide((0..1000).collect());
        wide.cursor = 1000;
        let a: Vec<Drawn> = (0..2500).map(|_| keys.draw(&mut narrow)).collect();
        let b: Vec<Drawn> = (0..2500).map(|_| keys.draw(&mut wide)).collect();
        assert_eq!(a, b);
        assert!(matches!(wide.perm, Permutation::Wide(_)));
        let mut seen: Vec<usize> = (0..1000).map(|i| wide.perm.get(i)).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
    }
}
