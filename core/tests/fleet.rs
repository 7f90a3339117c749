//! Fleet resilience in one process: shared pauses, the breaker, the budget, metrics, and many
//! threads at once. Time is virtual (an injected wall clock).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use retry_core::__private::machine::Retrier;
use retry_core::fleet::{BudgetConfig, Fleet, FleetConfig};
use retry_core::{Action, Failure, GiveUpReason, RetryPolicy};

/// A shared virtual wall clock in milliseconds.
fn clock() -> (Arc<AtomicU64>, retry_core::fleet::WallClock) {
    let t = Arc::new(AtomicU64::new(1_000_000));
    let c = Arc::clone(&t);
    (
        t,
        Arc::new(move || c.load(Ordering::SeqCst) as f64 / 1000.0),
    )
}

fn advance(t: &AtomicU64, secs: f64) {
    t.fetch_add((secs * 1000.0) as u64, Ordering::SeqCst);
}

fn kinds(events: &[retry_core::Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

#[test]
fn a_retry_after_pauses_every_caller_of_the_key() {
    let (t, c) = clock();
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()).with_clock(c));
    let mut a =
        Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "anthropic:sonnet");
    let d = a.on_failure(
        &Failure::http(429, "slow down").with_header("retry-after", "7"),
        0.0,
    );
    assert_eq!(d.action, Action::Retry { delay: 7.0 });
    assert!(kinds(&d.events).contains(&"rate_limit_pause"));

    let mut b =
        Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "anthropic:sonnet");
    let gate = b.before_attempt(0.0);
    assert!((gate.wait.unwrap() - 7.0).abs() < 1e-6);
    let mut other_key =
        Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "openai:gpt-4o");
    assert_eq!(
        other_key.before_attempt(0.0).wait,
        None,
        "other keys are not paused"
    );
    advance(&t, 7.0);
    assert_eq!(b.before_attempt(7.0).wait, None);
}

#[test]
fn the_breaker_opens_then_one_probe_closes_it() {
    let (t, c) = clock();
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()).with_clock(c));
    let key = "p:m";
    let mut opened = None;
    for i in 0..5 {
        let mut r = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), key);
        assert_eq!(r.before_attempt(0.0).wait, None);
        let d = r.on_failure(&Failure::http(503, "down"), 0.0);
        if kinds(&d.events).contains(&"circuit_opened") {
            opened = Some(i);
        }
    }
    assert_eq!(opened, Some(4), "opens on the 5th consecutive failure");
    let mut waiting = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), key);
    // Open for a quarter of the time since the failures began, at least `open_s` (0.5 s).
    assert!((waiting.before_attempt(0.0).wait.unwrap() - 0.5).abs() < 1e-6);
    advance(&t, 0.5);
    let mut probe = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), key);
    let g = probe.before_attempt(0.0);
    assert!(g.probe && g.wait.is_none());
    assert!(
        waiting.before_attempt(0.5).wait.is_some(),
        "only one probe at a time"
    );
    let ev = probe.on_success();
    assert_eq!(kinds(&ev), vec!["circuit_closed"]);
    assert_eq!(waiting.before_attempt(0.5).wait, None);
}

#[test]
fn permanent_errors_never_open_the_circuit() {
    let (_t, c) = clock();
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()).with_clock(c));
    for _ in 0..50 {
        let mut r = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "k");
        let d = r.on_failure(&Failure::http(401, "bad key"), 0.0);
        assert!(!kinds(&d.events).contains(&"circuit_opened"));
    }
    let mut r = Retrier::new(RetryPolicy::recommended()).with_fleet(fleet, "k");
    assert_eq!(r.before_attempt(0.0).wait, None);
}

