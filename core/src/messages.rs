//! The messages people read: SwarmSDK's error message format, the give-up note, the log line of
//! each event and seconds formatting. Written once here; the bindings only pass them on.

use serde_json::Value;

use crate::category::{Category, Classification};
use crate::events::{Event, EventKind};
use crate::failure::Failure;
use crate::machine::{Action, Decision, GiveUpReason};
use crate::scrub::scrub;

/// The level of a log line: which events a front door logs, at which level, and the line (one
/// prefix, rounded numbers). The front doors log exactly these lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// Shown by default (Python's `logging.WARNING`, Ruby's `Logger::WARN`).
    Warning,
    /// Shown when asked for (`logging.INFO`, `Logger::INFO`).
    Info,
    /// Detail for whoever debugs (`logging.DEBUG`, `Logger::DEBUG`): a wait asked again.
    Debug,
}

impl LogLevel {
    /// `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Warning => "warning",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        }
    }
}

/// One line of guidance per category, after SwarmSDK's `format_error_message`.
const GUIDANCE: &[(Category, &str)] = &[
    (Category::Unauthorized, "Please check your API credentials."),
    (
        Category::PaymentRequired,
        "Please check your account billing status.",
    ),
    (
        Category::Forbidden,
        "You may not have permission to access this resource.",
    ),
    (Category::BadRequest, "The request format may be invalid."),
    (
        Category::OrphanToolCalls,
        "The request format may be invalid.",
    ),
    (
        Category::ContextOverflow,
        "The conversation is too long for the model's context window; shorten or compact it.",
    ),
    (
        Category::NotFound,
        "Please check the model name and endpoint.",
    ),
    (
        Category::ContentFiltered,
        "The provider's content filter refused the request.",
    ),
    (
        Category::Configuration,
        "Please check your configuration (API key, model, base URL).",
    ),
];
const DEFAULT_GUIDANCE: &str = "Please review the error and try again.";

/// The guidance sentence for a category.
pub fn guidance(category: Category) -> &'static str {
    GUIDANCE
        .iter()
        .find(|(c, _)| *c == category)
        .map_or(DEFAULT_GUIDANCE, |(_, g)| g)
}

/// The last segment of a class name (`RubyLLM::UnauthorizedError` -> `UnauthorizedError`).
pub fn short_class(name: &str) -> &str {
    let s = name.rsplit("::").next().unwrap_or(name);
    s.rsplit('.').next().unwrap_or(s)
}

/// SwarmSDK's error text, returned as the assistant's message on a non-retryable error.
/// Secrets are scrubbed; the request body is never included.
pub fn error_message(failure: &Failure, c: &Classification) -> String {
    let class = failure
        .error_class
        .first()
        .map(|s| short_class(s))
        .unwrap_or(c.error_type.as_str());
    let mut msg = String::from("I encountered an error while processing your request:\n\n");
    msg.push_str(&format!("**Error Type:** {class}\n"));
    if let Some(status) = failure.status {
        msg.push_str(&format!("**Status Code:** {status}\n"));
    }
    msg.push_str(&format!("**Message:** {}\n\n", scrub(&failure.message)));
    msg.push_str("This error indicates a problem that cannot be automatically recovered. ");
    msg.push_str(guidance(c.category));
    msg
}

