//! What must hold whatever the input: the oracles of the fuzz targets and of
//! `core/tests/properties.rs`. Each check panics with a message naming the broken rule.
//!
//! Shared by path (`#[path = "../fuzz/src/invariants.rs"]`) with the core's tests, so it uses
//! only `retry_core`, `serde_json` and `std`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use retry_core::__private::category::RetryAfterSource;
use retry_core::__private::classify::classify_at;
use retry_core::__private::machine::Retrier;
use retry_core::__private::orphan::{is_blank, prune_json, views_from_json, Pruned, Role};
use retry_core::__private::policy::{Backoff, OverCap};
use retry_core::__private::retry_after::MAX_SECONDS;
use retry_core::__private::scrub::scrub;
use retry_core::{Action, Category, Classification, Decision, Failure, GiveUpReason, RetryPolicy};
use serde_json::Value;

/// The vectors' fixed clock: Sun, 22 Nov 2026 12:00:00 GMT.
pub fn fixed_now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_348_800)
}

/// Slack for float sums (waits are added up in seconds).
const EPS: f64 = 1e-9;

/// `x-should-retry` as the contract reads it: only `true` / `false`, trimmed, any case.
fn should_retry_header(f: &Failure) -> Option<bool> {
    let v = f.headers.get("x-should-retry")?.trim();
    if v.eq_ignore_ascii_case("true") {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// Classification is total and deterministic, and its fields agree with each other.
pub fn check_classification(f: &Failure) -> Classification {
    let c = classify_at(f, fixed_now());
    check_classified(f, &c);
    let again = classify_at(f, fixed_now());
    assert_eq!(c, again, "classification is not deterministic for {f:?}");
    c
}

/// The fields of `f`'s classification `c` agree with each other and with the contract.
pub fn check_classified(f: &Failure, c: &Classification) {
    if let Some(ra) = c.retry_after {
        assert!(
            ra.is_finite() && (0.0..=MAX_SECONDS).contains(&ra),
            "retry_after {ra} out of [0, {MAX_SECONDS}] for {f:?}"
        );
    }
    assert_eq!(
        c.retry_after.is_some(),
        c.retry_after_source.is_some(),
        "retry_after and its source disagree: {c:?}"
    );
    if c.retry_after_source == Some(RetryAfterSource::ResetHint) {
        assert_eq!(
            c.category,
            Category::RateLimited,
            "a reset hint outside a rate limit: {c:?}"
        );
    }
    match (c.category, should_retry_header(f)) {
        (Category::Cancelled, _) => assert!(!c.transient, "cancellation is never transient"),
        (_, Some(explicit)) => assert_eq!(c.transient, explicit, "x-should-retry ignored: {f:?}"),
        (cat, None) => assert_eq!(
            c.transient,
            cat.is_transient(),
            "transient != nature: {c:?}"
        ),
    }
    assert!(!c.error_type.is_empty(), "empty error_type for {f:?}");
    // A 5xx is transient unless its body states a permanent nature outright (a self-hosted
    // server's 500 "Context size has been exceeded"): only the stated categories may win, and
    // the natures only words may state (`STATED_IN_WORDS`: a gateway's 500 "Unauthenticated.
    // Configure ...", a relay's 503 "No available channels for model").
    if let Some(s) = f.status.filter(|s| (500..=599).contains(s)) {
        if c.category != Category::Cancelled {
            let tables = &retry_core::__private::classify::tables::STATED;
            let in_words = &retry_core::__private::classify::tables::STATED_IN_WORDS;
            assert!(
                c.category.is_transient()
                    || tables.contains(&c.category)
                    || in_words.contains(&c.category),
                "a {s} classified as permanent {}: {f:?}",
                c.category
            );
        }
    }
}

/// Scrubbing is idempotent: nothing left in a scrubbed text still looks like a secret.
pub fn check_scrub(text: &str) {
    let once = scrub(text).into_owned();
    let twice = scrub(&once);
    assert_eq!(
        once, twice,
        "scrub left something secret-shaped in {text:?}"
    );
}

/// One failed call and what the caller does around it.
#[derive(Debug, Clone)]
pub struct Step {
    pub failure: Failure,
    /// Seconds the failed call itself took (added to the elapsed time before the decision).
    pub call_secs: f64,
    /// Orphan calls the caller pruned when asked to (0: none found).
    pub pruned: usize,
    /// Whether the caller's compaction hook changed the history when asked to.
    pub compacted: bool,
}

/// What a run of the state machine came to.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Calls made (every step that was fed).
    pub calls: u32,
    /// Calls that counted against the limit (free recoveries excluded).
    pub counted: u32,
    /// The waits the engine asked for, in order.
    pub waits: Vec<f64>,
    pub final_action: Option<Action>,
}

fn max_for(p: &RetryPolicy, cat: Category) -> u32 {
    p.overrides
        .get(&cat)
        .and_then(|o| o.max_attempts)
        .unwrap_or(p.max_attempts)
}

/// The largest attempt limit any category can have under this policy.
pub fn max_any(p: &RetryPolicy) -> u32 {
    p.overrides
        .values()
        .filter_map(|o| o.max_attempts)
        .fold(p.max_attempts, u32::max)
}

fn backoff_for(p: &RetryPolicy, cat: Category) -> &Backoff {
    p.overrides
        .get(&cat)
        .and_then(|o| o.backoff.as_ref())
        .unwrap_or(&p.backoff)
}

/// Whether the policy may retry a failure of this classification at all.
pub fn may_retry(p: &RetryPolicy, c: &Classification) -> bool {
    if c.category == Category::Cancelled {
        return false;
    }
    if p.retry_everything {
        return true;
    }
    // A per-category override is the user's explicit word: it beats the failure's nature.
    if let Some(r) = p.overrides.get(&c.category).and_then(|o| o.retry) {
        return r;
    }
    if c.transient {
        return true;
    }
    c.category == Category::Unknown
        && if c.api_error {
            p.retry_unknown_api
        } else {
            p.retry_unknown
        }
}

/// The longest wait the policy can ask for after a failure of this classification.
pub fn delay_bound(p: &RetryPolicy, c: &Classification) -> f64 {
    let ceiling = backoff_for(p, c.category).ceiling();
    let honoured = match (c.retry_after_source, c.retry_after) {
        (Some(src), Some(ra)) if src.is_instruction() && p.honor_retry_after => {
            p.retry_after_cap.map_or(ra, |cap| ra.min(cap))
        }
        (Some(RetryAfterSource::ResetHint), Some(ra)) if p.honor_reset_hints => {
            ra.min(p.retry_after_cap.unwrap_or(ceiling))
        }
        _ => 0.0,
    };
    ceiling.max(honoured)
}

/// Checks one decision of a counted failure (not a free recovery's retry).
fn check_decision(p: &RetryPolicy, d: &Decision, counted: u32, elapsed: f64, free: bool) {
    let c = &d.classification;
    assert_eq!(d.max_retries, p.reported_max(), "max_retries");
    let events: Vec<Value> = d.events.iter().map(|e| e.to_json()).collect();
    for e in &events {
        serde_json::to_string(e).expect("events serialize");
        assert!(
            e.get("type").and_then(Value::as_str).is_some(),
            "event without type: {e}"
        );
    }
    match d.action {
        Action::Reraise => {
            assert_eq!(
                c.category,
                Category::Cancelled,
                "only cancellation is re-raised"
            );
            assert!(events.is_empty(), "a re-raise emits nothing: {events:?}");
        }
        Action::Retry { delay } => {
            assert!(c.category != Category::Cancelled, "cancellation retried");
            assert!(
                delay.is_finite() && delay >= 0.0,
                "delay {delay} is not a wait"
            );
            if free {
                assert_eq!(delay, 0.0, "a free recovery retries at once");
                return;
            }
            assert!(
                may_retry(p, c),
                "retried a failure the policy does not retry: {c:?}"
            );
            let bound = delay_bound(p, c);
            assert!(
                delay <= bound + EPS,
                "delay {delay} over its bound {bound} ({c:?}, {p:?})"
            );
            assert!(
                d.attempt < max_for(p, c.category),
                "retry after attempt {} of {}",
                d.attempt,
                max_for(p, c.category)
            );
            if let Some(deadline) = p.deadline {
                assert!(
                    elapsed + delay <= deadline + EPS,
                    "wait {delay} at {elapsed}s ends past the deadline {deadline}"
                );
            }
            if let Some(used) = d.retry_after_used {
                assert_eq!(used, delay, "retry_after_used is not the delay");
            }
            assert_eq!(events.len(), 1, "a retry emits one event");
            assert_eq!(events[0]["type"], "llm_retry_attempt");
            assert_eq!(events[0]["retry_delay"].as_f64(), Some(delay));
            assert_eq!(events[0]["attempt"].as_u64(), Some(u64::from(d.attempt)));
        }
        Action::GiveUp { reason } => {
            assert_eq!(events.len(), 1, "giving up emits one event");
            match reason {
                GiveUpReason::Permanent => {
                    assert!(!may_retry(p, c), "gave up on a retryable failure: {c:?}");
                    assert_eq!(events[0]["type"], "llm_request_failed");
                    assert_eq!(events[0]["retryable"], false);
                }
                GiveUpReason::Exhausted => assert!(d.attempt >= max_for(p, c.category)),
                GiveUpReason::RetryAfterTooLong => assert_eq!(p.over_cap, OverCap::GiveUp),
                GiveUpReason::Deadline => assert!(p.deadline.is_some()),
                GiveUpReason::BudgetExhausted | GiveUpReason::CircuitOpen => {
                    panic!("{reason:?} without a fleet")
                }
            }
        }
        Action::PruneOrphans => {
            assert!(p.recover_orphans && c.category == Category::OrphanToolCalls);
        }
        Action::CompactContext => {
            assert!(p.recover_context && c.category == Category::ContextOverflow);
        }
    }
    assert_eq!(
        d.attempt, counted,
        "the decision's attempt is the counted call"
    );
}

/// One decision of a fresh retrier on a failure already classified as `c` (and the decision
/// after a successful recovery, when it asks for one), checked like every decision of a run.
pub fn check_first_decision(p: &RetryPolicy, f: &Failure, c: &Classification) {
    let mut r = Retrier::new(p.clone()).with_seed(7).with_context_hook(true);
    let d = r.on_classified(f, c.clone(), 0.0);
    let counted = u32::from(d.action != Action::Reraise);
    check_decision(p, &d, counted, 0.0, false);
    let after = match d.action {
        Action::PruneOrphans => r.on_orphans_pruned(1, f, 0.0),
        Action::CompactContext => r.on_context_compacted(true, f, 0.0),
        _ => return,
    };
    check_decision(p, &after, 0, 0.0, true);
}

/// Drives a fresh retrier through `steps` the way a driver would, checking every decision:
/// attempts never exceed the limit, waits stay within their bounds and the deadline, permanent
/// and cancelled failures are never retried. Stops at the first give-up or re-raise.
pub fn run_retrier(p: &RetryPolicy, seed: u64, context_hook: bool, steps: &[Step]) -> Run {
    let mut r = Retrier::new(p.clone())
        .with_seed(seed)
        .with_context_hook(context_hook);
    let mut run = Run::default();
    let mut elapsed = 0.0;
    for step in steps {
        run.calls += 1;
        run.counted += 1;
        elapsed += step.call_secs;
        let mut d = r.on_failure(&step.failure, elapsed);
        if d.action == Action::Reraise {
            run.counted -= 1;
        }
        check_decision(p, &d, run.counted, elapsed, false);
        if matches!(d.action, Action::PruneOrphans | Action::CompactContext) {
            let recovered = if d.action == Action::PruneOrphans {
                d = r.on_orphans_pruned(step.pruned, &step.failure, elapsed);
                step.pruned > 0
            } else {
                d = r.on_context_compacted(step.compacted, &step.failure, elapsed);
                step.compacted
            };
            if recovered {
                run.counted -= 1;
            }
            check_decision(p, &d, run.counted, elapsed, recovered);
        }
        assert!(
            run.counted <= max_any(p),
            "{} counted calls under a limit of {}",
            run.counted,
            max_any(p)
        );
        assert_eq!(r.attempts(), run.counted, "the retrier's count");
        run.final_action = Some(d.action);
        match d.action {
            Action::Retry { delay } => {
                run.waits.push(delay);
                elapsed += delay;
                if let Some(deadline) = p.deadline {
                    let waited: f64 = run.waits.iter().sum();
                    assert!(
                        waited <= deadline + EPS,
                        "waits {waited} past deadline {deadline}"
                    );
                }
            }
            _ => break,
        }
    }
    run
}

/// The ids a result would need, by message: a call id is answered when a role `tool` message
/// with that id follows before the next user or assistant message, or (Anthropic) a
/// `tool_result` block with that id is in the next user message.
fn answered(views: &[retry_core::__private::orphan::MessageView], i: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for m in &views[i + 1..] {
        match m.role {
            Role::Tool => ids.extend(m.tool_call_id.clone()),
            Role::User => {
                ids.extend(m.tool_results.iter().filter_map(|r| r.id.clone()));
                break;
            }
            Role::Assistant => break,
            Role::System | Role::Other => {}
        }
    }
    ids
}

/// The assistant message a result at `j` answers: the nearest one before it with no user
/// message in between.
fn owner(views: &[retry_core::__private::orphan::MessageView], j: usize) -> Option<usize> {
    for k in (0..j).rev() {
        match views[k].role {
            Role::Assistant => return Some(k),
            Role::User => return None,
            Role::Tool | Role::System | Role::Other => {}
        }
    }
    None
}

/// A user message's content other than tool results (`None`: it has none).
fn user_content(m: &Value) -> Option<Value> {
    if m.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    match m.get("content") {
        Some(Value::Array(blocks)) => {
            let rest: Vec<Value> = blocks
                .iter()
                .filter(|b| {
                    let kind = b.get("type").and_then(Value::as_str);
                    let empty_text = kind == Some("text")
                        && match b.get("text") {
                            None | Some(Value::Null) => true,
                            // Blank text is no content (orphan::is_blank): the providers
                            // refuse whitespace-only text blocks too.
                            Some(Value::String(s)) => is_blank(s.as_bytes()),
                            Some(Value::Array(a)) => a.is_empty(),
                            Some(_) => false,
                        };
                    kind != Some("tool_result") && !empty_text
                })
                .cloned()
                .collect();
            (!rest.is_empty()).then_some(Value::Array(rest))
        }
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if is_blank(s.as_bytes()) => None,
        Some(other) => Some(other.clone()),
    }
}

/// Every tool call in `messages` has its result and every result its call (both shapes).
pub fn check_paired(messages: &[Value]) {
    let views = views_from_json(messages).expect("pruned output is a valid history");
    for (i, m) in views.iter().enumerate() {
        if m.role != Role::Assistant || m.tool_calls.is_empty() {
            continue;
        }
        let ids = answered(&views, i);
        for call in &m.tool_calls {
            let ok = call.id.as_ref().is_some_and(|id| ids.contains(id));
            assert!(
                ok,
                "message {i}: tool call {:?} has no result in {messages:?}",
                call.id
            );
        }
    }
    for (j, m) in views.iter().enumerate() {
        let results: Vec<Option<&String>> = match m.role {
            Role::Tool => vec![m.tool_call_id.as_ref()],
            Role::User => m.tool_results.iter().map(|r| r.id.as_ref()).collect(),
            _ => continue,
        };
        if results.is_empty() {
            continue;
        }
        let calls: Vec<&String> = owner(&views, j)
            .map(|k| {
                views[k]
                    .tool_calls
                    .iter()
                    .filter_map(|c| c.id.as_ref())
                    .collect()
            })
            .unwrap_or_default();
        for id in results {
            assert!(
                id.is_some_and(|id| calls.contains(&id)),
                "message {j}: tool result {id:?} has no call in {messages:?}"
            );
        }
    }
}

/// Pruning `input` gave `out`: the history is paired, no user message with content of its own
/// was dropped, every call is either kept or reported, and pruning again changes nothing.
pub fn check_pruned(input: &[Value], out: &Pruned) {
    check_paired(&out.messages);
    let before: Vec<Value> = input.iter().filter_map(user_content).collect();
    let after: Vec<Value> = out.messages.iter().filter_map(user_content).collect();
    assert_eq!(before, after, "user content was dropped or changed");
    let calls = |msgs: &[Value]| -> usize {
        views_from_json(msgs)
            .unwrap()
            .iter()
            .filter(|v| v.role == Role::Assistant)
            .map(|v| v.tool_calls.len())
            .sum()
    };
    assert_eq!(
        calls(input),
        calls(&out.messages) + out.pruned.len(),
        "calls kept + pruned != calls before"
    );
    assert!(out.messages.len() <= input.len());
    assert_eq!(out.reminder.is_empty(), out.pruned.is_empty());
    let again = prune_json(&out.messages).expect("pruned output prunes");
    assert!(
        again.pruned.is_empty() && again.dangling_results == 0 && again.messages == out.messages,
        "pruning is not idempotent: {:?} -> {:?}",
        out.messages,
        again.messages
    );
}
