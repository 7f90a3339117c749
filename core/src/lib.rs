//! # retry-core
//!
//! One engine that decides how to survive a failed LLM API call. Published on crates.io as
//! `llm-retry-core`; the library is `retry_core`, the name Python imports and Ruby requires.
//!
//! ## Start here: [`Run`]
//!
//! A [`Run`] is one logical LLM call, from its first attempt to its end, as a sans-IO step
//! machine: it says what to do next ([`Step`]: call, wait, prune orphan tool calls, compact the
//! context, return, give up, re-raise) and you report what happened. It is the one machine
//! behind every front door: the blocking and tokio drivers, the Python package and the Ruby gem
//! all interpret the same steps, so they decide identically.
//!
//! ```
//! use retry_core::{Failure, RetryPolicy, Run, Step, WaitReason};
//!
//! let mut run = Run::new(RetryPolicy::forgeflare()).seed(1);
//! assert_eq!(run.start(0.0), Step::Call { model: 0 });
//! // The call failed: a 429 whose server asks for 7 s.
//! let busy = Failure::http(429, "Rate limit reached").with_header("retry-after", "7");
//! assert_eq!(run.failed(&busy, 0.0), Step::Wait { seconds: 7.0, reason: WaitReason::RetryAfter });
//! assert_eq!(run.resume(7.0), Step::Call { model: 0 });
//! assert_eq!(run.succeeded(7.5), Step::Return);
//! ```
//!
//! Around it:
//!
//! - [`classify`](fn@classify) turns a [`Failure`] (a language-neutral record of one failed call)
//!   into a [`Classification`]: a [`Category`], transient or not, the server's `retry-after`.
//! - [`RetryPolicy`] and its presets (`default`, `swarm_sdk`, `forgeflare`, `llm_executor`, ...).
//! - [`driver::blocking::Retry`] and, with the `tokio` feature, [`driver`]`::tokio::AsyncRetry`
//!   run a closure through a `Run` and do the waiting for you.
//! - [`orphan::prune`] removes interrupted tool calls from a history.
//! - [`fleet::Fleet`] shares a retry budget, a circuit breaker and rate-limit pauses among many
//!   calls (in process, or through Redis with the `redis` features).
//! - [`events`]: what a run reports (CONTRACT §4 and its own), through [`Run::take_events`] or
//!   an [`EventSink`].
//! - With the `reqwest` feature, `reqwest_support` builds a `Failure` from a `reqwest::Error`
//!   or a non-success response; [`sse`] reads an SSE `error` payload.
//!
//! ## Where I/O happens
//!
//! The core *decides*; the host *waits*. A `Run`, `classify`, the policies and pruning never
//! sleep and never touch the network: you wait a [`Step::Wait`] your own way. The exceptions:
//! the drivers sleep (`std::thread::sleep`, `tokio::time::sleep`, or a sleeper you give them);
//! a [`fleet::Fleet`] backed by Redis (feature `redis`) does network I/O *inside* the steps that
//! consult it (`Run::start`, `Run::failed`, `Run::resume`, `Run::succeeded`), bounded by its I/O
//! timeout; `Fleet::redis_async` (feature `redis-tokio`) keeps that I/O on a background task
//! instead, so steps only read a local mirror.
//!
//! Everything else in this crate is internal. The `__private` module exists for the Python and
//! Ruby bindings, the simulator, the tests and the fuzz targets of this repository: it is not
//! public API and may change in any release.

#![deny(missing_docs)]

pub mod driver;
pub mod events;
pub mod sse;
pub mod stream_end;
pub mod testing;
// Event names for OpenTelemetry and ActiveSupport, Prometheus text, the `tracing` feature.
pub mod observe;

#[cfg(any(feature = "reqwest", feature = "reqwest-0_12"))]
pub mod reqwest_support;

// The integrations behind features; the SSE first-event rule the bindings' transports share.
pub mod middleware;

mod category;
mod chain;
mod classify;
mod error;
mod error_names;
mod failure;
mod fallback;
mod machine;
mod messages;
// The fleet's engine (backends, breaker, budget); its public face is `fleet` below.
#[path = "fleet/mod.rs"]
mod fleet_engine;
// The pruning engine; its public face is `orphan` below (the bindings' views and plans are
// internal).
#[path = "orphan.rs"]
mod orphan_engine;
mod policy;
mod retry_after;
mod rng;
mod run;
mod scrub;

// The crate README (what crates.io shows) is tested too: its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

