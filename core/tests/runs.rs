//! Whole-run vectors (`tests/vectors/runs.json`): scripts of call outcomes, replayed through
//! [`Run`], with the steps, events and note every front door must see. pytest
//! (`tests/python/test_runs.py`) and minitest (`tests/ruby/runs_test.rb`) replay the same file
//! the same way.
//!
//! The steps of each run are written by hand in `tests/vectors/src/make_runs.py` (the
//! oracle). Its events and note are recorded from the engine with `BLESS_RUNS=1 cargo test
//! --test runs` after review, and then pin the three languages to one another.

use std::sync::Arc;

use retry_core::driver::ManualClock;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{Failure, RetryPolicy};
use retry_core::{Run, RunConfig, Step};
use serde_json::{json, Value};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/runs.json");

fn step_json(s: &Step) -> Value {
    match *s {
        Step::Call { model } => json!(["call", model]),
        Step::Wait { seconds, reason } => json!(["wait", seconds, reason.as_str()]),
        Step::Skip { model, seconds } => json!(["skip", model, seconds]),
        Step::PruneOrphans => json!(["prune_orphans"]),
        Step::CompactContext => json!(["compact_context"]),
        Step::Return => json!(["return"]),
        Step::GiveUp { reason } => json!(["give_up", reason.as_str()]),
        Step::Reraise => json!(["reraise"]),
        Step::Stalled { reason } => json!(["stalled", reason.as_str()]),
    }
}

/// Same numbers, however they were written (`2` and `2.0` are one number to every language).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

struct Replayed {
    /// Outcomes of the script never asked for.
    unused: usize,
    steps: Vec<Value>,
    events: Vec<Value>,
    note: Value,
}

fn replay(case: &Value) -> Replayed {
    let name = case["name"].as_str().unwrap();
    let policy = RetryPolicy::from_config(&case["policy"].to_string())
        .unwrap_or_else(|e| panic!("{name}: policy: {e}"));
    let cfg = match case.get("config") {
        Some(c) => RunConfig::from_json(&c.to_string()).unwrap_or_else(|e| panic!("{name}: {e}")),
        None => RunConfig::default(),
    };
    let clock_start = case
        .get("clock_start")
        .and_then(Value::as_f64)
        .unwrap_or(1_000_000.0);
    let clock = ManualClock::new(clock_start);
    let mut run = Run::with_config(policy, cfg);
    if let Some(f) = case.get("fleet") {
        let fc = FleetConfig::from_json(&f.to_string()).unwrap();
        let fleet = Arc::new(Fleet::in_process(fc).with_clock(clock.wall_clock()));
        let keys = case["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect();
        run = run.fleet(fleet, keys);
    }
    let script = case["script"].as_array().unwrap();
    let mut pruned = case
        .get("pruned")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut compacted = case
        .get("compacted")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (mut steps, mut events) = (Vec::new(), Vec::new());
    let mut t = 0.0;
    let mut next = 0;
    let mut step = run.start(t);
    loop {
        events.extend(run.take_events().iter().map(|e| e.to_json()));
        steps.push(step_json(&step));
        if step.is_final() {
            break;
        }
        step = match step {
            Step::Call { .. } => {
                let o = script
                    .get(next)
                    .unwrap_or_else(|| panic!("{name}: the script ran out at call {}", next + 1));
                next += 1;
                t += o.get("takes").and_then(Value::as_f64).unwrap_or(0.0);
                clock.set(clock_start + t);
                match o.get("failure") {
                    None => run.succeeded(t),
                    Some(f) => {
                        let failure: Failure = serde_json::from_value(f.clone())
                            .unwrap_or_else(|e| panic!("{name}: failure: {e}"));
                        run.failed(&failure, t)
                    }
                }
            }
            Step::Wait { seconds, .. } => {
                t += seconds;
                clock.set(clock_start + t);
                run.resume(t)
            }
            Step::Skip { .. } => run.resume(t),
            Step::PruneOrphans => {
                let n = if pruned.is_empty() {
                    0
                } else {
                    pruned.remove(0).as_u64().unwrap()
                };
                run.pruned(n as usize, t)
            }
            Step::CompactContext => {
                let b = !compacted.is_empty() && compacted.remove(0).as_bool().unwrap();
                run.compacted(b, t)
            }
            _ => unreachable!(),
        };
    }
    events.extend(run.take_events().iter().map(|e| e.to_json()));
    Replayed {
        unused: script.len() - next,
        steps,
        events,
        note: run.note().map_or(Value::Null, Value::from),
    }
}

#[test]
fn run_vectors() {
    let text = std::fs::read_to_string(FILE).expect("tests/vectors/runs.json");
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let bless = std::env::var_os("BLESS_RUNS").is_some();
    let runs = doc["runs"].as_array_mut().unwrap();
    assert!(runs.len() >= 60, "at least 60 runs, found {}", runs.len());
    let mut failures = Vec::new();
    for case in runs.iter_mut() {
        let name = case["name"].as_str().unwrap().to_owned();
        let got = replay(case);
        let want_steps = case["expect"]["steps"].clone();
        if got.unused > 0 {
            failures.push(format!(
                "{name}: {} outcome(s) of the script never asked for",
                got.unused
            ));
        }
        if !same(&Value::from(got.steps.clone()), &want_steps) {
            failures.push(format!(
                "{name}: steps\n  want {want_steps}\n  got  {}",
                Value::from(got.steps)
            ));
            continue;
        }
        if bless {
            case["expect"]["events"] = Value::from(got.events);
            case["expect"]["note"] = got.note;
            continue;
        }
        let want_events = &case["expect"]["events"];
        if !same(&Value::from(got.events.clone()), want_events) {
            failures.push(format!(
                "{name}: events\n  want {want_events}\n  got  {}",
                Value::from(got.events)
            ));
        }
        if !same(&got.note, &case["expect"]["note"]) {
            failures.push(format!(
                "{name}: note {} != {}",
                got.note, case["expect"]["note"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if bless {
        let out = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        std::fs::write(FILE, out).unwrap();
    }
}
