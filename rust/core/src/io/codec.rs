//! Byte encoding of a [`LinearState`], so that a fit can be resumed exactly later
//! (`partial_fit`, `warm_start`, pickling).
//!
//! Layout (all integers and floats little-endian):
//!
//! ```text
//! magic  b"PGLSTATE"            8 bytes
//! version u32 = 1
//! kind u8                      (the solver and the state's part there, `StateKind`:
//!                               0 linear, 1 Crammer–Singer header, 2 Crammer–Singer class)
//! n_v u64, v [f64; n_v]         (n_features + 1 entries)
//! scale f64, sq_norm f64, bias f64, t u64
//! rng [u64; 4], cursor u64
//! n_perm u64, perm [u32; n_perm]   ([u64; n_perm] when n_perm > 2^32)
//! avg_start u64, n_u u64, u [f64; n_u], beta f64, bias_sum f64, count u64
//! ```

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::solvers::linear::binary::{LinearState, StateKind};
use crate::solvers::shared::sampler::{Permutation, Sampler};

const MAGIC: &[u8; 8] = b"PGLSTATE";
/// Step counters at or above this are refused (they could overflow when training
/// continues).
const MAX_COUNT: u64 = 1 << 62;

/// Version written by this release; readers reject any other.
pub const STATE_VERSION: u32 = 1;

impl LinearState {
    /// Encode the state (see the module documentation for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + 8 * (self.v.len() + self.avg_u.len()));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&STATE_VERSION.to_le_bytes());
        out.push(kind_tag(self.kind));
        put_f64s(&mut out, &self.v);
        for x in [self.scale, self.sq_norm, self.bias] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.t.to_le_bytes());
        for s in self.sampler.rng.state() {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend_from_slice(&self.sampler.cursor.to_le_bytes());
        put_permutation(&mut out, &self.sampler.perm);
        out.extend_from_slice(&self.avg_start.to_le_bytes());
        put_f64s(&mut out, &self.avg_u);
        out.extend_from_slice(&self.avg_beta.to_le_bytes());
        out.extend_from_slice(&self.avg_bias_sum.to_le_bytes());
        out.extend_from_slice(&self.avg_count.to_le_bytes());
        out
    }

    /// Decode bytes written by [`LinearState::to_bytes`]; any truncation, trailing
    /// data, wrong magic or other version is an [`Error::InvalidState`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8)? != MAGIC {
            return Err(Error::InvalidState("not a pegasos-rs solver state".into()));
        }
        let version = u32::from_le_bytes(r.array()?);
        if version != STATE_VERSION {
            return Err(Error::InvalidState(format!(
                "solver state version {version} is not supported (this release reads {STATE_VERSION})"
            )));
        }
        let [tag] = r.array()?;
        let kind = kind_of_tag(tag)?;
        let v = r.f64s()?;
        if v.is_empty() {
            return Err(Error::InvalidState("empty weight vector".into()));
        }
        let scale = r.f64()?;
        let sq_norm = r.f64()?;
        let bias = r.f64()?;
        let t = r.u64()?;
        let rng = Rng::from_state([r.u64()?, r.u64()?, r.u64()?, r.u64()?])
            .ok_or_else(|| Error::InvalidState("all-zero generator state".into()))?;
        let cursor = r.u64()?;
        let perm = read_permutation(&mut r)?;
        let avg_start = r.u64()?;
        let avg_u = r.f64s()?;
        let avg_beta = r.f64()?;
        let avg_bias_sum = r.f64()?;
        let avg_count = r.u64()?;
        if r.pos != bytes.len() {
            return Err(Error::InvalidState(
                "trailing bytes after the solver state".into(),
            ));
        }
        if !(avg_u.is_empty() || avg_u.len() == v.len()) || !(scale > 0.0 && scale.is_finite()) {
            return Err(Error::InvalidState("inconsistent solver state".into()));
        }
        // Counters a run increments: far from overflowing in any real run (2^62
        // steps), and no more steps averaged than taken.
        // Weighted averaging counts the sum of the step numbers averaged.
        let most_averaged = t.saturating_mul(t.saturating_add(1)) / 2;
        if t >= MAX_COUNT || cursor >= MAX_COUNT || avg_count > most_averaged {
            return Err(Error::InvalidState(format!(
                "implausible step counts in the solver state (t = {t}, cursor = {cursor}, \
                 averaged steps = {avg_count})"
            )));
        }
        Ok(Self {
            v,
            scale,
            sq_norm,
            bias,
            t,
            sampler: Sampler { rng, cursor, perm },
            avg_start,
            avg_u,
            avg_beta,
            avg_bias_sum,
            avg_count,
            kind,
        })
    }
}