// So are the repository README's and the user guides' (`docs/*.md`; streams.md and tracing.md
// beside their modules). A guide's examples compile with the features they need.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../../README.md")]
    pub struct RepositoryReadme;
    #[doc = include_str!("../docs/testing.md")]
    pub struct Testing;
    #[cfg(all(feature = "reqwest-middleware", feature = "tower"))]
    #[doc = include_str!("../docs/middleware.md")]
    pub struct Middleware;
}

/// Builds now every table the engine otherwise builds on first use (the classifier's phrase sets,
/// code indexes and patterns, the scrubber's patterns): once per process, 65-90 ms in a release
/// build on a shared 2-core VM, about 10 us when they are built already.
///
/// Call it before `fork()` in a program whose threads may classify while it forks: a table that
/// another thread was building at the fork stays half-built in the child, and the child's first
/// classification would wait for it forever. It waits for a table another thread is building.
/// The Python and Ruby bindings call it before every fork (`os.register_at_fork`,
/// `Process._fork`), so an import pays nothing.
pub fn warm() {
    classify::warm();
    retry_after::warm();
    scrub::warm();
    fleet_engine::warm();
}

pub use category::{Category, Classification, ErrorClass, Evidence, RetryAfterSource};
pub use chain::Link;
pub use classify::classify;
pub use error::{Error, ErrorCode};
pub use events::{Event, EventKind, EventSink};
pub use failure::{AsFailure, Failure, Headers, Transport};
pub use fallback::ModelSpec;
pub use machine::{Action, Decision, GiveUpReason};
pub use policy::{Backoff, CategoryOverride, Counting, Jitter, OverCap, RetryPolicy};
pub use run::{ErrorNames, Run, RunConfig, Step, WaitReason};

/// Fleet resilience: what one agent's retries do to everyone else. A [`Fleet`](fleet::Fleet) is
/// shared by all the calls of a process (and, with the Redis backend, of many processes): a
/// retry budget per key, a circuit breaker per key, a shared pause when a provider says
/// "retry after", and, with [`FleetConfig::admission`](fleet::FleetConfig::admission) on,
/// admission that paces calls under the provider's rate limits (given by hand, learned from
/// throttles, or learned from its rate-limit headers). A [`Run`] attached to it (`Run::fleet`)
/// consults it before every call.
///
/// ```
/// use std::sync::Arc;
/// use retry_core::fleet::{Fleet, FleetConfig};
/// use retry_core::{Failure, RetryPolicy, Run, Step, WaitReason};
///
/// let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
/// let key = vec!["openai:gpt-4o".to_owned()];
/// let mut call = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
/// assert_eq!(call.start(0.0), Step::Call { model: 0 });
/// let slow_down = Failure::http(429, "slow down").with_header("retry-after", "7");
/// assert!(matches!(call.failed(&slow_down, 0.0), Step::Wait { .. }));
/// // Every other caller of the key now waits too.
/// let mut other = Run::new(RetryPolicy::recommended()).fleet(fleet, key);
/// assert!(matches!(other.start(0.0), Step::Wait { reason: WaitReason::FleetPause, .. }));
/// ```
///
/// With the `redis` feature, [`Fleet::from_config`](fleet::Fleet::from_config) with a
/// `redis_url` shares the state through Redis (network I/O inside the run's steps, bounded by
/// `redis_timeout_s`); with `redis-tokio`, [`Fleet::redis_async`](fleet::Fleet::redis_async)
/// keeps that I/O on a background task.
pub mod fleet {
    pub use crate::fleet_engine::{
        AdmissionConfig, AdmissionCounters, AdmissionMode, AdmissionState, BreakerConfig,
        BudgetConfig, BytesOverFour, Cost, Counters, Dimension, Fleet, FleetConfig, Limits,
        Metrics, Reservation, TokenEstimator, Usage, WallClock,
    };

    /// Admission: pacing calls under the providers' limits (see
    /// [`Fleet::reserve`](crate::fleet::Fleet::reserve)). The header reader and the CUBIC
    /// controller are public for the lab, the simulator and diagnostics.
    pub mod admission {
        pub use crate::fleet_engine::admission::cubic::Cubic;
        pub use crate::fleet_engine::admission::headers::{
            read as read_headers, Observed, Reading,
        };
        pub use crate::fleet_engine::admission::state::{Grant, PROBE_HOLD_S, STALE_S};
        // How a request's bytes are counted without writing its JSON (the bindings' estimate).
        pub use crate::fleet_engine::admission::cost::{json_int_len, json_string_len};
        pub use crate::fleet_engine::admission::{
            AdmissionConfig, AdmissionMode, AdmissionState, BytesOverFour, Cost, Dimension, Limits,
            Reservation, TokenEstimator, Usage, PROBE_RECHECK_S, RECHECK_S,
        };
    }

