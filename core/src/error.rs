//! The one error type of the core. Each binding maps it to a host exception in exactly one
//! file (`python-ext/src/error.rs`, `ruby-ext/src/error.rs`), keyed by [`ErrorCode::as_str`].

use std::fmt;

/// Stable snake_case codes: bindings and users match on these, never on message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A value has the wrong type or shape (a message that is not an object, a status of 70000).
    InvalidArgument,
    /// A policy configuration is inconsistent or unknown (negative delay, unknown preset).
    InvalidPolicy,
    /// Input that should be JSON is not.
    InvalidJson,
    /// A state-machine call out of order (e.g. reporting a recovery nobody asked for).
    InvalidState,
    /// A panic was caught at a boundary; it is a bug in retry-core.
    Internal,
}

impl ErrorCode {
    /// The stable snake_case code (`invalid_argument`, `invalid_policy`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::InvalidPolicy => "invalid_policy",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidState => "invalid_state",
            ErrorCode::Internal => "internal",
        }
    }
}

/// An error raised by the core: a stable code plus a human sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The stable code to match on.
    pub code: ErrorCode,
    /// A human sentence saying what was wrong.
    pub message: String,
}

impl Error {
    /// An error with the given code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }
    /// An [`ErrorCode::InvalidArgument`] error.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    /// An [`ErrorCode::InvalidPolicy`] error.
    pub fn invalid_policy(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidPolicy, message)
    }
    /// An [`ErrorCode::InvalidJson`] error.
    pub fn invalid_json(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidJson, message)
    }
    /// An [`ErrorCode::InvalidState`] error.
    pub fn invalid_state(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidState, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for Error {}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::invalid_json(e.to_string())
    }
}

/// The core's result type, with [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
