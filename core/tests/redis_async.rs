//! The async Redis fleet for tokio (issue 13): no fleet call ever holds a worker, even against a
//! black-holed Redis; two processes (two backends on one Redis) share pauses and open circuits
//! within the sync window; it interoperates with the blocking backend on one namespace; it
//! degrades and recovers when Redis dies and comes back; dropping the fleet stops its task.
//! Needs `redis-server` (scripts/setup.sh installs it); without it every test says so and passes.
#![cfg(feature = "redis-tokio")]

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use retry_core::__private::fleet::Admit;
use retry_core::driver::tokio::{AsyncRetry, AsyncSleeper};
use retry_core::fleet::redis_async::RedisAsyncOptions;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{ErrorCode, Event, Failure, RetryPolicy};

mod common;
use common::{proxy, rss_bytes, Mode, Redis};

const INTERVAL: Duration = Duration::from_millis(50);

/// A Redis server, or `None` (and a note) when `redis-server` is not installed.
fn redis() -> Option<Redis> {
    let present = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        eprintln!("skipped: redis-server is not installed (scripts/setup.sh installs it)");
        return None;
    }
    Some(Redis::start())
}

fn cfg(redis: &Redis, namespace: &str, timeout_s: f64) -> FleetConfig {
    FleetConfig {
        redis_url: Some(redis.url()),
        namespace: namespace.into(),
        redis_timeout_s: timeout_s,
        ..FleetConfig::default()
    }
}

fn async_fleet(redis: &Redis, namespace: &str, options: RedisAsyncOptions) -> Arc<Fleet> {
    Arc::new(Fleet::redis_async_with(cfg(redis, namespace, 0.25), options).unwrap())
}

fn options() -> RedisAsyncOptions {
    RedisAsyncOptions {
        sync_interval: INTERVAL,
        reconnect_after: Duration::from_millis(200),
    }
}

fn rate_limited(seconds: u32) -> retry_core::Classification {
    retry_core::classify(
        &Failure::http(429, "slow down").with_header("retry-after", seconds.to_string()),
    )
}

fn unavailable() -> retry_core::Classification {
    retry_core::classify(&Failure::http(503, "unavailable"))
}

/// Polls `f` every 2 ms until it holds; returns how long that took, or `None` after `limit`.
async fn within(limit: Duration, mut f: impl FnMut() -> bool) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if f() {
            return Some(start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    None
}

fn is_paused(fleet: &Fleet, key: &str) -> bool {
    matches!(fleet.admit(key).0, Admit::Paused(_))
}

fn is_open(fleet: &Fleet, key: &str) -> bool {
    matches!(fleet.admit(key).0, Admit::WaitUntil(_))
}

/// The number of clients connected to the server.
fn clients(redis: &Redis) -> usize {
    let mut c = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let list: String = redis::cmd("CLIENT").arg("LIST").query(&mut c).unwrap();
    // Minus this connection.
    list.lines().count() - 1
}

/// Waits (a few syncs) until the fleet has connected and synced.
async fn warm(fleet: &Fleet, key: &str) {
    let _ = fleet.admit(key);
    let ok = within(Duration::from_secs(5), || {
        fleet.admit(key).1.is_empty() && fleet.tokens(key).is_some()
    })
    .await;
    assert!(ok.is_some());
    tokio::time::sleep(3 * INTERVAL).await;
}

/// For the record, not asserted (timings of a shared machine): what the fleet work of one call
/// with a retry costs (gate, failure, budget, success).
fn cost(fleet: &Fleet, key: &str) -> String {
    let c = unavailable();
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    for _ in 0..1000 {
        let t = Instant::now();
        let _ = fleet.admit(key);
        let _ = fleet.record_failure(key, &c);
        let _ = fleet.try_retry(key, &c);
        let _ = fleet.record_success(key, true);
        slowest = slowest.max(t.elapsed());
    }
    format!(
        "4 fleet calls: mean {:?}, slowest {slowest:?}",
        start.elapsed() / 1000
    )
}

/// Sleeps a millisecond whatever the policy asked for: 100 calls in a fraction of a second.
struct Quick;

impl AsyncSleeper for Quick {
    fn sleep(
        &self,
        _: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(Duration::from_millis(1)))
    }
}

