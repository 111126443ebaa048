//! The core's layers (stated in `src/lib.rs`'s module doc and in ARCHITECTURE.md),
//! checked on the sources: every `.rs` file under `src`, `#[cfg(test)]` modules and
//! test files included, may refer only to its own layer and the layers before it, and
//! `solvers` and `maps` (one level, side by side) not to each other. Inside `solvers`
//! the families have sub-layers of their own (`solvers/mod.rs`'s module doc): a
//! family (`linear`, `kernel`) may use `solvers::shared` and itself, not the other
//! family; the drivers (`distributed`) may use the families and `shared`; `shared`
//! uses no family; only `solvers` itself (its `mod.rs` and the files beside the
//! family folders, such as `agreement_tests.rs`) may use everything.
//!
//! A reference is a path starting at the crate root: `crate::m` in `use` statements
//! and in code (`crate::solvers::x::f()` written inline), the items of a
//! `use crate::{a, b::c}` group, and a `super::super::…` chain that climbs out of the
//! file's top-level module (counting inline `mod` blocks and `#[path]` modules).
//! Names the crate root re-exports (`crate::LinearSvm`) are followed to their module.
//! Comments and string literals are skipped. `lib.rs` is the crate root: it declares
//! and re-exports every layer and is not checked.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// The layers of `lib.rs`'s module doc; `Solvers` and `Maps` share level 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    Ground,
    Data,
    Kernels,
    Solvers,
    Maps,
    Io,
}

impl Layer {
    /// The layer of a top-level module of the crate (`None`: not classified).
    fn of_module(module: &str) -> Option<Layer> {
        Some(match module {
            "float" | "error" | "math" | "rng" | "monitor" | "parallel" | "thresholds" | "simd"
            | "prefetch" | "huge_pages" | "test_support" => Layer::Ground,
            "data" => Layer::Data,
            "kernels" => Layer::Kernels,
            "solvers" => Layer::Solvers,
            "maps" => Layer::Maps,
            "io" => Layer::Io,
            _ => return None,
        })
    }

    fn level(self) -> u8 {
        match self {
            Layer::Ground => 1,
            Layer::Data => 2,
            Layer::Kernels => 3,
            Layer::Solvers | Layer::Maps => 4,
            Layer::Io => 5,
        }
    }

    /// Its own layer and the levels before it; not the other module of level 4.
    fn may_use(self, other: Layer) -> bool {
        other == self || other.level() < self.level()
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Layer::Ground => "shared ground",
            Layer::Data => "data",
            Layer::Kernels => "kernels",
            Layer::Solvers => "solvers",
            Layer::Maps => "maps (beside solvers)",
            Layer::Io => "io",
        };
        write!(f, "layer {} {name}", self.level())
    }
}

/// The sub-layers of the `solvers` layer: its family folders, and `solvers` itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SubLayer {
    Shared,
    Linear,
    Kernel,
    Distributed,
    Solvers,
}

impl SubLayer {
    /// The sub-layer of a module under `solvers` (`None`: not classified); `self`
    /// or `*` (the module itself) and no name at all are `solvers` itself.
    fn of(name: Option<&str>) -> Option<SubLayer> {
        Some(match name {
            Some("shared") => SubLayer::Shared,
            Some("linear") => SubLayer::Linear,
            Some("kernel") => SubLayer::Kernel,
            Some("distributed") => SubLayer::Distributed,
            None | Some("self" | "*") => SubLayer::Solvers,
            Some(_) => return None,
        })
    }

    /// The sub-layer of a file whose module path is `module` (`["solvers", ...]`):
    /// its family, or `solvers` itself for `mod.rs` and the files beside the folders.
    fn of_file(module: &[String]) -> SubLayer {
        match module.get(1).map(String::as_str) {
            Some(name @ ("shared" | "linear" | "kernel" | "distributed")) => {
                SubLayer::of(Some(name)).unwrap_or(SubLayer::Solvers)
            }
            _ => SubLayer::Solvers,
        }
    }

