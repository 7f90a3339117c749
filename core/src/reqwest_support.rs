//! Behind the `reqwest` feature (reqwest 0.13) or the `reqwest-0_12` feature (reqwest 0.12, in
//! [`v0_12`]): failure records from reqwest errors and responses (Forgeflare R1: `is_timeout()` /
//! `is_connect()` are transient, other request errors permanent).
//!
//! Both versions share `http` 1.x, so [`headers_of`] takes the one `HeaderMap` type they have in
//! common; the rest is the same code generated for each version's `Error` and `Response`.

use crate::failure::Headers;

/// The headers of a response as a failure record's headers (values that are not visible ASCII
/// are skipped). `reqwest::header::HeaderMap` of reqwest 0.12 and 0.13 are both this type.
pub fn headers_of(map: &http::HeaderMap) -> Headers {
    map.iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| (k.as_str().to_owned(), v.to_owned()))
        })
        .collect()
}

/// The failure for an SSE `error` event payload (classified by `p["error"]["type"]`).
pub fn failure_from_sse_error(payload: &str) -> crate::failure::Failure {
    crate::sse::failure_from_payload(payload)
}

/// `transport_of`, `From<&reqwest::Error> for Failure`, `AsFailure` and `failure_from_response`
/// for one reqwest version, named `$reqwest` in this crate.
macro_rules! reqwest_glue {
    ($reqwest:ident) => {
        use crate::failure::{AsFailure, Failure, Transport};

        /// The transport hint for a reqwest error.
        pub fn transport_of(e: &$reqwest::Error) -> Transport {
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

        impl From<&$reqwest::Error> for Failure {
            fn from(e: &$reqwest::Error) -> Self {
                Failure {
                    status: e.status().map(|s| s.as_u16()),
                    message: e.to_string(),
                    error_class: vec!["reqwest::Error".into()],
                    transport: Some(transport_of(e)),
                    ..Failure::default()
                }
            }
        }

        impl AsFailure for $reqwest::Error {
            fn as_failure(&self) -> Failure {
                Failure::from(self)
            }
        }

        /// A failure record from a non-success response (consumes it to read the body; invalid
        /// UTF-8 is replaced, never an error).
        pub async fn failure_from_response(resp: $reqwest::Response) -> Failure {
            let status = resp.status().as_u16();
            let headers = super::headers_of(resp.headers());
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
    };
}

#[cfg(feature = "reqwest")]
mod v0_13 {
    reqwest_glue!(reqwest);
}
#[cfg(feature = "reqwest")]
pub use v0_13::{failure_from_response, transport_of};

/// The same functions for reqwest 0.12 (feature `reqwest-0_12`). `Failure::from(&e)` and
/// [`AsFailure`](crate::failure::AsFailure) work for either version's `reqwest::Error`.
#[cfg(feature = "reqwest-0_12")]
pub mod v0_12 {
    reqwest_glue!(reqwest_0_12);
}
