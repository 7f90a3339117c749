//! A reqwest-middleware 0.5 [`Middleware`] (reqwest 0.13) that retries each request as the
//! core's [`Run`](crate::run::Run) decides, through the tokio driver
//! ([`AsyncRetry`](crate::driver::tokio::AsyncRetry)): `Retry-After` and every other header the
//! classifier reads are honoured within the policy.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use retry_core::middleware::reqwest_middleware::RetryMiddleware;
//! use retry_core::RetryPolicy;
//!
//! let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
//!     .with(RetryMiddleware::new(RetryPolicy::default()))
//!     .build();
//! let answer = client.post("http://127.0.0.1:8080/v1/chat/completions").body("{}").send().await?;
//! # let _ = answer; Ok(()) }
//! ```
//!
//! When the policy gives up, or the failure is not one to retry, the caller gets the last
//! answer itself (status, headers, the whole body) and the [`Decision`] that stopped the run in
//! the request's extensions; a transport error comes back as it was. A request whose body is a
//! stream (`try_clone` gives `None`) is sent once, unretried.

use std::sync::Arc;

use ::reqwest_middleware::{Error, Middleware, Next};
use bytes::Bytes;
use futures_util::StreamExt;
use http::Extensions;
use reqwest::{Request, Response, ResponseBuilderExt};

use super::{first_event_error, DEFAULT_MAX_BODY};
use crate::driver::tokio::{AsyncRetry, AsyncSleeper};
use crate::driver::RetryError;
use crate::events::EventSink;
use crate::failure::{AsFailure, Failure};
use crate::fleet::Fleet;
use crate::machine::Decision;
use crate::policy::RetryPolicy;
use crate::reqwest_support::headers_of;

/// Retries each request as the engine decides. Cheap to clone; share one per client.
#[derive(Clone)]
pub struct RetryMiddleware {
    policy: RetryPolicy,
    seed: Option<u64>,
    fleet: Option<(Arc<Fleet>, String)>,
    events: Option<Arc<dyn EventSink + Send + Sync>>,
    sleeper: Option<Arc<dyn AsyncSleeper>>,
    max_body: usize,
}

impl RetryMiddleware {
    /// Retries under `policy`, alone (no fleet), with no events.
    pub fn new(policy: RetryPolicy) -> Self {
        RetryMiddleware {
            policy,
            seed: None,
            fleet: None,
            events: None,
            sleeper: None,
            max_body: DEFAULT_MAX_BODY,
        }
    }
    /// Shares budget, breaker and pauses with every other call of `key` on `fleet`.
    pub fn fleet(mut self, fleet: Arc<Fleet>, key: impl Into<String>) -> Self {
        self.fleet = Some((fleet, key.into()));
        self
    }
    /// Sends every decision's events to `sink`.
    pub fn events(mut self, sink: Arc<dyn EventSink + Send + Sync>) -> Self {
        self.events = Some(sink);
        self
    }
    /// Waits with `sleeper` instead of `tokio::time::sleep` (tests record the waits).
    pub fn sleeper(mut self, sleeper: Arc<dyn AsyncSleeper>) -> Self {
        self.sleeper = Some(sleeper);
        self
    }
    /// Fixes the jitter seed (tests).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// How many bytes of a failed answer's body the classifier reads (at least 1; default
    /// [`DEFAULT_MAX_BODY`]). The caller still gets the whole body.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes.max(1);
        self
    }
}

/// One attempt that did not succeed: an answer (kept for the caller) or a transport error.
enum Attempt {
    Answer {
        failure: Failure,
        response: Response,
        extensions: Extensions,
    },
    Transport {
        failure: Failure,
        error: Error,
    },
}

impl AsFailure for Attempt {
    fn as_failure(&self) -> Failure {
        match self {
            Attempt::Answer { failure, .. } | Attempt::Transport { failure, .. } => failure.clone(),
        }
    }
}

fn transport_failure(error: &Error) -> Failure {
    match error {
        Error::Reqwest(e) => Failure::from(e),
        Error::Middleware(e) => crate::reqwest_support::failure_from_chain(
            e.as_ref(),
            "reqwest_middleware::Error",
            None,
        ),
    }
}

fn is_event_stream(response: &Response) -> bool {
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
    };
    header(http::header::CONTENT_TYPE).as_deref() == Some("text/event-stream")
}