    fn level(self) -> u8 {
        match self {
            SubLayer::Shared => 1,
            SubLayer::Linear | SubLayer::Kernel => 2,
            SubLayer::Distributed => 3,
            SubLayer::Solvers => 4,
        }
    }

    /// Its own sub-layer and the levels before it; not the other family.
    fn may_use(self, other: SubLayer) -> bool {
        other == self || other.level() < self.level()
    }
}

impl fmt::Display for SubLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            SubLayer::Shared => "solvers::shared",
            SubLayer::Linear => "solver family linear",
            SubLayer::Kernel => "solver family kernel (beside linear)",
            SubLayer::Distributed => "solvers::distributed (the drivers)",
            SubLayer::Solvers => "solvers itself",
        };
        write!(f, "sub-layer {} {name}", self.level())
    }
}

/// Blank out comments and string/char literals (newlines kept, so lines still count).
fn strip_comments_and_strings(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            i = skip_block_comment(&c, i, &mut out);
        } else if let Some(end) = raw_string_end(&c, i) {
            for &ch in &c[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                let step = if c[i] == '\\' { 2 } else { 1 };
                for &ch in &c[i..(i + step).min(c.len())] {
                    blank(&mut out, ch);
                }
                i += step;
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'); otherwise a lifetime or label.
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 2..c.len()).find(|&k| c[k] == '\'').map(|k| k + 1)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            let end = end.unwrap_or(i + 1);
            for &ch in &c[i..end] {
                blank(&mut out, ch);
            }
            if end == i + 1 {
                out.pop();
                out.push('\'');
            }
            i = end;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn blank(out: &mut String, ch: char) {
    out.push(if ch == '\n' { '\n' } else { ' ' });
}

/// Blank the (possibly nested) block comment starting at `i`; the index after it.
fn skip_block_comment(c: &[char], mut i: usize, out: &mut String) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            out.push_str("  ");
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            blank(out, c[i]);
            i += 1;
        }
    }
    i
}

