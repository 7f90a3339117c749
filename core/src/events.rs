//! Events (CONTRACT §4). Keys are identical in all languages; bindings convert the JSON object
//! into a dict / Hash. Messages are scrubbed before they get here.

use serde_json::{Map, Value};

/// One event: its `type` and its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: &'static str,
    pub fields: Map<String, Value>,
}

impl Event {
    pub fn new(kind: &'static str) -> Self {
        Event {
            kind,
            fields: Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_owned(), value.into());
        self
    }

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

pub const RETRY_ATTEMPT: &str = "llm_retry_attempt";
pub const RETRY_EXHAUSTED: &str = "llm_retry_exhausted";
pub const REQUEST_FAILED: &str = "llm_request_failed";
pub const ORPHANS_PRUNED: &str = "orphan_tool_calls_pruned";
pub const CONTEXT_COMPACTED: &str = "context_compacted";
