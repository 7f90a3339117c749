//! Fleet admission: pacing under the providers' limits, learned from their headers or their
//! throttles. Time is virtual (an injected wall clock); no assertion depends on the machine's
//! speed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use retry_core::fleet::{
    AdmissionConfig, AdmissionMode, Cost, Dimension, Fleet, FleetConfig, Limits, Usage,
};
use retry_core::{Event, Failure, Headers, RetryPolicy, Run, Step, WaitReason};

/// A shared virtual wall clock in microseconds.
fn clock() -> (Arc<AtomicU64>, retry_core::fleet::WallClock) {
    let t = Arc::new(AtomicU64::new(1_700_000_000_000_000));
    let c = Arc::clone(&t);
    (t, Arc::new(move || c.load(Ordering::SeqCst) as f64 / 1e6))
}

fn set(t: &AtomicU64, secs: f64) {
    t.store((secs * 1e6).round() as u64, Ordering::SeqCst);
}

fn now(t: &AtomicU64) -> f64 {
    t.load(Ordering::SeqCst) as f64 / 1e6
}

fn fleet(admission: AdmissionConfig) -> (Arc<AtomicU64>, Arc<Fleet>) {
    let (t, c) = clock();
    let cfg = FleetConfig {
        admission,
        ..FleetConfig::default()
    };
    (t, Arc::new(Fleet::in_process(cfg).with_clock(c)))
}

fn rpm(n: f64) -> AdmissionConfig {
    AdmissionConfig::fixed(Limits {
        requests: Some(n),
        ..Limits::default()
    })
}

