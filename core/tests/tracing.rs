//! The `tracing` feature: a subscriber sees one span per logical call from both drivers, and
//! one event per decision inside it, with OpenTelemetry's attribute names.
//! (`cargo test -p llm-retry-core --all-features --test tracing`.)

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use retry_core::driver::blocking::Retry;
use retry_core::driver::tokio::AsyncRetry;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::{classify, Failure, RetryPolicy};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

mod common;
use common::VirtualTime;

#[derive(Debug, Clone, PartialEq)]
enum Val {
    Str(String),
    U(u64),
    I(i64),
    F(f64),
    B(bool),
}

#[derive(Debug, Default)]
struct SpanRec {
    name: &'static str,
    fields: BTreeMap<String, Val>,
}

#[derive(Debug)]
struct EventRec {
    level: Level,
    parent: Option<u64>,
    fields: BTreeMap<String, Val>,
}

#[derive(Debug, Default)]
struct Log {
    spans: Vec<SpanRec>,
    events: Vec<EventRec>,
    stack: Vec<u64>,
}

/// A subscriber that records every span and event with its fields (one thread per test).
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Log>>);

struct Fields<'a>(&'a mut BTreeMap<String, Val>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, f: &Field, v: &str) {
        self.0.insert(f.name().into(), Val::Str(v.into()));
    }
    fn record_u64(&mut self, f: &Field, v: u64) {
        self.0.insert(f.name().into(), Val::U(v));
    }
    fn record_i64(&mut self, f: &Field, v: i64) {
        self.0.insert(f.name().into(), Val::I(v));
    }
    fn record_f64(&mut self, f: &Field, v: f64) {
        self.0.insert(f.name().into(), Val::F(v));
    }
    fn record_bool(&mut self, f: &Field, v: bool) {
        self.0.insert(f.name().into(), Val::B(v));
    }
    fn record_debug(&mut self, f: &Field, v: &dyn std::fmt::Debug) {
        self.0.insert(f.name().into(), Val::Str(format!("{v:?}")));
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked on every use: other tests of this binary run without a subscriber.
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut log = self.0.lock().unwrap();
        let mut rec = SpanRec {
            name: span.metadata().name(),
            ..SpanRec::default()
        };
        span.record(&mut Fields(&mut rec.fields));
        log.spans.push(rec);
        Id::from_u64(log.spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut log = self.0.lock().unwrap();
        let rec = &mut log.spans[span.into_u64() as usize - 1];
        values.record(&mut Fields(&mut rec.fields));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut log = self.0.lock().unwrap();
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let parent = event
            .parent()
            .map(Id::into_u64)
            .or_else(|| log.stack.last().copied());
        log.events.push(EventRec {
            level: *event.metadata().level(),
            parent,
            fields,
        });
    }
    fn enter(&self, span: &Id) {
        self.0.lock().unwrap().stack.push(span.into_u64());
    }
    fn exit(&self, span: &Id) {
        let mut log = self.0.lock().unwrap();
        if let Some(i) = log.stack.iter().rposition(|s| *s == span.into_u64()) {
            log.stack.remove(i);
        }
    }
}

fn s(v: &str) -> Val {
    Val::Str(v.into())
}

fn busy() -> Failure {
    Failure::http(503, "Service Unavailable")
}

/// Two 503s then a success, through a fleet key `openai:gpt-4o`: what either driver shows.
fn assert_two_retries_then_success(log: &Log) {
    assert_eq!(
        log.spans.len(),
        1,
        "one span per logical call: {:?}",
        log.spans
    );
    let span = &log.spans[0];
    assert_eq!(span.name, "retry_core.call");
    assert_eq!(span.fields["gen_ai.provider.name"], s("openai"));
    assert_eq!(span.fields["gen_ai.system"], s("openai"));
    assert_eq!(span.fields["gen_ai.request.model"], s("gpt-4o"));
    assert_eq!(span.fields["retry_core.key"], s("openai:gpt-4o"));
    assert_eq!(span.fields["retry_core.outcome"], s("success"));
    assert_eq!(span.fields["retry_core.calls"], Val::U(3));
    assert!(
        !span.fields.contains_key("error.type"),
        "a success has no error.type"
    );

    // Every event is inside the span, and named after the decision.
    assert!(
        log.events.iter().all(|e| e.parent == Some(1)),
        "{:?}",
        log.events
    );
    let names: Vec<&Val> = log.events.iter().map(|e| &e.fields["message"]).collect();
    assert_eq!(
        names,
        [
            &s("retry_core.retry"),
            &s("retry_core.wait"),
            &s("retry_core.wait_finished"),
            &s("retry_core.retry"),
            &s("retry_core.wait"),
            &s("retry_core.wait_finished"),
        ]
    );
    let category = classify(&busy()).category.as_str().to_owned();
    let retries: Vec<&EventRec> = log
        .events
        .iter()
        .filter(|e| e.fields["message"] == s("retry_core.retry"))
        .collect();
    for (i, r) in retries.iter().enumerate() {
        assert_eq!(r.level, Level::INFO);
        assert_eq!(r.fields["retry_core.event"], s("llm_retry_attempt"));
        assert_eq!(r.fields["error.type"], Val::Str(category.clone()));
        assert_eq!(r.fields["http.response.status_code"], Val::U(503));
        assert_eq!(r.fields["http.request.resend_count"], Val::U(i as u64 + 1));
        assert_eq!(r.fields["exception.message"], s("Service Unavailable"));
        assert!(matches!(r.fields["retry_core.retry_delay"], Val::F(d) if d > 0.0));
        // A null `retry_after` is left out, not written as a string.
        assert!(!r.fields.contains_key("retry_core.retry_after"));
        assert!(!r.fields.contains_key("retry_core.other"));
    }
    let wait = log
        .events
        .iter()
        .find(|e| e.fields["message"] == s("retry_core.wait"))
        .unwrap();
    assert_eq!(wait.fields["retry_core.reason"], s("backoff"));
    let finished = log
        .events
        .iter()
        .find(|e| e.fields["message"] == s("retry_core.wait_finished"))
        .unwrap();
    assert_eq!(finished.level, Level::DEBUG);
}