/// The byte that tags a state of `kind`.
fn kind_tag(kind: StateKind) -> u8 {
    match kind {
        StateKind::Linear => 0,
        StateKind::CrammerSingerHeader => 1,
        StateKind::CrammerSingerClass => 2,
    }
}

/// The kind a state's tag byte names; an [`Error::InvalidState`] for another byte.
fn kind_of_tag(tag: u8) -> Result<StateKind> {
    Ok(match tag {
        0 => StateKind::Linear,
        1 => StateKind::CrammerSingerHeader,
        2 => StateKind::CrammerSingerClass,
        _ => {
            return Err(Error::InvalidState(format!(
                "unknown solver in the state (tag {tag}): it was written by another release"
            )))
        }
    })
}

/// The length of `perm` as `u64`, then its indices, each in 4 bytes or, for more
/// than 2^32 rows, 8 (whatever the width `perm` holds them in).
fn put_permutation(out: &mut Vec<u8>, perm: &Permutation) {
    let n = perm.len() as u64;
    out.extend_from_slice(&n.to_le_bytes());
    if Permutation::is_wide(n) {
        perm.iter()
            .for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
    } else {
        // Every index is below n <= 2^32.
        perm.iter()
            .for_each(|i| out.extend_from_slice(&(i as u32).to_le_bytes()));
    }
}

/// Read what [`put_permutation`] wrote, checking it is a permutation.
fn read_permutation(r: &mut Reader<'_>) -> Result<Permutation> {
    let at = r.pos;
    let wide = Permutation::is_wide(r.u64()?);
    r.pos = at;
    let perm = if wide {
        let n = r.len(8)?;
        Permutation::Wide((0..n).map(|_| r.u64()).collect::<Result<_>>()?)
    } else {
        let n = r.len(4)?;
        let narrow = (0..n).map(|_| r.array().map(u32::from_le_bytes));
        Permutation::Narrow(narrow.collect::<Result<_>>()?)
    };
    check_permutation(&perm)?;
    Ok(perm)
}

/// A saved permutation holds each of `0..perm.len()` once (a draw indexes the rows
/// with it).
fn check_permutation(perm: &Permutation) -> Result<()> {
    let mut seen = vec![false; perm.len()];
    for p in perm.iter() {
        match usize::try_from(p).ok().and_then(|p| seen.get_mut(p)) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(Error::InvalidState(format!(
                    "the saved permutation of {} rows holds {p} twice or out of range",
                    perm.len()
                )))
            }
        }
    }
    Ok(())
}

const MANY_MAGIC: &[u8; 8] = b"PGLSTSET";

/// The shortest encoded state: magic, version, kind, one weight, three floats, t,
/// the generator, cursor, an empty permutation, `avg_start`, an empty average, two
/// floats, count.
const MIN_STATE_BYTES: usize = 8 + 4 + 1 + 8 + 8 + 24 + 8 + 32 + 8 + 8 + 8 + 8 + 16 + 8;

/// Encode the states of all binary problems of a model: `b"PGLSTSET"`, the count as
/// `u64`, then each state as a `u64` byte length followed by [`LinearState::to_bytes`].
pub fn encode_states(states: &[LinearState]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MANY_MAGIC);
    out.extend_from_slice(&(states.len() as u64).to_le_bytes());
    for s in states {
        let b = s.to_bytes();
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(&b);
    }
    out
}

/// Decode [`encode_states`]'s output.
pub fn decode_states(bytes: &[u8]) -> Result<Vec<LinearState>> {
    let mut r = Reader { bytes, pos: 0 };
    if r.take(8)? != MANY_MAGIC {
        return Err(Error::InvalidState(
            "not a pegasos-rs solver state set".into(),
        ));
    }
    // Each state takes its length prefix and at least MIN_STATE_BYTES: the count is
    // checked against that, so the vector reserved is never much larger than the
    // input (a `LinearState` is about 200 bytes).
    let n = r.len(8 + MIN_STATE_BYTES)?;
    let mut states = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.len(1)?;
        states.push(LinearState::from_bytes(r.take(len)?)?);
    }
    if r.pos != bytes.len() {
        return Err(Error::InvalidState(
            "trailing bytes after the solver states".into(),
        ));
    }
    Ok(states)
}

