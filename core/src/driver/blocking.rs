//! The blocking driver. Waits go through an injectable [`Sleeper`].

use std::time::Duration;

use super::{build_run, interpret, run_ready, Clock, Reported, RetryError, SystemClock};
use crate::events::{EventSink, NoEvents};
use crate::failure::AsFailure;
use crate::fleet::{Cost, Fleet};
use crate::policy::RetryPolicy;
use std::sync::Arc;

/// How the blocking driver waits.
pub trait Sleeper {
    /// Blocks the current thread for `d`.
    fn sleep(&self, d: Duration);
}

/// `std::thread::sleep`; under the testing switch ([`crate::testing`]), a step of its virtual
/// clock instead.
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&self, d: Duration) {
        if !crate::testing::sleep(d.as_secs_f64()) {
            std::thread::sleep(d)
        }
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
    estimate: Cost,
}

static THREAD_SLEEPER: ThreadSleeper = ThreadSleeper;
static NO_EVENTS: NoEvents = NoEvents;

/// With no policy, the `default` preset (CONTRACT §6), as in Python and Ruby.
impl Default for Retry<'_> {
    fn default() -> Self {
        Retry::new(RetryPolicy::default())
    }
}

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
            estimate: Cost::REQUEST,
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

    /// What each attempt costs, for a fleet with admission on (default: one request).
    pub fn estimate(mut self, cost: Cost) -> Self {
        self.estimate = cost;
        self
    }

    /// Calls `f(attempt)` (1-based) until it succeeds or the policy gives up.
    ///
    /// # Panics
    ///
    /// When a sleeper that does not sleep meets a fleet on the real clock (the run would spin:
    /// [`Step::Stalled`](crate::Step::Stalled)); use [`crate::testing::VirtualTime`] instead.
    pub fn run<T, E: AsFailure>(
        self,
        mut f: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, RetryError<E>> {
        self.run_reported(&mut NoRecovery, |a| f(a).map(Reported::new))
    }

    /// [`Retry::run`] whose call also reports its response's usage and headers ([`Reported`]),
    /// for a fleet's admission to settle and learn from.
    pub fn run_reported<T, E: AsFailure>(
        self,
        recovery: &mut dyn Recovery,
        mut f: impl FnMut(u32) -> Result<Reported<T>, E>,
    ) -> Result<T, RetryError<E>> {
        let system = SystemClock::default();
        let run = build_run(
            self.policy,
            self.seed,
            self.fleet,
            recovery.can_compact(),
            self.estimate,
        );
        let sleeper = self.sleeper;
        run_ready(interpret(
            run,
            recovery,
            self.clock.unwrap_or(&system),
            self.sink,
            |attempt| std::future::ready(f(attempt)),
            |d| {
                sleeper.sleep(d);
                std::future::ready(())
            },
        ))
    }

    /// [`Retry::run`] with recovery hooks.
    pub fn run_with<T, E: AsFailure>(
        self,
        recovery: &mut dyn Recovery,
        mut f: impl FnMut(u32) -> Result<T, E>,
    ) -> Result<T, RetryError<E>> {
        self.run_reported(recovery, |a| f(a).map(Reported::new))
    }
}
