//! The quotas (`rate_limits`): per-key token buckets for requests and tokens, each provider's
//! rate-limit headers on success, and its own 429 when a limit is exceeded. Behaviour, not
//! timing: the buckets refill by 1/60 of a limit per second, which no assertion here relies on
//! beyond a generous margin.

mod common;

use common::{anthropic_error, client, lab, openai_error, Reply, ANTHROPIC, OPENAI};
use retry_lab::LabHandle;
use serde_json::{json, Value};

async fn post(lab: &LabHandle, path: &str, key: &str, body: Value) -> Reply {
    let mut req = client().post(lab.url(path)).json(&body);
    req = if path == ANTHROPIC {
        req.header("x-api-key", key)
    } else {
        req.bearer_auth(key)
    };
    let resp = req.send().await.unwrap();
    Reply {
        status: resp.status().as_u16(),
        headers: resp.headers().clone(),
        text: resp.text().await.unwrap(),
    }
}

fn chat(max_tokens: Option<u64>) -> Value {
    let mut v =
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]});
    if let Some(m) = max_tokens {
        v["max_tokens"] = json!(m);
    }
    v
}

fn num(r: &Reply, name: &str) -> u64 {
    r.header(name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", r.headers))
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a number"))
}

/// Seconds in a Go duration as OpenAI writes it (`20s`, `1m0s`, `20ms`, `19.998s`).
fn go_secs(s: &str) -> f64 {
    let mut total = 0.0;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().unwrap_or_else(|_| panic!("bad duration {s}"));
        num.clear();
        total += match c {
            'h' => n * 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                n / 1000.0
            }
            'm' => n * 60.0,
            's' => n,
            _ => panic!("bad unit in {s}"),
        };
    }
    assert!(num.is_empty(), "no unit at the end of {s}");
    total
}

fn is_rfc3339_utc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
        && s.chars()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19].contains(&i) || c.is_ascii_digit())
}

#[tokio::test]
async fn openai_the_request_after_the_quota_gets_a_429_with_the_headers() {
    let lab = lab(json!({"rate_limits": {"requests": 3, "tokens": 100000}}));
    let key = "sk-quota-openai-1";
    for left in [2u64, 1, 0] {
        let r = post(&lab, OPENAI, key, chat(None)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(num(&r, "x-ratelimit-limit-requests"), 3);
        assert_eq!(num(&r, "x-ratelimit-remaining-requests"), left);
        assert_eq!(num(&r, "x-ratelimit-limit-tokens"), 100000);
        // Used requests refill at 3 per minute: 20 s each, so the reset is up to 20 s per use.
        let reset = go_secs(r.header("x-ratelimit-reset-requests").unwrap());
        let used = (3 - left) as f64;
        assert!(reset > used * 20.0 - 1.0 && reset <= used * 20.0, "{reset}");
        let usage = &r.json()["usage"];
        assert_eq!(usage["completion_tokens"], 8, "the reply's 8 pieces");
        assert!(usage["prompt_tokens"].as_u64().unwrap() > 10);
    }
    let r = post(&lab, OPENAI, key, chat(None)).await;
    assert_eq!(r.status, 429);
    let e = openai_error(&r);
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("requests"), Some("rate_limit_exceeded"))
    );
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains(
            "on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in"
        ),
        "{msg}"
    );
    let retry_after = num(&r, "retry-after");
    assert!((19..=20).contains(&retry_after), "{retry_after}");
    assert_eq!(num(&r, "x-ratelimit-remaining-requests"), 0);
    // A refused request took nothing; another key has its own buckets.
    let r = post(&lab, OPENAI, "sk-quota-openai-2", chat(None)).await;
    assert_eq!(
        (r.status, num(&r, "x-ratelimit-remaining-requests")),
        (200, 2)
    );
    let sources: Vec<_> = lab.log().iter().map(|e| e.source).collect();
    assert_eq!(sources[3], retry_lab::Source::RateLimits);
}

