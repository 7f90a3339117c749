//! The fault script: what the lab answers, request by request.
//!
//! A script is plain JSON (see the crate README). Every type here round-trips through serde, so
//! Rust tests can build scripts either with `serde_json::json!` and [`Script::from_value`] or with
//! the structs directly.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A whole fault script.
///
/// # Default
/// No steps, `then` = `ok`, no outages, no per-key rate limit, no delay between stream chunks:
/// every request succeeds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Consumed one per model request (across both endpoints), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Fault>,
    /// Applies once the steps are used up. Default: `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Fault>,
    /// Time windows, relative to script load, in which every request gets the outage's fault.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<Outage>,
    /// A sliding-window limit per API key; over it a request gets a `rate_limit` fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit_per_key: Option<RateLimitPerKey>,
    /// Pause between two SSE chunks, in milliseconds. Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chunk_delay_ms: u64,
    /// Provider quotas per API key (token buckets for requests and tokens per minute), with
    /// each provider's rate-limit headers and 429s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<RateLimits>,
    /// Output tokens a successful answer reports in its usage (capped at the request's
    /// `max_tokens`). Default: 8, the pieces of the reply's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_tokens: Option<u64>,
}

/// What the lab sends about its quotas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitShape {
    /// Each provider's own rate-limit headers on every admitted answer (OpenAI's
    /// `x-ratelimit-*`, Anthropic's `anthropic-ratelimit-*`; Gemini sends none), and its own 429.
    #[default]
    Provider,
    /// Gemini's way on every endpoint: no rate-limit header, no `retry-after`; a 429
    /// `RESOURCE_EXHAUSTED` whose body carries `google.rpc.RetryInfo.retryDelay`.
    Gemini,
}

/// Provider quotas per API key: a token bucket per limit, holding one period's quota and
/// refilling continuously (see `quota.rs`). Requests without a key share one set of buckets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimits {
    /// Requests per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Input plus output tokens per period (OpenAI's TPM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Input tokens per period (Anthropic's ITPM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Output tokens per period (Anthropic's OTPM), reserved from `max_tokens` at admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// The period in seconds. Default 60 (limits per minute).
    #[serde(default = "RateLimits::minute")]
    pub period_s: f64,
    /// Seconds of quota a bucket holds (bursts above it are refused even within the period's
    /// limit, as providers enforce a minute's quota over shorter intervals). Default: the whole
    /// period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_s: Option<f64>,
    /// Headers and 429s as each provider sends them, or Gemini's way everywhere.
    #[serde(default)]
    pub shape: LimitShape,
}

impl RateLimits {
    fn minute() -> f64 {
        60.0
    }

    /// The bucket limits these settings describe.
    pub fn limits(&self) -> crate::quota::Limits {
        crate::quota::Limits {
            per_period: [
                self.requests,
                self.tokens,
                self.input_tokens,
                self.output_tokens,
            ],
            period_s: self.period_s,
            burst_s: self.burst_s,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.period_s.is_finite() && self.period_s > 0.0) {
            return Err("rate_limits: period_s must be > 0".into());
        }
        if let Some(b) = self.burst_s {
            if !(b.is_finite() && b > 0.0) {
                return Err("rate_limits: burst_s must be > 0".into());
            }
        }
        let all = [
            self.requests,
            self.tokens,
            self.input_tokens,
            self.output_tokens,
        ];
        if all.iter().all(Option::is_none) {
            return Err(
                "rate_limits: set at least one of requests, tokens, input_tokens, output_tokens"
                    .into(),
            );
        }
        if all.contains(&Some(0)) {
            return Err("rate_limits: a limit must be >= 1".into());
        }
        Ok(())
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One outage window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    /// Seconds after script load at which the outage begins.
    #[serde(default)]
    pub start_s: f64,
    /// How long it lasts, in seconds (fractions allowed: `0.3`).
    pub duration_s: f64,
    /// What every request in the window gets. Default: `{"fault": "unavailable"}` (503).
    #[serde(default = "Outage::default_fault")]
    pub fault: Fault,
}

impl Outage {
    fn default_fault() -> Fault {
        Fault::new(FaultKind::Unavailable)
    }

    /// Whether `elapsed` (since script load) falls in this window.
    pub fn covers(&self, elapsed: Duration) -> bool {
        let t = elapsed.as_secs_f64();
        t >= self.start_s && t < self.start_s + self.duration_s
    }
}

/// A per-key sliding-window rate limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitPerKey {
    /// Requests admitted per key within any window.
    pub requests: u32,
    /// Window length in seconds (fractions allowed).
    pub window_s: f64,
    /// The `retry-after` to send (seconds). Without it, the seconds until the oldest admitted
    /// request leaves the window, rounded up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<Value>,
}