#[test]
fn the_budget_caps_retries_across_callers_and_successes_earn_it_back() {
    let (_t, c) = clock();
    let cfg = FleetConfig {
        budget: Some(BudgetConfig {
            capacity: 20.0,
            retry_cost: 5.0,
            timeout_cost: 10.0,
            success_refund: 1.0,
        }),
        breaker: None,
        ..FleetConfig::default()
    };
    let fleet = Arc::new(Fleet::in_process(cfg).with_clock(c));
    let mut outcomes = Vec::new();
    for _ in 0..6 {
        let mut r = Retrier::new(RetryPolicy::recommended())
            .with_seed(1)
            .with_fleet(Arc::clone(&fleet), "k");
        outcomes.push(r.on_failure(&Failure::http(500, "boom"), 0.0));
    }
    let retried = outcomes
        .iter()
        .filter(|d| matches!(d.action, Action::Retry { .. }))
        .count();
    assert_eq!(retried, 4, "20 tokens / 5 per retry");
    let last = outcomes.last().unwrap();
    assert_eq!(
        last.action,
        Action::GiveUp {
            reason: GiveUpReason::BudgetExhausted
        }
    );
    assert_eq!(
        kinds(&last.events),
        vec!["retry_budget_exhausted", "llm_retry_exhausted"]
    );
    assert_eq!(fleet.tokens("k"), Some(0.0));
    for _ in 0..5 {
        Retrier::new(RetryPolicy::recommended())
            .with_fleet(Arc::clone(&fleet), "k")
            .on_success();
    }
    assert_eq!(fleet.tokens("k"), Some(5.0));
}

#[test]
fn metrics_count_calls_retries_waits_and_waste() {
    let (_t, c) = clock();
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()).with_clock(c));
    let mut r = Retrier::new(RetryPolicy::forgeflare()).with_fleet(Arc::clone(&fleet), "k");
    for _ in 0..5 {
        r.on_failure(&Failure::http(400, "bad"), 0.0);
    }
    let mut r = Retrier::new(RetryPolicy::forgeflare()).with_fleet(Arc::clone(&fleet), "k");
    r.on_failure(&Failure::http(503, "x"), 0.0);
    r.on_success();
    let snap = fleet.metrics().snapshot();
    assert_eq!(snap["k"]["bad_request"]["calls"], 5);
    assert_eq!(snap["k"]["bad_request"]["gave_up"], 5);
    assert_eq!(snap["k"]["server_error"]["retries"], 1);
    assert_eq!(snap["k"]["server_error"]["waited_s"], 2.0);
    assert_eq!(snap["k"]["success"]["successes"], 1);
    assert_eq!(snap["k"]["total"]["calls"], 7);
}

#[test]
fn many_threads_share_one_fleet_safely() {
    let fleet = Arc::new(Fleet::in_process(FleetConfig {
        breaker: None,
        ..FleetConfig::default()
    }));
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let fleet = Arc::clone(&fleet);
            std::thread::spawn(move || {
                let mut retried = 0;
                for j in 0..500 {
                    let mut r = Retrier::new(RetryPolicy::recommended())
                        .with_seed(j)
                        .with_fleet(Arc::clone(&fleet), format!("k{}", i % 4));
                    r.before_attempt(0.0);
                    if matches!(
                        r.on_failure(&Failure::http(503, "x"), 0.0).action,
                        Action::Retry { .. }
                    ) {
                        retried += 1;
                    }
                    r.on_success();
                }
                retried
            })
        })
        .collect();
    let total: u32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    // Each key: 500 tokens, each retry -5 then the success +5: the budget never runs dry.
    assert_eq!(total, 16 * 500);
    for k in 0..4 {
        assert_eq!(fleet.tokens(&format!("k{k}")), Some(500.0));
    }
    assert_eq!(fleet.metrics().snapshot()["k0"]["total"]["calls"], 4 * 1000);
}

/// The bindings' success path asks `admits_freely` and, after a success, `succeeded`: a key is
/// free only where the gate would let a call go at once with nothing to report, and a
/// first-attempt success earns its refund.
#[test]
fn the_success_path_admits_only_a_free_key_and_records_what_the_gate_would() {
    let (t, c) = clock();
    let cfg = FleetConfig {
        budget: Some(BudgetConfig {
            capacity: 10.0,
            retry_cost: 5.0,
            success_refund: 1.0,
            ..BudgetConfig::default()
        }),
        ..FleetConfig::default()
    };
    let fleet = Fleet::in_process(cfg).with_clock(c);

    let budget_cost = Failure::http(503, "unavailable");
    let class = retry_core::classify(&budget_cost);
    assert!(fleet.try_retry("k", &class).0);
    assert_eq!(fleet.tokens("k"), Some(5.0));
    assert!(fleet.admits_freely("k"));
    assert!(fleet.succeeded("k", false).is_empty());
    assert_eq!(
        fleet.tokens("k"),
        Some(6.0),
        "a first-attempt success earns its refund"
    );
    let m = fleet.metrics().snapshot();
    assert_eq!(m["k"]["success"]["successes"], 1);
    assert_eq!(m["k"]["total"]["calls"], 1);

    // A paused key: not free; free again once the pause is over.
    fleet.record_failure(
        "k",
        &retry_core::classify(&Failure::http(429, "slow").with_header("retry-after", "3")),
    );
    assert!(!fleet.admits_freely("k"));
    advance(&t, 3.0);
    assert!(fleet.admits_freely("k"));

    // An open circuit: not free.
    for _ in 0..5 {
        fleet.record_failure("k", &class);
    }
    assert!(!fleet.admits_freely("k"));
}

