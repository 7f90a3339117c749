//! The names of our events outside this crate, in one table: for each [`EventKind`], its
//! OpenTelemetry span event and ActiveSupport::Notifications name and its weight; for each event
//! key, its OpenTelemetry attribute.
//!
//! Why these names (OpenTelemetry semantic conventions, checked 2026-11):
//! - The GenAI conventions have no retry attribute, and their span covers the whole logical
//!   operation, retries included: our decisions are *events* on that span, not spans of their
//!   own (the `tracing` feature's one span per call is that operation's span).
//! - `error.type`: "the class of error the operation ended with", low cardinality: our
//!   category (`rate_limited`, `server_error`, ...), the classification's answer.
//! - `http.request.resend_count` is the HTTP conventions' "ordinal number of request resending
//!   attempt (for any reason...)": our `attempt`, the failed calls before the next one. The
//!   HTTP conventions put it on one client span per resend; an HTTP instrumentation below us
//!   keeps doing that.
//! - `http.response.status_code`, `exception.type` and `exception.message` (the exception
//!   conventions) for the failure; the message is scrubbed before any event holds it.
//! - `gen_ai.request.model` for the model; `gen_ai.system` was deprecated for
//!   `gen_ai.provider.name` (semantic-conventions 1.37): the call span sets both.
//! - Everything else is ours, under `retry_core.*`.
//! - ActiveSupport::Notifications names are `event.library` (Faraday's is `request.faraday`):
//!   `retry.retry_core`, `give_up.retry_core`, ...

use std::borrow::Cow;

use serde_json::Value;

use crate::events::{Event, EventKind};

/// How much an event matters to an operator: the level of the `tracing` feature's events.
/// (The log lines' levels are `messages::log_line`'s.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// The call gave up, the fleet stepped in, or a setting multiplies requests.
    Warn,
    /// A decision: retry, wait, recover.
    Info,
    /// Bookkeeping: a wait ended, admission paced a call.
    Debug,
}

impl Weight {
    /// `warn`, `info` or `debug`.
    pub fn as_str(self) -> &'static str {
        match self {
            Weight::Warn => "warn",
            Weight::Info => "info",
            Weight::Debug => "debug",
        }
    }
}

/// The names of one event kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindNames {
    /// The kind.
    pub kind: EventKind,
    /// What happened, one word: `retry`, `give_up`, `wait`, `circuit`, ...
    pub verb: &'static str,
    /// The OpenTelemetry span event (and `tracing` event) name: `retry_core.<verb>`.
    pub span_event: &'static str,
    /// The ActiveSupport::Notifications name: `<verb>.retry_core`.
    pub notification: &'static str,
    /// Its weight.
    pub weight: Weight,
}

macro_rules! kinds {
    ($($kind:ident => $verb:literal, $weight:ident;)*) => {
        /// Every kind's names, in [`EventKind::ALL`]'s order. Kinds of one verb (a permanent
        /// failure and an exhausted retry both give up; a circuit opens and closes) share it:
        /// the event's `type` (`retry_core.event`) tells them apart.
        pub const KINDS: [KindNames; EventKind::ALL.len()] = [$(KindNames {
            kind: EventKind::$kind,
            verb: $verb,
            span_event: concat!("retry_core.", $verb),
            notification: concat!($verb, ".retry_core"),
            weight: Weight::$weight,
        }),*];
    };
}

kinds! {
    RetryAttempt => "retry", Info;
    RetryExhausted => "give_up", Warn;
    RequestFailed => "give_up", Warn;
    OrphansPruned => "prune_orphans", Info;
    ContextCompacted => "compact_context", Info;
    WaitStarted => "wait", Info;
    WaitFinished => "wait_finished", Debug;
    ModelFallback => "fallback", Warn;
    ModelSkipped => "skip_model", Info;
    ValidationRetry => "validation_retry", Info;
    LayersStacked => "layers_stacked", Warn;
    CircuitOpened => "circuit", Warn;
    CircuitClosed => "circuit", Info;
    RateLimitPause => "pause", Info;
    RetryBudgetExhausted => "budget_exhausted", Warn;
    FleetBackendDegraded => "backend", Warn;
    FleetBackendRecovered => "backend", Info;
    AdmissionWait => "admission_wait", Debug;
    LimitsLearned => "limits_learned", Info;
}

/// The names of `kind`.
pub fn of(kind: EventKind) -> &'static KindNames {
    // KINDS follows EventKind::ALL's order (tested), so the index is the declaration order.
    &KINDS[kind as usize]
}

/// The prefix of our own attributes.
pub const PREFIX: &str = "retry_core.";

/// The attribute that carries the event's `type` (`llm_retry_attempt`, ...).
pub const EVENT_TYPE: &str = "retry_core.event";

