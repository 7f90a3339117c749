//! Every user guide in `core/docs/` is a doctest somewhere: a guide added without its
//! `#[doc = include_str!(...)]` line would otherwise go untested (CONTRIBUTING.md).

use std::path::Path;

fn sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&path).expect("a source file"));
        }
    }
}

#[test]
fn every_guide_is_included_as_a_doctest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut src = String::new();
    sources(&root.join("src"), &mut src);
    let mut guides = 0;
    for entry in std::fs::read_dir(root.join("docs")).expect("core/docs exists") {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy();
        if !name.ends_with(".md") {
            continue;
        }
        guides += 1;
        let include = format!("docs/{name}\")]");
        assert!(
            src.contains(&include),
            "core/docs/{name} is not included as a doctest (#[doc = include_str!(\"…/docs/{name}\")])"
        );
    }
    assert!(guides >= 4, "the guides are where this test looks");
}
