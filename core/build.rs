//! Lists the Markdown files whose ```rust blocks are doctests besides this crate's README: the
//! repository's README (absent from the published crate) and every `docs/*.md` (the user guides
//! of the tracing, middleware, testing and streams features). `src/lib.rs` includes the list
//! under `#[cfg(doctest)]`, so `cargo test --doc` runs each block and a guide added later is
//! tested without touching the code. Nothing of this reaches a normal build.

use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let docs = dir.join("docs");
    println!("cargo:rerun-if-changed={}", docs.display());
    let mut files: Vec<PathBuf> = fs::read_dir(&docs)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let readme = dir.join("..").join("README.md");
    if readme.is_file() && dir.join("..").join("Cargo.toml").is_file() {
        files.insert(0, readme);
    }
    let mut out = String::new();
    for (i, f) in files.iter().enumerate() {
        println!("cargo:rerun-if-changed={}", f.display());
        out.push_str(&item(i, f));
    }
    let dest = Path::new(&env::var_os("OUT_DIR").expect("cargo sets it")).join("doc_guides.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}

/// One hidden item whose documentation is the file: rustdoc tests its code blocks.
fn item(i: usize, file: &Path) -> String {
    let path = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    format!(
        "#[doc = include_str!({:?})]\npub struct DocGuide{i};\n",
        path.display().to_string()
    )
}