/// A breaker configured to open for 0 s (accepted by validation) must not make the callers
/// that find a probe out spin: they look again after the floor, 10 ms.
#[test]
fn a_zero_second_breaker_never_spins_its_waiters() {
    let (_t, c) = clock();
    let cfg = FleetConfig {
        breaker: Some(retry_core::fleet::BreakerConfig {
            consecutive_failures: 1,
            open_s: 0.0,
            max_open_s: 0.0,
            ..Default::default()
        }),
        ..FleetConfig::default()
    };
    let fleet = Fleet::in_process(cfg).with_clock(c);
    fleet.record_failure("k", &retry_core::classify(&Failure::http(503, "down")));
    let (probe, _) = fleet.admit("k");
    assert_eq!(probe, retry_core::__private::fleet::Admit::Probe);
    let now = fleet.now();
    match fleet.admit("k").0 {
        retry_core::__private::fleet::Admit::WaitUntil(until) => {
            assert!(until - now >= 0.01 - 1e-9, "{}", until - now)
        }
        other => panic!("a second caller must wait for the probe, got {other:?}"),
    }
}

// --- issue 24: per-key state is forgotten ------------------------------------------------------

fn rate_limited(seconds: u32) -> retry_core::Classification {
    retry_core::classify(
        &Failure::http(429, "slow down").with_header("retry-after", seconds.to_string()),
    )
}

/// A key idle past `key_idle_ttl_s` is forgotten (its state and its metrics), except while it
/// holds a live pause or an open circuit; the map no longer grows with every key ever seen.
#[test]
fn idle_keys_are_forgotten_but_not_a_live_pause_or_open_circuit() {
    let (t, c) = clock();
    let cfg = FleetConfig {
        key_idle_ttl_s: 10.0,
        breaker: Some(retry_core::fleet::BreakerConfig {
            open_s: 100.0,
            max_open_s: 100.0,
            ..Default::default()
        }),
        ..FleetConfig::default()
    };
    let fleet = Fleet::in_process(cfg).with_clock(c);
    for i in 0..1000 {
        let k = format!("k{i}");
        fleet.admit(&k);
        fleet.succeeded(&k, false);
    }
    fleet.record_failure("paused", &rate_limited(100));
    let down = retry_core::classify(&Failure::http(503, "down"));
    for _ in 0..5 {
        fleet.record_failure("open", &down);
    }
    assert!(fleet.key_count() >= 1002, "{}", fleet.key_count());
    advance(&t, 5.0);
    fleet.succeeded("a", false); // a new key: a sweep is due
    advance(&t, 11.0);
    fleet.succeeded("b", false);
    assert!(
        fleet.key_count() <= 4,
        "{} keys held after they went idle",
        fleet.key_count()
    );
    assert!(matches!(
        fleet.admit("paused").0,
        retry_core::__private::fleet::Admit::Paused(_)
    ));
    assert!(matches!(
        fleet.admit("open").0,
        retry_core::__private::fleet::Admit::WaitUntil(_)
    ));
    let m = fleet.metrics().snapshot();
    assert!(m.get("k1").is_none(), "metrics of an idle key kept");
}

/// However many keys are busy at once, at most `max_keys` are held (rounded up to the shards).
#[test]
fn the_key_count_is_capped() {
    let (_, c) = clock();
    let cfg = FleetConfig {
        max_keys: 1000,
        ..FleetConfig::default()
    };
    let fleet = Fleet::in_process(cfg).with_clock(c);
    for i in 0..20_000 {
        let k = format!("k{i}");
        fleet.admit(&k);
        fleet.succeeded(&k, false);
    }
    assert!(fleet.key_count() <= 1064, "{}", fleet.key_count());
    assert!(fleet.metrics().len() <= 1064, "{}", fleet.metrics().len());
    // The newest keys are the ones kept.
    assert!(fleet.metrics().snapshot().get("k19999").is_some());
}

