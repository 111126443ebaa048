//! A portable, seeded pseudo-random generator and the index sampling built on it.
//!
//! # Guarantee
//! The same `u64` seed yields the same stream of numbers on every platform, for every
//! thread count, and in every release that does not announce a change. Everything
//! here is written in this crate with integer arithmetic only (no floating point,
//! no dependency whose output might change between versions), and pinned by
//! golden-value tests.
//!
//! # Algorithms
//! * Generator: xoshiro256++ (Blackman and Vigna, "Scrambled linear pseudorandom
//!   number generators", 2021), 256 bits of state.
//! * Seeding: the four state words are the first four outputs of SplitMix64
//!   started at the seed (the seeding procedure recommended by the authors).
//! * Independent streams: stream `c` of a seed is the seeded generator advanced by
//!   `c` applications of the xoshiro256 `jump()` polynomial (2^128 steps each), so
//!   one-vs-rest class `c` always draws the same numbers whichever thread runs it.
//! * Bounded integers: Lemire's nearly divisionless method ("Fast random integer
//!   generation in an interval", ACM TOMACS 2019): multiply a 64-bit draw by the
//!   bound, keep the high word, and reject the few low words below `2^64 mod n`,
//!   which makes every value in `[0, n)` exactly equally likely.
//! * Permutations: Fisher–Yates from the last position down, `j = below(i + 1)`.
//! * Uniform floats: the top 53 bits of a draw scaled by `2^-53`, an exact
//!   conversion (the one use of floating point here).

/// SplitMix64 (Steele, Lea, Flood 2014): used only to expand a seed into state.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// Start at `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// Next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// xoshiro256++ generator; see the module documentation for the guarantees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

const JUMP: [u64; 4] = [
    0x180E_C6D3_3CFD_0ABA,
    0xD5A6_1266_F0C9_392C,
    0xA958_2618_E03F_C9AA,
    0x39AB_DC45_29B1_661C,
];

impl Rng {
    /// Generator seeded from `seed` through SplitMix64.
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        Self { s }
    }

    /// Stream `stream` of `seed`: the seeded generator jumped `stream` times.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut rng = Self::seed_from_u64(seed);
        for _ in 0..stream {
            rng.jump();
        }
        rng
    }

    /// Generator with an explicit state (used to restore a saved solver).
    ///
    /// The all-zero state is a fixed point of xoshiro and is rejected.
    pub fn from_state(s: [u64; 4]) -> Option<Self> {
        if s == [0; 4] {
            None
        } else {
            Some(Self { s })
        }
    }

    /// The raw 256-bit state.
    pub fn state(&self) -> [u64; 4] {
        self.s
    }

    /// Next 64-bit output.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Advance by 2^128 steps.
    pub fn jump(&mut self) {
        let mut acc = [0u64; 4];
        for word in JUMP {
            for b in 0..64 {
                if word & (1u64 << b) != 0 {
                    for (a, s) in acc.iter_mut().zip(self.s) {
                        *a ^= s;
                    }
                }
                self.next_u64();
            }
        }
        self.s = acc;
    }

    /// Uniform integer in `[0, n)` by Lemire's method. `n` must be positive.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        let mut low = m as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// Uniform `f64` in `[0, 1)`: the top 53 bits of a draw times `2^-53` (exact, so
    /// the same on every platform).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        #[allow(clippy::cast_precision_loss)] // 53 bits: exact
        let top = (self.next_u64() >> 11) as f64;
        top * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Fisher–Yates shuffle in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_value() {
        // First output of SplitMix64 from state 0, as in the reference C code.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn xoshiro_reference_first_output() {
        // With state [1, 2, 3, 4]: rotl(1 + 4, 23) + 1.
        let mut r = Rng::from_state([1, 2, 3, 4]).unwrap();
        assert_eq!(r.next_u64(), (5u64 << 23) + 1);
    }

    #[test]
    fn golden_values_are_pinned() {
        // These values define the stream; changing them is a breaking change.
        let mut r = Rng::seed_from_u64(42);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, GOLDEN_SEED42);
        let mut r = Rng::seed_from_u64(42);
        let idx: Vec<u64> = (0..8).map(|_| r.below(10)).collect();
        assert_eq!(idx, GOLDEN_BELOW10);
        let mut s = Rng::stream(42, 3);
        assert_eq!(s.next_u64(), GOLDEN_STREAM3);
    }

    const GOLDEN_SEED42: [u64; 3] = [
        15_021_278_609_987_233_951,
        5_881_210_131_331_364_753,
        18_149_643_915_985_481_100,
    ];
    const GOLDEN_BELOW10: [u64; 8] = [8, 3, 9, 7, 7, 5, 1, 6];
    const GOLDEN_STREAM3: u64 = 7_847_739_724_056_603_228;

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::seed_from_u64(7);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn streams_differ_and_are_reproducible() {
        let a = Rng::stream(1, 0).next_u64();
        let b = Rng::stream(1, 1).next_u64();
        assert_ne!(a, b);
        assert_eq!(Rng::stream(1, 1).next_u64(), b);
        assert_eq!(Rng::stream(1, 0), Rng::seed_from_u64(1));
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<u32> = (0..100).collect();
        Rng::seed_from_u64(3).shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
