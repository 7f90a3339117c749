//! The blocking and tokio drivers are twins over one Run: same policy, same seed, same
//! failures -> the same waits and events. Time is virtual: nothing sleeps for real.

use std::cell::RefCell;
use std::sync::Mutex;
use std::time::Duration;

use retry_core::driver::blocking::{Recovery, Retry};
use retry_core::driver::tokio::AsyncRetry;
use retry_core::{Action, Event, Failure, GiveUpReason, RetryPolicy};

mod common;
use common::VirtualTime;

fn script() -> Vec<Failure> {
    vec![
        Failure::http(503, "Service Unavailable"),
        Failure::http(429, "slow down").with_header("retry-after", "3"),
        Failure::new("Connection reset by peer").with_class(["ConnectionResetError", "OSError"]),
    ]
}

#[test]
fn blocking_and_async_decide_identically() {
    let vt = VirtualTime::default();
    let events_b = RefCell::new(Vec::new());
    let sink_b = |e: &Event| events_b.borrow_mut().push(e.to_json());
    let fails = script();
    let out = Retry::new(RetryPolicy::recommended())
        .seed(5)
        .sleeper(&vt)
        .clock(&vt)
        .events(&sink_b)
        .run(|n| {
            if (n as usize) <= fails.len() {
                Err(fails[n as usize - 1].clone())
            } else {
                Ok(n)
            }
        });
    assert_eq!(out.unwrap(), 4);
    let blocking_waits = vt.slept.lock().unwrap().clone();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let events_a = Mutex::new(Vec::new());
    let sink_a = |e: &Event| events_a.lock().unwrap().push(e.to_json());
    let started = rt.block_on(async { tokio::time::Instant::now() });
    let out = rt.block_on(async {
        AsyncRetry::new(RetryPolicy::recommended())
            .seed(5)
            .events(&sink_a)
            .run(|n| {
                let f = script();
                async move {
                    if (n as usize) <= f.len() {
                        Err(f[n as usize - 1].clone())
                    } else {
                        Ok(n)
                    }
                }
            })
            .await
    });
    assert_eq!(out.unwrap(), 4);
    let virtual_elapsed = rt.block_on(async { started.elapsed().as_secs_f64() });

    assert_eq!(*events_b.borrow(), *events_a.lock().unwrap());
    assert_eq!(blocking_waits.len(), 3);
    assert_eq!(blocking_waits[1], 3.0, "retry-after replaces the backoff");
    // Equal jitter: between half and all of min(1.25^n, 30).
    assert!(
        (0.5..1.0).contains(&blocking_waits[0]),
        "{blocking_waits:?}"
    );
    assert!(
        (1.5625 / 2.0..1.5625).contains(&blocking_waits[2]),
        "{blocking_waits:?}"
    );
    let total: f64 = blocking_waits.iter().sum();
    assert!(
        // tokio's timer wheel rounds each sleep up to the next millisecond.
        (virtual_elapsed - total).abs() <= 1e-3 * blocking_waits.len() as f64,
        "tokio slept {virtual_elapsed} virtual seconds, blocking {total}"
    );
}

/// Issue 13: without a policy, a 429 that asks for 1 s waits 1 s (not SwarmSDK's 15 s).
#[test]
fn no_policy_means_the_default_preset_and_honours_retry_after() {
    let vt = VirtualTime::default();
    let limited = Failure::http(429, "slow down").with_header("retry-after", "1");
    let out = Retry::default().sleeper(&vt).clock(&vt).run(|n| {
        if n == 1 {
            Err(limited.clone())
        } else {
            Ok(n)
        }
    });
    assert_eq!(out.unwrap(), 2);
    assert_eq!(*vt.slept.lock().unwrap(), vec![1.0]);
}

