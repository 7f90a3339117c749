//! Every provider's published error-code table (`core/src/classify/tables/`) drives
//! classification: each row, put in its provider's own envelope, is classified as the row says.
//! Plus a few end-to-end cases per provider, and the cost of a call (an ignored measurement).

use std::collections::BTreeSet;
use std::time::Instant;

use retry_core::__private::classify::classify;
use retry_core::__private::classify::tables::{provider_tables, CodeRow, Envelope, Read};
use retry_core::{Category, Failure};
use serde_json::{json, Value};

/// A code of digits is sent as a number, as these providers do.
fn code_value(code: &str) -> Value {
    match code.parse::<u64>() {
        Ok(n) => json!(n),
        Err(_) => json!(code),
    }
}

/// The row's code and message in its provider's own envelope.
fn body_of(envelope: Envelope, r: &CodeRow) -> String {
    let (code, msg) = (r.code, r.message);
    let opt = |c: &str| (!c.is_empty()).then(|| code_value(c));
    let scoped = |prefix: &str| {
        code.strip_prefix(prefix)
            .and_then(|n| n.parse::<u64>().ok())
    };
    let openai =
        || json!({"error": {"message": msg, "type": null, "param": null, "code": opt(code)}});
    let v = match envelope {
        Envelope::OpenAi => openai(),
        Envelope::Anthropic => json!({"type": "error", "error": {"type": code, "message": msg}}),
        Envelope::Google => {
            json!({"error": {"code": (r.status != 0).then_some(r.status), "message": msg, "status": code.to_ascii_uppercase()}})
        }
        Envelope::Aws => json!({"__type": code, "message": msg}),
        Envelope::TopLevel => json!({"code": opt(code), "message": msg}),
        Envelope::Tencent => {
            json!({"Response": {"Error": {"Code": code, "Message": msg}, "RequestId": "ed93f3cb"}})
        }
        Envelope::Baidu => match scoped("error_code_") {
            Some(n) => json!({"error_code": n, "error_msg": msg}),
            None => openai(),
        },
        Envelope::MiniMax => match scoped("base_resp_") {
            Some(n) => json!({"id": "x", "base_resp": {"status_code": n, "status_msg": msg}}),
            None => json!({"error": {"message": msg, "type": code}}),
        },
        Envelope::IFlytek => match scoped("header_") {
            Some(n) => json!({"header": {"code": n, "message": msg, "sid": "x", "status": 2}}),
            None => openai(),
        },
        Envelope::Cloudflare => match scoped("errors_") {
            Some(n) => {
                json!({"success": false, "errors": [{"code": n, "message": msg}], "result": null})
            }
            None => openai(),
        },
        Envelope::Tgi => json!({"error": msg, "error_type": code}),
        Envelope::ErrorString => json!({"error": msg}),
        Envelope::Databricks => {
            json!({"error_code": code.to_ascii_uppercase(), "message": msg, "details": []})
        }
    };
    v.to_string()
}

fn failure_of(envelope: Envelope, r: &CodeRow) -> Failure {
    let f = match r.status {
        0 => Failure::new(""),
        s => Failure::http(s, ""),
    };
    f.with_body(body_of(envelope, r))
}

