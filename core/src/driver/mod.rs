//! Drivers: the loops that call, wait and call again, for Rust users. Each interprets a
//! [`crate::run::Run`], as the Python and Ruby front doors do with their host's sleep.

pub mod blocking;
#[cfg(feature = "tokio")]
pub mod tokio;

use std::sync::Arc;

use crate::events::EventSink;
use crate::failure::Failure;
use crate::fleet::Fleet;
use crate::machine::Decision;
use crate::policy::RetryPolicy;
use crate::run::{Run, RunConfig, Step};
use blocking::Recovery;

/// A wait as a `Duration` that cannot panic, whatever a policy or a fleet says: NaN and negative
/// waits are none, and no wait is longer than [`MAX_DELAY_S`](crate::policy::MAX_DELAY_S).
pub(crate) fn wait_duration(secs: f64) -> std::time::Duration {
    let secs = if secs.is_nan() {
        0.0
    } else {
        secs.clamp(0.0, crate::policy::MAX_DELAY_S)
    };
    std::time::Duration::from_secs_f64(secs)
}

/// A monotonic clock in seconds; injectable so tests run on virtual time.
pub trait Clock {
    /// Seconds since an arbitrary fixed start; never goes backwards.
    fn now(&self) -> f64;
}

/// A clock that only moves when told to: virtual time for replays and tests, shareable with a
/// [`Fleet`] as its wall clock ([`ManualClock::wall_clock`]).
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<std::sync::atomic::AtomicU64>);

impl ManualClock {
    /// A clock showing `t` seconds.
    pub fn new(t: f64) -> Self {
        let c = ManualClock::default();
        c.set(t);
        c
    }
    /// Sets the time to `t` seconds.
    pub fn set(&self, t: f64) {
        self.0
            .store(t.to_bits(), std::sync::atomic::Ordering::SeqCst);
    }
    /// This clock as a fleet's wall clock.
    pub fn wall_clock(&self) -> crate::fleet::WallClock {
        let c = self.clone();
        Arc::new(move || c.now())
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// The real monotonic clock.
#[derive(Debug, Clone)]
pub struct SystemClock(std::time::Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(std::time::Instant::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// The error a driver returns when it stops: the last error, and the decision that stopped it.
#[derive(Debug)]
pub struct RetryError<E> {
    /// The error the last call returned.
    pub error: E,
    /// The failure record built from that error.
    // Boxed: the success path should not carry a 200-byte error variant around.
    pub failure: Box<Failure>,
    /// The decision that stopped the loop (its action says why).
    pub decision: Box<Decision>,
}

impl<E: std::fmt::Display> std::fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (category {}, after {} attempt(s))",
            self.error, self.decision.classification.category, self.decision.attempt
        )
    }
}

impl<E: std::fmt::Debug + std::fmt::Display> std::error::Error for RetryError<E> {}

/// Sends the run's new events to `sink`.
pub(crate) fn drain(run: &mut Run, sink: &dyn EventSink) {
    if run.has_events() {
        for e in &run.take_events() {
            sink.emit(e);
        }
    }
}

/// The error a driver returns at the run's end: the last error, its failure and its decision.
/// A run ends without a failure only when the fleet made it skip every model, which the
/// drivers never ask for (they wait out the fleet), so `last` is always there.
pub(crate) fn finish<E>(run: &Run, last: Option<(E, Failure)>) -> RetryError<E> {
    let (error, failure) = last.expect("a driver's run ends after a failed call");
    let decision = run
        .decision()
        .cloned()
        .expect("a failed call always has a decision");
    RetryError {
        error,
        failure: Box::new(failure),
        decision: Box::new(decision),
    }
}

/// The steps that do no I/O (a skip, the free recoveries through the caller's hooks), taken
/// the same way by both drivers; `None` for a call, a wait or the end, which are each driver's.
pub(crate) fn local_step<R: Recovery + ?Sized>(
    run: &mut Run,
    recovery: &mut R,
    step: Step,
    elapsed: f64,
) -> Option<Step> {
    Some(match step {
        Step::Skip { .. } => run.resume(elapsed),
        Step::PruneOrphans => run.pruned(recovery.prune_orphans(), elapsed),
        Step::CompactContext => run.compacted(recovery.compact_context(), elapsed),
        _ => return None,
    })
}

/// The run a driver interprets.
pub(crate) fn build_run(
    policy: RetryPolicy,
    seed: Option<u64>,
    fleet: Option<(Arc<Fleet>, String)>,
    context_hook: bool,
) -> Run {
    let cfg = RunConfig {
        context_hook,
        seed,
        ..RunConfig::default()
    };
    let run = Run::with_config(policy, cfg);
    match fleet {
        Some((fleet, key)) => run.fleet(fleet, vec![key]),
        None => run,
    }
}
