//! Reading and writing the svmlight / libsvm text format.
//!
//! One example per line: `label [qid:Q] index:value index:value ... [# comment]`.
//! The reader follows scikit-learn's `load_svmlight_file` so that both give the
//! same arrays bit for bit: everything from `#` on is a comment, tokens are split on
//! ASCII whitespace, blank lines are skipped, numbers are parsed as `f64` (correctly
//! rounded) and narrowed to `f32` afterwards when asked for.
//!
//! Policy on malformed input (each an [`Error::Format`] naming the line and the byte
//! column, 1-based, and what was expected there):
//! - a label or value that is not a number, or is NaN or infinite (scikit-learn
//!   accepts NaN; a NaN feature or label is never what a training file means);
//!   a finite value beyond the range of `f32` read as `f32` becomes infinite, as in
//!   scikit-learn;
//! - a token without `:`, an empty index or value (a truncated line);
//! - a negative index, index 0 when the file is declared one-based, an index above
//!   [`MAX_INDEX`];
//! - indices not strictly increasing within a line (unsorted or duplicate), as in
//!   scikit-learn: a duplicate has no agreed meaning (sum? last wins?).
//!
//! The same parser reads lines that start with a fixed number of numbers instead of
//! one label ([`Leading::Numbers`]): the support-vector lines of a LIBSVM model file,
//! `c1 c2 ... index:value ...`, whose `nr_class - 1` coefficients come first. Such a
//! line must hold all `k` numbers (finite, as a label) before its first pair; the
//! rest of the line follows the rules above.
//!
//! Large inputs are split at line boundaries into chunks parsed in parallel; the
//! chunks' arrays are then joined in order, so the result does not depend on the
//! number of threads.

use std::num::NonZeroUsize;

use crate::monitor::Monitor;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::float::Float;
use crate::parallel::{check_cancel, thread_pool};

/// The largest accepted feature index (so that `n_features` fits an `i32`).
pub const MAX_INDEX: i64 = i32::MAX as i64 - 1;

/// Rows formatted by one task.
const FORMAT_ROWS: usize = 4096;

/// Bytes per chunk parsed by one task.
const CHUNK_BYTES: usize = 1 << 20;

/// A parsed file: CSR arrays with the indices as written (not yet shifted for
/// one-based files), labels (or the leading numbers) and query ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Svmlight<T> {
    /// The numbers before each example's pairs, example by example: one label per
    /// example ([`Leading::Label`]), or `k` numbers per example
    /// ([`Leading::Numbers`]`(k)`, row-major: `labels[i * k + j]` is number `j` of
    /// example `i`).
    pub labels: Vec<f64>,
    /// One query id per example (empty unless asked for).
    pub query_id: Vec<i64>,
    /// Values.
    pub data: Vec<T>,
    /// Column indices as written in the file.
    pub indices: Vec<i64>,
    /// Row pointers (`n_examples + 1` entries).
    pub indptr: Vec<i64>,
    /// The smallest index in the file (`None` when there is none).
    pub min_index: Option<i64>,
    /// The largest index in the file (`None` when there is none).
    pub max_index: Option<i64>,
}

impl<T> Svmlight<T> {
    /// The number of examples (lines with a token).
    pub fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }
}

/// What each example has before its `index:value` pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Leading {
    /// One label: the svmlight format (errors call it "the label").
    #[default]
    Label,
    /// Exactly `k` numbers, such as the `nr_class - 1` coefficients that start a
    /// support-vector line of a LIBSVM model file (`c1 ... ck index:value ...`).
    /// A line with fewer (a pair or the end of the line where a number belongs) is
    /// an error, as is a number that is not finite; errors call them "leading
    /// number j of k".
    Numbers(NonZeroUsize),
}

impl Leading {
    /// The numbers per example: 1 for a label, `k` for `Numbers(k)`.
    pub fn count(self) -> usize {
        match self {
            Leading::Label => 1,
            Leading::Numbers(k) => k.get(),
        }
    }
}

/// Options of [`parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Reject index 0 (the file is declared one-based).
    pub one_based: bool,
    /// Keep the `qid:` values.
    pub query_id: bool,
    /// Threads parsing chunks in parallel (1: on this thread; 0: one per core).
    pub n_threads: usize,
    /// What comes before the pairs of each line: svmlight's label, or `k` numbers.
    pub leading: Leading,
}

