//! The example agent survives a scripted 429 (retry-after 1), 503, a reset before the answer, a
//! stream cut mid-SSE, then success against the real fault lab, printing Forgeflare's exact log
//! lines. Waits are recorded, not slept. Its SSE reader survives a character split across
//! chunks and CRLF line endings.
#![cfg(feature = "reqwest")]

#[path = "../examples/forgeflare_agent.rs"]
#[allow(dead_code)]
mod agent;

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use retry_core::driver::tokio::AsyncSleeper;

#[derive(Default)]
struct Recorder(Mutex<Vec<Duration>>);

impl AsyncSleeper for Recorder {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(d);
        Box::pin(async {})
    }
}

async fn run(
    script: &str,
) -> (
    Result<String, agent::AgentError>,
    Vec<String>,
    Vec<Duration>,
    retry_lab::LabHandle,
) {
    let (addr, lab) = retry_lab::spawn(retry_lab::Script::parse(script).unwrap());
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let rec = Recorder::default();
    let mut log = Vec::new();
    let res = agent::send_with_retry(
        &client,
        &format!("http://{addr}"),
        "sk-ant-demo-not-a-real-key-000000",
        "hi",
        &rec,
        &mut log,
    )
    .await;
    let lines = String::from_utf8(log)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('['))
        .map(str::to_owned)
        .collect();
    let sleeps = rec.0.lock().unwrap().clone();
    (res, lines, sleeps, lab)
}

#[tokio::test]
async fn survives_429_then_503_with_exact_log_lines() {
    let (res, lines, sleeps, lab) = run(r#"{"steps": [
        {"fault": "rate_limit", "retry_after": 1}, {"fault": "status", "status": 503}, {"fault": "ok"}]}"#).await;
    assert!(res.unwrap().contains("Hello from retry-lab"));
    assert_eq!(
        lines,
        vec![
            "[retry] Attempt 1/4: 429 — waiting 1s",
            "[retry] Using retry-after: 1s",
            "[retry] Attempt 2/4: 503 — waiting 4s",
        ]
    );
    assert_eq!(sleeps, vec![Duration::from_secs(1), Duration::from_secs(4)]);
    assert_eq!(lab.log().len(), 3, "three real HTTP calls");
}

#[tokio::test]
async fn retries_a_broken_stream_from_the_beginning() {
    let (res, lines, _, _lab) = run(r#"{"steps": [
        {"fault": "sse_error", "error_type": "overloaded_error", "after_chunks": 2}, {"fault": "ok"}]}"#).await;
    assert!(res.is_ok());
    assert_eq!(
        lines,
        vec![
            "[retry] Attempt 1/4: stream error — waiting 2s",
            "[retry] Retrying from beginning of response...",
        ]
    );
}

#[tokio::test]
async fn permanent_errors_are_not_retried() {
    let (res, lines, sleeps, lab) = run(r#"{"steps": [{"fault": "unauthorized"}]}"#).await;
    assert!(matches!(
        res,
        Err(agent::AgentError::HttpError { status: 401, .. })
    ));
    assert!(sleeps.is_empty());
    assert_eq!(lab.log().len(), 1);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("[error]") && lines[0].contains("unauthorized"),
        "{lines:?}"
    );
    assert!(!lines[0].contains("sk-ant-demo"), "no key in the log");
}