/// If a raw string `r"…"`, `r#"…"#` (or `br…`) starts at `i`: the index after it.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    if c[i] != 'r' || (i > 0 && is_ident(c[i - 1]) && c[i - 1] != 'b') {
        return None;
    }
    let mut j = i + 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    let closing: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', j - i - 1))
        .collect();
    let mut k = j + 1;
    while k < c.len() && !c[k..].starts_with(&closing) {
        k += 1;
    }
    Some((k + closing.len()).min(c.len()))
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// Tokens with their 1-based line numbers.
fn tokens(clean: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = clean.chars().collect();
    let (mut out, mut line, mut i) = (Vec::new(), 1, 0);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if is_ident(ch) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::PathSep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

/// The crate-root paths a path continues with at `toks[at]`, each of at most
/// `segments` names: one path, or one for each item of a `{…}` group (`*` for a glob).
fn root_paths(toks: &[(Tok, usize)], at: usize, segments: usize) -> Vec<Vec<String>> {
    match toks.get(at) {
        Some((Tok::Ident(s), _)) => {
            let more = segments > 1 && toks.get(at + 1).map(|t| &t.0) == Some(&Tok::PathSep);
            let rest = if more {
                root_paths(toks, at + 2, segments - 1)
            } else {
                Vec::new()
            };
            if rest.is_empty() {
                return vec![vec![s.clone()]];
            }
            rest.into_iter()
                .map(|mut r| {
                    r.insert(0, s.clone());
                    r
                })
                .collect()
        }
        Some((Tok::Punct('*'), _)) => vec![vec!["*".into()]],
        Some((Tok::Punct('{'), _)) => {
            let (mut paths, mut depth, mut expect) = (Vec::new(), 0, true);
            for k in at..toks.len() {
                match &toks[k].0 {
                    Tok::Punct('{') => {
                        depth += 1;
                        if depth == 1 {
                            expect = true;
                        }
                    }
                    Tok::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Punct(',') if depth == 1 => expect = true,
                    Tok::Ident(_) | Tok::Punct('*') if depth == 1 && expect => {
                        paths.extend(root_paths(toks, k, segments));
                        expect = false;
                    }
                    _ => {}
                }
            }
            paths
        }
        _ => Vec::new(),
    }
}

/// A path to the crate root found in a file: the first name after the root, the
/// second (where the path has one), and its line.
#[derive(Debug, PartialEq)]
struct RootRef {
    name: String,
    sub: Option<String>,
    line: usize,
}

impl RootRef {
    fn new(mut path: Vec<String>, line: usize) -> Self {
        let sub = (path.len() > 1).then(|| path.remove(1));
        RootRef {
            name: path.swap_remove(0),
            sub,
            line,
        }
    }
}

/// Every reference to the crate root in a file whose module path is `module`
/// (`solvers/kernel/solver.rs`: `solvers::kernel::solver`), inline `mod x { … }`
/// blocks adding one level each; and every `super::` chain that climbs to the file's
/// top-level module, as a path from the root (so that `solvers`' sub-layers can be
/// checked).
fn root_refs(clean: &str, module: &[String]) -> Vec<RootRef> {
    let depth = module.len();
    let toks = tokens(clean);
    let (mut refs, mut braces, mut inline_mods) = (Vec::new(), 0usize, Vec::new());
    for i in 0..toks.len() {
        let (tok, line) = &toks[i];
        match tok {
            Tok::Punct('{') => {
                braces += 1;
                let opens_mod = i >= 2
                    && ident(toks.get(i - 2)) == Some("mod")
                    && ident(toks.get(i - 1)).is_some();
                if opens_mod {
                    inline_mods.push(braces);
                }
            }
            Tok::Punct('}') => {
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
                braces = braces.saturating_sub(1);
            }
            Tok::Ident(s)
                if s == "crate" && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::PathSep) =>
            {
                for path in root_paths(&toks, i + 2, 2) {
                    refs.push(RootRef::new(path, *line));
                }
            }
            Tok::Ident(s)
                if s == "super"
                    && (i == 0 || toks[i - 1].0 != Tok::PathSep)
                    && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::PathSep) =>
            {
                let mut k = i;
                let mut climbs = 0;
                while ident(toks.get(k)) == Some("super")
                    && toks.get(k + 1).map(|t| &t.0) == Some(&Tok::PathSep)
                {
                    climbs += 1;
                    k += 2;
                }
                let here = depth + inline_mods.len();
                if climbs > here {
                    refs.push(RootRef::new(
                        vec!["super (above the crate root)".into()],
                        *line,
                    ));
                } else if climbs == here {
                    for path in root_paths(&toks, k, 2) {
                        refs.push(RootRef::new(path, *line));
                    }
                } else if climbs + 1 == here {
                    // The file's top-level module, then the name after the chain.
                    for path in root_paths(&toks, k, 1) {
                        let path = [vec![module[0].clone()], path].concat();
                        refs.push(RootRef::new(path, *line));
                    }
                }
            }
            _ => {}
        }
    }
    refs
}