/// A parse error at a line of a chunk (1-based within the chunk) and a byte column
/// (1-based) of that line.
struct LineError {
    line: usize,
    column: Option<usize>,
    message: String,
}

/// Parse a whole svmlight file held in memory. Errors are [`Error::Format`], naming
/// the line and column and saying what was expected there.
pub fn parse<T: Float>(bytes: &[u8], options: ParseOptions) -> Result<Svmlight<T>> {
    parse_until(bytes, options, &Monitor::new())
}

/// [`parse`], stopping with [`Error::Interrupted`] once `monitor` is stopped (checked
/// between chunks of about a megabyte).
pub fn parse_until<T: Float>(
    bytes: &[u8],
    options: ParseOptions,
    monitor: &Monitor,
) -> Result<Svmlight<T>> {
    // Chunks also on one thread, so that a long parse can be stopped between them;
    // joined, they give the arrays of one piece.
    let chunks = split_lines(bytes, CHUNK_BYTES);
    monitor.add_total(bytes.len() as u64);
    let one = |c: &&[u8]| {
        (!monitor.is_stopped()).then(|| {
            let parsed = parse_chunk(c, options);
            monitor.advance(c.len() as u64);
            parsed
        })
    };
    let parsed: Vec<Option<std::result::Result<Svmlight<T>, LineError>>> =
        if options.n_threads != 1 && chunks.len() > 1 {
            thread_pool(options.n_threads)?.install(|| chunks.par_iter().map(one).collect())
        } else {
            chunks.iter().map(one).collect()
        };
    let Some(parsed) = parsed.into_iter().collect::<Option<Vec<_>>>() else {
        return Err(Error::Interrupted);
    };
    let mut parts = Vec::with_capacity(parsed.len());
    for (k, p) in parsed.into_iter().enumerate() {
        match p {
            Ok(p) => parts.push(p),
            Err(e) => {
                let before: usize = chunks[..k].iter().map(|c| count_lines(c)).sum();
                return Err(Error::Format {
                    line: before + e.line,
                    column: e.column,
                    message: e.message,
                });
            }
        }
    }
    Ok(join(parts))
}

/// Lines in a chunk that ends with a newline or at the end of the input.
fn count_lines(chunk: &[u8]) -> usize {
    chunk.split(|&b| b == b'\n').count() - usize::from(chunk.last() == Some(&b'\n'))
}

/// Split `bytes` into pieces of about `size` bytes ending at line boundaries.
fn split_lines(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start.saturating_add(size).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        out.push(&bytes[start..end]);
        start = end;
    }
    if out.is_empty() {
        out.push(bytes);
    }
    out
}

/// Concatenate chunk results in order.
fn join<T: Float>(mut parts: Vec<Svmlight<T>>) -> Svmlight<T> {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_else(|| empty());
    }
    let mut out = empty::<T>();
    let nnz: usize = parts.iter().map(|p| p.data.len()).sum();
    let rows: usize = parts.iter().map(Svmlight::n_rows).sum();
    let numbers: usize = parts.iter().map(|p| p.labels.len()).sum();
    out.data.reserve_exact(nnz);
    out.indices.reserve_exact(nnz);
    out.labels.reserve_exact(numbers);
    out.indptr.reserve_exact(rows + 1);
    for p in parts {
        let base = *out.indptr.last().unwrap_or(&0);
        out.indptr.extend(p.indptr[1..].iter().map(|x| x + base));
        out.data.extend_from_slice(&p.data);
        out.indices.extend_from_slice(&p.indices);
        out.labels.extend_from_slice(&p.labels);
        out.query_id.extend_from_slice(&p.query_id);
        out.min_index = min_opt(out.min_index, p.min_index);
        out.max_index = out.max_index.max(p.max_index);
    }
    out
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn empty<T>() -> Svmlight<T> {
    Svmlight {
        labels: Vec::new(),
        query_id: Vec::new(),
        data: Vec::new(),
        indices: Vec::new(),
        indptr: vec![0],
        min_index: None,
        max_index: None,
    }
}

/// The whitespace-separated tokens of `line` with their 1-based byte columns.
fn tokens(line: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        while pos < line.len() && line[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == line.len() {
            return None;
        }
        let start = pos;
        while pos < line.len() && !line[pos].is_ascii_whitespace() {
            pos += 1;
        }
        Some((start + 1, &line[start..pos]))
    })
}

/// `token` for a message: quoted, invalid UTF-8 replaced, cut after 40 characters.
fn shown(token: &[u8]) -> String {
    const MAX: usize = 40;
    let text = String::from_utf8_lossy(token);
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut:?}...")
    } else {
        format!("{text:?}")
    }
}

