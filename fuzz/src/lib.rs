//! The fuzz targets' bodies: each runs one decoder of `pegasos-core` on arbitrary
//! bytes and panics (a finding) when it panics itself, or when its result breaks an
//! invariant that holds for every input. An error return is fine; a wrong array is
//! not.
//!
//! The AFL++ binaries in `src/bin/` call these functions; the core crate's test
//! `rust/core/tests/fuzz_smoke.rs` includes this file and replays the seeds in
//! `fuzz/seeds/` plus mutations of them (the short run CI does).

use pegasos_core::Monitor;

use pegasos_core::io::codec::{decode_states, encode_states};
use pegasos_core::io::svmlight::{
    index_rows, parse, write_line, Leading, ParseOptions, Svmlight, MAX_INDEX,
};
use pegasos_core::{
    Averaging, DenseRows, Error, Float, Intercept, Labels, LinearState, LinearSvm, Params, Sampling,
};

/// The longest message an error may carry (long tokens are cut).
const MAX_MESSAGE: usize = 400;

/// Target `svmlight_parse`: the first byte selects the options (bit 0: one-based,
/// bit 1: query ids), the rest is the text. Parses as `f64` and as `f32` and checks
/// the CSR arrays, the error positions, that the two types agree, that the row
/// index finds the same rows (each row's bytes parsing to that row alone) and that
/// writing the rows back reads back the same.
pub fn svmlight_parse(data: &[u8]) {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let options = ParseOptions {
        one_based: flags & 1 != 0,
        query_id: flags & 2 != 0,
        n_threads: 1,
        leading: Leading::Label,
    };
    let wide = parse::<f64>(text, options);
    let narrow = parse::<f32>(text, options);
    match (&wide, &narrow) {
        (Ok(w), Ok(n)) => {
            check_parsed(w, options);
            assert!(w.data.iter().all(|v| v.is_finite()));
            check_parsed(n, options);
            assert_eq!(w.indices, n.indices);
            assert_eq!(w.indptr, n.indptr);
            assert_eq!(w.labels, n.labels);
            assert_eq!(w.query_id, n.query_id);
            // f32 values are the f64 ones narrowed (beyond f32's range: infinite).
            for (a, b) in w.data.iter().zip(&n.data) {
                assert_eq!(f32::from_f64(*a).to_bits(), b.to_bits());
            }
            check_round_trip(w, options);
            check_row_index(text, w, options);
        }
        (Err(a), Err(b)) => {
            check_error(text, a);
            assert_eq!(a, b, "f32 and f64 fail differently");
        }
        (Ok(_), Err(e)) | (Err(e), Ok(_)) => panic!("only one of f32 and f64 fails: {e}"),
    }
}

/// Target `svmlight_leading`: lines of `k` leading numbers before the pairs (the
/// support-vector lines of LIBSVM model files). The first byte selects the options
/// (bits 0-1: `k - 1`, bit 2: one-based, bit 3: query ids), the rest is the text.
/// Checks what `svmlight_parse` checks of the arrays, that `f32` and `f64` agree,
/// that one leading number reads as one label does (same arrays, or an error at the
/// same line and column), and that the rows written back read back the same.
pub fn svmlight_leading(data: &[u8]) {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let k = usize::from(flags & 3) + 1;
    let options = ParseOptions {
        one_based: flags & 4 != 0,
        query_id: flags & 8 != 0,
        n_threads: 1,
        leading: Leading::Numbers(std::num::NonZeroUsize::new(k).expect("k >= 1")),
    };
    let wide = parse::<f64>(text, options);
    let narrow = parse::<f32>(text, options);
    match (&wide, &narrow) {
        (Ok(w), Ok(n)) => {
            check_parsed(w, options);
            check_parsed(n, options);
            assert_eq!(w.labels, n.labels);
            assert_eq!(w.indptr, n.indptr);
            assert_eq!(w.indices, n.indices);
            check_leading_round_trip(w, options);
        }
        (Err(a), Err(b)) => {
            check_error(text, a);
            assert_eq!(a, b, "f32 and f64 fail differently");
        }
        (Ok(_), Err(e)) | (Err(e), Ok(_)) => panic!("only one of f32 and f64 fails: {e}"),
    }
    if k == 1 {
        let label = ParseOptions {
            leading: Leading::Label,
            ..options
        };
        match (wide, parse::<f64>(text, label)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (
                Err(Error::Format { line, column, .. }),
                Err(Error::Format {
                    line: l, column: c, ..
                }),
            ) => assert_eq!((line, column), (l, c)),
            (a, b) => panic!("one leading number and one label differ: {a:?} {b:?}"),
        }
    }
}