#[tokio::test]
async fn openai_tokens_reserve_max_tokens_and_give_back_what_the_answer_did_not_use() {
    let lab = lab(json!({"rate_limits": {"tokens": 6000}, "reply_tokens": 100}));
    let key = "sk-quota-tokens-1";
    let r = post(&lab, OPENAI, key, chat(Some(2000))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let usage = r.json()["usage"].clone();
    let input = usage["prompt_tokens"].as_u64().unwrap();
    assert_eq!(usage["completion_tokens"], 100);
    assert_eq!(usage["total_tokens"], input + 100);
    // The headers show the admission: input plus the whole max_tokens taken.
    let first = num(&r, "x-ratelimit-remaining-tokens");
    assert!(first <= 6000 - input - 2000 + 20, "{first}");
    assert!(
        r.header("x-ratelimit-limit-requests").is_none(),
        "no request limit set"
    );
    // The 1900 unused output tokens went back: the next admission starts from 6000 - input - 100.
    let r = post(&lab, OPENAI, key, chat(Some(2000))).await;
    let second = num(&r, "x-ratelimit-remaining-tokens");
    let expected = 6000 - 2 * input - 100 - 2000;
    assert!(
        second >= expected && second <= expected + 100,
        "{second} vs {expected}"
    );
    // 5900 more do not fit in what is left (about 6000 - 2 * (input + 100)).
    let r = post(&lab, OPENAI, key, chat(Some(5900))).await;
    assert_eq!(r.status, 429);
    let e = openai_error(&r);
    assert_eq!(e["type"], "tokens");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("on tokens per min (TPM): Limit 6000, Used "),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("Requested {}", input + 5900)),
        "{msg}"
    );
    // Larger than the whole limit: refused, with the wait for a full bucket.
    let r = post(&lab, OPENAI, key, chat(Some(7000))).await;
    assert_eq!(r.status, 429);
}

#[tokio::test]
async fn anthropic_headers_and_output_tokens_counted_from_max_tokens() {
    let lab = lab(json!({
        "rate_limits": {"requests": 50, "input_tokens": 10000, "output_tokens": 100},
        "reply_tokens": 10
    }));
    let key = "sk-ant-quota-1";
    let body = |max: u64| {
        json!({"model": "claude-x", "max_tokens": max,
               "messages": [{"role": "user", "content": "hello there"}]})
    };
    let r = post(&lab, ANTHROPIC, key, body(60)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    for word in ["requests", "tokens", "input-tokens", "output-tokens"] {
        let reset = r
            .header(&format!("anthropic-ratelimit-{word}-reset"))
            .unwrap_or_else(|| panic!("no {word} reset"));
        assert!(is_rfc3339_utc(reset), "{reset}");
        assert!(r
            .header(&format!("anthropic-ratelimit-{word}-limit"))
            .is_some());
    }
    assert_eq!(num(&r, "anthropic-ratelimit-requests-remaining"), 49);
    assert_eq!(num(&r, "anthropic-ratelimit-output-tokens-limit"), 100);
    assert_eq!(num(&r, "anthropic-ratelimit-output-tokens-remaining"), 40);
    // `tokens` is the most restrictive token limit: output here.
    assert_eq!(num(&r, "anthropic-ratelimit-tokens-limit"), 100);
    assert!(r.header("x-ratelimit-limit-requests").is_none());
    let usage = r.json()["usage"].clone();
    assert_eq!(usage["output_tokens"], 10);
    assert!(usage["input_tokens"].as_u64().unwrap() > 10);

    // 50 of output were given back (60 reserved, 10 used): 90 left, so 80 fits; it gives 70
    // back too, leaving 80, so 90 does not.
    let r = post(&lab, ANTHROPIC, key, body(80)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(num(&r, "anthropic-ratelimit-output-tokens-remaining"), 10);
    let r = post(&lab, ANTHROPIC, key, body(90)).await;
    assert_eq!(r.status, 429);
    let e = anthropic_error(&r);
    assert_eq!(e["type"], "rate_limit_error");
    assert!(e["message"]
        .as_str()
        .unwrap()
        .contains("of 100 output tokens per minute"));
    let retry_after = num(&r, "retry-after");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_eq!(num(&r, "anthropic-ratelimit-requests-remaining"), 48);
}

#[tokio::test]
async fn gemini_shape_sends_no_rate_limit_header_and_a_retry_info_body() {
    let lab = lab(json!({"rate_limits": {"requests": 1, "shape": "gemini"}}));
    let key = "sk-quota-gemini-1";
    let r = post(&lab, OPENAI, key, chat(None)).await;
    assert_eq!(r.status, 200);
    assert!(
        r.headers.keys().all(|k| !k.as_str().contains("ratelimit")),
        "{:?}",
        r.headers
    );
    let r = post(&lab, OPENAI, key, chat(None)).await;
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_none());
    assert!(r.headers.keys().all(|k| !k.as_str().contains("ratelimit")));
    let v = r.json();
    assert_eq!(v["error"]["status"], "RESOURCE_EXHAUSTED");
    assert_eq!(v["error"]["code"], 429);
    let details = v["error"]["details"].as_array().unwrap();
    let retry = details
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.RetryInfo")
        .expect("RetryInfo");
    let delay = retry["retryDelay"].as_str().unwrap();
    let secs: u64 = delay.strip_suffix('s').unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs), "{delay}");
    let quota = details
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.QuotaFailure")
        .expect("QuotaFailure");
    let id = quota["violations"][0]["quotaId"].as_str().unwrap();
    assert!(id.contains("PerMinute"), "{id}");
    assert_eq!(quota["violations"][0]["quotaValue"], "1");
}