/// A problem with one token: its 1-based column and the message.
type TokenError = (usize, String);

/// The label at `col`: a finite number.
fn parse_label(col: usize, label: &[u8]) -> std::result::Result<f64, TokenError> {
    let y = parse_f64(label)
        .ok_or_else(|| (col, format!("the label {} is not a number", shown(label))))?;
    if !y.is_finite() {
        return Err((
            col,
            format!("the label {y} is not finite (expected a finite number)"),
        ));
    }
    Ok(y)
}

/// The `k` leading numbers of a line, from `tokens`, pushed to `out`; `end` is the
/// column just past the line (where a missing number was expected).
fn parse_numbers<'a>(
    tokens: &mut impl Iterator<Item = (usize, &'a [u8])>,
    k: usize,
    end: usize,
    out: &mut Vec<f64>,
) -> std::result::Result<(), TokenError> {
    let missing =
        |j: usize| format!("expected {k} leading number(s) before the index:value pairs, got {j}");
    for j in 1..=k {
        let Some((col, token)) = tokens.next() else {
            return Err((end, missing(j - 1)));
        };
        if memchr::memchr(b':', token).is_some() {
            return Err((col, missing(j - 1)));
        }
        let y = parse_f64(token).ok_or_else(|| {
            (
                col,
                format!(
                    "leading number {j} of {k}, {}, is not a number",
                    shown(token)
                ),
            )
        })?;
        if !y.is_finite() {
            return Err((
                col,
                format!("leading number {j} of {k} is {y} (expected a finite number)"),
            ));
        }
        out.push(y);
    }
    Ok(())
}

/// The query id of a `qid:integer` token at `col`.
fn parse_qid(col: usize, token: &[u8]) -> std::result::Result<i64, TokenError> {
    parse_i64(&token[4..]).ok_or_else(|| {
        (
            col + 4,
            format!("bad query id {} (expected qid:integer)", shown(token)),
        )
    })
}

/// The index of an `index:value` pair: an integer in range, after `prev`.
fn check_index(
    col: usize,
    idx_s: &[u8],
    prev: i64,
    options: ParseOptions,
) -> std::result::Result<i64, TokenError> {
    let idx = parse_i64(idx_s)
        .ok_or_else(|| (col, format!("the index {} is not an integer", shown(idx_s))))?;
    if idx < 0 || (idx == 0 && options.one_based) {
        return Err((
            col,
            format!(
                "invalid index {idx}{} (expected {} to {MAX_INDEX})",
                if idx == 0 { " in a one-based file" } else { "" },
                u8::from(options.one_based)
            ),
        ));
    }
    if idx > MAX_INDEX {
        return Err((col, format!("index {idx} is larger than {MAX_INDEX}")));
    }
    if idx <= prev {
        return Err((
            col,
            format!("feature indices must be sorted and unique; {idx} follows {prev}"),
        ));
    }
    Ok(idx)
}

/// One `index:value` token at `col`, its index after `prev`: `(index, value)`.
fn parse_pair(
    col: usize,
    token: &[u8],
    prev: i64,
    options: ParseOptions,
) -> std::result::Result<(i64, f64), TokenError> {
    let Some(colon) = memchr::memchr(b':', token) else {
        return Err((col, format!("expected index:value, got {}", shown(token))));
    };
    let (idx_s, value_s) = (&token[..colon], &token[colon + 1..]);
    let idx = check_index(col, idx_s, prev, options)?;
    let value_col = col + colon + 1;
    if value_s.is_empty() {
        return Err((
            value_col,
            format!("index {idx} has no value (truncated line?)"),
        ));
    }
    let v = parse_f64(value_s).ok_or_else(|| {
        (
            value_col,
            format!("the value {} is not a number", shown(value_s)),
        )
    })?;
    if !v.is_finite() {
        return Err((
            value_col,
            format!("the value of index {idx} is {v} (expected a finite number)"),
        ));
    }
    Ok((idx, v))
}