/// Every event key the core emits, with its OpenTelemetry attribute. Invoked with a macro's
/// name, so that the `tracing` events' fields (which must be literals) come from this same list.
macro_rules! with_attributes {
    ($then:ident) => {
        $then! {
            category => "error.type",
            status_code => "http.response.status_code",
            error_class => "exception.type",
            error_message => "exception.message",
            model => "gen_ai.request.model",
            attempt => "http.request.resend_count",
            error_type => "retry_core.error_type",
            retryable => "retry_core.retryable",
            max_retries => "retry_core.max_retries",
            retry_delay => "retry_core.retry_delay",
            retry_after => "retry_core.retry_after",
            attempts => "retry_core.attempts",
            reason => "retry_core.reason",
            pruned_count => "retry_core.pruned_count",
            original_error => "retry_core.original_error",
            validation_retry => "retry_core.validation_retry",
            max_validation_retries => "retry_core.max_validation_retries",
            seconds => "retry_core.seconds",
            ends_at => "retry_core.ends_at",
            from => "retry_core.from",
            to => "retry_core.to",
            client_retries => "retry_core.client_retries",
            requests => "retry_core.requests",
            source => "retry_core.source",
            key => "retry_core.key",
            tokens => "retry_core.tokens",
            cost => "retry_core.cost",
            failures => "retry_core.failures",
            open_s => "retry_core.open_s",
            backend => "retry_core.backend",
            error => "retry_core.error",
            fallback => "retry_core.fallback",
            dimension => "retry_core.dimension",
            limit => "retry_core.limit",
            window_s => "retry_core.window_s",
            limited_by => "retry_core.limited_by",
            mode => "retry_core.mode",
            recheck => "retry_core.recheck",
        }
    };
}
// Used by the `tracing` feature's events (and this module's table).
#[cfg_attr(not(feature = "tracing"), allow(unused_imports))]
pub(crate) use with_attributes;

macro_rules! attribute_table {
    ($($key:ident => $attr:literal,)*) => {
        /// `(event key, OpenTelemetry attribute)` for every key the core emits.
        pub const ATTRIBUTES: &[(&str, &str)] = &[$((stringify!($key), $attr)),*];
    };
}
with_attributes!(attribute_table);

/// The OpenTelemetry attribute of the event key `key` (a key missing from [`ATTRIBUTES`] goes
/// under `retry_core.` too).
pub fn attribute(key: &str) -> Cow<'static, str> {
    match ATTRIBUTES.iter().find(|(k, _)| *k == key) {
        Some((_, a)) => Cow::Borrowed(a),
        None => Cow::Owned(format!("{PREFIX}{key}")),
    }
}

/// The event's OpenTelemetry attributes: `retry_core.event` (its `type`), then each key that
/// has a value (attributes cannot be null).
pub fn attributes(event: &Event) -> Vec<(Cow<'static, str>, Value)> {
    let mut out = Vec::with_capacity(event.fields.len() + 1);
    out.push((Cow::Borrowed(EVENT_TYPE), Value::from(event.kind.as_str())));
    for (k, v) in &event.fields {
        if !v.is_null() {
            out.push((attribute(k), v.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_names_in_declaration_order() {
        for (i, k) in EventKind::ALL.into_iter().enumerate() {
            assert_eq!(KINDS[i].kind, k);
            assert_eq!(of(k).kind, k);
            let n = of(k);
            assert_eq!(n.span_event, format!("retry_core.{}", n.verb));
            assert_eq!(n.notification, format!("{}.retry_core", n.verb));
        }
    }

    #[test]
    fn attributes_are_unique_and_ours_are_prefixed() {
        let mut keys: Vec<_> = ATTRIBUTES.iter().map(|(k, _)| *k).collect();
        let mut attrs: Vec<_> = ATTRIBUTES.iter().map(|(_, a)| *a).collect();
        keys.sort_unstable();
        keys.dedup();
        attrs.sort_unstable();
        attrs.dedup();
        assert_eq!(keys.len(), ATTRIBUTES.len());
        assert_eq!(attrs.len(), ATTRIBUTES.len());
        assert_eq!(attribute("category"), "error.type");
        assert_eq!(attribute("seconds"), "retry_core.seconds");
        assert_eq!(attribute("something_new"), "retry_core.something_new");
    }

    #[test]
    fn an_event_becomes_attributes_without_nulls() {
        let e = Event::new(EventKind::RetryAttempt)
            .with("category", "rate_limited")
            .with("status_code", 429)
            .with("attempt", 1)
            .with("retry_after", Value::Null);
        let a = attributes(&e);
        let names: Vec<&str> = a.iter().map(|(n, _)| n.as_ref()).collect();
        assert_eq!(
            names,
            [
                "retry_core.event",
                "error.type",
                "http.response.status_code",
                "http.request.resend_count"
            ]
        );
        assert_eq!(a[0].1, "llm_retry_attempt");
    }
}

#[cfg(test)]
mod coverage {
    /// Every key the core's sources put in an event (`.with("key", ...)`) is in the table: a new
    /// key gets its attribute name here, not a silent `retry_core.` fallback.
    #[test]
    fn every_emitted_key_is_in_the_table() {
        let sources = [
            include_str!("../run.rs"),
            include_str!("../machine.rs"),
            include_str!("../fleet/mod.rs"),
            include_str!("../fleet/admission/mod.rs"),
        ];
        let mut seen = 0;
        for src in sources {
            for (i, _) in src.match_indices(".with(") {
                let rest = src[i + ".with(".len()..].trim_start();
                let Some(rest) = rest.strip_prefix('"') else {
                    continue;
                };
                let key: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                seen += 1;
                assert!(
                    super::ATTRIBUTES.iter().any(|(k, _)| *k == key),
                    "event key {key:?} has no OpenTelemetry attribute in observe::names"
                );
            }
        }
        assert!(seen > 30, "the scan found only {seen} keys");
    }
}
