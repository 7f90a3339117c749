//! Replays every shared vector file in `tests/vectors/` (the same files pytest and minitest
//! replay), so the three languages are held to the same expected decisions.

use std::path::PathBuf;

use retry_core::__private::classify::classify_at;
use retry_core::__private::orphan::prune_json;
use retry_core::__private::retry_after::from_headers;
use retry_core::{Action, Failure, Headers, Link, RetryPolicy, Run, RunConfig, Step, WaitReason};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn load(name: &str) -> Value {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cases(doc: &Value) -> &Vec<Value> {
    doc["cases"].as_array().expect("a cases array")
}

fn fixed_now() -> std::time::SystemTime {
    httpdate::parse_http_date("Sun, 22 Nov 2026 12:00:00 GMT").unwrap()
}

fn failure(v: &Value) -> Failure {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("bad failure {v}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn every_vector_file_is_replayed() {
    let known = [
        "classify.json",
        "should_retry.json",
        "retry_after.json",
        "policies.json",
        "orphans.json",
        "chains.json",
        "hook_answers.json",
        "estimates.json",
        // Replayed by tests/runs.rs.
        "runs.json",
        // Replayed by stream_end's unit tests (src/stream_end.rs), which see the Watch's inside.
        "stream_watch.json",
    ];
    let mut seen = 0;
    for entry in std::fs::read_dir(vectors_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".json") {
            assert!(
                known.contains(&name.as_str()),
                "vector file {name} has no replay test"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, known.len(), "missing vector files");
}

fn check_classify_file(name: &str) {
    let doc = load(name);
    let mut failures = Vec::new();
    for case in cases(&doc) {
        let f = failure(&case["failure"]);
        let c = classify_at(&f, fixed_now());
        let exp = &case["expect"];
        let mut bad = Vec::new();
        if let Some(cat) = exp.get("category").and_then(Value::as_str) {
            if c.category.as_str() != cat {
                bad.push(format!("category {} != {cat}", c.category));
            }
        }
        if let Some(t) = exp.get("transient").and_then(Value::as_bool) {
            if c.transient != t {
                bad.push(format!("transient {} != {t}", c.transient));
            }
        }
        if let Some(ra) = exp.get("retry_after") {
            let ok = match (ra.as_f64(), c.retry_after) {
                (None, None) => true,
                (Some(a), Some(b)) => close(a, b),
                _ => false,
            };
            if !ok {
                bad.push(format!("retry_after {:?} != {ra}", c.retry_after));
            }
        }
        if !bad.is_empty() {
            failures.push(format!(
                "{}: {} ({:?})",
                case["name"],
                bad.join(", "),
                c.evidence
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases in {name} fail:\n{}",
        failures.len(),
        cases(&doc).len(),
        failures.join("\n")
    );
}

/// Exception chains as data: each link as a binding reads it, merged by the core's one rule.
#[test]
fn chain_vectors() {
    let doc = load("chains.json");
    let chains = cases(&doc);
    assert!(chains.len() >= 10);
    let mut failures = Vec::new();
    for case in chains {
        let links = case["links"].as_array().unwrap().iter().map(|l| Link {
            error_class: vec![l["class"].as_str().unwrap().to_owned()],
            status: l.get("status").and_then(Value::as_u64).map(|s| s as u16),
            headers: l
                .get("headers")
                .and_then(Value::as_object)
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| (k.as_str(), v.as_str().unwrap().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            body: l.get("body").and_then(Value::as_str).map(str::to_owned),
            message: l["message"].as_str().unwrap().to_owned(),
            client_retries: None,
        });
        let c = classify_at(&Failure::from_chain(links), fixed_now());
        let exp = &case["expect"];
        let got = serde_json::json!({
            "category": c.category.as_str(),
            "transient": c.transient,
            "retry_after": c.retry_after,
            "status": c.status,
        });
        if &got != exp {
            failures.push(format!("{}: got {got}, want {exp}", case["name"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn classify_vectors() {
    check_classify_file("classify.json");
}

#[test]
fn should_retry_vectors() {
    check_classify_file("should_retry.json");
}

#[test]
fn retry_after_vectors() {
    let doc = load("retry_after.json");
    let now = httpdate::parse_http_date(doc["now"].as_str().unwrap()).unwrap();
    let mut failures = Vec::new();
    for case in cases(&doc) {
        let headers: Headers = serde_json::from_value(case["headers"].clone()).unwrap();
        let got = from_headers(&headers, now).map(|(s, _)| s);
        let ok = match (case["expect"].as_f64(), got) {
            (None, None) => true,
            (Some(a), Some(b)) => close(a, b),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{}: got {got:?}, want {}",
                case["name"], case["expect"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check_decision(case: &str, step: usize, d: &retry_core::Decision, exp: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let action = d.action.name();
    if exp["action"].as_str() != Some(action) {
        bad.push(format!("action {action} != {}", exp["action"]));
    }
    if let Some(delay) = exp.get("delay").and_then(Value::as_f64) {
        match d.action {
            Action::Retry { delay: got } if close(got, delay) => {}
            other => bad.push(format!("delay {other:?} != {delay}")),
        }
    }
    if let Some(reason) = exp.get("reason").and_then(Value::as_str) {
        match d.action {
            Action::GiveUp { reason: r } if r.as_str() == reason => {}
            other => bad.push(format!("reason {other:?} != {reason}")),
        }
    }
    if let Some(a) = exp.get("attempt").and_then(Value::as_u64) {
        if u64::from(d.attempt) != a {
            bad.push(format!("attempt {} != {a}", d.attempt));
        }
    }
    if let Some(cat) = exp.get("category").and_then(Value::as_str) {
        if d.classification.category.as_str() != cat {
            bad.push(format!("category {} != {cat}", d.classification.category));
        }
    }
    if let Some(events) = exp.get("events") {
        let got: Vec<Value> = d.events.iter().map(|e| e.to_json()).collect();
        if &Value::Array(got.clone()) != events {
            bad.push(format!("events {} != {events}", Value::Array(got)));
        }
    }
    bad.into_iter()
        .map(|b| format!("{case} step {step}: {b}"))
        .collect()
}

/// The step a run takes on decision `d`: a retry waits (a server's wait of 0 s, and a retry
/// after a recovery, may call at once), a recovery is the step of the same name, the rest end.
fn check_step(case: &str, step: usize, d: &retry_core::Decision, s: Step) -> Option<String> {
    let ok = match (d.action, s) {
        (Action::Retry { delay }, Step::Wait { seconds, reason }) => {
            close(delay, seconds)
                && (reason == WaitReason::RetryAfter) == d.retry_after_used.is_some()
        }
        (Action::Retry { delay }, Step::Call { .. }) => delay == 0.0,
        (Action::PruneOrphans, Step::PruneOrphans) => true,
        (Action::CompactContext, Step::CompactContext) => true,
        (Action::GiveUp { reason: a }, Step::GiveUp { reason: b }) => a == b,
        (Action::Reraise, Step::Reraise) => true,
        _ => false,
    };
    (!ok).then(|| format!("{case} step {step}: step {s:?} for action {:?}", d.action))
}

#[test]
fn policy_vectors() {
    let doc = load("policies.json");
    let mut failures = Vec::new();
    for case in cases(&doc) {
        let name = case["name"].as_str().unwrap();
        let policy = RetryPolicy::from_config(&case["policy"].to_string()).unwrap();
        let cfg = RunConfig {
            seed: Some(case["seed"].as_u64().unwrap_or(0)),
            context_hook: case["context_hook"].as_bool().unwrap_or(false),
            ..RunConfig::default()
        };
        let mut run = Run::with_config(policy, cfg);
        let mut waiting = false;
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let elapsed = step["elapsed"].as_f64().unwrap_or(0.0);
            let s = if let Some(f) = step.get("failure") {
                if waiting {
                    let next = run.resume(elapsed);
                    if !matches!(next, Step::Call { .. }) {
                        failures.push(format!("{name} step {i}: resumed to {next:?}"));
                        break;
                    }
                }
                run.failed(&failure(f), elapsed)
            } else if let Some(n) = step.get("pruned") {
                run.pruned(n.as_u64().unwrap() as usize, elapsed)
            } else {
                run.compacted(step["compacted"].as_bool().unwrap(), elapsed)
            };
            let d = run.decision().expect("a failure was reported").clone();
            failures.extend(check_decision(name, i, &d, &step["expect"]));
            failures.extend(check_step(name, i, &d, s));
            waiting = matches!(s, Step::Wait { .. });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn orphan_vectors() {
    let doc = load("orphans.json");
    let mut failures = Vec::new();
    for case in cases(&doc) {
        let msgs = case["messages"].as_array().unwrap();
        let exp = &case["expect"];
        let out = prune_json(msgs).unwrap();
        if Value::Array(out.messages.clone()) != exp["messages"] {
            failures.push(format!(
                "{}: messages {}",
                case["name"],
                Value::Array(out.messages.clone())
            ));
        }
        let pruned = serde_json::to_value(&out.pruned).unwrap();
        if pruned != exp["pruned"] {
            failures.push(format!("{}: pruned {pruned}", case["name"]));
        }
        if exp["dangling_results"].as_u64() != Some(out.dangling_results as u64) {
            failures.push(format!(
                "{}: dangling {}",
                case["name"], out.dangling_results
            ));
        }
        if exp["reminder"].as_str() != Some(out.reminder.as_str()) {
            failures.push(format!("{}: reminder {:?}", case["name"], out.reminder));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// tests/vectors/hook_answers.json: what an `on_orphans` hook's answer means, the one rule
/// every host hands its answer to (`run::HookAnswer`). A number beyond 64 bits parses as a
/// float here, and stands for its sign's end, as the bindings read a Bignum or a big int.
#[test]
fn hook_answer_vectors() {
    use retry_core::__private::run::HookAnswer;
    let doc = load("hook_answers.json");
    for case in cases(&doc) {
        let a = &case["answer"];
        let answer = match a {
            Value::Bool(b) => HookAnswer::Truthy(*b),
            Value::Null => HookAnswer::Truthy(false),
            Value::String(s) => HookAnswer::Truthy(!s.is_empty()),
            Value::Number(n) => HookAnswer::Count(match n.as_i64() {
                Some(n) => i128::from(n),
                None if n.as_f64().unwrap() > 0.0 => i128::MAX,
                None => i128::MIN,
            }),
            other => panic!("unexpected answer {other}"),
        };
        let want = case["pruned"].as_u64().unwrap() as usize;
        assert_eq!(answer.pruned(), want, "answer {a}");
    }
}

/// A value's compact JSON length counted as the bindings count it: strings and integers by the
/// core's rule (`json_string_len`, `json_int_len`), the rest by JSON's punctuation.
fn counted(v: &Value) -> usize {
    use retry_core::fleet::admission::{json_int_len, json_string_len};
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => json_int_len(n.as_i64().expect("the vectors hold integers")),
        Value::String(s) => json_string_len(s.as_bytes()),
        Value::Array(a) => 2 + a.len().saturating_sub(1) + a.iter().map(counted).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1)
                + o.iter()
                    .map(|(k, x)| json_string_len(k.as_bytes()) + 1 + counted(x))
                    .sum::<usize>()
        }
    }
}

#[test]
fn estimate_vectors() {
    use retry_core::fleet::{Fleet, FleetConfig};
    let fleet = Fleet::in_process(FleetConfig::default());
    let doc = load("estimates.json");
    for c in cases(&doc) {
        let name = c["name"].as_str().unwrap();
        let bytes = c["request_bytes"].as_u64().unwrap() as usize;
        let messages = &c["messages"];
        if !messages.is_null() {
            assert_eq!(
                serde_json::to_string(messages).unwrap().len(),
                bytes,
                "{name}"
            );
            assert_eq!(counted(messages), bytes, "{name}");
        } else {
            assert_eq!(bytes, 0, "{name}");
        }
        let cost = fleet.estimate(bytes, c["max_tokens"].as_u64().unwrap_or(0));
        assert_eq!(
            cost.input_tokens,
            c["input_tokens"].as_f64().unwrap(),
            "{name}"
        );
        assert_eq!(
            cost.output_tokens,
            c["output_tokens"].as_f64().unwrap(),
            "{name}"
        );
        assert_eq!(cost.requests, 1.0, "{name}");
    }
}
