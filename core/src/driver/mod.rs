//! Drivers: the loops that call, wait and call again, for Rust users. The bindings have their
//! own (in Python and Ruby) so that waits go through the host's sleep.

pub mod blocking;
#[cfg(feature = "tokio")]
pub mod tokio;

use crate::failure::Failure;
use crate::machine::Decision;

/// A monotonic clock in seconds; injectable so tests run on virtual time.
pub trait Clock {
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
    pub error: E,
    // Boxed: the success path should not carry a 200-byte error variant around.
    pub failure: Box<Failure>,
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
