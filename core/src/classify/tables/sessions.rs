//! (batch 24) A realtime session or socket that reached the lifetime its server allows, said in
//! an error event with no HTTP status: the server ends the connection, the request was fine,
//! and a new connection carries on (CONTRACT §2 `connection`, transient). Typed
//! `invalid_request_error` by OpenAI, which only says the same socket cannot be used again.
//!
//! Sources:
//! - OpenAI Realtime API error event, code `session_expired`: "Your session hit the maximum
//!   duration of 60 minutes." (15 minutes in the preview; twilio-samples/
//!   speech-assistant-openai-realtime-api-python#10; Azure OpenAI's Realtime relays the same).
//! - OpenAI Responses API over WebSocket, code `websocket_connection_limit_reached`: "Responses
//!   websocket connection limit reached (60 minutes). Create a new websocket connection to
//!   continue." (earendil-works/pi#5973; Codex retries it on a new socket).
//!
//! The bare code `session_expired` is not read: other services use it for a login that must
//! be renewed, which no retry fixes.

/// Words of a session or socket whose allowed lifetime ran out (lower-case, whole words).
pub const LIFETIME_ENDED: &[&str] = &[
    "session hit the maximum duration",
    "session has hit the maximum duration",
    "session reached its maximum duration",
    "session has reached its maximum duration",
    "websocket_connection_limit_reached",
    "websocket connection limit reached",
    "create a new websocket connection",
];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn a_session_at_its_lifetime_is_a_connection_to_open_again() {
        let realtime = r#"{"type":"error","event_id":"event_1","error":{"type":"invalid_request_error","code":"session_expired","message":"Your session hit the maximum duration of 60 minutes.","param":null,"event_id":null}}"#;
        for f in [
            Failure::new(realtime).with_body(realtime),
            Failure::new(realtime),
            Failure::new("Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue."),
            Failure::new("code: websocket_connection_limit_reached"),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (Connection, true), "{}", f.message);
        }
        // A login that expired is no lifetime of a socket: never retried as one.
        let c = classify(&Failure::http(
            401,
            r#"{"error":{"code":"session_expired","message":"Your session has expired. Please log in again."}}"#,
        ));
        assert!(!c.transient);
        // Under a status, the status speaks (a 400 that names a duration of its input).
        let c = classify(&Failure::http(
            400,
            "audio exceeds the maximum duration of 60 minutes",
        ));
        assert!(!c.transient);
    }
}
