//! Properties of the engine, checked with proptest over generated policies, failures and
//! histories (256 cases per property by default; `PROPTEST_CASES=N` for more). The rules
//! themselves live in `core/fuzz/src/invariants.rs`, shared with the fuzz targets:
//!
//! - a run never makes more counted calls than the policy's `max_attempts` (per category);
//! - the waits of a run never end past the policy's deadline;
//! - every delay is finite, >= 0 and <= the backoff's ceiling or the honoured retry-after cap;
//! - a permanent failure (not transient; not unknown unless `retry_unknown`) or a cancelled one
//!   is never retried;
//! - pruning leaves every tool call with its result and every result with its call (OpenAI,
//!   Anthropic and RubyLLM shapes), never drops a user message with content of its own, and
//!   pruning again changes nothing;
//! - classification is total and deterministic.

#![allow(dead_code)]

#[path = "../fuzz/src/invariants.rs"]
mod invariants;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use invariants::{check_classification, check_pruned, max_any, run_retrier, Step};
use proptest::prelude::*;
use proptest::sample::select;
use retry_core::__private::classify::tables;
use retry_core::__private::orphan::prune_json;
use retry_core::__private::policy::{
    Backoff, CategoryOverride, Counting, Jitter, OverCap, PRESETS,
};
use retry_core::{Action, Category, Failure, GiveUpReason, RetryPolicy, Transport};
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------

/// Every failure record of the shared classification vectors, with its expected transience.
fn vector_failures() -> &'static [(Failure, bool)] {
    static V: OnceLock<Vec<(Failure, bool)>> = OnceLock::new();
    V.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
        let mut out = Vec::new();
        for file in ["classify.json", "should_retry.json"] {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
            for case in doc["cases"].as_array().unwrap() {
                let f: Failure = serde_json::from_value(case["failure"].clone()).unwrap();
                let transient = case["expect"]["transient"].as_bool().unwrap();
                out.push((f, transient));
            }
        }
        out
    })
}

fn words() -> Vec<&'static str> {
    let mut w: Vec<&'static str> = tables::PERMANENT_PHRASES.iter().map(|r| r.text).collect();
    w.extend(tables::TRANSIENT_PHRASES.iter().map(|r| r.text));
    w.extend(tables::CODES.iter().map(|r| r.code));
    w.extend([
        "status 503",
        "HTTP 429",
        "error code: 400",
        "max_tokens 1500",
    ]);
    w
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![select(words()).prop_map(str::to_owned), ".{0,12}"],
        0..5,
    )
    .prop_map(|parts| parts.join(" "))
}

fn header() -> impl Strategy<Value = (String, String)> {
    let names = select(vec![
        "retry-after",
        "retry-after-ms",
        "x-should-retry",
        "x-ratelimit-reset-requests",
        "x-ratelimit-reset-tokens",
        "x-ratelimit-remaining-tokens",
        "anthropic-ratelimit-tokens-reset",
        "anthropic-ratelimit-requests-remaining",
        "x-amzn-errortype",
    ]);
    let values = prop_oneof![
        (0u32..200).prop_map(|n| n.to_string()),
        (0.0f64..500.0).prop_map(|x| format!("{x:.3}")),
        select(vec![
            "true",
            "false",
            "6m0s",
            "20ms",
            "1h2m3s",
            "Sun, 22 Nov 2026 12:00:30 GMT",
            "2026-11-22T12:01:00Z",
            "0",
            "-1",
            "NaN",
            "ThrottlingException",
        ])
        .prop_map(str::to_owned),
        ".{0,10}",
    ];
    (names.prop_map(str::to_owned), values)
}

fn body() -> impl Strategy<Value = String> {
    let code = select(tables::CODES.iter().map(|r| r.code).collect::<Vec<_>>());
    prop_oneof![
        (code.clone(), text())
            .prop_map(|(c, m)| json!({"error": {"message": m, "type": c, "code": c}}).to_string()),
        (code.clone(), text()).prop_map(|(c, m)| {
            json!({"type": "error", "error": {"type": c, "message": m}}).to_string()
        }),
        (code, 100u16..600)
            .prop_map(|(c, n)| json!([{"error": {"code": n, "status": c}}]).to_string()),
        ".{0,40}",
    ]
}