/// The module path of each file from its place under `src` (`a/mod.rs`, `a.rs`: `a`),
/// then `#[path = "f.rs"] mod m;` declarations: `f.rs` is the module `m` of its
/// declaring file.
fn module_paths(files: &[(String, String)]) -> HashMap<String, Vec<String>> {
    let mut paths: HashMap<String, Vec<String>> = HashMap::new();
    for (file, _) in files {
        let mut parts: Vec<String> = file
            .trim_end_matches(".rs")
            .split('/')
            .map(String::from)
            .collect();
        if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
            parts.pop();
        }
        paths.insert(file.clone(), parts);
    }
    let mut redirected = Vec::new();
    for (file, text) in files {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (n, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("#[path = \"") else {
                continue;
            };
            let target = rest.split('"').next().unwrap_or_default();
            let decl = lines[n + 1..].iter().find(|l| !l.starts_with("#["));
            let Some(name) = decl.and_then(|l| {
                let l = l.strip_prefix("pub ").unwrap_or(l);
                l.strip_prefix("mod ")
                    .map(|m| m.trim_end_matches(';').trim().to_string())
            }) else {
                continue;
            };
            let dir = Path::new(file)
                .parent()
                .map(|d| d.to_string_lossy().into_owned());
            let target = match dir.as_deref() {
                Some("") | None => target.to_string(),
                Some(d) => format!("{d}/{target}"),
            };
            let mut module = paths[file].clone();
            module.push(name);
            redirected.push((target, module));
        }
    }
    paths.extend(redirected);
    paths
}

/// The names `lib.rs` re-exports (`pub use solvers::linear::svm::LinearSvm;`), with
/// the first two names of their module's path (`solvers`, `linear`).
fn reexports(lib_clean: &str) -> HashMap<String, (String, Option<String>)> {
    let toks = tokens(lib_clean);
    let mut names = HashMap::new();
    let mut i = 0;
    while i + 2 < toks.len() {
        if ident(toks.get(i)) == Some("pub") && ident(toks.get(i + 1)) == Some("use") {
            let mut j = i + 2;
            if matches!(ident(toks.get(j)), Some("crate" | "self")) {
                j += 2;
            }
            let module = ident(toks.get(j)).unwrap_or_default().to_string();
            let sub = (toks.get(j + 1).map(|t| &t.0) == Some(&Tok::PathSep))
                .then(|| ident(toks.get(j + 2)).map(String::from))
                .flatten();
            while j < toks.len() && toks[j].0 != Tok::Punct(';') {
                if let Tok::Ident(s) = &toks[j].0 {
                    if toks.get(j + 1).map(|t| &t.0) != Some(&Tok::PathSep) && s != "as" {
                        names.insert(s.clone(), (module.clone(), sub.clone()));
                    }
                }
                j += 1;
            }
            i = j;
        }
        i += 1;
    }
    names
}

/// A violation of `solvers`' sub-layers by the reference `r` of a file under
/// `solvers` (module path `module`), or `None`.
fn check_sub_layer(file: &str, module: &[String], r: &RootRef) -> Option<String> {
    let from = SubLayer::of_file(module);
    let sub = r.sub.as_deref();
    match SubLayer::of(sub) {
        Some(to) if from.may_use(to) => None,
        Some(to) => Some(format!(
            "{file}:{}: {from} refers to crate::solvers::{} in {to}",
            r.line,
            sub.unwrap_or("")
        )),
        None => Some(format!(
            "{file}:{}: {from} refers to crate::solvers::{}, which has no sub-layer",
            r.line,
            sub.unwrap_or("")
        )),
    }
}

/// The layering violations of a crate's sources (`(path under src, text)` pairs), each
/// as `file:line: its layer refers to crate::name of a layer it may not use`; and the
/// number of references checked.
fn check(files: &[(String, String)]) -> (Vec<String>, usize) {
    let modules = module_paths(files);
    let lib = files.iter().find(|(f, _)| f == "lib.rs");
    let reexported = lib
        .map(|(_, t)| reexports(&strip_comments_and_strings(t)))
        .unwrap_or_default();
    let (mut violations, mut checked) = (Vec::new(), 0);
    for (file, text) in files {
        let module = &modules[file];
        let Some(top) = module.first() else { continue }; // lib.rs: the root
        let Some(from) = Layer::of_module(top) else {
            violations.push(format!(
                "{file}: module {top} has no layer in tests/layering.rs"
            ));
            continue;
        };
        for mut r in root_refs(&strip_comments_and_strings(text), module) {
            checked += 1;
            let shown = r.name.clone();
            if let Some((home, sub)) = reexported.get(&r.name) {
                r.name.clone_from(home);
                r.sub.clone_from(sub);
            }
            let target = &r.name;
            match Layer::of_module(target) {
                Some(Layer::Solvers) if from == Layer::Solvers => {
                    if let Some(v) = check_sub_layer(file, module, &r) {
                        violations.push(v);
                    }
                }
                Some(to) if from.may_use(to) => {}
                Some(to) => violations.push(format!(
                    "{file}:{}: {from} ({top}) refers to crate::{} in {to}",
                    r.line, shown
                )),
                None => violations.push(format!(
                    "{file}:{}: {from} ({top}) refers to crate::{}, which has no layer",
                    r.line, shown
                )),
            }
        }
    }
    (violations, checked)
}

