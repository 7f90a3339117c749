//! The quotas (`quota.rs`) on the wire: each provider's rate-limit headers on an admitted
//! answer, and its own 429 when a limit is exceeded.
//!
//! Sources:
//! - OpenAI (platform.openai.com/docs/guides/rate-limits, "Rate limits in headers"):
//!   `x-ratelimit-limit-requests`, `x-ratelimit-limit-tokens`, `x-ratelimit-remaining-requests`,
//!   `x-ratelimit-remaining-tokens`, `x-ratelimit-reset-requests`, `x-ratelimit-reset-tokens`;
//!   resets are Go durations (`1s`, `6m0s`, `20ms`; a live dump in community.openai.com thread
//!   1268905 shows `12ms` / `9ms`). Its 429 is `{"error": {"message": "Rate limit reached for
//!   <model> in organization <org> on tokens per min (TPM): Limit L, Used U, Requested R. Please
//!   try again in 1.5s. ...", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}`
//!   with `retry-after` (the openai-python SDK's `_calculate_retry_timeout` reads `retry-after-ms`
//!   then `retry-after`).
//! - Anthropic (docs.anthropic.com/en/api/rate-limits, "Response headers"):
//!   `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
//!   reset as an RFC 3339 time; `tokens` is the most restrictive token limit in effect; a 429 is
//!   `rate_limit_error` with `retry-after` in seconds.
//! - Gemini (ai.google.dev/gemini-api/docs/rate-limits; google/rpc/error_details.proto): no
//!   rate-limit header; a 429 `RESOURCE_EXHAUSTED` whose `details` hold a `QuotaFailure` (the
//!   quota id names the window), a `Help` link and a `RetryInfo` with `retryDelay` as a
//!   protobuf Duration in JSON (`"34s"`).

use std::time::{Duration, SystemTime};

use hyper::header::{HeaderMap, HeaderValue};
use serde_json::{json, Value};

use crate::quota::{Dim, Level, Refusal, Snapshot};
use crate::render::{json_plan, rfc3339, Ctx, Plan, Provider};
use crate::script::{format_go_duration, LimitShape};

/// Whose header names a provider's answers carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    OpenAi,
    Anthropic,
    None,
}

fn dialect(provider: Provider, shape: LimitShape) -> Dialect {
    if shape == LimitShape::Gemini {
        return Dialect::None;
    }
    match provider {
        // Azure and Groq send OpenAI's header names.
        Provider::OpenAi | Provider::Azure | Provider::Groq => Dialect::OpenAi,
        Provider::Anthropic => Dialect::Anthropic,
        _ => Dialect::None,
    }
}

/// A reset as OpenAI writes it: a Go duration rounded up to the millisecond.
fn go_reset(secs: f64) -> String {
    format_go_duration(Duration::from_millis((secs * 1000.0).ceil().max(0.0) as u64))
}

fn put(headers: &mut HeaderMap, name: String, value: String) {
    if let (Ok(n), Ok(v)) = (
        hyper::header::HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(&value),
    ) {
        headers.insert(n, v);
    }
}

/// The token level Anthropic's `anthropic-ratelimit-tokens-*` reports: the combined limit if
/// there is one, otherwise the most restrictive of input and output (the fewest left).
fn anthropic_tokens(snap: &Snapshot) -> Option<Level> {
    snap.get(Dim::Tokens).copied().or_else(|| {
        [Dim::InputTokens, Dim::OutputTokens]
            .iter()
            .filter_map(|d| snap.get(*d).copied())
            .min_by_key(|l| l.remaining)
    })
}

/// OpenAI's rate-limit headers for `snap` (requests and tokens: OpenAI has one token limit).
pub fn openai_headers(snap: &Snapshot) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dim in [Dim::Requests, Dim::Tokens] {
        if let Some(l) = snap.get(dim) {
            let w = dim.header_word();
            out.push((format!("x-ratelimit-limit-{w}"), l.limit.to_string()));
            out.push((
                format!("x-ratelimit-remaining-{w}"),
                l.remaining.to_string(),
            ));
            out.push((format!("x-ratelimit-reset-{w}"), go_reset(l.reset_s)));
        }
    }
    out
}

/// Adds the provider's rate-limit headers for `snap`.
pub(crate) fn add_headers(
    provider: Provider,
    shape: LimitShape,
    snap: &Snapshot,
    headers: &mut HeaderMap,
) {
    match dialect(provider, shape) {
        Dialect::None => {}
        Dialect::OpenAi => {
            // OpenAI has one token limit (input plus output).
            for dim in [Dim::Requests, Dim::Tokens] {
                if let Some(l) = snap.get(dim) {
                    let w = dim.header_word();
                    put(
                        headers,
                        format!("x-ratelimit-limit-{w}"),
                        l.limit.to_string(),
                    );
                    put(
                        headers,
                        format!("x-ratelimit-remaining-{w}"),
                        l.remaining.to_string(),
                    );
                    put(
                        headers,
                        format!("x-ratelimit-reset-{w}"),
                        go_reset(l.reset_s),
                    );
                }
            }
        }
        Dialect::Anthropic => {
            let now = SystemTime::now();
            let levels = [
                snap.get(Dim::Requests).copied(),
                anthropic_tokens(snap),
                snap.get(Dim::InputTokens).copied(),
                snap.get(Dim::OutputTokens).copied(),
            ];
            for (word, level) in ["requests", "tokens", "input-tokens", "output-tokens"]
                .iter()
                .zip(levels)
            {
                let Some(l) = level else { continue };
                let at = now + Duration::from_secs_f64(l.reset_s.max(0.0));
                put(
                    headers,
                    format!("anthropic-ratelimit-{word}-limit"),
                    l.limit.to_string(),
                );
                put(
                    headers,
                    format!("anthropic-ratelimit-{word}-remaining"),
                    l.remaining.to_string(),
                );
                put(
                    headers,
                    format!("anthropic-ratelimit-{word}-reset"),
                    rfc3339(at),
                );
            }
        }
    }
}

