//! Events (CONTRACT §4). Keys are identical in all languages; bindings convert the JSON object
//! into a dict / Hash. Messages are scrubbed before they get here.

use serde_json::{Map, Value};

/// One event: its `type` and its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's `type`, one of the constants of this module (e.g. [`RETRY_ATTEMPT`]).
    pub kind: &'static str,
    /// The event's keys and values, in insertion order, without `type`.
    pub fields: Map<String, Value>,
}

impl Event {
    /// An event of type `kind` with no keys yet.
    pub fn new(kind: &'static str) -> Self {
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
        m.insert("type".into(), Value::from(self.kind));
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

/// `llm_retry_attempt`: a retry is about to wait and call again.
pub const RETRY_ATTEMPT: &str = "llm_retry_attempt";
/// `llm_retry_exhausted`: a retryable failure is not retried again (attempts, deadline or budget
/// spent, or a `retry-after` over the cap).
pub const RETRY_EXHAUSTED: &str = "llm_retry_exhausted";
/// `llm_request_failed`: a failure that is not worth retrying; the engine gives up at once.
pub const REQUEST_FAILED: &str = "llm_request_failed";
/// `orphan_tool_calls_pruned`: orphan tool calls were pruned from the history before a new attempt.
pub const ORPHANS_PRUNED: &str = "orphan_tool_calls_pruned";
/// `context_compacted`: the caller's hook compacted the history after a context overflow.
pub const CONTEXT_COMPACTED: &str = "context_compacted";
