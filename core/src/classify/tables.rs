//! Evidence tables. Each row is one fact about one provider or client library, so that a new
//! provider quirk is one line. Provider codes are matched case-insensitively.

use crate::category::Category::{self, *};

/// HTTP status -> category. Statuses not listed: 5xx -> server_error, 4xx -> client_error.
pub const STATUS: &[(u16, Category)] = &[
    (400, BadRequest),
    (401, Unauthorized),
    (402, PaymentRequired),
    (403, Forbidden),
    (404, NotFound),
    (408, Timeout),
    (413, ContextOverflow), // Anthropic `request_too_large`; proxies' body limit
    (422, Unprocessable),
    (429, RateLimited),
    (529, Overloaded), // Anthropic overloaded_error
];

/// Provider error `type` / `code` / `status` / `__type` values (lower-cased) -> category.
/// `generic` rows only decide when nothing more specific is said.
pub struct CodeRow {
    pub code: &'static str,
    pub category: Category,
    pub generic: bool,
}

const fn row(code: &'static str, category: Category) -> CodeRow {
    CodeRow {
        code,
        category,
        generic: false,
    }
}
const fn generic(code: &'static str, category: Category) -> CodeRow {
    CodeRow {
        code,
        category,
        generic: true,
    }
}

pub const CODES: &[CodeRow] = &[
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
    row("content_policy_violation", ContentFiltered),
    row("content_filter", ContentFiltered), // Azure OpenAI
    row("responsibleaipolicyviolation", ContentFiltered), // Azure innererror.code
    row("server_error", ServerError),
    row("internal_error", ServerError),
    generic("invalid_request_error", BadRequest),
    // Anthropic error.type (docs.anthropic.com/en/api/errors)
    row("rate_limit_error", RateLimited),
    row("overloaded_error", Overloaded),
    row("api_error", ServerError),
    row("timeout_error", Timeout),
    row("authentication_error", Unauthorized),
    row("permission_error", Forbidden),
    row("not_found_error", NotFound),
    row("request_too_large", ContextOverflow),
    row("billing_error", PaymentRequired),
    // Gemini google.rpc status names (ai.google.dev/gemini-api/docs/troubleshooting)
    row("resource_exhausted", RateLimited),
    row("unavailable", ServerError),
    row("internal", ServerError),
    row("deadline_exceeded", Timeout),
    row("unauthenticated", Unauthorized),
    row("permission_denied", Forbidden),
    row("not_found", NotFound),
    generic("invalid_argument", BadRequest),
    generic("failed_precondition", BadRequest),
    // AWS Bedrock __type / x-amzn-errortype (docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors)
    row("throttlingexception", RateLimited),
    row("servicequotaexceededexception", RateLimited),
    row("modeltimeoutexception", Timeout),
    row("serviceunavailableexception", ServerError),
    row("internalserverexception", ServerError),
    row("modelnotreadyexception", ServerError),
    row("modelerrorexception", ServerError),
    row("accessdeniedexception", Forbidden),
    row("unrecognizedclientexception", Unauthorized),
    row("resourcenotfoundexception", NotFound),
    generic("validationexception", BadRequest),
    // Azure OpenAI
    row("deploymentnotfound", NotFound),
    // Gemini safety blocks: candidates[].finishReason / promptFeedback.blockReason
    row("safety", ContentFiltered),
    row("prohibited_content", ContentFiltered),
    row("blocklist", ContentFiltered),
    row("spii", ContentFiltered),
    row("401", Unauthorized),
    // OpenRouter / vLLM / LiteLLM proxies
    row("insufficient_credits", PaymentRequired),
    row("overloaded", Overloaded),
    row("too_many_requests", RateLimited),
    generic("badrequesterror", BadRequest),
    generic("invalid_request", BadRequest),
];

