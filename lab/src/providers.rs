//! The providers the lab impersonates beyond OpenAI and Anthropic: which path is whose, and
//! what each one sends for each fault. Everything here is data: a route table and one error
//! table per provider, read by `render.rs`.
//!
//! Sources for the wire facts (status, code and wording), per provider:
//! - Bedrock: the Bedrock Runtime API reference (InvokeModel / Converse "Errors" and "Common
//!   Errors": ThrottlingException 429, ServiceUnavailableException 503, ModelTimeoutException 408,
//!   ValidationException 400, AccessDeniedException 403, ResourceNotFoundException 404,
//!   InternalServerException 500, ModelErrorException 424), restJson1's `x-amzn-ErrorType` header
//!   (`Code:namespace`, which botocore's RestJSONParser splits at `:`) with a `{"message"}` body;
//!   UnrecognizedClientException / ExpiredTokenException 403 are AWS's common auth errors.
//! - Gemini: ai.google.dev/gemini-api/docs/troubleshooting and google.rpc.Status
//!   (`{"error":{"code","message","status","details"}}`), status names from google/rpc/code.proto.
//! - OpenRouter: openrouter.ai/docs/api-reference/errors (`{"error":{"code","message","metadata"}}`,
//!   upstream errors in `metadata.raw` with `provider_name`).
//! - Azure OpenAI: learn.microsoft.com Azure OpenAI content filtering (`content_filter`,
//!   `innererror.code` `ResponsibleAIPolicyViolation`, `content_filter_result`) and the
//!   `DeploymentNotFound` / `429` error codes.
//! - vLLM: vllm/entrypoints/openai/protocol.py `ErrorResponse` (`object: "error"`, `type`, `code`).
//! - TGI: text-generation-inference router `ErrorResponse` (`error`, `error_type`: `overloaded`
//!   429, `validation` 422, `generation` 424, `incomplete_generation` 500).
//! - llama.cpp: tools/server `format_error_response` (`{"error":{"code","message","type"}}`,
//!   `exceed_context_size_error` with `n_prompt_tokens` / `n_ctx`, `unavailable_error` 503).
//! - Ollama: server/routes.go (`{"error": "..."}`; 404 `model "x" not found, try pulling it
//!   first`; 503 `server busy, please try again.  maximum pending requests exceeded`).
//! - Groq: console.groq.com/docs/errors (OpenAI's shape). Mistral: docs.mistral.ai (`object:
//!   "error"` bodies; bare `{"message"}` for 401 / 429). Cohere: docs.cohere.com/reference/errors
//!   (`{"id", "message"}`).

use crate::script::FaultKind;

/// Whose endpoint a request hit: decides the error shape and wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Provider {
    OpenAi,
    Anthropic,
    Azure,
    OpenRouter,
    Groq,
    Mistral,
    Vllm,
    Tgi,
    LlamaCpp,
    Ollama,
    Bedrock,
    Gemini,
    Cohere,
}

/// The success wire format of an endpoint (what `ok` and streams look like).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// `chat.completion` / `chat.completion.chunk` SSE.
    OpenAi,
    /// `message` / Anthropic SSE events (Bedrock's InvokeModel answers with it too).
    Anthropic,
    /// Bedrock Converse output.
    Converse,
    /// Gemini `GenerateContentResponse`; streams as SSE `data:` lines.
    Gemini,
    /// Cohere v2 chat response.
    Cohere,
    /// Ollama `/api/chat`; streams as NDJSON.
    Ollama,
}

/// Where a request's `stream` flag comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Streaming {
    /// The body's `"stream"`, default false.
    Body,
    /// The body's `"stream"`, default true (Ollama).
    BodyDefaultOn,
    /// Always a stream (Gemini's `:streamGenerateContent`).
    Always,
    /// Never (the lab does not speak that provider's stream framing).
    Never,
}

pub(crate) struct Route {
    /// Path segments; `*` matches one segment, `*:verb` one segment ending in `:verb`.
    pub pattern: &'static str,
    pub provider: Provider,
    pub api: Api,
    pub streaming: Streaming,
}

const fn route(pattern: &'static str, provider: Provider, api: Api, streaming: Streaming) -> Route {
    Route {
        pattern,
        provider,
        api,
        streaming,
    }
}