/// Parses one line (comment removed) into `out`; a blank line adds nothing.
fn parse_line<T: Float>(
    line: &[u8],
    options: ParseOptions,
    out: &mut Svmlight<T>,
) -> std::result::Result<(), TokenError> {
    let mut tokens = tokens(line).peekable();
    let Some(&(label_col, label)) = tokens.peek() else {
        return Ok(());
    };
    match options.leading {
        Leading::Label => {
            tokens.next();
            out.labels.push(parse_label(label_col, label)?);
        }
        Leading::Numbers(k) => {
            parse_numbers(&mut tokens, k.get(), line.len() + 1, &mut out.labels)?;
        }
    }
    let mut prev = -1i64;
    let mut first = true;
    for (col, token) in tokens {
        if first && token.starts_with(b"qid:") {
            first = false;
            let q = parse_qid(col, token)?;
            if options.query_id {
                out.query_id.push(q);
            }
            continue;
        }
        first = false;
        let (idx, v) = parse_pair(col, token, prev, options)?;
        prev = idx;
        // Narrowed to f32 a value beyond its range becomes infinite, as in
        // scikit-learn (whose arrays this reader reproduces).
        out.data.push(T::from_f64(v));
        out.indices.push(idx);
        out.min_index = Some(out.min_index.map_or(idx, |m| m.min(idx)));
        out.max_index = Some(out.max_index.map_or(idx, |m| m.max(idx)));
    }
    // `indptr` has one entry per earlier example plus one: this example's qid makes
    // `query_id` as long.
    if options.query_id && out.query_id.len() < out.indptr.len() {
        // scikit-learn keeps only the query ids present; a line without one
        // makes the arrays disagree, so it is an error here.
        return Err((
            label_col,
            "a line without qid in a file read with query_id (expected qid:integer after the label)"
                .into(),
        ));
    }
    out.indptr.push(out.data.len() as i64);
    Ok(())
}

fn parse_chunk<T: Float>(
    chunk: &[u8],
    options: ParseOptions,
) -> std::result::Result<Svmlight<T>, LineError> {
    let mut out = empty::<T>();
    for (k, raw) in chunk.split(|&b| b == b'\n').enumerate() {
        let line = match memchr::memchr(b'#', raw) {
            Some(h) => &raw[..h],
            None => raw,
        };
        parse_line(line, options, &mut out).map_err(|(column, message)| LineError {
            line: k + 1,
            column: Some(column),
            message,
        })?;
    }
    Ok(out)
}

/// Where each example of an svmlight text starts, and its label: what training
/// needs to know of rows it may never read (see [`index_rows`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RowIndex {
    /// Byte offset of each example's line, plus `base` (increasing).
    pub starts: Vec<u64>,
    /// One label per example.
    pub labels: Vec<f64>,
}

/// Find the examples of an svmlight text and read their labels, without parsing
/// their features: a line is an example when it has a token before any `#`, as
/// in [`parse`], and its label is checked as [`parse`] checks it (errors name the
/// line, 1-based). The bytes from one example's start to the next one's hold that
/// example and nothing else [`parse`] would read, so parsing them gives the row.
/// Offsets are reported plus `base` (the text's position in its file).
pub fn index_rows(bytes: &[u8], base: u64) -> Result<RowIndex> {
    let mut out = RowIndex {
        starts: Vec::new(),
        labels: Vec::new(),
    };
    let mut pos = 0;
    let mut line = 0;
    while pos < bytes.len() {
        line += 1;
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |k| pos + k);
        let text = &bytes[pos..end];
        let first = text.iter().position(|b| !b.is_ascii_whitespace());
        if let Some(a) = first.filter(|&a| text[a] != b'#') {
            let len = text[a..]
                .iter()
                .position(|&b| b.is_ascii_whitespace() || b == b'#')
                .unwrap_or(text.len() - a);
            let token = &text[a..a + len];
            let bad = |what: &str| Error::Format {
                line,
                column: Some(a + 1),
                message: format!("the label {} {what}", shown(token)),
            };
            let y = parse_f64(token).ok_or_else(|| bad("is not a number"))?;
            if !y.is_finite() {
                return Err(bad("is not finite (expected a finite number)"));
            }
            let start = base.checked_add(pos as u64).ok_or_else(|| {
                Error::InvalidInput(format!("the offset {base} plus {pos} overflows"))
            })?;
            out.starts.push(start);
            out.labels.push(y);
        }
        pos = end + 1;
    }
    Ok(out)
}

fn parse_f64(token: &[u8]) -> Option<f64> {
    std::str::from_utf8(token).ok()?.parse::<f64>().ok()
}

