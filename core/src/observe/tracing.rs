//! The `tracing` feature: the drivers ([`Retry`](crate::driver::blocking::Retry),
//! `AsyncRetry`) open one span per logical call, `retry_core.call`, and emit one event per
//! decision inside it, named and keyed by [`super::names`] (OpenTelemetry's attribute names as
//! field names, so `tracing-opentelemetry` exports them as they are).
//!
//! With no subscriber interested, a span is `Span::none()` and an event is one check of its
//! callsite's cached interest: no field is read, nothing is allocated.

use serde_json::Value;
use tracing::field::Empty;
use tracing::Span;

use super::names::{self, Weight};
use crate::events::Event;
use crate::run::Run;

/// The target of the span and the events: `RUST_LOG=retry_core=info` selects them.
pub const TARGET: &str = "retry_core";

/// The span of one logical call, opened before its first step. `gen_ai.provider.name` (and the
/// deprecated `gen_ai.system`, which older collectors still read) and `gen_ai.request.model`
/// come from a fleet key shaped `provider:model` (the docs' convention) and from the run's
/// model names; unknown ones stay unset. `retry_core.outcome`, `retry_core.calls` and,
/// on a give-up, `error.type` are recorded at the end ([`finish`]).
pub(crate) fn call_span(run: &Run) -> Span {
    let key = run.key();
    let (provider, key_model) = match key.and_then(|k| k.split_once(':')) {
        Some((p, m)) if !p.is_empty() => (Some(p), (!m.is_empty()).then_some(m)),
        _ => (None, None),
    };
    let model = run.model_name(run.model()).or(key_model);
    tracing::info_span!(
        target: TARGET,
        "retry_core.call",
        "gen_ai.provider.name" = provider,
        "gen_ai.system" = provider,
        "gen_ai.request.model" = model,
        "retry_core.key" = key,
        "retry_core.policy" = run.policy().name.as_str(),
        "retry_core.outcome" = Empty,
        "retry_core.calls" = Empty,
        "error.type" = Empty,
    )
}

/// Records how the call ended on its span: `success` or the action that ended it
/// (`give_up`, `reraise`), the calls made, and on a failure its category as `error.type`.
pub(crate) fn finish(span: &Span, outcome: &str, calls: u32, category: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    span.record("retry_core.outcome", outcome);
    span.record("retry_core.calls", calls);
    if let Some(c) = category {
        span.record("error.type", c);
    }
}

/// One event's value as a `tracing` value of its own type (numbers stay numbers).
enum Field<'a> {
    Str(&'a str),
    I(i64),
    U(u64),
    F(f64),
    B(bool),
    /// An array or object, as JSON text (the core's events hold none today).
    Json(String),
    Absent,
}

impl<'a> Field<'a> {
    fn of(e: &'a Event, key: &str) -> Self {
        match e.get(key) {
            None | Some(Value::Null) => Field::Absent,
            Some(Value::String(s)) => Field::Str(s),
            Some(Value::Bool(b)) => Field::B(*b),
            Some(Value::Number(n)) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Field::U(u),
                (None, Some(i)) => Field::I(i),
                _ => Field::F(n.as_f64().unwrap_or(f64::NAN)),
            },
            Some(v) => Field::Json(v.to_string()),
        }
    }

    fn value(&self) -> Option<&dyn tracing::Value> {
        Some(match self {
            Field::Str(s) => s,
            Field::I(i) => i,
            Field::U(u) => u,
            Field::F(f) => f,
            Field::B(b) => b,
            Field::Json(s) => s,
            Field::Absent => return None,
        })
    }
}

/// Keys of the event that the table does not know, as one JSON object (`retry_core.other`):
/// nothing an event says is dropped, even before the table learns a new key.
fn other(e: &Event) -> Option<String> {
    let unknown: serde_json::Map<String, Value> = e
        .fields
        .iter()
        .filter(|(k, _)| !names::ATTRIBUTES.iter().any(|(t, _)| t == k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!unknown.is_empty()).then(|| Value::Object(unknown).to_string())
}

macro_rules! emit_fn {
    ($($key:ident => $attr:literal,)*) => {
        /// Emits `e` as a `tracing` event at its weight's level, inside the current span. Its
        /// message is the span event's name (`retry_core.retry`): `tracing-opentelemetry`
        /// names the span event after it.
        pub(crate) fn emit(e: &Event) {
            let n = names::of(e.kind);
            match n.weight {
                Weight::Warn => tracing::event!(target: TARGET, tracing::Level::WARN, {
                    "retry_core.event" = e.kind.as_str(),
                    $($attr = Field::of(e, stringify!($key)).value(),)*
                    "retry_core.other" = other(e),
                }, "{}", n.span_event),
                Weight::Info => tracing::event!(target: TARGET, tracing::Level::INFO, {
                    "retry_core.event" = e.kind.as_str(),
                    $($attr = Field::of(e, stringify!($key)).value(),)*
                    "retry_core.other" = other(e),
                }, "{}", n.span_event),
                Weight::Debug => tracing::event!(target: TARGET, tracing::Level::DEBUG, {
                    "retry_core.event" = e.kind.as_str(),
                    $($attr = Field::of(e, stringify!($key)).value(),)*
                    "retry_core.other" = other(e),
                }, "{}", n.span_event),
            }
        }
    };
}
names::with_attributes!(emit_fn);