/// Every model endpoint. Providers whose real path is OpenAI's own get a prefix naming them.
pub(crate) const ROUTES: &[Route] = &[
    route(
        "/v1/chat/completions",
        Provider::OpenAi,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/v1/messages",
        Provider::Anthropic,
        Api::Anthropic,
        Streaming::Body,
    ),
    // openai.AzureOpenAI(azure_endpoint=...)
    route(
        "/openai/deployments/*/chat/completions",
        Provider::Azure,
        Api::OpenAi,
        Streaming::Body,
    ),
    // base URL https://openrouter.ai/api/v1
    route(
        "/api/v1/chat/completions",
        Provider::OpenRouter,
        Api::OpenAi,
        Streaming::Body,
    ),
    // groq.Groq(base_url=...): the SDK appends /openai/v1/chat/completions
    route(
        "/openai/v1/chat/completions",
        Provider::Groq,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/mistral/v1/chat/completions",
        Provider::Mistral,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/vllm/v1/chat/completions",
        Provider::Vllm,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/tgi/v1/chat/completions",
        Provider::Tgi,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/llamacpp/v1/chat/completions",
        Provider::LlamaCpp,
        Api::OpenAi,
        Streaming::Body,
    ),
    route(
        "/api/chat",
        Provider::Ollama,
        Api::Ollama,
        Streaming::BodyDefaultOn,
    ),
    // bedrock-runtime Converse / InvokeModel (restJson1)
    route(
        "/model/*/converse",
        Provider::Bedrock,
        Api::Converse,
        Streaming::Never,
    ),
    route(
        "/model/*/invoke",
        Provider::Bedrock,
        Api::Anthropic,
        Streaming::Never,
    ),
    // Gemini Developer API (google-genai's default api_version is v1beta)
    route(
        "/v1beta/models/*:generateContent",
        Provider::Gemini,
        Api::Gemini,
        Streaming::Never,
    ),
    route(
        "/v1/models/*:generateContent",
        Provider::Gemini,
        Api::Gemini,
        Streaming::Never,
    ),
    route(
        "/v1beta/models/*:streamGenerateContent",
        Provider::Gemini,
        Api::Gemini,
        Streaming::Always,
    ),
    route(
        "/v1/models/*:streamGenerateContent",
        Provider::Gemini,
        Api::Gemini,
        Streaming::Always,
    ),
    route("/v2/chat", Provider::Cohere, Api::Cohere, Streaming::Never),
];

/// The route of a POST to `path`, and the model its path names (Bedrock, Gemini), if any.
pub(crate) fn find_route(path: &str) -> Option<(&'static Route, Option<String>)> {
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    'routes: for r in ROUTES {
        let pats: Vec<&str> = r.pattern.trim_start_matches('/').split('/').collect();
        if pats.len() != segs.len() {
            continue;
        }
        let mut model = None;
        for (p, s) in pats.iter().zip(&segs) {
            match p.strip_prefix('*') {
                Some("") if !s.is_empty() => model = Some(percent_decode(s)),
                Some(verb) if !verb.is_empty() => match s.strip_suffix(verb) {
                    Some(m) if !m.is_empty() => model = Some(percent_decode(m)),
                    _ => continue 'routes,
                },
                Some(_) => continue 'routes,
                None if p == s => {}
                None => continue 'routes,
            }
        }
        return Some((r, model));
    }
    None
}

/// `%3A` -> `:` and friends (Bedrock model ids such as `anthropic.claude-3-haiku-20240307-v1:0`
/// arrive percent-encoded). Invalid escapes stay as they are.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Provider-specific additions to an error body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extra {
    None,
    /// Gemini 429: `details` with QuotaFailure, Help and RetryInfo (`retryDelay`).
    GoogleQuota,
    /// Gemini: `details` with ErrorInfo reason `API_KEY_INVALID`.
    GoogleApiKey,
    /// Gemini blocks a prompt with a 200 whose `promptFeedback.blockReason` is `SAFETY`.
    GoogleBlocked,
    /// Azure: `param`, `status` and `innererror` with a `content_filter_result`.
    AzureContentFilter,
    /// OpenRouter: the upstream provider's error text in `metadata.raw`.
    OpenRouterRaw(&'static str, &'static str),
    /// OpenRouter moderation: `metadata.reasons` / `flagged_input`.
    OpenRouterModeration,
    /// llama.cpp context overflow: `n_prompt_tokens` and `n_ctx`.
    LlamaCtx(u32, u32),
    /// Mistral / vLLM-style bare `{"message": ...}` instead of the provider's usual shape.
    MessageOnly,
}