/// The kinds of fault the lab can inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A normal, successful answer.
    Ok,
    /// Any status with an optional raw `body`.
    Status,
    /// 429 with `retry-after` / `retry-after-ms` / reset headers as given.
    RateLimit,
    /// OpenAI: 429 `insufficient_quota`. Anthropic: 400 "credit balance is too low".
    InsufficientQuota,
    /// OpenAI: 503 "The server is overloaded...". Anthropic: 529 `overloaded_error`.
    Overloaded,
    /// 500.
    ServerError,
    /// 503.
    Unavailable,
    /// 401 invalid API key.
    Unauthorized,
    /// 400 tool call without a tool result.
    ToolPairing,
    /// 400 prompt too long.
    ContextOverflow,
    /// A 200 stream that emits `after_chunks` chunks and then an SSE error.
    SseError,
    /// A 200 stream that emits `after_chunks` chunks and then breaks off without a stop reason.
    StreamCut,
    /// Read the request, then close the TCP connection without a response.
    Reset,
    /// Wait `seconds` before answering.
    Stall,
    /// An nginx or Cloudflare HTML error page.
    Html,
    /// 403: access denied (Bedrock AccessDeniedException, Gemini PERMISSION_DENIED, ...).
    Forbidden,
    /// 404: unknown model or deployment (Azure DeploymentNotFound, Ollama "try pulling it").
    ModelNotFound,
    /// 400 (422 on TGI): a malformed request.
    BadRequest,
    /// The model ran out of time (Bedrock ModelTimeoutException 408, Gemini DEADLINE_EXCEEDED).
    ModelTimeout,
    /// Expired credentials (Bedrock ExpiredTokenException 403, Gemini "API key expired").
    ExpiredToken,
    /// A safety refusal (Azure content_filter 400, OpenRouter moderation 403, Gemini
    /// promptFeedback.blockReason in a 200).
    ContentFilter,
}

impl FaultKind {
    /// The snake_case name used in scripts and in the log.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Ok => "ok",
            FaultKind::Status => "status",
            FaultKind::RateLimit => "rate_limit",
            FaultKind::InsufficientQuota => "insufficient_quota",
            FaultKind::Overloaded => "overloaded",
            FaultKind::ServerError => "server_error",
            FaultKind::Unavailable => "unavailable",
            FaultKind::Unauthorized => "unauthorized",
            FaultKind::ToolPairing => "tool_pairing",
            FaultKind::ContextOverflow => "context_overflow",
            FaultKind::SseError => "sse_error",
            FaultKind::StreamCut => "stream_cut",
            FaultKind::Reset => "reset",
            FaultKind::Stall => "stall",
            FaultKind::Html => "html",
            FaultKind::Forbidden => "forbidden",
            FaultKind::ModelNotFound => "model_not_found",
            FaultKind::BadRequest => "bad_request",
            FaultKind::ModelTimeout => "model_timeout",
            FaultKind::ExpiredToken => "expired_token",
            FaultKind::ContentFilter => "content_filter",
        }
    }
}

/// One fault. Only the fields that matter for its kind are read; the rest are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Which fault.
    pub fault: FaultKind,
    /// `status` and `html`: the HTTP status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// `status`: the raw body; a JSON string is sent as is, any other JSON value serialized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// Any fault: headers set on the response last (raw override); an empty value removes one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Any error fault: replaces the provider's error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `rate_limit`: the `retry-after` header, a number of seconds or a raw string (an HTTP-date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<Value>,
    /// `rate_limit`: the `retry-after-ms` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// `rate_limit`: when the request limit resets, a Go duration string (`"6m0s"`) or seconds.
    /// OpenAI gets `x-ratelimit-reset-requests`, Anthropic `anthropic-ratelimit-requests-reset`
    /// (an RFC 3339 time that far in the future).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<Value>,
    /// `sse_error`: the error type in the SSE error payload. Default `overloaded_error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// `sse_error`, `stream_cut`, `stall`: content chunks sent before the fault strikes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_chunks: Option<usize>,
    /// `stall`: seconds to wait (fractions allowed). Default 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// `reset`: close with a FIN instead of an RST. Default false (RST).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graceful: Option<bool>,
    /// `stream_cut`: end the HTTP body properly (only the stop reason is missing) instead of
    /// breaking the connection. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clean: Option<bool>,
    /// `stream_cut`: break the connection with an RST (SO_LINGER 0: "connection reset by peer"
    /// mid-body) instead of a plain close (a FIN: the body just ends short). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rst: Option<bool>,
    /// `stream_cut` with `clean`: close the stream with this finish reason (OpenAI) or stop
    /// reason (Anthropic) and its terminator, in place of none: a reason that reports a
    /// failure, such as OpenRouter's `"error"`. Default: no reason, no terminator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// `html`: `"nginx"` or `"cloudflare"`. Default: Cloudflare for 52x, nginx otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `sse_error`: `false` sends the error as the stream's first event, before the provider's
    /// prelude (OpenAI's role chunk, Anthropic's `message_start`...). Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prelude: Option<bool>,
}

