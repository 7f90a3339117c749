//! The Redis fleet under attack (issue 14): a server that stops answering (SIGSTOP, before and
//! after the connection exists), values of the wrong type, NaN and infinity, a peer's clock an
//! hour ahead. Each case asserts the promise itself: a bounded time, local state as the fallback,
//! only the broken key affected. Needs `redis-server` (scripts/setup.sh installs it).
#![cfg(feature = "redis")]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use retry_core::__private::fleet::Admit;
use retry_core::__private::machine::Retrier;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{Action, Failure, RetryPolicy};

/// The Redis timeout every case configures; the promise is "within 2x of it".
const TIMEOUT_S: f64 = 0.25;

mod common;
use common::{proxy, rss_bytes, Mode, Redis};

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

    // A budget of -inf (`-1e309` overflows to it) is no number in [0, capacity]: healed to a full
    // bucket, as the scripts say, not to an empty one.
    cli(&redis, &["SET", "chaos:neginf:tokens", "-1e309"]);
    let (ok, _) = fleet.try_retry("neginf", &rate_limit);
    assert!(ok, "a -inf budget blocked a retry");
    assert_eq!(fleet.tokens("neginf"), Some(500.0 - 5.0));

    // An infinite pause is bad data for its key: the key falls back to local state (one event
    // naming it) instead of making every call wait.
    cli(&redis, &["SET", "chaos:inf:pause", "inf"]);
    let (admit, ev) = fleet.admit("inf");
    assert_eq!(admit, Admit::Go);
    assert!(
        ev.iter()
            .any(|e| e.kind == "fleet_backend_degraded" && e.fields.get("key").is_some()),
        "{ev:?}"
    );
}

/// A pause further ahead than `max_pause_s` (plus a minute of clock skew) cannot have been
/// written by a peer of this fleet (a peer's clock an hour ahead, anyone with access): bad data
/// for its key, not a wait for every call (it cost 60 s per call under the default policy).
#[test]
fn a_pause_an_hour_ahead_is_bad_data_not_a_wait() {
    let redis = Redis::start();
    let fleet = fleet(&redis);
    let ahead = fleet.now() + 3600.0;
    cli(&redis, &["SET", "chaos:ahead:pause", &ahead.to_string()]);
    let (admit, ev) = fleet.admit("ahead");
    assert_eq!(admit, Admit::Go);
    assert!(
        names(&ev).iter().any(|e| e == "fleet_backend_degraded"),
        "{ev:?}"
    );
    let mut call = Retrier::new(RetryPolicy::recommended()).with_fleet(Arc::clone(&fleet), "ahead");
    let gate = call.before_attempt(0.0);
    assert_eq!(gate.wait, None, "no wait for a pause nobody could have set");
    assert!(!gate.reject);
    let d = call.on_failure(&Failure::http(401, "bad key"), 0.0);
    assert!(matches!(d.action, Action::GiveUp { .. }), "{:?}", d.action);
    // A pause within max_pause_s is still honoured.
    let soon = fleet.now() + 100.0;
    cli(&redis, &["SET", "chaos:soon:pause", &soon.to_string()]);
    assert!(matches!(fleet.admit("soon").0, Admit::Paused(_)));
}

// --- issue 24: a slow link, garbage replies, a refusing server ---------------------------------

fn fleet_at(url: String) -> Arc<Fleet> {
    let cfg = FleetConfig {
        redis_url: Some(url),
        namespace: "chaos".into(),
        redis_timeout_s: TIMEOUT_S,
        ..FleetConfig::default()
    };
    Arc::new(Fleet::from_config(cfg).unwrap())
}

