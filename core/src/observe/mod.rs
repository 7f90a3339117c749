//! Observability: what our events are called outside this crate, and the fleet's metrics as
//! Prometheus text. The one place these names live: the Python package and the Ruby gem call
//! into it, and the `tracing` feature's span and events use it.
//!
//! - [`names`]: each [`EventKind`](crate::EventKind) as an OpenTelemetry span event
//!   (`retry_core.retry`), an ActiveSupport::Notifications name (`retry.retry_core`) and a
//!   weight; each event key as an OpenTelemetry attribute (`category` is `error.type`, ours go
//!   under `retry_core.*`).
//! - [`prometheus`]: a [`Metrics`](crate::fleet::Metrics) as Prometheus text, a bounded number
//!   of keys.
//! - `tracing` (feature `tracing`): one span per logical call of the drivers, an event per
//!   decision.

pub mod names;
pub mod prometheus;
#[cfg(feature = "tracing")]
pub mod tracing;

// core/docs/tracing.md's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/tracing.md")]
pub struct TracingDocDoctests;