fn generated_failure() -> impl Strategy<Value = Failure> {
    let classes = select(
        tables::CLASSES
            .iter()
            .map(|(n, _)| n.trim_start_matches('.'))
            .collect::<Vec<_>>(),
    );
    (
        prop_oneof![
            Just(None),
            select(vec![
                200u16, 400, 401, 402, 403, 404, 408, 413, 422, 429, 500, 502, 503, 529
            ])
            .prop_map(Some),
            any::<u16>().prop_map(Some),
        ],
        prop::collection::vec(header(), 0..3),
        prop::option::of(body()),
        prop::collection::vec(classes.prop_map(str::to_owned), 0..3),
        text(),
        prop::option::of(select(Transport::ALL.to_vec())),
    )
        .prop_map(
            |(status, headers, body, error_class, message, transport)| Failure {
                status,
                headers: headers.into_iter().collect(),
                body,
                error_class,
                message,
                transport,
                client_retries: None,
                inner_messages: Box::default(),
            },
        )
}

/// A failure of the shared vectors or a generated one.
fn failure() -> impl Strategy<Value = Failure> {
    prop_oneof![
        select(vector_failures().to_vec()).prop_map(|(f, _)| f),
        generated_failure(),
    ]
}

fn step(failure: impl Strategy<Value = Failure>) -> impl Strategy<Value = Step> {
    (failure, 0u8..80, 0usize..3, any::<bool>()).prop_map(|(failure, call, pruned, compacted)| {
        Step {
            failure,
            call_secs: f64::from(call) / 4.0,
            pruned,
            compacted,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

fn backoff() -> impl Strategy<Value = Backoff> {
    prop_oneof![
        (0.0f64..60.0).prop_map(|delay| Backoff::Fixed { delay }),
        (0.0f64..5.0, 1.0f64..4.0, 0.0f64..120.0).prop_map(|(base, multiplier, cap)| {
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            }
        }),
        prop::collection::vec(0.0f64..30.0, 1..6).prop_map(|delays| Backoff::Schedule { delays }),
    ]
}

fn overrides() -> impl Strategy<Value = BTreeMap<Category, CategoryOverride>> {
    let cats: Vec<Category> = Category::all().collect();
    prop::collection::btree_map(
        select(cats),
        (
            prop::option::of(any::<bool>()),
            prop::option::of(1u32..8),
            prop::option::of(backoff()),
        )
            .prop_map(|(retry, max_attempts, backoff)| CategoryOverride {
                retry,
                max_attempts,
                backoff,
            }),
        0..3,
    )
}

/// A preset with every knob turned: what a user can configure.
fn policy() -> impl Strategy<Value = RetryPolicy> {
    let knobs = (
        1u32..12,
        backoff(),
        select(vec![
            Jitter::None,
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
        ]),
        any::<bool>(),
        prop::option::of(0.0f64..120.0),
        any::<bool>(),
        any::<bool>(),
        (any::<bool>(), any::<bool>(), prop::bool::weighted(0.1)),
        prop::option::of(0.0f64..300.0),
        (any::<bool>(), any::<bool>()),
    );
    (select(PRESETS.to_vec()), any::<bool>(), knobs).prop_map(|(preset, keep, knobs)| {
        let mut p = RetryPolicy::preset(preset).unwrap();
        if keep {
            return p;
        }
        let (max, backoff, jitter, honor, cap, give_up, hints, unknown, deadline, recover) = knobs;
        p.max_attempts = max;
        p.counting = if max % 2 == 0 {
            Counting::Attempts
        } else {
            Counting::Retries
        };
        p.backoff = backoff;
        p.jitter = jitter;
        p.honor_retry_after = honor;
        p.retry_after_cap = cap;
        p.over_cap = if give_up {
            OverCap::GiveUp
        } else {
            OverCap::Clamp
        };
        p.honor_reset_hints = hints;
        (p.retry_unknown, p.retry_unknown_api, p.retry_everything) = unknown;
        p.deadline = deadline;
        (p.recover_orphans, p.recover_context) = recover;
        p.validate().unwrap();
        p
    })
}

fn policy_with_overrides() -> impl Strategy<Value = RetryPolicy> {
    (policy(), overrides()).prop_map(|(mut p, o)| {
        p.overrides = o;
        p.validate().unwrap();
        p
    })
}

// ---------------------------------------------------------------------------------------------
// Histories
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Msg {
    User(Option<String>, Vec<Option<u8>>),
    Assistant(Option<String>, Vec<(Option<u8>, u8)>),
    Tool(Option<u8>),
    System,
}

fn msg() -> impl Strategy<Value = Msg> {
    let id = prop::option::weighted(0.9, 0u8..4);
    let content = prop::option::of(prop_oneof!["[a-z ]{1,8}", Just(String::new())]);
    prop_oneof![
        (content.clone(), prop::collection::vec(id.clone(), 0..3))
            .prop_map(|(c, r)| Msg::User(c, r)),
        (content, prop::collection::vec((id.clone(), 0u8..3), 0..3))
            .prop_map(|(c, calls)| Msg::Assistant(c, calls)),
        id.prop_map(Msg::Tool),
        Just(Msg::System),
    ]
}

fn id_of(i: Option<u8>) -> Value {
    i.map_or(Value::Null, |i| Value::from(format!("call_{i}")))
}

/// Renders a history as OpenAI (0), Anthropic (1) or RubyLLM (2) messages, or (3) as the
/// malformed mixes real histories end up with: calls as `tool_use` blocks beside a `tool_calls`
/// list, and `tool_result` blocks in assistant messages, one for the message's own first call.
fn render(shape: u8, msgs: &[Msg]) -> Vec<Value> {
    const NAMES: [&str; 3] = ["Read", "Write", "Bash"];
    let text = |c: &Option<String>| c.clone().map_or(Value::Null, Value::from);
    let blocks = |c: &Option<String>| match c {
        Some(t) => vec![json!({"type": "text", "text": t})],
        None => vec![],
    };
    let tool_use = |id: Option<u8>, n: u8| {
        json!({"type": "tool_use", "id": id_of(id), "name": NAMES[n as usize],
               "input": {"file_path": "/a"}})
    };
    let result =
        |id: Option<u8>| json!({"type": "tool_result", "tool_use_id": id_of(id), "content": "ok"});
    let function = |id: Option<u8>, n: u8| {
        json!({"id": id_of(id), "type": "function",
               "function": {"name": NAMES[n as usize], "arguments": "{\"n\": 1}"}})
    };
    msgs.iter()
        .map(|m| match (m, shape) {
            (Msg::Assistant(c, calls), 3) => {
                let mut b = blocks(c);
                b.extend(calls.iter().step_by(2).map(|(id, n)| tool_use(*id, *n)));
                b.extend(calls.first().map(|(id, _)| result(*id)));
                let listed: Vec<Value> = calls
                    .iter()
                    .skip(1)
                    .step_by(2)
                    .map(|(id, n)| function(*id, *n))
                    .collect();
                let mut o = json!({"role": "assistant", "content": b});
                if !listed.is_empty() {
                    o["tool_calls"] = Value::Array(listed);
                }
                o
            }
            (Msg::Tool(id), 3) => json!({"role": "assistant", "content": [result(*id)]}),
            (Msg::User(c, results), 1 | 3) => {
                let mut b: Vec<Value> = results.iter().map(|r| result(*r)).collect();
                b.extend(blocks(c));
                json!({"role": "user", "content": b})
            }
            (Msg::User(c, _), _) => json!({"role": "user", "content": text(c)}),
            (Msg::Assistant(c, calls), 1) => {
                let mut b = blocks(c);
                b.extend(calls.iter().map(|(id, n)| tool_use(*id, *n)));
                json!({"role": "assistant", "content": b})
            }
            (Msg::Assistant(c, calls), shape) => {
                let call = function;
                let mut o = Map::new();
                o.insert("role".into(), "assistant".into());
                o.insert("content".into(), text(c));
                if !calls.is_empty() {
                    let v = if shape == 2 {
                        let mut h = Map::new();
                        for (id, n) in calls {
                            let key = id.map_or(String::new(), |i| format!("call_{i}"));
                            h.insert(key, call(*id, *n));
                        }
                        Value::Object(h)
                    } else {
                        Value::Array(calls.iter().map(|(id, n)| call(*id, *n)).collect())
                    };
                    o.insert("tool_calls".into(), v);
                }
                Value::Object(o)
            }
            (Msg::Tool(id), 1) => json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id_of(*id), "content": "ok"}]}),
            (Msg::Tool(id), _) => {
                json!({"role": "tool", "tool_call_id": id_of(*id), "content": "ok"})
            }
            (Msg::System, _) => json!({"role": "system", "content": "be brief"}),
        })
        .collect()
}

