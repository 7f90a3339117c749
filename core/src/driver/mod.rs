//! Drivers: the loops that call, wait and call again, for Rust users. The bindings have their
//! own (in Python and Ruby) so that waits go through the host's sleep.

pub mod blocking;
#[cfg(feature = "tokio")]
pub mod tokio;

use crate::events::EventSink;
use crate::failure::Failure;
use crate::machine::{Action, Decision, GiveUpReason, Retrier};
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

/// What a driver does before a call, after asking the fleet ([`Retrier::before_attempt`]).
pub(crate) enum Next {
    Call,
    Wait(f64),
    /// A retry would wait past the deadline: stop with the last error.
    Stop,
}

/// The twins' shared gate step: emits the gate's events and says what to do.
pub(crate) fn gate(retrier: &mut Retrier, elapsed: f64, sink: &dyn EventSink) -> Next {
    let g = retrier.before_attempt(elapsed);
    for e in &g.events {
        sink.emit(e);
    }
    match g.wait {
        _ if g.reject => Next::Stop,
        Some(w) => Next::Wait(w),
        None => Next::Call,
    }
}

/// The twins' shared failure step: runs the free recoveries (they are synchronous hooks),
/// emits the decision's events and returns it.
pub(crate) fn after_failure<R: Recovery + ?Sized>(
    retrier: &mut Retrier,
    recovery: &mut R,
    failure: &Failure,
    elapsed: f64,
    sink: &dyn EventSink,
) -> Decision {
    let mut decision = retrier.on_failure(failure, elapsed);
    loop {
        decision = match decision.action {
            Action::RecoverOrphans => {
                retrier.on_orphans_pruned(recovery.prune_orphans(), failure, elapsed)
            }
            Action::RecoverContext => {
                retrier.on_context_compacted(recovery.compact_context(), failure, elapsed)
            }
            _ => break,
        };
    }
    for e in &decision.events {
        sink.emit(e);
    }
    decision
}

/// Stopping at the gate: the last retried error, its decision turned into `circuit_open`.
pub(crate) fn stopped_at_gate<E>(
    error: E,
    failure: Failure,
    mut decision: Decision,
) -> RetryError<E> {
    decision.action = Action::GiveUp {
        reason: GiveUpReason::CircuitOpen,
    };
    RetryError {
        error,
        failure: Box::new(failure),
        decision: Box::new(decision),
    }
}
