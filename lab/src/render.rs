//! Turning a fault into what goes on the wire, in the real shape of the provider whose endpoint
//! was hit.
//!
//! Shapes follow the providers' documented error formats: OpenAI's
//! `{"error":{"message","type","param","code"}}` with `x-request-id`, Anthropic's
//! `{"type":"error","error":{"type","message"}}` with `request-id`, and their SSE event sequences
//! (OpenAI `chat.completion.chunk` + `data: [DONE]`; Anthropic `message_start` ... `message_stop`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hyper::body::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::StatusCode;
use serde_json::{json, Value};

use crate::providers::{self, Extra, Wire};
pub(crate) use crate::providers::{Api, Provider};
use crate::script::{format_go_duration, reset_duration, Fault, FaultKind};

/// What the request asked for, as far as rendering cares.
#[derive(Clone)]
pub(crate) struct Ctx {
    /// Whose endpoint: the error shape and wording.
    pub provider: Provider,
    /// The success wire format.
    pub api: Api,
    pub seq: u64,
    pub model: String,
    pub stream: bool,
    pub include_usage: bool,
    pub prompt_tokens: u64,
    /// Output tokens the usage reports.
    pub output_tokens: u64,
    pub chunk_delay: Duration,
}

/// One step of a streamed body.
pub(crate) enum Op {
    Send(Bytes),
    Sleep(Duration),
    /// Break the connection: hyper drops it without finishing the body; with `rst`, the socket
    /// is set to SO_LINGER 0 first, so the close is an RST ("connection reset by peer").
    Abort {
        rst: bool,
    },
}

pub(crate) enum Plan {
    Full {
        status: u16,
        headers: HeaderMap,
        body: Bytes,
    },
    Stream {
        status: u16,
        headers: HeaderMap,
        ops: Vec<Op>,
    },
    Reset {
        graceful: bool,
    },
}

impl Plan {
    pub fn status(&self) -> Option<u16> {
        match self {
            Plan::Full { status, .. } | Plan::Stream { status, .. } => Some(*status),
            Plan::Reset { .. } => None,
        }
    }
}

/// A plan plus an optional wait before the response starts (`stall`).
pub(crate) struct Planned {
    pub delay: Option<Duration>,
    pub plan: Plan,
}

/// Time given to hyper to flush what was sent before a stream is broken off; without it the
/// last chunks may still sit in the write buffer when the connection is dropped.
const FLUSH_BEFORE_ABORT: Duration = Duration::from_millis(25);