fn history() -> impl Strategy<Value = Vec<Value>> {
    (0u8..4, prop::collection::vec(msg(), 0..12)).prop_map(|(shape, m)| render(shape, &m))
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    /// Attempts never exceed `max_attempts`, waits stay within their bounds and the deadline,
    /// whatever the policy and the failures (`run_retrier` checks every decision).
    #[test]
    fn runs_respect_the_policy(
        p in policy_with_overrides(),
        seed in any::<u64>(),
        hook in any::<bool>(),
        steps in prop::collection::vec(step(failure()), 1..25),
    ) {
        let run = run_retrier(&p, seed, hook, &steps);
        prop_assert!(run.counted <= max_any(&p));
        if p.overrides.is_empty() {
            prop_assert!(run.counted <= p.max_attempts);
        }
        if let Some(deadline) = p.deadline {
            let waited: f64 = run.waits.iter().sum();
            prop_assert!(waited <= deadline + 1e-9, "waited {waited} of {deadline}");
        }
    }

    /// A retryable failure that keeps coming uses exactly the attempts the policy allows
    /// (when no deadline or server wait stops it first).
    #[test]
    fn a_persistent_503_uses_every_attempt(mut p in policy(), seed in any::<u64>()) {
        p.deadline = None;
        let f = Failure::http(503, "Service Unavailable");
        let steps = vec![Step { failure: f, call_secs: 0.0, pruned: 0, compacted: false }; 40];
        let run = run_retrier(&p, seed, false, &steps);
        prop_assert_eq!(run.counted, p.max_attempts);
        prop_assert_eq!(run.final_action, Some(Action::GiveUp { reason: GiveUpReason::Exhausted }));
        prop_assert_eq!(run.waits.len() as u32, p.max_attempts - 1);
    }

    /// A permanent failure (by the vectors' own expectation) or a cancellation is never retried
    /// by a policy that does not ask for it (no retry_everything, no override forcing a retry).
    #[test]
    fn permanent_and_cancelled_failures_are_not_retried(
        mut p in policy(),
        seed in any::<u64>(),
        pick in any::<prop::sample::Index>(),
    ) {
        p.retry_everything = false;
        let permanent: Vec<&Failure> = vector_failures()
            .iter()
            .filter(|(_, transient)| !transient)
            .map(|(f, _)| f)
            .collect();
        let f = pick.get(&permanent);
        let c = retry_core::__private::classify::classify_at(f, invariants::fixed_now());
        prop_assume!(!(c.category == Category::Unknown && (p.retry_unknown || p.retry_unknown_api)));
        let steps = [Step { failure: (*f).clone(), call_secs: 0.0, pruned: 0, compacted: false }];
        let run = run_retrier(&p, seed, true, &steps);
        prop_assert!(run.waits.is_empty(), "{} retried: {:?}", c.category, run.final_action);
        if c.category == Category::Cancelled {
            prop_assert_eq!(run.final_action, Some(Action::Reraise));
        }
    }

    /// Pruning pairs every call with its result in all three shapes, keeps user content, and
    /// is idempotent.
    #[test]
    fn pruning_pairs_calls_and_results(h in history()) {
        let out = prune_json(&h).unwrap();
        check_pruned(&h, &out);
    }

    /// Classification is total and deterministic on anything, and self-consistent.
    #[test]
    fn classification_is_total_and_deterministic(
        status in prop::option::of(any::<u16>()),
        headers in prop::collection::vec((".{0,20}", ".{0,20}"), 0..3),
        body in prop::option::of(".{0,80}"),
        classes in prop::collection::vec(".{0,20}", 0..3),
        message in ".{0,80}",
        transport in prop::option::of(select(Transport::ALL.to_vec())),
    ) {
        let f = Failure {
            status,
            headers: headers.into_iter().collect(),
            body,
            error_class: classes,
            message,
            transport,
            client_retries: None,
            inner_messages: Box::default(),
        };
        check_classification(&f);
    }

    /// The same on records built from the classifier's own words (reaches deeper branches).
    #[test]
    fn classification_of_plausible_failures_is_consistent(f in failure()) {
        check_classification(&f);
    }
}