/// Rows of leading numbers written back (each `f64` as its shortest round-trip
/// decimal) read back the same.
fn check_leading_round_trip(p: &Svmlight<f64>, options: ParseOptions) {
    use std::fmt::Write;
    let k = options.leading.count();
    let mut text = String::new();
    for r in 0..p.n_rows() {
        for y in &p.labels[r * k..(r + 1) * k] {
            let _ = write!(text, "{y:?} ");
        }
        if let Some(q) = p.query_id.get(r) {
            let _ = write!(text, "qid:{q} ");
        }
        let (a, b) = (p.indptr[r] as usize, p.indptr[r + 1] as usize);
        for (j, v) in p.indices[a..b].iter().zip(&p.data[a..b]) {
            let _ = write!(text, "{j}:{v:?} ");
        }
        text.push('\n');
    }
    match parse::<f64>(text.as_bytes(), options) {
        Ok(q) => assert_eq!(&q, p, "written as {text:?}"),
        Err(e) => panic!("written rows do not read back: {e} in {text:?}"),
    }
}

/// Target `svmlight_index`: the first 8 bytes are the base offset (little-endian),
/// the rest is the text.
pub fn svmlight_index(data: &[u8]) {
    if data.len() < 8 {
        return;
    }
    let (head, text) = data.split_at(8);
    let mut base = [0u8; 8];
    base.copy_from_slice(head);
    let base = u64::from_le_bytes(base);
    match index_rows(text, base) {
        Ok(index) => {
            assert_eq!(index.starts.len(), index.labels.len());
            assert!(index.labels.iter().all(|y| y.is_finite()));
            assert!(index.starts.windows(2).all(|w| w[0] < w[1]));
            for &s in &index.starts {
                let at = usize::try_from(s - base).expect("offset in range");
                assert!(at < text.len());
                assert!(at == 0 || text[at - 1] == b'\n');
            }
            // The labels are those parse reads, when it reads the text at all.
            let options = ParseOptions {
                one_based: false,
                query_id: false,
                n_threads: 1,
                leading: Leading::Label,
            };
            if let Ok(p) = parse::<f64>(text, options) {
                assert_eq!(p.labels, index.labels);
            }
        }
        Err(e) => {
            if !matches!(e, Error::InvalidInput(_)) {
                check_error(text, &e);
            }
        }
    }
}

/// Target `solver_state`: the first byte selects the decoder (bit 0 clear: a state
/// set, set: one state) and how the decoded states train (bits 1-2: sampling, bit 3:
/// averaging, bit 4: intercept, bits 5-7: rows - 1); the rest is the blob. A decoded state must encode back to the
/// same bytes and must train (a few steps, each sampling scheme) without panicking.
pub fn solver_state(data: &[u8]) {
    let Some((&which, blob)) = data.split_first() else {
        return;
    };
    let states = if which & 1 == 0 {
        match decode_states(blob) {
            Ok(states) => {
                assert_eq!(encode_states(&states), blob);
                states
            }
            Err(e) => return check_state_error(&e),
        }
    } else {
        match LinearState::from_bytes(blob) {
            Ok(state) => {
                assert_eq!(state.to_bytes(), blob);
                vec![state]
            }
            Err(e) => return check_state_error(&e),
        }
    };
    for state in states {
        exercise(state, which);
    }
}

fn check_state_error(e: &Error) {
    assert!(
        matches!(e, Error::InvalidState(_) | Error::OutOfMemory(_)),
        "{e:?}"
    );
    assert!(e.to_string().len() < MAX_MESSAGE, "{e}");
}

/// Train a few steps from `state` on a tiny data set whose shape suits it.
fn exercise(state: LinearState, which: u8) {
    let d = state.n_features();
    if d > 64 {
        return;
    }
    // Rows: 1 to 8 (a saved permutation is used when its length matches).
    let n = 1 + usize::from(which >> 5);
    let x: Vec<f64> = (0..n * d).map(|k| ((k * 7919) % 13) as f64 - 6.0).collect();
    let codes: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
    let Ok(rows) = DenseRows::new(&x, n, d) else {
        return;
    };
    let labels = Labels::unweighted(&codes, &[1.0, 1.0]);
    let sampling = match which >> 1 & 3 {
        0 => Sampling::Uniform,
        1 => Sampling::Shuffle,
        2 => Sampling::Balanced,
        _ => Sampling::Order((0..n).rev().collect()),
    };
    let params = Params {
        sampling,
        averaging: if which & 8 == 0 {
            Averaging::Off
        } else {
            Averaging::FromStep(1)
        },
        intercept: if which & 16 == 0 {
            Intercept::Unregularized
        } else {
            Intercept::BiasMultiplier(1.0)
        },
        max_iter: 2,
        ..Params::default()
    };
    let builder = LinearSvm::with_params(params);
    for s in [state.clone(), state] {
        let _ = builder.fit_from(&rows, &labels, &mut vec![s], &Monitor::new());
    }
}

