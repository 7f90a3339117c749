//! How a streamed answer ends (issue 22, "honest streams"). A stream that stops without its
//! finish or stop reason, or with a reason that reports a failure, is half an answer: the
//! bindings' helpers raise `StreamIncomplete` for it ([`Failure::stream_incomplete`] in Rust),
//! which classifies as `stream_interrupted` and so is retried like a cut connection.
//!
//! The reasons come from the providers' SDKs (each row cites its source). A reason that is
//! neither known nor listed as a failure still ends the stream: providers add stop reasons
//! (Anthropic added `pause_turn`, `refusal`, `model_context_window_exceeded`), and retrying a
//! complete answer because its reason is new would cost a call and return an error.
//!
//! ```
//! use retry_core::stream_end;
//! assert_eq!(stream_end::ends("openai", Some("tool_calls")), Ok(true));
//! assert_eq!(stream_end::ends("openai", None), Ok(false));
//! assert_eq!(stream_end::ends("openai", Some("error")), Ok(false));
//! assert_eq!(stream_end::ends("anthropic", Some("end_turn")), Ok(true));
//! let failure = stream_end::incomplete("anthropic", None).unwrap().expect("incomplete");
//! assert_eq!(retry_core::classify(&failure).category, retry_core::Category::StreamInterrupted);
//! ```

use crate::error::{Error, Result};
use crate::failure::Failure;

/// One streaming API: where its stream states why it ended, and which values it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamApi {
    /// The API's name in [`ends`] and in the bindings (`openai`, `openai_responses`, ...).
    pub name: &'static str,
    /// The field that carries the reason.
    pub field: &'static str,
    /// The reasons that end a stream properly, as the provider's SDK lists them.
    pub ends: &'static [&'static str],
    /// Reasons that are sent but report a failure: the stream is incomplete.
    pub fails: &'static [&'static str],
    /// Where the reasons were read.
    pub source: &'static str,
}

/// The streaming APIs and their reasons. Compared without regard to ASCII case (Gemini's
/// enum is case-insensitive).
pub const APIS: &[StreamApi] = &[
    StreamApi {
        name: "openai",
        field: "choices[].finish_reason",
        ends: &[
            "stop",
            "length",
            "tool_calls",
            "content_filter",
            "function_call",
        ],
        // OpenRouter and other OpenAI-compatible gateways end a stream that failed
        // mid-generation with `finish_reason: "error"` (openrouter.ai/docs/api-reference/
        // streaming, "Handling errors during streaming").
        fails: &["error"],
        source:
            "openai-python src/openai/types/chat/chat_completion_chunk.py (Choice.finish_reason)",
    },
    StreamApi {
        name: "openai_responses",
        field: "response.status",
        // `incomplete` is a proper end (max_output_tokens or content_filter, with
        // `incomplete_details`), like chat's `length`; `cancelled` was asked for.
        ends: &["completed", "incomplete", "cancelled"],
        fails: &["failed", "in_progress", "queued"],
        source: "openai-python src/openai/types/responses/response_status.py (ResponseStatus)",
    },
    StreamApi {
        name: "anthropic",
        field: "message_delta.delta.stop_reason",
        ends: &[
            "end_turn",
            "max_tokens",
            "stop_sequence",
            "tool_use",
            "pause_turn",
            "refusal",
            "model_context_window_exceeded",
        ],
        fails: &[],
        source: "anthropic-sdk-python src/anthropic/types/stop_reason.py (StopReason)",
    },
    StreamApi {
        name: "gemini",
        field: "candidates[].finishReason",
        ends: &[
            "STOP",
            "MAX_TOKENS",
            "SAFETY",
            "RECITATION",
            "LANGUAGE",
            "OTHER",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "MALFORMED_FUNCTION_CALL",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_OTHER",
            "NO_IMAGE",
            "IMAGE_RECITATION",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "MISSING_THOUGHT_SIGNATURE",
            "MALFORMED_RESPONSE",
            "ESCALATION",
            "PUP_LIMITED_DISABLED",
            "CONTINUATION",
            "MODEL_ARMOR",
        ],
        // The enum's zero value: "the finish reason is unspecified".
        fails: &["FINISH_REASON_UNSPECIFIED"],
        source: "googleapis/python-genai google/genai/types.py (FinishReason)",
    },
];

/// The class name Python's `retry_core.StreamIncomplete` reports (its `__module__` is
/// `retry_core`); the class table classifies it as `stream_interrupted`.
pub const PYTHON_CLASS: &str = "retry_core.StreamIncomplete";
/// The class name of Ruby's `RetryCore::StreamIncomplete`.
pub const RUBY_CLASS: &str = "RetryCore::StreamIncomplete";