fn put_f64s(out: &mut Vec<u8>, xs: &[f64]) {
    out.extend_from_slice(&(xs.len() as u64).to_le_bytes());
    for x in xs {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| Error::InvalidState("truncated solver state".into()))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u64(&mut self) -> Result<u64> {
        self.array().map(u64::from_le_bytes)
    }
    fn f64(&mut self) -> Result<f64> {
        self.array().map(f64::from_le_bytes)
    }
    /// A length prefix for items of `item` bytes, checked against what remains
    /// (so that nothing larger than the input is ever allocated).
    fn len(&mut self, item: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.u64()?;
        let left = self.bytes.len() - self.pos;
        match usize::try_from(n).ok().and_then(|n| n.checked_mul(item)) {
            Some(b) if b <= left => Ok(b / item.max(1)),
            _ => Err(Error::InvalidState(format!(
                "truncated solver state: the length at byte {at} announces {n} items of \
                 {item} bytes, {left} bytes follow"
            ))),
        }
    }
    fn f64s(&mut self) -> Result<Vec<f64>> {
        let n = self.len(8)?;
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::linear::binary::StateKind;

    #[test]
    fn round_trip_and_corruption() {
        let mut s = LinearState::new(5, 9, 2).unwrap();
        s.v[3] = 1.5;
        s.t = 17;
        s.sampler.perm = Permutation::Narrow(vec![2, 0, 1]);
        s.avg_u = vec![0.5; 6];
        s.avg_count = 3;
        let b = s.to_bytes();
        assert_eq!(LinearState::from_bytes(&b).unwrap(), s);
        for cut in [0, 7, 12, b.len() - 1] {
            assert!(matches!(
                LinearState::from_bytes(&b[..cut]),
                Err(Error::InvalidState(_))
            ));
        }
        let mut future = b.clone();
        future[8] = 9;
        assert!(LinearState::from_bytes(&future).is_err());
        let mut long = b;
        long.push(0);
        assert!(LinearState::from_bytes(&long).is_err());
    }

    #[test]
    fn a_permutation_keeps_its_indices_whatever_its_width() {
        // Narrow or wide in memory, a permutation of n <= 2^32 rows is written in
        // 4-byte indices (the layout of every file so far) and read back narrow.
        for perm in [
            Permutation::Narrow(vec![2, 0, 1]),
            Permutation::Wide(vec![2, 0, 1]),
        ] {
            let mut out = Vec::new();
            put_permutation(&mut out, &perm);
            assert_eq!(out.len(), 8 + 3 * 4);
            let back = read_permutation(&mut Reader {
                bytes: &out,
                pos: 0,
            })
            .unwrap();
            assert_eq!(back, Permutation::Narrow(vec![2, 0, 1]));
        }
        // A length over 2^32 announces 8-byte indices: checked against the bytes
        // that follow before anything is allocated.
        let mut out = ((1u64 << 32) + 1).to_le_bytes().to_vec();
        out.extend_from_slice(&[0; 16]);
        let e = read_permutation(&mut Reader {
            bytes: &out,
            pos: 0,
        })
        .unwrap_err();
        assert!(e.to_string().contains("items of 8 bytes"), "{e}");
    }

    #[test]
    fn absurd_lengths_and_bad_permutations_are_errors() {
        let mut s = LinearState::new(2, 0, 0).unwrap();
        s.sampler.perm = Permutation::Narrow(vec![1, 0, 2]);
        let b = s.to_bytes();
        // n_v = 10^15: refused before allocating (13 = magic + version + kind).
        let mut huge = b.clone();
        huge[13..21].copy_from_slice(&1_000_000_000_000_000u64.to_le_bytes());
        let e = LinearState::from_bytes(&huge).unwrap_err();
        assert!(
            e.to_string().contains("announces 1000000000000000 items"),
            "{e}"
        );
        huge[13..21].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(LinearState::from_bytes(&huge).is_err());
        // A state set announcing 10^15 states.
        let mut set = encode_states(&[s.clone()]);
        set[8..16].copy_from_slice(&1_000_000_000_000_000u64.to_le_bytes());
        assert!(matches!(decode_states(&set), Err(Error::InvalidState(_))));
        // A count that only the length prefixes could hold (8 bytes each) is refused
        // before reserving room for that many states.
        let mut zeros = encode_states(&[]);
        zeros[8..16].copy_from_slice(&1000u64.to_le_bytes());
        zeros.resize(16 + 8000, 0);
        let e = decode_states(&zeros).unwrap_err();
        assert!(
            e.to_string().contains("announces 1000 items of 157 bytes"),
            "{e}"
        );
        // The shortest state is MIN_STATE_BYTES long.
        let short = LinearState::new(0, 0, 0).unwrap().to_bytes();
        assert_eq!(short.len(), MIN_STATE_BYTES);
        // Permutation entries out of range or repeated would index rows that do not
        // exist when a shuffled fit resumes.
        let perm_at = b.len() - 8 * 5 - 12;
        for bad in [[7u8, 0, 0, 0], [0, 0, 0, 0]] {
            let mut c = b.clone();
            c[perm_at..perm_at + 4].copy_from_slice(&bad);
            let e = LinearState::from_bytes(&c).unwrap_err();
            assert!(e.to_string().contains("permutation"), "{e}");
        }
    }

    #[test]
    fn counters_that_could_overflow_are_errors() {
        // Fuzz finding: a state with avg_count = u64::MAX decoded, and the next
        // averaged step overflowed (a panic in debug builds, a wrap in release).
        let s = LinearState::new(2, 0, 0).unwrap();
        let b = s.to_bytes();
        let n = b.len();
        for (at, value) in [
            (n - 8, u64::MAX),            // avg_count
            (n - 8, 1),                   // avg_count > t = 0
            (13 + 8 + 24 + 24, u64::MAX), // t (after magic, version, kind, v of 3, 3 floats)
        ] {
            let mut c = b.clone();
            c[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let e = LinearState::from_bytes(&c).unwrap_err();
            assert!(e.to_string().contains("implausible step counts"), "{e}");
        }
    }

    /// A state's kind is its tag byte, after the version: it survives the round trip,
    /// and a tag of no solver is refused by what it is.
    #[test]
    fn the_solver_kind_is_tagged_and_unknown_tags_are_refused() {
        for (kind, tag) in [
            (StateKind::Linear, 0u8),
            (StateKind::CrammerSingerHeader, 1),
            (StateKind::CrammerSingerClass, 2),
        ] {
            let mut s = LinearState::new(2, 3, 0).unwrap();
            s.kind = kind;
            let b = s.to_bytes();
            assert_eq!(b[12], tag);
            let back = LinearState::from_bytes(&b).unwrap();
            assert_eq!((back.kind(), &back), (kind, &s));
        }
        let mut b = LinearState::new(2, 3, 0).unwrap().to_bytes();
        b[12] = 9;
        let e = LinearState::from_bytes(&b).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown solver in the state (tag 9)"),
            "{e}"
        );
    }

    #[test]
    fn state_sets_round_trip() {
        let states = vec![
            LinearState::new(3, 1, 0).unwrap(),
            LinearState::new(3, 1, 1).unwrap(),
        ];
        let b = encode_states(&states);
        assert_eq!(decode_states(&b).unwrap(), states);
        assert!(decode_states(&b[..b.len() - 3]).is_err());
        assert!(decode_states(&[]).is_err());
    }

    #[test]
    fn crammer_singer_fit_continues_through_the_bytes_bit_for_bit() {
        use crate::data::labels::Labels;
        use crate::data::rows::{DenseRows, Rows};
        use crate::monitor::Monitor;
        use crate::solvers::linear::crammer_singer::fit_crammer_singer;
        use crate::solvers::shared::params::{Averaging, Intercept, Params, Sampling};
        let (n, d, k) = (50, 6, 3);
        let (x, codes) = crate::test_support::planted_classes(n, d, k as u32, 9, 8);
        let rows = DenseRows::new(&x, n, d).unwrap();
        let labels = Labels {
            codes: &codes,
            n_classes: k,
            sample_weight: None,
            class_weight: &[1.0; 3],
        };
        let fit = |max_iter, states: &mut Vec<LinearState>, p: &Params| {
            let p = Params {
                max_iter,
                ..p.clone()
            }
            .validate()
            .unwrap();
            let mut coef = vec![0.0; k * rows.n_features()];
            fit_crammer_singer(&rows, &labels, &p, states, &mut coef, &Monitor::new()).unwrap();
            coef
        };
        for averaging in [Averaging::Off, Averaging::Weighted] {
            for sampling in [Sampling::Uniform, Sampling::Shuffle] {
                let p = Params {
                    alpha: 0.02,
                    batch_size: 2,
                    intercept: Intercept::Unregularized,
                    averaging,
                    sampling: sampling.clone(),
                    seed: 11,
                    ..Params::default()
                };
                let mut whole = vec![];
                let c4 = fit(4, &mut whole, &p);
                let mut split = vec![];
                fit(2, &mut split, &p);
                let mut split = decode_states(&encode_states(&split)).unwrap();
                let c2 = fit(2, &mut split, &p);
                assert_eq!(c4, c2, "{averaging:?} {sampling:?}");
                assert_eq!(whole, split, "{averaging:?} {sampling:?}");
            }
        }
    }
}