#[test]
fn permanent_failure_costs_one_call_and_no_wait() {
    let vt = VirtualTime::default();
    let mut calls = 0;
    let err = Retry::new(RetryPolicy::recommended())
        .sleeper(&vt)
        .clock(&vt)
        .run(|_| -> Result<(), Failure> {
            calls += 1;
            Err(Failure::http(401, "invalid x-api-key"))
        })
        .unwrap_err();
    assert_eq!(calls, 1);
    assert!(vt.slept.lock().unwrap().is_empty());
    assert_eq!(
        err.decision.action,
        Action::GiveUp {
            reason: GiveUpReason::Permanent
        }
    );
}

#[test]
fn deadline_stops_before_a_wait_that_would_overrun() {
    let vt = VirtualTime::default();
    let policy = RetryPolicy {
        max_attempts: 100,
        deadline: Some(10.0),
        ..RetryPolicy::forgeflare()
    };
    let mut calls = 0;
    let err = Retry::new(policy)
        .sleeper(&vt)
        .clock(&vt)
        .run(|_| -> Result<(), Failure> {
            calls += 1;
            Err(Failure::http(503, "busy"))
        })
        .unwrap_err();
    // 2 + 4 = 6 s waited; the next wait (8 s) would end at 14 s > 10 s.
    assert_eq!(*vt.slept.lock().unwrap(), vec![2.0, 4.0]);
    assert_eq!(calls, 3);
    assert_eq!(
        err.decision.action,
        Action::GiveUp {
            reason: GiveUpReason::Deadline
        }
    );
    let total: f64 = vt.slept.lock().unwrap().iter().sum();
    assert!(total <= 10.0);
}

struct Pruner {
    calls: u32,
}

impl Recovery for Pruner {
    fn prune_orphans(&mut self) -> usize {
        self.calls += 1;
        2
    }
}

#[test]
fn orphan_recovery_is_free_and_happens_once() {
    let vt = VirtualTime::default();
    let mut pruner = Pruner { calls: 0 };
    let orphan = Failure::http(400, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1");
    let mut calls = 0;
    let res = Retry::new(RetryPolicy::swarm_sdk(3, 15.0))
        .sleeper(&vt)
        .clock(&vt)
        .run_with(&mut pruner, |n| {
            calls += 1;
            if calls == 1 {
                Err(orphan.clone())
            } else {
                Ok(n)
            }
        });
    assert_eq!(
        res.unwrap(),
        1,
        "the pruned call did not count as an attempt"
    );
    assert_eq!(pruner.calls, 1);
    assert!(
        vt.slept.lock().unwrap().is_empty(),
        "recovery retries at once"
    );
}

#[test]
fn cancellation_is_returned_untouched() {
    let vt = VirtualTime::default();
    let err = Retry::new(RetryPolicy::swarm_sdk_legacy())
        .sleeper(&vt)
        .clock(&vt)
        .run(|_| -> Result<(), Failure> { Err(Failure::new("").with_class(["KeyboardInterrupt"])) })
        .unwrap_err();
    assert_eq!(err.decision.action, Action::Reraise);
    assert!(err.decision.events.is_empty());
}

#[tokio::test(start_paused = true)]
async fn dropping_the_async_loop_cancels_it_mid_wait() {
    let fut = AsyncRetry::new(RetryPolicy::swarm_sdk(3, 15.0))
        .run(|_| async { Err::<(), _>(Failure::http(500, "boom")) });
    let res = tokio::time::timeout(Duration::from_secs(5), fut).await;
    assert!(
        res.is_err(),
        "still waiting its 15 s when the 5 s timeout cancels it"
    );
}

/// The async loop may run on any worker: `tokio::spawn` needs its future to be `Send`.
#[tokio::test(start_paused = true)]
async fn the_async_loop_runs_in_a_spawned_task() {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let c = calls.clone();
    let task = tokio::spawn(async move {
        AsyncRetry::new(RetryPolicy::swarm_sdk(3, 1.0))
            .run(move |attempt| {
                c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async move {
                    if attempt < 3 {
                        Err(Failure::http(503, "busy"))
                    } else {
                        Ok(attempt)
                    }
                }
            })
            .await
    });
    assert_eq!(task.await.unwrap().unwrap(), 3);
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3);
}