/// One worker thread, a ticker task every 10 ms, and 100 fleet-gated calls (each: a gate, a
/// success; one in four: a gate, a 503, the budget, a retry, a gate, a success) against a Redis that stopped answering. A fleet call that
/// blocked the worker for its Redis timeout (1 s here) would stop the ticker for that long.
#[tokio::test(flavor = "current_thread")]
async fn a_black_holed_redis_never_holds_the_worker() {
    let Some(redis) = redis() else { return };
    let fleet = Arc::new(Fleet::redis_async_with(cfg(&redis, "bh", 1.0), options()).unwrap());
    warm(&fleet, "k").await;
    // Classification builds its tables on first use (slowly in a debug build): not here.
    let _ = AsyncRetry::new(RetryPolicy::recommended())
        .sleeper(&Quick)
        .run(|n| async move {
            if n == 1 {
                Err(Failure::http(503, "unavailable"))
            } else {
                Ok(())
            }
        })
        .await;
    eprintln!("connected, {}", cost(&fleet, "cost"));
    redis.signal("-STOP");

    // The gaps are measured from now to the end: a worker held before the first tick counts.
    let ticks = Arc::new(Mutex::new(vec![Instant::now()]));
    let ticker = {
        let ticks = Arc::clone(&ticks);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                ticks.lock().unwrap().push(Instant::now());
            }
        })
    };
    let events = Mutex::new(Vec::<&'static str>::new());
    let sink = |e: &Event| events.lock().unwrap().push(e.kind.as_str());
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    // 100 calls at least, and on until the fleet noticed the black hole (a sync interval plus
    // the 1 s timeout).
    let degraded = || events.lock().unwrap().contains(&"fleet_backend_degraded");
    let mut i = 0u32;
    while i < 100 || (!degraded() && start.elapsed() < Duration::from_secs(10)) {
        i += 1;
        let t = Instant::now();
        // One call in four fails first (a failure rate that opens no circuit).
        let mut first = i % 4 == 0;
        let r = AsyncRetry::new(RetryPolicy::recommended())
            .sleeper(&Quick)
            .events(&sink)
            .fleet(Arc::clone(&fleet), "k")
            .run(|_| {
                let fail = std::mem::replace(&mut first, false);
                async move {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    if fail {
                        Err(Failure::http(503, "unavailable"))
                    } else {
                        Ok(i)
                    }
                }
            })
            .await;
        assert_eq!(r.unwrap(), i);
        slowest = slowest.max(t.elapsed());
    }
    let elapsed = start.elapsed();
    eprintln!("degraded, {}", cost(&fleet, "cost"));
    ticker.abort();
    let mut ticks = ticks.lock().unwrap().clone();
    ticks.push(Instant::now());
    let mut gaps: Vec<Duration> = ticks.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort();
    let longest = gaps.last().copied().unwrap_or_default();
    eprintln!(
        "{i} calls in {elapsed:?} (slowest {slowest:?}), {} ticks, longest gap {longest:?}",
        ticks.len()
    );
    // The ticker kept ticking: at least half of the ticks a free worker gives, and never stopped
    // for anything near the 1 s a blocking Redis call would have held it.
    let expected = elapsed.as_millis() as usize / 10;
    assert!(
        ticks.len() * 2 >= expected + 4,
        "{} ticks in {elapsed:?}",
        ticks.len()
    );
    assert!(
        longest < Duration::from_millis(500),
        "the worker was held {longest:?}"
    );
    // And the fleet noticed Redis was gone, and went on with local state.
    let events = events.lock().unwrap();
    assert_eq!(
        events
            .iter()
            .filter(|e| **e == "fleet_backend_degraded")
            .count(),
        1,
        "{events:?}"
    );
    redis.signal("-CONT");
}

/// Two processes (two backends) on one Redis: a pause and an open circuit reach the other
/// within the sync window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_fleets_share_a_pause_and_an_open_circuit() {
    let Some(redis) = redis() else { return };
    let a = async_fleet(&redis, "two", options());
    let b = async_fleet(&redis, "two", options());
    warm(&a, "p").await;
    warm(&b, "p").await;
    warm(&b, "c").await;

    a.record_failure("p", &rate_limited(30));
    assert!(is_paused(&a, "p"));
    let took = within(Duration::from_secs(2), || is_paused(&b, "p")).await;
    eprintln!("pause seen by the other fleet after {took:?}");
    assert!(took.is_some(), "the pause never reached the other fleet");

    for _ in 0..5 {
        a.record_failure("c", &unavailable());
    }
    assert!(is_open(&a, "c"));
    let took = within(Duration::from_secs(2), || is_open(&b, "c")).await;
    eprintln!("open circuit seen by the other fleet after {took:?}");
    assert!(
        took.is_some(),
        "the open circuit never reached the other fleet"
    );

    // Failures counted in both add up: 3 + 2 opens it at the next failure anywhere.
    warm(&a, "sum").await;
    warm(&b, "sum").await;
    for _ in 0..3 {
        a.record_failure("sum", &unavailable());
    }
    for _ in 0..2 {
        b.record_failure("sum", &unavailable());
    }
    tokio::time::sleep(6 * INTERVAL).await;
    assert!(!is_open(&a, "sum") && !is_open(&b, "sum"));
    a.record_failure("sum", &unavailable());
    assert!(
        is_open(&a, "sum"),
        "the fleet-wide count did not reach this fleet"
    );
    assert!(within(Duration::from_secs(2), || is_open(&b, "sum"))
        .await
        .is_some());

    // A key this process never used: its shared state arrives right after the first call.
    a.record_failure("p2", &rate_limited(30));
    tokio::time::sleep(3 * INTERVAL).await;
    let _ = b.admit("p2");
    assert!(within(Duration::from_secs(2), || is_paused(&b, "p2"))
        .await
        .is_some());
}

