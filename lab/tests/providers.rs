//! The providers beyond OpenAI and Anthropic: routes, success shapes and each error's wire
//! format (status, code, where the code travels).

mod common;

use common::{client, lab};
use serde_json::{json, Value};

const BEDROCK: &str = "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse";
const BEDROCK_INVOKE: &str = "/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke";
const GEMINI: &str = "/v1beta/models/gemini-2.0-flash:generateContent";
const GEMINI_STREAM: &str = "/v1beta/models/gemini-2.0-flash:streamGenerateContent";
const AZURE: &str = "/openai/deployments/gpt4o/chat/completions";
const OPENROUTER: &str = "/api/v1/chat/completions";
const GROQ: &str = "/openai/v1/chat/completions";
const MISTRAL: &str = "/mistral/v1/chat/completions";
const VLLM: &str = "/vllm/v1/chat/completions";
const TGI: &str = "/tgi/v1/chat/completions";
const LLAMACPP: &str = "/llamacpp/v1/chat/completions";
const OLLAMA: &str = "/api/chat";
const COHERE: &str = "/v2/chat";

struct Got {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn post(path: &str, fault: Option<&str>, body: Value) -> Got {
    let lab = lab(json!({}));
    let mut req = client().post(lab.url(path)).json(&body);
    if let Some(f) = fault {
        req = req.header("x-lab-fault", f);
    }
    let resp = req.send().await.unwrap();
    Got {
        status: resp.status().as_u16(),
        headers: resp.headers().clone(),
        text: resp.text().await.unwrap(),
    }
}

fn chat(stream: bool) -> Value {
    json!({"model": "m-test", "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn ok_answers_in_each_providers_shape() {
    let g = post(BEDROCK, None, json!({"messages": []})).await;
    assert_eq!(g.status, 200);
    let v = g.json();
    assert_eq!(v["stopReason"], "end_turn");
    assert!(v["output"]["message"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Hello from retry-lab!"));
    assert!(g.header("x-amzn-requestid").is_some());

    let v = post(BEDROCK_INVOKE, None, json!({})).await.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["model"], "anthropic.claude-3-haiku-20240307-v1:0");

    let v = post(GEMINI, None, json!({"contents": []})).await.json();
    assert_eq!(v["candidates"][0]["finishReason"], "STOP");
    assert_eq!(v["candidates"][0]["content"]["role"], "model");
    assert_eq!(v["modelVersion"], "gemini-2.0-flash");

    let v = post(COHERE, None, chat(false)).await.json();
    assert_eq!(v["finish_reason"], "COMPLETE");
    assert_eq!(v["message"]["content"][0]["type"], "text");

    for path in [AZURE, OPENROUTER, GROQ, MISTRAL, VLLM, TGI, LLAMACPP] {
        let v = post(path, None, chat(false)).await.json();
        assert_eq!(v["object"], "chat.completion", "{path}");
    }

    // Ollama streams unless told not to.
    let v = post(OLLAMA, None, json!({"model": "llama3", "stream": false}))
        .await
        .json();
    assert_eq!(v["done"], true);
    assert_eq!(v["message"]["role"], "assistant");
}

#[tokio::test]
async fn streams_gemini_sse_and_ollama_ndjson() {
    let g = post(GEMINI_STREAM, None, json!({})).await;
    assert_eq!(g.header("content-type"), Some("text/event-stream"));
    let events: Vec<Value> = g
        .text
        .split("\r\n\r\n")
        .filter(|e| !e.is_empty())
        .map(|e| serde_json::from_str(e.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    assert_eq!(events.len(), 9);
    assert_eq!(
        events.last().unwrap()["candidates"][0]["finishReason"],
        "STOP"
    );
    assert!(events[0]["candidates"][0].get("finishReason").is_none());

    let g = post(OLLAMA, None, json!({"model": "llama3"})).await;
    assert_eq!(g.header("content-type"), Some("application/x-ndjson"));
    let lines: Vec<Value> = g
        .text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines.last().unwrap()["done"], true);

    let g = post(
        OLLAMA,
        Some(r#"{"fault":"sse_error","after_chunks":2,"message":"boom"}"#),
        json!({}),
    )
    .await;
    let last: Value = serde_json::from_str(g.text.lines().last().unwrap()).unwrap();
    assert_eq!(last, json!({"error": "boom"}));
}

#[tokio::test]
async fn bedrock_errors_carry_the_code_in_x_amzn_errortype() {
    // (fault, status, code) per the Bedrock Runtime API reference.
    for (fault, status, code) in [
        ("rate_limit", 429, "ThrottlingException"),
        ("overloaded", 503, "ServiceUnavailableException"),
        ("unavailable", 503, "ServiceUnavailableException"),
        ("server_error", 500, "InternalServerException"),
        ("model_timeout", 408, "ModelTimeoutException"),
        ("bad_request", 400, "ValidationException"),
        ("context_overflow", 400, "ValidationException"),
        ("tool_pairing", 400, "ValidationException"),
        ("forbidden", 403, "AccessDeniedException"),
        ("model_not_found", 404, "ResourceNotFoundException"),
        ("unauthorized", 403, "UnrecognizedClientException"),
        ("expired_token", 403, "ExpiredTokenException"),
    ] {
        let g = post(BEDROCK, Some(fault), json!({})).await;
        assert_eq!(g.status, status, "{fault}");
        let t = g.header("x-amzn-errortype").unwrap();
        assert_eq!(t.split(':').next(), Some(code), "{fault}");
        let v = g.json();
        assert!(
            v["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{fault}"
        );
        assert_eq!(v.as_object().unwrap().len(), 1, "{fault}: only a message");
    }
    // A bare status gets the code Bedrock uses for it.
    let g = post(
        BEDROCK,
        Some(r#"{"fault":"status","status":424}"#),
        json!({}),
    )
    .await;
    assert_eq!(
        g.header("x-amzn-errortype").unwrap().split(':').next(),
        Some("ModelErrorException")
    );
}

#[tokio::test]
async fn gemini_errors_are_google_rpc_status() {
    for (fault, status, name) in [
        ("rate_limit", 429, "RESOURCE_EXHAUSTED"),
        ("insufficient_quota", 429, "RESOURCE_EXHAUSTED"),
        ("overloaded", 503, "UNAVAILABLE"),
        ("server_error", 500, "INTERNAL"),
        ("model_timeout", 504, "DEADLINE_EXCEEDED"),
        ("unauthorized", 400, "INVALID_ARGUMENT"),
        ("forbidden", 403, "PERMISSION_DENIED"),
        ("model_not_found", 404, "NOT_FOUND"),
        ("context_overflow", 400, "INVALID_ARGUMENT"),
    ] {
        let g = post(GEMINI, Some(fault), json!({})).await;
        assert_eq!(g.status, status, "{fault}");
        let v = g.json();
        assert_eq!(v["error"]["code"], status, "{fault}");
        assert_eq!(v["error"]["status"], name, "{fault}");
    }
    let v = post(
        GEMINI,
        Some(r#"{"fault":"rate_limit","retry_after":3}"#),
        json!({}),
    )
    .await;
    assert_eq!(v.header("retry-after"), Some("3"));
    let details = v.json()["error"]["details"].clone();
    assert_eq!(
        details[2]["@type"],
        "type.googleapis.com/google.rpc.RetryInfo"
    );
    let v = post(GEMINI, Some("unauthorized"), json!({})).await.json();
    assert_eq!(v["error"]["details"][0]["reason"], "API_KEY_INVALID");
    let v = post(GEMINI, Some("model_not_found"), json!({}))
        .await
        .json();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("models/gemini-2.0-flash is not found"));
    // A safety block is a 200 with promptFeedback, not an HTTP error.
    let g = post(GEMINI, Some("content_filter"), json!({})).await;
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["promptFeedback"]["blockReason"], "SAFETY");
}

#[tokio::test]
async fn azure_openrouter_and_openai_compatible_servers() {
    let v = post(AZURE, Some("content_filter"), chat(false)).await;
    assert_eq!(v.status, 400);
    let v = v.json();
    assert_eq!(v["error"]["code"], "content_filter");
    assert_eq!(
        v["error"]["innererror"]["code"],
        "ResponsibleAIPolicyViolation"
    );
    assert_eq!(
        v["error"]["innererror"]["content_filter_result"]["violence"]["filtered"],
        true
    );
    let g = post(AZURE, Some("model_not_found"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["error"]["code"].clone()),
        (404, json!("DeploymentNotFound"))
    );
    let g = post(AZURE, Some("unauthorized"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["error"]["code"].clone()),
        (401, json!("401"))
    );

    let g = post(
        OPENROUTER,
        Some(r#"{"fault":"rate_limit","retry_after":2}"#),
        chat(false),
    )
    .await;
    assert_eq!(g.status, 429);
    assert_eq!(g.header("retry-after"), Some("2"));
    let v = g.json();
    assert_eq!(v["error"]["code"], 429);
    assert!(v["error"]["metadata"]["raw"]
        .as_str()
        .unwrap()
        .contains("rate-limited upstream"));
    let v = post(OPENROUTER, Some("overloaded"), chat(false))
        .await
        .json();
    let raw: Value = serde_json::from_str(v["error"]["metadata"]["raw"].as_str().unwrap()).unwrap();
    assert_eq!(raw["error"]["type"], "overloaded_error");
    let g = post(OPENROUTER, Some("insufficient_quota"), chat(false)).await;
    assert_eq!(g.status, 402);

    let g = post(VLLM, Some("context_overflow"), chat(false)).await;
    let v = g.json();
    assert_eq!(
        (
            g.status,
            v["object"].clone(),
            v["type"].clone(),
            v["code"].clone()
        ),
        (400, json!("error"), json!("BadRequestError"), json!(400))
    );
    let g = post(TGI, Some("overloaded"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()),
        (
            429,
            json!({"error": "Model is overloaded", "error_type": "overloaded"})
        )
    );
    let g = post(TGI, Some("context_overflow"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["error_type"].clone()),
        (422, json!("validation"))
    );
    let g = post(LLAMACPP, Some("context_overflow"), chat(false)).await;
    let v = g.json();
    assert_eq!(
        (
            g.status,
            v["error"]["type"].clone(),
            v["error"]["n_ctx"].clone()
        ),
        (400, json!("exceed_context_size_error"), json!(4096))
    );
    let g = post(LLAMACPP, Some("unavailable"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["error"]["type"].clone()),
        (503, json!("unavailable_error"))
    );
    let g = post(OLLAMA, Some("model_not_found"), json!({"model": "llama3"})).await;
    assert_eq!(
        (g.status, g.json()),
        (
            404,
            json!({"error": "model \"llama3\" not found, try pulling it first"})
        )
    );

    let g = post(GROQ, Some("rate_limit"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["error"]["code"].clone()),
        (429, json!("rate_limit_exceeded"))
    );
    let g = post(MISTRAL, Some("unauthorized"), chat(false)).await;
    assert_eq!(
        (g.status, g.json()["message"].clone()),
        (401, json!("Unauthorized"))
    );
    let g = post(COHERE, Some("rate_limit"), chat(false)).await;
    assert_eq!(g.status, 429);
    assert!(g.json()["message"].as_str().unwrap().contains("Trial key"));
}

#[tokio::test]
async fn every_fault_renders_on_every_provider_without_panicking() {
    let faults = [
        "ok",
        "rate_limit",
        "insufficient_quota",
        "overloaded",
        "server_error",
        "unavailable",
        "unauthorized",
        "tool_pairing",
        "context_overflow",
        "sse_error",
        "forbidden",
        "model_not_found",
        "bad_request",
        "model_timeout",
        "expired_token",
        "content_filter",
        r#"{"fault":"status","status":418}"#,
        r#"{"fault":"html","status":524}"#,
        r#"{"fault":"stream_cut","clean":true}"#,
    ];
    let paths = [
        common::OPENAI,
        common::ANTHROPIC,
        BEDROCK,
        BEDROCK_INVOKE,
        GEMINI,
        GEMINI_STREAM,
        AZURE,
        OPENROUTER,
        GROQ,
        MISTRAL,
        VLLM,
        TGI,
        LLAMACPP,
        OLLAMA,
        COHERE,
    ];
    let lab = lab(json!({}));
    for path in paths {
        for f in faults {
            let resp = client()
                .post(lab.url(path))
                .header("x-lab-fault", f)
                .json(&chat(false))
                .send()
                .await
                .unwrap_or_else(|e| panic!("{path} {f}: {e}"));
            let status = resp.status().as_u16();
            // stream_cut on a non-stream request breaks the body off: no text to read.
            let text = resp.text().await.unwrap_or_default();
            let ok_status = f == "ok"
                || f.contains("stream_cut")
                || (path == GEMINI && f == "content_filter")
                || (path == GEMINI_STREAM && (f == "sse_error" || f == "content_filter"));
            if !ok_status {
                assert!(status >= 400, "{path} {f}: {status} {text}");
            }
        }
    }
    assert_eq!(lab.log().len(), paths.len() * faults.len());
}

#[tokio::test]
async fn the_lab_log_names_the_new_faults() {
    let lab = lab(json!({"steps": [{"fault": "model_timeout"}, {"fault": "expired_token"}]}));
    for _ in 0..2 {
        client()
            .post(lab.url(BEDROCK))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
    }
    let log = lab.log();
    assert_eq!(
        (log[0].fault.as_str(), log[0].status),
        ("model_timeout", Some(408))
    );
    assert_eq!(
        (log[1].fault.as_str(), log[1].status),
        ("expired_token", Some(403))
    );
}
