//! Byte encoding of a [`LinearState`], so that a fit can be resumed exactly later
//! (`partial_fit`, `warm_start`, pickling).
//!
//! Layout (all integers and floats little-endian):
//!
//! ```text
//! magic  b"PGLSTATE"            8 bytes
//! version u32 = 1
//! n_v u64, v [f64; n_v]         (n_features + 1 entries)
//! scale f64, sq_norm f64, bias f64, t u64
//! rng [u64; 4], cursor u64
//! n_perm u64, perm [u32; n_perm]
//! avg_start u64, n_u u64, u [f64; n_u], beta f64, bias_sum f64, count u64
//! ```

use crate::error::{Error, Result};
use crate::linear::LinearState;
use crate::rng::Rng;
use crate::sampler::Sampler;

const MAGIC: &[u8; 8] = b"PGLSTATE";
/// Version written by this release; readers reject any other.
pub const STATE_VERSION: u32 = 1;

impl LinearState {
    /// Encode the state (see the module documentation for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + 8 * (self.v.len() + self.avg_u.len()));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&STATE_VERSION.to_le_bytes());
        put_f64s(&mut out, &self.v);
        for x in [self.scale, self.sq_norm, self.bias] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.t.to_le_bytes());
        for s in self.sampler.rng.state() {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend_from_slice(&self.sampler.cursor.to_le_bytes());
        out.extend_from_slice(&(self.sampler.perm.len() as u64).to_le_bytes());
        for p in &self.sampler.perm {
            out.extend_from_slice(&p.to_le_bytes());
        }
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
        let n_perm = r.len(4)?;
        let perm = (0..n_perm)
            .map(|_| r.array().map(u32::from_le_bytes))
            .collect::<Result<Vec<u32>>>()?;
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
        })
    }
}

const MANY_MAGIC: &[u8; 8] = b"PGLSTSET";

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
    let n = r.len(8)?;
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
    /// A length prefix for items of `item` bytes, checked against what remains.
    fn len(&mut self, item: usize) -> Result<usize> {
        let n = usize::try_from(self.u64()?)
            .map_err(|_| Error::InvalidState("length does not fit in memory".into()))?;
        if n.checked_mul(item)
            .is_none_or(|b| b > self.bytes.len() - self.pos)
        {
            return Err(Error::InvalidState("truncated solver state".into()));
        }
        Ok(n)
    }
    fn f64s(&mut self) -> Result<Vec<f64>> {
        let n = self.len(8)?;
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let mut s = LinearState::new(5, 9, 2).unwrap();
        s.v[3] = 1.5;
        s.t = 17;
        s.sampler.perm = vec![2, 0, 1];
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
}
