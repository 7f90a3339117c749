//! A tower 0.5 [`Policy`] for `http` requests, driven by the core's [`Run`]: wrap a service in
//! `tower::retry::Retry::new(RetryPolicy::new(policy), service)` (or `RetryLayer`) and each
//! request is one logical call of the engine.
//!
//! A policy sees an answer before its body is read and cannot read it (`Policy::retry` is not
//! async): a non-success answer is classified by its status and headers alone (`Retry-After`,
//! `retry-after-ms`, the providers' rate-limit headers). A 429 that says "insufficient quota"
//! only in its body is therefore retried as a rate limit; the reqwest-middleware
//! [`RetryMiddleware`](super::reqwest_middleware::RetryMiddleware) reads the body. A service
//! error is read by its message and the messages of its sources.
//!
//! The request's body must be `Clone` (a buffered body such as `String`, `Bytes` or
//! `http_body_util::Full`); when the policy gives up, the service's last answer or error is
//! the result, as tower's `Retry` returns it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use ::tower::retry::Policy;

use crate::driver::tokio::{AsyncSleeper, TokioSleeper};
use crate::events::EventSink;
use crate::failure::{Failure, Headers};
use crate::policy::RetryPolicy as Policies;
use crate::run::{Run, RunConfig, Step};

/// Retries each request as the engine decides. A clone starts a fresh run: tower's `Retry`
/// clones its policy for every request.
pub struct RetryPolicy {
    policy: Policies,
    seed: Option<u64>,
    events: Option<Arc<dyn EventSink + Send + Sync>>,
    sleeper: Arc<dyn AsyncSleeper>,
    /// This request's run and when it began, once a call failed.
    run: Option<(Arc<Mutex<Run>>, tokio::time::Instant)>,
}

impl Clone for RetryPolicy {
    fn clone(&self) -> Self {
        RetryPolicy {
            policy: self.policy.clone(),
            seed: self.seed,
            events: self.events.clone(),
            sleeper: Arc::clone(&self.sleeper),
            run: None,
        }
    }
}

impl RetryPolicy {
    /// Retries under `policy`, with no events.
    pub fn new(policy: Policies) -> Self {
        RetryPolicy {
            policy,
            seed: None,
            events: None,
            sleeper: Arc::new(TokioSleeper),
            run: None,
        }
    }
    /// Sends every decision's events to `sink`.
    pub fn events(mut self, sink: Arc<dyn EventSink + Send + Sync>) -> Self {
        self.events = Some(sink);
        self
    }
    /// Waits with `sleeper` instead of `tokio::time::sleep` (tests record the waits).
    pub fn sleeper(mut self, sleeper: Arc<dyn AsyncSleeper>) -> Self {
        self.sleeper = sleeper;
        self
    }
    /// Fixes the jitter seed (tests).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    fn drain(&self, run: &mut Run) {
        if let Some(sink) = &self.events {
            for e in &run.take_events() {
                sink.emit(e);
            }
        }
    }
}

fn headers_of(map: &http::HeaderMap) -> Headers {
    map.iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// A service error's message: its own and those of its sources, joined by `": "`.
fn error_failure(err: &(dyn std::error::Error + 'static)) -> Failure {
    let mut message = err.to_string();
    let mut source = err.source();
    for _ in 0..16 {
        let Some(e) = source else { break };
        let text = e.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = e.source();
    }
    Failure::new(message)
}

/// Waits `seconds`, then asks the run for its next step; waits again while it says wait.
async fn wait_then_resume(
    sleeper: Arc<dyn AsyncSleeper>,
    run: Arc<Mutex<Run>>,
    began: tokio::time::Instant,
    mut seconds: f64,
) {
    loop {
        sleeper.sleep(crate::driver::wait_duration(seconds)).await;
        let step = match run.lock() {
            Ok(mut run) => run.resume(began.elapsed().as_secs_f64()),
            Err(_) => return,
        };
        match step {
            Step::Wait { seconds: s, .. } => seconds = s,
            Step::Skip { .. } => seconds = 0.0,
            _ => return,
        }
    }
}

impl<B, R, E> Policy<http::Request<B>, http::Response<R>, E> for RetryPolicy
where
    B: Clone,
    E: std::error::Error + 'static,
{
    type Future = Pin<Box<dyn Future<Output = ()> + Send>>;

    fn retry(
        &mut self,
        _req: &mut http::Request<B>,
        result: &mut Result<http::Response<R>, E>,
    ) -> Option<Self::Future> {
        let failure = match result {
            Ok(answer) if answer.status().as_u16() < 400 => {
                if let Some((run, began)) = &self.run {
                    if let Ok(mut run) = run.lock() {
                        run.succeeded(began.elapsed().as_secs_f64());
                        self.drain(&mut run);
                    }
                }
                return None;
            }
            Ok(answer) => {
                let status = answer.status();
                let mut failure = Failure::http(
                    status.as_u16(),
                    format!(
                        "API returned {} {}",
                        status.as_u16(),
                        status.canonical_reason().unwrap_or("")
                    )
                    .trim_end(),
                );
                failure.headers = headers_of(answer.headers());
                failure
            }
            Err(e) => error_failure(e),
        };
        let (run, began) = self.run.get_or_insert_with(|| {
            let cfg = RunConfig {
                seed: self.seed,
                ..RunConfig::default()
            };
            (
                Arc::new(Mutex::new(Run::with_config(self.policy.clone(), cfg))),
                tokio::time::Instant::now(),
            )
        });
        let (run, began) = (Arc::clone(run), *began);
        let step = {
            let mut guard = run.lock().ok()?;
            let step = guard.failed(&failure, began.elapsed().as_secs_f64());
            self.drain(&mut guard);
            step
        };
        match step {
            Step::Wait { seconds, .. } => Some(Box::pin(wait_then_resume(
                Arc::clone(&self.sleeper),
                run,
                began,
                seconds,
            ))),
            Step::Skip { .. } => Some(Box::pin(wait_then_resume(
                Arc::clone(&self.sleeper),
                run,
                began,
                0.0,
            ))),
            Step::Call { .. } => Some(Box::pin(async {})),
            // Give up, re-raise, or a recovery only the caller can make (pruning the history,
            // compacting it): the last answer or error stands.
            _ => None,
        }
    }

    fn clone_request(&mut self, req: &http::Request<B>) -> Option<http::Request<B>> {
        let mut clone = http::Request::builder()
            .method(req.method().clone())
            .uri(req.uri().clone())
            .version(req.version())
            .body(req.body().clone())
            .ok()?;
        *clone.headers_mut() = req.headers().clone();
        Some(clone)
    }
}
