//! Categories (CONTRACT §2) and the classification the engine returns.

use serde::{Deserialize, Serialize};

/// What kind of failure this is. The snake_case names are the same in all three languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Too many requests: 429, `rate_limit_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`.
    /// Transient.
    RateLimited,
    /// The provider is overloaded: 529, `overloaded_error`, a 503 that says "overloaded".
    /// Transient.
    Overloaded,
    /// A server-side failure: 500, 502, 503, 504, any other 5xx, `api_error`, proxy error pages.
    /// Transient.
    ServerError,
    /// The request timed out: 408, or a read, connect or pool timeout of the HTTP client.
    /// Transient.
    Timeout,
    /// The connection failed: refused, reset, closed early, a remote protocol error, a temporary
    /// DNS failure. Transient.
    Connection,
    /// A streamed response broke off: an SSE `error` event of a transient or unknown type, or a
    /// stream that ended without a stop reason. Transient.
    StreamInterrupted,
    /// A 400 saying a tool call has no matching result. Not transient, but recoverable once by
    /// pruning the orphan tool calls (see [`crate::orphan`]).
    OrphanToolCalls,
    /// The prompt is longer than the model's context window (`context_length_exceeded`, 413).
    /// Not transient.
    ContextOverflow,
    /// Out of credits or quota: 402, OpenAI's 429 `insufficient_quota`, billing limits. Not
    /// transient.
    PaymentRequired,
    /// The credentials were rejected: 401, `authentication_error`, an invalid API key. Not
    /// transient.
    Unauthorized,
    /// The credentials lack permission: 403, `permission_error`. Not transient.
    Forbidden,
    /// The resource or model does not exist: 404. Not transient.
    NotFound,
    /// The provider refused the content (a safety or content filter). Not transient.
    ContentFiltered,
    /// The request was understood but rejected: 422. Not transient.
    Unprocessable,
    /// Any other 400, or `invalid_request_error`. Not transient.
    BadRequest,
    /// Any other 4xx status. Not transient.
    ClientError,
    /// The response could not be read: malformed JSON, an SSE protocol violation, an SSE
    /// `invalid_request_error`. Not transient.
    InvalidResponse,
    /// The model's output failed schema validation. Not transient: retried only when validation
    /// retries are configured (a per-category override of the policy).
    Validation,
    /// The setup is wrong: a missing key, an unknown model, a bad URL or host, a TLS certificate
    /// error. Not transient.
    Configuration,
    /// A bug in the calling program (`TypeError`, `ArgumentError`, `NoMethodError`, ...). Not
    /// transient.
    Programming,
    /// The call was cancelled or interrupted. Never retried; the host re-raises it untouched.
    Cancelled,
    /// Nothing recognisable. Retried only when the policy's `retry_unknown` (or, for an LLM
    /// client's API error without a status, `retry_unknown_api`) says so.
    Unknown,
}

/// One row per category: name, transient by nature, friendly error type.
/// A table, so that a new category is one line.
const TABLE: [(Category, &str, bool, &str); 22] = [
    (Category::RateLimited, "rate_limited", true, "RateLimit"),
    (Category::Overloaded, "overloaded", true, "Overloaded"),
    (Category::ServerError, "server_error", true, "ServerError"),
    (Category::Timeout, "timeout", true, "Timeout"),
    (Category::Connection, "connection", true, "ConnectionError"),
    (
        Category::StreamInterrupted,
        "stream_interrupted",
        true,
        "StreamInterrupted",
    ),
    (
        Category::OrphanToolCalls,
        "orphan_tool_calls",
        false,
        "OrphanToolCalls",
    ),
    (
        Category::ContextOverflow,
        "context_overflow",
        false,
        "ContextOverflow",
    ),
    (
        Category::PaymentRequired,
        "payment_required",
        false,
        "PaymentRequired",
    ),
    (
        Category::Unauthorized,
        "unauthorized",
        false,
        "Unauthorized",
    ),
    (Category::Forbidden, "forbidden", false, "Forbidden"),
    (Category::NotFound, "not_found", false, "NotFound"),
    (
        Category::ContentFiltered,
        "content_filtered",
        false,
        "ContentFiltered",
    ),
    (
        Category::Unprocessable,
        "unprocessable",
        false,
        "UnprocessableEntity",
    ),
    (Category::BadRequest, "bad_request", false, "BadRequest"),
    (Category::ClientError, "client_error", false, "ClientError"),
    (
        Category::InvalidResponse,
        "invalid_response",
        false,
        "InvalidResponse",
    ),
    (Category::Validation, "validation", false, "ValidationError"),
    (
        Category::Configuration,
        "configuration",
        false,
        "ConfigurationError",
    ),
    (
        Category::Programming,
        "programming",
        false,
        "ProgrammingError",
    ),
    (Category::Cancelled, "cancelled", false, "Cancelled"),
    (Category::Unknown, "unknown", false, "Unknown"),
];