/// The row of a (normalised) code: the first in table order, as a scan of [`CODES`] finds it.
/// Rows are bucketed by length, so a lookup compares a handful of rows, not all of them.
pub fn code_row(code: &str) -> Option<&'static CodeRow> {
    static BY_LEN: std::sync::OnceLock<Vec<Vec<&'static CodeRow>>> = std::sync::OnceLock::new();
    let by_len = BY_LEN.get_or_init(|| {
        let longest = CODES.iter().map(|r| r.code.len()).max().unwrap_or(0);
        let mut by_len = vec![Vec::new(); longest + 1];
        for r in CODES {
            by_len[r.code.len()].push(r);
        }
        by_len
    });
    let c = code.as_bytes();
    by_len
        .get(c.len())?
        .iter()
        .copied()
        .find(|r| r.code.as_bytes()[0] == c[0] && r.code.as_bytes() == c)
}

/// What an exception class tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassRule {
    /// The class decides the category.
    Is(Category),
    /// The class is a TLS/DNS error: certificate or unknown-host text makes it configuration,
    /// anything else is a transient connection failure.
    NetworkOrConfig,
    /// An LLM client's API-error base class: decides nothing by itself, but marks the failure
    /// as an API error (SwarmSDK does not retry those without a status).
    ApiError,
}

use ClassRule::{ApiError, Is, NetworkOrConfig};