/// Every `.rs` file under `dir`, as (path relative to `root` with `/`, text).
fn read_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap();
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

fn crate_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    files
}

#[test]
fn core_modules_use_only_their_own_and_earlier_layers() {
    let files = crate_sources();
    let (violations, checked) = check(&files);
    assert!(
        violations.is_empty(),
        "layering violations:\n{}",
        violations.join("\n")
    );
    // The check saw the crate: hundreds of references in every layer's files.
    assert!(
        files.len() > 50 && checked > 300,
        "{} files, {checked} references",
        files.len()
    );
}

#[test]
fn test_files_and_test_modules_are_checked_too() {
    let files = crate_sources();
    let modules = module_paths(&files);
    // Files included by #[path] under #[cfg(test)] get their real module path, so
    // their `super::` chains are resolved from there.
    assert_eq!(
        modules["solvers/linear/crammer_singer_tests.rs"],
        ["solvers", "linear", "crammer_singer", "tests"]
    );
    assert_eq!(
        modules["solvers/kernel/strategy.rs"],
        ["solvers", "kernel", "solver", "strategy"]
    );
    assert_eq!(modules["test_support.rs"], ["test_support"]);
    for test_file in [
        "solvers/linear/crammer_singer_tests.rs",
        "solvers/linear/binary_tests.rs",
        "solvers/agreement_tests.rs",
        "test_support.rs",
    ] {
        let (_, text) = files.iter().find(|(f, _)| f == test_file).unwrap();
        assert!(
            !root_refs(&strip_comments_and_strings(text), &modules[test_file]).is_empty(),
            "{test_file}"
        );
    }
}

fn one(file: &str, text: &str) -> Vec<String> {
    check(&[(file.to_string(), text.to_string())]).0
}

#[test]
fn checker_reports_a_use_of_a_higher_layer_with_file_line_and_layers() {
    let v = one(
        "data/rows.rs",
        "use crate::float::Float;\nuse crate::solvers::linear::binary::LinearState;\n",
    );
    assert_eq!(
        v,
        ["data/rows.rs:2: layer 2 data (data) refers to crate::solvers in layer 4 solvers"]
    );
}

#[test]
fn checker_reports_inline_paths_groups_and_reexports() {
    let text = "fn f() {\n    let p = crate::solvers::linear::svm::LinearSvm::params();\n}\n\
                use crate::{data::rows::Rows, io::codec::{encode_states, decode_states}};\n\
                use crate::LinearSvm;\n";
    let v = one("kernels/gram.rs", text);
    assert_eq!(v.len(), 3, "{v:?}");
    assert!(
        v[0].starts_with("kernels/gram.rs:2: layer 3 kernels") && v[0].ends_with("layer 4 solvers")
    );
    assert!(v[1].starts_with("kernels/gram.rs:4:") && v[1].contains("crate::io in layer 5 io"));
    // Re-exports are followed when the crate root is given.
    let files = [
        (
            "lib.rs".to_string(),
            "pub mod solvers;\npub use solvers::linear::svm::{FittedLinearSvm, LinearSvm};\n"
                .to_string(),
        ),
        (
            "kernels/gram.rs".to_string(),
            "use crate::LinearSvm;\n".to_string(),
        ),
    ];
    let (v, _) = check(&files);
    assert_eq!(v, ["kernels/gram.rs:1: layer 3 kernels (kernels) refers to crate::LinearSvm in layer 4 solvers"]);
}

