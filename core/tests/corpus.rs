//! Replays the public error corpus (`tests/corpus/*.json`): real error reports gathered from
//! providers' docs, SDK tests and public issue threads. pytest and minitest replay the same
//! files, so the three languages are held to the same labels.

use std::path::PathBuf;

use retry_core::__private::classify::classify_at;
use retry_core::Failure;
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

fn fixed_now() -> std::time::SystemTime {
    httpdate::parse_http_date("Sun, 22 Nov 2026 12:00:00 GMT").unwrap()
}

/// Every case of every corpus file, as (file, case).
fn cases() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for case in doc["cases"].as_array().expect("a cases array") {
            out.push((name.clone(), case.clone()));
        }
    }
    out
}

/// The keys a case may have (tests/corpus/README.md); `relabel` records an earlier label.
const CASE_KEYS: [&str; 8] = [
    "name",
    "source",
    "failure",
    "expect",
    "why",
    "also",
    "ambiguous",
    "relabel",
];

#[test]
fn corpus_cases_are_well_formed_and_uniquely_named() {
    let all = cases();
    let mut names = std::collections::HashSet::new();
    for (file, case) in &all {
        let name = case["name"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}: a case without a name"));
        assert!(names.insert(name.to_owned()), "{file}: {name} twice");
        for key in ["source", "why"] {
            assert!(
                case[key].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: no {key}"
            );
        }
        // A key out of place is a label nobody reads (batch 29's `also` sat inside `expect`).
        for key in case.as_object().expect("a case is an object").keys() {
            assert!(
                CASE_KEYS.contains(&key.as_str()),
                "{name}: unknown key {key:?}"
            );
        }
        for key in case["expect"].as_object().expect("an expect object").keys() {
            assert!(
                ["category", "transient"].contains(&key.as_str()),
                "{name}: {key:?} inside `expect` (only `category` and `transient` go there)"
            );
        }
        let cat = case["expect"]["category"].as_str().unwrap_or("");
        assert!(
            retry_core::Category::parse(cat).is_some(),
            "{name}: unknown category {cat:?}"
        );
        assert!(
            case["expect"]["transient"].is_boolean(),
            "{name}: no transient"
        );
        // `also` is for genuinely ambiguous cases only, and names real categories.
        if let Some(also) = case.get("also") {
            assert!(
                case["ambiguous"].is_string(),
                "{name}: `also` without `ambiguous`"
            );
            for a in also.as_array().expect("`also` is a list") {
                assert!(
                    retry_core::Category::parse(a.as_str().unwrap_or("")).is_some(),
                    "{name}: {a}"
                );
            }
        }
        serde_json::from_value::<Failure>(case["failure"].clone())
            .unwrap_or_else(|e| panic!("{name}: bad failure: {e}"));
    }
}

#[test]
fn corpus_labels_hold() {
    let all = cases();
    let mut wrong = Vec::new();
    let mut by_file: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
    for (file, case) in &all {
        let f: Failure = serde_json::from_value(case["failure"].clone()).unwrap();
        let c = classify_at(&f, fixed_now());
        let want_cat = case["expect"]["category"].as_str().unwrap();
        let want_retry = case["expect"]["transient"].as_bool().unwrap();
        let e = by_file.entry(file.clone()).or_default();
        e.0 += 1;
        e.1 += usize::from(c.transient == want_retry);
        let also = case["also"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        let cat_ok =
            c.category.as_str() == want_cat || also.clone().any(|a| a == c.category.as_str());
        e.2 += usize::from(cat_ok);
        if !cat_ok || c.transient != want_retry {
            wrong.push(format!(
                "{}: got {} (transient {}), want {want_cat} ({want_retry})",
                case["name"].as_str().unwrap(),
                c.category,
                c.transient
            ));
        }
    }
    for (file, (n, retry, cat)) in &by_file {
        eprintln!("{file:<22} {n:>4} cases  retry {retry:>4}  category {cat:>4}");
    }
    assert!(
        wrong.is_empty(),
        "{} of {} corpus cases decided wrong:\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n")
    );
    assert!(
        all.len() >= 300,
        "the corpus has {} cases, fewer than 300",
        all.len()
    );
}

/// The generalisation score of some corpus files (tests/corpus/README.md, "First sight"):
/// `CORPUS_FILES=a.json,b.json cargo test -p llm-retry-core --test corpus score -- --ignored --nocapture`
/// prints, per file and in total, the cases, the retry decisions right and the categories right
/// (a category in `also` counts), then every case decided wrong. Without `CORPUS_FILES` it
/// scores the whole corpus.
#[test]
#[ignore = "a measuring tool, run by hand"]
fn score() {
    let wanted: Vec<String> = std::env::var("CORPUS_FILES")
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().rsplit('/').next().unwrap_or("").to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let mut totals = (0usize, 0usize, 0usize);
    let mut per_file: std::collections::BTreeMap<String, (usize, usize, usize)> =
        Default::default();
    let mut wrong = Vec::new();
    for (file, case) in cases() {
        if !wanted.is_empty() && !wanted.contains(&file) {
            continue;
        }
        let f: Failure = serde_json::from_value(case["failure"].clone()).unwrap();
        let c = classify_at(&f, fixed_now());
        let want_cat = case["expect"]["category"].as_str().unwrap();
        let want_retry = case["expect"]["transient"].as_bool().unwrap();
        let cat_ok = c.category.as_str() == want_cat
            || case["also"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .any(|a| a == c.category.as_str());
        let retry_ok = c.transient == want_retry;
        let e = per_file.entry(file.clone()).or_default();
        for t in [&mut totals, e] {
            t.0 += 1;
            t.1 += usize::from(retry_ok);
            t.2 += usize::from(cat_ok);
        }
        if !cat_ok || !retry_ok {
            wrong.push(format!(
                "  {file}: {}: got {} ({}), want {want_cat} ({want_retry})",
                case["name"].as_str().unwrap_or("?"),
                c.category,
                c.transient
            ));
        }
    }
    let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    for (file, (n, r, c)) in &per_file {
        println!(
            "{file:<28} {n:>4} cases  retry {:.3}  category {:.3}",
            ratio(*r, *n),
            ratio(*c, *n)
        );
    }
    println!(
        "TOTAL {} cases in {} files: retry {:.3} ({}), category {:.3} ({})",
        totals.0,
        per_file.len(),
        ratio(totals.1, totals.0),
        totals.1,
        ratio(totals.2, totals.0),
        totals.2
    );
    for w in &wrong {
        println!("{w}");
    }
}
