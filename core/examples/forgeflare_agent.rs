//! A Rust coding agent's API loop in Forgeflare's shape (specs/api-retry.md): it streams an
//! Anthropic-style reply from a local endpoint with reqwest, and survives 429/503/529, timeouts
//! and broken streams with the `forgeflare` preset, logging exactly Forgeflare's R4 lines.
//!
//! Run against the built-in fault script (a fault lab started in-process):
//!     cargo run -p retry-core --features reqwest --example forgeflare_agent
//! or against any endpoint:
//!     cargo run -p retry-core --features reqwest --example forgeflare_agent -- --base-url http://127.0.0.1:8080

use std::io::Write;
use std::time::Duration;

use retry_core::__private::machine::Retrier;
use retry_core::__private::messages::format_seconds;
use retry_core::driver::tokio::{AsyncSleeper, TokioSleeper};
use retry_core::reqwest_support::{failure_from_response, transport_of};
use retry_core::{Action, AsFailure, Category, Failure, RetryPolicy, Transport};

/// Forgeflare's error variants (R1), each able to describe itself as a failure record.
#[derive(Debug)]
pub enum AgentError {
    HttpError { status: u16, failure: Failure },
    StreamTransient(String),
    StreamParse(String),
    Api(reqwest::Error),
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentError::HttpError { failure, .. } => f.write_str(&failure.message),
            AgentError::StreamTransient(m) => write!(f, "stream error: {m}"),
            AgentError::StreamParse(m) => write!(f, "stream parse error: {m}"),
            AgentError::Api(e) => write!(f, "request failed: {e}"),
        }
    }
}

impl AsFailure for AgentError {
    fn as_failure(&self) -> Failure {
        match self {
            AgentError::HttpError { failure, .. } => failure.clone(),
            AgentError::StreamTransient(m) => {
                retry_core::sse::failure_from_payload(m).with_transport(Transport::StreamTransient)
            }
            AgentError::StreamParse(m) => {
                Failure::new(m.clone()).with_transport(Transport::StreamParse)
            }
            AgentError::Api(e) => e.as_failure(),
        }
    }
}

impl AgentError {
    /// What the log line shows after "Attempt n/4:".
    fn label(&self) -> String {
        match self {
            AgentError::HttpError { status, .. } => status.to_string(),
            AgentError::StreamTransient(_) => "stream error".into(),
            AgentError::StreamParse(_) => "stream parse error".into(),
            AgentError::Api(e) if e.is_timeout() => "timeout".into(),
            AgentError::Api(e) if e.is_connect() => "connection error".into(),
            AgentError::Api(_) => "request error".into(),
        }
    }
}

/// Sends one message and streams the reply; returns the text.
pub async fn send_message(
    client: &reqwest::Client,
    base_url: &str,
    prompt: &str,
    out: &mut dyn Write,
) -> Result<String, AgentError> {
    let body = serde_json::json!({
        "model": "claude-sonnet-4", "max_tokens": 256, "stream": true,
        "messages": [{"role": "user", "content": prompt}],
    });
    let mut resp = client
        .post(format!("{base_url}/v1/messages"))
        .header("x-api-key", "sk-ant-demo-not-a-real-key-000000")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .map_err(AgentError::Api)?;
    if !resp.status().is_success() {
        let status = resp.status().as_u16();
        return Err(AgentError::HttpError {
            status,
            failure: failure_from_response(resp).await,
        });
    }
    // Minimal SSE reader: events are separated by a blank line; `data:` lines carry JSON.
    let mut buf = String::new();
    let mut text = String::new();
    let mut stopped = false;
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) if matches!(transport_of(&e), Transport::StreamTransient) => {
                return Err(AgentError::StreamTransient(e.to_string()))
            }
            Err(e) => return Err(AgentError::Api(e)),
        };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let event: String = buf.drain(..end + 2).collect();
            for line in event.lines() {
                let Some(data) = line.strip_prefix("data:") else {
                    continue;
                };
                let v: serde_json::Value = serde_json::from_str(data.trim()).map_err(|e| {
                    AgentError::StreamParse(format!("malformed JSON in SSE data: {e}"))
                })?;
                match v["type"].as_str() {
                    Some("content_block_delta") => {
                        let t = v["delta"]["text"].as_str().unwrap_or("");
                        let _ = write!(out, "{t}");
                        text.push_str(t);
                    }
                    Some("message_delta") if v["delta"]["stop_reason"].is_string() => {
                        stopped = true
                    }
                    Some("message_stop") => stopped = true,
                    // Forgeflare R1: classify by p["error"]["type"], never the top-level "type".
                    Some("error") => {
                        let payload = data.trim().to_owned();
                        return Err(match retry_core::sse::classify_payload(&payload) {
                            Category::InvalidResponse => AgentError::StreamParse(payload),
                            _ => AgentError::StreamTransient(payload),
                        });
                    }
                    _ => {}
                }
            }
        }
    }
    if !stopped {
        return Err(AgentError::StreamTransient(
            "stream ended without a stop reason".into(),
        ));
    }
    let _ = writeln!(out);
    Ok(text)
}

