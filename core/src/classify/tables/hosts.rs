//! Gateways, proxies and self-hosted servers, and the shared wordings they use.
//! Each table is one provider's published error codes, one fact a row, with its source.

use super::{Envelope, ProviderTable, Read};

use super::{doc, fact, generic, row};
use crate::category::Category::*;

/// The tables of this family, in lookup order (the first row of a code wins).
pub const TABLES: &[ProviderTable] = &[
    ProviderTable {
        provider: "LiteLLM proxy",
        source: "docs.litellm.ai (budget_exceeded); OpenRouter and vLLM bodies in the corpus (insufficient_credits)",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // OpenRouter / vLLM / LiteLLM proxies
            row("insufficient_credits", PaymentRequired),
            row("budget_exceeded", PaymentRequired), // LiteLLM proxy
        ],
    },
    ProviderTable {
        provider: "(shared gateway wordings)",
        source: "tests/corpus/*.json (gateway and proxy bodies)",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Wordings gateways and proxies use for the same meanings
            row("context_window_exceeded", ContextOverflow),
            row("content_filtered", ContentFiltered),
            row("rate_limited", RateLimited),
            row("rate_limit", RateLimited),
            row("service_unavailable", ServerError),
            row("service_unavailable_error", ServerError),
            row("internal_server_error", ServerError),
            row("engine_overloaded", Overloaded),
            row("capacity_exceeded", Overloaded),    // Groq 498
            row("server_is_overloaded", Overloaded), // OpenAI Responses API stream error
            row("server_overloaded", Overloaded),
            row("request_timeout", Timeout),
        ],
    },
    ProviderTable {
        provider: "llama.cpp server",
        source: "github.com/ggml-org/llama.cpp tools/server",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // llama.cpp server (tools/server): error.type
            row("exceed_context_size_error", ContextOverflow),
            // A 501 whose body says the server lacks the feature (started without `--embeddings`):
            // every retry gets the same answer.
            row("not_supported_error", BadRequest),
            row("unavailable_error", ServerError),
        ],
    },
    ProviderTable {
        provider: "Text Generation Inference",
        source: "github.com/huggingface/text-generation-inference",
        read: Read::Earlier,
        envelope: Envelope::Tgi,
        rows: &[
            // TGI error_type: "generation" failed inside the model server; "validation" is refined
            // by its message (an over-long input is a context overflow).
            generic("generation", ServerError),
            generic("incomplete_generation", ServerError),
            generic("validation", BadRequest),
        ],
    },
    ProviderTable {
        provider: "vLLM",
        source: "github.com/vllm-project/vllm",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // vLLM: "type" is the Python exception name
            generic("notfounderror", NotFound),
            generic("internalservererror", ServerError),
            row("overloaded", Overloaded),
            row("too_many_requests", RateLimited),
            generic("badrequesterror", BadRequest),
            generic("invalid_request", BadRequest),
        ],
    },
    ProviderTable {
        provider: "one-api / new-api",
        source: "doc.tokendog.io/zh/api-reference/guide/error-codes",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // one-api / new-api gateways, error.code (as a new-api deployment documents them:
            // doc.tokendog.io/zh/api-reference/guide/error-codes):
            row("pre_consume_token_quota_failed", PaymentRequired), // 预扣额度失败
            row("insufficient_user_quota", PaymentRequired),        // 额度不足
            row("get_channel_failed", ServerError),                 // 无可用渠道: 稍后重试
            row("do_request_failed", ServerError),                  // 请求上游失败: 重试
            row("empty_response", ServerError),                     // 上游空响应
            generic("bad_response_status_code", ServerError),       // the upstream's status decides
            generic("bad_response", ServerError),
            // one-api's relay when the upstream's 200 body does not parse (its code, printed as
            // the whole message: songquanpeng/one-api#1923, a Hunyuan channel).
            row("unmarshal_response_body_failed", InvalidResponse),
            row("sensitive_words_detected", ContentFiltered), // 触发敏感词
            row("prompt_blocked", ContentFiltered),           // 提示被拦截
            row("access_denied", Forbidden),
        ],
    },
    ProviderTable {
        provider: "Cloudflare Workers AI",
        source: "developers.cloudflare.com/workers-ai/platform/errors",
        read: Read::Earlier,
        envelope: Envelope::Cloudflare,
        rows: &[
            // Cloudflare Workers AI (developers.cloudflare.com/workers-ai/platform/errors), errors[].code:
            // The whole table, with each row's status and description as the page states them
            // (developers.cloudflare.com/workers-ai/platform/errors): the Workers AI binding's
            // `AiError` prints "<code>: <description>" or the description alone, so the
            // descriptions are read as the code (`body::cloudflare_head`).
            doc(429, "errors_3036", "You have used up your daily free allocation of 10,000 neurons", PaymentRequired),
            // Observed for the same exhaustion (diegosouzapw/OmniRoute#6980, Rexezuge-CloudflareWorkers/Mail-Otter#88):
            row("errors_4006", PaymentRequired),
            doc(429, "errors_3040", "No more data centers to forward the request to", Overloaded),
            doc(408, "errors_3007", "Request timeout", Timeout),
            doc(408, "errors_3008", "Request was aborted", Timeout),
            doc(413, "errors_3006", "Request is too large", ContextOverflow),
            doc(400, "errors_5007", "No such model", NotFound),
            doc(404, "errors_3042", "The model name is invalid", NotFound),
            doc(403, "errors_3023", "Service unavailable for account", Forbidden),
            doc(403, "errors_3041", "The account is not allowed to access this model", Forbidden),
            doc(403, "errors_5018", "The account is not allowed to access this model", Forbidden),
            doc(403, "errors_5016", "User has not agreed to Llama3.2 model terms", Forbidden),
            doc(400, "errors_3003", "Request is missing headers or body", BadRequest),
            doc(400, "errors_5004", "Invalid data type for base64 input", BadRequest),
            doc(400, "errors_3039", "Finetune is missing required files", BadRequest),
            doc(405, "errors_5019", "Request trying to use deprecated SDK version", Configuration),
            doc(405, "errors_5005", "does not support LoRa inference", BadRequest),
        ],
    },
    ProviderTable {
        provider: "iFlow",
        source: "platform.iflow.cn/en/docs/error-codes",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            // iFlow platform (platform.iflow.cn/en/docs/error-codes), top-level `code`
            row("60400", PaymentRequired), // Insufficient credits
            row("40303", RateLimited),     // Rate limited
            row("90402", Unauthorized),    // Invalid API Key
        ],
    },
    ProviderTable {
        provider: "Dify",
        source: "docs.dify.ai/en/api-reference/guides/errors",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            // Dify (docs.dify.ai/en/api-reference/guides/errors): provider errors are configuration
            row("provider_quota_exceeded", PaymentRequired),
            row("provider_not_initialize", Configuration),
            row("model_currently_not_support", BadRequest),
        ],
    },
    // ---- Tables added from each gateway's own error page (issue 20).
    ProviderTable {
        provider: "OpenRouter",
        source: "openrouter.ai/docs/api-reference/errors",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Bad Request (invalid or missing params, CORS)", BadRequest),
            fact(401, "Invalid credentials (OAuth session expired, disabled/invalid API key)", Unauthorized),
            fact(402, "Your account or API key has insufficient credits. Add more credits and retry the request.", PaymentRequired),
            fact(403, "Your chosen model requires moderation and your input was flagged", ContentFiltered),
            fact(408, "Your request timed out", Timeout),
            fact(429, "You are being rate limited", RateLimited),
            fact(502, "Your chosen model is down or we received an invalid response from it", ServerError),
            fact(503, "There is no available model provider that meets your routing requirements", ServerError),
        ],
    },
    ProviderTable {
        provider: "Ollama",
        source: "docs.ollama.com/api/errors",
        read: Read::Whole,
        envelope: Envelope::ErrorString,
        rows: &[
            fact(400, "missing request body", BadRequest),
            fact(404, "model 'llama3.2' not found", NotFound),
            fact(429, "Too Many Requests", RateLimited),
            fact(500, "the model failed to generate a response", ServerError),
            fact(502, "Bad Gateway: a cloud model cannot be reached", ServerError),
            // Mid-stream the status stays 200 and the error is a line of the NDJSON stream.
            fact(200, "an error was encountered while running the model", StreamInterrupted),
        ],
    },
    // Portkey passes the provider's own errors through and adds these
    // (portkey.ai/docs/api-reference/inference-api/error-codes, read whole).
    ProviderTable {
        provider: "Portkey",
        source: "portkey.ai/docs/api-reference/inference-api/error-codes",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(408, "Request timed out", Timeout),
            fact(412, "Budget exhausted", PaymentRequired),
            fact(429, "Request rate limited", RateLimited),
            fact(446, "Guardrail checks failed (request denied)", ContentFiltered),
        ],
    },
    // Nscale answers a prepaid balance gone with 429 "Insufficient credit"
    // (docs.nscale.com/docs/faqs/error-codes): the words, not the status, say it is billing.
    ProviderTable {
        provider: "Nscale",
        source: "docs.nscale.com/docs/faqs/error-codes",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(401, "Invalid service token or unauthorized", Unauthorized),
            fact(403, "Forbidden: insufficient permissions for the requested endpoint and operation", Forbidden),
            fact(404, "Model not found or unavailable", NotFound),
            // "the resource was modified by another request (retry with a fresh copy)": the same
            // request meets the same conflict.
            fact(409, "Conflict: the resource was modified by another request", ClientError),
            fact(429, "Insufficient credit", PaymentRequired),
            fact(500, "Internal server error", ServerError),
            fact(503, "Service temporarily unavailable", ServerError),
        ],
    },
    // jiekou.ai (Novita's Chinese platform): error names with their status
    // (docs.jiekou.ai/en/docs/models/reference-error-code).
    ProviderTable {
        provider: "jiekou.ai",
        source: "docs.jiekou.ai/en/docs/models/reference-error-code",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            doc(403, "invalid_api_key", "API Key not provided", Unauthorized),
            doc(404, "model_not_found", "Model does not exist", NotFound),
            doc(401, "failed_to_auth", "Authentication failed", Unauthorized),
            doc(403, "not_enough_balance", "Insufficient balance", PaymentRequired),
            doc(400, "invalid_request_body", "Invalid request body format. See message for details.", BadRequest),
            doc(429, "rate_limit_exceeded", "Requests are too frequent. Please try again later.", RateLimited),
            doc(429, "token_limit_exceeded", "Token limit exceeded. Please try again later.", RateLimited),
            doc(503, "service_not_available", "Service unavailable", ServerError),
            doc(403, "access_deny", "Access denied", Forbidden),
        ],
    },
    // mittwald AI hosting (vLLM behind it): a prompt over the context length is answered with
    // 400 "max_tokens must be at least 1, got -N", the excess as a negative number
    // (developer.mittwald.de/docs/v2/platform/aihosting/api-endpoints/errors).
    ProviderTable {
        provider: "mittwald AI hosting",
        source: "developer.mittwald.de/docs/v2/platform/aihosting/api-endpoints/errors",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(401, "No API key was provided, or the API key is invalid.", Unauthorized),
            fact(429, "The rate limit has been reached. The limit resets after the minute has passed.", RateLimited),
            fact(400, "max_tokens must be at least 1, got -1203.", ContextOverflow),
            fact(400, "At most 1 image(s) may be provided in one request.", BadRequest),
        ],
    },
    // flopex.ai, a router: its codes with their status (www.flopex.ai/docs/errors).
    ProviderTable {
        provider: "flopex.ai",
        source: "www.flopex.ai/docs/errors",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            doc(401, "api_key_inactive", "Invalid, missing, or deactivated API key", Unauthorized),
            doc(402, "insufficient_balance", "Wallet too low for estimated charge - add funds", PaymentRequired),
            doc(404, "model_not_found", "Unknown model alias", NotFound),
            doc(422, "validation_error", "Invalid JSON body or parameters", Unprocessable),
            doc(429, "rate_limit_exceeded", "Too many requests for this key", RateLimited),
            // No provider could take the call now, or every attempt failed: the router's
            // upstreams, which may come back.
            doc(503, "no_provider_available", "No eligible provider could quote or execute", ServerError),
            doc(503, "all_providers_failed", "Execution attempts exhausted", ServerError),
        ],
    },
    // (batch 20) FastChat's OpenAI-compatible server (and the servers that copy its constants:
    // vLLM's old `protocol.py`, Langchain-Chatchat): `{"object": "error", "message", "code"}`
    // with its own five-digit codes (lm-sys/FastChat `fastchat/constants.py` `ErrorCode`), under
    // a 400 whatever the code. (40303 CONTEXT_OVERFLOW is left out: iFlow's 40303 above, read
    // first, is a rate limit.)
    ProviderTable {
        provider: "FastChat",
        source: "github.com/lm-sys/FastChat fastchat/constants.py (ErrorCode)",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            row("40001", BadRequest),     // VALIDATION_TYPE_ERROR
            row("40101", Unauthorized),   // INVALID_AUTH_KEY
            row("40102", Unauthorized),   // INCORRECT_AUTH_KEY
            row("40103", Forbidden),      // NO_PERMISSION
            row("40301", NotFound),       // INVALID_MODEL
            row("40302", BadRequest),     // PARAM_OUT_OF_RANGE
            row("42901", RateLimited),    // RATE_LIMIT
            row("42903", Overloaded),     // ENGINE_OVERLOADED
            row("50001", ServerError),    // INTERNAL_ERROR (a worker's exception or no answer)
            row("50002", ServerError),    // CUDA_OUT_OF_MEMORY
            row("50003", ServerError),    // GRADIO_REQUEST_ERROR
            row("50004", ServerError),    // GRADIO_STREAM_UNKNOWN_ERROR
            row("50005", ServerError),    // CONTROLLER_NO_WORKER (none registered for the model now)
            row("50006", Timeout),        // CONTROLLER_WORKER_TIMEOUT
        ],
    },
];