#[test]
fn retention_settings_are_validated() {
    for bad in [
        r#"{"key_idle_ttl_s": 0}"#,
        r#"{"key_idle_ttl_s": -1}"#,
        r#"{"max_keys": 0}"#,
    ] {
        assert!(FleetConfig::from_json(bad).is_err(), "{bad}");
    }
    let cfg = FleetConfig::from_json(r#"{"key_idle_ttl_s": 30, "max_keys": 5000}"#).unwrap();
    assert_eq!((cfg.key_idle_ttl_s, cfg.max_keys), (30.0, 5000));
    let d = FleetConfig::default();
    assert_eq!((d.key_idle_ttl_s, d.max_keys), (600.0, 100_000));
}

/// `metrics()` at 300 K keys while another thread calls: the calls' worst and 99.9th-percentile
/// times without snapshots, then with snapshots running back to back (release build, alone:
/// `cargo test --release -p llm-retry-core --test fleet -- --ignored --nocapture --test-threads 1
/// metrics`). On a loaded machine the worst case includes preemption: compare the two phases.
#[test]
#[ignore = "a timed measurement (release build, a quiet machine): `make fleet-bounds`"]
fn metrics_at_300k_keys_never_stalls_a_call() {
    let fleet = Arc::new(Fleet::in_process(FleetConfig {
        max_keys: 1_000_000,
        ..FleetConfig::default()
    }));
    for i in 0..300_000 {
        fleet.succeeded(&format!("key-{i}"), false);
    }
    let phase = |snapshots: bool| {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let worker = {
            let (fleet, stop) = (Arc::clone(&fleet), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut times = Vec::new();
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let k = format!("key-{}", (i * 7919) % 300_000);
                    let t = std::time::Instant::now();
                    fleet.admit(&k);
                    fleet.succeeded(&k, false);
                    times.push(t.elapsed());
                    i += 1;
                }
                times.sort();
                (
                    times[times.len() - 1],
                    times[times.len() * 999 / 1000],
                    times.len(),
                )
            })
        };
        let t = std::time::Instant::now();
        let mut took = std::time::Duration::ZERO;
        let mut n = 0;
        while t.elapsed() < std::time::Duration::from_secs(5) || (snapshots && n < 2) {
            if snapshots {
                let s = std::time::Instant::now();
                let snap = fleet.metrics().snapshot();
                took = took.max(s.elapsed());
                assert!(snap.as_object().unwrap().len() >= 300_000);
                n += 1;
            } else {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        stop.store(true, Ordering::Relaxed);
        let (worst, p999, calls) = worker.join().unwrap();
        (worst, p999, calls, took, n)
    };
    let (worst0, p0, calls0, _, _) = phase(false);
    let (worst1, p1, calls1, took, n) = phase(true);
    println!(
        "metrics() at 300K keys: {n} snapshots, {took:?} at most each; a call took at most \
         {worst1:?} (p99.9 {p1:?}, {calls1} calls) during them, {worst0:?} (p99.9 {p0:?}, \
         {calls0} calls) without"
    );
    assert!(p1 < std::time::Duration::from_millis(10), "{p1:?}");
}

/// Memory for 1 M distinct keys (RSS growth; `cargo test --release -p llm-retry-core --test fleet
/// -- --ignored --nocapture million`).
#[test]
#[ignore = "a measurement of RSS for 1 M keys (release build): `make fleet-bounds`; the cap itself is tested by the_key_count_is_capped"]
fn a_million_keys_stay_within_the_cap() {
    let rss = || {
        std::fs::read_to_string("/proc/self/status")
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let fleet = Fleet::in_process(FleetConfig::default());
    let before = rss();
    for i in 0..1_000_000 {
        let k = format!("tenant-{i}:openai:gpt-4o");
        fleet.admit(&k);
        fleet.succeeded(&k, false);
    }
    let grew = rss().saturating_sub(before);
    println!(
        "1M keys: {} keys held, {} with metrics, RSS +{} MiB",
        fleet.key_count(),
        fleet.metrics().len(),
        grew / 1024
    );
    assert!(fleet.key_count() <= 100_064);
}
