//! Cost of the engine's hot paths. Targets (issue 2): classify a typical provider error in
//! under 1 µs; prune a 10 000-message history in under 0.5 ms.
//! Run: cargo bench -p llm-retry-core --bench engine

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use retry_core::__private::machine::Retrier;
use retry_core::__private::orphan::{plan, prune_json, prune_json_owned, views_from_json};
use retry_core::{classify, Failure, RetryPolicy};
use serde_json::json;

fn failures() -> Vec<(&'static str, Failure)> {
    vec![
        (
            "openai_429_json",
            Failure::http(429, "Error code: 429 - Rate limit reached for gpt-4o")
                .with_header("retry-after", "7")
                .with_body(r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#)
                .with_class(["openai.RateLimitError", "openai.APIStatusError", "openai.APIError", "openai.OpenAIError", "Exception"]),
        ),
        (
            "anthropic_529_json",
            Failure::http(529, "Overloaded")
                .with_body(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
                .with_class(["anthropic.OverloadedError", "anthropic.APIStatusError", "anthropic.APIError", "Exception"]),
        ),
        ("status_only_503", Failure::http(503, "Service Unavailable")),
        (
            "faraday_connection_failed",
            Failure::new("Failed to open TCP connection to api.openai.com:443 (Connection refused - connect(2))")
                .with_class(["Faraday::ConnectionFailed", "Faraday::Error", "StandardError", "Exception"]),
        ),
        ("message_only_wrapped", Failure::new("LLMChatError: upstream said: connection reset by peer").with_class(["planexe.LLMChatError", "Exception"])),
    ]
}

fn history(n: usize) -> Vec<serde_json::Value> {
    let mut h = Vec::with_capacity(n);
    let mut i = 0;
    while h.len() < n {
        h.push(json!({"role": "user", "content": format!("step {i}")}));
        h.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("call_{i}"), "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\": \"/a\"}"}}]}));
        if i % 50 != 49 {
            h.push(json!({"role": "tool", "tool_call_id": format!("call_{i}"), "content": "ok"}));
        }
        i += 1;
    }
    h.truncate(n);
    h
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("classify");
    for (name, f) in failures() {
        g.bench_function(name, |b| b.iter(|| classify(black_box(&f))));
    }
    g.finish();

    let f = Failure::http(503, "Service Unavailable");
    c.bench_function("retrier/first_decision", |b| {
        b.iter(|| {
            Retrier::new(RetryPolicy::recommended())
                .with_seed(1)
                .on_failure(black_box(&f), 0.0)
        })
    });

    let h = history(10_000);
    let views = views_from_json(&h).unwrap();
    let mut g = c.benchmark_group("prune_10k");
    g.bench_function("plan_over_views", |b| b.iter(|| plan(black_box(&views))));
    g.bench_function("json_views_plan_apply_borrowed", |b| {
        b.iter(|| prune_json(black_box(&h)).unwrap())
    });
    g.bench_function("json_views_plan_apply_owned", |b| {
        b.iter_batched(
            || h.clone(),
            |h| prune_json_owned(h).unwrap(),
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
