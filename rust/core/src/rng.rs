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

/// The generator pinned to the authors' published reference code, independently of
/// the golden values above (which were produced by this file).
///
/// Where the constants come from:
/// * `SPLITMIX_1234567`: the first five outputs of Vigna's reference `splitmix64.c`
///   (<https://prng.di.unimi.it/splitmix64.c>) started at `x = 1234567`; these are
///   the values published widely as SplitMix64's test vector (for example Rosetta
///   Code, "Pseudo-random numbers/Splitmix64").
/// * `XOSHIRO_1234`: the first ten outputs of Blackman and Vigna's reference
///   `xoshiro256plusplus.c` (<https://prng.di.unimi.it/xoshiro256plusplus.c>) from
///   `s = {1, 2, 3, 4}`, the vector of `rand_xoshiro`'s own `reference` test.
/// * `JUMP_*`, `SEED_*`: the two reference C files above, unchanged, compiled with gcc
///   and driven by a small `main` (set `s` or seed `s` with four `splitmix64` outputs,
///   call `jump()`, print the state and the next outputs).
/// * The `rand_xoshiro` crate (dev-dependency), whose tests check it against the same
///   reference C code, as a second implementation for many seeds and states.
#[cfg(test)]
mod reference_tests {
    use super::{Rng, SplitMix64};
    use rand_xoshiro::rand_core::{Rng as _, SeedableRng as _};

    const SPLITMIX_1234567: [u64; 5] = [
        6_457_827_717_110_365_317,
        3_203_168_211_198_807_973,
        9_817_491_932_198_370_423,
        4_593_380_528_125_082_431,
        16_408_922_859_458_223_821,
    ];

    const XOSHIRO_1234: [u64; 10] = [
        41_943_041,
        58_720_359,
        3_588_806_011_781_223,
        3_591_011_842_654_386,
        9_228_616_714_210_784_205,
        9_973_669_472_204_895_162,
        14_011_001_112_246_962_877,
        12_406_186_145_184_390_807,
        15_849_039_046_786_891_736,
        10_450_023_813_501_588_000,
    ];

    /// `s = {1, 2, 3, 4}; jump();` then the state and the next five outputs.
    const JUMP_1234_STATE: [u64; 4] = [
        0x8c7a_1539_56b5_f3d1,
        0x701f_1a71_3401_d85e,
        0x6527_f66a_6546_9085,
        0x8386_b786_c440_8050,
    ];
    const JUMP_1234_OUTPUTS: [u64; 5] = [
        17_043_750_140_134_683_703,
        2_364_973_248_208_838_314,
        13_951_431_646_535_487_319,
        8_066_193_832_155_293_345,
        10_838_999_831_620_499_216,
    ];
    /// ... then `jump()` again (after those five outputs).
    const JUMP_1234_SECOND_STATE: [u64; 4] = [
        0x18f8_0e23_0177_b392,
        0xc1ed_b601_2cb4_1e16,
        0xe1fa_9ca3_7038_482e,
        0x91f6_403f_55b3_f1c3,
    ];

    /// `x = 0; s[i] = splitmix64 next()` for i = 0..4: the state, the first three
    /// outputs, and the state after three `jump()`s of the seeded generator with its
    /// first output.
    const SEED0_STATE: [u64; 4] = [
        0xe220_a839_7b1d_cdaf,
        0x6e78_9e6a_a1b9_65f4,
        0x06c4_5d18_8009_454f,
        0xf88b_b8a8_724c_81ec,
    ];
    const SEED0_OUTPUTS: [u64; 3] = [
        5_987_356_902_031_041_503,
        7_051_070_477_665_621_255,
        6_633_766_593_972_829_180,
    ];
    const SEED0_JUMP3_STATE: [u64; 4] = [
        0x2499_31da_5d87_829c,
        0xf690_e418_0d8f_a66c,
        0xf645_189f_c91a_9ff1,
        0xa26d_ea1b_c644_abe0,
    ];
    const SEED0_JUMP3_OUTPUT: u64 = 2_281_943_962_663_716_393;
    /// The same for `x = 42` (the seed of the golden values in `tests`).
    const SEED42_STATE: [u64; 4] = [
        0xbdd7_3226_2feb_6e95,
        0x28ef_e333_b266_f103,
        0x4752_6757_130f_9f52,
        0x581c_e1ff_0e4a_e394,
    ];
    const SEED42_JUMP3_STATE: [u64; 4] = [
        0xeaf4_3ca1_fd59_b7b5,
        0x1e2d_c15c_c4ad_4ba0,
        0x8e44_bc17_7ee1_d7e6,
        0x9cf1_1261_ebb8_6aac,
    ];

