//! Behind the `reqwest` feature: failure records from reqwest errors and responses (Forgeflare
//! R1: `is_timeout()` / `is_connect()` are transient, other request errors permanent).

use crate::failure::{AsFailure, Failure, Headers, Transport};

/// The transport hint for a reqwest error.
pub fn transport_of(e: &reqwest::Error) -> Transport {
    if e.is_timeout() {
        Transport::Timeout
    } else if e.is_connect() {
        Transport::Connect
    } else if e.is_decode() {
        Transport::Json
    } else if e.is_body() {
        // The body stream broke mid-way: the connection dropped.
        Transport::StreamTransient
    } else {
        Transport::Other
    }
}

impl From<&reqwest::Error> for Failure {
    fn from(e: &reqwest::Error) -> Self {
        Failure {
            status: e.status().map(|s| s.as_u16()),
            message: e.to_string(),
            error_class: vec!["reqwest::Error".into()],
            transport: Some(transport_of(e)),
            ..Failure::default()
        }
    }
}

impl AsFailure for reqwest::Error {
    fn as_failure(&self) -> Failure {
        Failure::from(self)
    }
}

/// The headers of a response as a failure record's headers.
pub fn headers_of(map: &reqwest::header::HeaderMap) -> Headers {
    map.iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| (k.as_str().to_owned(), v.to_owned()))
        })
        .collect()
}

/// A failure record from a non-success response (consumes it to read the body; invalid UTF-8
/// is replaced, never an error).
pub async fn failure_from_response(resp: reqwest::Response) -> Failure {
    let status = resp.status().as_u16();
    let headers = headers_of(resp.headers());
    let reason = resp.status().canonical_reason().unwrap_or("");
    let body = match resp.bytes().await {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(_) => String::new(),
    };
    Failure {
        status: Some(status),
        headers,
        message: format!("API returned {status} {reason}")
            .trim_end()
            .to_owned(),
        body: (!body.is_empty()).then_some(body),
        ..Failure::default()
    }
}

/// The failure for an SSE `error` event payload (classified by `p["error"]["type"]`).
pub fn failure_from_sse_error(payload: &str) -> Failure {
    crate::sse::failure_from_payload(payload)
}