fn parse_i64(token: &[u8]) -> Option<i64> {
    let (neg, digits) = match token.first()? {
        b'-' => (true, &token[1..]),
        b'+' => (false, &token[1..]),
        _ => (false, token),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

/// Append the svmlight form of one example to `out`: label, optional query id and
/// the `(index, value)` pairs. Values are written with the shortest decimal that
/// reads back to the same `f64` (Rust's `Display`), so a round trip is exact.
pub fn write_line(
    out: &mut String,
    label: f64,
    query_id: Option<i64>,
    entries: impl Iterator<Item = (usize, f64)>,
) {
    use std::fmt::Write;
    let _ = write!(out, "{}", Shortest(label));
    if let Some(q) = query_id {
        let _ = write!(out, " qid:{q}");
    }
    for (j, v) in entries {
        let _ = write!(out, " {j}:{}", Shortest(v));
    }
    out.push('\n');
}

/// The svmlight text of all rows of `rows` (zeros omitted), with `labels` (one per
/// row), optional query ids, and indices shifted by one when `one_based`. Rows are
/// formatted in parallel blocks on `n_threads` threads (1: this thread; 0: one per
/// core), joined in order.
pub fn format_rows<R: crate::data::rows::Rows>(
    rows: &R,
    labels: &[f64],
    query_id: Option<&[i64]>,
    one_based: bool,
    n_threads: usize,
) -> Result<String> {
    format_rows_until(
        rows,
        labels,
        query_id,
        one_based,
        n_threads,
        &Monitor::new(),
    )
}

/// [`format_rows`], stopping with [`Error::Interrupted`] once `monitor` is stopped
/// (checked between blocks of rows).
pub fn format_rows_until<R: crate::data::rows::Rows>(
    rows: &R,
    labels: &[f64],
    query_id: Option<&[i64]>,
    one_based: bool,
    n_threads: usize,
    monitor: &Monitor,
) -> Result<String> {
    let n = rows.n_rows();
    if labels.len() != n || query_id.is_some_and(|q| q.len() != n) {
        return Err(Error::ShapeMismatch(format!(
            "{n} rows, {} labels{}",
            labels.len(),
            query_id.map_or(String::new(), |q| format!(", {} query ids", q.len()))
        )));
    }
    let shift = usize::from(one_based);
    let block = |range: std::ops::Range<usize>| {
        check_cancel(monitor)?;
        let mut s = String::new();
        let mut entries = Vec::new();
        for i in range {
            entries.clear();
            rows.for_each_entry(i, |j, v| {
                if v != 0.0 {
                    entries.push((j + shift, v));
                }
            });
            entries.sort_by_key(|e| e.0);
            write_line(
                &mut s,
                labels[i],
                query_id.map(|q| q[i]),
                entries.iter().copied(),
            );
        }
        Ok(s)
    };
    let ranges: Vec<_> = (0..n)
        .step_by(FORMAT_ROWS)
        .map(|a| a..(a + FORMAT_ROWS).min(n))
        .collect();
    let parts: Vec<String> = if n_threads != 1 && ranges.len() > 1 {
        thread_pool(n_threads)?
            .install(|| ranges.into_par_iter().map(block).collect::<Result<_>>())?
    } else {
        ranges.into_iter().map(block).collect::<Result<_>>()?
    };
    Ok(parts.concat())
}

/// `f64` printed as the shortest round-tripping decimal, integers without `.0`.
struct Shortest(f64);

impl std::fmt::Display for Shortest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        if v == v.trunc() && v.abs() < 1e15 {
            write!(f, "{}", v as i64)
        } else {
            write!(f, "{v:?}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(one_based: bool, query_id: bool, parallel: bool) -> ParseOptions {
        ParseOptions {
            one_based,
            query_id,
            n_threads: if parallel { 2 } else { 1 },
            leading: Leading::Label,
        }
    }

    /// One-based options with `k` leading numbers.
    fn numbers(k: usize, parallel: bool) -> ParseOptions {
        ParseOptions {
            leading: Leading::Numbers(NonZeroUsize::new(k).unwrap()),
            ..opts(true, false, parallel)
        }
    }

    #[test]
    fn leading_numbers_come_before_the_pairs() {
        // LIBSVM's support-vector lines of a 3-class model: two coefficients first.
        let text = b"0.5 -1 1:2 3:4\n\n  1e-300\t2.5\r\n-0 7 2:1 # c\n";
        let p = parse::<f64>(text, numbers(2, false)).unwrap();
        assert_eq!(p.n_rows(), 3);
        assert_eq!(p.labels, vec![0.5, -1.0, 1e-300, 2.5, -0.0, 7.0]);
        assert!(p.labels[4].is_sign_negative());
        assert_eq!(p.indptr, vec![0, 2, 2, 3]);
        assert_eq!(p.indices, vec![1, 3, 2]);
        assert_eq!(p.data, vec![2.0, 4.0, 1.0]);
        assert_eq!((p.min_index, p.max_index), (Some(1), Some(3)));
        assert_eq!(Leading::Numbers(NonZeroUsize::new(2).unwrap()).count(), 2);
        assert_eq!(Leading::Label.count(), 1);
        // One leading number reads what one label does.
        let svm = b"1 1:0.5 4:-2e3\n-1\n+2.5 7:.25\n";
        let label = parse::<f32>(svm, opts(true, false, false)).unwrap();
        assert_eq!(parse::<f32>(svm, numbers(1, false)).unwrap(), label);
        // With query ids after the numbers.
        let q = ParseOptions {
            query_id: true,
            ..numbers(3, false)
        };
        let p = parse::<f64>(b"1 2 3 qid:9 5:1\n", q).unwrap();
        assert_eq!((p.labels, p.query_id), (vec![1.0, 2.0, 3.0], vec![9]));
        assert!(parse::<f64>(b"1 2 3 qid:9 5:1\n4 5 6 1:1\n", q).is_err());
    }

    #[test]
    fn leading_numbers_are_read_exactly() {
        use std::fmt::Write;
        // Correctly rounded, as strtod: the shortest decimal of each f64, and long
        // decimals that round to a neighbour.
        let values = [
            0.1,
            -1.0 / 3.0,
            1e-310,
            5e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            -0.0,
        ];
        let mut text = String::new();
        for v in values {
            let _ = write!(text, "{v:?} ");
        }
        text.push_str("1:0.30000000000000004441 2:9007199254740993\n");
        let p = parse::<f64>(text.as_bytes(), numbers(values.len(), false)).unwrap();
        for (a, b) in p.labels.iter().zip(values) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        assert_eq!(
            p.data,
            vec![0.300_000_000_000_000_04, 9_007_199_254_740_992.0]
        );
    }

    #[test]
    fn missing_or_bad_leading_numbers_name_line_and_column() {
        for (text, k, line, column, want) in [
            (
                &b"0.5 1:2\n"[..],
                2,
                1,
                5,
                "expected 2 leading number(s) before the index:value pairs, got 1",
            ),
            (
                b"1 2\n0.5\n",
                2,
                2,
                4,
                "expected 2 leading number(s) before the index:value pairs, got 1",
            ),
            (b"1:1\n", 1, 1, 1, "got 0"),
            (
                b"1 2\n0.5 x 1:1\n",
                2,
                2,
                5,
                "leading number 2 of 2, \"x\", is not a number",
            ),
            (
                b"0.5 inf 1:1\n",
                3,
                1,
                5,
                "leading number 2 of 3 is inf (expected a finite number)",
            ),
            (b"nan 1:1\n", 1, 1, 1, "leading number 1 of 1 is NaN"),
            (
                b"1 2 1:0.5 3\n",
                2,
                1,
                11,
                "expected index:value, got \"3\"",
            ),
            (
                b"1 2 3:0.5 2:1\n",
                2,
                1,
                11,
                "sorted and unique; 2 follows 3",
            ),
            (b"1 2 0:1\n", 2, 1, 5, "invalid index 0 in a one-based file"),
            (b"1 2 1:nan\n", 2, 1, 7, "the value of index 1 is NaN"),
            (b"1 2 # 3 1:1\n", 3, 1, 5, "got 2"),
        ] {
            let Err(Error::Format {
                line: l,
                column: c,
                message,
            }) = parse::<f64>(text, numbers(k, false))
            else {
                panic!("no format error for {text:?}");
            };
            assert_eq!((l, c), (line, Some(column)), "{message}");
            assert!(message.contains(want), "{message} (wanted {want})");
        }
    }

    #[test]
    fn leading_numbers_in_parallel_chunks_give_the_same_arrays_and_line_numbers() {
        use std::fmt::Write;
        let mut text = String::new();
        for i in 0..200_000 {
            let c = f64::from(i) / 7.0;
            let _ = writeln!(text, "{c:?} {:?} 2:{:?} 9:1e-300", -c, c + 0.5);
        }
        let a = parse::<f64>(text.as_bytes(), numbers(2, false)).unwrap();
        let b = parse::<f64>(text.as_bytes(), numbers(2, true)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.n_rows(), 200_000);
        assert_eq!(a.labels.len(), 400_000);
        assert_eq!(a.labels[2 * 12345 + 1], -(12345.0 / 7.0));
        text.push_str("1 2:3\n");
        let e = parse::<f64>(text.as_bytes(), numbers(2, true)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 200001: expected 2 leading number(s)"),
            "{e}"
        );
    }

    #[test]
    fn parses_labels_qids_comments_and_blank_lines() {
        let text = b"# header\n1 qid:3 1:0.5 4:-2e3 # tail\n\n-1 qid:4 2:1\n  +2.5\tqid:4 7:.25";
        let p = parse::<f64>(text, opts(true, true, false)).unwrap();
        assert_eq!(p.labels, vec![1.0, -1.0, 2.5]);
        assert_eq!(p.query_id, vec![3, 4, 4]);
        // Without query_id the qids are skipped; a line without one is an error with.
        assert_eq!(
            parse::<f64>(text, opts(true, false, false)).unwrap().data,
            p.data
        );
        assert!(parse::<f64>(b"1 qid:1 1:1\n2 1:1\n", opts(true, true, false)).is_err());
        assert_eq!(p.data, vec![0.5, -2000.0, 1.0, 0.25]);
        assert_eq!(p.indices, vec![1, 4, 2, 7]);
        assert_eq!(p.indptr, vec![0, 2, 3, 4]);
        assert_eq!((p.min_index, p.max_index), (Some(1), Some(7)));
    }

    #[test]
    fn the_row_index_finds_the_rows_parse_reads() {
        let text: &[u8] =
            b"# header\n1 qid:3 1:0.5 4:-2e3 # tail\n\n  \t\n-1#x\n   # c\n+2.5\t7:.25\r\n3";
        let index = index_rows(text, 100).unwrap();
        let whole = parse::<f64>(text, opts(false, false, false)).unwrap();
        assert_eq!(index.labels, whole.labels);
        assert_eq!(index.labels, vec![1.0, -1.0, 2.5, 3.0]);
        // Each example's bytes parse to that example alone.
        let mut ends: Vec<usize> = index.starts[1..]
            .iter()
            .map(|&s| s as usize - 100)
            .collect();
        ends.push(text.len());
        for (r, (&start, end)) in index.starts.iter().zip(ends).enumerate() {
            let one =
                parse::<f64>(&text[start as usize - 100..end], opts(false, false, false)).unwrap();
            assert_eq!(one.labels, vec![whole.labels[r]]);
            let (lo, hi) = (whole.indptr[r] as usize, whole.indptr[r + 1] as usize);
            assert_eq!(one.data, whole.data[lo..hi]);
            assert_eq!(one.indices, whole.indices[lo..hi]);
        }
        assert_eq!(index_rows(b"", 0).unwrap().starts, Vec::<u64>::new());
        let err = index_rows(b"1 1:2\n\nnan 2:1\n", 0).unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        assert!(index_rows(b"1 1:2\nx 2:1\n", 0).is_err());
    }

    #[test]
    fn errors_name_the_line() {
        for (text, want) in [
            (&b"1 1:2\nx 1:2\n"[..], "line 2: the label"),
            (b"1 1:2\n\n1 3:a\n", "line 3: the value"),
            (b"1 1:nan\n", "line 1: the value of index 1 is NaN"),
            (b"inf 1:1\n", "line 1: the label inf"),
            (b"1 0:1\n", "line 1: invalid index 0 in a one-based file"),
            (b"1 -3:1\n", "invalid index -3"),
            (b"1 3:1 2:1\n", "sorted and unique; 2 follows 3"),
            (b"1 3:1 3:1\n", "sorted and unique"),
            (b"1 3:\n", "has no value"),
            (b"1 3\n", "expected index:value"),
            (b"1 99999999999:1\n", "larger than"),
            (b"1 9999999999999999999999:1\n", "not an integer"),
        ] {
            let e = parse::<f64>(text, opts(true, false, false)).unwrap_err();
            assert!(e.to_string().contains(want), "{e} (wanted {want})");
        }
    }

    #[test]
    fn errors_carry_line_and_column() {
        for (text, line, column, want) in [
            (
                &b"1 1:2\n  x 1:2\n"[..],
                2,
                3,
                "the label \"x\" is not a number",
            ),
            (b"1 1:2 \t 10:y\n", 1, 12, "the value \"y\" is not a number"),
            (b"1 qid:z 1:1\n", 1, 7, "bad query id \"qid:z\""),
            (b"\r\n1 3:1 2:1\r\n", 2, 7, "sorted and unique"),
        ] {
            let Err(Error::Format {
                line: l,
                column: c,
                message,
            }) = parse::<f32>(text, opts(true, false, false))
            else {
                panic!("no format error for {text:?}");
            };
            assert_eq!((l, c), (line, Some(column)), "{message}");
            assert!(message.contains(want), "{message} (wanted {want})");
        }
        // A finite f64 beyond f32's range reads as f32 infinity, as in scikit-learn.
        let p = parse::<f32>(b"1 1:1e39 2:-1e300\n", opts(true, false, false)).unwrap();
        assert_eq!(p.data, [f32::INFINITY, f32::NEG_INFINITY]);
        // Long tokens are cut in messages.
        let long = format!("1 {}:1\n", "9".repeat(5000));
        let e = parse::<f64>(long.as_bytes(), opts(true, false, false)).unwrap_err();
        assert!(e.to_string().len() < 200, "{e}");
        // A first token starting with "qid" but not "qid:" is a feature token.
        let e = parse::<f64>(b"1 qid5:1\n", opts(true, true, false)).unwrap_err();
        assert!(e.to_string().contains("index \"qid5\""), "{e}");
        // The label's column in the row index.
        let Err(Error::Format { line, column, .. }) = index_rows(b"1\n\n \t-x 1:1", 7) else {
            panic!("no format error");
        };
        assert_eq!((line, column), (3, Some(3)));
    }

    #[test]
    fn row_offsets_that_overflow_are_errors() {
        assert!(index_rows(b"1 1:1\n2 1:1\n", u64::MAX - 3).is_err());
        let ok = index_rows(b"1 1:1\n", u64::MAX).unwrap();
        assert_eq!(ok.starts, vec![u64::MAX]);
    }

    #[test]
    fn parallel_chunks_give_the_same_arrays_and_line_numbers() {
        let mut text = String::new();
        for i in 0..300_000 {
            write_line(
                &mut text,
                f64::from(i % 3),
                None,
                [(1, 0.1 * f64::from(i)), (5, -1.5), (9, 1e-300)].into_iter(),
            );
        }
        let a = parse::<f64>(text.as_bytes(), opts(true, false, false)).unwrap();
        let b = parse::<f64>(text.as_bytes(), opts(true, false, true)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.labels.len(), 300_000);
        assert_eq!(a.data[3 * 12345], 0.1 * 12345.0);
        text.push_str("1 2:x\n");
        let e = parse::<f32>(text.as_bytes(), opts(true, false, true)).unwrap_err();
        assert!(
            e.to_string().starts_with("line 300001: the value \"x\""),
            "{e}"
        );
    }

    #[test]
    fn parsing_and_formatting_stop_when_cancelled() {
        let mut text = String::new();
        for i in 0..200_000 {
            write_line(&mut text, 1.0, None, [(1, f64::from(i + 1))].into_iter());
        }
        let monitor = Monitor::stopped();
        for parallel in [false, true] {
            let o = opts(true, false, parallel);
            let r = parse_until::<f64>(text.as_bytes(), o, &monitor);
            assert_eq!(r.unwrap_err(), Error::Interrupted);
        }
        let p = parse::<f64>(text.as_bytes(), opts(true, false, false)).unwrap();
        let rows =
            crate::data::rows::CsrRows::new(&p.data, &p.indices, &p.indptr, p.labels.len(), 2)
                .unwrap();
        for threads in [1, 2] {
            let r = format_rows_until(&rows, &p.labels, None, false, threads, &monitor);
            assert_eq!(r.unwrap_err(), Error::Interrupted);
        }
        let again = format_rows(&rows, &p.labels, None, false, 2).unwrap();
        assert!(again == text, "the text does not read back");
    }

    #[test]
    fn written_lines_read_back_exactly() {
        let values = [0.1, -1.0 / 3.0, 1e-310, 5e300, 123_456_789.0, -0.0, 2.5];
        let mut text = String::new();
        write_line(&mut text, -1.0, Some(7), values.iter().copied().enumerate());
        let p = parse::<f64>(text.as_bytes(), opts(false, true, false)).unwrap();
        assert_eq!(p.data, values);
        assert_eq!(p.labels, vec![-1.0]);
        assert_eq!(p.query_id, vec![7]);
    }
}