pub(crate) fn plan(fault: &Fault, ctx: &Ctx) -> Planned {
    let mut delay = None;
    let mut plan = match fault.fault {
        FaultKind::Ok => ok_plan(ctx),
        FaultKind::Status => status_plan(fault, ctx),
        FaultKind::Reset => Plan::Reset {
            graceful: fault.graceful.unwrap_or(false),
        },
        FaultKind::Html => html_plan(fault, ctx),
        FaultKind::Stall => {
            let wait = Duration::from_secs_f64(fault.seconds.unwrap_or(30.0));
            match (ctx.stream, fault.after_chunks) {
                (true, Some(n)) => {
                    let (prelude, content, tail) = stream_parts(ctx);
                    let n = n.min(content.len());
                    let mut sends = prelude;
                    sends.extend_from_slice(&content[..n]);
                    let mut ops = paced(sends, ctx.chunk_delay);
                    ops.push(Op::Sleep(wait));
                    let mut rest = content[n..].to_vec();
                    rest.extend(tail);
                    ops.extend(paced(rest, ctx.chunk_delay));
                    stream_plan(ctx, ops)
                }
                _ => {
                    delay = Some(wait);
                    ok_plan(ctx)
                }
            }
        }
        FaultKind::SseError => {
            let etype = fault.error_type.as_deref().unwrap_or("overloaded_error");
            let msg = fault
                .message
                .clone()
                .unwrap_or_else(|| sse_error_message(etype).to_string());
            if ctx.stream {
                let (prelude, content, _) = stream_parts(ctx);
                let n = fault.after_chunks.unwrap_or(0).min(content.len());
                let mut sends = if fault.prelude == Some(false) {
                    Vec::new()
                } else {
                    prelude
                };
                sends.extend_from_slice(&content[..n]);
                sends.push(match ctx.api {
                    Api::Anthropic => sse_event(
                        "error",
                        &json!({"type": "error", "error": {"type": etype, "message": msg}}),
                    ),
                    // Google's streams carry a google.rpc.Status as a data line.
                    Api::Gemini => sse_data_crlf(
                        &json!({"error": {"code": 500, "message": msg, "status": "INTERNAL"}}),
                    ),
                    Api::Ollama => ndjson(&json!({"error": msg})),
                    Api::OpenAi | Api::Converse | Api::Cohere => sse_data(
                        &json!({"error": {"message": msg, "type": etype, "param": null, "code": null}}),
                    ),
                });
                stream_plan(ctx, paced(sends, ctx.chunk_delay))
            } else {
                // A non-stream request cannot carry an SSE error; the provider would answer with
                // the matching HTTP error instead.
                let status = match (etype, ctx.api) {
                    ("overloaded_error", Api::Anthropic) => 529,
                    ("overloaded_error", _) => 503,
                    ("rate_limit_error", _) => 429,
                    ("invalid_request_error", _) => 400,
                    _ => 500,
                };
                match ctx.provider {
                    Provider::OpenAi | Provider::Anthropic => {
                        error_json(ctx, status, etype, &msg, Value::Null, Value::Null)
                    }
                    p => shaped_error(ctx, &generic_wire(p, FaultKind::SseError, status), &msg),
                }
            }
        }
        FaultKind::StreamCut => {
            let clean = fault.clean.unwrap_or(false);
            let rst = fault.rst.unwrap_or(false);
            if ctx.stream {
                let (prelude, content, _) = stream_parts(ctx);
                let n = fault.after_chunks.unwrap_or(0).min(content.len());
                let mut sends = prelude;
                sends.extend_from_slice(&content[..n]);
                if let Some(reason) = fault.finish_reason.as_deref() {
                    sends.extend(closing_with(ctx, reason));
                }
                let mut ops = paced(sends, ctx.chunk_delay);
                if !clean {
                    ops.push(Op::Sleep(FLUSH_BEFORE_ABORT));
                    ops.push(Op::Abort { rst });
                }
                stream_plan(ctx, ops)
            } else {
                // Promise the whole JSON body, send half of it, then break the connection.
                let Plan::Full {
                    status,
                    mut headers,
                    body,
                } = ok_plan(ctx)
                else {
                    unreachable!("a non-stream ok plan is a full body")
                };
                headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
                let half = body.slice(..body.len() / 2);
                Plan::Stream {
                    status,
                    headers,
                    ops: vec![
                        Op::Send(half),
                        Op::Sleep(FLUSH_BEFORE_ABORT),
                        Op::Abort { rst },
                    ],
                }
            }
        }
        kind => error_plan(kind, fault, ctx),
    };
    if let Plan::Full { headers, .. } | Plan::Stream { headers, .. } = &mut plan {
        for (k, v) in &fault.headers {
            // Validated when the fault was loaded.
            let Ok(name) = HeaderName::from_bytes(k.as_bytes()) else {
                continue;
            };
            if v.is_empty() {
                headers.remove(&name);
            } else if let Ok(value) = HeaderValue::from_str(v) {
                headers.insert(name, value);
            }
        }
    }
    Planned { delay, plan }
}

/// A successful stream's closing events with `reason` in place of its own stop reason
/// (`stream_cut` with `finish_reason`): OpenAI's last chunk and `[DONE]`, Anthropic's
/// `message_delta` and `message_stop`. The other APIs' streams get no closing at all.
fn closing_with(ctx: &Ctx, reason: &str) -> Vec<Bytes> {
    let (_, _, tail) = stream_parts(ctx);
    let reason = Value::String(reason.to_owned()).to_string();
    // The tail is rendered above by serde_json's compact writer: each reason appears once,
    // exactly so.
    let (from, to) = match ctx.api {
        Api::OpenAi => (
            "\"finish_reason\":\"stop\"",
            format!("\"finish_reason\":{reason}"),
        ),
        Api::Anthropic => (
            "\"stop_reason\":\"end_turn\"",
            format!("\"stop_reason\":{reason}"),
        ),
        _ => return Vec::new(),
    };
    tail.into_iter()
        .map(|b| Bytes::from(String::from_utf8_lossy(&b).replace(from, &to)))
        .collect()
}

fn sse_error_message(etype: &str) -> &'static str {
    match etype {
        "overloaded_error" => "Overloaded",
        "api_error" => "Internal server error",
        "rate_limit_error" => "Rate limited",
        "invalid_request_error" => "Invalid request",
        "timeout_error" => "Request timed out",
        _ => "Stream error",
    }
}