/// The retry loop of Forgeflare's `main.rs`, with the decisions made by retry-core.
pub async fn send_with_retry(
    client: &reqwest::Client,
    base_url: &str,
    prompt: &str,
    sleeper: &dyn AsyncSleeper,
    log: &mut dyn Write,
) -> Result<String, AgentError> {
    let mut retrier = Retrier::new(RetryPolicy::forgeflare());
    loop {
        let err = match send_message(client, base_url, prompt, log).await {
            Ok(text) => return Ok(text),
            Err(e) => e,
        };
        if matches!(err, AgentError::StreamTransient(_)) {
            let _ = writeln!(log); // end the partial reply's line before logging
        }
        let decision = retrier.on_failure(&err.as_failure(), 0.0);
        let Action::Retry { delay } = decision.action else {
            let _ = writeln!(log, "[error] {err} ({})", decision.classification.category);
            return Err(err);
        };
        let _ = writeln!(
            log,
            "[retry] Attempt {}/{}: {} — waiting {}s",
            decision.attempt,
            decision.max_retries,
            err.label(),
            format_seconds(delay)
        );
        if let Some(ra) = decision.retry_after_used {
            let _ = writeln!(log, "[retry] Using retry-after: {}s", format_seconds(ra));
        }
        if matches!(err, AgentError::StreamTransient(_)) {
            let _ = writeln!(log, "[retry] Retrying from beginning of response...");
        }
        sleeper.sleep(Duration::from_secs_f64(delay)).await;
    }
}

/// The demo's fault script: a rate limit that says when to come back, an overload, a stream that
/// breaks mid-reply, then success; then a permanent error that is not retried.
pub const DEMO_SCRIPT: &str = r#"{"steps": [
  {"fault": "rate_limit", "retry_after": 1},
  {"fault": "status", "status": 503},
  {"fault": "sse_error", "error_type": "overloaded_error", "after_chunks": 2},
  {"fault": "ok"},
  {"fault": "unauthorized"}
]}"#;

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .iter()
        .position(|a| a == "--base-url")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let _lab;
    let base_url = match base {
        Some(b) => b,
        None => {
            let script = retry_lab::Script::parse(DEMO_SCRIPT).expect("demo script parses");
            let (addr, lab) = retry_lab::spawn(script);
            _lab = lab;
            format!("http://{addr}")
        }
    };
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let mut out = std::io::stdout();
    for prompt in ["Summarise the build failure.", "And now fix it."] {
        println!("> {prompt}");
        match send_with_retry(&client, &base_url, prompt, &TokioSleeper, &mut out).await {
            Ok(_) => println!("[ok] reply received"),
            Err(e) => println!("[gave up] {e}"),
        }
    }
}