/// CSR structure, index range and order, finite values, consistent extremes.
fn check_parsed<T: Float>(p: &Svmlight<T>, options: ParseOptions) {
    let rows = p.n_rows();
    assert_eq!(p.labels.len(), rows * options.leading.count());
    assert_eq!(p.indptr.len(), rows + 1);
    assert_eq!(p.indptr[0], 0);
    assert_eq!(p.indptr[rows], p.data.len() as i64);
    assert_eq!(p.data.len(), p.indices.len());
    assert_eq!(p.query_id.len(), if options.query_id { rows } else { 0 });
    assert!(p.labels.iter().all(|y| y.is_finite()));
    assert!(p.data.iter().all(|v| !v.to_f64().is_nan()));
    let lowest = i64::from(options.one_based);
    for r in 0..rows {
        let (a, b) = (p.indptr[r], p.indptr[r + 1]);
        assert!(a <= b);
        let row = &p.indices[a as usize..b as usize];
        assert!(row.windows(2).all(|w| w[0] < w[1]));
        assert!(row.iter().all(|&j| (lowest..=MAX_INDEX).contains(&j)));
    }
    assert_eq!(p.min_index, p.indices.iter().copied().min());
    assert_eq!(p.max_index, p.indices.iter().copied().max());
}

/// Writing the rows and reading them back gives the same arrays.
fn check_round_trip(p: &Svmlight<f64>, options: ParseOptions) {
    let mut text = String::new();
    for r in 0..p.labels.len() {
        let (a, b) = (p.indptr[r] as usize, p.indptr[r + 1] as usize);
        write_line(
            &mut text,
            p.labels[r],
            p.query_id.get(r).copied(),
            p.indices[a..b]
                .iter()
                .zip(&p.data[a..b])
                .map(|(&j, &v)| (j as usize, v)),
        );
    }
    match parse::<f64>(text.as_bytes(), options) {
        Ok(q) => assert_eq!(&q, p, "written as {text:?}"),
        Err(e) => panic!("written rows do not read back: {e} in {text:?}"),
    }
}

/// The row index finds the rows, with their labels, and each row's bytes parse to
/// that row alone.
fn check_row_index(text: &[u8], p: &Svmlight<f64>, options: ParseOptions) {
    let index = match index_rows(text, 0) {
        Ok(index) => index,
        Err(e) => panic!("the row index fails ({e}) on a text that parses"),
    };
    assert_eq!(index.labels, p.labels);
    let mut ends: Vec<usize> = index.starts.iter().skip(1).map(|&s| s as usize).collect();
    ends.push(text.len());
    for (r, (&start, end)) in index.starts.iter().zip(ends).enumerate() {
        let one = match parse::<f64>(&text[start as usize..end], options) {
            Ok(one) => one,
            Err(e) => panic!("row {r} alone does not parse: {e}"),
        };
        let (a, b) = (p.indptr[r] as usize, p.indptr[r + 1] as usize);
        assert_eq!(one.labels, [p.labels[r]]);
        assert_eq!(one.data, p.data[a..b]);
        assert_eq!(one.indices, p.indices[a..b]);
        assert_eq!(one.query_id, p.query_id.get(r).map_or(vec![], |&q| vec![q]));
    }
}

/// A parse error names an existing line and a column within it (or just past its
/// end), with a bounded message.
fn check_error(text: &[u8], e: &Error) {
    let Error::Format {
        line,
        column,
        message,
    } = e
    else {
        panic!("not a format error: {e:?}");
    };
    assert!(message.len() < MAX_MESSAGE, "{message}");
    let Some(content) = text.split(|&b| b == b'\n').nth(line.wrapping_sub(1)) else {
        panic!("line {line} is not in the text: {message}");
    };
    if let Some(c) = column {
        assert!(
            (1..=content.len() + 1).contains(c),
            "column {c} outside line {line} of {} bytes: {message}",
            content.len()
        );
    }
}
