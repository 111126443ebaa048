//! Train a linear SVM on an svmlight file and report its accuracy, with the core
//! crate alone (no Python).
//!
//! ```text
//! cargo run --release -p pegasos-core --example train_svmlight -- TRAIN [TEST] [C]
//! ```
//!
//! `TRAIN` and `TEST` are svmlight/libsvm text files (uncompressed; one-based
//! feature indices, as LIBSVM writes them, or zero-based); `C` is LIBLINEAR's cost
//! (default 1), so the paper's lambda is `1 / (C n_train)`. The classes are the
//! distinct labels of `TRAIN` (two: a binary SVM; more: one-vs-rest). Without
//! `TEST`, the accuracy is on `TRAIN`.

use std::process::ExitCode;

use pegasos_core::io::svmlight::{parse, Leading, ParseOptions, Svmlight};
use pegasos_core::{Averaging, CsrRows, Error, LinearSvm, Result};

/// A parsed file with its indices made zero-based (one-based when it has no
/// index 0), `n_features` wide.
struct Data {
    file: Svmlight<f64>,
    n_features: usize,
}

impl Data {
    fn read(path: &str) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| Error::InvalidInput(format!("{path}: {e}")))?;
        let options = ParseOptions {
            one_based: false,
            query_id: false,
            n_threads: 0,
            leading: Leading::Label,
        };
        let mut file = parse::<f64>(&bytes, options)?;
        if file.min_index.is_some_and(|i| i >= 1) {
            for i in &mut file.indices {
                *i -= 1;
            }
        }
        let n_features = file.indices.iter().max().map_or(0, |&i| i as usize + 1);
        Ok(Self { file, n_features })
    }

    /// The rows, `n_features` wide (at least the file's own width).
    fn rows(&self, n_features: usize) -> Result<CsrRows<'_, f64, i64>> {
        let f = &self.file;
        CsrRows::new(&f.data, &f.indices, &f.indptr, f.labels.len(), n_features)
    }
}

fn run(args: &[String]) -> Result<String> {
    let [train, rest @ ..] = args else {
        return Err(Error::InvalidInput(
            "usage: train_svmlight TRAIN [TEST] [C]".into(),
        ));
    };
    if rest.len() > 2 {
        return Err(Error::InvalidInput(
            "usage: train_svmlight TRAIN [TEST] [C]".into(),
        ));
    }
    let cost: f64 = match rest.get(1) {
        Some(c) => c
            .parse()
            .map_err(|_| Error::InvalidInput(format!("C must be a number, got {c:?}")))?,
        None => 1.0,
    };
    let train = Data::read(train)?;
    let test = rest.first().map(|t| Data::read(t)).transpose()?;
    let n_features = train
        .n_features
        .max(test.as_ref().map_or(0, |t| t.n_features));
    // Class codes: the distinct training labels in increasing order.
    let mut classes = train.file.labels.clone();
    classes.sort_by(f64::total_cmp);
    classes.dedup();
    let codes: Vec<u32> = train
        .file
        .labels
        .iter()
        .map(|y| {
            classes
                .binary_search_by(|c| c.total_cmp(y))
                .map_or(u32::MAX, |c| c as u32)
        })
        .collect();

    // [docs: train]
    let m = codes.len();
    let model = LinearSvm::params()
        .alpha(1.0 / (cost * m as f64))
        .max_iter(20)
        .averaging(Averaging::Weighted)
        .fit(&train.rows(n_features)?, &codes)?;

    let eval = test.as_ref().unwrap_or(&train);
    let predicted = model.predict(&eval.rows(n_features)?)?;
    let correct = predicted
        .iter()
        .zip(&eval.file.labels)
        .filter(|(&p, &y)| classes[p as usize] == y)
        .count();
    // [docs: end]
    Ok(format!(
        "{m} training rows, {n_features} features, {} classes; accuracy on {} rows: {:.2} %",
        classes.len(),
        predicted.len(),
        100.0 * correct as f64 / predicted.len().max(1) as f64
    ))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("train_svmlight: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::run;

    /// Three separable classes along three features, one-based as LIBSVM writes.
    #[test]
    fn trains_and_predicts_a_one_based_multiclass_file() {
        let dir = std::env::temp_dir().join(format!("train_svmlight_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("three.svm");
        let mut text = String::new();
        for i in 0..60 {
            let c = i % 3;
            let noise = f64::from(i) / 600.0;
            writeln!(text, "{} {}:{} 4:{noise}", c + 5, c + 1, 1.0 + noise).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap().to_string();
        let report = run(&[path.clone(), path.clone(), "10".into()]).unwrap();
        assert!(
            report.contains("60 training rows, 4 features, 3 classes"),
            "{report}"
        );
        assert!(
            report.ends_with("accuracy on 60 rows: 100.00 %"),
            "{report}"
        );
        let err = run(&[path, "a".into(), "b".into(), "c".into()]).unwrap_err();
        assert!(err.to_string().contains("usage"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