    pub(crate) use crate::fleet_engine::Admit;
    pub use crate::fleet_engine::KeyCounters;

    /// The options of [`Fleet::redis_async_with`].
    #[cfg(feature = "redis-tokio")]
    pub mod redis_async {
        pub use crate::fleet_engine::redis_async::RedisAsyncOptions;
    }
    #[cfg(feature = "redis-tokio")]
    pub use redis_async::RedisAsyncOptions;
}

/// Orphan tool calls (CONTRACT §5): pruning a history whose assistant messages hold tool calls
/// with no result (OpenAI / RubyLLM `tool_calls` and Anthropic `tool_use` shapes), and the
/// reminder text for the calls removed.
///
/// ```
/// use serde_json::json;
///
/// let history = vec![
///     json!({"role": "user", "content": "read it"}),
///     json!({"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_1", "type": "function",
///          "function": {"name": "Read", "arguments": "{\"file_path\": \"/important/file.rb\"}"}}]}),
///     json!({"role": "user", "content": "and?"}),
/// ];
/// let out = retry_core::orphan::prune(&history).unwrap();
/// assert_eq!(out.messages.len(), 2);
/// assert_eq!(out.pruned[0].name, "Read");
/// ```
pub mod orphan {
    pub use crate::orphan_engine::{
        is_tool_pairing_error, prune_json, prune_json_owned, prune_json_str, reminder, Edit,
        Pruned, PrunedCall,
    };

    /// Prunes orphan tool calls from a JSON history (CONTRACT §6's `orphan::prune`; the same as
    /// [`prune_json`]).
    pub fn prune(messages: &[serde_json::Value]) -> Result<Pruned, crate::Error> {
        prune_json(messages)
    }
}

/// **Not public API.** The internals the Python and Ruby bindings, the simulator, the tests and
/// the fuzz targets of this repository need. Anything here may change or go in any release,
/// patch releases included; depend on the crate's documented items instead.
#[doc(hidden)]
pub mod __private {
    /// The fleet's engine: backends, breaker states and transitions, budget arithmetic.
    pub mod fleet {
        pub use crate::fleet_engine::*;
    }
    /// The pruning engine: message views, plans, edits (the bindings apply them to host objects).
    pub mod orphan {
        pub use crate::orphan_engine::*;
    }
    /// Classification internals: `classify_at`, the tables, body and text matchers.
    pub mod classify {
        pub use crate::classify::*;
    }
    /// The failure record's limits (`MAX_CAUSES`, `checked_status`).
    pub mod failure {
        pub use crate::failure::*;
    }
    /// `RetryAfterSource` and the category helpers.
    pub mod category {
        pub use crate::category::*;
    }
    /// Policy limits and the preset names.
    pub mod policy {
        pub use crate::policy::*;
    }
    /// Header parsing for `retry-after` and reset hints.
    pub mod retry_after {
        pub use crate::retry_after::*;
    }
    /// The jitter source.
    pub mod rng {
        pub use crate::rng::*;
    }
    /// Secret scrubbing.
    pub mod scrub {
        pub use crate::scrub::*;
    }
    /// The messages people read: error texts, give-up notes, log lines.
    pub mod messages {
        pub use crate::messages::*;
    }
    /// The names a run gives the errors it reports (SwarmSDK's or the contract's).
    pub mod error_names {
        pub use crate::error_names::*;
    }
    /// The model chain behind a run's fallback.
    pub mod fallback {
        pub use crate::fallback::*;
    }
    /// One model's retry loop inside a run, for the fleet and chaos tests and the fuzz
    /// invariants: `Run` is the public machine.
    pub mod machine {
        pub use crate::machine::{Gate, Retrier};
    }
    /// The bindings' check of `elapsed` and the bound of a pruned count.
    pub mod run {
        pub use crate::run::{check_elapsed, HookAnswer, MAX_PRUNED};
    }
    /// How a chain's links merge (`MAX_LINKS`).
    pub mod chain {
        pub use crate::chain::*;
    }
    /// The core's error type's result alias.
    pub mod error {
        pub use crate::error::*;
    }

    /// Panics on purpose. The bindings expose it (`retry_core._native._debug_panic`,
    /// `RetryCore::Native._debug_panic`) so their tests can prove that a panic inside the core
    /// arrives in Python and Ruby as an exception, never as an abort.
    pub fn debug_panic(message: &str) -> ! {
        panic!("retry-core debug panic: {message}")
    }
}