/// Reads up to `limit` bytes of the body (or, for a stream, until its first event ends);
/// returns them and whether the body ended.
async fn read_head(
    response: &mut Response,
    limit: usize,
    until_event: bool,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut buf = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        buf.extend_from_slice(&chunk);
        if buf.len() >= limit || (until_event && super::end_of_first_event(&buf).is_some()) {
            return Ok((buf, false));
        }
    }
    Ok((buf, true))
}

/// The answer handed on: the bytes already read, then the rest of the wire.
fn replay(response: Response, head: Vec<u8>, ended: bool) -> Response {
    let url = response.url().clone();
    let (parts, body) = http::Response::<reqwest::Body>::from(response).into_parts();
    let head = Bytes::from(head);
    let body = if ended {
        reqwest::Body::from(head)
    } else {
        let rest = http_body_util::BodyDataStream::new(body);
        reqwest::Body::wrap_stream(
            futures_util::stream::once(async move { Ok::<_, reqwest::Error>(head) }).chain(rest),
        )
    };
    let mut builder = http::Response::builder()
        .status(parts.status)
        .version(parts.version)
        .url(url);
    if let Some(headers) = builder.headers_mut() {
        *headers = parts.headers;
    }
    if let Some(extensions) = builder.extensions_mut() {
        extensions.extend(parts.extensions);
    }
    match builder.body(body) {
        Ok(r) => Response::from(r),
        Err(_) => unreachable!("the parts come from a valid response"),
    }
}

async fn attempt(
    request: Request,
    next: Next<'_>,
    mut extensions: Extensions,
    limit: usize,
) -> Result<(Response, Extensions), Attempt> {
    let mut response = match next.run(request, &mut extensions).await {
        Ok(r) => r,
        Err(error) => {
            let failure = transport_failure(&error);
            return Err(Attempt::Transport { failure, error });
        }
    };
    let is_error = !response.status().is_success();
    if !is_error && !is_event_stream(&response) {
        return Ok((response, extensions));
    }
    let status = response.status();
    let headers = headers_of(response.headers());
    let (head, ended) = match read_head(&mut response, limit, !is_error).await {
        Ok(read) => read,
        Err(e) => {
            let failure = Failure::from(&e);
            return Err(Attempt::Transport {
                failure,
                error: Error::Reqwest(e),
            });
        }
    };
    let failure = if is_error {
        let reason = status.canonical_reason().unwrap_or("");
        let mut failure = Failure::http(
            status.as_u16(),
            format!("API returned {} {reason}", status.as_u16()).trim_end(),
        )
        .with_body_bytes(&head);
        failure.headers = headers;
        failure
    } else {
        match first_event_error(&head) {
            None => return Ok((replay(response, head, ended), extensions)),
            Some(payload) => {
                let mut failure = crate::sse::failure_from_payload(&payload);
                failure.headers = headers;
                failure
            }
        }
    };
    Err(Attempt::Answer {
        failure,
        response: replay(response, head, ended),
        extensions,
    })
}

#[async_trait::async_trait]
impl Middleware for RetryMiddleware {
    async fn handle(
        &self,
        req: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> Result<Response, Error> {
        if req.try_clone().is_none() {
            return next.run(req, extensions).await;
        }
        let mut retry = AsyncRetry::new(self.policy.clone());
        if let Some(seed) = self.seed {
            retry = retry.seed(seed);
        }
        if let Some((fleet, key)) = &self.fleet {
            retry = retry.fleet(Arc::clone(fleet), key.clone());
        }
        if let Some(sink) = &self.events {
            retry = retry.events(sink.as_ref());
        }
        if let Some(sleeper) = &self.sleeper {
            retry = retry.sleeper(sleeper.as_ref());
        }
        let limit = self.max_body;
        let shared: &Extensions = extensions;
        let outcome = retry
            .run(|_| {
                let request = req.try_clone().expect("checked above: the body is bytes");
                attempt(request, next.clone(), shared.clone(), limit)
            })
            .await;
        match outcome {
            Ok((response, ext)) => {
                *extensions = ext;
                Ok(response)
            }
            Err(RetryError {
                error, decision, ..
            }) => match error {
                Attempt::Answer {
                    response,
                    extensions: ext,
                    ..
                } => {
                    *extensions = ext;
                    extensions.insert::<Decision>(*decision);
                    Ok(response)
                }
                Attempt::Transport { error, .. } => Err(error),
            },
        }
    }
}