/// Exception classes, most specific names first within a family. A name starting with `.`
/// matches any module (`.PipelineStopRequested` matches `a.b.PipelineStopRequested`).
pub const CLASSES: &[(&str, ClassRule)] = &[
    // Cancellation: never retried, re-raised untouched.
    ("KeyboardInterrupt", Is(Cancelled)),
    ("SystemExit", Is(Cancelled)),
    ("GeneratorExit", Is(Cancelled)),
    ("asyncio.CancelledError", Is(Cancelled)),
    ("asyncio.exceptions.CancelledError", Is(Cancelled)),
    ("concurrent.futures.CancelledError", Is(Cancelled)),
    ("concurrent.futures._base.CancelledError", Is(Cancelled)),
    ("trio.Cancelled", Is(Cancelled)),
    (".PipelineStopRequested", Is(Cancelled)),
    ("Interrupt", Is(Cancelled)),
    ("SignalException", Is(Cancelled)),
    // openai-python / anthropic-sdk-python (src/*/_exceptions.py)
    ("openai.APITimeoutError", Is(Timeout)),
    ("openai.APIConnectionError", Is(Connection)),
    ("openai.RateLimitError", Is(RateLimited)),
    ("openai.InternalServerError", Is(ServerError)),
    ("openai.AuthenticationError", Is(Unauthorized)),
    ("openai.PermissionDeniedError", Is(Forbidden)),
    ("openai.NotFoundError", Is(NotFound)),
    ("openai.BadRequestError", Is(BadRequest)),
    ("openai.UnprocessableEntityError", Is(Unprocessable)),
    ("openai.ConflictError", Is(ClientError)),
    ("openai.ContentFilterFinishReasonError", Is(ContentFiltered)),
    ("openai.LengthFinishReasonError", Is(ContextOverflow)),
    ("openai.APIResponseValidationError", Is(InvalidResponse)),
    ("openai.APIError", ApiError),
    ("openai.OpenAIError", ApiError),
    ("anthropic.APITimeoutError", Is(Timeout)),
    ("anthropic.APIConnectionError", Is(Connection)),
    ("anthropic.RateLimitError", Is(RateLimited)),
    ("anthropic.OverloadedError", Is(Overloaded)),
    ("anthropic.ServiceUnavailableError", Is(ServerError)),
    ("anthropic.InternalServerError", Is(ServerError)),
    ("anthropic.DeadlineExceededError", Is(Timeout)),
    ("anthropic.AuthenticationError", Is(Unauthorized)),
    ("anthropic.PermissionDeniedError", Is(Forbidden)),
    ("anthropic.NotFoundError", Is(NotFound)),
    ("anthropic.BadRequestError", Is(BadRequest)),
    ("anthropic.RequestTooLargeError", Is(ContextOverflow)),
    ("anthropic.UnprocessableEntityError", Is(Unprocessable)),
    ("anthropic.ConflictError", Is(ClientError)),
    ("anthropic.APIResponseValidationError", Is(InvalidResponse)),
    ("anthropic.APIError", ApiError),
    ("anthropic.AnthropicError", ApiError),
    // httpx (httpx/_exceptions.py)
    ("httpx.ConnectTimeout", Is(Timeout)),
    ("httpx.ReadTimeout", Is(Timeout)),
    ("httpx.WriteTimeout", Is(Timeout)),
    ("httpx.PoolTimeout", Is(Timeout)),
    ("httpx.TimeoutException", Is(Timeout)),
    ("httpx.ConnectError", Is(Connection)),
    ("httpx.ReadError", Is(Connection)),
    ("httpx.WriteError", Is(Connection)),
    ("httpx.CloseError", Is(Connection)),
    ("httpx.RemoteProtocolError", Is(Connection)),
    ("httpx.LocalProtocolError", Is(Programming)),
    ("httpx.ProxyError", Is(Connection)),
    ("httpx.NetworkError", Is(Connection)),
    ("httpx.UnsupportedProtocol", Is(Configuration)),
    ("httpx.InvalidURL", Is(Configuration)),
    ("httpx.DecodingError", Is(InvalidResponse)),
    // httpx2 (the httpx successor openai-python 3.x and anthropic-sdk-python 2.x are built on;
    // same hierarchy, module `httpx2`): raw transport errors surface from streamed responses.
    ("httpx2.ConnectTimeout", Is(Timeout)),
    ("httpx2.ReadTimeout", Is(Timeout)),
    ("httpx2.WriteTimeout", Is(Timeout)),
    ("httpx2.PoolTimeout", Is(Timeout)),
    ("httpx2.TimeoutException", Is(Timeout)),
    ("httpx2.ConnectError", Is(Connection)),
    ("httpx2.ReadError", Is(Connection)),
    ("httpx2.WriteError", Is(Connection)),
    ("httpx2.CloseError", Is(Connection)),
    ("httpx2.RemoteProtocolError", Is(Connection)),
    ("httpx2.LocalProtocolError", Is(Programming)),
    ("httpx2.ProxyError", Is(Connection)),
    ("httpx2.NetworkError", Is(Connection)),
    ("httpx2.UnsupportedProtocol", Is(Configuration)),
    ("httpx2.InvalidURL", Is(Configuration)),
    ("httpx2.DecodingError", Is(InvalidResponse)),
    // requests (requests/exceptions.py)
    ("requests.exceptions.SSLError", NetworkOrConfig),
    ("requests.exceptions.ConnectTimeout", Is(Timeout)),
    ("requests.exceptions.ReadTimeout", Is(Timeout)),
    ("requests.exceptions.Timeout", Is(Timeout)),
    ("requests.exceptions.ProxyError", Is(Connection)),
    ("requests.exceptions.ChunkedEncodingError", Is(Connection)),
    ("requests.exceptions.ConnectionError", Is(Connection)),
    ("requests.exceptions.MissingSchema", Is(Configuration)),
    ("requests.exceptions.InvalidSchema", Is(Configuration)),
    ("requests.exceptions.InvalidURL", Is(Configuration)),
    ("requests.exceptions.JSONDecodeError", Is(InvalidResponse)),
    // aiohttp
    ("aiohttp.ServerTimeoutError", Is(Timeout)),
    ("aiohttp.ClientConnectionError", Is(Connection)),
    ("aiohttp.ClientPayloadError", Is(Connection)),
    // Python builtins (the binding strips `builtins.`)
    ("ssl.SSLCertVerificationError", Is(Configuration)),
    ("ssl.SSLError", NetworkOrConfig),
    ("socket.gaierror", NetworkOrConfig),
    ("TimeoutError", Is(Timeout)),
    ("asyncio.TimeoutError", Is(Timeout)),
    ("asyncio.exceptions.TimeoutError", Is(Timeout)),
    ("concurrent.futures.TimeoutError", Is(Timeout)),
    ("concurrent.futures._base.TimeoutError", Is(Timeout)),
    ("socket.timeout", Is(Timeout)),
    ("ConnectionRefusedError", Is(Connection)),
    ("ConnectionResetError", Is(Connection)),
    ("ConnectionAbortedError", Is(Connection)),
    ("BrokenPipeError", Is(Connection)),
    ("ConnectionError", Is(Connection)),
    ("json.decoder.JSONDecodeError", Is(InvalidResponse)),
    ("json.JSONDecodeError", Is(InvalidResponse)),
    (
        "pydantic_core._pydantic_core.ValidationError",
        Is(Validation),
    ),
    ("pydantic.ValidationError", Is(Validation)),
    ("pydantic.error_wrappers.ValidationError", Is(Validation)),
    ("pydantic_core.ValidationError", Is(Validation)),
    ("TypeError", Is(Programming)),
    ("AttributeError", Is(Programming)),
    ("NameError", Is(Programming)),
    ("UnboundLocalError", Is(Programming)),
    ("NotImplementedError", Is(Programming)),
    // RubyLLM (lib/ruby_llm/error.rb)
    ("RubyLLM::RateLimitError", Is(RateLimited)),
    ("RubyLLM::OverloadedError", Is(Overloaded)),
    ("RubyLLM::ServiceUnavailableError", Is(ServerError)),
    ("RubyLLM::ServerError", Is(ServerError)),
    ("RubyLLM::UnauthorizedError", Is(Unauthorized)),
    ("RubyLLM::PaymentRequiredError", Is(PaymentRequired)),
    ("RubyLLM::ForbiddenError", Is(Forbidden)),
    ("RubyLLM::ContextLengthExceededError", Is(ContextOverflow)),
    ("RubyLLM::BadRequestError", Is(BadRequest)),
    ("RubyLLM::ConfigurationError", Is(Configuration)),
    ("RubyLLM::ModelNotFoundError", Is(Configuration)),
    ("RubyLLM::InvalidRoleError", Is(Programming)),
    ("RubyLLM::UnsupportedAttachmentError", Is(Configuration)),
    ("RubyLLM::Error", ApiError),
    // Faraday (lib/faraday/error.rb)
    ("Faraday::SSLError", NetworkOrConfig),
    ("Faraday::TimeoutError", Is(Timeout)),
    ("Faraday::ConnectionFailed", Is(Connection)),
    ("Faraday::RetriableResponse", Is(ServerError)),
    ("Faraday::TooManyRequestsError", Is(RateLimited)),
    ("Faraday::UnauthorizedError", Is(Unauthorized)),
    ("Faraday::ForbiddenError", Is(Forbidden)),
    ("Faraday::ResourceNotFound", Is(NotFound)),
    ("Faraday::BadRequestError", Is(BadRequest)),
    ("Faraday::UnprocessableEntityError", Is(Unprocessable)),
    ("Faraday::ServerError", Is(ServerError)),
    ("Faraday::ParsingError", Is(InvalidResponse)),
    ("Faraday::ClientError", Is(ClientError)),
    // Net::HTTP, Errno, OpenSSL, Ruby core
    ("Net::ReadTimeout", Is(Timeout)),
    ("Net::OpenTimeout", Is(Timeout)),
    ("Net::WriteTimeout", Is(Timeout)),
    ("Timeout::Error", Is(Timeout)),
    ("Errno::ETIMEDOUT", Is(Timeout)),
    ("Errno::ECONNREFUSED", Is(Connection)),
    ("Errno::ECONNRESET", Is(Connection)),
    ("Errno::ECONNABORTED", Is(Connection)),
    ("Errno::EPIPE", Is(Connection)),
    ("Errno::EHOSTUNREACH", Is(Connection)),
    ("Errno::ENETUNREACH", Is(Connection)),
    ("EOFError", Is(Connection)),
    ("IOError", Is(Connection)),
    ("Net::HTTPBadResponse", Is(InvalidResponse)),
    ("JSON::ParserError", Is(InvalidResponse)),
    ("SocketError", NetworkOrConfig),
    ("OpenSSL::SSL::SSLError", NetworkOrConfig),
    ("URI::InvalidURIError", Is(Configuration)),
    ("KeyError", Is(Unknown)),
    ("NoMethodError", Is(Programming)),
    ("ArgumentError", Is(Programming)),
    ("ZeroDivisionError", Is(Programming)),
    ("FrozenError", Is(Programming)),
];