/// Seconds as people write them: `2`, `1.5`, `0.25`.
pub fn format_seconds(s: f64) -> String {
    if s.fract() == 0.0 && s.abs() < 1e15 {
        format!("{}", s as i64)
    } else {
        let t = format!("{s:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// Seconds for a log line: one decimal under 10 s, whole seconds above (`0.3`, `2`, `1.5`, `30`).
pub fn round_seconds(s: f64) -> String {
    if !s.is_finite() {
        return format_seconds(s);
    }
    let r = if s.abs() < 10.0 {
        (s * 10.0).round() / 10.0
    } else {
        s.round()
    };
    format_seconds(r)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Why the engine stopped, as the note and the log say it.
fn give_up_reason_text(reason: GiveUpReason, attempts: u64) -> String {
    let after = format!("gave up after {}", plural(attempts, "attempt", "attempts"));
    // Exhaustive on purpose: a new reason must get its sentence here.
    match reason {
        GiveUpReason::Permanent => "not retried".to_owned(),
        GiveUpReason::Exhausted => format!("{after} (limit reached)"),
        GiveUpReason::RetryAfterTooLong => {
            format!("{after}: the server asked for a longer wait than the policy allows")
        }
        GiveUpReason::Deadline => format!("{after}: the next wait would pass the deadline"),
        GiveUpReason::BudgetExhausted => {
            format!("{after}: the fleet's retry budget for this key is spent")
        }
        GiveUpReason::CircuitOpen => format!(
            "{after}: the fleet holds this key back (open circuit or shared pause) past the deadline"
        ),
    }
}

/// The note attached to an error re-raised after `d`:
/// `retry-core: rate_limited (transient, status 429); gave up after 3 attempts (limit reached)`.
pub fn give_up_note(d: &Decision) -> String {
    let c = &d.classification;
    let mut head = format!(
        "retry-core: {} ({}",
        c.category,
        if c.transient {
            "transient"
        } else {
            "permanent"
        }
    );
    if let Some(s) = c.status {
        head.push_str(&format!(", status {s}"));
    }
    if let Some(ra) = c.retry_after {
        head.push_str(&format!(", retry-after {} s", format_seconds(ra)));
    }
    head.push(')');
    let tail = match d.action {
        Action::GiveUp { reason } => give_up_reason_text(reason, u64::from(d.attempt)),
        Action::Retry { delay } => format!("retrying in {} s", format_seconds(delay)),
        Action::PruneOrphans => "recovering by pruning orphan tool calls".to_owned(),
        Action::CompactContext => "recovering by compacting the context".to_owned(),
        Action::Reraise => "cancelled; re-raised untouched".to_owned(),
    };
    format!("{head}; {tail}")
}

fn field<'a>(e: &'a Event, key: &str) -> Option<&'a Value> {
    e.get(key).filter(|v| !v.is_null())
}

fn field_str(e: &Event, key: &str) -> String {
    match field(e, key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "?".to_owned(),
    }
}

fn field_u64(e: &Event, key: &str) -> u64 {
    field(e, key).and_then(Value::as_u64).unwrap_or(0)
}

fn field_secs(e: &Event, key: &str) -> String {
    round_seconds(field(e, key).and_then(Value::as_f64).unwrap_or(0.0))
}

/// `rate_limited (RateLimitError, status 429)`: what failed, for a log line.
fn what_failed(e: &Event) -> String {
    let mut s = field_str(e, "category");
    let class = field(e, "error_class")
        .and_then(Value::as_str)
        .map(short_class);
    let status = field(e, "status_code").and_then(Value::as_u64);
    match (class, status) {
        (Some(c), Some(st)) => s.push_str(&format!(" ({c}, status {st})")),
        (Some(c), None) => s.push_str(&format!(" ({c})")),
        (None, Some(st)) => s.push_str(&format!(" (status {st})")),
        (None, None) => {}
    }
    s
}

/// `key=value` pairs of the other keys, numbers rounded, for the fleet's events.
fn pairs(e: &Event) -> String {
    e.fields
        .iter()
        .map(|(k, v)| match v {
            Value::Number(n) if n.is_f64() => {
                format!("{k}={}", round_seconds(n.as_f64().unwrap_or(0.0)))
            }
            Value::String(s) => format!("{k}={}", scrub(s)),
            v => format!("{k}={v}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The log line of an event, and its level, or `None` for events that are not logged (a
/// retry's wait is announced by its `llm_retry_attempt`, so its wait events are not).
/// Every line starts with one `retry-core: `.
pub fn log_line(e: &Event) -> Option<(LogLevel, String)> {
    use LogLevel::{Info, Warning};
    let model = || {
        field(e, "model")
            .and_then(Value::as_str)
            .map(|m| format!(" {m}"))
    };
    // The gate asked the same wait again: its first line said it; the repeats are detail.
    let repeat = field(e, "recheck").is_some();
    let (level, text) = match e.kind {
        EventKind::RetryAttempt => {
            let mut t = format!(
                "{}, attempt {}/{} failed; retrying in {} s",
                what_failed(e),
                field_u64(e, "attempt"),
                field_u64(e, "max_retries"),
                field_secs(e, "retry_delay"),
            );
            if field(e, "retry_after").is_some() {
                t.push_str(" (the server's retry-after)");
            }
            (Warning, t)
        }
        EventKind::RetryExhausted => {
            let reason = field(e, "reason")
                .and_then(Value::as_str)
                .and_then(GiveUpReason::from_name)
                .unwrap_or(GiveUpReason::Exhausted);
            let t = give_up_reason_text(reason, field_u64(e, "attempts"));
            (Warning, format!("{}; {t}", what_failed(e)))
        }
        EventKind::RequestFailed => (
            Warning,
            format!("{}; not retried (permanent)", what_failed(e)),
        ),
        EventKind::OrphansPruned => (
            Info,
            format!(
                "pruned {}; retrying at once",
                plural(
                    field_u64(e, "pruned_count"),
                    "orphan tool call",
                    "orphan tool calls"
                )
            ),
        ),
        EventKind::ContextCompacted => (Info, "compacted the context; retrying at once".to_owned()),
        EventKind::WaitStarted => match field(e, "reason").and_then(Value::as_str) {
            Some(r @ ("fleet_pause" | "circuit_open")) => (
                if repeat { LogLevel::Debug } else { Warning },
                format!(
                    "the fleet holds{} back ({}); waiting {} s",
                    model().unwrap_or_else(|| " this key".to_owned()),
                    r.replace('_', " "),
                    field_secs(e, "seconds")
                ),
            ),
            _ => return None,
        },
        EventKind::ModelFallback => (
            Warning,
            format!(
                "model {} gave up ({}, {}); trying {}",
                field_str(e, "from"),
                field_str(e, "category"),
                field_str(e, "reason").replace('_', " "),
                field_str(e, "to")
            ),
        ),
        EventKind::ModelSkipped => (
            Warning,
            format!(
                "the fleet holds model{} back for {} s; skipping it",
                model().unwrap_or_default(),
                field_secs(e, "seconds")
            ),
        ),
        EventKind::ValidationRetry => (
            Info,
            format!(
                "output{} failed validation; calling again with feedback ({}/{})",
                model().map(|m| format!(" of{m}")).unwrap_or_default(),
                field_u64(e, "validation_retry"),
                field_u64(e, "max_validation_retries")
            ),
        ),
        EventKind::LayersStacked => (
            Warning,
            format!(
                "the client retries each request itself ({}); with {} the layers multiply to \
                 {} requests per call. Turn one layer off (openai/anthropic: max_retries=0)",
                plural(field_u64(e, "client_retries"), "retry", "retries"),
                plural(field_u64(e, "attempts"), "attempt", "attempts"),
                field_u64(e, "requests")
            ),
        ),
        EventKind::CircuitOpened
        | EventKind::RetryBudgetExhausted
        | EventKind::FleetBackendDegraded => (Warning, format!("{} {}", e.kind, pairs(e))),
        EventKind::CircuitClosed | EventKind::RateLimitPause | EventKind::FleetBackendRecovered => {
            (Info, format!("{} {}", e.kind, pairs(e)))
        }
        EventKind::AdmissionWait => (
            Info,
            format!(
                "admission holds a call of {} back {} s to stay under its {} limit",
                field_str(e, "key"),
                field_secs(e, "seconds"),
                field(e, "limited_by")
                    .and_then(Value::as_str)
                    .unwrap_or("rate")
                    .replace('_', " ")
            ),
        ),
        EventKind::LimitsLearned => (
            Info,
            format!(
                "learned the {} limit of {}: {} per {} s (from {})",
                field_str(e, "dimension").replace('_', " "),
                field_str(e, "key"),
                field(e, "limit")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
                    .round(),
                field_secs(e, "window_s"),
                field_str(e, "source")
            ),
        ),
        EventKind::WaitFinished => return None,
    };
    Some((level, format!("retry-core: {}", text.trim_end())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(format_seconds(2.0), "2");
        assert_eq!(format_seconds(1.5), "1.5");
        assert_eq!(format_seconds(0.02), "0.02");
    }

    #[test]
    fn log_lines_have_one_prefix_and_rounded_numbers() {
        use crate::machine::Retrier;
        use crate::policy::RetryPolicy;
        let mut r = Retrier::new(RetryPolicy::recommended()).with_seed(3);
        let f = Failure::http(429, "slow down")
            .with_class(["openai.RateLimitError"])
            .with_header("retry-after", "1.23456");
        let d = r.on_failure(&f, 0.0);
        let (level, line) = log_line(&d.events[0]).unwrap();
        assert_eq!(level, LogLevel::Warning);
        assert_eq!(
            line,
            "retry-core: rate_limited (RateLimitError, status 429), attempt 1/30 failed; \
             retrying in 1.2 s (the server's retry-after)"
        );
        let mut r = Retrier::new(RetryPolicy::swarm_sdk(1, 15.0));
        let d = r.on_failure(&Failure::http(503, "busy"), 0.0);
        let (_, line) = log_line(&d.events[0]).unwrap();
        assert_eq!(
            line,
            "retry-core: server_error (status 503); gave up after 1 attempt (limit reached)"
        );
        assert_eq!(line.matches("retry-core:").count(), 1);
    }

    #[test]
    fn a_retry_wait_is_announced_once_and_a_fleet_wait_by_its_own_line() {
        let backoff = Event::new(EventKind::WaitStarted)
            .with("seconds", 30.0)
            .with("reason", "backoff");
        assert_eq!(log_line(&backoff), None, "llm_retry_attempt announced it");
        let open = Event::new(EventKind::WaitStarted)
            .with("model", "gpt-4o")
            .with("seconds", 4.567)
            .with("reason", "circuit_open");
        assert_eq!(
            log_line(&open),
            Some((
                LogLevel::Warning,
                "retry-core: the fleet holds gpt-4o back (circuit open); waiting 4.6 s".to_owned()
            ))
        );
        let again = open.clone().with("recheck", 3);
        assert_eq!(log_line(&again).map(|(l, _)| l), Some(LogLevel::Debug));
        assert_eq!(round_seconds(29.7), "30");
        assert_eq!(round_seconds(0.04), "0");
    }
}