fn request_id(ctx: &Ctx) -> String {
    format!("req_lab{:08}", ctx.seq)
}

fn base_headers(ctx: &Ctx, content_type: &'static str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(name) = ctx.provider.request_id_header() {
        let id = HeaderValue::from_str(&request_id(ctx)).expect("ascii");
        h.insert(name, id);
    }
    h
}

pub(crate) fn json_plan(ctx: &Ctx, status: u16, body: &Value) -> Plan {
    Plan::Full {
        status,
        headers: base_headers(ctx, "application/json"),
        body: Bytes::from(body.to_string()),
    }
}

fn stream_plan(ctx: &Ctx, ops: Vec<Op>) -> Plan {
    let ct = match ctx.api {
        Api::OpenAi => "text/event-stream; charset=utf-8",
        Api::Ollama => "application/x-ndjson",
        Api::Anthropic | Api::Gemini | Api::Converse | Api::Cohere => "text/event-stream",
    };
    let mut headers = base_headers(ctx, ct);
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    Plan::Stream {
        status: 200,
        headers,
        ops,
    }
}

/// Sends with `delay` between consecutive chunks.
fn paced(sends: Vec<Bytes>, delay: Duration) -> Vec<Op> {
    let mut ops = Vec::with_capacity(sends.len() * 2);
    for (i, b) in sends.into_iter().enumerate() {
        if i > 0 && !delay.is_zero() {
            ops.push(Op::Sleep(delay));
        }
        ops.push(Op::Send(b));
    }
    ops
}

/// The answer's text, in the pieces a stream sends: a fixed sentence plus the request count.
fn reply_pieces(seq: u64) -> Vec<String> {
    let mut pieces: Vec<String> = [
        "Hello",
        " from",
        " retry-lab!",
        " This",
        " is",
        " reply",
        " number",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    pieces.push(format!(" {seq}."));
    pieces
}

/// How many pieces [`reply_pieces`] has: the output tokens an answer reports by default.
pub(crate) const REPLY_PIECES: u64 = 8;

fn reply_text(seq: u64) -> String {
    reply_pieces(seq).concat()
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn ok_plan(ctx: &Ctx) -> Plan {
    if ctx.stream {
        let (mut sends, content, tail) = stream_parts(ctx);
        sends.extend(content);
        sends.extend(tail);
        return stream_plan(ctx, paced(sends, ctx.chunk_delay));
    }
    let text = reply_text(ctx.seq);
    let out_tokens = ctx.output_tokens;
    let body = match ctx.api {
        Api::OpenAi => json!({
            "id": format!("chatcmpl-lab{}", ctx.seq),
            "object": "chat.completion",
            "created": now_unix(),
            "model": ctx.model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": null},
                "logprobs": null,
                "finish_reason": "stop"
            }],
            "usage": {
                "prompt_tokens": ctx.prompt_tokens,
                "completion_tokens": out_tokens,
                "total_tokens": ctx.prompt_tokens + out_tokens
            },
            "system_fingerprint": null
        }),
        Api::Anthropic => json!({
            "id": format!("msg_lab{:08}", ctx.seq),
            "type": "message",
            "role": "assistant",
            "model": ctx.model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": {"input_tokens": ctx.prompt_tokens, "output_tokens": out_tokens}
        }),
        Api::Converse => json!({
            "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
            "stopReason": "end_turn",
            "usage": {
                "inputTokens": ctx.prompt_tokens,
                "outputTokens": out_tokens,
                "totalTokens": ctx.prompt_tokens + out_tokens
            },
            "metrics": {"latencyMs": 1}
        }),
        Api::Gemini => gemini_chunk(ctx, &text, true),
        Api::Cohere => json!({
            "id": format!("lab-{:08}", ctx.seq),
            "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "usage": {
                "billed_units": {"input_tokens": ctx.prompt_tokens, "output_tokens": out_tokens},
                "tokens": {"input_tokens": ctx.prompt_tokens, "output_tokens": out_tokens}
            }
        }),
        Api::Ollama => ollama_chunk(ctx, &text, true),
    };
    json_plan(ctx, 200, &body)
}

