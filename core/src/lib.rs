//! # retry-core
//!
//! One engine that decides how to survive a failed LLM API call.
//!
//! The core *decides*; the host *waits*. Feed a [`Failure`] (a language-neutral
//! description of one failed call) to [`classify`](fn@classify) for a [`Classification`], or
//! to a [`Retrier`] (the sans-IO state machine) for a [`Decision`]: retry after a delay,
//! recover (prune orphan tool calls, compact the context), give up, or re-raise untouched.
//! Nothing in this crate sleeps or performs I/O except the optional drivers
//! ([`driver::blocking`], and `driver::tokio` behind the `tokio` feature).
//!
//! ```
//! use retry_core::{classify, Category, Failure, RetryPolicy, Retrier, Action};
//!
//! let failure = Failure::http(429, "Rate limit reached").with_header("retry-after", "7");
//! let c = classify(&failure);
//! assert_eq!(c.category, Category::RateLimited);
//! assert_eq!(c.retry_after, Some(7.0));
//!
//! let mut retrier = Retrier::new(RetryPolicy::forgeflare()).with_seed(1);
//! let decision = retrier.on_failure(&failure, 0.0);
//! assert_eq!(decision.action, Action::Retry { delay: 7.0 });
//! ```

#![deny(missing_docs)]

pub mod category;
pub mod chain;
pub mod classify;
pub mod driver;
pub mod error;
pub mod events;
pub mod failure;
pub mod fallback;
pub mod fleet;
pub mod machine;
pub mod orphan;
pub mod policy;
pub mod retry_after;
pub mod rng;
pub mod run;
pub mod scrub;
pub mod sse;
pub mod text;

#[cfg(any(feature = "reqwest", feature = "reqwest-0_12"))]
pub mod reqwest_support;

// The crate README (what crates.io shows) is tested too: its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use category::{Category, Classification, ErrorClass, Evidence};
pub use classify::classify;
pub use error::{Error, ErrorCode};
pub use events::{Event, EventSink};
pub use failure::{Failure, Headers, Transport};
pub use machine::{Action, Decision, GiveUpReason, Retrier};
pub use policy::{Backoff, Counting, Jitter, OverCap, RetryPolicy};
pub use run::{Run, RunConfig, Step, WaitReason};

/// Panics on purpose. The bindings expose it (`retry_core._native._debug_panic`,
/// `RetryCore::Native._debug_panic`) so their tests can prove that a panic inside the core
/// arrives in Python and Ruby as an exception, never as an abort.
#[doc(hidden)]
pub fn debug_panic(message: &str) -> ! {
    panic!("retry-core debug panic: {message}")
}
