//! A Rust coding agent's API loop in Forgeflare's shape (specs/api-retry.md): it streams an
//! Anthropic-style reply with reqwest, and survives 429/503/529, timeouts, connection resets and
//! broken streams with the `forgeflare` preset, logging exactly Forgeflare's R4 lines.
//!
//! The loop is retry-core's one public machine, [`Run`]: it says what to do next (call, wait,
//! give up) and this file does it, reporting real elapsed time so that a policy's deadline
//! holds. Only `retry_core` and crates.io crates are used, so the file builds in any crate that
//! depends on `llm-retry-core` (feature `reqwest`), `reqwest` (feature `json`), `serde_json` and
//! `tokio` (features `macros`, `rt`).
//!
//! Run it against an Anthropic-compatible endpoint (`make demo` starts the fault lab for it):
//!     cargo run -p llm-retry-core --features reqwest --example forgeflare_agent -- --base-url http://127.0.0.1:8080
//! The base URL may also come from `ANTHROPIC_BASE_URL`, the key from `ANTHROPIC_API_KEY`.

use std::io::Write;
use std::time::{Duration, Instant};

use retry_core::driver::tokio::{AsyncSleeper, TokioSleeper};
use retry_core::reqwest_support::{failure_from_response, transport_of};
use retry_core::{AsFailure, Category, Failure, RetryPolicy, Run, Step, Transport};

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
            // An SSE `error` event's payload is classified by `p["error"]["type"]`; a stream
            // that broke or ended without a stop reason carries its message only.
            AgentError::StreamTransient(m) if m.starts_with('{') => {
                retry_core::sse::failure_from_payload(m).with_transport(Transport::StreamTransient)
            }
            AgentError::StreamTransient(m) => {
                Failure::new(m.clone()).with_transport(Transport::StreamTransient)
            }
            AgentError::StreamParse(m) => {
                Failure::new(m.clone()).with_transport(Transport::StreamParse)
            }
            // Read through the error's source chain: a reset is a connection fault, a bad host
            // or a certificate failure is permanent.
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
            AgentError::Api(e) => match transport_of(e) {
                Transport::Timeout => "timeout".into(),
                Transport::Connect => "connection error".into(),
                _ => "request error".into(),
            },
        }
    }
}

/// An SSE decoder that survives what the network does to a stream: an event, a line or a
/// UTF-8 character split across chunks, and CRLF, CR or LF line endings (the SSE spec allows
/// all three). It hands out each complete event's `event:` name and joined `data:` lines.
#[derive(Default)]
pub struct SseDecoder {
    /// Bytes of the line not yet ended (decoded only once whole, so no character is split).
    line: Vec<u8>,
    /// The last line ended with CR: a LF right after it belongs to the same ending.
    after_cr: bool,
    event: Option<String>,
    data: Vec<String>,
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

impl SseDecoder {
    /// Feeds one chunk; returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.line_done(&String::from_utf8_lossy(&line)) {
                        out.push(ev);
                    }
                }
                _ => self.line.push(b),
            }
        }
        out
    }

    fn line_done(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if self.data.is_empty() {
                self.event = None;
                return None;
            }
            let data = std::mem::take(&mut self.data).join("\n");
            return Some(SseEvent {
                event: self.event.take(),
                data,
            });
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => self.data.push(value.to_owned()),
            _ => {} // comments (`: ping`), `id`, `retry`
        }
        None
    }
}

/// Sends one message and streams the reply; returns the text.
pub async fn send_message(
    client: &reqwest::Client,
    base_url: &str,
    api_key: &str,
    prompt: &str,
    out: &mut dyn Write,
) -> Result<String, AgentError> {
    let body = serde_json::json!({
        "model": "claude-sonnet-4", "max_tokens": 256, "stream": true,
        "messages": [{"role": "user", "content": prompt}],
    });
    let mut resp = client
        .post(format!("{}/v1/messages", base_url.trim_end_matches('/')))
        .header("x-api-key", api_key)
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
    let mut sse = SseDecoder::default();
    let mut text = String::new();
    let mut stopped = false;
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => break,
            // A reset or a cut mid-body (reqwest reports it as a body or decode error whose
            // source chain holds the broken connection): Forgeflare's StreamTransient.
            Err(e) if transport_of(&e) == Transport::StreamTransient => {
                return Err(AgentError::StreamTransient(e.as_failure().message))
            }
            Err(e) => return Err(AgentError::Api(e)),
        };
        for event in sse.push(&chunk) {
            let v: serde_json::Value = serde_json::from_str(&event.data)
                .map_err(|e| AgentError::StreamParse(format!("malformed JSON in SSE data: {e}")))?;
            match v["type"].as_str() {
                Some("content_block_delta") => {
                    let t = v["delta"]["text"].as_str().unwrap_or("");
                    let _ = write!(out, "{t}");
                    text.push_str(t);
                }
                Some("message_delta") if v["delta"]["stop_reason"].is_string() => stopped = true,
                Some("message_stop") => stopped = true,
                // Forgeflare R1: classify by p["error"]["type"], never the top-level "type".
                Some("error") => {
                    return Err(match retry_core::sse::classify_payload(&event.data) {
                        Category::InvalidResponse => AgentError::StreamParse(event.data),
                        _ => AgentError::StreamTransient(event.data),
                    });
                }
                _ => {}
            }
        }
    }
    if !stopped {
        return Err(AgentError::StreamTransient(
            retry_core::sse::ended_without_stop_reason().message,
        ));
    }
    let _ = writeln!(out);
    Ok(text)
}