/// A Gemini `GenerateContentResponse`: one piece of text; the last one has the finish reason
/// and the usage.
fn gemini_chunk(ctx: &Ctx, text: &str, last: bool) -> Value {
    let out_tokens = ctx.output_tokens;
    let mut candidate =
        json!({"content": {"parts": [{"text": text}], "role": "model"}, "index": 0});
    let mut v = json!({"candidates": [], "modelVersion": ctx.model,
                       "responseId": format!("lab{:08}", ctx.seq)});
    if last {
        candidate["finishReason"] = json!("STOP");
        v["usageMetadata"] = json!({
            "promptTokenCount": ctx.prompt_tokens,
            "candidatesTokenCount": out_tokens,
            "totalTokenCount": ctx.prompt_tokens + out_tokens
        });
    }
    v["candidates"] = json!([candidate]);
    v
}

/// An Ollama `/api/chat` answer (or, with `done: false`, one line of its NDJSON stream).
fn ollama_chunk(ctx: &Ctx, text: &str, done: bool) -> Value {
    let mut v = json!({
        "model": ctx.model,
        "created_at": rfc3339(SystemTime::now()),
        "message": {"role": "assistant", "content": text},
        "done": done
    });
    if done {
        v["done_reason"] = json!("stop");
        v["prompt_eval_count"] = json!(ctx.prompt_tokens);
        v["eval_count"] = json!(ctx.output_tokens);
    }
    v
}

