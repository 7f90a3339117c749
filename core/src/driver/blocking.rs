//! The blocking driver. Waits go through an injectable [`Sleeper`].

use std::time::Duration;

use super::{after_failure, gate, stopped_at_gate, Clock, Next, RetryError, SystemClock};
use crate::events::{EventSink, NoEvents};
use crate::failure::AsFailure;
use crate::failure::Failure;
use crate::fleet::Fleet;
use crate::machine::{Action, Decision, Retrier};
use crate::policy::RetryPolicy;
use std::sync::Arc;

/// How the blocking driver waits.
pub trait Sleeper {
    /// Blocks the current thread for `d`.
    fn sleep(&self, d: Duration);
}

/// `std::thread::sleep`.
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
}

/// Hooks the driver calls for the free recoveries. Both default to "nothing recovered".
pub trait Recovery {
    /// Prune orphan tool calls from the history the next call will send; return how many.
    fn prune_orphans(&mut self) -> usize {
        0
    }
    /// Whether this recovery can compact the history at all.
    fn can_compact(&self) -> bool {
        false
    }
    /// Compact the history after a context overflow; return whether it changed.
    fn compact_context(&mut self) -> bool {
        false
    }
}

/// No recovery.
pub struct NoRecovery;
impl Recovery for NoRecovery {}

/// A blocking retry loop: `Retry::new(policy).run(|attempt| call())`.
pub struct Retry<'a> {
    policy: RetryPolicy,
    seed: Option<u64>,
    sleeper: &'a dyn Sleeper,
    clock: Option<&'a dyn Clock>,
    sink: &'a dyn EventSink,
    fleet: Option<(Arc<Fleet>, String)>,
}

static THREAD_SLEEPER: ThreadSleeper = ThreadSleeper;
static NO_EVENTS: NoEvents = NoEvents;

impl<'a> Retry<'a> {
    /// A loop under `policy`. It sleeps with [`ThreadSleeper`], measures elapsed time with the
    /// system's monotonic clock, emits no events, shares nothing with a fleet and seeds its jitter
    /// from entropy until told otherwise.
    pub fn new(policy: RetryPolicy) -> Self {
        Retry {
            policy,
            seed: None,
            sleeper: &THREAD_SLEEPER,
            clock: None,
            sink: &NO_EVENTS,
            fleet: None,
        }
    }
    /// Fixes the jitter seed, so that delays are reproducible.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Waits with `s` instead of [`ThreadSleeper`].
    pub fn sleeper(mut self, s: &'a dyn Sleeper) -> Self {
        self.sleeper = s;
        self
    }
    /// Measures elapsed time (for the policy's deadline) with `c` instead of the system clock.
    pub fn clock(mut self, c: &'a dyn Clock) -> Self {
        self.clock = Some(c);
        self
    }
    /// Sends the events of every decision to `sink`.
    pub fn events(mut self, sink: &'a dyn EventSink) -> Self {
        self.sink = sink;
        self
    }
    /// Shares budget, breaker and pauses with every other call of `key` on `fleet`.
    pub fn fleet(mut self, fleet: Arc<Fleet>, key: impl Into<String>) -> Self {
        self.fleet = Some((fleet, key.into()));
        self
    }

    /// Calls `f(attempt)` (1-based) until it succeeds or the policy gives up.
    pub fn run<T, E: AsFailure>(
        self,
        f: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, RetryError<E>> {
        self.run_with(&mut NoRecovery, f)
    }

    /// [`Retry::run`] with recovery hooks.
    pub fn run_with<T, E: AsFailure>(
        self,
        recovery: &mut dyn Recovery,
        mut f: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, RetryError<E>> {
        let system = SystemClock::default();
        let clock = self.clock.unwrap_or(&system);
        let start = clock.now();
        let mut retrier = Retrier::new(self.policy).with_context_hook(recovery.can_compact());
        if let Some(seed) = self.seed {
            retrier = retrier.with_seed(seed);
        }
        if let Some((fleet, key)) = self.fleet.clone() {
            retrier = retrier.with_fleet(fleet, key);
        }
        let mut last: Option<(E, Failure, Decision)> = None;
        loop {
            match gate(&mut retrier, clock.now() - start, self.sink) {
                Next::Stop if last.is_some() => {
                    let (error, failure, decision) = last.take().expect("checked above");
                    return Err(stopped_at_gate(error, failure, decision));
                }
                Next::Wait(w) => {
                    if w > 0.0 {
                        self.sleeper.sleep(super::wait_duration(w));
                    }
                    continue;
                }
                Next::Stop | Next::Call => {}
            }
            let error = match f(retrier.attempts() + 1) {
                Ok(v) => {
                    for e in &retrier.on_success() {
                        self.sink.emit(e);
                    }
                    return Ok(v);
                }
                Err(e) => e,
            };
            let failure = error.as_failure();
            let decision = after_failure(
                &mut retrier,
                recovery,
                &failure,
                clock.now() - start,
                self.sink,
            );
            match decision.action {
                Action::Retry { delay } => {
                    last = Some((error, failure, decision));
                    if delay > 0.0 {
                        self.sleeper.sleep(super::wait_duration(delay));
                    }
                }
                _ => {
                    return Err(RetryError {
                        error,
                        failure: Box::new(failure),
                        decision: Box::new(decision),
                    })
                }
            }
        }
    }
}