#[test]
fn checker_reports_solvers_and_maps_using_each_other() {
    let v = one(
        "maps/fourier.rs",
        "use crate::kernels::gram::Gram;\nuse crate::solvers::shared::params::Params;\n",
    );
    assert_eq!(v, ["maps/fourier.rs:2: layer 4 maps (beside solvers) (maps) refers to crate::solvers in layer 4 solvers"]);
    let v = one("solvers/linear.rs", "use crate::maps::fourier::Fourier;\n");
    assert_eq!(v.len(), 1, "{v:?}");
}

#[test]
fn checker_follows_super_chains_out_of_the_top_module() {
    // data/rows.rs is two levels down: super::super is the crate root.
    let v = one(
        "data/rows.rs",
        "use super::checks::first;\nuse super::super::kernels::gram::Gram;\n",
    );
    assert_eq!(
        v,
        ["data/rows.rs:2: layer 2 data (data) refers to crate::kernels in layer 3 kernels"]
    );
    // In an inline test module one more `super` is needed.
    let text = "#[cfg(test)]\nmod tests {\n    use super::super::Rows;\n    use super::super::super::io::codec;\n}\n";
    let v = one("data/rows.rs", text);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("data/rows.rs:4:") && v[0].ends_with("layer 5 io"));
}

#[test]
fn checker_covers_cfg_test_files_included_by_path() {
    let files = [
        ("solvers/linear.rs".to_string(), "#[cfg(test)]\n#[path = \"linear_tests.rs\"]\nmod tests;\n".to_string()),
        (
            "solvers/linear_tests.rs".to_string(),
            "use super::*;\nuse crate::io::codec::encode_states;\nuse super::super::super::io::codec;\n".to_string(),
        ),
    ];
    let (v, _) = check(&files);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[0].starts_with("solvers/linear_tests.rs:2: layer 4 solvers")
            && v[0].ends_with("layer 5 io")
    );
    assert!(v[1].starts_with("solvers/linear_tests.rs:3:"));
}

#[test]
fn checker_skips_comments_and_strings_and_allows_lower_layers() {
    let text = "//! Uses [`crate::io`] nowhere.\n/* crate::io /* nested */ crate::io */\n\
                const S: &str = \"crate::io\";\nconst R: &str = r#\"crate::io \"x\"\"#;\n\
                const C: char = '\"';\nfn f<'a>(x: &'a str) -> &'a str { x }\n\
                use crate::{float::Float, data::rows::Rows, kernels::gram::Gram};\nuse crate::solvers::shared::params;\n";
    assert_eq!(one("solvers/kernel_solver.rs", text), Vec::<String>::new());
    assert_eq!(
        one("io/codec.rs", "use crate::{solvers, maps, data};\n"),
        Vec::<String>::new()
    );
}

#[test]
fn checker_reports_unclassified_modules() {
    let v = one("data/rows.rs", "use crate::newthing::X;\n");
    assert_eq!(
        v,
        ["data/rows.rs:1: layer 2 data (data) refers to crate::newthing, which has no layer"]
    );
    let v = one("newthing/mod.rs", "use crate::float::Float;\n");
    assert_eq!(
        v,
        ["newthing/mod.rs: module newthing has no layer in tests/layering.rs"]
    );
}

