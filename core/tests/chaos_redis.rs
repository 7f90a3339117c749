//! The Redis fleet under attack (issue 14): a server that stops answering (SIGSTOP, before and
//! after the connection exists), values of the wrong type, NaN and infinity, a peer's clock an
//! hour ahead. Each case asserts the promise itself: a bounded time, local state as the fallback,
//! only the broken key affected. Needs `redis-server` (scripts/setup.sh installs it).
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_core::__private::fleet::Admit;
use retry_core::__private::machine::Retrier;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{Action, Failure, RetryPolicy};

/// The Redis timeout every case configures; the promise is "within 2x of it".
const TIMEOUT_S: f64 = 0.25;

mod common;
use common::Redis;

/// Runs one command on the test's server (to plant values of the wrong type or shape).
fn cli(redis: &Redis, args: &[&str]) {
    let mut c = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    let _: redis::Value = cmd.query(&mut c).unwrap();
}

fn fleet(redis: &Redis) -> Arc<Fleet> {
    let cfg = FleetConfig {
        redis_url: Some(redis.url()),
        namespace: "chaos".into(),
        redis_timeout_s: TIMEOUT_S,
        ..FleetConfig::default()
    };
    Arc::new(Fleet::from_config(cfg).unwrap())
}

fn names(events: &[retry_core::Event]) -> Vec<String> {
    events.iter().map(|e| e.kind.to_string()).collect()
}

/// Time one gate check plus one failure record, the fleet work a call does (classification
/// outside the clock: its tables are built on first use, slowly in a debug build).
fn one_call(fleet: &Fleet, key: &str) -> (Duration, Vec<String>) {
    let c = retry_core::classify(&Failure::http(503, "unavailable"));
    let t = Instant::now();
    let (_, mut ev) = fleet.admit(key);
    ev.extend(fleet.record_failure(key, &c));
    (t.elapsed(), names(&ev))
}

#[test]
fn a_black_holed_redis_costs_a_call_at_most_twice_the_timeout_and_holds_no_other_key() {
    let redis = Redis::start();
    let fleet = fleet(&redis);
    // Warm: a pooled connection exists, then the server stops answering.
    let (_, ev) = one_call(&fleet, "warm");
    assert!(!ev.iter().any(|e| e == "fleet_backend_degraded"), "{ev:?}");
    redis.signal("-STOP");

    let bound = Duration::from_secs_f64(2.0 * TIMEOUT_S + 0.1);
    let other = {
        let fleet = Arc::clone(&fleet);
        std::thread::spawn(move || one_call(&fleet, "other-key"))
    };
    let (took, mut ev) = one_call(&fleet, "warm");
    let (other_took, other_ev) = other.join().unwrap();
    assert!(took < bound, "a call took {took:?} against a black hole");
    assert!(
        other_took < bound,
        "a call on another key took {other_took:?}"
    );
    // The fleet says it once, in whichever call noticed first.
    ev.extend(other_ev);
    assert_eq!(
        ev.iter().filter(|e| *e == "fleet_backend_degraded").count(),
        1,
        "{ev:?}"
    );

    // While it is presumed down, calls do not touch it at all.
    let (took, _) = one_call(&fleet, "third");
    assert!(took < Duration::from_millis(50), "{took:?}");

    // It answers again: after the back-off, the fleet goes back to it.
    redis.signal("-CONT");
    std::thread::sleep(Duration::from_millis(2100));
    let (_, ev) = one_call(&fleet, "warm");
    assert!(ev.iter().any(|e| e == "fleet_backend_recovered"), "{ev:?}");
}

#[test]
fn a_handshake_that_never_answers_is_bounded_too() {
    let redis = Redis::start();
    redis.signal("-STOP");
    let fleet = fleet(&redis);
    let (took, ev) = one_call(&fleet, "k");
    assert!(
        took < Duration::from_secs_f64(2.0 * TIMEOUT_S + 0.1),
        "{took:?}"
    );
    assert!(ev.iter().any(|e| e == "fleet_backend_degraded"), "{ev:?}");
}

#[test]
fn a_wrongly_typed_key_degrades_that_key_only() {
    let redis = Redis::start();
    let fleet = fleet(&redis);
    cli(&redis, &["LPUSH", "chaos:bad:pause", "x"]);
    cli(&redis, &["SET", "chaos:bad2:breaker", "{not json"]);
    for bad in ["bad", "bad2"] {
        let (admit, ev) = fleet.admit(bad);
        assert_eq!(admit, Admit::Go, "{bad}");
        let ev = names(&ev);
        assert!(
            ev.iter().any(|e| e == "fleet_backend_degraded"),
            "{bad}: {ev:?}"
        );
    }
    // Other keys still use Redis, and nothing says it recovered: it never went down.
    let (_, ev) = one_call(&fleet, "good");
    assert!(
        ev.is_empty() || !ev.iter().any(|e| e.starts_with("fleet_backend")),
        "{ev:?}"
    );
}

#[test]
fn nan_and_infinite_values_are_healed_or_bounded() {
    let redis = Redis::start();
    let fleet = fleet(&redis);
    let rate_limit = retry_core::classify(&Failure::http(429, "slow down"));

    // A NaN budget does not block every retry of its key.
    cli(&redis, &["SET", "chaos:nan:tokens", "nan"]);
    let (ok, _) = fleet.try_retry("nan", &rate_limit);
    assert!(ok, "a NaN budget blocked a retry");

    // An infinite pause lasts at most max_pause_s.
    cli(&redis, &["SET", "chaos:inf:pause", "inf"]);
    match fleet.admit("inf").0 {
        Admit::Paused(until) => {
            let wait = until - fleet.now();
            assert!(wait.is_finite() && wait <= 300.0 + 1e-6, "{wait}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_peer_clock_an_hour_ahead_is_capped_by_fleet_and_policy() {
    let redis = Redis::start();
    let fleet = fleet(&redis);
    let ahead = fleet.now() + 3600.0;
    cli(&redis, &["SET", "chaos:ahead:pause", &ahead.to_string()]);
    match fleet.admit("ahead").0 {
        Admit::Paused(until) => assert!(until - fleet.now() <= 300.0 + 1e-6),
        other => panic!("{other:?}"),
    }
    // Under the default policy (retry-after cap 60 s) a first call waits at most 60 s in all,
    // then goes.
    let mut call = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "ahead");
    let gate = call.before_attempt(0.0);
    let wait = gate.wait.expect("paused");
    assert!(wait <= 60.0 + 1e-6, "{wait}");
    let gate = call.before_attempt(wait);
    assert_eq!(gate.wait, None, "the cap is spent: the call goes");
    assert!(!gate.reject);
    // And a failure still decides as usual afterwards.
    let d = call.on_failure(&Failure::http(401, "bad key"), wait);
    assert!(matches!(d.action, Action::GiveUp { .. }), "{:?}", d.action);
}