/// Whole seconds to wait, rounded up, at least 1 (`retry-after`, Gemini's `retryDelay`).
pub fn whole_secs(r: &Refusal) -> u64 {
    r.retry_after_s.ceil().max(1.0) as u64
}

/// OpenAI's wording of a limit: `tokens per min (TPM)`.
fn openai_limit_name(dim: Dim) -> (&'static str, &'static str) {
    match dim {
        Dim::Requests => ("requests", "requests per min (RPM)"),
        Dim::Tokens => ("tokens", "tokens per min (TPM)"),
        Dim::InputTokens => ("input_tokens", "input tokens per min"),
        Dim::OutputTokens => ("output_tokens", "output tokens per min"),
    }
}

fn gemini_quota(dim: Dim) -> (&'static str, &'static str) {
    match dim {
        Dim::Requests => (
            "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
        ),
        Dim::Tokens | Dim::InputTokens => (
            "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count",
            "GenerateContentInputTokensPerModelPerMinute-FreeTier",
        ),
        // Gemini has no output-token quota; the lab names its analogue the same way.
        Dim::OutputTokens => (
            "generativelanguage.googleapis.com/generate_content_free_tier_output_token_count",
            "GenerateContentOutputTokensPerModelPerMinute-FreeTier",
        ),
    }
}

/// The 429 for a refused request, replacing `plan` (which the fault table rendered from a
/// plain `rate_limit` fault: the right shape for providers without quota wording of their own).
/// Gemini's 429 body for a refusal of a request for `model`.
pub fn gemini_body(model: &str, r: &Refusal) -> Value {
    let secs = whole_secs(r);
    let (metric, id) = gemini_quota(r.dim);
    json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": metric,
                "quotaId": id,
                "quotaDimensions": {"location": "global", "model": model},
                "quotaValue": r.limit.to_string()
            }]},
            {"@type": "type.googleapis.com/google.rpc.Help", "links": [{
                "description": "Learn more about Gemini API quotas",
                "url": "https://ai.google.dev/gemini-api/docs/rate-limits"
            }]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": format!("{secs}s")}
        ]
    }})
}

/// OpenAI's 429 body for a refusal of a request for `model`.
pub fn openai_body(model: &str, r: &Refusal) -> Value {
    let (etype, name) = openai_limit_name(r.dim);
    json!({"error": {
        "message": format!(
            "Rate limit reached for {model} in organization org-lab on {name}: Limit {}, Used {}, \
             Requested {}. Please try again in {}. Visit \
             https://platform.openai.com/account/rate-limits to learn more.",
            r.limit, r.used, r.requested, go_reset(r.retry_after_s)
        ),
        "type": etype, "param": null, "code": "rate_limit_exceeded"
    }})
}

pub(crate) fn refusal(plan: &mut Plan, ctx: &Ctx, shape: LimitShape, r: &Refusal) {
    let secs = whole_secs(r);
    if shape == LimitShape::Gemini || ctx.provider == Provider::Gemini {
        *plan = json_plan(ctx, 429, &gemini_body(&ctx.model, r));
        return;
    }
    let body: Option<Value> = match ctx.provider {
        Provider::OpenAi | Provider::Groq => Some(openai_body(&ctx.model, r)),
        Provider::Anthropic => {
            let what = match r.dim {
                Dim::Requests => "requests",
                Dim::Tokens => "tokens",
                Dim::InputTokens => "input tokens",
                Dim::OutputTokens => "output tokens",
            };
            Some(json!({
                "type": "error",
                "error": {"type": "rate_limit_error", "message": format!(
                    "This request would exceed the rate limit for your organization (org-lab) of \
                     {} {what} per minute. For details, refer to: \
                     https://docs.claude.com/en/api/rate-limits. You can see the response headers \
                     for current usage. Please reduce the prompt length or the maximum tokens \
                     requested, or try again later.", r.limit)},
                "request_id": format!("req_lab{:08}", ctx.seq)
            }))
        }
        _ => None,
    };
    if let Some(body) = body {
        *plan = json_plan(ctx, 429, &body);
    }
    if let Plan::Full { headers, .. } | Plan::Stream { headers, .. } = plan {
        add_headers(ctx.provider, shape, &r.snapshot, headers);
        put(headers, "retry-after".into(), secs.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resets_are_go_durations_rounded_up_to_the_millisecond() {
        assert_eq!(go_reset(0.0195), "20ms");
        assert_eq!(go_reset(1.0), "1s");
        assert_eq!(go_reset(360.0), "6m0s");
    }
}