impl Fault {
    /// A fault of this kind with every option at its default.
    pub fn new(kind: FaultKind) -> Fault {
        Fault {
            fault: kind,
            status: None,
            body: None,
            headers: BTreeMap::new(),
            message: None,
            retry_after: None,
            retry_after_ms: None,
            reset: None,
            error_type: None,
            after_chunks: None,
            seconds: None,
            graceful: None,
            clean: None,
            finish_reason: None,
            rst: None,
            server: None,
            prelude: None,
        }
    }

    /// `{"fault": "ok"}`.
    pub fn ok() -> Fault {
        Fault::new(FaultKind::Ok)
    }

    /// `{"fault": "status", "status": code}`.
    pub fn status(code: u16) -> Fault {
        Fault {
            status: Some(code),
            ..Fault::new(FaultKind::Status)
        }
    }

    /// Parses one fault from JSON text; a bare name such as `overloaded` is accepted too.
    pub fn parse(text: &str) -> Result<Fault, String> {
        let text = text.trim();
        let fault: Fault = if text.starts_with('{') {
            serde_json::from_str(text).map_err(|e| format!("invalid fault: {e}"))?
        } else {
            serde_json::from_value(serde_json::json!({ "fault": text }))
                .map_err(|e| format!("invalid fault: {e}"))?
        };
        fault.validate()?;
        Ok(fault)
    }

    /// Checks the options this fault's kind needs.
    pub fn validate(&self) -> Result<(), String> {
        let name = self.fault.name();
        match self.fault {
            FaultKind::Status => match self.status {
                Some(s) if (200..=599).contains(&s) => {}
                Some(s) => return Err(format!("status: {s} is not in 200..=599")),
                None => return Err("status: needs a \"status\"".into()),
            },
            FaultKind::Html => {
                if let Some(s) = self.status {
                    if !(400..=599).contains(&s) {
                        return Err(format!("html: status {s} is not in 400..=599"));
                    }
                }
                if let Some(server) = &self.server {
                    if server != "nginx" && server != "cloudflare" {
                        return Err(format!(
                            "html: server {server:?} is not nginx or cloudflare"
                        ));
                    }
                }
            }
            FaultKind::Stall => {
                if let Some(s) = self.seconds {
                    if !(s.is_finite() && (0.0..=3600.0).contains(&s)) {
                        return Err(format!("stall: seconds {s} is not in 0..=3600"));
                    }
                }
            }
            FaultKind::RateLimit => {
                match &self.retry_after {
                    None | Some(Value::String(_)) => {}
                    Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0) => {}
                    Some(v) => {
                        return Err(format!(
                            "rate_limit: retry_after {v} is not a number >= 0 or a string"
                        ))
                    }
                }
                if let Some(r) = &self.reset {
                    reset_duration(r).ok_or_else(|| {
                        format!("rate_limit: reset {r} is not seconds or a duration like \"6m0s\"")
                    })?;
                }
            }
            // An RST needs a connection to break: a clean end has none.
            FaultKind::StreamCut if self.clean == Some(true) && self.rst == Some(true) => {
                return Err("stream_cut: clean and rst exclude each other".into());
            }
            FaultKind::StreamCut if self.finish_reason.is_some() && self.clean != Some(true) => {
                return Err("stream_cut: finish_reason needs clean: true".into());
            }
            _ => {}
        }
        for (k, v) in &self.headers {
            if hyper::header::HeaderName::from_bytes(k.as_bytes()).is_err()
                || hyper::header::HeaderValue::from_str(v).is_err()
            {
                return Err(format!("{name}: invalid header {k:?}: {v:?}"));
            }
        }
        Ok(())
    }
}

impl Script {
    /// Parses and validates a script from JSON text.
    pub fn parse(text: &str) -> Result<Script, String> {
        let script: Script =
            serde_json::from_str(text).map_err(|e| format!("invalid script: {e}"))?;
        script.validate()?;
        Ok(script)
    }

    /// Parses and validates a script from a JSON value.
    pub fn from_value(value: Value) -> Result<Script, String> {
        let script: Script =
            serde_json::from_value(value).map_err(|e| format!("invalid script: {e}"))?;
        script.validate()?;
        Ok(script)
    }