fn sse_data(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

/// Google's SSE lines end in CRLF.
fn sse_data_crlf(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\r\n\r\n"))
}

fn ndjson(v: &Value) -> Bytes {
    Bytes::from(format!("{v}\n"))
}

fn sse_event(event: &str, v: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {v}\n\n"))
}

/// A successful stream in three parts: what precedes the text, one chunk per text piece, and
/// what closes it (the stop reason and the terminator).
fn stream_parts(ctx: &Ctx) -> (Vec<Bytes>, Vec<Bytes>, Vec<Bytes>) {
    let pieces = reply_pieces(ctx.seq);
    let out_tokens = ctx.output_tokens;
    match ctx.api {
        Api::OpenAi => {
            let id = format!("chatcmpl-lab{}", ctx.seq);
            let created = now_unix();
            let chunk = |delta: Value, finish: Value| {
                sse_data(&json!({
                    "id": id, "object": "chat.completion.chunk", "created": created,
                    "model": ctx.model, "system_fingerprint": null,
                    "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
                }))
            };
            let prelude = vec![chunk(
                json!({"role": "assistant", "content": "", "refusal": null}),
                Value::Null,
            )];
            let content = pieces
                .iter()
                .map(|p| chunk(json!({"content": p}), Value::Null))
                .collect();
            let mut tail = vec![chunk(json!({}), json!("stop"))];
            if ctx.include_usage {
                tail.push(sse_data(&json!({
                    "id": id, "object": "chat.completion.chunk", "created": created,
                    "model": ctx.model, "system_fingerprint": null, "choices": [],
                    "usage": {
                        "prompt_tokens": ctx.prompt_tokens,
                        "completion_tokens": out_tokens,
                        "total_tokens": ctx.prompt_tokens + out_tokens
                    }
                })));
            }
            tail.push(Bytes::from_static(b"data: [DONE]\n\n"));
            (prelude, content, tail)
        }
        Api::Anthropic => {
            let prelude = vec![
                sse_event(
                    "message_start",
                    &json!({"type": "message_start", "message": {
                        "id": format!("msg_lab{:08}", ctx.seq), "type": "message",
                        "role": "assistant", "model": ctx.model, "content": [],
                        "stop_reason": null, "stop_sequence": null,
                        "usage": {"input_tokens": ctx.prompt_tokens, "output_tokens": 1}
                    }}),
                ),
                sse_event(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": 0,
                            "content_block": {"type": "text", "text": ""}}),
                ),
                sse_event("ping", &json!({"type": "ping"})),
            ];
            let content = pieces
                .iter()
                .map(|p| {
                    sse_event(
                        "content_block_delta",
                        &json!({"type": "content_block_delta", "index": 0,
                                "delta": {"type": "text_delta", "text": p}}),
                    )
                })
                .collect();
            let tail = vec![
                sse_event(
                    "content_block_stop",
                    &json!({"type": "content_block_stop", "index": 0}),
                ),
                sse_event(
                    "message_delta",
                    &json!({"type": "message_delta",
                            "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                            "usage": {"output_tokens": out_tokens}}),
                ),
                sse_event("message_stop", &json!({"type": "message_stop"})),
            ];
            (prelude, content, tail)
        }
        Api::Gemini => {
            let content = pieces
                .iter()
                .map(|p| sse_data_crlf(&gemini_chunk(ctx, p, false)))
                .collect();
            (
                Vec::new(),
                content,
                vec![sse_data_crlf(&gemini_chunk(ctx, "", true))],
            )
        }
        Api::Ollama => {
            let content = pieces
                .iter()
                .map(|p| ndjson(&ollama_chunk(ctx, p, false)))
                .collect();
            (
                Vec::new(),
                content,
                vec![ndjson(&ollama_chunk(ctx, "", true))],
            )
        }
        // Routed as never streaming (`Streaming::Never`): the whole answer as one piece.
        Api::Converse | Api::Cohere => {
            let Plan::Full { body, .. } = ok_plan(&Ctx {
                stream: false,
                ..ctx.clone()
            }) else {
                unreachable!("a non-stream ok plan is a full body")
            };
            (Vec::new(), vec![body], Vec::new())
        }
    }
}

/// A provider-shaped JSON error. `oparam` / `ocode` only show on the OpenAI path.
fn error_json(ctx: &Ctx, status: u16, etype: &str, msg: &str, oparam: Value, ocode: Value) -> Plan {
    let body = match ctx.api {
        Api::Anthropic => json!({
            "type": "error",
            "error": {"type": etype, "message": msg},
            "request_id": request_id(ctx)
        }),
        _ => json!({"error": {"message": msg, "type": etype, "param": oparam, "code": ocode}}),
    };
    json_plan(ctx, status, &body)
}

/// The wire error for a fault a provider has no wording of its own for: the fault's usual
/// status (or `status`), the provider's code for it and the status's reason phrase.
fn generic_wire(provider: Provider, kind: FaultKind, status: u16) -> Wire {
    let reason = StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    Wire {
        kind,
        status,
        code: provider.code_for_status(status),
        code2: None,
        message: if kind == FaultKind::ToolPairing {
            OPENAI_TOOL_PAIRING
        } else {
            reason
        },
        extra: Extra::None,
    }
}

/// An error in the shape of `ctx.provider` (every provider but OpenAI's and Anthropic's own
/// older faults, which `error_plan` renders). `msg` is the text after `{model}` substitution
/// and the fault's `message` override.
fn shaped_error(ctx: &Ctx, wire: &Wire, msg: &str) -> Plan {
    let status = wire.status;
    let code = wire.code;
    let mut extra_headers: Vec<(&'static str, String)> = Vec::new();
    let body = match (ctx.provider, wire.extra) {
        (_, Extra::MessageOnly) => json!({"message": msg, "request_id": request_id(ctx)}),
        (Provider::OpenAi | Provider::Groq | Provider::Anthropic, _)
            if ctx.api == Api::Anthropic =>
        {
            json!({
                "type": "error", "error": {"type": code, "message": msg}, "request_id": request_id(ctx)
            })
        }
        (Provider::OpenAi | Provider::Groq | Provider::Anthropic, _) => json!({
            "error": {"message": msg, "type": code, "param": null, "code": wire.code2}
        }),
        (Provider::Azure, Extra::AzureContentFilter) => json!({"error": {
            "message": msg, "type": null, "param": "prompt", "code": code, "status": status,
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {
                    "hate": {"filtered": false, "severity": "safe"},
                    "jailbreak": {"filtered": false, "detected": false},
                    "self_harm": {"filtered": false, "severity": "safe"},
                    "sexual": {"filtered": false, "severity": "safe"},
                    "violence": {"filtered": true, "severity": "medium"}
                }
            }
        }}),
        (Provider::Azure, _) => json!({"error": {"code": code, "message": msg}}),
        (Provider::OpenRouter, extra) => {
            let mut err = json!({"code": status, "message": msg});
            match extra {
                Extra::OpenRouterRaw(raw, provider_name) => {
                    err["metadata"] = json!({"raw": raw, "provider_name": provider_name});
                }
                Extra::OpenRouterModeration => {
                    err["metadata"] = json!({"reasons": ["harassment"], "flagged_input": "...",
                                             "provider_name": "OpenAI", "model_slug": ctx.model});
                }
                _ => {}
            }
            json!({"error": err, "user_id": "user_lab"})
        }
        (Provider::Mistral, _) => json!({
            "object": "error", "message": msg, "type": code, "param": null, "code": wire.code2
        }),
        (Provider::Vllm, _) => json!({
            "object": "error", "message": msg, "type": code, "param": null, "code": status
        }),
        (Provider::Tgi, _) => json!({"error": msg, "error_type": code}),
        (Provider::LlamaCpp, extra) => {
            let mut err = json!({"code": status, "message": msg, "type": code});
            if let Extra::LlamaCtx(n_prompt, n_ctx) = extra {
                err["n_prompt_tokens"] = json!(n_prompt);
                err["n_ctx"] = json!(n_ctx);
            }
            json!({"error": err})
        }
        (Provider::Ollama, _) => json!({"error": msg}),
        (Provider::Bedrock, _) => {
            // restJson1: the code travels in this header; the body has only the message.
            extra_headers.push((
                "x-amzn-errortype",
                format!("{code}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            ));
            json!({"message": msg})
        }
        (Provider::Gemini, Extra::GoogleBlocked) => json!({
            "promptFeedback": {"blockReason": code, "safetyRatings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true}
            ]},
            "usageMetadata": {"promptTokenCount": ctx.prompt_tokens, "totalTokenCount": ctx.prompt_tokens},
            "modelVersion": ctx.model
        }),
        (Provider::Gemini, extra) => {
            let mut err = json!({"code": status, "message": msg, "status": code});
            match extra {
                Extra::GoogleQuota => {
                    err["details"] = json!([
                        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                            "quotaDimensions": {"location": "global", "model": ctx.model},
                            "quotaValue": "15"
                        }]},
                        {"@type": "type.googleapis.com/google.rpc.Help", "links": [{
                            "description": "Learn more about Gemini API quotas",
                            "url": "https://ai.google.dev/gemini-api/docs/rate-limits"
                        }]},
                        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34s"}
                    ]);
                }
                Extra::GoogleApiKey => {
                    err["details"] = json!([{
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"}
                    }]);
                }
                _ => {}
            }
            json!({"error": err})
        }
        (Provider::Cohere, _) => json!({"id": format!("lab-{:08}", ctx.seq), "message": msg}),
    };
    let mut plan = json_plan(ctx, status, &body);
    if let Plan::Full { headers, .. } = &mut plan {
        for (k, v) in extra_headers {
            if let Ok(hv) = HeaderValue::from_str(&v) {
                headers.insert(k, hv);
            }
        }
    }
    plan
}