/// Phrases in a message or body, matched as whole words, lower-case. Order is priority:
/// specific permanent meanings first, so "Invalid API key for connection" is unauthorized.
pub const PERMANENT_PHRASES: &[(&str, Category)] = &[
    // Tool pairing (SwarmSDK's detector patterns, plus OpenAI's wording)
    ("tool_use ids were found without", OrphanToolCalls),
    ("without `tool_result`", OrphanToolCalls),
    ("without tool_result", OrphanToolCalls),
    ("corresponding tool_result", OrphanToolCalls),
    ("corresponding `tool_result`", OrphanToolCalls),
    ("must immediately follow", OrphanToolCalls),
    ("unexpected `tool_use_id`", OrphanToolCalls),
    ("unexpected tool_use_id", OrphanToolCalls),
    ("must be followed by tool messages", OrphanToolCalls),
    ("did not have response messages", OrphanToolCalls),
    ("preceding message with 'tool_calls'", OrphanToolCalls),
    ("preceeding message with 'tool_calls'", OrphanToolCalls), // sic: OpenAI's spelling
    ("function response turn", OrphanToolCalls),               // Gemini
    ("toolresult blocks", OrphanToolCalls),                    // Bedrock Converse
    ("tool_call_id", OrphanToolCalls),
    ("tool_use_id", OrphanToolCalls),
    ("tool_result", OrphanToolCalls),
    // Context overflow (RubyLLM's and LiteLLM's context patterns)
    ("context_length_exceeded", ContextOverflow),
    ("maximum context length", ContextOverflow),
    ("context length", ContextOverflow),
    ("context window", ContextOverflow),
    ("prompt is too long", ContextOverflow),
    ("input is too long", ContextOverflow),
    ("too many tokens", ContextOverflow),
    ("request too large", ContextOverflow),
    ("reduce the length of the messages", ContextOverflow),
    ("exceeds the context", ContextOverflow),
    ("exceed context limit", ContextOverflow), // Anthropic: input length and `max_tokens` exceed context limit
    ("input token count", ContextOverflow),
    // Billing
    ("insufficient_quota", PaymentRequired),
    (
        "exceeded your current quota, please check your plan and billing details",
        PaymentRequired,
    ),
    ("check your plan and billing details", PaymentRequired),
    ("credit balance is too low", PaymentRequired),
    ("insufficient credits", PaymentRequired),
    ("insufficient balance", PaymentRequired),
    ("out of credits", PaymentRequired),
    ("payment required", PaymentRequired),
    ("billing", PaymentRequired),
    // Safety
    ("content_filter", ContentFiltered),
    ("content filter", ContentFiltered),
    ("content management policy", ContentFiltered),
    ("content policy", ContentFiltered),
    ("safety system", ContentFiltered),
    ("responsibleaipolicyviolation", ContentFiltered),
    ("flagged", ContentFiltered),
    ("blocked due to safety", ContentFiltered),
    // Credentials and access
    ("invalid api key", Unauthorized),
    ("incorrect api key", Unauthorized),
    ("invalid x-api-key", Unauthorized),
    ("api key not valid", Unauthorized),
    ("invalid_api_key", Unauthorized),
    ("authentication_error", Unauthorized),
    ("invalid authentication", Unauthorized),
    ("unauthorized", Unauthorized),
    ("permission denied", Forbidden),
    ("permission_error", Forbidden),
    ("access denied", Forbidden),
    ("forbidden", Forbidden),
    // Set-up mistakes
    ("missing api key", Configuration),
    ("api key is missing", Configuration),
    ("no api key", Configuration),
    ("api_key client option must be set", Configuration),
    ("certificate verify failed", Configuration),
    ("invalid peer certificate", Configuration),
    ("certificate", Configuration),
    ("relative url without a base", Configuration),
    ("name or service not known", Configuration),
    ("nodename nor servname provided", Configuration),
    ("no address associated with hostname", Configuration),
    ("unsupported protocol", Configuration),
    ("invalid url", Configuration),
    ("unknown model", Configuration),
    ("model not found", NotFound),
    ("no such model", NotFound),
    ("does not exist", NotFound),
    ("not_found_error", NotFound),
    // Output that failed validation (pydantic: "1 validation error for Plan")
    ("validation error for", Validation),
    ("validation errors for", Validation),
];