#[test]
fn checker_reports_a_solver_family_using_the_other_family() {
    let v = one(
        "solvers/kernel/solver.rs",
        "use crate::solvers::shared::loss::Loss;\nuse crate::solvers::linear::binary::LinearState;\n",
    );
    assert_eq!(
        v,
        ["solvers/kernel/solver.rs:2: sub-layer 2 solver family kernel (beside linear) refers to \
          crate::solvers::linear in sub-layer 2 solver family linear"]
    );
    // Through a `super::super` chain, in a group, and from a test file of the family.
    let v = one(
        "solvers/linear/binary.rs",
        "use super::super::kernel::solver::KernelState;\nuse super::svm::LinearSvm;\n\
         use crate::solvers::{shared::params::Params, kernel::model, linear::svm};\n",
    );
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[0].starts_with("solvers/linear/binary.rs:1:") && v[0].contains("crate::solvers::kernel")
    );
    assert!(
        v[1].starts_with("solvers/linear/binary.rs:3:") && v[1].contains("crate::solvers::kernel")
    );
}

#[test]
fn checker_orders_shared_families_drivers_and_solvers_itself() {
    // shared uses no family, a family not the drivers; the drivers use the families,
    // solvers itself everything; a name that is no folder has no sub-layer.
    let bad = [
        (
            "solvers/shared/passes.rs",
            "use crate::solvers::linear::one_vs_rest::x;\n",
        ),
        (
            "solvers/linear/svm.rs",
            "use crate::solvers::distributed::streamed::x;\n",
        ),
        (
            "solvers/kernel/svm.rs",
            "use crate::solvers::agreement_tests::x;\n",
        ),
        (
            "solvers/shared/loss.rs",
            "use crate::solvers::newfamily::x;\n",
        ),
    ];
    for (file, text) in bad {
        assert_eq!(one(file, text).len(), 1, "{file}: {text}");
    }
    assert!(one(
        "solvers/shared/loss.rs",
        "use crate::solvers::newfamily::x;\n"
    )[0]
    .ends_with("which has no sub-layer"));
    let good = [
        ("solvers/distributed/streamed.rs", "use crate::solvers::linear::binary::x;\nuse crate::solvers::kernel::budget::y;\nuse crate::solvers::shared::params::z;\n"),
        ("solvers/agreement_tests.rs", "use crate::solvers::kernel::solver::x;\nuse crate::solvers::linear::binary::y;\n"),
        ("solvers/mod.rs", "use crate::solvers::distributed::x;\n"),
        ("solvers/linear/binary_tests.rs", "use crate::solvers::linear::test_support::x;\nuse super::super::shared::loss::Loss;\n"),
        ("io/codec.rs", "use crate::solvers::linear::binary::LinearState;\n"),
    ];
    for (file, text) in good {
        assert_eq!(one(file, text), Vec::<String>::new(), "{file}");
    }
    // A re-export of the crate root is followed to its family.
    let files = [
        (
            "lib.rs".to_string(),
            "pub mod solvers;\npub use solvers::linear::svm::LinearSvm;\n".to_string(),
        ),
        (
            "solvers/kernel/svm.rs".to_string(),
            "use crate::LinearSvm;\n".to_string(),
        ),
    ];
    let (v, _) = check(&files);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].contains("crate::solvers::linear in sub-layer 2 solver family linear"));
}

/// The crate as it is, with one reference of the kernel family to the linear one
/// planted in a real file: the check of the whole crate fails on it, and only on it.
#[test]
fn a_violation_planted_in_the_real_crate_is_reported() {
    let mut files = crate_sources();
    let (_, text) = files
        .iter_mut()
        .find(|(f, _)| f == "solvers/kernel/budget.rs")
        .expect("the kernel family's budget file");
    let lines = text.lines().count();
    text.push_str(
        "\nfn planted() {\n    let _ = crate::solvers::linear::binary::BLOCK_EXAMPLES;\n}\n",
    );
    let (v, _) = check(&files);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with(&format!("solvers/kernel/budget.rs:{}:", lines + 3)),
        "{v:?}"
    );
}
