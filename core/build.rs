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
    // A path that does not exist would make cargo rerun this script (and rebuild the crate) on
    // every build, so only existing paths are watched; without `docs/`, a change to `src/`
    // (a merge that brings the guides brings lib.rs changes too) looks again.
    let watched = if docs.is_dir() {
        docs.clone()
    } else {
        dir.join("src")
    };
    println!("cargo:rerun-if-changed={}", watched.display());
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
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        out.push_str(&item(&dir, f));
    }
    let dest = Path::new(&env::var_os("OUT_DIR").expect("cargo sets it")).join("doc_guides.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}

/// One hidden item whose documentation is the file, named after it (`Guide_docs_testing_md`)
/// so that a failing doctest says which file it is in.
fn item(dir: &Path, file: &Path) -> String {
    let path = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    let shown = file
        .strip_prefix(dir)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "repository_README.md".to_owned());
    let name: String = shown
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!(
        "#[allow(non_camel_case_types)]\n#[doc = include_str!({:?})]\npub struct Guide_{name};\n",
        path.display().to_string()
    )
}
