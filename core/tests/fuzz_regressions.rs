//! Every input a fuzz target ever crashed on, replayed on stable through the very code the
//! target runs (`core/fuzz/src/targets.rs`, included by path): a fixed bug stays fixed.
//! Add a crash as `core/fuzz/regressions/<target>/<what-it-broke>` (see `core/fuzz/README.md`).

#![allow(dead_code)]

#[path = "../fuzz/src/invariants.rs"]
mod invariants;
#[path = "../fuzz/src/targets.rs"]
mod targets;

use std::path::PathBuf;

/// A fuzz target: its name and the function its `fuzz_target!` calls.
type Target = (&'static str, fn(&[u8]));

const TARGETS: [Target; 6] = [
    ("classify", targets::classify),
    ("retry_after", targets::retry_after),
    ("sse", targets::sse),
    ("orphan", targets::orphan),
    ("policy", targets::policy),
    ("scrub", targets::scrub),
];

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{target}: {} fails again", file.display());
    }
    files.len()
}

#[test]
fn classify() {
    replay(TARGETS[0].0, TARGETS[0].1);
}

#[test]
fn retry_after() {
    replay(TARGETS[1].0, TARGETS[1].1);
}

#[test]
fn sse() {
    replay(TARGETS[2].0, TARGETS[2].1);
}

#[test]
fn orphan() {
    replay(TARGETS[3].0, TARGETS[3].1);
}

#[test]
fn policy() {
    replay(TARGETS[4].0, TARGETS[4].1);
}

#[test]
fn scrub() {
    replay(TARGETS[5].0, TARGETS[5].1);
}

/// Each target has a regression folder, and each folder a replay test above.
#[test]
fn every_target_is_replayed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    let mut known: Vec<String> = TARGETS.iter().map(|(t, _)| (*t).to_owned()).collect();
    known.sort();
    assert_eq!(found, known, "a fuzz target without a regression replay");
}

/// Found by `retry_after`: Go prints microseconds as "µs" (U+00B5), which the unit scan (ASCII
/// letters only) never reached, so OpenAI-style reset durations under a millisecond were lost.
#[test]
fn go_durations_in_microseconds() {
    use retry_core::__private::retry_after::parse_go_duration;
    let close = |v: &str, want: f64| (parse_go_duration(v).unwrap() - want).abs() < 1e-12;
    assert!(close("60.938\u{b5}s", 60.938e-6));
    assert!(close("5\u{3bc}s", 5e-6)); // Go also reads the Greek mu
    assert!(close("5us", 5e-6));
    assert!(close("1m2.5s", 62.5));
    assert_eq!(parse_go_duration("5\u{e9}s"), None);
}

/// Found by `orphan`: a call answered after a system message was kept (system messages do not
/// end the window, CONTRACT §5) while its result was removed as dangling (its owner was taken
/// to be the message just before it), leaving the orphan the pruning was meant to remove.
#[test]
fn a_result_after_a_system_message_keeps_its_call() {
    use retry_core::__private::orphan::prune_json;
    use serde_json::json;
    let anthropic = vec![
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}}]}),
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "A"}]}),
    ];
    let openai = vec![
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]}),
        json!({"role": "developer", "content": "be brief"}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "A"}),
    ];
    for history in [anthropic, openai] {
        let out = prune_json(&history).unwrap();
        assert_eq!(out.messages, history, "nothing to prune");
        assert!(out.pruned.is_empty() && out.dangling_results == 0);
        invariants::check_pruned(&history, &out);
    }
}