/// One error as a provider sends it. `{model}` in `message` is replaced by the request's model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wire {
    pub kind: FaultKind,
    pub status: u16,
    /// The provider's error type / code / status name / exception name.
    pub code: &'static str,
    /// A second code where the shape has one (OpenAI's `code` beside `type`).
    pub code2: Option<&'static str>,
    pub message: &'static str,
    pub extra: Extra,
}

const fn w(kind: FaultKind, status: u16, code: &'static str, message: &'static str) -> Wire {
    Wire {
        kind,
        status,
        code,
        code2: None,
        message,
        extra: Extra::None,
    }
}

const fn wx(
    kind: FaultKind,
    status: u16,
    code: &'static str,
    message: &'static str,
    extra: Extra,
) -> Wire {
    Wire {
        kind,
        status,
        code,
        code2: None,
        message,
        extra,
    }
}

const fn w2(
    kind: FaultKind,
    status: u16,
    code: &'static str,
    code2: &'static str,
    message: &'static str,
) -> Wire {
    Wire {
        kind,
        status,
        code,
        code2: Some(code2),
        message,
        extra: Extra::None,
    }
}

use FaultKind as K;

const BEDROCK: &[Wire] = &[
    w(K::RateLimit, 429, "ThrottlingException", "Too many requests, please wait before trying again."),
    w(K::Overloaded, 503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
    w(K::Unavailable, 503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
    w(K::ServerError, 500, "InternalServerException", "The system encountered an unexpected error during processing. Try your request again."),
    w(K::ModelTimeout, 408, "ModelTimeoutException", "Model has timed out in processing the request. Try your request again."),
    w(K::Unauthorized, 403, "UnrecognizedClientException", "The security token included in the request is invalid."),
    w(K::ExpiredToken, 403, "ExpiredTokenException", "The security token included in the request is expired"),
    w(K::Forbidden, 403, "AccessDeniedException", "You don't have access to the model with the specified model ID."),
    w(K::ModelNotFound, 404, "ResourceNotFoundException", "Could not resolve the foundation model from the provided model identifier."),
    w(K::ContextOverflow, 400, "ValidationException", "Input is too long for requested model."),
    w(K::ToolPairing, 400, "ValidationException", "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn."),
    w(K::BadRequest, 400, "ValidationException", "Malformed input request: #: required key [messages] not found, please reformat your input and try again."),
];

const GEMINI: &[Wire] = &[
    wx(K::RateLimit, 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.", Extra::GoogleQuota),
    w(K::InsufficientQuota, 429, "RESOURCE_EXHAUSTED", "Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing."),
    w(K::Overloaded, 503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    w(K::Unavailable, 503, "UNAVAILABLE", "The service is currently unavailable."),
    w(K::ServerError, 500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"),
    w(K::ModelTimeout, 504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
    wx(K::Unauthorized, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", Extra::GoogleApiKey),
    wx(K::ExpiredToken, 400, "INVALID_ARGUMENT", "API key expired. Please renew the API key.", Extra::GoogleApiKey),
    w(K::Forbidden, 403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."),
    w(K::ModelNotFound, 404, "NOT_FOUND", "models/{model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."),
    w(K::ContextOverflow, 400, "INVALID_ARGUMENT", "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."),
    w(K::ToolPairing, 400, "INVALID_ARGUMENT", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."),
    w(K::BadRequest, 400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
    wx(K::ContentFilter, 200, "SAFETY", "", Extra::GoogleBlocked),
];

const AZURE: &[Wire] = &[
    w(K::RateLimit, 429, "429", "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."),
    w(K::ModelNotFound, 404, "DeploymentNotFound", "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."),
    wx(K::ContentFilter, 400, "content_filter", "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766", Extra::AzureContentFilter),
    w(K::Unauthorized, 401, "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."),
    w(K::ContextOverflow, 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens. Please reduce the length of the messages."),
    w(K::ServerError, 500, "InternalServerError", "Backend returned unexpected response. Please contact Microsoft for help."),
    w(K::Overloaded, 503, "ServiceUnavailable", "The service is temporarily unable to process your request. Please try again later."),
    w(K::Unavailable, 503, "ServiceUnavailable", "The service is temporarily unable to process your request. Please try again later."),
];

const OPENROUTER: &[Wire] = &[
    wx(K::RateLimit, 429, "429", "Provider returned error", Extra::OpenRouterRaw("google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations", "Google")),
    wx(K::Overloaded, 502, "502", "Provider returned error", Extra::OpenRouterRaw(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, "Anthropic")),
    w(K::InsufficientQuota, 402, "402", "This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 1000. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account"),
    w(K::Unavailable, 503, "503", "No allowed providers are available for the selected model."),
    w(K::ServerError, 500, "500", "Internal Server Error"),
    w(K::Unauthorized, 401, "401", "No auth credentials found"),
    w(K::ModelNotFound, 404, "404", "No endpoints found for {model}."),
    w(K::ModelTimeout, 408, "408", "Request timed out"),
    wx(K::ContentFilter, 403, "403", "{model} requires moderation on OpenAI. Your input was flagged for \"harassment\". No credits were charged.", Extra::OpenRouterModeration),
    w(K::ContextOverflow, 400, "400", "This endpoint's maximum context length is 131072 tokens. However, you requested about 210000 tokens (210000 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically."),
];

const GROQ: &[Wire] = &[
    w2(K::RateLimit, 429, "tokens", "rate_limit_exceeded", "Rate limit reached for model `{model}` in organization `org_lab` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Used 5800, Requested 400. Please try again in 2s. Visit https://console.groq.com/docs/rate-limits for more information."),
    w2(K::ContextOverflow, 400, "invalid_request_error", "context_length_exceeded", "Please reduce the length of the messages or completion."),
    w2(K::Unauthorized, 401, "invalid_request_error", "invalid_api_key", "Invalid API Key"),
    w2(K::ModelNotFound, 404, "invalid_request_error", "model_not_found", "The model `{model}` does not exist or you do not have access to it."),
];

const MISTRAL: &[Wire] = &[
    wx(K::RateLimit, 429, "", "Requests rate limit exceeded", Extra::MessageOnly),
    w2(K::Overloaded, 429, "service_tier_capacity_exceeded", "3505", "Service tier capacity exceeded for this model."),
    wx(K::Unauthorized, 401, "", "Unauthorized", Extra::MessageOnly),
    w(K::ContextOverflow, 400, "invalid_request_error", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"),
];

const VLLM: &[Wire] = &[
    w(K::ContextOverflow, 400, "BadRequestError", "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion."),
    w(K::ModelNotFound, 404, "NotFoundError", "The model `{model}` does not exist."),
];

const TGI: &[Wire] = &[
    w(K::Overloaded, 429, "overloaded", "Model is overloaded"),
    w(K::RateLimit, 429, "overloaded", "Model is overloaded"),
    w(K::ContextOverflow, 422, "validation", "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`"),
    w(K::BadRequest, 422, "validation", "Input validation error: `temperature` must be strictly positive"),
    w(K::ServerError, 424, "generation", "Request failed during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB"),
];

const LLAMACPP: &[Wire] = &[
    wx(
        K::ContextOverflow,
        400,
        "exceed_context_size_error",
        "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it",
        Extra::LlamaCtx(4476, 4096),
    ),
    w(K::Unavailable, 503, "unavailable_error", "Loading model"),
    w(K::Overloaded, 503, "unavailable_error", "Loading model"),
    w(
        K::Unauthorized,
        401,
        "authentication_error",
        "Invalid API Key",
    ),
    w(K::ModelNotFound, 404, "not_found_error", "File Not Found"),
];

const OLLAMA: &[Wire] = &[
    w(
        K::ModelNotFound,
        404,
        "",
        "model \"{model}\" not found, try pulling it first",
    ),
    w(
        K::Overloaded,
        503,
        "",
        "server busy, please try again.  maximum pending requests exceeded",
    ),
    w(
        K::ServerError,
        500,
        "",
        "llama runner process has terminated: exit status 2",
    ),
];

const COHERE: &[Wire] = &[
    w(K::RateLimit, 429, "", "You are using a Trial key, which is limited to 20 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'. Contact us on 'https://discord.gg/XW44jPfYJu' or email us at support@cohere.com with any questions"),
    w(K::Unauthorized, 401, "", "invalid api token"),
    w(K::ContextOverflow, 400, "", "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5000. Try using a shorter prompt, or enabling prompt truncating. See https://docs.cohere.com/reference/generate for more details."),
    w(K::ServerError, 500, "", "internal server error, this has been reported to our developers"),
    w(K::ModelNotFound, 404, "", "model '{model}' not found, make sure the correct model ID was used and that you have access to the model."),
];

/// The new fault kinds on OpenAI's and Anthropic's own endpoints (the older kinds are rendered
/// by `render::error_plan`).
const OPENAI: &[Wire] = &[
    w2(
        K::Forbidden,
        403,
        "invalid_request_error",
        "unsupported_country_region_territory",
        "Country, region, or territory not supported",
    ),
    w2(
        K::ModelNotFound,
        404,
        "invalid_request_error",
        "model_not_found",
        "The model `{model}` does not exist or you do not have access to it.",
    ),
    w2(
        K::ContentFilter,
        400,
        "invalid_request_error",
        "content_policy_violation",
        "Your request was rejected as a result of our safety system.",
    ),
    w2(
        K::BadRequest,
        400,
        "invalid_request_error",
        "invalid_value",
        "Invalid value for 'temperature': must be between 0 and 2.",
    ),
];

const ANTHROPIC: &[Wire] = &[
    w(
        K::Forbidden,
        403,
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    w(K::ModelNotFound, 404, "not_found_error", "model: {model}"),
    w(K::ModelTimeout, 504, "timeout_error", "Request timed out"),
    w(
        K::BadRequest,
        400,
        "invalid_request_error",
        "max_tokens: Field required",
    ),
];

impl Provider {
    fn table(self) -> &'static [Wire] {
        match self {
            Provider::OpenAi => OPENAI,
            Provider::Anthropic => ANTHROPIC,
            Provider::Azure => AZURE,
            Provider::OpenRouter => OPENROUTER,
            Provider::Groq => GROQ,
            Provider::Mistral => MISTRAL,
            Provider::Vllm => VLLM,
            Provider::Tgi => TGI,
            Provider::LlamaCpp => LLAMACPP,
            Provider::Ollama => OLLAMA,
            Provider::Bedrock => BEDROCK,
            Provider::Gemini => GEMINI,
            Provider::Cohere => COHERE,
        }
    }

    /// The provider's own code for a bare status (a `status` fault without a body, or a fault
    /// the provider has no wording for).
    pub fn code_for_status(self, status: u16) -> &'static str {
        match self {
            Provider::Bedrock => match status {
                400 => "ValidationException",
                403 => "AccessDeniedException",
                404 => "ResourceNotFoundException",
                408 => "ModelTimeoutException",
                424 => "ModelErrorException",
                429 => "ThrottlingException",
                503 => "ServiceUnavailableException",
                500..=599 => "InternalServerException",
                _ => "ValidationException",
            },
            // google/rpc/code.proto's HTTP mapping
            Provider::Gemini => match status {
                400 => "INVALID_ARGUMENT",
                401 => "UNAUTHENTICATED",
                403 => "PERMISSION_DENIED",
                404 => "NOT_FOUND",
                409 => "ABORTED",
                429 => "RESOURCE_EXHAUSTED",
                499 => "CANCELLED",
                500 => "INTERNAL",
                501 => "UNIMPLEMENTED",
                503 => "UNAVAILABLE",
                504 => "DEADLINE_EXCEEDED",
                _ => "UNKNOWN",
            },
            Provider::LlamaCpp => match status {
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                501 => "not_supported_error",
                503 => "unavailable_error",
                500..=599 => "server_error",
                _ => "invalid_request_error",
            },
            Provider::Tgi => match status {
                429 => "overloaded",
                422 => "validation",
                424 => "generation",
                _ => "incomplete_generation",
            },
            Provider::Vllm => match status {
                404 => "NotFoundError",
                500..=599 => "InternalServerError",
                _ => "BadRequestError",
            },
            Provider::OpenRouter => "",
            Provider::Azure => "",
            Provider::Ollama | Provider::Cohere => "",
            Provider::OpenAi | Provider::Groq | Provider::Mistral => match status {
                500..=599 => "server_error",
                _ => "invalid_request_error",
            },
            Provider::Anthropic => match status {
                401 => "authentication_error",
                402 => "billing_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                504 => "timeout_error",
                529 => "overloaded_error",
                500..=599 => "api_error",
                _ => "invalid_request_error",
            },
        }
    }

    /// The header carrying a request id, if the provider sends one.
    pub fn request_id_header(self) -> Option<&'static str> {
        match self {
            Provider::Anthropic => Some("request-id"),
            Provider::Bedrock => Some("x-amzn-requestid"),
            Provider::Gemini | Provider::Ollama | Provider::Tgi | Provider::LlamaCpp => None,
            _ => Some("x-request-id"),
        }
    }

    /// The public host named in HTML error pages.
    pub fn host(self) -> &'static str {
        match self {
            Provider::OpenAi => "api.openai.com",
            Provider::Anthropic => "api.anthropic.com",
            Provider::Azure => "lab.openai.azure.com",
            Provider::OpenRouter => "openrouter.ai",
            Provider::Groq => "api.groq.com",
            Provider::Mistral => "api.mistral.ai",
            Provider::Bedrock => "bedrock-runtime.us-east-1.amazonaws.com",
            Provider::Gemini => "generativelanguage.googleapis.com",
            Provider::Cohere => "api.cohere.com",
            Provider::Vllm | Provider::Tgi | Provider::LlamaCpp | Provider::Ollama => {
                "llm.internal"
            }
        }
    }
}

/// The provider's error for `kind`; a kind the provider has no wording for gets the kind's
/// usual status with the provider's code for it and the status's reason phrase.
pub(crate) fn wire(provider: Provider, kind: FaultKind) -> Option<Wire> {
    provider.table().iter().find(|w| w.kind == kind).copied()
}

/// The status a kind usually has, for providers without their own wording for it.
pub(crate) fn default_status(kind: FaultKind) -> u16 {
    match kind {
        FaultKind::RateLimit => 429,
        FaultKind::InsufficientQuota => 402,
        FaultKind::Overloaded | FaultKind::Unavailable => 503,
        FaultKind::Unauthorized | FaultKind::ExpiredToken => 401,
        FaultKind::Forbidden => 403,
        FaultKind::ModelNotFound => 404,
        FaultKind::ModelTimeout => 408,
        FaultKind::ContentFilter
        | FaultKind::ToolPairing
        | FaultKind::ContextOverflow
        | FaultKind::BadRequest => 400,
        _ => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_match_real_paths() {
        let (r, m) =
            find_route("/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse").unwrap();
        assert_eq!((r.provider, r.api), (Provider::Bedrock, Api::Converse));
        assert_eq!(m.as_deref(), Some("anthropic.claude-3-haiku-20240307-v1:0"));
        let (r, m) = find_route("/v1beta/models/gemini-2.0-flash:generateContent").unwrap();
        assert_eq!(r.provider, Provider::Gemini);
        assert_eq!(m.as_deref(), Some("gemini-2.0-flash"));
        let (r, _) = find_route("/v1beta/models/gemini-2.0-flash:streamGenerateContent").unwrap();
        assert_eq!(r.streaming, Streaming::Always);
        assert_eq!(
            find_route("/openai/deployments/gpt4o/chat/completions")
                .unwrap()
                .0
                .provider,
            Provider::Azure
        );
        assert_eq!(
            find_route("/v1/chat/completions").unwrap().0.provider,
            Provider::OpenAi
        );
        assert!(find_route("/v1beta/models/:generateContent").is_none());
        assert!(find_route("/model//converse").is_none());
        assert!(find_route("/v1/v1/chat/completions").is_none());
        assert_eq!(percent_decode("a%3Ab%zz%4"), "a:b%zz%4");
    }

    #[test]
    fn every_table_row_is_unique_per_kind() {
        for p in [
            Provider::OpenAi,
            Provider::Anthropic,
            Provider::Azure,
            Provider::OpenRouter,
            Provider::Groq,
            Provider::Mistral,
            Provider::Vllm,
            Provider::Tgi,
            Provider::LlamaCpp,
            Provider::Ollama,
            Provider::Bedrock,
            Provider::Gemini,
            Provider::Cohere,
        ] {
            let t = p.table();
            for (i, a) in t.iter().enumerate() {
                assert!(
                    t[i + 1..].iter().all(|b| b.kind != a.kind),
                    "{p:?} {:?} twice",
                    a.kind
                );
            }
        }
    }
}