#[tokio::test]
async fn gemini_endpoint_under_provider_shape_is_gemini_anyway() {
    let lab = lab(json!({"rate_limits": {"requests": 1}}));
    let path = "/v1beta/models/gemini-2.0-flash:generateContent";
    let body = json!({"contents": [{"parts": [{"text": "hi"}]}],
                      "generationConfig": {"maxOutputTokens": 5}});
    let r = post(&lab, path, "gm-quota-key-1", body.clone()).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["usageMetadata"]["candidatesTokenCount"],
        5,
        "capped at maxOutputTokens"
    );
    assert!(r.headers.keys().all(|k| !k.as_str().contains("ratelimit")));
    let r = post(&lab, path, "gm-quota-key-1", body).await;
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_none());
    assert!(r.text.contains("retryDelay"));
}

#[tokio::test]
async fn bad_quota_settings_are_rejected() {
    for bad in [
        json!({"rate_limits": {}}),
        json!({"rate_limits": {"requests": 0}}),
        json!({"rate_limits": {"requests": 1, "period_s": 0}}),
        json!({"rate_limits": {"requests": 1, "shape": "azure"}}),
        json!({"rate_limits": {"requests": 1, "rpm": 3}}),
    ] {
        assert!(retry_lab::Script::from_value(bad.clone()).is_err(), "{bad}");
    }
}

#[tokio::test]
async fn a_burst_interval_refuses_a_burst_the_minute_would_allow() {
    // 600 a minute enforced over 1 s: 10 at once, then a 429 while the minute has 590 left.
    let lab = lab(json!({"rate_limits": {"requests": 600, "burst_s": 1}}));
    let key = "sk-quota-burst-1";
    for _ in 0..10 {
        let r = post(&lab, OPENAI, key, chat(None)).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let r = post(&lab, OPENAI, key, chat(None)).await;
    assert_eq!(r.status, 429);
    let left = num(&r, "x-ratelimit-remaining-requests");
    assert!((590..600).contains(&left), "{left}");
    assert_eq!(num(&r, "x-ratelimit-limit-requests"), 600);
}