    #[test]
    fn splitmix64_matches_the_reference_code() {
        let mut sm = SplitMix64::new(1_234_567);
        let got: Vec<u64> = (0..5).map(|_| sm.next_u64()).collect();
        assert_eq!(got, SPLITMIX_1234567);
    }

    #[test]
    fn xoshiro256pp_matches_the_reference_code() {
        let mut r = Rng::from_state([1, 2, 3, 4]).unwrap();
        let got: Vec<u64> = (0..10).map(|_| r.next_u64()).collect();
        assert_eq!(got, XOSHIRO_1234);
    }

    #[test]
    fn jump_matches_the_reference_code() {
        let mut r = Rng::from_state([1, 2, 3, 4]).unwrap();
        r.jump();
        assert_eq!(r.state(), JUMP_1234_STATE);
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(got, JUMP_1234_OUTPUTS);
        r.jump();
        assert_eq!(r.state(), JUMP_1234_SECOND_STATE);
    }

    #[test]
    fn seeding_and_streams_match_the_reference_code() {
        let mut r = Rng::seed_from_u64(0);
        assert_eq!(r.state(), SEED0_STATE);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, SEED0_OUTPUTS);
        let mut s = Rng::stream(0, 3);
        assert_eq!(s.state(), SEED0_JUMP3_STATE);
        assert_eq!(s.next_u64(), SEED0_JUMP3_OUTPUT);
        assert_eq!(Rng::seed_from_u64(42).state(), SEED42_STATE);
        assert_eq!(Rng::stream(42, 3).state(), SEED42_JUMP3_STATE);
    }

    fn words(bytes: [u8; 32]) -> [u64; 4] {
        std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
    }

    fn seed_bytes(state: [u64; 4]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, w) in out.chunks_exact_mut(8).zip(state) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    const SEEDS: [u64; 7] = [
        0,
        1,
        42,
        1_234_567,
        0x9E37_79B9_7F4A_7C15,
        u64::MAX - 1,
        u64::MAX,
    ];

    #[test]
    fn splitmix64_agrees_with_rand_xoshiro() {
        for seed in SEEDS {
            let mut ours = SplitMix64::new(seed);
            let mut theirs = rand_xoshiro::SplitMix64::seed_from_u64(seed);
            for i in 0..1000 {
                assert_eq!(
                    ours.next_u64(),
                    theirs.next_u64(),
                    "seed {seed}, output {i}"
                );
            }
        }
    }

    #[test]
    fn seeding_outputs_and_jumps_agree_with_rand_xoshiro() {
        for seed in SEEDS {
            let mut ours = Rng::seed_from_u64(seed);
            let mut theirs = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            assert_eq!(ours.state(), words(theirs.state()), "seed {seed}");
            for jumps in 0..4 {
                for i in 0..300 {
                    assert_eq!(
                        ours.next_u64(),
                        theirs.next_u64(),
                        "seed {seed}, after {jumps} jumps, output {i}"
                    );
                }
                ours.jump();
                theirs.jump();
                assert_eq!(
                    ours.state(),
                    words(theirs.state()),
                    "seed {seed}, jump {jumps}"
                );
            }
            // `stream(seed, c)` is the seeded generator jumped c times.
            let mut theirs = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            for c in 0..5 {
                assert_eq!(Rng::stream(seed, c).state(), words(theirs.state()));
                theirs.jump();
            }
        }
    }

    #[test]
    fn arbitrary_states_agree_with_rand_xoshiro() {
        // Explicit states (as restored from a saved solver), including sparse ones.
        let mut states = vec![[1, 0, 0, 0], [0, 0, 0, 1], [u64::MAX; 4], [1, 2, 3, 4]];
        let mut sm = SplitMix64::new(99);
        states.extend((0..20).map(|_| std::array::from_fn(|_| sm.next_u64())));
        for state in states {
            let mut ours = Rng::from_state(state).unwrap();
            let mut theirs = rand_xoshiro::Xoshiro256PlusPlus::from_seed(seed_bytes(state));
            assert_eq!(ours.state(), words(theirs.state()));
            for _ in 0..2 {
                for _ in 0..100 {
                    assert_eq!(ours.next_u64(), theirs.next_u64(), "state {state:x?}");
                }
                ours.jump();
                theirs.jump();
                assert_eq!(ours.state(), words(theirs.state()), "state {state:x?}");
            }
        }
    }
}