/// Transient phrases: only consulted when nothing permanent (and no status) was found.
pub const TRANSIENT_PHRASES: &[(&str, Category)] = &[
    ("rate limit", RateLimited),
    ("rate limited", RateLimited),
    ("rate_limit_error", RateLimited),
    ("rate_limit_exceeded", RateLimited),
    ("ratelimiterror", RateLimited),
    ("too many requests", RateLimited),
    ("throttled", RateLimited),
    ("throttling", RateLimited),
    ("throttlingexception", RateLimited),
    ("resource_exhausted", RateLimited),
    ("resource exhausted", RateLimited),
    ("overloaded", Overloaded),
    ("over capacity", Overloaded),
    ("at capacity", Overloaded),
    ("overloaded_error", Overloaded),
    ("gateway timeout", ServerError),
    ("gateway time-out", ServerError),
    ("internal server error", ServerError),
    ("bad gateway", ServerError),
    ("service unavailable", ServerError),
    // Wordings PlanExe's substring list retried ("temporarily unavailable", "capacity",
    // "try again"), kept to the phrases that only ever describe a passing condition.
    ("temporarily unavailable", ServerError),
    ("try again later", ServerError),
    ("server error", ServerError),
    ("upstream connect error", ServerError),
    ("origin is unreachable", ServerError),
    ("web server is down", ServerError),
    ("timed out", Timeout),
    ("timeout", Timeout),
    ("time out", Timeout),
    ("deadline exceeded", Timeout),
    ("etimedout", Timeout),
    ("temporary failure in name resolution", Connection),
    ("connection refused", Connection),
    ("connection reset", Connection),
    ("connection aborted", Connection),
    ("connection closed", Connection),
    ("connection error", Connection),
    ("connection failed", Connection),
    ("connection lost", Connection),
    ("failed to connect", Connection),
    ("broken pipe", Connection),
    ("econnrefused", Connection),
    ("econnreset", Connection),
    ("server disconnected", Connection),
    ("remote end closed connection", Connection),
    ("remote protocol error", Connection),
    ("peer closed connection", Connection),
    ("incomplete chunked read", Connection),
    ("unexpected eof", Connection),
    ("network is unreachable", Connection),
    ("invalid json", InvalidResponse),
    ("malformed json", InvalidResponse),
    ("expecting value", InvalidResponse),
    ("failed to parse", InvalidResponse),
];

