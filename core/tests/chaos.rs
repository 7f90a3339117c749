//! Promises under misuse and bad luck, without Redis (issue 14; `chaos_redis.rs` has the Redis
//! half): absurd configurations never panic a driver, an unasked recovery never buys a retry,
//! a half-open probe that ends without news frees its slot, and fleet waits stay finite.

use std::sync::{Arc, Mutex};

use retry_core::__private::fleet::Admit;
use retry_core::__private::machine::Retrier;
use retry_core::__private::policy::MAX_DELAY_S;
use retry_core::driver::blocking::Retry;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{Action, Backoff, Failure, GiveUpReason, RetryPolicy};

mod common;
use common::VirtualTime;

#[test]
fn absurd_delays_are_refused_at_construction() {
    for bad in [1e300, f64::INFINITY, f64::NAN, -1.0, MAX_DELAY_S * 2.0] {
        let p = RetryPolicy {
            backoff: Backoff::Fixed { delay: bad },
            ..RetryPolicy::forgeflare()
        };
        assert!(p.validate().is_err(), "{bad}");
        let p = RetryPolicy {
            retry_after_cap: Some(bad),
            ..RetryPolicy::forgeflare()
        };
        assert!(p.validate().is_err(), "{bad}");
    }
    assert!(RetryPolicy::from_config(r#"{"deadline": 1e300}"#).is_err());
}

/// A policy built field by field skips validation; the driver still never panics and never
/// sleeps longer than a day, whatever the numbers.
#[test]
fn a_driver_never_panics_on_any_configuration() {
    for delay in [1e300, f64::INFINITY, f64::NAN, -5.0, f64::MAX] {
        let vt = VirtualTime::default();
        let policy = RetryPolicy {
            backoff: Backoff::Fixed { delay },
            max_attempts: 2,
            deadline: None,
            ..RetryPolicy::forgeflare()
        };
        let mut calls = 0;
        let out = Retry::new(policy)
            .sleeper(&vt)
            .clock(&vt)
            .run(|_| -> Result<u32, Failure> {
                calls += 1;
                if calls == 1 {
                    Err(Failure::http(503, "unavailable"))
                } else {
                    Ok(7)
                }
            });
        assert_eq!(out.ok(), Some(7), "{delay}");
        for s in vt.slept.lock().unwrap().iter() {
            assert!(s.is_finite() && *s <= MAX_DELAY_S, "{delay}: slept {s}");
        }
    }
}

#[test]
fn an_unasked_recovery_buys_no_retry() {
    let unauthorized = Failure::http(401, "invalid x-api-key");
    let mut r = Retrier::new(RetryPolicy::recommended()).with_seed(1);
    let d = r.on_orphans_pruned(3, &unauthorized, 0.0);
    assert_eq!(
        d.action,
        Action::GiveUp {
            reason: GiveUpReason::Permanent
        }
    );
    let d = r.on_context_compacted(true, &unauthorized, 0.0);
    assert!(matches!(d.action, Action::GiveUp { .. }), "{:?}", d.action);

    let mut cancelled = Failure::http(400, "x");
    cancelled.error_class = vec!["KeyboardInterrupt".into()];
    let d = Retrier::new(RetryPolicy::recommended()).on_orphans_pruned(1, &cancelled, 0.0);
    assert_eq!(d.action, Action::Reraise);

    // Asked for, a recovery still retries at once.
    let orphan = Failure::http(
        400,
        "tool_use ids were found without tool_result blocks immediately after",
    );
    let mut r = Retrier::new(RetryPolicy::recommended()).with_seed(1);
    assert_eq!(r.on_failure(&orphan, 0.0).action, Action::PruneOrphans);
    assert_eq!(
        r.on_orphans_pruned(1, &orphan, 0.0).action,
        Action::Retry { delay: 0.0 }
    );
}

/// A fleet whose clock the test moves.
fn fleet_at(t: Arc<Mutex<f64>>) -> Arc<Fleet> {
    let clock = Arc::clone(&t);
    Arc::new(
        Fleet::in_process(FleetConfig::default())
            .with_clock(Arc::new(move || *clock.lock().unwrap())),
    )
}

/// Opens the key's circuit and moves past `open_s`, so the next caller is the probe.
fn open_then_probe(fleet: &Arc<Fleet>, t: &Arc<Mutex<f64>>, key: &str) -> Retrier {
    let c = retry_core::classify(&Failure::http(503, "unavailable"));
    for _ in 0..5 {
        fleet.record_failure(key, &c);
    }
    *t.lock().unwrap() += 6.0;
    let mut probe = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(fleet), key);
    assert!(probe.before_attempt(0.0).probe);
    probe
}

#[test]
fn a_probe_that_ends_without_news_frees_its_slot_at_once() {
    let t = Arc::new(Mutex::new(1000.0));
    let fleet = fleet_at(Arc::clone(&t));
    let others = || Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "k");

    // Answered by a 401: the provider spoke; the next caller probes now, not 30 s later.
    let mut probe = open_then_probe(&fleet, &t, "k");
    assert!(
        others().before_attempt(0.0).wait.is_some(),
        "one probe at a time"
    );
    probe.on_failure(&Failure::http(401, "bad key"), 0.1);
    assert!(others().before_attempt(0.0).probe);

    // Cancelled.
    let t2 = Arc::new(Mutex::new(1000.0));
    let fleet2 = fleet_at(Arc::clone(&t2));
    let mut probe = open_then_probe(&fleet2, &t2, "k");
    let mut cancelled = Failure::http(400, "x");
    cancelled.error_class = vec!["asyncio.CancelledError".into()];
    assert_eq!(probe.on_failure(&cancelled, 0.1).action, Action::Reraise);
    let mut next = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet2), "k");
    assert!(next.before_attempt(0.0).probe);

    // Dropped mid-call (a panic, a cancelled task).
    let t3 = Arc::new(Mutex::new(1000.0));
    let fleet3 = fleet_at(Arc::clone(&t3));
    let probe = open_then_probe(&fleet3, &t3, "k");
    drop(probe);
    let mut next = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet3), "k");
    assert!(next.before_attempt(0.0).probe);
}

#[test]
fn a_shared_pause_never_outlasts_the_policy_cap_for_a_healthy_call() {
    let t = Arc::new(Mutex::new(1000.0));
    let fleet = fleet_at(Arc::clone(&t));
    // A peer's 429 asked for 250 s (under a fleet cap of 300).
    let c = retry_core::classify(&Failure::http(429, "slow").with_header("retry-after", "250"));
    fleet.record_failure("k", &c);
    assert!(matches!(fleet.admit("k").0, Admit::Paused(u) if u - 1000.0 > 249.0));
    let mut call = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "k");
    let first = call.before_attempt(0.0).wait.unwrap();
    assert!(first <= 60.0 + 1e-9, "{first}");
    *t.lock().unwrap() += first;
    let gate = call.before_attempt(first);
    assert_eq!(
        gate.wait, None,
        "the policy's 60 s are spent: the call goes"
    );
}
