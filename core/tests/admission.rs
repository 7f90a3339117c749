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
        let (y, m, d) = civil(days);
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
    ]);
    let ev = fleet.learn("anthropic:sonnet", &h, false);
    let dims: Vec<_> = ev
        .iter()
        .map(|e| e.get("dimension").unwrap().as_str().unwrap())
        .collect();
    assert_eq!(dims, ["requests", "input_tokens", "output_tokens"]);
    let s = fleet.admission_state("anthropic:sonnet").unwrap();
    assert_eq!(s.lanes[Dimension::OutputTokens as usize].limit, 8000.0);
    // 2 000 output tokens left, refilling 6 000 over 45 s: a call asking for 4 000 waits for
    // the 2 000 more, 15 s.
    let (r, _) = fleet.reserve("anthropic:sonnet", &Cost::new(100.0, 4000.0).unwrap());
    assert_eq!(r.limited_by, Some(Dimension::OutputTokens));
    assert!((r.at - t0 - 15.0).abs() < 1.0, "waited {}", r.at - t0);
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
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
}

#[test]
fn cubic_is_off_until_the_first_throttle_then_backs_off_and_recovers() {
    let (t, fleet) = fleet(AdmissionConfig::mode(AdmissionMode::Adaptive));
    let start = now(&t);
    // 20 calls a second for 5 s, all fine: no admission at all.
    for i in 0..100 {
        set(&t, start + i as f64 * 0.05);
        let (r, _) = fleet.reserve(KEY, &Cost::REQUEST);
        assert_eq!(r.wait_s, 0.0);
        fleet.settle(KEY, &r, None, &Headers::new(), false);
    }
    // A 429: the rate drops to 0.7 x the measured one (about 20 a second).
    set(&t, start + 5.0);
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
    let mut t_s = start + 5.0;
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
    for (name, adm) in [("off", AdmissionConfig::default()), ("static", big)] {
        let fleet = Arc::new(Fleet::in_process(FleetConfig {
            admission: adm,
            ..FleetConfig::default()
        }));
        let key = vec![KEY.to_owned()];
        let cost = Cost::new(1000.0, 500.0).unwrap();
        let usage = Usage::new(900.0, 200.0);
        let h = Headers::new();
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