/// A fault rendered from the provider's error table (or [`generic_wire`]).
fn table_error_plan(kind: FaultKind, fault: &Fault, ctx: &Ctx) -> Plan {
    let wire = providers::wire(ctx.provider, kind)
        .unwrap_or_else(|| generic_wire(ctx.provider, kind, providers::default_status(kind)));
    let msg = fault
        .message
        .clone()
        .unwrap_or_else(|| wire.message.replace("{model}", &ctx.model));
    let mut plan = shaped_error(ctx, &wire, &msg);
    if kind == FaultKind::RateLimit {
        if let Plan::Full { headers, .. } = &mut plan {
            rate_limit_headers(fault, ctx, headers);
        }
    }
    plan
}

const OPENAI_TOOL_PAIRING: &str = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1";
const ANTHROPIC_TOOL_PAIRING: &str = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.";

fn error_plan(kind: FaultKind, fault: &Fault, ctx: &Ctx) -> Plan {
    let older = matches!(
        kind,
        FaultKind::RateLimit
            | FaultKind::InsufficientQuota
            | FaultKind::Overloaded
            | FaultKind::ServerError
            | FaultKind::Unavailable
            | FaultKind::Unauthorized
            | FaultKind::ToolPairing
            | FaultKind::ContextOverflow
    );
    if !(older && matches!(ctx.provider, Provider::OpenAi | Provider::Anthropic)) {
        return table_error_plan(kind, fault, ctx);
    }
    let openai = ctx.api == Api::OpenAi;
    // (status, type, message, OpenAI param, OpenAI code)
    let (status, etype, msg, param, code): (u16, &str, String, Value, Value) = match kind {
        FaultKind::RateLimit if openai => (
            429,
            "requests",
            format!(
                "Rate limit reached for {} in organization org-lab on requests per min (RPM): \
                 Limit 3, Used 3, Requested 1. Visit https://platform.openai.com/account/rate-limits \
                 to learn more.",
                ctx.model
            ),
            Value::Null,
            json!("rate_limit_exceeded"),
        ),
        FaultKind::RateLimit => (
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per \
             minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can \
             see the response headers for current usage. Please reduce the prompt length or the \
             maximum tokens requested, or try again later."
                .into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::InsufficientQuota if openai => (
            429,
            "insufficient_quota",
            "You exceeded your current quota, please check your plan and billing details. For \
             more information on this error, read the docs: \
             https://platform.openai.com/docs/guides/error-codes/api-errors."
                .into(),
            Value::Null,
            json!("insufficient_quota"),
        ),
        // Anthropic has no quota 429: an empty balance is a 400 with this message.
        FaultKind::InsufficientQuota => (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & \
             Billing to upgrade or purchase credits."
                .into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::Overloaded if openai => (
            503,
            "server_error",
            "The server is overloaded or not ready yet.".into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::Overloaded => (529, "overloaded_error", "Overloaded".into(), Value::Null, Value::Null),
        FaultKind::ServerError if openai => (
            500,
            "server_error",
            "The server had an error while processing your request. Sorry about that!".into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::ServerError => (500, "api_error", "Internal server error".into(), Value::Null, Value::Null),
        FaultKind::Unavailable if openai => (
            503,
            "server_error",
            "Service Unavailable. Please try again later.".into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::Unavailable => (503, "api_error", "Service Unavailable".into(), Value::Null, Value::Null),
        FaultKind::Unauthorized if openai => (
            401,
            "invalid_request_error",
            "Incorrect API key provided. You can find your API key at \
             https://platform.openai.com/account/api-keys."
                .into(),
            Value::Null,
            json!("invalid_api_key"),
        ),
        FaultKind::Unauthorized => (
            401,
            "authentication_error",
            "invalid x-api-key".into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::ToolPairing if openai => (
            400,
            "invalid_request_error",
            OPENAI_TOOL_PAIRING.into(),
            json!("messages.[2].role"),
            Value::Null,
        ),
        FaultKind::ToolPairing => (
            400,
            "invalid_request_error",
            ANTHROPIC_TOOL_PAIRING.into(),
            Value::Null,
            Value::Null,
        ),
        FaultKind::ContextOverflow if openai => (
            400,
            "invalid_request_error",
            "This model's maximum context length is 128000 tokens. However, your messages \
             resulted in 210000 tokens. Please reduce the length of the messages."
                .into(),
            json!("messages"),
            json!("context_length_exceeded"),
        ),
        FaultKind::ContextOverflow => (
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum".into(),
            Value::Null,
            Value::Null,
        ),
        other => unreachable!("{} is planned elsewhere", other.name()),
    };
    let msg = fault.message.clone().unwrap_or(msg);
    let mut plan = error_json(ctx, status, etype, &msg, param, code);
    if kind == FaultKind::RateLimit {
        if let Plan::Full { headers, .. } = &mut plan {
            rate_limit_headers(fault, ctx, headers);
        }
    }
    plan
}

fn rate_limit_headers(fault: &Fault, ctx: &Ctx, headers: &mut HeaderMap) {
    if let Some(v) = &fault.retry_after {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => u.to_string(),
                (None, Some(f)) => f.to_string(),
                _ => n.to_string(),
            },
            other => other.to_string(),
        };
        if let Ok(hv) = HeaderValue::from_str(&text) {
            headers.insert("retry-after", hv);
        }
    }
    if let Some(ms) = fault.retry_after_ms {
        headers.insert("retry-after-ms", HeaderValue::from(ms));
    }
    let Some(reset) = &fault.reset else { return };
    let Some(dur) = reset_duration(reset) else {
        return;
    };
    match ctx.api {
        Api::OpenAi | Api::Converse | Api::Gemini | Api::Cohere | Api::Ollama => {
            let text = match reset {
                Value::String(s) => s.clone(),
                _ => format_go_duration(dur),
            };
            if let Ok(hv) = HeaderValue::from_str(&text) {
                headers.insert("x-ratelimit-reset-requests", hv);
            }
            headers.insert("x-ratelimit-limit-requests", HeaderValue::from_static("3"));
            headers.insert(
                "x-ratelimit-remaining-requests",
                HeaderValue::from_static("0"),
            );
        }
        Api::Anthropic => {
            let at = SystemTime::now() + dur;
            if let Ok(hv) = HeaderValue::from_str(&rfc3339(at)) {
                headers.insert("anthropic-ratelimit-requests-reset", hv);
            }
            headers.insert(
                "anthropic-ratelimit-requests-limit",
                HeaderValue::from_static("50"),
            );
            headers.insert(
                "anthropic-ratelimit-requests-remaining",
                HeaderValue::from_static("0"),
            );
        }
    }
}

/// `2024-05-01T12:00:00Z` (UTC, whole seconds, rounded up).
pub(crate) fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

fn status_plan(fault: &Fault, ctx: &Ctx) -> Plan {
    let status = fault.status.unwrap_or(500);
    let Some(body) = &fault.body else {
        let reason = StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("Error");
        let msg = fault.message.clone().unwrap_or_else(|| reason.to_string());
        if !matches!(ctx.provider, Provider::OpenAi | Provider::Anthropic) {
            return shaped_error(
                ctx,
                &generic_wire(ctx.provider, FaultKind::Status, status),
                &msg,
            );
        }
        let etype = ctx.provider.code_for_status(status);
        return error_json(ctx, status, etype, &msg, Value::Null, Value::Null);
    };
    let text = match body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let ct = if serde_json::from_str::<Value>(&text).is_ok() {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    Plan::Full {
        status,
        headers: base_headers(ctx, ct),
        body: Bytes::from(text),
    }
}

fn html_plan(fault: &Fault, ctx: &Ctx) -> Plan {
    let status = fault.status.unwrap_or(502);
    let cloudflare = match fault.server.as_deref() {
        Some("cloudflare") => true,
        Some(_) => false,
        None => (520..=530).contains(&status),
    };
    let host = ctx.provider.host();
    let mut headers = HeaderMap::new();
    let body = if cloudflare {
        let ray = format!("8f{:014x}", ctx.seq);
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=UTF-8"),
        );
        headers.insert("server", HeaderValue::from_static("cloudflare"));
        headers.insert(
            "cf-ray",
            HeaderValue::from_str(&format!("{ray}-LAB")).expect("ascii"),
        );
        cloudflare_page(status, host, &ray)
    } else {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/html"));
        headers.insert("server", HeaderValue::from_static("nginx"));
        let title = match status {
            502 => "502 Bad Gateway".to_string(),
            503 => "503 Service Temporarily Unavailable".to_string(),
            504 => "504 Gateway Time-out".to_string(),
            s => format!(
                "{s} {}",
                StatusCode::from_u16(s)
                    .ok()
                    .and_then(|c| c.canonical_reason())
                    .unwrap_or("Error")
            ),
        };
        format!(
            "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        )
    };
    Plan::Full {
        status,
        headers,
        body: Bytes::from(body),
    }
}

fn cloudflare_page(status: u16, host: &str, ray: &str) -> String {
    let what = match status {
        520 => "Web server is returning an unknown error",
        521 => "Web server is down",
        522 => "Connection timed out",
        523 => "Origin is unreachable",
        524 => "A timeout occurred",
        525 => "SSL handshake failed",
        526 => "Invalid SSL certificate",
        502 => "Bad gateway",
        503 => "Service unavailable",
        504 => "Gateway time-out",
        _ => "Error",
    };
    format!(
        r#"<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<!--[if gt IE 8]><!--> <html class="no-js" lang="en-US"> <!--<![endif]-->
<head>
<title>{host} | {status}: {what}</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<meta name="robots" content="noindex, nofollow" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
</head>
<body>
<div id="cf-wrapper">
  <div id="cf-error-details" class="p-0">
    <header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
      <h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
        <span class="inline-block">{what}</span>
        <span class="code-label">Error code {status}</span>
      </h1>
      <div>Visit <a href="https://www.cloudflare.com/5xx-error-landing?utm_source=errorcode_{status}&amp;utm_campaign={host}" target="_blank" rel="noopener noreferrer">cloudflare.com</a> for more information.</div>
    </header>
  </div>
  <div class="cf-error-footer cf-wrapper w-240 lg:w-full py-10 sm:py-4 sm:px-8 mx-auto text-center sm:text-left border-solid border-0 border-t border-gray-300">
    <p class="text-13">
      <span class="cf-footer-item sm:block sm:mb-1">Cloudflare Ray ID: <strong class="font-semibold">{ray}</strong></span>
      <span class="cf-footer-separator sm:hidden">&bull;</span>
      <span class="cf-footer-item sm:block sm:mb-1">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com/5xx-error-landing" target="_blank">Cloudflare</a></span>
    </p>
  </div>
</div>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_709_251_199); // 2024-02-29T23:59:59Z
        assert_eq!(rfc3339(t), "2024-02-29T23:59:59Z");
    }
}
