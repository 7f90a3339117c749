//! The one place where `retry_core::Error` codes become Ruby exceptions.
//!
//! The classes are defined in Ruby (`lib/retry_core/error.rb`) so that they carry docs and are
//! rescuable before the extension loads; the extension requires that file at init, looks each
//! class up once and keeps it (marked) for the life of the process.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use magnus::{prelude::*, value::Lazy, Error, ExceptionClass, RModule, RString, Ruby};
use retry_core::__private::scrub::scrub;
use retry_core::{Error as CoreError, ErrorCode};

use crate::convert::rstring_lossy;

fn lookup(ruby: &Ruby, name: &str) -> Result<ExceptionClass, Error> {
    let module: RModule = ruby.class_object().const_get("RetryCore")?;
    module.const_get(name)
}

fn forced(ruby: &Ruby, name: &str) -> ExceptionClass {
    // `init` has already looked every class up successfully, so this cannot fail afterwards;
    // StandardError is a last resort that keeps a bug here from becoming a crash.
    lookup(ruby, name).unwrap_or_else(|_| ruby.exception_standard_error())
}

static INVALID_ARGUMENT: Lazy<ExceptionClass> = Lazy::new(|r| forced(r, "InvalidArgumentError"));
static INVALID_POLICY: Lazy<ExceptionClass> = Lazy::new(|r| forced(r, "InvalidPolicyError"));
static INVALID_JSON: Lazy<ExceptionClass> = Lazy::new(|r| forced(r, "InvalidJsonError"));
static INVALID_STATE: Lazy<ExceptionClass> = Lazy::new(|r| forced(r, "InvalidStateError"));
static INTERNAL: Lazy<ExceptionClass> = Lazy::new(|r| forced(r, "InternalError"));

const CLASSES: [(ErrorCode, &str); 5] = [
    (ErrorCode::InvalidArgument, "InvalidArgumentError"),
    (ErrorCode::InvalidPolicy, "InvalidPolicyError"),
    (ErrorCode::InvalidJson, "InvalidJsonError"),
    (ErrorCode::InvalidState, "InvalidStateError"),
    (ErrorCode::Internal, "InternalError"),
];

/// Loads `retry_core/error` and resolves every class, so a missing one fails `require`
/// rather than some later call.
pub fn init(ruby: &Ruby) -> Result<(), Error> {
    ruby.require("retry_core/error")?;
    for (_, name) in CLASSES {
        lookup(ruby, name)?;
    }
    for lazy in [
        &INVALID_ARGUMENT,
        &INVALID_POLICY,
        &INVALID_JSON,
        &INVALID_STATE,
        &INTERNAL,
    ] {
        Lazy::force(lazy, ruby);
    }
    Ok(())
}

fn class_for(ruby: &Ruby, code: ErrorCode) -> ExceptionClass {
    let lazy = match code {
        ErrorCode::InvalidArgument => &INVALID_ARGUMENT,
        ErrorCode::InvalidPolicy => &INVALID_POLICY,
        ErrorCode::InvalidJson => &INVALID_JSON,
        ErrorCode::InvalidState => &INVALID_STATE,
        ErrorCode::Internal => &INTERNAL,
    };
    ruby.get_inner(lazy)
}

/// A core error as the matching `RetryCore::*Error`. Its text may quote the input (a serde
/// message names an unknown key, a bad value): it is scrubbed like every other text.
pub fn to_ruby(ruby: &Ruby, e: CoreError) -> Error {
    Error::new(class_for(ruby, e.code), scrub(&e.message).into_owned())
}

/// `RetryCore::InvalidArgumentError` (an `ArgumentError`) with `message`.
pub fn invalid_argument(ruby: &Ruby, message: impl Into<String>) -> Error {
    to_ruby(ruby, CoreError::invalid_argument(message))
}

/// Ruby's own `TypeError`, for a value of the wrong class.
pub fn type_error(ruby: &Ruby, message: impl Into<String>) -> Error {
    Error::new(ruby.exception_type_error(), message.into())
}

/// Runs one entry point: a Rust panic becomes `RetryCore::InternalError` instead of crossing
/// into Ruby (magnus would turn it into `fatal`, which ends the process).
pub fn guard<T>(ruby: &Ruby, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(Error::new(
            class_for(ruby, ErrorCode::Internal),
            format!(
                "retry-core panicked (a bug, please report it): {}",
                scrub(&panic_text(&payload))
            ),
        )),
    }
}

/// Panics print one scrubbed line (and a backtrace when `RUST_BACKTRACE` asks for one) instead
/// of the default hook's raw message: a panic text can quote the input, and stderr ends up in
/// logs. The hook belongs to this extension's copy of the Rust runtime only.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let text = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => format!("\n{backtrace}"),
            _ => String::new(),
        };
        eprintln!(
            "retry-core (Ruby extension) panicked{at}: {}; raised as RetryCore::InternalError{backtrace}",
            scrub(&text)
        );
    }));
}

fn panic_text(payload: &Box<dyn Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// `RetryCore::Native._debug_panic(message)`: a panic inside the core, on purpose, so that the
/// suite can prove it arrives as `RetryCore::InternalError` and the process lives on.
pub fn debug_panic(ruby: &Ruby, message: RString) -> Result<(), Error> {
    let message = rstring_lossy(message);
    guard(ruby, || retry_core::__private::debug_panic(&message))
}
