//! Honest streams in Rust: read an OpenAI-style SSE stream with a maintained parser
//! (`sse-stream`, the decoder the official MCP Rust SDK uses), check the finish reason at its
//! end with the core's table (`retry_core::stream_end`), and let `AsyncRetry` ask for the whole
//! stream again when it ended without one.
//!
//! ```text
//! cargo run -p llm-retry-core --example sse_stream --features reqwest
//! cargo test -p llm-retry-core --example sse_stream --features reqwest
//! ```
//!
//! It proves three things, against loopback servers it starts itself:
//! 1. the fault lab's stream that ends cleanly but without a finish reason (`stream_cut` with
//!    `clean: true`) is retried, and the second, whole answer is returned;
//! 2. a UTF-8 character split across two TCP writes arrives whole;
//! 3. CRLF line ends (Google's streams use them) are read like LF.

use std::time::Duration;

use futures_util::StreamExt;
use retry_core::driver::tokio::AsyncRetry;
use retry_core::{stream_end, Failure, RetryPolicy};
use sse_stream::SseByteStream;
use tokio::io::AsyncWriteExt;

/// Reads one streamed chat completion: the text, or the failure to retry. The HTTP status,
/// the transport and the finish reason are all checked.
async fn stream_text(client: &reqwest::Client, url: &str) -> Result<String, Failure> {
    stream_text_counted(client, url).await.map(|(text, _)| text)
}

/// [`stream_text`], also saying how many body chunks the text arrived in.
async fn stream_text_counted(
    client: &reqwest::Client,
    url: &str,
) -> Result<(String, usize), Failure> {
    let response = client
        .post(url)
        .bearer_auth("sk-example-not-a-real-key-0000")
        .json(&serde_json::json!({
            "model": "gpt-4o", "stream": true,
            "messages": [{"role": "user", "content": "hi"}]
        }))
        .send()
        .await
        .map_err(|e| Failure::from(&e))?;
    if !response.status().is_success() {
        return Err(retry_core::reqwest_support::failure_from_response(response).await);
    }
    let chunks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&chunks);
    let body = response.bytes_stream().inspect(move |_| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let mut events = SseByteStream::new(body);
    let (mut text, mut reason) = (String::new(), None::<String>);
    while let Some(event) = events.next().await {
        // A broken body or an undecodable event: the stream broke off.
        let event = event.map_err(|e| Failure::stream_incomplete(format!("SSE: {e}")))?;
        let Some(data) = event.data else { continue };
        if data == "[DONE]" {
            continue;
        }
        let chunk: serde_json::Value = serde_json::from_str(&data)
            .map_err(|e| Failure::stream_incomplete(format!("SSE data is not JSON: {e}")))?;
        if chunk.get("error").is_some() {
            return Err(retry_core::sse::failure_from_payload(&data));
        }
        if let Some(choice) = chunk.pointer("/choices/0") {
            if let Some(piece) = choice.pointer("/delta/content").and_then(|c| c.as_str()) {
                text.push_str(piece);
            }
            if let Some(r) = choice.get("finish_reason").and_then(|r| r.as_str()) {
                reason = Some(r.to_owned());
            }
        }
    }
    // The core's rule: no finish reason, or one that reports a failure, is half an answer.
    let chunks = chunks.load(std::sync::atomic::Ordering::Relaxed);
    match stream_end::incomplete("openai", reason.as_deref()) {
        Ok(None) => Ok((text, chunks)),
        Ok(Some(failure)) => Err(failure),
        Err(e) => unreachable!("\"openai\" is in the table: {e}"),
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("a client")
}

/// 1. The lab's stream without a finish reason, then a whole one: two requests, one answer.
async fn lab_stream_is_retried() -> (String, usize, Vec<String>) {
    let script = r#"{"steps": [{"fault": "stream_cut", "clean": true, "after_chunks": 2}]}"#;
    let (addr, lab) = retry_lab::spawn(retry_lab::Script::parse(script).expect("a script"));
    let url = format!("http://{addr}/v1/chat/completions");
    let client = client();
    let text = AsyncRetry::new(RetryPolicy::forgeflare())
        .sleeper(&NoWait)
        .run(|_| stream_text(&client, &url))
        .await
        .expect("the second stream is whole");
    let log = lab.log();
    let faults = log.iter().map(|e| e.fault.clone()).collect();
    (text, log.len(), faults)
}

/// A loopback server that answers one request with `writes`, flushed apart, then closes.
async fn serve(writes: Vec<Vec<u8>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        socket.set_nodelay(true).ok();
        // The request: read until its body has arrived (one small read is enough here).
        let mut buf = vec![0u8; 64 * 1024];
        let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut buf).await;
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        socket.write_all(head.as_bytes()).await.ok();
        for w in writes {
            socket.write_all(&w).await.ok();
            socket.flush().await.ok();
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        socket.shutdown().await.ok();
    });
    format!("http://{addr}/v1/chat/completions")
}