fn fleet() -> Arc<Fleet> {
    Arc::new(Fleet::in_process(FleetConfig::default()))
}

#[test]
fn the_blocking_driver_opens_one_span_with_an_event_per_decision() {
    let capture = Capture::default();
    let vt = VirtualTime::default();
    let out = tracing::subscriber::with_default(capture.clone(), || {
        Retry::new(RetryPolicy::recommended())
            .seed(1)
            .sleeper(&vt)
            .clock(&vt)
            .fleet(fleet(), "openai:gpt-4o")
            .run(|n| if n <= 2 { Err(busy()) } else { Ok(n) })
            .map_err(Box::new)
    });
    assert_eq!(out.unwrap(), 3);
    assert_two_retries_then_success(&capture.0.lock().unwrap());
}

#[test]
fn the_tokio_driver_shows_the_same() {
    let capture = Capture::default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let out = tracing::subscriber::with_default(capture.clone(), || {
        rt.block_on(
            AsyncRetry::new(RetryPolicy::recommended())
                .seed(1)
                .fleet(fleet(), "openai:gpt-4o")
                .run(|n| async move {
                    if n <= 2 {
                        Err(busy())
                    } else {
                        Ok(n)
                    }
                }),
        )
        .map_err(Box::new)
    });
    assert_eq!(out.unwrap(), 3);
    assert_two_retries_then_success(&capture.0.lock().unwrap());
}

#[test]
fn a_give_up_is_a_warning_and_the_span_records_its_error_type() {
    let capture = Capture::default();
    let vt = VirtualTime::default();
    let denied = Failure::http(401, "invalid x-api-key").with_class(["openai.AuthenticationError"]);
    let err = tracing::subscriber::with_default(capture.clone(), || {
        Retry::new(RetryPolicy::recommended())
            .sleeper(&vt)
            .clock(&vt)
            .run(|_| -> Result<(), Failure> { Err(denied.clone()) })
            .map_err(Box::new)
    })
    .unwrap_err();
    let log = capture.0.lock().unwrap();
    let category = err.decision.classification.category.as_str();
    let span = &log.spans[0];
    assert_eq!(span.fields["retry_core.outcome"], s("give_up"));
    assert_eq!(span.fields["retry_core.calls"], Val::U(1));
    assert_eq!(span.fields["error.type"], s(category));
    // No fleet key: no provider or model is made up.
    assert!(!span.fields.contains_key("gen_ai.provider.name"));
    assert!(!span.fields.contains_key("gen_ai.request.model"));
    assert_eq!(log.events.len(), 1);
    let e = &log.events[0];
    assert_eq!(e.level, Level::WARN);
    assert_eq!(e.fields["message"], s("retry_core.give_up"));
    assert_eq!(e.fields["retry_core.event"], s("llm_request_failed"));
    assert_eq!(e.fields["exception.type"], s("openai.AuthenticationError"));
    assert_eq!(e.fields["retry_core.retryable"], Val::B(false));
}

#[test]
fn without_a_subscriber_the_drivers_run_as_before() {
    let vt = VirtualTime::default();
    let out = Retry::new(RetryPolicy::recommended())
        .seed(1)
        .sleeper(&vt)
        .clock(&vt)
        .run(|n| if n <= 1 { Err(busy()) } else { Ok(n) });
    assert_eq!(out.unwrap(), 2);
    assert_eq!(vt.slept.lock().unwrap().len(), 1);
}
