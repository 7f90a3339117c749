//! Bad input gets a clear error or a correct answer, never a panic.

use retry_core::__private::orphan::{prune_json, prune_json_str};
use retry_core::{classify, Category, ErrorCode, Failure, RetryPolicy};
use serde_json::json;

#[test]
fn bodies_that_are_not_json_are_read_as_text() {
    for body in [
        "<html><body><h1>502 Bad Gateway</h1></body></html>",
        "{not json",
        "[",
        "",
        "null",
        "{\"error\": 5}",
    ] {
        let c = classify(&Failure::http(502, "Bad Gateway").with_body(body));
        assert_eq!(c.category, Category::ServerError, "{body}");
    }
    let deep = "[".repeat(100_000);
    assert_eq!(
        classify(&Failure::http(500, "x").with_body(deep)).category,
        Category::ServerError
    );
    let huge = format!(
        "{{\"error\": {{\"message\": \"{}\"}}}}",
        "a".repeat(10 << 20)
    );
    assert_eq!(
        classify(&Failure::http(503, "x").with_body(huge)).category,
        Category::ServerError
    );
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let f = Failure::http(429, "rate limited").with_body_bytes(&[0xff, 0xfe, b'{', 0xc3]);
    assert_eq!(classify(&f).category, Category::RateLimited);
}

#[test]
fn retry_after_garbage_is_ignored() {
    for v in [
        "soon",
        "-3",
        "99999999999999999999",
        "1e400",
        "NaN",
        "",
        "  ",
        "Wed, 99 Foo 2026",
    ] {
        let c = classify(&Failure::http(429, "slow").with_header("retry-after", v));
        assert_eq!(c.retry_after, None, "{v:?}");
        assert!(c.transient);
    }
}

#[test]
fn impossible_statuses_are_no_evidence() {
    assert_eq!(classify(&Failure::http(0, "")).category, Category::Unknown);
    assert_eq!(
        classify(&Failure::http(65535, "")).category,
        Category::Unknown
    );
}

/// A redirect nobody followed is not impossible: it says the configured URL is wrong
/// (tests/corpus/http_clients.json, `http_ruby_net_http_retriable_error_302`).
#[test]
fn an_unfollowed_redirect_is_configuration() {
    let c = classify(&Failure::http(302, "moved"));
    assert_eq!(c.category, Category::Configuration);
    assert!(!c.transient);
}

#[test]
fn histories() {
    assert!(prune_json(&[]).unwrap().messages.is_empty());
    let err = prune_json(&[json!("hello")]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("message 0"));
    assert_eq!(
        prune_json_str("{\"role\": 1}").unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        prune_json_str("[{").unwrap_err().code,
        ErrorCode::InvalidJson
    );
    let no_id = [
        json!({"role": "assistant", "content": "x", "tool_calls": [{"function": {"name": "Bash"}}]}),
    ];
    let out = prune_json(&no_id).unwrap();
    assert_eq!(out.pruned.len(), 1);
    assert_eq!(
        out.messages,
        vec![json!({"role": "assistant", "content": "x"})]
    );
    let weird = [json!({"role": "assistant", "tool_calls": [3]})];
    assert_eq!(
        prune_json(&weird).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn policies() {
    for bad in [
        r#"{"max_attempts": 0}"#,
        r#"{"max_attempts": -1}"#,
        r#"{"jitter": "sometimes"}"#,
        r#"{"backoff": {"kind": "exponential", "base": 1, "multiplier": 0.5, "cap": 3}}"#,
        r#"{"backoff": {"kind": "schedule", "delays": []}}"#,
        r#"{"deadline": -5}"#,
        r#"{"preset": "nope"}"#,
        r#"{"overrides": {"not_a_category": {}}}"#,
        "[]",
    ] {
        let e = RetryPolicy::from_config(bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPolicy, "{bad}: {e}");
    }
}

#[test]
fn failure_records_from_json() {
    assert!(Failure::from_json(r#"{"message": "x", "status": 70000}"#).is_err());
    assert!(Failure::from_json(r#"{"message": "x", "transport": "teleport"}"#).is_err());
    assert!(Failure::from_json(r#"{"message": "x", "bogus": 1}"#).is_err());
    let f = Failure::from_json(r#"{"message": "x", "headers": {"Retry-After": "2", "x": null}}"#)
        .unwrap();
    assert_eq!(f.headers.get("retry-after"), Some("2"));
}