    /// Checks every fault and window in the script.
    pub fn validate(&self) -> Result<(), String> {
        for (i, f) in self.steps.iter().enumerate() {
            f.validate().map_err(|e| format!("steps[{i}]: {e}"))?;
        }
        if let Some(f) = &self.then {
            f.validate().map_err(|e| format!("then: {e}"))?;
        }
        for (i, o) in self.outages.iter().enumerate() {
            if !(o.start_s.is_finite() && o.start_s >= 0.0) {
                return Err(format!("outages[{i}]: start_s must be >= 0"));
            }
            if !(o.duration_s.is_finite() && o.duration_s > 0.0) {
                return Err(format!("outages[{i}]: duration_s must be > 0"));
            }
            o.fault
                .validate()
                .map_err(|e| format!("outages[{i}].fault: {e}"))?;
        }
        if let Some(rl) = &self.rate_limit_per_key {
            if rl.requests == 0 {
                return Err("rate_limit_per_key: requests must be >= 1".into());
            }
            if !(rl.window_s.is_finite() && rl.window_s > 0.0) {
                return Err("rate_limit_per_key: window_s must be > 0".into());
            }
            let probe = Fault {
                retry_after: rl.retry_after.clone(),
                ..Fault::new(FaultKind::RateLimit)
            };
            probe
                .validate()
                .map_err(|e| format!("rate_limit_per_key: {e}"))?;
        }
        if let Some(rl) = &self.rate_limits {
            rl.validate()?;
        }
        Ok(())
    }
}

/// `reset` as a duration: a number of seconds or a Go-style duration string.
pub(crate) fn reset_duration(v: &Value) -> Option<Duration> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(Duration::from_secs_f64),
        Value::String(s) => parse_go_duration(s),
        _ => None,
    }
}

/// Parses Go's `time.Duration` text as OpenAI sends it: `6m0s`, `1.5s`, `120ms`, `1h2m3s`.
pub(crate) fn parse_go_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_end == 0 {
            return None;
        }
        let n: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += n * scale;
        rest = &rest[unit_end..];
    }
    Some(Duration::from_secs_f64(total))
}

/// Formats a duration the way Go (and so OpenAI's `x-ratelimit-reset-*`) does: `6m0s`, `1.5s`,
/// `120ms`.
pub(crate) fn format_go_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let h = ms / 3_600_000;
    let m = (ms / 60_000) % 60;
    let s_ms = ms % 60_000;
    let frac_ms = s_ms % 1000;
    let secs = if frac_ms == 0 {
        format!("{}s", s_ms / 1000)
    } else {
        let frac = format!("{frac_ms:03}");
        format!("{}.{}s", s_ms / 1000, frac.trim_end_matches('0'))
    };
    if h > 0 {
        format!("{h}h{m}m{secs}")
    } else if m > 0 {
        format!("{m}m{secs}")
    } else {
        secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_round_trip() {
        assert_eq!(parse_go_duration("6m0s"), Some(Duration::from_secs(360)));
        assert_eq!(parse_go_duration("120ms"), Some(Duration::from_millis(120)));
        assert_eq!(
            parse_go_duration("1h2m3.5s"),
            Some(Duration::from_secs_f64(3723.5))
        );
        assert_eq!(parse_go_duration("soon"), None);
        assert_eq!(format_go_duration(Duration::from_secs(360)), "6m0s");
        assert_eq!(format_go_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_go_duration(Duration::from_millis(120)), "120ms");
        assert_eq!(format_go_duration(Duration::from_secs(3723)), "1h2m3s");
    }

    #[test]
    fn unknown_fields_and_kinds_are_rejected() {
        assert!(Script::parse(r#"{"steps":[{"fault":"rate_limit","retry-after":1}]}"#).is_err());
        assert!(Script::parse(r#"{"steps":[{"fault":"teapot"}]}"#).is_err());
        assert!(Script::parse(r#"{"steps":[{"fault":"status"}]}"#).is_err());
        assert!(Script::parse(r#"{"stepz":[]}"#).is_err());
        assert!(Fault::parse("overloaded").is_ok());
    }

    #[test]
    fn a_closing_finish_reason_needs_a_clean_cut() {
        let cut = |extra: &str| Fault::parse(&format!(r#"{{"fault":"stream_cut"{extra}}}"#));
        assert!(cut(r#","clean":true,"finish_reason":"error""#).is_ok());
        assert_eq!(
            cut(r#","finish_reason":"error""#).unwrap_err(),
            "stream_cut: finish_reason needs clean: true"
        );
    }
}