/// The window measured: 30 pauses and 30 openings on fresh keys both fleets already use. A
/// change is pushed at once; the other fleet pulls it at its next sync: expect a uniform wait
/// over one interval (median about half of it) plus a round trip or two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consistency_window_is_about_one_sync_interval() {
    let Some(redis) = redis() else { return };
    let a = async_fleet(&redis, "window", options());
    let b = async_fleet(&redis, "window", options());
    let keys: Vec<String> = (0..30).map(|i| format!("k{i}")).collect();
    for k in &keys {
        let _ = a.admit(k);
        let _ = b.admit(k);
    }
    warm(&a, "k0").await;
    warm(&b, "k0").await;
    let mut pauses = Vec::new();
    let mut opens = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        // At a different point of the other fleet's sync cycle each time.
        tokio::time::sleep(Duration::from_millis((i as u64 * 17) % 50)).await;
        a.record_failure(k, &rate_limited(30));
        pauses.push(
            within(Duration::from_secs(2), || is_paused(&b, k))
                .await
                .expect("pause"),
        );
        let k = format!("{k}-breaker");
        let _ = b.admit(&k);
        let _ = a.admit(&k);
        tokio::time::sleep(3 * INTERVAL).await;
        for _ in 0..5 {
            a.record_failure(&k, &unavailable());
        }
        opens.push(
            within(Duration::from_secs(2), || is_open(&b, &k))
                .await
                .expect("open"),
        );
    }
    pauses.sort();
    opens.sort();
    eprintln!(
        "sync interval {INTERVAL:?}: pause seen after median {:?}, max {:?}; open circuit after median {:?}, max {:?}",
        pauses[pauses.len() / 2],
        pauses[pauses.len() - 1],
        opens[opens.len() / 2],
        opens[opens.len() - 1],
    );
    // One interval plus two round trips, with room for a loaded machine.
    assert!(pauses[pauses.len() / 2] <= 2 * INTERVAL, "{pauses:?}");
    assert!(opens[opens.len() / 2] <= 2 * INTERVAL, "{opens:?}");
}

/// A blocking backend and an async one on one namespace: each sees the other's pause and open
/// circuit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interoperates_with_the_blocking_backend() {
    let Some(redis) = redis() else { return };
    let blocking = Arc::new(Fleet::from_config(cfg(&redis, "mixed", 0.25)).unwrap());
    assert_eq!(blocking.backend_name(), "redis");
    let a = async_fleet(&redis, "mixed", options());
    assert_eq!(a.backend_name(), "redis_async");
    for k in ["from-blocking", "from-async", "open-blocking", "open-async"] {
        let _ = a.admit(k);
    }
    warm(&a, "from-blocking").await;

    // Blocking -> async.
    blocking.record_failure("from-blocking", &rate_limited(30));
    assert!(
        within(Duration::from_secs(2), || is_paused(&a, "from-blocking"))
            .await
            .is_some()
    );
    for _ in 0..5 {
        blocking.record_failure("open-blocking", &unavailable());
    }
    assert!(
        within(Duration::from_secs(2), || is_open(&a, "open-blocking"))
            .await
            .is_some()
    );

    // Async -> blocking.
    a.record_failure("from-async", &rate_limited(30));
    assert!(within(Duration::from_secs(2), || is_paused(
        &blocking,
        "from-async"
    ))
    .await
    .is_some());
    for _ in 0..5 {
        a.record_failure("open-async", &unavailable());
    }
    assert!(
        within(Duration::from_secs(2), || is_open(&blocking, "open-async"))
            .await
            .is_some()
    );

    // The budget too: spends of either reach the other.
    let _ = a.tokens("spent");
    tokio::time::sleep(3 * INTERVAL).await;
    for _ in 0..4 {
        assert!(blocking.try_retry("spent", &unavailable()).0);
    }
    let want = 500.0 - 4.0 * 5.0;
    assert!(
        within(Duration::from_secs(2), || a.tokens("spent") == Some(want))
            .await
            .is_some()
    );
    for _ in 0..2 {
        assert!(a.try_retry("spent", &unavailable()).0);
    }
    let want = want - 2.0 * 5.0;
    assert!(
        within(Duration::from_secs(2), || blocking.tokens("spent")
            == Some(want))
        .await
        .is_some(),
        "{:?}",
        blocking.tokens("spent")
    );
}