#[tokio::test]
async fn gives_up_after_four_retries() {
    let (res, lines, sleeps, lab) = run(r#"{"steps": [], "then": {"fault": "overloaded"}}"#).await;
    assert!(matches!(
        res,
        Err(agent::AgentError::HttpError { status: 529, .. })
    ));
    let secs: Vec<u64> = sleeps.iter().map(|d| d.as_secs()).collect();
    assert_eq!(secs, vec![2, 4, 8, 16]);
    assert_eq!(lab.log().len(), 5, "1 call + 4 retries");
    assert_eq!(
        lines.last().unwrap(),
        "[error] API returned 529 (overloaded)"
    );
}

#[tokio::test]
async fn retries_a_reset_before_the_answer() {
    let (res, lines, sleeps, lab) = run(r#"{"steps": [
        {"fault": "reset"}, {"fault": "reset", "graceful": true}, {"fault": "ok"}]}"#)
    .await;
    assert!(res.unwrap().contains("Hello from retry-lab"));
    assert_eq!(
        lines,
        vec![
            "[retry] Attempt 1/4: connection error — waiting 2s",
            "[retry] Attempt 2/4: connection error — waiting 4s",
        ]
    );
    assert_eq!(sleeps.len(), 2);
    assert_eq!(lab.log().len(), 3);
}

#[tokio::test]
async fn retries_a_stream_cut_mid_sse() {
    // Cut with a FIN, cut with an RST, ended cleanly but without the stop reason: each is
    // Forgeflare's StreamTransient, retried from the beginning.
    let (res, lines, _, lab) = run(r#"{"steps": [
        {"fault": "stream_cut", "after_chunks": 2},
        {"fault": "stream_cut", "after_chunks": 3, "rst": true},
        {"fault": "stream_cut", "after_chunks": 1, "clean": true},
        {"fault": "ok"}]}"#)
    .await;
    assert!(res.unwrap().contains("reply number 4"));
    let stream = "[retry] Retrying from beginning of response...";
    assert_eq!(
        lines,
        vec![
            "[retry] Attempt 1/4: stream error — waiting 2s",
            stream,
            "[retry] Attempt 2/4: stream error — waiting 4s",
            stream,
            "[retry] Attempt 3/4: stream error — waiting 8s",
            stream,
        ]
    );
    assert_eq!(lab.log().len(), 4);
}

#[tokio::test]
async fn a_url_without_a_host_is_not_retried() {
    // A URL that cannot be built (no host): permanent, one line, no wait.
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let rec = Recorder::default();
    let mut log = Vec::new();
    let res = agent::send_with_retry(&client, "http://", "k", "hi", &rec, &mut log).await;
    assert!(matches!(res, Err(agent::AgentError::Api(_))));
    assert!(rec.0.lock().unwrap().is_empty());
    let log = String::from_utf8(log).unwrap();
    assert!(
        log.starts_with("[error]") && log.contains("(configuration)"),
        "{log}"
    );
}

#[test]
fn the_sse_reader_survives_split_characters_and_crlf() {
    let event = "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\r\ndata: \"delta\":{\"text\":\"héllo ✓\"}}\r\n\r\n: ping\r\n\r\n";
    let bytes = event.as_bytes();
    // Every split point, including inside "é" and "✓" and between CR and LF.
    for cut in 0..=bytes.len() {
        let mut d = agent::SseDecoder::default();
        let mut got = d.push(&bytes[..cut]);
        got.extend(d.push(&bytes[cut..]));
        assert_eq!(got.len(), 1, "cut at {cut}");
        assert_eq!(got[0].event.as_deref(), Some("content_block_delta"));
        let v: serde_json::Value = serde_json::from_str(&got[0].data).unwrap();
        assert_eq!(v["delta"]["text"], "héllo ✓", "cut at {cut}");
    }
    // One byte at a time, LF and lone-CR endings.
    for text in ["data: a\n\ndata: b\n\n", "data: a\r\rdata: b\r\r"] {
        let mut d = agent::SseDecoder::default();
        let got: Vec<String> = text
            .as_bytes()
            .iter()
            .flat_map(|b| d.push(&[*b]))
            .map(|e| e.data)
            .collect();
        assert_eq!(got, ["a", "b"], "{text:?}");
    }
}

#[test]
fn the_example_needs_no_workspace_crate() {
    // It must build outside this workspace (scripts/example-outside.sh proves it with cargo).
    let src = include_str!("../examples/forgeflare_agent.rs");
    assert!(
        !src.contains("retry_lab"),
        "the example uses the unpublished lab crate"
    );
}
