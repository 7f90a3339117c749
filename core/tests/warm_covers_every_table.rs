//! `retry_core::warm()` must build every table the engine builds on first use: one it missed
//! could be half-built by another thread when the process forks, and the child's first
//! classification would then wait for it forever (the bindings call `warm` before each fork).
//! This reads the sources: every function holding a `OnceLock` must be named in a `warm` body.

use std::fs;
use std::path::Path;

/// Lazy statics `warm` reaches another way, or need not: (file, function, why).
const REACHED_OTHERWISE: &[(&str, &str, &str)] = &[
    (
        "classify/tables.rs",
        "exact_row",
        "built by `code_row(\"\")` in classify::warm",
    ),
    (
        "classify/tables.rs",
        "deref",
        "`CODES`, built by `CODES.len()` in classify::warm",
    ),
    // run_ready's no-op waker (the scan names the `fn wake` beside it): one allocation.
    (
        "driver/mod.rs",
        "wake",
        "a waker of no state, built in nanoseconds",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The name of the innermost `fn` declared before `at`.
fn enclosing_fn(src: &str, at: usize) -> String {
    let head = &src[..at];
    let i = head.rfind("fn ").expect("a fn before a OnceLock");
    head[i + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The bodies of every `fn warm()` in the crate, concatenated.
fn warm_bodies(files: &[(String, String)]) -> String {
    let mut all = String::new();
    for (_, src) in files {
        let mut from = 0;
        while let Some(i) = src[from..].find("fn warm()") {
            let start = from + i;
            let end = src[start..].find("\n}\n").map_or(src.len(), |e| start + e);
            all.push_str(&src[start..end]);
            from = end;
        }
    }
    all
}

#[test]
fn warm_builds_every_lazy_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, fs::read_to_string(p).unwrap())
        })
        .collect();
    let warm = warm_bodies(&files);
    assert!(
        warm.contains("classify::warm()"),
        "lib.rs's warm calls each module's"
    );
    let mut lazies = 0;
    let mut missed = Vec::new();
    for (rel, src) in &files {
        for (at, _) in src.match_indices("OnceLock::new()") {
            lazies += 1;
            let name = enclosing_fn(src, at);
            let otherwise = REACHED_OTHERWISE
                .iter()
                .any(|(f, n, _)| f == rel && *n == name);
            let named = warm.contains(&format!("{name}("))
                || warm.contains(&format!("{name},"))
                || warm.contains(&format!("{name}\n"));
            if !otherwise && !named {
                missed.push(format!("{rel}: fn {name}"));
            }
        }
    }
    assert!(
        lazies >= 20,
        "found only {lazies} lazy statics: is the scan still right?"
    );
    assert!(
        missed.is_empty(),
        "lazy tables no `warm()` builds: {missed:?}"
    );
}
