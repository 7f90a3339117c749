//! Every fault kind renders the right status, headers and body shape on both endpoints.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

async fn fault(path: &str, f: &str) -> Reply {
    let lab = lab(json!({}));
    call(&lab, path, false, Some(f), Some("sk-test-0123456789"))
        .await
        .unwrap()
}

#[tokio::test]
async fn ok_non_stream_has_each_provider_shape() {
    let lab = lab(json!({}));
    let r = call(&lab, OPENAI, false, None, None).await.unwrap();
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-test");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .ends_with(" 1."));
    assert!(v["usage"]["total_tokens"].as_u64().unwrap() > 0);
    assert!(r.header("x-request-id").is_some());

    let r = call(&lab, ANTHROPIC, false, None, None).await.unwrap();
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["role"], "assistant");
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["content"][0]["type"], "text");
    assert!(v["content"][0]["text"].as_str().unwrap().ends_with(" 2."));
    assert!(v["usage"]["output_tokens"].as_u64().unwrap() > 0);
    assert!(r.header("request-id").is_some());
}

#[tokio::test]
async fn ok_stream_openai() {
    let lab = lab(json!({}));
    let r = call(&lab, OPENAI, true, None, None).await.unwrap();
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    let ev = parse_sse(&r.text);
    assert_eq!(ev.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> = ev[..ev.len() - 1].iter().map(Sse::json).collect();
    assert!(chunks
        .iter()
        .all(|c| c["object"] == "chat.completion.chunk"));
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
    assert_eq!(
        deltas(&ev).concat(),
        "Hello from retry-lab! This is reply number 1."
    );
}

#[tokio::test]
async fn ok_stream_openai_usage_chunk_on_request() {
    let lab = lab(json!({}));
    let mut b = body(OPENAI, true);
    b["stream_options"] = json!({"include_usage": true});
    let resp = client()
        .post(lab.url(OPENAI))
        .json(&b)
        .send()
        .await
        .unwrap();
    let ev = parse_sse(&resp.text().await.unwrap());
    let usage = &ev[ev.len() - 2].json();
    assert_eq!(usage["choices"], json!([]));
    assert!(usage["usage"]["total_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn ok_stream_anthropic() {
    let lab = lab(json!({}));
    let r = call(&lab, ANTHROPIC, true, None, None).await.unwrap();
    assert_eq!(r.status, 200);
    let ev = parse_sse(&r.text);
    let names: Vec<&str> = ev.iter().map(|e| e.event.as_deref().unwrap()).collect();
    let mut expected = vec!["message_start", "content_block_start", "ping"];
    expected.extend(vec!["content_block_delta"; 8]);
    expected.extend(["content_block_stop", "message_delta", "message_stop"]);
    assert_eq!(names, expected);
    for e in &ev {
        assert_eq!(
            e.json()["type"],
            e.event.as_deref().unwrap(),
            "event name = data.type"
        );
    }
    assert_eq!(ev[3].json()["delta"]["type"], "text_delta");
    let md = ev
        .iter()
        .find(|e| e.event.as_deref() == Some("message_delta"))
        .unwrap();
    assert_eq!(md.json()["delta"]["stop_reason"], "end_turn");
    assert_eq!(
        deltas(&ev).concat(),
        "Hello from retry-lab! This is reply number 1."
    );
}

/// (fault, OpenAI status/type/code/message part, Anthropic status/type/message part)
#[allow(clippy::type_complexity)]
const ERRORS: &[(&str, (u16, &str, Option<&str>, &str), (u16, &str, &str))] = &[
    (
        r#"{"fault":"rate_limit"}"#,
        (429, "requests", Some("rate_limit_exceeded"), "Rate limit reached"),
        (429, "rate_limit_error", "rate limit"),
    ),
    (
        "insufficient_quota",
        (429, "insufficient_quota", Some("insufficient_quota"), "exceeded your current quota"),
        (400, "invalid_request_error", "credit balance is too low"),
    ),
    (
        "overloaded",
        (503, "server_error", None, "The server is overloaded"),
        (529, "overloaded_error", "Overloaded"),
    ),
    (
        "server_error",
        (500, "server_error", None, "The server had an error"),
        (500, "api_error", "Internal server error"),
    ),
    (
        "unavailable",
        (503, "server_error", None, "Service Unavailable"),
        (503, "api_error", "Service Unavailable"),
    ),
    (
        "unauthorized",
        (401, "invalid_request_error", Some("invalid_api_key"), "Incorrect API key"),
        (401, "authentication_error", "invalid x-api-key"),
    ),
    (
        "tool_pairing",
        (
            400,
            "invalid_request_error",
            None,
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
        ),
        (
            400,
            "invalid_request_error",
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        ),
    ),
    (
        "context_overflow",
        (400, "invalid_request_error", Some("context_length_exceeded"), "maximum context length"),
        (400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
    ),
    (
        r#"{"fault":"status","status":503}"#,
        (503, "server_error", None, "Service Unavailable"),
        (503, "api_error", "Service Unavailable"),
    ),
    (
        r#"{"fault":"status","status":404}"#,
        (404, "invalid_request_error", None, "Not Found"),
        (404, "not_found_error", "Not Found"),
    ),
    (
        r#"{"fault":"sse_error"}"#,
        (503, "overloaded_error", None, "Overloaded"),
        (529, "overloaded_error", "Overloaded"),
    ),
];

#[tokio::test]
async fn error_faults_render_each_provider_shape() {
    let lab = lab(json!({}));
    for (f, (os, otype, ocode, omsg), (as_, atype, amsg)) in ERRORS {
        let r = call(&lab, OPENAI, false, Some(f), None).await.unwrap();
        assert_eq!(r.status, *os, "{f} on OpenAI");
        assert_eq!(r.header("content-type"), Some("application/json"));
        let e = openai_error(&r);
        assert_eq!(e["type"], *otype, "{f}: {e}");
        assert_eq!(e["code"].as_str(), *ocode, "{f}: {e}");
        assert!(e["message"].as_str().unwrap().contains(omsg), "{f}: {e}");

        let r = call(&lab, ANTHROPIC, false, Some(f), None).await.unwrap();
        assert_eq!(r.status, *as_, "{f} on Anthropic");
        let e = anthropic_error(&r);
        assert_eq!(e["type"], *atype, "{f}: {e}");
        assert!(e["message"].as_str().unwrap().contains(amsg), "{f}: {e}");
    }
}

#[tokio::test]
async fn rate_limit_headers() {
    let f = r#"{"fault":"rate_limit","retry_after":1,"retry_after_ms":1500,"reset":"6m0s"}"#;
    let r = fault(OPENAI, f).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.header("retry-after-ms"), Some("1500"));
    assert_eq!(r.header("x-ratelimit-reset-requests"), Some("6m0s"));

    let r = fault(ANTHROPIC, f).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.header("retry-after-ms"), Some("1500"));
    let reset = r.header("anthropic-ratelimit-requests-reset").unwrap();
    assert_eq!(reset.len(), "2024-01-01T00:00:00Z".len(), "{reset}");
    assert!(
        reset.ends_with('Z') && reset.as_bytes()[10] == b'T',
        "{reset}"
    );

    // Seconds as a number become Go's duration text; a string retry-after goes out verbatim.
    let f = r#"{"fault":"rate_limit","retry_after":"Wed, 21 Oct 2015 07:28:00 GMT","reset":90}"#;
    let r = fault(OPENAI, f).await;
    assert_eq!(
        r.header("retry-after"),
        Some("Wed, 21 Oct 2015 07:28:00 GMT")
    );
    assert_eq!(r.header("x-ratelimit-reset-requests"), Some("1m30s"));
    let r = fault(OPENAI, r#"{"fault":"rate_limit","retry_after":0.5}"#).await;
    assert_eq!(r.header("retry-after"), Some("0.5"));
    assert_eq!(r.header("retry-after-ms"), None);
}

#[tokio::test]
async fn status_with_raw_body_and_headers() {
    let f = r#"{"fault":"status","status":418,"body":"I'm a teapot","headers":{"x-should-retry":"false"}}"#;
    for path in [OPENAI, ANTHROPIC] {
        let r = fault(path, f).await;
        assert_eq!(r.status, 418);
        assert_eq!(r.text, "I'm a teapot");
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        assert_eq!(r.header("x-should-retry"), Some("false"));
    }
    // A JSON body is serialized; a 200 "error" is possible (the body decides).
    let f = r#"{"fault":"status","status":200,"body":{"error":{"type":"overloaded_error"}}}"#;
    let r = fault(ANTHROPIC, f).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["type"], "overloaded_error");
    assert_eq!(r.header("content-type"), Some("application/json"));
    // Headers override: an empty value removes, others replace; any fault takes them.
    let f =
        r#"{"fault":"overloaded","message":"busy","headers":{"request-id":"","retry-after":"2"}}"#;
    let r = fault(ANTHROPIC, f).await;
    assert_eq!(r.status, 529);
    assert_eq!(r.header("request-id"), None);
    assert_eq!(r.header("retry-after"), Some("2"));
    assert_eq!(r.json()["error"]["message"], "busy");
}

#[tokio::test]
async fn html_pages() {
    for path in [OPENAI, ANTHROPIC] {
        for status in [502u16, 503, 504] {
            let r = fault(path, &format!(r#"{{"fault":"html","status":{status}}}"#)).await;
            assert_eq!(r.status, status);
            assert_eq!(r.header("content-type"), Some("text/html"));
            assert_eq!(r.header("server"), Some("nginx"));
            assert!(r.text.contains("<center>nginx</center>"), "{}", r.text);
            assert!(r.text.contains(&format!("<title>{status} ")), "{}", r.text);
            assert!(serde_json::from_str::<Value>(&r.text).is_err());
        }
        for status in [520u16, 522, 524] {
            let r = fault(path, &format!(r#"{{"fault":"html","status":{status}}}"#)).await;
            assert_eq!(r.status, status);
            assert_eq!(r.header("server"), Some("cloudflare"));
            assert!(r.header("cf-ray").is_some());
            assert!(r.header("content-type").unwrap().starts_with("text/html"));
            assert!(
                r.text.contains(&format!("Error code {status}")),
                "{}",
                r.text
            );
        }
        let r = fault(
            path,
            r#"{"fault":"html","status":502,"server":"cloudflare"}"#,
        )
        .await;
        assert!(r.text.contains("Bad gateway") && r.text.contains("Cloudflare Ray ID"));
    }
}

async fn stream_with(path: &str, f: &str) -> (u16, String, Result<(), reqwest::Error>) {
    let lab = lab(json!({}));
    let resp = client()
        .post(lab.url(path))
        .header("x-lab-fault", f)
        .json(&body(path, true))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let (text, end) = read_stream(resp).await;
    (status, text, end)
}

#[tokio::test]
async fn sse_error_mid_stream() {
    let f = r#"{"fault":"sse_error","after_chunks":2}"#;
    let (status, text, end) = stream_with(OPENAI, f).await;
    assert_eq!(status, 200);
    assert!(end.is_ok());
    let ev = parse_sse(&text);
    assert_eq!(deltas(&ev), ["Hello", " from"]);
    let last = ev.last().unwrap().json();
    assert_eq!(last["error"]["type"], "overloaded_error");
    assert!(last["error"]["message"].is_string());
    assert!(!text.contains("[DONE]") && !text.contains("\"stop\""));

    let (status, text, end) = stream_with(ANTHROPIC, f).await;
    assert_eq!(status, 200);
    assert!(end.is_ok());
    let ev = parse_sse(&text);
    assert_eq!(deltas(&ev), ["Hello", " from"]);
    let last = ev.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    assert_eq!(
        last.json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    assert!(!text.contains("message_stop") && !text.contains("end_turn"));

    let (_, text, _) = stream_with(
        ANTHROPIC,
        r#"{"fault":"sse_error","error_type":"api_error"}"#,
    )
    .await;
    let ev = parse_sse(&text);
    assert!(deltas(&ev).is_empty());
    assert_eq!(ev.last().unwrap().json()["error"]["type"], "api_error");
}

#[tokio::test]
async fn sse_error_before_the_prelude() {
    let f = r#"{"fault":"sse_error","prelude":false}"#;
    let (status, text, _) = stream_with(OPENAI, f).await;
    assert_eq!(status, 200);
    let ev = parse_sse(&text);
    assert_eq!(ev.len(), 1, "{text}");
    assert_eq!(ev[0].json()["error"]["type"], "overloaded_error");

    let (_, text, _) = stream_with(ANTHROPIC, f).await;
    let ev = parse_sse(&text);
    assert_eq!(ev.len(), 1, "{text}");
    assert_eq!(ev[0].event.as_deref(), Some("error"));
    assert!(!text.contains("message_start"));
}

#[tokio::test]
async fn stream_cut_breaks_the_body() {
    for path in [OPENAI, ANTHROPIC] {
        let (status, text, end) =
            stream_with(path, r#"{"fault":"stream_cut","after_chunks":3}"#).await;
        assert_eq!(status, 200);
        let err = end.expect_err("the body must not end cleanly");
        assert!(err.is_body() || err.is_decode(), "{}", chain(&err));
        assert_eq!(deltas(&parse_sse(&text)), ["Hello", " from", " retry-lab!"]);
        assert!(!text.contains("[DONE]") && !text.contains("message_stop"));
        assert!(!text.contains("\"stop\"") && !text.contains("end_turn"));

        // clean: the HTTP body ends properly; only the stop reason is missing.
        let (_, text, end) = stream_with(
            path,
            r#"{"fault":"stream_cut","after_chunks":1,"clean":true}"#,
        )
        .await;
        assert!(end.is_ok());
        assert_eq!(deltas(&parse_sse(&text)), ["Hello"]);
        assert!(!text.contains("[DONE]") && !text.contains("message_stop"));
    }
    // A non-stream request gets half of a JSON body that promised more.
    let lab = lab(json!({}));
    let resp = client()
        .post(lab.url(OPENAI))
        .header("x-lab-fault", "stream_cut")
        .json(&body(OPENAI, false))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.bytes().await.is_err());
}

/// Whether a reqwest error's source chain holds an `io::Error` of kind ConnectionReset.
fn has_reset(e: &reqwest::Error) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cur {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionReset)
        {
            return true;
        }
        cur = c.source();
    }
    false
}

#[tokio::test]
async fn stream_cut_with_rst_resets_mid_body() {
    let rst = r#"{"fault":"stream_cut","after_chunks":2,"rst":true}"#;
    for path in [OPENAI, ANTHROPIC] {
        // A stream: the events so far arrive, then the connection is reset.
        let (status, text, end) = stream_with(path, rst).await;
        assert_eq!(status, 200);
        assert_eq!(deltas(&parse_sse(&text)), ["Hello", " from"]);
        let err = end.expect_err("the body must not end cleanly");
        assert!(has_reset(&err), "{}", chain(&err));

        // Plain JSON: the status, the headers and half the promised body, then the reset.
        let lab = lab(json!({}));
        let resp = client()
            .post(lab.url(path))
            .header("x-lab-fault", r#"{"fault":"stream_cut","rst":true}"#)
            .json(&body(path, false))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let promised: usize = resp.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let (text, end) = read_stream(resp).await;
        assert!(!text.is_empty() && text.len() < promised, "{text}");
        let err = end.expect_err("the body must not end cleanly");
        assert!(has_reset(&err), "{}", chain(&err));
        assert_eq!(lab.log()[0].fault, "stream_cut");
    }
    // Without rst the cut is a plain close: the body ends short, with no reset.
    let (_, _, end) = stream_with(OPENAI, r#"{"fault":"stream_cut","after_chunks":2}"#).await;
    assert!(!has_reset(&end.unwrap_err()));
    assert!(retry_lab::Script::parse(
        r#"{"steps":[{"fault":"stream_cut","clean":true,"rst":true}]}"#
    )
    .is_err());
}

#[tokio::test]
async fn reset_closes_without_a_response() {
    let lab = lab(json!({}));
    for path in [OPENAI, ANTHROPIC] {
        for stream in [false, true] {
            let err = call(&lab, path, stream, Some("reset"), None)
                .await
                .err()
                .expect("no response");
            assert!(!err.is_timeout() && !err.is_status());
            let c = chain(&err).to_lowercase();
            assert!(
                c.contains("connectionreset") || c.contains("connection reset"),
                "{c}"
            );
        }
        let err = call(
            &lab,
            path,
            false,
            Some(r#"{"fault":"reset","graceful":true}"#),
            None,
        )
        .await
        .err()
        .expect("no response");
        let c = chain(&err).to_lowercase();
        assert!(
            c.contains("incompletemessage") || c.contains("closed before"),
            "{c}"
        );
    }
    // Each reset was one request: no client-side replay hid it.
    assert_eq!(lab.log().len(), 6);
    assert!(lab
        .log()
        .iter()
        .all(|e| e.status.is_none() && e.fault == "reset"));
    // The lab itself is fine afterwards.
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);
}

#[tokio::test]
async fn stall_waits_before_answering() {
    let lab = lab(json!({}));
    // Past the client's timeout: the client gives up.
    let started = Instant::now();
    let err = client()
        .post(lab.url(ANTHROPIC))
        .timeout(Duration::from_millis(150))
        .header("x-lab-fault", r#"{"fault":"stall","seconds":0.6}"#)
        .json(&body(ANTHROPIC, false))
        .send()
        .await
        .expect_err("timed out");
    assert!(err.is_timeout(), "{}", chain(&err));
    assert!(started.elapsed() < Duration::from_millis(500));

    // Within it: the answer comes, late.
    let started = Instant::now();
    let r = call(
        &lab,
        OPENAI,
        false,
        Some(r#"{"fault":"stall","seconds":0.2}"#),
        None,
    )
    .await
    .unwrap();
    assert_eq!(r.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(200));

    // after_chunks on a stream: headers and the first chunks arrive, then the pause.
    let started = Instant::now();
    let (status, text, end) = stream_with(
        ANTHROPIC,
        r#"{"fault":"stall","seconds":0.3,"after_chunks":2}"#,
    )
    .await;
    assert_eq!(status, 200);
    assert!(end.is_ok());
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(text.contains("message_stop"));
}

#[tokio::test]
async fn chunk_delay_paces_streams() {
    let lab = lab(json!({"chunk_delay_ms": 20}));
    let started = Instant::now();
    let r = call(&lab, OPENAI, true, None, None).await.unwrap();
    assert!(r.text.ends_with("data: [DONE]\n\n"));
    // 12 chunks, 11 gaps.
    assert!(started.elapsed() >= Duration::from_millis(200));
}