/// A Redis whose every reply drips a byte each 0.2 s (under the 0.25 s timeout each read has)
/// held a call for 70 s: the deadline now covers the whole command, every read of it.
#[test]
fn a_dripping_redis_costs_a_call_at_most_twice_the_timeout() {
    let redis = Redis::start();
    let mode = Arc::new(Mutex::new(Mode::Pass));
    let port = proxy(redis.port, Arc::clone(&mode));
    let fleet = fleet_at(format!("redis://127.0.0.1:{port}/0"));
    let bound = Duration::from_secs_f64(2.0 * TIMEOUT_S + 0.5);
    // Healthy and connected first (the pool holds connections), then the link slows down.
    let (_, ev) = one_call(&fleet, "drip");
    assert!(!ev.iter().any(|e| e == "fleet_backend_degraded"), "{ev:?}");
    *mode.lock().unwrap() = Mode::Drip;
    let (took, ev) = one_call(&fleet, "drip");
    println!("a dripping redis: one call took {took:?}");
    assert!(
        took < bound,
        "a call took {took:?} against a dripping Redis"
    );
    assert!(ev.iter().any(|e| e == "fleet_backend_degraded"), "{ev:?}");
    let (took, _) = one_call(&fleet, "drip2");
    assert!(took < bound, "{took:?}");
}

/// An array header claiming 2^31 - 1 elements or a bulk string claiming 1 GiB made the client
/// allocate what it was told (9 GiB, or an abort). Each command accepts a bounded reply: larger
/// is bad data for the key, and the process stays under 100 MB above its baseline.
#[test]
fn garbage_reply_headers_allocate_nothing() {
    for (header, stream) in [
        (&b"*2147483647\r\n"[..], 0usize),
        (&b"$1073741824\r\n"[..], 1usize << 30),
        (
            &b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"[..],
            0,
        ),
    ] {
        let redis = Redis::start();
        let mode = Arc::new(Mutex::new(Mode::Pass));
        let port = proxy(redis.port, Arc::clone(&mode));
        let fleet = fleet_at(format!("redis://127.0.0.1:{port}/0"));
        let (_, ev) = one_call(&fleet, "garbage");
        assert!(!ev.iter().any(|e| e == "fleet_backend_degraded"), "{ev:?}");
        *mode.lock().unwrap() = Mode::Garbage(header, stream);
        let before = rss_bytes();
        // The peak, sampled while the call runs.
        let done = Arc::new(Mutex::new(false));
        let sampler = {
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut peak = 0;
                while !*done.lock().unwrap() {
                    peak = peak.max(rss_bytes());
                    std::thread::sleep(Duration::from_millis(2));
                }
                peak.max(rss_bytes())
            })
        };
        let t = Instant::now();
        let (admit, ev) = fleet.admit("garbage");
        let took = t.elapsed();
        *done.lock().unwrap() = true;
        let grew = sampler.join().unwrap().saturating_sub(before);
        println!(
            "garbage reply {:?}: {took:?}, RSS +{} KiB",
            String::from_utf8_lossy(&header[..header.len().min(12)]),
            grew / 1024
        );
        assert_eq!(admit, Admit::Go);
        assert!(
            names(&ev).iter().any(|e| e == "fleet_backend_degraded"),
            "{ev:?}"
        );
        assert!(grew < 100 << 20, "RSS grew by {} MiB", grew >> 20);
        assert!(
            took < Duration::from_secs_f64(2.0 * TIMEOUT_S + 0.5),
            "{took:?}"
        );
    }
}

fn degraded_over_60_calls(fleet: &Fleet) -> usize {
    let mut n = 0;
    for i in 0..60 {
        let (_, ev) = one_call(fleet, &format!("k{}", i % 3));
        n += ev.iter().filter(|e| *e == "fleet_backend_degraded").count();
    }
    n
}

/// A full Redis (OOM) or an ACL refusal is the server as a whole refusing, not one key's bad
/// data: one `fleet_backend_degraded` per state change, not one per call (200 for 60 calls).
#[test]
fn a_full_or_refusing_redis_warns_once_not_per_call() {
    let redis = Redis::start();
    cli(&redis, &["CONFIG", "SET", "maxmemory", "1"]);
    let fleet = fleet(&redis);
    let n = degraded_over_60_calls(&fleet);
    assert_eq!(n, 1, "a full Redis: {n} warnings for 60 calls");
    cli(&redis, &["CONFIG", "SET", "maxmemory", "0"]);

    cli(
        &redis,
        &[
            "ACL", "SETUSER", "fleet", "on", ">pw", "~*", "+get", "+select", "+auth", "+ping",
        ],
    );
    let fleet = fleet_at(format!("redis://fleet:pw@127.0.0.1:{}/0", redis.port));
    let n = degraded_over_60_calls(&fleet);
    assert_eq!(n, 1, "an ACL refusal: {n} warnings for 60 calls");
}
