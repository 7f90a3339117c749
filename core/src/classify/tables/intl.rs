//! Providers with international APIs: model labs and inference hosts.
//! Each table is one provider's published error codes, one fact a row, with its source.

use super::{doc, fact, generic, generic_doc, row};
use super::{Envelope, ProviderTable, Read};
use crate::category::Category::*;

/// The tables of this family, in lookup order (the first row of a code wins).
pub const TABLES: &[ProviderTable] = &[
    ProviderTable {
        provider: "OpenAI",
        source: "platform.openai.com/docs/guides/error-codes",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // OpenAI error.code / error.type (platform.openai.com/docs/guides/error-codes)
            row("rate_limit_exceeded", RateLimited),
            row("insufficient_quota", PaymentRequired),
            row("billing_hard_limit_reached", PaymentRequired),
            row("billing_not_active", PaymentRequired),
            row("context_length_exceeded", ContextOverflow),
            row("string_above_max_length", ContextOverflow),
            row("invalid_api_key", Unauthorized),
            row("invalid_authentication", Unauthorized),
            row("unsupported_country_region_territory", Forbidden),
            row("model_not_found", NotFound),
            row("invalid_model", NotFound), // Perplexity: Invalid model 'x' (400)
            row("content_policy_violation", ContentFiltered),
            row("invalid_prompt", ContentFiltered), // "Invalid prompt: your prompt was flagged ..."
            row("content_filter", ContentFiltered), // Azure OpenAI
            row("responsibleaipolicyviolation", ContentFiltered), // Azure innererror.code
            generic("server_error", ServerError),
            generic("internal_error", ServerError),
            generic("invalid_request_error", BadRequest),
            // OpenAI's code for a parameter the model refuses (max_tokens on o-series and gpt-5);
            // a Copilot proxy's code for a body it refuses.
            row("unsupported_parameter", BadRequest),
            row("invalid_request_body", BadRequest),
        ],
    },
    ProviderTable {
        provider: "Anthropic",
        source: "docs.claude.com/en/api/errors; platform.claude.com/docs/en/api/errors.md",
        read: Read::Whole,
        envelope: Envelope::Anthropic,
        rows: &[
            // Anthropic error.type with the status and wording of docs.claude.com/en/api/errors
            // (re-read for issue 20); a type without its status is a stream's event.
            doc(429, "rate_limit_error", "Your account has hit a rate limit.", RateLimited),
            doc(529, "overloaded_error", "The API is temporarily overloaded.", Overloaded),
            generic_doc(500, "api_error", "An unexpected error has occurred internal to Anthropic's systems.", ServerError),
            doc(401, "authentication_error", "There's an issue with your API key.", Unauthorized),
            doc(403, "permission_error", "Your API key does not have permission to use the specified resource.", Forbidden),
            doc(404, "not_found_error", "The requested resource was not found.", NotFound),
            doc(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", ContextOverflow),
            // 402 and 504, re-read on the page's current revision (platform.claude.com/docs/en/
            // api/errors.md), with 409: "the request conflicts with the current state of a
            // resource" (modified concurrently, a value that must be unique), a client error.
            doc(504, "timeout_error", "The request timed out while processing.", Timeout),
            doc(402, "billing_error", "There's an issue with your billing or payment information.", PaymentRequired),
            doc(409, "conflict_error", "The request conflicts with the current state of a resource.", ClientError),
        ],
    },
    ProviderTable {
        provider: "Google Gemini / Vertex AI",
        source: "ai.google.dev/gemini-api/docs/troubleshooting",
        read: Read::Earlier,
        envelope: Envelope::Google,
        rows: &[
            // Gemini google.rpc status names (ai.google.dev/gemini-api/docs/troubleshooting)
            row("resource_exhausted", RateLimited),
            row("unavailable", ServerError),
            generic("internal", ServerError),
            row("deadline_exceeded", Timeout),
            row("unauthenticated", Unauthorized),
            row("permission_denied", Forbidden),
            row("not_found", NotFound),
            generic("invalid_argument", BadRequest),
            generic("failed_precondition", BadRequest),
            // Gemini safety blocks: candidates[].finishReason / promptFeedback.blockReason
            row("safety", ContentFiltered),
            row("prohibited_content", ContentFiltered),
            row("blocklist", ContentFiltered),
            row("spii", ContentFiltered),
            row("recitation", ContentFiltered),
            row("image_safety", ContentFiltered),
            // Google ErrorInfo reasons (error.details[].reason)
            row("api_key_invalid", Unauthorized),
            row("service_disabled", Forbidden),
            row("billing_disabled", PaymentRequired),
            row("401", Unauthorized),
        ],
    },
    ProviderTable {
        provider: "AWS Bedrock",
        source: "docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors",
        read: Read::Earlier,
        envelope: Envelope::Aws,
        rows: &[
            // AWS Bedrock __type / x-amzn-errortype (docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors)
            row("throttlingexception", RateLimited),
            row("servicequotaexceededexception", RateLimited),
            row("modeltimeoutexception", Timeout),
            row("serviceunavailableexception", ServerError),
            row("internalserverexception", ServerError),
            row("modelnotreadyexception", Overloaded), // the model's capacity is still starting
            row("modelerrorexception", ServerError),
            row("accessdeniedexception", Forbidden),
            row("unrecognizedclientexception", Unauthorized),
            row("resourcenotfoundexception", NotFound),
            row("expiredtokenexception", Unauthorized),
            row("invalidsignatureexception", Unauthorized),
            row("incompletesignature", Unauthorized),
            row("missingauthenticationtokenexception", Unauthorized),
            // An error event inside InvokeModelWithResponseStream / ConverseStream (status 424).
            row("modelstreamerrorexception", StreamInterrupted),
            row("internalfailure", ServerError),
            row("throttling", RateLimited),
            row("toomanyrequestsexception", RateLimited),
            row("conflictexception", ClientError),
            generic("validationexception", BadRequest),
        ],
    },
    ProviderTable {
        provider: "Azure OpenAI",
        source: "learn.microsoft.com/azure/ai-services/openai",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Azure OpenAI
            row("deploymentnotfound", NotFound),
        ],
    },
    ProviderTable {
        provider: "Groq",
        source: "console.groq.com/docs/errors",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Groq: the model's output failed JSON mode or a tool call (console.groq.com/docs/errors)
            row("json_validate_failed", Validation),
            row("tool_use_failed", Validation),
        ],
    },
    ProviderTable {
        provider: "Mistral",
        source: "docs.mistral.ai",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            // The error glossary (docs.mistral.ai/resources/error-glossary, read as far as its
            // 400, 401 and 403 entries, its envelope and its list of transient statuses):
            // {"object": "error", "message", "type", "param", "code": "unknown_model"}.
            fact(400, "The request body is malformed or missing required fields.", BadRequest),
            fact(401, "The API key is missing, invalid, or expired.", Unauthorized),
            fact(403, "Your account does not have permission to access the requested resource.", Forbidden),
            doc(400, "unknown_model", "Invalid model", NotFound),
            // "For transient errors (429, 500, 502, 503, 504), implement exponential backoff."
            fact(429, "Too many requests", RateLimited),
            fact(500, "Internal server error", ServerError),
            fact(502, "Bad gateway", ServerError),
            fact(503, "Service unavailable", ServerError),
            fact(504, "Gateway timeout", ServerError),
            // Mistral's code 3230 is its type `invalid_request_message_order` (batch 18): "Not the
            // same number of function calls and responses" (a pairing, read by the main tables'
            // stated row) and "Unexpected role 'user' after role 'tool'" (an order) share it, so
            // the code decides nothing beyond the 400's bad request.
        ],
    },
    ProviderTable {
        provider: "Cerebras",
        source: "github.com/nminaya/grammar-nazi-bot/issues/954",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Cerebras 429 {"type":"too_many_requests_error","code":"request_quota_exceeded",
            // "message":"Requests per minute limit exceeded - too many requests sent."}
            // (nminaya/grammar-nazi-bot#954); token_quota_exceeded likewise for tokens. The window
            // (minute, hour, day) is read from the message.
            row("request_quota_exceeded", RateLimited),
            row("token_quota_exceeded", RateLimited),
            row("too_many_requests_error", RateLimited),
        ],
    },
    // ---- Tables added from each provider's own error page (issue 20).
    ProviderTable {
        provider: "Groq",
        source: "console.groq.com/docs/errors",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "The server could not understand the request due to invalid syntax.", BadRequest),
            fact(401, "The request was not successful because it lacks valid authentication credentials for the requested resource.", Unauthorized),
            fact(403, "The request is not allowed due to permission restrictions.", Forbidden),
            fact(404, "The requested resource could not be found.", NotFound),
            fact(413, "The request body is too large. Please reduce the size of the request body.", ContextOverflow),
            fact(422, "The request was well-formed, but could not be followed due to semantic errors or model hallucinations.", Unprocessable),
        ],
    },
    ProviderTable {
        provider: "Cerebras",
        source: "inference-docs.cerebras.ai/support/error",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            // The status table maps each status to the SDK's exception; the messages are ours.
            fact(400, "BadRequestError", BadRequest),
            fact(401, "AuthenticationError", Unauthorized),
            fact(402, "PaymentRequired", PaymentRequired),
            fact(403, "PermissionDeniedError", Forbidden),
            fact(404, "NotFoundError", NotFound),
            fact(422, "UnprocessableEntityError", Unprocessable),
            fact(429, "RateLimitError", RateLimited),
            fact(500, "InternalServerError", ServerError),
            fact(503, "ServiceUnavailable", ServerError),
        ],
    },
    ProviderTable {
        provider: "Together AI",
        source: "docs.together.ai/docs/error-codes",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Invalid Request: misconfigured request", BadRequest),
            fact(401, "Authentication Error: missing or invalid API key", Unauthorized),
            // "The account associated with the API key has reached its maximum allowed monthly
            // spending limit."
            fact(402, "Payment Required: the account has reached its maximum allowed monthly spending limit", PaymentRequired),
            // Together answers an over-long request with 403 "Bad Request".
            fact(403, "Input token count + max_tokens parameter must be less than the context length of the model being queried.", ContextOverflow),
            fact(404, "Not Found: invalid endpoint URL or model name", NotFound),
            fact(429, "Rate limit: too many requests sent in a short period of time", RateLimited),
            fact(500, "Server Error: unknown server error", ServerError),
            fact(503, "Engine Overloaded: our servers are seeing high amounts of traffic", Overloaded),
        ],
    },
    ProviderTable {
        provider: "Fireworks AI",
        source: "docs.fireworks.ai/guides/inference-error-codes",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Bad Request: invalid input or malformed request", BadRequest),
            fact(401, "Unauthorized: invalid API key or insufficient permissions", Unauthorized),
            fact(402, "Payment Required: account is not on a paid plan or has exceeded usage limits", PaymentRequired),
            fact(403, "Forbidden: authentication issues", Forbidden),
            fact(404, "Not Found: the model doesn't exist, is not deployed, or you don't have permission to access it", NotFound),
            fact(405, "Method Not Allowed", ClientError),
            fact(408, "Request Timeout: the request took too long to complete", Timeout),
            // "Account is suspended or there's an issue with account status."
            fact(412, "Precondition Failed: account is suspended", ClientError),
        ],
    },
    ProviderTable {
        provider: "Cohere",
        source: "docs.cohere.com/errors-reference",
        read: Read::Excerpt,
        envelope: Envelope::TopLevel,
        rows: &[
            fact(400, "invalid request: list of documents must not be empty", BadRequest),
            fact(400, "invalid request: prompt must be at least 1 token long.", BadRequest),
            fact(400, "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292. Try using a shorter prompt, or enabling prompt truncating.", ContextOverflow),
            fact(400, "invalid request: cannot specify both frequency_penalty and presence_penalty.", BadRequest),
            fact(400, "invalid request: response_format is not supported with RAG.", BadRequest),
        ],
    },
    ProviderTable {
        provider: "xAI",
        source: "docs.x.ai/docs/key-information/debugging",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "A POST method request body specified an invalid argument", BadRequest),
            fact(401, "No authorization header or an invalid authorization token is provided", Unauthorized),
            fact(403, "Your API key/team doesn't have permission to perform the action", Forbidden),
        ],
    },
    ProviderTable {
        provider: "SambaNova",
        source: "docs.sambanova.ai/cloud/api-reference/using-the-api/api-error-codes",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Bad request: invalid syntax or input values", BadRequest),
            fact(401, "Unauthorized: authentication credentials are missing or invalid", Unauthorized),
            fact(408, "Request timeout: the server terminated the request due to excessive processing time", Timeout),
            fact(410, "Gone: the requested model is no longer available (deprecated or removed)", NotFound),
            fact(429, "Too many requests: rate limit exceeded for your subscription tier", RateLimited),
            fact(500, "Server error: an unexpected error occurred on the server", ServerError),
            fact(503, "The model is temporarily unavailable for maintenance", ServerError),
            doc(400, "context_length_exceeded", "The number of input and output tokens exceeds the model's context length", ContextOverflow),
            doc(400, "decimal_above_max_value", "Decimal above maximum value. Expected a value between 0 and 1, but got 100 instead.", BadRequest),
            doc(400, "invalid_type", "The parameter has the wrong type", BadRequest),
        ],
    },
    ProviderTable {
        provider: "Perplexity",
        source: "docs.perplexity.ai/guides/perplexity-sdk-error-handling",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            // "Common HTTP status codes: 400 (Bad Request), 401 (Authentication), 403 (Permission
            // Denied), 404 (Not Found), 429 (Rate Limit), 500+ (Server Error)."
            fact(400, "Bad Request", BadRequest),
            fact(401, "Authentication", Unauthorized),
            fact(403, "Permission Denied", Forbidden),
            fact(404, "Not Found", NotFound),
            fact(429, "Rate Limit", RateLimited),
            fact(500, "Server Error", ServerError),
        ],
    },
    ProviderTable {
        provider: "Featherless",
        source: "featherless.ai/docs/api-reference-error-codes",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            // A cold model takes from 5 minutes to an hour to load: no retry budget outlasts it.
            fact(400, "This Model is Cold / Not Ready for Inference", BadRequest),
            fact(401, "Unauthenticated", Unauthorized),
            fact(403, "Unauthorized: the model is gated and you need to agree to the model's license", Forbidden),
            fact(500, "Internal Server Error", ServerError),
            // "insufficient model capacity ... Default should be to retry the same request."
            fact(503, "Service Temporarily Unavailable / No valid Executor", ServerError),
        ],
    },
    ProviderTable {
        provider: "W&B Inference (CoreWeave)",
        source: "docs.wandb.ai/inference/api-reference/errors",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(401, "Authentication failed", Unauthorized),
            fact(402, "You exceeded your current quota, please check your plan and billing details", PaymentRequired),
            fact(403, "Country, region, or territory not supported", Forbidden),
            fact(403, "The inference gateway is not enabled for your organization", Forbidden),
            fact(429, "Concurrency limit reached for requests", RateLimited),
            fact(500, "The server had an error while processing your request", ServerError),
            fact(503, "The engine is currently overloaded, please try again later", Overloaded),
        ],
    },
    ProviderTable {
        provider: "Novita AI",
        source: "novita.ai/docs/guides/error",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Invalid request parameters.", BadRequest),
            fact(401, "API Key is missing or incorrect.", Unauthorized),
            fact(403, "Access denied due to insufficient permissions.", Forbidden),
            fact(429, "Rate limit exceeded (Too Many Requests).", RateLimited),
            fact(503, "Backend timeout", ServerError),
        ],
    },
    ProviderTable {
        provider: "Voyage AI",
        source: "docs.voyageai.com/docs/error-codes",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Invalid Request", BadRequest),
            fact(401, "Unauthorized: invalid authentication", Unauthorized),
            fact(403, "Forbidden: the IP address you are sending the request from might be forbidden", Forbidden),
            fact(429, "Rate Limit Exceeded: the frequency of your requests is too high", RateLimited),
            fact(500, "Server Error: unexpected issue on our servers", ServerError),
            // "Our servers are currently experiencing high traffic": shared capacity, an overload.
            fact(502, "Service Unavailable: our servers are currently experiencing high traffic", Overloaded),
            fact(503, "Service Unavailable: our servers are currently experiencing high traffic", Overloaded),
            fact(504, "Service Unavailable: our servers are currently experiencing high traffic", Overloaded),
        ],
    },
    ProviderTable {
        provider: "You.com",
        source: "you.com/docs/error-handling/error-code-reference",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Bad Request", BadRequest),
            fact(422, "Unprocessable Entity", Unprocessable),
            fact(401, "Unauthorized", Unauthorized),
            fact(402, "Payment Required: add credits to your account", PaymentRequired),
            fact(403, "Forbidden", Forbidden),
            fact(404, "Not Found", NotFound),
            fact(429, "Too Many Requests", RateLimited),
            fact(500, "Internal Server Error", ServerError),
        ],
    },
    // Databricks REST APIs (Model Serving and the Foundation Model APIs among them) answer
    // {"error_code": "<NAME>", "message", "details"} (docs.databricks.com/api/account/errors);
    // the names are google.rpc's, as the SDK lists them (databricks.github.io/sdk-js, Code).
    ProviderTable {
        provider: "Databricks",
        source: "docs.databricks.com/api/account/errors; databricks.github.io/sdk-js/api/variables/_databricks_sdk-core.apierror_codes.Code.html",
        read: Read::Excerpt,
        envelope: Envelope::Databricks,
        rows: &[
            doc(404, "not_found", "Job 123 does not exist.", NotFound),
            // "Aborted indicates the operation was aborted, typically due to a concurrency issue
            // like sequencer check failures, transaction aborts."
            row("aborted", ServerError),
            row("already_exists", ClientError),
            row("deadline_exceeded", Timeout),
            generic("failed_precondition", BadRequest),
            generic("internal", ServerError),
            generic("invalid_argument", BadRequest),
            row("out_of_range", BadRequest),
            row("permission_denied", Forbidden),
            row("resource_exhausted", RateLimited),
            row("unauthenticated", Unauthorized),
            row("unavailable", ServerError),
            // The server does not implement the call: every retry gets the same answer.
            row("unimplemented", BadRequest),
        ],
    },
    // Sber GigaChat answers {"status": <n>, "message"} (REST) and gRPC status codes; its
    // docs are Russian, its messages English (developers.sber.ru/docs/ru/gigachat/api/
    // errors-description, .../api/grpc/grpc-errors).
    ProviderTable {
        provider: "Sber GigaChat",
        source: "developers.sber.ru/docs/ru/gigachat/api/errors-description; developers.sber.ru/docs/ru/gigachat/api/grpc/grpc-errors",
        read: Read::Excerpt,
        envelope: Envelope::TopLevel,
        rows: &[
            // 402: the model's tokens ran out ("Закончились токены модели"): top up the balance.
            fact(402, "Payment Required", PaymentRequired),
            fact(403, "Permission denied", Forbidden),
            // 413: the prompt is over the model's context window.
            fact(413, "Payload too large", ContextOverflow),
            fact(422, "Requested model does not support functions", Unprocessable),
            fact(429, "Too many requests", RateLimited),
            fact(500, "Internal Server Error", ServerError),
            // The gRPC table: 8 (RESOURCE_EXHAUSTED) stands for 402 or 429, "the model's tokens
            // ran out"; its words, in Russian, decide which.
            fact(429, "Закончились токены модели", PaymentRequired),
        ],
    },
    // Naver CLOVA Studio (HyperCLOVA X): {"status": {"code": "<5 digits>", "message"}} under the
    // HTTP status (api.ncloud-docs.com/docs/en/clovastudio-troubleshoot-c4xx, -c5xx, -s4xx).
    ProviderTable {
        provider: "Naver CLOVA Studio",
        source: "api.ncloud-docs.com/docs/en/clovastudio-troubleshoot-c4xx; api.ncloud-docs.com/docs/ja/clovastudio-troubleshoot-c5xx; api.ncloud-docs.com/docs/clovastudio-troubleshoot-s4xx",
        read: Read::Excerpt,
        envelope: Envelope::TopLevel,
        rows: &[
            fact(400, "Bad request", BadRequest),
            fact(400, "Invalid parameter", BadRequest),
            fact(400, "Context length exceeded", ContextOverflow), // 40003
            fact(400, "Text too long", ContextOverflow),           // 40003, older revision
            fact(400, "Model not found", NotFound),                // 40080
            fact(401, "Unauthorized", Unauthorized),               // 40100
            fact(401, "Invalid access token", Unauthorized),       // 40102
            fact(403, "Forbidden", Forbidden),                     // 40300
            fact(429, "요청 수 초과", RateLimited),                // 64429 (skill sets): too many requests
            fact(400, "토큰 수 초과", ContextOverflow),            // 64400: too many tokens
            fact(500, "Internal server error", ServerError),       // 50000
            fact(504, "Gateway timeout", ServerError),             // 50400
        ],
    },
    // Replicate: 429 {"detail": "Request was throttled. Your rate limit resets in ~30s."}
    // (replicate.com/docs/topics/predictions/rate-limits); its errors are RFC 7807 problem
    // details ({"title", "detail", "status"}).
    ProviderTable {
        provider: "Replicate",
        source: "replicate.com/docs/topics/predictions/rate-limits",
        read: Read::Excerpt,
        envelope: Envelope::TopLevel,
        rows: &[
            fact(429, "Request was throttled. Your rate limit resets in ~30s.", RateLimited),
            // As the API answers a prediction without credit (title "Insufficient credit"), quoted
            // by client tests; not on the page above.
            fact(402, "You have insufficient credit to run this model.", PaymentRequired),
        ],
    },
];
