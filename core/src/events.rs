//! Events (CONTRACT §4 and the run's and the fleet's own). Keys are identical in all languages;
//! bindings convert the JSON object into a dict / Hash. Messages are scrubbed before they get here.
//!
//! Every event type is one [`EventKind`]: its name (`llm_retry_attempt`, ...) is written once,
//! in [`EventKind::as_str`].

use std::fmt;

use serde_json::{Map, Value};

/// The type of an event. Its `type` key is [`EventKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `llm_retry_attempt`: a retry is about to wait and call again (CONTRACT §4).
    RetryAttempt,
    /// `llm_retry_exhausted`: a retryable failure is not retried again (attempts, deadline or
    /// budget spent, or a `retry-after` over the cap) (CONTRACT §4).
    RetryExhausted,
    /// `llm_request_failed`: a failure not worth retrying; the engine gives up at once
    /// (CONTRACT §4).
    RequestFailed,
    /// `orphan_tool_calls_pruned`: orphan tool calls were pruned from the history before a new
    /// attempt (CONTRACT §4).
    OrphansPruned,
    /// `context_compacted`: the caller's hook compacted the history after a context overflow.
    ContextCompacted,
    /// `retry_wait_started`: a wait begins (`seconds`, `reason`, `model`, `ends_at`).
    WaitStarted,
    /// `retry_wait_finished`: the wait announced by `retry_wait_started` is over.
    WaitFinished,
    /// `model_fallback`: a model gave up; the next one of the chain is tried.
    ModelFallback,
    /// `model_skipped`: the fleet holds a model back longer than the run waits.
    ModelSkipped,
    /// `validation_retry`: the output failed validation; the same model is called again.
    ValidationRetry,
    /// `retry_layers_stacked`: the wrapped client retries on its own; the layers multiply.
    LayersStacked,
    /// `circuit_opened`: the fleet's breaker opened for a key.
    CircuitOpened,
    /// `circuit_closed`: the key's circuit closed again.
    CircuitClosed,
    /// `rate_limit_pause`: a 429 paused every call of the key.
    RateLimitPause,
    /// `retry_budget_exhausted`: the key's retry budget is spent.
    RetryBudgetExhausted,
    /// `fleet_backend_degraded`: the fleet's shared backend (Redis) failed; calls go on locally.
    FleetBackendDegraded,
    /// `fleet_backend_recovered`: the shared backend answers again.
    FleetBackendRecovered,
    /// `admission_wait`: admission holds a call back (`key`, `seconds`, `limited_by`, `mode`).
    AdmissionWait,
    /// `limits_learned`: admission learned a limit (`key`, `dimension`, `limit`, `window_s`,
    /// `source`: `headers` or `throttle`).
    LimitsLearned,
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 19] = [
        EventKind::RetryAttempt,
        EventKind::RetryExhausted,
        EventKind::RequestFailed,
        EventKind::OrphansPruned,
        EventKind::ContextCompacted,
        EventKind::WaitStarted,
        EventKind::WaitFinished,
        EventKind::ModelFallback,
        EventKind::ModelSkipped,
        EventKind::ValidationRetry,
        EventKind::LayersStacked,
        EventKind::CircuitOpened,
        EventKind::CircuitClosed,
        EventKind::RateLimitPause,
        EventKind::RetryBudgetExhausted,
        EventKind::FleetBackendDegraded,
        EventKind::FleetBackendRecovered,
        EventKind::AdmissionWait,
        EventKind::LimitsLearned,
    ];

    /// The events a [`Run`](crate::Run) adds to the contract's (CONTRACT §4) and the fleet's.
    /// SwarmSDK's LogStream gets none of them: its harness knows SwarmSDK's events only.
    pub const RUN: [EventKind; 6] = [
        EventKind::WaitStarted,
        EventKind::WaitFinished,
        EventKind::ModelFallback,
        EventKind::ModelSkipped,
        EventKind::ValidationRetry,
        EventKind::LayersStacked,
    ];

    /// The event's `type`: `llm_retry_attempt`, `circuit_opened`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::RetryAttempt => "llm_retry_attempt",
            EventKind::RetryExhausted => "llm_retry_exhausted",
            EventKind::RequestFailed => "llm_request_failed",
            EventKind::OrphansPruned => "orphan_tool_calls_pruned",
            EventKind::ContextCompacted => "context_compacted",
            EventKind::WaitStarted => "retry_wait_started",
            EventKind::WaitFinished => "retry_wait_finished",
            EventKind::ModelFallback => "model_fallback",
            EventKind::ModelSkipped => "model_skipped",
            EventKind::ValidationRetry => "validation_retry",
            EventKind::LayersStacked => "retry_layers_stacked",
            EventKind::CircuitOpened => "circuit_opened",
            EventKind::CircuitClosed => "circuit_closed",
            EventKind::RateLimitPause => "rate_limit_pause",
            EventKind::RetryBudgetExhausted => "retry_budget_exhausted",
            EventKind::FleetBackendDegraded => "fleet_backend_degraded",
            EventKind::FleetBackendRecovered => "fleet_backend_recovered",
            EventKind::AdmissionWait => "admission_wait",
            EventKind::LimitsLearned => "limits_learned",
        }
    }

    /// The kind whose `type` is `name` (the inverse of [`EventKind::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for EventKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One event: its type and its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's type; its `type` key is `kind.as_str()`.
    pub kind: EventKind,
    /// The event's keys and values, in insertion order, without `type`.
    pub fields: Map<String, Value>,
}

impl Event {
    /// An event of type `kind` with no keys yet.
    pub fn new(kind: EventKind) -> Self {
        Event {
            kind,
            fields: Map::new(),
        }
    }

    /// Adds (or replaces) the key `key`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_owned(), value.into());
        self
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The event as one JSON object with `type` first.
    pub fn to_json(&self) -> Value {
        let mut m = Map::with_capacity(self.fields.len() + 1);
        m.insert("type".into(), Value::from(self.kind.as_str()));
        for (k, v) in &self.fields {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// Where the Rust drivers send events.
pub trait EventSink {
    /// Receives one event.
    fn emit(&self, event: &Event);
}

impl<F: Fn(&Event)> EventSink for F {
    fn emit(&self, event: &Event) {
        self(event)
    }
}

/// A sink that drops everything.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _: &Event) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_name() {
        for k in EventKind::ALL {
            assert_eq!(EventKind::from_name(k.as_str()), Some(k));
            assert_eq!(k, k.as_str());
        }
        let mut names: Vec<_> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EventKind::ALL.len());
    }
}
