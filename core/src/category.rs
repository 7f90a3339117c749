//! Categories (CONTRACT §2) and the classification the engine returns.

use serde::{Deserialize, Serialize};

/// What kind of failure this is. The snake_case names are the same in all three languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    RateLimited,
    Overloaded,
    ServerError,
    Timeout,
    Connection,
    StreamInterrupted,
    OrphanToolCalls,
    ContextOverflow,
    PaymentRequired,
    Unauthorized,
    Forbidden,
    NotFound,
    ContentFiltered,
    Unprocessable,
    BadRequest,
    ClientError,
    InvalidResponse,
    Validation,
    Configuration,
    Programming,
    Cancelled,
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
    Transient,
    Permanent,
}

/// Which piece of evidence decided the category (for explanations and the demo timeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    Cancellation,
    Status,
    Body,
    ErrorClass,
    Transport,
    Message,
    Nothing,
}

impl Evidence {
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
}

/// The result of [`crate::classify`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    pub category: Category,
    /// Whether the failure is worth retrying. Usually `category.is_transient()`, but an explicit
    /// `x-should-retry` header overrides it.
    pub transient: bool,
    /// Seconds the server asked us to wait, if it said.
    pub retry_after: Option<f64>,
    pub retry_after_source: Option<RetryAfterSource>,
    /// A short friendly name (`RateLimit`, `Unauthorized`, `BadRequest`; a programming error's class).
    pub error_type: String,
    pub status: Option<u16>,
    /// What decided the category.
    pub evidence: Evidence,
    /// The failure came from an LLM client's own API-error class (e.g. `RubyLLM::Error`) rather
    /// than from the network or the program. SwarmSDK does not retry such errors without a status.
    pub api_error: bool,
}

impl Classification {
    pub fn error_class(&self) -> ErrorClass {
        if self.transient {
            ErrorClass::Transient
        } else {
            ErrorClass::Permanent
        }
    }
}