impl Category {
    /// Every category, in contract order.
    pub fn all() -> impl Iterator<Item = Category> {
        TABLE.iter().map(|r| r.0)
    }

    fn row(self) -> &'static (Category, &'static str, bool, &'static str) {
        &TABLE[self as usize]
    }

    /// The snake_case name used in vectors, events and every binding.
    pub fn as_str(self) -> &'static str {
        self.row().1
    }

    /// Whether failures of this category are worth retrying by their nature.
    pub fn is_transient(self) -> bool {
        self.row().2
    }

    /// The friendly error type name (`RateLimit`, `Unauthorized`, ...).
    pub fn error_type(self) -> &'static str {
        self.row().3
    }

    /// The category named `name` (its snake_case name, as [`Category::as_str`] gives it), or `None`
    /// for an unknown name.
    pub fn parse(name: &str) -> Option<Category> {
        TABLE.iter().find(|r| r.1 == name).map(|r| r.0)
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The two-valued view (Forgeflare's `ErrorClass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Worth retrying.
    Transient,
    /// Not worth retrying.
    Permanent,
}

impl ErrorClass {
    /// `transient` or `permanent`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Transient => "transient",
            ErrorClass::Permanent => "permanent",
        }
    }
}

/// Which piece of evidence decided the category (for explanations and the demo timeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// The failure is a cancellation or interrupt.
    Cancellation,
    /// The HTTP status code, possibly refined by the provider's error code or the message.
    Status,
    /// The body (the provider's error type or code, or an SSE `error` event), where no status
    /// decided.
    Body,
    /// The exception class chain.
    ErrorClass,
    /// The transport hint of a Rust client.
    Transport,
    /// The message text.
    Message,
    /// Nothing matched: the category is [`Category::Unknown`].
    Nothing,
}

impl Evidence {
    /// The snake_case name of the evidence (`status`, `error_class`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Cancellation => "cancellation",
            Evidence::Status => "status",
            Evidence::Body => "body",
            Evidence::ErrorClass => "error_class",
            Evidence::Transport => "transport",
            Evidence::Message => "message",
            Evidence::Nothing => "nothing",
        }
    }
}

/// Where a `retry_after` value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfterSource {
    /// `retry-after-ms` or `retry-after`: the server's instruction.
    Header,
    /// A provider rate-limit reset header: a hint, never a reason to give up.
    ResetHint,
    /// A wait the error body gives as data: Gemini's `google.rpc.RetryInfo.retryDelay`
    /// ("36s", "0.5s"). The server's instruction, like a header.
    Body,
    /// A wait the error's words state: OpenAI's "Please try again in 6.5s", "please try again
    /// after 1 seconds", "请20秒后重试". The server's instruction, like a header.
    Message,
}

impl RetryAfterSource {
    /// `header`, `reset_hint`, `body` or `message`.
    pub fn as_str(self) -> &'static str {
        match self {
            RetryAfterSource::Header => "header",
            RetryAfterSource::ResetHint => "reset_hint",
            RetryAfterSource::Body => "body",
            RetryAfterSource::Message => "message",
        }
    }

    /// Whether the wait is the server's instruction (a header, or the same wait stated in the
    /// body or the message): honoured and capped as a header is, unlike a reset hint.
    pub fn is_instruction(self) -> bool {
        !matches!(self, RetryAfterSource::ResetHint)
    }
}

/// The result of [`classify`](fn@crate::classify).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    /// The category of the failure.
    pub category: Category,
    /// Whether the failure is worth retrying. Usually `category.is_transient()`, but an explicit
    /// `x-should-retry` header overrides it.
    pub transient: bool,
    /// Seconds the server asked us to wait, if it said.
    pub retry_after: Option<f64>,
    /// Where `retry_after` came from, when it is set.
    pub retry_after_source: Option<RetryAfterSource>,
    /// A short friendly name (`RateLimit`, `Unauthorized`, `BadRequest`; a programming error's class).
    pub error_type: String,
    /// The failure's HTTP status code, if it carried one.
    pub status: Option<u16>,
    /// What decided the category.
    pub evidence: Evidence,
    /// The failure came from an LLM client's own API-error class (e.g. `RubyLLM::Error`) rather
    /// than from the network or the program. SwarmSDK does not retry such errors without a status.
    pub api_error: bool,
}

impl Classification {
    /// The two-valued view: [`ErrorClass::Transient`] when `transient` is true, else
    /// [`ErrorClass::Permanent`]. (Named for what it says, not `error_class`: a failure's
    /// `error_class` is its exception's class chain.)
    pub fn transience(&self) -> ErrorClass {
        if self.transient {
            ErrorClass::Transient
        } else {
            ErrorClass::Permanent
        }
    }
}
