//! Retries inside an HTTP client's stack, each driven by the core's [`Run`](crate::run::Run)
//! through the tokio driver: a reqwest-middleware [`Middleware`](::reqwest_middleware::Middleware)
//! (feature `reqwest-middleware`, reqwest-middleware 0.5 on reqwest 0.13) and a tower
//! [`Policy`](::tower::retry::Policy) (feature `tower`, tower 0.5).
//!
//! A non-success answer is a failure (status, headers, and the body read up to a bound); a
//! transport error is read through its source chain as everywhere else; a streamed success
//! (`text/event-stream`) is held until its first event: an SSE `error` event there fails the
//! attempt, since no byte of it has reached the caller yet. That rule ([`first_event`]) is the
//! one the Python transport (`retry_core.httpx`) and the Ruby Faraday middleware ask for too.

#[cfg(feature = "reqwest-middleware")]
pub mod reqwest_middleware;
#[cfg(feature = "tower")]
pub mod tower;

/// The bytes of a failed answer's body read for the classifier, and of a stream held back
/// before its first event; what lies beyond stays unread for the caller.
pub const DEFAULT_MAX_BODY: usize = 64 * 1024;

/// Where the first SSE event of `buf` ends (after its blank line), if it has.
pub fn end_of_first_event(buf: &[u8]) -> Option<usize> {
    [&b"\n\n"[..], b"\r\n\r\n", b"\r\r"]
        .iter()
        .filter_map(|sep| {
            buf.windows(sep.len())
                .position(|w| w == *sep)
                .map(|i| i + sep.len())
        })
        .min()
}

/// The data of a stream's first event when it is an error event, Anthropic's `event: error`
/// or OpenAI's `data: {"error": ...}`; `None` for any other event.
pub fn first_event_error(buf: &[u8]) -> Option<String> {
    let end = end_of_first_event(buf).unwrap_or(buf.len());
    let text = String::from_utf8_lossy(&buf[..end]);
    let mut event = "";
    let mut data: Vec<&str> = Vec::new();
    for line in text.lines() {
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match name {
            "event" => event = value.trim(),
            "data" => data.push(value),
            _ => {}
        }
    }
    let payload = data.join("\n");
    // The same rule as a watched stream's (`stream_end::is_error_event`): a null `error` is none.
    let name = (!event.is_empty()).then_some(event);
    let is_error = match serde_json::from_str::<serde_json::Value>(&payload) {
        Ok(v) => crate::stream_end::is_error_event(name, &&v),
        Err(_) => name == Some("error"),
    };
    is_error.then_some(payload)
}

/// Both at once, for the bindings: where the first event ends (`None` while incomplete) and,
/// when it is an error event, its data.
pub fn first_event(buf: &[u8]) -> (Option<usize>, Option<String>) {
    (end_of_first_event(buf), first_event_error(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_events() {
        let anthropic = b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n";
        assert!(first_event_error(anthropic)
            .unwrap()
            .contains("overloaded_error"));
        let openai = b"data: {\"error\": {\"message\": \"x\", \"type\": \"server_error\"}}\r\n\r\ndata: [DONE]\r\n\r\n";
        assert_eq!(
            first_event_error(openai).as_deref(),
            Some("{\"error\": {\"message\": \"x\", \"type\": \"server_error\"}}")
        );
        let start = b"event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: error\ndata: {}\n\n";
        assert_eq!(first_event_error(start), None);
        assert_eq!(first_event_error(b"data: {\"choices\": []}\n\n"), None);
        assert_eq!(end_of_first_event(b"data: x\n"), None);
        assert_eq!(end_of_first_event(b"data: x\r\n\r\nmore"), Some(11));
    }
}