fn data(content: &str, finish: Option<&str>, eol: &str) -> String {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": content},
                                                 "finish_reason": finish}]});
    format!("data: {chunk}{eol}{eol}")
}

/// 2 and 3. "crab: 🦀, café" with the crab's four bytes split 2 + 2 across writes, every line
/// ending in CRLF.
async fn split_character_and_crlf_survive() -> Result<(String, usize), Failure> {
    let body = [
        data("crab: 🦀", None, "\r\n"),
        data(", café", None, "\r\n"),
        data("", Some("stop"), "\r\n"),
        "data: [DONE]\r\n\r\n".to_owned(),
    ]
    .concat()
    .into_bytes();
    let crab = body
        .windows(4)
        .position(|w| w == "🦀".as_bytes())
        .expect("the crab");
    let (a, rest) = body.split_at(crab + 2);
    // The CR and LF of one line end split apart too.
    let cr = rest.iter().position(|b| *b == b'\r').expect("a CR");
    let (b, c) = rest.split_at(cr + 1);
    let url = serve(vec![a.to_vec(), b.to_vec(), c.to_vec()]).await;
    stream_text_counted(&client(), &url).await
}

/// Waits nothing (the lab's retry is immediate in this example); the driver still decides.
struct NoWait;

impl retry_core::driver::tokio::AsyncSleeper for NoWait {
    fn sleep(
        &self,
        _: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (text, requests, faults) = lab_stream_is_retried().await;
    println!("lab: {requests} requests ({faults:?}), answer {text:?}");
    let (text, chunks) = split_character_and_crlf_survive()
        .await
        .expect("a whole stream");
    println!("split character and CRLF: {text:?} from {chunks} body chunks");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lab_stream_without_a_finish_reason_is_retried_once() {
        let (text, requests, faults) = lab_stream_is_retried().await;
        assert_eq!(requests, 2, "one request per attempt");
        assert_eq!(faults, ["stream_cut", "ok"]);
        assert_eq!(text, "Hello from retry-lab! This is reply number 2.");
    }

    #[tokio::test]
    async fn a_character_split_across_writes_and_crlf_line_ends_survive() {
        let (text, chunks) = split_character_and_crlf_survive().await.expect("whole");
        assert_eq!(text, "crab: 🦀, café");
        // The three writes arrived apart: the crab's halves and the CR and LF were split.
        assert!(chunks >= 3, "{chunks} chunks");
    }

    #[tokio::test]
    async fn a_stream_without_a_finish_reason_is_a_stream_interrupted_failure() {
        let url = serve(vec![data("half an", None, "\n").into_bytes()]).await;
        let failure = stream_text(&client(), &url).await.expect_err("incomplete");
        let c = retry_core::classify(&failure);
        assert_eq!(c.category, retry_core::Category::StreamInterrupted);
        assert!(
            failure.message.contains("choices[].finish_reason"),
            "{failure:?}"
        );
    }
}