/// Every row of every table, replayed in its provider's envelope with the status its table
/// gives, is classified as the row says.
#[test]
fn every_row_of_every_table_decides_its_category() {
    let mut wrong = Vec::new();
    let mut rows = 0;
    for t in provider_tables() {
        for r in t.rows {
            rows += 1;
            let f = failure_of(t.envelope, r);
            let c = classify(&f);
            if c.category != r.category || c.transient != r.category.is_transient() {
                wrong.push(format!(
                    "{} | {} {} {:?}: got {:?} (transient {}), table says {:?}\n  body {}",
                    t.provider,
                    r.status,
                    r.code,
                    r.message,
                    c.category,
                    c.transient,
                    r.category,
                    f.body.as_deref().unwrap_or("")
                ));
            }
        }
    }
    assert!(rows > 400, "only {rows} rows");
    assert!(
        wrong.is_empty(),
        "{} of {rows} rows decided otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Issue 20 asks for the published tables of at least 40 providers, gateways and servers, each
/// with its source.
#[test]
fn at_least_forty_providers_have_a_table() {
    // The shared gateway wordings are no provider's own table.
    let providers: BTreeSet<&str> = provider_tables()
        .map(|t| t.provider)
        .filter(|p| !p.starts_with('('))
        .collect();
    assert!(
        providers.len() >= 40,
        "{} providers: {providers:?}",
        providers.len()
    );
    for t in provider_tables() {
        assert!(t.source.contains('.'), "{}: {}", t.provider, t.source);
        // A table read only in part still has rows only from what was read.
        assert!(t.read != Read::Excerpt || !t.rows.is_empty());
    }
}

/// Cost of `classify` on a rate-limit failure and a plain 500, 10,000 calls each, and the first
/// call of the process (which builds the tables). A measurement, not a test:
/// `cargo test --release -p llm-retry-core --test provider_tables cost -- --ignored --nocapture`.
#[test]
#[ignore = "measurement: run in release with --ignored --nocapture"]
fn cost_of_a_classify_call() {
    let rate_limit = Failure::http(429, "Error code: 429")
        .with_header("retry-after", "2")
        .with_body(r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#);
    let plain_500 = Failure::http(500, "Internal Server Error").with_body("Internal Server Error");
    let t = Instant::now();
    let first = classify(&rate_limit);
    let cold = t.elapsed();
    println!(
        "first call (builds the tables): {cold:?} -> {:?}",
        first.category
    );
    for (name, f) in [("rate_limit", &rate_limit), ("plain_500", &plain_500)] {
        for _ in 0..1_000 {
            std::hint::black_box(classify(std::hint::black_box(f)));
        }
        let n = 10_000u32;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(classify(std::hint::black_box(f)));
        }
        let per = t.elapsed() / n;
        println!("{name}: {per:?} per call over {n} calls");
    }
}

fn decide(f: &Failure) -> (Category, bool) {
    let c = classify(f);
    (c.category, c.transient)
}

fn tencent(code: &str, message: &str) -> Failure {
    let body = json!({"Response": {"Error": {"Code": code, "Message": message}, "RequestId": "ed93f3cb-f35e-473f-b9f3-0d451b8b79c6"}});
    Failure::http(200, "").with_body(body.to_string())
}

/// Tencent Cloud answers under HTTP 200; its `Response.Error.Code` decides, a code's family
/// speaks for members no table lists, and a statusless envelope reads the same.
#[test]
fn tencent_cloud_envelopes() {
    use Category::*;
    let cases = [
        (
            "RequestLimitExceeded",
            "The number of requests exceeds the frequency limit.",
            RateLimited,
        ),
        (
            "RequestLimitExceeded.UinLimitExceeded",
            "主账号限频。",
            RateLimited,
        ),
        ("LimitExceeded", "超过配额限制。", RateLimited),
        (
            "FailedOperation.EngineServerLimitExceeded",
            "引擎层请求超过限额；请稍后重试。",
            RateLimited,
        ),
        (
            "FailedOperation.EngineRequestTimeout",
            "引擎层请求超时；请稍后重试。",
            Timeout,
        ),
        ("InternalError", "内部错误。", ServerError),
        (
            "AuthFailure.SignatureExpire",
            "Signature expired.",
            Unauthorized,
        ),
        // Not in any table: its family says it.
        ("AuthFailure.SomethingNew", "鉴权失败", Unauthorized),
        (
            "ResourceInsufficient.ChargeResourceExhaust",
            "计费资源已耗尽。",
            PaymentRequired,
        ),
        (
            "FailedOperation.ServiceStopArrears",
            "欠费停服。",
            PaymentRequired,
        ),
        ("InvalidParameterValue.Model", "模型不存在。", NotFound),
        ("InvalidParameter.SomethingElse", "参数错误", BadRequest),
        (
            "OperationDenied.TextIllegalDetected",
            "文本包含违法违规信息，审核不通过。",
            ContentFiltered,
        ),
    ];
    for (code, message, want) in cases {
        let f = tencent(code, message);
        assert_eq!(decide(&f), (want, want.is_transient()), "{code}");
        let mut statusless = f.clone();
        statusless.status = None;
        assert_eq!(
            decide(&statusless),
            (want, want.is_transient()),
            "{code} without a status"
        );
    }
    // The SDKs' exception texts, with no body: Python's `code:X message:Y requestId:Z`
    // (tencentcloud-sdk-python's TencentCloudSDKException.__str__) and Go's `Code=X, Message=Y`.
    let py = Failure::new("[TencentCloudSDKException] code:FailedOperation.EngineServerLimitExceeded message:引擎层请求超过限额；请稍后重试。 requestId:b6fa436c-d0f5-4bd8-8ab7-4a885bdc6877")
        .with_class(["tencentcloud.common.exception.tencent_cloud_sdk_exception.TencentCloudSDKException", "Exception"]);
    assert_eq!(decide(&py), (RateLimited, true));
    let py = Failure::new("[TencentCloudSDKException] code:ResourceInsufficient.ChargeResourceExhaust message:计费资源已耗尽。 requestId:x");
    assert_eq!(decide(&py), (PaymentRequired, false));
    let py = Failure::new("[TencentCloudSDKException] code:InternalError.BackendTimeout message:Backend timeout, please retry it later requestId:3d46603a-4c6f-4e2e-b3ca-082be89c6e3f");
    assert!(classify(&py).transient, "{:?}", classify(&py));
    let go = Failure::new("[TencentCloudSDKError] Code=AuthFailure.SignatureExpire, Message=Signature expired, RequestId=ed93f3cb");
    assert_eq!(decide(&go), (Unauthorized, false));
    // A daily quota under a rate-limit code is no wait a retry budget outlasts.
    let daily = tencent("LimitExceeded", "今日调用次数已达上限");
    assert_eq!(decide(&daily), (PaymentRequired, false));
    // A 200 without Response.Error is no failure the body explains.
    let ok = Failure::http(200, "").with_body(r#"{"Response":{"RequestId":"x","Choices":[]}}"#);
    assert_ne!(classify(&ok).category, RateLimited);
}

/// Bodies as the providers send them, with the status their tables give.
#[test]
fn new_providers_end_to_end() {
    use Category::*;
    let cases: [(&str, u16, &str, Category); 9] = [
        (
            "deepseek 402",
            402,
            r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#,
            PaymentRequired,
        ),
        (
            "deepseek 503",
            503,
            r#"{"error":{"message":"Server Overloaded","type":"unknown_error","param":null,"code":null}}"#,
            Overloaded,
        ),
        (
            "openrouter 403",
            403,
            r#"{"error":{"code":403,"message":"Your chosen model requires moderation and your input was flagged","metadata":{"reasons":["violence"],"flagged_input":"..."}}}"#,
            ContentFiltered,
        ),
        (
            "openrouter 402",
            402,
            r#"{"error":{"code":402,"message":"Your account or API key has insufficient credits. Add more credits and retry the request."}}"#,
            PaymentRequired,
        ),
        (
            "together 503",
            503,
            r#"{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}"#,
            Overloaded,
        ),
        (
            "together 403 context",
            403,
            r#"{"error":{"message":"Input token count + max_tokens parameter must be less than the context length of the model being queried.","type":"invalid_request_error"}}"#,
            ContextOverflow,
        ),
        (
            "stepfun 451",
            451,
            r#"{"error":{"message":"请求内容或大模型响应内容中出现了无法通过安全审核的内容","type":"request_blocked"}}"#,
            ContentFiltered,
        ),
        (
            "wandb 429",
            429,
            r#"{"error":{"message":"Concurrency limit reached for requests","type":"rate_limit_error"}}"#,
            RateLimited,
        ),
        (
            "sambanova 410",
            410,
            r#"{"error":{"message":"Model is no longer available","type":"invalid_request_error"}}"#,
            NotFound,
        ),
    ];
    for (name, status, body, want) in cases {
        let f = Failure::http(status, "").with_body(body);
        assert_eq!(decide(&f), (want, want.is_transient()), "{name}");
    }
}

/// More providers' own shapes: a stream line, a gateway's own statuses, scoped numeric codes.
#[test]
fn more_providers_end_to_end() {
    use Category::*;
    let cases: [(&str, Option<u16>, &str, Category); 8] = [
        // Ollama: the error as a line of the NDJSON stream, under the 200 already sent.
        (
            "ollama mid-stream",
            Some(200),
            r#"{"error":"an error was encountered while running the model"}"#,
            StreamInterrupted,
        ),
        (
            "ollama 404",
            Some(404),
            r#"{"error":"model 'llama3.2' not found"}"#,
            NotFound,
        ),
        (
            "portkey 446",
            Some(446),
            r#"{"status":"failure","message":"Guardrail checks failed (request denied)"}"#,
            ContentFiltered,
        ),
        (
            "portkey 412",
            Some(412),
            r#"{"status":"failure","message":"Budget exhausted"}"#,
            PaymentRequired,
        ),
        (
            "databricks 429",
            Some(429),
            r#"{"error_code":"RESOURCE_EXHAUSTED","message":"Too many requests.","details":[]}"#,
            RateLimited,
        ),
        (
            "iflytek daily cap",
            None,
            r#"{"header":{"code":11201,"message":"授权错误：日流控超限。超过当日最大访问量的限制。","sid":"cht000b7016","status":2}}"#,
            PaymentRequired,
        ),
        (
            "iflytek busy",
            None,
            r#"{"header":{"code":10110,"message":"服务忙，请稍后再试。","sid":"cht000b7016","status":2}}"#,
            Overloaded,
        ),
        (
            "volcengine rpm",
            Some(429),
            r#"{"error":{"code":"RateLimitExceeded.EndpointRPMExceeded","message":"The Requests Per Minute (RPM) limit of the associated endpoint for your account has been exceeded.","param":"","type":"TooManyRequests"}}"#,
            RateLimited,
        ),
    ];
    for (name, status, body, want) in cases {
        let f = match status {
            Some(s) => Failure::http(s, ""),
            None => Failure::new(""),
        }
        .with_body(body);
        assert_eq!(decide(&f), (want, want.is_transient()), "{name}");
    }
}

/// The providers added from their pages this round, in their own words and envelopes: the words
/// decide over the status where the page says so, and a stated wait is read.
#[test]
fn providers_read_from_their_pages() {
    use Category::*;
    // Replicate's 429 (replicate.com/docs/topics/predictions/rate-limits): a rate limit whose
    // reset is its wait.
    let f = Failure::http(429, "")
        .with_body(r#"{"detail":"Request was throttled. Your rate limit resets in ~30s."}"#);
    let c = classify(&f);
    assert_eq!((c.category, c.retry_after), (RateLimited, Some(30.0)));
    // Replicate's 402 problem details.
    let f = Failure::http(402, "").with_body(r#"{"title":"Insufficient credit","detail":"You have insufficient credit to run this model. Go to https://replicate.com/account/billing#billing to purchase credit.","status":402}"#);
    assert_eq!(decide(&f), (PaymentRequired, false));
    // Nscale answers a balance gone with 429: never retried.
    let f = Failure::http(429, "").with_body(
        r#"{"error":{"message":"Insufficient credit","type":"insufficient_credit","param":null,"code":null}}"#,
    );
    assert_eq!(decide(&f), (PaymentRequired, false));
    // GigaChat: 402 in its REST envelope; the gRPC RESOURCE_EXHAUSTED whose words say the
    // tokens ran out, in Russian, as a client prints it.
    let f = Failure::http(402, "").with_body(r#"{"status":402,"message":"Payment Required"}"#);
    assert_eq!(decide(&f), (PaymentRequired, false));
    let f = Failure::new("<_InactiveRpcError of RPC that terminated with: status = StatusCode.RESOURCE_EXHAUSTED details = \"Закончились токены модели\">");
    assert_eq!(decide(&f), (PaymentRequired, false));
    // CLOVA Studio's status envelope over its HTTP status.
    let f = Failure::http(400, "").with_body(
        r#"{"status":{"code":"40003","message":"Context length exceeded"},"result":null}"#,
    );
    assert_eq!(decide(&f), (ContextOverflow, false));
    // vLLM behind mittwald: the prompt left no room for output.
    let f = Failure::http(400, "Error code: 400 - {'object': 'error', 'message': 'max_tokens must be at least 1, got -1203.', 'type': 'BadRequestError', 'param': None, 'code': 400}");
    assert_eq!(decide(&f), (ContextOverflow, false));
    // Qianfan v2 answers its RPM limit under HTTP 200 as {"code", "msg"}
    // (cloud.baidu.com/doc/WENXINWORKSHOP/s/hlzic283e), and its SDK raises it without a status.
    let f = Failure::new("").with_body(r#"{"code":336501,"msg":"Rate limit reached for RPM"}"#);
    assert_eq!(decide(&f), (RateLimited, true));
}