/// Words that introduce a status code in free text ("Error code: 429 - ...", "HTTP 503").
/// A bare number is never evidence: "max_tokens 1500" is not a 500.
pub const STATUS_INTRODUCERS: &[&str] = &[
    "error code",
    "status code",
    "status",
    "http status",
    "http",
    "http/1.1",
    "http/2",
    "code",
];

/// Categories a message phrase may refine a permanent HTTP status into.
pub const PERMANENT_REFINEMENTS: &[Category] = &[
    OrphanToolCalls,
    ContextOverflow,
    PaymentRequired,
    ContentFiltered,
    Unauthorized,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The length index finds what a scan of the table finds, for every row and for near misses.
    #[test]
    fn code_row_is_the_first_matching_row() {
        let scan = |code: &str| CODES.iter().find(|r| r.code == code);
        let mut probes: Vec<String> = CODES.iter().map(|r| r.code.to_owned()).collect();
        for r in CODES {
            probes.push(r.code.to_ascii_uppercase());
            probes.push(format!("{}x", r.code));
            probes.push(r.code[1..].to_owned());
            probes.push(format!("x{}", &r.code[1..]));
        }
        probes.extend(["", "x", "error", "tokens", &"a".repeat(200)].map(String::from));
        for p in &probes {
            let key = |r: &CodeRow| (r.code, r.category, r.generic);
            assert_eq!(code_row(p).map(key), scan(p).map(key), "{p}");
        }
    }

    /// Codes are unique and already normalised (lower case, no ':' or '#'), so the first row
    /// that matches is the only one, generic or not.
    #[test]
    fn codes_are_unique_and_normalised() {
        for (i, r) in CODES.iter().enumerate() {
            assert!(!r.code.is_empty());
            assert_eq!(crate::classify::body::normalize_code(r.code), r.code);
            assert!(
                CODES[..i].iter().all(|o| o.code != r.code),
                "{} twice",
                r.code
            );
        }
    }
}
