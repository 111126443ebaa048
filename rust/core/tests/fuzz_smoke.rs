//! The short fuzz run CI does: the fuzz targets' bodies (`fuzz/src/lib.rs`, the same
//! code the AFL++ binaries run) over the committed seeds, the inputs the long runs
//! found (`fuzz/regressions/`), solver states made here, and a few thousand
//! deterministic mutations of each. The long run is in `fuzz/README.md`.
#![allow(clippy::cast_possible_truncation)]

use pegasos_core::Monitor;
use std::path::{Path, PathBuf};

#[allow(dead_code, missing_docs, clippy::pedantic)]
#[path = "../../../fuzz/src/lib.rs"]
mod targets;

use pegasos_core::io::codec::encode_states;
use pegasos_core::{Averaging, DenseRows, Labels, LinearState, LinearSvm, Params, Sampling};

/// Mutations of each seed.
const MUTATIONS: usize = 300;

/// Tokens the mutator inserts (the AFL++ dictionary's).
const TOKENS: &[&[u8]] = &[
    b":",
    b"\n",
    b"\r\n",
    b"#",
    b" ",
    b"\t",
    b"qid:",
    b"nan",
    b"inf",
    b"1e400",
    b"1e39",
    b"1e-400",
    b"2147483647",
    b"9223372036854775808",
    b"-",
    b"+",
    b".",
    b"0",
    b"e-",
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir` (none when it does not exist).
fn files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    paths
        .iter()
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// SplitMix64: the mutations are the same on every run.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four havoc edits: bit flips, random bytes, token insertions, deletions,
/// duplicated blocks, truncation, and length-field-sized integers.
fn mutate(seed: &[u8], rng: &mut Mix) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(8) {
            0 if !out.is_empty() => {
                let k = rng.below(out.len());
                out[k] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let k = rng.below(out.len());
                out[k] = rng.next() as u8;
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
            3 if at < out.len() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            4 if at < out.len() => {
                let end = (at + 1 + rng.below(32)).min(out.len());
                let block = out[at..end].to_vec();
                out.splice(at..at, block);
            }
            5 => out.truncate(at),
            6 if at + 8 <= out.len() => {
                let value: u64 = match rng.below(4) {
                    0 => 0,
                    1 => u64::MAX,
                    2 => 1 << rng.below(64),
                    _ => 10u64.pow(rng.below(20) as u32),
                };
                out[at..at + 8].copy_from_slice(&value.to_le_bytes());
            }
            _ => out.push(rng.next() as u8),
        }
    }
    out
}

fn run(seeds: &[Vec<u8>], target: fn(&[u8]), salt: u64) -> usize {
    let mut rng = Mix(salt);
    let mut runs = 0;
    for seed in seeds {
        target(seed);
        for _ in 0..MUTATIONS {
            target(&mutate(seed, &mut rng));
        }
        runs += 1 + MUTATIONS;
    }
    runs
}

fn svmlight_seeds() -> Vec<Vec<u8>> {
    let texts = files(&fuzz_dir().join("seeds/svmlight"));
    assert!(texts.len() >= 20, "the svmlight seeds are missing");
    texts
}

#[test]
fn svmlight_parse_survives_the_seeds_and_their_mutations() {
    let mut seeds = Vec::new();
    for text in svmlight_seeds() {
        for flags in 0..4u8 {
            seeds.push([&[flags][..], &text].concat());
        }
    }
    seeds.extend(files(&fuzz_dir().join("regressions/svmlight_parse")));
    let runs = run(&seeds, targets::svmlight_parse, 1);
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn svmlight_leading_survives_the_seeds_and_their_mutations() {
    let mut seeds = Vec::new();
    for text in svmlight_seeds() {
        // k = 1 (one-based), 2 (query ids), 3, 4 (one-based, query ids).
        for flags in [4, 9, 2, 15u8] {
            seeds.push([&[flags][..], &text].concat());
        }
    }
    let runs = run(&seeds, targets::svmlight_leading, 4);
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn svmlight_index_survives_the_seeds_and_their_mutations() {
    let mut seeds = Vec::new();
    for text in svmlight_seeds() {
        for base in [0, 1000, u64::MAX - 8] {
            seeds.push([&base.to_le_bytes()[..], &text].concat());
        }
    }
    seeds.extend(files(&fuzz_dir().join("regressions/svmlight_index")));
    run(&seeds, targets::svmlight_index, 2);
}

/// Encoded states after a few steps of each sampling scheme, with and without
/// averaging, on 6 rows of 3 features.
fn states() -> Vec<LinearState> {
    let x: Vec<f64> = (0..18).map(|k| f64::from(k % 5) - 2.0).collect();
    let codes = [0u32, 1, 0, 1, 1, 0];
    let rows = DenseRows::new(&x, 6, 3).unwrap();
    let labels = Labels::unweighted(&codes, &[1.0, 1.0]);
    let mut out = vec![LinearState::new(3, 0, 0).unwrap()];
    for (k, sampling) in [Sampling::Uniform, Sampling::Shuffle, Sampling::Balanced]
        .into_iter()
        .enumerate()
    {
        let params = Params {
            sampling,
            averaging: if k == 1 {
                Averaging::FromStep(2)
            } else {
                Averaging::Off
            },
            max_iter: 1,
            ..Params::default()
        };
        let mut states = vec![LinearState::new(3, 7, k as u64).unwrap()];
        LinearSvm::with_params(params)
            .fit_from(&rows, &labels, &mut states, &Monitor::new())
            .unwrap();
        out.extend(states);
    }
    out
}

#[test]
fn solver_state_survives_the_seeds_and_their_mutations() {
    let states = states();
    let mut seeds = Vec::new();
    // Selector: bit 0 one state or a set; bits 1-2 sampling; bit 3 averaging;
    // bits 5-7 rows - 1 (6 rows: a saved permutation is used).
    for which in [0xA0u8, 0xA2, 0xAA, 0xAC, 0x0E, 0x12] {
        seeds.push([&[which][..], &encode_states(&states)].concat());
        for s in &states {
            seeds.push([&[which | 1][..], &s.to_bytes()].concat());
        }
    }
    seeds.extend(files(&fuzz_dir().join("regressions/solver_state")));
    run(&seeds, targets::solver_state, 3);
}