fn headers(pairs: &[(&str, &str)]) -> Headers {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

const KEY: &str = "openai:gpt-4o";

#[cfg(feature = "redis")]
mod common;

#[test]
fn admission_off_reserves_nothing_and_never_waits() {
    let (_, fleet) = fleet(AdmissionConfig::default());
    for _ in 0..1000 {
        let (r, ev) = fleet.reserve(KEY, &Cost::new(5000.0, 4000.0).unwrap());
        assert_eq!(r.wait_s, 0.0);
        assert!(!r.holds());
        assert!(ev.is_empty());
    }
    assert!(fleet.admission_state(KEY).is_none());
    assert!(fleet.metrics().is_empty());
}

#[test]
fn pacing_spreads_admissions_evenly_through_the_window() {
    // 600 a minute enforced per second (Azure): ten a second, a tenth of a second apart,
    // never two at once.
    let (t, fleet) = fleet(rpm(600.0));
    let t0 = now(&t);
    let mut slots = Vec::new();
    for _ in 0..30 {
        let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
        slots.push(r.at - t0);
    }
    // (Wall-clock seconds as f64 near 1.7e9 are exact to about 2.4e-7 s.)
    for (i, at) in slots.iter().enumerate() {
        assert!((at - i as f64 * 0.1).abs() < 1e-5, "slot {i} at {at}");
    }
    // No second of the schedule holds more than the per-second share.
    for s in 0..2 {
        let from = s as f64 + 0.05;
        let in_second = slots
            .iter()
            .filter(|&&a| a >= from && a < from + 1.0)
            .count();
        assert_eq!(in_second, 10);
    }
}

#[test]
fn an_idle_key_admits_at_once_then_paces() {
    let (t, fleet) = fleet(rpm(60.0));
    let (a, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(a.wait_s, 0.0);
    let (b, ev) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!((b.wait_s - 1.0).abs() < 1e-5);
    assert_eq!(kinds(&ev), ["admission_wait"]);
    assert_eq!(ev[0].get("limited_by").unwrap(), "requests");
    // Long idle: no credit piles up, so no burst afterwards.
    set(&t, now(&t) + 3600.0);
    let (c, _) = fleet.reserve(KEY, &Cost::REQUEST);
    let (d, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(c.wait_s, 0.0);
    assert!((d.wait_s - 1.0).abs() < 1e-5);
}

#[test]
fn waiters_get_their_own_slots_not_one_wake_up() {
    let (t, fleet) = fleet(rpm(120.0));
    let t0 = now(&t);
    let waits: Vec<f64> = (0..50)
        .map(|_| fleet.reserve(KEY, &Cost::REQUEST).0.at - t0)
        .collect();
    let mut distinct = waits.clone();
    distinct.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    assert_eq!(distinct.len(), 50, "every waiter its own time");
    for w in waits.windows(2) {
        assert!((w[1] - w[0] - 0.5).abs() < 1e-5);
    }
}

#[test]
fn tokens_pace_by_cost_and_settling_refunds_what_was_not_used() {
    let (t, fleet) = fleet(AdmissionConfig::fixed(Limits {
        tokens: Some(60_000.0),
        ..Limits::default()
    }));
    let t0 = now(&t);
    // 1 000 tokens a second: a call of 500 in and up to 1 500 out holds 2 s of the window.
    let cost = Cost::new(500.0, 1500.0).unwrap();
    let (a, _) = fleet.reserve(KEY, &cost);
    let (b, _) = fleet.reserve(KEY, &cost);
    assert_eq!(a.wait_s, 0.0);
    assert!((b.at - t0 - 2.0).abs() < 1e-5);
    // The first used 500 + 100: 1 400 tokens (1.4 s) come back.
    let ev = fleet.settle(
        KEY,
        &a,
        Some(&Usage::new(500.0, 100.0)),
        &Headers::new(),
        false,
    );
    assert!(ev.is_empty());
    let (c, _) = fleet.reserve(KEY, &cost);
    assert!((c.at - t0 - 2.6).abs() < 1e-5, "got {}", c.at - t0);
    // An error without usage counts as spent: nothing comes back.
    fleet.settle(KEY, &b, None, &Headers::new(), false);
    let (d, _) = fleet.reserve(KEY, &cost);
    assert!((d.at - t0 - 4.6).abs() < 1e-5, "got {}", d.at - t0);
    // A slot never used goes back whole.
    fleet.cancel(KEY, &d);
    let (e, _) = fleet.reserve(KEY, &cost);
    assert!((e.at - d.at).abs() < 1e-5);
}

#[test]
fn the_input_estimate_is_corrected_by_the_usage_reported() {
    let (_, fleet) = fleet(AdmissionConfig::fixed(Limits {
        input_tokens: Some(1e6),
        ..Limits::default()
    }));
    let est = fleet.estimate(4000, 100);
    assert_eq!(est, Cost::new(1000.0, 100.0).unwrap());
    let (r, _) = fleet.reserve(KEY, &est);
    assert_eq!(r.charged.input_tokens, 1000.0);
    // The provider counted half: the next estimates of the key are halved.
    fleet.settle(
        KEY,
        &r,
        Some(&Usage::new(500.0, 80.0)),
        &Headers::new(),
        false,
    );
    let (r2, _) = fleet.reserve(KEY, &est);
    assert!((r2.charged.input_tokens - 500.0).abs() < 1e-5);
    assert_eq!(r2.estimated.input_tokens, 1000.0);
    // Off by configuration: the estimate stands.
    let (_, plain) = self::fleet(AdmissionConfig {
        correct_estimates: false,
        ..AdmissionConfig::fixed(Limits {
            input_tokens: Some(1e6),
            ..Limits::default()
        })
    });
    let (r, _) = plain.reserve(KEY, &est);
    plain.settle(
        KEY,
        &r,
        Some(&Usage::new(500.0, 80.0)),
        &Headers::new(),
        false,
    );
    assert_eq!(plain.reserve(KEY, &est).0.charged.input_tokens, 1000.0);
}

#[test]
fn openai_headers_teach_the_limits_and_the_refill() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    // Unknown limits, no throttle yet: nothing to pace by.
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(r.wait_s, 0.0);
    // The header set of OpenAI's rate-limit guide.
    let h = headers(&[
        ("x-ratelimit-limit-requests", "60"),
        ("x-ratelimit-limit-tokens", "150000"),
        ("x-ratelimit-remaining-requests", "59"),
        ("x-ratelimit-remaining-tokens", "149984"),
        ("x-ratelimit-reset-requests", "1s"),
        ("x-ratelimit-reset-tokens", "6m0s"),
    ]);
    let ev = fleet.settle(KEY, &r, Some(&Usage::new(10.0, 6.0)), &h, false);
    let learned: Vec<_> = ev
        .iter()
        .filter(|e| e.kind == "limits_learned")
        .map(|e| {
            (
                e.get("dimension").unwrap().as_str().unwrap().to_owned(),
                e.get("limit").unwrap().as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        learned,
        [
            ("requests".to_owned(), 60.0),
            ("tokens".to_owned(), 150_000.0)
        ]
    );
    // Now paced at 60 a minute.
    let t0 = now(&t);
    let (a, _) = fleet.reserve(KEY, &Cost::REQUEST);
    let (b, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!((b.at - a.at - 1.0).abs() < 1e-5);
    assert!(a.at - t0 < 1.0 + 1e-5);
    // The same limits again: nothing new learned.
    let ev = fleet.settle(KEY, &a, None, &h, false);
    assert!(!kinds(&ev).contains(&"limits_learned"));
}

#[test]
fn a_bucket_the_headers_say_is_empty_holds_calls_until_its_reset() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let t0 = now(&t);
    // 429 from OpenAI: no request left, whole again in 20 s.
    let h = headers(&[
        ("x-ratelimit-limit-requests", "1000"),
        ("x-ratelimit-remaining-requests", "0"),
        ("x-ratelimit-reset-requests", "20s"),
    ]);
    fleet.learn(KEY, &h, true);
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    // One request refills every 20 ms (1 000 over 20 s): the first waits that long, not 20 s.
    assert!((r.at - t0 - 0.02).abs() < 1e-5, "waited {}", r.at - t0);
    assert_eq!(r.limited_by, Some(Dimension::Requests));
}

#[test]
fn anthropic_headers_teach_input_and_output_limits() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let t0 = now(&t);
    let reset = |s: f64| {
        // RFC 3339, as Anthropic sends it.
        let at = (t0 + s) as i64;
        let days = at.div_euclid(86_400);
        let secs = at.rem_euclid(86_400);
        let (y, m, d) = retry_core::__private::retry_after::civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )
    };
    let h = headers(&[
        ("anthropic-ratelimit-requests-limit", "50"),
        ("anthropic-ratelimit-requests-remaining", "50"),
        ("anthropic-ratelimit-requests-reset", &reset(0.0)),
        ("anthropic-ratelimit-input-tokens-limit", "30000"),
        ("anthropic-ratelimit-input-tokens-remaining", "30000"),
        ("anthropic-ratelimit-input-tokens-reset", &reset(0.0)),
        ("anthropic-ratelimit-output-tokens-limit", "8000"),
        ("anthropic-ratelimit-output-tokens-remaining", "2000"),
        ("anthropic-ratelimit-output-tokens-reset", &reset(45.0)),
        ("anthropic-ratelimit-tokens-limit", "8000"),
        ("anthropic-ratelimit-tokens-remaining", "2000"),
        ("anthropic-ratelimit-tokens-reset", &reset(45.0)),
    ]);
    let ev = fleet.learn("anthropic:sonnet", &h, false);
    let dims: Vec<_> = ev
        .iter()
        .map(|e| e.get("dimension").unwrap().as_str().unwrap())
        .collect();
    // The combined `tokens` family repeats the tightest of the two: not paced on its own.
    assert_eq!(dims, ["requests", "input_tokens", "output_tokens"]);
    let s = fleet.admission_state("anthropic:sonnet").unwrap();
    assert_eq!(s.lanes[Dimension::OutputTokens as usize].limit, 8000.0);
    // 2 000 output tokens left, refilling 6 000 over 45 s: a call asking for 4 000 waits for
    // the 2 000 more, 15 s.
    let (r, _) = fleet.reserve("anthropic:sonnet", &Cost::new(100.0, 4000.0).unwrap());
    assert_eq!(r.limited_by, Some(Dimension::OutputTokens));
    assert!((r.at - t0 - 15.0).abs() < 1.0, "waited {}", r.at - t0);
}

#[test]
fn azure_headers_without_a_limit_still_teach_one() {
    let (_, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let h = headers(&[
        ("x-ratelimit-remaining-requests", "599"),
        ("x-ratelimit-remaining-tokens", "-1"),
    ]);
    let ev = fleet.learn("azure:gpt-4o", &h, false);
    assert_eq!(kinds(&ev), ["limits_learned"]);
    assert_eq!(ev[0].get("limit").unwrap(), 599.0);
}

#[test]
fn ietf_ratelimit_headers_teach_a_request_limit_and_window() {
    for h in [
        headers(&[
            (
                "ratelimit-policy",
                "\"burst\";q=100;w=10, \"day\";q=1000;w=86400",
            ),
            ("ratelimit", "\"burst\";r=40;t=4"),
        ]),
        headers(&[
            ("ratelimit-limit", "100, 100;w=10"),
            ("ratelimit-remaining", "40"),
            ("ratelimit-reset", "4"),
        ]),
    ] {
        let (_, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
        let ev = fleet.learn("gw", &h, false);
        assert_eq!(kinds(&ev), ["limits_learned"], "{h:?}");
        assert_eq!(ev[0].get("limit").unwrap(), 100.0);
        assert_eq!(ev[0].get("window_s").unwrap(), 10.0);
    }
}

#[test]
fn absurd_headers_are_ignored_never_a_panic() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let long = "9".repeat(300);
    for (k, v) in [
        ("x-ratelimit-limit-requests", "NaN"),
        ("x-ratelimit-limit-requests", "inf"),
        ("x-ratelimit-limit-requests", "-5"),
        ("x-ratelimit-limit-requests", "1e400"),
        ("x-ratelimit-limit-requests", long.as_str()),
        ("x-ratelimit-limit-tokens", "99999999999999999999"),
        ("x-ratelimit-reset-requests", "99999999h"),
        ("anthropic-ratelimit-requests-reset", "not a date"),
        ("ratelimit-policy", ";;;q=;w=,,,\""),
        ("ratelimit", "\"x\";r=-1;t=inf"),
    ] {
        let ev = fleet.learn(KEY, &headers(&[(k, v)]), false);
        assert!(ev.is_empty(), "{k}: {v} taught {ev:?}");
    }
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(r.at, now(&t));
    // A cost of garbage is made sane, not trusted.
    let bad = Cost {
        requests: f64::NAN,
        input_tokens: f64::INFINITY,
        output_tokens: -3.0,
    };
    let (r, _) = fleet.reserve(KEY, &bad);
    assert!(r.charged.input_tokens.is_finite());
    assert_eq!(r.charged.output_tokens, 0.0);
    assert!(Cost::new(f64::NAN, 1.0).is_err());
    assert!(Cost::new(1.0, -1.0).is_err());
}

#[test]
fn bad_admission_configurations_are_refused() {
    for bad in [
        r#"{"admission": {"mode": "static"}}"#,
        r#"{"admission": {"mode": "static", "limits": {"requests": -1}}}"#,
        r#"{"admission": {"mode": "static", "limits": {"requests": 0}}}"#,
        r#"{"admission": {"mode": "headers", "window_s": 0}}"#,
        r#"{"admission": {"mode": "sometimes"}}"#,
        r#"{"admission": {"mode": "headers", "speed": 3}}"#,
    ] {
        assert!(FleetConfig::from_json(bad).is_err(), "{bad}");
    }
    let ok = FleetConfig::from_json(
        r#"{"admission": {"mode": "static", "limits": {"requests": 500, "tokens": 30000}}}"#,
    )
    .unwrap();
    assert_eq!(ok.admission.limits.tokens, Some(30000.0));
    // A mode's name alone, as the bindings' keyword arguments give it.
    let short = FleetConfig::from_json(r#"{"admission": "headers"}"#).unwrap();
    assert_eq!(
        short.admission,
        AdmissionConfig::mode(AdmissionMode::Headers)
    );
    assert!(
        FleetConfig::from_json(r#"{"admission": "static"}"#).is_err(),
        "static needs limits"
    );
    assert!(!FleetConfig::from_json(r#"{"admission": null}"#)
        .unwrap()
        .admission
        .is_on());
}

#[test]
fn adaptive_slow_starts_until_the_first_throttle_then_backs_off_and_recovers() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Adaptive));
    let start = now(&t);
    // A caller wanting 20 calls a second, each going at its slot: the first goes at once, the
    // pace then doubles with what is answered (twice the measured rate) until it no longer
    // holds the caller back.
    let mut t_s = start;
    let mut waits = Vec::new();
    for _ in 0..100 {
        set(&t, t_s);
        let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
        waits.push(r.wait_s);
        t_s = r.at.max(t_s);
        set(&t, t_s);
        fleet.settle(KEY, &r, None, &Headers::new(), false);
        t_s += 0.05;
    }
    assert_eq!(waits[0], 0.0, "the probe goes at once");
    assert!(waits[..10].iter().any(|w| *w > 0.0), "{waits:?}");
    assert!(waits[60..].iter().all(|w| *w == 0.0), "{waits:?}");
    assert!(!fleet.admission_state(KEY).unwrap().cubic.enabled);
    // A 429: the rate drops to 0.7 x the measured one (about 20 a second).
    let t_end = t_s;
    set(&t, t_end);
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    let ev = fleet.settle(KEY, &r, None, &Headers::new(), true);
    assert_eq!(kinds(&ev), ["limits_learned"]);
    assert_eq!(ev[0].get("source").unwrap(), "throttle");
    let per_min = ev[0].get("limit").unwrap().as_f64().unwrap();
    let rate = per_min / 60.0;
    assert!(rate > 0.7 * 15.0 && rate < 0.7 * 25.0, "rate {rate}");
    let s = fleet.admission_state(KEY).unwrap();
    assert!(s.cubic.enabled);
    // Now admissions are paced at that rate.
    let (a, _) = fleet.reserve(KEY, &Cost::REQUEST);
    let (b, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!((b.at - a.at - 1.0 / rate).abs() < 1e-5);
    // Successes at the paced rate: the rate climbs back (cubic), capped at twice the measured.
    let mut last = s.cubic.rate;
    let mut t_s = t_end;
    for _ in 0..200 {
        t_s += 1.0 / rate;
        set(&t, t_s);
        let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
        fleet.settle(KEY, &r, None, &Headers::new(), false);
    }
    let after = fleet.admission_state(KEY).unwrap().cubic;
    assert!(after.rate > last, "{} then {}", last, after.rate);
    assert!(after.rate <= 2.0 * after.measured + 1e-9);
    last = after.rate;
    // Another throttle: down again, to 0.7 x min(measured, rate).
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    fleet.settle(KEY, &r, None, &Headers::new(), true);
    let cut = fleet.admission_state(KEY).unwrap().cubic;
    assert!(cut.rate < last);
    assert!(
        (cut.rate - 0.7 * after.measured.min(last)).abs() < 0.1 * cut.rate + 1e-9
            || cut.rate >= 0.5
    );
}

#[test]
fn a_run_waits_for_admission_as_a_wait_step_and_settles_after() {
    let (t, fleet) = fleet(rpm(60.0));
    let key = vec![KEY.to_owned()];
    let mut first = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    assert_eq!(first.start(0.0), Step::Call { model: 0 });
    let mut second = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    match second.start(0.0) {
        Step::Wait { seconds, reason } => {
            assert!((seconds - 1.0).abs() < 1e-5);
            assert_eq!(reason, WaitReason::Admission);
        }
        s => panic!("{s:?}"),
    }
    let ev = second.take_events();
    assert!(kinds(&ev).contains(&"admission_wait"));
    assert!(kinds(&ev).contains(&"retry_wait_started"));
    set(&t, now(&t) + 1.0);
    assert_eq!(second.resume(1.0), Step::Call { model: 0 });
    // The slot was kept across the wait: no new reservation pushed it back.
    assert_eq!(second.succeeded(1.2), Step::Return);
    assert_eq!(
        first.succeeded_with(0.5, Some(&Usage::new(1.0, 1.0)), &Headers::new()),
        Step::Return
    );
    let snap = fleet.metrics().snapshot();
    assert_eq!(snap[KEY]["admission"]["waits"], 1);
}

#[test]
fn a_shared_pause_releases_its_waiters_spread_when_admission_is_on() {
    let (t, fleet) = fleet(rpm(120.0));
    let key = vec![KEY.to_owned()];
    let mut hit = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    assert_eq!(hit.start(0.0), Step::Call { model: 0 });
    let busy = Failure::http(429, "slow down").with_header("retry-after", "10");
    assert!(matches!(hit.failed(&busy, 0.0), Step::Wait { .. }));
    let t0 = now(&t);
    let mut ends = Vec::new();
    let mut runs = Vec::new();
    for _ in 0..20 {
        let mut r = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
        match r.start(0.0) {
            Step::Wait {
                seconds,
                reason: WaitReason::FleetPause,
            } => ends.push(seconds),
            s => panic!("{s:?}"),
        }
        runs.push(r);
    }
    // Not one wake-up at 10 s: half a second apart from the pause's end on.
    for (i, e) in ends.iter().enumerate() {
        assert!(*e >= 10.0 - 1e-5, "{e}");
        if i > 0 {
            assert!((e - ends[i - 1] - 0.5).abs() < 1e-5, "{ends:?}");
        }
    }
    // Each wakes at its slot and calls.
    set(&t, t0 + ends[3]);
    assert_eq!(runs[3].resume(ends[3]), Step::Call { model: 0 });
}

#[test]
fn a_run_dropped_mid_wait_gives_its_slot_back() {
    let (t, fleet) = fleet(rpm(60.0));
    let key = vec![KEY.to_owned()];
    let t0 = now(&t);
    let mut a = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    assert_eq!(a.start(0.0), Step::Call { model: 0 });
    {
        let mut b = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
        assert!(matches!(b.start(0.0), Step::Wait { .. }));
    }
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!(
        (r.at - t0 - 1.0).abs() < 1e-5,
        "the dropped run's slot is reused"
    );
}

#[test]
fn admission_state_stays_bounded_by_max_keys() {
    let (t, c) = clock();
    let cfg = FleetConfig {
        admission: rpm(60.0),
        max_keys: 128,
        ..FleetConfig::default()
    };
    let fleet = Fleet::in_process(cfg).with_clock(c);
    for i in 0..5000 {
        set(&t, 1.8e9 + i as f64 * 10.0);
        let (r, _) = fleet.reserve(&format!("k{i}"), &Cost::REQUEST);
        fleet.settle(&format!("k{i}"), &r, None, &Headers::new(), false);
    }
    assert!(fleet.key_count() <= 256, "{}", fleet.key_count());
    assert!(fleet.metrics().len() <= 512, "{}", fleet.metrics().len());
}

/// The success path's cost with admission on and no contention, beside admission off. A
/// measurement, not a test of speed: `cargo test --release --test admission -- --ignored
/// --nocapture success_path`.
#[test]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
fn success_path_cost_with_admission_on_and_off() {
    use std::time::Instant;
    let big = AdmissionConfig::fixed(Limits {
        requests: Some(1e12),
        tokens: Some(1e12),
        ..Limits::default()
    });
    let n = 200_000;
    let openai = headers(&[
        ("x-ratelimit-limit-requests", "1000000000"),
        ("x-ratelimit-limit-tokens", "1000000000000"),
        ("x-ratelimit-remaining-requests", "999999999"),
        ("x-ratelimit-remaining-tokens", "999999999000"),
        ("x-ratelimit-reset-requests", "1ms"),
        ("x-ratelimit-reset-tokens", "1ms"),
    ]);
    for (name, adm, h) in [
        ("off", AdmissionConfig::default(), Headers::new()),
        ("static", big, Headers::new()),
        (
            "headers (6 OpenAI headers per response)",
            AdmissionConfig::mode(AdmissionMode::Headers),
            openai,
        ),
    ] {
        let fleet = Arc::new(Fleet::in_process(FleetConfig {
            admission: adm,
            ..FleetConfig::default()
        }));
        let key = vec![KEY.to_owned()];
        let cost = Cost::new(1000.0, 500.0).unwrap();
        let usage = Usage::new(900.0, 200.0);
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..n {
                let mut run = Run::new(RetryPolicy::recommended())
                    .fleet(Arc::clone(&fleet), key.clone())
                    .estimate(cost);
                assert_eq!(run.start(0.0), Step::Call { model: 0 });
                assert_eq!(run.succeeded_with(0.0, Some(&usage), &h), Step::Return);
            }
            best = best.min(t.elapsed().as_secs_f64() / n as f64);
        }
        let mut best_rs = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..n {
                let (r, _) = fleet.reserve(KEY, &cost);
                fleet.settle(KEY, &r, Some(&usage), &h, false);
            }
            best_rs = best_rs.min(t.elapsed().as_secs_f64() / n as f64);
        }
        println!(
            "admission {name}: whole run (build, start, succeeded) {:.0} ns; reserve + settle {:.0} ns",
            best * 1e9,
            best_rs * 1e9
        );
    }
}

/// Admission shared through Redis by fleets of several processes (two fleets here, each with
/// its own connections), and its fall-back to local admission when Redis dies. Needs
/// `redis-server` (scripts/setup.sh installs it).
#[cfg(feature = "redis")]
mod on_redis {
    use super::*;

    use super::common;

    fn redis_fleet(url: &str, c: retry_core::fleet::WallClock) -> Arc<Fleet> {
        let cfg = FleetConfig {
            admission: rpm(60.0),
            redis_url: Some(url.to_owned()),
            namespace: format!("adm-{}", std::process::id()),
            ..FleetConfig::default()
        };
        Arc::new(Fleet::from_config(cfg).unwrap().with_clock(c))
    }

    /// One whole call through a run on virtual time: waits advance the clock. Returns the
    /// run's events.
    fn call(fleet: &Arc<Fleet>, t: &AtomicU64) -> Vec<Event> {
        let mut run =
            Run::new(RetryPolicy::recommended()).fleet(Arc::clone(fleet), vec![KEY.into()]);
        let mut step = run.start(0.0);
        let mut events = Vec::new();
        for _ in 0..100 {
            events.extend(run.take_events());
            step = match step {
                Step::Call { .. } => run.succeeded(0.0),
                Step::Wait { seconds, .. } => {
                    set(t, now(t) + seconds);
                    run.resume(0.0)
                }
                Step::Return => return events,
                s => panic!("unexpected {s:?}"),
            };
        }
        panic!("the run never ended");
    }

    #[test]
    fn fleets_of_two_processes_share_one_schedule_and_fall_back_when_redis_dies() {
        let mut redis = common::Redis::start();
        let (t, c) = clock();
        let a = redis_fleet(&redis.url(), Arc::clone(&c));
        let b = redis_fleet(&redis.url(), c);
        let t0 = now(&t);
        // Shared: a's reservation pushes b's back a second, and b's pushes a's.
        let (ra, _) = a.reserve(KEY, &Cost::REQUEST);
        let (rb, _) = b.reserve(KEY, &Cost::REQUEST);
        let (ra2, _) = a.reserve(KEY, &Cost::REQUEST);
        assert!((ra.at - t0).abs() < 1e-5);
        assert!((rb.at - t0 - 1.0).abs() < 1e-5, "b at {}", rb.at - t0);
        assert!(
            (ra2.at - t0 - 2.0).abs() < 1e-5,
            "a again at {}",
            ra2.at - t0
        );
        for (f, r) in [(&a, &ra), (&b, &rb), (&a, &ra2)] {
            f.cancel(KEY, r);
        }
        // Calls through runs, alternating between the processes: every one completes.
        let mut done = 0;
        for i in 0..10 {
            let f = if i % 2 == 0 { &a } else { &b };
            let ev = call(f, &t);
            assert!(!kinds(&ev).contains(&"fleet_backend_degraded"));
            done += 1;
        }
        // Redis dies mid-run.
        redis.child.kill().unwrap();
        redis.child.wait().unwrap();
        let mut degraded = 0;
        for i in 0..10 {
            let f = if i % 2 == 0 { &a } else { &b };
            let ev = call(f, &t);
            degraded += kinds(&ev)
                .iter()
                .filter(|k| **k == "fleet_backend_degraded")
                .count();
            done += 1;
        }
        assert_eq!(done, 20, "no call lost");
        assert!(degraded >= 2, "each process warned of the fall-back");
        // Each process now paces on its own, locally: a second apart within a process.
        let (x, _) = a.reserve(KEY, &Cost::REQUEST);
        let (y, _) = a.reserve(KEY, &Cost::REQUEST);
        assert!(
            (y.at - x.at - 1.0).abs() < 1e-5,
            "local pacing: {}",
            y.at - x.at
        );
    }
    #[test]
    fn garbage_in_one_keys_admission_state_degrades_that_key_only() {
        let redis = common::Redis::start();
        let (_, c) = clock();
        let f = redis_fleet(&redis.url(), c);
        let ns = format!("adm-{}", std::process::id());
        let mut conn = redis::Client::open(redis.url())
            .unwrap()
            .get_connection()
            .unwrap();
        for (bad, value) in [
            ("bad-json", "{not json"),
            (
                "bad-numbers",
                r#"{"lanes":[{"limit":-1,"window_s":0,"pace":0,"full_at":0,"refill":0},{"limit":0,"window_s":0,"pace":0,"full_at":0,"refill":0},{"limit":0,"window_s":0,"pace":0,"full_at":0,"refill":0},{"limit":0,"window_s":0,"pace":0,"full_at":0,"refill":0}],"cubic":{"enabled":false,"rate":0,"measured":0,"count":0,"last_bucket":0,"w_max":0,"k":0,"last_throttle":0},"ratio":0}"#,
            ),
        ] {
            let _: redis::Value = redis::cmd("SET")
                .arg(format!("{ns}:{bad}:admission"))
                .arg(value)
                .query(&mut conn)
                .unwrap();
            let (a, ev) = f.reserve(bad, &Cost::REQUEST);
            assert!(
                kinds(&ev).contains(&"fleet_backend_degraded"),
                "{bad}: {ev:?}"
            );
            assert_eq!(ev[0].get("key").unwrap(), bad);
            // Local admission still paces the key.
            let (b, _) = f.reserve(bad, &Cost::REQUEST);
            assert!((b.at - a.at - 1.0).abs() < 1e-5);
        }
        // Another key is not affected.
        let (_, ev) = f.reserve("fine", &Cost::REQUEST);
        assert!(ev.is_empty(), "{ev:?}");
    }
    #[test]
    fn a_burst_of_threads_in_two_processes_shares_one_schedule_without_degrading() {
        let redis = common::Redis::start();
        let (t, c) = clock();
        // The burst's contention on one key's compare-and-set is the subject, not Redis's
        // latency: a loaded CI machine once took more than the default 0.25 s for a round trip
        // and the fleet (rightly) degraded, so the timeout here is long enough that only a
        // failure of the schedule's sharing can degrade it.
        let cfg = |ns: &str| FleetConfig {
            admission: rpm(6000.0),
            redis_url: Some(redis.url()),
            redis_timeout_s: 5.0,
            namespace: ns.to_owned(),
            ..FleetConfig::default()
        };
        let ns = format!("burst-{}", std::process::id());
        let a = Arc::new(
            Fleet::from_config(cfg(&ns))
                .unwrap()
                .with_clock(Arc::clone(&c)),
        );
        let b = Arc::new(Fleet::from_config(cfg(&ns)).unwrap().with_clock(c));
        let t0 = now(&t);
        let out: Vec<(f64, Vec<&'static str>)> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..32)
                .map(|i| {
                    let f = if i % 2 == 0 { &a } else { &b };
                    s.spawn(move || {
                        (0..5)
                            .map(|_| {
                                let (r, ev) = f.reserve(KEY, &Cost::REQUEST);
                                (r.at - t0, kinds(&ev))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let degraded: Vec<_> = out
            .iter()
            .filter(|(_, k)| k.contains(&"fleet_backend_degraded"))
            .collect();
        assert!(degraded.is_empty(), "{degraded:?}");
        let mut slots: Vec<f64> = out.iter().map(|(at, _)| *at).collect();
        slots.sort_by(f64::total_cmp);
        for (i, at) in slots.iter().enumerate() {
            assert!((at - i as f64 * 0.01).abs() < 1e-4, "slot {i} at {at}");
        }
    }
    /// What admission costs a call on the blocking Redis backend (loopback): one reserve and
    /// one settle, each a GET and a compare-and-set script. A measurement: `cargo test
    /// --release --features redis --test admission -- --ignored --nocapture redis_round`.
    #[test]
    #[ignore = "a measurement: run in release with --ignored --nocapture"]
    fn redis_round_trips_per_call() {
        use std::time::Instant;
        let redis = common::Redis::start();
        let f = Arc::new(
            Fleet::from_config(FleetConfig {
                admission: AdmissionConfig::fixed(Limits {
                    requests: Some(1e12),
                    ..Limits::default()
                }),
                redis_url: Some(redis.url()),
                ..FleetConfig::default()
            })
            .unwrap(),
        );
        let n = 2000;
        let t = Instant::now();
        for _ in 0..n {
            let (r, _) = f.reserve(KEY, &Cost::REQUEST);
            f.settle(KEY, &r, None, &Headers::new(), false);
        }
        println!(
            "blocking redis: reserve + settle {:.0} us per call (one thread)",
            t.elapsed().as_secs_f64() / n as f64 * 1e6
        );
    }
}

/// The async Redis fleet: each process admits on its mirror and the background task merges
/// its schedule into the shared one. Needs `redis-server`.
#[cfg(feature = "redis-tokio")]
mod on_redis_async {
    use super::*;
    use std::time::{Duration, Instant};

    fn fleet(url: &str, c: retry_core::fleet::WallClock) -> Arc<Fleet> {
        let cfg = FleetConfig {
            admission: rpm(60.0),
            redis_url: Some(url.to_owned()),
            namespace: format!("adm-async-{}", std::process::id()),
            ..FleetConfig::default()
        };
        Arc::new(Fleet::redis_async(cfg).unwrap().with_clock(c))
    }

    /// Polls `cond` until it holds (the sync runs every 50 ms); a bound, not a timing
    /// assertion.
    async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if cond() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cond()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_processes_stack_their_schedules_through_the_mirror() {
        let redis = super::common::Redis::start();
        let (t, c) = clock();
        let a = fleet(&redis.url(), Arc::clone(&c));
        let b = fleet(&redis.url(), c);
        let t0 = now(&t);
        assert!(
            eventually(|| a.admission_state(KEY).is_some() && b.admission_state(KEY).is_some())
                .await
        );
        // Let both mirrors connect before the first reservations.
        tokio::time::sleep(Duration::from_millis(200)).await;
        for i in 0..3 {
            let (r, _) = a.reserve(KEY, &Cost::REQUEST);
            assert!(
                (r.at - t0 - i as f64).abs() < 1e-5,
                "a's own slot {i}: {}",
                r.at - t0
            );
        }
        // b sees a's three slots once a's task has pushed them and b's has pulled.
        let seen = eventually(|| {
            b.admission_state(KEY)
                .is_some_and(|s| s.lanes[Dimension::Requests as usize].pace >= t0 + 3.0 - 1e-5)
        })
        .await;
        assert!(
            seen,
            "b never saw a's schedule: {:?}",
            b.admission_state(KEY)
        );
        let (r, _) = b.reserve(KEY, &Cost::REQUEST);
        assert!(
            (r.at - t0 - 3.0).abs() < 1e-5,
            "b's slot after a's: {}",
            r.at - t0
        );
        // And a sees b's in turn.
        assert!(
            eventually(|| a
                .admission_state(KEY)
                .is_some_and(|s| s.lanes[Dimension::Requests as usize].pace >= t0 + 4.0 - 1e-5))
            .await
        );
        let (r, _) = a.reserve(KEY, &Cost::REQUEST);
        assert!((r.at - t0 - 4.0).abs() < 1e-5, "a after b: {}", r.at - t0);
    }
}

#[test]
fn usage_is_read_from_openai_and_anthropic_bodies() {
    // OpenAI Chat Completions.
    let openai = r#"{"id":"chatcmpl-1","usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29}}"#;
    assert_eq!(Usage::from_body(openai), Some(Usage::new(19.0, 10.0)));
    // Anthropic Messages: cache writes count toward the input limit, cache reads do not.
    let anthropic = r#"{"type":"message","usage":{"input_tokens":2095,"cache_creation_input_tokens":100,
        "cache_read_input_tokens":5000,"output_tokens":503}}"#;
    assert_eq!(Usage::from_body(anthropic), Some(Usage::new(2195.0, 503.0)));
    // OpenAI Responses.
    let responses = r#"{"object":"response","usage":{"input_tokens":36,"output_tokens":87,"total_tokens":123}}"#;
    assert_eq!(Usage::from_body(responses), Some(Usage::new(36.0, 87.0)));
    for none in [
        "",
        "{}",
        "not json",
        r#"{"usage": "many"}"#,
        r#"{"usage": {"prompt_tokens": -5}}"#,
    ] {
        let u = Usage::from_body(none);
        assert!(
            u.is_none()
                || u == Some(Usage {
                    input_tokens: Some(0.0),
                    output_tokens: None
                }),
            "{none}: {u:?}"
        );
    }
}

/// A sleeper that moves the fleet's virtual wall clock: the blocking driver waits on it.
struct Virtual(Arc<AtomicU64>);

impl retry_core::driver::blocking::Sleeper for Virtual {
    fn sleep(&self, d: std::time::Duration) {
        set(&self.0, now(&self.0) + d.as_secs_f64());
    }
}

#[test]
fn the_blocking_driver_waits_its_slot_and_learns_from_what_the_call_reports() {
    use retry_core::driver::blocking::{NoRecovery, Retry};
    use retry_core::driver::Reported;
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let sleeper = Virtual(Arc::clone(&t));
    let events = std::sync::Mutex::new(Vec::new());
    let sink = |e: &Event| events.lock().unwrap().push(e.kind.as_str());
    let t0 = now(&t);
    let mut starts = Vec::new();
    for _ in 0..4 {
        let out = Retry::new(RetryPolicy::recommended())
            .fleet(Arc::clone(&fleet), KEY)
            .estimate(fleet.estimate(400, 50))
            .sleeper(&sleeper)
            .events(&sink)
            .run_reported(&mut NoRecovery, |_| {
                starts.push(now(&t) - t0);
                let h = headers(&[
                    ("x-ratelimit-limit-requests", "30"),
                    ("x-ratelimit-remaining-requests", "29"),
                    ("x-ratelimit-reset-requests", "2s"),
                ]);
                Ok::<_, Failure>(Reported::new(()).usage(Usage::new(100.0, 20.0)).headers(h))
            });
        assert!(out.is_ok());
    }
    // The first call teaches 30 a minute; the others go two seconds apart.
    assert_eq!(starts.len(), 4);
    for w in starts[1..].windows(2) {
        assert!((w[1] - w[0] - 2.0).abs() < 1e-5, "{starts:?}");
    }
    let seen = events.lock().unwrap().clone();
    assert!(seen.contains(&"limits_learned"));
    assert!(seen.contains(&"admission_wait"));
}

#[test]
fn threads_reserving_at_once_get_distinct_evenly_spaced_slots() {
    let (t, fleet) = fleet(rpm(600.0));
    let t0 = now(&t);
    let slots: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let fleet = &fleet;
                s.spawn(move || {
                    (0..50)
                        .map(|_| fleet.reserve(KEY, &Cost::REQUEST).0.at - t0)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut sorted = slots;
    sorted.sort_by(f64::total_cmp);
    assert_eq!(sorted.len(), 400);
    for (i, at) in sorted.iter().enumerate() {
        assert!((at - i as f64 * 0.1).abs() < 1e-4, "slot {i} at {at}");
    }
}

#[test]
fn a_run_that_will_not_wait_that_long_skips_and_gives_its_slot_back() {
    let (t, fleet) = fleet(rpm(60.0));
    let key = vec![KEY.to_owned()];
    let t0 = now(&t);
    let mut a = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    assert_eq!(a.start(0.0), Step::Call { model: 0 });
    let mut b = Run::new(RetryPolicy::recommended())
        .fleet(Arc::clone(&fleet), key.clone())
        .max_gate_wait(Some(0.5));
    assert!(
        matches!(b.start(0.0), Step::Skip { model: 0, seconds } if (seconds - 1.0).abs() < 1e-5)
    );
    assert!(kinds(&b.take_events()).contains(&"model_skipped"));
    let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!(
        (r.at - t0 - 1.0).abs() < 1e-5,
        "the skipped run's slot went back"
    );
}

#[test]
fn cubic_follows_botocores_formulas() {
    use retry_core::fleet::admission::Cubic;
    let mut c = Cubic::default();
    let t0 = 1_000.0;
    // 10 responses a second for 5 s: measured ~10/s, controller off.
    for i in 0..50 {
        assert_eq!(c.on_response(t0 + i as f64 * 0.1, false), None);
    }
    assert!(!c.enabled && c.limit_per_s().is_none());
    let measured = c.measured;
    assert!((measured - 10.0).abs() < 1.0, "measured {measured}");
    // Throttle at t1: rate = 0.7 * measured (the measure taken at this response).
    let t1 = t0 + 5.0;
    let cut = c.on_response(t1, true).unwrap();
    let w_max = c.measured;
    assert!((cut - 0.7 * w_max).abs() < 1e-9, "{cut} vs {w_max}");
    // K = cbrt(w_max * (1 - 0.7) / 0.4): at t1 + K the rate is back to w_max (a success counted
    // in the same half-second bucket leaves the measure alone).
    let k = (w_max * 0.3 / 0.4).cbrt();
    let back = t1 + k;
    let mut probe = c.clone();
    probe.on_response(back, false);
    let expected = (0.4 * (back - t1 - k).powi(3) + w_max).min(2.0 * probe.measured);
    assert!(
        (probe.rate - expected).abs() < 1e-9,
        "{} vs {expected}",
        probe.rate
    );
    // Beyond K the cube grows past w_max, but never past twice the measured rate.
    let mut far = c.clone();
    far.on_response(t1 + 60.0, false);
    assert!(far.rate <= 2.0 * far.measured + 1e-9);
}

#[test]
fn a_run_configuration_carries_the_estimate() {
    use retry_core::RunConfig;
    let cfg = RunConfig::from_json(r#"{"estimate": {"input_tokens": 1500, "output_tokens": 500}}"#)
        .unwrap();
    assert_eq!(cfg.estimate, Some(Cost::new(1500.0, 500.0).unwrap()));
    for bad in [
        r#"{"estimate": {"input_tokens": -1}}"#,
        r#"{"estimate": {"output_tokens": 1e300}}"#,
        r#"{"estimate": {"tokens": 5}}"#,
    ] {
        assert!(RunConfig::from_json(bad).is_err(), "{bad}");
    }
    // The estimate is what the run reserves: 2 000 tokens at 60 000 a minute hold 2 s.
    let (t, fleet) = fleet(AdmissionConfig::fixed(Limits {
        tokens: Some(60_000.0),
        ..Limits::default()
    }));
    let t0 = now(&t);
    let mut a = Run::with_config(RetryPolicy::recommended(), cfg.clone())
        .fleet(Arc::clone(&fleet), vec![KEY.into()]);
    assert_eq!(a.start(0.0), Step::Call { model: 0 });
    let (r, _) = fleet.reserve(KEY, &Cost::new(1.0, 0.0).unwrap());
    assert!((r.at - t0 - 2.0).abs() < 1e-5, "{}", r.at - t0);
}

/// OpenAI's request headers for a bucket of `n` a minute, all of it left.
fn openai_rpm(n: &str) -> Headers {
    headers(&[
        ("x-ratelimit-limit-requests", n),
        ("x-ratelimit-remaining-requests", n),
        ("x-ratelimit-reset-requests", "1s"),
    ])
}

#[test]
fn a_throttle_in_the_first_half_second_cuts_from_what_was_sent_and_a_burst_cuts_once() {
    use retry_core::fleet::admission::Cubic;
    let mut c = Cubic::default();
    let t0 = 1_000.0;
    // A whole fleet called at t0; 80 answers come back fine 20 ms later, then a 429, all
    // before any half-second of the meter has closed.
    for _ in 0..80 {
        assert_eq!(c.on_answer(t0 + 0.02, false, t0), None);
    }
    let cut = c.on_answer(t0 + 0.02, true, t0).unwrap();
    // 81 calls counted over (at least) half a second: 162 a second, cut to 0.7 of it, not
    // to the 0.5 a second floor an empty meter would give.
    assert!((cut - 0.7 * 162.0).abs() < 1e-6, "cut to {cut}");
    // The rest of the same wave's 429s (sent before the cut) are its echo: no further cut.
    for _ in 0..100 {
        assert_eq!(c.on_answer(t0 + 0.03, true, t0), None);
    }
    assert!((c.rate - cut).abs() < 1e-9, "{} after the echo", c.rate);
    // A 429 of a call sent after the cut is news: it cuts again.
    let again = c.on_answer(t0 + 0.2, true, t0 + 0.1).unwrap();
    assert!(again < cut, "{again} vs {cut}");
}

#[test]
fn a_waiters_slot_follows_the_rate_as_it_rises_and_falls() {
    use retry_core::fleet::AdmissionState;
    let cfg = AdmissionConfig::mode(AdmissionMode::Adaptive);
    let mut s = AdmissionState::default();
    s.cubic.enabled = true;
    s.cubic.rate = 1.0;
    let t0 = 1_000.0;
    let grants: Vec<_> = (0..10)
        .map(|_| s.reserve(&cfg, &Cost::REQUEST, t0, 0.0))
        .collect();
    assert!((grants[9].at - t0 - 9.0).abs() < 1e-9);
    // The rate rises tenfold: the last waiter, 9 s out at 1 a second, is 0.9 s out.
    s.cubic.rate = 10.0;
    let g = s.replan(&cfg, &grants[9], &Cost::REQUEST, t0, 0.0);
    assert!((g.at - t0 - 0.9).abs() < 1e-9, "{}", g.at - t0);
    // The queue moved with it: a newcomer comes after the ten, at the new spacing.
    let next = s.reserve(&cfg, &Cost::REQUEST, t0, 0.0);
    assert!((next.at - t0 - 1.0).abs() < 1e-9, "{}", next.at - t0);
    // Back to 1 a second half a second later: the 0.4 s left stretch to 4 s.
    s.cubic.rate = 1.0;
    let g2 = s.replan(&cfg, &g, &Cost::REQUEST, t0 + 0.5, 0.0);
    assert!((g2.at - t0 - 4.5).abs() < 1e-9, "{}", g2.at - t0);
}

#[test]
fn a_run_waiting_on_a_learned_rate_asks_again_and_follows_the_new_rate() {
    use retry_core::fleet::admission::RECHECK_S;
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    fleet.learn(KEY, &openai_rpm("60"), false);
    for _ in 0..10 {
        fleet.reserve(KEY, &Cost::REQUEST);
    }
    let t0 = now(&t);
    let mut run =
        Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), vec![KEY.to_owned()]);
    // Its slot is 10 s out at 60 a minute; it sleeps a slice, then asks again.
    match run.start(0.0) {
        Step::Wait {
            seconds,
            reason: WaitReason::Admission,
        } => assert!((seconds - RECHECK_S).abs() < 1e-6, "{seconds}"),
        s => panic!("{s:?}"),
    }
    // Half a second in, the limit is now 600 a minute: what was 9.5 s away is 0.95 s away
    // from then (the queue follows the rate from the moment it is learned).
    set(&t, t0 + 0.5);
    fleet.learn(KEY, &openai_rpm("600"), false);
    set(&t, t0 + RECHECK_S);
    let left: f64 = 0.5 + 0.1 * (10.0 - 0.5) - RECHECK_S;
    match run.resume(RECHECK_S) {
        Step::Wait { seconds, .. } => {
            assert!((seconds - left.min(RECHECK_S)).abs() < 1e-5, "{seconds}")
        }
        s => panic!("{s:?}"),
    }
    set(&t, t0 + RECHECK_S + left);
    assert_eq!(run.resume(RECHECK_S + left), Step::Call { model: 0 });
}

#[test]
fn a_cold_key_lets_one_call_go_first_and_holds_the_rest_until_its_answer() {
    use retry_core::fleet::admission::PROBE_HOLD_S;
    use retry_core::fleet::admission::PROBE_RECHECK_S;
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Headers));
    let t0 = now(&t);
    // A whole fleet at one instant, nothing known yet: the first goes, the rest are held.
    let (probe, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(probe.wait_s, 0.0);
    let held: Vec<_> = (0..50)
        .map(|_| fleet.reserve(KEY, &Cost::REQUEST).0)
        .collect();
    for r in &held {
        assert!(r.wait_s > 0.0 && r.wait_s <= PROBE_HOLD_S + 1e-9, "{r:?}");
        assert!(r.sleep_s(t0) <= PROBE_RECHECK_S + 1e-9, "{r:?}");
    }
    // Asking again before the answer: still held.
    set(&t, t0 + 0.01);
    let still = fleet.replan(KEY, held[0].clone(), 0.0).0;
    assert!(still.at > t0 + 0.01);
    // The probe's answer teaches 600 a minute: the held get slots 0.1 s apart from now.
    set(&t, t0 + 0.02);
    fleet.settle(KEY, &probe, None, &openai_rpm("600"), false);
    for (i, r) in held.into_iter().enumerate() {
        let at = fleet.replan(KEY, r, 0.0).0.at - (t0 + 0.02);
        assert!((at - i as f64 * 0.1).abs() < 1e-5, "slot {i} at {at}");
    }
}

#[test]
fn a_probe_that_never_answers_holds_the_others_no_longer_than_the_hold() {
    use retry_core::fleet::admission::PROBE_HOLD_S;
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Adaptive));
    let t0 = now(&t);
    let (probe, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert_eq!(probe.wait_s, 0.0);
    let (a, _) = fleet.reserve(KEY, &Cost::REQUEST);
    let (b, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!(a.at <= t0 + PROBE_HOLD_S + 1e-9 && a.wait_s > 0.0);
    // The hold is over with no answer: they go, paced by what is known (the slowest start),
    // not all at once.
    set(&t, t0 + PROBE_HOLD_S);
    let a = fleet.replan(KEY, a, 0.0).0;
    let b = fleet.replan(KEY, b, 0.0).0;
    assert!((a.at - (t0 + PROBE_HOLD_S)).abs() < 1e-6, "{}", a.at - t0);
    assert!(b.at > a.at + 1.0, "{} then {}", a.at - t0, b.at - t0);
}

#[test]
fn a_slot_that_went_by_unused_is_placed_again_at_the_end_of_the_queue() {
    let (t, fleet) = fleet(rpm(60.0));
    let t0 = now(&t);
    let slots: Vec<_> = (0..10)
        .map(|_| fleet.reserve(KEY, &Cost::REQUEST).0)
        .collect();
    // The caller of the slot at 1 s was held elsewhere (an open circuit) until 5 s: its slot
    // is gone; it queues behind the others instead of going at once with everyone so held.
    set(&t, t0 + 5.0);
    let again = fleet.replan(KEY, slots[1].clone(), 0.0).0;
    assert!((again.at - t0 - 10.0).abs() < 1e-6, "{}", again.at - t0);
    // A slot still ahead is kept as it is on a fixed rate.
    let kept = fleet.replan(KEY, slots[8].clone(), 0.0).0;
    assert_eq!(kept.at, slots[8].at);
}

#[test]
fn an_error_without_usage_stays_spent_a_throttle_included() {
    let (t, fleet) = fleet(AdmissionConfig::fixed(Limits {
        tokens: Some(600.0),
        ..Limits::default()
    }));
    let t0 = now(&t);
    let cost = Cost {
        requests: 1.0,
        input_tokens: 50.0,
        output_tokens: 50.0,
    };
    let (r, _) = fleet.reserve(KEY, &cost);
    // A 429 without usage: what was reserved stays spent (providers count unsuccessful
    // requests toward the per-minute limit).
    fleet.settle(KEY, &r, None, &Headers::new(), true);
    let (next, _) = fleet.reserve(KEY, &cost);
    assert!((next.at - t0 - 10.0).abs() < 1e-6, "{}", next.at - t0);
}

#[test]
fn a_cut_in_the_rate_holds_back_a_waiter_whose_old_time_has_come() {
    use retry_core::fleet::AdmissionState;
    let cfg = AdmissionConfig::mode(AdmissionMode::Adaptive);
    let mut s = AdmissionState::default();
    s.cubic.enabled = true;
    s.cubic.rate = 100.0;
    let t0 = 1_000.0;
    // Ten waiters placed at 100 a second: the last is due 90 ms out.
    let grants: Vec<_> = (0..10)
        .map(|_| s.reserve(&cfg, &Cost::REQUEST, t0, 0.0))
        .collect();
    assert!((grants[9].at - t0 - 0.09).abs() < 1e-9);
    // A throttle cuts the rate to 10 a second before any of them asked again. When the last
    // wakes at its old time, its place is now 0.9 s out from the cut, not now: a slot planned
    // at the old rate is no licence to go at it.
    s.cubic.rate = 10.0;
    // (A newcomer at the cut: the queue is respaced from then.)
    s.reserve(&cfg, &Cost::REQUEST, t0, 0.0);
    let woke = grants[9].at;
    let g = s.replan(&cfg, &grants[9], &Cost::REQUEST, woke, 0.0);
    assert!(g.at > woke + 0.5, "{} after its old time", g.at - woke);
    // Every waiter follows the same schedule: woken at their old times, they come out in
    // order, a tenth of a second apart (the new rate), none before its turn.
    let mut times: Vec<f64> = grants
        .iter()
        .map(|gr| s.replan(&cfg, gr, &Cost::REQUEST, gr.at.max(t0), 0.0).at)
        .collect();
    let sorted = {
        let mut v = times.clone();
        v.sort_by(f64::total_cmp);
        v
    };
    assert_eq!(times, sorted, "in the order they were placed");
    times.dedup();
    for w in times.windows(2).skip(1) {
        assert!((w[1] - w[0] - 0.1).abs() < 1e-6, "{times:?}");
    }
}

#[test]
fn the_success_path_holds_a_slot_now_or_takes_the_run_without_reserving() {
    // Admission off: a reservation of nothing while the key is free.
    let (_, off) = fleet(AdmissionConfig::default());
    let r = off.admits_freely_with(KEY, &Cost::REQUEST).unwrap();
    assert!(!r.holds());
    // On, one a second: the first call holds its slot now; the second would wait, so it takes
    // the run and reserves nothing: the next reservation is the one a second out.
    let (t, on) = fleet(rpm(60.0));
    let t0 = now(&t);
    let first = on.admits_freely_with(KEY, &Cost::REQUEST).unwrap();
    assert!(first.holds());
    assert!((first.at - t0).abs() < 1e-9);
    assert!(on.admits_freely_with(KEY, &Cost::REQUEST).is_none());
    let (next, _) = on.reserve(KEY, &Cost::REQUEST);
    assert!((next.at - t0 - 1.0).abs() < 1e-6, "{}", next.at - t0);
    on.cancel(KEY, &next);
    // Settled on success with the usage reported: counted as a success, tokens refunded.
    let ev = on.succeeded_with(KEY, &first, Some(&Usage::new(10.0, 5.0)), &Headers::new());
    assert!(ev.is_empty(), "{:?}", kinds(&ev));
    let m = on.metrics().snapshot();
    assert_eq!(m[KEY]["total"]["successes"], 1, "{m}");
    // A paused key takes the run.
    on.record_failure(
        KEY,
        &retry_core::classify(&Failure::http(429, "").with_header("retry-after", "5")),
    );
    set(&t, t0 + 2.0);
    assert!(on.admits_freely_with(KEY, &Cost::REQUEST).is_none());
}

#[test]
fn a_run_given_the_success_paths_slot_settles_it_with_the_failure() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Adaptive));
    let slot = fleet.admits_freely_with(KEY, &Cost::REQUEST).unwrap();
    assert!(slot.holds(), "the probe of a cold key holds its slot");
    // Its call got a 429: the run takes over holding the slot, and the throttle teaches the
    // controller, as if the run had reserved the slot itself.
    set(&t, now(&t) + 0.02);
    let mut run = Run::new(RetryPolicy::recommended())
        .fleet(Arc::clone(&fleet), vec![KEY.to_owned()])
        .holding(slot);
    let step = run.failed(&Failure::http(429, ""), 0.02);
    assert!(matches!(step, Step::Wait { .. }), "{step:?}");
    assert!(fleet.admission_state(KEY).unwrap().cubic.enabled);
    assert_eq!(fleet.metrics().snapshot()[KEY]["admission"]["throttled"], 1);
}

#[test]
fn a_retrys_admission_slot_past_the_deadline_is_not_slept() {
    let (t, fleet) = fleet(rpm(6.0));
    let policy = RetryPolicy {
        deadline: Some(20.0),
        ..RetryPolicy::recommended()
    };
    // The schedule is full for the next minute (six calls at 6 a minute).
    for _ in 0..6 {
        fleet.reserve(KEY, &Cost::REQUEST);
    }
    let t0 = now(&t);
    // A first call waits its turn, deadline or not (as at the fleet's gate).
    let mut first = Run::new(policy.clone()).fleet(Arc::clone(&fleet), vec![KEY.to_owned()]);
    assert!(matches!(
        first.start(0.0),
        Step::Wait {
            reason: WaitReason::Admission,
            ..
        }
    ));
    first.abandon();
    // A retry whose slot comes 60 s out, past the 20 s deadline: it gives up at once with the
    // last failure, reason deadline, and gives its slot back.
    let mut run = Run::new(policy).fleet(Arc::clone(&fleet), vec![KEY.to_owned()]);
    let step = run.failed(&Failure::http(503, ""), 0.0);
    let mut elapsed = 0.0;
    let step = match step {
        Step::Wait {
            seconds,
            reason: WaitReason::Backoff,
        } => {
            elapsed += seconds;
            set(&t, t0 + elapsed);
            run.resume(elapsed)
        }
        s => s,
    };
    assert_eq!(
        step,
        Step::GiveUp {
            reason: retry_core::GiveUpReason::Deadline
        }
    );
    let ev = kinds(&run.take_events());
    assert!(ev.contains(&"llm_retry_exhausted"), "{ev:?}");
    // The slot went back: the next reservation is where the retry's was.
    let (next, _) = fleet.reserve(KEY, &Cost::REQUEST);
    assert!(
        (next.at - t0 - 60.0).abs() < 1e-6,
        "next at {}",
        next.at - t0
    );
}
