//! The testing switch (core `testing`): virtual time the fleets and the drivers share, a fixed
//! seed, the record; a sleep that does not sleep beside a fleet stops with a message naming the
//! switch; a gate wait asked again logs at DEBUG. The switch is process-wide: every test here
//! holds `SERIAL` (and this file is its own test binary, so no other test's clock moves).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use retry_core::__private::messages::{log_line, LogLevel};
use retry_core::driver::blocking::{Retry, Sleeper};
use retry_core::driver::ManualClock;
use retry_core::fleet::{BreakerConfig, Fleet, FleetConfig};
use retry_core::testing::{self, VirtualTime};
use retry_core::{EventKind, Failure, RetryPolicy, Run, Step, WaitReason};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// 429 (retry-after 20 s), then 503, then success.
fn script() -> impl FnMut(u32) -> Result<&'static str, Failure> {
    let mut answers = vec![
        Err(Failure::http(429, "slow down").with_header("retry-after", "20")),
        Err(Failure::http(503, "busy")),
        Ok("hello"),
    ]
    .into_iter();
    move |_| answers.next().expect("three calls at most")
}

fn waits(events: &[retry_core::Event]) -> Vec<(f64, String)> {
    events
        .iter()
        .filter(|e| e.kind == EventKind::WaitStarted)
        .map(|e| {
            (
                e.get("seconds").and_then(|v| v.as_f64()).unwrap(),
                e.get("reason").and_then(|v| v.as_str()).unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_429_503_success_run_with_a_fleet_spends_virtual_time_only() {
    let _s = serial();
    let real = Instant::now();
    let time = VirtualTime::start(7);
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
    let out = Retry::new(RetryPolicy::recommended())
        .fleet(Arc::clone(&fleet), "openai:gpt-4o")
        .run(script());
    assert_eq!(out.unwrap(), "hello");
    let events = time.events();
    let w = waits(&events);
    assert_eq!(w[0], (20.0, "retry_after".to_owned()), "{w:?}");
    assert_eq!(w.len(), 2, "the 429's wait, then the 503's backoff: {w:?}");
    assert_eq!(w[1].1, "backoff");
    // The fleet read the virtual clock: its pause had ended when the retry asked the gate.
    assert!(!w.iter().any(|(_, r)| r == "fleet_pause"), "{w:?}");
    let expected = w.iter().map(|(s, _)| s).sum::<f64>();
    assert!(
        (time.elapsed() - expected).abs() < 1e-6,
        "{} vs {expected}",
        time.elapsed()
    );
    // 20 virtual seconds went by; had anything slept for real this would be 20 s or more.
    assert!(real.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
// The guard only keeps the other tests of this file off the switch; this runtime has one task.
#[allow(clippy::await_holding_lock)]
async fn the_tokio_driver_waits_on_the_same_virtual_clock() {
    let _s = serial();
    let time = VirtualTime::start(7);
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
    let mut answers = script();
    let out = retry_core::driver::tokio::AsyncRetry::new(RetryPolicy::recommended())
        .fleet(Arc::clone(&fleet), "openai:gpt-4o")
        .run(|n| std::future::ready(answers(n)))
        .await;
    assert_eq!(out.unwrap(), "hello");
    assert!(time.elapsed() >= 20.0, "{}", time.elapsed());
    assert_eq!(waits(&time.events()).len(), 2);
}

#[test]
fn the_fleet_shares_the_virtual_clock_with_every_caller() {
    let _s = serial();
    let time = VirtualTime::start(1);
    let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
    let key = vec!["openai:gpt-4o".to_owned()];
    let mut first = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    assert_eq!(first.start(0.0), Step::Call { model: 0 });
    let slow = Failure::http(429, "slow down").with_header("retry-after", "20");
    assert!(matches!(first.failed(&slow, 0.0), Step::Wait { .. }));
    // A second caller finds the shared pause, measured on the virtual clock.
    let mut other = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key);
    match other.start(0.0) {
        Step::Wait {
            seconds,
            reason: WaitReason::FleetPause,
        } => assert!((seconds - 20.0).abs() < 1e-6, "{seconds}"),
        s => panic!("{s:?}"),
    }
    time.advance(20.0);
    assert_eq!(other.resume(20.0), Step::Call { model: 0 });
}

#[test]
fn the_seed_makes_the_jitter_the_same_on_every_run() {
    let _s = serial();
    let backoffs = |seed: u64| {
        let time = VirtualTime::start(seed);
        let mut answers = vec![
            Err(Failure::http(503, "busy")),
            Err(Failure::http(503, "busy")),
            Err(Failure::http(503, "busy")),
            Ok(()),
        ]
        .into_iter();
        Retry::new(RetryPolicy::recommended())
            .run(|_| answers.next().unwrap())
            .unwrap();
        waits(&time.events())
    };
    let a = backoffs(11);
    assert_eq!(a.len(), 3);
    assert_eq!(a, backoffs(11));
    assert_ne!(a, backoffs(12), "another seed, other jitter");
}

#[test]
fn off_again_the_clock_and_the_sleeps_are_real() {
    let _s = serial();
    {
        let _time = VirtualTime::start(0);
        assert!(testing::is_on());
        let _nested = VirtualTime::start(0);
        drop(_nested);
        assert!(testing::is_on(), "switches nest");
    }
    assert!(!testing::is_on());
    assert_eq!(testing::now(), None);
    assert!(!testing::sleep(1.0), "off: the caller sleeps for real");
}

/// A sleeper that does not sleep: `time.sleep` patched to a no-op, in Rust.
struct NoSleep;
impl Sleeper for NoSleep {
    fn sleep(&self, _: Duration) {}
}

#[test]
fn a_sleep_that_does_not_sleep_beside_a_fleet_stops_the_run_in_a_few_steps() {
    let _s = serial();
    assert!(!testing::is_on());
    let fleet = Arc::new(Fleet::in_process(opens_at_once()));
    let mut run = Run::new(RetryPolicy::recommended())
        .fleet(Arc::clone(&fleet), vec!["openai:gpt-4o".to_owned()]);
    assert_eq!(run.start(0.0), Step::Call { model: 0 });
    let mut step = run.failed(&Failure::http(503, "busy"), 0.0);
    let mut steps = 0;
    // Each wait "ends" at once: the real clock the fleet reads has not moved.
    while let Step::Wait { .. } = step {
        steps += 1;
        assert!(steps < 10, "the run spins");
        step = run.resume(0.0);
    }
    assert_eq!(
        step,
        Step::Stalled {
            reason: WaitReason::CircuitOpen
        }
    );
    assert!(step.is_final());
    // The backoff, then three gate waits that found the clock where it was.
    assert_eq!(steps, 1 + testing::STALLED_WAITS as usize);
    assert!(
        run.decision().is_some(),
        "the last failure stays for the error's cause"
    );
}

#[test]
fn the_blocking_driver_says_which_switch_to_use() {
    let _s = serial();
    let fleet = Arc::new(Fleet::in_process(opens_at_once()));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Retry::new(RetryPolicy::recommended())
            .sleeper(&NoSleep)
            .fleet(Arc::clone(&fleet), "openai:gpt-4o")
            .run(script())
            .is_ok()
    }));
    let payload = out.expect_err("a spinning run must stop");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("VirtualTime::start"), "{message}");
    assert!(message.contains("Sleeper that does not sleep"), "{message}");
}

/// A fleet whose circuit opens on one failure.
fn opens_at_once() -> FleetConfig {
    FleetConfig {
        breaker: Some(BreakerConfig {
            consecutive_failures: 1,
            ..BreakerConfig::default()
        }),
        ..FleetConfig::default()
    }
}

/// [`opens_at_once`] on a clock the test moves.
fn breaker_fleet() -> (Arc<Fleet>, ManualClock) {
    let clock = ManualClock::new(1000.0);
    let fleet = Fleet::in_process(opens_at_once()).with_clock(clock.wall_clock());
    (Arc::new(fleet), clock)
}

#[test]
fn a_gate_wait_asked_again_logs_at_debug_and_real_waits_never_stall() {
    let _s = serial();
    let (fleet, clock) = breaker_fleet();
    let key = vec!["k".to_owned()];
    let run = || Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
    // One failure opens the circuit.
    let mut a = run();
    assert_eq!(a.start(0.0), Step::Call { model: 0 });
    a.failed(&Failure::http(503, "busy"), 0.0);
    // The circuit's open period passes; B becomes the half-open probe and stays out.
    clock.set(1100.0);
    let mut b = run();
    assert_eq!(b.start(0.0), Step::Call { model: 0 });
    // C finds the probe out and looks again and again while the clock moves by each wait.
    let mut c = run();
    let mut step = c.start(0.0);
    let mut levels = Vec::new();
    for _ in 0..20 {
        let Step::Wait { seconds, reason } = step else {
            panic!("{step:?}")
        };
        assert_eq!(reason, WaitReason::CircuitOpen);
        for e in c.take_events() {
            if e.kind == EventKind::WaitStarted {
                levels.push(log_line(&e).map(|(l, _)| l));
            }
        }
        clock.set(clock_now(&clock) + seconds);
        step = c.resume(0.0);
    }
    assert!(matches!(step, Step::Wait { .. }), "never stalled: {step:?}");
    assert_eq!(levels.len(), 20);
    assert_eq!(levels[0], Some(LogLevel::Warning), "the wait's one line");
    assert!(
        levels[1..].iter().all(|l| *l == Some(LogLevel::Debug)),
        "{levels:?}"
    );
    // The probe's outcome ends the wait; a later wait of C is a new one, with its own line.
    b.succeeded(0.0);
    assert_eq!(c.resume(0.0), Step::Call { model: 0 });
}

fn clock_now(c: &ManualClock) -> f64 {
    use retry_core::driver::Clock;
    c.now()
}

#[test]
#[ignore = "a measurement, not a check: prints the real time of the switch's 429 -> 503 -> success run"]
fn measure_the_real_time_of_a_virtual_run() {
    let _s = serial();
    let mut best = Duration::MAX;
    let mut virtual_s = 0.0;
    for _ in 0..20 {
        let real = Instant::now();
        let time = VirtualTime::start(0);
        let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
        let out = Retry::new(RetryPolicy::recommended())
            .fleet(fleet, "openai:gpt-4o")
            .run(script());
        assert_eq!(out.unwrap(), "hello");
        virtual_s = time.elapsed();
        best = best.min(real.elapsed());
    }
    println!(
        "429 -> 503 -> success with a Fleet under VirtualTime: {:.3} ms real (best of 20), {virtual_s:.2} s virtual",
        best.as_secs_f64() * 1000.0
    );
}