/// Starts a server again on the port of one that was killed.
fn restart(redis: &mut Redis) {
    redis.child = Command::new("redis-server")
        .args([
            "--port",
            &redis.port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_and_restarted_degrades_then_recovers() {
    let Some(mut redis) = redis() else { return };
    let fleet = async_fleet(&redis, "restart", options());
    warm(&fleet, "k").await;
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |ev: Vec<Event>| {
        events
            .lock()
            .unwrap()
            .extend(ev.iter().map(|e| e.kind.to_string()))
    };
    let has = |kind: &str| events.lock().unwrap().iter().any(|e| e == kind);

    redis.kill();
    let degraded = within(Duration::from_secs(3), || {
        let (_, ev) = fleet.admit("k");
        record(ev);
        record(fleet.record_failure("k", &unavailable()));
        has("fleet_backend_degraded")
    })
    .await;
    assert!(degraded.is_some(), "{:?}", events.lock().unwrap());
    // While it is down, decisions are local and calls go on.
    assert!(fleet.try_retry("k", &unavailable()).0);

    restart(&mut redis);
    let recovered = within(Duration::from_secs(5), || {
        let (_, ev) = fleet.admit("k");
        record(ev);
        has("fleet_backend_recovered")
    })
    .await;
    assert!(recovered.is_some(), "{:?}", events.lock().unwrap());
    let ev = events.lock().unwrap().clone();
    assert_eq!(
        ev.iter().filter(|e| *e == "fleet_backend_degraded").count(),
        1,
        "{ev:?}"
    );
    assert_eq!(
        ev.iter()
            .filter(|e| *e == "fleet_backend_recovered")
            .count(),
        1,
        "{ev:?}"
    );

    // And the state is shared again.
    let other = async_fleet(&redis, "restart", options());
    warm(&other, "k2").await;
    let _ = fleet.admit("k2");
    other.record_failure("k2", &rate_limited(30));
    assert!(within(Duration::from_secs(2), || is_paused(&fleet, "k2"))
        .await
        .is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_fleet_stops_its_task() {
    let Some(redis) = redis() else { return };
    let before = clients(&redis);
    let fleet = async_fleet(&redis, "drop", options());
    warm(&fleet, "k").await;
    assert_eq!(clients(&redis), before + 1, "the task holds one connection");
    drop(fleet);
    let gone = within(Duration::from_secs(2), || clients(&redis) == before).await;
    assert!(gone.is_some(), "the task's connection outlived its fleet");
    // And it does not come back.
    tokio::time::sleep(5 * INTERVAL).await;
    assert_eq!(clients(&redis), before);
}

#[test]
fn outside_a_tokio_runtime_it_is_an_error_not_a_panic() {
    let cfg = FleetConfig {
        redis_url: Some("redis://127.0.0.1:1/0".into()),
        ..FleetConfig::default()
    };
    let err = Fleet::redis_async(cfg).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidState);
    let err = Fleet::redis_async(FleetConfig::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidPolicy, "no redis_url");
}

/// The runtime the task ran on is gone: calls go on with local state and say so.
#[test]
fn a_runtime_shut_down_under_the_fleet_leaves_local_state() {
    let Some(redis) = redis() else { return };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let fleet = rt.block_on(async {
        let fleet = async_fleet(&redis, "rt", options());
        warm(&fleet, "k").await;
        fleet
    });
    drop(rt);
    let (admit, ev) = fleet.admit("k");
    assert_eq!(admit, Admit::Go);
    assert!(
        ev.iter().any(|e| e.kind == "fleet_backend_degraded"),
        "{ev:?}"
    );
    assert!(fleet.try_retry("k", &unavailable()).0);
}

// --- issue 24: a slow link, garbage replies, many keys ------------------------------------------

fn proxied_fleet(redis: &Redis, namespace: &str) -> (Arc<Fleet>, Arc<Mutex<Mode>>) {
    let mode = Arc::new(Mutex::new(Mode::Pass));
    let port = proxy(redis.port, Arc::clone(&mode));
    let cfg = FleetConfig {
        redis_url: Some(format!("redis://127.0.0.1:{port}/0")),
        namespace: namespace.into(),
        redis_timeout_s: 0.25,
        ..FleetConfig::default()
    };
    (
        Arc::new(Fleet::redis_async_with(cfg, options()).unwrap()),
        mode,
    )
}

fn degraded(events: &[Event]) -> bool {
    events.iter().any(|e| e.kind == "fleet_backend_degraded")
}

/// A link that sends each reply byte 0.2 s apart degrades to local state like a silent one:
/// within one interval plus the timeout (no call ever waits on it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dripping_link_degrades_to_local_state_like_a_silent_one() {
    let Some(redis) = redis() else { return };
    let (fleet, mode) = proxied_fleet(&redis, "drip");
    warm(&fleet, "k").await;
    *mode.lock().unwrap() = Mode::Drip;
    let took = within(Duration::from_secs(3), || degraded(&fleet.admit("k").1)).await;
    eprintln!("a dripping link: the async fleet degraded after {took:?}");
    assert!(
        took.is_some_and(|t| t < INTERVAL + Duration::from_millis(250 + 500)),
        "{took:?}"
    );
}

/// A reply claiming 1 GiB (streamed as fast as the client reads) or 2^31 - 1 elements costs no
/// memory: the reply is refused at its header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_reply_headers_allocate_nothing() {
    let Some(redis) = redis() else { return };
    for (header, stream) in [
        (&b"$1073741824\r\n"[..], 1usize << 30),
        (&b"*2147483647\r\n"[..], 0),
    ] {
        let (fleet, mode) = proxied_fleet(&redis, "garbage");
        warm(&fleet, "k").await;
        let before = rss_bytes();
        *mode.lock().unwrap() = Mode::Garbage(header, stream);
        let mut peak = before;
        let took = within(Duration::from_secs(3), || {
            peak = peak.max(rss_bytes());
            degraded(&fleet.admit("k").1)
        })
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        peak = peak.max(rss_bytes());
        let grew = peak.saturating_sub(before);
        eprintln!(
            "garbage {:?}: degraded after {took:?}, RSS peak +{} KiB",
            String::from_utf8_lossy(&header[..header.len().min(12)]),
            grew / 1024
        );
        assert!(took.is_some());
        assert!(grew < 100 << 20, "RSS grew {} MiB", grew >> 20);
    }
}

/// With 100 K keys in the mirror, a 429's pause still reaches Redis within 100 ms: a sync
/// carries the keys that changed (and those in use), and pushes go before the pulls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_reaches_redis_promptly_with_100k_keys() {
    let Some(redis) = redis() else { return };
    let fleet = async_fleet(&redis, "many", options());
    warm(&fleet, "k").await;
    for i in 0..100_000 {
        let _ = fleet.admit(&format!("key-{i}"));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut c = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut worst = Duration::ZERO;
    for i in 0..5 {
        let key = format!("key-{}", i * 7919);
        fleet.record_failure(&key, &rate_limited(30));
        let t = Instant::now();
        loop {
            let v: Option<String> = redis::cmd("GET")
                .arg(format!("many:{key}:pause"))
                .query(&mut c)
                .unwrap();
            if v.is_some() {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "the pause never reached Redis"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        worst = worst.max(t.elapsed());
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    eprintln!("100K keys: a 429 pause reached Redis within {worst:?} (worst of 5)");
    // 100 ms is the target (a release build, an idle machine); the bound holds on a loaded one.
    assert!(worst < Duration::from_millis(500), "{worst:?}");
}

/// The mirror forgets keys idle past key_idle_ttl_s (pushed, not live first).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mirror_forgets_idle_keys() {
    let Some(redis) = redis() else { return };
    let cfg = FleetConfig {
        key_idle_ttl_s: 0.4,
        ..cfg(&redis, "forget", 0.25)
    };
    let fleet = Fleet::redis_async_with(cfg, options()).unwrap();
    warm(&fleet, "k").await;
    for i in 0..1000 {
        let _ = fleet.admit(&format!("key-{i}"));
    }
    fleet.record_failure("paused", &rate_limited(30));
    assert!(fleet.key_count() >= 1000);
    let ok = within(Duration::from_secs(5), || fleet.key_count() <= 3).await;
    eprintln!("1000 idle keys forgotten after {ok:?}");
    assert!(ok.is_some(), "{} keys held", fleet.key_count());
    assert!(is_paused(&fleet, "paused"), "a live pause was forgotten");
}