/// For a stream whose API is not known (RubyLLM's `finish_reason` is the provider's own word):
/// a failing reason of any API counts as a failure.
pub const ANY: StreamApi = StreamApi {
    name: "any",
    field: "finish or stop reason",
    ends: &[],
    fails: &[
        "error",
        "failed",
        "in_progress",
        "queued",
        "FINISH_REASON_UNSPECIFIED",
    ],
    source: "the union of the fails of APIS",
};

/// The API named `name` (or [`ANY`] for `"any"`).
pub fn api(name: &str) -> Result<&'static StreamApi> {
    if name == ANY.name {
        return Ok(&ANY);
    }
    APIS.iter().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = APIS.iter().map(|a| a.name).collect();
        Error::invalid_argument(format!(
            "unknown streaming API {name:?}; expected one of: {}, or {:?}",
            names.join(", "),
            ANY.name
        ))
    })
}

/// Whether a stream of `api` whose last reason was `reason` ended properly: no reason (or an
/// empty one) or a failing one means it did not; any other reason means it did.
pub fn ends(api_name: &str, reason: Option<&str>) -> Result<bool> {
    let a = api(api_name)?;
    Ok(match reason.map(str::trim) {
        None | Some("") => false,
        Some(r) => !a.fails.iter().any(|f| f.eq_ignore_ascii_case(r)),
    })
}

/// What a `StreamIncomplete` says: the API, the field and what it held.
pub fn incomplete_message(api_name: &str, reason: Option<&str>) -> Result<String> {
    let a = api(api_name)?;
    Ok(match reason.map(str::trim).filter(|r| !r.is_empty()) {
        None => format!(
            "stream ended without a stop reason ({} stream, no {})",
            a.name, a.field
        ),
        Some(r) => format!(
            "stream ended without a stop reason ({} stream, {} was {:?}, a failure)",
            a.name,
            a.field,
            crate::classify::text::head(r, 64)
        ),
    })
}

/// The failure for a stream of `api` that did not end properly, or `None` when it did.
pub fn incomplete(api_name: &str, reason: Option<&str>) -> Result<Option<Failure>> {
    if ends(api_name, reason)? {
        return Ok(None);
    }
    Ok(Some(Failure::stream_incomplete(incomplete_message(
        api_name, reason,
    )?)))
}

// The user page (core/docs/streams.md): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/streams.md")]
pub struct StreamsDoc;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Category};

    #[test]
    fn every_known_reason_ends_and_none_or_a_failing_one_does_not() {
        for a in APIS {
            for r in a.ends {
                assert_eq!(ends(a.name, Some(r)), Ok(true), "{} {r}", a.name);
                assert_eq!(ends(a.name, Some(&r.to_ascii_lowercase())), Ok(true));
                assert!(!a.fails.contains(r), "{} lists {r} twice", a.name);
            }
            for r in a.fails {
                assert_eq!(ends(a.name, Some(r)), Ok(false), "{} {r}", a.name);
            }
            assert_eq!(ends(a.name, None), Ok(false));
            assert_eq!(ends(a.name, Some("  ")), Ok(false));
            // A reason the SDK does not know yet ends the stream (see the module's note).
            assert_eq!(ends(a.name, Some("a_new_reason")), Ok(true));
        }
    }

    #[test]
    fn any_fails_on_every_apis_failing_reason() {
        let mut all: Vec<&str> = APIS.iter().flat_map(|a| a.fails.iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        let mut any = ANY.fails.to_vec();
        any.sort_unstable();
        assert_eq!(any, all);
        assert_eq!(ends("any", Some("end_turn")), Ok(true));
        assert_eq!(ends("any", None), Ok(false));
    }

    #[test]
    fn an_unknown_api_is_an_error_naming_the_known_ones() {
        let e = ends("opanai", Some("stop")).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidArgument);
        assert!(e
            .message
            .contains("openai, openai_responses, anthropic, gemini"));
    }

    #[test]
    fn an_incomplete_stream_classifies_as_stream_interrupted() {
        for (api_name, reason) in [
            ("openai", None),
            ("openai", Some("error")),
            ("gemini", None),
        ] {
            let f = incomplete(api_name, reason).unwrap().expect("incomplete");
            let c = classify(&f);
            assert_eq!(c.category, Category::StreamInterrupted, "{f:?}");
            assert!(c.transient);
            assert!(f.message.contains(api(api_name).unwrap().field));
        }
        assert_eq!(incomplete("anthropic", Some("end_turn")).unwrap(), None);
    }

    #[test]
    fn the_bindings_class_names_classify_as_stream_interrupted() {
        for (class, base) in [(PYTHON_CLASS, "Exception"), (RUBY_CLASS, "StandardError")] {
            // The message says nothing: the class alone decides.
            let f = Failure::new("half an answer").with_class([class, base]);
            let c = classify(&f);
            assert_eq!(c.category, Category::StreamInterrupted, "{class}");
            assert_eq!(c.evidence, crate::Evidence::ErrorClass);
        }
    }
}