/// The retry loop of Forgeflare's `main.rs`, with every decision made by retry-core's [`Run`].
pub async fn send_with_retry(
    client: &reqwest::Client,
    base_url: &str,
    api_key: &str,
    prompt: &str,
    sleeper: &dyn AsyncSleeper,
    log: &mut dyn Write,
) -> Result<String, AgentError> {
    let started = Instant::now();
    let elapsed = || started.elapsed().as_secs_f64();
    let mut run = Run::new(RetryPolicy::forgeflare());
    let mut step = run.start(elapsed());
    let mut last: Option<AgentError> = None;
    loop {
        step = match step {
            Step::Call { .. } => match send_message(client, base_url, api_key, prompt, log).await {
                Ok(text) => {
                    run.succeeded(elapsed());
                    return Ok(text);
                }
                Err(err) => {
                    if matches!(err, AgentError::StreamTransient(_)) {
                        let _ = writeln!(log); // end the partial reply's line before logging
                    }
                    let next = run.failed(&err.as_failure(), elapsed());
                    last = Some(err);
                    next
                }
            },
            Step::Wait { seconds, .. } => {
                if let (Some(err), Some(d)) = (&last, run.decision()) {
                    let _ = writeln!(
                        log,
                        "[retry] Attempt {}/{}: {} — waiting {}s",
                        d.attempt,
                        d.max_retries,
                        err.label(),
                        seconds
                    );
                    if let Some(ra) = d.retry_after_used {
                        let _ = writeln!(log, "[retry] Using retry-after: {}s", ra);
                    }
                    if matches!(err, AgentError::StreamTransient(_)) {
                        let _ = writeln!(log, "[retry] Retrying from beginning of response...");
                    }
                }
                sleeper.sleep(Duration::from_secs_f64(seconds)).await;
                run.resume(elapsed())
            }
            // Not asked for by this policy (no history to prune, no fleet); answered all the
            // same, as the machine expects.
            Step::PruneOrphans => run.pruned(0, elapsed()),
            Step::CompactContext => run.compacted(false, elapsed()),
            Step::Skip { .. } => run.resume(elapsed()),
            Step::Stalled { .. } => panic!("the agent's sleeper always sleeps"),
            Step::Return | Step::GiveUp { .. } | Step::Reraise => {
                let err = last.take().expect("the run ends on a failed call");
                if let Some(d) = run.decision() {
                    let _ = writeln!(log, "[error] {err} ({})", d.classification.category);
                }
                return Err(err);
            }
        };
    }
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base_url = args
        .iter()
        .position(|a| a == "--base-url")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .or_else(|| std::env::var("ANTHROPIC_BASE_URL").ok());
    let Some(base_url) = base_url else {
        eprintln!("usage: forgeflare_agent --base-url URL   (or set ANTHROPIC_BASE_URL)");
        std::process::exit(2);
    };
    let api_key = std::env::var("ANTHROPIC_API_KEY")
        .unwrap_or_else(|_| "sk-ant-demo-not-a-real-key-000000".into());
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let mut out = std::io::stdout();
    for prompt in ["Summarise the build failure.", "And now fix it."] {
        println!("> {prompt}");
        match send_with_retry(
            &client,
            &base_url,
            &api_key,
            prompt,
            &TokioSleeper,
            &mut out,
        )
        .await
        {
            Ok(_) => println!("[ok] reply received"),
            Err(e) => println!("[gave up] {e}"),
        }
    }
}
