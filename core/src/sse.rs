//! Server-sent `error` events inside a stream (Forgeflare R1): the classification type is
//! `p["error"]["type"]`, never the top-level `p["type"]` (always `"error"`).

use crate::category::Category;
use crate::classify::classify;
use crate::failure::Failure;

/// A failure record for an SSE `error` event payload received inside a 200 stream.
pub fn failure_from_payload(payload: &str) -> Failure {
    let message = serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| {
            format!(
                "stream error: {}",
                crate::classify::text::lower_bounded(payload, 200)
            )
        });
    Failure {
        status: Some(200),
        body: Some(payload.to_owned()),
        message,
        ..Failure::default()
    }
}

/// The category of an SSE `error` payload: `overloaded_error`, `api_error`,
/// `rate_limit_error`, unknown or absent types -> `stream_interrupted`;
/// `invalid_request_error` -> `invalid_response`.
pub fn classify_payload(payload: &str) -> Category {
    classify(&failure_from_payload(payload)).category
}

/// The failure for a stream that ended without a stop reason (a connection drop mid-stream).
pub fn ended_without_stop_reason() -> Failure {
    Failure::stream_incomplete("stream ended without a stop reason")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_type_decides() {
        let p = |t: &str| format!(r#"{{"type":"error","error":{{"type":"{t}","message":"x"}}}}"#);
        assert_eq!(
            classify_payload(&p("overloaded_error")),
            Category::StreamInterrupted
        );
        assert_eq!(
            classify_payload(&p("api_error")),
            Category::StreamInterrupted
        );
        assert_eq!(
            classify_payload(&p("rate_limit_error")),
            Category::StreamInterrupted
        );
        assert_eq!(
            classify_payload(&p("something_new")),
            Category::StreamInterrupted
        );
        assert_eq!(
            classify_payload(&p("invalid_request_error")),
            Category::InvalidResponse
        );
        assert_eq!(
            classify_payload(r#"{"type":"error"}"#),
            Category::StreamInterrupted
        );
        assert_eq!(
            classify(&ended_without_stop_reason()).category,
            Category::StreamInterrupted
        );
    }
}
